//! What one `shootout run` leaves behind, one file per output, all read from the same
//! [`RunReport`]: the CSV rows (`csv`) and beside them each format's times window by window
//! (`windows`), the per-format percentile distributions (`hgrm`), the
//! aggregation every format agreed on (`aggregation`) and the tables on stdout (`table`), with
//! where the run came from (`environment`); for one share of a run (`run --shard`), the part
//! `shootout merge` joins (`part`). `shootout report` reads them back (`crate::report`).

pub mod aggregation;
pub mod append;
pub mod capabilities;
pub mod caveat;
mod columns;
pub mod csv;
pub mod environment;
pub mod hgrm;
pub mod part;
pub mod table;
pub mod windows;

use crate::measure::Outcome;
pub use environment::RunInfo;

/// A finished run and where it came from.
pub struct RunReport<'a> {
    pub outcome: &'a Outcome,
    pub info: &'a RunInfo,
}
