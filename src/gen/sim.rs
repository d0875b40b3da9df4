//! The simulated trading day: the single source of truth for what the generator emits.
//!
//! [`Simulation::next_into`] produces one IEX-TP segment's worth of messages as a
//! [`model::Packet`](crate::model::Packet); the capture writer and the in-memory packet view both
//! drive this same state machine, so the same seed always gives the same packets either way.
//!
//! The day is laid out by packet index, not by wall time, so any `--packets` gets every phase:
//! admin burst → pre-market → opening auction window → open burst → regular hours → closing
//! auction window → close burst → post-market → end of day. Bursts are packed densely (as IEX
//! does at start of day); flows carry ~2.4 messages per segment with heartbeats in quiet times.
//! State kept is per symbol only, so memory is bounded whatever the packet count.

use std::io;

use fastrand::Rng;
use rustc_hash::FxHashSet;

use crate::model::{
    AuctionInformation, Feed, Message, OfficialPrice, OperationalHalt, Packet, PriceLevelUpdate,
    QuoteUpdate, RetailLiquidity, SecurityDirectory, SecurityEvent, ShortSalePriceTest, Side,
    Symbol, SystemEvent, Timestamp, Trade, TradingStatus,
};

use super::GenOptions;

const NS: i64 = 1_000_000_000;
const HOUR: i64 = 3600 * NS;
const MINUTE: i64 = 60 * NS;
/// 2019-09-03 00:00:00 UTC, the day of the original shootout's DEEP capture.
pub const DAY_START: Timestamp = 1_567_468_800 * NS;
/// Start of system hours, 04:00 New York.
pub const SYSTEM_START: Timestamp = DAY_START + 8 * HOUR;
/// Regular market open, 09:30 New York.
pub const MARKET_OPEN: Timestamp = DAY_START + 13 * HOUR + 30 * MINUTE;
/// Regular market close, 16:00 New York.
pub const MARKET_CLOSE: Timestamp = DAY_START + 20 * HOUR;
/// End of system hours, 20:00 New York.
pub const SYSTEM_END: Timestamp = DAY_START + 24 * HOUR;
/// Auction information is published this long before the open and the close.
const AUCTION_WINDOW: i64 = 10 * MINUTE;
/// Spacing of packets inside a burst; bursts stay far shorter than the 1 s gap after them.
const BURST_STEP: i64 = 5_000;

/// Upper bound on `--symbols`: keeps ticker generation fast and per-symbol state small.
pub const MAX_SYMBOLS: usize = 100_000;
/// The IEX test symbol, always present, always last (least active).
pub const TEST_SYMBOL: &str = "ZIEXT";
/// One tick: $0.01 in 4-decimal fixed point.
const TICK: i64 = 100;
/// Densest burst packing; 40 × 33-byte `D` messages still fits a 1500-byte MTU.
const MAX_BURST_DENSITY: u64 = 40;

/// Messages per flow segment, drawn uniformly from this table (mean 2.4).
const FLOW_COUNTS: [u16; 20] = [1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 5, 6];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flow {
    Pre,
    OpenAuction,
    Regular,
    CloseAuction,
    Post,
}

