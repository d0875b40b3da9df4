//! The decision beyond speed, end to end: `shootout formats` (the capability cells, measured by
//! running each check and the other languages' reference tools, which scripts/bootstrap.sh
//! installs), and `report --require`, which ranks only the formats that meet the requirements.

use super::common::{capabilities, place_capabilities, shootout, shootout_ok};

const RUST_ONLY: [&str; 5] = ["rkyv", "bitcode", "postcard", "wincode", "raw"];

/// The formats each verdict row of summary.md names: the winner and runner-up (the format
/// before `:`), or a tie's group (`tie: wincode 116.9, borsh 138.8`, each name before its
/// figure; its runner-up cell is `-`).
fn ranked(summary_md: &str) -> Vec<String> {
    summary_md
        .lines()
        .take_while(|l| !l.starts_with("## "))
        .filter(|l| l.starts_with("| ") && !l.starts_with("| need"))
        .flat_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            if let Some(group) = cells[3].strip_prefix("tie: ") {
                return group
                    .split(", ")
                    .filter_map(|e| e.rsplit_once(' ').map(|(f, _)| f.to_string()))
                    .collect();
            }
            [cells[3], cells[4]]
                .into_iter()
                .filter_map(|c| c.split_once(": ").map(|(f, _)| f.to_string()))
                .collect::<Vec<_>>()
        })
        .collect()
}

fn formats_json() -> serde_json::Value {
    let (printed, path) = capabilities();
    let printed: serde_json::Value = serde_json::from_str(printed).unwrap();
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(printed, written, "--json prints what --out writes");
    written
}

