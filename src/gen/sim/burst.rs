//! The bursts: start-of-day administrative messages, and the open and close official prices and
//! security events, one symbol after another.

use crate::model::{
    Feed, Message, OfficialPrice, OperationalHalt, RetailLiquidity, SecurityDirectory,
    SecurityEvent, ShortSalePriceTest, SystemEvent, Timestamp, TradingStatus,
};

use super::layout::Burst;
use super::state::Simulation;
use super::universe::TEST_SYMBOL;

impl Simulation {
    /// Next message of a start-of-day / open / close burst; `None` when the burst is exhausted.
    pub(super) fn burst_message(&mut self, b: Burst, ts: Timestamp) -> Option<Message> {
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
        // DEEP+ has no `X`: its open and close bursts are the `E` (sub-step 1) alone.
        let no_official_price = self.feed == Feed::DeepPlus && b != Burst::Admin;
        let subs = if b == Burst::Admin {
            5
        } else if no_official_price {
            1
        } else {
            2
        };
        loop {
            let (i, mut sub) = (self.cur_sym, self.cur_sub);
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
            if no_official_price {
                sub = 1;
            }
            return Some(self.symbol_message(b, sub, i, ts));
        }
    }

    /// Sub-step `sub` of burst `b` for symbol `i`: an admin burst's directory entry (0),
    /// trading status (1), operational halt (2), short-sale test (3) or retail liquidity (4); an
    /// open or close burst's official price (0) or security event (1). `gen --like` sends these
    /// outside bursts too ([`super::shaped`]).
    pub(super) fn symbol_message(&mut self, b: Burst, sub: u8, i: usize, ts: Timestamp) -> Message {
        let symbol = self.touch(i);
        let r = self.rng.u32(0..100);
        let s = &self.syms[i];
        match (b, sub) {
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
                luld_tier: if r.is_multiple_of(2) { 1 } else { 2 },
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
        }
    }
}
