//! `summary.csv`: one row per (input, label, format), for spreadsheets and scripts.
//!
//! Columns, in order:
//! - `input`: the input's file name (rows of the same file name are pooled, whatever the path);
//! - `label`, `format`;
//! - `runs`: how many runs the group has (one CSV row each);
//! - `hosts`: the distinct `host` values, `;`-separated;
//! - `ratio_to_fastest`: the group's speed key over the fastest format's of the same input and
//!   label, 1 for the fastest; the key is the median across runs of each run's ser + de_all
//!   (serialize plus the complete decode): ser batch + de_all batch when every format of the
//!   input and label has them, else ser p50 + de_all p50, else (CSVs from before the complete
//!   decode) ser p50 + de p50 (`ranked_by` says which);
//! - then, for each measure `M` of `bytes_per_message`, `msgs_per_sec`, `ser_p50_ns`,
//!   `ser_p90_ns`, `ser_p99_ns`, `ser_p999_ns`, `ser_p9999_ns`, `ser_max_ns`, `ser_mean_ns`, the
//!   same seven for `de_`, and `timer_overhead_ns`: four columns `M_median`, `M_min`, `M_max`
//!   and `M_cv_pct` (sample standard deviation over mean across runs, in %, 0 for one run);
//! - then the size as stored, appended after the columns above so that older readers keep their
//!   positions: `zstd_bytes_per_message` and `zlib_bytes_per_message` (each run's `zstd_bytes` or
//!   `zlib_bytes` over its `messages`), four columns each as above; `zstd_ns_median`, the total
//!   time zstd took per run; `ratio_to_raw`, the speed key over the same for the `raw` format of
//!   the same input and label, 1 for raw. These are reduced over the runs that measured them and
//!   are empty when none did (runs with `--no-stored-size`, CSVs written before the columns
//!   existed) or, for `ratio_to_raw`, when raw did not run;
//! - then the complete decode and the batch timings, appended likewise: four columns each (as
//!   above) for `de_all_p50_ns` ... `de_all_mean_ns` (the complete decode: every field of every
//!   message read and checksummed; `de_` is the selective decode), `ser_batch_ns`,
//!   `de_batch_ns`, `de_all_batch_ns` and `memcpy_batch_ns` (one clock pair around each whole
//!   window, ns per packet); `ratio_all_to_raw`, ser batch + de_all batch (median of the runs'
//!   sums) over raw's, equal to `ratio_to_raw` when ranked by batch, empty otherwise;
//!   `ranked_by`, `batch`, `p50` or `p50-selective` (the three keys above), what
//!   `ratio_to_fastest` and `ratio_to_raw` come from; `clocks`, the distinct `clock` values, `;`-separated. Empty when not measured (CSVs
//!   written before the columns existed).
//!
//! Numbers are rounded to 3 decimals. Rows are sorted by input, label, then fastest first.

use std::io::{self, Write};

use super::export::{Export, ReportData};
use super::load::PERCENTILE_COLUMNS;
use super::stats::{Group, Stat};
use crate::measure::Workload;

pub struct SummaryCsv;

/// The measures (`M` above), four columns each: those before `zstd_ns_median`, then the complete
/// decode's percentiles and the batch timings.
fn measures() -> [Vec<String>; 2] {
    let percentiles = |side: &str| -> Vec<String> {
        (PERCENTILE_COLUMNS.iter())
            .map(|p| format!("{side}_{p}_ns"))
            .collect()
    };
    let mut first = vec!["bytes_per_message".to_owned(), "msgs_per_sec".to_owned()];
    first.extend(percentiles("ser").into_iter().chain(percentiles("de")));
    first.extend(
        [
            "timer_overhead_ns",
            "zstd_bytes_per_message",
            "zlib_bytes_per_message",
        ]
        .map(String::from),
    );
    let mut batch = percentiles("de_all");
    batch.extend(
        [
            "ser_batch_ns",
            "de_batch_ns",
            "de_all_batch_ns",
            "memcpy_batch_ns",
        ]
        .map(String::from),
    );
    [first, batch]
}

/// The header, column by column.
pub fn columns() -> Vec<String> {
    let mut c: Vec<String> = [
        "input",
        "label",
        "format",
        "runs",
        "hosts",
        "ratio_to_fastest",
    ]
    .map(String::from)
    .to_vec();
    let [first, batch] = measures();
    let four = |m: &String| STAT_SUFFIXES.map(|s| format!("{m}_{s}"));
    c.extend(first.iter().flat_map(four));
    c.extend(["zstd_ns_median", "ratio_to_raw"].map(String::from));
    c.extend(batch.iter().flat_map(four));
    c.extend(["ratio_all_to_raw", "ranked_by", "clocks"].map(String::from));
    c
}

/// A group's figures in the order of [`measures`]. A format timed only per window has no
/// latency: its seven cells per workload stay empty.
fn stats(g: &Group) -> [Vec<Option<Stat>>; 2] {
    let latency = |w| g.latency(w).map_or([None; 7], |l| l.0.map(Some));
    let mut first = vec![Some(g.bytes_per_message), Some(g.msgs_per_sec)];
    first.extend(
        latency(Workload::Encode)
            .into_iter()
            .chain(latency(Workload::Selective)),
    );
    first.extend([
        Some(g.timer_overhead_ns),
        g.zstd_bytes_per_message,
        g.zlib_bytes_per_message,
    ]);
    let mut batch = latency(Workload::Complete).to_vec();
    batch.extend(g.throughput.values().copied());
    batch.push(g.column(|r| r.memcpy_batch_ns));
    [first, batch]
}

fn four(s: &Option<Stat>) -> [String; 4] {
    match s {
        Some(s) => [num(s.median), num(s.min), num(s.max), num(s.cv_pct)],
        None => STAT_SUFFIXES.map(|_| String::new()),
    }
}

const STAT_SUFFIXES: [&str; 4] = ["median", "min", "max", "cv_pct"];

fn num(x: f64) -> String {
    let r = (x * 1000.0).round() / 1000.0;
    format!("{}", r + 0.0) // + 0.0 turns -0 into 0
}

impl Export for SummaryCsv {
    fn file_name(&self) -> &'static str {
        "summary.csv"
    }

    fn write(&self, report: &ReportData<'_>, w: &mut dyn Write) -> io::Result<()> {
        let mut out = ::csv::Writer::from_writer(w);
        out.write_record(columns())?;
        for g in &report.summary.groups {
            let mut rec = vec![
                g.input.clone(),
                g.label.clone(),
                g.format.clone(),
                g.runs.to_string(),
                g.hosts.join(";"),
                num(g.ratio_to_fastest),
            ];
            let [first, batch] = stats(g);
            rec.extend(first.iter().flat_map(four));
            rec.push(g.zstd_ns.map_or(String::new(), |s| num(s.median)));
            rec.push(g.ratio_to_raw.map_or(String::new(), num));
            rec.extend(batch.iter().flat_map(four));
            rec.push(g.ratio_all_to_raw.map_or(String::new(), num));
            rec.push(g.basis.name().to_owned());
            rec.push(g.clocks.join(";"));
            out.write_record(rec)?;
        }
        out.flush()
    }
}
