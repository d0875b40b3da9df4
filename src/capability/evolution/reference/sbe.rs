//! SBE's evolution as the Java decoders the SBE tool generates read it (`sbe-all` 1.34.0, the
//! cross-language check's jar and JDK). Decoders are generated from version 1
//! (`schemas/marketdata.xml`) and from version 2 (`OUT_DIR/evolution-v2/schemas/marketdata.xml`:
//! `matchId` and `attribution` appended with `sinceVersion="2"`, `presence="optional"`), and
//! `xlang/SbeDump.java --acting` prints every field each reads, beside the version and block
//! length it acts on (from each message header). The bytes are the Rust check's
//! (`evolution::sbe`): the v2 encoders' and the codec's, one unit per packet of
//! `harness::source()`.
//!
//! What the mechanism asks (the SBE specification, "Message schema versioning"; the wiki's
//! "Message Versioning"): a decoder takes the block length and version from the header, skips
//! by the header's block length, and reads a field whose `sinceVersion` is above the acting
//! version as absent: its type's null value (the specification's "Range attributes for integer
//! fields": `int64` −2⁶³, `uint32` 2³²−1).

use std::path::Path;

use serde_json::Value as Json;

use super::super::harness::source;
use super::super::sbe::{generated as v2_code, write_v2};
use super::super::v2::Appended;
use super::judge::{backward, finding, forward, take_appended, FormatEvolution, Read};
use crate::capability::cross_language::sbe::{describe, dump, packets, SBE_VERSION, SCHEMA};
use crate::capability::cross_language::tool::{self, ToolError};
use crate::capability::finding::Finding;
use crate::formats::sbe::{generated as v1_code, Sbe};
use crate::formats::window::{Packets, WindowFormat};

/// Version 2 of the schema, as build.rs generated it.
const V2_SCHEMA: &str = include_str!(concat!(
    env!("OUT_DIR"),
    "/evolution-v2/schemas/marketdata.xml"
));

/// A grown message's type, and the version and block length its decoder acted on.
type Acting = (String, u16, u16);

/// The keys `SbeDump --acting` adds to each message.
const ACTING: [&str; 2] = ["@actingVersion", "@actingBlockLength"];

/// Both directions with the schemas as build.rs generates them; the v1 decoders are compiled
/// where the cross-language check compiles them (`scratch/sbe/java`), so either reuses the other's.
fn check(scratch: &Path) -> FormatEvolution {
    let dir = scratch.join("sbe-evolution");
    FormatEvolution {
        reference: format!("SBE {SBE_VERSION} Java decoders"),
        crate_under_test: format!("the SBE {} Rust generator", env!("MD_SHOOTOUT_SBE_VERSION")),
        crate_defect: "its getter of an optional field added later ignores the acting version \
                       (simple-binary-encoding #1066)"
            .into(),
        forward: v1_reads_v2(&dir, &scratch.join("sbe").join("java")),
        backward: v2_reads_v1(&dir, &dir.join("java-v2"), V2_SCHEMA),
    }
}

// Here, beside the reference check that reads the crate check's v2 writer (`evolution::sbe`).
evolves!(Sbe => super::super::sbe::check(), reference |scratch| Some(check(scratch)););

/// The v2 encoders' bytes of every source packet, read by the v1 decoders (compiled in
/// `classes`): every v1 field exact, each grown message acting on a version above v1's.
fn v1_reads_v2(dir: &Path, classes: &Path) -> Finding {
    let units: Vec<Vec<u8>> = source().iter().map(write_v2).collect();
    let read = run(&units, dir, (classes, SCHEMA), false);
    judge(
        read,
        "the v2 encoders (capability::evolution::sbe)",
        "v1",
        |r, acting| {
            let newer = acting
                .iter()
                .all(|&(_, v, _)| v > v1_code::SBE_SCHEMA_VERSION);
            if !newer {
                return Err(format!(
                    "the v2 writer's messages act on versions {acting:?}, not above v1's {}",
                    v1_code::SBE_SCHEMA_VERSION
                ));
            }
            forward(&source(), &r.packets).map(|ok| format!("{ok} ({})", blocks(acting)))
        },
    )
}

/// The codec's (v1) bytes of every source packet, read by the decoders of `schema` (version 2
/// unless a test says otherwise) compiled in `classes`: every v1 field exact, each appended
/// field its null value.
fn v2_reads_v1(dir: &Path, classes: &Path, schema: &str) -> Finding {
    let units = Packets::<Sbe>::default().units(&source());
    let read = run(&units, dir, (classes, schema), true);
    judge(read, "formats::sbe", "v2", |r, acting| {
        let what = format!("absent, their null values: {}", blocks(acting));
        backward(&source(), r, null_value, &what)
    })
}

/// What an SBE decoder returns for an optional field the acting version lacks: its type's null
/// value (int64 −2⁶³, uint32 2³²−1, by the field's type).
fn null_value(a: &Appended) -> i128 {
    match a.ty {
        "i64" => i128::from(i64::MIN),
        "u32" => i128::from(u32::MAX),
        other => unreachable!("evolution-v2.txt appends a {other}: give it SBE's null here"),
    }
}

