//! What a run is asked to do, and why it can fail: below the window loop, the checks and the
//! jobs, which all take a `Config` and return a `RunError`.

use crate::error::Error;
use crate::formats::DecodeError;

use super::instructions::Counting;
use super::schedule::Schedule;
use super::stored::StoredMode;
use super::window::Unit;
use crate::stream::share::Chunking;

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
    /// Formats whose A/A twin the run measures too (`--twins`, see [`super::twins`]): `None` for
    /// the default ([`super::twins::DEFAULT`], those of it the run measures), empty for none.
    pub twins: Option<Vec<String>>,
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
    /// How the input is cut into chunks, and the share of them this process measures (see
    /// `stream::share`).
    pub chunking: Chunking,
    /// Whether and how this process counts the instructions of its batch passes (see
    /// [`super::instructions`]); `None` for not at all.
    pub counting: Option<Counting>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            formats: None,
            twins: None,
            verify: false,
            warmup: 0,
            window: DEFAULT_WINDOW,
            stored: StoredMode::Sample,
            unit: Unit::Packet,
            timing: Schedule::Alternate,
            order_seed: 0,
            chunking: Chunking::default(),
            counting: None,
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
