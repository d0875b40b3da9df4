//! The DEEP+ book check on a thread of its own.
//!
//! Replaying every order into [`BookCheck`] is a cache miss or two per `M`, `R` and `L` (orders
//! added long ago), about a quarter of `inspect`'s time on one core. None of it decides what the
//! parser does next, so when a second CPU is allowed the parsing thread only cuts each order
//! message down to an [`Op`] and hands them over in batches; the book runs beside it and is
//! joined at the end. The book's side also gathers the order messages' symbols for `inspect`'s
//! count: a hash per message that the parser then skips. With one CPU allowed (`taskset -c 0`,
//! a one-core container) the book is applied in line, as before: a second thread there would
//! only add hand-overs.
//!
//! No thread starts before a first batch of order messages is full, so DEEP, TOPS and small
//! captures (a test's, a fuzzer's) never start one. The figures are the same either way (the
//! book sees the same ops in the same order); a test checks the paths against each other.

use std::sync::mpsc::{self, Receiver, SyncSender};
use std::thread::JoinHandle;

use rustc_hash::FxHashSet;

use super::book::{BookCheck, BookReport, Op};
use crate::model::{Message, Symbol};

/// Ops per hand-over: 192 KiB of ops, within a core's L2. The book's thread, faster than the
/// parser, sleeps between batches, so each hand-over is a wake-up of a few microseconds on the
/// parser's side: batches this large make that cost small per op, and larger ones gain nothing
/// more (docs/BENCHMARKS.md, "DEEP+ inspect at DEEP's speed").
const BATCH: usize = 8192;
/// Ops ahead of the one being written whose slot is taken for writing
/// ([`crate::sys::prefetch_write`]): about three cache lines.
const WRITE_AHEAD: usize = 8;
/// Batches queued for the book at most: bounds memory (about 2 MiB), and makes the parser
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
    /// The order messages' symbols, once [`BookFeed::finish`] has gathered them.
    symbols: FxHashSet<u64>,
    /// Where the book goes when the first order message comes.
    placement: Placement,
}

#[derive(Debug, Default)]
enum State {
    /// No order message yet: no thread, no book allocated.
    #[default]
    Idle,
    /// Applied on this thread.
    Inline(Box<Replay>),
    /// Collecting the first batch: the thread starts when it is full, so a small capture (a
    /// test's, a fuzzer's) never starts one, and its book is applied in line at the end.
    Batching,
    Threaded {
        to_book: SyncSender<Batch>,
        /// Emptied batches coming back, so the hand-overs allocate nothing after the first few.
        returned: Receiver<Batch>,
        book: JoinHandle<(BookReport, FxHashSet<u64>)>,
    },
    Finished(BookReport),
}

/// Where the book should run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Placement {
    /// On a thread of its own once a batch is full, if more than one CPU is allowed; else in
    /// line.
    #[default]
    Auto,
    Inline,
    /// On a thread of its own from the first order message.
    Threaded,
}

impl BookFeed {
    /// A feed whose book runs where `placement` says (the tests compare the placements).
    pub fn placed(placement: Placement) -> Self {
        BookFeed {
            placement,
            ..BookFeed::default()
        }
    }

    /// Passes one message on; `false` (and nothing done) for messages that are not about
    /// orders. The one place that cuts messages down to ops. An order message's symbol is taken over too ([`BookFeed::symbols`]): the parser
    /// need not hash it.
    #[inline]
    pub fn apply<S: std::borrow::Borrow<Symbol>>(&mut self, m: &Message<S>) -> bool {
        // Scalars, not an `Op` or a `Packed`: see [`Batch::put`].
        let (kind, id, symbol, size) = match m {
            Message::AddOrder(a) => (ADD, a.order_id, a.symbol.borrow(), a.size),
            Message::OrderModify(o) => (MODIFY, o.order_id, o.symbol.borrow(), o.size),
            Message::OrderDelete(o) => (DELETE, o.order_id, o.symbol.borrow(), 0),
            Message::OrderExecuted(e) => (EXECUTE, e.order_id, e.symbol.borrow(), e.size),
            Message::ClearBook(c) => (CLEAR, 0, c.symbol.borrow(), 0),
            _ => return false,
        };
        self.put(id, symbol.as_u64(), size, kind | WITH_SYMBOL);
        true
    }

    /// Passes one order message on.
    pub fn push(&mut self, op: Op) {
        let p = Packed::from(op);
        self.put(p.id, p.symbol, p.size, p.kind);
    }

    #[inline]
    fn put(&mut self, id: i64, symbol: u64, size: u32, kind: u8) {
        // The common case, kept to four stores and a compare: the parser runs this per order
        // message.
        if self.batching {
            if self.batch.put(id, symbol, size, kind) {
                self.hand_over();
            }
        } else {
            self.push_slow(Packed {
                id,
                symbol,
                size,
                kind,
            });
        }
    }

