//! The memcpy floor: the bytes `raw` writes for a window, copied packet by packet into a reused
//! buffer, timed by the same clock in the same loop as every format.
//!
//! Why: every per-packet time includes the loop around the work (two clock reads, a bounds
//! check, a push of the result). If that loop cost too much, it would show as `raw`, the
//! cheapest format, sitting far above a plain copy of its own bytes measured the same way. So
//! every run measures the copy too, reports it next to the formats (`memcpy_p50_ns`,
//! `memcpy_mean_ns`, and `memcpy_batch_ns` timed per window like the formats' batch figures) and
//! warns when `raw`'s batch figures are more than `trust::MAX_RAW_OVER_FLOOR` times it.
//!
//! The aggregation floor ([`AggregateFloor`]) is the same idea for the selective decode: every
//! format's `de` hands the fields it reads to the same per-symbol hash map (`Aggregate`), a cost
//! that is the same in all of them and pulls their ratios towards 1. So every run also times the
//! map alone, fed the parsed packets' sink calls (`visit_packet`'s, recorded beforehand), per
//! window like the batch figures (`aggregate_batch_ns`).

use super::clock::Timer;
use super::memory::{count_faults, Written};
use super::runner::PacketStat;
use super::schedule::Plan;
use super::stats::{Latency, Throughput};
use crate::formats::{aggregate::visit_packet, raw::Raw, Aggregate, Format, Sink};
use crate::model::{Packet, Side};

/// The format the floor copies the bytes of, and every other is compared with.
pub const RAW: &str = Raw::NAME;

/// The copy loop and what it measured.
#[derive(Default)]
pub struct MemcpyFloor {
    /// Produces the bytes to copy (untimed here: its own times are `raw`'s row).
    raw: Raw,
    /// `raw`'s encoding of the window, and where each packet's bytes end in it.
    bytes: Vec<u8>,
    ends: Vec<usize>,
    copy: Written<u8>,
    batch_copy: Written<u8>,
    /// One value per packet after the warm-up.
    pub stats: Latency,
    /// The packets after the warm-up copied with one clock pair around each window.
    pub batch: Throughput,
    /// Minor page faults inside the timed copies (see [`super::memory`]): 0 when all is well.
    pub faults: u64,
    /// Whether the copy loops have run once, untimed: their first run maps code and stack pages
    /// (a fault each), as the formats' untimed first window does for theirs.
    warm: bool,
}

impl MemcpyFloor {
    /// Encodes `window` with `raw` (untimed), then, if `timed.per_unit`, copies each packet's
    /// bytes into the reused buffer, timing each copy exactly as a [`super::runner::Runner`]
    /// times a packet of a pass timed per unit: the clock read right before and after, a
    /// [`PacketStat`] pushed onto `stats`, the packets after the first `skip` recorded. If
    /// `timed.window`, copies those packets again with one clock pair around them all, as a pass
    /// timed per window is. The formats'
    /// windows are timed the same way, so the floor rests on the same packets as their figures.
    /// `stats` must have room for the window, written (see [`super::memory`]). Returns the
    /// nanoseconds inside the timed regions.
    pub fn measure(
        &mut self,
        window: &[Packet],
        skip: usize,
        timed: Plan,
        timer: &Timer,
        stats: &mut Vec<PacketStat>,
    ) -> u64 {
        self.bytes.clear();
        self.ends.clear();
        for packet in window {
            self.raw.encode(packet, &mut self.bytes);
            self.ends.push(self.bytes.len());
        }
        let need = self.bytes.len();
        self.copy.reserve(need);
        self.batch_copy.reserve(need);
        if !self.warm {
            self.per_packet(timer, stats);
            self.batch(skip, timer);
            self.warm = true;
        }
        self.copy.vec().clear();
        stats.clear();
        let mut faults = 0;
        let mut per_packet = 0;
        if timed.per_unit {
            per_packet = count_faults(&mut faults, || self.per_packet(timer, stats));
            for s in stats.iter().skip(skip) {
                self.stats.record(s.ns);
            }
        }
        let mut batch = 0;
        if timed.window {
            batch = count_faults(&mut faults, || self.batch(skip, timer));
            self.batch.add(batch, window.len() - skip);
        }
        self.faults += faults;
        per_packet + batch
    }

