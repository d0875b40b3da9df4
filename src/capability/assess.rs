//! Every format's [`Row`], assessed now: the documented cells from its [`Documented`], and the
//! measured ones by running the checks (evolution, other languages, validation, allocation while
//! decoding). Takes seconds: `shootout formats` runs it on demand and bench once per results
//! folder.

use std::path::Path;

use super::evolution::{self, by_name, ByName, Evolution, Evolves};
use super::finding::Finding;
use super::row::Row;
use super::{cross_language, validation};
use crate::alloc_count::{allocated, counting};
use crate::formats::{Aggregate, Checksum, Documented, WindowFormat};
use crate::model::Packet;

/// Where the cross-language checks keep their scratch files when no folder is given: one that
/// outlives the process, so the compiled SBE Java decoders (keyed by the schema) are reused.
pub fn default_scratch() -> std::path::PathBuf {
    std::env::temp_dir().join("md-shootout-formats")
}

/// Every format's row, on the checks' own sample (`cross_language::sample`: one packet of every
/// message kind, then the first packets of the bundled DEEP, TOPS and DEEP+ captures).
pub fn assess_sample(scratch: &Path) -> Result<Vec<Row>, String> {
    let packets = cross_language::shared_sample()?;
    std::fs::create_dir_all(scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
    Ok(assess(packets, scratch))
}

/// Every format's row, in the registry's order. `packets` is what the zero-copy check decodes;
/// scratch files of the cross-language checks go under `scratch`.
pub fn assess(packets: &[Packet], scratch: &Path) -> Vec<Row> {
    struct Rows<'a>(&'a [Packet], &'a Path);
    impl ByName for Rows<'_> {
        type Out = Row;
        fn call<W: WindowFormat, E: Evolves>(&self) -> Row {
            row::<W>(self.0, self.1)
        }
    }
    let rows = Rows(packets, scratch);
    let names = crate::formats::names().into_iter();
    names
        .map(|name| by_name(name, &rows).expect("a registry's name"))
        .collect()
}

/// The row of `W`, a window format or a packet format through `Packets`: its documented cells,
/// and the measured ones on `packets` (a window of them, or each alone).
pub fn row<W: WindowFormat>(packets: &[Packet], scratch: &Path) -> Row {
    let evolution = evolution_of(W::NAME);
    let read = cross_language::read_by(W::NAME, scratch).unwrap_or_else(|| {
        cross_language::CrossLanguage {
            languages: Vec::new(),
            findings: vec![(
                "other languages".into(),
                Finding::measured(
                    false,
                    "no cross-language check exists for this format",
                    "capability::cross_language",
                ),
            )],
        }
    });
    let format = evolution::of_the_format(W::NAME, &evolution, scratch);
    let cells = [
        schema(W::DOCUMENTED),
        zero_copy::<W>(packets),
        validation::validates::<W>(),
        evolution.forward,
        evolution.backward,
    ];
    let mut row =
        Row::new(W::NAME, cells, read.languages, &read.findings).with_evolution_format(format);
    row.code_path = W::code_path().map(String::from);
    row.lossy = W::LOSSY.map(|l| l.reason.to_owned());
    row
}

/// The `zero_copy` cell: the documentation says decoding reads in place, and the counting
/// allocator sees no allocation in either decode of `packets` (after one warm-up pass, which may
/// grow the codec's reused buffers once).
fn zero_copy<W: WindowFormat>(packets: &[Packet]) -> Finding {
    let copies = "decoding copies the message into values of its own";
    let doc = W::DOCUMENTED;
    if let Some(no) = Finding::disclaimed(doc, |doc| doc.reads_in_place, copies) {
        return no;
    }
    if !counting() {
        return Finding::documented(
            true,
            "reads in place (allocations not counted in this process)",
            doc.source,
        );
    }
    let mut format = W::default();
    let mut bytes = Vec::new();
    format.encode_window(packets, &mut bytes);
    let (mut aggregate, mut checksum) = (Aggregate::new(), Checksum::default());
    let mut decode = |format: &mut W| -> Result<(), String> {
        format
            .decode_window(&bytes, &mut aggregate)
            .map_err(|e| e.to_string())?;
        format
            .decode_window_all(&bytes, &mut checksum)
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    let decided_by = format!(
        "capability::assess: the counting allocator over both decodes of {} packets, after a \
         warm-up pass; reading in place: {}",
        packets.len(),
        doc.source
    );
    // The warm-up pass, then the counted one.
    let before = decode(&mut format).map(|()| allocated());
    let counted = before.and_then(|before| decode(&mut format).map(|()| allocated() - before));
    match counted {
        Err(e) => Finding::measured(
            false,
            format!("decoding its own bytes failed: {e}"),
            decided_by,
        ),
        Ok(a) if a.count == 0 => Finding::measured(
            true,
            "reads in place and allocated nothing decoding",
            decided_by,
        ),
        Ok(a) => Finding::measured(
            false,
            format!(
                "reads in place but allocated {} times ({} bytes) decoding {} packets",
                a.count,
                a.bytes,
                packets.len()
            ),
            decided_by,
        ),
    }
}

/// The evolution check of the format named `name`, or a measured `no` in both directions where
/// none exists (a format without one cannot claim it).
fn evolution_of(name: &str) -> Evolution {
    evolution::check(name).unwrap_or_else(|| {
        let none = Finding::measured(
            false,
            "no evolution check exists for this format",
            "capability::evolution",
        );
        Evolution {
            forward: none.clone(),
            backward: none,
        }
    })
}

/// The `schema` cell: documented.
fn schema(doc: Documented) -> Finding {
    match doc.schema {
        Some(schema) => Finding::documented(true, schema, doc.source),
        None => Finding::documented(
            false,
            "the Rust types are the schema: no schema document another language could generate a reader from",
            doc.source,
        ),
    }
}