impl Flow {
    fn extended_hours(self) -> bool {
        matches!(self, Flow::Pre | Flow::Post | Flow::OpenAuction)
    }
    /// Heartbeat probability per segment, in 1/10000: IEX heartbeats when nothing else is sent,
    /// which happens mostly outside regular hours.
    fn heartbeat_bp(self) -> u32 {
        match self {
            Flow::Pre | Flow::Post => 500,
            Flow::OpenAuction | Flow::CloseAuction => 100,
            Flow::Regular => 50,
        }
    }
    /// Trade reports per 10000 messages.
    fn trade_bp(self) -> u32 {
        match self {
            Flow::Regular | Flow::CloseAuction => 750,
            _ => 400,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Burst {
    Admin,
    Open,
    Close,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Burst(Burst),
    Flow(Flow),
    End,
}

#[derive(Debug, Clone, Copy)]
struct Phase {
    kind: Kind,
    packets: u64,
    t0: Timestamp,
    t1: Timestamp,
    /// Messages per packet for bursts; the burst's total message count in `burst_msgs`.
    density: u64,
    burst_msgs: u64,
}

#[derive(Debug, Clone)]
struct Sym {
    symbol: Symbol,
    /// Best bid in fixed point, a multiple of `TICK`, at least one tick.
    bid: i64,
    /// Spread in ticks, 1..=5.
    spread: i64,
    listed: bool,
    seen: bool,
    /// Last trade (id, size, price) that a trade break may cancel.
    last_trade: Option<(i64, u32, i64)>,
}

impl Sym {
    fn ask(&self) -> i64 {
        self.bid + self.spread * TICK
    }
}

/// The generator's state machine. Construct with [`Simulation::new`], then call
/// [`Simulation::next_into`] until it returns `false`.
pub struct Simulation {
    rng: Rng,
    feed: Feed,
    syms: Vec<Sym>,
    listed: Vec<u32>,
    phases: Vec<Phase>,
    phase: usize,
    in_phase: u64,
    seq: u64,
    last_send: Timestamp,
    /// Burst cursor: leading system events emitted, then (symbol, sub-step).
    cur_head: u8,
    cur_sym: usize,
    cur_sub: u8,
    burst_left: u64,
    trade_id: i64,
    distinct: usize,
}

impl Simulation {
    /// Validates the options and lays out the day; the only allocations are here.
    pub fn new(opts: &GenOptions) -> io::Result<Self> {
        if opts.symbols == 0 || opts.symbols > MAX_SYMBOLS {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "symbols must be between 1 and {MAX_SYMBOLS}, got {}",
                    opts.symbols
                ),
            ));
        }
        let mut rng = Rng::with_seed(opts.seed);
        let syms = make_symbols(&mut rng, opts.symbols);
        let listed: Vec<u32> = (0..syms.len() as u32)
            .filter(|&i| syms[i as usize].listed)
            .collect();
        let phases = layout(opts.packets, opts.symbols as u64, listed.len() as u64);
        let burst_left = phases.first().map_or(0, |p| p.burst_msgs);
        Ok(Simulation {
            rng,
            feed: opts.feed,
            syms,
            listed,
            phases,
            phase: 0,
            in_phase: 0,
            seq: 1,
            last_send: 0,
            cur_head: 0,
            cur_sym: 0,
            cur_sub: 0,
            burst_left,
            trade_id: 1_000_000,
            distinct: 0,
        })
    }

    pub fn feed(&self) -> Feed {
        self.feed
    }

    /// Distinct symbols that appeared in messages so far.
    pub fn distinct_symbols(&self) -> usize {
        self.distinct
    }

    /// Sequence number the next message will carry.
    pub fn next_seq(&self) -> u64 {
        self.seq
    }

