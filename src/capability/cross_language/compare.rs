//! The comparison every cross-language check ends in: what a tool read ([`TheirPacket`]), brought
//! to the model's names and one neutral form of value ([`Value`]), against the source packets,
//! field by field. The model's fields and their types come from the message table
//! (`model::for_each_message!`), so a field no tool mentions, or one a tool invents, is a
//! difference too.

use std::collections::BTreeSet;
use std::fmt;
use std::sync::OnceLock;

use serde_json::Value as Json;

use crate::model::{Field, FieldVisitor, Packet};

/// A field's type as the message table names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    /// `u8`, `u32`: an unsigned integer.
    Unsigned,
    /// `i64`: timestamps, prices (fixed point, compared as the integer).
    Signed,
    /// 8 ASCII bytes.
    Symbol,
    /// 4 ASCII bytes.
    Bytes4,
    /// `Buy` or `Sell`.
    Side,
}

impl Ty {
    fn parse(name: &str) -> Ty {
        match name {
            "u8" | "u32" => Ty::Unsigned,
            "i64" => Ty::Signed,
            "Symbol" => Ty::Symbol,
            "Bytes4" => Ty::Bytes4,
            "Side" => Ty::Side,
            other => unreachable!("the message table has no field type {other}"),
        }
    }

    fn width(self) -> usize {
        match self {
            Ty::Symbol => 8,
            _ => 4,
        }
    }
}

/// A message's fields, each with its type's name (`u8`, `i64`, `Symbol`, `Bytes4`, `Side`).
struct Types(Vec<(&'static str, &'static str)>);

impl FieldVisitor for Types {
    fn field<T: Field>(&mut self, name: &'static str, _: T) {
        let ty = std::any::type_name::<T>()
            .rsplit("::")
            .next()
            .unwrap_or_default();
        self.0
            .push((name, if ty == "[u8; 4]" { "Bytes4" } else { ty }));
    }
}

/// A `Message` variant's name and its fields, each with its type's name.
pub type Variant = (&'static str, Vec<(&'static str, &'static str)>);

/// Every `Message` variant in table order, each field with its type (`u8`, `i64`, `Symbol`,
/// ...), in table order: as the model hands over one message of every kind.
pub fn table() -> &'static [Variant] {
    static TABLE: OnceLock<Vec<Variant>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table: Vec<Variant> = Vec::new();
        for m in crate::formats::every_kind().messages {
            if table.last().is_none_or(|(v, _)| *v != m.name()) {
                let mut types = Types(Vec::new());
                m.visit_fields(&mut types);
                table.push((m.name(), types.0));
            }
        }
        table
    })
}

/// The fields of the `Message` variant named `variant` (`TradeReport`), in table order.
pub fn fields_of(variant: &str) -> Option<Vec<(&'static str, Ty)>> {
    let (_, fields) = table().iter().find(|(v, _)| *v == variant)?;
    Some(fields.iter().map(|&(f, t)| (f, Ty::parse(t))).collect())
}

/// A value in the one form both sides are brought to: integers exact (prices as the fixed-point
/// integer), symbols and reason codes as their bytes, sides by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Int(i128),
    Bytes(Vec<u8>),
    Name(String),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(n) => write!(f, "{n}"),
            Value::Bytes(b) => write!(f, "\"{}\"", b.escape_ascii()),
            Value::Name(n) => f.write_str(n),
        }
    }
}

/// What a tool's JSON strings hold where the model has bytes (symbols, reason codes). Numbers
/// there are always the bytes as a little-endian integer (Cap'n Proto's `UInt64`, protobuf's
/// `fixed64`, FlatBuffers' `uint`), arrays the byte values, FlatBuffers' struct `{"bytes": [..]}`
/// its array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bytes {
    /// A string is an integer (Cap'n Proto's JSON writes 64-bit integers as strings; protobuf's
    /// text format, read here, has no other kind of scalar).
    Integer,
    /// A string is the text, possibly without its space padding (SBE's char arrays, JSON).
    Text,
}

/// What a tool read of one message, in the model's names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TheirMessage {
    /// The `Message` variant (`TradeReport`).
    pub variant: String,
    pub fields: Vec<(String, Value)>,
}

/// What a tool read of one packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TheirPacket {
    pub seq: Value,
    pub send_time: Value,
    pub messages: Vec<TheirMessage>,
}

/// `sendTime`, `SendTime` -> `send_time`; `trade_report` stays.
pub fn snake(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// `trade_report`, `tradeReport` -> `TradeReport`.
pub fn camel(name: &str) -> String {
    snake(name)
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|first| first.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// An integer as a tool wrote it in JSON: a number, or (Cap'n Proto's 64-bit integers) a string.
pub fn integer(v: &Json) -> Result<i128, String> {
    let parsed = match v {
        Json::Number(n) => n
            .as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from)),
        Json::String(s) => s.parse().ok(),
        _ => None,
    };
    parsed.ok_or_else(|| format!("{v} is not an integer"))
}

