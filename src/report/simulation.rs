//! Simulated runs that decide the verdict's rule (see [`super::resolution`]): how often it names
//! a winner between two equal formats, and how often it resolves a real 15% difference, at the
//! run counts `bench` uses. Seeded, so every figure is the same on every machine.
//!
//! The model, per simulated build (one section): each format's figure in run r is
//! `true speed × systematic offset × machine factor of the run × noise of the run`.
//! - The systematic offset is drawn once per format and build, log-normal with
//!   [`SYSTEMATIC_SD`]: what the twins showed in issue 39 (flatbuffers slower than its identical
//!   twin in 12 of 14 runs, by ~4%). Paired runs cannot remove it; only the resolution can.
//! - The machine factor is shared by every format of a run (a busy run is busy for all): the
//!   pairing removes it.
//! - The noise is per run and format, log-normal with [`RUN_SD`], and heavy-tailed: in
//!   [`OUTLIER_SHARE`] of runs a format is 20–40% slower (a neighbour, a preemption).
//!
//! Twins are drawn the same way: two control formats, each measured twice under two names.

use super::resolution::{Interval, Resolution, TwinWidth, RESOLUTION_FLOOR, TWIN_WIDTH};

/// Log-sd of a format's systematic offset in one build.
pub const SYSTEMATIC_SD: f64 = 0.03;
/// Log-sd of a format's per-run noise.
pub const RUN_SD: f64 = 0.05;
/// Log-sd of the machine factor shared by a run's formats.
pub const MACHINE_SD: f64 = 0.08;
/// The share of (run, format) figures hit by an outlier.
pub const OUTLIER_SHARE: f64 = 0.05;
/// Simulated sections per configuration.
pub const SECTIONS: usize = 2000;
/// Batch figures each twin is compared on (ser, de, de_all), each a gap of its own.
pub const FIGURES: usize = 3;

struct Rng(fastrand::Rng);

impl Rng {
    fn normal(&mut self) -> f64 {
        // Box–Muller; 1 − u keeps the logarithm finite.
        let (u, v) = (1.0 - self.0.f64(), self.0.f64());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }

    /// One format's figures over `runs` runs, given the runs' machine factors.
    fn figures(&mut self, speed: f64, machine: &[f64]) -> Vec<f64> {
        let offset = (SYSTEMATIC_SD * self.normal()).exp();
        machine
            .iter()
            .map(|m| {
                let outlier = if self.0.f64() < OUTLIER_SHARE {
                    1.2 + 0.2 * self.0.f64()
                } else {
                    1.0
                };
                speed * offset * m * (RUN_SD * self.normal()).exp() * outlier
            })
            .collect()
    }
}

/// What a configuration is judged by.
#[derive(Debug, Clone, Copy)]
pub struct Config {
    pub runs: usize,
    pub floor: f64,
    /// How the section's twins widen the resolution; `None`: the floor alone.
    pub twins: Option<TwinWidth>,
}

/// Per-run ratios `b / a`.
fn ratios(a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter().zip(b).map(|(a, b)| b / a).collect()
}

fn median(v: &[f64]) -> f64 {
    super::stats::Stat::of(v).median
}

/// One simulated section with formats A and B (B `slower` times A's true speed) and two twin
/// pairs: whether the verdict names a winner, and which (true: A); whether some twin would
/// have been called apart (with the resolution the other twin's gaps give, as the report calls
/// them).
fn section(rng: &mut Rng, c: Config, slower: f64) -> (Option<bool>, bool) {
    let machine: Vec<f64> = (0..c.runs)
        .map(|_| (MACHINE_SD * rng.normal()).exp())
        .collect();
    let a = rng.figures(100.0, &machine);
    let b = rng.figures(100.0 * slower, &machine);
    // Two twins, each on [`FIGURES`] figures (a twin's gap is drawn per figure, as the
    // placement of each workload's code is its own).
    let pairs: Vec<(usize, Interval)> = [30.0, 300.0]
        .into_iter()
        .enumerate()
        .flat_map(|(twin, speed)| (0..FIGURES).map(move |_| (twin, speed)))
        .filter_map(|(twin, speed)| {
            let original = rng.figures(speed, &machine);
            let copy = rng.figures(speed, &machine);
            Some((twin, Interval::of_ratios(&ratios(&original, &copy))?))
        })
        .collect();
    let resolution = |twins: &mut dyn Iterator<Item = &Interval>| match c.twins {
        Some(width) => Resolution::of_floor(c.floor, width, twins.map(|iv| ("twin", *iv))).delta,
        None => c.floor,
    };
    let delta = resolution(&mut pairs.iter().map(|(_, iv)| iv));
    // A twin is called with the other twin's gaps, not its own.
    let twin_apart = pairs.iter().any(|(t, iv)| {
        let mut others = pairs.iter().filter(|(o, _)| o != t).map(|(_, o)| o);
        iv.apart_beyond(resolution(&mut others))
    });
    // The verdict's winner is the lower median; the runner-up must be resolved slower.
    let (winner, other, a_wins) = if median(&a) <= median(&b) {
        (&a, &b, true)
    } else {
        (&b, &a, false)
    };
    let named =
        Interval::of_ratios(&ratios(winner, other)).is_some_and(|iv| iv.slower_beyond(delta));
    (named.then_some(a_wins), twin_apart)
}

