//! Apache Avro (apache-avro 0.22, the ASF's Rust implementation): one Avro binary datum per
//! packet, on the schema build.rs generates from the message table (`OUT_DIR/iex.avsc`, written
//! by `build/avro.rs`): a record `Packet { seq, send_time, messages }`, `messages` an array of a
//! union of one record per message type, named as the `Message` variant. Symbols are `fixed` 8
//! bytes (the padded ASCII as it is: no length, no UTF-8 check), one-byte codes `int`, `u32`s
//! `long` (Avro's `int` is signed), the side an `enum`. `seq` is the model's `u64` carried as the
//! `long` with the same 64 bits (Avro has no unsigned type; IEX sequence numbers stay far below
//! 2^63). A datum carries no length: it is self-delimiting given the schema, so decoding returns
//! the bytes the reader consumed from the slice.
//!
//! **As its maintainers use it.** apache-avro 0.22 writes a bare datum with
//! `GenericDatumWriter` (the successor of `to_avro_datum`, deprecated in 0.22) and reads one with
//! `GenericDatumReader` (successor of `from_avro_datum`). Each has two paths: through its dynamic
//! `types::Value` (a tree of owned values, every record field a `(String, Value)` pair: several
//! allocations per field) or through serde on the schema (`write_ser` / `read_deser`, the
//! `SchemaAwareSerializer` and `SchemaAwareDeserializer` 0.22 introduced, which walk the schema
//! and the serde type together and build no `Value`). Ours takes the serde path, the crate's
//! fastest documented one: encode serializes straight from the model into the reused output
//! buffer (`write_ser` into the `Vec`, each message's [`Record`] built on the stack; arrays in
//! one block with no intermediate buffer, `target_block_size` unset), decode deserializes a
//! [`PacketIn`] from the slice. Both with `human_readable(false)`, as the crate recommends.
//! The schema is parsed once per process and the writer and reader are built once per runner.
//!
//! What the library costs that we cannot avoid: `read_deser` returns an owned value, so each
//! packet's messages land in a fresh `Vec` (there is no reading into an existing one), and the
//! deserializer reads every `fixed` into a fresh `Vec<u8>` before handing it over (one
//! allocation per symbol and per reason code). Every field of every message is decoded, for the
//! selective workload too: Avro binary has no field offsets, so a reader parses each field to
//! find the next. `read_deser` cannot resolve a reader schema yet (the crate panics if given one),
//! so schema resolution (the evolution check) goes through `Value` and `from_value`. Decoding
//! never panics on bad bytes: the schema has no `bytes` or `string` whose length prefix could ask
//! for a huge buffer, union and enum indexes and integer ranges are checked by the crate, and
//! serde's `Vec` caps what a hostile array count preallocates.

use crate::formats::languages::{OtherLanguages, WireFormat};
use std::sync::OnceLock;

use apache_avro::reader::datum::GenericDatumReader;
use apache_avro::writer::datum::GenericDatumWriter;
use apache_avro::Schema;
use serde::{Deserialize, Serialize};

use super::codec::{DecodeError, Documented, Format, PerPacket, Sink, Steady, Visitor};
use super::wire::{visit_wire, IntoModel, ToLib, WSide};
use crate::model::*;

/// The schema build.rs generated from `schemas/iex-messages.txt`.
pub const SCHEMA_TEXT: &str = include_str!(concat!(env!("OUT_DIR"), "/iex.avsc"));

/// [`SCHEMA_TEXT`] parsed, once per process (the writer and reader borrow it).
pub fn schema() -> &'static Schema {
    static SCHEMA: OnceLock<Schema> = OnceLock::new();
    SCHEMA.get_or_init(|| Schema::parse_str(SCHEMA_TEXT).expect("build.rs writes a valid schema"))
}

/// An Avro `fixed` of `N` bytes: a `[u8; N]` (de)serialized with `apache_avro::serde::fixed`, the
/// crate's documented way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Fixed<const N: usize>(#[serde(with = "apache_avro::serde::fixed")] pub [u8; N]);

// Symbols and reason codes as [`Fixed`], the side as [`WSide`], the schema's `enum Side`.
super::wire::conversions! {
    Symbol => Fixed<8>: |s| Fixed(s.0), |f| Ok(Symbol(f.0));
    [u8; 4] => Fixed<4>: |b| Fixed(b), |f| Ok(f.0);
    Side => WSide: |s| s.into(), |w| Ok(w.into());
}

