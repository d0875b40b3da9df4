//! `summary.csv`: one row per (input, label, format), for spreadsheets and scripts.
//!
//! Columns, in order:
//! - `input`: the input's file name (rows of the same file name are pooled, whatever the path);
//! - `label`, `format`;
//! - `runs`: how many runs the group has (one CSV row each);
//! - `hosts`: the distinct `host` values, `;`-separated;
//! - `ratio_to_fastest`: (median ser p50 + median de p50) over the same for the fastest format of
//!   the same input and label; 1 for the fastest;
//! - then, for each measure `M` of `bytes_per_message`, `msgs_per_sec`, `ser_p50_ns`,
//!   `ser_p90_ns`, `ser_p99_ns`, `ser_p999_ns`, `ser_p9999_ns`, `ser_max_ns`, `ser_mean_ns`, the
//!   same seven for `de_`, and `timer_overhead_ns`: four columns `M_median`, `M_min`, `M_max`
//!   and `M_cv_pct` (sample standard deviation over mean across runs, in %, 0 for one run);
//! - then the size as stored, appended after the columns above so that older readers keep their
//!   positions: `zstd_bytes_per_message` and `zlib_bytes_per_message` (each run's `zstd_bytes` or
//!   `zlib_bytes` over its `messages`), four columns each as above; `zstd_ns_median`, the total
//!   time zstd took per run; `ratio_to_raw`, (median ser p50 + median de p50) over the same for
//!   the `raw` format of the same input and label, 1 for raw. These are reduced over the runs
//!   that measured them and are empty when none did (runs with `--no-stored-size`, CSVs written
//!   before the columns existed) or, for `ratio_to_raw`, when raw did not run.
//!
//! Numbers are rounded to 3 decimals. Rows are sorted by input, label, then fastest first.

use std::io::{self, Write};

use super::load::PERCENTILE_COLUMNS;
use super::stats::{Group, Stat};
use super::{Export, ReportData};

pub struct SummaryCsv;

/// The measure names (`M` above), in column order.
pub fn measures() -> Vec<String> {
    let mut m = vec!["bytes_per_message".to_owned(), "msgs_per_sec".to_owned()];
    for side in ["ser", "de"] {
        m.extend(PERCENTILE_COLUMNS.iter().map(|p| format!("{side}_{p}_ns")));
    }
    m.push("timer_overhead_ns".to_owned());
    m
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
    for m in measures().iter().chain(&stored_measures()) {
        for s in STAT_SUFFIXES {
            c.push(format!("{m}_{s}"));
        }
    }
    c.extend(["zstd_ns_median", "ratio_to_raw"].map(String::from));
    c
}

const STAT_SUFFIXES: [&str; 4] = ["median", "min", "max", "cv_pct"];

/// The size-as-stored measures, four columns each like [`measures`], empty when not measured.
pub fn stored_measures() -> Vec<String> {
    vec![
        "zstd_bytes_per_message".to_owned(),
        "zlib_bytes_per_message".to_owned(),
    ]
}

fn stats(g: &Group) -> Vec<&Stat> {
    let mut s = vec![&g.bytes_per_message, &g.msgs_per_sec];
    s.extend(g.ser.0.iter());
    s.extend(g.de.0.iter());
    s.push(&g.timer_overhead_ns);
    s
}

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
            for s in stats(g) {
                rec.extend([num(s.median), num(s.min), num(s.max), num(s.cv_pct)]);
            }
            for s in [&g.zstd_bytes_per_message, &g.zlib_bytes_per_message] {
                match s {
                    Some(s) => rec.extend([num(s.median), num(s.min), num(s.max), num(s.cv_pct)]),
                    None => rec.extend(STAT_SUFFIXES.map(|_| String::new())),
                }
            }
            rec.push(g.zstd_ns.map_or(String::new(), |s| num(s.median)));
            rec.push(g.ratio_to_raw.map_or(String::new(), num));
            out.write_record(rec)?;
        }
        out.flush()
    }
}
