//! Golden byte vectors for every DEEP and TOPS message type, laid out by hand from the spec table
//! (offsets and widths in `iex-feed.md`), decoded field by field.

use crate::common::TS;
use md_shootout::iex::{decode, MessageError, Segment};
use md_shootout::model::*;

fn sym(s: &str) -> Symbol {
    Symbol::new(s).unwrap()
}

/// The Trade Report example from the IEX TOPS specification, byte for byte: ZIEXT, 100 shares at
/// 99.05, trade id 429974, 2016-08-23 15:30:32.572715948.
const SPEC_TRADE: [u8; 38] = [
    0x54, 0x00, 0xac, 0x63, 0xc0, 0x20, 0x96, 0x86, 0x6d, 0x14, 0x5a, 0x49, 0x45, 0x58, 0x54, 0x20,
    0x20, 0x20, 0x64, 0x00, 0x00, 0x00, 0x24, 0x1d, 0x0f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x96, 0x8f,
    0x06, 0x00, 0x00, 0x00, 0x00, 0x00,
];

/// The Quote Update example from the IEX TOPS specification: 9700 @ 99.05 x 99.07 @ 1000.
const SPEC_QUOTE: [u8; 42] = [
    0x51, 0x00, 0xac, 0x63, 0xc0, 0x20, 0x96, 0x86, 0x6d, 0x14, 0x5a, 0x49, 0x45, 0x58, 0x54, 0x20,
    0x20, 0x20, 0xe4, 0x25, 0x00, 0x00, 0x24, 0x1d, 0x0f, 0x00, 0x00, 0x00, 0x00, 0x00, 0xec, 0x1d,
    0x0f, 0x00, 0x00, 0x00, 0x00, 0x00, 0xe8, 0x03, 0x00, 0x00,
];

#[test]
fn trade_report_spec_example() {
    let Message::TradeReport(t) = decode(&SPEC_TRADE).unwrap() else {
        panic!("not a trade report")
    };
    assert_eq!(t.flags, 0);
    assert_eq!(t.timestamp, TS);
    assert_eq!(*t.symbol, sym("ZIEXT"));
    assert_eq!(t.size, 100);
    assert_eq!(t.price, 990_500);
    assert_eq!(t.trade_id, 429_974);
}

#[test]
fn quote_update_spec_example() {
    let Message::QuoteUpdate(q) = decode(&SPEC_QUOTE).unwrap() else {
        panic!("not a quote update")
    };
    assert_eq!((q.flags, q.timestamp, *q.symbol), (0, TS, sym("ZIEXT")));
    assert_eq!((q.bid_size, q.bid_price), (9_700, 990_500));
    assert_eq!((q.ask_price, q.ask_size), (990_700, 1_000));
}

#[test]
fn system_event() {
    let bytes = [0x53, 0x4f, 0xac, 0x63, 0xc0, 0x20, 0x96, 0x86, 0x6d, 0x14];
    assert_eq!(
        decode(&bytes).unwrap(),
        Message::SystemEvent(SystemEvent {
            event: b'O',
            timestamp: TS
        })
    );
}

#[test]
fn security_directory() {
    // D, flags 0x80 (test security), ts, ZIEXT, round lot 100, POC 99.05, LULD tier 1
    let mut b = crate::common::head(b'D', 0x80, TS, "ZIEXT");
    b.extend([0x64, 0, 0, 0]);
    b.extend([0x24, 0x1d, 0x0f, 0, 0, 0, 0, 0]);
    b.push(1);
    assert_eq!(b.len(), 31);
    let Message::SecurityDirectory(d) = decode(&b).unwrap() else {
        panic!()
    };
    assert_eq!((d.flags, d.timestamp, *d.symbol), (0x80, TS, sym("ZIEXT")));
    assert_eq!(
        (d.round_lot_size, d.adjusted_poc_price, d.luld_tier),
        (100, 990_500, 1)
    );
}

#[test]
fn trading_status() {
    let mut b = crate::common::head(b'H', b'H', TS, "ZIEXT");
    b.extend(*b"T1  ");
    assert_eq!(b.len(), 22);
    let Message::TradingStatus(h) = decode(&b).unwrap() else {
        panic!()
    };
    assert_eq!(
        (h.status, h.timestamp, *h.symbol, h.reason),
        (b'H', TS, sym("ZIEXT"), *b"T1  ")
    );
}

