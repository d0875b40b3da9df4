//! `marketdata.xml` (SBE): after `PacketHeader` (template 1), one template per `Message` variant
//! (in table order, ids from 10, named as the variant), its fields in table order with ids from
//! 1, so their offsets are the sums of the sizes before them; version 2's fields at the end of the
//! block, optional, `sinceVersion` 2, with the schema's version bumped to 2.

use super::{header, lower_camel, message_variants, Table, Ty, V2};
use std::fmt::Write as _;

/// The template id of the table's first variant; the ids before it are the packet header's.
const FIRST_TEMPLATE: usize = 10;

const ABOUT: &str = "\
md-shootout: one IEX-TP packet (segment) in Simple Binary Encoding.

SBE has no unions. The choice here is the one SBE market data feeds themselves make (CME MDP 3.0,
Euronext Optiq, B3 UMDF): a packet is a *sequence of SBE messages*, each prefixed by the standard
message header (blockLength, templateId, schemaId, version). The first message is PacketHeader
(sequence number, send time, message count); it is followed by exactly messageCount messages, one
SBE message per IEX message, whose templateId says which IEX type it is. The decoder dispatches
on templateId and skips each body by the header's blockLength, so the encoding is
self-delimiting and keeps message order, and every message costs exactly its own fixed block
plus 8 header bytes.

Rejected alternatives: one repeating group per message type loses the order of messages within
the packet (it would need an extra ordinal per message to restore it); one repeating group of a
fat fixed block with a type discriminator pads every message to the largest (Auction
Information, ~75 bytes), which would cripple SBE on size for no reason.

Symbols are char[8]: the 8 space-padded ASCII bytes exactly as on the wire, fixed size, read
in place; 4-byte ASCII codes char[4]. Prices and timestamps are int64 (4 implied decimals / ns
since the epoch), sizes uint32, flag bytes and one-letter codes uint8. Trade Report and Trade
Break share a layout but get their own templates; price level updates carry their side as a
char enum ('8' buy, '5' sell), as on the wire. DEEP+ Add Order keeps its side as the wire byte,
so a byte the spec does not list survives the trip.";

/// The standard header and the composites the tooling requires, then the table's named types.
const TYPES: &str = r#"        <composite name="messageHeader" description="Standard SBE message header">
            <type name="blockLength" primitiveType="uint16"/>
            <type name="templateId" primitiveType="uint16"/>
            <type name="schemaId" primitiveType="uint16"/>
            <type name="version" primitiveType="uint16"/>
        </composite>
        <composite name="groupSizeEncoding" description="Repeating group dimensions (unused, required by tooling)">
            <type name="blockLength" primitiveType="uint16"/>
            <type name="numInGroup" primitiveType="uint16"/>
        </composite>
        <composite name="varStringEncoding" description="Variable length string (unused, required by tooling)">
            <type name="length" primitiveType="uint32" maxValue="1073741824"/>
            <type name="varData" primitiveType="uint8" length="0" characterEncoding="UTF-8"/>
        </composite>
        <composite name="varDataEncoding" description="Variable length data (unused, required by tooling)">
            <type name="length" primitiveType="uint32" maxValue="1073741824"/>
            <type name="varData" primitiveType="uint8" length="0"/>
        </composite>
        <type name="Timestamp" primitiveType="int64" description="ns since the Unix epoch, UTC"/>
        <type name="Price" primitiveType="int64" description="fixed point, 4 implied decimals"/>
        <type name="Symbol" primitiveType="char" length="8" characterEncoding="US-ASCII"
              description="ticker, right-padded with spaces"/>
        <type name="Bytes4" primitiveType="char" length="4" characterEncoding="US-ASCII"
              description="4 ASCII bytes"/>
"#;

/// The SBE type of a table type.
fn ty(t: Ty) -> &'static str {
    match t {
        Ty::U8 => "uint8",
        Ty::U32 => "uint32",
        Ty::I64 => "int64",
        Ty::Timestamp => "Timestamp",
        Ty::Price => "Price",
        Ty::Symbol => "Symbol",
        Ty::Bytes4 => "Bytes4",
        Ty::Side => "Side",
        Ty::Reserved(_) => unreachable!("reserved bytes are not declared"),
    }
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// ` description="..."`, or nothing for an empty text.
fn description(text: &str) -> String {
    if text.is_empty() {
        String::new()
    } else {
        format!(" description=\"{}\"", xml_escape(text))
    }
}

pub fn schema(t: &Table) -> String {
    let mut o =
        String::from("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<!--\n");
    o.push_str(&header(" ", t, ABOUT).replace("--", "- -"));
    let _ = write!(
        o,
        "-->\n<sbe:messageSchema xmlns:sbe=\"http://fixprotocol.io/2016/sbe\"\n                   \
         package=\"md_shootout\"\n                   id=\"1\"\n                   version=\"{}\"\n                   \
         semanticVersion=\"1.0\"\n                   \
         description=\"IEX DEEP 1.0 / TOPS 1.6 / DEEP+ 1.0 packets for md-shootout\"\n                   \
         byteOrder=\"littleEndian\">\n    <types>\n{TYPES}        <enum name=\"Side\" encodingType=\"char\">\n",
        t.version()
    );
    for v in t.sides() {
        let side = v.side.as_deref().unwrap_or_default();
        let _ = writeln!(
            o,
            "            <validValue name=\"{side}\">{}</validValue>",
            v.byte
        );
    }
    o.push_str(
        "        </enum>\n    </types>\n\n    \
         <sbe:message name=\"PacketHeader\" id=\"1\" description=\"Starts a packet; messageCount messages follow\">\n        \
         <field name=\"seq\" id=\"1\" type=\"uint64\"/>\n        \
         <field name=\"sendTime\" id=\"2\" type=\"Timestamp\"/>\n        \
         <field name=\"messageCount\" id=\"3\" type=\"uint32\"/>\n    </sbe:message>\n",
    );
    for (i, (s, name, _)) in message_variants(t.structs).into_iter().enumerate() {
        let _ = writeln!(
            o,
            "\n    <sbe:message name=\"{name}\" id=\"{}\"{}>",
            FIRST_TEMPLATE + i,
            description(&s.doc)
        );
        let appended = t.appended_to_variant(name);
        for (id, f) in s.carried().chain(appended).enumerate() {
            let since = if f.appended {
                format!(" sinceVersion=\"{V2}\" presence=\"optional\"")
            } else {
                String::new()
            };
            let _ = writeln!(
                o,
                "        <field name=\"{}\" id=\"{}\" type=\"{}\"{since}{}/>",
                lower_camel(&f.name),
                id + 1,
                ty(f.ty),
                description(&f.doc)
            );
        }
        o.push_str("    </sbe:message>\n");
    }
    o.push_str("</sbe:messageSchema>\n");
    o
}
