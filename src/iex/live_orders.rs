//! Live orders by id for the DEEP+ book check: a map from order id to a small value that is
//! cheap for the ids that churn.
//!
//! IEX hands out order ids nearly in sequence, and most orders die young (a cancel or a fill a
//! few thousand ids later). So the newest [`WINDOW`] ids live in a ring of slots indexed by
//! `id mod WINDOW`: an add, lookup or delete there is one array access, with no hashing and no
//! probe sequence (on a churning hash map, `remove` alone took a quarter of `inspect`'s time on
//! DEEP+). The window slides forward as new ids arrive; an order still live when its slot leaves
//! the window, and any id outside it, goes to a hash map instead.
//!
//! It behaves exactly like a map whatever the ids (out of order, negative, far apart): the book
//! figures do not depend on where an order is kept. Memory is the fixed ring plus the map, which
//! the caller bounds through [`LiveOrders::len`]. Sliding costs one slot visited per id the
//! window moves; a budget of [`CREDIT_PER_INSERT`] visits per insert stops ids that leap ahead
//! on every add from making each add scan the whole ring: such ids go to the map instead.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Ids the ring covers: 2^20 slots (12 MiB for the book check's 12-byte orders), so an order
/// must outlive about a million newer ids before it moves to the map. The synthetic DEEP+ day
/// keeps ~57,000 orders live with ids ~2.5 apart: next to none ever move.
/// Miri, which interprets every slot, gets 2^10, and so do the fuzzers (`cfg(fuzzing)`, set by
/// cargo-fuzz): at 2^20 each of their tiny inputs would pay for a 12 MiB ring and a slide
/// across it, most of a fuzz run's time (docs/BENCHMARKS.md, "Inspecting DEEP+: the ring").
/// The small ring also sends more of their ids to the map and back, the paths that are hardest
/// to reach.
pub const WINDOW: usize = if cfg!(any(miri, fuzzing)) {
    1 << 10
} else {
    1 << 20
};
/// Slots the window may move per insert, saved up to a whole window: ids a few apart slide it
/// freely, a stream whose ids leap by more than this on every add is held to this much work.
pub const CREDIT_PER_INSERT: u64 = 1024;

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

type IdMap<V> = HashMap<i64, V, BuildHasherDefault<IdHasher>>;

/// Where an id is kept.
enum Place {
    /// In the ring, at this slot.
    Slot(usize),
    /// In the map.
    Map,
}

/// Order id → `V`, as a ring of the newest ids plus a map for the rest.
#[derive(Debug, Clone)]
pub struct LiveOrders<V> {
    /// Empty until the first insert (a DEEP file never pays for the ring), then [`WINDOW`] long.
    slots: Vec<Option<V>>,
    /// The ring holds ids `base..base + WINDOW` (as i128: ids are any i64). Only ever grows, so
    /// an id that left the window never comes back into it.
    base: i64,
    in_slots: usize,
    map: IdMap<V>,
    /// Whether the map may hold an id inside the window: one inserted when it was ahead of the
    /// window, which has since slid over it. Only then does a ring miss look in the map too.
    map_ahead: bool,
    /// Slots the window may still move past ([`CREDIT_PER_INSERT`]).
    credit: u64,
}

impl<V> Default for LiveOrders<V> {
    fn default() -> Self {
        LiveOrders {
            slots: Vec::new(),
            base: 0,
            in_slots: 0,
            map: IdMap::default(),
            map_ahead: false,
            credit: WINDOW as u64,
        }
    }
}

