//! The per-packet clock: the TSC through `quanta` where the CPU has an invariant one (about 20
//! cycles to read, no system call), the OS monotonic clock otherwise.
//!
//! Its own cost is measured at start-up ([`Timer::calibrate`]) and reported with every result
//! rather than subtracted: a reader can subtract it, but cannot add back what was hidden.

/// Back-to-back reads taken to estimate the cost of one timing.
const CALIBRATION_SAMPLES: usize = 200_001;

pub struct Timer {
    clock: quanta::Clock,
    /// Median cost of an empty timed region (two reads), in nanoseconds.
    pub overhead_ns: f64,
}

impl Timer {
    /// Creates the clock and measures the cost of an empty timed region.
    pub fn calibrate() -> Timer {
        let clock = quanta::Clock::new();
        let mut deltas: Vec<u64> = (0..CALIBRATION_SAMPLES)
            .map(|_| {
                let start = clock.raw();
                clock.delta_as_nanos(start, clock.raw())
            })
            .collect();
        deltas.sort_unstable();
        let overhead_ns = deltas[deltas.len() / 2] as f64;
        Timer { clock, overhead_ns }
    }

    /// A raw reading; only meaningful to [`Timer::elapsed_ns`].
    #[inline(always)]
    pub fn start(&self) -> u64 {
        self.clock.raw()
    }

    /// Nanoseconds since `start`; the conversion happens after the closing read.
    #[inline(always)]
    pub fn elapsed_ns(&self, start: u64) -> u64 {
        let end = self.clock.raw();
        self.clock.delta_as_nanos(start, end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_a_sleep_within_reason_and_has_a_small_overhead() {
        let t = Timer::calibrate();
        let start = t.start();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let ns = t.elapsed_ns(start);
        assert!((19_000_000..2_000_000_000).contains(&ns), "{ns} ns");
        // Even the OS clock fallback costs well under a microsecond.
        assert!(t.overhead_ns < 1_000.0, "{}", t.overhead_ns);
    }
}
