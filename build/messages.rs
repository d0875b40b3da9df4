//! The one description of the IEX messages (`schemas/iex-messages.txt`) turned into Rust: the
//! model (`iex_model.rs`), the wire vocabulary of the derive-driven formats (`iex_wire.rs`),
//! raw's records (`iex_raw.rs`) and the Avro schema (`iex.avsc`, `build/avro.rs`), all in
//! `OUT_DIR`; and the four compiled schemas, versions 1 and 2 (`build/schemas.rs`), for build.rs
//! to write and compile. Written as plain text so a reader can open the generated files and see
//! exactly what the table produced.

#[path = "avro.rs"]
mod avro;
#[path = "schemas.rs"]
mod schemas;
pub use schemas::Schemas;
use std::fmt::Write as _;
use std::path::Path;

/// A field's type, as the table names it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ty {
    U8,
    U32,
    I64,
    Timestamp,
    Price,
    Symbol,
    Bytes4,
    /// Not on the wire: implied by the type byte.
    Side,
    /// On the wire but not carried: `skip N` reserved bytes.
    Reserved(usize),
}

impl Ty {
    fn parse(s: &str) -> Ty {
        match s {
            "u8" => Ty::U8,
            "u32" => Ty::U32,
            "i64" => Ty::I64,
            "Timestamp" => Ty::Timestamp,
            "Price" => Ty::Price,
            "Symbol" => Ty::Symbol,
            "Bytes4" => Ty::Bytes4,
            "Side" => Ty::Side,
            other => panic!("iex-messages.txt: unknown field type {other:?}"),
        }
    }

    /// The type in the model (`S` for the symbol).
    fn model(self) -> &'static str {
        match self {
            Ty::U8 => "u8",
            Ty::U32 => "u32",
            Ty::I64 => "i64",
            Ty::Timestamp => "Timestamp",
            Ty::Price => "Price",
            Ty::Symbol => "S",
            Ty::Bytes4 => "[u8; 4]",
            Ty::Side => "Side",
            Ty::Reserved(_) => unreachable!("reserved bytes are not in the model"),
        }
    }

    /// The type in raw's packed record; `None` when not on the wire.
    fn raw(self) -> Option<String> {
        match self {
            Ty::Symbol => Some("[u8; 8]".into()),
            Ty::Side => None,
            Ty::Reserved(n) => Some(format!("[u8; {n}]")),
            Ty::Timestamp | Ty::Price | Ty::I64 => Some("i64".into()),
            other => Some(other.model().into()),
        }
    }

    /// The type's name in the table, as `for_each_message!` hands it on.
    fn table_name(self) -> &'static str {
        match self {
            Ty::U8 => "u8",
            Ty::U32 => "u32",
            Ty::I64 => "i64",
            Ty::Timestamp => "Timestamp",
            Ty::Price => "Price",
            Ty::Symbol => "Symbol",
            Ty::Bytes4 => "Bytes4",
            Ty::Side => "Side",
            Ty::Reserved(_) => unreachable!("reserved bytes are not in the model"),
        }
    }

    /// Bytes on the wire.
    fn wire_len(self) -> usize {
        match self {
            Ty::U8 => 1,
            Ty::U32 | Ty::Bytes4 => 4,
            Ty::I64 | Ty::Timestamp | Ty::Price | Ty::Symbol => 8,
            Ty::Side => 0,
            Ty::Reserved(n) => n,
        }
    }
}

#[derive(Clone)]
struct Field {
    name: String,
    ty: Ty,
    doc: String,
    /// Appended by schema version 2 (`schemas/evolution-v2.txt`).
    appended: bool,
}

impl Field {
    /// Whether the model carries the field (reserved bytes are only on the wire).
    fn carried(&self) -> bool {
        !matches!(self.ty, Ty::Reserved(_))
    }
}

#[derive(Clone)]
struct Variant {
    name: String,
    byte: char,
    constant: String,
    /// `Buy` or `Sell` for a type whose byte gives the side.
    side: Option<String>,
}

#[derive(Clone)]
struct Struct {
    name: String,
    doc: String,
    variants: Vec<Variant>,
    len: usize,
    fields: Vec<Field>,
}

impl Struct {
    /// The fields the model carries, in wire order.
    fn carried(&self) -> impl Iterator<Item = &Field> {
        self.fields.iter().filter(|f| f.carried())
    }

    fn has_symbol(&self) -> bool {
        self.fields.iter().any(|f| f.ty == Ty::Symbol)
    }

    /// `Name<S>` or `Name`.
    fn generic(&self, s: &str) -> String {
        if self.has_symbol() {
            format!("{}<{s}>", self.name)
        } else {
            self.name.clone()
        }
    }
}

