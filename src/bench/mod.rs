//! `shootout bench`: the whole shootout in one command. It runs every input `runs` times under
//! every scheduling prefix, each run a `shootout run` child of this very binary (so the code
//! measured is the code that plans), and keeps everything in one results folder:
//!
//! ```text
//! runs.csv                       one row per format per run, for every input, prefix and run
//! hist/<input>/<label>/run<i>/   HdrHistogram .hgrm files per format and side
//! summary-<input>.csv            the per-symbol aggregation every format agreed on
//! environment.txt                machine, governor, kernel, compiler, revision, load, prefixes
//! done.txt                       one line per completed run: what --resume skips
//! args                           the options the folder was started with
//! report/                        the cross-run report
//! ```
//!
//! [`options`] says what was asked and checks it, [`plan`] decides what runs (inputs, prefixes,
//! order), [`resume`] what already ran, [`environment`] describes the machine, [`run`] runs it
//! and [`report`] writes the report.

pub mod environment;
pub mod failure;
pub mod help;
pub mod options;
pub mod plan;
pub mod report;
pub mod resume;
pub mod run;

pub use failure::Failure;
pub use options::{DefaultInput, Options, DEFAULT_INPUTS, DEFAULT_RUNS, QUICK_PACKETS};
pub use run::bench;
