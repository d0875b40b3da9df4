//! `run --jobs N`: the formats split across worker processes, merged into one run that says the
//! same as a run in one process (the same rows, checks, summary and counts), and refusals and
//! failures that name what is wrong.

use std::collections::BTreeSet;

use md_shootout::gen::{self, GenOptions};
use md_shootout::measure::affinity::allowed_cpus;

use crate::common::{rows_of_every_format, shootout, ALLOC_COLUMNS};

fn rows(csv: &std::path::Path) -> Vec<std::collections::HashMap<String, String>> {
    let mut r = csv::Reader::from_path(csv).unwrap();
    let header: Vec<String> = r.headers().unwrap().iter().map(str::to_owned).collect();
    r.records()
        .map(|rec| {
            header
                .iter()
                .cloned()
                .zip(rec.unwrap().iter().map(str::to_owned))
                .collect()
        })
        .collect()
}

fn day(dir: &std::path::Path, packets: u64) -> std::path::PathBuf {
    let input = dir.join("day.pcapng");
    let opts = GenOptions {
        packets,
        seed: 3,
        symbols: 60,
        ..GenOptions::default()
    };
    gen::generate_file(&opts, &input).unwrap();
    input
}

#[test]
fn two_workers_give_one_run_with_every_format_once_and_the_same_summary() {
    if allowed_cpus().len() < 2 {
        eprintln!("one CPU here: --jobs 2 is refused, see the test below");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let input = day(dir.path(), 6_000);
    let run = |jobs: &str, name: &str| {
        let (csv, summary, hist) = (
            dir.path().join(format!("{name}.csv")),
            dir.path().join(format!("{name}-summary.csv")),
            dir.path().join(format!("{name}-hist")),
        );
        let out = shootout(&[
            "run",
            input.to_str().unwrap(),
            "--jobs",
            jobs,
            "--window",
            "1000",
            "--warmup",
            "500",
            "--csv",
            csv.to_str().unwrap(),
            "--summary",
            summary.to_str().unwrap(),
            "--hist-dir",
            hist.to_str().unwrap(),
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            rows(&csv),
            std::fs::read_to_string(summary).unwrap(),
            hist,
        )
    };
    let (one_table, one, one_summary, _) = run("1", "one");
    let (table, two, summary, hist) = run("2", "two");

    assert!(
        table.contains("jobs: 2 worker processes side by side"),
        "{table}"
    );
    assert!(!one_table.contains("jobs: "), "{one_table}");
    assert_eq!(
        summary, one_summary,
        "the aggregation every format agreed on"
    );
    assert_eq!(
        two.iter().map(|r| r["format"].clone()).collect::<Vec<_>>(),
        rows_of_every_format(),
        "every format once, in the registry's order, then the twins"
    );
    // A twin runs in its original's worker: the two are compared within one process.
    for twin in two.iter().filter(|r| !r["twin_of"].is_empty()) {
        let original = two.iter().find(|r| r["format"] == twin["twin_of"]).unwrap();
        assert_eq!(
            twin["worker_cpu"], original["worker_cpu"],
            "{}",
            twin["format"]
        );
    }
    let ids: BTreeSet<&str> = two.iter().map(|r| r["run_id"].as_str()).collect();
    assert_eq!(ids.len(), 1, "one run_id for the merged run");
    let cpus: BTreeSet<String> = two.iter().map(|r| r["worker_cpu"].clone()).collect();
    assert_eq!(cpus.len(), 2, "two workers, each pinned: {cpus:?}");
    let allowed: Vec<String> = allowed_cpus().iter().map(usize::to_string).collect();
    assert!(cpus.iter().all(|c| allowed.contains(c)), "{cpus:?}");
    for (a, b) in one.iter().zip(&two) {
        assert_eq!(b["jobs"], "2");
        assert_eq!(a["jobs"], "1");
        assert_eq!(a["worker_cpu"], "");
        // The same input and the same work: every count and size agrees exactly.
        for c in [
            "format",
            "packets",
            "messages",
            "encoded_bytes",
            "units",
            "batch_units",
            "zstd_bytes",
            "zlib_bytes",
            "stored_sampled_bytes",
        ]
        .into_iter()
        // Each worker counts its formats' allocations; the merge keeps them.
        .chain(ALLOC_COLUMNS)
        {
            assert_eq!(a[c], b[c], "{c} of {}", a["format"]);
        }
        assert!(!b["de_all_allocs"].is_empty(), "{}", b["format"]);
        // The merged histograms are the workers' own: as many samples as units.
        let log = std::fs::read(hist.join(format!("{}.ser.hlog", b["format"]))).unwrap();
        let h = md_shootout::report::dist::parse_log(&log).unwrap();
        assert_eq!(h.len().to_string(), b["units"]);
    }
}

#[test]
fn jobs_that_make_no_sense_are_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let input = day(dir.path(), 500);
    let refused = |args: &[&str]| {
        let mut all = vec!["run", input.to_str().unwrap()];
        all.extend_from_slice(args);
        let out = shootout(&all);
        assert!(!out.status.success(), "{args:?} was accepted");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let one_line = |e: &str| assert_eq!(e.trim_end().lines().count(), 1, "{e}");
    let e = refused(&["--formats", "raw,json", "--jobs", "3"]);
    assert!(
        e.contains("--jobs 3 with 2 formats: a worker would have none to run"),
        "{e}"
    );
    one_line(&e);
    let e = refused(&["--jobs", "0"]);
    assert!(e.contains("needs a positive number"), "{e}");
    let n = allowed_cpus().len();
    let too_many = (n + 1).to_string();
    if n < md_shootout::formats::names().len() {
        let e = refused(&["--jobs", &too_many]);
        assert!(
            e.contains(&format!(
                "--jobs {too_many}: this process may run on {n} CPU"
            )),
            "{e}"
        );
        one_line(&e);
    }
}

#[test]
fn a_worker_that_fails_fails_the_run_naming_the_file_and_writes_no_row() {
    if allowed_cpus().len() < 2 {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let input = day(dir.path(), 30_000);
    // Cut the capture inside a late packet: the windows the split is timed on (the first 16,384
    // packets) still read, the workers then stop at the cut.
    let bytes = std::fs::read(&input).unwrap();
    let cut = dir.path().join("cut.pcapng");
    std::fs::write(&cut, &bytes[..bytes.len() - 100]).unwrap();
    let csv = dir.path().join("runs.csv");
    let out = shootout(&[
        "run",
        cut.to_str().unwrap(),
        "--jobs",
        "2",
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the worker on CPU "), "{err}");
    assert!(err.contains("cut.pcapng"), "{err}");
    assert!(err.contains("capture cut short"), "{err}");
    assert!(!csv.exists(), "no results file for a failed run");
}

#[test]
fn bench_passes_jobs_to_every_run_and_labels_them_apart() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("res");
    let o = shootout(&[
        "bench",
        "--quick",
        "--jobs",
        "40",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    let formats = md_shootout::formats::names().len();
    let refused = format!("error: --jobs 40 with {formats} formats");
    assert!(err.starts_with(&refused), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(!out.exists(), "nothing written for a refused bench");
    if allowed_cpus().len() < 2 {
        return;
    }
    let o = shootout(&[
        "bench",
        "--quick",
        "--jobs",
        "2",
        "--prefix",
        "normal=",
        "--formats",
        "raw,sbe,json",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = rows(&out.join("runs.csv"));
    // raw, sbe, json, and the twins of sbe and raw.
    assert_eq!(rows.len(), 5);
    for r in &rows {
        assert_eq!(r["jobs"], "2");
        assert_eq!(r["label"], "normal (2 jobs)");
    }
    let cpus: BTreeSet<&str> = rows.iter().map(|r| r["worker_cpu"].as_str()).collect();
    assert_eq!(cpus.len(), 2);
    assert!(out.join("report/index.html").is_file());
}
