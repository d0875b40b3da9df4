//! DEEP+ book consistency: does an order-by-order stream make sense as a book?
//!
//! Only Add Order (`a`) carries a side and a symbol's new order id; Order Modify (`M`), Order
//! Delete (`R`) and Order Executed (`L`) find their order by id, and Clear Book (`C`) drops every
//! order of a symbol. A capture that lost messages, or was cut mid-day, shows up here as
//! references to orders never added and as executions larger than what is left of an order. Trades
//! between non-displayed orders (`T`) and breaks (`B`) do not touch the book.
//!
//! Memory is bounded: at most [`MAX_LIVE_ORDERS`] orders are tracked (about 100 MB of map). Past
//! that, further adds are counted as untracked instead of stored, and from then on a reference to
//! an order the book does not know cannot be told apart from one to an untracked order: it is
//! counted as unchecked, not as an error.

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use rustc_hash::FxHashMap;

use crate::model::{Message, Symbol};

/// Orders tracked at most. A hash map of this many 24-byte entries needs 2^22 buckets (it grows
/// at 7/8 full), about 100 MB; a real DEEP+ day peaks at a few million live orders.
pub const MAX_LIVE_ORDERS: usize = 3_600_000;

/// What the book check found; `inspect --json`'s `book`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct BookReport {
    /// Add Order messages.
    pub adds: u64,
    /// `M`, `R` or `L` naming an order that is not live: never added, already deleted, fully
    /// executed, or dropped by a clear book.
    pub unknown_references: u64,
    /// `L` executing more than the order's remaining size (the order is then dropped).
    pub overfills: u64,
    /// `a` reusing the id of an order that is still live (the new order replaces it).
    pub duplicate_adds: u64,
    /// Orders dropped by Clear Book.
    pub cleared_orders: u64,
    /// Orders live after the last message.
    pub live_orders: u64,
    pub peak_live_orders: u64,
    /// Adds not stored because [`MAX_LIVE_ORDERS`] were already tracked.
    pub untracked_adds: u64,
    /// References to unknown orders after an add went untracked: possibly fine, not checked.
    pub unchecked_references: u64,
}

impl BookReport {
    /// References and executions that contradict the book.
    pub fn inconsistencies(&self) -> u64 {
        self.unknown_references + self.overfills + self.duplicate_adds
    }
}

