//! `shootout fetch`: download one day of IEX HIST data.
//!
//! IEX publishes an index of its historical captures as JSON (an object keyed by `YYYYMMDD`,
//! each value a list of files with `link`, `feed`, `version`, `protocol` and `size`). [`fetch`]
//! looks the day and feed up, streams the file into `DIR/.NAME.part`, resumes a partial
//! download with an HTTP `Range` request, checks the size against the index and only then
//! renames the part to `DIR/NAME`. A file of the wrong size never appears under the final name.
//! The index is not ours: every name written is checked to be a plain file name directly inside
//! `DIR`, and sizes and dates are checked before anything is downloaded.
//!
//! Everything that talks to the network takes its URLs as parameters, so tests serve the index
//! and the capture from 127.0.0.1.

mod day;
mod download;
mod error;
mod index;

pub use day::{fetch, fetch_showing_progress, FetchOptions, DEFAULT_HIST_URL};
pub use download::{load_index, Fetched};
pub use error::FetchError;
pub use index::{parse_date, HistFile, HistIndex, SPEC_VERSIONS};
