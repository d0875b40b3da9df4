//! The shootout loop: parse once, feed identical windows of packets to every format, time each
//! packet's serialize and deserialize, then check everything outside the timed regions.

use std::io::Read;
use std::time::Instant;

use crate::formats::{aggregate::visit_packet, Aggregate, Checksum};
use crate::model::Packet;
use crate::output::Tick;
use crate::source::Gate;
use crate::stream::{Cover, IexReader};

use super::allocations::{self, AllocTally, Counter};
use super::checks::{checksum_mismatch, cross_check, in_window, verify_window, PassCheck};
use super::clock::Timer;
/// Re-exported where `measure::args` has always found them.
pub use super::config::{Config, RunError, DEFAULT_WINDOW, MAX_WINDOW};
use super::fed::Feed;
use super::floor::{AggregateFloor, MemcpyFloor};
use super::instructions;
use super::interference::{observe, retime};
use super::memory::{read_through, Written};
use super::order::{pass_order, Order, PassOrder};
use super::outcome::{Outcome, Passes};
use super::runner::{Grain, PacketStat, PassIo, Runner};
use super::schedule::Plan;
use super::stats::{record_by_type, FormatResult};
use super::stored::Compressors;
use super::twins;
use super::window::{Unit, Window, WindowId};
use super::workload::{Timing, Workload};

/// Picks the runners named in `config`, in registry order, then the A/A twins it asks for
/// (`measure::twins`), then their positive controls, in registry order too.
pub fn select(config: &Config) -> Result<Vec<Box<dyn Runner>>, RunError> {
    config.check()?;
    let all = super::registry::registry();
    let known: Vec<&str> = all.iter().map(|r| r.name()).collect();
    if let Some(wanted) = &config.formats {
        if let Some(bad) = wanted.iter().find(|w| !known.contains(&w.as_str())) {
            return Err(RunError::UnknownFormat {
                name: bad.clone(),
                known: known.join(", "),
            });
        }
    }
    let mut runners: Vec<Box<dyn Runner>> = all
        .into_iter()
        .filter(|r| {
            config
                .formats
                .as_ref()
                .is_none_or(|wanted| wanted.iter().any(|w| w == r.name()))
        })
        .collect();
    let selected: Vec<&'static str> = runners.iter().map(|r| r.name()).collect();
    let chosen = twins::chosen(config.twins.as_deref(), &selected)?;
    for &original in &chosen {
        // A window format has no twin (`measure::twins` twins `Format`s): refused, not skipped.
        let twin = twins::twin_of(original).ok_or_else(|| {
            RunError::Config(format!(
                "--twins {original}: {original} is a window format, which has no A/A twin"
            ))
        })?;
        runners.push(twin);
    }
    // Each twin's positive control after the twins (none for a stream format).
    runners.extend(
        chosen
            .iter()
            .filter_map(|original| twins::control_of(original)),
    );
    Ok(runners)
}

/// Runs the shootout over every packet `reader` yields with the formats `config` names.
/// `progress` is called after each window with the capture bytes and messages read so far.
pub fn run<R: Read>(
    reader: IexReader<R>,
    config: &Config,
    progress: impl FnMut(Tick),
) -> Result<Outcome, RunError> {
    let runners = select(config)?;
    run_with(reader, config, runners, progress)
}

/// [`run`] with the runners given (tests use it to run formats that are not in the registry,
/// such as deliberately broken ones). `config.formats` is ignored.
pub fn run_with<R: Read>(
    mut reader: IexReader<R>,
    config: &Config,
    runners: Vec<Box<dyn Runner>>,
    mut progress: impl FnMut(Tick),
) -> Result<Outcome, RunError> {
    config.check()?;
    super::memory::touch_stack();
    super::memory::warm_heap();
    reader.set_chunking(config.chunking);
    let mut shootout = Shootout::new(runners, config)?;
    shootout.gate = reader.gate();
    let started = Instant::now();
    let mut window = Window::default();
    loop {
        let parse_start = Instant::now();
        let n = window.fill(&mut reader, config.window, config.unit)?;
        shootout.segments += window.segments;
        shootout.parse_ns += parse_start.elapsed().as_nanos() as u64;
        if n == 0 {
            break;
        }
        shootout.step(&window)?;
        progress(Tick {
            file_bytes: reader.position(),
            messages: shootout.messages,
        });
    }
    let wall_ns = started.elapsed().as_nanos() as u64;
    let mut outcome = shootout.finish(&window, reader.position(), wall_ns)?;
    outcome.dropped_bytes = reader.truncated_tail().map(|t| t.present);
    outcome.cover = reader.cover().cloned().unwrap_or_default();
    Ok(outcome)
}

/// Where each format's encoding of a window may need room, learned from the windows it has
/// encoded, so its buffers are sized before a window is timed. A unit of work is a packet or a
/// message: a heartbeat packet holds no message yet has a header to write, so bytes per message
/// alone made a window of heartbeats claim kilobytes per message and the next busy window
/// reserve gigabytes (issue 46). Bytes per unit bound every window by the same rate.
#[derive(Clone, Copy, Default)]
struct Footprint {
    /// The most bytes per unit (packet or message) written so far.
    per_unit: f64,
    /// The most messages per packet among the windows learned from: a window with more is unlike
    /// any seen (its bytes per unit may be higher), so the format encodes it once, untimed, first.
    mix: f64,
}

impl Footprint {
    fn learn(&mut self, bytes: usize, packets: usize, messages: u64) {
        self.per_unit = self.per_unit.max(bytes as f64 / units(packets, messages));
        self.mix = self.mix.max(messages as f64 / packets.max(1) as f64);
    }

    /// Nothing learned yet: the format has not encoded a window.
    fn is_empty(&self) -> bool {
        self.per_unit == 0.0
    }

    /// A window of `packets` and `messages` has more messages per packet than any learned from
    /// (by a quarter: small drifts are what the headroom is for).
    fn unlike(&self, packets: usize, messages: u64) -> bool {
        messages as f64 / packets.max(1) as f64 > self.mix * 1.25 + 0.5
    }

    /// Room for a window of `packets` and `messages`, with headroom for an unusual window.
    fn room(&self, packets: usize, messages: u64) -> usize {
        (self.per_unit * units(packets, messages) * 1.5) as usize + 64 * 1024
    }
}

/// A window's units of work: its packets and its messages (at least one).
fn units(packets: usize, messages: u64) -> f64 {
    (packets as f64 + messages as f64).max(1.0)
}

/// What the passes over one view of the windows are checked against: the source's, or the window
/// a format is fed ([`Fed`]). Filled in one pass per window, outside the timed regions.
#[derive(Default)]
struct View {
    /// A window format runs on this view: it is timed whole in every window.
    windowed: bool,
    /// The complete-decode checksum's running value after each packet of the window.
    checks: Vec<u64>,
    /// The checksum of the packets after the warm-up (what a batch complete decode must give).
    batch_check: u64,
    /// Messages after the warm-up, and in the whole window.
    batch_messages: u64,
    messages: u64,
    /// Aggregation of the packets of the windows timed per packet: what each selective decode
    /// per packet must come to.
    per_packet: Aggregate,
    /// Aggregation of the packets after the warm-up of the windows timed whole, and as it was
    /// before this window (where a whole-window selective decode timed again starts from, see
    /// [`Shootout::batch_pass`]).
    batch: Aggregate,
    batch_before: Aggregate,
    /// The same over every window (kept only when `windowed`): what a window format's passes,
    /// timed whole in every window, must come to.
    recorded: Aggregate,
    recorded_before: Aggregate,
}

