//! The simulation's state: what the day's parts ([`super::flow`], [`super::burst`],
//! [`super::orders`], [`super::shaped`]) read and change. It lives apart from `sim/mod.rs`,
//! which lays out the day and steps through it, so that the parts depend on the state and the
//! day on the parts, never back.

use fastrand::Rng;

use crate::gen::like::Shape;
use crate::model::{Feed, Symbol, Timestamp};

use super::book::Book;
use super::layout::Phase;
use super::universe::Sym;

/// The generator's state machine. Construct with [`Simulation::new`], then call
/// [`Simulation::next_into`] until it returns `false`.
pub struct Simulation {
    pub(super) rng: Rng,
    pub(super) feed: Feed,
    pub(super) syms: Vec<Sym>,
    pub(super) listed: Vec<u32>,
    pub(super) phases: Vec<Phase>,
    pub(super) phase: usize,
    pub(super) in_phase: u64,
    pub(super) seq: u64,
    pub(super) last_send: Timestamp,
    /// Burst cursor: leading system events emitted, then (symbol, sub-step).
    pub(super) cur_head: u8,
    pub(super) cur_sym: usize,
    pub(super) cur_sub: u8,
    pub(super) burst_left: u64,
    pub(super) trade_id: i64,
    pub(super) distinct: usize,
    /// DEEP+ only (empty otherwise): each symbol's live orders, at most `live_cap` each.
    pub(super) books: Vec<Book>,
    pub(super) live_cap: usize,
    /// Last order id handed out; ids only increase, so they are unique for the day.
    pub(super) next_order_id: i64,
    /// `gen --like`: packets drawn from a capture's shape instead of the day's layout.
    pub(super) shaped: Option<Box<Shaped>>,
}

impl Simulation {
    /// The feed the day is of (a shape's, under `gen --like`).
    pub fn feed(&self) -> Feed {
        self.feed
    }

    /// Distinct symbols that appeared in messages so far.
    pub fn distinct_symbols(&self) -> usize {
        self.distinct
    }

    /// DEEP+: orders live right now, over all symbols (0 for the other feeds).
    pub fn live_orders(&self) -> usize {
        self.books.iter().map(Book::len).sum()
    }

    /// Sequence number the next message will carry.
    pub fn next_seq(&self) -> u64 {
        self.seq
    }

    /// The first message's timestamp and the step between a packet's `count` messages: after
    /// the previous send, at or before this one, non-decreasing.
    pub(super) fn message_times(&mut self, send: Timestamp, count: u64) -> (Timestamp, i64) {
        let lat = self.rng.i64(1_000..30_000);
        let base = send
            .saturating_sub(lat)
            .max(self.last_send.saturating_add(1))
            .min(send);
        (base, (send - base) / count.max(1) as i64)
    }

    /// Popular symbols trade far more often: the product of two uniforms skews towards index 0.
    pub(super) fn pick_symbol(&mut self) -> usize {
        let a = self.rng.u32(..) as u64;
        let b = self.rng.u32(..) as u64;
        let p = (a * b) >> 32;
        ((p * self.syms.len() as u64) >> 32) as usize
    }

    /// Symbol `i`'s ticker, counted as seen.
    pub(super) fn touch(&mut self, i: usize) -> Symbol {
        let s = &mut self.syms[i];
        if !s.seen {
            s.seen = true;
            self.distinct += 1;
        }
        s.symbol
    }
}

/// The shape and where the simulation is in it.
pub(super) struct Shaped {
    pub(super) shape: Shape,
    /// Packets still to write.
    pub(super) left: u64,
    /// Next symbol of each status type (types that go to every symbol in turn).
    pub(super) cursor: [u32; 256],
    /// System events written: the `k`-th is the `k`-th of `O S R M E C`, round and round.
    pub(super) events: usize,
}

impl Shaped {
    pub(super) fn new(shape: Shape, packets: u64) -> Shaped {
        Shaped {
            shape,
            left: packets,
            cursor: [0; 256],
            events: 0,
        }
    }

    pub(super) fn left(&self) -> u64 {
        self.left
    }
}