/// The text after the first `"` up to the last one.
fn quoted(line: &str) -> String {
    match (line.find('"'), line.rfind('"')) {
        (Some(a), Some(b)) if b > a => line[a + 1..b].to_owned(),
        _ => String::new(),
    }
}

fn bad(n: usize, line: &str) -> ! {
    panic!("iex-messages.txt line {}: cannot read {line:?}", n + 1)
}

fn parse(text: &str) -> Vec<Struct> {
    let mut out: Vec<Struct> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        if words[0] == "struct" {
            let Some(name) = words.get(1) else {
                bad(n, line)
            };
            out.push(Struct {
                name: name.to_string(),
                doc: quoted(line),
                variants: Vec::new(),
                len: 0,
                fields: Vec::new(),
            });
            continue;
        }
        let Some(current) = out.last_mut() else {
            bad(n, line)
        };
        match words.as_slice() {
            ["variant", name, byte, constant, rest @ ..] => {
                let side = match rest {
                    [] => None,
                    [s] => match s.strip_prefix("side=") {
                        Some(side) => Some(side.to_owned()),
                        None => bad(n, line),
                    },
                    _ => bad(n, line),
                };
                let Some(byte) = byte.chars().next() else {
                    bad(n, line)
                };
                current.variants.push(Variant {
                    name: name.to_string(),
                    byte,
                    constant: constant.to_string(),
                    side,
                });
            }
            ["len", len] => match len.parse() {
                Ok(len) => current.len = len,
                Err(_) => bad(n, line),
            },
            ["skip", count] => match count.parse() {
                Ok(count) => current.fields.push(Field {
                    name: format!("reserved_{}", current.fields.len()),
                    ty: Ty::Reserved(count),
                    doc: String::new(),
                    appended: false,
                }),
                Err(_) => bad(n, line),
            },
            ["field", name, ty, ..] => current.fields.push(Field {
                name: name.to_string(),
                ty: Ty::parse(ty),
                doc: quoted(line),
                appended: false,
            }),
            _ => bad(n, line),
        }
    }
    for s in &out {
        let wire: usize = 1 + s.fields.iter().map(|f| f.ty.wire_len()).sum::<usize>();
        assert_eq!(
            wire, s.len,
            "iex-messages.txt: {}'s fields take {wire} bytes with the type byte, not len {}",
            s.name, s.len
        );
        assert!(!s.variants.is_empty(), "{} has no variant", s.name);
        assert!(
            s.fields.iter().any(|f| f.name == "timestamp"),
            "{} has no timestamp",
            s.name
        );
    }
    out
}

