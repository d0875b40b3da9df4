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
//!   and `M_cv_pct` (sample standard deviation over mean across runs, in %, 0 for one run).
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
    for m in measures() {
        for s in ["median", "min", "max", "cv_pct"] {
            c.push(format!("{m}_{s}"));
        }
    }
    c
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
            out.write_record(rec)?;
        }
        out.flush()
    }
}