    #[inline(never)]
    fn push_slow(&mut self, op: Packed) {
        self.seen = true;
        match &mut self.state {
            State::Inline(book) => book.push(op),
            State::Idle => {
                self.state = match self.placement {
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
                self.put(op.id, op.symbol, op.size, op.kind);
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
        let (report, symbols) = match std::mem::take(&mut self.state) {
            State::Idle => Default::default(),
            State::Inline(book) => book.finish(),
            State::Batching => in_line(batch.ops()).finish(),
            State::Threaded { to_book, book, .. } => {
                // A send fails only if the book's thread is gone, which `join` then explains.
                let _ = to_book.send(batch);
                drop(to_book);
                match book.join() {
                    Ok(done) => done,
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
            State::Finished(report) => (report, std::mem::take(&mut self.symbols)),
        };
        self.state = State::Finished(report);
        self.symbols = symbols;
        report
    }

    /// The symbols of the order messages passed on (those with one), once [`BookFeed::finish`]
    /// has run; empty before.
    pub fn symbols(&self) -> &FxHashSet<u64> {
        &self.symbols
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
fn in_line(ops: &[Packed]) -> Replay {
    let mut book = Replay::default();
    for &op in ops {
        book.push(op);
    }
    book
}

/// The book's side, wherever it runs: the book itself, and the set of the ops' symbols.
#[derive(Debug, Default)]
struct Replay {
    book: BookCheck,
    symbols: FxHashSet<u64>,
    /// The previous op's symbol, already in `symbols`: a symbol's orders come in runs.
    last: Option<u64>,
}

impl Replay {
    #[inline]
    fn push(&mut self, op: Packed) {
        if op.kind & WITH_SYMBOL != 0 && Some(op.symbol) != self.last {
            self.last = Some(op.symbol);
            self.symbols.insert(op.symbol);
        }
        self.book.push(op.into());
    }

    fn finish(mut self) -> (BookReport, FxHashSet<u64>) {
        (self.book.report(), self.symbols)
    }
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
/// Or'ed into the kind when `symbol` holds the message's symbol (every order message has one;
/// an [`Op`] passed to [`BookFeed::push`] has it only for adds and clears).
const WITH_SYMBOL: u8 = 0x80;

impl From<Op> for Packed {
    fn from(op: Op) -> Packed {
        let (kind, id, symbol, size) = match op {
            Op::Add { id, symbol, size } => (ADD | WITH_SYMBOL, id, symbol, size),
            Op::Modify { id, size } => (MODIFY, id, 0, size),
            Op::Delete { id } => (DELETE, id, 0, 0),
            Op::Execute { id, size } => (EXECUTE, id, 0, size),
            Op::Clear { symbol } => (CLEAR | WITH_SYMBOL, 0, symbol, 0),
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
        match kind & !WITH_SYMBOL {
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
            let mut book = Replay::default();
            for mut batch in from_parser {
                for &op in batch.ops() {
                    book.push(op);
                }
                batch.len = 0;
                // The parser may have enough batches already; then this one is dropped.
                let _ = give_back.try_send(batch);
            }
            book.finish()
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
        let mut feed = BookFeed::placed(placement);
        for &op in ops {
            feed.push(op);
        }
        let report = feed.finish();
        let symbols = feed.symbols().clone();
        assert_eq!(feed.finish(), report, "finish twice gives the same figures");
        assert_eq!(feed.symbols(), &symbols, "and the same symbols");
        // The symbols gathered are those of the adds and clears (the only ops that carry one).
        let expected: FxHashSet<u64> = ops
            .iter()
            .filter_map(|op| match *op {
                Op::Add { symbol, .. } | Op::Clear { symbol } => Some(symbol),
                _ => None,
            })
            .collect();
        assert_eq!(symbols, expected, "{placement:?}");
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
    fn order_messages_symbols_are_gathered_by_the_book_in_every_placement() {
        use crate::model::{OrderDelete, OrderModify, Symbol, Trade};
        let sym = |s| Symbol::new(s).unwrap();
        // Symbols only a modify or a delete names (never added here: a cut capture), one that
        // is all zero bytes, and a trade's, which is not the book's.
        let messages: Vec<Message> = (0..3 * BATCH as i64)
            .map(|i| match i % 3 {
                0 => Message::OrderModify(OrderModify {
                    flags: 0,
                    timestamp: 0,
                    symbol: sym(["AAPL", "SPY"][i as usize % 2]),
                    order_id: i,
                    size: 1,
                    price: 1,
                }),
                1 => Message::OrderDelete(OrderDelete {
                    timestamp: 0,
                    symbol: Symbol([0; 8]),
                    order_id: i,
                }),
                _ => Message::TradeReport(Trade {
                    flags: 0,
                    timestamp: 0,
                    symbol: sym("TRADED"),
                    size: 1,
                    price: 1,
                    trade_id: 1,
                }),
            })
            .collect();
        for placement in [Placement::Inline, Placement::Threaded, Placement::Auto] {
            let mut feed = BookFeed::placed(placement);
            let taken = messages.iter().filter(|m| feed.apply(m)).count();
            assert_eq!(taken, 2 * BATCH, "order messages taken over, trades not");
            feed.finish();
            let mut got: Vec<u64> = feed.symbols().iter().copied().collect();
            got.sort_unstable();
            let mut want = vec![sym("AAPL").as_u64(), sym("SPY").as_u64(), 0];
            want.sort_unstable();
            assert_eq!(got, want, "{placement:?}");
        }
    }

    #[test]
    fn no_order_messages_start_nothing() {
        let mut feed = BookFeed::default();
        assert!(!feed.saw_orders());
        assert!(matches!(feed.state, State::Idle));
        assert_eq!(feed.finish(), BookReport::default());
    }
}
