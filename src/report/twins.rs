//! The A/A twins of a section: a format measured a second time under the name
//! `<format>.twin` in the same runs, placed in the order like any format. The two are the same
//! code, so their paired ratio should be 1; what it is instead is what the runs cannot resolve
//! (code placement, order, neighbours, noise). The twins set the verdict's resolution (see
//! [`super::resolution`]) and are never ranked; here each is shown against its original, and
//! called by the verdict's own rule: a twin called apart means the method is broken.

use super::load::RunRow;
use super::resolution::{Interval, Resolution, MIN_PAIRED_RUNS};
use super::stats::{section_name, Summary, TwinPair, Warning, WarningKind};
use super::tables::Table;
use crate::measure::Workload;

/// One run's figure, ns per unit; `None` where not measured.
pub(super) type Of = fn(&RunRow) -> Option<f64>;

/// The batch figures a twin is compared on: each workload, then the ranking sum.
pub(super) const FIGURES: [(&str, Of); 4] = [
    ("ser batch", |r| r.throughput[Workload::Encode]),
    ("de batch", |r| r.throughput[Workload::Selective]),
    ("de_all batch", |r| r.throughput[Workload::Complete]),
    ("ser + de_all batch", |r| {
        Some(r.throughput[Workload::Encode]? + r.throughput[Workload::Complete]?)
    }),
];

/// One twin on one figure.
#[derive(Debug, Clone, PartialEq)]
pub struct TwinFigure {
    pub twin: String,
    pub figure: &'static str,
    /// Twin over original, run by run (paired by run id), in the original's run order.
    pub ratios: Vec<f64>,
    pub interval: Option<Interval>,
    /// The resolution the twin is called with: the floor and the section's other twins.
    pub resolution: Resolution,
    /// Whether the verdict's rule calls the two apart: it must not.
    pub apart: bool,
}

pub(super) fn paired(f: Of, original: &[RunRow], twin: &[RunRow]) -> Vec<f64> {
    original
        .iter()
        .filter_map(|o| {
            let t = twin.iter().find(|t| t.run_id == o.run_id)?;
            let (a, b) = (f(o)?, f(t)?);
            (a > 0.0).then(|| b / a)
        })
        .collect()
}

/// Every twin of a section on every figure both copies measured.
pub fn figures(pairs: &[TwinPair<'_>]) -> Vec<TwinFigure> {
    let mut out = Vec::new();
    for (i, p) in pairs.iter().enumerate() {
        for (figure, f) in FIGURES {
            let ratios = paired(f, &p.original.rows, &p.twin.rows);
            if ratios.is_empty() {
                continue;
            }
            let interval = Interval::of_ratios(&ratios);
            let others = pairs.iter().enumerate().filter(|(j, _)| *j != i);
            let resolution = Resolution::of(others.filter_map(|(_, o)| {
                let iv = Interval::of_ratios(&paired(f, &o.original.rows, &o.twin.rows))?;
                Some((o.twin.format.as_str(), iv))
            }));
            out.push(TwinFigure {
                twin: p.twin.format.clone(),
                figure,
                apart: interval.is_some_and(|iv| iv.apart_beyond(resolution.delta)),
                ratios,
                interval,
                resolution,
            });
        }
    }
    out
}

impl TwinFigure {
    /// What the verdict's rule calls the twin and its original.
    pub fn call(&self) -> String {
        match self.interval {
            _ if self.apart => format!(
                "NOT A TIE: named apart beyond the {:.1}% resolution; the method is broken",
                self.resolution.delta * 100.0
            ),
            Some(iv) if iv.runs >= MIN_PAIRED_RUNS => format!(
                "tie (within the {:.1}% resolution)",
                self.resolution.delta * 100.0
            ),
            _ => format!("tie (fewer than {MIN_PAIRED_RUNS} paired runs)"),
        }
    }

    fn interval_text(&self) -> String {
        self.interval.map_or("-".to_owned(), |iv| {
            format!("{:.2}x (95% CI {:.2}–{:.2}x)", iv.ratio, iv.lo, iv.hi)
        })
    }
}

/// A twin's or a control's ratios, run by run, as the tables show them: `1.013 0.987 …`.
pub(super) fn per_run(ratios: &[f64]) -> String {
    ratios
        .iter()
        .map(|r| format!("{r:.3}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The section's A/A block; `None` without twins.
pub fn table(pairs: &[TwinPair<'_>]) -> Option<Table> {
    let figures = figures(pairs);
    if figures.is_empty() {
        return None;
    }
    Some(Table {
        left: 3,
        caption: "A/A twins: a format measured a second time under another name in the same \
                  runs (the same code), twin over original run by run, paired by run. The ratio \
                  should be 1; the interval is the verdict's (geometric mean, 95% Student-t \
                  across runs), and the call is the verdict's rule with the resolution it would \
                  have without this twin (the floor and the other twins). It must be a tie. \
                  The twins are left out of every other table, chart, ranking and baseline \
                  comparison."
            .to_owned(),
        header: ["twin", "figure", "called", "per run", "geometric mean"]
            .map(String::from)
            .to_vec(),
        rows: figures
            .iter()
            .map(|f| {
                vec![
                    f.twin.clone(),
                    f.figure.to_owned(),
                    f.call(),
                    per_run(&f.ratios),
                    f.interval_text(),
                ]
            })
            .collect(),
    })
}

/// One line per twin for under the verdict: its ranking sum against its original.
pub fn answer_lines(pairs: &[TwinPair<'_>]) -> Vec<String> {
    figures(pairs)
        .iter()
        .filter(|f| f.figure == FIGURES[3].0)
        .map(|f| {
            format!(
                "A/A twin {} against {}, {}: {}, called {}.",
                f.twin,
                f.twin.trim_end_matches(".twin"),
                f.figure,
                f.interval_text(),
                f.call()
            )
        })
        .collect()
}

/// A warning for every twin the rule calls apart: the loudest thing the report can say.
pub fn warnings(summary: &Summary) -> Vec<Warning> {
    summary
        .sections()
        .into_iter()
        .flat_map(|(input, label, _)| {
            figures(&summary.twin_pairs(input, label))
                .into_iter()
                .filter(|f| f.apart)
                .map(move |f| {
                    Warning::new(
                        WarningKind::TwinApart,
                        format!(
                            "{} {} {}: {} against its own copy: {}",
                            section_name(input, label),
                            f.twin,
                            f.figure,
                            f.interval_text(),
                            f.call()
                        ),
                    )
                })
        })
        .collect()
}
