//! Why a fetch failed: each variant names the URL, date or file it is about.

use std::io;
use std::path::PathBuf;

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
