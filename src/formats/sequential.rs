//! The packet layout of the formats that write a struct's fields one after another with no names
//! or tags (wincode, borsh): `seq`, `send_time`, the message count, then each message, exactly
//! what the crate writes for a struct of the two integers and a sequence of [`Wire`] messages.
//! Each crate writes and reads one header or one message from the front of the bytes
//! ([`Sequential`]); the packet-level encode and the two decodes are here once, generic over it.
//!
//! Writing the sequence element by element from the model, rather than filling a `Vec` of
//! messages and serializing that, gives the same bytes without the copy; reading message by
//! message, rather than deserializing a `Vec`, allocates nothing per packet. Each codec's tests
//! check the first against the crate's own encoding of the whole packet.

use super::codec::{DecodeError, Sink, Visitor, MAX_MESSAGES_PER_PACKET};
use super::mirror::MMessage;
use super::wire::Wire;
use crate::model::{Packet, Symbol};

/// One crate's calls for a packet's parts, messages of type `M` (the wire vocabulary, or its
/// version 2 in the evolution check).
pub trait Sequential<M> {
    /// Appends the header: `seq`, `send_time` and the count as the crate writes a sequence's
    /// length.
    fn write_header(seq: u64, send_time: i64, count: usize, out: &mut Vec<u8>);
    /// Appends one message.
    fn write_message(m: &M, out: &mut Vec<u8>);
    /// Reads the header from the front of `rest`, advancing it.
    fn read_header(rest: &mut &[u8]) -> Result<(u64, i64, usize), DecodeError>;
    /// Reads one message from the front of `rest`, advancing it.
    fn read_message(rest: &mut &[u8]) -> Result<M, DecodeError>;
}

/// Appends a packet of `messages`; returns how many it wrote.
#[inline(always)]
pub fn write<F: Sequential<M>, M>(
    seq: u64,
    send_time: i64,
    messages: impl ExactSizeIterator<Item = M>,
    out: &mut Vec<u8>,
) -> usize {
    F::write_header(seq, send_time, messages.len(), out);
    let mut written = 0;
    for m in messages {
        F::write_message(&m, out);
        written += 1;
    }
    written
}

/// Reads the packet at the start of `bytes`: calls `header(ctx, seq, send_time)`, then
/// `message(ctx, m)` for each message as it is read; returns the bytes used. A count above what
/// an IEX-TP packet holds is refused before any message is read.
#[inline(always)]
pub fn read<F: Sequential<M>, M, C>(
    bytes: &[u8],
    ctx: &mut C,
    header: impl FnOnce(&mut C, u64, i64),
    mut message: impl FnMut(&mut C, M) -> Result<(), DecodeError>,
) -> Result<usize, DecodeError> {
    let mut rest = bytes;
    let (seq, send_time, count) = F::read_header(&mut rest)?;
    if count > MAX_MESSAGES_PER_PACKET {
        return Err(DecodeError::Malformed(
            "the message count exceeds what an IEX-TP packet holds",
        ));
    }
    header(ctx, seq, send_time);
    for _ in 0..count {
        let m = F::read_message(&mut rest)?;
        message(ctx, m)?;
    }
    Ok(bytes.len() - rest.len())
}

/// [`Format::encode`](super::Format::encode) for a [`Sequential`] codec: each message's [`Wire`]
/// built on the stack, symbols as their 8 bytes.
#[inline(always)]
pub fn encode<F: Sequential<MMessage>>(packet: &Packet, out: &mut Vec<u8>) -> usize {
    let messages = packet.messages.iter().map(|m| Wire::from_model(m, |s| s.0));
    write::<F, _>(packet.seq, packet.send_time, messages, out)
}

/// [`Format::decode`](super::Format::decode) for a [`Sequential`] codec.
#[inline(always)]
pub fn decode<F: Sequential<MMessage>, K: Sink>(
    bytes: &[u8],
    sink: &mut K,
) -> Result<usize, DecodeError> {
    read::<F, MMessage, K>(
        bytes,
        sink,
        |sink, seq, _| sink.packet(seq),
        |sink, m| m.visit(sink, |s| Ok(*s)),
    )
}

/// [`Format::decode_all`](super::Format::decode_all) for a [`Sequential`] codec.
#[inline(always)]
pub fn decode_all<F: Sequential<MMessage>, V: Visitor>(
    bytes: &[u8],
    v: &mut V,
) -> Result<usize, DecodeError> {
    read::<F, MMessage, V>(
        bytes,
        v,
        |v, seq, send_time| v.packet(seq, send_time),
        |v, m| {
            v.message(m.into_model(|s| Ok(Symbol(s)))?);
            Ok(())
        },
    )
}
