//! Continuous trading on DEEP+: order lifecycles, one message at a time, against each symbol's
//! live [`Book`].
//!
//! # Message mix
//! Per 10 000 flow messages (real DEEP+ days are dominated by adds and deletes, as market makers
//! requote; executions and trades are a few percent; breaks and clear-books are rare):
//!
//! | type | share | what |
//! |---|---|---|
//! | `a` | ~45 % | a new order near the touch (the rest of the add/delete pool, below) |
//! | `R` | ~40 % | a random live order is cancelled |
//! | `M` | 8 % | a live order is modified: size down at the same price keeping priority, or a new price and size resetting it |
//! | `L` | 4 % | the best order of one side executes, in part or in full, at its price or one tick better for it |
//! | `T` | 2 % | a trade between non-displayed orders (the book is untouched) |
//! | `I` / `P` | 0.3 % / 0.08 % | retail liquidity and short-sale test changes, as on DEEP |
//! | `B` | 0.05 % | the symbol's last trade (`T` or `L`) is broken |
//! | `C` | 0.02 % | the symbol's book is cleared |
//!
//! Adds and deletes share 85.55 %: 48 % / 37.55 % while the symbol has fewer live orders than
//! its depth target ([`DEPTH_TARGET`], or half its cap if that is less), 43 % / 42.55 % from
//! there on, so each busy book hovers around the target (a real IEX day peaks at a few million
//! live orders over ~10 000 symbols: a few hundred each) and the realized mix is about 45 % /
//! 40 %. An `M`, `R`, `L` or `C` on an empty book is an add
//! instead; an add on a full book (at [`live_cap`](super::book::live_cap)) is a delete instead:
//! the book never holds more than its cap.
//!
//! # Consistency
//! Every `M`, `R` and `L` names an order picked from the symbol's live book, so it is live;
//! executions never exceed the remaining size (a full one removes the order); order ids come
//! from one counter that only increases, so they are unique for the whole day. Prices follow the
//! symbol's random walk (as on DEEP), tied to the book ([`Simulation::anchor`]): a new or
//! repriced order is always strictly inside the book's best bid and offer, so the displayed book
//! never locks or crosses, and an execution takes the true top of one side.
//!
//! # Modify flags
//! The priority bit of `M` is 0x01: 0x01 keeps time priority (a size decrease at the same
//! price), 0x00 resets it (a new price or a larger size). The spec sources disagree whether the
//! bit is 0x01 or 0x80; we pick 0x01, and never set 0x80.

use crate::model::{
    kind, AddOrder, ClearBook, Message, OrderDelete, OrderExecuted, OrderModify, Price,
    RetailLiquidity, ShortSalePriceTest, Timestamp,
};

use std::mem::MaybeUninit;

use super::book::{Order, BUY, SELL};
use super::layout::Flow;
use super::state::Simulation;
use super::universe::TICK;

/// `M` flags: the order keeps its time priority.
pub const MODIFY_MAINTAIN_PRIORITY: u8 = 0x01;
/// `M` flags: the order goes to the back of its price level.
pub const MODIFY_RESET_PRIORITY: u8 = 0x00;

/// The mix of actions, out of 10 000 (deletes get what is left), the adds first: more of them
/// while the book is below its target depth than at or above it.
const MIX_BP: [(u32, Action); 7] = [
    (800, Action::Modify),
    (400, Action::Execute),
    (200, Action::Trade),
    (30, Action::Retail),
    (8, Action::ShortSale),
    (5, Action::Break),
    (2, Action::Clear),
];
const ADD_GROWING_BP: u32 = 4_800;
const ADD_SHRINKING_BP: u32 = 4_300;

/// Live orders a busy symbol's book hovers around. Smaller than the cap, which is only a
/// bound, so that the best-price scan of an execution and the working set stay small.
pub const DEPTH_TARGET: usize = 128;

/// Price levels away from the touch of a new order: mostly at or next to it.
const ADD_LEVELS: [i64; 16] = [0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 3, 4, 5, 8, 12];

impl Action {
    /// The action of an order-feed message type; any other type is an add.
    pub(super) fn of_kind(k: u8) -> Action {
        match k {
            kind::ORDER_DELETE => Action::Delete,
            kind::ORDER_MODIFY => Action::Modify,
            kind::ORDER_EXECUTED => Action::Execute,
            kind::CLEAR_BOOK => Action::Clear,
            _ => Action::Add,
        }
    }
}

