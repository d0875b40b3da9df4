//! The DEEP+ book check on a thread of its own.
//!
//! Replaying every order into [`BookCheck`] is a cache miss or two per `M`, `R` and `L` (orders
//! added long ago), about a quarter of `inspect`'s time on one core. None of it decides what the
//! parser does next, so when a second CPU is allowed the parsing thread only cuts each order
//! message down to an [`Op`] and hands them over in batches; the book runs beside it and is
//! joined at the end. With one CPU allowed (`taskset -c 0`, a one-core container) the book is
//! applied in line, as before: a second thread there would only add hand-overs.
//!
//! No thread starts before a first batch of order messages is full, so DEEP, TOPS and small
//! captures (a test's, a fuzzer's) never start one. The figures are the same either way (the
//! book sees the same ops in the same order); a test checks the paths against each other.

use std::sync::mpsc::{self, Receiver, SyncSender};
use std::thread::JoinHandle;

use super::book::{BookCheck, BookReport, Op};
use crate::model::{Message, Symbol};

/// Ops per hand-over: 48 KiB of ops, few enough to stay in the caches of both cores, many
/// enough that the channel's cost (a few hundred ns a batch) is well under 1 ns an op.
const BATCH: usize = 2048;
/// Ops ahead of the one being written whose slot is taken for writing ([`crate::sys::prefetch_write`]):
/// about three cache lines.
const WRITE_AHEAD: usize = 8;
/// Batches queued for the book at most: bounds memory (about 400 KiB), and makes the parser
/// wait rather than run ahead when the book is the slower of the two.
const IN_FLIGHT: usize = 8;

/// Feeds order messages to a [`BookCheck`], on its own thread when a second CPU is allowed.
#[derive(Debug, Default)]
pub struct BookFeed {
    state: State,
    /// Ops not handed over yet ([`State::Batching`] and [`State::Threaded`]).
    batch: Batch,
    /// Whether any order message was seen.
    seen: bool,
    /// Ops go to `batch`: checked first on every op.
    batching: bool,
}

#[derive(Debug, Default)]
enum State {
    /// No order message yet: no thread, no book allocated.
    #[default]
    Idle,
    /// Applied on this thread.
    Inline(Box<BookCheck>),
    /// Collecting the first batch: the thread starts when it is full, so a small capture (a
    /// test's, a fuzzer's) never starts one, and its book is applied in line at the end.
    Batching,
    Threaded {
        to_book: SyncSender<Batch>,
        /// Emptied batches coming back, so the hand-overs allocate nothing after the first few.
        returned: Receiver<Batch>,
        book: JoinHandle<BookReport>,
    },
    Finished(BookReport),
}

/// Where the book should run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// On a thread of its own once a batch is full, if more than one CPU is allowed; else in
    /// line.
    Auto,
    Inline,
    /// On a thread of its own from the first order message.
    Threaded,
}

impl BookFeed {
    /// A feed that places the book itself ([`Placement::Auto`]).
    pub fn new() -> Self {
        BookFeed::default()
    }

    /// Passes one message on; messages that are not about orders are ignored.
    #[inline]
    pub fn apply<S: std::borrow::Borrow<Symbol>>(&mut self, m: &Message<S>) {
        // Scalars, not an `Op` or a `Packed`: see [`Batch::put`].
        let (kind, id, symbol, size) = match m {
            Message::AddOrder(a) => (ADD, a.order_id, a.symbol.borrow().as_u64(), a.size),
            Message::OrderModify(o) => (MODIFY, o.order_id, 0, o.size),
            Message::OrderDelete(o) => (DELETE, o.order_id, 0, 0),
            Message::OrderExecuted(e) => (EXECUTE, e.order_id, 0, e.size),
            Message::ClearBook(c) => (CLEAR, 0, c.symbol.borrow().as_u64(), 0),
            _ => return,
        };
        self.put(id, symbol, size, kind, Placement::Auto);
    }

    /// Passes one order message on, placing the book where `placement` says if this is the
    /// first one.
    pub fn push(&mut self, op: Op, placement: Placement) {
        let Packed {
            id,
            symbol,
            size,
            kind,
        } = Packed::from(op);
        self.put(id, symbol, size, kind, placement);
    }

    #[inline]
    fn put(&mut self, id: i64, symbol: u64, size: u32, kind: u8, placement: Placement) {
        // The common case, kept to four stores and a compare: the parser runs this per order
        // message.
        if self.batching {
            if self.batch.put(id, symbol, size, kind) {
                self.hand_over();
            }
        } else {
            self.push_slow(
                Packed {
                    id,
                    symbol,
                    size,
                    kind,
                },
                placement,
            );
        }
    }

