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

mod download;
mod index;

use std::io;
use std::path::PathBuf;

use crate::model::Feed;

pub use download::load_index;
pub use index::{parse_date, HistFile, HistIndex, SPEC_VERSIONS};

/// Where IEX publishes the HIST index.
pub const DEFAULT_HIST_URL: &str = "https://iextrading.com/api/1.0/hist";

/// What to fetch, and where from and to.
#[derive(Debug, Clone)]
pub struct FetchOptions {
    /// `YYYYMMDD` (see [`parse_date`]).
    pub date: String,
    pub feed: Feed,
    pub out_dir: PathBuf,
    pub hist_url: String,
}

/// What [`fetch`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    /// The complete file, under its published name.
    pub path: PathBuf,
    pub bytes: u64,
    /// Bytes already on disk in the `.part` file that the server let us keep (0: from scratch).
    pub resumed_from: u64,
    /// The file was already complete; nothing was downloaded.
    pub already_present: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("bad date {0:?}: expected YYYYMMDD or YYYY-MM-DD")]
    BadDate(String),
    #[error("cannot reach {url}: {detail}")]
    Unreachable { url: String, detail: String },
    #[error("{url}: HTTP {status}")]
    HttpStatus { url: String, status: u16 },
    #[error("{url}: not a HIST index: {detail}")]
    BadIndex { url: String, detail: String },
    #[error("IEX HIST has no file for {date}{}", nearest_note(.nearest))]
    NoDate { date: String, nearest: Vec<String> },
    #[error("IEX HIST has no {feed} file for {date} (that day has: {})", if .available.is_empty() { "nothing".to_string() } else { .available.join(", ") })]
    NoFeed {
        date: String,
        feed: String,
        available: Vec<String>,
    },
    #[error("{}: downloaded {got} bytes but the index says {expected}; the download was discarded and nothing was written under that name", .path.display())]
    SizeMismatch {
        path: PathBuf,
        expected: u64,
        got: u64,
    },
    #[error("{url}: download interrupted after {got} bytes ({detail}); run again to resume from {}", .part.display())]
    Interrupted {
        url: String,
        got: u64,
        part: PathBuf,
        detail: String,
    },
    #[error("the HIST index entry {entry} would be saved as {name:?}, which is not a plain file name inside {}; nothing was written", .dir.display())]
    UnsafeName {
        entry: String,
        name: String,
        dir: PathBuf,
    },
    #[error("{}: {cause}", .path.display())]
    Io { path: PathBuf, cause: io::Error },
}

fn nearest_note(nearest: &[String]) -> String {
    if nearest.is_empty() {
        String::new()
    } else {
        format!(" (nearest dates with files: {})", nearest.join(", "))
    }
}

/// Finds the file for `opts.date` and `opts.feed` and downloads it into `opts.out_dir`.
/// `progress(bytes_on_disk, total)` is called as the download advances.
pub fn fetch(
    opts: &FetchOptions,
    progress: impl FnMut(u64, Option<u64>),
) -> Result<Fetched, FetchError> {
    // Checked again: the date goes into the file name.
    let date = parse_date(&opts.date)?;
    let agent = download::agent();
    let index = load_index(&agent, &opts.hist_url)?;
    let file = index.find(&date, opts.feed)?;
    let name = file.file_name(&date, opts.feed);
    download::fetch_file(&agent, &file, &name, &opts.out_dir, progress)
}
