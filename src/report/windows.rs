//! Two formats compared on the windows they shared, so that a burst of interference in one
//! window of one run does not move that run's ratio (issue 46).
//!
//! Every format of a run times the same windows of the input whole, one after another in a
//! shuffled order, and `<results>.windows.csv` keeps each window's time (`export::windows`). A
//! run's figure is its windows' time summed over their units, so a burst that lands in one
//! format's pass of one window (another VM, the host) moves that run's ratio by the burst's
//! share of the run; across runs that is the paired sd of 4–15% the A/A twins showed.
//!
//! **The estimator.** For two formats A and B and a figure (one workload, or the ranking's sum
//! of two), each window `k` of run `r` gives a log ratio `ρ = ln(t_B / t_A)`. How B compares
//! with A depends on the window's mix of messages (heartbeats only, or 72,000 messages), so a
//! window is compared with **itself in the other runs**: `m_k`, the median of window `k`'s log
//! ratio across runs. A run may also be shifted as a whole (a per-process effect: placement,
//! the run's neighbours); that is real run-to-run variation and must stay, so each run's shift
//! `δ_r` is the weighted median of its windows' `ρ − m_k`. What is left, `ρ − m_k − δ_r`, is the
//! window's own deviation: clipped at [`CLIP`] robust standard deviations (the scale pooled
//! over the runs, a weighted MAD). The window's two times are then put back around their
//! geometric mean with the clipped log ratio, and the run's ratio is the ratio of the sums.
//!
//! So the estimand is unchanged: where no window is clipped the run's ratio **is** the ratio of
//! its sums, the time the format takes over the input's work; a window a burst hit counts with
//! the ratio its peers in the other runs support, and its time. Runs stay the unit of the
//! interval (`resolution::Interval`); with fewer than [`MIN_RUNS`] runs holding a window, that
//! window is taken as it is.

use std::collections::{BTreeMap, HashMap};

use super::load::{RunRow, Windows};
use super::stats::Stat;
use crate::measure::window_times::WindowTimes;
use crate::measure::{PerWorkload, Workload};

/// How many robust standard deviations a window's own deviation may reach before it is taken
/// for interference and clipped: wide, so that what is clipped is a burst, not the spread of
/// a quiet run.
pub const CLIP: f64 = 3.0;

/// A window is compared with itself in at least this many runs, or taken as it is.
pub const MIN_RUNS: usize = 3;

/// A figure's time per window of one run: the `figure`'s workloads summed, in windows every one
/// of them timed, at block width `1 << shift`.
fn series(
    w: &PerWorkload<WindowTimes>,
    figure: &[Workload],
    shift: u32,
) -> BTreeMap<(u64, u64), f64> {
    let mut out: BTreeMap<(u64, u64), (usize, f64)> = BTreeMap::new();
    for &workload in figure {
        for b in w[workload].at_shift(shift) {
            if b.units > 0 && b.ns > 0 {
                let e = out.entry(b.key()).or_default();
                e.0 += 1;
                e.1 += b.ns as f64;
            }
        }
    }
    out.into_iter()
        .filter(|(_, (n, _))| *n == figure.len())
        .map(|(k, (_, ns))| (k, ns))
        .collect()
}

/// One window of one run both formats timed: their times.
#[derive(Debug, Clone, Copy)]
struct Shared {
    key: (u64, u64),
    a: f64,
    b: f64,
}

impl Shared {
    fn log_ratio(&self) -> f64 {
        (self.b / self.a).ln()
    }
    /// The window's weight: the geometric mean of its two times.
    fn weight(&self) -> f64 {
        (self.a * self.b).sqrt()
    }
}

/// The windows both `a` and `b` timed, at the wider of their widths.
fn shared(a: &Windows, b: &Windows, figure: &[Workload]) -> Vec<Shared> {
    let shift = figure
        .iter()
        .map(|&w| a[w].shift.max(b[w].shift))
        .max()
        .unwrap_or(0);
    let (sa, sb) = (series(a, figure, shift), series(b, figure, shift));
    sa.into_iter()
        .filter_map(|(key, a)| {
            Some(Shared {
                key,
                a,
                b: *sb.get(&key)?,
            })
        })
        .collect()
}