/// Hashes an order id with the splitmix64 finalizer. Order ids come nearly in sequence, and a
/// map of them churns (every add is soon a delete): with `FxHash` the table's probe sequences
/// grew long enough that removing an order took a third of `inspect`'s time on DEEP+.
#[derive(Debug, Default, Clone, Copy)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }

    #[inline]
    fn write_i64(&mut self, id: i64) {
        let mut z = (id as u64).wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        self.0 = z ^ (z >> 31);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

type OrderMap = HashMap<i64, Order, BuildHasherDefault<IdHasher>>;

#[derive(Debug, Clone, Copy)]
struct Order {
    symbol: u64,
    remaining: u32,
    /// The symbol's clear-book generation when the order was added: an older one means the
    /// order was cleared (dropped lazily, when next seen or when the map is full).
    generation: u32,
}

#[derive(Debug, Clone, Copy, Default)]
struct SymbolBook {
    generation: u32,
    live: u64,
}

/// Replays order messages into a book of live orders (id → symbol, remaining size).
#[derive(Debug, Clone)]
pub struct BookCheck {
    orders: OrderMap,
    symbols: FxHashMap<u64, SymbolBook>,
    report: BookReport,
    capacity: usize,
    /// Whether any clear book happened, so lookups need the generation check.
    cleared: bool,
    /// Whether any order message was applied.
    seen: bool,
}

impl Default for BookCheck {
    fn default() -> Self {
        BookCheck::with_capacity(MAX_LIVE_ORDERS)
    }
}

impl BookCheck {
    /// A check that tracks at most `capacity` orders.
    pub fn with_capacity(capacity: usize) -> Self {
        BookCheck {
            orders: OrderMap::default(),
            symbols: FxHashMap::default(),
            report: BookReport::default(),
            capacity,
            cleared: false,
            seen: false,
        }
    }

    /// Applies one message; messages that are not about orders are ignored.
    #[inline]
    pub fn apply<S: std::borrow::Borrow<Symbol>>(&mut self, m: &Message<S>) {
        match m {
            Message::AddOrder(a) => self.add(a.order_id, a.symbol.borrow().as_u64(), a.size),
            Message::OrderModify(o) => self.modify(o.order_id, o.size),
            Message::OrderDelete(o) => self.delete(o.order_id),
            Message::OrderExecuted(e) => self.execute(e.order_id, e.size),
            Message::ClearBook(c) => self.clear(c.symbol.borrow().as_u64()),
            _ => return,
        }
        self.seen = true;
    }

    /// Whether any order message was applied.
    pub fn saw_orders(&self) -> bool {
        self.seen
    }

    /// The figures so far.
    pub fn report(&self) -> BookReport {
        self.report
    }

    fn add(&mut self, id: i64, symbol: u64, size: u32) {
        self.report.adds += 1;
        if self.orders.len() >= self.capacity {
            self.sweep();
            if self.orders.len() >= self.capacity && !self.orders.contains_key(&id) {
                self.report.untracked_adds += 1;
                return;
            }
        }
        let book = self.symbols.entry(symbol).or_default();
        book.live += 1;
        let order = Order {
            symbol,
            remaining: size,
            generation: book.generation,
        };
        // One probe: an add is almost never a duplicate, and a miss that has to look past the
        // slots deletes left behind is the costly lookup.
        if let Some(old) = self.orders.insert(id, order) {
            if !self.stale(&old) {
                self.report.duplicate_adds += 1;
                self.forget(&old);
            }
        }
        self.report.live_orders += 1;
        self.report.peak_live_orders = self.report.peak_live_orders.max(self.report.live_orders);
    }

    fn modify(&mut self, id: i64, size: u32) {
        match self.live(id) {
            // A modify to zero leaves nothing displayed: the order is gone.
            Some(_) if size == 0 => {
                self.take(id);
            }
            Some(order) => order.remaining = size,
            None => self.unknown(),
        }
    }

    fn delete(&mut self, id: i64) {
        if self.take(id).is_none() {
            self.unknown();
        }
    }

    fn execute(&mut self, id: i64, size: u32) {
        let Some(order) = self.live(id) else {
            return self.unknown();
        };
        if size > order.remaining {
            self.report.overfills += 1;
            self.take(id);
        } else {
            order.remaining -= size;
            if order.remaining == 0 {
                self.take(id);
            }
        }
    }

    fn clear(&mut self, symbol: u64) {
        let book = self.symbols.entry(symbol).or_default();
        book.generation = book.generation.wrapping_add(1);
        self.report.cleared_orders += book.live;
        self.report.live_orders -= book.live;
        book.live = 0;
        self.cleared = true;
    }

    fn unknown(&mut self) {
        if self.report.untracked_adds > 0 {
            self.report.unchecked_references += 1;
        } else {
            self.report.unknown_references += 1;
        }
    }

    /// Whether a stored order was dropped by a clear book since it was added.
    fn stale(&self, order: &Order) -> bool {
        stale(self.cleared, &self.symbols, order)
    }

    /// The live order `id`, dropping it first if it turns out cleared: one map probe.
    fn live(&mut self, id: i64) -> Option<&mut Order> {
        match self.orders.entry(id) {
            Entry::Occupied(e) if stale(self.cleared, &self.symbols, e.get()) => {
                e.remove();
                None
            }
            Entry::Occupied(e) => Some(e.into_mut()),
            Entry::Vacant(_) => None,
        }
    }

    /// Removes the live order `id`, keeping the counts right.
    fn take(&mut self, id: i64) -> Option<Order> {
        let order = self.orders.remove(&id)?;
        if self.stale(&order) {
            return None;
        }
        self.forget(&order);
        Some(order)
    }

    /// Counts a live order as gone.
    fn forget(&mut self, order: &Order) {
        if let Some(book) = self.symbols.get_mut(&order.symbol) {
            book.live -= 1;
        }
        self.report.live_orders -= 1;
    }

    /// Frees the slots of cleared orders.
    fn sweep(&mut self) {
        if !self.cleared {
            return;
        }
        let (cleared, symbols) = (self.cleared, &self.symbols);
        self.orders.retain(|_, o| !stale(cleared, symbols, o));
    }
}

/// Whether a stored order was dropped by a clear book of its symbol since it was added.
fn stale(cleared: bool, symbols: &FxHashMap<u64, SymbolBook>, order: &Order) -> bool {
    cleared
        && symbols
            .get(&order.symbol)
            .is_some_and(|b| b.generation != order.generation)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AddOrder, ClearBook, OrderDelete, OrderExecuted, OrderModify};

    fn sym(s: &str) -> Symbol {
        Symbol::new(s).unwrap()
    }

    fn add(id: i64, symbol: &str, size: u32) -> Message {
        Message::AddOrder(AddOrder {
            side: b'8',
            timestamp: 0,
            symbol: sym(symbol),
            order_id: id,
            size,
            price: 1_000_000,
        })
    }

    fn modify(id: i64, size: u32) -> Message {
        Message::OrderModify(OrderModify {
            flags: 0,
            timestamp: 0,
            symbol: sym("X"),
            order_id: id,
            size,
            price: 1_000_100,
        })
    }

    fn delete(id: i64) -> Message {
        Message::OrderDelete(OrderDelete {
            timestamp: 0,
            symbol: sym("X"),
            order_id: id,
        })
    }

    fn exec(id: i64, size: u32) -> Message {
        Message::OrderExecuted(OrderExecuted {
            flags: 0,
            timestamp: 0,
            symbol: sym("X"),
            order_id: id,
            size,
            price: 1_000_000,
            trade_id: 1,
        })
    }

    fn clear(symbol: &str) -> Message {
        Message::ClearBook(ClearBook {
            timestamp: 0,
            symbol: sym(symbol),
        })
    }

    fn run(capacity: usize, messages: &[Message]) -> BookReport {
        let mut book = BookCheck::with_capacity(capacity);
        for m in messages {
            book.apply(m);
        }
        book.report()
    }

    #[test]
    fn a_consistent_sequence_has_no_inconsistencies() {
        let r = run(
            100,
            &[
                add(1, "AAPL", 100),
                add(2, "AAPL", 200),
                add(3, "SPY", 300),
                exec(1, 40),
                modify(1, 50),
                exec(1, 50), // the modified size, fully executed: gone
                delete(2),
                add(2, "SPY", 10), // an id reused after its delete
            ],
        );
        assert_eq!(r.inconsistencies(), 0, "{r:?}");
        assert_eq!((r.adds, r.live_orders, r.peak_live_orders), (4, 2, 3));
    }

    #[test]
    fn references_to_dead_orders_overfills_and_duplicates_are_counted() {
        let r = run(
            100,
            &[
                delete(7), // never added
                add(1, "AAPL", 100),
                exec(1, 100),
                exec(1, 1), // fully executed already
                add(2, "AAPL", 100),
                exec(2, 101), // more than is left: counted, and the order is gone
                modify(2, 5),
                add(3, "SPY", 1),
                add(3, "SPY", 2), // id still live
            ],
        );
        assert_eq!(r.unknown_references, 3, "{r:?}");
        assert_eq!(r.overfills, 1);
        assert_eq!(r.duplicate_adds, 1);
        assert_eq!(r.live_orders, 1);
    }

    #[test]
    fn clear_book_drops_only_that_symbols_orders() {
        let r = run(
            100,
            &[
                add(1, "AAPL", 100),
                add(2, "AAPL", 100),
                add(3, "SPY", 100),
                clear("AAPL"),
                exec(1, 10), // cleared: unknown
                delete(3),   // SPY is untouched
                add(4, "AAPL", 5),
                exec(4, 5), // a new AAPL order after the clear is live
            ],
        );
        assert_eq!(r.cleared_orders, 2);
        assert_eq!(r.unknown_references, 1, "{r:?}");
        assert_eq!((r.live_orders, r.peak_live_orders), (0, 3));
    }

    #[test]
    fn past_capacity_adds_go_untracked_and_unknown_references_unchecked() {
        let r = run(
            2,
            &[
                delete(9), // before any untracked add: a real error
                add(1, "A", 1),
                add(2, "A", 1),
                add(3, "A", 1), // over capacity
                delete(3),
                delete(1),
                add(4, "A", 1), // room again
                delete(4),
            ],
        );
        assert_eq!(r.untracked_adds, 1);
        assert_eq!(r.unchecked_references, 1);
        assert_eq!(r.unknown_references, 1);
        assert_eq!(r.live_orders, 1);
    }

    #[test]
    fn cleared_orders_free_their_slots_when_the_map_is_full() {
        let r = run(
            2,
            &[
                add(1, "A", 1),
                add(2, "A", 1),
                clear("A"),
                add(3, "B", 1), // the sweep makes room
                add(4, "B", 1),
            ],
        );
        assert_eq!(r.untracked_adds, 0, "{r:?}");
        assert_eq!(r.live_orders, 2);
    }
}
