//! Measuring: the clock, windows of packets, the shootout loop, per-format histograms and the
//! cross-checks that make the numbers trustworthy.

pub mod affinity;
pub mod allocations;
pub mod args;
pub mod checks;
pub mod clock;
pub mod config;
pub mod fed;
pub mod file;
pub mod floor;
pub mod instructions;
pub mod interference;
pub mod jobs;
pub mod memory;
pub mod merge;
pub mod order;
pub mod outcome;
pub mod registry;
pub mod runner;
pub mod schedule;
pub mod shootout;
pub mod stats;
pub mod stored;
pub mod trust;
pub mod twins;
pub mod verify;
pub mod window;
pub mod window_runner;
pub mod window_times;
pub mod workload;

pub use config::{Config, RunError};
pub use file::{run_file, RunFileError};
pub use outcome::{Outcome, Passes, Worker};
pub use registry::registry;
pub use runner::Runner;
pub use schedule::Schedule;
pub use shootout::run;
pub use window::Unit;
pub use workload::{PerWorkload, Timing, Workload};

/// A synthetic capture of `packets` packets from the generator's defaults: what the tests of a
/// whole run read.
#[cfg(test)]
pub(crate) fn synthetic_capture(packets: u64) -> Vec<u8> {
    let mut bytes = Vec::new();
    let opts = crate::gen::GenOptions {
        packets,
        ..crate::gen::GenOptions::default()
    };
    crate::gen::generate(&opts, &mut bytes).expect("the generator writes to memory");
    bytes
}
