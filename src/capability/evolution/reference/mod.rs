//! The format's own answer beside the crate's. Where the crate under test answers `no` to an
//! evolution its format's specification provides for, the same check runs again through the
//! format's reference implementation, on the same bytes: the ones our codec and our v2 writer
//! produce for `harness::source()`. A reader of the table then tells "Avro cannot evolve" from
//! "apache-avro 0.22 cannot".
//!
//! | format | crate under test | reference implementation | file |
//! |---|---|---|---|
//! | `avro` | apache-avro 0.22 (a union resolved by shape) | Apache Avro for Python, writer's and reader's schemas | [`avro`] |
//! | `sbe` | the SBE Rust generator (`sinceVersion` not checked) | the Java decoders SBE generates from v1 and v2 | [`sbe`] |

mod avro;
mod judge;
mod sbe;

pub use judge::FormatEvolution;
