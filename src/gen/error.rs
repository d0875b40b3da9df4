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

/// What was being written when a [`GenError::Write`] happened (an error type only for its
/// message).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Writing {
    /// The capture bytes, into the writer [`generate`](super::generate) was given.
    #[error("writing the capture")]
    Capture,
    /// The capture bytes, through the gzip encoder of a `.gz` output.
    #[error("writing the capture through the gzip encoder")]
    GzipEncoder,
    /// The gzip stream's end (the encoder's last block and trailer).
    #[error("finishing the gzip stream")]
    GzipFinish,
    /// A step of writing the file whole or not at all: the temporary file, the rename.
    #[error("{0}")]
    File(Step),
}

impl Writing {
    /// The error of `cause` while writing this.
    pub fn failed(self, cause: io::Error) -> GenError {
        GenError::Write { what: self, cause }
    }
}
