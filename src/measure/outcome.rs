//! What a run measured, as one process or `--jobs` workers report it: below both the
//! shootout loop that fills it and the jobs that merge it.

use super::schedule::Schedule;
use super::stats::{div_or_zero, FormatResult, Latency, Throughput};
use super::stored::StoredMode;
use super::window::Unit;
use super::workload::PerWorkload;
use crate::formats::Aggregate;
use crate::stream::{Chunking, Cover, Share};

/// Time inside the timed regions of each pass, summed over the formats: where a run's minutes go.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Passes {
    /// Each workload timed per unit: the sum of the timed units' durations.
    pub per_unit: PerWorkload<u64>,
    /// Each workload timed by whole windows.
    pub window: PerWorkload<u64>,
    /// The memcpy floor, both ways.
    pub floor: u64,
    /// The aggregation floor (`measure::floor::AggregateFloor`), timed by whole windows.
    #[serde(default)]
    pub aggregate: u64,
}

/// Summing the passes of several `--jobs` workers.
impl std::ops::AddAssign for Passes {
    fn add_assign(&mut self, q: Passes) {
        self.per_unit += q.per_unit;
        self.window += q.window;
        self.floor += q.floor;
        self.aggregate += q.aggregate;
    }
}

impl Passes {
    pub fn total(&self) -> u64 {
        self.per_unit.values().sum::<u64>()
            + self.window.values().sum::<u64>()
            + self.floor
            + self.aggregate
    }
}

/// What a run measured.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Outcome {
    pub formats: Vec<FormatResult>,
    /// The aggregation computed straight from the parsed packets, which every format must match.
    pub reference: Aggregate,
    pub packets: u64,
    pub messages: u64,
    /// What one timed sample was.
    pub unit: Unit,
    /// Units (packets or messages) timed one by one after the warm-up: what every percentile
    /// rests on.
    pub units_recorded: u64,
    /// Units timed as part of a whole window after the warm-up: what the batch figures rest on.
    pub units_batch: u64,
    /// How the windows were timed.
    pub timing: Schedule,
    /// The seed of the formats' order in each window.
    pub order_seed: u64,
    /// Messages of unknown type in the input (carried by no format).
    pub unknown: u64,
    /// Carried beside the outcome between processes, as `name` of a format is.
    #[serde(skip)]
    pub feed: Option<&'static str>,
    pub timer_overhead_ns: f64,
    /// The clock behind every timing (`tsc`, `cntvct` or `monotonic`; see [`super::clock::Timer`]).
    #[serde(skip)]
    pub clock: &'static str,
    /// Capture bytes parsed.
    pub capture_bytes: u64,
    /// `Some(bytes)` when the capture was cut short at its end (read with `--lenient`): the bytes
    /// of the incomplete last record, dropped; `None` for a whole capture.
    #[serde(default)]
    pub dropped_bytes: Option<u64>,
    pub wall_ns: u64,
    /// Time spent reading and parsing the input into windows.
    pub parse_ns: u64,
    /// Time inside the timed regions (per packet and per window).
    pub timed_ns: u64,
    /// `timed_ns` by pass, summed over the formats.
    pub passes: Passes,
    /// Time spent compressing windows for the size as stored (zstd and zlib, untimed per packet).
    pub compress_ns: u64,
    /// Which windows were compressed for the size as stored (`Config::stored`).
    pub stored: StoredMode,
    /// Time spent decoding every packet back and comparing it (`--verify`), untimed.
    pub verify_ns: u64,
    /// The memcpy floor: `raw`'s bytes copied packet by packet in the same timed loop
    /// (see [`super::floor`]).
    pub memcpy: Latency,
    /// The same copy timed per window, like the formats' batch figures.
    pub memcpy_batch: Throughput,
    /// Minor page faults inside the floor's timed copies (0 when all is well).
    pub memcpy_faults: u64,
    /// The aggregation alone (the selective decode's hash map fed the window's sink calls,
    /// recorded from the parsed packets, no format), timed per window like the batch figures: the part of every format's `de` that
    /// is the same in all of them (see `measure::floor`).
    #[serde(default)]
    pub aggregate_batch: Throughput,
    /// Minor page faults inside the aggregation floor's timed passes (0 when all is well).
    #[serde(default)]
    pub aggregate_faults: u64,
    /// The clock's step as the run measured it ([`super::clock::Timer::step_ns`]).
    #[serde(default)]
    pub clock_step_ns: f64,
    /// How the stream was cut into chunks and which share of them this run measured.
    pub chunking: Chunking,
    /// What this run read of the stream, chunk by chunk: what `merge` checks the parts cover the
    /// input with, once.
    #[serde(default)]
    pub cover: Cover,
    /// With `--jobs N` (N > 1): the worker processes; empty for a run in one process. The times
    /// above (`wall_ns`, `parse_ns`, ...) are then summed over the workers.
    #[serde(skip)]
    pub workers: Vec<Worker>,
    /// Wall time from start to end: `wall_ns` for a run in one process.
    #[serde(skip)]
    pub elapsed_ns: u64,
}

impl Outcome {
    /// Wall time spent measuring: without the compression for the size as stored and the
    /// `--verify` comparisons, which are measurements and checks of their own (reported
    /// separately), not harness overhead.
    pub fn measuring_ns(&self) -> u64 {
        self.wall_ns
            .saturating_sub(self.compress_ns)
            .saturating_sub(self.verify_ns)
    }

    /// Share of the measuring time spent parsing or inside timed regions: the rest is the
    /// harness and the checks.
    pub fn timed_share(&self) -> f64 {
        div_or_zero(
            (self.parse_ns + self.timed_ns) as f64,
            self.measuring_ns() as f64,
        )
    }
}

/// One worker of a `--jobs` run, as the merged outcome describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Worker {
    /// The CPU it was pinned to; `None` if pinning failed (the run says so).
    pub cpu: Option<usize>,
    /// The share of the input's chunks it measured.
    pub share: Share,
    /// From its start to its exit, as the parent saw it.
    pub wall_ns: u64,
    /// Inside its timed regions.
    pub timed_ns: u64,
    pub timer_overhead_ns: f64,
    /// The worker's peak resident memory, in bytes, where the system says (`VmHWM`).
    pub peak_rss: Option<u64>,
    /// Chunks it measured (with at least one record).
    pub chunks: u64,
}

impl Worker {
    /// Time it waited for the slowest worker: `elapsed_ns` is the whole run's.
    pub fn idle_ns(&self, elapsed_ns: u64) -> u64 {
        elapsed_ns.saturating_sub(self.wall_ns)
    }
}
