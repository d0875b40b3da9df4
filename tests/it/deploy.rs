//! deploy/parallel/run-day.sh for real: 4 shards of the binary these tests built, run by GNU
//! parallel each pinned to a CPU, then `merge`; the merged run must say what one process says
//! (the same counts, checks and histogram totals).

use std::path::Path;
use std::process::Command;

use md_shootout::gen::{self, GenOptions};

use crate::common::{csv_rows, latencies_are_the_units};
use crate::jobs::{SAME, SPLIT};

#[test]
fn four_shards_by_gnu_parallel_merge_into_what_one_process_measures() {
    let have = |c: &str| {
        Command::new("sh")
            .args(["-c", &format!("command -v {c}")])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    assert!(
        have("parallel") && have("taskset"),
        "GNU parallel and taskset are needed (scripts/bootstrap.sh installs parallel)"
    );
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("day.pcapng.gz");
    let opts = GenOptions {
        packets: 5_000,
        seed: 8,
        symbols: 40,
        ..GenOptions::default()
    };
    gen::generate_file(&opts, &input).unwrap();
    let formats = ["--formats", "raw,sbe,flatbuffers,postcard"];
    let exe = env!("CARGO_BIN_EXE_shootout");

    let one_csv = dir.path().join("one.csv");
    let one_summary = dir.path().join("one-summary.csv");
    let mut args = vec![
        "run",
        input.to_str().unwrap(),
        "--csv",
        one_csv.to_str().unwrap(),
        "--summary",
        one_summary.to_str().unwrap(),
    ];
    args.extend(SPLIT);
    args.extend(formats);
    crate::common::shootout_ok(&args);

    let out = dir.path().join("day");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/parallel/run-day.sh");
    let o = Command::new(&script)
        .env("SHOOTOUT", exe)
        .args([input.to_str().unwrap(), "4", out.to_str().unwrap(), "--"])
        .args(SPLIT)
        .args(formats)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let table = String::from_utf8_lossy(&o.stdout);
    for i in 1..=4 {
        assert!(table.contains(&format!("share {i}/4 on ")), "{table}");
        assert!(out.join(format!("parts/part-{i}-of-4.json")).is_file());
    }
    let merged = out.join("merged");
    assert_eq!(
        std::fs::read_to_string(merged.join("summary.csv")).unwrap(),
        std::fs::read_to_string(&one_summary).unwrap(),
        "the aggregation every format agreed on"
    );
    let (one, four) = (csv_rows(&one_csv), csv_rows(&merged.join("results.csv")));
    assert_eq!(one.len(), four.len());
    for (a, b) in one.iter().zip(&four) {
        for c in SAME {
            assert_eq!(a[c], b[c], "{c} of {}", a["format"]);
        }
        assert_eq!(b["jobs"], "4");
        for side in ["ser", "de"] {
            let log =
                std::fs::read(merged.join(format!("hist/{}.{side}.hlog", b["format"]))).unwrap();
            let h = md_shootout::report::dist::parse_log(&log).unwrap();
            latencies_are_the_units(&b["format"], h.len(), &a["units"], side);
        }
    }
}
