//! md-shootout: which binary encoding should carry market data?
//!
//! The pipeline runs one way: file → [`source`] → [`capture`] → [`net`] → [`iex`] (via
//! [`stream`]) → [`model`] → [`formats`] → [`measure`] → report. The binary (`src/main.rs`) is only the
//! command line; benches, tests and fuzz targets use this library so they exercise the same code.
//! [`mod@bench`] runs that pipeline over a matrix of inputs, runs and scheduling prefixes.

#![deny(rustdoc::broken_intra_doc_links)]

pub mod alloc_count;
pub mod bench;
pub mod bytes;
pub mod capability;
pub mod capture;
pub mod error;
pub mod export;
pub mod fetch;
pub mod formats;
pub mod gen;
pub mod iex;
pub mod inspect;
pub mod measure;
pub mod model;
pub mod net;
pub mod output;
pub mod profile;
pub mod report;
pub mod source;
pub mod stream;
pub mod sys;

pub use error::{Error, FileError, Result};
