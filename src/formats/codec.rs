//! What every format implements ([`Format`]), what its decoders report to ([`Sink`], [`Visitor`],
//! [`DecodeError`]), and the bounds and page-touching helpers the codecs share. Kept apart from
//! `formats/mod.rs` (the registry), so the codecs import this file and the registry imports the
//! codecs, never the other way round.

use super::languages::OtherLanguages;
use crate::model::{kind, Message, Packet, Side, Timestamp};

/// An IEX-TP header counts its messages in a `u16`, so no real packet holds more. Decoders refuse
/// a packet claiming more, which bounds what hostile bytes can make them allocate or iterate.
pub const MAX_MESSAGES_PER_PACKET: usize = u16::MAX as usize;

/// The largest encoding of one packet any format produces from a 64 KiB datagram is about
/// 110 KB (Cap'n Proto, a datagram full of auction messages); decoders need not accept more.
pub const MAX_PACKET_BYTES: usize = 1 << 20;

/// The most messages an IEX-TP packet in one UDP datagram can carry: the 65,507-byte payload of
/// the largest IPv4 datagram less the segment header, in messages of the shortest kind each
/// behind its 2-byte length (5,455). Codecs size the memory they reuse for it, so that no real
/// packet makes them grow, reallocate or touch new pages inside a timed pass.
pub const MAX_DATAGRAM_MESSAGES: usize = datagram_messages(SHORTEST_KIND);

/// The message kind with the shortest wire length (System Event, 10 bytes).
pub(crate) const SHORTEST_KIND: u8 = {
    let (mut i, mut shortest) = (0, kind::ALL[0]);
    while i < kind::ALL.len() {
        if wire_len(kind::ALL[i]) < wire_len(shortest) {
            shortest = kind::ALL[i];
        }
        i += 1;
    }
    shortest
};

const fn wire_len(k: u8) -> usize {
    match kind::wire_len(k) {
        Some(len) => len,
        None => panic!("a kind of kind::ALL has a wire length"),
    }
}

/// How many messages of kind `k` fill the largest UDP datagram.
const fn datagram_messages(k: u8) -> usize {
    (65_507 - crate::iex::segment::HEADER_LEN) / (2 + wire_len(k))
}

/// A message of kind `k` whose every byte after the type is `'7'`: an ASCII symbol, and integers
/// that take a varint's longest encodings. What codecs build at construction to size their
/// memory, and what tests fill datagrams with.
pub(crate) fn filler(k: u8) -> Message {
    let mut bytes = [b'7'; 128];
    bytes[0] = k;
    crate::iex::message::decode(&bytes)
        .expect("a kind of kind::ALL decodes from enough bytes")
        .to_owned()
}

/// A packet of one message of every kind.
pub(crate) fn every_kind() -> Packet {
    Packet {
        seq: 7,
        send_time: 7,
        messages: kind::ALL.iter().map(|&k| filler(k)).collect(),
    }
}

/// The packet of kind `k` messages filling the largest UDP datagram.
pub(crate) fn full_datagram(k: u8) -> Packet {
    Packet {
        seq: 7,
        send_time: 7,
        messages: vec![filler(k); datagram_messages(k)],
    }
}

/// What two implementations of one wire format owe each other (tests): every packet of
/// `packets` (the cross-language sample: a message of every kind, then the first packets of the
/// bundled DEEP, TOPS and DEEP+ captures) written by either is read by the other to the packet
/// the IEX parser read, every byte used.
#[cfg(test)]
pub(crate) fn each_reads_the_others<A: Format, B: Format>(packets: &[Packet]) {
    fn reads<W: Format, R: Format>(packets: &[Packet]) {
        let (mut w, mut r) = (W::default(), R::default());
        for (i, p) in packets.iter().enumerate() {
            let mut bytes = Vec::new();
            assert_eq!(w.encode(p, &mut bytes), p.messages.len(), "packet {i}");
            let (got, used) = r
                .decode_packet(&bytes)
                .unwrap_or_else(|e| panic!("{} refused {}'s packet {i}: {e}", R::NAME, W::NAME));
            assert_eq!(used, bytes.len(), "packet {i}");
            assert_eq!(&got, p, "{} reading {}'s packet {i}", R::NAME, W::NAME);
        }
    }
    let messages: usize = packets.iter().map(|p| p.messages.len()).sum();
    assert!(
        packets.len() > 600 && messages > 1_000,
        "{} packets",
        packets.len()
    );
    let kinds: std::collections::BTreeSet<u8> = packets
        .iter()
        .flat_map(|p| &p.messages)
        .map(|m| m.kind())
        .collect();
    assert_eq!(kinds.len(), kind::ALL.len());
    reads::<A, B>(packets);
    reads::<B, A>(packets);
}

