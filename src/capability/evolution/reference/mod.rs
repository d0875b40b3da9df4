//! The format's own answer beside the crate's. Where the crate under test answers `no` to an
//! evolution its format's specification provides for, the same check runs again through the
//! format's reference implementation, on the same bytes: the ones our codec and our v2 writer
//! produce for `compiled::source()`. A reader of the table then tells "Avro cannot evolve" from
//! "apache-avro 0.22 cannot".
//!
//! | format | crate under test | reference implementation | file |
//! |---|---|---|---|
//! | `avro` | apache-avro 0.22 (a union resolved by shape) | Apache Avro for Python, writer's and reader's schemas | [`avro`] |
//! | `sbe` | the SBE Rust generator (`sinceVersion` not checked) | the Java decoders SBE generates from v1 and v2 | [`sbe`] |

mod avro;
mod judge;
mod sbe;

use std::path::Path;

use crate::capability::finding::Finding;
pub use judge::FormatEvolution;

/// The format's answer for the format named `format`, where the crate's `(forward, backward)`
/// says `no` in a direction and the format has a reference check; scratch files under `scratch`.
pub(super) fn check(
    format: &str,
    crate_: (&Finding, &Finding),
    scratch: &Path,
) -> Option<FormatEvolution> {
    if crate_.0.yes() && crate_.1.yes() {
        return None;
    }
    match format {
        "avro" => Some(avro::check(&scratch.join("avro-evolution"))),
        "sbe" => Some(sbe::check(scratch)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crate_that_evolves_both_ways_gets_no_format_answer() {
        let yes = Finding::measured(true, "", "t");
        let no = Finding::measured(false, "", "t");
        let dir = Path::new("/nonexistent");
        assert_eq!(check("avro", (&yes, &yes), dir), None);
        // A format without a reference check has none, whatever its crate says.
        assert_eq!(check("postcard", (&no, &no), dir), None);
    }
}
