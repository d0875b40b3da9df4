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
//! slice zeroed first), straight from the model, each message's [`Wire`] built on the stack: no
//! allocation, no intermediate copy of the packet. Decoding reads the header, then takes the
//! messages one by one with `take_from_bytes` and hands them to the sink: no allocation, symbols
//! borrowed, though every field of every message is decoded (varints cannot be skipped without
//! being read).

use serde::Serialize;

use super::wire::Wire;
use super::codec::{DecodeError, Documented, Format, Sink, Visitor};
use crate::model::{Message, Packet, Symbol};

/// The postcard runner (stateless).
#[derive(Debug, Default)]
pub struct Postcard;

/// The packet as serialized: the model's messages mapped to [`Wire`] on the fly.
#[derive(Serialize)]
struct PacketOut<'a> {
    seq: u64,
    send_time: i64,
    #[serde(serialize_with = "messages_out")]
    messages: &'a [Message],
}

fn messages_out<S: serde::Serializer>(messages: &&[Message], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(
        messages
            .iter()
            .map(|m| Wire::from_model(m, |sym: &Symbol| &sym.0[..])),
    )
}

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

impl Format for Postcard {
    const NAME: &'static str = "postcard";
    const DOCUMENTED: Documented = Documented {
        schema: None,
        reads_in_place: false,
        validates: true,
        source: "https://docs.rs/postcard/1 (serde types are the schema; varints are decoded into \
                 values, byte strings borrowed; an error on invalid input)",
    };

    fn encode(&mut self, packet: &Packet, out: &mut Vec<u8>) -> usize {
        let p = PacketOut {
            seq: packet.seq,
            send_time: packet.send_time,
            messages: &packet.messages,
        };
        *out = postcard::to_extend(&p, std::mem::take(out)).expect("a Vec grows to fit");
        p.messages.len()
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