impl View {
    /// This window's references: its `packets`, whose first `skip` are warm-up, timed `timed`.
    fn prepare(&mut self, packets: &[Packet], skip: usize, timed: Plan) {
        self.checks.clear();
        if timed.per_unit {
            let mut c = Checksum::default();
            for p in packets {
                c.visit(p);
                self.checks.push(c.value());
                visit_packet(p, &mut self.per_packet);
            }
        }
        self.batch_check = if timed.window || self.windowed {
            Checksum::of(&packets[skip..]).value()
        } else {
            0
        };
        let count = |ps: &[Packet]| ps.iter().map(|p| p.messages.len() as u64).sum();
        self.messages = count(packets);
        self.batch_messages = count(&packets[skip..]);
        self.whole(&packets[skip..], timed, |v| (&mut v.batch, &mut v.recorded));
    }

    /// After this window's timed passes: the references "before this window" catch up.
    fn timed(&mut self, packets: &[Packet], skip: usize, timed: Plan) {
        self.whole(&packets[skip..], timed, |v| {
            (&mut v.batch_before, &mut v.recorded_before)
        });
    }

    /// `recorded` into the aggregations `pick` names: the windows-timed-whole one if this window
    /// is, the every-window one if a window format runs.
    fn whole(
        &mut self,
        recorded: &[Packet],
        timed: Plan,
        pick: impl FnOnce(&mut View) -> (&mut Aggregate, &mut Aggregate),
    ) {
        let windowed = self.windowed;
        let (batch, every) = pick(self);
        for p in recorded {
            if timed.window {
                visit_packet(p, batch);
            }
            if windowed {
                visit_packet(p, every);
            }
        }
    }

    /// What passes of `grain` timed per packet and timed whole aggregate to, and the latter as it
    /// was before this window: a window format decodes nothing per packet, every window whole.
    fn aggregates<'v>(
        &'v self,
        grain: Grain,
        none: &'v Aggregate,
    ) -> (&'v Aggregate, &'v Aggregate, &'v Aggregate) {
        match grain {
            Grain::Packet => (&self.per_packet, &self.batch, &self.batch_before),
            Grain::Window => (none, &self.recorded, &self.recorded_before),
        }
    }
}

/// A runner fed a window of its own ([`Feed`]: a lossy format's projection, a positive
/// control's repeats), and its [`View`]. A lossy format's message counts are the source's (it
/// carries every message); its aggregation is the projection's, which differs from the source's
/// only where a field the aggregation reads has no slot (a price too large for DBN's 1e-9
/// units). A control's counts and aggregation are those of its window, repeats included; what it
/// reports per unit is per unit of the source (see [`Span::units`] and
/// [`Shootout::take_out_repeats`]).
struct Fed {
    feed: Feed,
    packets: Vec<Packet>,
    /// The packets repeated in `packets`, once each (empty but for a control).
    repeats: Vec<Packet>,
    /// The warm-up of `packets`: the source's warm-up units and their repeats.
    skip: usize,
    view: View,
}

impl Fed {
    fn new(feed: Feed, windowed: bool) -> Fed {
        Fed {
            feed,
            packets: Vec::new(),
            repeats: Vec::new(),
            skip: 0,
            view: View {
                windowed,
                ..View::default()
            },
        }
    }

    /// This window's packets as fed and their references: the source's `packets`, the units
    /// from place `before` of their chunk, whose first `skip` are warm-up, timed `timed`.
    fn prepare(&mut self, packets: &[Packet], before: u64, skip: usize, timed: Plan) {
        self.feed
            .window(packets, before, &mut self.packets, &mut self.repeats);
        self.skip = self.feed.position(before, skip);
        self.view.prepare(&self.packets, self.skip, timed);
    }
}

/// The view format `i` is checked against: its own if it is fed a window of its own, else the
/// source's. The packets it is fed are its [`Span`]'s.
fn view<'a>(fed: &'a [Option<Fed>], source: &'a View, i: usize) -> &'a View {
    fed[i].as_ref().map_or(source, |f| &f.view)
}

/// The window being measured, as each format's passes and checks see it: the source's, or the
/// one the format is fed ([`Fed`]).
#[derive(Clone, Copy)]
struct Span<'w> {
    packets: &'w [Packet],
    /// Packets at its start that are warm-up: passed through, not recorded.
    skip: usize,
    /// Its first packet's number in the run (from 1), for messages (in a control's window, a
    /// packet's place counts the repeats before it).
    first_packet: u64,
    timed: Plan,
    /// The source window's units after the warm-up: what a pass timed whole is timed per, so
    /// that a control's figure compares with its original's (its window holds more).
    units: usize,
}

/// The state of one run between windows: the formats, what they measured, the references.
struct Shootout<'c> {
    config: &'c Config,
    runners: Vec<Box<dyn Runner>>,
    results: Vec<FormatResult>,
    footprints: Vec<Footprint>,
    timer: Timer,
    /// Aggregation of every packet.
    reference: Aggregate,
    /// The source's view: what the formats fed it are checked against.
    source: View,
    /// What a selective decode timed again reads into.
    retry_aggregate: Aggregate,
    /// Per format, the first window whose selective decode, timed again, aggregated otherwise
    /// than the source: reported after `cross_check`, so that a format wrong in every pass is
    /// named by the same words whether or not a pass of it was timed again.
    retry_disagreed: Vec<Option<u64>>,
    /// Per format, its own window and references if it is fed one ([`Feed`]).
    fed: Vec<Option<Fed>>,
    checksum: Checksum,
    stats: Written<PacketStat>,
    /// Where each packet's encoding ends in the buffer, as the per-packet encode wrote it.
    ends: Written<usize>,
    decoded: Vec<Packet>,
    compressors: Compressors,
    /// Counts each format's allocations after the timed work; `None` where the counting
    /// allocator is not installed (`alloc_count::counting`).
    counter: Option<Counter>,
    /// Counts the instructions of each batch pass where the run asked (`Config::counting`).
    instructions: Option<instructions::Counter>,
    floor: MemcpyFloor,
    aggregate_floor: AggregateFloor,
    order: Order,
    /// This window's order: format indices, `runners.len()` for the memcpy floor and one more
    /// for the aggregation floor.
    turns: Vec<usize>,
    /// The gate of the thread inflating a gzip'd input: closed while a window is timed.
    gate: Option<std::sync::Arc<Gate>>,
    /// The window being measured: where it lies in the input, which decides its timing, the
    /// formats' order and whether it is compressed, the same in every share.
    id: WindowId,
    /// Windows done in this process.
    windows: u64,
    /// Units so far (packets or messages, see `Config::unit`).
    packets: u64,
    /// Units of this window's chunk before this window (where a control's repeats fall, see
    /// `measure::fed`).
    chunk_units: u64,
    /// Units after the warm-up timed one by one, and timed in whole windows.
    units_per_packet: u64,
    units_batch: u64,
    /// IEX-TP packets read so far, heartbeats included, whatever the unit.
    segments: u64,
    messages: u64,
    parse_ns: u64,
    passes: Passes,
    compress_ns: u64,
    verify_ns: u64,
}

