//! The encodings under test: one file per format, one shared trait, one registry.
//!
//! A [`Format`] turns a neutral [`Packet`] into bytes appended to a reused buffer and reads such
//! bytes back, either into a [`Sink`] (the measured path: no copies of symbols, no allocation where
//! the library allows) or into a full [`Packet`] (for `--verify`). Every format encodes one packet
//! as a self-delimiting unit, so a window of packets is just their encodings back to back and
//! decoding returns how many bytes the packet used.
//!
//! The measuring loop never names a format: it iterates [`registry()`], a list of boxed
//! [`Runner`]s. `Runner` is implemented once, generically, for every `Format` (see [`FormatRunner`]),
//! so the per-message code is monomorphized and the only dynamic call is one per window (plus the
//! timer reads, inlined, once before and once after each packet).

pub mod aggregate;
pub mod bitcode;
pub mod capnp;
pub mod flatbuffers;
pub mod json;
pub mod mirror;
pub mod postcard;
pub mod protobuf;
pub mod raw;
pub mod rkyv;
pub mod sbe;
pub mod wire;

pub use aggregate::{Aggregate, SymbolStats};

use crate::measure::clock::Timer;
use crate::model::{Packet, Side};

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

/// One encoding of IEX packets.
pub trait Format: Default + 'static {
    /// Stable id used in CSV rows and on the command line.
    const NAME: &'static str;

    /// Appends one self-delimiting encoded packet to `out` (a reused buffer: never cleared here).
    fn encode(&mut self, packet: &Packet, out: &mut Vec<u8>);

    /// Reads the packet at the start of `bytes` into `sink` without copying symbols; returns how
    /// many bytes it used.
    fn decode<K: Sink>(&mut self, bytes: &[u8], sink: &mut K) -> Result<usize, DecodeError>;

    /// Reads the packet at the start of `bytes` back into the neutral model, every field, and
    /// returns it with how many bytes it used. For verification, not measured.
    fn decode_packet(&mut self, bytes: &[u8]) -> Result<(Packet, usize), DecodeError>;
}

/// Per-packet outcome of a window run: where the packet's bytes end in the runner's buffer and how
/// many nanoseconds its encode or decode took, by the [`Timer`] read just before and after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PacketStat {
    pub end: usize,
    pub ns: u64,
}

/// Object-safe face of a [`Format`] plus its reused output buffer, for the measuring loop.
pub trait Runner {
    /// The format's [`Format::NAME`].
    fn name(&self) -> &'static str;

    /// Clears the buffer, then encodes each packet of `window` into it back to back. Pushes one
    /// [`PacketStat`] per packet onto `stats` (not cleared here); the clock is read right before
    /// and right after each packet's encode.
    fn encode_window(&mut self, window: &[Packet], timer: &Timer, stats: &mut Vec<PacketStat>);

    /// The bytes of the last encoded window.
    fn buffer(&self) -> &[u8];

    /// Replaces the buffer with `bytes` (from a file, a fuzzer, another run) so the decode
    /// methods read them. Decoding foreign bytes must fail cleanly, never panic.
    fn load(&mut self, bytes: &[u8]);

    /// Decodes the buffer packet by packet into `sink` until it is used up, pushing one
    /// [`PacketStat`] per packet onto `stats`, timed like [`Runner::encode_window`]. Returns the
    /// number of packets decoded.
    fn decode_window(
        &mut self,
        sink: &mut Aggregate,
        timer: &Timer,
        stats: &mut Vec<PacketStat>,
    ) -> Result<usize, DecodeError>;

    /// Decodes the whole buffer back into packets, appended to `out` (for `--verify`).
    fn decode_packets(&mut self, out: &mut Vec<Packet>) -> Result<(), DecodeError>;
}

/// The one generic [`Runner`]: a format and the buffer it encodes into, reused across windows.
#[derive(Default)]
pub struct FormatRunner<F: Format> {
    pub format: F,
    pub buf: Vec<u8>,
}

impl<F: Format> Runner for FormatRunner<F> {
    fn name(&self) -> &'static str {
        F::NAME
    }

    fn encode_window(&mut self, window: &[Packet], timer: &Timer, stats: &mut Vec<PacketStat>) {
        self.buf.clear();
        for packet in window {
            let start = timer.start();
            self.format.encode(packet, &mut self.buf);
            let ns = timer.elapsed_ns(start);
            stats.push(PacketStat {
                end: self.buf.len(),
                ns,
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
        let mut pos = 0;
        let mut packets = 0;
        while pos < self.buf.len() {
            let start = timer.start();
            let used = self.format.decode(&self.buf[pos..], sink)?;
            let ns = timer.elapsed_ns(start);
            if used == 0 {
                return Err(DecodeError::Malformed("decoder used no bytes"));
            }
            pos += used;
            packets += 1;
            stats.push(PacketStat { end: pos, ns });
        }
        Ok(packets)
    }

    fn decode_packets(&mut self, out: &mut Vec<Packet>) -> Result<(), DecodeError> {
        let mut pos = 0;
        while pos < self.buf.len() {
            let (packet, used) = self.format.decode_packet(&self.buf[pos..])?;
            if used == 0 {
                return Err(DecodeError::Malformed("decoder used no bytes"));
            }
            pos += used;
            out.push(packet);
        }
        Ok(())
    }
}

/// Boxes a fresh runner for `F`.
pub fn runner<F: Format>() -> Box<dyn Runner> {
    Box::new(FormatRunner::<F>::default())
}

/// Every format under test, in a stable order. Adding a format is one line here.
pub fn registry() -> Vec<Box<dyn Runner>> {
    vec![
        runner::<capnp::CapnpUnpacked>(),
        runner::<capnp::CapnpPacked>(),
        runner::<flatbuffers::FlatBuffers>(),
        runner::<sbe::Sbe>(),
        runner::<protobuf::Protobuf>(),
        runner::<rkyv::Rkyv>(),
        runner::<bitcode::Bitcode>(),
        runner::<postcard::Postcard>(),
        runner::<json::Json>(),
        runner::<raw::Raw>(),
    ]
}

/// The names of [`registry()`], in order.
pub fn names() -> Vec<&'static str> {
    registry().iter().map(|r| r.name()).collect()
}
