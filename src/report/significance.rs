//! Whether a format got slower against a baseline beyond chance: the one-sided Wilcoxon
//! signed-rank test on paired runs' log differences ([`signed_rank`]), its effect estimate
//! ([`hodges_lehmann`]), and Holm's adjustment across every figure a gate tests ([`holm`]).
//!
//! Why a rank test: it assumes nothing about the shape of the differences (no normality, which a
//! dozen runs could not show anyway), and one run that a busy neighbour made 3x slower moves it
//! no more than any other slower run. Why paired: a run's machine factor (a slow run, a noisy
//! bench) is shared by its formats, so the pair's difference of normalized figures is free of
//! it (`super::baseline`). Its price is that few pairs cannot reach a small p at all: with n
//! pairs the smallest one-sided p is 1/2^n ([`smallest_p`]).

/// The significance level the gate uses (after Holm's adjustment).
pub const ALPHA: f64 = 0.05;

/// Up to this many non-zero differences the p-value is exact (the sign-flip distribution of the
/// rank sum, ties included, counts exact in an f64 up to 2^53); beyond it, the normal
/// approximation with tie correction. 50 is scipy's threshold for its exact method too.
pub const EXACT_MAX: usize = 50;

/// Log differences closer than this are one value (a tie; a zero when this close to 0): the
/// same ratio up to float rounding, not a measured difference.
const SAME: f64 = 1e-12;

/// The smallest one-sided p the exact test can give with `pairs` pairs: 1/2^pairs.
pub fn smallest_p(pairs: usize) -> f64 {
    0.5f64.powi(pairs.min(1100) as i32)
}

/// The fewest pairs with which Holm over `cells` tests can reject one: 1/2^n < [`ALPHA`] /
/// `cells` (5 for one cell, 12 up to 204 cells).
pub fn pairs_needed(cells: usize) -> usize {
    (0..1100)
        .find(|&n| smallest_p(n) * (cells.max(1) as f64) < ALPHA)
        .unwrap_or(1100)
}

/// The one-sided p of the Wilcoxon signed-rank test that the differences `d` lie above zero
/// (H1: new slower); `None` when there are none. Zero differences are dropped (Wilcoxon's own
/// rule, scipy's default `zero_method="wilcox"`): a pair that did not move says nothing about
/// the direction. Tied absolute values share their average rank; the exact p is then the share
/// of the 2^n sign flips of those very ranks whose positive rank sum reaches the observed one
/// (conditional on the ties, as a permutation test is). All differences zero: p = 1. NaNs are
/// dropped, never panicked on.
pub fn signed_rank(d: &[f64]) -> Option<f64> {
    if d.is_empty() {
        return None;
    }
    let moved: Vec<f64> = d
        .iter()
        .copied()
        .filter(|x| !x.is_nan() && x.abs() > SAME)
        .collect();
    if moved.is_empty() {
        return Some(1.0);
    }
    let ranks = doubled_ranks(&moved);
    let observed: u64 = (ranks.iter().zip(&moved))
        .filter(|(_, x)| **x > 0.0)
        .map(|(r, _)| r)
        .sum();
    Some(if moved.len() <= EXACT_MAX {
        exact_p(&ranks, observed)
    } else {
        normal_p(&ranks, observed)
    })
}

/// Each value's rank by absolute value (1-based, ties sharing their mean) times two, so that
/// every rank is a whole number.
fn doubled_ranks(d: &[f64]) -> Vec<u64> {
    let mut order: Vec<usize> = (0..d.len()).collect();
    order.sort_by(|&i, &j| d[i].abs().total_cmp(&d[j].abs()));
    let mut ranks = vec![0u64; d.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && d[order[j + 1]].abs() - d[order[i]].abs() <= SAME {
            j += 1;
        }
        // Ranks i + 1 ..= j + 1 share their mean; doubled: i + j + 2.
        for &k in &order[i..=j] {
            ranks[k] = (i + j + 2) as u64;
        }
        i = j + 1;
    }
    ranks
}

