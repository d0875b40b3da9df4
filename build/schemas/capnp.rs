//! `marketdata.capnp`: one struct per table struct, its fields numbered in table order from @0;
//! `Message` a union of pointers with one member per `Message` variant (in table order, named
//! as the variant in lowerCamelCase).

use super::{comment, header, lower_camel, message_variants, Table, Ty};
use std::fmt::Write as _;

/// The file's id: capnpc derives every type's id from it, so it stays.
const FILE_ID: &str = "@0xb237909c8c8ea406";

const ABOUT: &str = "\
md-shootout: one IEX-TP packet (segment) in Cap'n Proto.

A Packet carries the segment's sequence number, send time and a list of Messages. Message is a
struct whose only content is an unnamed union of pointers to one struct per IEX message type:
the idiomatic Cap'n Proto \"sum type\". (A union of *groups* would inline every variant's fields
into Message, so every element of the List(Message) would be padded to the largest variant,
Auction Information; with pointers each message costs its own struct plus one pointer word.)
Variants that share a layout share a struct (Trade Report and Trade Break: Trade); price level
updates carry their side as an enum, as on the wire ('8' buy, '5' sell).

Symbols are UInt64: the 8 space-padded ASCII wire bytes read as a little-endian integer. That
keeps them fixed size and inline in the struct's data section; Data or Text would add a pointer
word plus a separately allocated, word-padded blob (and a NUL for Text) per message. Decoding
turns the UInt64 back into the same 8 bytes with to_le_bytes, a register move, no allocation.
Prices and timestamps are Int64 (4 implied decimals / ns since the epoch), sizes UInt32, flag
bytes and one-letter ASCII codes UInt8, 4-byte ASCII codes UInt32 (little-endian).";

/// The Cap'n Proto type of a table type.
fn ty(t: Ty) -> &'static str {
    match t {
        Ty::U8 => "UInt8",
        Ty::U32 | Ty::Bytes4 => "UInt32",
        Ty::I64 | Ty::Timestamp | Ty::Price => "Int64",
        Ty::Symbol => "UInt64",
        Ty::Side => "Side",
        Ty::Reserved(_) => unreachable!("reserved bytes are not declared"),
    }
}

pub fn schema(t: &Table) -> String {
    let mut o = header("#", t, ABOUT);
    let _ = write!(
        o,
        "\n{FILE_ID};\n\nstruct Packet {{\n  seq @0 :UInt64;          # sequence number of the first message\n  \
         sendTime @1 :Int64;      # IEX-TP send time, ns since the epoch\n  messages @2 :List(Message);\n}}\n\n\
         struct Message {{\n  union {{\n"
    );
    for (i, (s, name, _)) in message_variants(t.structs).into_iter().enumerate() {
        let _ = writeln!(o, "    {} @{i} :{};", lower_camel(name), s.name);
    }
    o.push_str("  }\n}\n\nenum Side {\n");
    for (i, v) in t.sides().into_iter().enumerate() {
        let side = v.side.as_deref().unwrap_or_default();
        let _ = writeln!(o, "  {} @{i};  # '{}'", lower_camel(side), v.byte);
    }
    o.push_str("}\n");
    for s in t.structs {
        let _ = write!(o, "\n# {}\nstruct {} {{\n", s.doc, s.name);
        let appended = t.appended_to_struct(s);
        for (i, f) in s.carried().chain(appended).enumerate() {
            comment(&mut o, "  #", &f.doc);
            let _ = writeln!(o, "  {} @{i} :{};", lower_camel(&f.name), ty(f.ty));
        }
        o.push_str("}\n");
    }
    o
}
