//! The live displayed orders of one symbol, for the DEEP+ order flow: what may still be
//! modified, deleted or executed.
//!
//! A plain vector, unordered: a random order is an index away and leaves by `swap_remove`, so
//! every operation but the best-price scan of an execution is O(1), and no id → order map is
//! needed (the simulation only ever touches orders it picked from here). Capacity grows by
//! doubling up to the symbol's cap (a power of two), so it never exceeds the cap and stops
//! allocating once reached.
//!
//! Orders are kept packed in 16 bytes ([`Slot`]) rather than the 24 of an [`Order`]: the
//! random order a delete or modify picks is the simulation's main cache miss, and a day's live
//! book (about 60 000 orders for 500 symbols) then fits a core's 1 MiB L2 far better.

use crate::model::Price;

use super::universe::TICK;

/// Bound on the live orders of the whole day: the per-symbol cap is this divided among the
/// symbols (see [`live_cap`]). 2^21 orders of 16 bytes are 32 MiB at worst.
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

/// An [`Order`] as the book keeps it: the price in ticks and the size in 16 bits, which every
/// order the simulation makes fits (a book price is a whole number of ticks, at least one; a
/// displayed size is at most 20 round lots).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Slot {
    id: i64,
    ticks: u32,
    size: u16,
    side: u8,
}

impl Slot {
    fn ticks(price: Price) -> u32 {
        debug_assert!(price >= TICK && price % TICK == 0, "price {price}");
        u32::try_from(price / TICK).expect("a book price is under 2^32 ticks")
    }

    fn size(size: u32) -> u16 {
        u16::try_from(size).expect("a displayed size is under 2^16")
    }

    fn pack(o: Order) -> Slot {
        Slot {
            id: o.id,
            ticks: Slot::ticks(o.price),
            size: Slot::size(o.size),
            side: o.side,
        }
    }

    fn price(self) -> Price {
        Price::from(self.ticks) * TICK
    }

    fn unpack(self) -> Order {
        Order {
            id: self.id,
            price: self.price(),
            size: u32::from(self.size),
            side: self.side,
        }
    }
}

/// A symbol's live orders, and its best bid and offer, cached.
#[derive(Debug, Clone)]
pub(super) struct Book {
    orders: Vec<Slot>,
    /// The best price of each side (`[buy, sell]`; `Price::MIN` with no buys, `Price::MAX` with
    /// no sells) and how many orders show it, valid unless `stale`: the last order at a best
    /// price left it, and the next best is found by a scan only when asked for.
    best: [Price; 2],
    at_best: [u32; 2],
    stale: bool,
}

const EMPTY: [Price; 2] = [Price::MIN, Price::MAX];

/// Index into [`Book::best`], and whether `a` is a better price than `b` on that side.
fn side_index(side: u8) -> usize {
    usize::from(side != BUY)
}
fn better(side: usize, a: Price, b: Price) -> bool {
    if side == 0 {
        a > b
    } else {
        a < b
    }
}

impl Default for Book {
    fn default() -> Self {
        Book {
            orders: Vec::new(),
            best: EMPTY,
            at_best: [0; 2],
            stale: false,
        }
    }
}

impl Book {
    pub(super) fn len(&self) -> usize {
        self.orders.len()
    }

    pub(super) fn add(&mut self, o: Order) {
        self.orders.push(Slot::pack(o));
        self.joined(side_index(o.side), o.price);
    }

    pub(super) fn get(&self, at: usize) -> Order {
        self.orders[at].unpack()
    }

    /// The order at `at` now shows `size` at `price`.
    pub(super) fn set(&mut self, at: usize, size: u32, price: Price) {
        let o = &mut self.orders[at];
        let (old, side) = (o.price(), side_index(o.side));
        o.size = Slot::size(size);
        o.ticks = Slot::ticks(price);
        if price != old {
            self.left(side, old);
            self.joined(side, price);
        }
    }

    /// Takes the order at `at` out of the book.
    pub(super) fn remove(&mut self, at: usize) -> Order {
        let o = self.orders.swap_remove(at).unpack();
        self.left(side_index(o.side), o.price);
        o
    }