impl<'c> Shootout<'c> {
    fn new(runners: Vec<Box<dyn Runner>>, config: &'c Config) -> Result<Self, RunError> {
        let counting = crate::alloc_count::counting();
        let instructions = config
            .counting
            .map(instructions::Counter::open)
            .transpose()
            .map_err(|e| {
                RunError::Config(format!(
                    "--instructions pmu: the CPU's instruction counter cannot be opened: {e}"
                ))
            })?;
        let source = match instructions {
            Some(instructions::Counter::Pmu(_)) => Some(instructions::Source::Pmu),
            _ => None,
        };
        let windowed = runners.iter().any(|r| r.grain() == Grain::Window);
        let results = runners
            .iter()
            .map(|r| FormatResult {
                allocations: counting.then(AllocTally::default),
                instructions: source.map(instructions::Instructions::new),
                ..FormatResult::new(r.name())
            })
            .collect();
        let fed = runners
            .iter()
            .map(|r| {
                let control = twins::planted(r.name()).is_some_and(|p| p > 0.0);
                Feed::of(r.lossy().map(|l| l.project), control)
                    .map(|f| Fed::new(f, r.grain() == Grain::Window))
            })
            .collect();
        Ok(Shootout {
            config,
            footprints: vec![Footprint::default(); runners.len()],
            order: Order::new(runners.len() + FLOORS, config.order_seed),
            turns: Vec::with_capacity(runners.len() + FLOORS),
            retry_disagreed: vec![None; runners.len()],
            runners,
            results,
            timer: Timer::calibrate(),
            reference: Aggregate::new(),
            source: View {
                windowed,
                ..View::default()
            },
            retry_aggregate: Aggregate::new(),
            fed,
            checksum: Checksum::default(),
            stats: Written::default(),
            ends: Written::default(),
            decoded: Vec::new(),
            compressors: Compressors::new().map_err(RunError::Compress)?,
            counter: counting.then(Counter::default),
            instructions,
            floor: MemcpyFloor::default(),
            aggregate_floor: AggregateFloor::default(),
            gate: None,
            id: WindowId::default(),
            windows: 0,
            packets: 0,
            chunk_units: 0,
            units_per_packet: 0,
            units_batch: 0,
            segments: 0,
            messages: 0,
            parse_ns: 0,
            passes: Passes::default(),
            compress_ns: 0,
            verify_ns: 0,
        })
    }

    /// One window: the references, then every format's timed passes in this window's order, then the
    /// untimed work (size as stored, `--verify`).
    fn step(&mut self, window: &Window) -> Result<(), RunError> {
        let packets = window.packets();
        let n = packets.len();
        let first_packet = self.packets + 1;
        // The warm-up is the input's first units, within its first chunk (see `skip`): a longer
        // one would record from the next chunk on with nothing said, so it is refused as soon as
        // the first chunk is over, before any result is written.
        let first_chunk_over = window.chunk > 0 && self.id.chunk == 0 && self.windows > 0;
        if first_chunk_over {
            self.warmup_fits()?;
            self.window_fits()?;
        }
        self.next_window(window.chunk);
        // Packets of this window whose times count (the rest are warm-up). The warm-up is the
        // input's first units, within its first chunk: a share that does not start there has
        // none to skip (and its formats are warmed untimed all the same, see `prepare`).
        let skip = match self.id.chunk {
            0 => self
                .config
                .warmup
                .saturating_sub(self.packets)
                .min(n as u64) as usize,
            _ => 0,
        };
        // The first window of the input with a recorded unit is timed both ways.
        let first_recorded = self.id.chunk == 0 && self.units_per_packet + self.units_batch == 0;
        let timed = Plan::new(self.config.timing, self.id.turn(), skip, n, first_recorded);
        self.prepare(window, skip, timed);

        // Every format meets every neighbour equally often (see `measure::order`); the memcpy
        // floor takes its turn as slot `count`, the aggregation floor as `count + 1`.
        let count = self.runners.len();
        self.turns.clear();
        self.turns.extend_from_slice(self.order.next_window());
        let span = Span {
            packets,
            skip,
            first_packet,
            timed,
            units: n - skip,
        };
        let symbols = self.reference.symbol_count();
        // No decompression while the window is timed: the gunzip thread waits (see
        // `source::Gate`) until the last timed pass is over, on an error too.
        let gate = self.gate.clone();
        let closed = gate.as_deref().map(Closed::new);
        for k in 0..count + FLOORS {
            match self.turns[k] {
                i if i == count => {
                    self.passes.floor +=
                        self.floor
                            .measure(packets, skip, timed, &self.timer, self.stats.vec());
                }
                i if i == count + 1 => {
                    self.passes.aggregate +=
                        self.aggregate_floor
                            .measure(packets, skip, timed, &self.timer, symbols);
                }
                i => self.with_fed(i, span, |s, span| s.measure_format(i, span))?,
            }
        }
        drop(closed);
        self.source.timed(packets, skip, timed);
        for f in self.fed.iter_mut().flatten() {
            f.view.timed(&f.packets, f.skip, timed);
        }

        // Untimed work on every format's window comes after all the timed work: between two
        // timed regions it would evict the caches the second relies on (docs/BENCHMARKS.md, "A
        // measurement bug found while doing this"). Each runner still holds this window's
        // encoding.
        for i in 0..count {
            self.with_fed(i, span, |s, span| s.after_window(i, span))?;
        }
        let recorded = (n - skip) as u64;
        if timed.per_unit {
            self.units_per_packet += recorded;
        }
        if timed.window {
            self.units_batch += recorded;
        }
        self.windows += 1;
        self.packets += n as u64;
        self.chunk_units += n as u64;
        self.messages += window.messages;
        Ok(())
    }

    /// Moves on to the next window, of chunk `chunk`: a new chunk starts its own cycle of the
    /// formats' orders, seeded by the run's seed and the chunk (so a share that starts at that
    /// chunk takes the same turns).
    fn next_window(&mut self, chunk: u64) {
        if self.windows == 0 || chunk != self.id.chunk {
            self.id = WindowId { chunk, local: 0 };
            self.chunk_units = 0;
            let seed = self.config.order_seed ^ chunk.wrapping_mul(0x9e37_79b9_7f4a_7c15);
            self.order = Order::new(self.runners.len() + FLOORS, seed);
        } else {
            self.id.local += 1;
        }
    }

