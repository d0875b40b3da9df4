//! `marketdata.fbs`: one table per table struct, its fields declared largest first (so the
//! vtable slots, which follow declaration order, are what they were when the schema was written
//! by hand); version 2's fields after them, in the next slots. The union `Body` has one tag per
//! type byte, named as its constant in CamelCase (an alias of the shared table where the names
//! differ), so the tag alone says what the message is and a field the type byte implies (the
//! side) is not declared.

use super::{comment, header, variants, Table, Ty};
use std::fmt::Write as _;

const ABOUT: &str = "\
md-shootout: one IEX-TP packet (segment) in FlatBuffers.

The root Packet table holds the segment's sequence number, send time and a vector of Message
tables; each Message holds a union `Body` of one table per IEX message type. FlatBuffers would
let structs be union members and unions be vector elements only in C++: flatc refuses both for
Rust (\"only tables can be union elements\", \"vectors of unions are not yet supported\"), so the
idiomatic portable form is used: vector of tables, each wrapping a union of tables.
Union aliases give Trade Report / Trade Break and buy / sell price level updates their own
union tags while sharing one table each, so the type byte alone says what the message is.

Symbols are `struct Symbol { bytes:[ubyte:8] }`: a fixed 8-byte struct stored inline in the
table (no offset, no length prefix, no NUL as a string would need), which the Rust accessor
hands out as `&Symbol`, borrowed straight from the buffer. Prices and timestamps are long
(4 implied decimals / ns since the epoch), sizes uint, flag bytes and ASCII codes ubyte, 4-byte
ASCII codes uint (little-endian). Fields are declared largest first, the order flatc's
generated `create` adds them in.";

/// The FlatBuffers type of a table type, and its size (the declaration order); `None` for the
/// side, which the union tag gives.
fn ty(t: Ty) -> Option<(&'static str, usize)> {
    Some(match t {
        Ty::U8 => ("ubyte", 1),
        Ty::U32 | Ty::Bytes4 => ("uint", 4),
        Ty::I64 | Ty::Timestamp | Ty::Price => ("long", 8),
        Ty::Symbol => ("Symbol (required)", 8),
        Ty::Side => return None,
        Ty::Reserved(_) => unreachable!("reserved bytes are not declared"),
    })
}

pub fn schema(t: &Table) -> String {
    let mut o = header("//", t, ABOUT);
    o.push_str("\nnamespace md_shootout.fbs;\n\nstruct Symbol {\n  bytes:[ubyte:8];\n}\n");
    for s in t.structs {
        let _ = write!(o, "\n// {}\ntable {} {{\n", s.doc, s.name);
        let mut fields: Vec<_> = s
            .carried()
            .filter_map(|f| ty(f.ty).map(|ty| (f, ty)))
            .collect();
        // Stable: fields of one size keep the table's order.
        fields.sort_by_key(|(_, (_, size))| std::cmp::Reverse(*size));
        let appended = t.appended_to_struct(s).into_iter();
        fields.extend(appended.filter_map(|f| ty(f.ty).map(|ty| (f, ty))));
        for (f, (ty, _)) in fields {
            comment(&mut o, "  //", &f.doc);
            let _ = writeln!(o, "  {}:{ty};", f.name);
        }
        o.push_str("}\n");
    }
    o.push_str("\nunion Body {\n");
    for (s, v) in variants(t.structs) {
        let tag = super::upper_camel(&v.constant);
        if tag == s.name {
            let _ = writeln!(o, "  {tag},");
        } else {
            let _ = writeln!(o, "  {tag}: {},", s.name);
        }
    }
    o.push_str(
        "}\n\ntable Message {\n  body:Body;\n}\n\ntable Packet {\n  \
         seq:ulong;          // sequence number of the first message\n  \
         send_time:long;     // IEX-TP send time, ns since the epoch\n  \
         messages:[Message] (required);\n}\n\nroot_type Packet;\n",
    );
    o
}
