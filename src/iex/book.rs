//! DEEP+ book consistency: does an order-by-order stream make sense as a book?
//!
//! Only Add Order (`a`) carries a side and a symbol's new order id; Order Modify (`M`), Order
//! Delete (`R`) and Order Executed (`L`) find their order by id, and Clear Book (`C`) drops every
//! order of a symbol. A capture that lost messages, or was cut mid-day, shows up here as
//! references to orders never added and as executions larger than what is left of an order. Trades
//! between non-displayed orders (`T`) and breaks (`B`) do not touch the book.
//!
//! Orders are kept by id in [`LiveOrders`]: a ring indexed by id for the newest million ids (IEX
//! ids come nearly in sequence, so adds, executions and deletes there need no hashing) and a
//! hash map for older or outlying ids.
//!
//! Memory is bounded: at most [`MAX_LIVE_ORDERS`] orders are tracked (at most about 100 MB of map
//! plus the 12 MiB ring). Orders dropped by a clear book are forgotten lazily, and at the latest
//! when the ring's window moves past them, so they never pile up in the map. Past that bound,
//! further adds are counted as untracked instead of stored, and from then on a reference to
//! an order the book does not know cannot be told apart from one to an untracked order: it is
//! counted as unchecked, not as an error.

use std::collections::VecDeque;
use std::num::NonZeroU32;

use rustc_hash::FxHashMap;

use super::live_orders::LiveOrders;

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

type OrderMap = LiveOrders<Order>;

/// 12 bytes, and `Option<Order>` too (the book index is never 0): a ring slot is 12 bytes, so
/// the live orders of a busy book take half the cache lines they would as full symbols.
#[derive(Debug, Clone, Copy)]
struct Order {
    /// The symbol's [`SymbolBook`], 1-based.
    book: NonZeroU32,
    remaining: u32,
    /// The symbol's clear-book generation when the order was added: an older one means the
    /// order was cleared (dropped lazily, when next seen or when the map is full).
    generation: u32,
}

/// An order message, as much of it as the book needs: what `BookCheck::pending` holds. Messages
/// are cut down to ops by [`super::book_thread::BookFeed::apply`], the one place that maps them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Add { id: i64, symbol: u64, size: u32 },
    Modify { id: i64, size: u32 },
    Delete { id: i64 },
    Execute { id: i64, size: u32 },
    Clear { symbol: u64 },
}

/// Order messages held back before they are applied, their slots prefetched meanwhile. Each
/// reference to an older order is a cache miss in a book of tens of thousands of orders; held
/// back this many messages, a dozen misses overlap instead of queueing one after the other.
const LOOKAHEAD: usize = 16;

#[derive(Debug, Clone, Copy, Default)]
struct SymbolBook {
    generation: u32,
    live: u64,
}

/// Replays order messages into a book of live orders (id → symbol, remaining size).
#[derive(Debug, Clone)]
pub struct BookCheck {
    orders: OrderMap,
    /// Symbol → its book in `books` (1-based), so an order names its symbol in 4 bytes and
    /// finding its book is an index, not a hash lookup.
    symbols: FxHashMap<u64, NonZeroU32>,
    books: Vec<SymbolBook>,
    report: BookReport,
    /// Messages not applied yet, oldest first, at most [`LOOKAHEAD`]; [`BookCheck::report`]
    /// applies them first, so the figures are those of every message in order.
    pending: VecDeque<Op>,
    capacity: usize,
    /// Whether any clear book happened, so lookups need the generation check.
    cleared: bool,
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
            books: Vec::new(),
            report: BookReport::default(),
            pending: VecDeque::with_capacity(LOOKAHEAD),
            capacity,
            cleared: false,
        }
    }

    /// Applies one order message, or queues it to be applied in order (see `LOOKAHEAD`).
    #[inline]
    pub fn push(&mut self, op: Op) {
        match op {
            // An add's slot is the ring's newest: already in the cache.
            Op::Modify { id, .. } | Op::Delete { id } | Op::Execute { id, .. } => {
                self.orders.prefetch(id)
            }
            Op::Add { .. } | Op::Clear { .. } => {}
        }
        if self.pending.len() == LOOKAHEAD {
            self.apply_oldest();
        }
        self.pending.push_back(op);
    }

    fn apply_oldest(&mut self) {
        match self.pending.pop_front() {
            Some(Op::Add { id, symbol, size }) => self.add(id, symbol, size),
            Some(Op::Modify { id, size }) => self.modify(id, size),
            Some(Op::Delete { id }) => self.delete(id),
            Some(Op::Execute { id, size }) => self.execute(id, size),
            Some(Op::Clear { symbol }) => self.clear(symbol),
            None => {}
        }
    }

    /// The figures of every message applied so far (held-back ones are applied first).
    pub fn report(&mut self) -> BookReport {
        while !self.pending.is_empty() {
            self.apply_oldest();
        }
        self.report
    }

    fn add(&mut self, id: i64, symbol: u64, size: u32) {
        self.report.adds += 1;
        if self.orders.len() >= self.capacity {
            self.sweep();
            if self.orders.len() >= self.capacity && !self.orders.contains_key(id) {
                self.report.untracked_adds += 1;
                return;
            }
        }
        let index = self.book_index(symbol);
        let book = &mut self.books[slot(index)];
        book.live += 1;
        let order = Order {
            book: index,
            remaining: size,
            generation: book.generation,
        };
        // One probe: an add is almost never a duplicate, and a miss that has to look past the
        // slots deletes left behind is the costly lookup.
        // Cleared orders the ring's window leaves behind are dropped, not kept in the map: a day
        // of clear books would otherwise fill it with orders no message will name again.
        let (cleared, books) = (self.cleared, &self.books);
        if let Some(old) = self
            .orders
            .insert_dropping(id, order, |o| stale(cleared, books, o))
        {
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
        let index = self.book_index(symbol);
        let book = &mut self.books[slot(index)];
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
        stale(self.cleared, &self.books, order)
    }

    /// The live order `id`, dropping it first if it turns out cleared.
    fn live(&mut self, id: i64) -> Option<&mut Order> {
        if self.cleared {
            let order = self.orders.get_mut(id)?;
            if stale(self.cleared, &self.books, order) {
                self.orders.remove(id);
                return None;
            }
        }
        self.orders.get_mut(id)
    }

    /// Removes the live order `id`, keeping the counts right.
    fn take(&mut self, id: i64) -> Option<Order> {
        let order = self.orders.remove(id)?;
        if self.stale(&order) {
            return None;
        }
        self.forget(&order);
        Some(order)
    }

    /// Counts a live order as gone.
    fn forget(&mut self, order: &Order) {
        self.books[slot(order.book)].live -= 1;
        self.report.live_orders -= 1;
    }

    /// Frees the slots of cleared orders.
    fn sweep(&mut self) {
        if !self.cleared {
            return;
        }
        let (cleared, books) = (self.cleared, &self.books);
        self.orders.retain(|o| !stale(cleared, books, o));
    }

    /// The 1-based index of `symbol`'s book, made on first sight.
    fn book_index(&mut self, symbol: u64) -> NonZeroU32 {
        let books = &mut self.books;
        *self.symbols.entry(symbol).or_insert_with(|| {
            books.push(SymbolBook::default());
            NonZeroU32::new(u32::try_from(books.len()).expect("fewer than 2^32 symbols"))
                .expect("at least one book")
        })
    }
}

