//! JSON (serde_json), postcard, MessagePack (rmp-serde) and CBOR (minicbor-serde): all derive
//! from the serde wire vocabulary, so version 2 is [`v2::Wire`] with serde's `#[serde(default)]`
//! on each appended field. JSON and CBOR name every field: a reader skips the fields it does not
//! know and fills the missing ones from their defaults. postcard is not self-describing: a struct
//! is its fields in order, with no names or lengths, so a reader takes the bytes of the next
//! field for the field it expects, and the attribute never applies. MessagePack, as
//! `formats::msgpack` writes it (structs as arrays), is in between: an array carries its length,
//! so a reader finds a missing trailing field and defaults it, but it has no name to skip an
//! unknown one by.

use std::io::Cursor;

use serde::{Deserialize, Serialize};

use super::harness::{self, both, Read2};
use super::v2;
use crate::capability::finding::Finding;
use crate::formats::cbor::Cbor;
use crate::formats::json::Json;
use crate::formats::json_simd::JsonSimd;
use crate::formats::json_sonic::JsonSonic;
use crate::formats::msgpack::Msgpack;
use crate::formats::postcard::Postcard;
use crate::formats::Format;
use crate::model::Symbol;

/// A packet as both codecs write it: `seq`, `send_time`, then the messages (JSON: an object with
/// those names; postcard: the two varints, a varint count, then each message).
#[derive(Serialize, Deserialize)]
struct Packet2<M> {
    seq: u64,
    send_time: i64,
    messages: Vec<M>,
}

/// The packet a version 2 writer sends, its symbols as `sym` makes them.
fn packet2<S>(p: &v2::MPacket, sym: impl Fn([u8; 8]) -> S) -> Packet2<v2::Wire<S>> {
    Packet2 {
        seq: p.seq,
        send_time: p.send_time,
        messages: p.messages.iter().map(|m| m.map_symbol(&sym)).collect(),
    }
}

/// Each message's symbol as 8 bytes (`sym` may refuse one: the messages before it are kept).
fn symbols<S>(
    messages: impl IntoIterator<Item = v2::Wire<S>>,
    sym: impl Fn(S) -> Result<[u8; 8], String>,
    into: &mut Vec<v2::Wire<[u8; 8]>>,
) -> Result<(), String> {
    for m in messages {
        let mut bad = None;
        let m = m.map_symbol(|s| {
            sym(s).unwrap_or_else(|e| {
                bad = Some(e);
                [0; 8]
            })
        });
        if let Some(e) = bad {
            return Err(e);
        }
        into.push(m);
    }
    Ok(())
}

/// JSON's version 2 writer: serde_json, one compact object and `\n` per packet, symbols trimmed
/// of their padding, as `formats::json` writes.
pub(super) fn json_write(p: &v2::MPacket, out: &mut Vec<u8>) {
    let p = packet2(p, |s| {
        String::from_utf8_lossy(Symbol(s).trimmed()).into_owned()
    });
    serde_json::to_writer(&mut *out, &p).expect("writing JSON to a Vec cannot fail");
    out.push(b'\n');
}

/// JSON's version 2 reader: serde_json on the object before the first newline (all or
/// nothing: no message is handed over before the whole object parsed).
pub(super) fn json_read(bytes: &[u8]) -> Read2 {
    let mut p = v2::MPacket::default();
    let Some(end) = bytes.iter().position(|&b| b == b'\n') else {
        return (p, Err("no newline ends the packet".into()));
    };
    let read: Packet2<v2::Wire<String>> = match serde_json::from_slice(&bytes[..end]) {
        Ok(read) => read,
        Err(e) => return (p, Err(format!("serde_json: {e}"))),
    };
    (p.seq, p.send_time) = (read.seq, read.send_time);
    let sym = |s: String| {
        Symbol::new(&s)
            .map(|s| s.0)
            .ok_or_else(|| format!("symbol {s:?} is longer than 8 bytes"))
    };
    let done = symbols(read.messages, sym, &mut p.messages).map(|()| end + 1);
    (p, done)
}

