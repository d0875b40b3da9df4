//! `marketdata.bop` (Bebop): `Message` a union with one branch per `Message` variant (in table
//! order, discriminators from 1, named as the variant), each branch a `message` whose fields are
//! its struct's, indexed in table order from 1; version 2's with the next index, in the branch
//! of the variant it belongs to (Trade Report's, not Trade Break's: each variant has its own
//! branch). `Packet` a `struct` around them.

use super::{comment, header, message_variants, Table, Ty};
use std::fmt::Write as _;

const ABOUT: &str = "\
md-shootout: one IEX-TP packet (segment) in Bebop, for the `bebop` runner (the code bebopc
3.2.3 generates for the `bebop` crate 3.2.3) and Bebop's TypeScript runtime.

Message is a union of messages, one branch per IEX message type: what a team that evolves its
schema writes. A Bebop `message` tags each field with its index and a reader skips the indices
it does not know, so fields can be appended (version 2 does); a union tags each branch with its
discriminator and a reader decodes one it does not know as Unknown, so types can be added. A
`struct` would be smaller (no tags, no lengths) but can never change. Bebop's union branches
are defined inline, so types that share a layout (Trade Report and Trade Break) are two
branches of the same fields.

Packet is a struct: its three fields are the IEX-TP segment's own frame, which does not change;
its messages are what evolves. Bebop writes every integer fixed-width little-endian (no
varints): symbols are uint64 (the 8 space-padded ASCII wire bytes read little-endian: no
string's length prefix and UTF-8 check), prices, timestamps and ids int64, sizes uint32, flag
bytes and one-letter ASCII codes byte, 4-byte ASCII codes uint32 (little-endian), the side an
enum of one byte.";

/// The Bebop type of a table type.
fn ty(t: Ty) -> &'static str {
    match t {
        Ty::U8 => "byte",
        Ty::U32 | Ty::Bytes4 => "uint32",
        Ty::I64 | Ty::Timestamp | Ty::Price => "int64",
        Ty::Symbol => "uint64",
        Ty::Side => "Side",
        Ty::Reserved(_) => unreachable!("reserved bytes are not declared"),
    }
}

pub fn schema(t: &Table) -> String {
    let mut o = header("//", t, ABOUT);
    o.push_str("\nenum Side : byte {\n");
    for (i, v) in t.sides().into_iter().enumerate() {
        let side = v.side.as_deref().unwrap_or_default();
        let _ = writeln!(o, "  {side} = {};  // '{}'", i + 1, v.byte);
    }
    o.push_str("}\n\nunion Message {\n");
    for (i, (s, name, _)) in message_variants(t.structs).into_iter().enumerate() {
        let _ = write!(o, "  // {}\n  {} -> message {name} {{\n", s.doc, i + 1);
        let appended = t.appended_to_variant(name);
        for (j, f) in s.carried().chain(appended).enumerate() {
            comment(&mut o, "    //", &f.doc);
            let _ = writeln!(o, "    {} -> {} {};", j + 1, ty(f.ty), f.name);
        }
        o.push_str("  }\n");
    }
    o.push_str(
        "}\n\nstruct Packet {\n  uint64 seq;  // sequence number of the first message\n  \
         int64 send_time;  // IEX-TP send time, ns since the epoch\n  Message[] messages;\n}\n",
    );
    o
}