/// A tool's JSON value of a field of type `ty` in the neutral form.
pub fn value(ty: Ty, v: &Json, bytes: Bytes) -> Result<Value, String> {
    match ty {
        Ty::Unsigned | Ty::Signed => integer(v).map(Value::Int),
        Ty::Side => match v {
            Json::String(s) => Ok(Value::Name(side_name(s))),
            other => Err(format!("{other} is not a side")),
        },
        Ty::Symbol | Ty::Bytes4 => {
            let width = ty.width();
            match v {
                Json::Number(_) => little_endian(integer(v)?, width),
                Json::String(_) if bytes == Bytes::Integer => little_endian(integer(v)?, width),
                Json::String(s) => {
                    let mut b: Vec<u8> = s.chars().map(|c| c as u32 as u8).collect();
                    if b.len() < width {
                        b.resize(width, b' ');
                    }
                    Ok(Value::Bytes(b))
                }
                Json::Array(items) => items
                    .iter()
                    .map(|i| u8::try_from(integer(i)?).map_err(|e| e.to_string()))
                    .collect::<Result<Vec<u8>, String>>()
                    .map(Value::Bytes),
                Json::Object(o) if o.len() == 1 && o.contains_key("bytes") => {
                    value(ty, &o["bytes"], bytes)
                }
                other => Err(format!("{other} is not {width} bytes")),
            }
        }
    }
}

/// The first `width` bytes of `n` little-endian; an error if `n` has more.
fn little_endian(n: i128, width: usize) -> Result<Value, String> {
    let le = u64::try_from(n)
        .map_err(|_| format!("{n} is not {width} bytes"))?
        .to_le_bytes();
    if le[width..].iter().any(|&b| b != 0) {
        return Err(format!("{n} is not {width} bytes"));
    }
    Ok(Value::Bytes(le[..width].to_vec()))
}

/// `buy`, `SIDE_BUY`, `Buy` -> `Buy`.
fn side_name(s: &str) -> String {
    let lower = s.to_ascii_lowercase();
    camel(lower.strip_prefix("side_").unwrap_or(&lower))
}

/// A message as a tool wrote it in JSON (`fields`, named as the tool names them), in the model's
/// names and values. `absent_is_zero`: a field the tool leaves out reads as its default (proto3
/// writes no zero); otherwise a missing field stays missing and the comparison names it.
pub fn message(
    variant: &str,
    fields: &serde_json::Map<String, Json>,
    bytes: Bytes,
    absent_is_zero: bool,
) -> Result<TheirMessage, String> {
    let Some(table) = fields_of(variant) else {
        return Err(format!("{variant} is not a message type of the model"));
    };
    let mut out = Vec::with_capacity(table.len());
    for (name, v) in fields {
        let model_name = snake(name);
        let Some(&(_, ty)) = table.iter().find(|(n, _)| *n == model_name) else {
            return Err(format!("{variant} has a field {name} the model lacks"));
        };
        let v = value(ty, v, bytes).map_err(|e| format!("{variant}.{model_name}: {e}"))?;
        out.push((model_name, v));
    }
    if absent_is_zero {
        for (name, ty) in &table {
            if !out.iter().any(|(n, _)| n == name) {
                let zero = match ty {
                    Ty::Side => Value::Name("Unspecified".into()),
                    Ty::Symbol | Ty::Bytes4 => Value::Bytes(vec![0; ty.width()]),
                    _ => Value::Int(0),
                };
                out.push((name.to_string(), zero));
            }
        }
    }
    Ok(TheirMessage {
        variant: variant.to_owned(),
        fields: out,
    })
}

/// A message written externally tagged, `{"trade_report": {fields}}` (Cap'n Proto's JSON, our
/// JSON, protobuf's text format): its model variant and its fields.
pub fn tagged(m: &Json) -> Result<(String, &serde_json::Map<String, Json>), String> {
    match m
        .as_object()
        .map(|o| o.iter().collect::<Vec<_>>())
        .as_deref()
    {
        Some([(tag, Json::Object(fields))]) => Ok((camel(tag), fields)),
        _ => Err(format!("{m} is not one message")),
    }
}

