//! JSON (serde_json): one compact JSON object per packet, followed by `\n` (JSON Lines), on the
//! serde wire vocabulary ([`Wire`](super::wire::Wire)).
//!
//! `{"seq":…,"send_time":…,"messages":[{"trade_report":{"flags":0,"timestamp":…,"symbol":"AAPL",
//! "size":100,"price":1500000,"trade_id":…}},…]}`. Messages are externally tagged by type name;
//! symbols are strings trimmed of their space padding (re-padded on decode); prices stay integers
//! with 4 implied decimals (no floats, so no rounding); one-byte codes and flags are integers.
//! serde_json escapes control characters and newlines inside strings, so the `\n` after each object
//! is the packet's only raw newline: that makes a packet self-delimiting.
//!
//! **As its maintainers use it.** serde_json writes with `to_writer` into any `io::Write`, a reused
//! `Vec<u8>` included (the Rust serialization benchmark writes into a reused buffer), and reads
//! borrowed (`from_slice` with `#[serde(borrow)]` fields). Ours encodes with `to_writer` straight
//! from the model into the output buffer (`serde_packet::PacketOut`), each message's `Wire` built
//! on the stack: no allocation, no intermediate copy. Decoding finds the newline (`memchr`), then
//! reads the object field by field with serde's streaming pattern (`serde_packet::read`: a
//! `DeserializeSeed` over the messages array, serde's "process an array of values without buffering
//! it into a Vec"): each message is handed to the sink or visitor as it is parsed, symbols borrowed
//! from the buffer (`Cow<str>`: borrowed unless the string has escapes), so decoding allocates
//! nothing where deserializing a struct with a `Vec` of messages would allocate that vector per
//! packet. Fields may come in any order; only when `messages` precedes `seq` or `send_time` (never
//! in what we write) are the messages collected first, since the packet's header must reach the
//! sink before its messages. A symbol that is not UTF-8 cannot be a JSON string: it is written
//! lossily (IEX symbols are ASCII).

use crate::formats::languages::{OtherLanguages, WireFormat};
use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::codec::{DecodeError, Documented, Format, Sink, Visitor};
use super::serde_packet::{self, Handler, PacketOut, SymbolIn};
use crate::model::{Packet, Symbol};

/// The JSON runner (stateless).
#[derive(Debug, Default)]
pub struct Json;

/// A symbol as written: its trimmed bytes as a string (`json-sonic` and `json-simd` write it so
/// too).
pub(super) struct SymOut<'a>(pub(super) &'a Symbol);

impl Serialize for SymOut<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match std::str::from_utf8(self.0.trimmed()) {
            Ok(text) => s.serialize_str(text),
            Err(_) => s.serialize_str(&String::from_utf8_lossy(self.0.trimmed())),
        }
    }
}

/// A symbol as read: borrowed from the input unless it had escapes (by every JSON decoder: the
/// refusal below names the wire, `json`, whichever decoder read it).
#[derive(Deserialize)]
#[serde(transparent)]
pub(super) struct SymIn<'a>(#[serde(borrow)] Cow<'a, str>);

impl SymbolIn for SymIn<'_> {
    /// Re-padded to 8 bytes.
    fn bytes(&self) -> Result<[u8; 8], DecodeError> {
        Symbol::new(&self.0)
            .map(|s| s.0)
            .ok_or(DecodeError::Malformed("json: symbol longer than 8 bytes"))
    }
}

/// Where the packet at the start of `bytes` ends: the index of the newline after it (JSON Lines:
/// the packet's only raw newline), or `Truncated` when there is none.
pub(super) fn line_end(bytes: &[u8]) -> Result<usize, DecodeError> {
    memchr::memchr(b'\n', bytes).ok_or(DecodeError::Truncated {
        needed: bytes.len() + 1,
        available: bytes.len(),
    })
}

/// Decodes the packet before the first newline of `bytes` into `handler`; returns the bytes used
/// with the newline.
fn read<'de>(
    bytes: &'de [u8],
    handler: &mut impl Handler<SymIn<'de>>,
) -> Result<usize, DecodeError> {
    let end = line_end(bytes)?;
    let mut de = serde_json::Deserializer::from_slice(&bytes[..end]);
    serde_packet::read(&mut de, handler, "json")?;
    de.end().map_err(|e| DecodeError::library("json", e))?;
    Ok(end + 1)
}

/// The schema of [`Format::DOCUMENTED`]: none, the Rust types are the schema.
pub(super) const SCHEMA: Option<&str> = None;
/// Where [`Format::DOCUMENTED`] comes from.
const SOURCE: &str = "https://docs.rs/serde_json (the serde types are the schema; the parser refuses \
    what is not JSON of those types; numbers are parsed into values)";