/// Where book `index` (1-based) is in `BookCheck::books`.
#[inline]
fn slot(index: NonZeroU32) -> usize {
    index.get() as usize - 1
}

/// Whether a stored order was dropped by a clear book of its symbol since it was added.
fn stale(cleared: bool, books: &[SymbolBook], order: &Order) -> bool {
    cleared && books[slot(order.book)].generation != order.generation
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Symbol;

    fn sym(s: &str) -> Symbol {
        Symbol::new(s).unwrap()
    }

    fn add(id: i64, symbol: &str, size: u32) -> Op {
        Op::Add {
            id,
            symbol: sym(symbol).as_u64(),
            size,
        }
    }

    fn modify(id: i64, size: u32) -> Op {
        Op::Modify { id, size }
    }

    fn delete(id: i64) -> Op {
        Op::Delete { id }
    }

    fn exec(id: i64, size: u32) -> Op {
        Op::Execute { id, size }
    }

    fn clear(symbol: &str) -> Op {
        Op::Clear {
            symbol: sym(symbol).as_u64(),
        }
    }

    fn run(capacity: usize, ops: &[Op]) -> BookReport {
        let mut book = BookCheck::with_capacity(capacity);
        for &op in ops {
            book.push(op);
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
    fn ids_outside_the_ring_window_are_checked_the_same() {
        // Ids a window and more apart, below the first one, and negative: some live in the
        // ring, some in the map; the figures must not depend on which.
        let w = crate::iex::live_orders::WINDOW as i64;
        let r = run(
            100,
            &[
                add(5 * w, "A", 10),
                add(5 * w + w, "A", 10), // slides the window: 5w moves to the map
                add(3, "B", 10),         // far below: the map
                add(-9, "B", 10),
                exec(5 * w, 4),
                exec(5 * w, 7),  // overfill of the order in the map
                modify(3, 0),    // to zero: gone
                delete(3),       // unknown
                add(-9, "B", 1), // duplicate of a live order in the map
                add(5 * w + w + 1, "A", 10),
                clear("A"),
                exec(5 * w + w, 1), // cleared
                delete(-9),
                delete(12 * w), // never added
            ],
        );
        assert_eq!(r.overfills, 1, "{r:?}");
        assert_eq!(r.duplicate_adds, 1);
        assert_eq!(r.unknown_references, 3);
        assert_eq!(r.cleared_orders, 2);
        assert_eq!((r.adds, r.live_orders, r.peak_live_orders), (6, 0, 4));
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

    #[test]
    fn cleared_orders_do_not_pile_up_once_the_window_moves_on() {
        // A clear book every window's worth of ids, each leaving 2,000 cleared orders behind
        // (enough adds to earn the window's slide: see `CREDIT_PER_INSERT`). They are dropped
        // as the window slides past them; the live ones move to the map.
        let w = crate::iex::live_orders::WINDOW as i64;
        let mut book = BookCheck::with_capacity(100_000);
        let mut ops = Vec::new();
        for round in 0..5 {
            for k in 0..2000 {
                ops.push(add(round * w + k, "A", 10));
            }
            ops.push(add(round * w + 2000, "KEEP", 10));
            ops.push(clear("A"));
        }
        ops.push(add(5 * w + 2000, "B", 1));
        for op in ops {
            book.push(op);
        }
        let r = book.report();
        assert_eq!(r.cleared_orders, 10_000);
        assert_eq!((r.live_orders, r.inconsistencies()), (6, 0), "{r:?}");
        // Only the five live KEEP orders left the window, into the map.
        assert_eq!(book.orders.in_map(), 5);
        assert!(book.orders.len() <= 2006, "{}", book.orders.len());
    }
}