/// The evolution of the v1 codec `F` against `lib` (the same crate on the v2 types: `write`
/// and `read`), checked in `serde_formats::{check}`; `notes` (why the format answers so)
/// follow the findings.
fn with_crate<F: Format>(
    (check, lib): (&str, &str),
    write: impl Fn(&v2::MPacket, &mut Vec<u8>),
    read: impl Fn(&[u8]) -> Read2,
    notes: (&str, &str),
) -> (Finding, Finding) {
    let check = format!("capability::evolution::serde_formats::{check}");
    both::<F>(&check, (lib, lib), write, read, notes)
}

/// Why a v2 reader reads v1 bytes, in a self-describing format.
const DEFAULTS: &str = " (#[serde(default)] on each appended field)";

/// JSON's evolution: the v1 codec `F` (`formats::json`, or `json-sonic` and `json-simd`, which
/// read and write the same bytes with other libraries) against serde_json on the v2 types.
pub(super) fn json<F: Format>() -> (Finding, Finding) {
    let skips = " (serde skips fields a type does not name: v1's Wire has no deny_unknown_fields)";
    with_crate::<F>(
        (Json::NAME, "serde_json"),
        json_write,
        json_read,
        (skips, DEFAULTS),
    )
}

/// A symbol as postcard, MessagePack and CBOR carry it: a serde byte string of its 8 bytes.
struct Bytes8([u8; 8]);

impl Serialize for Bytes8 {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.0)
    }
}

impl<'de> Deserialize<'de> for Bytes8 {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Bytes8, D::Error> {
        struct Eight;
        impl serde::de::Visitor<'_> for Eight {
            type Value = Bytes8;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("8 bytes")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Bytes8, E> {
                <[u8; 8]>::try_from(v)
                    .map(Bytes8)
                    .map_err(|_| E::invalid_length(v.len(), &self))
            }
        }
        d.deserialize_bytes(Eight)
    }
}

/// A version 2 packet read whole (all or nothing) with the bytes it used, or why not.
fn whole(read: Result<(Packet2<v2::Wire<Bytes8>>, usize), String>) -> Read2 {
    harness::whole(read.map(|(p, used)| {
        let messages = p.messages.into_iter().map(|m| m.map_symbol(|s| s.0));
        let (seq, send_time) = (p.seq, p.send_time);
        (
            v2::MPacket {
                seq,
                send_time,
                messages: messages.collect(),
            },
            used,
        )
    }))
}

/// postcard's version 2 writer, as `formats::postcard` writes: no framing, the packet is
/// self-delimiting.
pub(super) fn postcard_write(p: &v2::MPacket, out: &mut Vec<u8>) {
    let p = packet2(p, Bytes8);
    *out = postcard::to_extend(&p, std::mem::take(out)).expect("a Vec grows to fit");
}

/// postcard's version 2 reader: the header, then message by message with `take_from_bytes`
/// (as `formats::postcard` reads), symbols borrowed.
pub(super) fn postcard_read(bytes: &[u8]) -> Read2 {
    let mut p = v2::MPacket::default();
    let done = (|| {
        let ((seq, send_time, count), mut rest) =
            postcard::take_from_bytes::<(u64, i64, usize)>(bytes)
                .map_err(|e| format!("postcard: {e}"))?;
        (p.seq, p.send_time) = (seq, send_time);
        for k in 0..count {
            let (m, r) = postcard::take_from_bytes::<v2::Wire<&[u8]>>(rest)
                .map_err(|e| format!("messages[{k}]: postcard: {e}"))?;
            rest = r;
            let sym = |s: &[u8]| {
                <[u8; 8]>::try_from(s).map_err(|_| format!("a symbol of {} bytes", s.len()))
            };
            symbols([m], sym, &mut p.messages)?;
        }
        Ok(bytes.len() - rest.len())
    })();
    (p, done)
}

const NO_MECHANISM: &str = " (postcard has no evolution mechanism: a reader takes a struct's \
     fields by position, so an appended field's bytes are read as what follows it, and a missing \
     one is taken from the next message)";

