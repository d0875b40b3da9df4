//! What `gen` is asked to make: the feed, capture kind, size, seed and symbol count.

use crate::model::Feed;

use super::capture::CaptureKind;
use super::like::Shape;

/// What to generate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenOptions {
    pub feed: Feed,
    pub capture: CaptureKind,
    /// IEX-TP segments to write, heartbeats included. The whole day is spread over them.
    pub packets: u64,
    pub seed: u64,
    /// Distinct tickers, the `ZIEXT` test symbol included; 1 to
    /// [`MAX_SYMBOLS`](super::sim::MAX_SYMBOLS).
    pub symbols: usize,
}

impl Default for GenOptions {
    fn default() -> Self {
        GenOptions {
            feed: Feed::Deep,
            capture: CaptureKind::Pcapng,
            packets: 100_000,
            seed: 1,
            symbols: 500,
        }
    }
}

impl GenOptions {
    /// These options with `shape`'s feed and symbol count, which a shaped day takes over.
    pub(super) fn shaped_by(&self, shape: Option<&Shape>) -> GenOptions {
        match shape {
            Some(s) => GenOptions {
                feed: s.feed,
                symbols: s.symbols,
                ..self.clone()
            },
            None => self.clone(),
        }
    }

    /// IEX-TP session id: fixed per seed, so two seeds do not look like the same session.
    pub fn session_id(&self) -> u32 {
        1_150_000_000 + (self.seed % 1_000_000) as u32
    }
}