/// The message of the library error `F` refuses `bytes` with, which must name `F` (tests).
#[cfg(test)]
pub(crate) fn library_error<F: Format>(bytes: &[u8]) -> String {
    match F::default().decode_packet(bytes) {
        Err(DecodeError::Library { format, message }) if format == F::NAME => message,
        other => panic!(
            "{}: {:?}: {other:?}",
            F::NAME,
            String::from_utf8_lossy(bytes)
        ),
    }
}

/// Bytes per page (x86-64 and aarch64 Linux with 4 KiB pages; on larger pages every page is still
/// written, just more than once).
const PAGE: usize = 4096;

/// Writes `zero` into every page of `memory`, so that the kernel maps those pages now rather than
/// at their first write inside a timed pass (freshly allocated memory, zeroed or not, is often not
/// mapped yet). `black_box` keeps the compiler from dropping stores of zeros into memory it knows
/// is zeroed.
pub(crate) fn touch<T: Copy>(memory: &mut [T], zero: T) {
    for_each_page(memory, |x| *x = std::hint::black_box(zero));
}

/// Reserves room for `additional` more elements in `v` and maps every page of its spare capacity
/// (see [`touch`]), so that filling it up to there neither reallocates nor faults.
pub(crate) fn reserve_touched<T>(v: &mut Vec<T>, additional: usize) {
    v.reserve(additional);
    for_each_page(v.spare_capacity_mut(), |slot| {
        *slot = std::hint::black_box(std::mem::MaybeUninit::zeroed());
    });
}

/// Calls `f` on one element in every page `memory` spans: one a page apart from the first, and
/// the last (which may lie on a page the stride stepped over).
fn for_each_page<T>(memory: &mut [T], mut f: impl FnMut(&mut T)) {
    let step = (PAGE / std::mem::size_of::<T>().max(1)).max(1);
    memory.iter_mut().step_by(step).for_each(&mut f);
    if let Some(last) = memory.last_mut() {
        f(last);
    }
}

/// The body behind the little-endian `u32` length at the start of `bytes`, and the bytes the two
/// use: FlatBuffers' size prefix, and the frame of the codecs whose library writes no length of
/// its own (bitcode, planus).
#[inline(always)]
pub(crate) fn size_prefixed(bytes: &[u8]) -> Result<(&[u8], usize), DecodeError> {
    let Some(&prefix) = bytes.first_chunk::<4>() else {
        return Err(DecodeError::Truncated {
            needed: 4,
            available: bytes.len(),
        });
    };
    let used = (u32::from_le_bytes(prefix) as usize)
        .checked_add(4)
        .ok_or(DecodeError::Malformed("size prefix overflows"))?;
    DecodeError::check_len(bytes, used)?;
    Ok((&bytes[4..used], used))
}