    /// The references for this window, and every buffer and map sized so that no timed pass
    /// grows one.
    fn prepare(&mut self, window: &Window, skip: usize, timed: Plan) {
        let packets = window.packets();
        for p in packets {
            visit_packet(p, &mut self.reference);
        }
        self.source.prepare(packets, skip, timed);
        let before = self.chunk_units;
        for f in self.fed.iter_mut().flatten() {
            f.prepare(packets, before, skip, timed);
        }

        let symbols = self.reference.symbol_count();
        let mut longest = packets.len();
        for (i, runner) in self.runners.iter_mut().enumerate() {
            let (fed, messages) = match &self.fed[i] {
                Some(f) => (&f.packets[..], f.view.messages),
                None => (packets, window.messages),
            };
            longest = longest.max(fed.len());
            ready(
                runner.as_mut(),
                &mut self.footprints[i],
                &self.timer,
                fed,
                messages,
            );
            self.results[i].aggregate.reserve(symbols);
            self.results[i].batch_aggregate.reserve(symbols);
        }
        self.stats.reserve(longest);
        self.ends.reserve(longest);
    }

    /// Format `i`'s timed passes over the window: encode, selective decode and complete decode,
    /// per packet (latency) and/or per window (throughput) as `timed` says, each checked.
    /// In a window timed both ways, which timing goes first, and which decode goes first
    /// within each, alternate (`measure::order::pass_order`).
    fn measure_format(&mut self, i: usize, span: Span<'_>) -> Result<(), RunError> {
        let order = pass_order(self.id.turn());
        read_through(span.packets);
        if self.runners[i].grain() == Grain::Window {
            return self.whole_windows(i, span, order);
        }
        if span.timed == Plan::BOTH && order.batch_first {
            self.batch(i, span, 0, order, true)?;
            self.per_packet(i, span, order)?;
            return Ok(());
        }
        // Where the packets after the warm-up start in the buffer the decodes read.
        let mut from = 0;
        if span.timed.per_unit {
            from = self.per_packet(i, span, order)?;
        }
        if span.timed.window {
            self.batch(i, span, from, order, false)?;
        }
        Ok(())
    }

    /// Format `i`, a window format ([`Grain::Window`]): its passes timed whole in every window,
    /// over the packets after the warm-up, checked as [`Shootout::batch`] checks any format's.
    /// Warm-up packets in the window are encoded and decoded once as a window of their own,
    /// untimed and checked, so that its byte and message counts cover the whole input as every
    /// format's do.
    fn whole_windows(
        &mut self,
        i: usize,
        span: Span<'_>,
        order: PassOrder,
    ) -> Result<(), RunError> {
        if span.skip > 0 {
            self.warm_up_window(i, span)?;
        }
        if span.skip < span.packets.len() {
            self.batch(i, whole(span), 0, order, false)?;
        }
        Ok(())
    }

    /// A window format's untimed encode and complete decode of the window's warm-up packets,
    /// checked against the source's checksum and counted.
    fn warm_up_window(&mut self, i: usize, span: Span<'_>) -> Result<(), RunError> {
        let warm = &span.packets[..span.skip];
        let (runner, result) = (&mut self.runners[i], &mut self.results[i]);
        let name = result.name;
        let failed = |what: String| {
            in_window(
                name,
                span.first_packet,
                format!("its warm-up packets {what}"),
            )
        };
        let mut scratch = Aggregate::new();
        self.checksum.reset();
        let mut io = PassIo::new(warm, &mut scratch, &mut self.checksum);
        untimed(runner.as_mut(), Workload::Encode, &mut io, &self.timer)
            .map_err(|e| failed(format!("failed to encode: {e}")))?;
        runner.adopt_batch();
        let read = untimed(runner.as_mut(), Workload::Complete, &mut io, &self.timer)
            .map_err(|e| failed(format!("failed to decode: {e}")))?;
        let (sum, want) = (self.checksum.value(), Checksum::of(warm).value());
        if read.packets != warm.len() || sum != want {
            return Err(failed(format!(
                "decoded to {} packets with checksum {sum:#018x}; the source has {} with \
                 {want:#018x}",
                read.packets,
                warm.len()
            )));
        }
        result.encoded_bytes += runner.buffer().len() as u64;
        result.messages_encoded += read.messages;
        Ok(())
    }

    /// Format `i`'s passes timed packet by packet, each checked packet by packet: every packet
    /// decoded, each using exactly the bytes its encode wrote, the complete decode's checksum
    /// the source's after every packet. Returns where the packets after the warm-up start.
    fn per_packet(
        &mut self,
        i: usize,
        span: Span<'_>,
        order: PassOrder,
    ) -> Result<usize, RunError> {
        let (packets, skip, first_packet) = (span.packets, span.skip, span.first_packet);
        let (runner, result) = (&mut self.runners[i], &mut self.results[i]);
        let (timer, stats, ends) = (&self.timer, self.stats.vec(), self.ends.vec());
        let name = result.name;
        self.checksum.reset();
        let mut io = PassIo::new(packets, &mut result.aggregate, &mut self.checksum);
        for workload in order.workloads() {
            stats.clear();
            let (pass, taken) =
                observe(|| runner.pass(workload, Timing::PerUnit, &mut io, timer, stats));
            result.timed_faults += taken.faults;
            result.preempted += taken.switches;
            let check = PassCheck {
                format: name,
                workload,
                stats,
                ends,
                packets,
                first_packet,
            };
            let pass = pass.map_err(|cause| decode_error(check, cause))?;
            for s in &stats[skip..] {
                result.latency[workload].record(s.ns);
            }
            if self.config.unit == Unit::Message {
                let start = if skip == 0 { 0 } else { stats[skip - 1].end };
                let (units, timed) = (&packets[skip..], &stats[skip..]);
                record_by_type(&mut result.by_type, workload, units, timed, start);
            }
            self.passes.per_unit[workload] += pass.ns;
            match workload {
                Workload::Encode => {
                    result.encoded_bytes += runner.buffer().len() as u64;
                    ends.clear();
                    ends.extend(stats.iter().map(|s| s.end));
                }
                Workload::Selective => check.each_packet_whole()?,
                Workload::Complete => {
                    check.each_packet_whole()?;
                    let checks = &view(&self.fed, &self.source, i).checks;
                    if let Some(at) = stats.iter().zip(checks).position(|(s, e)| s.check != *e) {
                        let start = if at == 0 { 0 } else { stats[at - 1].end };
                        return Err(checksum_mismatch(
                            runner.as_mut(),
                            start,
                            &packets[at],
                            first_packet + at as u64,
                        ));
                    }
                }
            }
        }
        // What the encoder wrote, counted by reading it back: an encoder's own count could only
        // repeat what it believes.
        result.messages_encoded += self.checksum.messages();
        Ok(if skip == 0 { 0 } else { ends[skip - 1] })
    }