/// A field of the message table as the serde type the schema's field maps to.
macro_rules! avro_type {
    (Symbol) => { Fixed<8> };
    (Bytes4) => { Fixed<4> };
    (Side) => { WSide };
    ($t:ident) => { $t };
}

/// [`Record`] and its copies from and to the model, from the message table.
macro_rules! records {
    ($($V:ident($S:ident) $snake:ident {
        kinds $kinds:tt, len $len:literal, wire $wire:tt, fields [$($f:ident: $t:ident),*],
        $($codecs:tt)*
    },)*) => {
        /// One message: the union's branch of its type (serde picks it by the variant's index,
        /// which is the branch's: both follow the table), a record named as the variant.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
        pub enum Record {
            $($V { $($f: avro_type!($t),)* },)*
        }

        impl Record {
            #[inline]
            fn from_model(m: &Message) -> Record {
                match *m {
                    $(Message::$V(m) => Record::$V { $($f: m.$f.to_lib(),)* },)*
                }
            }

            /// The model's message.
            #[inline]
            pub fn into_model(self) -> Result<Message, DecodeError> {
                Ok(match self {
                    $(Record::$V { $($f,)* } => Message::$V($S { $($f: $f.into_model()?,)* }),)*
                })
            }
        }
    };
}
for_each_message!(records);

/// The packet as written.
#[derive(Serialize)]
struct PacketOut<'a> {
    seq: i64,
    send_time: i64,
    messages: Records<'a>,
}

/// The messages, each mapped to its [`Record`] as it is written (nothing collected).
struct Records<'a>(&'a [Message]);

impl Serialize for Records<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(Record::from_model))
    }
}

/// The packet as read (serde checks the record's name, `Packet`).
#[derive(Debug, Deserialize)]
#[serde(rename = "Packet")]
pub struct PacketIn {
    pub seq: i64,
    pub send_time: i64,
    pub messages: Vec<Record>,
}

impl PacketIn {
    /// The model's sequence number: the `long`'s 64 bits.
    pub fn seq(&self) -> u64 {
        self.seq as u64
    }

    pub fn into_packet(self) -> Result<Packet, DecodeError> {
        Ok(Packet {
            seq: self.seq(),
            send_time: self.send_time,
            messages: self
                .messages
                .into_iter()
                .map(Record::into_model)
                .collect::<Result<_, _>>()?,
        })
    }
}

/// The crate's error, its first line (some carry the schema they failed on, whole).
fn err(e: apache_avro::Error) -> DecodeError {
    let text = e.to_string();
    let first = text.lines().next().unwrap_or_default();
    DecodeError::library("avro", first.chars().take(200).collect::<String>())
}

/// The Avro runner: the datum writer and reader on the schema, built once.
pub struct Avro {
    writer: GenericDatumWriter<'static>,
    reader: GenericDatumReader<'static>,
}

impl Default for Avro {
    fn default() -> Self {
        let writer = GenericDatumWriter::builder(schema())
            .human_readable(false)
            .build()
            .expect("the schema resolves");
        let reader = GenericDatumReader::builder(schema())
            .human_readable(false)
            .build()
            .expect("the schema resolves");
        Avro { writer, reader }
    }
}

impl Avro {
    /// Reads the datum at the start of `bytes`; what it read and the bytes it consumed.
    fn read(&self, bytes: &[u8]) -> Result<(PacketIn, usize), DecodeError> {
        let mut rest = bytes;
        let packet: PacketIn = self.reader.read_deser(&mut rest).map_err(err)?;
        Ok((packet, bytes.len() - rest.len()))
    }
}

const SCHEMA: Option<&str> = Some(
    "iex.avsc, generated by build.rs from schemas/iex-messages.txt; apache-avro 0.22 reads it at \
     run time (no generated code)",
);
const SOURCE: &str = "https://docs.rs/apache-avro/0.22.0/apache_avro/reader/datum/struct.GenericDatumReader.html \
    (decodes into owned values; errors on unknown union and enum indexes, out-of-range integers \
    and short input)";

impl Format for Avro {
    const NAME: &'static str = "avro";
    /// `read_deser` returns an owned value: the `Vec` of messages per packet with messages, and
    /// one per `fixed` field (symbols, reason codes), which apache-avro reads into a fresh
    /// `Vec<u8>` before serde copies it out.
    const STEADY: Steady = Steady {
        encode: PerPacket::NONE,
        decode: PerPacket { with_messages: 1, fixed_field: 1, ..PerPacket::NONE },
    };
    const DOCUMENTED: Documented = Documented::new(SCHEMA, false, true, SOURCE);
    const OTHER_LANGUAGES: OtherLanguages = OtherLanguages::Read(WireFormat::Avro);

