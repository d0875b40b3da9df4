//! Schema evolution, measured. Version 2 of the schema appends one field to Trade Report and one
//! to Add Order (`schemas/evolution-v2.txt`); build.rs generates each format's v2 into OUT_DIR
//! beside its v1. For every format, through its own evolution mechanism:
//!
//! - **forward**: bytes written by a v2 writer are read by the v1 reader (the codec under test):
//!   does it read every v1 field exactly?
//! - **backward**: bytes written by the v1 writer (the codec under test) are read by a v2
//!   reader: does it see the new fields' defaults?
//!
//! Where a format cannot, the finding records what happened (an error, or which field came out
//! wrong) rather than skipping it.

pub mod v2;

use super::Finding;

/// Both directions' findings for one format.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Evolution {
    /// A v1 reader on v2 bytes.
    pub forward: Finding,
    /// A v2 reader on v1 bytes.
    pub backward: Finding,
}

/// The evolution check of the format named `format` (its `Format::NAME`), or `None` for a name
/// no check knows. Each arm is one format's file below.
pub fn check(format: &str) -> Option<Evolution> {
    match format {
        _ => None,
    }
}
