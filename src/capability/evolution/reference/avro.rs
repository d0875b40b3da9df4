//! Avro's evolution as Apache Avro's Python implementation reads it (PyPI `avro`, pinned by
//! scripts/bootstrap.sh into tools/avro-venv, the cross-language check's reader). The bytes are
//! the Rust check's (`evolution::avro`): the v2 writer's datums and the codec's, one per packet of
//! `harness::source()`. `xlang/avro_read.py` reads them with the writer's schema and resolves
//! them into the reader's, as the specification's "Schema Resolution" says a reader must: a union
//! branch is matched by the record's name, a writer's field the reader lacks is skipped, a
//! reader's field the writer lacks takes the reader schema's default. Each message comes back
//! named by the reader's record it was resolved into, so a branch taken by shape is caught.

use std::path::Path;

use serde_json::Value as Json;

use super::super::avro::{write, V2_TEXT};
use super::super::harness::source;
use super::judge::{backward, finding, forward, take_appended, FormatEvolution, Read};
use crate::capability::cross_language::avro::{describe, read_resolved, AVRO_PY};
use crate::capability::cross_language::compare::{self, Bytes};
use crate::capability::cross_language::tool::{self, ToolError};
use crate::capability::finding::Finding;
use crate::formats::avro::{Avro, SCHEMA_TEXT};
use crate::formats::window::{Packets, WindowFormat};

/// Both directions, with the schemas as build.rs generates them, in `dir`.
fn check(dir: &Path) -> FormatEvolution {
    FormatEvolution {
        reference: format!("Python avro {AVRO_PY}"),
        crate_under_test: "apache-avro 0.22".into(),
        crate_defect: "a union value resolved into the first reader branch it fits, not by its \
                       record's name"
            .into(),
        forward: v1_reads_v2(dir, V2_TEXT, SCHEMA_TEXT),
        backward: v2_reads_v1(dir, SCHEMA_TEXT, V2_TEXT),
    }
}

// Here, beside the reference check that reads the crate check's v2 writer (`evolution::avro`).
evolves!(Avro => super::super::avro::check(), reference |scratch: &Path| {
    Some(check(&scratch.join("avro-evolution")))
};);

/// The v2 writer's bytes of every source packet, read with `writer` (the v2 schema unless a test
/// says otherwise) resolved into `reader` (v1).
fn v1_reads_v2(dir: &Path, writer: &str, reader: &str) -> Finding {
    let units: Vec<Vec<u8>> = source().iter().map(write).collect();
    let read = run(&units, dir, (writer, reader));
    judge(
        read,
        "the v2 writer (capability::evolution::avro)",
        "v2",
        "v1",
        |r| forward(&source(), &r.packets),
    )
}

/// The codec's (v1) bytes of every source packet, read with `writer` (v1) resolved into
/// `reader` (the v2 schema unless a test says otherwise).
fn v2_reads_v1(dir: &Path, writer: &str, reader: &str) -> Finding {
    let units = Packets::<Avro>::default().units(&source());
    let read = run(&units, dir, (writer, reader));
    judge(read, "formats::avro", "v1", "v2", |r| {
        backward(
            &source(),
            r,
            |a| i128::from(a.default),
            "the reader schema's defaults",
        )
    })
}

/// What the library read of `units`, the appended fields taken out of each message.
fn run(units: &[Vec<u8>], dir: &Path, (writer, reader): (&str, &str)) -> Result<Read, ToolError> {
    tool::make_dir(dir)?;
    let mut lines = read_resolved(units, dir, writer, Some(reader))?;
    let mut appended = Vec::new();
    for packet in &mut lines {
        let messages = packet.get_mut("messages").and_then(Json::as_array_mut);
        for m in messages.into_iter().flatten() {
            let Some(tagged) = m.as_object_mut().filter(|o| o.len() == 1) else {
                continue;
            };
            for (name, fields) in tagged.iter_mut() {
                if let Some(fields) = fields.as_object_mut() {
                    appended.push(take_appended(&compare::camel(name), fields));
                }
            }
        }
    }
    let packets =
        compare::tagged_packets(&lines, Bytes::Text, false).map_err(|e| ToolError::Output {
            program: "avro_read.py".into(),
            detail: e,
        })?;
    Ok(Read { packets, appended })
}

/// The finding: what the library read, judged by `judge`, decided by the library (its version)
/// on `written`'s bytes with the `writer` and `reader` versions of the schema.
fn judge(
    read: Result<Read, ToolError>,
    written: &str,
    writer: &str,
    reader: &str,
    judge: impl FnOnce(&Read) -> Result<String, String>,
) -> Finding {
    let library = describe().unwrap_or_else(|e| format!("Apache Avro for Python ({e})"));
    let decided_by = format!(
        "capability::evolution::reference::avro: {library}, xlang/avro_read.py with the \
         writer's schema {writer} and the reader's {reader} (iex.avsc v1, iex_v2.avsc v2), on \
         the bytes of {written}"
    );
    finding(read, |read| judge(&read), decided_by)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The specification's resolution, by the reference implementation: both directions hold
    /// on the bytes on which apache-avro 0.22 says no (`evolution::avro`).
    #[test]
    fn python_avro_resolves_both_ways() {
        let found = FormatEvolution::evolving(check);
        found.backward.assert_says("TradeReport.match_id = 0");
        assert!(found.forward.decided_by.contains(AVRO_PY));
        assert_eq!(found.reference, format!("Python avro {AVRO_PY}"));
    }

    /// v2 bytes read as if written with v1: the spec resolves from the schema the reader is
    /// told, so the appended `match_id` is taken for what follows and the check says no.
    #[test]
    fn v2_bytes_with_the_wrong_writer_schema_say_no() {
        let dir = tempfile::tempdir().unwrap();
        let f = v1_reads_v2(dir.path(), SCHEMA_TEXT, SCHEMA_TEXT);
        assert!(!f.yes(), "{}", f.answer);
        assert!(f.measured);
    }

    /// A v2 reader schema whose appended field has no default: the specification says the
    /// reader signals an error where the writer's record lacks the field.
    #[test]
    fn a_reader_schema_without_the_default_says_no() {
        let with = "{\"name\": \"match_id\", \"type\": \"long\", \"default\": 0, ";
        let without = "{\"name\": \"match_id\", \"type\": \"long\", ";
        assert!(
            V2_TEXT.contains(with),
            "the v2 schema's match_id line changed"
        );
        let reader = V2_TEXT.replacen(with, without, 1);
        let dir = tempfile::tempdir().unwrap();
        let f = v2_reads_v1(dir.path(), SCHEMA_TEXT, &reader);
        assert!(!f.yes(), "{}", f.answer);
        f.assert_says("No default value for field match_id");
    }

    /// A reader that took a branch by shape is caught: the v1 bytes resolved into a reader
    /// schema in which Short Sale Price Test's record is renamed have no branch of its name.
    #[test]
    fn a_record_without_its_name_in_the_reader_says_no() {
        let reader = V2_TEXT.replacen(
            "\"name\": \"ShortSalePriceTest\"",
            "\"name\": \"ShortSalePriceTest2\"",
            1,
        );
        assert_ne!(reader, V2_TEXT);
        let dir = tempfile::tempdir().unwrap();
        let f = v2_reads_v1(dir.path(), SCHEMA_TEXT, &reader);
        assert!(!f.yes(), "{}", f.answer);
    }
}