    /// The per-packet copy of the window `raw` last encoded.
    fn per_packet(&mut self, timer: &Timer, stats: &mut Vec<PacketStat>) -> u64 {
        let src = &self.bytes;
        let copy = self.copy.vec();
        let mut start = 0;
        for &end in &self.ends {
            let t = timer.start();
            copy.extend_from_slice(&src[start..end]);
            let ns = timer.elapsed_ns(t);
            stats.push(PacketStat {
                end: copy.len(),
                ns,
                check: 0,
            });
            start = end;
        }
        // The copy is only ever compared in tests; keep the optimizer from dropping it.
        std::hint::black_box(&copy);
        stats.iter().map(|s| s.ns).sum()
    }

    /// The copy of the window's packets after `skip`, timed whole.
    fn batch(&mut self, skip: usize, timer: &Timer) -> u64 {
        let src = &self.bytes;
        let first = if skip == 0 { 0 } else { self.ends[skip - 1] };
        let copy = self.batch_copy.vec();
        copy.clear();
        let t = timer.start();
        let mut start = first;
        for &end in &self.ends[skip..] {
            copy.extend_from_slice(&src[start..end]);
            start = end;
        }
        let batch_ns = timer.elapsed_ns(t);
        std::hint::black_box(&copy);
        batch_ns
    }
}

/// The aggregation alone: each window's packets after the warm-up as the calls a decoder makes
/// on its sink ([`Sink`]), recorded untimed into a flat list (what `visit_packet` hands over),
/// then replayed into an [`Aggregate`] with one clock pair around the window, as the formats'
/// batch selective decodes feed theirs. Replayed from a flat list rather than walked from the
/// parsed packets: walking the model (a `Vec` of messages per packet, cold after the formats'
/// turns) cost more than some formats' whole selective decode on DEEP10, and is no part of
/// theirs. Like theirs, the map holds every window so far, reserved beforehand so that it never
/// grows in a timed pass.
#[derive(Default)]
pub struct AggregateFloor {
    aggregate: Aggregate,
    calls: Written<SinkCall>,
    /// The packets after the warm-up of the windows timed whole.
    pub batch: Throughput,
    /// Minor page faults inside the timed passes (0 when all is well).
    pub faults: u64,
    warm: bool,
}

/// One call a decoder makes on its [`Sink`], recorded.
#[derive(Debug, Clone, Copy, Default)]
enum SinkCall {
    Packet(u64),
    Trade([u8; 8], u32, i64),
    PriceLevel(Side, [u8; 8], i64),
    AddOrder(u8, [u8; 8], i64),
    Quote([u8; 8], i64, i64),
    #[default]
    Other,
}

impl SinkCall {
    #[inline(always)]
    fn replay<K: Sink>(self, sink: &mut K) {
        match self {
            SinkCall::Packet(seq) => sink.packet(seq),
            SinkCall::Trade(symbol, size, price) => sink.trade(&symbol, size, price),
            SinkCall::PriceLevel(side, symbol, price) => sink.price_level(side, &symbol, price),
            SinkCall::AddOrder(side, symbol, price) => sink.add_order(side, &symbol, price),
            SinkCall::Quote(symbol, bid, ask) => sink.quote(&symbol, bid, ask),
            SinkCall::Other => sink.other(),
        }
    }
}

/// A [`Sink`] that records the calls.
struct Recorder<'a>(&'a mut Vec<SinkCall>);

impl Sink for Recorder<'_> {
    fn packet(&mut self, seq: u64) {
        self.0.push(SinkCall::Packet(seq));
    }
    fn trade(&mut self, symbol: &[u8; 8], size: u32, price: i64) {
        self.0.push(SinkCall::Trade(*symbol, size, price));
    }
    fn price_level(&mut self, side: Side, symbol: &[u8; 8], price: i64) {
        self.0.push(SinkCall::PriceLevel(side, *symbol, price));
    }
    fn add_order(&mut self, side: u8, symbol: &[u8; 8], price: i64) {
        self.0.push(SinkCall::AddOrder(side, *symbol, price));
    }
    fn quote(&mut self, symbol: &[u8; 8], bid_price: i64, ask_price: i64) {
        self.0.push(SinkCall::Quote(*symbol, bid_price, ask_price));
    }
    fn other(&mut self) {
        self.0.push(SinkCall::Other);
    }
}

