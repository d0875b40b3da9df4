//! Müsli 0.2 (`musli`, derive `Encode`/`Decode` on the wire vocabulary, [`Wire`]), in two of its
//! binary encodings, each with its default options:
//!
//! - **`musli`**: `musli::storage`, the encoding its docs give for a model both sides know
//!   ("suitable as a storage format, since the data model only evolves in one place"):
//!   integers as varints (signed ones zigzagged), a struct variant its variant index, its field
//!   count, then each field's index and value (no type or length: a reader cannot step over a
//!   value it does not know). Its docs call it *partially* upgrade safe: a reader tolerates
//!   missing fields marked `#[musli(default)]`, but cannot skip fields it does not know.
//! - **`musli-wire`**: `musli::wire`, which its docs call upgrade stable: every field carries a
//!   tag and its value a type and length, so a reader skips fields it does not know. Its own row
//!   because it differs in kind, not only in options: what the tags cost in bytes and time is
//!   the price of that.
//!
//! Why not `musli::packed`: its docs call it "the most efficient", but it tolerates neither
//! missing nor unknown fields, writes integers in the host's byte order (options
//! `fixed().native_byte_order()`), and is "probably not suitable as a storage format, nor as a
//! wire"; `musli::descriptive` adds self-description (types in the bytes), which a known schema
//! does not need.
//!
//! A packet is what the encoding writes for `(u64, i64, u32)` (`seq`, `send_time`, the message
//! count), then each message's [`Wire`]: exactly its encoding of the tuple and a sequence of
//! messages, written one by one (a test checks). Each is written with `Encoding::encode` into
//! the output buffer (a `Vec<u8>` writer appends) and read with `Encoding::decode` from a
//! `&mut &[u8]`, which leaves the slice at the unread rest: self-delimiting, no length prefix
//! ([`super::sequential`]). Every field is decoded into a value (variable-length integers cannot
//! be read in place); the symbol is copied as its 8 bytes.
//!
//! Hostile bytes give an error, not a panic: musli's readers check the input's length before
//! each read, refuse a variant index no variant has and limit nesting (a test feeds it some).
//!
//! [`Wire`]: super::wire::Wire

use crate::formats::languages::OtherLanguages;
use ::musli::alloc::Global;
use ::musli::mode::Binary;
use ::musli::{Decode, Encode};

use super::codec::{DecodeError, Documented};
use super::sequential::{sequential_format, Sequential};

/// `musli::storage` with its default options.
#[derive(Debug, Default)]
pub struct Musli;

/// `musli::wire` with its default options.
#[derive(Debug, Default)]
pub struct MusliWire;

/// `Sequential` for `$F`, written and read by the `musli::$encoding` module's functions.
macro_rules! musli_sequential {
    ($F:ty, $encoding:ident, $name:literal) => {
        impl<T> Sequential<T> for $F
        where
            T: Encode<Binary> + for<'de> Decode<'de, Binary, Global>,
        {
            fn put(value: &T, out: &mut Vec<u8>) {
                ::musli::$encoding::encode(out, value).expect("writing to a Vec cannot fail");
            }

            fn take(rest: &mut &[u8]) -> Result<T, DecodeError> {
                ::musli::$encoding::decode(rest).map_err(|e| DecodeError::library($name, e))
            }
        }
    };
}

musli_sequential!(Musli, storage, "musli");
musli_sequential!(MusliWire, wire, "musli-wire");

const SOURCE: &str = "https://docs.rs/musli/0.2.1/musli/storage/ (derive Encode/Decode: the Rust \
    types are the schema; fields are decoded into values, and invalid input is an error)";

const WIRE_SOURCE: &str = "https://docs.rs/musli/0.2.1/musli/wire/ (derive Encode/Decode: the \
    Rust types are the schema, fields tagged by index; fields are decoded into values, and \
    invalid input is an error)";

