//! What the runs can resolve: the 95% interval of a paired ratio across runs, and the smallest
//! difference the verdict names a winner by.
//!
//! Runs are the unit. Within a run the windows share one process's code placement and heap
//! layout, so they do not replicate what differs between processes; across runs they do. Each
//! run gives one ratio of two formats' figures (matched by run id: a busy run is busy for both),
//! and the interval is the Student-t interval of the mean of their logarithms, taken back to a
//! ratio (a geometric mean with its interval).
//!
//! An interval alone is not enough: the same code built twice, under two names, differs by a
//! few percent (placement, order, neighbours; issue 39 measured ~4% between `flatbuffers` and
//! `flatbuffers-unverified`'s identical encoders), a systematic gap that more runs only make
//! more certain. So a winner must also clear a resolution, earned from the run's own A/A twins
//! ([`TwinWidth::Pooled`]): each twin copies its original's codec, so each twin's gap on each
//! batch figure is one draw of how far two placements of the same code land apart, and
//! [`BIAS_Z`] × their root mean square is a gap two different formats' placements stay within
//! 95% of the time. Where no twin measured a figure, [`RESOLUTION_FLOOR`] stands in. The
//! simulation in this module's tests compares the rules and checks the chosen one.

/// The resolution where the runs have no A/A twins to earn one from (fewer than [`MIN_GAPS`]
/// gaps): a relative difference (0.05 is 5%), the guess the verdict used before the twins
/// copied the codec.
pub const RESOLUTION_FLOOR: f64 = 0.05;

/// What a twin adds to the resolution: the widest difference its interval allows
/// ([`TwinWidth::Bound`]) or the difference it measured ([`TwinWidth::Gap`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TwinWidth {
    /// The interval's farthest bound from 1. It counts the runs' noise twice (in the twin's
    /// interval and the contenders'), so it costs most of the power (see `simulation`).
    Bound,
    /// The twin's measured ratio (geometric mean across runs): the systematic gap between two
    /// copies of the same code, which the contenders' interval does not contain.
    Gap,
    /// The A/A bias (see the module's doc; `report::twins::bias` pools the gaps).
    Pooled,
}

/// What the verdict uses (see [`TwinWidth`]; the simulation in the tests compares them).
pub const TWIN_WIDTH: TwinWidth = TwinWidth::Pooled;

/// How many standard deviations of the pooled A/A gaps the resolution is: a systematic gap
/// between two different formats' placements lies within it 95% of the time.
pub const BIAS_Z: f64 = 1.96;

/// Fewer A/A gaps than this pool to nothing: the floor decides.
pub const MIN_GAPS: usize = 2;

/// Below this many paired runs nothing is resolved: the runs cannot resolve a winner.
pub const MIN_PAIRED_RUNS: usize = 3;

/// `t.ppf(0.975, df)`: tabled to 30, the Cornish–Fisher expansion beyond (within 1e-3 there).
pub fn t_975(df: usize) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::INFINITY,
        1..=30 => TABLE[df - 1],
        _ => {
            let z: f64 = 1.959_964;
            let v = df as f64;
            z + (z.powi(3) + z) / (4.0 * v)
                + (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / (96.0 * v * v)
        }
    }
}

/// A paired ratio across runs: the geometric mean of the per-run ratios and its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    pub ratio: f64,
    pub lo: f64,
    pub hi: f64,
    /// The runs behind it.
    pub runs: usize,
}

impl Interval {
    /// From per-run ratios; those not finite and positive (a figure of 0) are left out.
    pub fn of_ratios(ratios: &[f64]) -> Option<Interval> {
        let logs: Vec<f64> = ratios
            .iter()
            .filter(|r| r.is_finite() && **r > 0.0)
            .map(|r| r.ln())
            .collect();
        let n = logs.len();
        if n < 2 {
            return None;
        }
        let mean = logs.iter().sum::<f64>() / n as f64;
        let var = logs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        let half = t_975(n - 1) * (var / n as f64).sqrt();
        Some(Interval {
            ratio: mean.exp(),
            lo: (mean - half).exp(),
            hi: (mean + half).exp(),
            runs: n,
        })
    }

    /// The largest difference either way the interval cannot rule out, relative (0.06 is 6%).
    pub fn widest(&self) -> f64 {
        (self.hi.max(1.0 / self.lo) - 1.0).max(0.0)
    }

