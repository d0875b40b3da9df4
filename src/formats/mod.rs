//! The encodings under test: one file per format, one shared trait, one registry.
//!
//! A [`Format`] turns a neutral [`Packet`] into bytes appended to a reused buffer and reads such
//! bytes back in one of two measured workloads:
//!
//! - **selective** ([`Format::decode`] into a [`Sink`]): only the fields the aggregation needs, as
//!   a consumer that reads a few fields would; no copies of symbols, no allocation where the
//!   library allows.
//! - **complete** ([`Format::decode_all`] into a [`Visitor`]): every field of every message read
//!   through the format's own accessors or decoder and handed over as a neutral [`Message`]. The
//!   shootout folds them into a [`Checksum`] that must equal the source's, so every run checks
//!   every field of every format. `--verify` collects the same into a [`Packet`]
//!   ([`Format::decode_packet`]) to name the field that differs.
//!
//! Every format encodes one packet as a self-delimiting unit, so a window of packets is just
//! their encodings back to back and decoding returns how many bytes the packet used.
//!
//! The measuring loop never names a format: it iterates [`registry()`], a list of boxed
//! [`Runner`]s. `Runner` is implemented once, generically, for every `Format` (see [`FormatRunner`]),
//! so the per-message code is monomorphized and the only dynamic call is one per window (plus the
//! timer reads, inlined, once before and once after each packet).

pub mod aggregate;
pub mod checksum;
pub mod mirror;
pub mod wire;

/// Every format under test, once, in the registry's order: `module: [Type, ...]`, one line per
/// codec file. The module declarations below, [`registry()`], the conformance tests
/// (`tests/formats.rs`), the benches and the fuzz target all come from this list, so adding a
/// format is its schema, its file and one line here. Append new formats at the end: the fuzz
/// target picks a format by its position, and colours in the report follow it too.
///
/// It hands the list to `$callback` (a `macro_rules!` of the caller's) as
/// `module: [snake_name: path::Type, ...], ...`; the snake name is the format's for Rust
/// identifiers (test modules), `Format::NAME` its name everywhere else.
#[macro_export]
macro_rules! for_each_format {
    ($callback:ident) => {
        $callback! {
            capnp: [
                capnp_unpacked: $crate::formats::capnp::CapnpUnpacked,
                capnp_packed: $crate::formats::capnp::CapnpPacked,
            ],
            flatbuffers: [flatbuffers: $crate::formats::flatbuffers::FlatBuffers],
            sbe: [sbe: $crate::formats::sbe::Sbe],
            protobuf: [protobuf: $crate::formats::protobuf::Protobuf],
            rkyv: [rkyv: $crate::formats::rkyv::Rkyv],
            bitcode: [bitcode: $crate::formats::bitcode::Bitcode],
            postcard: [postcard: $crate::formats::postcard::Postcard],
            json: [json: $crate::formats::json::Json],
            raw: [raw: $crate::formats::raw::Raw],
        }
    };
}

macro_rules! declare_modules {
    ($($module:ident: [$($name:ident: $F:ty),+ $(,)?]),* $(,)?) => {$(
        pub mod $module;
    )*};
}
for_each_format!(declare_modules);

pub use aggregate::{Aggregate, SymbolStats};
pub use checksum::Checksum;

use crate::measure::clock::Timer;
use crate::model::{Message, Packet, Side, Timestamp};

/// An IEX-TP header counts its messages in a `u16`, so no real packet holds more. Decoders refuse
/// a packet claiming more, which bounds what hostile bytes can make them allocate or iterate.
pub const MAX_MESSAGES_PER_PACKET: usize = u16::MAX as usize;

/// The largest encoding of one packet any format produces from a 64 KiB datagram is about
/// 110 KB (Cap'n Proto, a datagram full of auction messages); decoders need not accept more.
pub const MAX_PACKET_BYTES: usize = 1 << 20;

/// Why bytes could not be decoded. Decoding never panics on hostile input; it returns one of these.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The buffer ends before the packet does.
    #[error("truncated: need {needed} bytes, have {available}")]
    Truncated { needed: usize, available: usize },
    /// The bytes are not a valid packet of this format.
    #[error("malformed: {0}")]
    Malformed(&'static str),
    /// The format's library rejected the bytes (its message).
    #[error("{format}: {message}")]
    Library {
        format: &'static str,
        message: String,
    },
}

impl DecodeError {
    pub(crate) fn library(format: &'static str, e: impl std::fmt::Display) -> DecodeError {
        DecodeError::Library {
            format,
            message: e.to_string(),
        }
    }

    /// `Err(Truncated)` unless `bytes` holds at least `needed` bytes.
    pub(crate) fn check_len(bytes: &[u8], needed: usize) -> Result<(), DecodeError> {
        if bytes.len() < needed {
            Err(DecodeError::Truncated {
                needed,
                available: bytes.len(),
            })
        } else {
            Ok(())
        }
    }
}

/// Receives what a decoder reads: only the fields the aggregation needs, symbols borrowed.
pub trait Sink {
    /// A packet starts; its messages follow.
    fn packet(&mut self, seq: u64);
    /// A trade report (`T`); trade breaks go to [`Sink::other`].
    fn trade(&mut self, symbol: &[u8; 8], size: u32, price: i64);
    /// A DEEP price level update (`8` / `5`).
    fn price_level(&mut self, side: Side, symbol: &[u8; 8], price: i64);
    /// A TOPS quote update (`Q`); a zero price means no quote on that side.
    fn quote(&mut self, symbol: &[u8; 8], bid_price: i64, ask_price: i64);
    /// Any other message.
    fn other(&mut self);
}

