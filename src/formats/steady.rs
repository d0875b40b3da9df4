//! Steady state: once a format has encoded and decoded a window, doing it again allocates
//! nothing, and neither does a packet as large as a UDP datagram allows, of any message kind: the
//! codecs' own memory is sized for that at construction. So no timed pass pays for the allocator,
//! or for first-touch page faults on memory a codec grows into. Counted with the test binary's
//! counting allocator ([`crate::alloc_count`]).
//!
//! The exceptions are the libraries' own, each said in its format's file:
//! - `capnp-*` encode: one allocation per packet, the 64-byte segment table (`Vec`) inside
//!   capnp's `message::Builder`, which cannot be reset and so is built anew per packet.
//! - `bitcode` decode: one allocation per packet with messages, the decoded `Vec` of messages
//!   (`bitcode::Buffer::decode` returns an owned value; there is no decode into an existing one).
//! - `avro` decode: the same `Vec` per packet with messages (`read_deser` returns an owned value),
//!   and one per `fixed` field (symbols, reason codes), which apache-avro reads into a fresh
//!   `Vec<u8>` before serde copies it out.
//! - `msgpack` decode: one allocation per packet, the 128-byte scratch buffer of rmp-serde's
//!   `Cursor` reader (its zero-copy reader cannot report the bytes a packet used).
//! - `protobuf-google` encode: one allocation per packet, the `Vec` `serialize()` returns (its API
//!   has no serialize-into-a-buffer). Its upb arenas (a message's, the encoder's scratch) take
//!   their blocks from C's `malloc`, which this counter does not see, in all three workloads.
//! - `planus` encode: one allocation per packet with messages, the temporary `Vec` planus's
//!   `create_vector` collects a slice's prepared offsets into.
//! - `buffa` decode: per packet with messages, the `Vec` of its view's repeated field (pushed
//!   into without a reserve, so it grows: 4 messages, then doubling), and one per message, the
//!   `Box` of its view's oneof variant (buffa boxes every view oneof variant; a view borrows its
//!   input, so none is reused across packets).
//! - `fory` decode: the decoded `Vec` of messages per packet with messages (`deserialize_from`
//!   returns an owned value), grown by doubling from 4 (fory-core collects it through a
//!   `Result` iterator, which drops the count's size hint): one allocation per growth.
//! - `bebop` decode: the decoded `Vec` of messages per packet with messages (the runtime decodes
//!   an array into a new `Vec`, with the capacity of its count: one allocation).

use super::aggregate::Aggregate;
use super::checksum::Checksum;
use super::codec::{full_datagram, Format};
use super::window::walk;
use crate::alloc_count::allocations;
use crate::gen::{self, GenOptions};
use crate::model::{kind, Feed, Packet};

/// Regular-hours packets of a generated day of `feed` (the start of the day is mostly the
/// administrative burst), the kind of window a run times.
fn window(feed: Feed) -> Vec<Packet> {
    let opts = GenOptions {
        feed,
        packets: 20_000,
        ..GenOptions::default()
    };
    gen::packets(&opts)
        .unwrap()
        .skip(8_000)
        .take(2_000)
        .collect()
}

/// Allocations made while encoding `packets`, then decoding them selectively, then completely.
#[derive(Debug, PartialEq, Eq)]
struct Allocations {
    encode: u64,
    decode: u64,
    decode_all: u64,
}

/// One format with the buffers a run keeps for it.
struct Runner<F> {
    format: F,
    out: Vec<u8>,
    sink: Aggregate,
    checksum: Checksum,
}

impl<F: Format> Runner<F> {
    fn new() -> Self {
        Runner {
            format: F::default(),
            out: Vec::new(),
            sink: Aggregate::new(),
            checksum: Checksum::default(),
        }
    }

    /// Encodes `packets` into the (cleared) output buffer and decodes them both ways, checking
    /// that the complete decode saw every message.
    fn pass(&mut self, packets: &[Packet]) -> Allocations {
        let before = allocations();
        self.out.clear();
        for p in packets {
            self.format.encode(p, &mut self.out);
        }
        let encode = allocations() - before;
        let before = allocations();
        walk(&self.out, |b| self.format.decode(b, &mut self.sink)).expect("own");
        let decode = allocations() - before;
        self.checksum.reset();
        let before = allocations();
        walk(&self.out, |b| self.format.decode_all(b, &mut self.checksum)).expect("own");
        let decode_all = allocations() - before;
        // What the format carries of the packets (a lossy format's projection).
        let carried: Vec<Packet> = match F::LOSSY {
            Some(l) => packets.iter().map(l.project).collect(),
            None => packets.to_vec(),
        };
        assert_eq!(self.checksum, Checksum::of(&carried), "{}", F::NAME);
        Allocations {
            encode,
            decode,
            decode_all,
        }
    }
}

