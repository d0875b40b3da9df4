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
//! **As its maintainers use it.** serde_json writes with `to_writer` into any `io::Write`, a
//! reused `Vec<u8>` included (the Rust serialization benchmark writes into a reused buffer), and
//! reads borrowed (`from_slice` with `#[serde(borrow)]` fields). Ours encodes with `to_writer`
//! straight from the model into the output buffer, each message's [`Wire`] built on the stack: no
//! allocation, no intermediate copy. Decoding finds the newline (`memchr`), then reads the object
//! field by field with serde's streaming pattern (a `DeserializeSeed` over the messages array,
//! serde's "process an array of values without buffering it into a Vec"): each message is handed
//! to the sink or visitor as it is parsed, symbols borrowed from the buffer (`Cow<str>`: borrowed
//! unless the string has escapes), so decoding allocates nothing where deserializing a struct
//! with a `Vec` of messages would allocate that vector per packet. Fields may come in any order;
//! only when `messages` precedes `seq` or `send_time` (never in what we write) are the messages
//! collected first, since the packet's header must reach the sink before its messages. A symbol
//! that is not UTF-8 cannot be a JSON string: it is written lossily (IEX symbols are ASCII).

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess};
use serde::{Deserialize, Serialize};

use super::wire::Wire;
use super::codec::{DecodeError, Documented, Format, Sink, Visitor};
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

/// Where a decode puts what it reads: the packet's header, then each message as it is parsed.
trait Handler<'de> {
    fn header(&mut self, seq: u64, send_time: i64);
    fn message(&mut self, message: Wire<SymIn<'de>>) -> Result<(), DecodeError>;
}

/// The selective decode: the fields the sink needs.
struct Selective<'k, K>(&'k mut K);

impl<'de, K: Sink> Handler<'de> for Selective<'_, K> {
    fn header(&mut self, seq: u64, _send_time: i64) {
        self.0.packet(seq);
    }

    fn message(&mut self, message: Wire<SymIn<'de>>) -> Result<(), DecodeError> {
        message.visit(self.0, |s| Ok(s.symbol()?.0))
    }
}

/// The complete decode: every message whole.
struct Complete<'v, V>(&'v mut V);

impl<'de, V: Visitor> Handler<'de> for Complete<'_, V> {
    fn header(&mut self, seq: u64, send_time: i64) {
        self.0.packet(seq, send_time);
    }

    fn message(&mut self, message: Wire<SymIn<'de>>) -> Result<(), DecodeError> {
        self.0.message(message.into_model(|s| s.symbol())?);
        Ok(())
    }
}

/// A packet's fields, by name; any other name is an error.
#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "snake_case")]
enum Field {
    Seq,
    SendTime,
    Messages,
}

const FIELDS: &[&str] = &["seq", "send_time", "messages"];

/// Reads one packet into a [`Handler`]. A handler's error (a message the model refuses) is kept
/// in `failed` and surfaces as that error, not as serde_json's.
struct PacketSeed<'h, H> {
    handler: &'h mut H,
    failed: &'h mut Option<DecodeError>,
}

impl<H> PacketSeed<'_, H> {
    fn fail<E: de::Error>(&mut self, e: DecodeError) -> E {
        *self.failed = Some(e);
        E::custom("the message is not a valid IEX message")
    }

    fn messages(&mut self) -> MessagesSeed<'_, H> {
        MessagesSeed {
            handler: &mut *self.handler,
            failed: &mut *self.failed,
        }
    }
}

impl<'de, H: Handler<'de>> DeserializeSeed<'de> for PacketSeed<'_, H> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_struct("Packet", FIELDS, self)
    }
}