#[test]
fn one_byte_status_messages() {
    let halt = crate::common::head(b'O', b'O', TS, "ZIEXT");
    assert_eq!(
        decode(&halt).unwrap(),
        Message::OperationalHalt(OperationalHalt {
            status: b'O',
            timestamp: TS,
            symbol: &sym("ZIEXT")
        })
    );
    let mut ssr = crate::common::head(b'P', 1, TS, "ZIEXT");
    ssr.push(b'A');
    assert_eq!(
        decode(&ssr).unwrap(),
        Message::ShortSalePriceTest(ShortSalePriceTest {
            status: 1,
            timestamp: TS,
            symbol: &sym("ZIEXT"),
            detail: b'A'
        })
    );
    let event = crate::common::head(b'E', b'O', TS, "ZIEXT");
    assert_eq!(
        decode(&event).unwrap(),
        Message::SecurityEvent(SecurityEvent {
            event: b'O',
            timestamp: TS,
            symbol: &sym("ZIEXT")
        })
    );
    let rli = crate::common::head(b'I', b'C', TS, "ZIEXT");
    assert_eq!(
        decode(&rli).unwrap(),
        Message::RetailLiquidity(RetailLiquidity {
            indicator: b'C',
            timestamp: TS,
            symbol: &sym("ZIEXT")
        })
    );
}

#[test]
fn price_level_updates_both_sides() {
    for (kind, side) in [(b'8', Side::Buy), (b'5', Side::Sell)] {
        // flags 1, ts, ZIEXT, size 9700, price 99.05
        let mut b = crate::common::head(kind, 1, TS, "ZIEXT");
        b.extend([0xe4, 0x25, 0, 0]);
        b.extend([0x24, 0x1d, 0x0f, 0, 0, 0, 0, 0]);
        assert_eq!(b.len(), 30);
        assert_eq!(
            decode(&b).unwrap(),
            Message::PriceLevelUpdate(PriceLevelUpdate {
                side,
                flags: 1,
                timestamp: TS,
                symbol: &sym("ZIEXT"),
                size: 9_700,
                price: 990_500
            })
        );
    }
}

#[test]
fn trade_break_shares_the_trade_layout() {
    let mut b = SPEC_TRADE;
    b[0] = b'B';
    b[1] = 0x40;
    let Message::TradeBreak(t) = decode(&b).unwrap() else {
        panic!()
    };
    assert_eq!(
        (t.flags, t.size, t.price, t.trade_id),
        (0x40, 100, 990_500, 429_974)
    );
}

#[test]
fn official_price() {
    let mut b = crate::common::head(b'X', b'Q', TS, "ZIEXT");
    b.extend([0x24, 0x1d, 0x0f, 0, 0, 0, 0, 0]);
    assert_eq!(b.len(), 26);
    assert_eq!(
        decode(&b).unwrap(),
        Message::OfficialPrice(OfficialPrice {
            price_type: b'Q',
            timestamp: TS,
            symbol: &sym("ZIEXT"),
            price: 990_500
        })
    );
}

#[test]
fn auction_information() {
    let mut b = crate::common::head(b'A', b'C', TS, "ZIEXT");
    b.extend(10_000u32.to_le_bytes()); // paired shares
    b.extend(990_500i64.to_le_bytes()); // reference price
    b.extend(990_600i64.to_le_bytes()); // indicative clearing price
    b.extend(1_200u32.to_le_bytes()); // imbalance shares
    b.push(b'B'); // imbalance side
    b.push(2); // extension number
    b.extend(1_471_982_400u32.to_le_bytes()); // scheduled auction time
    b.extend(990_700i64.to_le_bytes()); // auction book clearing price
    b.extend(990_000i64.to_le_bytes()); // collar reference price
    b.extend(940_500i64.to_le_bytes()); // lower collar
    b.extend(1_039_500i64.to_le_bytes()); // upper collar
    assert_eq!(b.len(), 80);
    let Message::AuctionInformation(a) = decode(&b).unwrap() else {
        panic!()
    };
    assert_eq!(
        (a.auction_type, a.timestamp, *a.symbol),
        (b'C', TS, sym("ZIEXT"))
    );
    assert_eq!((a.paired_shares, a.reference_price), (10_000, 990_500));
    assert_eq!(a.indicative_clearing_price, 990_600);
    assert_eq!((a.imbalance_shares, a.imbalance_side), (1_200, b'B'));
    assert_eq!(
        (a.extension_number, a.scheduled_auction_time),
        (2, 1_471_982_400)
    );
    assert_eq!(a.auction_book_clearing_price, 990_700);
    assert_eq!(a.collar_reference_price, 990_000);
    assert_eq!(
        (a.lower_auction_collar, a.upper_auction_collar),
        (940_500, 1_039_500)
    );
}

