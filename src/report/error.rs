//! The report's one error: which file, and what was wrong with it.

use std::path::Path;

/// A report input or output that failed: the file and what was wrong, as one line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct ReportError {
    pub path: String,
    pub message: String,
}

impl ReportError {
    pub fn new(path: impl AsRef<Path>, message: impl Into<String>) -> ReportError {
        ReportError {
            path: path.as_ref().display().to_string(),
            message: message.into(),
        }
    }
}