/// Why bytes could not be decoded. Decoding never panics on hostile input; it returns one of these.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The buffer ends before the packet does.
    #[error("truncated: need {needed} bytes, have {available}")]
    Truncated { needed: usize, available: usize },
    /// The bytes are not a valid packet of this format.
    #[error("malformed: {0}")]
    Malformed(&'static str),
    /// The pass asked of the format is not one it has (a window format timed per packet).
    #[error("refused: {0}")]
    Refused(&'static str),
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
    /// A trade report (`T`) or a DEEP+ order execution (`L`): both are executed volume. Trade
    /// breaks go to [`Sink::other`].
    fn trade(&mut self, symbol: &[u8; 8], size: u32, price: i64);
    /// A DEEP price level update (`8` / `5`).
    fn price_level(&mut self, side: Side, symbol: &[u8; 8], price: i64);
    /// A DEEP+ add order (`a`), its side the wire byte (`8` buy, `5` sell).
    fn add_order(&mut self, side: u8, symbol: &[u8; 8], price: i64);
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

/// What a format's documentation says of it: the capability cells (`shootout formats`) that
/// running code cannot decide alone, or decides only together with them. Every format states
/// it, so a new format has its cells from the start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Documented {
    /// The schema document the format's code generator reads, and the generator; `None` where
    /// Rust types are the schema (nothing another language could generate a reader from).
    pub schema: Option<&'static str>,
    /// Decoding reads fields in place from the bytes, without first copying the message into
    /// values of its own.
    pub reads_in_place: bool,
    /// Decoding checks untrusted bytes (a verifier, bounds and tag checks) and refuses what is
    /// not a packet; `false` for a decoder that trusts its producer, which must then only ever
    /// be given bytes its own encoder wrote (see [`Documented::trusts_producer`]).
    pub validates: bool,
    /// Where the above is documented: the format's own documentation, or this codec's module
    /// docs where the codec adds the checks.
    pub source: &'static str,
}

impl Documented {
    /// The decoder trusts its producer (`validates` is false): on bytes its own encoder did not
    /// write its behaviour is undefined, so nothing may feed it untrusted, truncated or corrupt
    /// bytes. The one property every such check (validation, fuzzing, the hostile-input tests,
    /// `Runner::load`) and every label ("trusts its producer") goes by.
    pub const fn trusts_producer(&self) -> bool {
        !self.validates
    }

    /// Written on one line per codec: schema, reads in place, validates, source.
    pub const fn new(
        schema: Option<&'static str>,
        reads_in_place: bool,
        validates: bool,
        source: &'static str,
    ) -> Documented {
        Documented {
            schema,
            reads_in_place,
            validates,
            source,
        }
    }
}

/// What a lossy format says of itself ([`Format::LOSSY`]): the fields it does not carry, in
/// words and as code. The run checks its complete decode against `project`ed packets, so its
/// every-field check covers exactly what it carries.
#[derive(Debug, Clone, Copy)]
pub struct Lossy {
    /// Every field not carried (`shootout formats`, the report's note).
    pub reason: &'static str,
    /// The packet a correct decoder gives back.
    pub project: fn(&Packet) -> Packet,
}

/// What a format allocates per packet once warm, by workload: nothing, but for what its library
/// cannot avoid, said where the format states it ([`Format::STEADY`]) and checked by
/// `formats::steady` against the counting allocator.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Steady {
    pub encode: PerPacket,
    /// Both decodes (selective and complete) allocate alike.
    pub decode: PerPacket,
}

impl Steady {
    /// Nothing in any workload: the codec's memory is sized at construction.
    pub const NOTHING: Steady = Steady {
        encode: PerPacket::NONE,
        decode: PerPacket::NONE,
    };
}

/// Allocations per packet, as counts of what the packet holds; the terms add.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PerPacket {
    /// One per packet, heartbeats included.
    pub packet: u8,
    /// One per packet that holds messages.
    pub with_messages: u8,
    /// A `Vec` of the packet's messages collected without a size hint: the first holds 4, and
    /// each growth after doubles (one allocation each).
    pub grown_vec: u8,
    /// One per message.
    pub message: u8,
    /// One per fixed-size byte field (every symbol, every trading status's reason code).
    pub fixed_field: u8,
}

impl PerPacket {
    pub const NONE: PerPacket = PerPacket {
        packet: 0,
        with_messages: 0,
        grown_vec: 0,
        message: 0,
        fixed_field: 0,
    };
}

