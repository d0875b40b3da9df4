//! The timed loop around a [`WindowFormat`]: a [`Runner`] whose unit is the window
//! ([`Grain::Window`]). Its passes timed per window are one encode or decode of the whole window
//! between one pair of clock reads, like a packet format's; a pass timed per unit is refused with
//! an error, never run some other way, since the format has no packet of its own to time.

use super::clock::Timer;
use super::memory::Written;
use super::runner::{buffers, timed, Grain, PacketStat, PassIo, PassStat, Runner};
use super::workload::{Timing, Workload};
use crate::formats::{DecodeError, Lossy, WindowFormat};
use crate::model::Packet;

/// What a per-unit pass of a window format returns.
pub const PER_UNIT_REFUSED: &str =
    "a window format encodes and decodes whole windows: it has no per-packet pass to time";

/// A window format and the buffers it encodes into, reused across windows.
#[derive(Default)]
pub struct WindowRunner<W: WindowFormat> {
    pub format: W,
    /// The window the decodes read.
    buf: Written<u8>,
    /// Where an encode writes.
    batch_buf: Written<u8>,
}

/// Boxes a fresh runner for `W`.
pub fn runner<W: WindowFormat>() -> Box<dyn Runner> {
    Box::new(WindowRunner::<W>::default())
}

impl<W: WindowFormat> WindowRunner<W> {
    /// [`Runner::pass`] timed per window: the workload matched once, outside the clock reads.
    #[inline(always)]
    fn whole(
        &mut self,
        workload: Workload,
        io: &mut PassIo<'_>,
        timer: &Timer,
    ) -> Result<PassStat, DecodeError> {
        let format = &mut self.format;
        let bytes = self.buf.as_slice().get(io.from..).unwrap_or_default();
        match workload {
            Workload::Encode => {
                let out = self.batch_buf.vec();
                out.clear();
                let (messages, ns) = timed(true, timer, || format.encode_window(io.packets, out));
                Ok(PassStat {
                    ns,
                    packets: io.packets.len(),
                    messages: messages as u64,
                })
            }
            Workload::Selective => {
                let before = io.aggregate.messages;
                let sink = &mut *io.aggregate;
                let (packets, ns) = timed(true, timer, || format.decode_window(bytes, sink));
                Ok(PassStat {
                    ns,
                    packets: packets?,
                    messages: io.aggregate.messages - before,
                })
            }
            Workload::Complete => {
                let before = io.checksum.messages();
                let sum = &mut *io.checksum;
                let (packets, ns) = timed(true, timer, || format.decode_window_all(bytes, sum));
                Ok(PassStat {
                    ns,
                    packets: packets?,
                    messages: io.checksum.messages() - before,
                })
            }
        }
    }
}

impl<W: WindowFormat> Runner for WindowRunner<W> {
    buffers!(W);

    fn grain(&self) -> Grain {
        Grain::Window
    }

    /// A window is a whole stream of its own: nothing carries over from the window before.
    fn stream(&self) -> bool {
        false
    }

    fn pass(
        &mut self,
        workload: Workload,
        timing: Timing,
        io: &mut PassIo<'_>,
        timer: &Timer,
        _stats: &mut Vec<PacketStat>,
    ) -> Result<PassStat, DecodeError> {
        std::hint::black_box(W::NAME);
        match timing {
            Timing::PerUnit => Err(DecodeError::Refused(PER_UNIT_REFUSED)),
            Timing::Window => self.whole(workload, io, timer),
        }
    }

    fn decode_packets(&mut self, out: &mut Vec<Packet>) -> Result<(), DecodeError> {
        self.format.decode_packets(self.buf.as_slice(), out)
    }

    fn decode_packet_at(&mut self, _at: usize) -> Result<Packet, DecodeError> {
        Err(DecodeError::Refused(PER_UNIT_REFUSED))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::arrow::Arrow;
    use crate::formats::{every_kind, Aggregate, Checksum};

    /// The buffer the decodes read is 8-byte aligned (the decoder reads it in place), and one
    /// packet alone cannot be decoded. The refused pass per unit and the round trip of whole
    /// windows: tests/it/window_format.rs (`a_per_unit_pass_of_a_window_format_is_refused`,
    /// `a_run_lists_arrow_with_every_check_passing_and_no_latency` under `--verify`).
    #[test]
    fn the_buffer_is_aligned_and_a_packet_alone_is_refused() {
        let packets = vec![every_kind(), every_kind()];
        let mut r = runner::<Arrow>();
        assert_eq!(r.grain(), Grain::Window);
        let (mut agg, mut sum) = (Aggregate::new(), Checksum::default());
        let mut io = PassIo::new(&packets, &mut agg, &mut sum);
        let (timer, mut stats) = (Timer::calibrate(), Vec::new());
        r.pass(
            Workload::Encode,
            Timing::Window,
            &mut io,
            &timer,
            &mut stats,
        )
        .unwrap();
        r.adopt_batch();
        assert_eq!(r.buffer().as_ptr() as usize % 8, 0);
        assert!(r.decode_packet_at(0).is_err());
    }
}