    /// Format `i`'s passes timed whole over the window's packets after the warm-up, checked as
    /// a whole: every packet and message read, the complete decode's checksum the source's. The
    /// decodes read the buffer from byte `from`; when the batch goes `first` in a window timed
    /// both ways, they read its own encode, made the buffer for them and put back after.
    fn batch(
        &mut self,
        i: usize,
        span: Span<'_>,
        from: usize,
        order: PassOrder,
        first: bool,
    ) -> Result<(), RunError> {
        let (recorded, first_packet) = (&span.packets[span.skip..], span.first_packet);
        let name = self.results[i].name;
        let window_error = |what: String| in_window(name, first_packet, what);
        let expected = view(&self.fed, &self.source, i);
        let (check, messages) = (expected.batch_check, expected.batch_messages);
        // Counted per unit of the source: its own messages, once the pass read the window's.
        let (units, counted) = (span.units, self.source.batch_messages);
        let id = self.id;
        for workload in order.workloads() {
            let pass = self.batch_pass(i, workload, recorded, from, first_packet)?;
            let (runner, result) = (&mut self.runners[i], &mut self.results[i]);
            result.throughput[workload].add(pass.ns, units);
            result.windows[workload].add(id, units as u64, pass.ns);
            self.passes.window[workload] += pass.ns;
            match workload {
                // The window's only encode: the decodes read it, and it counts as the window's
                // bytes (no warm-up in such a window, see `Plan::plan`); its messages are
                // counted when the complete decode has read them back.
                Workload::Encode if !span.timed.per_unit => {
                    runner.adopt_batch();
                    result.encoded_bytes += runner.buffer().len() as u64;
                }
                // Before the per-unit encode: the decodes read this one, from its start.
                Workload::Encode if first => runner.adopt_batch(),
                Workload::Encode => {}
                Workload::Selective if pass.packets != recorded.len() => {
                    return Err(window_error(format!(
                        "the batch selective decode read {} packets, the encoder wrote {}",
                        pass.packets,
                        recorded.len()
                    )));
                }
                Workload::Selective => {}
                Workload::Complete => {
                    let sum = self.checksum.value();
                    if pass.packets != recorded.len() || sum != check || pass.messages != messages {
                        return Err(window_error(format!(
                            "the batch complete decode read {} packets and {} messages with \
                             checksum {sum:#018x}; the source has {} and {messages} with \
                             {check:#018x}",
                            pass.packets,
                            pass.messages,
                            recorded.len(),
                        )));
                    }
                    if !span.timed.per_unit {
                        result.messages_encoded += pass.messages;
                    }
                }
            }
        }
        if first {
            // The batch encode back in its own buffer, where `after_window` compares it with
            // the per-unit one.
            self.runners[i].adopt_batch();
        }
        self.results[i].messages_batch += counted;
        Ok(())
    }

    /// One pass of format `i` timed whole, run again while a context switch lands in it (see
    /// `measure::interference`); the last run is kept. The complete decode's checksum starts
    /// afresh on each run. A selective decode run again reads into a copy of the reference as it
    /// was before this window (the first run's aggregation is in the format's own, checked at the
    /// end of the run), and must come out equal to the reference after it.
    fn batch_pass(
        &mut self,
        i: usize,
        workload: Workload,
        recorded: &[Packet],
        from: usize,
        first_packet: u64,
    ) -> Result<super::runner::PassStat, RunError> {
        let (runner, result) = (&mut self.runners[i], &mut self.results[i]);
        let (timer, stats) = (&self.timer, self.stats.vec());
        let name = result.name;
        let failed = |what: String| in_window(name, first_packet, what);
        let mut tries = 0;
        let none = Aggregate::new();
        loop {
            tries += 1;
            let again = tries > 1 && workload == Workload::Selective;
            let (_, after, before) =
                view(&self.fed, &self.source, i).aggregates(runner.grain(), &none);
            if again {
                self.retry_aggregate = before.clone();
                self.retry_aggregate.reserve(after.symbol_count());
            }
            self.checksum.reset();
            let mut io = PassIo {
                packets: recorded,
                from,
                aggregate: if again {
                    &mut self.retry_aggregate
                } else {
                    &mut result.batch_aggregate
                },
                checksum: &mut self.checksum,
            };
            let counter = &mut self.instructions;
            let ((pass, counted), taken) = observe(|| {
                count(counter, name, workload, || {
                    runner.pass(workload, Timing::Window, &mut io, timer, stats)
                })
            });
            result.timed_faults += taken.faults;
            result.preempted += taken.switches;
            let pass =
                pass.map_err(|e| failed(format!("the batch {} failed: {e}", workload.name())))?;
            if again && self.retry_aggregate != *after {
                self.retry_disagreed[i].get_or_insert(first_packet);
            }
            let retries = counter.as_ref().is_none_or(|c| c.allows_retries());
            if !retries || !retime(taken, tries) {
                // The pass kept is the one counted (a counter that fails to read, or was shared
                // with another event mid-pass, leaves the format without a count).
                if let Some(n) = counted {
                    if let Some(c) = &mut result.instructions {
                        c.count[workload] += n;
                    }
                } else if matches!(counter, Some(instructions::Counter::Pmu(_))) {
                    result.instructions = None;
                }
                return Ok(pass);
            }
            result.retimed += 1;
        }
    }

    /// Format `i`'s untimed work on the window it still holds: when it was encoded both ways,
    /// the batch encode must have written the same bytes as the per-packet one; then the size as
    /// stored, `--verify`, and its allocations counted (a sample of windows, `measure::allocations`).
    fn after_window(&mut self, i: usize, span: Span<'_>) -> Result<(), RunError> {
        let windowed = self.runners[i].grain() == Grain::Window;
        let span = if windowed { whole(span) } else { span };
        encodes_agree(self.runners[i].as_ref(), self.results[i].name, span)?;
        let messages = view(&self.fed, &self.source, i).messages;
        let bytes = self.runners[i].buffer().len();
        self.footprints[i].learn(bytes, span.packets.len(), messages);
        let repeated = self.take_out_repeats(i)?;
        let (packets, skip, first_packet) = (span.packets, span.skip, span.first_packet);
        let (runner, result) = (&mut self.runners[i], &mut self.results[i]);
        // Size as stored: the whole window compressed, if the mode picks it (measure::stored).
        let encoded = (bytes as u64).saturating_sub(repeated);
        // An A/A twin's bytes are its original's: not compressed again (no size as stored).
        let stored = if self.config.stored.compresses(self.id) && result.twin_of().is_none() {
            let compress_start = Instant::now();
            let stored = self
                .compressors
                .measure(runner.buffer())
                .map_err(RunError::Compress)?;
            self.compress_ns += compress_start.elapsed().as_nanos() as u64;
            Some(stored)
        } else {
            None
        };
        result.stored.add(self.id, encoded, stored.as_ref());
        if self.config.verify {
            let verify_start = Instant::now();
            // A window format's buffer holds the packets after the warm-up (its warm-up's own
            // window when there are none).
            let (source, first) = if windowed && skip < packets.len() {
                (&packets[skip..], first_packet + skip as u64)
            } else {
                (packets, first_packet)
            };
            verify_window(runner.as_mut(), source, first, &mut self.decoded)?;
            self.verify_ns += verify_start.elapsed().as_nanos() as u64;
        }
        if let (Some(counter), Some(tally)) = (&mut self.counter, &mut result.allocations) {
            if !allocations::counts(self.id, tally) {
                return Ok(());
            }
            let symbols = self.reference.symbol_count();
            counter
                .count(
                    runner.as_mut(),
                    &packets[skip..],
                    symbols,
                    &self.timer,
                    tally,
                )
                .map_err(|e| {
                    let what = format!(
                        "the {} counting allocations failed: {}",
                        e.workload.name(),
                        e.cause
                    );
                    in_window(result.name, first_packet, what)
                })?;
        }
        Ok(())
    }

