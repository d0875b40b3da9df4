//! What the serde formats (postcard, JSON, MessagePack, CBOR) share, written once and generic
//! over the symbol's type, so each codec monomorphizes its own copy (the timed code is the
//! codec's; only the source is shared):
//!
//! - [`PacketOut`]: the packet as each writes it, `seq`, `send_time`, then the messages mapped to
//!   the wire vocabulary ([`Wire`]) on the fly, each built on the stack: no allocation, no
//!   intermediate copy of the packet.
//! - [`read`]: a packet read with serde's streaming pattern (a `DeserializeSeed` over the
//!   messages array, serde's "process an array of values without buffering it into a Vec"),
//!   each message handed to the sink ([`Selective`]) or visitor ([`Complete`]) as it is parsed,
//!   so decoding allocates nothing where deserializing a struct with a `Vec` of messages would
//!   allocate that vector per packet. JSON, MessagePack and CBOR read through it; postcard, which
//!   knows the message count up front, walks with `take_from_bytes` instead.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess};
use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize};

use super::codec::{DecodeError, Sink, Visitor};
use super::wire::Wire;
use crate::model::{Message, Packet, Symbol};

/// `Format::decode` and `Format::decode_all` of a codec whose `read(bytes, handler)` reads one
/// packet into a [`Handler`] and returns the bytes used: the selective decode through
/// [`Selective`], the complete one through [`Complete`].
macro_rules! decode_through_read {
    () => {
        fn decode<K: Sink>(&mut self, bytes: &[u8], sink: &mut K) -> Result<usize, DecodeError> {
            read(bytes, &mut serde_packet::Selective(sink))
        }

        fn decode_all<V: Visitor>(
            &mut self,
            bytes: &[u8],
            v: &mut V,
        ) -> Result<usize, DecodeError> {
            read(bytes, &mut serde_packet::Complete(v))
        }
    };
}
pub(super) use decode_through_read;

/// The `Format` impl of a binary serde codec (`$codec`, named `$name`, documented by `$source`, read in another language as `WireFormat::$wire`, allocating `$steady` once warm):
/// it writes with the library's serializer made from the output buffer (`|out| …`, through
/// [`write_binary`]) and reads with the file's `read(bytes, handler)`. No schema: the serde types
/// are the schema; values are decoded, not read in place; the library refuses what does not
/// match the types.
macro_rules! binary_format {
    ($codec:ty, $name:literal, $source:expr, $wire:ident, $steady:expr, |$out:ident| $serializer:expr) => {
        impl Format for $codec {
            const NAME: &'static str = $name;
            const STEADY: super::codec::Steady = $steady;
            const DOCUMENTED: Documented = Documented::new(None, false, true, $source);
            const OTHER_LANGUAGES: $crate::formats::languages::OtherLanguages =
                $crate::formats::languages::OtherLanguages::Read(
                    $crate::formats::languages::WireFormat::$wire,
                );

            fn encode(&mut self, packet: &Packet, $out: &mut Vec<u8>) -> usize {
                serde_packet::write_binary(packet, &mut $serializer)
            }

            serde_packet::decode_through_read!();
        }
    };
}
pub(super) use binary_format;

/// A packet as the serde formats write it: a struct of `seq`, `send_time` and `messages`, each
/// message's symbol as `sym` makes it.
pub(super) struct PacketOut<'a, F> {
    packet: &'a Packet,
    sym: F,
}

impl<'a, F, S> PacketOut<'a, F>
where
    F: Fn(&'a Symbol) -> S + Copy,
    S: Serialize,
{
    #[inline(always)]
    pub(super) fn new(packet: &'a Packet, sym: F) -> Self {
        PacketOut { packet, sym }
    }
}

impl<'a, F, S> Serialize for PacketOut<'a, F>
where
    F: Fn(&'a Symbol) -> S + Copy,
    S: Serialize,
{
    fn serialize<Z: serde::Serializer>(&self, s: Z) -> Result<Z::Ok, Z::Error> {
        let mut p = s.serialize_struct("PacketOut", 3)?;
        p.serialize_field("seq", &self.packet.seq)?;
        p.serialize_field("send_time", &self.packet.send_time)?;
        p.serialize_field("messages", &MessagesOut(&self.packet.messages, self.sym))?;
        p.end()
    }
}

/// The messages as a serde sequence of [`Wire`].
struct MessagesOut<'a, F>(&'a [Message], F);

impl<'a, F, S> Serialize for MessagesOut<'a, F>
where
    F: Fn(&'a Symbol) -> S + Copy,
    S: Serialize,
{
    fn serialize<Z: serde::Serializer>(&self, s: Z) -> Result<Z::Ok, Z::Error> {
        s.collect_seq(self.0.iter().map(|m| Wire::from_model(m, self.1)))
    }
}

/// Writes `packet` with the serializer `s` (a library's, over the reused output `Vec`, which cannot
/// fail to grow), symbols as byte strings; the message count.
#[inline(always)]
pub(super) fn write_binary<Z: serde::Serializer>(packet: &Packet, s: Z) -> usize
where
    Z::Error: fmt::Debug,
{
    PacketOut::new(packet, SymBytes)
        .serialize(s)
        .expect("writing to a Vec cannot fail");
    packet.messages.len()
}

/// A symbol as MessagePack and CBOR write it: a byte string of its 8 bytes (serde writes a plain
/// `&[u8]` as a sequence of integers, which only postcard lays out as the bytes themselves).
struct SymBytes<'a>(&'a Symbol);

impl Serialize for SymBytes<'_> {
    #[inline(always)]
    fn serialize<Z: serde::Serializer>(&self, s: Z) -> Result<Z::Ok, Z::Error> {
        s.serialize_bytes(&self.0 .0)
    }
}