#[test]
fn short_unknown_and_empty_messages() {
    assert_eq!(
        decode(&SPEC_TRADE[..37]),
        Err(MessageError::Short {
            kind: b'T',
            len: 37,
            needed: 38
        })
    );
    assert_eq!(decode(b"Zabc"), Err(MessageError::Unknown(b'Z')));
    assert_eq!(decode(&[]), Err(MessageError::Empty));
    // A longer message (a field appended by a future spec) still decodes.
    let mut longer = SPEC_TRADE.to_vec();
    longer.extend([0xff; 4]);
    assert!(matches!(decode(&longer), Ok(Message::TradeReport(_))));
}

#[test]
fn segment_header_fields_and_messages() {
    let seg = crate::common::segment(
        0x8003,
        42,
        TS,
        &[SPEC_QUOTE.to_vec(), SPEC_TRADE.to_vec(), b"Zxyz".to_vec()],
    );
    let s = Segment::parse(&seg).unwrap().unwrap();
    assert_eq!(s.feed, Feed::Tops);
    let h = s.header;
    assert_eq!((h.version, h.protocol_id, h.channel_id), (1, 0x8003, 1));
    assert_eq!(
        (h.session_id, h.message_count, h.first_seq),
        (0x4200_0000, 3, 42)
    );
    assert_eq!((h.payload_len, h.send_time), (2 + 42 + 2 + 38 + 2 + 4, TS));
    let kinds: Vec<_> = s.messages().map(|m| m.map(|m| m.kind())).collect();
    assert_eq!(
        kinds,
        vec![Ok(b'Q'), Ok(b'T'), Err(MessageError::Unknown(b'Z'))]
    );
}

#[test]
fn segment_validation_errors() {
    use md_shootout::error::SegmentError::*;
    let good = crate::common::segment(0x8004, 1, TS, &[SPEC_TRADE.to_vec()]);
    // Not IEX-TP at all: wrong version, unknown protocol.
    let mut other = good.clone();
    other[0] = 2;
    assert!(Segment::parse(&other).unwrap().is_none());
    other = good.clone();
    other[2] = 0x01;
    assert!(Segment::parse(&other).unwrap().is_none());
    // Header cut off.
    assert_eq!(
        Segment::parse(&good[..30]).unwrap_err(),
        ShortHeader { len: 30 }
    );
    // Payload length disagreeing with the datagram.
    assert_eq!(
        Segment::parse(&good[..good.len() - 1]).unwrap_err(),
        PayloadLength {
            declared: 40,
            present: 39
        }
    );
    // A message claiming more than the segment holds.
    let mut past = good.clone();
    past[40] = 60;
    assert_eq!(
        Segment::parse(&past).unwrap_err(),
        MessagePastEnd {
            index: 1,
            count: 1,
            len: 60,
            remaining: 38
        }
    );
    // Fewer blocks than the count says; more bytes than the blocks use.
    let mut count = good.clone();
    count[14] = 2;
    assert_eq!(
        Segment::parse(&count).unwrap_err(),
        LengthCut { index: 2, count: 2 }
    );
    count[14] = 0;
    assert_eq!(
        Segment::parse(&count).unwrap_err(),
        TrailingBytes {
            count: 0,
            trailing: 40
        }
    );
    // A known type shorter than the spec.
    let short = crate::common::segment(0x8004, 1, TS, &[SPEC_TRADE[..20].to_vec()]);
    assert_eq!(
        Segment::parse(&short).unwrap_err(),
        ShortMessage {
            index: 1,
            kind: 'T',
            len: 20,
            needed: 38
        }
    );
    let empty = crate::common::segment(0x8004, 1, TS, &[vec![]]);
    assert_eq!(
        Segment::parse(&empty).unwrap_err(),
        EmptyMessage { index: 1, count: 1 }
    );
}
