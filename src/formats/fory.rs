//! Apache Fory (the `fory` crate 1.7, the Apache project's own Rust implementation) in xlang
//! mode, compatible (schema-evolution) mode on: its defaults, the mode a team that evolves its
//! schema across services in several languages runs. One Fory root object per packet: a struct
//! `Packet { seq, send_time, messages }`, `messages` a list of [`schema::Message`], a Fory union
//! (`#[derive(ForyUnion)]`) with one case per message type, each case a struct
//! (`#[derive(ForyStruct)]`) named as the `Message` variant, its fields the message table's, all
//! generated here from `for_each_message!`. Symbols are `[u8; 8]` and reason codes `[u8; 4]` (the
//! padded ASCII as it is), the side a `ForyEnum`, integers as the model holds them. Types are
//! registered by name (`iex.Packet`, `iex.TradeReport`, ...), the registration xlang readers
//! share. Xlang's union cases carry one value each: named (struct-like) enum variants exist in
//! Rust's native mode only, so each case wraps its struct.
//!
//! **As its maintainers use it.** Fory's README builds one `Fory` with `Fory::builder()`,
//! registers the types once, and writes with `serialize_to` a caller's buffer (which appends) and
//! reads with `deserialize_from` a `Reader` whose cursor then stands after the value, so a packet
//! is self-delimiting without a length of ours. Ours encodes a reused mirror ([`schema::Packet`],
//! one copy per message into a vector with a datagram's room) with `serialize_to` the output
//! buffer, and decodes with `deserialize_from`, which returns an owned packet: its message
//! vector is allocated for every packet (there is no decode into an existing value), and every
//! field of every message is decoded, for the selective workload too.
//!
//! Compatible mode writes each struct's type definition (its field names and types) inline the
//! first time the type appears in a root object, so every packet carries the definitions of the
//! message types it holds: the price of a reader that can evolve without a schema registry.
//!
//! Hostile bytes: the reader checks lengths against the buffer and refuses unknown type ids;
//! `max_graph_memory_bytes` and `max_unbacked_container_items` (its defaults) bound what a
//! hostile count makes it allocate. An unknown union case comes back as the union's unknown
//! carrier, which we refuse.

use fory::{Fory, Reader};

use super::codec::{DecodeError, Documented, Format, MAX_DATAGRAM_MESSAGES, PerPacket, Sink, Steady, Visitor, full_datagram};
use super::wire::{IntoModel, ToLib};
use crate::formats::languages::{OtherLanguages, WireFormat};
use crate::model::{self, kind, Packet, Side};

/// One `#[derive(ForyStruct)]` struct per message type, named as its `Message` variant, with the
/// table's fields; and the union [`schema::Message`] of them, its cases in the table's order.
/// The caller's `fory_define!` makes each struct from `$V { fields }` (version 2's in
/// `capability::evolution::fory` appends fields to some); then the packet, the root object.
macro_rules! fory_messages {
    (@struct $V:ident {
        kinds $kinds:tt, len $len:literal, wire $wire:tt, fields [$($f:ident: $t:ident),*],
        $($codecs:tt)*
    }) => {
        fory_define! { $V { $($f: $t),* } }
    };
    (
        $V0:ident $first:tt $snake0:ident $body0:tt,
        $($V:ident $s:tt $snake:ident {
            kinds $kinds:tt, len $len:literal, wire $wire:tt, fields [$($f:ident: $t:ident),*],
            $($codecs:tt)*
        },)*
    ) => {
        $crate::formats::fory::fory_messages!(@struct $V0 $body0);
        $(fory_define! { $V { $($f: $t),* } })*

        /// One message: the case of its type (the first is the default Fory asks for).
        #[derive(fory::ForyUnion, Debug, Clone, PartialEq)]
        pub enum Message {
            #[fory(default)]
            $V0($V0),
            $($V($V),)*
            /// A case this version does not know (Fory's carrier for it).
            #[fory(unknown)]
            Unknown(fory::UnknownCase),
        }

        /// Every type to register, by its xlang name (`iex.` and the variant's).
        pub fn register(fory: &mut fory::Fory) -> Result<(), fory::Error> {
            fory.register_by_name::<Side>("iex.Side")?;
            fory.register_by_name::<$V0>(concat!("iex.", stringify!($V0)))?;
            $(fory.register_by_name::<$V>(concat!("iex.", stringify!($V)))?;)*
            fory.register_union_by_name::<Message>("iex.Message")?;
            fory.register_by_name::<Packet>("iex.Packet")
        }

        /// The packet: the root object of each encoding.
        #[derive(fory::ForyStruct, Debug, Clone, PartialEq, Default)]
        pub struct Packet {
            pub seq: u64,
            pub send_time: i64,
            pub messages: Vec<Message>,
        }
    };
}
pub(crate) use fory_messages;

