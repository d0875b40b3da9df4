//! build.rs's version-2 transforms (`build/schema_v2.rs`) on the real v1 schemas: each appends
//! the fields of `schemas/evolution-v2.txt` its schema language's way, and stops with a line
//! naming the anchor it could not find rather than guess.

#[allow(dead_code)]
#[path = "../../build/schema_v2.rs"]
mod transform;

use transform::Append;

fn schema(name: &str) -> String {
    std::fs::read_to_string(format!("{}/schemas/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn appends() -> Vec<Append> {
    transform::parse(&schema("evolution-v2.txt")).unwrap()
}

/// The text of `block` (from the line starting with `open` to the next line `close`) in `text`.
fn block<'a>(text: &'a str, open: &str, close: &str) -> &'a str {
    let start = text.find(open).unwrap_or_else(|| panic!("no {open:?}"));
    let end = start + text[start..].find(close).unwrap();
    &text[start..end]
}

#[test]
fn the_file_appends_two_fields() {
    let a = appends();
    let got: Vec<_> = a
        .iter()
        .map(|a| {
            (
                a.variant.as_str(),
                a.field.as_str(),
                a.ty.as_str(),
                a.default,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("TradeReport", "match_id", "i64", 0),
            ("AddOrder", "attribution", "u32", 0)
        ]
    );
}

#[test]
fn capnp_gets_the_next_ordinal_in_the_struct_its_union_member_names() {
    let v2 = transform::capnp(&schema("marketdata.capnp"), &appends()).unwrap();
    // Trade Report is `tradeReport @8 :Trade`: the field goes into Trade, after tradeId @5.
    let trade = block(&v2, "struct Trade {", "\n}");
    assert!(
        trade.contains("tradeId @5 :Int64;\n  matchId @6 :Int64;"),
        "{trade}"
    );
    assert!(block(&v2, "struct AddOrder {", "\n}").contains("attribution @6 :UInt32;"));
    assert_eq!(v2.matches("matchId").count(), 1);
}

#[test]
fn flatbuffers_appends_to_the_end_of_the_table() {
    let v2 = transform::flatbuffers(&schema("marketdata.fbs"), &appends()).unwrap();
    let trade = block(&v2, "table Trade {", "\n}");
    assert!(trade
        .trim_end()
        .ends_with(&format!("match_id:long;  // {}", appends()[0].doc)));
    assert!(block(&v2, "table AddOrder {", "\n}").contains("  attribution:uint;"));
}

#[test]
fn protobuf_gets_the_next_tag() {
    let v2 = transform::protobuf(&schema("marketdata.proto"), &appends()).unwrap();
    assert!(block(&v2, "message Trade {", "\n}").contains("  int64 match_id = 7;"));
    assert!(block(&v2, "message AddOrder {", "\n}").contains("  uint32 attribution = 7;"));
}

#[test]
fn sbe_appends_an_optional_field_since_version_2_and_bumps_the_schema() {
    let v1 = schema("marketdata.xml");
    let v2 = transform::sbe(&v1, &appends()).unwrap();
    // Only the schema's version changes, not the XML declaration's.
    assert!(v2.starts_with("<?xml version=\"1.0\""));
    assert!(block(&v1, "<sbe:messageSchema", ">").contains(" version=\"0\""));
    assert!(block(&v2, "<sbe:messageSchema", ">").contains(" version=\"2\""));
    let trade = block(&v2, "<sbe:message name=\"TradeReport\"", "</sbe:message>");
    assert!(trade.contains(
        "<field name=\"matchId\" id=\"7\" type=\"int64\" sinceVersion=\"2\" presence=\"optional\""
    ));
    // Trade Break shares the wire layout but is its own template: untouched.
    assert!(!block(&v2, "<sbe:message name=\"TradeBreak\"", "</sbe:message>").contains("matchId"));
}

#[test]
fn a_missing_anchor_stops_the_transform_with_its_name() {
    let a = appends();
    let capnp = schema("marketdata.capnp").replace("tradeReport @8", "tradeReported @8");
    assert_eq!(
        transform::capnp(&capnp, &a).unwrap_err(),
        "no union member `tradeReport @N :Type;`"
    );
    let fbs = schema("marketdata.fbs").replace("table Trade {", "table Trades {");
    assert_eq!(
        transform::flatbuffers(&fbs, &a).unwrap_err(),
        "no `table Trade`"
    );
    let proto = schema("marketdata.proto").replace("add_order = 14", "new_order = 14");
    assert_eq!(
        transform::protobuf(&proto, &a).unwrap_err(),
        "no oneof member `Type add_order = N;`"
    );
    let xml = schema("marketdata.xml").replace("version=\"0\"\n", "version=\"5\"\n");
    assert_eq!(
        transform::sbe(&xml, &a).unwrap_err(),
        "<sbe:messageSchema> version \"5\": v1 must be below 2"
    );
    assert!(transform::parse("append TradeReport match_id f64 0 1 \"\"").is_err());
}
