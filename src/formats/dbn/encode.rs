//! IEX messages to DBN version 3 records (the mapping table is in the module docs of
//! `formats::dbn`), written as the crate's `repr(C)` structs' bytes.

use std::ffi::c_char;

use ::dbn::v3::{
    ImbalanceMsg, InstrumentDefMsg, MboMsg, Mbp1Msg, RecordHeader, StatMsg, StatusMsg,
    SymbolMappingMsg, SystemMsg,
};
use ::dbn::{flags, rtype, FlagSet, HasRType, UNDEF_ORDER_SIZE, UNDEF_PRICE, UNDEF_TIMESTAMP};
use rustc_hash::FxHashMap;

use super::projection::{REASONS, SCALE};
use super::codes::{action, reason, MARKER_CODE};
use crate::model::{Message, OfficialPrice, Packet, SecurityDirectory, Symbol, TradingStatus};

/// The encoder's state: instrument ids, assigned on a symbol's first sight and never reused
/// for the whole run, and in which stream each was last announced.
#[derive(Debug)]
pub(super) struct Encoder {
    ids: FxHashMap<[u8; 8], u32>,
    /// Per instrument id, the stream its `SymbolMappingMsg` was last written in.
    announced: Vec<u32>,
    /// The stream being written: a new one each time the encoder is handed an empty buffer.
    stream: u32,
}

impl Default for Encoder {
    fn default() -> Self {
        // IEX lists about 12,000 symbols: room for all, so that no timed encode grows the map.
        let mut ids = FxHashMap::default();
        ids.reserve(1 << 14);
        Encoder {
            ids,
            announced: Vec::with_capacity(1 << 14),
            stream: 0,
        }
    }
}

/// A price in DBN's 1e-9 units; IEX's zero ("no price") and a price whose 1e-9 value overflows
/// are `UNDEF_PRICE`.
#[inline(always)]
fn px(p: i64) -> i64 {
    match p {
        0 => UNDEF_PRICE,
        p => p.checked_mul(SCALE).unwrap_or(UNDEF_PRICE),
    }
}

#[inline(always)]
fn hd<R: HasRType>(rtype: u8, instrument_id: u32, ts_event: i64) -> RecordHeader {
    RecordHeader::new::<R>(rtype, 0, instrument_id, ts_event as u64)
}

#[inline(always)]
fn put<R: AsRef<[u8]>>(out: &mut Vec<u8>, record: &R) {
    out.extend_from_slice(record.as_ref());
}

/// `bytes` as a NUL-terminated C string in `to` (zeroed by its record's `Default`).
fn c_string(to: &mut [c_char], bytes: &[u8]) {
    for (t, &b) in to.iter_mut().zip(bytes) {
        *t = b as c_char;
    }
}

/// Whether the message's record has a `flags` field (MBO, MBP-1) that can end a packet.
fn has_flags(m: &Message) -> bool {
    !matches!(
        m,
        Message::SystemEvent(_)
            | Message::SecurityDirectory(_)
            | Message::TradingStatus(_)
            | Message::OperationalHalt(_)
            | Message::ShortSalePriceTest(_)
            | Message::SecurityEvent(_)
            | Message::RetailLiquidity(_)
            | Message::OfficialPrice(_)
            | Message::AuctionInformation(_)
    )
}

/// Whether the message's record has a `sequence` field (MBO, MBP-1, statistics).
fn has_sequence(m: &Message) -> bool {
    has_flags(m) || matches!(m, Message::OfficialPrice(_))
}

/// Whether the packet needs a leading `SystemMsg` to say its sequence number and length: one
/// that is empty, has no record with a `sequence`, or does not end in a record that can carry
/// `F_LAST`.
pub(super) fn needs_marker(packet: &Packet) -> bool {
    match packet.messages.last() {
        None => true,
        Some(last) => !has_flags(last) || !packet.messages.iter().any(has_sequence),
    }
}

