//! The shootout loop: parse once, feed identical windows of packets to every format, time each
//! packet's serialize and deserialize, then check everything outside the timed regions.

use std::io::Read;
use std::time::Instant;

use crate::error::Error;
use crate::formats::{aggregate::visit_packet, Aggregate, Checksum, DecodeError};
use crate::model::Packet;
use crate::output::Tick;
use crate::stream::IexReader;

use super::clock::Timer;
use super::floor::MemcpyFloor;
use super::memory::{count_faults, Written};
use super::order::Order;
use super::outcome::{Outcome, Passes};
use super::runner::{self, Batch, PacketStat, Runner};
use super::schedule::{Plan, Schedule};
use super::stats::{FormatResult, Latency, Throughput};
use super::stored::{Compressors, StoredMode};
use super::verify;
use super::window::{Unit, Window};
use super::workload::Workload;

/// Packets per window: large enough that switching formats is rare, small enough that every
/// format's buffers stay in a few hundred KB whatever the file size (see docs/BENCHMARKS.md,
/// "Window size").
pub const DEFAULT_WINDOW: usize = 4096;

/// The largest `--window`: a million packets already hold every format's buffers at hundreds of
/// MB; beyond that a window only costs memory.
pub const MAX_WINDOW: usize = 1 << 20;

#[derive(Debug, Clone)]
pub struct Config {
    /// Format names to run, in registry order; `None` for all.
    pub formats: Option<Vec<String>>,
    /// Decode every packet back into the model and compare field by field.
    pub verify: bool,
    /// Packets run through every format before times are recorded.
    pub warmup: u64,
    pub window: usize,
    /// Which windows are compressed (zstd, zlib) for the size as stored: a sample (default),
    /// all, or none. Compression is the slowest part of a long run (zlib -6 especially), untimed;
    /// with none, the size columns stay empty.
    pub stored: StoredMode,
    /// What one timed sample is: an IEX-TP packet or one IEX message. `warmup` and `window`
    /// count these units.
    pub unit: Unit,
    /// Whether each window is timed both per packet and whole, or one of the two in turn.
    pub timing: Schedule,
    /// Seeds the order the formats take their turns in (see [`super::order`]); the same seed
    /// gives the same orders.
    pub order_seed: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            formats: None,
            verify: false,
            warmup: 0,
            window: DEFAULT_WINDOW,
            stored: StoredMode::Sample,
            unit: Unit::Packet,
            timing: Schedule::Alternate,
            order_seed: 0,
        }
    }
}