    fn encode(&mut self, packet: &Packet, out: &mut Vec<u8>) -> usize {
        let p = PacketOut {
            seq: packet.seq as i64,
            send_time: packet.send_time,
            messages: Records(&packet.messages),
        };
        self.writer
            .write_ser(out, &p)
            .expect("the model's packets fit the schema");
        packet.messages.len()
    }

    fn decode<K: Sink>(&mut self, bytes: &[u8], sink: &mut K) -> Result<usize, DecodeError> {
        let (p, used) = self.read(bytes)?;
        sink.packet(p.seq());
        for m in &p.messages {
            visit_wire!(*m, Record, sink, |s| &s.0, into, |d| (*d).into());
        }
        Ok(used)
    }

    fn decode_all<V: Visitor>(&mut self, bytes: &[u8], v: &mut V) -> Result<usize, DecodeError> {
        let (p, used) = self.read(bytes)?;
        v.packet(p.seq(), p.send_time);
        for m in p.messages {
            v.message(m.into_model()?);
        }
        Ok(used)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::codec::library_error;

    #[test]
    fn the_generated_schema_is_a_union_of_one_record_per_message_type() {
        let Schema::Record(packet) = schema() else {
            panic!("the root is a record")
        };
        assert_eq!(packet.name.name(), "Packet");
        let names: Vec<&str> = packet.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["seq", "send_time", "messages"]);
        let Schema::Array(array) = &packet.fields[2].schema else {
            panic!("messages is an array")
        };
        let Schema::Union(union) = array.items.as_ref() else {
            panic!("of a union")
        };
        let branches: Vec<String> = union
            .variants()
            .iter()
            .map(|s| match s {
                Schema::Record(r) => r.name.name().to_owned(),
                other => panic!("{other:?}"),
            })
            .collect();
        // The model's variants, in its order (`Message::name`); Trade Report and Trade Break
        // share a struct but are two branches.
        assert_eq!(branches.len(), 18);
        assert_eq!(&branches[..3], ["SystemEvent", "SecurityDirectory", "TradingStatus"]);
        assert_eq!(branches[8], "TradeReport");
        assert_eq!(branches[9], "TradeBreak");
        assert_eq!(branches[17], "ClearBook");
    }

    /// The Avro specification's binary encoding, by hand: zigzag varints for `long` and `int`,
    /// the union's branch index, `fixed` as its bytes, an array as a count, the items, then 0.
    #[test]
    fn a_trade_report_is_the_spec_s_bytes() {
        let packet = Packet {
            seq: 3,
            send_time: -1,
            messages: vec![Message::TradeReport(Trade {
                flags: 0x40,
                timestamp: 64,
                symbol: Symbol::new("AAPL").unwrap(),
                size: 100,
                price: 1,
                trade_id: -65,
            })],
        };
        let mut out = vec![0xee];
        assert_eq!(Avro::default().encode(&packet, &mut out), 1);
        let mut expected = vec![0xee, 6, 1, 2, 16];
        expected.extend([0x80, 0x01]); // flags 64 as an int: zigzag 128
        expected.extend([0x80, 0x01]); // timestamp 64
        expected.extend(b"AAPL    ");
        expected.extend([0xc8, 0x01]); // size 100: zigzag 200
        expected.extend([2]); // price 1
        expected.extend([0x81, 0x01]); // trade_id -65: zigzag 129
        expected.push(0);
        assert_eq!(out, expected);
        let (read, used) = Avro::default().decode_packet(&out[1..]).unwrap();
        assert_eq!((read, used), (packet, out.len() - 1));
    }

    #[test]
    fn bad_bytes_are_the_library_s_errors() {
        // A union index (30) past the 18 branches.
        let bad = [2, 0, 2, 60, 0, 0];
        let message = library_error::<Avro>(&bad);
        assert!(!message.contains('\n') && message.len() <= 200, "{message}");
        // A flag of 256 does not fit the model's u8.
        let big = [2, 0, 2, 16, 0x80, 0x04, 0, 0];
        assert!(Avro::default().decode_packet(&big).is_err());
        // A packet cut before its array's end.
        library_error::<Avro>(&[2, 0]);
    }
}