    /// A control's window holds its original's units and the repeats planted among them: what
    /// the repeats added to its encoded bytes and messages, counted from its whole window as any
    /// format's are, is taken back out, so that its counts are per unit of the source like its
    /// figures timed whole (its latencies are its window's, repeats included). The repeats'
    /// bytes are theirs as the control encodes them alone, untimed: a control's format is no
    /// stream format, so a packet's bytes do not depend on the packets before it. Their messages
    /// are the window's less the source's. Returns the bytes taken out (0 for any other format).
    fn take_out_repeats(&mut self, i: usize) -> Result<u64, RunError> {
        let Some(fed) = self.fed[i].as_ref().filter(|f| !f.repeats.is_empty()) else {
            return Ok(0);
        };
        let (runner, result) = (&mut self.runners[i], &mut self.results[i]);
        let (mut sink, mut checksum) = (Aggregate::new(), Checksum::default());
        let mut io = PassIo::new(&fed.repeats, &mut sink, &mut checksum);
        untimed(runner.as_mut(), Workload::Encode, &mut io, &self.timer).map_err(|e| {
            RunError::Disagree {
                format: result.name,
                what: format!("the untimed encode of a window's repeats failed: {e}"),
            }
        })?;
        let bytes = runner.batch_buffer().len() as u64;
        let messages = fed.view.messages.saturating_sub(self.source.messages);
        result.encoded_bytes = result.encoded_bytes.saturating_sub(bytes);
        result.messages_encoded = result.messages_encoded.saturating_sub(messages);
        Ok(bytes)
    }

    /// `work` on format `i`'s window as it is fed: the source's `span`, or its own ([`Fed`]),
    /// lent out of `self` for the call (and put back whatever `work` returns).
    fn with_fed<T>(
        &mut self,
        i: usize,
        span: Span<'_>,
        work: impl for<'a> FnOnce(&mut Self, Span<'a>) -> Result<T, RunError>,
    ) -> Result<T, RunError> {
        let Some(fed) = self.fed[i].as_mut() else {
            return work(self, span);
        };
        let (packets, skip) = (std::mem::take(&mut fed.packets), fed.skip);
        let out = work(
            self,
            Span {
                packets: &packets,
                skip,
                ..span
            },
        );
        if let Some(fed) = self.fed[i].as_mut() {
            fed.packets = packets;
        }
        out
    }

    /// Refuses a warm-up longer than the input's first chunk, once that chunk is over (all of it
    /// this process reads): it would record from the next chunk on, or, in a share that holds
    /// only the first chunk (`--jobs`, `--shard`), leave the merged run a share with nothing
    /// recorded and exit 0.
    fn warmup_fits(&self) -> Result<(), RunError> {
        let why = ", within which the warm-up is taken";
        self.first_chunk_holds("--warmup", self.config.warmup, why)
    }

    /// Refuses a `--window` longer than the input's first chunk, once that chunk is over: a
    /// window never spans two chunks, so every window would be a whole chunk, not what was asked.
    fn window_fits(&self) -> Result<(), RunError> {
        let why = " and a window never spans two chunks";
        self.first_chunk_holds("--window", self.config.window as u64, why)
    }

    /// `Err` naming `option` when `asked` units are more than the first chunk held (`self.packets`
    /// once it is over), `why` saying what that chunk is to the option.
    fn first_chunk_holds(&self, option: &str, asked: u64, why: &str) -> Result<(), RunError> {
        if asked <= self.packets {
            return Ok(());
        }
        Err(RunError::Config(format!(
            "{option} {asked} is longer than the input's first chunk ({} {}s){why}: give at most \
             {}, or a larger --chunk",
            self.packets,
            self.config.unit.name(),
            self.packets
        )))
    }

    /// The run's closing checks and figures.
    fn finish(
        self,
        window: &Window,
        capture_bytes: u64,
        wall_ns: u64,
    ) -> Result<Outcome, RunError> {
        let unit = self.config.unit.name();
        // A share may hold nothing (more shares than the input has chunks): the merge decides
        // whether the whole measured anything.
        let whole = self.config.chunking.share.is_whole();
        if self.packets == 0 && whole {
            return Err(RunError::Config(format!(
                "the input holds no IEX {unit} to time: there is nothing to measure",
            )));
        }
        if self.units_per_packet + self.units_batch == 0 && whole {
            return Err(RunError::Config(format!(
                "--warmup {} leaves nothing to record: the input has {} {unit}s",
                self.config.warmup, self.packets
            )));
        }
        // A share that ended in the input's first chunk saw all of that chunk it will see.
        if self.id.chunk == 0 && self.windows > 0 {
            self.warmup_fits()?;
        }
        // Each format against its view's references: one fed a window of its own against that
        // window's (a lossy format against what it carries of the same packets, a control
        // against its repeats too, its messages counted per unit of the source, see
        // `take_out_repeats`).
        let none = Aggregate::new();
        for (i, result) in self.results.iter().enumerate() {
            let grain = self.runners[i].grain();
            let (per_packet, batch, _) = view(&self.fed, &self.source, i).aggregates(grain, &none);
            cross_check([result], per_packet, batch, self.messages)?;
        }
        let retried =
            (self.retry_disagreed.iter().enumerate()).find_map(|(i, at)| at.map(|at| (i, at)));
        if let Some((i, at)) = retried {
            return Err(in_window(
                self.results[i].name,
                at,
                "the batch selective decode, timed again after a context switch, aggregated \
                 otherwise than the source"
                    .into(),
            ));
        }
        if self.aggregate_floor.aggregate() != &self.source.batch {
            return Err(RunError::Disagree {
                format: "the aggregation floor",
                what: "it aggregated otherwise than the reference".into(),
            });
        }
        Ok(Outcome {
            formats: self.results,
            reference: self.reference,
            packets: self.segments,
            messages: self.messages,
            unit: self.config.unit,
            units_recorded: self.units_per_packet,
            units_batch: self.units_batch,
            timing: self.config.timing,
            order_seed: self.config.order_seed,
            unknown: window.unknown,
            feed: window.feeds.name(),
            timer_overhead_ns: self.timer.overhead_ns,
            clock: self.timer.source,
            capture_bytes,
            dropped_bytes: None,
            wall_ns,
            parse_ns: self.parse_ns,
            timed_ns: self.passes.total(),
            passes: self.passes,
            compress_ns: self.compress_ns,
            stored: self.config.stored,
            verify_ns: self.verify_ns,
            memcpy: self.floor.stats,
            memcpy_batch: self.floor.batch,
            memcpy_faults: self.floor.faults,
            aggregate_batch: self.aggregate_floor.batch,
            aggregate_faults: self.aggregate_floor.faults,
            clock_step_ns: self.timer.step_ns,
            chunking: self.config.chunking,
            cover: Cover::default(),
            workers: Vec::new(),
            elapsed_ns: wall_ns,
        })
    }
}

