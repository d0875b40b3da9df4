//! The copies of a section's formats measured in the same runs and placed in the order like any
//! format, never ranked: the A/A twins (`<format>.twin`, the same code, so their paired ratio
//! should be 1; what it is instead is what the runs cannot resolve: code placement, order,
//! neighbours, noise), which set the verdict's resolution (see [`super::resolution`]), and the
//! positive controls ([`super::controls`]). Each is shown against its original and called by the
//! verdict's own rule: a twin called apart means the method is broken.

use super::load::RunRow;
use super::resolution::{Interval, Resolution, MIN_PAIRED_RUNS};
use super::stats::{planted, TwinPair};
use crate::measure::Workload;
use crate::output::Table;

/// The batch figures a copy is compared on: each workload, then the ranking sum; each a name
/// and the workloads whose figures (and windows, `report::windows`) sum to it.
pub(super) const FIGURES: [(&str, &[Workload]); 4] = [
    ("ser batch", &[Workload::Encode]),
    ("de batch", &[Workload::Selective]),
    ("de_all batch", &[Workload::Complete]),
    (
        "ser + de_all batch",
        &[Workload::Encode, Workload::Complete],
    ),
];

/// One copy (an A/A twin, or a control with `planted` > 0) on one figure.
#[derive(Debug, Clone, PartialEq)]
pub struct CopyFigure {
    pub copy: String,
    pub figure: &'static str,
    /// The extra work planted in the copy, as a fraction (0.05); 0 for an A/A twin.
    pub planted: f64,
    /// Copy over original, run by run (paired by run id), in the original's run order.
    pub ratios: Vec<f64>,
    pub interval: Option<Interval>,
    /// The resolution the copy is called with: the A/A bias of the other twins.
    pub resolution: Resolution,
    /// Whether the verdict's rule calls the two apart: an A/A twin must not be.
    pub apart: bool,
}

/// The copy's figure over its original's, run by run (`report::windows`).
fn paired((_, workloads): (&str, &[Workload]), original: &[RunRow], copy: &[RunRow]) -> Vec<f64> {
    super::windows::ratios(workloads, original, copy, |r: &RunRow| {
        workloads.iter().map(|w| r.throughput[*w]).sum()
    })
}

/// The section's A/A bias ([`TwinWidth::Pooled`](super::resolution::TwinWidth)) over every
/// workload's batch figure (not the ranking sum, made of two of them), but `except`'s (a twin is
/// not judged by its own gaps).
pub(super) fn bias(pairs: &[TwinPair<'_>], except: Option<&str>) -> Resolution {
    Resolution::of(
        pairs
            .iter()
            .filter(|p| Some(p.twin.format.as_str()) != except)
            .flat_map(|p| {
                FIGURES[..3].iter().filter_map(move |f| {
                    let iv = Interval::of_ratios(&paired(*f, &p.original.rows, &p.twin.rows))?;
                    Some((p.twin.format.as_str(), iv))
                })
            }),
    )
}

/// Every copy in `copies` on every figure both it and its original measured, called at the
/// resolution the section's A/A `twins` set.
pub fn copy_figures(copies: &[TwinPair<'_>], twins: &[TwinPair<'_>]) -> Vec<CopyFigure> {
    let mut out = Vec::new();
    for c in copies {
        for f in FIGURES {
            let ratios = paired(f, &c.original.rows, &c.twin.rows);
            if ratios.is_empty() {
                continue;
            }
            let interval = Interval::of_ratios(&ratios);
            let resolution = bias(twins, Some(&c.twin.format));
            out.push(CopyFigure {
                copy: c.twin.format.clone(),
                figure: f.0,
                planted: planted(&c.twin.rows[0]),
                apart: interval.is_some_and(|iv| iv.apart_beyond(resolution.delta)),
                ratios,
                interval,
                resolution,
            });
        }
    }
    out
}

impl CopyFigure {
    /// What the verdict's rule calls the copy and its original.
    pub fn call(&self) -> String {
        if self.planted > 0.0 {
            return self.control_call();
        }
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

    /// The geometric mean and its interval, at `digits` decimals; `-` without one.
    pub(super) fn interval_text(&self, digits: usize) -> String {
        self.interval.map_or("-".to_owned(), |iv| {
            let (r, lo, hi) = (iv.ratio, iv.lo, iv.hi);
            format!("{r:.digits$}x (95% CI {lo:.digits$}–{hi:.digits$}x)")
        })
    }

    /// Its row of the section's twins' or controls' block.
    pub(super) fn cells(&self, digits: usize) -> Vec<String> {
        let per_run: Vec<String> = self.ratios.iter().map(|r| format!("{r:.3}")).collect();
        vec![
            self.copy.clone(),
            self.figure.to_owned(),
            self.call(),
            per_run.join(" "),
            self.interval_text(digits),
        ]
    }
}

/// The section's A/A block; `None` without twins.
pub fn table(figures: &[CopyFigure]) -> Option<Table> {
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
        rows: figures.iter().map(|f| f.cells(2)).collect(),
        ..Table::new(caption, 3, &header)
    })
}

/// One line per twin for under the verdict: its ranking sum against its original.
pub fn answer_lines(figures: &[CopyFigure]) -> Vec<String> {
    figures
        .iter()
        .filter(|f| f.figure == FIGURES[3].0)
        .map(|f| {
            format!(
                "A/A twin {} against {}, {}: {}, called {}.",
                f.copy,
                f.copy.trim_end_matches(".twin"),
                f.figure,
                f.interval_text(2),
                f.call()
            )
        })
        .collect()
}