/// A symbol as a codec reads it, made the model's 8 bytes (or refused).
pub(super) trait SymbolIn {
    fn bytes(&self) -> Result<[u8; 8], DecodeError>;
}

/// A symbol read as a serde byte string of exactly 8 bytes, copied out of the input as it is
/// read (borrowed or from the library's scratch: no allocation either way).
pub(super) struct Sym8(pub [u8; 8]);

impl SymbolIn for Sym8 {
    #[inline(always)]
    fn bytes(&self) -> Result<[u8; 8], DecodeError> {
        Ok(self.0)
    }
}

impl<'de> Deserialize<'de> for Sym8 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Sym8, D::Error> {
        struct Eight;
        impl de::Visitor<'_> for Eight {
            type Value = Sym8;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a symbol of 8 bytes")
            }
            fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Sym8, E> {
                <[u8; 8]>::try_from(v)
                    .map(Sym8)
                    .map_err(|_| E::invalid_length(v.len(), &self))
            }
        }
        d.deserialize_bytes(Eight)
    }
}

/// Where a decode puts what it reads: the packet's header, then each message as it is parsed.
pub(super) trait Handler<S> {
    fn header(&mut self, seq: u64, send_time: i64);
    fn message(&mut self, message: Wire<S>) -> Result<(), DecodeError>;
}

/// The selective decode: the fields the sink needs.
pub(super) struct Selective<'k, K>(pub &'k mut K);

impl<K: Sink, S: SymbolIn> Handler<S> for Selective<'_, K> {
    fn header(&mut self, seq: u64, _send_time: i64) {
        self.0.packet(seq);
    }

    fn message(&mut self, message: Wire<S>) -> Result<(), DecodeError> {
        message.visit(self.0, |s| s.bytes())
    }
}

/// The complete decode: every message whole.
pub(super) struct Complete<'v, V>(pub &'v mut V);

impl<V: Visitor, S: SymbolIn> Handler<S> for Complete<'_, V> {
    fn header(&mut self, seq: u64, send_time: i64) {
        self.0.packet(seq, send_time);
    }

    fn message(&mut self, message: Wire<S>) -> Result<(), DecodeError> {
        self.0
            .message(message.into_model(|s| s.bytes().map(Symbol))?);
        Ok(())
    }
}

/// Reads one packet from `d` into `handler`: `Err` with the handler's error (a message the model
/// refuses) if it refused one, else with the library's, named `format`.
pub(super) fn read<'de, D, S, H>(
    d: D,
    handler: &mut H,
    format: &'static str,
) -> Result<(), DecodeError>
where
    D: Deserializer<'de>,
    S: Deserialize<'de>,
    H: Handler<S>,
{
    let mut failed = None;
    let seed = PacketSeed {
        handler,
        failed: &mut failed,
        symbol: PhantomData,
    };
    seed.deserialize(d)
        .map_err(|e| failed.unwrap_or_else(|| DecodeError::library(format, e)))
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

/// Reads one packet into a [`Handler`]. A handler's error is kept in `failed` and surfaces as
/// that error, not as the library's.
struct PacketSeed<'h, H, S> {
    handler: &'h mut H,
    failed: &'h mut Option<DecodeError>,
    symbol: PhantomData<S>,
}

impl<H: Handler<S>, S> PacketSeed<'_, H, S> {
    fn fail<E: de::Error>(&mut self, e: DecodeError) -> E {
        *self.failed = Some(e);
        E::custom("the message is not a valid IEX message")
    }

    fn messages(&mut self) -> MessagesSeed<'_, H, S> {
        MessagesSeed {
            handler: &mut *self.handler,
            failed: &mut *self.failed,
            symbol: PhantomData,
        }
    }
}

impl<'de, H: Handler<S>, S: Deserialize<'de>> DeserializeSeed<'de> for PacketSeed<'_, H, S> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_struct("Packet", FIELDS, self)
    }
}

impl<'de, H: Handler<S>, S: Deserialize<'de>> de::Visitor<'de> for PacketSeed<'_, H, S> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a packet")
    }

    /// Fields may come in any order; only when `messages` precedes `seq` or `send_time` (never
    /// in what we write) are the messages collected first, since the packet's header must reach
    /// the handler before its messages.
    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<(), A::Error> {
        let (mut seq, mut send_time) = (None, None);
        let mut messages = false;
        let mut early: Option<Vec<Wire<S>>> = None;
        while let Some(field) = map.next_key::<Field>()? {
            match field {
                Field::Seq if seq.is_some() => return Err(de::Error::duplicate_field("seq")),
                Field::Seq => seq = Some(map.next_value()?),
                Field::SendTime if send_time.is_some() => {
                    return Err(de::Error::duplicate_field("send_time"))
                }
                Field::SendTime => send_time = Some(map.next_value()?),
                Field::Messages if messages => return Err(de::Error::duplicate_field("messages")),
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

    /// serde's derived structs also read `[seq, send_time, [messages]]` (MessagePack's compact
    /// structs); so does this.
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
struct MessagesSeed<'h, H, S> {
    handler: &'h mut H,
    failed: &'h mut Option<DecodeError>,
    symbol: PhantomData<S>,
}

impl<'de, H: Handler<S>, S: Deserialize<'de>> DeserializeSeed<'de> for MessagesSeed<'_, H, S> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, H: Handler<S>, S: Deserialize<'de>> de::Visitor<'de> for MessagesSeed<'_, H, S> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of messages")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(m) = seq.next_element::<Wire<S>>()? {
            if let Err(e) = self.handler.message(m) {
                *self.failed = Some(e);
                return Err(de::Error::custom("the message is not a valid IEX message"));
            }
        }
        Ok(())
    }
}