/// A packet as a tool wrote it in JSON: `seq`, `send_time` (or `sendTime`) and `messages`, each
/// message read by `read`. `absent_is_zero` as for [`message`] (and no `messages`: none).
pub fn packet(
    p: &Json,
    absent_is_zero: bool,
    read: impl Fn(&Json) -> Result<TheirMessage, String>,
) -> Result<TheirPacket, String> {
    let Some(o) = p.as_object() else {
        return Err(format!("{p} is not a packet"));
    };
    let get = |name: &str| o.iter().find(|(k, _)| snake(k) == name).map(|(_, v)| v);
    let header = |name: &str| match get(name) {
        Some(v) => integer(v).map(Value::Int),
        None if absent_is_zero => Ok(Value::Int(0)),
        None => Err(format!("the packet has no {name}")),
    };
    let messages = match get("messages") {
        Some(Json::Array(ms)) => ms.iter().map(read).collect::<Result<_, _>>()?,
        None if absent_is_zero => Vec::new(),
        _ => return Err("the packet has no messages array".into()),
    };
    Ok(TheirPacket {
        seq: header("seq")?,
        send_time: header("send_time")?,
        messages,
    })
}

/// Packets whose messages are externally tagged ([`tagged`]), each read by [`packet`] and
/// [`message`] with `bytes` and `absent_is_zero`.
pub fn tagged_packets(
    packets: &[Json],
    bytes: Bytes,
    absent_is_zero: bool,
) -> Result<Vec<TheirPacket>, String> {
    packets
        .iter()
        .map(|p| {
            packet(p, absent_is_zero, |m| {
                let (variant, fields) = tagged(m)?;
                message(&variant, fields, bytes, absent_is_zero)
            })
        })
        .collect()
}

/// What agreed: how many messages, of which type bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    pub messages: usize,
    pub kinds: BTreeSet<u8>,
}

/// Collects a model message's fields in the neutral form.
struct Ours<'t> {
    table: &'t [(&'static str, Ty)],
    fields: Vec<(&'static str, Value)>,
}

impl FieldVisitor for Ours<'_> {
    fn field<T: Field>(&mut self, name: &'static str, value: T) {
        let ty = self.table.iter().find(|(n, _)| *n == name).map(|(_, t)| *t);
        let bits = value.bits();
        let v = match ty {
            Some(Ty::Unsigned) => Value::Int(i128::from(bits)),
            Some(Ty::Signed) => Value::Int(i128::from(bits as i64)),
            Some(ty @ (Ty::Symbol | Ty::Bytes4)) => {
                Value::Bytes(bits.to_le_bytes()[..ty.width()].to_vec())
            }
            // `Side`'s Debug is its name, `Buy` or `Sell`.
            Some(Ty::Side) | None => Value::Name(format!("{value:?}")),
        };
        self.fields.push((name, v));
    }
}

