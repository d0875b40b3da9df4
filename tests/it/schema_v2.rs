//! Version 2 of the compiled schemas, as build.rs generates them into
//! `OUT_DIR/evolution-v2/schemas/` (`build/schemas.rs`, from the message table and
//! `schemas/evolution-v2.txt`): each appends the fields of `evolution-v2.txt` its schema
//! language's way, and differs from version 1 (`OUT_DIR/schemas/`) by nothing else.

fn v1(name: &str) -> String {
    read(&format!("{}/schemas/{name}", env!("OUT_DIR")))
}

fn v2(name: &str) -> String {
    read(&format!("{}/evolution-v2/schemas/{name}", env!("OUT_DIR")))
}

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The text of `block` (from the line starting with `open` to the next line `close`) in `text`.
fn block<'a>(text: &'a str, open: &str, close: &str) -> &'a str {
    let start = text.find(open).unwrap_or_else(|| panic!("no {open:?}"));
    let end = start + text[start..].find(close).unwrap();
    &text[start..end]
}

/// The lines of `v2` not in `v1` (comments left out), trimmed.
fn added(v1: &str, v2: &str, comment: &str) -> Vec<String> {
    let old: Vec<&str> = v1.lines().map(str::trim).collect();
    v2.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with(comment) && !old.contains(l))
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_file_appends_two_fields() {
    let text = read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/schemas/evolution-v2.txt"
    ));
    let appends: Vec<Vec<&str>> = text
        .lines()
        .filter(|l| l.starts_with("append "))
        .map(|l| l.split_whitespace().take(5).collect())
        .collect();
    assert_eq!(
        appends,
        [
            ["append", "TradeReport", "match_id", "i64", "0"],
            ["append", "AddOrder", "attribution", "u32", "0"]
        ]
    );
}

#[test]
fn capnp_gets_the_next_ordinal_in_the_struct_its_union_member_names() {
    let v2 = v2("marketdata.capnp");
    // Trade Report is `tradeReport @8 :Trade`: the field goes into Trade, after tradeId @5.
    assert!(v2.contains("tradeReport @8 :Trade;"));
    let trade = block(&v2, "struct Trade {", "\n}");
    assert!(trade.trim_end().ends_with("matchId @6 :Int64;"), "{trade}");
    assert!(block(&v2, "struct AddOrder {", "\n}").contains("attribution @6 :UInt32;"));
    assert_eq!(
        added(&v1("marketdata.capnp"), &v2, "#"),
        ["matchId @6 :Int64;", "attribution @6 :UInt32;"]
    );
}

#[test]
fn flatbuffers_appends_to_the_end_of_the_table() {
    let v2 = v2("marketdata.fbs");
    let trade = block(&v2, "table Trade {", "\n}");
    assert!(trade.trim_end().ends_with("match_id:long;"), "{trade}");
    let order = block(&v2, "table AddOrder {", "\n}");
    assert!(order.trim_end().ends_with("attribution:uint;"), "{order}");
    assert_eq!(
        added(&v1("marketdata.fbs"), &v2, "//"),
        ["match_id:long;", "attribution:uint;"]
    );
}

#[test]
fn protobuf_gets_the_next_tag() {
    let v2 = v2("marketdata.proto");
    assert!(block(&v2, "message Trade {", "\n}").contains("  int64 match_id = 7;"));
    assert!(block(&v2, "message AddOrder {", "\n}").contains("  uint32 attribution = 7;"));
    assert_eq!(
        added(&v1("marketdata.proto"), &v2, "//"),
        ["int64 match_id = 7;", "uint32 attribution = 7;"]
    );
}

#[test]
fn sbe_appends_an_optional_field_since_version_2_and_bumps_the_schema() {
    let (v1, v2) = (v1("marketdata.xml"), v2("marketdata.xml"));
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
    // After the comment, which says which version it is.
    let body = |text: &str| text[text.find("-->").unwrap()..].to_owned();
    let added = added(&body(&v1), &body(&v2), "<!--");
    assert_eq!(added.len(), 3, "{added:?}");
    assert!(added[0].starts_with("version=\"2\""), "{added:?}");
    assert!(added[1].starts_with("<field name=\"matchId\" id=\"7\""));
    assert!(added[2].starts_with("<field name=\"attribution\" id=\"7\" type=\"uint32\""));
}

#[test]
fn bebop_gets_the_next_index_in_the_union_branch_of_its_variant() {
    let v2 = v2("marketdata.bop");
    let trade = block(&v2, "  9 -> message TradeReport {", "\n  }");
    assert!(
        trade.trim_end().ends_with("7 -> int64 match_id;"),
        "{trade}"
    );
    // Trade Break has the same fields in a branch of its own: untouched.
    assert!(!block(&v2, "message TradeBreak {", "\n  }").contains("match_id"));
    let order = block(&v2, "message AddOrder {", "\n  }");
    assert!(
        order.trim_end().ends_with("7 -> uint32 attribution;"),
        "{order}"
    );
    assert_eq!(
        added(&v1("marketdata.bop"), &v2, "//"),
        ["7 -> int64 match_id;", "7 -> uint32 attribution;"]
    );
}