impl Config {
    /// Refuses settings under which a run would measure nothing or could not allocate its
    /// window, before anything is read.
    pub fn check(&self) -> Result<(), RunError> {
        if self.window == 0 || self.window > MAX_WINDOW {
            return Err(RunError::Config(format!(
                "--window {} is out of range: a window holds 1 to {MAX_WINDOW} packets",
                self.window
            )));
        }
        if self.formats.as_ref().is_some_and(|f| f.is_empty()) {
            return Err(RunError::Config(
                "--formats names no format: nothing would be measured".into(),
            ));
        }
        Ok(())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Input(#[from] Error),
    #[error("{0}")]
    Config(String),
    #[error("unknown format {name:?}; known: {known}")]
    UnknownFormat { name: String, known: String },
    #[error("{format}: cannot decode packet {packet} (seq {seq}): {cause}")]
    Decode {
        format: &'static str,
        packet: u64,
        seq: u64,
        cause: DecodeError,
    },
    #[error("{format}: packet {packet} (seq {seq}) decodes differently from the source: {field} should be {expected}, is {got}")]
    Mismatch {
        format: &'static str,
        packet: u64,
        seq: u64,
        field: String,
        expected: String,
        got: String,
    },
    #[error("{format}: {what}")]
    Disagree { format: &'static str, what: String },
    #[error("compressing for size as stored: {0}")]
    Compress(std::io::Error),
    /// A `--jobs` worker failed, or the workers disagree (see `measure::jobs`).
    #[error("{0}")]
    Worker(String),
}

impl From<std::io::Error> for RunError {
    fn from(e: std::io::Error) -> Self {
        RunError::Compress(e)
    }
}

/// Picks the runners named in `config`, in registry order.
pub fn select(config: &Config) -> Result<Vec<Box<dyn Runner>>, RunError> {
    config.check()?;
    let all = runner::registry();
    let Some(wanted) = &config.formats else {
        return Ok(all);
    };
    let known: Vec<&str> = all.iter().map(|r| r.name()).collect();
    if let Some(bad) = wanted.iter().find(|w| !known.contains(&w.as_str())) {
        return Err(RunError::UnknownFormat {
            name: bad.clone(),
            known: known.join(", "),
        });
    }
    Ok(all
        .into_iter()
        .filter(|r| wanted.iter().any(|w| w == r.name()))
        .collect())
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
    let mut shootout = Shootout::new(runners, config)?;
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
    Ok(outcome)
}

/// Where each format's encoding of one packet may need room: the most bytes per message and per
/// packet it has written so far, so its buffers can be sized before a window is timed.
#[derive(Debug, Clone, Copy, Default)]
struct Footprint {
    per_message: f64,
    per_packet: f64,
}

impl Footprint {
    fn learn(&mut self, bytes: usize, packets: usize, messages: u64) {
        self.per_message = self.per_message.max(bytes as f64 / messages.max(1) as f64);
        self.per_packet = self.per_packet.max(bytes as f64 / packets.max(1) as f64);
    }

    /// Room for a window of `packets` and `messages`, with headroom for an unusual window.
    fn room(&self, packets: usize, messages: u64) -> usize {
        let need = (self.per_message * messages as f64).max(self.per_packet * packets as f64);
        (need * 1.5) as usize + 64 * 1024
    }
}

/// The reference a window is checked against: computed straight from the parsed packets.
#[derive(Default)]
struct Expected {
    /// The complete-decode checksum's running value after each packet of the window.
    checks: Vec<u64>,
    /// The checksum of the packets after the warm-up (what a batch complete decode must give).
    batch_check: u64,
    /// Messages after the warm-up.
    batch_messages: u64,
    /// Messages in the whole window.
    messages: u64,
}

/// The state of one run between windows: the formats, what they measured, the references.
struct Shootout<'c> {
    config: &'c Config,
    runners: Vec<Box<dyn Runner>>,
    results: Vec<FormatResult>,
    footprints: Vec<Footprint>,
    timer: Timer,
    /// Aggregation of every packet; of the packets of the windows timed per packet; and of the
    /// packets after the warm-up in the windows timed whole: what each pass's aggregate must be.
    reference: Aggregate,
    reference_per_packet: Aggregate,
    reference_batch: Aggregate,
    expected: Expected,
    checksum: Checksum,
    stats: Written<PacketStat>,
    /// Where each packet's encoding ends in the buffer, as the per-packet encode wrote it.
    ends: Written<usize>,
    decoded: Vec<Packet>,
    compressors: Compressors,
    floor: MemcpyFloor,
    order: Order,
    /// This window's order: format indices, `runners.len()` for the floor.
    turns: Vec<usize>,
    /// Windows done: the next window's index (which `Config::stored` samples by).
    windows: u64,
    /// Units so far (packets or messages, see `Config::unit`).
    packets: u64,
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
        let results = runners
            .iter()
            .map(|r| FormatResult::new(r.name()))
            .collect();
        Ok(Shootout {
            config,
            footprints: vec![Footprint::default(); runners.len()],
            order: Order::new(runners.len() + 1, config.order_seed),
            turns: Vec::with_capacity(runners.len() + 1),
            runners,
            results,
            timer: Timer::calibrate(),
            reference: Aggregate::new(),
            reference_per_packet: Aggregate::new(),
            reference_batch: Aggregate::new(),
            expected: Expected::default(),
            checksum: Checksum::default(),
            stats: Written::default(),
            ends: Written::default(),
            decoded: Vec::new(),
            compressors: Compressors::new()?,
            floor: MemcpyFloor::default(),
            windows: 0,
            packets: 0,
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
        // Packets of this window whose times count (the rest are warm-up).
        let skip = self
            .config
            .warmup
            .saturating_sub(self.packets)
            .min(n as u64) as usize;
        let first_recorded = self.units_per_packet + self.units_batch == 0;
        let timed = Plan::new(self.config.timing, self.windows, skip, n, first_recorded);
        self.prepare(window, skip, timed);

        // Every format meets every neighbour equally often (see `measure::order`); the memcpy
        // floor takes its turn as slot `count`.
        let count = self.runners.len();
        self.turns.clear();
        self.turns.extend_from_slice(self.order.next_window());
        for k in 0..=count {
            let i = self.turns[k];
            if i == count {
                self.passes.floor +=
                    self.floor
                        .measure(packets, skip, timed, &self.timer, self.stats.vec());
            } else {
                self.measure_format(i, packets, skip, first_packet, timed)?;
            }
        }

        // Untimed work on every format's window comes after all the timed work: between two
        // timed regions it would evict their caches (compression between SBE's encode and decode
        // tripled its serialize p50). Each runner still holds this window's encoding.
        for i in 0..count {
            self.after_window(i, packets, skip, first_packet, timed)?;
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
        self.messages += window.messages;
        Ok(())
    }

    /// The references for this window, and every buffer and map sized so that no timed pass
    /// grows one.
    fn prepare(&mut self, window: &Window, skip: usize, timed: Plan) {
        let packets = window.packets();
        for p in packets {
            visit_packet(p, &mut self.reference);
        }
        if timed.per_unit {
            for p in packets {
                visit_packet(p, &mut self.reference_per_packet);
            }
        }
        if timed.window {
            for p in &packets[skip..] {
                visit_packet(p, &mut self.reference_batch);
            }
        }
        let e = &mut self.expected;
        e.checks.clear();
        if timed.per_unit {
            let mut c = Checksum::default();
            for p in packets {
                c.visit(p);
                e.checks.push(c.value());
            }
        }
        e.batch_check = if timed.window {
            Checksum::of(&packets[skip..]).value()
        } else {
            0
        };
        e.messages = window.messages;
        e.batch_messages = packets[skip..]
            .iter()
            .map(|p| p.messages.len() as u64)
            .sum();

        let symbols = self.reference.symbol_count();
        for (i, runner) in self.runners.iter_mut().enumerate() {
            if self.footprints[i].per_packet == 0.0 {
                // First window: every pass once, untimed, so that the format's own buffers and
                // scratch reach their size before anything is timed, and to learn how much room
                // its encoding needs.
                runner.encode_batch(packets, &self.timer);
                self.footprints[i].learn(
                    runner.batch_buffer().len(),
                    packets.len(),
                    window.messages,
                );
                // Both kinds of pass, since their code and stack pages are mapped on first use.
                let mut stats = Vec::with_capacity(packets.len());
                runner.encode_window(packets, &self.timer, &mut stats);
                let (mut sink, mut checksum) = (Aggregate::new(), Checksum::default());
                // A decode error here is found again, and reported, by the timed passes.
                let _ = runner.decode_batch(0, &mut sink, &self.timer);
                let _ = runner.decode_all_batch(0, &mut checksum, &self.timer);
                stats.clear();
                let _ = runner.decode_window(&mut sink, &self.timer, &mut stats);
                stats.clear();
                let _ = runner.decode_all_window(&mut checksum, &self.timer, &mut stats);
            }
            runner.reserve(self.footprints[i].room(packets.len(), window.messages));
            self.results[i].aggregate.reserve(symbols);
            self.results[i].batch_aggregate.reserve(symbols);
        }
        self.stats.reserve(packets.len());
        self.ends.reserve(packets.len());
    }

    /// Format `i`'s timed passes over the window: encode, selective decode and complete decode,
    /// per packet (latency) and/or per window (throughput) as `timed` says, each checked.
    fn measure_format(
        &mut self,
        i: usize,
        packets: &[Packet],
        skip: usize,
        first_packet: u64,
        timed: Plan,
    ) -> Result<(), RunError> {
        // Where the packets after the warm-up start in the buffer the decodes read.
        let mut from = 0;
        if timed.per_unit {
            from = self.per_packet(i, packets, skip, first_packet)?;
        }
        if timed.window {
            self.batch(i, &packets[skip..], from, first_packet, timed)?;
        }
        Ok(())
    }

    /// Format `i`'s passes timed packet by packet, each checked packet by packet: every packet
    /// decoded, each using exactly the bytes its encode wrote, the complete decode's checksum
    /// the source's after every packet. Returns where the packets after the warm-up start.
    fn per_packet(
        &mut self,
        i: usize,
        packets: &[Packet],
        skip: usize,
        first_packet: u64,
    ) -> Result<usize, RunError> {
        let (runner, result) = (&mut self.runners[i], &mut self.results[i]);
        let (timer, stats) = (&self.timer, self.stats.vec());
        let name = result.name;
        let faults = &mut result.timed_faults;
        stats.clear();
        count_faults(faults, || runner.encode_window(packets, timer, stats));
        record_units(
            &mut result.latency[Workload::Encode],
            &mut self.passes.per_unit[Workload::Encode],
            stats,
            skip,
        );
        result.encoded_bytes += runner.buffer().len() as u64;
        let ends = self.ends.vec();
        ends.clear();
        ends.extend(stats.iter().map(|s| s.end));
        let from = if skip == 0 { 0 } else { ends[skip - 1] };
        let decode_error = |pass: Workload, stats: &[PacketStat], cause| {
            if let Err(wrong_length) = ends_agree(name, pass, stats, ends, packets, first_packet) {
                return wrong_length;
            }
            // The packet that failed is the one after the last decoded.
            let at = stats.len();
            RunError::Decode {
                format: name,
                packet: first_packet + at as u64,
                seq: packets.get(at).map_or(0, |p| p.seq),
                cause,
            }
        };

        stats.clear();
        count_faults(faults, || {
            runner.decode_window(&mut result.aggregate, timer, stats)
        })
        .map_err(|cause| decode_error(Workload::Selective, stats, cause))?;
        record_units(
            &mut result.latency[Workload::Selective],
            &mut self.passes.per_unit[Workload::Selective],
            stats,
            skip,
        );
        each_packet_whole(
            name,
            Workload::Selective,
            stats,
            ends,
            packets,
            first_packet,
        )?;

        stats.clear();
        self.checksum.reset();
        count_faults(faults, || {
            runner.decode_all_window(&mut self.checksum, timer, stats)
        })
        .map_err(|cause| decode_error(Workload::Complete, stats, cause))?;
        record_units(
            &mut result.latency[Workload::Complete],
            &mut self.passes.per_unit[Workload::Complete],
            stats,
            skip,
        );
        each_packet_whole(name, Workload::Complete, stats, ends, packets, first_packet)?;
        if let Some(at) = stats
            .iter()
            .zip(&self.expected.checks)
            .position(|(s, e)| s.check != *e)
        {
            let start = if at == 0 { 0 } else { stats[at - 1].end };
            return Err(checksum_mismatch(
                runner.as_mut(),
                start,
                &packets[at],
                first_packet + at as u64,
            ));
        }
        // What the encoder wrote, counted by reading it back: an encoder's own count could only
        // repeat what it believes.
        result.messages_encoded += self.checksum.messages();
        Ok(from)
    }

    /// Format `i`'s passes timed whole over `recorded` (the window's packets after the
    /// warm-up), checked as a whole: every packet and message read, the complete decode's
    /// checksum the source's. The decodes read the buffer from byte `from`.
    fn batch(
        &mut self,
        i: usize,
        recorded: &[Packet],
        from: usize,
        first_packet: u64,
        timed: Plan,
    ) -> Result<(), RunError> {
        let (runner, result) = (&mut self.runners[i], &mut self.results[i]);
        let timer = &self.timer;
        let name = result.name;
        let faults = &mut result.timed_faults;
        let window_error = |what: String| RunError::Disagree {
            format: name,
            what: format!("window starting at packet {first_packet}: {what}"),
        };

        let batch = count_faults(faults, || runner.encode_batch(recorded, timer));
        record_window(
            &mut result.throughput[Workload::Encode],
            &mut self.passes.window[Workload::Encode],
            batch,
        );
        let messages = self.expected.batch_messages;
        if !timed.per_unit {
            // The window's only encode: the decodes read it, and it counts as the window's
            // bytes (no warm-up in such a window, see `Plan::plan`); its messages are counted
            // when the complete decode below has read them back.
            runner.adopt_batch();
            result.encoded_bytes += runner.buffer().len() as u64;
        }

        let batch = count_faults(faults, || {
            runner.decode_batch(from, &mut result.batch_aggregate, timer)
        })
        .map_err(|e| window_error(format!("the batch selective decode failed: {e}")))?;
        record_window(
            &mut result.throughput[Workload::Selective],
            &mut self.passes.window[Workload::Selective],
            batch,
        );
        if batch.packets != recorded.len() {
            return Err(window_error(format!(
                "the batch selective decode read {} packets, the encoder wrote {}",
                batch.packets,
                recorded.len()
            )));
        }

        self.checksum.reset();
        let batch = count_faults(faults, || {
            runner.decode_all_batch(from, &mut self.checksum, timer)
        })
        .map_err(|e| window_error(format!("the batch complete decode failed: {e}")))?;
        record_window(
            &mut result.throughput[Workload::Complete],
            &mut self.passes.window[Workload::Complete],
            batch,
        );
        if batch.packets != recorded.len()
            || self.checksum.value() != self.expected.batch_check
            || batch.messages != messages
        {
            return Err(window_error(format!(
                "the batch complete decode read {} packets and {} messages with checksum \
                 {:#018x}; the source has {} and {messages} with {:#018x}",
                batch.packets,
                batch.messages,
                self.checksum.value(),
                recorded.len(),
                self.expected.batch_check
            )));
        }
        if !timed.per_unit {
            result.messages_encoded += batch.messages;
        }
        result.messages_batch += messages;
        Ok(())
    }

    /// Format `i`'s untimed work on the window it still holds: when it was encoded both ways,
    /// the batch encode must have written the same bytes as the per-packet one; then the size as
    /// stored and `--verify`.
    fn after_window(
        &mut self,
        i: usize,
        packets: &[Packet],
        skip: usize,
        first_packet: u64,
        timed: Plan,
    ) -> Result<(), RunError> {
        let (runner, result) = (&mut self.runners[i], &mut self.results[i]);
        let whole = runner.buffer();
        let batch = runner.batch_buffer();
        if timed == Plan::BOTH
            && (batch.len() > whole.len() || whole[whole.len() - batch.len()..] != *batch)
        {
            return Err(RunError::Disagree {
                format: result.name,
                what: format!(
                    "window starting at packet {first_packet}: the batch encode of packets \
                     {} to {} wrote other bytes than the per-packet encode ({} bytes, not {})",
                    first_packet + skip as u64,
                    first_packet + packets.len() as u64 - 1,
                    batch.len(),
                    whole.len()
                ),
            });
        }
        self.footprints[i].learn(whole.len(), packets.len(), self.expected.messages);
        // Size as stored: the whole window compressed, if the mode picks it (measure::stored).
        let encoded = runner.buffer().len() as u64;
        let stored = if self.config.stored.compresses(self.windows) {
            let compress_start = Instant::now();
            let stored = self.compressors.measure(runner.buffer())?;
            self.compress_ns += compress_start.elapsed().as_nanos() as u64;
            Some(stored)
        } else {
            None
        };
        result.stored.add(self.windows, encoded, stored.as_ref());
        if self.config.verify {
            let verify_start = Instant::now();
            verify_window(runner.as_mut(), packets, first_packet, &mut self.decoded)?;
            self.verify_ns += verify_start.elapsed().as_nanos() as u64;
        }
        Ok(())
    }

    /// The run's closing checks and figures.
    fn finish(
        self,
        window: &Window,
        capture_bytes: u64,
        wall_ns: u64,
    ) -> Result<Outcome, RunError> {
        let unit = self.config.unit.name();
        if self.packets == 0 {
            return Err(RunError::Config(format!(
                "the input holds no IEX {unit} to time: there is nothing to measure",
            )));
        }
        if self.units_per_packet + self.units_batch == 0 {
            return Err(RunError::Config(format!(
                "--warmup {} leaves nothing to record: the input has {} {unit}s",
                self.config.warmup, self.packets
            )));
        }
        cross_check(
            &self.results,
            &self.reference_per_packet,
            &self.reference_batch,
            self.messages,
        )?;
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
            workers: Vec::new(),
            elapsed_ns: wall_ns,
        })
    }
}

/// Records the units after the first `skip` (the warm-up) of a pass timed per unit, and adds
/// the whole pass to `spent`, the time spent timing it.
fn record_units(latency: &mut Latency, spent: &mut u64, stats: &[PacketStat], skip: usize) {
    for s in &stats[skip..] {
        latency.record(s.ns);
    }
    *spent += stats.iter().map(|s| s.ns).sum::<u64>();
}

/// Records a pass timed by the whole window, and adds it to `spent`.
fn record_window(throughput: &mut Throughput, spent: &mut u64, pass: Batch) {
    throughput.add(pass.ns, pass.packets);
    *spent += pass.ns;
}

/// A per-packet decode (`pass`) must report every packet of the window, each ending where the
/// encoder's did: a decoder that stops early, or claims more or fewer bytes than a packet has,
/// is caught here even where its values happen to be right.
fn each_packet_whole(
    format: &'static str,
    pass: Workload,
    stats: &[PacketStat],
    ends: &[usize],
    packets: &[Packet],
    first_packet: u64,
) -> Result<(), RunError> {
    ends_agree(format, pass, stats, ends, packets, first_packet)?;
    if stats.len() != ends.len() {
        return Err(RunError::Disagree {
            format,
            what: format!(
                "window starting at packet {first_packet}: the {} read {} packets, the \
                 encoder wrote {}",
                pass.name(),
                stats.len(),
                ends.len()
            ),
        });
    }
    Ok(())
}

/// The packets decoded so far (`stats`) each ended where the encoder's did. Also asked when a
/// decode fails: a wrong length before it is the cause to name, not the failure it led to.
fn ends_agree(
    format: &'static str,
    pass: Workload,
    stats: &[PacketStat],
    ends: &[usize],
    packets: &[Packet],
    first_packet: u64,
) -> Result<(), RunError> {
    let Some(at) = stats.iter().zip(ends).position(|(s, &e)| s.end != e) else {
        return Ok(());
    };
    let start = if at == 0 { 0 } else { ends[at - 1] };
    Err(RunError::Disagree {
        format,
        what: format!(
            "packet {} (seq {}): the {} used {} bytes, the encoder wrote {}",
            first_packet + at as u64,
            packets[at].seq,
            pass.name(),
            stats[at].end.saturating_sub(start),
            ends[at] - start
        ),
    })
}

/// The error for a packet whose complete decode does not give the source's checksum: decoded
/// back into the model and compared field by field, so the message names the field.
fn checksum_mismatch(
    runner: &mut dyn Runner,
    start: usize,
    expected: &Packet,
    packet: u64,
) -> RunError {
    let format = runner.name();
    match runner.decode_packet_at(start) {
        Ok(got) => match verify::compare(expected, &got) {
            Some(m) => RunError::Mismatch {
                format,
                packet,
                seq: expected.seq,
                field: m.field,
                expected: m.expected,
                got: m.got,
            },
            None => RunError::Disagree {
                format,
                what: format!(
                    "packet {packet} (seq {}): the complete decode's checksum differs from the \
                     source's, yet the packet decodes back equal",
                    expected.seq
                ),
            },
        },
        Err(cause) => RunError::Decode {
            format,
            packet,
            seq: expected.seq,
            cause,
        },
    }
}

/// Decodes the runner's buffer back into packets and compares each with its source.
fn verify_window(
    runner: &mut dyn Runner,
    source: &[Packet],
    first_packet: u64,
    decoded: &mut Vec<Packet>,
) -> Result<(), RunError> {
    decoded.clear();
    let format = runner.name();
    runner
        .decode_packets(decoded)
        .map_err(|source_err| RunError::Decode {
            format,
            packet: first_packet + decoded.len() as u64,
            seq: source.get(decoded.len()).map_or(0, |p| p.seq),
            cause: source_err,
        })?;
    if decoded.len() != source.len() {
        return Err(RunError::Disagree {
            format,
            what: format!(
                "window starting at packet {first_packet} decodes to {} packets, not {}",
                decoded.len(),
                source.len()
            ),
        });
    }
    for (i, (expected, got)) in source.iter().zip(decoded.iter()).enumerate() {
        if let Some(m) = verify::compare(expected, got) {
            return Err(RunError::Mismatch {
                format,
                packet: first_packet + i as u64,
                seq: expected.seq,
                field: m.field,
                expected: m.expected,
                got: m.got,
            });
        }
    }
    Ok(())
}

/// Every format must have carried every message and produced the reference aggregation, in the
/// per-packet passes (`per_packet`: the packets of the windows timed per packet) and in the batch
/// passes (`batch`: the packets after the warm-up of the windows timed whole).
fn cross_check(
    results: &[FormatResult],
    per_packet: &Aggregate,
    batch: &Aggregate,
    messages: u64,
) -> Result<(), RunError> {
    for r in results {
        let disagree = |what: String| RunError::Disagree {
            format: r.name,
            what,
        };
        if r.messages_encoded != messages {
            return Err(disagree(format!(
                "serialized {} messages, the input has {messages}",
                r.messages_encoded
            )));
        }
        for (pass, got, want) in [
            ("", &r.aggregate, per_packet),
            ("batch ", &r.batch_aggregate, batch),
        ] {
            if got.messages != want.messages {
                return Err(disagree(format!(
                    "{pass}deserialized {} messages, the packets it decoded hold {}",
                    got.messages, want.messages
                )));
            }
            if got != want {
                let differing = want
                    .sorted()
                    .into_iter()
                    .find(|(s, v)| got.get(s) != Some(v))
                    .map(|(s, v)| match got.get(&s) {
                        Some(g) => format!("symbol {s}: {}", v.difference(g)),
                        None => format!("symbol {s}: expected {v:?}, got nothing"),
                    })
                    .unwrap_or_else(|| "symbols, packets or sequence numbers differ".to_owned());
                return Err(disagree(format!(
                    "{pass}aggregate differs from the source: {differing}"
                )));
            }
        }
    }
    Ok(())
}

/// Why `run_file` failed: the input (with file and offset), or the shootout itself.
#[derive(Debug, thiserror::Error)]
pub enum RunFileError {
    #[error(transparent)]
    Input(#[from] crate::error::FileError),
    #[error("{path}: {error}")]
    Run { path: String, error: Box<RunError> },
}

/// Runs the shootout over a capture file, with a progress bar on a terminal: all of
/// `shootout run` but writing the results.
pub fn run_file(
    path: &std::path::Path,
    config: &Config,
    lenient: bool,
) -> Result<Outcome, RunFileError> {
    let total = std::fs::metadata(path).map_or(0, |m| m.len());
    let progress = crate::output::RunProgress::new(total);
    let outcome = run_file_with(path, config, lenient, |tick| progress.set(tick));
    progress.finish();
    outcome
}

/// [`run_file`] with `progress` called after each window with the bytes of the file read so far
/// (compressed bytes for a gzip'd file) and the messages parsed.
pub fn run_file_with(
    path: &std::path::Path,
    config: &Config,
    lenient: bool,
    mut progress: impl FnMut(Tick),
) -> Result<Outcome, RunFileError> {
    use crate::source::Compression;

    // Refuse an unknown format before reading anything.
    select(config).map_err(|error| RunFileError::Run {
        path: path.display().to_string(),
        error: Box::new(error),
    })?;
    let crate::stream::Opened {
        reader,
        compression,
        file_bytes: _,
        read,
    } = crate::stream::open(path, lenient)?;
    let outcome = run(reader, config, |tick| {
        progress(Tick {
            file_bytes: read.load(std::sync::atomic::Ordering::Relaxed),
            ..tick
        })
    });
    let gz = compression == Compression::Gzip;
    outcome.map_err(|e| match e {
        RunError::Input(e) => RunFileError::Input(crate::error::FileError::new(path, gz, e)),
        error => RunFileError::Run {
            path: path.display().to_string(),
            error: Box::new(error),
        },
    })
}

#[cfg(test)]
mod tests {
    //! Formats broken on purpose: each must make a default run (no `--verify`) fail with an
    //! error that says what is wrong, so the checks are shown to be able to fail.

    use super::super::runner::FormatRunner;
    use super::*;
    use crate::formats::{raw::Raw, Format, Sink, Visitor};
    use crate::gen::{self, GenOptions};
    use crate::model::{Message, Packet, Side};

    /// What a broken format does to a packet before encoding it with `raw`.
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Fault {
        /// (a) Leaves out the last message of every packet with two or more.
        DropMessage,
        /// (b) Adds 1 to the price of every trade report (a tick inside the day's range).
        TradePrice,
        /// (c) Swaps the first two messages of every packet with two or more.
        SwapMessages,
        /// (d) Adds 1 ns to the timestamp of every price level update.
        Timestamp,
        /// (e) Changes the round lot size of every security directory message.
        AdminField,
        /// None: the control, which must pass.
        Nothing,
    }

    fn apply(fault: Fault, p: &mut Packet) {
        let n = p.messages.len();
        match fault {
            Fault::DropMessage if n >= 2 => {
                p.messages.pop();
            }
            Fault::SwapMessages if n >= 2 => p.messages.swap(0, 1),
            _ => {}
        }
        for m in &mut p.messages {
            match (fault, m) {
                (Fault::TradePrice, Message::TradeReport(t)) => t.price += 1,
                (Fault::Timestamp, Message::PriceLevelUpdate(u)) => u.timestamp += 1,
                (Fault::AdminField, Message::SecurityDirectory(d)) => d.round_lot_size += 1,
                _ => {}
            }
        }
    }

    /// `raw`, with `FAULT` (a [`Fault`] as a number) applied to every packet it encodes.
    #[derive(Default)]
    struct Broken<const FAULT: u8> {
        raw: Raw,
        scratch: Packet,
    }

    impl<const FAULT: u8> Broken<FAULT> {
        const FAULTS: [Fault; 6] = [
            Fault::DropMessage,
            Fault::TradePrice,
            Fault::SwapMessages,
            Fault::Timestamp,
            Fault::AdminField,
            Fault::Nothing,
        ];
    }

    impl<const FAULT: u8> Format for Broken<FAULT> {
        const NAME: &'static str = "broken";

        fn encode(&mut self, packet: &Packet, out: &mut Vec<u8>) -> usize {
            self.scratch.clone_from(packet);
            apply(Self::FAULTS[FAULT as usize], &mut self.scratch);
            self.raw.encode(&self.scratch, out)
        }

        fn decode<K: Sink>(&mut self, bytes: &[u8], sink: &mut K) -> Result<usize, DecodeError> {
            self.raw.decode(bytes, sink)
        }

        fn decode_all<V: Visitor>(
            &mut self,
            bytes: &[u8],
            v: &mut V,
        ) -> Result<usize, DecodeError> {
            self.raw.decode_all(bytes, v)
        }
    }

    /// What a broken decoder does, on top of reading `raw`'s correct bytes.
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum DecodeFault {
        /// (f) The complete decode claims the rest of the window after one packet in 50, so the
        /// window's decode stops early.
        StopEarly,
        /// (g) The complete decode leaves out every trade report's `trade_id` (reads it as 0).
        SkipField,
        /// (h) The selective decode hands over, for a price level strictly inside its symbol's
        /// range so far, another price strictly inside it: sums and extremes stay right.
        NonExtremePrice,
        /// (i) Both decodes swap the first two messages of every packet with two or more.
        SwapMessages,
        /// (j) The complete decode reports one byte more than each packet has.
        MoreBytes,
    }

    /// `raw`'s encoder with a decoder broken as `FAULT` (a [`DecodeFault`] as a number) says.
    #[derive(Default)]
    struct BrokenDecoder<const FAULT: u8> {
        raw: Raw,
        scratch: Packet,
        packets: u64,
        /// The price range seen so far per symbol and side (for `NonExtremePrice`).
        ranges: std::collections::HashMap<([u8; 8], bool), (i64, i64)>,
    }

    impl<const FAULT: u8> BrokenDecoder<FAULT> {
        const FAULTS: [DecodeFault; 5] = [
            DecodeFault::StopEarly,
            DecodeFault::SkipField,
            DecodeFault::NonExtremePrice,
            DecodeFault::SwapMessages,
            DecodeFault::MoreBytes,
        ];
        const FAULT: DecodeFault = Self::FAULTS[FAULT as usize];
    }

    /// Passes a selective decode on to `inner`, moving non-extreme prices (`NonExtremePrice`).
    struct Misprice<'a, K> {
        inner: &'a mut K,
        ranges: &'a mut std::collections::HashMap<([u8; 8], bool), (i64, i64)>,
    }

    impl<K: Sink> Sink for Misprice<'_, K> {
        fn packet(&mut self, seq: u64) {
            self.inner.packet(seq)
        }
        fn trade(&mut self, symbol: &[u8; 8], size: u32, price: i64) {
            self.inner.trade(symbol, size, price)
        }
        fn price_level(&mut self, side: Side, symbol: &[u8; 8], price: i64) {
            let range = self
                .ranges
                .entry((*symbol, side == Side::Buy))
                .or_insert((price, price));
            let (lo, hi) = *range;
            let wrong = if lo < price && price < hi && hi - lo >= 3 {
                if price == lo + 1 {
                    lo + 2
                } else {
                    lo + 1
                }
            } else {
                price
            };
            *range = (lo.min(price), hi.max(price));
            self.inner.price_level(side, symbol, wrong)
        }
        fn add_order(&mut self, side: u8, symbol: &[u8; 8], price: i64) {
            self.inner.add_order(side, symbol, price)
        }
        fn quote(&mut self, symbol: &[u8; 8], bid: i64, ask: i64) {
            self.inner.quote(symbol, bid, ask)
        }
        fn other(&mut self) {
            self.inner.other()
        }
    }

    impl<const FAULT: u8> Format for BrokenDecoder<FAULT> {
        const NAME: &'static str = "broken";

        fn encode(&mut self, packet: &Packet, out: &mut Vec<u8>) -> usize {
            self.raw.encode(packet, out)
        }

        fn decode<K: Sink>(&mut self, bytes: &[u8], sink: &mut K) -> Result<usize, DecodeError> {
            match Self::FAULT {
                DecodeFault::NonExtremePrice => self.raw.decode(
                    bytes,
                    &mut Misprice {
                        inner: sink,
                        ranges: &mut self.ranges,
                    },
                ),
                DecodeFault::SwapMessages => {
                    // The selective decode of the swapped packet, through the model.
                    let used = self.raw.decode_all(bytes, &mut self.scratch)?;
                    let n = self.scratch.messages.len();
                    if n >= 2 {
                        self.scratch.messages.swap(0, 1);
                    }
                    crate::formats::aggregate::visit_packet(&self.scratch, sink);
                    Ok(used)
                }
                _ => self.raw.decode(bytes, sink),
            }
        }

        fn decode_all<V: Visitor>(
            &mut self,
            bytes: &[u8],
            v: &mut V,
        ) -> Result<usize, DecodeError> {
            let mut used = self.raw.decode_all(bytes, &mut self.scratch)?;
            self.packets += 1;
            let p = &mut self.scratch;
            match Self::FAULT {
                DecodeFault::StopEarly if self.packets % 50 == 0 => used = bytes.len(),
                DecodeFault::SkipField => {
                    for m in &mut p.messages {
                        if let Message::TradeReport(t) = m {
                            t.trade_id = 0;
                        }
                    }
                }
                DecodeFault::SwapMessages if p.messages.len() >= 2 => p.messages.swap(0, 1),
                DecodeFault::MoreBytes => used += 1,
                _ => {}
            }
            v.packet(p.seq, p.send_time);
            for m in &p.messages {
                v.message(*m);
            }
            Ok(used)
        }
    }

    /// A default run (no `--verify`) of `raw` and `broken` over a synthetic day's start.
    fn run_against_raw(broken: Box<dyn Runner>) -> Result<Outcome, RunError> {
        let mut bytes = Vec::new();
        let opts = GenOptions {
            packets: 3_000,
            ..GenOptions::default()
        };
        gen::generate(&opts, &mut bytes).unwrap();
        let config = Config {
            stored: StoredMode::None,
            window: 512,
            ..Config::default()
        };
        assert!(!config.verify);
        let runners: Vec<Box<dyn Runner>> = vec![Box::new(FormatRunner::<Raw>::default()), broken];
        let reader = IexReader::new(&bytes[..], false).unwrap();
        run_with(reader, &config, runners, |_| {})
    }

    /// The error a run of `raw` and `broken` ends with; it must end with one.
    fn failure_of(broken: Box<dyn Runner>) -> String {
        match run_against_raw(broken) {
            Ok(_) => panic!("a broken format passed the run's checks"),
            Err(e) => {
                eprintln!("{e}");
                e.to_string()
            }
        }
    }

    fn decoder_failure<const FAULT: u8>() -> String {
        failure_of(Box::new(FormatRunner::<BrokenDecoder<FAULT>>::default()))
    }

    #[test]
    fn a_complete_decode_that_stops_early_fails_the_run() {
        let e = decoder_failure::<0>();
        assert!(
            e.starts_with("broken: packet 50 (seq ")
                && e.contains("): the complete decode used ")
                && e.contains(" bytes, the encoder wrote "),
            "{e}"
        );
    }

    #[test]
    fn a_complete_decode_that_skips_a_field_fails_the_run() {
        let e = decoder_failure::<1>();
        assert!(e.contains("].TradeReport.trade_id should be "), "{e}");
    }

    #[test]
    fn a_wrong_price_that_is_no_extreme_fails_the_run() {
        let e = decoder_failure::<2>();
        assert!(
            e.starts_with("broken: aggregate differs from the source: symbol ")
                && e.contains("the same sums and extremes, but not the same values in order"),
            "{e}"
        );
    }

    #[test]
    fn a_decoder_that_swaps_messages_fails_the_run() {
        let e = decoder_failure::<3>();
        assert!(
            e.starts_with("broken: packet ") && e.contains(": messages[0]."),
            "{e}"
        );
    }

    #[test]
    fn a_decoder_that_claims_more_bytes_than_it_read_fails_the_run() {
        let e = decoder_failure::<4>();
        assert!(
            e.starts_with("broken: packet 1 (seq ")
                && e.contains("): the complete decode used ")
                && e.contains(" bytes, the encoder wrote "),
            "{e}"
        );
    }

    /// A default run (no `--verify`) of `raw` and the broken encoder over a synthetic day's start.
    fn run_broken<const FAULT: u8>() -> Result<Outcome, RunError> {
        run_against_raw(Box::new(FormatRunner::<Broken<FAULT>>::default()))
    }

    fn failure<const FAULT: u8>() -> String {
        failure_of(Box::new(FormatRunner::<Broken<FAULT>>::default()))
    }

    #[test]
    fn the_control_passes() {
        let o = run_broken::<5>().unwrap();
        assert_eq!(o.formats.len(), 2);
        assert_eq!(o.formats[1].messages_encoded, o.messages);
    }

    #[test]
    fn a_dropped_message_fails_the_run() {
        let e = failure::<0>();
        assert!(
            e.starts_with("broken: packet ") && e.contains("messages.len() should be "),
            "{e}"
        );
    }

    #[test]
    fn a_price_changed_within_the_range_fails_the_run() {
        let e = failure::<1>();
        assert!(e.contains("].TradeReport.price should be "), "{e}");
    }

    #[test]
    fn swapped_messages_fail_the_run() {
        let e = failure::<2>();
        assert!(e.contains(": messages[0]."), "{e}");
    }

    #[test]
    fn an_altered_timestamp_fails_the_run() {
        let e = failure::<3>();
        assert!(e.contains("].PriceLevelUpdate.timestamp should be "), "{e}");
    }

    #[test]
    fn an_altered_administrative_field_fails_the_run() {
        let e = failure::<4>();
        assert!(
            e.contains("].SecurityDirectory.round_lot_size should be "),
            "{e}"
        );
    }

    /// An encoder that writes every message but one, and says so, is caught by the count even
    /// before the checksums are compared.
    #[test]
    fn the_encoders_count_is_checked() {
        let mut o = run_broken::<5>().unwrap();
        o.formats[1].messages_encoded -= 1;
        // raw passed every check, so its aggregates are the references of each pass.
        let (per_packet, batch) = (
            o.formats[0].aggregate.clone(),
            o.formats[0].batch_aggregate.clone(),
        );
        let e = cross_check(&o.formats, &per_packet, &batch, o.messages)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("broken: serialized "), "{e}");
    }