    /// Fills `pkt` with the next segment (reusing its message vector); `false` once the day is
    /// over, leaving `pkt` untouched.
    pub fn next_into(&mut self, pkt: &mut Packet) -> bool {
        let ph = loop {
            let Some(ph) = self.phases.get(self.phase).copied() else {
                return false;
            };
            if self.in_phase < ph.packets {
                break ph;
            }
            self.phase += 1;
            self.in_phase = 0;
            self.cur_head = 0;
            self.cur_sym = 0;
            self.cur_sub = 0;
            if let Some(next) = self.phases.get(self.phase) {
                self.burst_left = next.burst_msgs;
            }
        };
        let i = self.in_phase;
        self.in_phase += 1;

        let send = match ph.kind {
            Kind::Burst(_) | Kind::End => {
                let step = BURST_STEP.saturating_mul(i.min(i64::MAX as u64) as i64);
                ph.t0.saturating_add(step) + self.rng.i64(0..BURST_STEP / 2)
            }
            Kind::Flow(_) => {
                let cell = (ph.t1 - ph.t0) / ph.packets.max(1).min(i64::MAX as u64) as i64;
                let jitter = if cell > 1 { self.rng.i64(0..cell) } else { 0 };
                ph.t0
                    .saturating_add(cell.saturating_mul(i.min(i64::MAX as u64) as i64))
                    .saturating_add(jitter)
            }
        };
        // Strictly increasing even if a phase is squeezed below 1 ns per packet.
        let send = send.max(self.last_send.saturating_add(1));

        let count: u64 = match ph.kind {
            Kind::Burst(_) => ph.density.min(self.burst_left),
            Kind::End => 2,
            Kind::Flow(f) => {
                if self.rng.u32(0..10_000) < f.heartbeat_bp() {
                    0
                } else {
                    FLOW_COUNTS[self.rng.usize(0..FLOW_COUNTS.len())] as u64
                }
            }
        };
        // Message timestamps: after the previous send, at or before this one, non-decreasing.
        let lat = self.rng.i64(1_000..30_000);
        let base = send
            .saturating_sub(lat)
            .max(self.last_send.saturating_add(1))
            .min(send);
        let step = (send - base) / count.max(1) as i64;

        pkt.seq = self.seq;
        pkt.send_time = send;
        pkt.messages.clear();
        let mut sym = self.pick_symbol();
        for k in 0..count {
            let ts = base + step * k as i64;
            let msg = match ph.kind {
                Kind::Burst(b) => match self.burst_message(b, ts) {
                    Some(m) => m,
                    None => break,
                },
                Kind::End => Message::SystemEvent(SystemEvent {
                    event: if k == 0 { b'E' } else { b'C' },
                    timestamp: ts,
                }),
                Kind::Flow(f) => {
                    let next = if k + 1 < count && self.rng.u8(0..10) < 3 {
                        self.pick_symbol()
                    } else {
                        sym
                    };
                    let last_of_event = k + 1 == count || next != sym;
                    let m = self.flow_message(f, sym, ts, last_of_event);
                    sym = next;
                    m
                }
            };
            pkt.messages.push(msg);
        }
        if matches!(ph.kind, Kind::Burst(_)) {
            self.burst_left -= pkt.messages.len() as u64;
        }
        self.seq += pkt.messages.len() as u64;
        self.last_send = send;
        true
    }

    /// Popular symbols trade far more often: the product of two uniforms skews towards index 0.
    fn pick_symbol(&mut self) -> usize {
        let a = self.rng.u32(..) as u64;
        let b = self.rng.u32(..) as u64;
        let p = (a * b) >> 32;
        ((p * self.syms.len() as u64) >> 32) as usize
    }

    fn touch(&mut self, i: usize) -> Symbol {
        let s = &mut self.syms[i];
        if !s.seen {
            s.seen = true;
            self.distinct += 1;
        }
        s.symbol
    }

    /// Next message of a start-of-day / open / close burst; `None` when the burst is exhausted.
    fn burst_message(&mut self, b: Burst, ts: Timestamp) -> Option<Message> {
        let head: &[u8] = match b {
            Burst::Admin => b"OS",
            Burst::Open => b"R",
            Burst::Close => b"M",
        };
        if (self.cur_head as usize) < head.len() {
            let event = head[self.cur_head as usize];
            self.cur_head += 1;
            return Some(Message::SystemEvent(SystemEvent {
                event,
                timestamp: ts,
            }));
        }
        let subs = if b == Burst::Admin { 5 } else { 2 };
        loop {
            let (i, sub) = (self.cur_sym, self.cur_sub);
            if i >= self.syms.len() {
                return None;
            }
            self.cur_sub += 1;
            if self.cur_sub == subs {
                self.cur_sub = 0;
                self.cur_sym += 1;
            }
            if b == Burst::Admin && sub == 0 && !self.syms[i].listed {
                continue;
            }
            let symbol = self.touch(i);
            let r = self.rng.u32(0..100);
            let s = &self.syms[i];
            return Some(match (b, sub) {
                (Burst::Admin, 0) => Message::SecurityDirectory(SecurityDirectory {
                    flags: if s.symbol.trimmed() == TEST_SYMBOL.as_bytes() {
                        0x80
                    } else if r < 20 {
                        0x20
                    } else {
                        0
                    },
                    timestamp: ts,
                    symbol,
                    round_lot_size: 100,
                    adjusted_poc_price: s.bid,
                    luld_tier: if r % 2 == 0 { 1 } else { 2 },
                }),
                (Burst::Admin, 1) => Message::TradingStatus(TradingStatus {
                    status: b'T',
                    timestamp: ts,
                    symbol,
                    reason: *b"    ",
                }),
                (Burst::Admin, 2) => Message::OperationalHalt(OperationalHalt {
                    status: b'N',
                    timestamp: ts,
                    symbol,
                }),
                (Burst::Admin, 3) => Message::ShortSalePriceTest(ShortSalePriceTest {
                    status: u8::from(r < 4),
                    timestamp: ts,
                    symbol,
                    detail: if r < 4 { b'C' } else { b' ' },
                }),
                (Burst::Admin, _) => Message::RetailLiquidity(RetailLiquidity {
                    indicator: match r {
                        0..=69 => b' ',
                        _ => b"ABC"[(r as usize - 70) / 10],
                    },
                    timestamp: ts,
                    symbol,
                }),
                (_, 0) => Message::OfficialPrice(OfficialPrice {
                    price_type: if b == Burst::Open { b'Q' } else { b'M' },
                    timestamp: ts,
                    symbol,
                    price: s.last_trade.map_or(s.bid, |t| t.2),
                }),
                (_, _) => Message::SecurityEvent(SecurityEvent {
                    event: if b == Burst::Open { b'O' } else { b'C' },
                    timestamp: ts,
                    symbol,
                }),
            });
        }
    }

