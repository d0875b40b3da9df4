//! Whether two sides' per-run figures differ beyond chance: the two-sided Mann–Whitney U test
//! (the Wilcoxon rank-sum test), what `report --baseline` prints as p and gates on.
//!
//! Why this test and not Welch's t: it assumes nothing about the shape of the runs' figures
//! (no normality, which five runs could not show anyway), and it works on ranks, so one run
//! that a busy VM neighbour made 3x slower moves it no more than any other slower run; a t-test
//! on the same figures would be pulled by the outlier's size. Its price is that few runs cannot
//! reach a small p at all: with 3 runs a side the smallest two-sided p is 0.10, with 4 it is
//! 0.029, with 5 it is 0.0079.

/// The significance level the gate uses: a difference is significant when p < 0.05.
pub const ALPHA: f64 = 0.05;

/// Below this many runs on either side a comparison is not tested at all ("cannot be
/// significant"): a rank test on one or two runs says nothing.
pub const MIN_RUNS: usize = 3;

/// Up to this many runs a side the p-value is exact (the permutation distribution of the rank
/// sum, ties included); beyond it, the normal approximation with tie and continuity corrections.
pub const EXACT_MAX: usize = 20;

/// The smallest two-sided p the exact test can give with `n` runs against `m`: both sides fully
/// apart, 2 / C(n + m, n) (at most 1). A gate at α needs it below α, or it can never fail.
pub fn smallest_p(n: usize, m: usize) -> f64 {
    // C(n + m, n) as a running product; f64 is exact far beyond the run counts used.
    let c = (1..=n).fold(1.0, |c, i| c * (m + i) as f64 / i as f64);
    (2.0 / c).min(1.0)
}

/// The fewest runs a side for which the test can reach p < [`ALPHA`] (4: 2 / C(8, 4) = 0.029).
pub fn min_runs_a_side() -> usize {
    (1..)
        .find(|&n| smallest_p(n, n) < ALPHA)
        .expect("p falls with n")
}

/// The two-sided p-value of the Mann–Whitney U test of `a` against `b`; `None` when either side
/// has fewer than [`MIN_RUNS`] values. NaNs are ranked by [`f64::total_cmp`], never panicked on.
pub fn mann_whitney(a: &[f64], b: &[f64]) -> Option<f64> {
    if a.len() < MIN_RUNS || b.len() < MIN_RUNS {
        return None;
    }
    let ranks = doubled_midranks(a, b);
    let (n, m) = (a.len(), b.len());
    Some(if n <= EXACT_MAX && m <= EXACT_MAX {
        exact_p(&ranks, n)
    } else {
        normal_p(&ranks, n, m)
    })
}

/// U of `a` (how many (a, b) pairs have a above b, ties counting a half): what the p-value
/// is a tail of; `n·m − U` is b's.
pub fn u_statistic(a: &[f64], b: &[f64]) -> f64 {
    let ranks = doubled_midranks(a, b);
    let n = a.len() as f64;
    let r: u64 = ranks[..a.len()].iter().sum();
    r as f64 / 2.0 - n * (n + 1.0) / 2.0
}