impl<V: Copy> LiveOrders<V> {
    pub fn len(&self) -> usize {
        self.in_slots + self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Orders kept in the map rather than the ring (for tests and curiosity).
    pub fn in_map(&self) -> usize {
        self.map.len()
    }

    /// Where `id` is, when it is kept at all.
    #[inline]
    fn place(&self, id: i64) -> Place {
        let off = i128::from(id) - i128::from(self.base);
        if !self.slots.is_empty() && (0..WINDOW as i128).contains(&off) {
            Place::Slot(slot_of(id))
        } else {
            Place::Map
        }
    }

    /// Starts loading `id`'s ring slot into the cache (nothing for an id outside the ring): to
    /// be called a few operations before `id` is used.
    #[inline]
    pub fn prefetch(&self, id: i64) {
        if let Place::Slot(i) = self.place(id) {
            crate::sys::prefetch(&self.slots[i]);
        }
    }

    #[inline]
    pub fn get_mut(&mut self, id: i64) -> Option<&mut V> {
        match self.place(id) {
            Place::Slot(i) if self.slots[i].is_some() || !self.map_ahead => self.slots[i].as_mut(),
            _ => self.map.get_mut(&id),
        }
    }

    pub fn contains_key(&mut self, id: i64) -> bool {
        self.get_mut(id).is_some()
    }

    #[inline]
    pub fn remove(&mut self, id: i64) -> Option<V> {
        match self.place(id) {
            Place::Slot(i) => match self.slots[i].take() {
                Some(v) => {
                    self.in_slots -= 1;
                    Some(v)
                }
                None if self.map_ahead => self.map_remove(id),
                None => None,
            },
            Place::Map => self.map_remove(id),
        }
    }

    /// Stores `v` under `id`; returns what was stored under it before.
    #[inline]
    pub fn insert(&mut self, id: i64, v: V) -> Option<V> {
        self.insert_dropping(id, v, |_| false)
    }

    /// [`LiveOrders::insert`], dropping instead of moving to the map the entries that `dead`
    /// says are no longer needed when the window slides past them: the book's cleared orders,
    /// which would otherwise pile up in the map for the rest of the day.
    #[inline]
    pub fn insert_dropping(&mut self, id: i64, v: V, dead: impl Fn(&V) -> bool) -> Option<V> {
        self.credit = (self.credit + CREDIT_PER_INSERT).min(WINDOW as u64);
        if self.slots.is_empty() {
            let mut slots = Vec::with_capacity(WINDOW);
            crate::sys::advise_huge_pages(&mut slots);
            slots.resize(WINDOW, None);
            self.slots = slots;
            self.base = bottom_for(id);
        }
        let off = i128::from(id) - i128::from(self.base);
        if off >= WINDOW as i128 && !self.slide_to(id, off, dead) {
            self.map_ahead = true;
        }
        match self.place(id) {
            Place::Slot(i) => {
                match self.slots[i].replace(v) {
                    Some(old) => Some(old),
                    None => {
                        self.in_slots += 1;
                        // An id the window slid over may still be in the map: it moves here.
                        if self.map_ahead {
                            self.map_remove(id)
                        } else {
                            None
                        }
                    }
                }
            }
            Place::Map => self.map.insert(id, v),
        }
    }

    /// Keeps only the entries `keep` says yes to.
    pub fn retain(&mut self, mut keep: impl FnMut(&V) -> bool) {
        for slot in &mut self.slots {
            if slot.as_ref().is_some_and(|v| !keep(v)) {
                *slot = None;
                self.in_slots -= 1;
            }
        }
        self.map.retain(|_, v| keep(v));
        self.map_ahead &= !self.map.is_empty();
    }

    fn map_remove(&mut self, id: i64) -> Option<V> {
        let v = self.map.remove(&id);
        self.map_ahead &= !self.map.is_empty();
        v
    }

    /// Moves the window up so `id` (`off` past its bottom) is its newest slot, moving the orders
    /// whose slots it leaves to the map (dropping those `dead` says yes to). Refuses (returns
    /// `false`) when that would cost more slot visits than the credit saved up.
    fn slide_to(&mut self, id: i64, off: i128, dead: impl Fn(&V) -> bool) -> bool {
        let by = off - WINDOW as i128 + 1;
        let visits = if self.in_slots == 0 {
            0
        } else {
            by.min(WINDOW as i128) as u64
        };
        if visits > self.credit {
            return false;
        }
        self.credit -= visits;
        for k in 0..visits {
            let old = self.base.wrapping_add(k as i64);
            if let Some(v) = self.slots[slot_of(old)].take() {
                self.in_slots -= 1;
                if !dead(&v) {
                    self.map.insert(old, v);
                }
            }
        }
        self.base = bottom_for(id);
        true
    }
}

/// The ring slot of `id`: ids a window apart share one, ids within a window never do.
#[inline]
fn slot_of(id: i64) -> usize {
    (id as u64 as usize) & (WINDOW - 1)
}

/// The window bottom that makes `id` its newest id (saturating at `i64::MIN`).
fn bottom_for(id: i64) -> i64 {
    id.saturating_sub(WINDOW as i64 - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::collections::BTreeMap;

    /// Applies the same operations to a `LiveOrders` and to a `BTreeMap` and checks every answer
    /// and the length agree.
    fn same_as_a_map(ops: &[(char, i64)]) -> LiveOrders<i64> {
        let mut live = LiveOrders::default();
        let mut map = BTreeMap::new();
        for (n, &(op, id)) in ops.iter().enumerate() {
            let v = n as i64;
            match op {
                'i' => assert_eq!(
                    live.insert(id, v),
                    map.insert(id, v),
                    "insert {id} (op {n})"
                ),
                'r' => assert_eq!(live.remove(id), map.remove(&id), "remove {id} (op {n})"),
                'g' => assert_eq!(live.get_mut(id).copied(), map.get(&id).copied(), "get {id}"),
                'm' => {
                    if let (Some(a), Some(b)) = (live.get_mut(id), map.get_mut(&id)) {
                        *a += 1000;
                        *b += 1000;
                    }
                }
                _ => unreachable!(),
            }
            assert_eq!(live.len(), map.len(), "len after op {n}");
        }
        live
    }

    #[test]
    fn sequential_ids_stay_in_the_ring() {
        let mut ops = Vec::new();
        for id in 1_000..50_000 {
            ops.push(('i', id));
            if id % 3 == 0 {
                ops.push(('r', id - 500));
            }
        }
        let live = same_as_a_map(&ops);
        assert_eq!(live.in_map(), 0);
    }

    #[test]
    fn ids_outside_the_window_behave_as_in_a_map() {
        let w = WINDOW as i64;
        let ops = [
            ('i', 10),
            ('i', 10 + w - 1), // the top of the first window
            ('i', 10 + w),     // slides by one: id 10 moves to the map
            ('g', 10),
            ('m', 10),
            ('g', 10),
            ('i', 5), // below the window: the map
            ('i', 5),
            ('r', 5),
            ('r', 5),
            ('i', -7), // negative ids are ids too
            ('g', -7),
            ('i', i64::MAX),
            ('i', i64::MIN),
            ('g', i64::MAX),
            ('r', i64::MIN),
            ('r', 10),
            ('g', 10 + w),
        ];
        let live = same_as_a_map(&ops);
        assert!(live.in_map() >= 2, "{}", live.in_map());
    }

    #[test]
    fn ids_that_leap_ahead_on_every_insert_go_to_the_map_and_stay_findable() {
        // Every insert leaps a whole window: past the saved-up credit, sliding would cost a
        // full ring scan each time, so they go to the map instead.
        let w = WINDOW as i64;
        let mut ops = Vec::new();
        for k in 1..40 {
            ops.extend([('i', k * 2 * w), ('i', k * 2 * w + 1)]);
        }
        for k in 1..40 {
            ops.extend([('g', k * 2 * w), ('r', k * 2 * w + 1), ('r', k * 2 * w + 1)]);
        }
        let live = same_as_a_map(&ops);
        assert!(live.in_map() > 30, "{}", live.in_map());
    }

    #[test]
    fn the_window_sliding_over_an_id_in_the_map_still_finds_it_once() {
        let w = WINDOW as i64;
        let ops = [
            ('i', 0),
            ('i', 3 * w), // slides (the first credit is a whole window): 0 moves to the map
            ('i', 6 * w), // no credit left for another full scan: the map, ahead of the window
            ('r', 3 * w), // the ring is empty now ...
            ('i', 6 * w - 5), // ... so the window moves for free, over 6w in the map
            ('g', 6 * w),
            ('m', 6 * w),
            ('i', 6 * w), // replaces the map's entry, now in the ring
            ('g', 6 * w),
            ('r', 6 * w),
            ('r', 6 * w),
            ('g', 0),
        ];
        let live = same_as_a_map(&ops);
        assert_eq!((live.len(), live.in_map()), (2, 1));
    }

    #[test]
    fn retain_drops_from_the_ring_and_the_map() {
        let w = WINDOW as i64;
        let mut live = LiveOrders::default();
        for id in [1, 2, 3, 1 + w, -4] {
            live.insert(id, id);
        }
        assert!(live.in_map() >= 2);
        live.retain(|&v| v % 2 != 0);
        assert_eq!(live.len(), 3); // 1, 3, 1 + w
        assert_eq!(live.get_mut(2), None);
        assert_eq!(live.get_mut(-4), None);
        assert_eq!(live.remove(1 + w), Some(1 + w));
    }

    #[test]
    fn dead_entries_the_window_leaves_are_dropped_not_moved_to_the_map() {
        let w = WINDOW as i64;
        let mut live = LiveOrders::default();
        for id in 0..100 {
            live.insert(id, id);
        }
        // Sliding the window past 0..100: the odd values are dead, the even ones move to the
        // map.
        live.insert_dropping(w + 200, -1, |&v| v % 2 != 0);
        assert_eq!(live.in_map(), 50);
        assert_eq!(live.len(), 51);
        assert_eq!(live.get_mut(3), None);
        assert_eq!(live.get_mut(4).copied(), Some(4));
        assert_eq!(live.get_mut(w + 200).copied(), Some(-1));
    }
}
