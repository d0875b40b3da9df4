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

#[cfg(test)]
mod tests {
    use super::super::borsh::Borsh;
    use super::super::codec::{every_kind, Format};
    use super::super::wincode::Wincode;
    use super::*;
    use crate::model::{Message, PriceLevelUpdate, Side, SystemEvent};

    /// A system event and a sell-side price level update: two variants, a negative integer, a
    /// padded symbol and an enum field.
    fn two() -> Packet {
        Packet {
            seq: 7,
            send_time: -2,
            messages: vec![
                Message::SystemEvent(SystemEvent {
                    event: b'S',
                    timestamp: 5,
                }),
                Message::PriceLevelUpdate(PriceLevelUpdate {
                    side: Side::Sell,
                    flags: 1,
                    timestamp: 6,
                    symbol: Symbol::new("AB").unwrap(),
                    size: 100,
                    price: 3,
                }),
            ],
        }
    }

    /// The bytes of [`two`] written out by hand from each specification: bincode 1's (wincode's
    /// default configuration; a `u64` sequence length, a `u32` variant index) and borsh's (a
    /// `u32` length, a `u8` variant index). Integers little-endian; `PriceLevelUpdate` is the
    /// eighth variant (index 7), `Sell` the second.
    #[test]
    fn the_bytes_are_what_each_specification_gives() {
        let header = [
            7, 0, 0, 0, 0, 0, 0, 0, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        ];
        let ts = |t: u8| [t, 0, 0, 0, 0, 0, 0, 0];
        let level_fields = [&[1u8][..], &ts(6), b"AB      ", &[100, 0, 0, 0], &ts(3)].concat();
        let wincode = [
            &header[..],
            &[2, 0, 0, 0, 0, 0, 0, 0],
            &[0, 0, 0, 0, b'S'],
            &ts(5),
            &[7, 0, 0, 0, 1, 0, 0, 0],
            &level_fields,
        ]
        .concat();
        let borsh = [
            &header[..],
            &[2, 0, 0, 0],
            &[0, b'S'],
            &ts(5),
            &[7, 1],
            &level_fields,
        ]
        .concat();
        fn bytes<F: Format>(p: &Packet) -> Vec<u8> {
            let mut out = vec![0xAA];
            assert_eq!(F::default().encode(p, &mut out), 2);
            assert_eq!(out[0], 0xAA, "appends");
            out.split_off(1)
        }
        assert_eq!(bytes::<Wincode>(&two()), wincode);
        assert_eq!(bytes::<Borsh>(&two()), borsh);
        assert_eq!(Wincode.decode_packet(&wincode), Ok((two(), wincode.len())));
        assert_eq!(Borsh.decode_packet(&borsh), Ok((two(), borsh.len())));
    }

    /// Written message by message, a packet is what each crate writes for the whole packet.
    #[test]
    fn a_packet_is_the_crate_s_encoding_of_the_whole_packet() {
        let p = every_kind();
        let whole = (
            p.seq,
            p.send_time,
            p.messages
                .iter()
                .map(|m| Wire::from_model(m, |s| s.0))
                .collect::<Vec<MMessage>>(),
        );
        let (mut w, mut b) = (Vec::new(), Vec::new());
        Wincode.encode(&p, &mut w);
        Borsh.encode(&p, &mut b);
        assert_eq!(w, wincode::serialize(&whole).unwrap());
        assert_eq!(b, borsh::to_vec(&whole).unwrap());
    }

    /// A variant index no variant has, and a count above a packet's, are errors naming why.
    #[test]
    fn bad_bytes_are_refused() {
        let mut out = Vec::new();
        Wincode.encode(&two(), &mut out);
        out[24] = 200;
        let e = Wincode.decode_packet(&out).unwrap_err().to_string();
        assert!(e.starts_with("wincode: "), "{e}");
        out[16..24].copy_from_slice(&65_536u64.to_le_bytes());
        let too_many =
            DecodeError::Malformed("the message count exceeds what an IEX-TP packet holds");
        assert_eq!(Wincode.decode_packet(&out), Err(too_many.clone()));
        out.clear();
        Borsh.encode(&two(), &mut out);
        out[20] = 200;
        let e = Borsh.decode_packet(&out).unwrap_err().to_string();
        assert!(e.starts_with("borsh: "), "{e}");
        out[16..20].copy_from_slice(&65_536u32.to_le_bytes());
        assert_eq!(Borsh.decode_packet(&out), Err(too_many));
    }
}