impl Encoder {
    /// Writes `packet` to `out` (see the module docs of `formats::dbn`); returns its messages.
    pub(super) fn packet(&mut self, packet: &Packet, out: &mut Vec<u8>) -> usize {
        if out.is_empty() {
            self.stream = self.stream.wrapping_add(1);
        }
        let send = packet.send_time;
        let marker = needs_marker(packet);
        if marker {
            put(out, &marker_record(packet));
        }
        let n = packet.messages.len();
        let seq = packet.seq as u32;
        for (i, m) in packet.messages.iter().enumerate() {
            let id = match m.symbol() {
                Some(s) => self.instrument(s, send, out),
                None => 0,
            };
            let ctx = Ctx {
                id,
                send,
                sequence: seq.wrapping_add(i as u32),
                last: !marker && i + 1 == n,
            };
            write(m, ctx, out);
        }
        n
    }

    /// The instrument id of `symbol`, its `SymbolMappingMsg` written first if this stream has
    /// not announced it yet.
    fn instrument(&mut self, symbol: &Symbol, send: i64, out: &mut Vec<u8>) -> u32 {
        let next = self.ids.len() as u32 + 1;
        let id = *self.ids.entry(symbol.0).or_insert(next);
        let slot = id as usize;
        if slot >= self.announced.len() {
            self.announced.resize(slot + 1, 0);
        }
        if self.announced[slot] != self.stream {
            self.announced[slot] = self.stream;
            put(out, &mapping(id, symbol, send));
        }
        id
    }
}

/// The `SystemMsg` in front of a packet that needs one ([`needs_marker`]): Databento's
/// heartbeat for an empty packet, else the count of records that follow in its text; the
/// IEX-TP sequence number (its low 32 bits) in `instrument_id`, the send time in `ts_event`.
fn marker_record(packet: &Packet) -> SystemMsg {
    let mut m = SystemMsg {
        hd: hd::<SystemMsg>(rtype::SYSTEM, packet.seq as u32, packet.send_time),
        ..Default::default()
    };
    if packet.messages.is_empty() {
        m.code = 0; // SystemCode::Heartbeat
        c_string(&mut m.msg, b"Heartbeat");
    } else {
        m.code = MARKER_CODE;
        // The count in decimal (at most 65,535: an IEX-TP header counts in a u16).
        let (mut digits, mut n, mut at) = ([0u8; 20], packet.messages.len(), 20);
        while n > 0 || at == 20 {
            at -= 1;
            digits[at] = b'0' + (n % 10) as u8;
            n /= 10;
        }
        c_string(&mut m.msg, &digits[at..]);
    }
    m
}

fn mapping(id: u32, symbol: &Symbol, send: i64) -> SymbolMappingMsg {
    let mut m = SymbolMappingMsg {
        hd: hd::<SymbolMappingMsg>(rtype::SYMBOL_MAPPING, id, send),
        // SType::RawSymbol both ways: the symbol is the venue's own.
        stype_in: 1,
        stype_out: 1,
        start_ts: send as u64,
        end_ts: UNDEF_TIMESTAMP,
        ..Default::default()
    };
    let text = super::projection::symbol(*symbol);
    let text = text.trimmed();
    c_string(&mut m.stype_in_symbol, text);
    c_string(&mut m.stype_out_symbol, text);
    m
}

/// What every record of a message shares.
#[derive(Clone, Copy)]
struct Ctx {
    id: u32,
    send: i64,
    sequence: u32,
    /// The packet's last record, marked `F_LAST`.
    last: bool,
}

/// An MBO record of an IEX order id (or trade id), size and price (0: none).
#[inline(always)]
fn mbo(ctx: Ctx, ts: i64, action: u8, side: u8, order_id: i64, size: u32, price: i64) -> MboMsg {
    MboMsg {
        hd: hd::<MboMsg>(rtype::MBO, ctx.id, ts),
        order_id: order_id as u64,
        price: px(price),
        size,
        flags: FlagSet::new(if ctx.last { flags::LAST } else { 0 }),
        channel_id: 0,
        action: action as c_char,
        side: side as c_char,
        ts_recv: ctx.send as u64,
        ts_in_delta: 0,
        sequence: ctx.sequence,
    }
}

