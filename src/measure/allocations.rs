//! Allocations per unit, measured: after a window's timed work, each format encodes the window's
//! units after the warm-up and decodes them selectively and completely once more, untimed, with
//! the same [`Runner`] calls its whole-window passes are timed with, while the counting global
//! allocator ([`crate::alloc_count`]) counts what this thread allocates in each. One window in
//! [`COUNT_STRIDE`] is counted (the first with units after the warm-up, then every window whose
//! index is a multiple of it), so the figures are means over those windows' units: a format's
//! allocations follow its packets, which every window samples alike, and counting every window
//! made a default run a seventh longer.
//!
//! Nothing else runs on this thread during a count, and the runner's buffers and the sink were
//! sized beforehand, so what is counted is the format's own: a `Vec` the decoder returns, a
//! builder's segment table. Where [`crate::alloc_count::counting`] is false (the library used
//! without the allocator installed: benches, the integration test binary) nothing is counted and
//! the results say so ([`FormatResult::allocations`](super::stats::FormatResult) is `None`).

use crate::alloc_count::{allocated, Allocated};
use crate::formats::{Aggregate, Checksum, DecodeError};
use crate::model::Packet;

use super::clock::Timer;
use super::runner::{PassIo, Runner};
use super::window::WindowId;
use super::workload::{PerWorkload, Timing, Workload};

/// One window in this many is counted.
pub const COUNT_STRIDE: u64 = 4;

/// Whether window `id` is counted, given the tally so far: the input's first window with units
/// always (a short run, or one whose warm-up fills its first windows, still gets a count), then
/// one in [`COUNT_STRIDE`], the same windows however the input is split.
pub fn counts(id: WindowId, tally: &AllocTally) -> bool {
    (tally.units == 0 && id.chunk == 0) || id.one_in(COUNT_STRIDE)
}

/// One format's allocations over the windows counted, per workload, and the units they covered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AllocTally {
    pub allocated: PerWorkload<Allocated>,
    pub units: u64,
}

/// Means per unit of one workload.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PerUnit {
    pub allocations: f64,
    pub bytes: f64,
}

impl AllocTally {
    /// Adds another share's counts (see `measure::merge`).
    pub fn absorb(&mut self, other: &AllocTally) {
        self.allocated += other.allocated;
        self.units += other.units;
    }

    /// Each workload's allocations and bytes per unit; `None` when no unit was counted.
    pub fn per_unit(&self) -> Option<PerWorkload<PerUnit>> {
        let units = self.units as f64;
        (self.units > 0).then(|| {
            self.allocated.map(|a| PerUnit {
                allocations: a.count as f64 / units,
                bytes: a.bytes as f64 / units,
            })
        })
    }
}

/// The scratch a count decodes into: its own sink and checksum, so the timed passes' results
/// are left as they were.
#[derive(Default)]
pub struct Counter {
    sink: Aggregate,
    checksum: Checksum,
}

/// Why a counting pass failed: its decode, on bytes the timed passes had just decoded.
#[derive(Debug)]
pub struct CountError {
    pub workload: Workload,
    pub cause: DecodeError,
}

impl Counter {
    /// Counts what `runner` allocates in each workload's pass over `recorded`, timed per window
    /// (encoding it, then decoding those bytes selectively and completely), and adds it to
    /// `tally`. `symbols` sizes the sink beforehand so that its growth is not counted. The runner's
    /// buffer holds the window's encoding again afterwards.
    pub fn count(
        &mut self,
        runner: &mut dyn Runner,
        recorded: &[Packet],
        symbols: usize,
        timer: &Timer,
        tally: &mut AllocTally,
    ) -> Result<(), CountError> {
        if recorded.is_empty() {
            return Ok(());
        }
        self.sink.reserve(symbols);
        self.checksum.reset();
        let mut counted = PerWorkload::<Allocated>::default();
        let mut io = PassIo::new(recorded, &mut self.sink, &mut self.checksum);
        // Timed per window, a pass pushes nothing here (and an empty Vec allocates nothing).
        let mut stats = Vec::new();
        let mut failed = None;
        for workload in Workload::ALL {
            let before = allocated();
            let pass = runner.pass(workload, Timing::Window, &mut io, timer, &mut stats);
            counted[workload] = allocated() - before;
            if workload == Workload::Encode {
                // The decodes read the buffer: give them this encoding (the window's comes back
                // below).
                runner.adopt_batch();
            }
            if let Err(cause) = pass {
                failed = Some(CountError { workload, cause });
                break;
            }
        }
        runner.adopt_batch();
        if let Some(e) = failed {
            return Err(e);
        }
        tally.allocated += counted;
        tally.units += recorded.len() as u64;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    //! What a count finds in real formats (raw nothing; bitcode's decodes one `Vec` per packet
    //! that holds messages, its encode nothing): tests/it/allocations.rs,
    //! `raw_allocates_nothing_and_bitcodes_decode_does_per_packet_and_per_message`.

    use super::*;

    #[test]
    fn nothing_counted_is_no_figure() {
        assert_eq!(AllocTally::default().per_unit(), None);
    }
}