    /// One message of continuous trading for symbol `i`.
    fn flow_message(&mut self, f: Flow, i: usize, ts: Timestamp, last_of_event: bool) -> Message {
        if matches!(f, Flow::OpenAuction | Flow::CloseAuction)
            && !self.listed.is_empty()
            && self.rng.u8(0..4) == 0
        {
            let j = self.listed[self.rng.usize(0..self.listed.len())] as usize;
            return self.auction(f, j, ts);
        }
        let r = self.rng.u32(0..10_000);
        let trade = f.trade_bp();
        if r < trade {
            self.trade(f, i, ts)
        } else if r < trade + 10 {
            self.trade_break(f, i, ts)
        } else if r < trade + 40 {
            let symbol = self.touch(i);
            Message::RetailLiquidity(RetailLiquidity {
                indicator: b" ABC"[self.rng.usize(0..4)],
                timestamp: ts,
                symbol,
            })
        } else if r < trade + 48 {
            let symbol = self.touch(i);
            let on = self.rng.bool();
            Message::ShortSalePriceTest(ShortSalePriceTest {
                status: u8::from(on),
                timestamp: ts,
                symbol,
                detail: if on { b'A' } else { b'D' },
            })
        } else {
            self.book_update(f, i, ts, last_of_event)
        }
    }

    /// Random walk of the touch: a tick up or down now and then, spread between 1 and 5 ticks.
    fn walk(&mut self, i: usize) {
        let r = self.rng.u8(0..100);
        let s = &mut self.syms[i];
        match r {
            0..=14 => s.bid += TICK,
            15..=29 => s.bid = (s.bid - TICK).max(TICK),
            30..=34 => s.spread = (s.spread + 1).min(5),
            35..=39 => s.spread = (s.spread - 1).max(1),
            _ => {}
        }
    }

    fn lot(&mut self, odd_pct: u8) -> u32 {
        if self.rng.u8(0..100) < odd_pct {
            self.rng.u32(1..100)
        } else {
            100 * self.rng.u32(1..=20)
        }
    }

    fn book_update(&mut self, f: Flow, i: usize, ts: Timestamp, last: bool) -> Message {
        self.walk(i);
        let symbol = self.touch(i);
        match self.feed {
            Feed::Deep => {
                let side = if self.rng.bool() {
                    Side::Buy
                } else {
                    Side::Sell
                };
                // Mostly the top of book, sometimes a few levels deep.
                let level = [0, 0, 0, 0, 1, 1, 2, 3][self.rng.usize(0..8)];
                let s = &self.syms[i];
                let price = match side {
                    Side::Buy => (s.bid - level * TICK).max(TICK),
                    Side::Sell => s.ask() + level * TICK,
                };
                let size = if self.rng.u8(0..10) == 0 {
                    0 // level removed
                } else {
                    self.lot(15)
                };
                Message::PriceLevelUpdate(PriceLevelUpdate {
                    side,
                    flags: u8::from(last),
                    timestamp: ts,
                    symbol,
                    size,
                    price,
                })
            }
            Feed::Tops => {
                let bid_size = self.lot(10);
                let ask_size = self.lot(10);
                let s = &self.syms[i];
                Message::QuoteUpdate(QuoteUpdate {
                    flags: if f.extended_hours() { 0x40 } else { 0 },
                    timestamp: ts,
                    symbol,
                    bid_size,
                    bid_price: s.bid,
                    ask_price: s.ask(),
                    ask_size,
                })
            }
        }
    }

