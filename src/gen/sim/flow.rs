//! Continuous trading on DEEP and TOPS: the messages of a flow phase (book updates or quotes,
//! trades, breaks, retail liquidity, short-sale tests, auction information) and the random walk
//! of each touch, which DEEP+ (`orders`) shares.

use crate::model::{
    AuctionInformation, Feed, Message, PriceLevelUpdate, QuoteUpdate, RetailLiquidity,
    ShortSalePriceTest, Side, Timestamp, Trade,
};

use super::layout::{Flow, MARKET_CLOSE, MARKET_OPEN, NS};
use super::state::Simulation;
use super::universe::TICK;

/// Messages per flow segment, drawn uniformly from this table (mean 2.4).
pub(super) const FLOW_COUNTS: [u16; 20] =
    [1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 5, 6];

impl Flow {
    /// Heartbeat probability per segment, in 1/10000: IEX heartbeats when nothing else is sent,
    /// which happens mostly outside regular hours.
    pub(super) fn heartbeat_bp(self) -> u32 {
        match self {
            Flow::Pre | Flow::Post => 500,
            Flow::OpenAuction | Flow::CloseAuction => 100,
            Flow::Regular => 50,
        }
    }
    /// A trade's flags that follow from its size and this session: odd lot (0x20), extended
    /// hours (0x40).
    pub(super) fn sale_flags(self, size: u32) -> u8 {
        let mut flags = 0u8;
        if size < 100 {
            flags |= 0x20;
        }
        if self.extended_hours() {
            flags |= 0x40;
        }
        flags
    }

    /// Trade reports per 10000 messages.
    fn trade_bp(self) -> u32 {
        match self {
            Flow::Regular | Flow::CloseAuction => 750,
            _ => 400,
        }
    }
}

impl Simulation {
    /// One DEEP or TOPS message of continuous trading for symbol `i` (DEEP+ has its own,
    /// [`Simulation::order_message`]).
    pub(super) fn flow_message(
        &mut self,
        f: Flow,
        i: usize,
        ts: Timestamp,
        last_of_event: bool,
    ) -> Message {
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
            self.book_update(f, i, ts, last_of_event, None)
        }
    }

    /// Random walk of the touch: a tick up or down now and then, spread between 1 and 5 ticks.
    pub(super) fn walk(&mut self, i: usize) {
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

    pub(super) fn lot(&mut self, odd_pct: u8) -> u32 {
        if self.rng.u8(0..100) < odd_pct {
            self.rng.u32(1..100)
        } else {
            100 * self.rng.u32(1..=20)
        }
    }

    /// A DEEP price level update (on `side`, or a side drawn at random) or a TOPS quote.
    pub(super) fn book_update(
        &mut self,
        f: Flow,
        i: usize,
        ts: Timestamp,
        last: bool,
        side: Option<Side>,
    ) -> Message {
        self.walk(i);
        let symbol = self.touch(i);
        match self.feed {
            Feed::Deep => {
                let side = side.unwrap_or_else(|| {
                    if self.rng.bool() {
                        Side::Buy
                    } else {
                        Side::Sell
                    }
                });
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
            // DEEP+ never gets here (`order_message`); quotes would be harmless.
            Feed::Tops | Feed::DeepPlus => {
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

    pub(super) fn trade(&mut self, f: Flow, i: usize, ts: Timestamp) -> Message {
        self.walk(i);
        let symbol = self.touch(i);
        let size = self.lot(25);
        let s = &self.syms[i];
        let price = s.bid + self.rng.i64(0..=s.spread) * TICK;
        let (flags, trade_id) = self.record_trade(f, i, size, price, true);
        Message::TradeReport(Trade {
            flags,
            timestamp: ts,
            symbol,
            size,
            price,
            trade_id,
        })
    }

    /// A trade's sale condition flags (`f`'s, then an intermarket sweep 8% of the time and,
    /// where `exempt`, trade-through exempt 4%) and the next trade id, the trade kept as symbol
    /// `i`'s last (the one a break cancels).
    pub(super) fn record_trade(
        &mut self,
        f: Flow,
        i: usize,
        size: u32,
        price: i64,
        exempt: bool,
    ) -> (u8, i64) {
        let flags = f.sale_flags(size)
            | match self.rng.u8(0..100) {
                0..8 => 0x80,
                8..12 if exempt => 0x10,
                _ => 0,
            };
        self.trade_id += self.rng.i64(1..=64);
        self.syms[i].last_trade = Some((self.trade_id, size, price));
        (flags, self.trade_id)
    }

    /// Breaks the symbol's last trade, or trades if it has none yet.
    pub(super) fn trade_break(&mut self, f: Flow, i: usize, ts: Timestamp) -> Message {
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

    pub(super) fn auction(&mut self, f: Flow, i: usize, ts: Timestamp) -> Message {
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