impl<'de, H: Handler<'de>> de::Visitor<'de> for PacketSeed<'_, H> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a packet object")
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<(), A::Error> {
        let (mut seq, mut send_time) = (None, None);
        let mut messages = false;
        // Messages read before the header (only in JSON we did not write): kept until it is known.
        let mut early: Option<Vec<Wire<SymIn<'de>>>> = None;
        while let Some(field) = map.next_key::<Field>()? {
            match field {
                Field::Seq if seq.is_some() => return Err(de::Error::duplicate_field("seq")),
                Field::Seq => seq = Some(map.next_value()?),
                Field::SendTime if send_time.is_some() => {
                    return Err(de::Error::duplicate_field("send_time"))
                }
                Field::SendTime => send_time = Some(map.next_value()?),
                Field::Messages if messages => {
                    return Err(de::Error::duplicate_field("messages"))
                }
                Field::Messages => {
                    messages = true;
                    if let (Some(seq), Some(send_time)) = (seq, send_time) {
                        self.handler.header(seq, send_time);
                        map.next_value_seed(self.messages())?;
                    } else {
                        early = Some(map.next_value()?);
                    }
                }
            }
        }
        let seq = seq.ok_or_else(|| de::Error::missing_field("seq"))?;
        let send_time = send_time.ok_or_else(|| de::Error::missing_field("send_time"))?;
        if !messages {
            return Err(de::Error::missing_field("messages"));
        }
        if let Some(early) = early {
            self.handler.header(seq, send_time);
            for m in early {
                if let Err(e) = self.handler.message(m) {
                    return Err(self.fail(e));
                }
            }
        }
        Ok(())
    }

    /// serde's derived structs also read `[seq, send_time, [messages]]`; so does this.
    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        let expected = "an array of seq, send_time and messages";
        let number = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(0, &expected))?;
        let send_time = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(1, &expected))?;
        self.handler.header(number, send_time);
        seq.next_element_seed(self.messages())?
            .ok_or_else(|| de::Error::invalid_length(2, &expected))
    }
}

/// Reads the messages array, handing each message over as soon as it is parsed.
struct MessagesSeed<'h, H> {
    handler: &'h mut H,
    failed: &'h mut Option<DecodeError>,
}

impl<'de, H: Handler<'de>> DeserializeSeed<'de> for MessagesSeed<'_, H> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, H: Handler<'de>> de::Visitor<'de> for MessagesSeed<'_, H> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of messages")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(m) = seq.next_element::<Wire<SymIn<'de>>>()? {
            if let Err(e) = self.handler.message(m) {
                *self.failed = Some(e);
                return Err(de::Error::custom("the message is not a valid IEX message"));
            }
        }
        Ok(())
    }
}

/// Decodes the packet before the first newline of `bytes` into `handler`; returns the bytes used
/// with the newline.
fn read<'de>(bytes: &'de [u8], handler: &mut impl Handler<'de>) -> Result<usize, DecodeError> {
    let Some(end) = memchr::memchr(b'\n', bytes) else {
        return Err(DecodeError::Truncated {
            needed: bytes.len() + 1,
            available: bytes.len(),
        });
    };
    let mut failed = None;
    let mut de = serde_json::Deserializer::from_slice(&bytes[..end]);
    let seed = PacketSeed {
        handler,
        failed: &mut failed,
    };
    match seed.deserialize(&mut de).and_then(|()| de.end()) {
        Ok(()) => Ok(end + 1),
        Err(e) => Err(failed.unwrap_or_else(|| DecodeError::library("json", e))),
    }
}

impl Format for Json {
    const NAME: &'static str = "json";
    const DOCUMENTED: Documented = Documented {
        schema: None,
        reads_in_place: false,
        validates: true,
        source: "https://docs.rs/serde_json (the serde types are the schema; the parser refuses \
                 what is not JSON of those types; numbers are parsed into values)",
    };

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
        read(bytes, &mut Selective(sink))
    }

    fn decode_all<V: Visitor>(&mut self, bytes: &[u8], v: &mut V) -> Result<usize, DecodeError> {
        read(bytes, &mut Complete(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Trade;

    const TRADE: &str = r#"{"trade_report":{"flags":0,"timestamp":5,"symbol":"AAPL","size":100,"price":1500000,"trade_id":9}}"#;

    fn decode(text: &str) -> Result<(Packet, usize), DecodeError> {
        Json.decode_packet(text.as_bytes())
    }

    fn packet(seq: u64, send_time: i64, trades: usize) -> Packet {
        let trade = Message::TradeReport(Trade {
            flags: 0,
            timestamp: 5,
            symbol: Symbol::new("AAPL").unwrap(),
            size: 100,
            price: 1_500_000,
            trade_id: 9,
        });
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
        for (text, reason) in [
            ("{\"seq\":1,\"seq\":1,\"send_time\":2,\"messages\":[]}\n", "duplicate field `seq`"),
            ("{\"seq\":1,\"send_time\":2,\"messages\":[],\"x\":0}\n", "unknown field `x`"),
            ("{\"seq\":1,\"send_time\":2}\n", "missing field `messages`"),
            ("{\"messages\":[],\"send_time\":2}\n", "missing field `seq`"),
            ("{\"seq\":1,\"send_time\":2,\"messages\":[]} x\n", "trailing characters"),
        ] {
            match decode(text) {
                Err(DecodeError::Library { format, message }) => {
                    assert_eq!(format, "json");
                    assert!(message.contains(reason), "{text}: {message}");
                }
                other => panic!("{text}: {other:?}"),
            }
        }
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