#[inline(always)]
fn mbp1(ctx: Ctx, ts: i64, side: u8, extra_flags: u8) -> Mbp1Msg {
    Mbp1Msg {
        hd: hd::<Mbp1Msg>(rtype::MBP_1, ctx.id, ts),
        flags: FlagSet::new(extra_flags | if ctx.last { flags::LAST } else { 0 }),
        action: b'M' as c_char,
        side: side as c_char,
        ts_recv: ctx.send as u64,
        ts_in_delta: 0,
        sequence: ctx.sequence,
        ..Default::default()
    }
}

fn status(ctx: Ctx, ts: i64, action: u16, reason: u16) -> StatusMsg {
    StatusMsg {
        hd: hd::<StatusMsg>(rtype::STATUS, ctx.id, ts),
        ts_recv: ctx.send as u64,
        action,
        reason,
        ..Default::default()
    }
}

const fn yes_no(b: bool) -> c_char {
    (if b { b'Y' } else { b'N' }) as c_char
}

/// One message's record.
#[inline(always)]
fn write(m: &Message, ctx: Ctx, out: &mut Vec<u8>) {
    match *m {
        Message::AddOrder(a) => {
            let side = match a.side {
                b'8' => b'B',
                b'5' => b'A',
                _ => b'N',
            };
            put(out, &mbo(ctx, a.timestamp, b'A', side, a.order_id, a.size, a.price));
        }
        Message::OrderModify(o) => {
            put(out, &mbo(ctx, o.timestamp, b'M', b'N', o.order_id, o.size, o.price));
        }
        Message::OrderDelete(d) => put(out, &mbo(ctx, d.timestamp, b'C', b'N', d.order_id, 0, 0)),
        Message::OrderExecuted(l) => {
            put(out, &mbo(ctx, l.timestamp, b'F', b'N', l.order_id, l.size, l.price));
        }
        Message::ClearBook(c) => put(out, &mbo(ctx, c.timestamp, b'R', b'N', 0, 0, 0)),
        Message::TradeReport(t) => {
            put(out, &mbo(ctx, t.timestamp, b'T', b'N', t.trade_id, t.size, t.price));
        }
        Message::TradeBreak(t) => {
            put(out, &mbo(ctx, t.timestamp, b'N', b'N', t.trade_id, t.size, t.price));
        }
        Message::PriceLevelUpdate(l) => {
            let side = match l.side {
                crate::model::Side::Buy => b'B',
                crate::model::Side::Sell => b'A',
            };
            let done = if l.flags & 1 != 0 {
                flags::PUBLISHER_SPECIFIC
            } else {
                0
            };
            let mut r = mbp1(ctx, l.timestamp, side, flags::MBP | done);
            r.action = (if l.size == 0 { b'C' } else { b'M' }) as c_char;
            r.price = px(l.price);
            r.size = l.size;
            put(out, &r);
        }
        Message::QuoteUpdate(q) => {
            let mut r = mbp1(ctx, q.timestamp, b'N', flags::TOB);
            r.price = UNDEF_PRICE;
            let level = &mut r.levels[0];
            (level.bid_px, level.ask_px) = (px(q.bid_price), px(q.ask_price));
            (level.bid_sz, level.ask_sz) = (q.bid_size, q.ask_size);
            put(out, &r);
        }
        Message::SystemEvent(s) => {
            put(out, &status(ctx, s.timestamp, action::NONE, reason::NONE));
        }
        Message::TradingStatus(h) => put(out, &trading_status(ctx, &h)),
        Message::OperationalHalt(o) => {
            let halted = o.status == b'O';
            let act = if halted { action::HALT } else { action::NONE };
            put(out, &status(ctx, o.timestamp, act, reason::OPERATIONAL));
        }
        Message::ShortSalePriceTest(p) => {
            let mut r = status(ctx, p.timestamp, action::SSR_CHANGE, reason::NONE);
            r.is_short_sell_restricted = yes_no(p.status != 0);
            put(out, &r);
        }
        Message::SecurityEvent(e) => {
            let open = e.event == b'O';
            let act = if open { action::TRADING } else { action::CLOSE };
            let mut r = status(ctx, e.timestamp, act, reason::NONE);
            r.trading_event = super::codes::CHANGE_TRADING_SESSION;
            put(out, &r);
        }
        Message::RetailLiquidity(i) => {
            put(out, &status(ctx, i.timestamp, action::NONE, reason::NONE));
        }
        Message::OfficialPrice(x) => put(out, &statistic(ctx, &x)),
        Message::AuctionInformation(a) => put(out, &imbalance(ctx, &a)),
        Message::SecurityDirectory(d) => put(out, &definition(ctx, &d)),
    }
}

