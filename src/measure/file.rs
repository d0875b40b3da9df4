//! A run over a capture file: opening it, the progress bar, and errors that name the file.

use crate::output::Tick;

use super::config::{Config, RunError};
use super::outcome::Outcome;
use super::shootout::{run, select};

/// Why `run_file` failed: the input (with file and offset), or the shootout itself.
#[derive(Debug, thiserror::Error)]
pub enum RunFileError {
    #[error(transparent)]
    Input(#[from] crate::error::FileError),
    #[error("{path}: {error}")]
    Run { path: String, error: Box<RunError> },
}

/// Runs the shootout over a capture file, with a progress bar on a terminal: all of
/// `shootout run` but writing the results.
pub fn run_file(
    path: &std::path::Path,
    config: &Config,
    lenient: bool,
) -> Result<Outcome, RunFileError> {
    let total = std::fs::metadata(path).map_or(0, |m| m.len());
    let progress = crate::output::RunProgress::new(total);
    let outcome = run_file_with(path, config, lenient, |tick| progress.set(tick, None));
    progress.finish();
    outcome
}

/// [`run_file`] with `progress` called after each window with the bytes of the file read so far
/// (compressed bytes for a gzip'd file) and the messages parsed.
pub fn run_file_with(
    path: &std::path::Path,
    config: &Config,
    lenient: bool,
    mut progress: impl FnMut(Tick),
) -> Result<Outcome, RunFileError> {
    // Refuse an unknown format before reading anything.
    select(config).map_err(|error| RunFileError::Run {
        path: path.display().to_string(),
        error: Box::new(error),
    })?;
    let opened = crate::stream::open_share(path, lenient, config.chunking)?;
    let outcome = run(opened.reader, config, |tick| {
        progress(Tick {
            file_bytes: opened.read.load(std::sync::atomic::Ordering::Relaxed),
            ..tick
        })
    });
    let gz = opened.compression == crate::source::Compression::Gzip;
    outcome.map_err(|e| match e {
        RunError::Input(e) => RunFileError::Input(crate::error::FileError::new(path, gz, e)),
        error => RunFileError::Run {
            path: path.display().to_string(),
            error: Box::new(error),
        },
    })
}
