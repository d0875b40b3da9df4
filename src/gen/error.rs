//! Why generating failed, for the caller to name the file it chose.

use std::io;

use crate::output::atomic::Step;

/// Why generating failed. Messages do not name the output file: the caller, who chose it, does.
#[derive(Debug, thiserror::Error)]
pub enum GenError {
    /// An option out of range (nothing was written): which option, and what it must be.
    #[error("{option} {reason}")]
    InvalidOption {
        option: &'static str,
        reason: String,
    },
    /// Writing the output failed: what was being written, and the I/O error.
    #[error("{what}: {cause}")]
    Write { what: Writing, cause: io::Error },
}

/// What was being written when a [`GenError::Write`] happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Writing {
    /// The capture bytes, into the writer [`generate`](super::generate) was given.
    Capture,
    /// The capture bytes, through the gzip encoder of a `.gz` output.
    GzipEncoder,
    /// The gzip stream's end (the encoder's last block and trailer).
    GzipFinish,
    /// A step of writing the file whole or not at all: the temporary file, the rename.
    File(Step),
}

impl std::fmt::Display for Writing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Writing::Capture => write!(f, "writing the capture"),
            Writing::GzipEncoder => write!(f, "writing the capture through the gzip encoder"),
            Writing::GzipFinish => write!(f, "finishing the gzip stream"),
            Writing::File(step) => step.fmt(f),
        }
    }
}
