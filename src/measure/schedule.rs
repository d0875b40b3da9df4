//! Which windows are timed which way: the `--timing` [`Schedule`] and the [`Plan`] it gives
//! each window.

use super::workload::Timing;

/// How the windows are timed (`--timing`). Either way every window is encoded, decoded
/// selectively and completely by every format, and checked against the source; only which clock
/// reads surround the work differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum Schedule {
    /// Windows take turns: one timed per packet (the latency distribution), the next whole (the
    /// throughput). Each figure rests on half the windows, spread over the whole input, for half
    /// the timed work of [`Schedule::Both`]. The first window after the warm-up is timed both
    /// ways, so that even a one-window input has both figures and the two encodes of one window
    /// are compared byte for byte in every run.
    #[default]
    Alternate,
    /// Every window both ways: twice the samples and twice the timed work, and every window's
    /// two encodes compared byte for byte.
    Both,
}

impl Schedule {
    /// The name in the CSV's `timing` column and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Schedule::Alternate => "alternate",
            Schedule::Both => "both",
        }
    }
}

/// Which timed passes one window gets (see [`Schedule`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// Every workload timed [`Timing::PerUnit`].
    pub per_unit: bool,
    /// Every workload timed [`Timing::Window`].
    pub window: bool,
}

impl Plan {
    /// Whether the window gets its passes timed `timing`.
    pub fn has(self, timing: Timing) -> bool {
        match timing {
            Timing::PerUnit => self.per_unit,
            Timing::Window => self.window,
        }
    }

    pub const BOTH: Plan = Plan {
        per_unit: true,
        window: true,
    };
    pub const PER_UNIT: Plan = Plan {
        per_unit: true,
        window: false,
    };
    pub const WINDOW: Plan = Plan {
        per_unit: false,
        window: true,
    };

    /// The passes for window `index` (0-based) under `schedule`. `skip` of its `n` units are
    /// warm-up; `first_recorded` says no earlier window recorded a unit.
    pub fn new(
        schedule: Schedule,
        index: u64,
        skip: usize,
        n: usize,
        first_recorded: bool,
    ) -> Plan {
        match schedule {
            Schedule::Both => Plan::BOTH,
            Schedule::Alternate if skip < n && first_recorded => Plan::BOTH,
            // A window with warm-up in it is timed per packet: the warm-up units must still be
            // encoded (and checked) for the byte and message counts to cover the whole input.
            Schedule::Alternate if skip > 0 || index.is_multiple_of(2) => Plan::PER_UNIT,
            Schedule::Alternate => Plan::WINDOW,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alternate_timing_takes_turns_after_a_both_ways_first_window() {
        let plan = |index, skip, first| Plan::new(Schedule::Alternate, index, skip, 100, first);
        let (pp, whole) = (Plan::PER_UNIT, Plan::WINDOW);
        // Warm-up only: per packet, nothing recorded yet.
        assert_eq!(plan(0, 100, true), pp);
        // The first window with a recorded unit, warm-up in it or not: both ways.
        assert_eq!(plan(1, 40, true), Plan::BOTH);
        assert_eq!(plan(0, 0, true), Plan::BOTH);
        // Then in turn by window index; a window with warm-up in it stays per packet.
        assert_eq!(plan(2, 0, false), pp);
        assert_eq!(plan(3, 0, false), whole);
        assert_eq!(plan(3, 10, false), pp);
        // `--timing both`, every window both ways: tests/it/run.rs,
        // `every_message_can_be_its_own_unit`.
    }
}