/// `runner`'s buffers sized for its window of `packets` holding `messages` (the window it is
/// fed), so that no timed pass grows one. In the first window, or one unlike any seen, an encode,
/// untimed, first learns how much room the format's encoding needs ([`Footprint`]); in the
/// first, every pass runs once, untimed, so that the format's own buffers and scratch reach their
/// size before anything is timed.
fn ready(
    runner: &mut dyn Runner,
    footprint: &mut Footprint,
    timer: &Timer,
    packets: &[Packet],
    messages: u64,
) {
    let first = footprint.is_empty();
    if first || footprint.unlike(packets.len(), messages) {
        let (mut sink, mut checksum) = (Aggregate::new(), Checksum::default());
        let mut io = PassIo::new(packets, &mut sink, &mut checksum);
        let mut stats = Vec::with_capacity(packets.len());
        let _ = untimed(runner, Workload::Encode, &mut io, timer);
        footprint.learn(runner.batch_buffer().len(), packets.len(), messages);
        if first {
            // Both timings, since their code and stack pages are mapped on first use. A decode
            // error here is found again, and reported, by the timed passes.
            let timings = match runner.grain() {
                Grain::Packet => &Timing::ALL[..],
                Grain::Window => &[Timing::Window][..],
            };
            for &timing in timings {
                for workload in Workload::ALL {
                    stats.clear();
                    let _ = runner.pass(workload, timing, &mut io, timer, &mut stats);
                }
            }
        }
    }
    runner.reserve(footprint.room(packets.len(), messages));
}

/// One pass of `workload` over `io` for untimed work: timed whole, its time not kept.
fn untimed(
    runner: &mut dyn Runner,
    workload: Workload,
    io: &mut PassIo<'_>,
    timer: &Timer,
) -> Result<super::runner::PassStat, crate::formats::DecodeError> {
    runner.pass(workload, Timing::Window, io, timer, &mut Vec::new())
}

/// When `runner` (named `name`) encoded `span` both ways, the batch encode must have written the
/// same bytes as the per-packet one.
fn encodes_agree(runner: &dyn Runner, name: &'static str, span: Span<'_>) -> Result<(), RunError> {
    let Span {
        packets,
        skip,
        first_packet,
        timed,
        ..
    } = span;
    let whole = runner.buffer();
    let batch = runner.batch_buffer();
    // A stream format's batch stream starts after the warm-up, the per-packet one before it:
    // their bytes differ legitimately there (e.g. symbols announced again), so they are
    // compared only in a window with no warm-up, where both streams start together.
    let comparable = !runner.stream() || skip == 0;
    if timed == Plan::BOTH
        && comparable
        && (batch.len() > whole.len() || whole[whole.len() - batch.len()..] != *batch)
    {
        let what = format!(
            "the batch encode of packets {} to {} wrote other bytes than the per-packet encode \
             ({} bytes, not {})",
            first_packet + skip as u64,
            first_packet + packets.len() as u64 - 1,
            batch.len(),
            whole.len()
        );
        return Err(in_window(name, first_packet, what));
    }
    Ok(())
}

/// `work`, counted by `counter` where there is one.
fn count<R>(
    counter: &mut Option<instructions::Counter>,
    format: &'static str,
    workload: Workload,
    work: impl FnOnce() -> R,
) -> (R, Option<u64>) {
    match counter {
        Some(c) => c.count(format, workload, work),
        None => (work(), None),
    }
}

/// `span` as a window format ([`Grain::Window`]) is timed in it: whole, never per packet.
fn whole(span: Span<'_>) -> Span<'_> {
    Span {
        timed: Plan::WINDOW,
        ..span
    }
}

/// The slots of each window's order that are not formats: the memcpy and aggregation floors.
const FLOORS: usize = 2;

/// The gate of the gunzip thread, closed while this lives.
struct Closed<'g>(&'g Gate);

impl<'g> Closed<'g> {
    fn new(gate: &'g Gate) -> Closed<'g> {
        gate.close();
        Closed(gate)
    }
}

impl Drop for Closed<'_> {
    fn drop(&mut self) {
        self.0.open();
    }
}

/// The error for a pass timed per unit that failed: a packet before it that used other bytes
/// than the encoder wrote is the cause to name (see [`PassCheck::ends_agree`]); else the packet
/// after the last decoded.
fn decode_error(check: PassCheck<'_>, cause: crate::formats::DecodeError) -> RunError {
    if let Err(wrong_length) = check.ends_agree() {
        return wrong_length;
    }
    let at = check.stats.len();
    RunError::Decode {
        format: check.format,
        packet: check.first_packet + at as u64,
        seq: check.packets.get(at).map_or(0, |p| p.seq),
        cause,
    }
}

#[cfg(test)]
mod tests {
    use super::super::checks::tests::{run_over, Broken, SIZE};
    use super::super::runner::runner;
    use super::super::schedule::Schedule;
    use super::*;
    use crate::formats::dbn::Dbn;

    #[test]
    fn a_window_of_heartbeats_does_not_make_the_next_busy_window_reserve_gigabytes() {
        // 512 heartbeats (a 40-byte header each, no message), then 512 packets of 40 messages
        // of 50 bytes: what bytes per message alone learned as 20 KB a message (400 MB here).
        let mut f = Footprint::default();
        assert!(f.is_empty());
        f.learn(512 * 40, 512, 0);
        assert!(!f.is_empty());
        let (packets, messages) = (512, 512 * 40);
        let busy = packets * 40 + messages as usize * 50;
        assert!(
            f.room(packets, messages) < 4 * busy,
            "{}",
            f.room(packets, messages)
        );
        // ... and it is unlike any window learned from, so it is encoded once untimed first.
        assert!(f.unlike(packets, messages));
        f.learn(busy, packets, messages);
        assert!(!f.unlike(packets, messages) && f.room(packets, messages) >= busy);
        // The rate bounds a window of heartbeats again, and a quieter mix, from above.
        assert!(f.room(512, 0) >= 512 * 40 && f.room(512, 512) >= 512 * 90);
        assert!(!f.unlike(512, 512 * 30));
    }

    /// A run of `formats` over `packets` synthetic packets in windows of 512, timed `timing`
    /// after `warmup` units.
    fn run_of(formats: &[&str], packets: u64, timing: Schedule, warmup: u64) -> Outcome {
        let bytes = super::super::synthetic_capture(packets);
        let config = Config {
            formats: Some(formats.iter().map(|f| f.to_string()).collect()),
            window: 512,
            warmup,
            timing,
            ..Config::default()
        };
        run(IexReader::new(&bytes[..], false).unwrap(), &config, |_| {}).unwrap()
    }

