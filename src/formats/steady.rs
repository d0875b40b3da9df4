//! Steady state: once a format has encoded and decoded a window, doing it again allocates
//! nothing, and neither does a packet as large as a UDP datagram allows, of any message kind: the
//! codecs' own memory is sized for that at construction. So no timed pass pays for the allocator,
//! or for first-touch page faults on memory a codec grows into. Counted with the test binary's
//! counting allocator ([`crate::alloc_count`]).
//!
//! The exceptions are the libraries' own, each stated with its reason where its format says what
//! it is ([`Format::STEADY`]): e.g. capnp's segment table per packet encoded, or the `Vec` of
//! messages a library returns from each decode.

use super::aggregate::Aggregate;
use super::checksum::Checksum;
use super::codec::{full_datagram, Format, PerPacket};
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

/// The fixed-size byte fields of `packets`: every symbol and reason code.
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

/// What `per` allocations come to on `packets`.
fn count(per: PerPacket, packets: &[Packet]) -> u64 {
    let messages = packets.iter().map(|p| p.messages.len() as u64).sum::<u64>();
    u64::from(per.packet) * packets.len() as u64
        + u64::from(per.with_messages) * with_messages(packets)
        + u64::from(per.grown_vec) * grown_vecs(packets)
        + u64::from(per.message) * messages
        + u64::from(per.fixed_field) * fixed_fields(packets)
}

/// What a format allocates on `packets` once warm: what it states ([`Format::STEADY`]).
fn expected<F: Format>(packets: &[Packet]) -> Allocations {
    let decode = count(F::STEADY.decode, packets);
    Allocations {
        encode: count(F::STEADY.encode, packets),
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