    #[inline(never)]
    fn push_slow(&mut self, op: Packed, placement: Placement) {
        self.seen = true;
        match &mut self.state {
            State::Inline(book) => book.push(op.into()),
            State::Idle => {
                self.state = match placement {
                    Placement::Auto if more_than_one_cpu() => State::Batching,
                    Placement::Threaded => start_thread().unwrap_or_default(),
                    _ => State::Idle,
                };
                if matches!(self.state, State::Idle) {
                    self.state = State::Inline(Box::default());
                } else {
                    self.batching = true;
                    self.batch = Batch::new();
                }
                self.put(op.id, op.symbol, op.size, op.kind, placement);
            }
            // Not reached (the fast path takes these). Should it be, the op is dropped rather
            // than counted into figures already reported.
            State::Batching | State::Threaded { .. } | State::Finished(_) => {}
        }
    }

    /// Whether any order message was passed on.
    pub fn saw_orders(&self) -> bool {
        self.seen
    }

    /// The figures of every order message passed on, waiting for the book's thread to apply
    /// the last of them. Later calls return the same figures.
    pub fn finish(&mut self) -> BookReport {
        self.batching = false;
        let batch = std::mem::take(&mut self.batch);
        let report = match std::mem::take(&mut self.state) {
            State::Idle => BookReport::default(),
            State::Inline(mut book) => book.report(),
            State::Batching => in_line(batch.ops()).report(),
            State::Threaded { to_book, book, .. } => {
                // A send fails only if the book's thread is gone, which `join` then explains.
                let _ = to_book.send(batch);
                drop(to_book);
                match book.join() {
                    Ok(report) => report,
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
            State::Finished(report) => report,
        };
        self.state = State::Finished(report);
        report
    }

    /// Sends the full batch to the book (starting its thread with the first) and takes an
    /// emptied one back, or a new one while fewer than [`IN_FLIGHT`] + 2 exist.
    #[cold]
    fn hand_over(&mut self) {
        if matches!(self.state, State::Batching) {
            match start_thread() {
                Some(threaded) => self.state = threaded,
                None => {
                    // No thread to be had: the book runs here from now on.
                    self.state = State::Inline(Box::new(in_line(self.batch.ops())));
                    self.batch = Batch::default();
                    self.batching = false;
                    return;
                }
            }
        }
        let State::Threaded {
            to_book, returned, ..
        } = &self.state
        else {
            return;
        };
        let next = returned.try_recv().unwrap_or_else(|_| Batch::new());
        let full = std::mem::replace(&mut self.batch, next);
        if to_book.send(full).is_err() {
            // The book's thread died; `finish` joins it and passes its panic on. Until then
            // the ops go nowhere.
            self.batch.len = 0;
        }
    }
}

/// Whether the book may have a CPU of its own (`taskset` and cgroup limits count).
fn more_than_one_cpu() -> bool {
    std::thread::available_parallelism().is_ok_and(|n| n.get() > 1)
}

/// A book with `ops` applied, on this thread.
fn in_line(ops: &[Packed]) -> BookCheck {
    let mut book = BookCheck::default();
    for &op in ops {
        book.push(op.into());
    }
    book
}

/// Ops handed over together: [`BATCH`] slots, filled in order.
#[derive(Debug, Default)]
struct Batch {
    /// Empty (no allocation) or [`BATCH`] slots, allocated once and reused.
    slots: Vec<Packed>,
    /// Slots filled.
    len: usize,
}

impl Batch {
    fn new() -> Batch {
        Batch {
            slots: vec![Packed::default(); BATCH],
            len: 0,
        }
    }

    /// Writes one op into the next slot, field by field; `true` when the batch is then full.
    ///
    /// The slots exist already, so each field is one store into the batch. `Vec::push` of a
    /// whole `Packed` had the compiler assemble it on the stack first and copy it with wide
    /// loads that waited on the narrower stores (store forwarding): that copy was the costliest
    /// instruction of the parser's loop.
    #[inline]
    fn put(&mut self, id: i64, symbol: u64, size: u32, kind: u8) -> bool {
        if let Some(ahead) = self.slots.get(self.len + WRITE_AHEAD) {
            crate::sys::prefetch_write(ahead);
        }
        let Some(slot) = self.slots.get_mut(self.len) else {
            // Not reached: a full batch is handed over at once.
            return true;
        };
        slot.id = id;
        slot.symbol = symbol;
        slot.size = size;
        slot.kind = kind;
        self.len += 1;
        self.len == self.slots.len()
    }

    fn ops(&self) -> &[Packed] {
        &self.slots[..self.len]
    }
}

/// An [`Op`] as the batches carry it: one layout for every kind, so the parser's fields go
/// straight into the batch's slot ([`Batch::put`]).
#[derive(Debug, Clone, Copy, Default)]
#[repr(C)]
struct Packed {
    id: i64,
    symbol: u64,
    size: u32,
    kind: u8,
}

const ADD: u8 = 0;
const MODIFY: u8 = 1;
const DELETE: u8 = 2;
const EXECUTE: u8 = 3;
const CLEAR: u8 = 4;

impl From<Op> for Packed {
    fn from(op: Op) -> Packed {
        let (kind, id, symbol, size) = match op {
            Op::Add { id, symbol, size } => (ADD, id, symbol, size),
            Op::Modify { id, size } => (MODIFY, id, 0, size),
            Op::Delete { id } => (DELETE, id, 0, 0),
            Op::Execute { id, size } => (EXECUTE, id, 0, size),
            Op::Clear { symbol } => (CLEAR, 0, symbol, 0),
        };
        Packed {
            id,
            symbol,
            size,
            kind,
        }
    }
}

impl From<Packed> for Op {
    #[inline]
    fn from(p: Packed) -> Op {
        let Packed {
            id,
            symbol,
            size,
            kind,
        } = p;
        match kind {
            ADD => Op::Add { id, symbol, size },
            MODIFY => Op::Modify { id, size },
            DELETE => Op::Delete { id },
            EXECUTE => Op::Execute { id, size },
            _ => Op::Clear { symbol },
        }
    }
}

/// The book's thread, or `None` if the system will not start one.
fn start_thread() -> Option<State> {
    let (to_book, from_parser) = mpsc::sync_channel::<Batch>(IN_FLIGHT);
    let (give_back, returned) = mpsc::sync_channel::<Batch>(IN_FLIGHT + 2);
    let book = std::thread::Builder::new()
        .name("book".into())
        .spawn(move || {
            let mut book = BookCheck::default();
            for mut batch in from_parser {
                for &op in batch.ops() {
                    book.push(op.into());
                }
                batch.len = 0;
                // The parser may have enough batches already; then this one is dropped.
                let _ = give_back.try_send(batch);
            }
            book.report()
        })
        .ok()?;
    Some(State::Threaded {
        to_book,
        returned,
        book,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pseudo-random order stream over a few symbols, with every kind of inconsistency in it
    /// (references to unknown ids, overfills, duplicate adds, clear books), long enough for
    /// many batches.
    fn ops(n: usize) -> Vec<Op> {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut out = Vec::with_capacity(n);
        let mut top: i64 = 0;
        for _ in 0..n {
            let r = next();
            let symbol = r % 5 + 1;
            let near = top - (r >> 8) as i64 % 300;
            let size = (r >> 20) as u32 % 500 + 1;
            out.push(match r % 100 {
                0..=44 => {
                    top += 1;
                    Op::Add {
                        id: top,
                        symbol,
                        size,
                    }
                }
                45..=84 => Op::Delete { id: near },
                85..=92 => Op::Modify { id: near, size },
                93..=98 => Op::Execute { id: near, size },
                _ if r % 1000 == 999 => Op::Clear { symbol },
                _ => Op::Add {
                    id: near,
                    symbol,
                    size,
                },
            });
        }
        out
    }

    fn run(placement: Placement, ops: &[Op]) -> BookReport {
        let mut feed = BookFeed::new();
        for &op in ops {
            feed.push(op, placement);
        }
        let report = feed.finish();
        assert_eq!(feed.finish(), report, "finish twice gives the same figures");
        report
    }

    #[test]
    fn the_books_thread_reports_what_the_book_in_line_does() {
        let ops = ops(50 * BATCH + 123);
        let inline = run(Placement::Inline, &ops);
        assert_eq!(run(Placement::Threaded, &ops), inline);
        assert_eq!(run(Placement::Auto, &ops), inline);
        // Fewer ops than a batch: applied in line at the end.
        let few = &ops[..BATCH - 1];
        assert_eq!(run(Placement::Auto, few), run(Placement::Inline, few));
        // The stream is not trivial: every counter the comparison covers moved.
        assert!(inline.adds > 40_000);
        assert!(inline.unknown_references > 0);
        assert!(inline.overfills > 0);
        assert!(inline.duplicate_adds > 0);
        assert!(inline.cleared_orders > 0);
        assert!(inline.live_orders > 0);
    }

    #[test]
    fn a_batch_cut_short_at_the_end_is_applied() {
        let ops = [
            Op::Add {
                id: 1,
                symbol: 7,
                size: 10,
            },
            Op::Execute { id: 1, size: 4 },
            Op::Delete { id: 2 },
        ];
        let r = run(Placement::Threaded, &ops);
        assert_eq!((r.adds, r.live_orders, r.unknown_references), (1, 1, 1));
    }

    #[test]
    fn no_order_messages_start_nothing() {
        let mut feed = BookFeed::new();
        assert!(!feed.saw_orders());
        assert!(matches!(feed.state, State::Idle));
        assert_eq!(feed.finish(), BookReport::default());
    }
}
