//! The timed loop around one format: a [`Runner`] is a [`Format`] with its reused buffers, and
//! times its passes over a window of packets with the [`Timer`]. Implemented once, generically
//! ([`FormatRunner`]), so the per-message code is monomorphized and the only dynamic call is one
//! per pass (plus the timer reads, inlined, once before and once after each packet).

use super::clock::Timer;
use super::memory::Written;
use crate::formats::{Aggregate, Checksum, DecodeError, Format};
use crate::model::Packet;

/// Per-packet outcome of a window run: where the packet's bytes end in the runner's buffer and how
/// many nanoseconds its encode or decode took, by the [`Timer`] read just before and after.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PacketStat {
    pub end: usize,
    pub ns: u64,
    /// Complete decode: the running [`Checksum`] after this packet (read after the clock); the
    /// message count for an encode; 0 for a selective decode.
    pub check: u64,
}

/// What one pass over a window timed as a whole (one clock pair, no per-packet reads) did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Batch {
    pub ns: u64,
    pub packets: usize,
    /// Messages written (encode) or read (decode).
    pub messages: u64,
}

/// Object-safe face of a [`Format`] plus its reused output buffers, for the measuring loop.
///
/// Two kinds of pass: per packet (the clock read right before and right after each packet, one
/// [`PacketStat`] pushed per packet: the latency distribution) and per window (`*_batch`: one
/// clock pair around the whole pass, so the figure is not quantized by the clock's steps and does
/// not carry the timer's own cost per packet: the throughput).
pub trait Runner {
    /// The format's [`Format::NAME`].
    fn name(&self) -> &'static str;

    /// Makes room for `bytes` in each buffer, every page of it written (see
    /// [`super::memory`]), so that neither growth nor a first touch lands in a timed pass.
    fn reserve(&mut self, bytes: usize);

    /// Clears the buffer, then encodes each packet of `window` into it back to back, timed per
    /// packet; [`PacketStat::check`] holds the messages the encoder reported writing.
    fn encode_window(&mut self, window: &[Packet], timer: &Timer, stats: &mut Vec<PacketStat>);

    /// The bytes of the last [`Runner::encode_window`].
    fn buffer(&self) -> &[u8];

    /// Replaces the buffer with `bytes` (from a file, a fuzzer, another run) so the decode
    /// methods read them. Decoding foreign bytes must fail cleanly, never panic.
    fn load(&mut self, bytes: &[u8]);

    /// Decodes the buffer packet by packet into `sink` (selective workload) until it is used up,
    /// timed per packet. Returns the number of packets decoded.
    fn decode_window(
        &mut self,
        sink: &mut Aggregate,
        timer: &Timer,
        stats: &mut Vec<PacketStat>,
    ) -> Result<usize, DecodeError>;

    /// Decodes the buffer packet by packet completely into `checksum`, timed per packet;
    /// [`PacketStat::check`] is the checksum's value after each packet.
    fn decode_all_window(
        &mut self,
        checksum: &mut Checksum,
        timer: &Timer,
        stats: &mut Vec<PacketStat>,
    ) -> Result<usize, DecodeError>;

    /// Encodes `packets` into the second buffer (the first keeps the per-packet pass's bytes for
    /// the checks), one clock pair around the whole pass.
    fn encode_batch(&mut self, packets: &[Packet], timer: &Timer) -> Batch;

    /// The bytes of the last [`Runner::encode_batch`].
    fn batch_buffer(&self) -> &[u8];

    /// Makes the last batch encode the buffer the decodes read (for a window timed only as a
    /// whole, which has no per-packet encode); the batch buffer is left stale.
    fn adopt_batch(&mut self);

    /// Decodes the buffer from byte `from` to its end into `sink`, one clock pair around it all.
    fn decode_batch(
        &mut self,
        from: usize,
        sink: &mut Aggregate,
        timer: &Timer,
    ) -> Result<Batch, DecodeError>;

    /// Decodes the buffer from byte `from` to its end completely into `checksum`, one clock pair
    /// around it all.
    fn decode_all_batch(
        &mut self,
        from: usize,
        checksum: &mut Checksum,
        timer: &Timer,
    ) -> Result<Batch, DecodeError>;

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
    /// Where [`Runner::encode_batch`] writes.
    batch_buf: Written<u8>,
}

/// Walks `bytes` packet by packet with `decode`, which returns the bytes each packet used.
#[inline(always)]
fn walk(
    bytes: &[u8],
    mut decode: impl FnMut(&[u8]) -> Result<usize, DecodeError>,
) -> Result<usize, DecodeError> {
    let (mut pos, mut packets) = (0, 0);
    while pos < bytes.len() {
        let used = decode(&bytes[pos..])?;
        if used == 0 {
            return Err(DecodeError::Malformed("decoder used no bytes"));
        }
        pos += used;
        packets += 1;
    }
    if pos > bytes.len() {
        return Err(DecodeError::Malformed(
            "the decoder claimed more bytes than the buffer holds",
        ));
    }
    Ok(packets)
}

