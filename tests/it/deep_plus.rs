//! DEEP+ 1.0 from the spec: golden bytes for each order message (the spec's Add Order vector among
//! them), appended fields, truncation, a two-channel capture with a gap on one channel, and the
//! book check of `inspect` on a hand-built sequence.

use crate::common::{head, pcapng_section, segment_on, shootout, udp_frame, Order, TS};
use md_shootout::error::SegmentError;
use md_shootout::iex::{decode, MessageError, Segment, DEEP_PLUS_PROTOCOL_ID};
use md_shootout::model::*;

fn sym(s: &str) -> Symbol {
    Symbol::new(s).unwrap()
}

/// The spec's Add Order vector, byte for byte (iex-feed.md, "DEEP+ 1.0"): buy, ZIEXT, order id
/// 429974, 100 shares at 99.05.
const SPEC_ADD_ORDER: [u8; 38] = [
    0x61, 0x38, 0xb2, 0x8f, 0xa5, 0xa0, 0xab, 0x86, 0x6d, 0x14, 0x5a, 0x49, 0x45, 0x58, 0x54, 0x20,
    0x20, 0x20, 0x96, 0x8f, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x64, 0x00, 0x00, 0x00, 0x24, 0x1d,
    0x0f, 0x00, 0x00, 0x00, 0x00, 0x00,
];

/// `b2 8f a5 a0 ab 86 6d 14` read little-endian.
const SPEC_ADD_ORDER_TS: i64 = 1_471_980_724_912_754_610;

#[test]
fn add_order_spec_vector() {
    let Message::AddOrder(a) = decode(&SPEC_ADD_ORDER).unwrap() else {
        panic!("not an add order")
    };
    assert_eq!(
        (a.side, a.timestamp, *a.symbol),
        (b'8', SPEC_ADD_ORDER_TS, sym("ZIEXT"))
    );
    assert_eq!((a.order_id, a.size, a.price), (429_974, 100, 990_500));
}

/// Offsets from the spec table: 1 flag/side, 2 timestamp, 10 symbol, 18 order id, 26 size,
/// 30 price, 38 trade id.
fn order_bytes(kind: u8, flag: u8, id: i64, size: u32, price: i64) -> Vec<u8> {
    let mut b = head(kind, flag, TS, "ZIEXT");
    b.extend(id.to_le_bytes());
    b.extend(size.to_le_bytes());
    b.extend(price.to_le_bytes());
    b
}

#[test]
fn order_modify() {
    let b = order_bytes(b'M', 0x01, 429_974, 80, 990_600);
    assert_eq!(b.len(), 38);
    assert_eq!(
        decode(&b).unwrap(),
        Message::OrderModify(OrderModify {
            flags: 0x01,
            timestamp: TS,
            symbol: &sym("ZIEXT"),
            order_id: 429_974,
            size: 80,
            price: 990_600,
        })
    );
}

#[test]
fn order_delete_ignores_its_reserved_byte() {
    let mut b = head(b'R', 0xee, TS, "ZIEXT");
    b.extend(429_974i64.to_le_bytes());
    assert_eq!(b.len(), 26);
    assert_eq!(
        decode(&b).unwrap(),
        Message::OrderDelete(OrderDelete {
            timestamp: TS,
            symbol: &sym("ZIEXT"),
            order_id: 429_974,
        })
    );
}

#[test]
fn order_executed() {
    let mut b = order_bytes(b'L', 0x20, 429_974, 30, 990_400);
    b.extend(7_000_003i64.to_le_bytes());
    assert_eq!(b.len(), 46);
    assert_eq!(b[38..], 7_000_003i64.to_le_bytes());
    assert_eq!(
        decode(&b).unwrap(),
        Message::OrderExecuted(OrderExecuted {
            flags: 0x20,
            timestamp: TS,
            symbol: &sym("ZIEXT"),
            order_id: 429_974,
            size: 30,
            price: 990_400,
            trade_id: 7_000_003,
        })
    );
}

#[test]
fn clear_book() {
    let b = head(b'C', 0, TS, "ZIEXT");
    assert_eq!(b.len(), 18);
    assert_eq!(
        decode(&b).unwrap(),
        Message::ClearBook(ClearBook {
            timestamp: TS,
            symbol: &sym("ZIEXT"),
        })
    );
}

#[test]
fn appended_fields_are_parsed_by_their_known_prefix_and_short_ones_refused() {
    let mut longer = SPEC_ADD_ORDER.to_vec();
    longer.extend([0xde, 0xad, 0xbe, 0xef]);
    assert_eq!(decode(&longer).unwrap(), decode(&SPEC_ADD_ORDER).unwrap());

    let short = &SPEC_ADD_ORDER[..37];
    assert_eq!(
        decode(short),
        Err(MessageError::Short {
            kind: b'a',
            len: 37,
            needed: 38
        })
    );
    let seg = segment_on(DEEP_PLUS_PROTOCOL_ID, 1, 1, TS, &[short.to_vec()]);
    match Segment::parse(&seg) {
        Err(SegmentError::ShortMessage {
            index: 1,
            kind: 'a',
            len: 37,
            needed: 38,
        }) => {}
        other => panic!("{other:?}"),
    }
    let seg = segment_on(DEEP_PLUS_PROTOCOL_ID, 1, 1, TS, &[longer]);
    let seg = Segment::parse(&seg).unwrap().unwrap();
    assert_eq!(seg.feed, Feed::DeepPlus);
    assert_eq!(seg.messages().count(), 1);
}