#[test]
fn formats_are_read_by_other_languages_and_evolve_as_measured_and_require_ranks_among_those_that_can(
) {
    let dir = tempfile::tempdir().unwrap();
    let rows = formats_json();
    place_capabilities(dir.path());
    let row = |name: &str| {
        rows.as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == name)
            .unwrap_or_else(|| panic!("{name} in formats.json"))
            .clone()
    };
    for name in [
        "capnp-unpacked",
        "capnp-packed",
        "flatbuffers",
        "protobuf",
        "protobuf-google",
        "planus",
    ] {
        assert_eq!(row(name)["read_by"], serde_json::json!(["C++"]), "{name}");
    }
    assert_eq!(row("sbe")["read_by"], serde_json::json!(["Java"]));
    for name in [
        "json",
        "msgpack",
        "cbor",
        "json-sonic",
        "json-simd",
        "arrow",
    ] {
        assert_eq!(
            row(name)["read_by"],
            serde_json::json!(["Python"]),
            "{name}"
        );
    }
    assert_eq!(row("borsh")["read_by"], serde_json::json!(["JavaScript"]));
    // The two JSON parsers whose path depends on the build or the CPU say which one ran.
    let path = |name: &str| row(name)["code_path"].as_str().unwrap_or("").to_string();
    assert!(
        path("json-sonic").starts_with("sonic-rs's "),
        "{}",
        path("json-sonic")
    );
    assert!(
        path("json-simd").starts_with("simd-json's "),
        "{}",
        path("json-simd")
    );
    assert!(row("json").get("code_path").is_none());
    for name in RUST_ONLY {
        assert_eq!(row(name)["read_by"], serde_json::json!([]), "{name}");
    }
    let starts = |name: &str, cell: &str, word: &str| {
        let answer = row(name)[cell].as_str().unwrap().to_string();
        assert!(answer.starts_with(word), "{name} {cell}: {answer}");
    };
    for cell in ["evolution_forward", "evolution_backward"] {
        starts("protobuf", cell, "yes");
        starts("protobuf-google", cell, "yes");
        starts("raw", cell, "no");
        starts("cbor", cell, "yes");
        // A window format's cells are measured as a packet format's are.
        starts("arrow", cell, "yes");
        let by = row("arrow")["decided_by"][cell]
            .as_str()
            .unwrap()
            .to_string();
        assert!(by.starts_with("capability::evolution::arrow "), "{by}");
    }
    // MessagePack's compact structs: a missing trailing field defaults, an unknown one is refused.
    starts("msgpack", "evolution_forward", "no");
    starts("msgpack", "evolution_backward", "yes");
    // The format's own evolution beside the crate's: Avro's by Python avro, SBE's by its Java
    // decoders, where apache-avro and the SBE Rust generator say no; no other row has one.
    for name in ["avro", "sbe"] {
        let format = &row(name)["evolution_format"];
        for direction in ["forward", "backward"] {
            let answer = format[direction]["answer"].as_str().unwrap_or("");
            assert!(answer.starts_with("yes"), "{name} {direction}: {answer}");
        }
    }
    starts("avro", "evolution_forward", "no");
    starts("sbe", "evolution_backward", "no");
    for r in rows.as_array().unwrap() {
        if !["avro", "sbe"].contains(&r["name"].as_str().unwrap()) {
            assert!(r["evolution_format"].is_null(), "{}", r["name"]);
        }
    }
    starts("raw", "zero_copy", "yes");
    starts("bitcode", "zero_copy", "no");
    starts("flatbuffers", "validates", "yes");
    // Every cell says what decided it.
    for r in rows.as_array().unwrap() {
        for cell in [
            "schema",
            "zero_copy",
            "validates",
            "evolution_forward",
            "evolution_backward",
            "read_by",
        ] {
            let by = r["decided_by"][cell].as_str().unwrap_or("");
            assert!(!by.is_empty(), "{} {cell}", r["name"]);
        }
    }

    // A run beside formats.json, then the verdict for "cross-language, evolution".
    let capture = dir.path().join("day.pcapng");
    shootout_ok(&[
        "gen",
        "--out",
        capture.to_str().unwrap(),
        "--packets",
        "3000",
        "--seed",
        "5",
    ]);
    let csv = dir.path().join("runs.csv");
    shootout_ok(&[
        "run",
        capture.to_str().unwrap(),
        "--csv",
        csv.to_str().unwrap(),
        "--warmup",
        "100",
        "--stored-size",
        "none",
    ]);
    let report = dir.path().join("report");
    shootout_ok(&[
        "report",
        csv.to_str().unwrap(),
        "--out",
        report.to_str().unwrap(),
        "--require",
        "cross-language,evolution",
    ]);
    let md = std::fs::read_to_string(report.join("summary.md")).unwrap();
    let named = ranked(&md);
    assert!(!named.is_empty(), "{md}");
    for f in &named {
        assert!(
            !RUST_ONLY.contains(&f.as_str()),
            "{f} ranked under cross-language, evolution:\n{md}"
        );
        assert_ne!(f, "sbe", "SBE's backward evolution is a measured no:\n{md}");
    }
    assert!(
        md.contains("- Required: cross-language, evolution."),
        "{md}"
    );
    for f in RUST_ONLY {
        assert!(
            md.contains(&format!("- Left out: {f}: read by no other language;")),
            "{f}:\n{md}"
        );
    }
    // The crate's answer leaves SBE out; the format's own is named beside it.
    assert!(
        md.contains(
            "- Left out: sbe: no backward evolution with the SBE 1.34.0 Rust generator (the \
             format has it: SBE 1.34.0 Java decoders says yes): no:"
        ),
        "{md}"
    );
    assert!(md.contains("| no (format yes) |"), "{md}");
    assert!(md.contains("## Capabilities"), "{md}");

    // Unconstrained, the same runs may crown a Rust-only format; the winners' capabilities follow.
    let open = dir.path().join("open");
    shootout_ok(&[
        "report",
        csv.to_str().unwrap(),
        "--out",
        open.to_str().unwrap(),
    ]);
    let md = std::fs::read_to_string(open.join("summary.md")).unwrap();
    assert!(!md.contains("- Required:"), "{md}");
    // Nothing is left out but the lossy formats, on one line, and the formats that trust their
    // producer (in the section's ranking order), on another.
    let left_out: Vec<&str> = md
        .lines()
        .filter(|l| l.starts_with("- Left out:"))
        .collect();
    assert_eq!(left_out.len(), 2, "{md}");
    for part in ["- Left out: dbn §: lossy", "report --lossy ranks it too"] {
        assert!(left_out[0].contains(part), "{part}: {md}");
    }
    for part in [
        "flatbuffers-unverified ‡",
        "rkyv-unchecked ‡",
        ": each trusts its producer (decodes without verifying); report --trusted-producer",
    ] {
        assert!(left_out[1].contains(part), "{part}: {md}");
    }
    // The first format the verdict names, a winner or in a tied group: its capabilities.
    let first = ranked(&md).into_iter().next().unwrap();
    assert!(
        md.contains(&format!("\n- {first}: ")),
        "{first}'s capabilities:\n{md}"
    );
}

#[test]
fn requirements_that_make_no_sense_or_lack_capabilities_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("runs.csv");
    std::fs::write(&csv, "").unwrap();
    let out_dir = dir.path().join("r");
    let out = shootout(&[
        "report",
        csv.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
        "--require",
        "fast",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("unknown requirement \"fast\""), "{err}");
    assert!(!out_dir.exists());
}
