//! The order in which the formats (and the memcpy and aggregation floors) take their turn in
//! each window, and the order of each format's passes within its turn.
//!
//! A format's timed passes inherit the caches, branch predictors and frequency its predecessor
//! left behind: running right after JSON is not the same as running right after `raw`. A fixed
//! or cyclically shifted order gives every format the same neighbour in every window, so that
//! neighbour's effect becomes part of its figures. The windows therefore follow a Williams
//! design, a Latin square whose rows are orders in which every slot immediately follows every
//! other slot equally often: for `n` slots, `n` rows when `n` is even and `2n` when it is odd
//! (the second half reversed). Over one cycle of rows each slot also runs first (after the
//! harness's untimed work) equally often. Which format stands for which slot, and which row a
//! run starts at, come from a seeded generator: the seed is in the CSV (`order_seed`) and
//! `--order-seed` repeats a run's orders exactly.
//!
//! Within a format's turn the passes are balanced too ([`pass_order`]): a pass that always runs
//! second reads bytes the one before it left warm. Which timing goes first in a window timed
//! both ways, and which decode goes first (`de` or `de_all`), alternate over windows so that
//! each format runs each order equally often *among the windows of one timing*: under
//! `--timing alternate` only every other window is timed whole, so a choice that flipped every
//! window would give every batch window the same order. Every format of a window runs the same
//! order: formats compared window by window (a format and its twin, two formats in the
//! verdict) then differ by their code, never by which decode went first. (An earlier design
//! flipped the order with the format's index as well; under alternate timing that fixed each
//! format's batch order for the whole run, and a twin two places away in the registry decoded
//! `de` 4% faster than its original, every run.) The encode stays first within each timing: the
//! decodes read what it wrote.

use super::workload::Workload;

/// The order of one format's passes in one window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PassOrder {
    /// In a window timed both ways, the passes timed per window run before those timed per
    /// unit.
    pub batch_first: bool,
    /// The complete decode runs before the selective one.
    pub complete_first: bool,
}

impl PassOrder {
    /// The workloads in the order they run within one timing.
    pub fn workloads(self) -> [Workload; 3] {
        let (de, all) = (Workload::Selective, Workload::Complete);
        if self.complete_first {
            [Workload::Encode, all, de]
        } else {
            [Workload::Encode, de, all]
        }
    }
}

/// The passes' order in the window whose turn is `turn` (`measure::window`), the same for every
/// format. Under alternate timing the windows timed one way have turns of one parity, so the
/// decode order flips with the turn's second bit: four consecutive windows of either timing
/// give each decode order twice; in windows timed both ways (every turn) the timing flips with
/// the first bit, and four consecutive windows give all four orders.
pub fn pass_order(turn: u64) -> PassOrder {
    PassOrder {
        complete_first: (turn / 2) % 2 == 1,
        batch_first: turn % 2 == 1,
    }
}

/// The cycle of orders for one run.
#[derive(Debug, Clone)]
pub struct Order {
    rows: Vec<Vec<usize>>,
    next: usize,
}

impl Order {
    /// Orders of `slots` slots (numbered `0..slots`) from `seed`.
    pub fn new(slots: usize, seed: u64) -> Order {
        let mut rng = fastrand::Rng::with_seed(seed);
        let mut label: Vec<usize> = (0..slots).collect();
        rng.shuffle(&mut label);
        let rows: Vec<Vec<usize>> = williams(slots)
            .into_iter()
            .map(|row| row.into_iter().map(|s| label[s]).collect())
            .collect();
        let next = rng.usize(..rows.len().max(1));
        Order { rows, next }
    }

    /// The order for the next window.
    pub fn next_window(&mut self) -> &[usize] {
        let at = self.next;
        self.next = (self.next + 1) % self.rows.len().max(1);
        self.rows.get(at).map_or(&[], Vec::as_slice)
    }
}