/// The share of the 2^n sign assignments whose (doubled) positive rank sum is at least
/// `observed`, counted by the subset-sum recursion over the ranks as they are.
fn exact_p(ranks: &[u64], observed: u64) -> f64 {
    let total: u64 = ranks.iter().sum();
    let mut count = vec![0f64; total as usize + 1];
    count[0] = 1.0;
    for &r in ranks {
        let r = r as usize;
        for s in (r..count.len()).rev() {
            count[s] += count[s - r];
        }
    }
    let all: f64 = count.iter().sum();
    let at_least: f64 = count.iter().skip(observed as usize).sum();
    (at_least / all).min(1.0)
}

/// The normal approximation: the positive rank sum's mean n(n + 1)/4 and variance
/// n(n + 1)(2n + 1)/24 less Σ(t³ − t)/48 over groups of t tied values; no continuity correction
/// (scipy's `wilcoxon(..., method="asymptotic")` default).
fn normal_p(ranks: &[u64], observed: u64) -> f64 {
    let n = ranks.len() as f64;
    let mut sorted = ranks.to_vec();
    sorted.sort_unstable();
    let ties: f64 = sorted
        .chunk_by(|x, y| x == y)
        .map(|g| {
            let t = g.len() as f64;
            t * t * t - t
        })
        .sum();
    let var = n * (n + 1.0) * (2.0 * n + 1.0) / 24.0 - ties / 48.0;
    if var <= 0.0 {
        return 1.0;
    }
    let z = (observed as f64 / 2.0 - n * (n + 1.0) / 4.0) / var.sqrt();
    (0.5 * erfc(z / std::f64::consts::SQRT_2)).min(1.0)
}

/// The Hodges–Lehmann estimate of where `d` is centred: the median of the Walsh averages
/// (d_i + d_j)/2, i ≤ j, zeros included (a pair that did not move is part of the effect); the
/// estimate that goes with the signed-rank test, as robust as it. `None` when `d` has no number.
pub fn hodges_lehmann(d: &[f64]) -> Option<f64> {
    let d: Vec<f64> = d.iter().copied().filter(|x| !x.is_nan()).collect();
    let d = &d;
    let walsh = (0..d.len()).flat_map(|i| d[i..].iter().map(move |y| Some((d[i] + y) / 2.0)));
    super::stats::Stat::of_some(walsh).map(|s| s.median)
}

/// Holm's step-down adjustment of `p` (in the same order): the k-th smallest times m − k + 1,
/// never below the one before it, at most 1. A family of m tests rejected where the adjusted p
/// is below α makes a false rejection among them no likelier than α, whatever their dependence.
pub fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&i, &j| p[i].total_cmp(&p[j]));
    let mut adjusted = vec![1.0; m];
    let mut floor: f64 = 0.0;
    for (k, &i) in order.iter().enumerate() {
        floor = floor.max(((m - k) as f64 * p[i]).min(1.0));
        adjusted[i] = floor;
    }
    adjusted
}