/// `#[derive(ForyStruct)] pub struct $V` with the table's fields `name: Type, ...`, each as the
/// Fory type it is carried as, then `$extra` (version 2's appended fields). The derive reads a
/// field's type as written: an array must be written as one (an alias of `[u8; 8]` is refused
/// when the types are registered), and a primitive as its own name (it orders the fields by
/// their written types, and an alias of `i64` lands in another group than the `int64` its type
/// definition declares, so other languages, which order by the declared types, read the fields
/// out of order); so the fields are rewritten one by one here.
macro_rules! fory_struct {
    ($V:ident [$($out:tt)*] [$($extra:tt)*]) => {
        #[derive(fory::ForyStruct, Debug, Clone, Copy, PartialEq, Eq, Default)]
        pub struct $V {
            $($out)*
            $($extra)*
        }
    };
    ($V:ident [$($out:tt)*] $extra:tt $f:ident: Symbol $(, $($rest:tt)*)?) => {
        $crate::formats::fory::fory_struct!($V [$($out)* pub $f: [u8; 8],] $extra $($($rest)*)?);
    };
    ($V:ident [$($out:tt)*] $extra:tt $f:ident: Bytes4 $(, $($rest:tt)*)?) => {
        $crate::formats::fory::fory_struct!($V [$($out)* pub $f: [u8; 4],] $extra $($($rest)*)?);
    };
    ($V:ident [$($out:tt)*] $extra:tt $f:ident: Timestamp $(, $($rest:tt)*)?) => {
        $crate::formats::fory::fory_struct!($V [$($out)* pub $f: i64,] $extra $($($rest)*)?);
    };
    ($V:ident [$($out:tt)*] $extra:tt $f:ident: Price $(, $($rest:tt)*)?) => {
        $crate::formats::fory::fory_struct!($V [$($out)* pub $f: i64,] $extra $($($rest)*)?);
    };
    ($V:ident [$($out:tt)*] $extra:tt $f:ident: $t:ident $(, $($rest:tt)*)?) => {
        $crate::formats::fory::fory_struct!($V [$($out)* pub $f: $t,] $extra $($($rest)*)?);
    };
}
pub(crate) use fory_struct;

/// The Fory types of version 1.
pub mod schema {
    use crate::model::for_each_message;

    /// The side of a price level update.
    #[derive(fory::ForyEnum, Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub enum Side {
        #[default]
        Buy,
        Sell,
    }

    /// A version 1 message struct, the table's fields as they are.
    macro_rules! fory_define {
        ($V:ident { $($fields:tt)* }) => {
            $crate::formats::fory::fory_struct!($V [] [] $($fields)*);
        };
    }
    for_each_message!(fory_messages);
}

use schema::Message as M;

/// The symbol as its 8 bytes (back: `[u8; 8]`'s `IntoModel`, which sbe's file implements).
impl ToLib<[u8; 8]> for model::Symbol {
    #[inline(always)]
    fn to_lib(self) -> [u8; 8] {
        self.0
    }
}

super::wire::conversions! {
    Side => schema::Side: |s| match s {
        Side::Buy => schema::Side::Buy,
        Side::Sell => schema::Side::Sell,
    }, |l| Ok(match l {
        schema::Side::Buy => Side::Buy,
        schema::Side::Sell => Side::Sell,
    });
}

/// The copies from and to the model, from the message table.
macro_rules! copies {
    ($(
        $V:ident($S:ident) $snake:ident {
            kinds $kinds:tt, len $len:literal, wire $wire:tt, fields [$($f:ident: $t:ident),*],
            $($codecs:tt)*
        },
    )*) => {
        /// The Fory message of a model message.
        #[inline]
        pub fn to_fory(m: &model::Message) -> M {
            match *m {
                $(model::Message::$V(m) => M::$V(schema::$V { $($f: m.$f.to_lib(),)* }),)*
            }
        }

        /// The model's message; an unknown case is refused.
        #[inline]
        pub fn to_model(m: M) -> Result<model::Message, DecodeError> {
            Ok(match m {
                $(M::$V(x) => model::Message::$V(model::$S { $($f: x.$f.into_model()?,)* }),)*
                M::Unknown(_) => return Err(DecodeError::Malformed("a message case no type has")),
            })
        }
    };
}
model::for_each_message!(copies);

