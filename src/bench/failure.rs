//! Why a bench stopped, and the exit code each reason gives.

use crate::report;

/// Why a bench stopped.
#[derive(Debug, thiserror::Error)]
pub enum Failure {
    /// Options that make no sense; nothing was run (exit code 2).
    #[error("{0}")]
    Usage(String),
    /// Something failed on the way (exit code 1).
    #[error("{0}")]
    Failed(String),
    /// `--fail-if-slower` found regressions against the baseline (exit code 3); the results
    /// and the report are written.
    #[error("{0}")]
    Regressed(report::baseline::Regressed),
    /// A run was stopped by a signal (exit code 128 + the signal).
    #[error("{message}")]
    Interrupted { message: String, signal: i32 },
}

impl Failure {
    pub fn exit_code(&self) -> u8 {
        match self {
            Failure::Usage(_) => 2,
            Failure::Failed(_) => 1,
            Failure::Regressed(_) => report::baseline::REGRESSION_EXIT,
            Failure::Interrupted { signal, .. } => 128u8.saturating_add(*signal as u8),
        }
    }
}

/// An I/O error on `what` (a file or folder, usually) as a [`Failure::Failed`].
pub(crate) fn failed<E: std::fmt::Display>(
    what: impl std::fmt::Display,
) -> impl FnOnce(E) -> Failure {
    move |e| Failure::Failed(format!("{what}: {e}"))
}