    fn trade(&mut self, f: Flow, i: usize, ts: Timestamp) -> Message {
        self.walk(i);
        let symbol = self.touch(i);
        let size = self.lot(25);
        let s = &self.syms[i];
        let price = s.bid + self.rng.i64(0..=s.spread) * TICK;
        let mut flags = 0u8;
        if size < 100 {
            flags |= 0x20;
        }
        if f.extended_hours() {
            flags |= 0x40;
        }
        let r = self.rng.u8(0..100);
        if r < 8 {
            flags |= 0x80;
        } else if r < 12 {
            flags |= 0x10;
        }
        self.trade_id += self.rng.i64(1..=64);
        self.syms[i].last_trade = Some((self.trade_id, size, price));
        Message::TradeReport(Trade {
            flags,
            timestamp: ts,
            symbol,
            size,
            price,
            trade_id: self.trade_id,
        })
    }

    /// Breaks the symbol's last trade, or trades if it has none yet.
    fn trade_break(&mut self, f: Flow, i: usize, ts: Timestamp) -> Message {
        let Some((id, size, price)) = self.syms[i].last_trade.take() else {
            return self.trade(f, i, ts);
        };
        let symbol = self.touch(i);
        Message::TradeBreak(Trade {
            flags: if size < 100 { 0x20 } else { 0 },
            timestamp: ts,
            symbol,
            size,
            price,
            trade_id: id,
        })
    }

    fn auction(&mut self, f: Flow, i: usize, ts: Timestamp) -> Message {
        self.walk(i);
        let symbol = self.touch(i);
        let paired = 100 * self.rng.u32(0..2_000);
        let imbalance = 100 * self.rng.u32(0..500);
        let side = if imbalance == 0 {
            b'N'
        } else if self.rng.bool() {
            b'B'
        } else {
            b'S'
        };
        let drift = self.rng.i64(-2..=2) * TICK;
        let s = &self.syms[i];
        let reference = s.bid;
        // Collars at ±10 %, rounded to the tick.
        let band = (reference / 10 / TICK).max(1) * TICK;
        let (kind, at) = if f == Flow::OpenAuction {
            (b'O', MARKET_OPEN)
        } else {
            (b'C', MARKET_CLOSE)
        };
        Message::AuctionInformation(AuctionInformation {
            auction_type: kind,
            timestamp: ts,
            symbol,
            paired_shares: paired,
            reference_price: reference,
            indicative_clearing_price: (reference + drift).max(TICK),
            imbalance_shares: imbalance,
            imbalance_side: side,
            extension_number: 0,
            scheduled_auction_time: (at / NS) as u32,
            auction_book_clearing_price: (reference + drift).max(TICK),
            collar_reference_price: reference,
            lower_auction_collar: (reference - band).max(TICK),
            upper_auction_collar: reference + band,
        })
    }
}

/// Unique random 1-5 letter tickers, the test symbol last; every 50th is IEX-listed.
fn make_symbols(rng: &mut Rng, n: usize) -> Vec<Sym> {
    let mut used = FxHashSet::default();
    used.insert(Symbol::new(TEST_SYMBOL).unwrap_or_default());
    let mut out = Vec::with_capacity(n);
    while out.len() + 1 < n {
        let len = match rng.u8(0..100) {
            0 => 1,
            1..=5 => 2,
            6..=40 => 3,
            41..=95 => 4,
            _ => 5,
        };
        let mut t = [b' '; 8];
        for b in &mut t[..len] {
            *b = b'A' + rng.u8(0..26);
        }
        let symbol = Symbol(t);
        if used.insert(symbol) {
            let listed = out.len() % 50 == 7;
            out.push(new_sym(rng, symbol, listed));
        }
    }
    let test = Symbol::new(TEST_SYMBOL).unwrap_or_default();
    out.push(new_sym(rng, test, true));
    out
}

