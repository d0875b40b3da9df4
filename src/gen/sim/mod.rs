//! The simulated trading day: the single source of truth for what the generator emits.
//!
//! [`Simulation::next_into`] produces one IEX-TP segment's worth of messages as a
//! [`model::Packet`](crate::model::Packet); the capture writer and the in-memory packet view both
//! drive this same state machine, so the same seed always gives the same packets either way.
//!
//! The day is laid out by packet index, not by wall time, so any `--packets` gets every phase:
//! admin burst → pre-market → opening auction window → open burst → regular hours → closing
//! auction window → close burst → post-market → end of day. Bursts are packed densely (as IEX
//! does at start of day); flows carry ~2.4 messages per segment with heartbeats in quiet times.
//!
//! DEEP and TOPS keep state per symbol only, so memory is bounded whatever the packet count.
//! DEEP+ (`orders`) also keeps each symbol's live orders: a busy book hovers around
//! [`DEPTH_TARGET`] orders and never passes its cap ([`live_cap`]; at most [`MAX_LIVE_ORDERS`]
//! for the day, 32 MiB), so memory grows with the live book, never with the day. Its open and
//! close bursts carry no `X` official price.

mod book;
mod burst;
mod flow;
pub(super) mod layout;
mod orders;
mod shaped;
mod state;
pub(super) mod universe;

use fastrand::Rng;

use crate::model::{Feed, Message, Packet, SystemEvent, Timestamp};

use super::error::GenError;
use super::like::Shape;
use super::options::GenOptions;

pub use book::{live_cap, MAX_LIVE_ORDERS};
pub use layout::{DAY_START, MARKET_CLOSE, MARKET_OPEN, SYSTEM_END, SYSTEM_START};
pub use orders::{DEPTH_TARGET, MODIFY_MAINTAIN_PRIORITY, MODIFY_RESET_PRIORITY};
pub use state::Simulation;
pub use universe::{MAX_SYMBOLS, TEST_SYMBOL};

use book::Book;
use flow::FLOW_COUNTS;
use layout::{layout, Kind, Phase, BURST_STEP};
use state::Shaped;
use universe::make_symbols;

impl Simulation {
    /// Validates the options and lays out the day; the only allocations are here.
    pub fn new(opts: &GenOptions) -> Result<Self, GenError> {
        Simulation::with_shape(opts, None)
    }

    /// [`Simulation::new`], or with a `shape`, `opts.packets` packets of that shape
    /// ([`super::like`]): its feed and symbol count replace the options'.
    pub fn with_shape(opts: &GenOptions, shape: Option<&Shape>) -> Result<Self, GenError> {
        let opts = &opts.shaped_by(shape);
        if opts.symbols == 0 || opts.symbols > MAX_SYMBOLS {
            return Err(GenError::InvalidOption {
                option: "symbols",
                reason: format!("must be between 1 and {MAX_SYMBOLS}, got {}", opts.symbols),
            });
        }
        let mut rng = Rng::with_seed(opts.seed);
        let syms = make_symbols(&mut rng, opts.symbols);
        let listed: Vec<u32> = (0..syms.len() as u32)
            .filter(|&i| syms[i as usize].listed)
            .collect();
        // DEEP+ has no official price: its open and close bursts are one `E` per symbol.
        let per_symbol_oc = if opts.feed == Feed::DeepPlus { 1 } else { 2 };
        let phases = if shape.is_some() {
            Vec::new()
        } else {
            layout(
                opts.packets,
                opts.symbols as u64,
                listed.len() as u64,
                per_symbol_oc,
            )
        };
        let books = if opts.feed == Feed::DeepPlus {
            vec![Book::default(); syms.len()]
        } else {
            Vec::new()
        };
        let burst_left = phases.first().map_or(0, |p| p.burst_msgs);
        Ok(Simulation {
            rng,
            feed: opts.feed,
            syms,
            listed,
            phases,
            phase: 0,
            in_phase: 0,
            seq: 1,
            last_send: 0,
            cur_head: 0,
            cur_sym: 0,
            cur_sub: 0,
            burst_left,
            trade_id: 1_000_000,
            distinct: 0,
            books,
            live_cap: live_cap(opts.symbols),
            next_order_id: 4_000_000,
            shaped: shape.map(|s| Box::new(Shaped::new(s.clone(), opts.packets))),
        })
    }

    /// Fills `pkt` with the next segment (reusing its message vector); `false` once the day is
    /// over, leaving `pkt` untouched.
    pub fn next_into(&mut self, pkt: &mut Packet) -> bool {
        let more = match &self.shaped {
            Some(sh) => sh.left() > 0,
            None => self.current_phase().is_some(),
        };
        if !more {
            return false;
        }
        pkt.messages.clear();
        let Some((seq, send_time)) = self.next_onto(&mut pkt.messages) else {
            unreachable!("a phase with packets left gives a segment");
        };
        pkt.seq = seq;
        pkt.send_time = send_time;
        true
    }