/// A trading status: its action, the reason where DBN has a code, and what trades and quotes.
#[inline(always)]
fn trading_status(ctx: Ctx, h: &TradingStatus) -> StatusMsg {
    let act = match h.status {
        b'O' => action::QUOTING,
        b'P' => action::PAUSE,
        b'T' => action::TRADING,
        _ => action::HALT,
    };
    let why = REASONS
        .iter()
        .find(|(r, _)| *r == h.reason)
        .map_or(reason::NONE, |&(_, code)| code);
    let mut r = status(ctx, h.timestamp, act, why);
    r.is_trading = yes_no(act == action::TRADING);
    r.is_quoting = yes_no(act == action::TRADING || act == action::QUOTING);
    r
}

/// An official price as the opening or closing price statistic.
#[inline(always)]
fn statistic(ctx: Ctx, x: &OfficialPrice) -> StatMsg {
    StatMsg {
        hd: hd::<StatMsg>(rtype::STATISTICS, ctx.id, x.timestamp),
        ts_recv: ctx.send as u64,
        ts_ref: UNDEF_TIMESTAMP,
        price: px(x.price),
        sequence: ctx.sequence,
        stat_type: if x.price_type == b'Q' {
            super::codes::OPENING_PRICE
        } else {
            super::codes::CLOSE_PRICE
        },
        update_action: 1, // StatUpdateAction::New
        ..Default::default()
    }
}

/// A security directory entry as a stock's instrument definition.
#[inline(always)]
fn definition(ctx: Ctx, d: &SecurityDirectory) -> InstrumentDefMsg {
    let mut r = InstrumentDefMsg {
        hd: hd::<InstrumentDefMsg>(rtype::INSTRUMENT_DEF, ctx.id, d.timestamp),
        ts_recv: ctx.send as u64,
        min_lot_size_round_lot: d.round_lot_size.min(i32::MAX as u32) as i32,
        instrument_class: b'K' as c_char, // InstrumentClass::Stock
        security_update_action: b'A' as c_char,
        ..Default::default()
    };
    c_string(&mut r.raw_symbol, super::projection::symbol(d.symbol).trimmed());
    c_string(&mut r.currency, b"USD");
    r
}

fn imbalance(ctx: Ctx, a: &crate::model::AuctionInformation) -> ImbalanceMsg {
    ImbalanceMsg {
        hd: hd::<ImbalanceMsg>(rtype::IMBALANCE, ctx.id, a.timestamp),
        ts_recv: ctx.send as u64,
        ref_price: px(a.reference_price),
        auction_time: u64::from(a.scheduled_auction_time) * 1_000_000_000,
        cont_book_clr_price: UNDEF_PRICE,
        auct_interest_clr_price: px(a.auction_book_clearing_price),
        ssr_filling_price: UNDEF_PRICE,
        ind_match_price: px(a.indicative_clearing_price),
        upper_collar: px(a.upper_auction_collar),
        lower_collar: px(a.lower_auction_collar),
        paired_qty: a.paired_shares,
        total_imbalance_qty: a.imbalance_shares,
        market_imbalance_qty: UNDEF_ORDER_SIZE,
        unpaired_qty: UNDEF_ORDER_SIZE,
        auction_type: a.auction_type as c_char,
        side: (match a.imbalance_side {
            b'B' => b'B',
            b'S' => b'A',
            _ => b'N',
        }) as c_char,
        num_extensions: a.extension_number,
        unpaired_side: b'N' as c_char,
        significant_imbalance: b'~' as c_char,
        ..Default::default()
    }
}
