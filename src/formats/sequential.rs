//! The packet layout of the formats that write a struct's fields one after another with no names
//! or tags (wincode, borsh): `seq`, `send_time`, the message count, then each message, exactly
//! what the crate writes for a struct of the two integers and a sequence of
//! [`Wire`](super::wire::Wire) messages.
//! Each crate writes and reads one value at the front of the bytes ([`Sequential`]) and names
//! the type it writes a sequence's length as ([`Framed`]); the packet-level encode and the two
//! decodes are here once, generic over them.
//!
//! Writing the sequence element by element from the model, rather than filling a `Vec` of
//! messages and serializing that, gives the same bytes without the copy; reading message by
//! message, rather than deserializing a `Vec`, allocates nothing per packet. The tests below
//! check the first against each crate's own encoding of the whole packet.

use super::codec::{DecodeError, MAX_MESSAGES_PER_PACKET};

/// One crate's calls for one value of type `T` (a header, or a message of the wire vocabulary
/// or of its version 2 in the evolution check).
pub trait Sequential<T> {
    fn put(value: &T, out: &mut Vec<u8>);
    /// Reads a value from the front of `rest`, advancing it.
    fn take(rest: &mut &[u8]) -> Result<T, DecodeError>;
}

/// The type a crate writes a sequence's length as.
pub trait Framed {
    type Count: TryFrom<usize> + TryInto<usize>;
}

/// A packet's header as codec `F` writes it: `seq`, `send_time`, the message count.
pub type Header<F> = (u64, i64, <F as Framed>::Count);

/// Appends a packet of `messages`; returns how many it wrote.
#[inline(always)]
pub fn write<F, M>(
    seq: u64,
    send_time: i64,
    messages: impl ExactSizeIterator<Item = M>,
    out: &mut Vec<u8>,
) -> usize
where
    F: Framed + Sequential<M> + Sequential<Header<F>>,
{
    let count = F::Count::try_from(messages.len()).ok();
    let header = (
        seq,
        send_time,
        count.expect("a packet holds at most 65,535 messages"),
    );
    <F as Sequential<Header<F>>>::put(&header, out);
    let mut written = 0;
    for m in messages {
        F::put(&m, out);
        written += 1;
    }
    written
}

/// Reads the packet at the start of `bytes`: calls `header(ctx, seq, send_time)`, then
/// `message(ctx, m)` for each message as it is read; returns the bytes used. A count above what
/// an IEX-TP packet holds is refused before any message is read.
#[inline(always)]
pub fn read<F, M, C>(
    bytes: &[u8],
    ctx: &mut C,
    header: impl FnOnce(&mut C, u64, i64),
    mut message: impl FnMut(&mut C, M) -> Result<(), DecodeError>,
) -> Result<usize, DecodeError>
where
    F: Framed + Sequential<M> + Sequential<Header<F>>,
{
    let mut rest = bytes;
    let (seq, send_time, count) = <F as Sequential<Header<F>>>::take(&mut rest)?;
    let count: usize = count.try_into().unwrap_or(usize::MAX);
    if count > MAX_MESSAGES_PER_PACKET {
        return Err(DecodeError::Malformed(
            "the message count exceeds what an IEX-TP packet holds",
        ));
    }
    header(ctx, seq, send_time);
    for _ in 0..count {
        let m = F::take(&mut rest)?;
        message(ctx, m)?;
    }
    Ok(bytes.len() - rest.len())
}

/// Implements [`Framed`] (a sequence's length a `$count`) and [`Format`](super::Format) for the
/// [`Sequential`] codec `$F` (messages as [`MMessage`](super::mirror::MMessage)), named `$name`
/// and documented by `$documented`, read in other languages as `$other` says: [`write`], and
/// [`read`] handing each message to the sink (the fields it needs) or the visitor (all of them).
macro_rules! sequential_format {
    ($F:ty, $count:ty, $name:literal, $documented:expr, $other:expr) => {
        const _: () = {
            use $crate::formats::codec::{DecodeError, Format, Sink, Visitor};
            use $crate::formats::mirror::MMessage;
            use $crate::formats::sequential::{read, write, Framed};
            use $crate::formats::wire::Wire;
            use $crate::model::{Packet, Symbol};

            impl Framed for $F {
                type Count = $count;
            }

            impl Format for $F {
                const NAME: &'static str = $name;
                const DOCUMENTED: $crate::formats::codec::Documented = $documented;
                const OTHER_LANGUAGES: $crate::formats::languages::OtherLanguages = $other;

                /// Each message's `Wire` built on the stack, symbols as their 8 bytes.
                fn encode(&mut self, packet: &Packet, out: &mut Vec<u8>) -> usize {
                    let messages = packet.messages.iter().map(|m| Wire::from_model(m, |s| s.0));
                    write::<Self, _>(packet.seq, packet.send_time, messages, out)
                }

                fn decode<K: Sink>(
                    &mut self,
                    bytes: &[u8],
                    sink: &mut K,
                ) -> Result<usize, DecodeError> {
                    let visit = |sink: &mut K, m: MMessage| m.visit(sink, |s| Ok(*s));
                    read::<Self, _, K>(bytes, sink, |sink, seq, _| sink.packet(seq), visit)
                }

                fn decode_all<V: Visitor>(
                    &mut self,
                    bytes: &[u8],
                    v: &mut V,
                ) -> Result<usize, DecodeError> {
                    let header = |v: &mut V, seq, send_time| v.packet(seq, send_time);
                    read::<Self, MMessage, V>(bytes, v, header, |v, m| {
                        v.message(m.into_model(|s| Ok(Symbol(s)))?);
                        Ok(())
                    })
                }
            }
        };
    };
}
pub(crate) use sequential_format;

#[cfg(test)]
pub(super) mod tests {
    use super::super::borsh::Borsh;
    use super::super::codec::{every_kind, library_error, Format};
    use super::super::mirror::MMessage;
    use super::super::wincode::Wincode;
    use super::super::wire::Wire;
    use super::*;
    use crate::model::{Message, Packet, PriceLevelUpdate, Side, Symbol, SystemEvent};

    /// A system event and a sell-side price level update: two variants, a negative integer, a
    /// padded symbol and an enum field.
    pub(crate) fn two() -> Packet {
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
        library_error::<Wincode>(&out);
        out[16..24].copy_from_slice(&65_536u64.to_le_bytes());
        let too_many =
            DecodeError::Malformed("the message count exceeds what an IEX-TP packet holds");
        assert_eq!(Wincode.decode_packet(&out), Err(too_many.clone()));
        out.clear();
        Borsh.encode(&two(), &mut out);
        out[20] = 200;
        library_error::<Borsh>(&out);
        out[16..20].copy_from_slice(&65_536u32.to_le_bytes());
        assert_eq!(Borsh.decode_packet(&out), Err(too_many));
    }
}