    fn joined(&mut self, side: usize, price: Price) {
        if self.stale {
            return;
        }
        if price == self.best[side] {
            self.at_best[side] += 1;
        } else if better(side, price, self.best[side]) {
            (self.best[side], self.at_best[side]) = (price, 1);
        }
    }

    fn left(&mut self, side: usize, price: Price) {
        if !self.stale && price == self.best[side] {
            self.at_best[side] -= 1;
            self.stale = self.at_best[side] == 0;
        }
    }

    /// Best bid and offer: (`Price::MIN` with no buys, `Price::MAX` with no sells). Never
    /// crossed, as the simulation only prices orders inside them.
    pub(super) fn bbo(&mut self) -> (Price, Price) {
        if self.stale {
            (self.best, self.at_best, self.stale) = (EMPTY, [0; 2], false);
            for at in 0..self.orders.len() {
                let o = self.orders[at];
                self.joined(side_index(o.side), o.price());
            }
        }
        (self.best[0], self.best[1])
    }

    /// Index of an order at the best price of `side` (highest buy, lowest sell): the one an
    /// incoming marketable order meets first. `None` when that side is empty.
    pub(super) fn best(&mut self, side: u8) -> Option<usize> {
        let (bid, ask) = self.bbo();
        let price = if side == BUY { bid } else { ask };
        if price == Price::MIN || price == Price::MAX {
            return None;
        }
        let ticks = Slot::ticks(price);
        self.orders
            .iter()
            .position(|o| o.side == side && o.ticks == ticks)
    }

    /// Drops every order (a `C` Clear Book); keeps the capacity for the orders to come.
    pub(super) fn clear(&mut self) {
        self.orders.clear();
        (self.best, self.at_best, self.stale) = (EMPTY, [0; 2], false);
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
        assert_eq!(std::mem::size_of::<Slot>(), 16);
    }

    #[test]
    fn cached_bbo_and_best_match_a_scan_through_random_changes() {
        let mut rng = fastrand::Rng::with_seed(5);
        let mut b = Book::default();
        for id in 0..20_000 {
            match rng.u8(0..10) {
                0..=3 => b.add(Order {
                    id,
                    price: rng.i64(1..12) * 100,
                    size: 100,
                    side: if rng.bool() { BUY } else { SELL },
                }),
                4..=6 if b.len() > 0 => {
                    b.remove(rng.usize(0..b.len()));
                }
                7 if b.len() > 0 => {
                    let at = rng.usize(0..b.len());
                    b.set(at, 50, rng.i64(1..12) * 100);
                }
                8 => {
                    if let Some(at) = b.best(if rng.bool() { BUY } else { SELL }) {
                        b.remove(at);
                    }
                }
                _ if rng.u16(0..500) == 0 => b.clear(),
                _ => {}
            }
            let scan = b
                .orders
                .iter()
                .map(|o| o.unpack())
                .fold(EMPTY, |[bid, ask], o| {
                    if o.side == BUY {
                        [bid.max(o.price), ask]
                    } else {
                        [bid, ask.min(o.price)]
                    }
                });
            assert_eq!(b.bbo(), (scan[0], scan[1]), "step {id}");
            // `best` points at an order of that side at that price, `None` for an empty side.
            for (side, price, none) in [(BUY, scan[0], Price::MIN), (SELL, scan[1], Price::MAX)] {
                let best = b.best(side).map(|at| b.get(at));
                let best = best.map(|o| (o.side, o.price));
                assert_eq!(best, (price != none).then_some((side, price)), "step {id}");
            }
        }
    }

    #[test]
    fn growth_stops_at_a_power_of_two_cap() {
        let mut b = Book::default();
        for id in 0..1024 {
            b.add(Order {
                id,
                price: TICK,
                size: 1,
                side: BUY,
            });
        }
        assert_eq!(b.capacity(), 1024);
        // A clear book keeps the capacity for the orders to come.
        b.clear();
        assert_eq!((b.len(), b.capacity()), (0, 1024));
    }
}