    /// The difference either way the interval's point says, relative.
    pub fn gap(&self) -> f64 {
        (self.ratio.max(1.0 / self.ratio) - 1.0).max(0.0)
    }

    /// Whether the runs resolve the numerator as slower by more than `delta`.
    pub fn slower_beyond(&self, delta: f64) -> bool {
        self.runs >= MIN_PAIRED_RUNS && self.lo > 1.0 + delta
    }

    /// Whether the runs resolve a difference beyond `delta` either way (what a twin must not
    /// show).
    pub fn apart_beyond(&self, delta: f64) -> bool {
        self.slower_beyond(delta) || (self.runs >= MIN_PAIRED_RUNS && self.hi < 1.0 / (1.0 + delta))
    }

    /// `1.32x (95% CI 1.24–1.41x, 8 runs)`.
    pub fn text(&self) -> String {
        format!(
            "{:.2}x (95% CI {:.2}–{:.2}x, {})",
            self.ratio,
            self.lo,
            self.hi,
            super::stats::plural(self.runs, "run")
        )
    }
}

/// The resolution of one figure in one section: the difference below which it calls a tie.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolution {
    /// Relative: 0.05 is 5%.
    pub delta: f64,
    /// The twin whose interval set it (`sbe.twin`).
    pub twin: Option<String>,
    /// The A/A gaps pooled into it ([`TwinWidth::Pooled`]).
    pub pooled: usize,
}

impl Resolution {
    /// The floor alone (no twin measured the figure).
    pub fn floor() -> Resolution {
        Resolution::at(RESOLUTION_FLOOR)
    }

    fn at(delta: f64) -> Resolution {
        Resolution {
            delta,
            twin: None,
            pooled: 0,
        }
    }