/// Over [`SECTIONS`] sections: the share that named a winner between equals, the share that
/// named A when B is 15% slower (the power), and the share of equal-format sections in which a
/// twin was called apart.
pub fn rates(c: Config, seed: u64) -> (f64, f64, f64) {
    let mut rng = Rng(fastrand::Rng::with_seed(seed));
    let (mut false_winners, mut resolved, mut twins_apart) = (0, 0, 0);
    for _ in 0..SECTIONS {
        let (named, twin) = section(&mut rng, c, 1.0);
        false_winners += usize::from(named.is_some());
        twins_apart += usize::from(twin);
        let (named, _) = section(&mut rng, c, 1.15);
        resolved += usize::from(named == Some(true));
    }
    let share = |k: usize| k as f64 / SECTIONS as f64;
    (share(false_winners), share(resolved), share(twins_apart))
}

pub fn default_at(runs: usize) -> Config {
    Config {
        runs,
        floor: RESOLUTION_FLOOR,
        twins: Some(TWIN_WIDTH),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The run counts `bench` may default to.
    const DEFAULT_RUNS: [usize; 3] = [5, 6, 8];

    /// Prints the table the lead chooses the default runs and floor from (`cargo test --lib
    /// simulation -- --nocapture`): each rule's false winners between equals, power at 15%, and
    /// how often a twin is called apart (with the resolution the report calls twins with).
    #[test]
    fn the_rules_compared() {
        println!("runs floor twins   false-winners  power@15%  twins-apart");
        for floor in [0.03, 0.05] {
            for twins in [
                Some(TwinWidth::Pooled),
                Some(TwinWidth::Gap),
                Some(TwinWidth::Bound),
                None,
            ] {
                for runs in [3, 5, 6, 8, 12, 16] {
                    let (fw, power, apart) = rates(Config { runs, floor, twins }, 39);
                    println!(
                        "{runs:>4} {:>4.0}% {:>6}  {:>12.1}%  {:>8.1}%  {:>10.1}%",
                        floor * 100.0,
                        twins.map_or("none".to_owned(), |w| format!("{w:?}")),
                        fw * 100.0,
                        power * 100.0,
                        apart * 100.0
                    );
                    // Whatever the rule, more runs never make a 15% difference harder to see.
                    assert!(power >= fw, "{runs} runs: power {power} against {fw}");
                }
            }
        }
    }

    #[test]
    fn equal_formats_get_a_false_winner_in_at_most_5_percent_of_sections() {
        for runs in DEFAULT_RUNS {
            let (fw, _, _) = rates(default_at(runs), 39);
            assert!(fw <= 0.05, "{runs} runs: {:.1}% false winners", fw * 100.0);
        }
        // And another seed: not a lucky draw.
        let (fw, _, _) = rates(default_at(6), 2019);
        assert!(fw <= 0.05, "{:.1}%", fw * 100.0);
    }

    /// The power to resolve a 15% difference with the default rule (the A/A bias pooled over
    /// two twins' three figures): measured 15.1% at 5 runs, 18.6% at 6, 23.3% at 8, 35.2% at 12,
    /// 45.4% at 16 (seed 39; under the 5% floor with the largest gap it was 29–64%: at this
    /// model's 3% systematic offset per format, the bias the twins measure is larger than the
    /// floor; the floor no longer stands where the twins measure less); checked with a margin of
    /// 4 points.
    #[test]
    fn the_power_at_15_percent_is_what_was_measured() {
        for (runs, measured) in [(5, 0.151), (6, 0.186), (8, 0.233), (12, 0.352), (16, 0.454)] {
            let (_, power, _) = rates(default_at(runs), 39);
            assert!(
                power >= measured - 0.04,
                "{runs} runs: power {:.1}% below the {:.1}% measured",
                power * 100.0,
                measured * 100.0
            );
        }
    }

    /// Twins are two copies of one format: the method calls them apart in at most 5% of
    /// sections at the default runs (with the other twin's gaps as the resolution).
    #[test]
    fn twins_are_ties_in_at_least_95_percent_of_sections() {
        for runs in DEFAULT_RUNS {
            let (_, _, apart) = rates(default_at(runs), 39);
            assert!(apart <= 0.05, "{runs} runs: {:.1}%", apart * 100.0);
        }
    }
}
