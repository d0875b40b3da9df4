//! What a run leaves behind: CSV rows, per-format histograms, the aggregation summary and the
//! table on stdout. One file per output; all of them read the same [`RunReport`].

pub mod csv;
pub mod environment;
pub mod hgrm;
pub mod summary;
pub mod table;

use crate::measure::Outcome;
pub use crate::output::write_atomically;
pub use environment::RunInfo;

/// A finished run and where it came from.
pub struct RunReport<'a> {
    pub outcome: &'a Outcome,
    pub info: &'a RunInfo,
}
