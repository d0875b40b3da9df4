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
//! borrowed (`from_slice` with `#[serde(borrow)]` fields). Ours writes straight from the model into
//! the output buffer, and reads the line the newline ends (`memchr`) with serde's streaming
//! pattern, each message handed over as it is parsed (`serde_packet`: no allocation either way),
//! symbols borrowed from the buffer (`Cow<str>`: borrowed unless the string has escapes). A symbol
//! that is not UTF-8 cannot be a JSON string: it is written lossily (IEX symbols are ASCII).

use crate::formats::languages::{OtherLanguages, WireFormat};
use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::codec::{DecodeError, Documented, Format, Sink, Visitor};
use super::serde_packet::{self, Handler, PacketOut, SymbolIn};
use crate::model::{Packet, Symbol};

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

/// `read(bytes, handler)` of the JSON row `$F` whose library `$lib` parses a line with its serde
/// `Deserializer` (`end()` refusing trailing characters): decodes the packet before the first
/// newline of `bytes`; returns the bytes used with the newline.
macro_rules! read_line {
    ($F:ty, $lib:ident) => {
        fn read<'de>(
            bytes: &'de [u8],
            handler: &mut impl Handler<SymIn<'de>>,
        ) -> Result<usize, DecodeError> {
            let end = line_end(bytes)?;
            let mut de = $lib::Deserializer::from_slice(&bytes[..end]);
            serde_packet::read(&mut de, handler, <$F>::NAME)?;
            de.end().map_err(|e| DecodeError::library(<$F>::NAME, e))?;
            Ok(end + 1)
        }
    };
}
pub(super) use read_line;

/// The `Format` impl of the JSON row `$F`, named `$name`, documented by `$source`: JSON Lines
/// written with its library `$lib`'s `to_writer` into the output `Vec`, read by `$decode` (the
/// decodes). A row with a code path (`json-sonic`, `json-simd`) is another library writing
/// `json`'s bytes (their tests check it).
macro_rules! json_format {
    (
        $F:ty, $lib:ident, $name:literal, $source:expr, $(code path $path:expr,)?
        { $($decode:tt)* }
    ) => {
        impl Format for $F {
            const NAME: &'static str = $name;
            const DOCUMENTED: Documented = Documented::new(None, false, true, $source);
            const OTHER_LANGUAGES: OtherLanguages = OtherLanguages::Read(WireFormat::Json);
            $(
                const WRITES_BYTES_OF: Option<&'static str> = Some(super::json::Json::NAME);

                fn code_path() -> Option<&'static str> {
                    Some($path)
                }
            )?

            fn encode(&mut self, packet: &Packet, out: &mut Vec<u8>) -> usize {
                $lib::to_writer(&mut *out, &PacketOut::new(packet, SymOut))
                    .expect("writing JSON to a Vec cannot fail");
                out.push(b'\n');
                packet.messages.len()
            }

            $($decode)*
        }
    };
}
pub(super) use json_format;

read_line!(Json, serde_json);

const SOURCE: &str = "https://docs.rs/serde_json (the serde types are the schema; the parser refuses \
    what is not JSON of those types; numbers are parsed into values)";

json_format!(Json, serde_json, "json", SOURCE, {
    serde_packet::decode_through_read!();
});

#[cfg(test)]
mod tests {
    use super::super::codec::library_error;
    use super::super::{json_simd::JsonSimd, json_sonic::JsonSonic};
    use super::*;

    /// A Trade Report as every JSON row writes it.
    const TRADE: &str = r#"{"trade_report":{"flags":64,"timestamp":5,"symbol":"AAPL","size":100,"price":1500000,"trade_id":7}}"#;

    /// `text` read by each JSON decoder (serde_json's, sonic-rs's, simd-json's): all three read
    /// through `serde_packet::read`, so they read alike.
    fn decode(text: &str) -> [Result<(Packet, usize), DecodeError>; 3] {
        let b = text.as_bytes();
        let simd = JsonSimd::default().decode_packet(b);
        [Json.decode_packet(b), JsonSonic.decode_packet(b), simd]
    }