    /// The larger of [`RESOLUTION_FLOOR`] and what the twins show ([`TWIN_WIDTH`]).
    pub fn of<'a>(twins: impl IntoIterator<Item = (&'a str, Interval)>) -> Resolution {
        Resolution::of_floor(RESOLUTION_FLOOR, TWIN_WIDTH, twins)
    }

    /// The larger of `floor` and what the twins show, by `width`.
    pub fn of_floor<'a>(
        floor: f64,
        width: TwinWidth,
        twins: impl IntoIterator<Item = (&'a str, Interval)>,
    ) -> Resolution {
        let of = match width {
            TwinWidth::Bound => Interval::widest,
            TwinWidth::Gap => Interval::gap,
            TwinWidth::Pooled => return Resolution::pooled(floor, twins),
        };
        let start = Resolution::at(floor);
        twins.into_iter().fold(start, |best, (twin, iv)| {
            if of(&iv) > best.delta {
                Resolution {
                    delta: of(&iv),
                    twin: Some(twin.to_owned()),
                    pooled: 0,
                }
            } else {
                best
            }
        })
    }

    /// [`TwinWidth::Pooled`]: [`BIAS_Z`] × the rms of the twins' log ratios; `floor` with fewer
    /// than [`MIN_GAPS`] of them.
    pub fn pooled<'a>(
        floor: f64,
        twins: impl IntoIterator<Item = (&'a str, Interval)>,
    ) -> Resolution {
        let logs: Vec<f64> = twins.into_iter().map(|(_, iv)| iv.ratio.ln()).collect();
        if logs.len() < MIN_GAPS {
            return Resolution::at(floor);
        }
        let rms = (logs.iter().map(|l| l * l).sum::<f64>() / logs.len() as f64).sqrt();
        Resolution {
            delta: (BIAS_Z * rms).exp() - 1.0,
            twin: None,
            pooled: logs.len(),
        }
    }

    /// `5.0% (the floor)`, `7.3% (sbe.twin's A/A gap)`.
    pub fn text(&self) -> String {
        let what = match TWIN_WIDTH {
            TwinWidth::Bound => "interval",
            TwinWidth::Gap | TwinWidth::Pooled => "gap",
        };
        let pct = self.delta * 100.0;
        match &self.twin {
            _ if self.pooled > 0 => {
                format!("{pct:.1}% (the A/A bias of {} twin gaps)", self.pooled)
            }
            Some(t) => format!("{pct:.1}% ({t}'s A/A {what})"),
            None => format!("{pct:.1}% (the floor)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_match_the_tables() {
        assert_eq!(t_975(1), 12.706);
        assert_eq!(t_975(4), 2.776);
        assert_eq!(t_975(7), 2.365);
        // Beyond the table: t.ppf(0.975, 40) = 2.0211, 120: 1.9799.
        assert!((t_975(40) - 2.0211).abs() < 1e-3, "{}", t_975(40));
        assert!((t_975(120) - 1.9799).abs() < 1e-3, "{}", t_975(120));
        assert!((t_975(31) - 2.0395).abs() < 1e-3);
        assert!(t_975(0).is_infinite());
    }

    #[test]
    fn the_interval_is_the_t_interval_of_the_mean_log() {
        // logs ln 1.1, ln 1.2, ln 1.3: mean 0.18136, sd 0.08353, half-width 4.303 × sd / √3.
        let iv = Interval::of_ratios(&[1.1, 1.2, 1.3]).unwrap();
        let mean = (1.1f64.ln() + 1.2f64.ln() + 1.3f64.ln()) / 3.0;
        let sd = ([1.1f64, 1.2, 1.3]
            .iter()
            .map(|r| (r.ln() - mean).powi(2))
            .sum::<f64>()
            / 2.0)
            .sqrt();
        let half = 4.303 * sd / 3f64.sqrt();
        assert!((iv.ratio - mean.exp()).abs() < 1e-12);
        assert!((iv.lo - (mean - half).exp()).abs() < 1e-12);
        assert!((iv.hi - (mean + half).exp()).abs() < 1e-12);
        assert_eq!(iv.runs, 3);
        assert_eq!(iv.text(), "1.20x (95% CI 0.97–1.47x, 3 runs)");
        // Every run the same ratio: no spread, the interval is the point.
        let iv = Interval::of_ratios(&[1.5; 4]).unwrap();
        assert!((iv.lo - 1.5).abs() < 1e-12 && (iv.hi - 1.5).abs() < 1e-12);
        // One run, or ratios that are no ratio (a figure of 0): no interval.
        assert_eq!(Interval::of_ratios(&[1.2]), None);
        assert_eq!(Interval::of_ratios(&[f64::INFINITY, 0.0, 1.1]), None);
    }

    #[test]
    fn resolving_needs_three_runs_and_a_lower_bound_beyond_the_resolution() {
        let iv = Interval::of_ratios(&[1.3, 1.3]).unwrap();
        assert!(!iv.slower_beyond(0.05), "two runs never resolve");
        let iv = Interval::of_ratios(&[1.3, 1.31, 1.29]).unwrap();
        assert!(iv.slower_beyond(0.05) && iv.apart_beyond(0.05));
        let inverse = Interval::of_ratios(&[1.0 / 1.3, 1.0 / 1.31, 1.0 / 1.29]).unwrap();
        assert!(!inverse.slower_beyond(0.05) && inverse.apart_beyond(0.05));
        let iv = Interval::of_ratios(&[1.02, 1.03, 1.04]).unwrap();
        assert!(!iv.apart_beyond(0.05), "{iv:?}");
    }

    #[test]
    fn the_resolution_is_the_floor_or_the_widest_twin() {
        let narrow = Interval {
            ratio: 1.0,
            lo: 0.98,
            hi: 1.03,
            runs: 5,
        };
        let wide = Interval {
            ratio: 1.0,
            lo: 0.9,
            hi: 1.04,
            runs: 5,
        };
        let bound = |twins: &[(&str, Interval)]| {
            Resolution::of_floor(0.05, TwinWidth::Bound, twins.iter().copied())
        };
        assert_eq!(bound(&[("a.twin", narrow)]), Resolution::floor());
        let r = bound(&[("a.twin", narrow), ("b.twin", wide)]);
        // 1 / 0.9 − 1 = 11.1%.
        assert!((r.delta - 1.0 / 0.9 + 1.0).abs() < 1e-12);
        assert_eq!(r.twin.as_deref(), Some("b.twin"));
        // By the gap: the twins' ratios, 1.0 and 1.07 (7%).
        let gap = |ratio| Interval { ratio, ..wide };
        let r = Resolution::of_floor(
            0.05,
            TwinWidth::Gap,
            [("a.twin", gap(1.0)), ("b.twin", gap(1.07))],
        );
        assert!((r.delta - 0.07).abs() < 1e-12);
        assert!(r.text().starts_with("7.0% (b.twin's A/A "), "{}", r.text());
        assert_eq!(Resolution::floor().text(), "5.0% (the floor)");
    }
}
