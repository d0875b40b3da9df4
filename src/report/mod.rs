//! `shootout report`: what many runs left behind (see `crate::export`), read back across runs,
//! days and machines, in three steps: [`mod@load`] the CSVs and [`summarize`] them (medians,
//! spreads, ratios, warnings); build the page once as a [`document`] ([`page`]: the verdict,
//! tables, charts and warnings in order); render it as `index.html` ([`html`]) and `summary.md`
//! ([`markdown`]), beside `summary.csv` and the SVG [`charts`] ([`write_report`]).

pub mod analysis;
pub mod baseline;
pub mod bmf;
pub mod by_type;
pub mod charts;
pub mod controls;
pub mod decision;
pub mod dist;
pub mod document;
pub mod error;
pub mod export;
pub mod html;
pub mod instructions;
pub mod load;
pub mod markdown;
pub mod page;
pub mod pairing;
pub mod resolution;
pub mod scheduling;
pub mod significance;
#[cfg(test)]
mod simulation;
pub mod stats;
pub mod summary_csv;
pub mod tables;
pub mod terminal;
pub mod twins;
pub mod verdict;
pub mod verification;
pub mod warnings;
pub mod windows;
pub mod write;

pub use crate::output::write_atomically;
pub use charts::{ChartFile, ChartKind};
pub use error::ReportError;
pub use export::{Export, ReportData};
pub use load::{load, Runs};
pub use stats::{summarize, Summary, Warning, WarningKind};
pub use write::{write_report, write_report_with, ReportFiles};