impl Format for Json {
    const NAME: &'static str = "json";
    const DOCUMENTED: Documented = Documented::new(SCHEMA, false, true, SOURCE);
    const OTHER_LANGUAGES: OtherLanguages = OtherLanguages::Read(WireFormat::Json);

    fn encode(&mut self, packet: &Packet, out: &mut Vec<u8>) -> usize {
        let p = PacketOut::new(packet, SymOut);
        serde_json::to_writer(&mut *out, &p).expect("writing JSON to a Vec cannot fail");
        out.push(b'\n');
        packet.messages.len()
    }

    serde_packet::decode_through_read!();
}

/// A Trade Report as every JSON row writes it, for the JSON codecs' tests.
#[cfg(test)]
pub(super) const TRADE: &str = r#"{"trade_report":{"flags":0,"timestamp":5,"symbol":"AAPL","size":100,"price":1500000,"trade_id":9}}"#;

/// Each `(text, reason)`: `F` refuses the text with its library's error, named `F`, whose message
/// contains the reason.
#[cfg(test)]
pub(super) fn assert_refused<F: Format>(cases: &[(&str, &str)]) {
    for (text, reason) in cases {
        match F::default().decode_packet(text.as_bytes()) {
            Err(DecodeError::Library { format, message }) => {
                assert_eq!(format, F::NAME, "{text}");
                assert!(message.contains(reason), "{}: {text}: {message}", F::NAME);
            }
            other => panic!("{}: {text}: {other:?}", F::NAME),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(text: &str) -> Result<(Packet, usize), DecodeError> {
        Json.decode_packet(text.as_bytes())
    }

    fn packet(seq: u64, send_time: i64, trades: usize) -> Packet {
        let trade = serde_packet::aapl_trade();
        Packet {
            seq,
            send_time,
            messages: vec![trade; trades],
        }
    }

    #[test]
    fn fields_may_come_in_any_order() {
        for text in [
            format!("{{\"seq\":1,\"send_time\":2,\"messages\":[{TRADE},{TRADE}]}}\n"),
            format!("{{\"send_time\":2,\"messages\":[{TRADE},{TRADE}],\"seq\":1}}\n"),
            format!("{{\"messages\":[{TRADE},{TRADE}],\"seq\":1,\"send_time\":2}}\n"),
        ] {
            assert_eq!(decode(&text), Ok((packet(1, 2, 2), text.len())), "{text}");
        }
        // An empty list before the header still gives the header.
        let text = "{\"messages\":[],\"seq\":3,\"send_time\":4}\n";
        assert_eq!(decode(text), Ok((packet(3, 4, 0), text.len())));
    }

    #[test]
    fn an_array_reads_as_serde_reads_a_struct() {
        let text = format!("[1,2,[{TRADE}]]\n");
        assert_eq!(decode(&text), Ok((packet(1, 2, 1), text.len())));
        assert!(decode("[1,2]\n").is_err());
    }

    #[test]
    fn bad_objects_are_refused_with_serde_json_s_reason() {
        assert_refused::<Json>(&[
            ("{\"seq\":1,\"seq\":1,\"send_time\":2,\"messages\":[]}\n", "duplicate field `seq`"),
            ("{\"seq\":1,\"send_time\":2,\"messages\":[],\"x\":0}\n", "unknown field `x`"),
            ("{\"seq\":1,\"send_time\":2}\n", "missing field `messages`"),
            ("{\"messages\":[],\"send_time\":2}\n", "missing field `seq`"),
            ("{\"seq\":1,\"send_time\":2,\"messages\":[]} x\n", "trailing characters"),
        ]);
    }

    #[test]
    fn a_symbol_the_model_refuses_is_that_error_whenever_it_is_read() {
        let long = TRADE.replace("AAPL", "TOOLONGSYM");
        for text in [
            format!("{{\"seq\":1,\"send_time\":2,\"messages\":[{TRADE},{long}]}}\n"),
            format!("{{\"messages\":[{TRADE},{long}],\"seq\":1,\"send_time\":2}}\n"),
        ] {
            assert_eq!(
                decode(&text),
                Err(DecodeError::Malformed("json: symbol longer than 8 bytes")),
                "{text}"
            );
            let mut sink = crate::formats::Aggregate::new();
            assert_eq!(
                Json.decode(text.as_bytes(), &mut sink),
                Err(DecodeError::Malformed("json: symbol longer than 8 bytes")),
                "{text}"
            );
        }
    }
}
