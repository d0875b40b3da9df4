//! The live displayed orders of one symbol, for the DEEP+ order flow: what may still be
//! modified, deleted or executed.
//!
//! A plain vector, unordered: a random order is an index away and leaves by `swap_remove`, so
//! every operation but the best-price scan of an execution is O(1), and no id → order map is
//! needed (the simulation only ever touches orders it picked from here). Capacity grows by
//! doubling up to the symbol's cap (a power of two), so it never exceeds the cap and stops
//! allocating once reached.

use crate::model::Price;

/// Bound on the live orders of the whole day: the per-symbol cap is this divided among the
/// symbols (see [`live_cap`]). 2^21 orders of 24 bytes are 48 MiB at worst.
pub const MAX_LIVE_ORDERS: usize = 1 << 21;
/// Per-symbol cap bounds: enough depth for a busy name, never too few for a thin universe.
const MIN_CAP: usize = 16;
const MAX_CAP: usize = 1024;

/// Live orders allowed per symbol for a universe of `symbols`: [`MAX_LIVE_ORDERS`] shared out,
/// clamped to 16..=1024 and rounded down to a power of two. The day's live book is at most
/// `symbols × live_cap(symbols)` orders: 512 K for 500 symbols, 1.6 M for 100 000.
pub fn live_cap(symbols: usize) -> usize {
    let share = (MAX_LIVE_ORDERS / symbols.max(1)).clamp(MIN_CAP, MAX_CAP);
    1 << share.ilog2()
}

/// Buy side byte of `a` (`8`), as on the wire.
pub(super) const BUY: u8 = b'8';
/// Sell side byte of `a` (`5`).
pub(super) const SELL: u8 = b'5';

/// One live displayed order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Order {
    pub(super) id: i64,
    pub(super) price: Price,
    /// Remaining displayed size, at least 1.
    pub(super) size: u32,
    /// [`BUY`] or [`SELL`].
    pub(super) side: u8,
}

/// A symbol's live orders.
#[derive(Debug, Clone, Default)]
pub(super) struct Book {
    orders: Vec<Order>,
}

impl Book {
    pub(super) fn len(&self) -> usize {
        self.orders.len()
    }

    pub(super) fn add(&mut self, o: Order) {
        self.orders.push(o);
    }

    pub(super) fn get(&self, at: usize) -> Order {
        self.orders[at]
    }

    pub(super) fn get_mut(&mut self, at: usize) -> &mut Order {
        &mut self.orders[at]
    }

    /// Takes the order at `at` out of the book.
    pub(super) fn remove(&mut self, at: usize) -> Order {
        self.orders.swap_remove(at)
    }

    /// Index of the best-priced order of `side` (highest buy, lowest sell): the one an incoming
    /// marketable order meets first. `None` when that side is empty.
    pub(super) fn best(&self, side: u8) -> Option<usize> {
        let mut best: Option<(usize, Price)> = None;
        for (at, o) in self.orders.iter().enumerate() {
            if o.side != side {
                continue;
            }
            let better = match best {
                None => true,
                Some((_, p)) if side == BUY => o.price > p,
                Some((_, p)) => o.price < p,
            };
            if better {
                best = Some((at, o.price));
            }
        }
        best.map(|(at, _)| at)
    }

    /// Drops every order (a `C` Clear Book); keeps the capacity for the orders to come.
    pub(super) fn clear(&mut self) {
        self.orders.clear();
    }

    #[cfg(test)]
    pub(super) fn capacity(&self) -> usize {
        self.orders.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cap_is_a_power_of_two_within_bounds_and_bounds_the_day() {
        for n in [1usize, 2, 500, 2048, 3000, 100_000] {
            let cap = live_cap(n);
            assert!(cap.is_power_of_two() && (MIN_CAP..=MAX_CAP).contains(&cap));
            assert!(n * cap <= MAX_LIVE_ORDERS.max(n * MIN_CAP));
        }
        assert_eq!(live_cap(500), 1024);
        assert_eq!(live_cap(100_000), 16);
        assert!(std::mem::size_of::<Order>() <= 24);
    }

    #[test]
    fn best_picks_the_top_of_each_side() {
        let mut b = Book::default();
        let o = |id, price, side| Order {
            id,
            price,
            size: 100,
            side,
        };
        assert_eq!(b.best(BUY), None);
        b.add(o(1, 100, BUY));
        b.add(o(2, 300, SELL));
        b.add(o(3, 200, BUY));
        b.add(o(4, 250, SELL));
        assert_eq!(b.get(b.best(BUY).unwrap()).id, 3);
        assert_eq!(b.get(b.best(SELL).unwrap()).id, 4);
        assert_eq!(b.remove(0).id, 1);
        assert_eq!(b.get(0).id, 4, "swap_remove moves the last in");
        b.clear();
        assert!(b.len() == 0 && b.capacity() >= 4);
    }

    #[test]
    fn growth_stops_at_a_power_of_two_cap() {
        let mut b = Book::default();
        for id in 0..1024 {
            b.add(Order {
                id,
                price: 1,
                size: 1,
                side: BUY,
            });
        }
        assert_eq!(b.capacity(), 1024);
    }
}