/// Every value's midrank (1-based, ties sharing the mean of their ranks) times two, so that
/// every rank is a whole number: `a`'s values first, then `b`'s.
fn doubled_midranks(a: &[f64], b: &[f64]) -> Vec<u64> {
    let all: Vec<f64> = a.iter().chain(b).copied().collect();
    let mut order: Vec<usize> = (0..all.len()).collect();
    order.sort_by(|&i, &j| all[i].total_cmp(&all[j]));
    let mut ranks = vec![0u64; all.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && all[order[j + 1]].total_cmp(&all[order[i]]).is_eq() {
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

/// The exact two-sided p: the share of the C(N, n) ways to pick `n` of the pooled ranks whose
/// (doubled) sum lies at least as far from its mean as the observed one. Counted with the usual
/// subset-sum recursion (`count[k][s]`: ways to pick k ranks summing to s), which handles ties as
/// they are instead of assuming none.
fn exact_p(ranks: &[u64], n: usize) -> f64 {
    let total: u64 = ranks.iter().sum();
    let max = total as usize;
    // f64 counts: C(40, 20) ≈ 1.4e11 is exact in an f64.
    let mut count = vec![vec![0f64; max + 1]; n + 1];
    count[0][0] = 1.0;
    for &r in ranks {
        let r = r as usize;
        for k in (1..=n).rev() {
            for s in (r..=max).rev() {
                count[k][s] += count[k - 1][s - r];
            }
        }
    }
    let observed: u64 = ranks[..n].iter().sum();
    let n_all = ranks.len() as f64;
    // Mean of the doubled rank sum: n (N + 1).
    let mean = n as f64 * (n_all + 1.0);
    let dist = (observed as f64 - mean).abs();
    let (mut extreme, mut all) = (0.0, 0.0);
    for (s, &c) in count[n].iter().enumerate() {
        all += c;
        // Doubled sums are whole numbers: a small slack only guards the float of `mean`.
        if (s as f64 - mean).abs() >= dist - 1e-9 {
            extreme += c;
        }
    }
    (extreme / all).min(1.0)
}

/// The normal approximation: U's mean n·m/2, its variance corrected for ties, and a continuity
/// correction of a half (as scipy's `mannwhitneyu` does by default).
fn normal_p(ranks: &[u64], n: usize, m: usize) -> f64 {
    let (nf, mf) = (n as f64, m as f64);
    let big_n = nf + mf;
    let r: u64 = ranks[..n].iter().sum();
    let u = r as f64 / 2.0 - nf * (nf + 1.0) / 2.0;
    let mu = nf * mf / 2.0;
    // Tie correction: Σ (t³ − t) over groups of t equal values.
    let mut sorted = ranks.to_vec();
    sorted.sort_unstable();
    let ties: f64 = sorted
        .chunk_by(|x, y| x == y)
        .map(|g| {
            let t = g.len() as f64;
            t * t * t - t
        })
        .sum();
    let var = nf * mf / 12.0 * ((big_n + 1.0) - ties / (big_n * (big_n - 1.0)));
    if var <= 0.0 {
        return 1.0;
    }
    let z = ((u - mu).abs() - 0.5).max(0.0) / var.sqrt();
    erfc(z / std::f64::consts::SQRT_2).min(1.0)
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

    /// Samples of n and m values whose U (of the first) is `u`, no ties: the first side's
    /// values interleaved into the second's.
    fn with_u(n: usize, m: usize, u: usize) -> (Vec<f64>, Vec<f64>) {
        // Start with every a below every b (U = 0), then move a's values up one b at a time.
        let mut above = vec![0usize; n]; // how many b's each a is above
        let mut left = u;
        for slot in above.iter_mut().rev() {
            let k = left.min(m);
            *slot = k;
            left -= k;
        }
        assert_eq!(left, 0);
        let b: Vec<f64> = (0..m).map(|j| (j as f64 + 1.0) * 10.0).collect();
        let a: Vec<f64> = above
            .iter()
            .enumerate()
            .map(|(i, &k)| k as f64 * 10.0 + 1.0 + i as f64 * 0.01)
            .collect();
        (a, b)
    }

    #[test]
    fn scipy_documented_example_exact_and_asymptotic() {
        // scipy.stats.mannwhitneyu's documentation example (the males/females ages from
        // Conover): U1 = 17, exact p = 0.1111111111111111, asymptotic p = 0.11134688653314041.
        let males = [19.0, 22.0, 16.0, 29.0, 24.0];
        let females = [20.0, 11.0, 17.0, 12.0];
        assert_eq!(u_statistic(&males, &females), 17.0);
        let ranks = doubled_midranks(&males, &females);
        assert!(close(exact_p(&ranks, 5), 0.111_111_111_111_111_1, 1e-12));
        assert!(close(
            normal_p(&ranks, 5, 4),
            0.111_346_886_533_140_41,
            1e-6
        ));
    }

    #[test]
    fn fully_separated_samples_have_the_smallest_exact_p() {
        // Two-sided: 2 / C(n + m, n), counted by hand.
        let p = |n: usize, m: usize| {
            let (a, b) = with_u(n, m, 0);
            mann_whitney(&a, &b).unwrap()
        };
        assert!(close(p(3, 3), 2.0 / 20.0, 1e-12));
        assert!(close(p(4, 4), 2.0 / 70.0, 1e-12));
        assert!(close(p(5, 5), 2.0 / 252.0, 1e-12));
        assert!(close(p(3, 5), 2.0 / 56.0, 1e-12));
    }

    #[test]
    fn tabled_critical_values_are_the_last_significant_u() {
        // Two-sided α = 0.05 critical values of U from the standard tables (e.g. Siegel &
        // Castellan, Table J; the same in every statistics textbook): U ≤ critical rejects.
        for (n, crit) in [
            (5, 2),
            (6, 5),
            (8, 13),
            (10, 23),
            (12, 37),
            (15, 64),
            (20, 127),
        ] {
            let (a, b) = with_u(n, n, crit);
            assert_eq!(u_statistic(&a, &b), crit as f64);
            let p = mann_whitney(&a, &b).unwrap();
            assert!(p <= ALPHA, "n = {n}, U = {crit}: p = {p}");
            let (a, b) = with_u(n, n, crit + 1);
            let p = mann_whitney(&a, &b).unwrap();
            assert!(p > ALPHA, "n = {n}, U = {}: p = {p}", crit + 1);
        }
    }

    #[test]
    fn identical_or_all_tied_sides_are_never_significant() {
        let a = [5.0, 6.0, 7.0, 8.0, 9.0];
        assert_eq!(mann_whitney(&a, &a), Some(1.0));
        // Three equal values against three other equal values: the exact permutation p is
        // 2 / C(6, 3) = 0.1 (a normal approximation would say 0.047 here).
        let p = mann_whitney(&[70.0; 3], &[60.0; 3]).unwrap();
        assert!(close(p, 0.1, 1e-12), "{p}");
        let big = vec![3.0; 30];
        assert_eq!(mann_whitney(&big, &big), Some(1.0));
    }

    #[test]
    fn the_smallest_p_at_each_run_count() {
        // 2 / C(n + m, n): 3 vs 3 is 2 / 20, 3 vs 4 2 / 35, 4 vs 4 2 / 70, 5 vs 5 2 / 252.
        assert!(close(smallest_p(3, 3), 0.1, 1e-12));
        assert!(close(smallest_p(3, 4), 2.0 / 35.0, 1e-12));
        assert!(close(smallest_p(4, 3), 2.0 / 35.0, 1e-12));
        assert!(close(smallest_p(4, 4), 2.0 / 70.0, 1e-12));
        assert!(close(smallest_p(5, 5), 2.0 / 252.0, 1e-12));
        assert!(close(smallest_p(3, 5), 2.0 / 56.0, 1e-12));
        assert_eq!(smallest_p(1, 1), 1.0);
        assert_eq!(smallest_p(0, 5), 1.0);
        assert_eq!(min_runs_a_side(), 4);
        // What the exact test gives on fully separated sides is that smallest p.
        for (n, m) in [(3, 3), (3, 4), (4, 4), (5, 6), (8, 8)] {
            let a: Vec<f64> = (0..n).map(|i| i as f64).collect();
            let b: Vec<f64> = (0..m).map(|i| 100.0 + i as f64).collect();
            let p = mann_whitney(&a, &b).unwrap();
            assert!(close(p, smallest_p(n, m), 1e-12), "{n} vs {m}: {p}");
        }
    }

    #[test]
    fn fewer_than_three_runs_are_not_tested() {
        assert_eq!(mann_whitney(&[1.0, 2.0], &[10.0, 11.0, 12.0, 13.0]), None);
        assert_eq!(mann_whitney(&[1.0, 2.0, 3.0], &[]), None);
    }

    #[test]
    fn beyond_the_exact_range_the_normal_approximation_agrees() {
        // 21 vs 21, fully separated: z = (220.5 − 0.5) / sqrt(21·21·43/12) = 5.5417…, two-sided
        // p = erfc(z / √2) ≈ 3.0e-8; and one a in the middle of the b's is far from significant.
        let a: Vec<f64> = (0..21).map(|i| i as f64).collect();
        let b: Vec<f64> = (0..21).map(|i| 100.0 + i as f64).collect();
        let p = mann_whitney(&a, &b).unwrap();
        assert!(p < 1e-7 && p > 1e-8, "{p}");
        let interleaved: Vec<f64> = (0..21).map(|i| i as f64 + 0.5).collect();
        assert!(mann_whitney(&a, &interleaved).unwrap() > 0.5);
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