/// `TradeReport` -> `trade_report`.
fn snake(camel: &str) -> String {
    let mut out = String::new();
    for (i, c) in camel.chars().enumerate() {
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

/// `PRICE_LEVEL_BUY` -> `PriceLevelBuy`: a union tag's name (planus's, flatc's) from the
/// variant's constant.
fn upper_camel(constant: &str) -> String {
    constant
        .split('_')
        .map(|w| w[..1].to_owned() + &w[1..].to_ascii_lowercase())
        .collect()
}

/// Every variant, in table order, with its struct.
fn variants(structs: &[Struct]) -> Vec<(&Struct, &Variant)> {
    structs
        .iter()
        .flat_map(|s| s.variants.iter().map(move |v| (s, v)))
        .collect()
}

/// The distinct `Message` variants, in table order, with their struct and every type byte.
fn message_variants(structs: &[Struct]) -> Vec<(&Struct, &str, Vec<&Variant>)> {
    let mut out: Vec<(&Struct, &str, Vec<&Variant>)> = Vec::new();
    for (s, v) in variants(structs) {
        match out.iter_mut().find(|(_, name, _)| *name == v.name) {
            Some((_, _, vs)) => vs.push(v),
            None => out.push((s, &v.name, vec![v])),
        }
    }
    out
}

fn doc(out: &mut String, indent: &str, text: &str) {
    if !text.is_empty() {
        let _ = writeln!(out, "{indent}/// {text}");
    }
}

fn model(structs: &[Struct]) -> String {
    let mut o = String::from("// Generated by build.rs from schemas/iex-messages.txt.\n\n");
    for s in structs {
        doc(&mut o, "", &s.doc);
        let _ = writeln!(o, "#[derive(Debug, Clone, Copy, PartialEq, Eq)]");
        let _ = writeln!(o, "pub struct {} {{", s.generic("S = Symbol"));
        for f in s.carried() {
            doc(&mut o, "    ", &f.doc);
            let _ = writeln!(o, "    pub {}: {},", f.name, f.ty.model());
        }
        let _ = writeln!(o, "}}\n");
    }

    let mvs = message_variants(structs);
    o.push_str("/// One IEX message of any known type.\n");
    o.push_str("#[derive(Debug, Clone, Copy, PartialEq, Eq)]\npub enum Message<S = Symbol> {\n");
    for (s, name, _) in &mvs {
        let _ = writeln!(o, "    {name}({}),", s.generic("S"));
    }
    o.push_str("}\n\n");

    o.push_str("/// The message type bytes, as on the wire.\npub mod kind {\n");
    let all = variants(structs);
    for (_, v) in &all {
        let _ = writeln!(o, "    pub const {}: u8 = b'{}';", v.constant, v.byte);
    }
    let _ = writeln!(
        o,
        "\n    /// Every known type byte, in the order of the table.\n    pub const ALL: [u8; {}] = [{}];\n",
        all.len(),
        all.iter().map(|(_, v)| v.constant.as_str()).collect::<Vec<_>>().join(", ")
    );
    o.push_str(
        "    /// Wire length of a message of this type (type byte included), `None` for an \
         unknown type.\n    pub const fn wire_len(kind: u8) -> Option<usize> {\n        \
         Some(match kind {\n",
    );
    for (s, v) in &all {
        let _ = writeln!(o, "            {} => {},", v.constant, s.len);
    }
    o.push_str("            _ => return None,\n        })\n    }\n\n");
    o.push_str(
        "    /// The type's name as the table's constant, in lower case (`add_order`), `None` for an \
         unknown type.\n    pub const fn name(kind: u8) -> Option<&'static str> {\n        \
         Some(match kind {\n",
    );
    for (_, v) in &all {
        let _ = writeln!(
            o,
            "            {} => \"{}\",",
            v.constant,
            v.constant.to_lowercase()
        );
    }
    o.push_str("            _ => return None,\n        })\n    }\n}\n\n");

    // Accessors.
    o.push_str("impl<S> Message<S> {\n");
    o.push_str(
        "    /// The type byte this message has on the wire.\n    pub fn kind(&self) -> u8 {\n        match self {\n",
    );
    for (_, name, vs) in &mvs {
        if vs.len() == 1 {
            let _ = writeln!(
                o,
                "            Message::{name}(_) => kind::{},",
                vs[0].constant
            );
        } else {
            let _ = writeln!(o, "            Message::{name}(m) => match m.side {{");
            for v in vs {
                let side = v
                    .side
                    .as_deref()
                    .expect("several bytes for one variant need side=");
                let _ = writeln!(o, "                Side::{side} => kind::{},", v.constant);
            }
            o.push_str("            },\n");
        }
    }
    o.push_str("        }\n    }\n\n");

    o.push_str("    /// The message's own timestamp.\n    pub fn timestamp(&self) -> Timestamp {\n        match self {\n");
    for (_, name, _) in &mvs {
        let _ = writeln!(o, "            Message::{name}(m) => m.timestamp,");
    }
    o.push_str("        }\n    }\n\n");

    o.push_str("    /// The symbol, for every type that has one.\n    pub fn symbol(&self) -> Option<&S> {\n        match self {\n");
    for (s, name, _) in &mvs {
        if s.has_symbol() {
            let _ = writeln!(o, "            Message::{name}(m) => Some(&m.symbol),");
        } else {
            let _ = writeln!(o, "            Message::{name}(_) => None,");
        }
    }
    o.push_str("        }\n    }\n\n");

    o.push_str(
        "    /// The same message with its symbol converted by `f` (e.g. borrowed to owned).\n    \
         pub fn map_symbol<T>(self, f: impl FnOnce(S) -> T) -> Message<T> {\n        match self {\n",
    );
    for (s, name, _) in &mvs {
        if s.has_symbol() {
            let fields: Vec<String> = s
                .carried()
                .map(|f| {
                    if f.ty == Ty::Symbol {
                        format!("{}: f(m.{})", f.name, f.name)
                    } else {
                        format!("{}: m.{}", f.name, f.name)
                    }
                })
                .collect();
            let _ = writeln!(
                o,
                "            Message::{name}(m) => Message::{name}({} {{ {} }}),",
                s.name,
                fields.join(", ")
            );
        } else {
            let _ = writeln!(o, "            Message::{name}(m) => Message::{name}(m),");
        }
    }
    o.push_str("        }\n    }\n");

    o.push_str(
        "\n    /// Hands every field to `visitor`, named, in the table's order (the canonical order \
         of the complete-decode checksum).\n    pub fn visit_fields<V: FieldVisitor>(&self, visitor: &mut V)\n    where\n        S: Field,\n    {\n        match self {\n",
    );
    for (s, name, _) in &mvs {
        let _ = writeln!(o, "            Message::{name}(m) => {{");
        for f in s.carried() {
            let _ = writeln!(o, "                visitor.field(\"{0}\", m.{0});", f.name);
        }
        o.push_str("            }\n");
    }
    o.push_str("        }\n    }\n\n");

    o.push_str("    /// The variant's name, as in `Message::` and in `--verify`'s messages.\n    pub fn name(&self) -> &'static str {\n        match self {\n");
    for (_, name, _) in &mvs {
        let _ = writeln!(o, "            Message::{name}(_) => \"{name}\",");
    }
    o.push_str("        }\n    }\n}\n");
    o.push_str(&table_macro(structs));
    o
}

/// `for_each_message!`: the table as tokens, for the code that must spell out every message type
/// (the IEX parser and encoder, the codecs' field copies) to expand from instead.
fn table_macro(structs: &[Struct]) -> String {
    let mut o = String::from(
        "\n/// Hands the message table to `$callback` (a `macro_rules!` of the caller's), one entry per\n\
         /// `Message` variant:\n///\n\
         /// `Variant(Struct) snake_name { kinds [CONST { fields the type byte implies }, ..], len N,\n\
         /// wire [field @ offset, ..], fields [field: Type, ..], }`\n///\n\
         /// `kinds`: its type bytes (`model::kind` constants), each with the fields its byte implies\n\
         /// (`side: Side::Buy`); `len`: bytes on the wire, type byte included; `wire`: the fields on the\n\
         /// wire with their byte offsets (reserved bytes and implied fields left out); `fields`: every\n\
         /// field the model carries, in table order, typed as the table names them (`u8`, `u32`, `i64`,\n\
         /// `Timestamp`, `Price`, `Symbol`, `Bytes4`, `Side`); then, for the codecs' field copies, the\n\
         /// names their generators derive from these (`capnp init_x [set_f get_f, ..]`,\n\
         /// `flatbuffers XArgs [UnionTag body_as_union_tag, ..]` one per type byte,\n\
         /// `sbe x_codec XEncoder XDecoder`): a consumer matches what it needs and `$($rest:tt)*`.\n\
         macro_rules! for_each_message {\n    ($callback:ident) => {\n        $callback! {\n",
    );
    for (s, name, vs) in message_variants(structs) {
        let kinds: Vec<String> = vs
            .iter()
            .map(|v| match &v.side {
                Some(side) => format!("{} {{ side: Side::{side} }}", v.constant),
                None => format!("{} {{}}", v.constant),
            })
            .collect();
        let mut wire = Vec::new();
        let mut at = 1;
        for f in &s.fields {
            if f.carried() && f.ty != Ty::Side {
                wire.push(format!("{} @ {at}", f.name));
            }
            at += f.ty.wire_len();
        }
        let fields: Vec<String> = s
            .carried()
            .map(|f| format!("{}: {}", f.name, f.ty.table_name()))
            .collect();
        // The names the codecs' generators derive from the table's (macro_rules cannot join
        // identifiers): capnpc's `init_x` / `set_f` / `get_f`, flatc's `XArgs` and a union tag
        // per type byte (the constant in CamelCase) with its `body_as_tag`, the SBE generator's
        // `x_codec` module with its `XEncoder` and `XDecoder`.
        let capnp: Vec<String> = s
            .carried()
            .map(|f| format!("set_{0} get_{0}", f.name))
            .collect();
        let tags: Vec<String> = vs
            .iter()
            .map(|v| {
                let tag = upper_camel(&v.constant);
                format!("{tag} body_as_{}", v.constant.to_ascii_lowercase())
            })
            .collect();
        let snake = snake(name);
        let _ = writeln!(
            o,
            "            {name}({}) {snake} {{\n                kinds [{}],\n                len {},\n                \
             wire [{}],\n                fields [{}],\n                capnp init_{snake} [{}],\n                \
             flatbuffers {}Args [{}],\n                sbe {snake}_codec {name}Encoder {name}Decoder,\n            }},",
            s.name,
            kinds.join(", "),
            s.len,
            wire.join(", "),
            fields.join(", "),
            capnp.join(", "),
            s.name,
            tags.join(", ")
        );
    }
    o.push_str("        }\n    };\n}\n");
    o
}

/// A field's type in the wire vocabulary.
fn wire_ty(t: Ty) -> &'static str {
    match t {
        Ty::Side => "WSide",
        Ty::Timestamp | Ty::Price => "i64",
        other => other.model(),
    }
}

/// `Wire<S>`: one struct variant per `Message` variant, the fields the model carries; a field
/// schema version 2 appends gets its doc, serde's `#[serde(default)]` and musli's `#[musli(default)]`.
fn wire_enum(structs: &[Struct], doc_line: &str) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "/// {doc_line}\n\
         #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, rkyv::Archive, \
         rkyv::Serialize, rkyv::Deserialize, bitcode::Encode, bitcode::Decode, \
         wincode::SchemaWrite, wincode::SchemaRead, borsh::BorshSerialize, borsh::BorshDeserialize)]\n\
         #[derive(musli::Encode, musli::Decode)]\n\
         #[serde(rename_all = \"snake_case\")]\npub enum Wire<S> {{"
    );
    for (s, name, _) in &message_variants(structs) {
        let _ = writeln!(o, "    {name} {{");
        for f in s.carried() {
            if f.appended {
                doc(&mut o, "        ", &f.doc);
                o.push_str("        #[serde(default)]\n");
                o.push_str("        #[musli(default)]\n");
            }
            let _ = writeln!(o, "        {}: {},", f.name, wire_ty(f.ty));
        }
        o.push_str("    },\n");
    }
    o.push_str("}\n");
    o
}

