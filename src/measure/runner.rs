//! The timed loop around one format: a [`Runner`] is a [`Format`] with its reused buffers, and
//! times one pass of any [`Workload`] over a window of packets, one [`Timing`] or the other,
//! with the [`Timer`]. Implemented once, generically ([`FormatRunner`]): the workload is matched
//! once per pass, outside the timed region, and each arm's loop is monomorphized for the format
//! and the timing, so the only dynamic call is one per pass and the clock reads are inlined
//! around each packet (per unit) or the whole pass (per window).

use super::clock::Timer;
use super::memory::Written;
use super::workload::{Timing, Workload};
use crate::formats::window::walk;
use crate::formats::{Aggregate, Checksum, DecodeError, Format, Lossy};
use crate::model::Packet;

/// Per-packet outcome of a pass timed per unit: where the packet's bytes end in the runner's
/// buffer and how many nanoseconds its encode or decode took, by the [`Timer`] read just before
/// and after.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PacketStat {
    pub end: usize,
    pub ns: u64,
    /// What the workload's receiver says after the packet (read after the clock): the messages
    /// written for an encode, the running [`Checksum`] for a complete decode, 0 for a selective
    /// decode.
    pub check: u64,
}

/// What one pass did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PassStat {
    /// Inside the timed region: the one clock pair's reading for a pass timed per window, the
    /// sum of the packets' for one timed per unit.
    pub ns: u64,
    pub packets: usize,
    /// Messages written (encode) or read (decode).
    pub messages: u64,
}

/// What a pass works on besides the runner's own buffers: the packets an encode writes, where
/// the decodes start reading, and what each decode workload reads into. One field per
/// receiver, not per workload: a new workload reading into an existing receiver adds none.
pub struct PassIo<'a> {
    /// The packets an encode writes.
    pub packets: &'a [Packet],
    /// The byte of the buffer the decodes start at (the packets after the warm-up).
    pub from: usize,
    /// The selective decode's receiver.
    pub aggregate: &'a mut Aggregate,
    /// The complete decode's receiver.
    pub checksum: &'a mut Checksum,
}

impl<'a> PassIo<'a> {
    /// Encodes write `packets`; decodes read the whole buffer into the receivers given.
    pub fn new(
        packets: &'a [Packet],
        aggregate: &'a mut Aggregate,
        checksum: &'a mut Checksum,
    ) -> PassIo<'a> {
        PassIo {
            packets,
            from: 0,
            aggregate,
            checksum,
        }
    }
}

/// What a format encodes as one unit, which decides how the shootout times it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grain {
    /// Each packet on its own ([`Format`]): timed per packet and per window.
    Packet,
    /// A whole window at once ([`WindowFormat`](crate::formats::WindowFormat)): timed only per
    /// window; a pass timed per unit is refused ([`super::window_runner`]).
    Window,
}

/// Object-safe face of a [`Format`] plus its reused output buffers, for the measuring loop.
pub trait Runner {
    /// The format's [`Format::NAME`].
    fn name(&self) -> &'static str;

    /// What the format encodes as one unit.
    fn grain(&self) -> Grain {
        Grain::Packet
    }

    /// Makes room for `bytes` in each buffer, every page of it written (see
    /// [`super::memory`]), so that neither growth nor a first touch lands in a timed pass.
    fn reserve(&mut self, bytes: usize);

    /// One pass of `workload` timed `timing`.
    ///
    /// An encode clears its buffer, then writes `io.packets` into it back to back: per unit into
    /// the buffer the decodes read ([`Runner::buffer`]), per window into a second one
    /// ([`Runner::batch_buffer`]), so the first keeps the per-unit pass's bytes for the checks.
    /// A decode reads [`Runner::buffer`] from byte `io.from` to its end into its receiver in
    /// `io`. Timed per unit, the pass pushes one [`PacketStat`] per packet onto `stats` (with
    /// room reserved beforehand, see [`super::memory`]); per window, it leaves `stats` alone.
    /// A decode error stops the pass; the packets decoded before it are in `stats`.
    fn pass(
        &mut self,
        workload: Workload,
        timing: Timing,
        io: &mut PassIo<'_>,
        timer: &Timer,
        stats: &mut Vec<PacketStat>,
    ) -> Result<PassStat, DecodeError>;

    /// The bytes of the last encode timed per unit (or [`Runner::load`]ed).
    fn buffer(&self) -> &[u8];

    /// The format trusts its producer ([`Documented::trusts_producer`]): it decodes only bytes
    /// it encoded itself, so [`Runner::load`] refuses it foreign ones.
    ///
    /// [`Documented::trusts_producer`]: crate::formats::Documented::trusts_producer
    fn trusts_producer(&self) -> bool;

