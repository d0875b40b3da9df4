//! The formats that trust their producer (`flatbuffers-unverified`, `rkyv-unchecked`) in the
//! report: labelled wherever they appear, left out of the verdict unless `--trusted-producer`,
//! and set beside their checked twins with what the verifier costs, from per-run ratios.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::report::{columns_now, fx, write_csv, Fixture};

/// Three runs of raw, the two checked twins and the two trusting formats. Per run: ser p50,
/// de p50, de_all p50, then ser, de, de_all batch (ns per packet).
fn fixture() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("d");
    std::fs::create_dir_all(&d).unwrap();
    type Run = (u64, u64, u64, f64, f64, f64);
    let table: [(&str, [Run; 3]); 5] = [
        ("raw", [(10, 10, 12, 4.0, 3.0, 5.0); 3]),
        (
            "flatbuffers",
            [
                (300, 200, 400, 290.0, 190.0, 390.0),
                (300, 240, 400, 290.0, 190.0, 390.0),
                (300, 210, 400, 290.0, 190.0, 390.0),
            ],
        ),
        (
            // de p50 ratios per run 200/100, 240/160, 210/70: 2.0, 1.5, 3.0 (median 2.0, where
            // the medians' ratio would be 210/100 = 2.1); ser 10 ns from the twin's.
            "flatbuffers-unverified",
            [
                (310, 100, 300, 290.0, 95.0, 295.0),
                (310, 160, 300, 290.0, 95.0, 295.0),
                (310, 70, 300, 290.0, 95.0, 295.0),
            ],
        ),
        ("rkyv", [(250, 150, 300, 240.0, 140.0, 290.0); 3]),
        ("rkyv-unchecked", [(250, 50, 200, 240.0, 40.0, 190.0); 3]),
    ];
    let mut rows = Vec::new();
    for (i, run) in ["t1", "t2", "t3"].into_iter().enumerate() {
        for (format, runs) in &table {
            let (ser, de, all, ser_b, de_b, all_b) = runs[i];
            rows.push(Fixture {
                de_all_p50: Some(all),
                batch: Some((ser_b, de_b, all_b)),
                clock: Some("tsc"),
                ..fx(
                    run,
                    "data/day9.pcap.gz",
                    "normal",
                    format,
                    "h",
                    ser,
                    de,
                    1,
                    0.1,
                )
            });
        }
    }
    write_csv(&d.join("runs.csv"), &columns_now(), &rows);
    (dir, d.join("runs.csv"))
}

fn report(csv: &Path, out: &Path, extra: &[&str]) -> String {
    let run = Command::new(env!("CARGO_BIN_EXE_shootout"))
        .arg("report")
        .arg(csv)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    std::fs::read_to_string(out.join("summary.md")).unwrap()
}

/// The verdict's rows of summary.md (before the first section heading).
fn verdict_rows(md: &str) -> Vec<&str> {
    md.lines()
        .take_while(|l| !l.starts_with("## "))
        .filter(|l| l.starts_with("| fastest") || l.starts_with("| best"))
        .collect()
}

#[test]
fn trusting_formats_are_labelled_left_out_of_the_verdict_and_set_beside_their_twins() {
    let (dir, csv) = fixture();
    let md = report(&csv, &dir.path().join("out"), &[]);
    let verdict = verdict_rows(&md).join("\n");
    // Left out, in the section's ranking order (rkyv-unchecked is the fastest).
    assert!(
        !verdict.contains("unverified") && !verdict.contains("unchecked"),
        "{verdict}"
    );
    // rkyv decodes selectively in 140 ns (batch), flatbuffers in 190; the trusting formats'
    // 40 and 95 are not ranked.
    assert!(
        verdict.contains(
            "| fastest selective decode | de batch, ns/packet | rkyv: 140 | flatbuffers: 190 |"
        ),
        "{verdict}"
    );
    assert!(
        md.contains(
            "Left out: rkyv-unchecked ‡, flatbuffers-unverified ‡: each trusts its producer \
             (decodes without verifying); report --trusted-producer ranks them too."
        ),
        "{md}"
    );
    // Labelled in the tables, and the mark explained.
    assert!(md.contains("| flatbuffers-unverified ‡ | 3 |"), "{md}");
    assert!(md.contains("| rkyv-unchecked ‡ | de | "), "{md}");
    assert!(md.contains("‡ trusts its producer: decoded without the format's verifier"));

    // What verification costs: per-run ratios, their median and min–max; p50s 10 ns apart
    // are a difference, not a ratio; batch figures are divided.
    assert!(md.contains("What verification costs"), "{md}");
    for row in [
        "| flatbuffers | flatbuffers-unverified ‡ | ser | 300 | 310 | -10 ns: under 3 clock steps | 290 | 290 | 1.00x |",
        "| flatbuffers | flatbuffers-unverified ‡ | de | 210 | 100 | 2.00x (1.50–3.00x) | 190 | 95 | 2.00x |",
        "| flatbuffers | flatbuffers-unverified ‡ | de_all | 400 | 300 | 1.33x | 390 | 295 | 1.32x |",
        "| rkyv | rkyv-unchecked ‡ | de | 150 | 50 | 3.00x | 140 | 40 | 3.50x |",
    ] {
        assert!(md.contains(row), "{row}\n{md}");
    }
    // The charts' labels carry the mark and their titles say what it means.
    let svg =
        std::fs::read_to_string(dir.path().join("out/pct-day9.pcap.gz-normal-de.svg")).unwrap();
    assert!(svg.contains("rkyv-unchecked ‡") && svg.contains("‡ trusts its producer"));

    // Asked for, they are ranked like any other format.
    let md = report(&csv, &dir.path().join("trusted"), &["--trusted-producer"]);
    let verdict = verdict_rows(&md).join("\n");
    assert!(
        verdict.contains("| fastest selective decode | de batch, ns/packet | rkyv-unchecked ‡: 40 | flatbuffers-unverified ‡: 95 |"),
        "{verdict}"
    );
    assert!(!md.contains("Left out:"), "{md}");
}
