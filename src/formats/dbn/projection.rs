//! What `dbn` carries of a packet, said once as code: [`project`] is the packet a correct `dbn`
//! decoder gives back, and [`NOT_CARRIED`] the same in words. The run checks `dbn`'s complete
//! decode against the projected packets (`measure::shootout`, `Expected`), so its every-field
//! check covers exactly the fields DBN has a slot for, and a test checks that the codec's round
//! trip equals this projection: written apart from the codec, from the mapping table in the
//! module docs of `formats::dbn`, so that a slot the codec loses or invents is found.

use crate::model::{Message, Packet, Symbol};

/// Every IEX field `dbn` does not carry, and what the decoder gives back instead.
pub const NOT_CARRIED: &str = "no DBN slot for: system event codes (S, read back 0); the \
    retail liquidity indicator (I, 0); sale-condition flags of trades, breaks and executions \
    (T, B, L: 0); the trade id of an order execution (L: 0); the modify flags (M: 0); quote \
    flags (Q: 0); price level flags but the event-complete bit (8/5); the short-sale test \
    detail (P: 0); security directory flags, adjusted POC price and LULD tier (D: 0, and a \
    round lot above 2^31-1 saturates); the auction collar reference price (A: 0); trading \
    status reasons DBN has no code for (H: NA and others read back as four spaces); status, \
    side and price-type bytes the IEX specs do not define (read back as the nearest defined \
    one); an IEX-TP sequence number's bits above 32 (DBN's sequence is a u32); a price whose \
    1e-9 value overflows an i64 (read back 0); a symbol's bytes from a NUL on";

/// IEX prices have 4 implied decimals, DBN's 9.
pub(crate) const SCALE: i64 = 100_000;

/// The IEX trading status reasons DBN's `StatusReason` has a code for; every other reason
/// (`NA  `, `IPOD`, ...) is read back as four spaces (`StatusReason::None`).
pub(crate) const REASONS: [([u8; 4], u16); 6] = [
    (*b"T1  ", 30),  // NewsPending
    (*b"T2  ", 31),  // NewsReleased
    (*b"IPO1", 15),  // NewIssue
    (*b"MCB1", 120), // MarketWideHaltLevel1
    (*b"MCB2", 121), // MarketWideHaltLevel2
    (*b"MCB3", 122), // MarketWideHaltLevel3
];

/// The reason a status with no DBN reason code reads back as.
pub(crate) const NO_REASON: [u8; 4] = *b"    ";

/// `packet` as `dbn` carries it.
pub fn project(packet: &Packet) -> Packet {
    Packet {
        seq: u64::from(packet.seq as u32),
        send_time: packet.send_time,
        messages: packet.messages.iter().map(|m| message(*m)).collect(),
    }
}

/// A price as DBN carries it: exact unless its 1e-9 value overflows.
fn price(p: i64) -> i64 {
    if p.checked_mul(SCALE).is_some() {
        p
    } else {
        0
    }
}

/// A symbol as DBN's NUL-terminated `raw_symbol` carries it: up to a NUL, right-padded.
pub(crate) fn symbol(s: Symbol) -> Symbol {
    let trimmed = s.trimmed();
    let end = trimmed.iter().position(|&b| b == 0).unwrap_or(trimmed.len());
    let mut out = [b' '; 8];
    out[..end].copy_from_slice(&trimmed[..end]);
    Symbol(out)
}

fn message(m: Message) -> Message {
    let mut m = m.map_symbol(symbol);
    match &mut m {
        Message::SystemEvent(s) => s.event = 0,
        Message::SecurityDirectory(d) => {
            d.flags = 0;
            d.adjusted_poc_price = 0;
            d.luld_tier = 0;
            d.round_lot_size = d.round_lot_size.min(i32::MAX as u32);
        }
        Message::TradingStatus(h) => {
            if !matches!(h.status, b'H' | b'O' | b'P' | b'T') {
                h.status = b'H';
            }
            if !REASONS.iter().any(|(r, _)| *r == h.reason) {
                h.reason = NO_REASON;
            }
        }
        Message::OperationalHalt(o) => {
            if o.status != b'O' {
                o.status = b'N';
            }
        }
        Message::ShortSalePriceTest(p) => {
            p.status = u8::from(p.status != 0);
            p.detail = 0;
        }
        Message::SecurityEvent(e) => {
            if e.event != b'O' {
                e.event = b'C';
            }
        }
        Message::RetailLiquidity(i) => i.indicator = 0,
        Message::PriceLevelUpdate(l) => {
            l.flags &= 1;
            l.price = price(l.price);
        }
        Message::TradeReport(t) | Message::TradeBreak(t) => {
            t.flags = 0;
            t.price = price(t.price);
        }
        Message::OfficialPrice(x) => {
            if x.price_type != b'Q' {
                x.price_type = b'M';
            }
            x.price = price(x.price);
        }
        Message::AuctionInformation(a) => {
            a.collar_reference_price = 0;
            if !matches!(a.imbalance_side, b'B' | b'S') {
                a.imbalance_side = b'N';
            }
            for p in [
                &mut a.reference_price,
                &mut a.indicative_clearing_price,
                &mut a.auction_book_clearing_price,
                &mut a.lower_auction_collar,
                &mut a.upper_auction_collar,
            ] {
                *p = price(*p);
            }
        }
        Message::QuoteUpdate(q) => {
            q.flags = 0;
            q.bid_price = price(q.bid_price);
            q.ask_price = price(q.ask_price);
        }
        Message::AddOrder(a) => {
            if !matches!(a.side, b'8' | b'5') {
                a.side = 0;
            }
            a.price = price(a.price);
        }
        Message::OrderModify(o) => {
            o.flags = 0;
            o.price = price(o.price);
        }
        Message::OrderExecuted(l) => {
            l.flags = 0;
            l.trade_id = 0;
            l.price = price(l.price);
        }
        Message::OrderDelete(_) | Message::ClearBook(_) => {}
    }
    m
}
