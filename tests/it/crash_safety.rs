//! A run killed with SIGKILL at any point leaves only whole results: every CSV line a complete
//! row, the summary and histograms (.hgrm and .hlog) either absent or complete.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use md_shootout::gen::{self, GenOptions};

fn run_args<'a>(input: &'a str, out: &'a Path) -> Vec<String> {
    vec![
        "run".into(),
        input.into(),
        "--formats".into(),
        "sbe,capnp-packed,json".into(),
        "--csv".into(),
        out.join("runs.csv").display().to_string(),
        "--summary".into(),
        out.join("summary.csv").display().to_string(),
        "--hist-dir".into(),
        out.join("hist").display().to_string(),
    ]
}

/// Every CSV record has the header's width and the header is the one `run` writes.
fn assert_whole_rows(csv_path: &Path) -> usize {
    let text = std::fs::read_to_string(csv_path).unwrap();
    assert!(text.is_empty() || text.ends_with('\n'), "torn last line");
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let width = reader.headers().unwrap().len();
    assert_eq!(width, md_shootout::export::csv::COLUMNS.split(',').count());
    let mut rows = 0;
    for record in reader.records() {
        let record = record.expect("a parseable row");
        assert_eq!(record.len(), width, "a torn row: {record:?}");
        rows += 1;
    }
    rows
}

fn assert_absent_or_complete(out: &Path, complete_summary: &str) {
    let summary = out.join("summary.csv");
    if summary.exists() {
        assert_eq!(std::fs::read_to_string(&summary).unwrap(), complete_summary);
    }
    if let Ok(entries) = std::fs::read_dir(out.join("hist")) {
        for entry in entries {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue; // a killed writer's temporary; never read, removed by the next write
            }
            if name.ends_with(".hlog") {
                // The histogram itself: whole when it parses.
                let bytes = std::fs::read(&path).unwrap();
                assert!(
                    md_shootout::report::dist::parse_log(&bytes).is_ok(),
                    "{name} is cut short"
                );
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            assert!(text.contains("#[Buckets"), "{name} is cut short");
        }
    }
}

#[test]
fn sigkill_at_any_point_leaves_only_whole_results() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("day.pcapng");
    let opts = GenOptions {
        packets: 10_000,
        ..GenOptions::default()
    };
    gen::generate_file(&opts, &input).unwrap();
    let input = input.to_str().unwrap();
    let bin = env!("CARGO_BIN_EXE_shootout");

    // A complete run first: its summary is what any surviving summary must equal, and its
    // rows are already in the CSV every later run appends to.
    let out = dir.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    let started = Instant::now();
    let status = Command::new(bin)
        .args(run_args(input, &out))
        .status()
        .unwrap();
    assert!(status.success());
    let full = started.elapsed();
    let complete_summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let mut rows = assert_whole_rows(&out.join("runs.csv"));
    // Three formats, sbe's A/A twin and its positive control.
    const PER_RUN: usize = 5;
    assert_eq!(rows, PER_RUN);

    // Kill later runs at points spread over (and a little past) a whole run: eight of them, so
    // that the kills together cost about six whole runs.
    for i in 1..=8u32 {
        let mut child = Command::new(bin)
            .args(run_args(input, &out))
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(full.mul_f64(f64::from(i) / 7.0));
        let finished = child.try_wait().unwrap().is_some();
        let _ = child.kill(); // SIGKILL on Unix
        let _ = child.wait();
        let now = assert_whole_rows(&out.join("runs.csv"));
        assert!(
            now == rows || now == rows + PER_RUN,
            "{now} rows after {rows}: a partial run"
        );
        if finished {
            assert_eq!(now, rows + PER_RUN, "a finished run left all its rows");
        }
        rows = now;
        assert_absent_or_complete(&out, &complete_summary);
    }
}