    /// What each of the three gives.
    fn each(r: Result<(Packet, usize), DecodeError>) -> [Result<(Packet, usize), DecodeError>; 3] {
        [r.clone(), r.clone(), r]
    }

    fn packet(seq: u64, send_time: i64, trades: usize) -> Packet {
        let trade = crate::model::fixtures::trade(1_500_000, 5);
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
            assert_eq!(decode(&text), each(Ok((packet(1, 2, 2), text.len()))), "{text}");
        }
        // An empty list before the header still gives the header.
        let text = "{\"messages\":[],\"seq\":3,\"send_time\":4}\n";
        assert_eq!(decode(text), each(Ok((packet(3, 4, 0), text.len()))));
    }

    #[test]
    fn an_array_reads_as_serde_reads_a_struct() {
        let text = format!("[1,2,[{TRADE}]]\n");
        assert_eq!(decode(&text), each(Ok((packet(1, 2, 1), text.len()))));
        assert!(decode("[1,2]\n").iter().all(Result::is_err));
    }

    /// Each `(text, reason)` of serde's refusals, then of `cases`: `F` refuses the text with its
    /// library's error, named `F`, whose message contains the reason. What serde finds (fields) every
    /// JSON decoder names alike.
    fn assert_refused<F: Format>(cases: &[(&str, &str)]) {
        let serde = [
            ("{\"seq\":1,\"seq\":1,\"send_time\":2,\"messages\":[]}\n", "duplicate field `seq`"),
            ("{\"seq\":1,\"send_time\":2,\"messages\":[],\"x\":0}\n", "unknown field `x`"),
            ("{\"seq\":1,\"send_time\":2}\n", "missing field `messages`"),
            ("{\"messages\":[],\"send_time\":2}\n", "missing field `seq`"),
            (
                "{\"seq\":1,\"send_time\":2,\"messages\":[{\"trade_report\":{}}]}\n",
                "missing field `flags`",
            ),
        ];
        for (text, reason) in serde.iter().chain(cases) {
            let message = library_error::<F>(text.as_bytes());
            assert!(message.contains(reason), "{}: {text}: {message}", F::NAME);
        }
    }

    /// simd-json 0.19 names what serde finds as serde_json does, and most syntax errors of its
    /// tape builder `InternalError` with the offending character's offset (trailing characters
    /// and a trailing comma alike).
    #[test]
    fn bad_objects_are_refused_with_each_library_s_reason() {
        let trailing = "{\"seq\":1,\"send_time\":2,\"messages\":[]} x\n";
        let unclosed = "{\"seq\":1,\"send_time\":2,\"messages\":[]\n";
        assert_refused::<Json>(&[(trailing, "trailing characters")]);
        assert_refused::<JsonSonic>(&[
            (trailing, "trailing characters"),
            (&format!("{{\"seq\":1,\"send_time\":2,\"messages\":[{TRADE},]}}\n"), "Invalid JSON value at line 1 column 135"),
            (unclosed, "EOF while parsing"),
        ]);
        assert_refused::<JsonSimd>(&[
            (trailing, "InternalError at character 36"),
            ("{\"seq\":1,\"send_time\":2,\"messages\":[1,]}\n", "InternalError at character 37"),
            (unclosed, "Syntax at character 35"),
        ]);
    }

    #[test]
    fn a_symbol_the_model_refuses_is_that_error_whenever_it_is_read() {
        let long = TRADE.replace("AAPL", "TOOLONGSYM");
        for text in [
            format!("{{\"seq\":1,\"send_time\":2,\"messages\":[{TRADE},{long}]}}\n"),
            format!("{{\"messages\":[{TRADE},{long}],\"seq\":1,\"send_time\":2}}\n"),
        ] {
            let long = Err(DecodeError::Malformed("json: symbol longer than 8 bytes"));
            assert_eq!(decode(&text), each(long), "{text}");
            let mut sink = crate::formats::Aggregate::new();
            assert_eq!(
                Json.decode(text.as_bytes(), &mut sink),
                Err(DecodeError::Malformed("json: symbol longer than 8 bytes")),
                "{text}"
            );
        }
    }
}