    #[test]
    fn alternate_timing_splits_the_windows_and_still_counts_every_message() {
        // 3000 segments: 6 windows of 512 (the last short); warm-up 100 ends in window 0.
        let alt = run_of(&["raw", "json"], 3_000, Schedule::Alternate, 100);
        let both = run_of(&["raw", "json"], 3_000, Schedule::Both, 100);
        let recorded = both.units_recorded;
        assert_eq!(both.units_batch, recorded);
        assert_eq!(alt.units_recorded + alt.units_batch, recorded + 412);
        // Window 0 both ways (412 recorded); then windows 2 and 4 per packet, 1, 3, 5 whole.
        assert!(
            alt.units_batch > 412 && alt.units_recorded > 412,
            "{} {}",
            alt.units_batch,
            alt.units_recorded
        );
        for (a, b) in alt.formats.iter().zip(&both.formats) {
            // Every message was encoded and counted, and the sizes agree whichever pass wrote
            // the bytes.
            assert_eq!(a.messages_encoded, alt.messages);
            assert_eq!(a.encoded_bytes, b.encoded_bytes, "{}", a.name);
            // A control's latencies are its window's, one unit in 20 repeated (give or take
            // one a window); its figures timed whole are per unit of the source.
            let repeats = |n: u64| match a.planted() {
                Some(p) if p > 0.0 => n / 20,
                _ => 0,
            };
            for w in Workload::ALL {
                let (got, want) = (a.latency[w].hist.len(), alt.units_recorded);
                assert!(got.abs_diff(want + repeats(want)) <= 6, "{} {got}", a.name);
                assert_eq!(a.throughput[w].packets, alt.units_batch);
                let (got, want) = (b.latency[w].hist.len(), recorded);
                assert!(got.abs_diff(want + repeats(want)) <= 6, "{} {got}", b.name);
            }
            assert!(a.messages_batch > 0 && a.messages_batch < b.messages_batch);
        }
        assert_eq!(alt.memcpy.hist.len(), alt.units_recorded);
        assert_eq!(alt.memcpy_batch.packets, alt.units_batch);
        // Half the timed work, give or take the windows' sizes.
        let encode = Workload::Encode;
        assert!(alt.passes.window[encode] > 0 && alt.passes.per_unit[encode] > 0);
        // Six windows of 512 packets, each timed whole: three passes per format.
        let tries = u64::from(super::super::interference::TRIES - 1);
        for f in &both.formats {
            assert!(f.retimed <= tries * 6 * 3, "{}: {}", f.name, f.retimed);
        }
        // Preempted at least as often as retimed, the clock's step within a read pair's bounds,
        // the floor's time above 0: tests/it/run.rs, `run_matches_an_independent_summary...`.
        assert_eq!(both.aggregate_batch.packets, both.units_batch);
        assert!(both.passes.aggregate >= both.aggregate_batch.ns);
        // Under --timing alternate, the floor rests on the windows timed whole only.
        assert_eq!(alt.aggregate_batch.packets, alt.units_batch);
        assert!(alt.units_batch < 3_000);
    }

    /// Their names, order, planted work, bytes and size as stored in a run's rows:
    /// tests/it/run.rs (`run_matches_an_independent_summary_and_writes_sound_csv` and
    /// `twins_can_be_chosen_and_a_twin_of_nothing_is_refused`).
    #[test]
    fn twins_are_measured_and_checked_like_their_originals() {
        let o = run_of(&["json", "sbe", "raw"], 3_000, Schedule::Both, 0);
        assert_eq!(o.formats.len(), 7);
        for twin in &o.formats[3..] {
            let original = twin.twin_of().unwrap();
            let f = o.formats.iter().find(|f| f.name == original).unwrap();
            // The same work, checked the same way (the run passed every check for both); a
            // control's, with every 20th unit repeated, counted per unit of the source.
            assert_eq!(twin.encoded_bytes, f.encoded_bytes);
            assert_eq!(twin.messages_encoded, o.messages);
            assert_eq!(twin.messages_batch, f.messages_batch);
            let recorded = f.latency[Workload::Encode].hist.len();
            let repeats = match twin.planted() {
                Some(0.0) => {
                    assert_eq!(twin.batch_aggregate, f.batch_aggregate);
                    0
                }
                // One chunk of 3,000 units: those after the warm-up, one in 20 repeated.
                _ => {
                    let (a, b) = (&twin.batch_aggregate, &f.batch_aggregate);
                    assert!(a.packets > b.packets && a.messages > b.messages);
                    let feed = crate::measure::fed::Feed::of(None, true).unwrap();
                    feed.repeats_in(3_000 - recorded, recorded as usize) as u64
                }
            };
            for w in Workload::ALL {
                assert_eq!(twin.latency[w].hist.len(), recorded + repeats);
                assert_eq!(twin.throughput[w].packets, f.throughput[w].packets);
                assert!(twin.throughput[w].ns > 0);
            }
        }
    }

    #[test]
    fn a_lossy_format_is_checked_against_what_it_carries_and_fails_when_wrong() {
        // Right: every check passes against the projection, after a warm-up (whose batch stream
        // announces symbols again: bytes that differ from the per-packet stream's, legitimately),
        // and under --verify.
        let timing = Schedule::Both;
        let both = |warmup, verify| Config {
            warmup,
            verify,
            timing,
            ..Config::default()
        };
        let o = run_over(vec![runner::<Dbn>()], both(100, true)).unwrap();
        assert_eq!(o.formats[0].messages_encoded, o.messages);
        // The projection is not the source: its checksum differs on these packets, so the
        // checks above really used it.
        let bytes = super::super::synthetic_capture(3_000);
        let mut reader = IexReader::new(&bytes[..], false).unwrap();
        let mut window = Window::default();
        window
            .fill(&mut reader, 512, Config::default().unit)
            .unwrap();
        let project = crate::formats::dbn::projection::project;
        let projected: Vec<Packet> = window.packets().iter().map(project).collect();
        assert_ne!(Checksum::of(window.packets()), Checksum::of(&projected));
        // Wrong in a field it carries: the complete decode's check fails, naming the field.
        // (`dbn` whose complete decode reads each size one more.)
        let late = runner::<Broken<SIZE, Dbn>>();
        let e = run_over(vec![late], both(0, false)).err().unwrap();
        let e = e.to_string();
        assert!(e.starts_with("broken: ") && e.contains("size"), "{e}");
    }

    /// The other refusals (`--window` out of range, `--warmup` past the input):
    /// tests/it/cli_errors.rs, `run_refuses_settings_that_measure_nothing`.
    #[test]
    fn an_empty_format_list_is_refused_and_the_largest_window_taken() {
        let e = Config {
            formats: Some(vec![]),
            ..Config::default()
        };
        let e = e.check().unwrap_err().to_string();
        assert!(e.contains("names no format"), "{e}");
        assert!(Config {
            window: MAX_WINDOW,
            ..Config::default()
        }
        .check()
        .is_ok());
    }
}
