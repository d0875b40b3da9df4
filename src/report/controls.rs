//! The positive controls of a section: a format measured again with a known extra work planted
//! (`<format>.plus5`: one unit in 20 fed twice, `planted` 0.05; see `measure::twins`), in the
//! same runs as its original. Did the method see the planted difference (resolved by the
//! verdict's own rule, at the resolution the section's A/A twins set), and does its interval
//! contain it? That is the power and the calibration of the very runs the verdict comes from,
//! shown beside it, and written as `controls.csv` (one row per control and timed figure).

use std::io::{self, Write};

use super::export::{Export, ReportData};
use super::resolution::{Interval, Resolution, MIN_PAIRED_RUNS};
use super::stats::{planted, Summary, TwinPair};
use super::twins::{bias, paired, per_run, FIGURES};
use crate::output::Table;

/// One control on one figure.
#[derive(Debug, Clone, PartialEq)]
pub struct ControlFigure {
    pub control: String,
    pub figure: &'static str,
    /// The planted extra work, as a fraction (0.05).
    pub planted: f64,
    /// Control over original, run by run (paired by run id).
    pub ratios: Vec<f64>,
    pub interval: Option<Interval>,
    /// The resolution the verdict would name a winner by on this figure (the A/A bias, or the
    /// section's A/A twins).
    pub resolution: Resolution,
}

impl ControlFigure {
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

    fn interval_text(&self) -> String {
        self.interval.map_or("-".to_owned(), |iv| {
            format!("{:.3}x (95% CI {:.3}–{:.3}x)", iv.ratio, iv.lo, iv.hi)
        })
    }

    /// What became of the planted difference, in a few words, the why in brackets (the report
    /// shows the brackets smaller, as the twins' calls).
    pub fn call(&self) -> String {
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

/// Every control of a section on every figure it and its original measured; `twins` are the
/// section's A/A twins, which set the resolution.
pub fn figures(controls: &[TwinPair<'_>], twins: &[TwinPair<'_>]) -> Vec<ControlFigure> {
    let mut out = Vec::new();
    for c in controls {
        for f in &FIGURES {
            let ratios = paired(f, &c.original.rows, &c.twin.rows);
            if ratios.is_empty() {
                continue;
            }
            let resolution = bias(twins, None);
            out.push(ControlFigure {
                control: c.twin.format.clone(),
                figure: f.name,
                planted: planted(&c.twin.rows[0]),
                interval: Interval::of_ratios(&ratios),
                ratios,
                resolution,
            });
        }
    }
    out
}

fn yes(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

/// The section's controls block; `None` without controls.
pub fn table(controls: &[TwinPair<'_>], twins: &[TwinPair<'_>]) -> Option<Table> {
    let figures = figures(controls, twins);
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
    Some(Table {
        rows: figures
            .iter()
            .map(|f| {
                vec![
                    f.control.clone(),
                    f.figure.to_owned(),
                    f.call(),
                    per_run(&f.ratios),
                    f.interval_text(),
                    yes(f.contains()).to_owned(),
                ]
            })
            .collect(),
        ..Table::new(caption, 3, &header)
    })
}

/// One line for under the verdict: how many of the controls' figures the runs resolved, and
/// how many intervals held the planted ratio.
pub fn answer_line(controls: &[TwinPair<'_>], twins: &[TwinPair<'_>]) -> Option<String> {
    let figures = figures(controls, twins);
    if figures.is_empty() {
        return None;
    }
    let n = figures.len();
    let resolved = figures.iter().filter(|f| f.resolved()).count();
    let seen = figures.iter().filter(|f| f.seen()).count();
    let contains = figures.iter().filter(|f| f.contains()).count();
    let names: Vec<&str> = controls.iter().map(|c| c.twin.format.as_str()).collect();
    Some(format!(
        "Positive controls ({}, +{:.0}% planted): resolved in {resolved} of {n} figures, seen \
         (interval above 1) in {seen}, interval containing the planted ratio in {contains}.",
        names.join(", "),
        figures[0].planted * 100.0
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
        write_csv(report.summary, w)
    }
}

fn write_csv(summary: &Summary, w: &mut dyn Write) -> io::Result<()> {
    writeln!(
        w,
        "input,label,figure,control,planted,ratio,ci_low,ci_high,resolved,contains"
    )?;
    for (input, label, _) in summary.sections() {
        let twins = summary.twin_pairs(input, label);
        for f in figures(&summary.control_pairs(input, label), &twins) {
            let cell = |x: Option<f64>| x.map_or(String::new(), |v| format!("{v:.4}"));
            let iv = f.interval;
            let mut record = csv::Writer::from_writer(Vec::new());
            record
                .write_record([
                    input,
                    label,
                    f.figure,
                    &f.control,
                    &format!("{}", f.planted),
                    &cell(iv.map(|i| i.ratio)),
                    &cell(iv.map(|i| i.lo)),
                    &cell(iv.map(|i| i.hi)),
                    yes(f.resolved()),
                    yes(f.contains()),
                ])
                .map_err(io::Error::other)?;
            w.write_all(
                &record
                    .into_inner()
                    .map_err(|e| io::Error::other(e.to_string()))?,
            )?;
        }
    }
    Ok(())
}