impl<F: Format> Runner for FormatRunner<F> {
    fn name(&self) -> &'static str {
        F::NAME
    }

    fn reserve(&mut self, bytes: usize) {
        self.buf.reserve(bytes);
        self.batch_buf.reserve(bytes);
    }

    fn encode_window(&mut self, window: &[Packet], timer: &Timer, stats: &mut Vec<PacketStat>) {
        let buf = self.buf.vec();
        buf.clear();
        for packet in window {
            let start = timer.start();
            let written = self.format.encode(packet, buf);
            let ns = timer.elapsed_ns(start);
            stats.push(PacketStat {
                end: buf.len(),
                ns,
                check: written as u64,
            });
        }
    }

    fn buffer(&self) -> &[u8] {
        self.buf.as_slice()
    }

    fn load(&mut self, bytes: &[u8]) {
        let buf = self.buf.vec();
        buf.clear();
        buf.extend_from_slice(bytes);
    }

    fn decode_window(
        &mut self,
        sink: &mut Aggregate,
        timer: &Timer,
        stats: &mut Vec<PacketStat>,
    ) -> Result<usize, DecodeError> {
        let mut end = 0;
        let format = &mut self.format;
        walk(self.buf.as_slice(), |bytes| {
            let start = timer.start();
            let used = format.decode(bytes, sink)?;
            let ns = timer.elapsed_ns(start);
            end += used;
            stats.push(PacketStat { end, ns, check: 0 });
            Ok(used)
        })
    }

    fn decode_all_window(
        &mut self,
        checksum: &mut Checksum,
        timer: &Timer,
        stats: &mut Vec<PacketStat>,
    ) -> Result<usize, DecodeError> {
        let mut end = 0;
        let format = &mut self.format;
        walk(self.buf.as_slice(), |bytes| {
            let start = timer.start();
            let used = format.decode_all(bytes, checksum)?;
            let ns = timer.elapsed_ns(start);
            end += used;
            stats.push(PacketStat {
                end,
                ns,
                check: checksum.value(),
            });
            Ok(used)
        })
    }

    fn encode_batch(&mut self, packets: &[Packet], timer: &Timer) -> Batch {
        let buf = self.batch_buf.vec();
        buf.clear();
        let mut messages = 0u64;
        let start = timer.start();
        for packet in packets {
            messages += self.format.encode(packet, buf) as u64;
        }
        let ns = timer.elapsed_ns(start);
        Batch {
            ns,
            packets: packets.len(),
            messages,
        }
    }

    fn batch_buffer(&self) -> &[u8] {
        self.batch_buf.as_slice()
    }

    fn adopt_batch(&mut self) {
        std::mem::swap(&mut self.buf, &mut self.batch_buf);
    }

    fn decode_batch(
        &mut self,
        from: usize,
        sink: &mut Aggregate,
        timer: &Timer,
    ) -> Result<Batch, DecodeError> {
        let bytes = self.buf.as_slice().get(from..).unwrap_or_default();
        let format = &mut self.format;
        let before = sink.messages;
        let start = timer.start();
        let packets = walk(bytes, |b| format.decode(b, sink))?;
        let ns = timer.elapsed_ns(start);
        Ok(Batch {
            ns,
            packets,
            messages: sink.messages - before,
        })
    }

    fn decode_all_batch(
        &mut self,
        from: usize,
        checksum: &mut Checksum,
        timer: &Timer,
    ) -> Result<Batch, DecodeError> {
        let bytes = self.buf.as_slice().get(from..).unwrap_or_default();
        let format = &mut self.format;
        let before = checksum.messages();
        let start = timer.start();
        let packets = walk(bytes, |b| format.decode_all(b, checksum))?;
        let ns = timer.elapsed_ns(start);
        Ok(Batch {
            ns,
            packets,
            messages: checksum.messages() - before,
        })
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

/// Boxes a fresh runner for `F`.
pub fn runner<F: Format>() -> Box<dyn Runner> {
    Box::new(FormatRunner::<F>::default())
}

macro_rules! boxed_runners {
    ($($module:ident: [$($name:ident: $F:ty),+ $(,)?]),* $(,)?) => {
        vec![$($(runner::<$F>()),+),*]
    };
}

/// Every format under test, in `for_each_format!`'s order.
pub fn registry() -> Vec<Box<dyn Runner>> {
    crate::for_each_format!(boxed_runners)
}