/// Why no other language reads it (the `other languages` cell).
const OTHER_LANGUAGES: OtherLanguages = OtherLanguages::RustOnly {
    detail: "no implementation outside Rust: Müsli's encodings are defined by the Rust crate and \
             its derives (no specification or implementation in another language; its README \
             compares it with serde, not with other languages' libraries)",
    source: "https://docs.rs/musli/0.2.1 (\"Formats\"); https://github.com/udoprog/musli",
};

sequential_format!(
    Musli,
    u32,
    "musli",
    Documented::new(None, false, true, SOURCE),
    OTHER_LANGUAGES
);

sequential_format!(
    MusliWire,
    u32,
    "musli-wire",
    Documented::new(None, false, true, WIRE_SOURCE),
    OTHER_LANGUAGES
);

#[cfg(test)]
mod tests {
    use super::super::codec::{every_kind, Format};
    use super::super::mirror::MMessage;
    use super::super::sequential::tests::two;
    use super::super::wire::Wire;
    use super::*;

    /// The storage bytes of [`two`] (a system event and a sell-side price level update), written
    /// out by hand from musli's storage encoder (`storage/en.rs`, `int/`): unsigned integers as
    /// continuation-bit varints, signed ones zigzagged first, a `u8` as its byte; a tuple its
    /// length then its elements; a struct variant its variant index, its field count, then each
    /// field's index and value; a unit variant its index alone; `[u8; 8]` its length then its
    /// bytes. `PriceLevelUpdate` is the eighth variant (index 7), `Sell` the second.
    #[test]
    fn the_storage_bytes_are_what_its_encoder_gives() {
        let p = two();
        let bytes = [
            &[3, 7, 3, 2][..], // (seq 7, send_time -2 → 3, 2 messages)
            &[0, 2, 0, b'S', 1, 10],  // SystemEvent: 2 fields, event, timestamp 5 → 10
            &[7, 6, 0, 1, 1, 1],      // PriceLevelUpdate: 6 fields, side Sell, flags 1
            &[2, 12],                 // timestamp 6 → 12
            &[3, 8, b'A', b'B'],      // the symbol: its length, then its bytes
            &[b' '; 6],
            &[4, 100, 5, 6],          // size 100, price 3 → 6
        ]
        .concat();
        let mut out = Vec::new();
        assert_eq!(Musli.encode(&p, &mut out), 2);
        assert_eq!(out, bytes);
        assert_eq!(Musli.decode_packet(&bytes), Ok((p, bytes.len())));
    }

    /// A variant index no variant has, and a count above a packet's, are errors.
    #[test]
    fn bad_bytes_are_refused() {
        let mut out = Vec::new();
        Musli.encode(&every_kind(), &mut out);
        let mut bad = out.clone();
        bad[4] = 100;
        super::super::codec::library_error::<Musli>(&bad);
        bad = out.clone();
        bad[3] = 0xFF;
        bad.splice(4..4, [0xFF, 0x04]); // 81,919 messages
        let too_many =
            DecodeError::Malformed("the message count exceeds what an IEX-TP packet holds");
        assert_eq!(Musli.decode_packet(&bad), Err(too_many));
    }

    /// Written message by message, a packet is what each encoding writes for the whole packet.
    #[test]
    fn a_packet_is_the_encoding_of_the_whole_packet() {
        let p = every_kind();
        let count = u32::try_from(p.messages.len()).unwrap();
        let messages: Vec<MMessage> = p.messages.iter().map(|m| Wire::from_model(m, |s| s.0)).collect();
        let (mut s, mut w) = (Vec::new(), Vec::new());
        Musli.encode(&p, &mut s);
        MusliWire.encode(&p, &mut w);
        let mut whole = ::musli::storage::to_vec(&(p.seq, p.send_time, count)).unwrap();
        for m in &messages {
            ::musli::storage::encode(&mut whole, m).unwrap();
        }
        assert_eq!(s, whole);
        let mut whole = ::musli::wire::to_vec(&(p.seq, p.send_time, count)).unwrap();
        for m in &messages {
            ::musli::wire::encode(&mut whole, m).unwrap();
        }
        assert_eq!(w, whole);
    }
}