fn wire(structs: &[Struct]) -> String {
    let mvs = message_variants(structs);
    let mut o = String::from("// Generated by build.rs from schemas/iex-messages.txt.\n\n");
    o.push_str(&wire_enum(
        structs,
        "One message; variant and field names are the model's (snake_case in JSON).",
    ));
    o.push_str("\nimpl<S> Wire<S> {\n");
    o.push_str(
        "    /// The wire form of a model message, the symbol converted by `sym`.\n    \
         pub fn from_model<'a>(m: &'a Message, sym: impl FnOnce(&'a Symbol) -> S) -> Wire<S> {\n        \
         match m {\n",
    );
    for (s, name, _) in &mvs {
        let fields: Vec<String> = s
            .carried()
            .map(|f| match f.ty {
                Ty::Symbol => format!("{}: sym(&m.{})", f.name, f.name),
                Ty::Side => format!("{}: m.{}.into()", f.name, f.name),
                _ => format!("{}: m.{}", f.name, f.name),
            })
            .collect();
        let _ = writeln!(
            o,
            "            Message::{name}(m) => Wire::{name} {{ {} }},",
            fields.join(", ")
        );
    }
    o.push_str("        }\n    }\n\n");
    o.push_str(
        "    /// The model message, the symbol converted by `sym` (which may refuse it).\n    \
         pub fn into_model(\n        self,\n        sym: impl FnOnce(S) -> Result<Symbol, DecodeError>,\n    \
         ) -> Result<Message, DecodeError> {\n        Ok(match self {\n",
    );
    for (s, name, _) in &mvs {
        let names: Vec<&str> = s.carried().map(|f| f.name.as_str()).collect();
        let fields: Vec<String> = s
            .carried()
            .map(|f| match f.ty {
                Ty::Symbol => format!("{}: sym({})?", f.name, f.name),
                Ty::Side => format!("{}: {}.into()", f.name, f.name),
                _ => f.name.clone(),
            })
            .collect();
        let _ = writeln!(
            o,
            "            Wire::{name} {{ {} }} => Message::{name}({} {{ {} }}),",
            names.join(", "),
            s.name,
            fields.join(", ")
        );
    }
    o.push_str("        })\n    }\n}\n");
    o
}

