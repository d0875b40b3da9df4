//! `marketdata.proto` (proto3): one message per table struct, its fields tagged in table order
//! from 1, version 2's with the next tags; `Message` a `oneof` with one member per `Message`
//! variant (in table order, tagged from 1, named as the variant in snake_case).

use super::{comment, header, message_variants, snake, Table, Ty};
use std::fmt::Write as _;

const ABOUT: &str = "\
IEX DEEP/TOPS packets as Protocol Buffers (proto3), for the `protobuf` runner (prost 0.14) and
`protobuf-google`.

A packet is Packet { seq, send_time, repeated Message messages }; each Message is a `oneof`
with one message type per IEX type (variants that share a layout share a message: trade reports
and breaks, `Trade`), so message order is kept and nothing is padded to the largest type.
Packets are written length-delimited (a varint length, then the Packet), which makes each one
self-delimiting in a stream.

Field types, and why:
- symbol: fixed64 holding the 8 wire bytes read little-endian (the same as the Cap'n Proto
  schema's UInt64). A `string` would cost a length byte, UTF-8 validation and an owned String
  per message on decode (prost has no borrowed strings); `bytes` the same as a Vec<u8>. A
  fixed64 is 8 bytes on the wire, decodes with one load and allocates nothing.
- timestamps: sfixed64. Nanoseconds since 1970 are ~1.7e18 (61 bits): 9 bytes as a varint,
  8 as a fixed64, and no varint loop.
- prices, trade ids, order ids: int64 varints (non-negative in practice: 3 to 4 bytes for a
  price).
- sizes: uint32 varints. One-byte codes and flags (u8 in the model): uint32, checked to fit a
  byte on decode. proto3 has no 8-bit type. 4-byte ASCII codes: fixed32, little-endian.
- side: an enum whose 0 value is \"unspecified\", as proto3 style asks; decoding rejects it.
Zero values are not written at all (proto3 implicit presence), so a zero field costs nothing.";

/// The proto3 type of a table type.
fn ty(t: Ty) -> &'static str {
    match t {
        Ty::U8 | Ty::U32 => "uint32",
        Ty::I64 | Ty::Price => "int64",
        Ty::Timestamp => "sfixed64",
        Ty::Symbol => "fixed64",
        Ty::Bytes4 => "fixed32",
        Ty::Side => "Side",
        Ty::Reserved(_) => unreachable!("reserved bytes are not declared"),
    }
}

pub fn schema(t: &Table) -> String {
    let mut o = header("//", t, ABOUT);
    o.push_str(
        "\nsyntax = \"proto3\";\n\npackage md_shootout.pb;\n\nmessage Packet {\n  uint64 seq = 1;\n  \
         sfixed64 send_time = 2;\n  repeated Message messages = 3;\n}\n\nmessage Message {\n  oneof body {\n",
    );
    for (i, (s, name, _)) in message_variants(t.structs).into_iter().enumerate() {
        let _ = writeln!(o, "    {} {} = {};", s.name, snake(name), i + 1);
    }
    o.push_str("  }\n}\n\nenum Side {\n  SIDE_UNSPECIFIED = 0;\n");
    for (i, v) in t.sides().into_iter().enumerate() {
        let side = v.side.as_deref().unwrap_or_default().to_ascii_uppercase();
        let _ = writeln!(o, "  SIDE_{side} = {};  // '{}'", i + 1, v.byte);
    }
    o.push_str("}\n");
    for s in t.structs {
        let _ = write!(o, "\n// {}\nmessage {} {{\n", s.doc, s.name);
        let appended = t.appended_to_struct(s);
        for (i, f) in s.carried().chain(appended).enumerate() {
            comment(&mut o, "  //", &f.doc);
            let _ = writeln!(o, "  {} {} = {};", ty(f.ty), f.name, i + 1);
        }
        o.push_str("}\n");
    }
    o
}