/// What [`paired_ratios`] found.
#[derive(Debug, Clone, PartialEq)]
pub struct Paired {
    /// B over A per run, in A's run order.
    pub ratios: Vec<f64>,
    /// Windows compared, and of them clipped as interference.
    pub windows: usize,
    pub clipped: usize,
}

/// `b`'s figure over `a`'s, run by run, from the windows both timed (see the module's doc).
/// `None` when a paired run has no windows: then every run is taken by its sums, never a mix.
pub fn paired_ratios(figure: &[Workload], a: &[RunRow], b: &[RunRow]) -> Option<Paired> {
    let mut runs: Vec<Vec<Shared>> = Vec::new();
    for ra in a {
        let Some(rb) = partner(ra, b) else {
            continue;
        };
        let run = shared(ra.windows.as_ref()?, rb.windows.as_ref()?, figure);
        if run.is_empty() {
            return None;
        }
        runs.push(run);
    }
    Some(estimate(&runs))
}

/// `b`'s figure over `a`'s run by run (matched by run id, in `a`'s order): by
/// [`paired_ratios`] where it can, else by the runs' own figures (`of`).
///
/// Runs of several labels (a pooled section, `stats::POOL_SEP`) are blocks: each label's ratios
/// are centred on the pooled mean (in logarithms) before the interval sees them, so that what
/// one scheduling prefix shifts is not counted as noise.
pub fn ratios(
    figure: &[Workload],
    a: &[RunRow],
    b: &[RunRow],
    of: impl Fn(&RunRow) -> Option<f64>,
) -> Vec<f64> {
    if !figure.is_empty() {
        if let Some(p) = paired_ratios(figure, a, b) {
            let matched: Vec<&RunRow> = a.iter().filter(|ra| partner(ra, b).is_some()).collect();
            return centred(&labels(&matched), p.ratios);
        }
    }
    let (matched, ratios): (Vec<&RunRow>, Vec<f64>) = a
        .iter()
        .filter_map(|ra| {
            let rb = partner(ra, b)?;
            let (x, y) = (of(ra)?, of(rb)?);
            (x > 0.0).then(|| (ra, y / x))
        })
        .unzip();
    centred(&labels(&matched), ratios)
}

fn labels<'r>(runs: &[&'r RunRow]) -> Vec<&'r str> {
    runs.iter().map(|r| r.label.as_str()).collect()
}

/// `ra`'s run in `b`: the same run id under the same label (a pooled section holds several
/// labels, whose run ids need not differ in a hand-made file).
fn partner<'b>(ra: &RunRow, b: &'b [RunRow]) -> Option<&'b RunRow> {
    b.iter()
        .find(|rb| rb.run_id == ra.run_id && rb.label == ra.label)
}