/// One encoding of IEX packets.
pub trait Format: Default + 'static {
    /// Stable id used in CSV rows and on the command line.
    const NAME: &'static str;

    /// What the format's documentation says of its schema, reading in place and validation.
    const DOCUMENTED: Documented;

    /// `Some` for a format with no slot for some IEX fields: what it leaves out.
    const LOSSY: Option<Lossy> = None;

    /// A packet's bytes depend on the packets before it in the stream (e.g. a symbol table
    /// written once per stream); a stream starts where [`Format::encode`] is handed an empty
    /// `out`. A window's batch encode then differs from the per-packet one after a warm-up.
    const STREAM: bool = false;

    /// Which implementations outside Rust read its bytes (the `other languages` cell): every
    /// format states it, so a new one has its cell from the start.
    const OTHER_LANGUAGES: OtherLanguages;

    /// The format whose bytes it writes with other code (json-sonic writes json's; a format that
    /// trusts its producer writes its checked twin's), checked equal by its tests.
    const WRITES_BYTES_OF: Option<&'static str> = None;

    /// What it allocates per packet once warm: nothing, unless its library cannot help it (say
    /// why beside the value). `formats::steady` counts it.
    const STEADY: Steady = Steady::NOTHING;

    /// Which of its library's code paths it runs in this build on this CPU, for a library that
    /// picks one (at compile time: sonic-rs; at run time: simd-json) and whose figures depend on
    /// it. The run's table and `shootout formats` print it beside the row.
    fn code_path() -> Option<&'static str> {
        None
    }

    /// Appends one self-delimiting encoded packet to `out` (a reused buffer: never cleared here)
    /// and returns how many messages it wrote: counted by the encoder, so a format that drops a
    /// message says so and the shootout's count check catches it.
    fn encode(&mut self, packet: &Packet, out: &mut Vec<u8>) -> usize;

    /// Reads the packet at the start of `bytes` into `sink` without copying symbols; returns how
    /// many bytes it used.
    fn decode<K: Sink>(&mut self, bytes: &[u8], sink: &mut K) -> Result<usize, DecodeError>;

    /// Reads the packet at the start of `bytes` completely: every field of every message through
    /// the format's own accessors or decoder, handed to `v` in order; returns how many bytes
    /// it used. The measured complete-decode workload (`de_all`).
    fn decode_all<V: Visitor>(&mut self, bytes: &[u8], v: &mut V) -> Result<usize, DecodeError>;

    /// [`Format::decode`] as the timed passes call it: the codec's copy 0 ([`Marked`]). A twin
    /// of the format (`measure::twins`) calls a copy of its own number, so each is machine code
    /// of its own, and both run the same instructions.
    #[inline(always)]
    fn decode_copy<K: Sink>(&mut self, bytes: &[u8], sink: &mut K) -> Result<usize, DecodeError> {
        self.decode(bytes, &mut Marked::<K, 0>(sink))
    }

    /// [`Format::decode_all`] of `b` as the timed passes call it, as [`Format::decode_copy`].
    #[inline(always)]
    fn decode_all_copy<V: Visitor>(&mut self, b: &[u8], v: &mut V) -> Result<usize, DecodeError> {
        self.decode_all(b, &mut Marked::<V, 0>(v))
    }

    /// [`Format::decode_all`] collected into a neutral packet, with how many bytes it used.
    fn decode_packet(&mut self, bytes: &[u8]) -> Result<(Packet, usize), DecodeError> {
        let mut packet = Packet::default();
        let used = self.decode_all(bytes, &mut packet)?;
        Ok((packet, used))
    }
}

/// What a codec's own schema adds to the message table's fields in the field copies of the
/// codecs whose setters write in place (`capnp::copies`, `sbe::templates`, used as their
/// `schema_adds!`): nothing. Version 2's in `capability::evolution` add the appended field.
macro_rules! table_only {
    (write $V:ident $x:ident) => {};
    (read $V:ident $x:ident, $message:expr) => {
        $message
    };
}
pub(crate) use table_only;

/// What the schema-compiled codecs' `read_message` returns: the message (version 2's readers
/// in `capability::evolution` return the field it appends beside it).
pub(crate) type MessageRead = Message;

/// `pub mod $name`, the code a schema compiler made (`$file` in OUT_DIR), as the codecs and their
/// version 2 twins in `capability::evolution` include it: generated code is not ours to lint.
macro_rules! generated {
    ($(#[$doc:meta])* $name:ident, $file:literal) => {
        $(#[$doc])*
        #[allow(
            clippy::all,
            clippy::pedantic,
            dead_code,
            unused_imports,
            unused_mut,
            non_camel_case_types,
            ambiguous_glob_reexports,
            deprecated,
            missing_docs,
            unsafe_op_in_unsafe_fn,
            mismatched_lifetime_syntaxes
        )]
        pub mod $name {
            include!(concat!(env!("OUT_DIR"), $file));
        }
    };
}
pub(crate) use generated;

