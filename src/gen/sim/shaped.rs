//! The simulation under a [`Shape`] (`gen --like`): each packet drawn from a real capture's
//! tables rather than from the day layout, each message made by the same code as the day's
//! ([`Simulation::flow_message`]'s parts, the bursts' per-symbol messages, DEEP+'s orders).

use std::mem::MaybeUninit;

use crate::gen::like::{draw, draw_index};
use crate::model::{kind, Feed, Message, Side, SystemEvent, Timestamp};

use super::layout::{Burst, Flow};
use super::state::{Shaped, Simulation};

/// The system events of a day, in order.
const EVENTS: &[u8; 6] = b"OSRMEC";

impl Simulation {
    /// The next packet of a shaped simulation, as [`Simulation::next_onto`] hands it out.
    pub(super) fn shaped_onto(
        &mut self,
        sh: &mut Shaped,
        messages: &mut Vec<Message>,
    ) -> Option<(u64, Timestamp)> {
        if sh.left == 0 {
            return None;
        }
        sh.left -= 1;
        let send = if self.seq == 1 && self.last_send == 0 {
            sh.shape.start
        } else {
            // Strictly increasing, as the day's send times are.
            let gap = draw(&mut self.rng, &sh.shape.gaps).max(1);
            self.last_send
                .saturating_add(i64::try_from(gap).unwrap_or(i64::MAX))
        };
        let count = if sh.shape.types.is_empty() {
            0
        } else {
            draw(&mut self.rng, &sh.shape.counts)
        };
        let (base, step) = self.message_times(send, u64::from(count));
        let start = messages.len();
        messages.reserve(count as usize);
        let spare = messages.spare_capacity_mut();
        let mut sym = self.pick_trading(sh);
        for (k, slot) in spare[..count as usize].iter_mut().enumerate() {
            let ts = base + step * k as i64;
            let t = draw(&mut self.rng, &sh.shape.types);
            if crate::profile::is_trading(t) {
                let next = if k + 1 < count as usize && self.rng.u8(0..10) < 3 {
                    self.pick_trading(sh)
                } else {
                    sym
                };
                let last_of_event = k + 1 == count as usize || next != sym;
                let i = std::mem::replace(&mut sym, next);
                self.trading_message(t, i, ts, last_of_event, slot);
            } else {
                let m = self.status_message(sh, t, ts);
                slot.write(m);
            }
        }
        // SAFETY: the `count` slots after `start` were written just above.
        unsafe { messages.set_len(start + count as usize) };
        let seq = self.seq;
        self.seq += u64::from(count);
        self.last_send = send;
        Some((seq, send))
    }

    /// A symbol for a trading message, by the capture's activity per symbol rank.
    fn pick_trading(&mut self, sh: &Shaped) -> usize {
        if sh.shape.trading.is_empty() {
            return self.pick_symbol();
        }
        draw_index(&mut self.rng, &sh.shape.trading).min(self.syms.len() - 1)
    }

    /// A trade, price level, quote or (DEEP+) order message of type `t` on symbol `i`.
    fn trading_message(
        &mut self,
        t: u8,
        i: usize,
        ts: Timestamp,
        last_of_event: bool,
        slot: &mut MaybeUninit<Message>,
    ) {
        let f = Flow::Regular;
        let m = match t {
            kind::TRADE_REPORT => self.trade(f, i, ts),
            kind::TRADE_BREAK => self.trade_break(f, i, ts),
            kind::PRICE_LEVEL_BUY => self.book_update(f, i, ts, last_of_event, Some(Side::Buy)),
            kind::PRICE_LEVEL_SELL => self.book_update(f, i, ts, last_of_event, Some(Side::Sell)),
            kind::QUOTE_UPDATE => self.book_update(f, i, ts, last_of_event, None),
            // Order types, on DEEP+ only (`feed_kinds`).
            _ => {
                debug_assert_eq!(self.feed, Feed::DeepPlus);
                self.order_message_of_kind(t, f, i, ts, slot);
                return;
            }
        };
        slot.write(m);
    }

    /// A message of a type that goes to every symbol in turn (or a system event).
    fn status_message(&mut self, sh: &mut Shaped, t: u8, ts: Timestamp) -> Message {
        if t == kind::SYSTEM_EVENT {
            let event = EVENTS[sh.events % EVENTS.len()];
            sh.events += 1;
            return Message::SystemEvent(SystemEvent {
                event,
                timestamp: ts,
            });
        }
        let turn = &mut sh.cursor[usize::from(t)];
        let n = *turn as usize;
        *turn = turn.wrapping_add(1);
        if t == kind::AUCTION_INFORMATION {
            let j = self.listed[n % self.listed.len()] as usize;
            let f = if self.rng.bool() {
                Flow::OpenAuction
            } else {
                Flow::CloseAuction
            };
            return self.auction(f, j, ts);
        }
        let i = n % self.syms.len();
        let open_or_close = if self.rng.bool() {
            Burst::Open
        } else {
            Burst::Close
        };
        let (b, sub) = match t {
            kind::SECURITY_DIRECTORY => (Burst::Admin, 0),
            kind::TRADING_STATUS => (Burst::Admin, 1),
            kind::OPERATIONAL_HALT => (Burst::Admin, 2),
            kind::SHORT_SALE_PRICE_TEST => (Burst::Admin, 3),
            kind::OFFICIAL_PRICE => (open_or_close, 0),
            kind::SECURITY_EVENT => (open_or_close, 1),
            // Retail liquidity, and nothing else (`feed_kinds`).
            _ => (Burst::Admin, 4),
        };
        self.symbol_message(b, sub, i, ts)
    }
}
