//! Allocations per unit, through a real `shootout run`: raw allocates nothing on any side, and
//! bitcode's decode, which returns an owned `Vec` of messages (bitcode cannot decode into an
//! existing value), allocates; the report shows the figures, and CSVs from before them load.

use std::collections::HashMap;
use std::path::Path;

use md_shootout::gen::{self, GenOptions};

use crate::common::{shootout_ok, ALLOC_COLUMNS as COLUMNS};

/// Each row's allocation columns by format, parsed; every cell must be filled.
fn allocations(csv: &Path) -> HashMap<String, [f64; 6]> {
    let mut r = csv::Reader::from_path(csv).unwrap();
    let header = r.headers().unwrap().clone();
    let at = |c: &str| header.iter().position(|h| h == c).unwrap();
    // A format's row over every message type (a run per message adds rows by type, which
    // count no allocations).
    r.records()
        .map(Result::unwrap)
        .filter(|rec| rec[at("msg_type")].is_empty())
        .map(|rec| {
            let cells = COLUMNS.map(|c| {
                rec[at(c)]
                    .parse::<f64>()
                    .unwrap_or_else(|e| panic!("{c} of {}: {e}", &rec[at("format")]))
            });
            (rec[at("format")].to_owned(), cells)
        })
        .collect()
}

fn run(input: &Path, csv: &Path, more: &[&str]) -> String {
    let mut args = vec![
        "run",
        input.to_str().unwrap(),
        "--formats",
        "raw,bitcode,capnp-packed",
        "--window",
        "1000",
        "--no-stored-size",
        "--csv",
        csv.to_str().unwrap(),
    ];
    args.extend(more);
    shootout_ok(&args)
}

#[test]
fn raw_allocates_nothing_and_bitcodes_decode_does_per_packet_and_per_message() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("day.pcapng");
    let opts = GenOptions {
        packets: 5_000,
        ..GenOptions::default()
    };
    gen::generate_file(&opts, &input).unwrap();

    let packets = dir.path().join("packets.csv");
    let table = run(&input, &packets, &[]);
    assert!(
        table.contains("allocations per packet after the warm-up"),
        "{table}"
    );
    let rows = allocations(&packets);
    assert_eq!(rows["raw"], [0.0; 6], "raw allocates nothing on any side");
    let [ser, de, de_all, ser_bytes, de_bytes, de_all_bytes] = rows["bitcode"];
    assert_eq!(
        (ser, ser_bytes),
        (0.0, 0.0),
        "bitcode's encode reuses its buffer"
    );
    // One `Vec` per packet that holds messages: below one per packet (heartbeats hold none).
    for (count, bytes) in [(de, de_bytes), (de_all, de_all_bytes)] {
        assert!(count > 0.5 && count <= 1.0, "{count}");
        assert!(bytes > count, "{bytes} bytes in {count} allocations");
    }

    // Per message, each unit is a packet of one message: exactly one `Vec` each.
    let messages = dir.path().join("messages.csv");
    run(&input, &messages, &["--unit", "message"]);
    let rows = allocations(&messages);
    assert_eq!(rows["raw"], [0.0; 6]);
    assert_eq!(rows["bitcode"][..3], [0.0, 1.0, 1.0]);

    // The report shows them; a section from a CSV without the columns has no such table.
    let out = dir.path().join("report");
    shootout_ok(&[
        "report",
        packets.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(
        md.contains("Allocations per packet after the warm-up"),
        "{md}"
    );
    let raw_row = md
        .lines()
        .find(|l| l.starts_with("| raw | 0.000 |"))
        .unwrap_or_else(|| panic!("no allocation row for raw in {md}"));
    assert!(raw_row.ends_with("| 0.0 | 0.0 | 0.0 |"), "{raw_row}");
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(html.contains("Allocations per packet"));
}

#[test]
fn a_csv_from_before_the_columns_loads_without_the_table() {
    let (dir, old, _) = crate::report::fixtures();
    let out = dir.path().join("out");
    shootout_ok(&[
        "report",
        old.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(
        md.contains("| sbe |") && !md.contains("Allocations per"),
        "{md}"
    );
}