fn raw(structs: &[Struct]) -> String {
    let mut o = String::from("// Generated by build.rs from schemas/iex-messages.txt.\n\n");
    o.push_str(&raw_records(structs));
    o.push_str("/// Appends `m` as its record.\n#[inline]\nfn put_message(out: &mut Vec<u8>, m: &Message) {\n    let kind = m.kind();\n    match *m {\n");
    for (s, name, _) in message_variants(structs) {
        let fields: Vec<String> = s
            .fields
            .iter()
            .filter(|f| f.ty.raw().is_some())
            .map(|f| match f.ty {
                Ty::Symbol => format!("{}: m.{}.0", f.name, f.name),
                Ty::Reserved(n) => format!("{}: [0; {n}]", f.name),
                _ => format!("{}: m.{}", f.name, f.name),
            })
            .collect();
        let _ = writeln!(
            o,
            "        Message::{name}(m) => put(out, Raw{} {{ kind, {} }}),",
            s.name,
            fields.join(", ")
        );
    }
    o.push_str("    }\n}\n\n");

    o.push_str(
        "/// The message in record `r` of type `k` (a known type: `walk` checks), every field read \
         in place.\n#[inline]\nfn to_message(k: u8, r: &[u8]) -> Message {\n    match k {\n",
    );
    let all = variants(structs);
    let last = all.len() - 1;
    for (i, (s, v)) in all.iter().enumerate() {
        let fields: Vec<String> = s
            .carried()
            .map(|f| match f.ty {
                Ty::Symbol => format!("{}: Symbol(r.{})", f.name, f.name),
                Ty::Side => format!(
                    "{}: Side::{}",
                    f.name,
                    v.side
                        .as_deref()
                        .expect("a Side field needs side= on every variant")
                ),
                _ => format!("{}: r.{}", f.name, f.name),
            })
            .collect();
        // The last arm also takes what `walk` never passes, so the match needs no panic.
        let pattern = if i == last {
            "_".to_owned()
        } else {
            format!("kind::{}", v.constant)
        };
        let _ = writeln!(
            o,
            "        {pattern} => {{\n            let r: &Raw{} = view(r);\n            Message::{}({} {{ {} }})\n        }}",
            s.name,
            v.name,
            s.name,
            fields.join(", ")
        );
    }
    o.push_str("    }\n}\n");
    o
}

