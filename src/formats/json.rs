//! JSON (serde_json): one compact JSON object per packet, followed by `\n` (JSON Lines), on the
//! serde wire vocabulary ([`Wire`]).
//!
//! `{"seq":…,"send_time":…,"messages":[{"trade_report":{"flags":0,"timestamp":…,"symbol":"AAPL",
//! "size":100,"price":1500000,"trade_id":…}},…]}`. Messages are externally tagged by type name;
//! symbols are strings trimmed of their space padding (re-padded on decode); prices stay integers
//! with 4 implied decimals (no floats, so no rounding); one-byte codes and flags are integers.
//! serde_json escapes control characters and newlines inside strings, so the `\n` after each
//! object is the packet's only raw newline: that makes a packet self-delimiting.
//!
//! Encoding serializes straight from the model into the output buffer, each message's [`Wire`]
//! built on the stack: no allocation. Decoding finds the newline, then deserializes the object
//! with symbols borrowed from the buffer (`Cow<str>` with `#[serde(borrow)]`: borrowed unless the
//! string has escapes). It allocates the packet's messages vector, once per packet. A symbol that
//! is not UTF-8 cannot be a JSON string: it is written lossily (IEX symbols are ASCII).

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::wire::Wire;
use super::{DecodeError, Format, Sink, Visitor};
use crate::model::{Message, Packet, Symbol};

/// The JSON runner (stateless).
#[derive(Debug, Default)]
pub struct Json;

/// A symbol as written: its trimmed bytes as a string.
struct SymOut<'a>(&'a Symbol);

impl Serialize for SymOut<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match std::str::from_utf8(self.0.trimmed()) {
            Ok(text) => s.serialize_str(text),
            Err(_) => s.serialize_str(&String::from_utf8_lossy(self.0.trimmed())),
        }
    }
}

/// A symbol as read: borrowed from the input unless it had escapes.
#[derive(Deserialize)]
#[serde(transparent)]
struct SymIn<'a>(#[serde(borrow)] Cow<'a, str>);

impl SymIn<'_> {
    /// Re-padded to 8 bytes.
    fn symbol(&self) -> Result<Symbol, DecodeError> {
        Symbol::new(&self.0).ok_or(DecodeError::Malformed("json: symbol longer than 8 bytes"))
    }
}

#[derive(Serialize)]
struct PacketOut<'a> {
    seq: u64,
    send_time: i64,
    #[serde(serialize_with = "messages_out")]
    messages: &'a [Message],
}

fn messages_out<S: serde::Serializer>(messages: &&[Message], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(messages.iter().map(|m| Wire::from_model(m, SymOut)))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PacketIn<'a> {
    seq: u64,
    send_time: i64,
    #[serde(borrow)]
    messages: Vec<Wire<SymIn<'a>>>,
}

/// The object before the first newline of `bytes`, and the bytes used with the newline.
fn read(bytes: &[u8]) -> Result<(PacketIn<'_>, usize), DecodeError> {
    let Some(end) = bytes.iter().position(|&b| b == b'\n') else {
        return Err(DecodeError::Truncated {
            needed: bytes.len() + 1,
            available: bytes.len(),
        });
    };
    let packet =
        serde_json::from_slice(&bytes[..end]).map_err(|e| DecodeError::library("json", e))?;
    Ok((packet, end + 1))
}

impl Format for Json {
    const NAME: &'static str = "json";

    fn encode(&mut self, packet: &Packet, out: &mut Vec<u8>) -> usize {
        let p = PacketOut {
            seq: packet.seq,
            send_time: packet.send_time,
            messages: &packet.messages,
        };
        serde_json::to_writer(&mut *out, &p).expect("writing JSON to a Vec cannot fail");
        out.push(b'\n');
        p.messages.len()
    }

    fn decode<K: Sink>(&mut self, bytes: &[u8], sink: &mut K) -> Result<usize, DecodeError> {
        let (packet, used) = read(bytes)?;
        sink.packet(packet.seq);
        for m in &packet.messages {
            m.visit(sink, |s| Ok(s.symbol()?.0))?;
        }
        Ok(used)
    }

    fn decode_all<V: Visitor>(&mut self, bytes: &[u8], v: &mut V) -> Result<usize, DecodeError> {
        let (packet, used) = read(bytes)?;
        v.packet(packet.seq, packet.send_time);
        for m in packet.messages {
            v.message(m.into_model(|s| s.symbol())?);
        }
        Ok(used)
    }
}
