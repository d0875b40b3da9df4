//! What the tool writes outside the reports: progress on stderr, and files written whole.

pub mod atomic;
pub mod direct;
pub mod progress;
pub mod table;

pub use atomic::write_atomically;
pub use direct::DirectWriter;
pub use progress::{Progress, RunProgress, Tick};
pub use table::Table;