/// `ratios` (one per run, of the runs' `labels`) with each label's geometric mean moved onto
/// the pooled one; as they are with one label.
fn centred(labels: &[&str], ratios: Vec<f64>) -> Vec<f64> {
    let distinct = super::stats::sorted(labels.iter().copied());
    let logs: Vec<f64> = ratios.iter().map(|r| r.ln()).collect();
    let mean = |of: &dyn Fn(usize) -> bool| {
        let v: Vec<f64> = (0..logs.len())
            .filter(|&i| of(i) && logs[i].is_finite())
            .map(|i| logs[i])
            .collect();
        (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
    };
    let Some(all) = mean(&|_| true).filter(|_| distinct.len() > 1) else {
        return ratios;
    };
    let shifts: Vec<(&str, f64)> = distinct
        .iter()
        .filter_map(|l| Some((*l, mean(&|i| labels[i] == *l)? - all)))
        .collect();
    ratios
        .iter()
        .zip(labels)
        .map(|(r, l)| match shifts.iter().find(|(s, _)| s == l) {
            Some((_, shift)) => r * (-shift).exp(),
            None => *r,
        })
        .collect()
}

/// The module's estimator over the runs' shared windows.
fn estimate(runs: &[Vec<Shared>]) -> Paired {
    // m_k: each window's median log ratio across the runs that hold it (MIN_RUNS or more).
    let mut across: HashMap<(u64, u64), Vec<f64>> = HashMap::new();
    for s in runs.iter().flatten() {
        across.entry(s.key).or_default().push(s.log_ratio());
    }
    let typical: HashMap<(u64, u64), f64> = across
        .into_iter()
        .filter(|(_, v)| v.len() >= MIN_RUNS)
        .map(|(k, v)| (k, Stat::of(&v).median))
        .collect();
    // δ_r: each run's shift, and the residuals' pooled scale.
    let residual = |s: &Shared| Some(s.log_ratio() - typical.get(&s.key)?);
    let shifts: Vec<f64> = runs
        .iter()
        .map(|run| {
            let mut v: Vec<(f64, f64)> = run
                .iter()
                .filter_map(|s| Some((residual(s)?, s.weight())))
                .collect();
            weighted_median(&mut v).unwrap_or(0.0)
        })
        .collect();
    let mut spread: Vec<(f64, f64)> = runs
        .iter()
        .zip(&shifts)
        .flat_map(|(run, d)| {
            run.iter()
                .filter_map(move |s| Some(((residual(s)? - d).abs(), s.weight())))
        })
        .collect();
    let scale = 1.4826 * weighted_median(&mut spread).unwrap_or(0.0);
    let limit = CLIP * scale;
    let (mut windows, mut clipped) = (0, 0);
    let ratios = runs
        .iter()
        .zip(&shifts)
        .map(|(run, &d)| {
            let (mut sa, mut sb) = (0.0, 0.0);
            for s in run {
                windows += 1;
                let rho = match residual(s) {
                    Some(e) if scale > 0.0 && (e - d).abs() > limit => {
                        clipped += 1;
                        typical[&s.key] + d + (e - d).clamp(-limit, limit)
                    }
                    _ => s.log_ratio(),
                };
                let g = s.weight();
                sa += g * (-rho / 2.0).exp();
                sb += g * (rho / 2.0).exp();
            }
            sb / sa
        })
        .collect();
    Paired {
        ratios,
        windows,
        clipped,
    }
}

/// The weighted median of `(value, weight)` pairs: the smallest value at which half the weight
/// is reached. `None` for no weight.
fn weighted_median(v: &mut [(f64, f64)]) -> Option<f64> {
    let total: f64 = v.iter().map(|(_, w)| w).sum();
    if total.is_nan() || total <= 0.0 {
        return None;
    }
    v.sort_by(|x, y| x.0.total_cmp(&y.0));
    let mut acc = 0.0;
    for &(x, w) in v.iter() {
        acc += w;
        if acc >= total / 2.0 {
            return Some(x);
        }
    }
    v.last().map(|x| x.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs of windows whose B/A ratio depends on the window (its mix), with a small spread
    /// that changes from run to run (±1%, spread evenly).
    fn quiet(runs: usize, windows: u64) -> Vec<Vec<Shared>> {
        (0..runs)
            .map(|r| {
                (0..windows)
                    .map(|k| {
                        let a = 1000.0 * (1 + k % 5) as f64;
                        let mix = 0.7 + 0.1 * (k % 7) as f64;
                        let spread = 0.01 * (((r as u64 * 7 + k * 13) % 21) as f64 / 10.0 - 1.0);
                        Shared {
                            key: (0, k),
                            a,
                            b: a * mix * (1.0 + spread),
                        }
                    })
                    .collect()
            })
            .collect()
    }

    fn sums(run: &[Shared]) -> f64 {
        run.iter().map(|s| s.b).sum::<f64>() / run.iter().map(|s| s.a).sum::<f64>()
    }

    #[test]
    fn on_quiet_runs_each_ratio_is_the_ratio_of_its_sums() {
        let runs = quiet(8, 40);
        let p = estimate(&runs);
        assert_eq!((p.windows, p.clipped), (320, 0));
        for (run, ratio) in runs.iter().zip(&p.ratios) {
            assert!((ratio - sums(run)).abs() < 1e-12, "{ratio} {}", sums(run));
        }
    }

    #[test]
    fn a_burst_in_one_window_does_not_move_its_run() {
        let mut runs = quiet(8, 40);
        let clean = estimate(&runs).ratios[3];
        // B's pass of window 17 in run 3 took four times as long: a burst.
        runs[3][17].b *= 4.0;
        let by_sums = sums(&runs[3]);
        let p = estimate(&runs);
        assert_eq!(p.clipped, 1);
        assert!(
            by_sums / clean > 1.05,
            "the burst moves the sums: {by_sums} {clean}"
        );
        assert!(
            (p.ratios[3] / clean - 1.0).abs() < 0.005,
            "{} {clean}",
            p.ratios[3]
        );
        // A burst in A's pass moves the ratio the other way; clipped as well.
        runs[3][17].b /= 4.0;
        runs[5][2].a *= 3.0;
        let p = estimate(&runs);
        assert_eq!(p.clipped, 1);
        assert!((p.ratios[5] / estimate(&quiet(8, 40)).ratios[5] - 1.0).abs() < 0.005);
    }

    #[test]
    fn a_run_shifted_as_a_whole_stays_shifted() {
        // A per-process effect: every window of run 2 has B 20% slower. Real run-to-run
        // variation, which the interval across runs must see.
        let mut runs = quiet(8, 40);
        for s in &mut runs[2] {
            s.b *= 1.2;
        }
        let p = estimate(&runs);
        assert_eq!(p.clipped, 0);
        assert!((p.ratios[2] - sums(&runs[2])).abs() < 1e-12);
    }

    #[test]
    fn with_too_few_runs_windows_are_taken_as_they_are() {
        let mut runs = quiet(2, 40);
        runs[1][17].b *= 4.0;
        let p = estimate(&runs);
        assert_eq!(p.clipped, 0);
        assert!((p.ratios[1] - sums(&runs[1])).abs() < 1e-12);
    }

    #[test]
    fn a_figure_sums_its_workloads_in_the_windows_all_of_them_timed() {
        let mut w = PerWorkload::<WindowTimes>::default();
        let id = |local| crate::measure::window::WindowId { chunk: 0, local };
        w[Workload::Encode].add(id(0), 10, 100);
        w[Workload::Encode].add(id(1), 10, 300);
        w[Workload::Complete].add(id(0), 10, 50);
        w[Workload::Complete].add(id(1), 10, 70);
        w[Workload::Selective].add(id(1), 10, 70);
        let both = series(&w, &[Workload::Encode, Workload::Complete], 0);
        assert_eq!(
            both.into_iter().collect::<Vec<_>>(),
            [((0, 0), 150.0), ((0, 1), 370.0)]
        );
        // Window 0 has no selective decode: the sum of ser and de holds window 1 only.
        let partial = series(&w, &[Workload::Encode, Workload::Selective], 0);
        assert_eq!(partial.into_iter().collect::<Vec<_>>(), [((0, 1), 370.0)]);
        // At two windows per block, one block.
        let wide = series(&w, &[Workload::Encode], 1);
        assert_eq!(wide.into_iter().collect::<Vec<_>>(), [((0, 0), 400.0)]);
    }

    #[test]
    fn each_labels_ratios_are_centred_on_the_pooled_mean() {
        // `taskset` shifts every ratio by 10%: centred, the two labels' runs agree.
        let labels = ["normal", "normal", "taskset", "taskset"];
        let c = centred(&labels, vec![1.0, 1.02, 1.1, 1.122]);
        let all = ((1.0f64 * 1.02 * 1.1 * 1.122).ln() / 4.0).exp();
        let gm = |x: f64, y: f64| (x * y).sqrt();
        assert!((gm(c[0], c[1]) - all).abs() < 1e-12 && (gm(c[2], c[3]) - all).abs() < 1e-12);
        // Within a label the spread is kept.
        assert!((c[1] / c[0] - 1.02).abs() < 1e-12);
        // One label: as they are.
        assert_eq!(centred(&["normal"; 2], vec![1.0, 1.2]), [1.0, 1.2]);
    }

    #[test]
    fn weighted_medians() {
        assert_eq!(
            weighted_median(&mut [(1.0, 1.0), (2.0, 5.0), (3.0, 1.0)]),
            Some(2.0)
        );
        assert_eq!(weighted_median(&mut [(1.0, 3.0), (9.0, 1.0)]), Some(1.0));
        assert_eq!(weighted_median(&mut []), None);
    }
}