/// MessagePack's version 2 writer, as `formats::msgpack` writes: rmp-serde's default
/// serializer, structs as arrays.
pub(super) fn msgpack_write(p: &v2::MPacket, out: &mut Vec<u8>) {
    packet2(p, Bytes8)
        .serialize(&mut rmp_serde::Serializer::new(&mut *out))
        .expect("writing MessagePack to a Vec cannot fail");
}

/// MessagePack's version 2 reader: rmp-serde on the v2 types, through a `Cursor` for the bytes
/// used (as `formats::msgpack` reads).
pub(super) fn msgpack_read(bytes: &[u8]) -> Read2 {
    let mut de = rmp_serde::Deserializer::new(Cursor::new(bytes));
    let read = Packet2::deserialize(&mut de).map_err(|e| format!("rmp-serde: {e}"));
    whole(read.map(|p| (p, de.position() as usize)))
}

const ARRAYS: &str = " (structs as arrays, rmp-serde's default: a reader defaults a trailing \
     field the array lacks, #[serde(default)], but has no name to skip one it does not know by)";

/// CBOR's version 2 writer, as `formats::cbor` writes: minicbor-serde, structs as maps.
pub(super) fn cbor_write(p: &v2::MPacket, out: &mut Vec<u8>) {
    packet2(p, Bytes8)
        .serialize(&mut minicbor_serde::Serializer::new(&mut *out))
        .expect("writing CBOR to a Vec cannot fail");
}

/// CBOR's version 2 reader: minicbor-serde on the v2 types, the decoder's position the bytes used.
pub(super) fn cbor_read(bytes: &[u8]) -> Read2 {
    let mut de = minicbor_serde::Deserializer::new(bytes);
    let read = Packet2::deserialize(&mut de).map_err(|e| format!("minicbor-serde: {e}"));
    whole(read.map(|p| (p, de.decoder().position())))
}

const MAPS: &str = " (structs as maps keyed by name: serde skips fields a type does not name)";

// json-sonic and json-simd write json's bytes and read them with their own libraries: each is
// checked with its own reader and writer against serde_json's v2. The others: the v1 codec
// `formats::{name}` against its crate on the v2 types.
evolves! {
    Json => json::<Json>();
    JsonSonic => json::<JsonSonic>();
    JsonSimd => json::<JsonSimd>();
    Postcard => with_crate::<Postcard>(
        (Postcard::NAME, "postcard"), postcard_write, postcard_read, (NO_MECHANISM, NO_MECHANISM)
    );
    Msgpack => with_crate::<Msgpack>(
        (Msgpack::NAME, "rmp-serde"), msgpack_write, msgpack_read, (ARRAYS, ARRAYS)
    );
    Cbor => with_crate::<Cbor>(
        (Cbor::NAME, "minicbor-serde"), cbor_write, cbor_read, (MAPS, DEFAULTS)
    );
}

#[cfg(test)]
mod tests {
    use super::super::harness::{assert_answers, source};
    use super::super::Evolves;
    use super::*;