/// What a flow message does, drawn from the mix before the book is consulted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Action {
    Add,
    Delete,
    Modify,
    Execute,
    Trade,
    Break,
    Clear,
    Retail,
    ShortSale,
}

impl Simulation {
    /// One DEEP+ message of continuous trading for symbol `i`, written into `out`.
    ///
    /// Written in place rather than returned: a `Message` is 88 bytes, and copying one just
    /// built (its fields stored one by one) into the batch waits on store forwarding
    /// (docs/BENCHMARKS.md, "in-place messages").
    pub(super) fn order_message(
        &mut self,
        f: Flow,
        i: usize,
        ts: Timestamp,
        out: &mut MaybeUninit<Message>,
    ) {
        let action = self.draw_action(i);
        self.write_order(action, f, i, ts, out);
    }

    /// The DEEP+ message of type `k` (an order type, as [`Action::of_kind`] maps it) for symbol
    /// `i`, turned into what the book can take as [`Simulation::fit_action`] does.
    pub(super) fn order_message_of_kind(
        &mut self,
        k: u8,
        f: Flow,
        i: usize,
        ts: Timestamp,
        out: &mut MaybeUninit<Message>,
    ) {
        let action = self.fit_action(i, Action::of_kind(k));
        self.write_order(action, f, i, ts, out);
    }

    fn write_order(
        &mut self,
        action: Action,
        f: Flow,
        i: usize,
        ts: Timestamp,
        out: &mut MaybeUninit<Message>,
    ) {
        match action {
            Action::Trade => out.write(self.trade(f, i, ts)),
            Action::Break => out.write(self.trade_break(f, i, ts)),
            Action::Retail => {
                let symbol = self.touch(i);
                out.write(Message::RetailLiquidity(RetailLiquidity {
                    indicator: b" ABC"[self.rng.usize(0..4)],
                    timestamp: ts,
                    symbol,
                }))
            }
            Action::ShortSale => {
                let symbol = self.touch(i);
                let on = self.rng.bool();
                out.write(Message::ShortSalePriceTest(ShortSalePriceTest {
                    status: u8::from(on),
                    timestamp: ts,
                    symbol,
                    detail: if on { b'A' } else { b'D' },
                }))
            }
            Action::Add => out.write(self.add_order(i, ts)),
            Action::Delete => out.write(self.delete_order(i, ts)),
            Action::Modify => out.write(self.modify_order(i, ts)),
            Action::Execute => out.write(self.execute_order(f, i, ts)),
            Action::Clear => {
                let symbol = self.touch(i);
                self.books[i].clear();
                out.write(Message::ClearBook(ClearBook {
                    timestamp: ts,
                    symbol,
                }))
            }
        };
    }

    /// Draws from the mix, then [`Simulation::fit_action`].
    fn draw_action(&mut self, i: usize) -> Action {
        let live = self.books[i].len();
        let add_bp = if live < DEPTH_TARGET.min(self.live_cap / 2) {
            ADD_GROWING_BP
        } else {
            ADD_SHRINKING_BP
        };
        let mut r = self.rng.u32(0..10_000);
        let mut action = Action::Delete;
        for (bp, a) in std::iter::once((add_bp, Action::Add)).chain(MIX_BP) {
            if r < bp {
                action = a;
                break;
            }
            r -= bp;
        }
        self.fit_action(i, action)
    }

    /// What the book can take instead of `action`: anything on an empty book becomes an add, an
    /// add on a full book a delete.
    fn fit_action(&self, i: usize, action: Action) -> Action {
        let live = self.books[i].len();
        match action {
            Action::Delete | Action::Modify | Action::Execute | Action::Clear if live == 0 => {
                Action::Add
            }
            Action::Add if live >= self.live_cap => Action::Delete,
            a => a,
        }
    }

    /// Ties the walked touch to the book so that it never crosses the book's best bid or offer
    /// (a walk alone drifts away from orders already resting); returns that best bid and offer.
    fn anchor(&mut self, i: usize) -> (Price, Price) {
        let (bid, ask) = self.books[i].bbo();
        let s = &mut self.syms[i];
        if ask != Price::MAX && s.bid >= ask {
            s.bid = (ask - TICK).max(TICK);
        }
        if bid != Price::MIN && s.ask() <= bid {
            s.bid = bid;
        }
        (bid, ask)
    }

