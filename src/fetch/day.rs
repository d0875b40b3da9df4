//! One day's file: look it up in the index, download it, and show the download's progress.

use std::path::PathBuf;

use super::download::{self, load_index, Fetched};
use super::error::FetchError;
use super::index::parse_date;
use crate::model::Feed;
use crate::output::Progress;

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

/// [`fetch`] with a progress bar on stderr (from the first report of the size on), as `shootout
/// fetch` and `bench --date` show it.
pub fn fetch_showing_progress(opts: &FetchOptions) -> Result<Fetched, FetchError> {
    let progress = std::cell::OnceCell::new();
    let fetched = fetch(opts, |pos, total| {
        progress.get_or_init(|| Progress::new(total)).set(pos)
    });
    if let Some(p) = progress.get() {
        p.finish();
    }
    fetched
}