    /// A run of raw and JSON over `packets` synthetic packets in windows of 512.
    fn timed_run(packets: u64, timing: Schedule, warmup: u64) -> Outcome {
        let mut bytes = Vec::new();
        gen::generate(
            &GenOptions {
                packets,
                ..GenOptions::default()
            },
            &mut bytes,
        )
        .unwrap();
        let config = Config {
            formats: Some(vec!["raw".into(), "json".into()]),
            stored: StoredMode::None,
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
        let alt = timed_run(3_000, Schedule::Alternate, 100);
        let both = timed_run(3_000, Schedule::Both, 100);
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
            for w in Workload::ALL {
                assert_eq!(a.latency[w].hist.len(), alt.units_recorded);
                assert_eq!(a.throughput[w].packets, alt.units_batch);
                assert_eq!(b.latency[w].hist.len(), recorded);
            }
            assert!(a.messages_batch > 0 && a.messages_batch < b.messages_batch);
        }
        assert_eq!(alt.memcpy.hist.len(), alt.units_recorded);
        assert_eq!(alt.memcpy_batch.packets, alt.units_batch);
        // Half the timed work, give or take the windows' sizes.
        let encode = Workload::Encode;
        assert!(alt.passes.window[encode] > 0 && alt.passes.per_unit[encode] > 0);
    }

