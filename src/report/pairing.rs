//! `--baseline`'s pairs of runs and their normalized log differences, what the gate tests
//! (`super::baseline`).
//!
//! The two sides share no run, but a bench runs the same plan each time: its k-th run under a
//! label measures the same formats in the same order as the k-th of the other bench. So the
//! k-th run of label L in the new results is paired with the k-th of L in the baseline (file
//! order), every label a block of pairs; where one side has more runs of a label, the extra ones
//! are left out.
//!
//! Normalization: a run's machine factor (a slow run, a noisy bench, a slower machine) is shared
//! by all its formats, so within a pair every format's log(new / old) is shifted by the same
//! amount. Each is centred on the median over the formats both runs measured, which removes
//! that shift. The median, not the mean (dividing each run by its formats' geometric mean):
//! the mean moves with any one format that did change, so a format made 2x faster makes every
//! other format look slower by 2^(1/n), and a slowdown shows diluted by (n − 1)/n. On two real
//! benches of one binary (19 formats), making each format in turn 2x faster failed a 5% gate on
//! 36 other formats' figures in all with the mean, on none with the median. With two formats
//! the median is their mean: which one moved cannot be told.

use std::collections::HashMap;

use super::load::RunRow;
use super::stats::{plural, Group, Stat};

/// One run of one side: its rows by format.
#[derive(Debug, Clone, Default)]
pub struct Run<'a> {
    rows: HashMap<&'a str, &'a RunRow>,
}

/// A side's runs by label: labels in the order first seen, runs in file order.
type Labelled<'a> = Vec<(&'a str, Vec<Run<'a>>)>;

fn runs_by_label<'a>(groups: &[&'a Group]) -> Labelled<'a> {
    let mut rows: Vec<&RunRow> = groups.iter().flat_map(|g| &g.rows).collect();
    rows.sort_by_key(|r| (r.source, r.line));
    let mut out: Labelled = Vec::new();
    let mut at: HashMap<(&str, &str), (usize, usize)> = HashMap::new();
    for r in rows {
        let (l, k) = *at.entry((&r.label, &r.run_id)).or_insert_with(|| {
            let l = match out.iter().position(|(label, _)| *label == r.label) {
                Some(l) => l,
                None => {
                    out.push((&r.label, Vec::new()));
                    out.len() - 1
                }
            };
            out[l].1.push(Run::default());
            (l, out[l].1.len() - 1)
        });
        out[l].1[k].rows.insert(&r.format, r);
    }
    out
}

/// The new side's runs paired with the baseline's.
#[derive(Debug, Clone, Default)]
pub struct Pairing<'a> {
    /// (new, baseline), label by label.
    pub pairs: Vec<(Run<'a>, Run<'a>)>,
    /// One line per label whose runs are not all paired, saying which are left out.
    pub unpaired: Vec<String>,
}

/// Pairs the runs of one section (`new`, its groups) with the baseline's (`old`).
pub fn pair<'a>(new: &[&'a Group], old: &[&'a Group]) -> Pairing<'a> {
    let (new, mut old) = (runs_by_label(new), runs_by_label(old));
    let mut out = Pairing::default();
    for (label, runs) in new {
        let theirs = match old.iter().position(|(l, _)| *l == label) {
            Some(i) => old.remove(i).1,
            None => Vec::new(),
        };
        if runs.len() != theirs.len() {
            out.unpaired.push(format!(
                "label {label}: {} against {} in the baseline, the last {} unpaired and left out",
                plural(runs.len(), "new run"),
                theirs.len(),
                runs.len().abs_diff(theirs.len())
            ));
        }
        out.pairs.extend(runs.into_iter().zip(theirs));
    }
    for (label, runs) in old {
        out.unpaired.push(format!(
            "label {label}: only in the baseline, its {} left out",
            plural(runs.len(), "run")
        ));
    }
    out
}

/// For each of `formats`, the log differences log(new / old) of `figure` over the pairs, each
/// centred on the pair's median over the formats both its runs measured (a pair with one format
/// is left as it is: centring it would leave nothing).
pub fn log_differences(
    pairs: &[(Run, Run)],
    formats: &[&str],
    figure: impl Fn(&RunRow) -> Option<f64>,
) -> Vec<Vec<f64>> {
    let mut out = vec![Vec::new(); formats.len()];
    let log = |run: &Run, format: &str| {
        let x = figure(run.rows.get(format)?)?;
        (x > 0.0 && x.is_finite()).then(|| x.ln())
    };
    for (new, old) in pairs {
        let both: Vec<(usize, f64)> = (formats.iter().enumerate())
            .filter_map(|(i, f)| Some((i, log(new, f)? - log(old, f)?)))
            .collect();
        let centre = if both.len() > 1 {
            // The median; 0 for none.
            Stat::of_some(both.iter().map(|(_, d)| Some(*d))).map_or(0.0, |s| s.median)
        } else {
            0.0
        };
        for (i, d) in both {
            out[i].push(d - centre);
        }
    }
    out
}