    /// Replaces the buffer with `bytes` (from a file, a fuzzer, another run) so the decodes read
    /// them. Decoding foreign bytes must fail cleanly, never panic. Refused (the buffer emptied)
    /// for a format that trusts its producer: on foreign bytes its decoder's behaviour is
    /// undefined.
    fn load(&mut self, bytes: &[u8]) -> Result<(), DecodeError>;

    /// The format's [`Format::LOSSY`]: what it does not carry.
    fn lossy(&self) -> Option<Lossy>;

    /// The format's [`Format::STREAM`].
    fn stream(&self) -> bool;

    /// The bytes of the last encode timed per window.
    fn batch_buffer(&self) -> &[u8];

    /// Makes the last encode timed per window the buffer the decodes read (for a window timed
    /// only as a whole, which has no per-unit encode); the batch buffer is left stale.
    fn adopt_batch(&mut self);

    /// Decodes the whole buffer back into packets, appended to `out` (for `--verify`).
    fn decode_packets(&mut self, out: &mut Vec<Packet>) -> Result<(), DecodeError>;

    /// Decodes the one packet starting at byte `at` of the buffer back into the model (to name
    /// the field behind a checksum mismatch).
    fn decode_packet_at(&mut self, at: usize) -> Result<Packet, DecodeError>;
}

/// The one generic [`Runner`]: a format and the buffers it encodes into, reused across windows.
#[derive(Default)]
pub struct FormatRunner<F: Format> {
    pub format: F,
    buf: Written<u8>,
    /// Where an encode timed per window writes.
    batch_buf: Written<u8>,
}

/// What a decode workload reads into, as a pass reports it.
trait Receiver {
    /// Messages read so far.
    fn messages(&self) -> u64;
    /// What [`PacketStat::check`] records after each packet.
    fn check(&self) -> u64;
}

impl Receiver for Aggregate {
    #[inline(always)]
    fn messages(&self) -> u64 {
        self.messages
    }
    #[inline(always)]
    fn check(&self) -> u64 {
        0
    }
}

impl Receiver for Checksum {
    #[inline(always)]
    fn messages(&self) -> u64 {
        Checksum::messages(self)
    }
    #[inline(always)]
    fn check(&self) -> u64 {
        self.value()
    }
}

/// `work()`, with the nanoseconds it took if `clocked`, else 0. Every caller passes a constant
/// (the timing, a const parameter), so the branch folds away and the reads sit right around
/// the work.
#[inline(always)]
pub(super) fn timed<R>(clocked: bool, timer: &Timer, work: impl FnOnce() -> R) -> (R, u64) {
    if clocked {
        let start = timer.start();
        let out = work();
        (out, timer.elapsed_ns(start))
    } else {
        (work(), 0)
    }
}

/// The nanoseconds of the packets a pass timed per unit pushed from `first` on (outside the
/// timed region).
fn units_ns(stats: &[PacketStat], first: usize) -> u64 {
    stats[first..].iter().map(|s| s.ns).sum()
}

/// An encode of `packets` into `buf`, timed per packet (`PER_UNIT`) or as a whole.
#[inline(always)]
fn encode<F: Format, const PER_UNIT: bool>(
    format: &mut F,
    packets: &[Packet],
    buf: &mut Vec<u8>,
    timer: &Timer,
    stats: &mut Vec<PacketStat>,
) -> PassStat {
    buf.clear();
    let first = stats.len();
    let (messages, whole_ns) = timed(!PER_UNIT, timer, || {
        let mut messages = 0u64;
        for packet in packets {
            let (written, ns) = timed(PER_UNIT, timer, || format.encode(packet, buf));
            messages += written as u64;
            if PER_UNIT {
                stats.push(PacketStat {
                    end: buf.len(),
                    ns,
                    check: written as u64,
                });
            }
        }
        messages
    });
    PassStat {
        ns: if PER_UNIT {
            units_ns(stats, first)
        } else {
            whole_ns
        },
        packets: packets.len(),
        messages,
    }
}

/// A decode of `buf` from byte `from` into `receiver` with `decode` (one packet, returning the
/// bytes it used), timed per packet (`PER_UNIT`) or as a whole.
#[inline(always)]
fn decode<R: Receiver, const PER_UNIT: bool>(
    buf: &[u8],
    from: usize,
    receiver: &mut R,
    timer: &Timer,
    stats: &mut Vec<PacketStat>,
    mut decode: impl FnMut(&[u8], &mut R) -> Result<usize, DecodeError>,
) -> Result<PassStat, DecodeError> {
    let bytes = buf.get(from..).unwrap_or_default();
    let (before, first) = (receiver.messages(), stats.len());
    let mut end = from;
    let (packets, whole_ns) = timed(!PER_UNIT, timer, || {
        walk(bytes, |b| {
            let (used, ns) = timed(PER_UNIT, timer, || decode(b, receiver));
            let used = used?;
            if PER_UNIT {
                end += used;
                stats.push(PacketStat {
                    end,
                    ns,
                    check: receiver.check(),
                });
            }
            Ok(used)
        })
    });
    Ok(PassStat {
        ns: if PER_UNIT {
            units_ns(stats, first)
        } else {
            whole_ns
        },
        packets: packets?,
        messages: receiver.messages() - before,
    })
}

