//! The positive controls of a section: a format measured again with a known extra work planted
//! (`<format>.plus5`: one unit in 20 fed twice, `planted` 0.05; see `measure::twins`), in the
//! same runs as its original. Did the method see the planted difference (resolved by the
//! verdict's own rule, at the resolution the section's A/A twins set), and does its interval
//! contain it? That is the power and the calibration of the very runs the verdict comes from,
//! shown beside it, and written as `controls.csv` (one row per control and timed figure).

use std::io::{self, Write};

use super::analysis::Analysis;
use super::export::{Export, ReportData};
use super::resolution::MIN_PAIRED_RUNS;
use super::stats::TwinPair;
use super::twins::CopyFigure;
use crate::output::Table;

impl CopyFigure {
    /// The verdict's rule calls the control slower than its original.
    pub fn resolved(&self) -> bool {
        self.interval
            .is_some_and(|iv| iv.slower_beyond(self.resolution.delta))
    }

    /// The interval contains the planted ratio (1 + planted).
    pub fn contains(&self) -> bool {
        let want = 1.0 + self.planted;
        self.interval
            .is_some_and(|iv| iv.lo <= want && want <= iv.hi)
    }

    /// The interval excludes 1: the runs see a difference, whether or not it clears the
    /// resolution.
    pub fn seen(&self) -> bool {
        self.interval
            .is_some_and(|iv| iv.runs >= MIN_PAIRED_RUNS && iv.lo > 1.0)
    }

    /// What became of the planted difference, in a few words, the why in brackets (the report
    /// shows the brackets smaller, as the twins' calls).
    pub(super) fn control_call(&self) -> String {
        let delta = self.resolution.delta * 100.0;
        match self.interval {
            None => "not measured".to_owned(),
            Some(iv) if iv.runs < MIN_PAIRED_RUNS => {
                format!("not resolved (fewer than {MIN_PAIRED_RUNS} paired runs)")
            }
            Some(_) if self.resolved() => format!("resolved (beyond the {delta:.1}% resolution)"),
            Some(_) if self.seen() => {
                format!("seen, not resolved (under the {delta:.1}% resolution)")
            }
            Some(_) => "not seen (the interval holds 1)".to_owned(),
        }
    }
}

fn yes(b: bool) -> &'static str {
    ["no", "yes"][usize::from(b)]
}

/// The section's controls block; `None` without controls.
pub fn table(figures: &[CopyFigure]) -> Option<Table> {
    if figures.is_empty() {
        return None;
    }
    let header = [
        "control",
        "figure",
        "called",
        "per run",
        "geometric mean",
        "contains",
    ];
    let caption = "Positive controls: a format measured again with a known extra work planted \
                  (its original's code fed the original's window with one unit in 20 repeated, \
                  its time divided by the original's units: +5% by construction), control over \
                  original run by run, paired by run. Resolved: the verdict's rule calls it \
                  slower, at the resolution the verdict uses here (the A/A twins' bias); \
                  contains: the 95% interval holds the planted ratio. A control never resolved \
                  says the runs cannot see a difference that size; one whose interval misses its \
                  planted ratio, that the interval is not to be read at face value (or that the \
                  repeated units were not the window's average: see docs/method.md). Controls \
                  are left out of every other table, chart and ranking.";
    let row = |f: &CopyFigure| [f.cells(3), vec![yes(f.contains()).to_owned()]].concat();
    Some(Table {
        rows: figures.iter().map(row).collect(),
        ..Table::new(caption, 3, &header)
    })
}

/// One line for under the verdict: how many of the `controls`' figures the runs resolved, and
/// how many intervals held the planted ratio.
pub fn answer_line(figures: &[CopyFigure], controls: &[TwinPair<'_>]) -> Option<String> {
    let n = figures.len();
    let count = |f: fn(&CopyFigure) -> bool| figures.iter().filter(|x| f(x)).count();
    let (resolved, seen, contains) = (
        count(CopyFigure::resolved),
        count(CopyFigure::seen),
        count(CopyFigure::contains),
    );
    let names: Vec<&str> = controls.iter().map(|c| c.twin.format.as_str()).collect();
    Some(format!(
        "Positive controls ({}, +{:.0}% planted): resolved in {resolved} of {n} figures, seen \
         (interval above 1) in {seen}, interval containing the planted ratio in {contains}.",
        names.join(", "),
        figures.first()?.planted * 100.0
    ))
}

/// `controls.csv`: input, label, figure, control, planted, ratio, ci_low, ci_high, resolved,
/// contains; one row per control and timed figure of every section.
pub struct ControlsCsv;

impl Export for ControlsCsv {
    fn file_name(&self) -> &'static str {
        "controls.csv"
    }

    fn write(&self, report: &ReportData<'_>, w: &mut dyn io::Write) -> io::Result<()> {
        write_csv(report.analysis, w)
    }
}

fn write_csv(analysis: &Analysis<'_>, w: &mut dyn Write) -> io::Result<()> {
    let mut csv = csv::Writer::from_writer(w);
    let header = "input,label,figure,control,planted,ratio,ci_low,ci_high,resolved,contains";
    csv.write_record(header.split(','))?;
    for s in &analysis.sections {
        for f in &s.control_figures {
            let cell = |x: Option<f64>| x.map_or(String::new(), |v| format!("{v:.4}"));
            let iv = f.interval;
            csv.write_record([
                s.input,
                s.label,
                f.figure,
                &f.copy,
                &format!("{}", f.planted),
                &cell(iv.map(|i| i.ratio)),
                &cell(iv.map(|i| i.lo)),
                &cell(iv.map(|i| i.hi)),
                yes(f.resolved()),
                yes(f.contains()),
            ])?;
        }
    }
    csv.flush()
}