    #[test]
    fn a_one_window_input_is_timed_both_ways_under_alternate() {
        let o = timed_run(300, Schedule::Alternate, 0);
        assert!(o.units_recorded > 0);
        assert_eq!(o.units_batch, o.units_recorded);
        assert!(o.formats.iter().all(|f| f.batch_ns() > 0.0));
    }

    #[test]
    fn settings_that_measure_nothing_are_refused() {
        let refuse = |config: Config| config.check().unwrap_err().to_string();
        for window in [0, MAX_WINDOW + 1] {
            let e = refuse(Config {
                window,
                ..Config::default()
            });
            assert!(
                e.starts_with(&format!("--window {window} is out of range")),
                "{e}"
            );
        }
        let e = refuse(Config {
            formats: Some(vec![]),
            ..Config::default()
        });
        assert!(e.contains("names no format"), "{e}");
        assert!(Config {
            window: MAX_WINDOW,
            ..Config::default()
        }
        .check()
        .is_ok());

        let mut bytes = Vec::new();
        gen::generate(
            &GenOptions {
                packets: 300,
                ..GenOptions::default()
            },
            &mut bytes,
        )
        .unwrap();
        let config = Config {
            formats: Some(vec!["raw".into()]),
            warmup: 1_000,
            stored: StoredMode::None,
            ..Config::default()
        };
        let e = run(IexReader::new(&bytes[..], false).unwrap(), &config, |_| {})
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.starts_with("--warmup 1000 leaves nothing to record: the input has "),
            "{e}"
        );
    }
}
