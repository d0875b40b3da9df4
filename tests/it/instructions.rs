//! `--instructions`: counts under Callgrind attached to the run's rows (a twin counts what its
//! original does, the +5% control about 5% more: what it was built to do), and
//! `report --baseline --fail-if-more-instructions`, which passes a run against itself and fails
//! a 2% increase planted in one format's rows. Skipped (with a line) where valgrind is missing;
//! the bootstrap installs it.

use std::path::Path;

use md_shootout::gen::{self, GenOptions};

use super::common::shootout;

fn has_valgrind() -> bool {
    std::process::Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The CSV's rows as maps of column to cell.
fn rows(path: &Path) -> Vec<std::collections::HashMap<String, String>> {
    let mut r = csv::Reader::from_path(path).unwrap();
    let header = r.headers().unwrap().clone();
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            header
                .iter()
                .map(str::to_owned)
                .zip(rec.iter().map(str::to_owned))
                .collect()
        })
        .collect()
}

fn cell(rows: &[std::collections::HashMap<String, String>], format: &str, column: &str) -> f64 {
    let row = rows.iter().find(|r| r["format"] == format).unwrap();
    row[column]
        .parse()
        .unwrap_or_else(|_| panic!("{format} {column}: {:?}", row[column]))
}

/// `path` with `column` of `format`'s rows multiplied by `by`.
fn planted(path: &Path, out: &Path, format: &str, column: &str, by: f64) {
    let mut r = csv::Reader::from_path(path).unwrap();
    let header = r.headers().unwrap().clone();
    let (f, c) = (
        header.iter().position(|h| h == "format").unwrap(),
        header.iter().position(|h| h == column).unwrap(),
    );
    let mut w = csv::Writer::from_path(out).unwrap();
    w.write_record(&header).unwrap();
    for rec in r.records() {
        let mut rec: Vec<String> = rec.unwrap().iter().map(str::to_owned).collect();
        if rec[f] == format {
            rec[c] = (rec[c].parse::<f64>().unwrap() * by).to_string();
        }
        w.write_record(&rec).unwrap();
    }
    w.flush().unwrap();
}

#[test]
fn callgrind_counts_the_passes_and_the_gate_reads_them() {
    if !has_valgrind() {
        eprintln!("skipped: valgrind is not installed (scripts/bootstrap.sh installs it)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("day.pcap");
    let opts = GenOptions {
        packets: 3_000,
        seed: 5,
        ..GenOptions::default()
    };
    gen::generate_file(&opts, &input).unwrap();
    let csv = dir.path().join("runs.csv");
    let out = shootout(&[
        "run",
        input.to_str().unwrap(),
        "--formats",
        "raw",
        "--window",
        "512",
        "--instructions",
        "callgrind",
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(
        printed.contains("instructions per packet of the batch passes (callgrind"),
        "{printed}"
    );
    let r = rows(&csv);
    for f in ["raw", "raw.twin", "raw.plus5"] {
        let row = r.iter().find(|x| x["format"] == f).unwrap();
        assert_eq!(row["instr_source"], "callgrind", "{f}");
    }
    for column in ["ser_instr", "de_instr", "de_all_instr"] {
        let (raw, twin, plus5) = (
            cell(&r, "raw", column),
            cell(&r, "raw.twin", column),
            cell(&r, "raw.plus5", column),
        );
        // Encoding a packet, or reading one back, takes more than a handful of instructions.
        assert!(raw > 20.0, "{column}: {raw}");
        // The twin is the same code on the same windows: within a few instructions a window.
        assert!(
            (twin / raw - 1.0).abs() < 0.005,
            "{column}: twin {twin} against {raw}"
        );
        // The control does one unit in 20 twice.
        let ratio = plus5 / raw;
        assert!((1.03..1.07).contains(&ratio), "{column}: control {ratio}");
    }

    // The gate: a run against itself passes; 2% more de_all instructions in one format fails.
    let report = |new: &Path, pct: &str| {
        shootout(&[
            "report",
            new.to_str().unwrap(),
            "--baseline",
            csv.to_str().unwrap(),
            "--fail-if-more-instructions",
            pct,
            "--out",
            dir.path().join("report").to_str().unwrap(),
        ])
    };
    let same = report(&csv, "1");
    assert_eq!(
        same.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&same.stderr)
    );
    assert!(String::from_utf8_lossy(&same.stdout).contains("none with more than 1% more"));
    let grown = dir.path().join("grown.csv");
    planted(&csv, &grown, "raw", "de_all_instr", 1.02);
    let failed = report(&grown, "1");
    assert_eq!(
        failed.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&failed.stderr)
    );
    let said = String::from_utf8_lossy(&failed.stdout);
    assert!(
        said.contains("more instructions: raw") && said.contains("+2.00%"),
        "{said}"
    );
    // The same 2% under a 3% limit passes.
    assert_eq!(report(&grown, "3").status.code(), Some(0));

    // Counts of another source are never compared: nothing left to compare is refused.
    let other = dir.path().join("pmu.csv");
    let text = std::fs::read_to_string(&csv)
        .unwrap()
        .replace(",callgrind", ",pmu");
    std::fs::write(&other, text).unwrap();
    let refused = report(&other, "1");
    assert_eq!(refused.status.code(), Some(2));
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains("counted by pmu against the baseline's callgrind"),
        "{said}"
    );
}

#[test]
fn a_source_the_machine_lacks_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("day.pcap");
    gen::generate_file(
        &GenOptions {
            packets: 50,
            ..GenOptions::default()
        },
        &input,
    )
    .unwrap();
    // This VM has no hardware counters; where a machine has them, the run goes ahead.
    let out = shootout(&[
        "run",
        input.to_str().unwrap(),
        "--formats",
        "raw",
        "--instructions",
        "pmu",
    ]);
    if out.status.success() {
        return;
    }
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(said.trim().lines().count(), 1, "{said}");
    assert!(
        said.contains("--instructions pmu") && said.contains("callgrind"),
        "{said}"
    );
}
