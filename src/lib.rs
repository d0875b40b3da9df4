//! md-shootout: which binary encoding should carry market data?
//!
//! The pipeline runs one way: file → [`source`] → [`capture`] → [`net`] → [`iex`] → [`model`]
//! → formats → measure → report. The binary (`src/main.rs`) is only the command line; benches,
//! tests and fuzz targets use this library so they exercise the same code.

pub mod formats;
pub mod model;
