//! The A/A twins of a section: a format measured a second time under the name
//! `<format>.twin` in the same runs, placed in the order like any format. The two are the same
//! code, so their paired ratio should be 1; what it is instead is what the runs cannot resolve
//! (code placement, order, neighbours, noise). The twins set the verdict's resolution (see
//! [`super::resolution`]) and are never ranked; here each is shown against its original, and
//! called by the verdict's own rule: a twin called apart means the method is broken.

use super::load::RunRow;
use super::resolution::{Interval, Resolution, MIN_PAIRED_RUNS};
use super::stats::{section_name, Summary, TwinPair, Warning, WarningKind};
use crate::measure::Workload;
use crate::output::Table;

/// One run's figure, ns per unit; `None` where not measured.
pub(super) type Of = fn(&RunRow) -> Option<f64>;

/// A batch figure a twin is compared on: its name, one run's value, and the workloads whose
/// windows sum to it (`report::windows`).
pub(super) struct Figure {
    pub name: &'static str,
    pub of: Of,
    pub workloads: &'static [Workload],
}

/// The batch figures a twin is compared on: each workload, then the ranking sum.
pub(super) const FIGURES: [Figure; 4] = [
    Figure {
        name: "ser batch",
        of: |r| r.throughput[Workload::Encode],
        workloads: &[Workload::Encode],
    },
    Figure {
        name: "de batch",
        of: |r| r.throughput[Workload::Selective],
        workloads: &[Workload::Selective],
    },
    Figure {
        name: "de_all batch",
        of: |r| r.throughput[Workload::Complete],
        workloads: &[Workload::Complete],
    },
    Figure {
        name: "ser + de_all batch",
        of: |r| Some(r.throughput[Workload::Encode]? + r.throughput[Workload::Complete]?),
        workloads: &[Workload::Encode, Workload::Complete],
    },
];

/// One twin on one figure.
#[derive(Debug, Clone, PartialEq)]
pub struct TwinFigure {
    pub twin: String,
    pub figure: &'static str,
    /// Twin over original, run by run (paired by run id), in the original's run order.
    pub ratios: Vec<f64>,
    pub interval: Option<Interval>,
    /// The resolution the twin is called with: the A/A bias of the section's other twins.
    pub resolution: Resolution,
    /// Whether the verdict's rule calls the two apart: it must not.
    pub apart: bool,
}

/// The twin's figure over its original's, run by run (`report::windows`).
pub(super) fn paired(f: &Figure, original: &[RunRow], twin: &[RunRow]) -> Vec<f64> {
    super::windows::ratios(f.workloads, original, twin, f.of)
}

/// The section's A/A bias ([`TwinWidth::Pooled`](super::resolution::TwinWidth)): every A/A
/// twin's interval on every workload's batch figure (not the ranking sum, which is made of two of
/// them), but `except`'s (a twin is not judged by its own gaps).
pub(super) fn bias(pairs: &[TwinPair<'_>], except: Option<&str>) -> Resolution {
    Resolution::of(
        pairs
            .iter()
            .filter(|p| Some(p.twin.format.as_str()) != except)
            .flat_map(|p| {
                FIGURES[..3].iter().filter_map(move |f| {
                    let iv = Interval::of_ratios(&paired(f, &p.original.rows, &p.twin.rows))?;
                    Some((p.twin.format.as_str(), iv))
                })
            }),
    )
}

/// Every twin of a section on every figure both copies measured.
pub fn figures(pairs: &[TwinPair<'_>]) -> Vec<TwinFigure> {
    let mut out = Vec::new();
    for p in pairs {
        for f in &FIGURES {
            let ratios = paired(f, &p.original.rows, &p.twin.rows);
            if ratios.is_empty() {
                continue;
            }
            let interval = Interval::of_ratios(&ratios);
            let resolution = bias(pairs, Some(&p.twin.format));
            out.push(TwinFigure {
                twin: p.twin.format.clone(),
                figure: f.name,
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
    let header = ["twin", "figure", "called", "per run", "geometric mean"];
    let caption = "A/A twins: a format measured a second time under another name in the same \
                  runs (the same code), twin over original run by run, paired by run. The ratio \
                  should be 1; the interval is the verdict's (geometric mean, 95% Student-t \
                  across runs), and the call is the verdict's rule with the resolution it would \
                  have without this twin (the A/A bias of the other twins' gaps). It must be a tie. \
                  The twins are left out of every other table, chart, ranking and baseline \
                  comparison.";
    Some(Table {
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
        ..Table::new(caption, 3, &header)
    })
}

/// One line per twin for under the verdict: its ranking sum against its original.
pub fn answer_lines(pairs: &[TwinPair<'_>]) -> Vec<String> {
    figures(pairs)
        .iter()
        .filter(|f| f.figure == FIGURES[3].name)
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
