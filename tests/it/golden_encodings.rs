//! The bytes each schema-compiled format writes, against golden hashes: Cap'n Proto (both
//! framings), FlatBuffers (flatc's and planus's), SBE, protobuf (prost's, Google's and buffa's),
//! Avro, Bebop, and any other that names a schema ([`formats`]), on the first [`PACKETS`] packets of each bundled capture, and on the cross-language sample (one
//! message of every kind first, so every union member and template is written).
//!
//! The expected hashes in `tests/data/golden-encodings.txt` were made by the code before the
//! schemas were generated from the message table (issue 47, item 5: the hand-written
//! `schemas/marketdata.*`), so a generated schema that moves a field id, an ordinal, a vtable
//! slot, a union tag or an SBE offset fails here. They are written (`GOLDEN_ENCODINGS=write`)
//! only when a format's bytes are meant to change.

use std::fmt::Write as _;
use std::path::Path;

use md_shootout::capability::cross_language;
use md_shootout::model::Packet;
use sha2::{Digest, Sha256};

/// How many packets of each capture are encoded.
const PACKETS: usize = 2000;

/// The formats whose bytes come from a compiled schema: every packet format whose descriptor names
/// a schema document, but those that trust their producer (each writes its checked twin's bytes).
/// A new one is picked up from its file; its golden lines are written from its first output
/// (`GOLDEN_ENCODINGS=write`, the other lines unchanged) and checked by its other-language reader.
fn formats() -> Vec<&'static str> {
    use md_shootout::formats::{descriptors, Unit};
    (descriptors().iter())
        .filter(|d| d.unit == Unit::Packet && d.documented.schema.is_some())
        .filter(|d| !d.trusts_producer())
        .map(|d| d.name)
        .collect()
}

/// The captures under data/, and whether each is cut short at its end (read leniently).
const CAPTURES: [(&str, bool); 3] = [
    ("DEEP10.pcap.gz", true),
    ("20180127_IEXTP1_TOPS1.6.pcap.gz", false),
    ("sample-deep-plus.pcapng.gz", false),
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// One line per format: `SET FORMAT PACKETS BYTES SHA256`, the hash over every packet's bytes,
/// each preceded by its length (u64, little-endian), so a byte moved between packets shows.
fn lines(set: &str, packets: &[Packet], out: &mut String) {
    for format in formats() {
        let units =
            cross_language::encode(format, packets).unwrap_or_else(|| panic!("no format {format}"));
        let mut hash = Sha256::new();
        let mut total = 0;
        for unit in &units {
            hash.update((unit.len() as u64).to_le_bytes());
            hash.update(unit);
            total += unit.len();
        }
        let digest: String = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
        writeln!(out, "{set} {format} {} {total} {digest}", units.len()).unwrap();
    }
}

#[test]
fn schema_compiled_formats_write_the_golden_bytes() {
    let mut got = String::new();
    for (file, lenient) in CAPTURES {
        let packets =
            cross_language::first_packets(&root().join("data").join(file), lenient, PACKETS)
                .unwrap();
        assert_eq!(packets.len(), PACKETS, "{file}");
        lines(file, &packets, &mut got);
    }
    lines(
        "cross-language-sample",
        &cross_language::sample().unwrap(),
        &mut got,
    );

    let path = root().join("tests/data/golden-encodings.txt");
    if std::env::var_os("GOLDEN_ENCODINGS").is_some_and(|v| v == "write") {
        std::fs::write(&path, &got).unwrap();
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    for (want, got) in want.lines().zip(got.lines()) {
        assert_eq!(got, want, "the bytes changed (got, golden)");
    }
    assert_eq!(got.lines().count(), want.lines().count());
}