/// Compares every field of every message of `ours` with what a tool read; the first difference,
/// named (packet, message, field, ours vs theirs), or what agreed.
pub fn compare(ours: &[Packet], theirs: &[TheirPacket]) -> Result<Tally, String> {
    if ours.len() != theirs.len() {
        return Err(format!(
            "{} packets written, {} read",
            ours.len(),
            theirs.len()
        ));
    }
    let mut tally = Tally::default();
    for (p, (o, t)) in ours.iter().zip(theirs).enumerate() {
        let at = format!("packet {} (seq {})", p + 1, o.seq);
        let header = [
            ("seq", Value::Int(i128::from(o.seq)), &t.seq),
            (
                "send_time",
                Value::Int(i128::from(o.send_time)),
                &t.send_time,
            ),
        ];
        for (name, ours, theirs) in header {
            if ours != *theirs {
                return Err(format!(
                    "{at}, header, {name}: ours {ours} vs theirs {theirs}"
                ));
            }
        }
        if o.messages.len() != t.messages.len() {
            return Err(format!(
                "{at}: {} messages written, {} read",
                o.messages.len(),
                t.messages.len()
            ));
        }
        for (m, (om, tm)) in o.messages.iter().zip(&t.messages).enumerate() {
            let at = format!("{at}, message {} ({})", m + 1, om.name());
            if om.name() != tm.variant {
                return Err(format!("{at}: read as {}", tm.variant));
            }
            let table = fields_of(om.name()).unwrap_or_default();
            let mut ours = Ours {
                table: &table,
                fields: Vec::new(),
            };
            om.visit_fields(&mut ours);
            for (name, value) in &ours.fields {
                match tm.fields.iter().find(|(n, _)| n == name) {
                    None => return Err(format!("{at}, field {name}: ours {value}, theirs absent")),
                    Some((_, v)) if v != value => {
                        return Err(format!("{at}, field {name}: ours {value} vs theirs {v}"))
                    }
                    Some(_) => {}
                }
            }
            if let Some((extra, _)) = tm
                .fields
                .iter()
                .find(|(n, _)| !ours.fields.iter().any(|(o, _)| o == n))
            {
                return Err(format!("{at}: theirs has a field {extra} the model lacks"));
            }
            tally.messages += 1;
            tally.kinds.insert(om.kind());
        }
    }
    Ok(tally)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::{Message, Symbol, Trade};
    use serde_json::json;

    /// A packet (seq 9) of one trade report of `symbol` at `price`.
    pub(crate) fn trade(symbol: &str, price: i64) -> Packet {
        Packet {
            seq: 9,
            send_time: 10,
            messages: vec![Message::TradeReport(Trade {
                flags: 0x40,
                timestamp: 11,
                symbol: Symbol::new(symbol).unwrap(),
                size: 100,
                price,
                trade_id: -5,
            })],
        }
    }

    fn theirs(fields: Json, bytes: Bytes, absent_is_zero: bool) -> Vec<TheirPacket> {
        let Json::Object(fields) = fields else {
            unreachable!()
        };
        vec![TheirPacket {
            seq: Value::Int(9),
            send_time: Value::Int(10),
            messages: vec![message("TradeReport", &fields, bytes, absent_is_zero).unwrap()],
        }]
    }

    /// The table as the message table lists it: every variant once, each field's type.
    #[test]
    fn the_table_has_every_variant_and_each_field_s_type() {
        assert_eq!(table().len(), 18);
        let types = |variant: &str| {
            table()
                .iter()
                .find(|(v, _)| *v == variant)
                .unwrap()
                .1
                .clone()
        };
        let trade = [("flags", "u8"), ("timestamp", "i64"), ("symbol", "Symbol")];
        assert_eq!(types("TradeReport")[..3], trade);
        assert_eq!(types("TradeReport")[3], ("size", "u32"));
        assert!(types("PriceLevelUpdate").contains(&("side", "Side")));
        assert!(table()
            .iter()
            .flat_map(|(_, f)| f)
            .any(|(_, t)| *t == "Bytes4"));
    }

    #[test]
    fn names_and_values_are_brought_to_the_model() {
        assert_eq!(snake("sendTime"), "send_time");
        assert_eq!(snake("trade_id"), "trade_id");
        assert_eq!(camel("tradeReport"), "TradeReport");
        assert_eq!(camel("short_sale_price_test"), "ShortSalePriceTest");
        assert_eq!(side_name("SIDE_SELL"), "Sell");
        assert_eq!(side_name("buy"), "Buy");
        // "ZIEXT   " little-endian, as Cap'n Proto and protobuf carry it.
        let n = u64::from_le_bytes(*b"ZIEXT   ");
        let want = Value::Bytes(b"ZIEXT   ".to_vec());
        assert_eq!(
            value(Ty::Symbol, &json!(n.to_string()), Bytes::Integer),
            Ok(want.clone())
        );
        assert_eq!(
            value(Ty::Symbol, &json!("ZIEXT"), Bytes::Text),
            Ok(want.clone())
        );
        let array = json!({"bytes": [90, 73, 69, 88, 84, 32, 32, 32]});
        assert_eq!(value(Ty::Symbol, &array, Bytes::Text), Ok(want));
        assert!(value(Ty::Signed, &json!(1.5), Bytes::Text).is_err());
    }

    #[test]
    fn every_field_is_compared_by_name() {
        let sym = u64::from_le_bytes(*b"ZIEXT   ").to_string();
        let exact = json!({"flags": 64, "timestamp": "11", "symbol": sym, "size": 100,
                           "price": "1500000", "tradeId": "-5"});
        let tally = compare(
            &[trade("ZIEXT", 1_500_000)],
            &theirs(exact, Bytes::Integer, false),
        );
        assert_eq!(tally.map(|t| t.messages), Ok(1));
        // A value that differs: `a_byte_altered_after_encoding_is_named` (cross_language).

        // A field left out is a difference, unless the tool's format writes no zeros.
        let short = json!({"flags": 64, "timestamp": 11, "symbol": "ZIEXT", "size": 100,
                           "price": 1_500_000});
        let missing = compare(
            &[trade("ZIEXT", 1_500_000)],
            &theirs(short.clone(), Bytes::Text, false),
        );
        assert!(missing
            .unwrap_err()
            .ends_with("field trade_id: ours -5, theirs absent"));
        let zero = compare(
            &[trade("ZIEXT", 1_500_000)],
            &theirs(short, Bytes::Text, true),
        );
        assert!(zero
            .unwrap_err()
            .ends_with("field trade_id: ours -5 vs theirs 0"));

        let Json::Object(extra) = json!({"venue": 1}) else {
            unreachable!()
        };
        let refused = message("TradeReport", &extra, Bytes::Text, false).unwrap_err();
        assert_eq!(refused, "TradeReport has a field venue the model lacks");
    }
}