/// One `#[repr(C, packed)]` record per struct, size-checked against its wire length.
fn raw_records(structs: &[Struct]) -> String {
    let mut o = String::new();
    for s in structs {
        let bytes: Vec<String> = s.variants.iter().map(|v| format!("`{}`", v.byte)).collect();
        let _ = writeln!(
            o,
            "/// {} on the wire: the type byte, then the fields.\n\
             #[derive(Clone, Copy, Pod, Zeroable)]\n#[repr(C, packed)]\npub struct Raw{} {{\n    pub kind: u8,",
            bytes.join(" and "),
            s.name
        );
        for f in &s.fields {
            if let Some(t) = f.ty.raw() {
                let _ = writeln!(o, "    pub {}: {t},", f.name);
            }
        }
        let _ = writeln!(
            o,
            "}}\n\nconst _: () = assert!(std::mem::size_of::<Raw{}>() == {});\n",
            s.name, s.len
        );
    }
    o
}

/// The compiled schemas the table makes, for build.rs to write and compile.
pub struct Compiled {
    /// `marketdata.{capnp,fbs,proto,xml}`, version 1.
    pub v1: Schemas,
    /// The same, version 2.
    pub v2: Schemas,
}

/// Reads `schemas/iex-messages.txt` and `schemas/evolution-v2.txt` and writes the generated files
/// into `out`: the model, the wire vocabulary and raw's records, and version 2 of the last two;
/// returns the compiled schemas.
pub fn generate(schemas: &Path, out: &Path) -> Compiled {
    let path = schemas.join("iex-messages.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let structs = parse(&text);
    let v2_path = schemas.join("evolution-v2.txt");
    let v2_text =
        std::fs::read_to_string(&v2_path).unwrap_or_else(|e| panic!("{}: {e}", v2_path.display()));
    let appends = parse_v2(&v2_text, &structs);
    let v2 = v2_structs(&structs, &appends);
    for (file, code) in [
        ("iex_model.rs", model(&structs)),
        ("iex_wire.rs", wire(&structs)),
        ("iex_raw.rs", raw(&structs)),
        ("iex_wire_v2.rs", wire_v2(&v2, &appends)),
        ("iex_raw_v2.rs", raw_v2(&v2)),
        ("iex.avsc", avro::schema(&structs)),
        ("iex_v2.avsc", avro::schema(&v2)),
    ] {
        let path = out.join(file);
        std::fs::write(&path, code).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    Compiled {
        v1: schemas::emit(&structs, &[]),
        v2: schemas::emit(&structs, &appends),
    }
}

// Schema version 2 (issue 25, the schema-evolution check): the table plus the fields
// `schemas/evolution-v2.txt` appends, as the derive-driven formats' wire vocabulary
// (`iex_wire_v2.rs`) and raw's records (`iex_raw_v2.rs`).

/// One `append` line of `schemas/evolution-v2.txt`.
struct Append {
    /// The `Message` variant that grows.
    message: String,
    field: Field,
    /// What a v2 writer puts in the field.
    value: i64,
}

fn parse_v2(text: &str, structs: &[Struct]) -> Vec<Append> {
    let names: Vec<&str> = message_variants(structs).iter().map(|m| m.1).collect();
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = || -> ! { panic!("evolution-v2.txt line {}: cannot read {line:?}", n + 1) };
        let ["append", message, field, ty, default, value, ..] =
            line.split_whitespace().collect::<Vec<_>>()[..]
        else {
            bad()
        };
        assert!(
            names.contains(&message),
            "evolution-v2.txt line {}: {message} is not a Message variant",
            n + 1
        );
        let ty = Ty::parse(ty);
        assert!(
            matches!(ty, Ty::U8 | Ty::U32 | Ty::I64 | Ty::Timestamp | Ty::Price),
            "evolution-v2.txt line {}: only integer fields can be appended",
            n + 1
        );
        // serde's `#[serde(default)]` gives an integer 0; another default would need a function.
        assert_eq!(
            default,
            "0",
            "evolution-v2.txt line {}: only the default 0 is supported",
            n + 1
        );
        out.push(Append {
            message: message.to_owned(),
            field: Field {
                name: field.to_owned(),
                ty,
                doc: quoted(line),
                appended: true,
            },
            value: value.parse().unwrap_or_else(|_| bad()),
        });
    }
    out
}

/// The table in version 2: a struct one of whose variants grows is split, that variant becoming
/// a struct of its own (its name the variant's) with the appended fields after the others and a
/// longer wire length; the order of the variants stays the table's, as it must for the formats
/// that number them (postcard, bitcode, rkyv).
fn v2_structs(structs: &[Struct], appends: &[Append]) -> Vec<Struct> {
    let grows = |v: &Variant| appends.iter().any(|a| a.message == v.name);
    let mut out = Vec::new();
    for s in structs {
        if !s.variants.iter().any(grows) {
            out.push(s.clone());
            continue;
        }
        for v in &s.variants {
            let mut one = Struct {
                variants: vec![v.clone()],
                ..s.clone()
            };
            for a in appends.iter().filter(|a| a.message == v.name) {
                one.name = v.name.clone();
                one.len += a.field.ty.wire_len();
                one.fields.push(a.field.clone());
            }
            out.push(one);
        }
    }
    out
}

/// A field's value as an `i64`, from a binding of its wire type.
fn as_i64(f: &Field) -> String {
    match f.ty {
        Ty::I64 | Ty::Timestamp | Ty::Price => f.name.clone(),
        _ => format!("i64::from({})", f.name),
    }
}

/// Version 2 of the wire vocabulary: `Wire<S>` with the appended fields (serde's
/// `#[serde(default)]` on each, the self-describing formats' mechanism; postcard, bitcode and rkyv
/// have none and ignore it), the packet rkyv and bitcode serialize, `APPENDED`, and conversions
/// from and to version 1's `Wire` (imported as `V1`).
fn wire_v2(structs: &[Struct], appends: &[Append]) -> String {
    let mut o = String::from(
        "// Generated by build.rs from schemas/iex-messages.txt and schemas/evolution-v2.txt.\n\n",
    );
    // One constant per new field (its name upper-cased), typed as the field (the v2 writers of
    // the compiled schemas set it as is; the default is 0: `parse_v2` admits no other), then
    // `APPENDED`, the same constants as `i64` for the code that walks all of them.
    for a in appends {
        let f = &a.field;
        let _ = writeln!(
            o,
            "/// `{}.{}` (v2): {}\npub const {}: Appended<{}> = Appended {{ message: \"{}\", field: \"{}\", ty: \"{}\", default: 0, value: {} }};\n",
            a.message,
            f.name,
            f.doc,
            f.name.to_ascii_uppercase(),
            f.ty.raw().unwrap_or_default(),
            a.message,
            f.name,
            f.ty.table_name(),
            a.value
        );
    }
    let _ = writeln!(
        o,
        "/// Every field version 2 appends, in the order of schemas/evolution-v2.txt, as `i64`.\n\
         pub const APPENDED: [Appended; {}] = [",
        appends.len()
    );
    for a in appends {
        let (name, ty) = (a.field.name.to_ascii_uppercase(), a.field.ty.raw());
        let widen = if ty.as_deref() == Some("i64") {
            ""
        } else {
            " as i64"
        };
        let _ = writeln!(
            o,
            "    Appended {{ message: {name}.message, field: {name}.field, ty: {name}.ty, default: {name}.default{widen}, value: {name}.value{widen} }},"
        );
    }
    o.push_str("];\n\n");
    o.push_str(&wire_enum(
        structs,
        "One message in version 2 of the schema: version 1's fields, then the appended ones.",
    ));
    o.push_str(
        "\n/// The packet rkyv and bitcode serialize, in version 2.\n\
         #[derive(Debug, Clone, Default, PartialEq, Eq, rkyv::Archive, rkyv::Serialize, \
         rkyv::Deserialize, bitcode::Encode, bitcode::Decode)]\n\
         pub struct MPacket {\n    pub seq: u64,\n    pub send_time: i64,\n    \
         pub messages: Vec<Wire<[u8; 8]>>,\n}\n\nimpl<S> Wire<S> {\n",
    );
    let mvs = message_variants(structs);
    let binds = |s: &Struct, v1_only: bool| -> String {
        s.carried()
            .filter(|f| !(v1_only && f.appended))
            .map(|f| f.name.clone())
            .collect::<Vec<_>>()
            .join(", ")
    };
    o.push_str(
        "    /// Version 1's message as a version 2 writer sends it: each appended field set to \
         the value\n    /// schemas/evolution-v2.txt gives.\n    \
         pub fn from_v1(m: V1<S>) -> Wire<S> {\n        match m {\n",
    );
    for (s, name, _) in &mvs {
        let fields: Vec<String> = s
            .carried()
            .map(|f| {
                let value = appends
                    .iter()
                    .find(|a| f.appended && a.message == *name && a.field.name == f.name);
                match value {
                    Some(a) => format!("{}: {}", f.name, a.value),
                    None => f.name.clone(),
                }
            })
            .collect();
        let _ = writeln!(
            o,
            "            V1::{name} {{ {} }} => Wire::{name} {{ {} }},",
            binds(s, true),
            fields.join(", ")
        );
    }
    o.push_str("        }\n    }\n\n");
    o.push_str(
        "    /// Version 1's fields of the message, and each appended field's name and value.\n    \
         pub fn into_v1(self) -> (V1<S>, Vec<(&'static str, i64)>) {\n        match self {\n",
    );
    for (s, name, _) in &mvs {
        let appended: Vec<String> = s
            .carried()
            .filter(|f| f.appended)
            .map(|f| format!("(\"{}\", {})", f.name, as_i64(f)))
            .collect();
        let list = if appended.is_empty() {
            "Vec::new()".to_owned()
        } else {
            format!("vec![{}]", appended.join(", "))
        };
        let _ = writeln!(
            o,
            "            Wire::{name} {{ {} }} => (V1::{name} {{ {} }}, {list}),",
            binds(s, false),
            binds(s, true)
        );
    }
    o.push_str("        }\n    }\n\n");
    o.push_str(
        "    /// The same message with its symbol converted by `f`.\n    \
         pub fn map_symbol<T>(self, f: impl FnOnce(S) -> T) -> Wire<T> {\n        match self {\n",
    );
    for (s, name, _) in &mvs {
        let fields: Vec<String> = s
            .carried()
            .map(|f| match f.ty {
                Ty::Symbol => format!("{0}: f({0})", f.name),
                _ => f.name.clone(),
            })
            .collect();
        let _ = writeln!(
            o,
            "            Wire::{name} {{ {} }} => Wire::{name} {{ {} }},",
            binds(s, false),
            fields.join(", ")
        );
    }
    o.push_str("        }\n    }\n}\n");
    o
}

/// raw's records in version 2 (the record of a message that grows is longer by its appended
/// fields), their wire lengths, and the record of a version 2 `Wire` and back.
fn raw_v2(structs: &[Struct]) -> String {
    let mut o = String::from(
        "// Generated by build.rs from schemas/iex-messages.txt and schemas/evolution-v2.txt.\n\n",
    );
    o.push_str(&raw_records(structs));
    let all = variants(structs);
    o.push_str(
        "/// Bytes of a version 2 record of type `kind`, `None` for an unknown type.\n\
         pub const fn wire_len(kind: u8) -> Option<usize> {\n    Some(match kind {\n",
    );
    for (s, v) in &all {
        let _ = writeln!(o, "        kind::{} => {},", v.constant, s.len);
    }
    o.push_str("        _ => return None,\n    })\n}\n\n");

    o.push_str(
        "/// Appends `m` as its version 2 record.\npub fn put(out: &mut Vec<u8>, m: &Wire<[u8; 8]>) {\n    match *m {\n",
    );
    for (s, name, vs) in message_variants(structs) {
        let binds: Vec<&str> = s.carried().map(|f| f.name.as_str()).collect();
        let kind = if vs.len() == 1 {
            format!("kind::{}", vs[0].constant)
        } else {
            let arms: Vec<String> = vs
                .iter()
                .map(|v| {
                    let side = v.side.as_deref().expect("several bytes need side=");
                    format!("WSide::{side} => kind::{}", v.constant)
                })
                .collect();
            format!("match side {{ {} }}", arms.join(", "))
        };
        let fields: Vec<String> = s
            .fields
            .iter()
            .filter(|f| f.ty.raw().is_some())
            .map(|f| match f.ty {
                Ty::Reserved(n) => format!("{}: [0; {n}]", f.name),
                _ => f.name.clone(),
            })
            .collect();
        let _ = writeln!(
            o,
            "        Wire::{name} {{ {} }} => put_record(out, Raw{} {{ kind: {kind}, {} }}),",
            binds.join(", "),
            s.name,
            fields.join(", ")
        );
    }
    o.push_str("    }\n}\n\n");

    o.push_str(
        "/// The version 2 message in record `r` of type `k` (a known type, `r` its length).\n\
         pub fn to_wire(k: u8, r: &[u8]) -> Wire<[u8; 8]> {\n    match k {\n",
    );
    let last = all.len() - 1;
    for (i, (s, v)) in all.iter().enumerate() {
        let fields: Vec<String> = s
            .carried()
            .map(|f| match f.ty {
                Ty::Side => format!(
                    "{}: WSide::{}",
                    f.name,
                    v.side.as_deref().expect("a Side field needs side=")
                ),
                _ => format!("{0}: r.{0}", f.name),
            })
            .collect();
        let pattern = if i == last {
            "_".to_owned()
        } else {
            format!("kind::{}", v.constant)
        };
        let _ = writeln!(
            o,
            "        {pattern} => {{\n            let r: &Raw{} = bytemuck::from_bytes(r);\n            Wire::{} {{ {} }}\n        }}",
            s.name,
            v.name,
            fields.join(", ")
        );
    }
    o.push_str("    }\n}\n");
    o
}