fn new_sym(rng: &mut Rng, symbol: Symbol, listed: bool) -> Sym {
    // $1 to $500, log-ish: most names trade between $10 and $100.
    let dollars = match rng.u8(0..10) {
        0 => rng.i64(1..10),
        1..=7 => rng.i64(10..100),
        _ => rng.i64(100..500),
    };
    Sym {
        symbol,
        bid: dollars * 10_000 + rng.i64(0..100) * TICK,
        spread: rng.i64(1..=3),
        listed,
        seen: false,
        last_trade: None,
    }
}

/// Splits `packets` into the phases of the day.
///
/// Bursts get their natural size when packets are plentiful and are packed denser (up to
/// [`MAX_BURST_DENSITY`]) to stay within a quarter of the packets when they are not; with very
/// few packets the bursts are cut short (fewer symbols get their admin messages). The last packet
/// is the end of day whenever there are at least two.
fn layout(packets: u64, n_sym: u64, n_listed: u64) -> Vec<Phase> {
    let mut phases = Vec::with_capacity(10);
    if packets == 0 {
        return phases;
    }
    let has_end = packets >= 2;
    let rest = packets - u64::from(has_end);
    let admin_msgs = 2 + 4 * n_sym + n_listed;
    let oc_msgs = 1 + 2 * n_sym;
    let need = |d_admin: u64, d_oc: u64| {
        (
            admin_msgs.div_ceil(d_admin),
            oc_msgs.div_ceil(d_oc),
            oc_msgs.div_ceil(d_oc),
        )
    };
    let budget = (rest / 4).max(1);
    let (pa, po, _) = need(16, 8);
    let scale = (pa + 2 * po).div_ceil(budget).max(1);
    let d_admin = (16 * scale).min(MAX_BURST_DENSITY);
    let d_oc = (8 * scale).min(MAX_BURST_DENSITY);
    let (mut pa, mut po, mut pc) = need(d_admin, d_oc);
    let sum = pa + po + pc;
    let cap = (rest as u128 * 3 / 4) as u64;
    if sum > cap {
        let shrink = |p: u64| ((p as u128 * cap as u128 / sum as u128) as u64).max(1);
        (pa, po, pc) = (shrink(pa), shrink(po), shrink(pc));
    }
    let mut left = rest;
    let mut take = |want: u64| {
        let got = want.min(left);
        left -= got;
        got
    };
    let (pa, po, pc) = (take(pa), take(po), take(pc));
    let flows = left;
    let share = |pct: u64| (flows as u128 * pct as u128 / 100) as u64;
    let (pre, oa, ca, post) = (share(10), share(3), share(3), share(10));
    let regular = flows - pre - oa - ca - post;

    let burst = |b: Burst, packets, t0, density, msgs| Phase {
        kind: Kind::Burst(b),
        packets,
        t0,
        t1: t0,
        density,
        burst_msgs: msgs,
    };
    let flow = |f: Flow, packets, t0, t1| Phase {
        kind: Kind::Flow(f),
        packets,
        t0,
        t1,
        density: 0,
        burst_msgs: 0,
    };
    phases.push(burst(Burst::Admin, pa, SYSTEM_START, d_admin, admin_msgs));
    phases.push(flow(
        Flow::Pre,
        pre,
        SYSTEM_START + NS,
        MARKET_OPEN - AUCTION_WINDOW,
    ));
    phases.push(flow(
        Flow::OpenAuction,
        oa,
        MARKET_OPEN - AUCTION_WINDOW,
        MARKET_OPEN,
    ));
    phases.push(burst(Burst::Open, po, MARKET_OPEN, d_oc, oc_msgs));
    phases.push(flow(
        Flow::Regular,
        regular,
        MARKET_OPEN + NS,
        MARKET_CLOSE - AUCTION_WINDOW,
    ));
    phases.push(flow(
        Flow::CloseAuction,
        ca,
        MARKET_CLOSE - AUCTION_WINDOW,
        MARKET_CLOSE,
    ));
    phases.push(burst(Burst::Close, pc, MARKET_CLOSE, d_oc, oc_msgs));
    phases.push(flow(Flow::Post, post, MARKET_CLOSE + NS, SYSTEM_END - NS));
    if has_end {
        phases.push(Phase {
            kind: Kind::End,
            packets: 1,
            t0: SYSTEM_END,
            t1: SYSTEM_END,
            density: 2,
            burst_msgs: 0,
        });
    }
    phases
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::{CaptureKind, GenOptions};

    fn opts(packets: u64, symbols: usize) -> GenOptions {
        GenOptions {
            feed: Feed::Deep,
            capture: CaptureKind::Pcapng,
            packets,
            seed: 7,
            symbols,
        }
    }

    #[test]
    fn layout_sums_to_packets() {
        for n in [0u64, 1, 2, 3, 10, 100, 1000, 20_000, 40_000_000, u64::MAX] {
            for syms in [1u64, 500, 100_000] {
                let p = layout(n, syms, syms / 50 + 1);
                assert_eq!(
                    p.iter().map(|p| p.packets).sum::<u64>(),
                    n,
                    "n={n} syms={syms}"
                );
            }
        }
        // Plenty of packets: bursts at natural density, regular hours dominate.
        let p = layout(40_000_000, 500, 11);
        assert_eq!(p[0].density, 16);
        assert_eq!(p[0].packets, (2 + 4 * 500 + 11u64).div_ceil(16));
        assert!(p[4].packets > 29_000_000);
    }

    #[test]
    fn tickers_unique_uppercase_and_test_symbol_last() {
        let mut rng = Rng::with_seed(1);
        let syms = make_symbols(&mut rng, 2000);
        assert_eq!(syms.len(), 2000);
        let set: FxHashSet<Symbol> = syms.iter().map(|s| s.symbol).collect();
        assert_eq!(set.len(), 2000);
        for s in &syms {
            let t = s.symbol.trimmed();
            assert!((1..=5).contains(&t.len()));
            assert!(t.iter().all(u8::is_ascii_uppercase));
            assert!(s.bid >= TICK && s.bid % TICK == 0);
        }
        assert_eq!(syms.last().unwrap().symbol.trimmed(), b"ZIEXT");
        assert!(syms.last().unwrap().listed);
    }

    #[test]
    fn symbols_out_of_range_rejected() {
        assert!(Simulation::new(&opts(10, 0)).is_err());
        assert!(Simulation::new(&opts(10, MAX_SYMBOLS + 1)).is_err());
        assert!(Simulation::new(&opts(10, 1)).is_ok());
    }

    #[test]
    fn first_packet_opens_the_day_and_last_closes_it() {
        let mut sim = Simulation::new(&opts(1000, 500)).unwrap();
        let mut p = Packet::default();
        assert!(sim.next_into(&mut p));
        assert_eq!(p.seq, 1);
        assert_eq!(p.messages[0].kind(), b'S');
        assert!(matches!(
            p.messages[0],
            Message::SystemEvent(SystemEvent { event: b'O', .. })
        ));
        assert!(matches!(
            p.messages[1],
            Message::SystemEvent(SystemEvent { event: b'S', .. })
        ));
        let mut last = p.clone();
        let mut n = 1;
        while sim.next_into(&mut p) {
            last = p.clone();
            n += 1;
        }
        assert_eq!(n, 1000);
        let events: Vec<u8> = last
            .messages
            .iter()
            .map(|m| match m {
                Message::SystemEvent(e) => e.event,
                _ => 0,
            })
            .collect();
        assert_eq!(events, b"EC");
        assert!(last.send_time >= SYSTEM_END);
        assert_eq!(sim.distinct_symbols(), 500);
    }

    #[test]
    fn tiny_and_odd_sizes_do_not_panic() {
        for n in [0u64, 1, 2, 3, 5, 17] {
            for syms in [1usize, 2, 500] {
                let mut sim = Simulation::new(&opts(n, syms)).unwrap();
                let mut p = Packet::default();
                let mut count = 0;
                while sim.next_into(&mut p) {
                    count += 1;
                }
                assert_eq!(count, n);
            }
        }
    }
}
