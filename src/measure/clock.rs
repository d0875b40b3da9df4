//! The per-packet clock: the TSC through `quanta` where the CPU has an invariant one (about 20
//! cycles to read, no system call), the OS monotonic clock otherwise.
//!
//! On x86 each read is `lfence; rdtsc; lfence`: a bare `rdtsc` is not ordered with the work
//! around it, so the CPU may start a packet's work before the opening read, or take the closing
//! read before the work's last instructions have completed, and short work is under-measured.
//! The fences' own cost is part of the timer's overhead, reported like the rest of it; what
//! fencing changed, and what the fences cost, is in docs/BENCHMARKS.md, "The clock, fenced".
//!
//! Its own cost is measured at start-up ([`Timer::calibrate`]) and reported with every result
//! rather than subtracted: a reader can subtract it, but cannot add back what was hidden. It is
//! the *mean* of back-to-back reads: on a clock that moves in steps (10 ns on some VMs) each
//! delta is 0 or one step, so the median is one of the two and biased, while the mean converges
//! on the true cost. Pairs the machine interrupted (over [`INTERRUPTED_NS`]) are left out: one
//! preemption of a few milliseconds among 200,001 pairs would add tens of ns to the mean.
//!
//! The same pairs give the clock's step ([`Timer::step_ns`]): the smallest nonzero difference
//! between two consecutive reads, what a per-unit figure moves in (10 ns on some VMs; on an
//! invariant TSC, the cost of one fenced read, since two reads cannot be closer than that).

/// Back-to-back reads taken to estimate the cost of one timing.
const CALIBRATION_SAMPLES: usize = 200_001;

/// A read pair slower than this was interrupted (a preemption, an interrupt), not timing: even
/// the OS clock fallback reads in well under a microsecond.
pub const INTERRUPTED_NS: u64 = 1_000;

pub struct Timer {
    clock: quanta::Clock,
    /// Read the TSC between `lfence`s (x86 with quanta on the TSC): see the module's doc.
    fenced: bool,
    /// Mean cost of an empty timed region (two reads), in nanoseconds.
    pub overhead_ns: f64,
    /// The smallest nonzero difference between two consecutive reads, in nanoseconds.
    pub step_ns: f64,
    /// Which clock quanta chose: `tsc` (x86's invariant TSC), `cntvct` (the Arm system counter)
    /// or `monotonic` (the OS clock, a fallback with a system call or vDSO read per timing).
    pub source: &'static str,
}

impl Timer {
    /// Creates the clock and measures the cost of an empty timed region.
    pub fn calibrate() -> Timer {
        let clock = quanta::Clock::new();
        let source = source_of(&clock);
        let fenced = source == "tsc" && cfg!(target_arch = "x86_64");
        let mut timer = Timer {
            clock,
            fenced,
            overhead_ns: 0.0,
            step_ns: 0.0,
            source,
        };
        let (mut total, mut kept, mut step) = (0u64, 0u64, u64::MAX);
        for _ in 0..CALIBRATION_SAMPLES {
            let start = timer.start();
            let ns = timer.elapsed_ns(start);
            if ns <= INTERRUPTED_NS {
                total += ns;
                kept += 1;
                if ns > 0 {
                    step = step.min(ns);
                }
            }
        }
        timer.overhead_ns = total as f64 / kept.max(1) as f64;
        if step == u64::MAX {
            step = timer.first_move();
        }
        timer.step_ns = step as f64;
        timer
    }

    /// A clock coarser than two reads never moved between them: the step is then how far it
    /// moves when it first does (read until it changes, at most a few million reads).
    fn first_move(&self) -> u64 {
        let start = self.start();
        for _ in 0..(1 << 22) {
            let ns = self.elapsed_ns(start);
            if ns > 0 {
                return ns;
            }
        }
        // A clock that never moves times nothing: say its step is as coarse as anything kept.
        INTERRUPTED_NS
    }

    #[inline(always)]
    fn read(&self) -> u64 {
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        if self.fenced {
            use std::arch::x86_64::{_mm_lfence, _rdtsc};
            // SAFETY: `fenced` is set only where quanta found an invariant TSC (so RDTSC and
            // SSE2's LFENCE exist); neither touches memory.
            return unsafe {
                _mm_lfence();
                let t = _rdtsc();
                _mm_lfence();
                t
            };
        }
        self.clock.raw()
    }

    /// A raw reading; only meaningful to [`Timer::elapsed_ns`].
    #[inline(always)]
    pub fn start(&self) -> u64 {
        self.read()
    }

    /// Nanoseconds since `start`; the conversion happens after the closing read.
    #[inline(always)]
    pub fn elapsed_ns(&self, start: u64) -> u64 {
        let end = self.read();
        self.clock.delta_as_nanos(start, end)
    }
}

/// quanta does not say which source it picked except in its `Debug` form
/// (`Clock { inner: Counter(..) }` or `Monotonic(..)`), which is what this reads.
fn source_of(clock: &quanta::Clock) -> &'static str {
    let debug = format!("{clock:?}");
    if !debug.contains("Counter(") {
        "monotonic"
    } else if cfg!(target_arch = "aarch64") {
        "cntvct"
    } else {
        "tsc"
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
        assert!(["tsc", "cntvct", "monotonic"].contains(&t.source));
        // The step is a kept read pair's nonzero difference, so at most what a pair may take.
        assert!(
            t.step_ns > 0.0 && t.step_ns <= INTERRUPTED_NS as f64,
            "{}",
            t.step_ns
        );
        // Two fenced TSC reads are tens of cycles apart, so every pair moved: the smallest
        // difference is then no more than their mean, the overhead.
        if t.source == "tsc" {
            assert!(
                t.step_ns <= t.overhead_ns.ceil(),
                "{} {}",
                t.step_ns,
                t.overhead_ns
            );
        }
        // This CPU's choice, as quanta's own detection makes it.
        if cfg!(target_arch = "x86_64")
            && std::fs::read_to_string("/proc/cpuinfo").is_ok_and(|c| {
                c.contains(" constant_tsc") && c.contains(" nonstop_tsc") && c.contains(" rdtscp")
            })
        {
            assert_eq!(t.source, "tsc");
        }
    }
}