// Copies of a codec's decodes: [`Marked`] hands a decoder's calls on to the receiver it wraps,
// and carries a copy number, so that `decode::<Marked<Aggregate, 1>>` is a monomorphization of
// the codec's own decode apart from `decode::<Marked<Aggregate, 0>>`, with identical work.
//
// Why: an A/A twin (`measure::twins`) is meant to measure the same codec a second time from
// code of its own, so that the gap between the two includes where the codec's machine code
// landed (code layout bias, Mytkowicz et al.). Two identical monomorphizations are one function
// to LLVM's function merging (on by default at opt-level 2 and 3, with no stable switch), which
// keeps one copy at one address. So `Marked`'s packet call, once per decoded packet, holds an
// empty inline assembly block whose text names the copy: it emits no instruction, but the
// merging pass compares assembly text, and copies whose text differs stay apart.
// Every format's timed decodes go through a `Marked` (the originals as copy 0), so an original
// and its twins run the same instructions.

/// The receiver `K` of copy `N` of a decode.
pub struct Marked<'a, K, const N: u32>(pub &'a mut K);

/// An instruction-free marker naming copy `N` (see the module docs).
#[inline(always)]
fn mark<const N: u32>() {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    // SAFETY: an assembly comment: no instruction, no register, memory or flag touched.
    unsafe {
        core::arch::asm!("/* decode copy {n} */", n = const N, options(nomem, nostack, preserves_flags));
    }
}

/// Methods that hand their arguments on to the wrapped receiver unchanged.
macro_rules! forward {
    ($($method:ident($($arg:ident: $T:ty),*);)*) => {$(
        #[inline(always)]
        fn $method(&mut self, $($arg: $T),*) {
            self.0.$method($($arg),*)
        }
    )*};
}

impl<K: Sink, const N: u32> Sink for Marked<'_, K, N> {
    #[inline(always)]
    fn packet(&mut self, seq: u64) {
        mark::<N>();
        self.0.packet(seq)
    }

    forward! {
        trade(symbol: &[u8; 8], size: u32, price: i64);
        price_level(side: Side, symbol: &[u8; 8], price: i64);
        add_order(side: u8, symbol: &[u8; 8], price: i64);
        quote(symbol: &[u8; 8], bid_price: i64, ask_price: i64);
        other();
    }
}

impl<V: Visitor, const N: u32> Visitor for Marked<'_, V, N> {
    #[inline(always)]
    fn packet(&mut self, seq: u64, send_time: Timestamp) {
        mark::<N>();
        self.0.packet(seq, send_time)
    }

    forward! {
        message(message: Message);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every page a slice spans gets a write, whatever the slice's start and element size.
    #[test]
    fn every_page_of_a_slice_is_written() {
        fn pages_missed<T: Default + Clone>(start: usize, len: usize) -> Vec<usize> {
            let mut v = vec![T::default(); start + len];
            let memory = &mut v[start..];
            let base = memory.as_ptr() as usize;
            let size = std::mem::size_of::<T>();
            let mut written = std::collections::BTreeSet::new();
            for_each_page(memory, |x| {
                let at = x as *mut T as usize;
                written.insert(at / PAGE);
                written.insert((at + size - 1) / PAGE);
            });
            let (first, last) = (base / PAGE, (base + len * size - 1) / PAGE);
            (first..=last).filter(|p| !written.contains(p)).collect()
        }
        for start in [0, 1, 7, 100, 4_000, 4_095] {
            for len in [1, 2, 4_096, 4_097, 8_200, 70_001] {
                let missed = (
                    pages_missed::<u8>(start, len),
                    pages_missed::<[u8; 24]>(start, len),
                    pages_missed::<u64>(start, len),
                );
                assert_eq!(missed, Default::default(), "u8, 24B, u64: {start}+{len}");
            }
        }
    }

    #[test]
    fn a_datagram_holds_5455_messages_at_most() {
        // 65,507 - 40 bytes in (2 + 10)-byte system events; every other kind is longer.
        assert_eq!(MAX_DATAGRAM_MESSAGES, 5_455);
        assert_eq!(SHORTEST_KIND, kind::SYSTEM_EVENT);
        assert_eq!(full_datagram(kind::AUCTION_INFORMATION).messages.len(), 798);
    }
}