fn inspect_json(frames: &[Vec<u8>]) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dpls.pcapng");
    std::fs::write(&path, pcapng_section(Order::Little, frames)).unwrap();
    let out = shootout(&["inspect", "--json", path.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn add(id: i64, symbol: &str, size: u32) -> Vec<u8> {
    let mut b = head(b'a', b'8', TS, symbol);
    b.extend(id.to_le_bytes());
    b.extend(size.to_le_bytes());
    b.extend(1_000_000i64.to_le_bytes());
    b
}

fn delete(id: i64) -> Vec<u8> {
    let mut b = head(b'R', 0, TS, "ZIEXT");
    b.extend(id.to_le_bytes());
    b
}

fn exec(id: i64, size: u32) -> Vec<u8> {
    let mut b = order_bytes(b'L', 0, id, size, 1_000_000);
    b.extend(1i64.to_le_bytes());
    b
}

#[test]
fn two_channels_keep_their_own_sequence_a_gap_on_one_is_one_gap() {
    let p = DEEP_PLUS_PROTOCOL_ID;
    let segments = [
        segment_on(p, 1, 1, TS, &[add(1, "A", 100), add(2, "A", 100)]),
        segment_on(p, 2, 1, TS + 1, &[add(101, "B", 100)]),
        segment_on(p, 1, 3, TS + 2, &[delete(1)]),
        // Channel 2 expects 2: messages 2..=4 never arrived.
        segment_on(p, 2, 5, TS + 3, &[delete(101)]),
        segment_on(p, 1, 4, TS + 4, &[delete(2)]),
        segment_on(p, 2, 6, TS + 5, &[]),
    ];
    let frames: Vec<_> = segments.iter().map(|s| udp_frame(s, 0)).collect();
    let v = inspect_json(&frames);
    assert_eq!(v["feed"], "deep-plus");
    assert_eq!(v["packets"], 6);
    assert_eq!(v["heartbeats"], 1);
    assert_eq!(v["messages"], 6);
    assert_eq!(v["gaps"], 1);
    assert_eq!(v["missing_messages"], 3);
    assert_eq!(v["duplicates"], 0);
    assert_eq!(v["by_type"]["a"], 3);
    assert_eq!(v["by_type"]["R"], 3);
    assert_eq!(v["book"]["live_orders"], 0);
    assert_eq!(v["book"]["unknown_references"], 0);
}

#[test]
fn inspect_counts_book_inconsistencies_on_a_hand_built_sequence() {
    let mut longer = add(5, "SPY", 10);
    longer.extend([0, 0]); // an appended field: parsed, counted as longer
    let messages = vec![
        add(1, "ZIEXT", 100),
        add(2, "ZIEXT", 100),
        add(3, "SPY", 50),
        exec(1, 60),
        exec(1, 60),              // 40 were left: an overfill, and the order is gone
        delete(1),                // gone: unknown
        delete(9),                // never added: unknown
        add(2, "ZIEXT", 5),       // id 2 is still live
        head(b'C', 0, TS, "SPY"), // drops order 3
        exec(3, 1),               // cleared: unknown
        longer,
    ];
    let seg = segment_on(DEEP_PLUS_PROTOCOL_ID, 1, 1, TS, &messages);
    let v = inspect_json(&[udp_frame(&seg, 0)]);
    let book = &v["book"];
    assert_eq!(book["adds"], 5);
    assert_eq!(book["overfills"], 1);
    assert_eq!(book["unknown_references"], 3);
    assert_eq!(book["duplicate_adds"], 1);
    assert_eq!(book["cleared_orders"], 1);
    assert_eq!(book["live_orders"], 2); // 2 (re-added) and 5
    assert_eq!(book["peak_live_orders"], 3);
    assert_eq!(book["untracked_adds"], 0);
    assert_eq!(v["longer"], 1);
    assert_eq!(v["unknown"], 0);
}

#[test]
fn a_deep_capture_has_no_book_report() {
    let frames: Vec<_> = crate::common::deep_segments()
        .iter()
        .map(|s| udp_frame(s, 0))
        .collect();
    let v = inspect_json(&frames);
    assert_eq!(v["feed"], "deep");
    assert!(v["book"].is_null(), "{}", v["book"]);
}

#[test]
fn the_book_check_finds_a_generated_day_consistent() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dpls.pcapng");
    let opts = md_shootout::gen::GenOptions {
        feed: Feed::DeepPlus,
        packets: 30_000,
        seed: 3,
        symbols: 200,
        ..Default::default()
    };
    let report = md_shootout::gen::generate_file(&opts, &path).unwrap();
    let out = shootout(&["inspect", "--json", path.to_str().unwrap()]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let book = &v["book"];
    assert_eq!(book["adds"], report.by_type[&'a']);
    for key in [
        "unknown_references",
        "overfills",
        "duplicate_adds",
        "untracked_adds",
    ] {
        assert_eq!(book[key], 0, "{key}: {book}");
    }
    assert!(book["live_orders"].as_u64().unwrap() > 0);
    assert!(book["cleared_orders"].as_u64().unwrap() <= report.by_type[&'a']);
}