impl<F: Format> FormatRunner<F> {
    /// [`Runner::pass`] for one timing: the workload matched once, each arm's loop inlined.
    /// A new workload is an arm here: its codec method and the receiver it reads into.
    #[inline(always)]
    fn pass_timed<const PER_UNIT: bool>(
        &mut self,
        workload: Workload,
        io: &mut PassIo<'_>,
        timer: &Timer,
        stats: &mut Vec<PacketStat>,
    ) -> Result<PassStat, DecodeError> {
        let format = &mut self.format;
        let buf = self.buf.as_slice();
        match workload {
            Workload::Encode => {
                let out = if PER_UNIT {
                    &mut self.buf
                } else {
                    &mut self.batch_buf
                };
                Ok(encode::<F, PER_UNIT>(
                    format,
                    io.packets,
                    out.vec(),
                    timer,
                    stats,
                ))
            }
            Workload::Selective => {
                decode::<_, PER_UNIT>(buf, io.from, io.aggregate, timer, stats, |b, sink| {
                    format.decode_copy(b, sink)
                })
            }
            Workload::Complete => {
                decode::<_, PER_UNIT>(buf, io.from, io.checksum, timer, stats, |b, sum| {
                    format.decode_all_copy(b, sum)
                })
            }
        }
    }
}

impl<F: Format> Runner for FormatRunner<F> {
    buffers!(F);

    fn pass(
        &mut self,
        workload: Workload,
        timing: Timing,
        io: &mut PassIo<'_>,
        timer: &Timer,
        stats: &mut Vec<PacketStat>,
    ) -> Result<PassStat, DecodeError> {
        // Names the format in this copy of the loop, outside the timed region: an A/A twin's
        // loop (`measure::twins`) is otherwise the same code as its original's, and LLVM's
        // function merging would fold the two into one at one address.
        std::hint::black_box(F::NAME);
        match timing {
            Timing::PerUnit => self.pass_timed::<true>(workload, io, timer, stats),
            Timing::Window => self.pass_timed::<false>(workload, io, timer, stats),
        }
    }

    fn stream(&self) -> bool {
        F::STREAM
    }

    fn decode_packets(&mut self, out: &mut Vec<Packet>) -> Result<(), DecodeError> {
        let format = &mut self.format;
        walk(self.buf.as_slice(), |bytes| {
            let (packet, used) = format.decode_packet(bytes)?;
            out.push(packet);
            Ok(used)
        })
        .map(|_| ())
    }

    fn decode_packet_at(&mut self, at: usize) -> Result<Packet, DecodeError> {
        let bytes = self.buf.as_slice().get(at..).unwrap_or_default();
        self.format.decode_packet(bytes).map(|(packet, _)| packet)
    }
}

/// The [`Runner`] methods of a runner of codec `$C` that keeps its encodings in `buf` and
/// `batch_buf`, the same for both kinds.
macro_rules! buffers {
    ($C:ident) => {
        fn name(&self) -> &'static str {
            $C::NAME
        }

        fn reserve(&mut self, bytes: usize) {
            self.buf.reserve(bytes);
            self.batch_buf.reserve(bytes);
        }

        fn buffer(&self) -> &[u8] {
            self.buf.as_slice()
        }

        fn batch_buffer(&self) -> &[u8] {
            self.batch_buf.as_slice()
        }

        fn adopt_batch(&mut self) {
            std::mem::swap(&mut self.buf, &mut self.batch_buf);
        }

        fn lossy(&self) -> Option<Lossy> {
            $C::LOSSY
        }

        fn trusts_producer(&self) -> bool {
            $C::DOCUMENTED.trusts_producer()
        }

        fn load(&mut self, bytes: &[u8]) -> Result<(), DecodeError> {
            let buf = self.buf.vec();
            buf.clear();
            if $C::DOCUMENTED.trusts_producer() {
                return Err(DecodeError::Malformed(
                    "this format trusts its producer: it decodes only bytes it encoded itself",
                ));
            }
            buf.extend_from_slice(bytes);
            Ok(())
        }
    };
}
pub(super) use buffers;

/// Boxes a fresh runner for `F`.
pub fn runner<F: Format>() -> Box<dyn Runner> {
    Box::new(FormatRunner::<F>::default())
}
