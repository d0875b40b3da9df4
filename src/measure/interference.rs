//! What the kernel did inside a timed pass, read around it (outside the clock reads): minor page
//! faults (see [`super::memory`]) and involuntary context switches.
//!
//! A switch inside a pass puts another thread's work, or the kernel's, inside its time: a whole
//! scheduler slice (milliseconds) in a pass of a few hundred microseconds. Every switch is
//! counted per format (`preempted`). A pass timed by whole windows that was switched out is run
//! again, up to [`TRIES`] times in all, the last one kept (`retimed` counts the extra runs); a
//! pass timed per unit is only counted, since one switched-out packet is one sample of tens of
//! thousands, and its tail is what the percentiles report.

use crate::sys;

/// Runs of a whole-window pass at most: the first and two more if each was switched out.
pub const TRIES: u32 = 3;

/// The kernel's doings during one pass.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Taken {
    pub faults: u64,
    pub switches: u64,
}

/// Runs `pass` and says what the calling thread was subjected to meanwhile (zeros where the OS
/// cannot say). The two `getrusage` calls are outside whatever clock reads `pass` makes.
#[inline(always)]
pub fn observe<R>(pass: impl FnOnce() -> R) -> (R, Taken) {
    let before = sys::thread_usage();
    let out = pass();
    let taken = match (before, sys::thread_usage()) {
        (Some(b), Some(a)) => Taken {
            faults: a.minor_faults.saturating_sub(b.minor_faults),
            switches: a
                .involuntary_switches
                .saturating_sub(b.involuntary_switches),
        },
        _ => Taken::default(),
    };
    (out, taken)
}

/// Whether a whole-window pass that was subjected to `taken` on its `tries`-th run (from 1) is
/// run again.
pub fn retime(taken: Taken, tries: u32) -> bool {
    taken.switches > 0 && tries < TRIES
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_switched_out_pass_is_run_again_at_most_twice_more() {
        let switched = Taken {
            faults: 0,
            switches: 1,
        };
        assert!(retime(switched, 1) && retime(switched, 2));
        assert!(!retime(switched, TRIES));
        assert!(!retime(Taken::default(), 1));
        let (out, taken) = observe(|| 7);
        assert_eq!(out, 7);
        // Nothing at all happened in between: no fault, and (almost surely) no switch.
        assert_eq!(taken.faults, 0);
    }
}