/// The complementary error function, fractional error below 1.2e-7 everywhere (the Chebyshev
/// fit of Numerical Recipes' `erfcc`): plenty for a p-value compared with 0.05.
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    /// Differences of ranks 1..=n (values 1, 2, ..., n) whose negative ones sum to `t_minus`
    /// (the largest ranks that fit, greedily), no ties.
    fn with_t_minus(n: usize, t_minus: usize) -> Vec<f64> {
        let mut left = t_minus;
        (1..=n)
            .rev()
            .map(|r| {
                if r <= left {
                    left -= r;
                    -(r as f64)
                } else {
                    r as f64
                }
            })
            .collect()
    }

    /// scipy.stats.wilcoxon's documentation example: Fisher's differences of Darwin's corn
    /// heights.
    const CORN: [f64; 15] = [
        6.0, 8.0, 14.0, 16.0, 23.0, 24.0, 28.0, 29.0, 41.0, -48.0, 49.0, 56.0, 60.0, -67.0, 75.0,
    ];

    #[test]
    fn scipy_documented_example() {
        // The corn data's two-sided p is 0.041259765625 and with alternative="greater" 0.0206298828125, exact.
        assert_eq!(signed_rank(&CORN), Some(0.020_629_882_812_5));
        // The other direction: its complement plus the observed sum's own probability.
        assert!(signed_rank(&CORN.map(|x| -x)).unwrap() > 0.97);
    }

    #[test]
    fn tabled_one_sided_critical_values_are_the_last_significant_sums() {
        // One-tailed α = 0.05 critical values of T (the smaller rank sum) from the standard
        // Wilcoxon signed-rank table (e.g. Siegel & Castellan, Table H; scipy's exact p of the
        // same data agrees: n = 12, T = 17 gives 0.046142578125, T = 18 0.054931640625).
        for (n, crit) in [
            (5, 0),
            (6, 2),
            (7, 3),
            (8, 5),
            (9, 8),
            (10, 10),
            (12, 17),
            (15, 30),
            (20, 60),
        ] {
            let p = signed_rank(&with_t_minus(n, crit)).unwrap();
            assert!(p <= ALPHA, "n = {n}, T = {crit}: p = {p}");
            let p = signed_rank(&with_t_minus(n, crit + 1)).unwrap();
            assert!(p > ALPHA, "n = {n}, T = {}: p = {p}", crit + 1);
        }
        assert_eq!(signed_rank(&with_t_minus(12, 17)), Some(0.046_142_578_125));
    }

    #[test]
    fn ties_get_average_ranks_and_zeros_are_dropped() {
        // scipy 1.17.1: wilcoxon(d, alternative="greater",
        // method=PermutationMethod(n_resamples=10**6)) enumerates all 2^11 sign flips of the
        // midranks: 0.01318359375; with two zeros added (dropped by zero_method="wilcox") the
        // same.
        let d = [1.0, 1.0, 2.0, -2.0, 3.0, 3.0, 3.0, 4.0, -1.0, 5.0, 0.5];
        assert_eq!(signed_rank(&d), Some(0.013_183_593_75));
        let mut with_zeros = d.to_vec();
        with_zeros.extend([0.0, 0.0]);
        assert_eq!(signed_rank(&with_zeros), Some(0.013_183_593_75));
        // Midranks doubled: the three 1s share rank 2.5 of 2, 3, 4 (0.5 is rank 1).
        assert_eq!(doubled_ranks(&[1.0, 0.5, -1.0, 1.0])[0], 6);
    }

    #[test]
    fn beyond_the_exact_range_the_normal_approximation_with_tie_correction() {
        // 60 differences with 3 zeros and many ties (numpy default_rng(46) normal(0.3, 1),
        // rounded to 0.1); scipy 1.17.1 wilcoxon(d, alternative="greater",
        // method="asymptotic", correction=False): 0.013129755932273317.
        let d = [
            -0.2, 1.5, 0.0, 1.0, -0.9, -1.1, 0.3, -0.1, 0.4, 0.8, 0.6, -0.1, -0.6, -0.8, 0.5, 2.0,
            0.3, -0.9, 0.1, 1.1, 0.5, -1.0, 0.3, 0.8, 1.1, -1.7, -0.1, 0.8, 2.2, 1.5, -0.8, 1.3,
            -0.1, 0.2, -0.0, 0.6, 2.0, -0.7, 1.2, 0.4, 1.1, 1.2, 0.2, 1.0, 1.5, -0.8, 1.6, 0.6,
            1.8, -1.8, 0.3, -0.2, -0.4, -1.6, 0.1, 0.0, -0.8, -0.6, 1.1, 0.1,
        ];
        let p = signed_rank(&d).unwrap();
        assert!(close(p, 0.013_129_755_932_273_317, 1e-8), "{p}");
    }

    #[test]
    fn the_smallest_p_is_every_pair_slower() {
        for n in [1, 4, 5, 12, 20] {
            let d: Vec<f64> = (1..=n).map(|i| i as f64 * 0.01).collect();
            assert_eq!(signed_rank(&d), Some(smallest_p(n)), "{n}");
        }
        // All tied and above zero: still 1/2^n (one sign assignment of 2^n reaches it).
        assert_eq!(signed_rank(&[0.1; 12]), Some(1.0 / 4096.0));
        assert_eq!(smallest_p(12), 0.000_244_140_625);
        assert_eq!(pairs_needed(1), 5);
        assert_eq!(pairs_needed(204), 12);
        assert_eq!(pairs_needed(205), 13);
        assert_eq!(pairs_needed(0), 5);
    }

    #[test]
    fn nothing_moved_or_nothing_given() {
        assert_eq!(signed_rank(&[]), None);
        assert_eq!(signed_rank(&[0.0; 6]), Some(1.0));
        assert_eq!(signed_rank(&[f64::NAN, 0.0]), Some(1.0));
        assert_eq!(hodges_lehmann(&[]), None);
        assert_eq!(hodges_lehmann(&[f64::NAN]), None);
    }

    #[test]
    fn hodges_lehmann_is_the_median_of_walsh_averages() {
        // numpy: np.median([(d[i] + d[j]) / 2 for i in range(n) for j in range(i, n)]) is 25.0
        // for the corn data above and 2.0 for the tied data.
        assert_eq!(hodges_lehmann(&CORN), Some(25.0));
        let tied = [1.0, 1.0, 2.0, -2.0, 3.0, 3.0, 3.0, 4.0, -1.0, 5.0, 0.5];
        assert_eq!(hodges_lehmann(&tied), Some(2.0));
        // By hand: [1, 3]: Walsh averages 1, 2, 3, median 2; [1, 2, 10]: 1, 1.5, 2, 5.5, 6, 10,
        // median (2 + 5.5) / 2.
        assert_eq!(hodges_lehmann(&[1.0, 3.0]), Some(2.0));
        assert_eq!(hodges_lehmann(&[1.0, 2.0, 10.0]), Some(3.75));
    }

    #[test]
    fn holm_matches_the_textbook_example() {
        // Wikipedia's Holm–Bonferroni example: p = 0.01, 0.04, 0.03, 0.005 at α = 0.05 rejects
        // H1 and H4 only; statsmodels 0.15 multipletests(p, method="holm") adjusts them to 0.03,
        // 0.06, 0.06, 0.02.
        let adjusted = holm(&[0.01, 0.04, 0.03, 0.005]);
        for (a, e) in adjusted.iter().zip([0.03, 0.06, 0.06, 0.02]) {
            assert!(close(*a, e, 1e-12), "{adjusted:?}");
        }
        // statsmodels: [0.001, 0.2, 0.012, 0.04, 0.013, 0.5] → [0.006, 0.4, 0.06, 0.12, 0.06,
        // 0.5] (the running maximum lifts 0.013 × 4 = 0.052 to 0.06; capped at 1).
        let adjusted = holm(&[0.001, 0.2, 0.012, 0.04, 0.013, 0.5]);
        for (a, e) in adjusted.iter().zip([0.006, 0.4, 0.06, 0.12, 0.06, 0.5]) {
            assert!(close(*a, e, 1e-12), "{adjusted:?}");
        }
        assert_eq!(holm(&[0.6, 0.9]), vec![1.0, 1.0]);
        assert!(holm(&[]).is_empty());
    }

    #[test]
    fn erfc_matches_tabled_values() {
        // Abramowitz & Stegun, Table 7.1: erf(0.5) = 0.5204998778, erf(1) = 0.8427007929,
        // erf(2) = 0.9953222650.
        assert!(close(erfc(0.0), 1.0, 1e-7));
        assert!(close(erfc(0.5), 1.0 - 0.520_499_877_8, 1e-7));
        assert!(close(erfc(1.0), 1.0 - 0.842_700_792_9, 1e-7));
        assert!(close(erfc(2.0), 1.0 - 0.995_322_265_0, 1e-8));
        assert!(close(erfc(-1.0), 1.0 + 0.842_700_792_9, 1e-7));
    }
}