    #[test]
    fn the_v2_json_writer_writes_the_appended_fields() {
        let mut json = Vec::new();
        json_write(&v2::MPacket::written(&source()[0]), &mut json);
        let text = String::from_utf8(json).unwrap();
        assert!(
            text.contains(r#""trade_id":4242001,"match_id":81985529216486895}"#),
            "{text}"
        );
        assert!(
            text.contains(r#""price":4201000,"attribution":1196967241}"#),
            "{text}"
        );
    }

    /// A v2 reader read v1's bytes and saw the appended fields' defaults.
    fn reads_the_defaults(backward: &Finding) {
        assert!(backward.yes(), "{}", backward.answer);
        let defaults = "the defaults (match_id 0, attribution 0)";
        backward.assert_says(defaults);
    }

    /// serde_json, sonic-rs and simd-json as the v1 reader each skip the appended fields, and
    /// serde_json as the v2 reader defaults them on each one's v1 bytes.
    #[test]
    fn json_evolves_both_ways_with_serde_defaults() {
        for (name, e) in [
            ("json", json::<Json>()),
            ("json-sonic", json::<JsonSonic>()),
            ("json-simd", json::<JsonSimd>()),
        ] {
            assert!(e.0.yes(), "{name}: {}", e.0.answer);
            assert!(
                e.0.answer.contains("27 messages in 2 packets"),
                "{name}: {}",
                e.0.answer
            );
            assert!(
                e.0.decided_by
                    .contains(&format!("v1 reader: formats::{name}")),
                "{}",
                e.0.decided_by
            );
            reads_the_defaults(&e.1);
        }
    }

    /// The v1 reader reads the system event and the first Trade Report's v1 fields, then takes
    /// its 9-byte varint `match_id` for the next message's type; the v2 reader takes the next
    /// message's type index (Add Order, 13, zigzag -7) for `match_id`.
    #[test]
    fn postcard_misreads_what_follows_an_appended_field() {
        assert_answers(
            Postcard::evolution(),
            NO_MECHANISM,
            (
                "no: the v1 reader on v2 bytes, packet 0 (seq 1001): read messages[0..2] right \
                 (the last a TradeReport), then stopped: postcard: Found a varint that didn't \
                 terminate. Is the usize too big for this platform?",
                "no: the v2 reader on v1 bytes, packet 0 (seq 1001): \
                 messages[1].TradeReport.match_id came out as -7, not the default 0, then \
                 stopped: messages[2]: postcard: Serde Deserialization Error",
            ),
        );
    }

    /// Each version 2 writer puts Trade Report's `match_id` (81985529216486895,
    /// 0x0123456789ABCDEF) after `trade_id` as its specification encodes a 64-bit unsigned
    /// integer: MessagePack `uint 64` (0xCF and 8 bytes big-endian) as the 7th value of the
    /// message's array; CBOR major type 0 with a 8-byte argument (0x1B), after its name.
    #[test]
    fn the_v2_binary_writers_write_the_appended_field_by_the_specifications() {
        let packet = v2::MPacket::written(&source()[0]);
        let match_id = [0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF];
        let mut msgpack = Vec::new();
        msgpack_write(&packet, &mut msgpack);
        // trade_id 4242001 (uint 32: 0xCE 0x0040BA51), then match_id.
        let expected = [&[0xCE, 0x00, 0x40, 0xBA, 0x51, 0xCF][..], &match_id].concat();
        assert!(msgpack.windows(14).any(|w| w == expected), "{msgpack:02x?}");
        let mut cbor = Vec::new();
        cbor_write(&packet, &mut cbor);
        let expected = [&[0x68][..], b"match_id", &[0x1B], &match_id].concat();
        assert!(cbor.windows(18).any(|w| w == expected), "{cbor:02x?}");
    }

    /// The v1 reader reads the system event, then meets the first Trade Report's array of 7
    /// values where its struct has 6: rmp-serde refuses the array's length. The v2 reader takes
    /// the 6 values of v1's arrays and defaults the 7th.
    #[test]
    fn msgpack_defaults_a_missing_field_but_cannot_skip_an_unknown_one() {
        let (forward, backward) = Msgpack::evolution();
        assert_eq!(
            forward.answer,
            format!(
                "no: the v1 reader on v2 bytes, packet 0 (seq 1001): read messages[0..1] right \
                 (the last a SystemEvent), then stopped: msgpack: array had incorrect length, \
                 expected 6{ARRAYS}"
            )
        );
        reads_the_defaults(&backward);
    }

    #[test]
    fn cbor_evolves_both_ways_with_serde_defaults() {
        let (forward, backward) = Cbor::evolution();
        assert_eq!(
            forward.answer,
            "yes: the v1 reader read every v1 field of 27 messages in 2 packets, 3 Trade Reports \
             and 3 Add Orders among them exactly (structs as maps keyed by name: serde skips \
             fields a type does not name)"
        );
        reads_the_defaults(&backward);
    }
}