impl AggregateFloor {
    /// Times the aggregation of `window[skip..]` if `timed.window`, with room for `symbols`
    /// reserved first. Returns the nanoseconds inside the timed region.
    pub fn measure(
        &mut self,
        window: &[Packet],
        skip: usize,
        timed: Plan,
        timer: &Timer,
        symbols: usize,
    ) -> u64 {
        if !timed.window {
            return 0;
        }
        let recorded = &window[skip..];
        let need = recorded.iter().map(|p| 1 + p.messages.len()).sum();
        self.calls.vec().clear();
        self.calls.reserve(need);
        let calls = self.calls.vec();
        for p in recorded {
            visit_packet(p, &mut Recorder(calls));
        }
        self.aggregate.reserve(symbols);
        if !self.warm {
            // Once, untimed, into a map of its own: maps the loop's code and stack pages.
            let mut scratch = Aggregate::new();
            scratch.reserve(symbols);
            for &call in calls.iter() {
                call.replay(&mut scratch);
            }
            self.warm = true;
        }
        let aggregate = &mut self.aggregate;
        let ns = count_faults(&mut self.faults, || {
            let t = timer.start();
            for &call in calls.iter() {
                call.replay(aggregate);
            }
            timer.elapsed_ns(t)
        });
        self.batch.add(ns, recorded.len());
        ns
    }

    /// What the timed passes aggregated: the packets after the warm-up of every window timed
    /// whole, as every format's batch selective decode must have.
    pub fn aggregate(&self) -> &Aggregate {
        &self.aggregate
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::{self, GenOptions};

    #[test]
    fn both_floors_take_their_packets_after_the_warm_up_and_do_their_work() {
        let opts = GenOptions {
            packets: 500,
            ..GenOptions::default()
        };
        let packets: Vec<Packet> = gen::packets(&opts).unwrap().collect();
        let mut expected = Vec::new();
        let mut ends = Vec::new();
        for p in &packets {
            Raw.encode(p, &mut expected);
            ends.push(expected.len());
        }
        let timer = Timer::calibrate();
        let mut floor = MemcpyFloor::default();
        let mut stats = Vec::new();
        let timed = floor.measure(&packets, 100, Plan::BOTH, &timer, &mut stats);
        assert_eq!(floor.copy.as_slice(), &expected[..]);
        assert_eq!(stats.iter().map(|s| s.end).collect::<Vec<_>>(), ends);
        assert_eq!(floor.stats.hist.len(), 400);
        assert_eq!(
            timed,
            stats.iter().map(|s| s.ns).sum::<u64>() + floor.batch.ns
        );
        assert_eq!(floor.batch.packets, 400);
        assert_eq!(floor.batch_copy.as_slice(), &expected[ends[99]..]);
        // A second window replaces the copy and adds to the histogram.
        floor.measure(&packets[..10], 0, Plan::BOTH, &timer, &mut stats);
        assert_eq!(floor.copy.as_slice(), &expected[..ends[9]]);
        assert_eq!(floor.stats.hist.len(), 410);
        assert_eq!(floor.batch.packets, 410);
        // The aggregation floor: only the windows timed whole.
        let mut floor = AggregateFloor::default();
        assert_eq!(floor.measure(&packets, 0, Plan::PER_UNIT, &timer, 100), 0);
        assert_eq!(floor.batch.packets, 0);
        let ns = floor.measure(&packets, 100, Plan::BOTH, &timer, 100);
        assert_eq!(ns, floor.batch.ns);
        assert_eq!(floor.batch.packets, 400);
        let mut expected = Aggregate::new();
        for p in &packets[100..] {
            visit_packet(p, &mut expected);
        }
        assert_eq!(floor.aggregate(), &expected);
        assert_eq!(floor.faults, 0);
    }
}
