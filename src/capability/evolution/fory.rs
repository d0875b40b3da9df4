//! Fory's evolution, measured (`fory`, compatible mode). Compatible mode writes each struct's
//! definition (field names and types) into the bytes; a reader matches fields by name, skips
//! the ones its type lacks and fills its own missing ones with their defaults (the README's
//! "Schema Evolution"). Version 2 is the codec's types with `match_id` appended to the Trade
//! Report struct and `attribution` to the Add Order struct, the other structs version 1's, made
//! from the message table as version 1's are; registered under the same names.

use super::harness::{both, whole, Read2};
use super::v2;
use crate::formats::fory::{err, fory_with, schema as s1, to_fory, ForyFormat};
use crate::formats::wire::WSide;
use crate::formats::DecodeError;
use crate::model::{for_each_message, Symbol};

/// The Fory types of version 2.
mod schema {
    pub use crate::formats::fory::schema::Side;
    use crate::formats::fory::{fory_messages, fory_struct};
    use crate::model::for_each_message;

    /// A version 2 message struct: version 1's, with the field version 2 appends to it.
    macro_rules! fory_define {
        (TradeReport { $($fields:tt)* }) => {
            fory_struct!(TradeReport [] [pub match_id: i64,] $($fields)*);
        };
        (AddOrder { $($fields:tt)* }) => {
            fory_struct!(AddOrder [] [pub attribution: u32,] $($fields)*);
        };
        ($V:ident { $($f:ident: $t:ident),* }) => {
            pub use crate::formats::fory::schema::$V;
        };
    }

    for_each_message!(fory_messages);
}

impl From<s1::Side> for WSide {
    fn from(s: s1::Side) -> WSide {
        match s {
            s1::Side::Buy => WSide::Buy,
            s1::Side::Sell => WSide::Sell,
        }
    }
}

/// Version 1's struct `$x` of type `$V` grown to version 2's, the appended field `$value`.
macro_rules! grow {
    (TradeReport, $x:ident, $value:expr, $($f:ident)*) => {
        schema::TradeReport { $($f: $x.$f,)* match_id: $value }
    };
    (AddOrder, $x:ident, $value:expr, $($f:ident)*) => {
        schema::AddOrder { $($f: $x.$f,)* attribution: $value as u32 }
    };
    ($V:ident, $x:ident, $value:expr, $($f:ident)*) => { $x };
}

/// Version 2's struct `$x` of type `$V` as the version 2 wire vocabulary's message.
macro_rules! wire {
    (TradeReport, $x:ident, $($f:ident)*) => {
        v2::Wire::TradeReport { $($f: $x.$f.into(),)* match_id: $x.match_id }
    };
    (AddOrder, $x:ident, $($f:ident)*) => {
        v2::Wire::AddOrder { $($f: $x.$f.into(),)* attribution: $x.attribution }
    };
    ($V:ident, $x:ident, $($f:ident)*) => { v2::Wire::$V { $($f: $x.$f.into(),)* } };
}

/// The conversions between version 2's Fory messages and the wire vocabulary's.
macro_rules! conversions {
    ($(
        $V:ident($S:ident) $snake:ident {
            kinds $kinds:tt, len $len:literal, wire $wire:tt, fields [$($f:ident: $t:ident),*],
            $($codecs:tt)*
        },
    )*) => {
        /// Version 1's message grown to version 2's, its appended field (if any) `value`.
        fn grown(m: s1::Message, value: i64) -> schema::Message {
            match m {
                $(s1::Message::$V(x) => schema::Message::$V(grow!($V, x, value, $($f)*)),)*
                s1::Message::Unknown(u) => schema::Message::Unknown(u),
            }
        }

        /// Version 2's message in the wire vocabulary; an unknown case is refused.
        fn to_wire(m: schema::Message) -> Result<v2::Wire<[u8; 8]>, String> {
            Ok(match m {
                $(schema::Message::$V(x) => wire!($V, x, $($f)*),)*
                schema::Message::Unknown(_) => return Err("a message case no type has".into()),
            })
        }
    };
}
for_each_message!(conversions);

/// Fory's version 2 writer: the v2 types, in the codec's mode, into `out`.
fn write(p: &v2::MPacket, out: &mut Vec<u8>) {
    let messages = p.messages.iter().map(|m| {
        let (v1, appended) = m.into_v1();
        let model = v1
            .into_model(|s| Ok::<_, DecodeError>(Symbol(s)))
            .expect("a v2 writer's message is an IEX message");
        grown(to_fory(&model), appended.first().map_or(0, |&(_, v)| v))
    });
    let p = schema::Packet {
        seq: p.seq,
        send_time: p.send_time,
        messages: messages.collect(),
    };
    fory_with(schema::register)
        .serialize_to(out, &p)
        .expect("writing registered types to a Vec cannot fail");
}

/// Fory's version 2 reader: the v2 types, in the codec's mode (all or nothing).
fn read(bytes: &[u8]) -> Read2 {
    whole((|| {
        let mut reader = fory::Reader::new(bytes);
        let p: schema::Packet = fory_with(schema::register)
            .deserialize_from(&mut reader)
            .map_err(|e| err(e).to_string())?;
        let messages = p.messages.into_iter().map(to_wire);
        let p = v2::MPacket {
            seq: p.seq,
            send_time: p.send_time,
            messages: messages.collect::<Result<_, _>>()?,
        };
        Ok((p, reader.get_cursor()))
    })())
}

const MECHANISM: &str = " (compatible mode: each struct's field names and types in the bytes, \
    fields matched by name, unknown ones skipped, missing ones defaulted)";

evolves!(ForyFormat => both::<ForyFormat>(
    "capability::evolution::fory",
    ("Fory::serialize_to (v2 types)", "Fory::deserialize_from (v2 types)"),
    write, read, (MECHANISM, MECHANISM)
););

#[cfg(test)]
mod tests {
    use super::super::harness::assert_round_trip;
    use super::*;

    #[test]
    fn version_2_reads_its_own_bytes() {
        assert_round_trip(write, read);
    }
}
