//! postcard 1.x (serde; varint integers, zigzag for signed ones), on the serde wire vocabulary
//! ([`Wire`]).
//!
//! A packet is what postcard writes for `{ seq: u64, send_time: i64, messages: Vec<Wire> }`: the
//! two varints, a varint message count, then each message (a varint variant index and its fields).
//! postcard needs no length prefix: `take_from_bytes` returns the unread rest, so a packet is
//! self-delimiting. Symbols are serde byte strings (`&[u8]`: a length byte, then the 8 bytes), so
//! decoding borrows them from the buffer.
//!
//! **As its maintainers use it.** postcard serializes into a caller's buffer through a flavor:
//! `to_slice` into a fixed slice (what the Rust serialization benchmark times) or `to_extend` into
//! anything that grows, such as a reused `Vec`. Ours uses `to_extend` (the output buffer grows as
//! the packet is written: its size is not known before, and `to_slice` would need a worst-case
//! slice zeroed first), straight from the model (`serde_packet::PacketOut`, shared with the other
//! serde formats), each message's [`Wire`] built on the stack: no allocation, no intermediate copy
//! of the packet. Decoding reads the header, then takes the messages one by one with
//! `take_from_bytes` and hands them to the sink: no allocation, symbols borrowed, though every
//! field of every message is decoded (varints cannot be skipped without being read).

use crate::formats::languages::OtherLanguages;
use super::codec::{DecodeError, Documented, Format, Sink, Visitor};
use super::serde_packet::PacketOut;
use super::wire::Wire;
use crate::model::{Packet, Symbol};

#[derive(Debug, Default)]
pub struct Postcard;

fn err(e: postcard::Error) -> DecodeError {
    match e {
        postcard::Error::DeserializeUnexpectedEnd => DecodeError::Malformed("postcard: truncated"),
        e => DecodeError::library("postcard", e),
    }
}

fn symbol(s: &[u8]) -> Result<&[u8; 8], DecodeError> {
    s.try_into()
        .map_err(|_| DecodeError::Malformed("postcard: symbol is not 8 bytes"))
}

/// Reads the packet at the start of `bytes`: calls `header(seq, send_time)`, then `f` for each
/// message; returns the bytes used.
#[inline(always)]
fn walk<'a, C>(
    bytes: &'a [u8],
    ctx: &mut C,
    header: impl FnOnce(&mut C, u64, i64),
    mut f: impl FnMut(&mut C, Wire<&'a [u8]>) -> Result<(), DecodeError>,
) -> Result<usize, DecodeError> {
    let ((seq, send_time, count), mut rest) =
        postcard::take_from_bytes::<(u64, i64, usize)>(bytes).map_err(err)?;
    header(ctx, seq, send_time);
    for _ in 0..count {
        let (m, r) = postcard::take_from_bytes::<Wire<&'a [u8]>>(rest).map_err(err)?;
        rest = r;
        f(ctx, m)?;
    }
    Ok(bytes.len() - rest.len())
}

const SOURCE: &str = "https://docs.rs/postcard/1 (serde types are the schema; varints are decoded into \
    values, byte strings borrowed; an error on invalid input)";

impl Format for Postcard {
    const NAME: &'static str = "postcard";
    const DOCUMENTED: Documented = Documented::new(None, false, true, SOURCE);
    const OTHER_LANGUAGES: OtherLanguages = OtherLanguages::RustOnly {
        detail: "no implementation outside Rust: the wire format has a written, stable specification \
                 (since 1.0), but no reference implementation in another language",
        source: "https://postcard.jamesmunns.com (the Postcard Wire Specification); \
                 https://docs.rs/crate/postcard/1.2.0 (\"Format Stability\")",
    };

    fn encode(&mut self, packet: &Packet, out: &mut Vec<u8>) -> usize {
        let p = PacketOut::new(packet, |sym: &Symbol| &sym.0[..]);
        *out = postcard::to_extend(&p, std::mem::take(out)).expect("a Vec grows to fit");
        packet.messages.len()
    }

    fn decode<K: Sink>(&mut self, bytes: &[u8], sink: &mut K) -> Result<usize, DecodeError> {
        walk(
            bytes,
            sink,
            |sink, seq, _| sink.packet(seq),
            |sink, m| m.visit(sink, |s| symbol(s).copied()),
        )
    }

    fn decode_all<V: Visitor>(&mut self, bytes: &[u8], v: &mut V) -> Result<usize, DecodeError> {
        walk(
            bytes,
            v,
            |v, seq, send_time| v.packet(seq, send_time),
            |v, m| {
                v.message(m.into_model(|s| Ok(Symbol(*symbol(s)?)))?);
                Ok(())
            },
        )
    }
}