    /// A price `levels` ticks behind the walked touch on `side`, strictly inside the book's best
    /// bid and offer `bbo` so the book never locks or crosses; `None` for a buy when the best
    /// offer is one tick (no room below it).
    fn passive_price(&self, i: usize, side: u8, levels: i64, bbo: (Price, Price)) -> Option<Price> {
        let s = &self.syms[i];
        if side == BUY {
            let p = (s.bid - levels * TICK)
                .max(TICK)
                .min(bbo.1.saturating_sub(TICK));
            (p >= TICK).then_some(p)
        } else {
            Some((s.ask() + levels * TICK).max(bbo.0.saturating_add(TICK)))
        }
    }

    fn add_order(&mut self, i: usize, ts: Timestamp) -> Message {
        self.walk(i);
        let bbo = self.anchor(i);
        let symbol = self.touch(i);
        let side = if self.rng.bool() { BUY } else { SELL };
        let level = ADD_LEVELS[self.rng.usize(0..ADD_LEVELS.len())];
        let (side, price) = match self.passive_price(i, side, level, bbo) {
            Some(p) => (side, p),
            // A one-tick offer leaves no room for a bid: sell instead.
            None => (SELL, bbo.0.saturating_add(TICK).max(self.syms[i].ask())),
        };
        let size = self.lot(20);
        self.next_order_id += self.rng.i64(1..=4);
        let id = self.next_order_id;
        self.books[i].add(Order {
            id,
            price,
            size,
            side,
        });
        Message::AddOrder(AddOrder {
            side,
            timestamp: ts,
            symbol,
            order_id: id,
            size,
            price,
        })
    }

    /// A random live order of a non-empty book.
    fn pick(&mut self, i: usize) -> usize {
        self.rng.usize(0..self.books[i].len())
    }

    fn delete_order(&mut self, i: usize, ts: Timestamp) -> Message {
        let symbol = self.touch(i);
        let at = self.pick(i);
        let o = self.books[i].remove(at);
        Message::OrderDelete(OrderDelete {
            timestamp: ts,
            symbol,
            order_id: o.id,
        })
    }

    fn modify_order(&mut self, i: usize, ts: Timestamp) -> Message {
        let symbol = self.touch(i);
        let at = self.pick(i);
        let o = self.books[i].get(at);
        let (flags, size, price) = if o.size > 1 && self.rng.u8(0..100) < 55 {
            (MODIFY_MAINTAIN_PRIORITY, self.smaller(o.size), o.price)
        } else {
            // Requoted near where the touch is now (or kept where it is if there is no room).
            let bbo = self.anchor(i);
            let level = ADD_LEVELS[self.rng.usize(0..ADD_LEVELS.len())];
            let price = self.passive_price(i, o.side, level, bbo).unwrap_or(o.price);
            (MODIFY_RESET_PRIORITY, self.lot(20), price)
        };
        self.books[i].set(at, size, price);
        Message::OrderModify(OrderModify {
            flags,
            timestamp: ts,
            symbol,
            order_id: o.id,
            size,
            price,
        })
    }

    /// A size in `1..size` (`size` at least 2): whole lots when the order has more than one.
    fn smaller(&mut self, size: u32) -> u32 {
        if size > 100 {
            100 * self.rng.u32(1..=(size - 1) / 100)
        } else {
            self.rng.u32(1..size)
        }
    }

    fn execute_order(&mut self, f: Flow, i: usize, ts: Timestamp) -> Message {
        let first = if self.rng.bool() { BUY } else { SELL };
        let other = if first == BUY { SELL } else { BUY };
        let book = &mut self.books[i];
        let Some(at) = book.best(first).or_else(|| book.best(other)) else {
            // Not reached: draw_action turns an execution on an empty book into an add.
            return self.add_order(i, ts);
        };
        let symbol = self.touch(i);
        let o = self.books[i].get(at);
        let full = o.size == 1 || self.rng.u8(0..100) < 45;
        let size = if full { o.size } else { self.smaller(o.size) };
        // Better for the resting order: a buy fills lower, a sell higher.
        let price = match self.rng.u8(0..100) {
            0..=84 => o.price,
            _ if o.side == BUY => (o.price - TICK).max(TICK),
            _ => o.price + TICK,
        };
        if full {
            self.books[i].remove(at);
        } else {
            self.books[i].set(at, o.size - size, o.price);
        }
        let (flags, trade_id) = self.record_trade(f, i, size, price, false);
        Message::OrderExecuted(OrderExecuted {
            flags,
            timestamp: ts,
            symbol,
            order_id: o.id,
            size,
            price,
            trade_id,
        })
    }
}