    /// The phase the next segment belongs to, moving past phases with no packets left; `None`
    /// once the day is over.
    fn current_phase(&mut self) -> Option<Phase> {
        loop {
            let ph = self.phases.get(self.phase).copied()?;
            if self.in_phase < ph.packets {
                return Some(ph);
            }
            self.phase += 1;
            self.in_phase = 0;
            self.cur_head = 0;
            self.cur_sym = 0;
            self.cur_sub = 0;
            if let Some(next) = self.phases.get(self.phase) {
                self.burst_left = next.burst_msgs;
            }
        }
    }

    /// Appends the next segment's messages to `messages` (heartbeats append none) and returns
    /// its sequence number and send time; `None` once the day is over. The same segments as
    /// [`Simulation::next_into`], for a caller that batches many into one vector (`generate`
    /// hands them to another thread to encode).
    pub fn next_onto(&mut self, messages: &mut Vec<Message>) -> Option<(u64, Timestamp)> {
        if let Some(mut sh) = self.shaped.take() {
            let next = self.shaped_onto(&mut sh, messages);
            self.shaped = Some(sh);
            return next;
        }
        let ph = self.current_phase()?;
        let i = self.in_phase;
        self.in_phase += 1;

        let send = match ph.kind {
            Kind::Burst(_) | Kind::End => {
                let step = BURST_STEP.saturating_mul(i.min(i64::MAX as u64) as i64);
                ph.t0.saturating_add(step) + self.rng.i64(0..BURST_STEP / 2)
            }
            Kind::Flow(_) => {
                let cell = (ph.t1 - ph.t0) / ph.packets.max(1).min(i64::MAX as u64) as i64;
                let jitter = if cell > 1 { self.rng.i64(0..cell) } else { 0 };
                ph.t0
                    .saturating_add(cell.saturating_mul(i.min(i64::MAX as u64) as i64))
                    .saturating_add(jitter)
            }
        };
        // Strictly increasing even if a phase is squeezed below 1 ns per packet.
        let send = send.max(self.last_send.saturating_add(1));

        let count: u64 = match ph.kind {
            Kind::Burst(_) => ph.density.min(self.burst_left),
            Kind::End => 2,
            Kind::Flow(f) => {
                if self.rng.u32(0..10_000) < f.heartbeat_bp() {
                    0
                } else {
                    FLOW_COUNTS[self.rng.usize(0..FLOW_COUNTS.len())] as u64
                }
            }
        };
        let (base, step) = self.message_times(send, count);

        // Each message is written straight into the vector's spare room (see `order_message`).
        let start = messages.len();
        messages.reserve(count as usize);
        let spare = messages.spare_capacity_mut();
        let mut n = 0;
        let mut sym = self.pick_symbol();
        for k in 0..count {
            let ts = base + step * k as i64;
            let slot = &mut spare[n];
            let msg = match ph.kind {
                Kind::Burst(b) => match self.burst_message(b, ts) {
                    Some(m) => m,
                    None => break,
                },
                Kind::End => Message::SystemEvent(SystemEvent {
                    event: if k == 0 { b'E' } else { b'C' },
                    timestamp: ts,
                }),
                Kind::Flow(f) => {
                    let next = if k + 1 < count && self.rng.u8(0..10) < 3 {
                        self.pick_symbol()
                    } else {
                        sym
                    };
                    let last_of_event = k + 1 == count || next != sym;
                    let i = std::mem::replace(&mut sym, next);
                    // DEEP+ writes the slot itself and skips the `write` below: folded into one
                    // `match` that writes each arm, the compiler brings back the copy through
                    // the stack that writing in place removes (docs/BENCHMARKS.md, "in-place
                    // messages").
                    if self.feed == Feed::DeepPlus {
                        self.order_message(f, i, ts, slot);
                        n += 1;
                        continue;
                    }
                    self.flow_message(f, i, ts, last_of_event)
                }
            };
            slot.write(msg);
            n += 1;
        }
        // SAFETY: the `n` slots after `start` were written just above.
        unsafe { messages.set_len(start + n) };
        let n = n as u64;
        if matches!(ph.kind, Kind::Burst(_)) {
            self.burst_left -= n;
        }
        let seq = self.seq;
        self.seq += n;
        self.last_send = send;
        Some((seq, send))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::{CaptureKind, GenOptions};

    fn opts(packets: u64, symbols: usize) -> GenOptions {
        GenOptions {
            feed: Feed::Deep,
            capture: CaptureKind::Pcapng,
            packets,
            seed: 7,
            symbols,
        }
    }

    fn deep_plus(packets: u64, symbols: usize) -> Simulation {
        let o = GenOptions {
            feed: Feed::DeepPlus,
            ..opts(packets, symbols)
        };
        Simulation::new(&o).unwrap()
    }

    #[test]
    fn symbols_out_of_range_rejected() {
        assert!(Simulation::new(&opts(10, 0)).is_err());
        assert!(Simulation::new(&opts(10, MAX_SYMBOLS + 1)).is_err());
        assert!(Simulation::new(&opts(10, 1)).is_ok());
    }

    #[test]
    fn first_packet_opens_the_day_and_last_closes_it() {
        let mut sim = Simulation::new(&opts(1000, 500)).unwrap();
        // The system events' codes among the packet's first messages (0 for any other).
        let events = |p: &Packet, n: usize| -> Vec<u8> {
            let event = |m: &Message| match m {
                Message::SystemEvent(e) => e.event,
                _ => 0,
            };
            p.messages.iter().take(n).map(event).collect()
        };
        let mut p = Packet::default();
        assert!(sim.next_into(&mut p));
        assert_eq!(p.seq, 1);
        assert_eq!(events(&p, 2), b"OS");
        let mut last = p.clone();
        let mut n = 1;
        while sim.next_into(&mut p) {
            last = p.clone();
            n += 1;
        }
        assert_eq!(n, 1000);
        assert_eq!(events(&last, usize::MAX), b"EC");
        assert!(last.send_time >= SYSTEM_END);
        assert_eq!(sim.distinct_symbols(), 500);
    }

    #[test]
    fn tiny_and_odd_sizes_do_not_panic() {
        for (n, feed) in [0u64, 1, 2, 3, 5, 17]
            .into_iter()
            .flat_map(|n| Feed::ALL.map(|f| (n, f)))
        {
            for syms in [1usize, 2, 500] {
                let o = GenOptions {
                    feed,
                    ..opts(n, syms)
                };
                let mut sim = Simulation::new(&o).unwrap();
                let mut p = Packet::default();
                let mut count = 0;
                while sim.next_into(&mut p) {
                    count += 1;
                }
                assert_eq!(count, n);
            }
        }
    }

    #[test]
    fn deep_plus_books_never_pass_their_cap() {
        let mut sim = deep_plus(20_000, 2);
        // A tiny cap so it binds: adds on a full book must turn into deletes.
        sim.live_cap = 8;
        let mut p = Packet::default();
        let (mut full, mut adds) = (0, 0);
        while sim.next_into(&mut p) {
            assert!(sim.books.iter().all(|b| b.len() <= 8));
            full += sim.books.iter().filter(|b| b.len() == 8).count();
            adds += p.messages.iter().filter(|m| m.kind() == b'a').count();
        }
        assert!(full > 0 && adds > 1000, "full {full}, adds {adds}");
        assert!(sim.live_orders() <= 16);
    }

    #[test]
    fn deep_plus_open_and_close_bursts_have_no_official_price() {
        let mut sim = deep_plus(2_000, 50);
        let mut p = Packet::default();
        let mut kinds = [0u64; 256];
        while sim.next_into(&mut p) {
            for m in &p.messages {
                kinds[m.kind() as usize] += 1;
            }
        }
        // One `E` per symbol at the open and at the close, and no `X`, `A`, `8`, `5` or `Q`.
        assert_eq!(kinds[b'E' as usize], 100);
        for k in *b"XA85Q" {
            assert_eq!(kinds[k as usize], 0, "{}", k as char);
        }
        assert!(kinds[b'a' as usize] > 0);
    }

    #[test]
    fn deep_plus_steady_state_does_not_allocate() {
        let mut sim = deep_plus(400_000, 50);
        let mut p = Packet::default();
        // Warm up: every busy book reaches its depth target, the packet its largest size.
        for _ in 0..200_000 {
            sim.next_into(&mut p);
        }
        // Allocations a book needs to grow to a capacity: one per doubling (4, 8, 16, ...).
        let growths = |sim: &Simulation| -> Vec<u32> {
            sim.books
                .iter()
                .map(|b| match b.capacity() {
                    0 => 0,
                    c => c.ilog2() - 1,
                })
                .collect()
        };
        let grown_before = growths(&sim);
        let before = crate::alloc_count::allocations();
        let mut messages = 0;
        while sim.next_into(&mut p) {
            messages += p.messages.len();
        }
        let allocations = crate::alloc_count::allocations() - before;
        let book_growth: u32 = growths(&sim)
            .iter()
            .zip(&grown_before)
            .map(|(a, b)| a - b)
            .sum();
        assert!(messages > 400_000);
        // Only thin books still growing towards their depth allocate; nothing per message.
        assert!(
            allocations <= u64::from(book_growth) && allocations < 20,
            "{allocations} allocations over {messages} messages, {book_growth} book growths"
        );
    }
}