/// A Williams design for `n` treatments: row `r` is the base sequence `0, 1, n-1, 2, n-2, ...`
/// plus `r` (mod `n`); for odd `n` the reversed rows follow.
fn williams(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return Vec::new();
    }
    let base: Vec<usize> = (0..n)
        .map(|j| match j {
            0 => 0,
            j if j % 2 == 1 => j.div_ceil(2),
            j => n - j / 2,
        })
        .collect();
    let mut rows: Vec<Vec<usize>> = (0..n)
        .map(|r| base.iter().map(|b| (b + r) % n).collect())
        .collect();
    if n % 2 == 1 {
        let reversed: Vec<Vec<usize>> = rows
            .iter()
            .map(|row| row.iter().rev().copied().collect())
            .collect();
        rows.extend(reversed);
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    /// How often slot `a` ran immediately before slot `b`, over `windows` windows.
    fn neighbours(order: &mut Order, n: usize, windows: usize) -> Vec<Vec<usize>> {
        let mut count = vec![vec![0; n]; n];
        for _ in 0..windows {
            for pair in order.next_window().windows(2) {
                count[pair[0]][pair[1]] += 1;
            }
        }
        count
    }

    #[test]
    fn every_slot_follows_every_other_equally_often_over_a_cycle() {
        for n in 1..=20 {
            for seed in [0, 1, 0xdead_beef] {
                let mut order = Order::new(n, seed);
                // One full cycle of the design: after it, every ordered pair of slots has been
                // neighbours the same number of times.
                let cycle = order.rows.len();
                assert_eq!(cycle, if n % 2 == 0 { n } else { 2 * n });
                let mut first = vec![0; n];
                for _ in 0..cycle {
                    let row = order.next_window().to_vec();
                    let mut sorted = row.clone();
                    sorted.sort_unstable();
                    assert_eq!(sorted, (0..n).collect::<Vec<_>>(), "not a permutation");
                    first[row[0]] += 1;
                }
                // Each slot runs first equally often.
                assert!(first.iter().all(|&f| f == cycle / n), "{n}: {first:?}");
                let count = neighbours(&mut order, n, cycle);
                let each = if n % 2 == 0 { 1 } else { 2 };
                for (a, row) in count.iter().enumerate() {
                    for (b, &c) in row.iter().enumerate() {
                        let want = if a == b || n == 1 { 0 } else { each };
                        assert_eq!(c, want, "n {n} seed {seed}: {a} before {b}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_seed_decides_the_orders_and_no_slot_meets_one_predecessor_more_than_twice_in_a_run() {
        // 11 slots (ten formats and the floor), 12 windows (a 50,000-packet input), from any
        // starting row: a cyclic shift would give every slot the same predecessor 12 times.
        for seed in 0..50 {
            let mut order = Order::new(11, seed);
            let count = neighbours(&mut order, 11, 12);
            assert!(count.iter().flatten().all(|&c| c <= 2), "{count:?}");
        }
        // The seed decides the orders and repeats them.
        let take = |seed| {
            let mut o = Order::new(11, seed);
            (0..30)
                .map(|_| o.next_window().to_vec())
                .collect::<Vec<_>>()
        };
        assert_eq!(take(7), take(7));
        assert_ne!(take(7), take(8));
    }

    #[test]
    fn each_pass_order_occurs_equally_often_among_the_windows_of_each_timing() {
        use super::super::schedule::{Plan, Schedule};
        for schedule in [Schedule::Alternate, Schedule::Both] {
            // (timed whole, complete first) -> windows.
            let mut seen = std::collections::BTreeMap::new();
            let mut both_ways = std::collections::BTreeMap::new();
            for turn in 1..401 {
                let plan = Plan::new(schedule, turn, 0, 4096, false);
                let p = pass_order(turn);
                let w = p.workloads();
                assert_eq!(w[0], Workload::Encode, "the encode feeds the decodes");
                assert_ne!(w[1], w[2]);
                assert_eq!(w[1] == Workload::Complete, p.complete_first);
                if plan.window {
                    *seen.entry(p.complete_first).or_insert(0) += 1;
                }
                if plan.window && plan.per_unit {
                    *both_ways
                        .entry((p.batch_first, p.complete_first))
                        .or_insert(0) += 1;
                }
            }
            // The windows timed whole: each decode order in half of them (under alternate, the
            // odd turns: the order an earlier design fixed for a format's whole run).
            assert_eq!(seen.len(), 2, "{schedule:?}: {seen:?}");
            let counts: Vec<_> = seen.values().collect();
            assert_eq!(counts[0], counts[1], "{schedule:?}: {seen:?}");
            if schedule == Schedule::Both {
                assert_eq!(both_ways.len(), 4, "{both_ways:?}");
                assert!(both_ways.values().all(|&n| n == 100), "{both_ways:?}");
            }
        }
    }
}