/// Hands one message to the sink: the types the aggregation reads, every other as `other`.
#[inline(always)]
fn visit<K: Sink>(m: &M, sink: &mut K) -> Result<(), DecodeError> {
    match m {
        M::TradeReport(t) => sink.trade(&t.symbol, t.size, t.price),
        M::OrderExecuted(e) => sink.trade(&e.symbol, e.size, e.price),
        M::AddOrder(a) => sink.add_order(a.side, &a.symbol, a.price),
        M::PriceLevelUpdate(p) => sink.price_level(p.side.into_model()?, &p.symbol, p.price),
        M::QuoteUpdate(q) => sink.quote(&q.symbol, q.bid_price, q.ask_price),
        M::Unknown(_) => return Err(DecodeError::Malformed("a message case no type has")),
        _ => sink.other(),
    }
    Ok(())
}

/// A `Fory` in xlang and compatible mode (the crate's defaults, set explicitly) with the types
/// of `register` registered.
pub fn fory_with(register: fn(&mut Fory) -> Result<(), fory::Error>) -> Fory {
    let mut fory = Fory::builder().xlang(true).compatible(true).build();
    register(&mut fory).expect("the types register");
    fory
}

/// The library's error as ours.
pub fn err(e: fory::Error) -> DecodeError {
    DecodeError::library("fory", e)
}

/// The Fory runner: the library instance (types registered) and the mirror it encodes from.
pub struct ForyFormat {
    fory: Fory,
    mirror: schema::Packet,
}

impl Default for ForyFormat {
    fn default() -> Self {
        let mut mirror = schema::Packet::default();
        mirror.messages.reserve(MAX_DATAGRAM_MESSAGES);
        let mut fory = ForyFormat {
            fory: fory_with(schema::register),
            mirror,
        };
        // Fory builds its type resolver at the first call, caches each struct's definition the
        // first time it meets it and grows its read context to the largest packet it has read:
        // a datagram full of each kind in turn takes all of that out of the timed passes.
        let mut out = Vec::new();
        for k in kind::ALL {
            out.clear();
            fory.encode(&full_datagram(k), &mut out);
            fory.decode_packet(&out).expect("its own encoding decodes");
        }
        fory
    }
}

impl ForyFormat {
    /// Reads the packet at the start of `bytes`; what it read and the bytes it used.
    fn read(&self, bytes: &[u8]) -> Result<(schema::Packet, usize), DecodeError> {
        let mut reader = Reader::new(bytes);
        let p: schema::Packet = self.fory.deserialize_from(&mut reader).map_err(err)?;
        Ok((p, reader.get_cursor()))
    }
}

const SOURCE: &str = "https://docs.rs/fory/1.7.7 and https://fory.apache.org/docs/specification/xlang_serialization_spec \
    (derive ForyStruct/ForyUnion: the Rust types are the schema, each struct's definition \
    written inline in compatible mode; decodes into owned values, and an error on short input \
    or unknown types)";

impl Format for ForyFormat {
    const NAME: &'static str = "fory";
    /// `deserialize_from` returns an owned value, its `Vec` of messages collected through a
    /// `Result` iterator that drops the count's size hint: grown by doubling from 4.
    const STEADY: Steady = Steady {
        encode: PerPacket::NONE,
        decode: PerPacket { grown_vec: 1, ..PerPacket::NONE },
    };
    const DOCUMENTED: Documented = Documented::new(None, false, true, SOURCE);
    const OTHER_LANGUAGES: OtherLanguages = OtherLanguages::Read(WireFormat::Fory);

    fn encode(&mut self, packet: &Packet, out: &mut Vec<u8>) -> usize {
        self.mirror.seq = packet.seq;
        self.mirror.send_time = packet.send_time;
        self.mirror.messages.clear();
        self.mirror.messages.extend(packet.messages.iter().map(to_fory));
        self.fory
            .serialize_to(out, &self.mirror)
            .expect("writing registered types to a Vec cannot fail");
        self.mirror.messages.len()
    }

    fn decode<K: Sink>(&mut self, bytes: &[u8], sink: &mut K) -> Result<usize, DecodeError> {
        let (packet, used) = self.read(bytes)?;
        sink.packet(packet.seq);
        for m in &packet.messages {
            visit(m, sink)?;
        }
        Ok(used)
    }

    fn decode_all<V: Visitor>(&mut self, bytes: &[u8], v: &mut V) -> Result<usize, DecodeError> {
        let (packet, used) = self.read(bytes)?;
        v.packet(packet.seq, packet.send_time);
        for m in packet.messages {
            v.message(to_model(m)?);
        }
        Ok(used)
    }
}