/// The acting version and block length of each grown message, said once per distinct pair.
fn blocks(acting: &[Acting]) -> String {
    let mut seen: Vec<String> = acting
        .iter()
        .map(|(name, v, b)| format!("{name}s act on version {v}, a {b}-byte block"))
        .collect();
    seen.sort();
    seen.dedup();
    seen.join("; ")
}

/// What the decoders of `schema` (compiled in `classes`) read of `units`, with the acting
/// version and block length of each message version 2 grows; the appended fields taken out
/// where `grown` (the v2 decoders report them).
fn run(
    units: &[Vec<u8>],
    dir: &Path,
    (classes, schema): (&Path, &str),
    grown: bool,
) -> Result<(Read, Vec<Acting>), ToolError> {
    tool::make_dir(dir)?;
    let output = |detail| ToolError::Output {
        program: "SbeDump".into(),
        detail,
    };
    let mut lines = dump(units, classes, schema, dir, true)?;
    let (mut appended, mut acting) = (Vec::new(), Vec::new());
    for line in &mut lines {
        let Some(fields) = line.as_object_mut() else {
            continue;
        };
        let [version, block] = ACTING.map(|k| fields.remove(k).and_then(|v| v.as_u64()));
        let name = fields.get("message").and_then(Json::as_str).unwrap_or("");
        let name = name.to_owned();
        if super::super::v2::appended_to(&name).is_some() {
            let (Some(v), Some(b)) = (version, block) else {
                let detail = format!("{name} without its acting version and block length");
                return Err(output(detail));
            };
            acting.push((name.clone(), v as u16, b as u16));
        }
        if grown && name != "PacketHeader" {
            appended.push(take_appended(&name, fields));
        }
    }
    let packets = packets(&lines).map_err(output)?;
    if !grown {
        appended = vec![None; packets.iter().map(|p| p.messages.len()).sum()];
    }
    Ok((Read { packets, appended }, acting))
}

/// The finding: what the decoders read, judged by `judge` with the acting versions seen,
/// decided by the decoders of `reader` (v1 or v2) on `written`'s bytes.
fn judge(
    read: Result<(Read, Vec<Acting>), ToolError>,
    written: &str,
    reader: &str,
    judge: impl FnOnce(&Read, &[Acting]) -> Result<String, String>,
) -> Finding {
    let decoders = describe().unwrap_or_else(|e| format!("SBE {SBE_VERSION} Java decoders ({e})"));
    let decided_by = format!(
        "capability::evolution::reference::sbe: {decoders} generated from the {reader} schema \
         (v2: matchId and attribution with sinceVersion=\"{}\", presence=optional), \
         xlang/SbeDump.java --acting, on the bytes of {written}",
        v2_code::SBE_SCHEMA_VERSION
    );
    finding(read, |(read, acting)| judge(&read, &acting), decided_by)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SBE's mechanism, by its Java decoders: both directions hold, on the bytes on which the
    /// pinned Rust generator's v2 reader says no (`evolution::sbe`); v1 bytes act on version 0,
    /// below `sinceVersion`, so the appended fields read as their null values.
    #[test]
    fn the_java_decoders_evolve_both_ways() {
        let found = FormatEvolution::evolving(check);
        // The v2 encoders stamp version 2 and the grown blocks (45 and 41 bytes); the codec
        // version 0 and 37 for both.
        for block in [
            "AddOrders act on version 2, a 41-byte block",
            "TradeReports act on version 2, a 45-byte block",
        ] {
            found.forward.assert_says(block);
        }
        found.backward.assert_says(
            "AddOrders act on version 0, a 37-byte block; TradeReports act on version 0, a \
             37-byte block",
        );
        found
            .backward
            .assert_says("TradeReport.match_id = -9223372036854775808");
    }

    /// A field appended without `sinceVersion`: the decoder has no version to check, reads the
    /// 8 bytes after a v1 block as the field, and the check says no.
    #[test]
    fn a_v2_field_without_since_version_says_no() {
        let since = " sinceVersion=\"2\"";
        assert_eq!(V2_SCHEMA.matches(since).count(), 2, "the v2 schema changed");
        let schema = V2_SCHEMA.replace(since, "");
        let dir = tempfile::tempdir().unwrap();
        let f = v2_reads_v1(dir.path(), &dir.path().join("java-v2"), &schema);
        assert!(!f.yes(), "{}", f.answer);
        assert!(f.measured);
    }

    #[test]
    fn the_null_values_are_the_specification_s() {
        use super::super::super::v2::{appended_to, ATTRIBUTION, MATCH_ID};
        let null = |message| null_value(&appended_to(message).unwrap());
        assert_eq!(null(MATCH_ID.message), -(1i128 << 63));
        assert_eq!(null(ATTRIBUTION.message), (1i128 << 32) - 1);
    }
}
