//! `--summary`: the aggregation every format agreed on, as CSV.

use std::io;
use std::path::Path;

use super::RunReport;
use crate::output::write_atomically;

/// Writes `symbol,trade_volume,bid_high,bid_low,ask_high,ask_low,trade_notional`, one row per
/// symbol sorted by symbol, whole or not at all.
pub fn write(path: &Path, report: &RunReport<'_>) -> io::Result<()> {
    write_atomically(path, |w| report.outcome.reference.write_csv(w))
}