/// Packets holding at least one message (heartbeats hold none).
fn with_messages(packets: &[Packet]) -> u64 {
    packets.iter().filter(|p| !p.messages.is_empty()).count() as u64
}

/// The `fixed` fields of `packets` as Avro carries them: every symbol and reason code.
fn fixed_fields(packets: &[Packet]) -> u64 {
    let messages = packets.iter().flat_map(|p| &p.messages);
    let symbols = messages.clone().filter(|m| m.symbol().is_some()).count();
    let reasons = messages
        .filter(|m| m.kind() == kind::TRADING_STATUS)
        .count();
    (symbols + reasons) as u64
}

/// The allocations of the `Vec`s of `packets`' messages collected without a size hint (the
/// first holds 4, each growth doubles).
fn grown_vecs(packets: &[Packet]) -> u64 {
    let grown = |k: usize| {
        let (mut cap, mut n) = (4, u64::from(k > 0));
        while k > cap {
            (cap, n) = (cap * 2, n + 1);
        }
        n
    };
    packets.iter().map(|p| grown(p.messages.len())).sum()
}

/// What a format allocates on `packets` once warm: nothing, but for the exceptions above.
fn expected<F: Format>(packets: &[Packet]) -> Allocations {
    let (all, with) = (packets.len() as u64, with_messages(packets));
    let (encode, decode) = match F::NAME {
        "capnp-unpacked" | "capnp-packed" | "protobuf-google" => (all, 0),
        "bitcode" => (0, with),
        "avro" => (0, with + fixed_fields(packets)),
        "msgpack" => (0, all),
        "planus" => (with, 0),
        // The view's repeated field grows as fory's `Vec` does, and each message is a `Box`.
        "buffa" => (
            0,
            grown_vecs(packets) + packets.iter().map(|p| p.messages.len() as u64).sum::<u64>(),
        ),
        "fory" => (0, grown_vecs(packets)),
        // The decoded `Vec` of messages, sized by the count before it is filled.
        "bebop" => (0, with),
        _ => (0, 0),
    };
    // Both decodes allocate alike.
    Allocations {
        encode,
        decode,
        decode_all: decode,
    }
}

fn second_pass_allocates_nothing<F: Format>() {
    for feed in [Feed::Deep, Feed::DeepPlus, Feed::Tops] {
        let packets = window(feed);
        assert!(with_messages(&packets) > 1_000, "{feed:?}");
        let mut runner = Runner::<F>::new();
        let warm_up = runner.pass(&packets);
        // The warm-up did allocate (the output buffer grew): the counter sees this thread.
        assert!(warm_up.encode > 0, "{}: {warm_up:?}", F::NAME);
        assert_eq!(
            runner.pass(&packets),
            expected::<F>(&packets),
            "{} on {feed:?}: allocations in the second pass (left), expected (right)",
            F::NAME
        );
    }
}

fn full_datagram_allocates_nothing<F: Format>() {
    let mut runner = Runner::<F>::new();
    runner.pass(&window(Feed::Deep));
    // Room for the largest encoding, so that only the format's own allocations are counted.
    runner.out.reserve(32 << 20);
    for packet in kind::ALL.map(full_datagram) {
        let packet = std::slice::from_ref(&packet);
        assert_eq!(
            runner.pass(packet),
            expected::<F>(packet),
            "{} on a datagram of '{}': allocations (left), expected (right)",
            F::NAME,
            char::from(packet[0].messages[0].kind())
        );
    }
}

macro_rules! steady_tests {
    ($($module:ident: [$($name:ident: $F:ty),+ $(,)?]),* $(,)?) => {$($(
        mod $name {
            #[test]
            fn second_pass_allocates_nothing() {
                super::second_pass_allocates_nothing::<$F>();
            }

            #[test]
            fn full_datagram_allocates_nothing() {
                super::full_datagram_allocates_nothing::<$F>();
            }
        }
    )+)*};
}
crate::for_each_format!(steady_tests);