/// Receives what a complete decode reads: the packet header, then every message whole.
pub trait Visitor {
    /// A packet starts; its messages follow.
    fn packet(&mut self, seq: u64, send_time: Timestamp);
    /// One message, every field as the format stored it.
    fn message(&mut self, message: Message);
}

/// Collects a complete decode into a [`Packet`] (`--verify`, tests).
impl Visitor for Packet {
    fn packet(&mut self, seq: u64, send_time: Timestamp) {
        self.seq = seq;
        self.send_time = send_time;
        self.messages.clear();
    }

    fn message(&mut self, message: Message) {
        self.messages.push(message);
    }
}

/// One encoding of IEX packets.
pub trait Format: Default + 'static {
    /// Stable id used in CSV rows and on the command line.
    const NAME: &'static str;

    /// Appends one self-delimiting encoded packet to `out` (a reused buffer: never cleared here)
    /// and returns how many messages it wrote: counted by the encoder, so a format that drops a
    /// message says so and the shootout's count check catches it.
    fn encode(&mut self, packet: &Packet, out: &mut Vec<u8>) -> usize;

    /// Reads the packet at the start of `bytes` into `sink` without copying symbols; returns how
    /// many bytes it used.
    fn decode<K: Sink>(&mut self, bytes: &[u8], sink: &mut K) -> Result<usize, DecodeError>;

    /// Reads the packet at the start of `bytes` completely: every field of every message through
    /// the format's own accessors or decoder, handed to `visitor` in order; returns how many bytes
    /// it used. The measured complete-decode workload (`de_all`).
    fn decode_all<V: Visitor>(
        &mut self,
        bytes: &[u8],
        visitor: &mut V,
    ) -> Result<usize, DecodeError>;

    /// [`Format::decode_all`] collected into a neutral packet, with how many bytes it used.
    fn decode_packet(&mut self, bytes: &[u8]) -> Result<(Packet, usize), DecodeError> {
        let mut packet = Packet::default();
        let used = self.decode_all(bytes, &mut packet)?;
        Ok((packet, used))
    }
}

/// Per-packet outcome of a window run: where the packet's bytes end in the runner's buffer and how
/// many nanoseconds its encode or decode took, by the [`Timer`] read just before and after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

    /// Makes room for `bytes` more in both buffers, so that growth never lands in a timed pass.
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
    pub buf: Vec<u8>,
    /// Where [`Runner::encode_batch`] writes.
    pub batch_buf: Vec<u8>,
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
    Ok(packets)
}

impl<F: Format> Runner for FormatRunner<F> {
    fn name(&self) -> &'static str {
        F::NAME
    }

    fn reserve(&mut self, bytes: usize) {
        self.buf.reserve(bytes.saturating_sub(self.buf.len()));
        self.batch_buf
            .reserve(bytes.saturating_sub(self.batch_buf.len()));
    }

    fn encode_window(&mut self, window: &[Packet], timer: &Timer, stats: &mut Vec<PacketStat>) {
        self.buf.clear();
        for packet in window {
            let start = timer.start();
            let written = self.format.encode(packet, &mut self.buf);
            let ns = timer.elapsed_ns(start);
            stats.push(PacketStat {
                end: self.buf.len(),
                ns,
                check: written as u64,
            });
        }
    }

    fn buffer(&self) -> &[u8] {
        &self.buf
    }

    fn load(&mut self, bytes: &[u8]) {
        self.buf.clear();
        self.buf.extend_from_slice(bytes);
    }

    fn decode_window(
        &mut self,
        sink: &mut Aggregate,
        timer: &Timer,
        stats: &mut Vec<PacketStat>,
    ) -> Result<usize, DecodeError> {
        let mut end = 0;
        let format = &mut self.format;
        walk(&self.buf, |bytes| {
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
        walk(&self.buf, |bytes| {
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
        self.batch_buf.clear();
        let mut messages = 0u64;
        let start = timer.start();
        for packet in packets {
            messages += self.format.encode(packet, &mut self.batch_buf) as u64;
        }
        let ns = timer.elapsed_ns(start);
        Batch {
            ns,
            packets: packets.len(),
            messages,
        }
    }

    fn batch_buffer(&self) -> &[u8] {
        &self.batch_buf
    }

    fn decode_batch(
        &mut self,
        from: usize,
        sink: &mut Aggregate,
        timer: &Timer,
    ) -> Result<Batch, DecodeError> {
        let bytes = self.buf.get(from..).unwrap_or_default();
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
        let bytes = self.buf.get(from..).unwrap_or_default();
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
        walk(&self.buf, |bytes| {
            let (packet, used) = format.decode_packet(bytes)?;
            out.push(packet);
            Ok(used)
        })
        .map(|_| ())
    }

    fn decode_packet_at(&mut self, at: usize) -> Result<Packet, DecodeError> {
        let bytes = self.buf.get(at..).unwrap_or_default();
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

/// Every format under test, in [`for_each_format!`]'s order.
pub fn registry() -> Vec<Box<dyn Runner>> {
    for_each_format!(boxed_runners)
}

/// The names of [`registry()`], in order.
pub fn names() -> Vec<&'static str> {
    registry().iter().map(|r| r.name()).collect()
}
