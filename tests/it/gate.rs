//! `--fail-if-slower`: `report --baseline` and `bench --baseline` as a CI gate (exit code 3 on a
//! significant regression beyond the percent given), on hand-written runs whose figures and
//! p-values are known.

use std::path::{Path, PathBuf};

use super::common::shootout;
use super::report::{columns_now, fx, write_csv, Fixture};

const RUNS: [&str; 5] = ["r1", "r2", "r3", "r4", "r5"];

/// `runs` runs of raw, sbe and capnp on `input`, label normal. Per run: ser batch, de batch,
/// de_all batch (ns per packet); each run moves the figures by 0.1 ns so no two runs tie.
/// `capnp_ser` is capnp's ser batch, `capnp_de` its (selective) de batch.
fn runs_csv(dir: &Path, name: &str, runs: usize, capnp_ser: f64, capnp_de: f64) -> PathBuf {
    let mut rows: Vec<Fixture> = Vec::new();
    for (i, run) in RUNS.into_iter().take(runs).enumerate() {
        let d = i as f64 * 0.1;
        for (format, batch) in [
            ("raw", (4.0 + d, 3.0 + d, 5.0 + d)),
            ("sbe", (18.0 + d, 16.0 + d, 30.0 + d)),
            ("capnp", (capnp_ser + d, capnp_de + d, 50.0 + d)),
        ] {
            rows.push(Fixture {
                floor: Some((10, 11.0)),
                de_all_p50: Some(42),
                batch: Some(batch),
                memcpy_batch: Some(3.0),
                clock: Some("tsc"),
                ..fx(
                    run,
                    if name.starts_with("old") {
                        "data/day4.pcapng.gz"
                    } else {
                        "data/day5.pcapng.gz"
                    },
                    "normal",
                    format,
                    "h",
                    20,
                    20,
                    5_000_000,
                    0.1,
                )
            });
        }
    }
    let path = dir.join(name);
    write_csv(&path, &columns_now(), &rows);
    path
}

/// `report NEW --baseline OLD --out DIR/out ARGS...`: exit code, stdout, stderr.
fn gate(dir: &Path, new: &Path, old: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = dir.join("out");
    let mut all = vec![
        "report",
        new.to_str().unwrap(),
        "--baseline",
        old.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    all.extend(args);
    let o = shootout(&all);
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn regressions(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .filter(|l| l.starts_with("regression: "))
        .collect()
}

#[test]
fn identical_runs_never_fail_even_at_zero_percent() {
    let dir = tempfile::tempdir().unwrap();
    let old = runs_csv(dir.path(), "old.csv", 5, 10.0, 14.0);
    let (code, stdout, stderr) = gate(
        dir.path(),
        &old,
        &old,
        &["--fail-if-slower", "0", "--fail-on", "all"],
    );
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(regressions(&stdout).is_empty(), "{stdout}");
    // Every run ties with its copy: p = 1 exactly.
    assert!(stdout.contains("p = 1.000"), "{stdout}");
    assert!(stdout.contains("gate: no figure slower"), "{stdout}");
}

/// capnp's ser batch 10 → 28 ns: ser + de_all batch 60.4 → 78.4 (medians), 1.30x, every new
/// run above every old one: the exact two-sided p for 5 runs a side is 2 / C(10, 5) = 0.0079.
#[test]
fn a_format_made_30_percent_slower_fails_with_its_line_and_exit_3() {
    let dir = tempfile::tempdir().unwrap();
    let old = runs_csv(dir.path(), "old.csv", 5, 10.0, 14.0);
    let new = runs_csv(dir.path(), "new.csv", 5, 28.0, 14.0);
    let (code, stdout, stderr) = gate(dir.path(), &new, &old, &["--fail-if-slower", "10"]);
    assert_eq!(code, Some(3), "{stdout}{stderr}");
    assert_eq!(
        regressions(&stdout),
        [
            "regression: capnp day5.pcapng.gz [normal] ser + de_all batch: 1.30x slower, \
          p = 0.008; new runs [78, 78.2, 78.4, 78.6, 78.8] vs baseline runs [60, 60.2, 60.4, \
          60.6, 60.8]"
        ],
        "{stdout}"
    );
    assert!(
        stderr.contains("error: 1 figure(s) slower than the baseline by more than 10%"),
        "{stderr}"
    );
    // The report is written all the same, with the p-value in the comparison table.
    let md = std::fs::read_to_string(dir.path().join("out/summary.md")).unwrap();
    assert!(md.contains("| p |") && md.contains("p = 0.008"), "{md}");
    // 78.4 / 60.4 = 1.298: under a 30% gate.
    let (code, stdout, _) = gate(dir.path(), &new, &old, &["--fail-if-slower", "30"]);
    assert_eq!(code, Some(0), "{stdout}");
    // Without --fail-if-slower the comparison is printed and the exit stays 0.
    let (code, stdout, _) = gate(dir.path(), &new, &old, &[]);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(regressions(&stdout).is_empty(), "{stdout}");
}

/// A gate whose test cannot reach p < 0.05 at the run counts given is refused in one line,
/// before anything is printed as a pass: 3 runs a side (smallest p 0.100), or 2 against 5.
#[test]
fn a_gate_that_cannot_fail_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let old = runs_csv(dir.path(), "old.csv", 3, 10.0, 14.0);
    let new = runs_csv(dir.path(), "new.csv", 3, 28.0, 14.0);
    let (code, stdout, stderr) = gate(dir.path(), &new, &old, &["--fail-if-slower", "10"]);
    assert_eq!(code, Some(2), "{stdout}{stderr}");
    assert_eq!(
        stderr.trim_end(),
        "error: --fail-if-slower: 3 runs a side cannot reach p < 0.05 (Mann–Whitney's \
         smallest p is 0.100); run at least 4 runs a side"
    );
    assert!(!stdout.contains("gate:"), "{stdout}");
    assert!(!dir.path().join("out").exists());
    let old = runs_csv(dir.path(), "old2.csv", 2, 10.0, 14.0);
    let new = runs_csv(dir.path(), "new5.csv", 5, 28.0, 14.0);
    let (code, _, stderr) = gate(dir.path(), &new, &old, &["--fail-if-slower", "10"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("5 new runs against 2 baseline cannot reach p < 0.05"),
        "{stderr}"
    );
    // 4 a side can: the planted slowdown fails with exit 3 (p = 2 / C(8, 4) = 0.029).
    let old = runs_csv(dir.path(), "old4.csv", 4, 10.0, 14.0);
    let new = runs_csv(dir.path(), "new4.csv", 4, 28.0, 14.0);
    let (code, stdout, _) = gate(dir.path(), &new, &old, &["--fail-if-slower", "10"]);
    assert_eq!(code, Some(3), "{stdout}");
    assert!(stdout.contains("p = 0.029"), "{stdout}");
    // Without the gate, the comparison of 3 runs a side is printed as before.
    let old = runs_csv(dir.path(), "old.csv", 3, 10.0, 14.0);
    let new = runs_csv(dir.path(), "new.csv", 3, 28.0, 14.0);
    let (code, stdout, _) = gate(dir.path(), &new, &old, &[]);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains("p = 0.100"), "{stdout}");
}

/// `bench --baseline --fail-if-slower` refuses fewer runs than the test can fail with, before
/// anything runs.
#[test]
fn bench_refuses_a_gate_on_too_few_runs_up_front() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("base");
    std::fs::create_dir_all(&base).unwrap();
    runs_csv(&base, "runs.csv", 5, 10.0, 14.0);
    let out = dir.path().join("never");
    let o = shootout(&[
        "bench",
        "--quick",
        "--runs",
        "3",
        "--out",
        out.to_str().unwrap(),
        "--baseline",
        base.to_str().unwrap(),
        "--fail-if-slower",
        "10",
    ]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("--fail-if-slower: 3 runs a side cannot reach p < 0.05")
            && stderr.contains("(--runs 4)"),
        "{stderr}"
    );
    assert!(!out.exists());
}

#[test]
fn improvements_are_reported_and_never_fail() {
    let dir = tempfile::tempdir().unwrap();
    // The slow runs are the baseline now: capnp got 1.30x faster.
    let old = runs_csv(dir.path(), "old.csv", 5, 28.0, 14.0);
    let new = runs_csv(dir.path(), "new.csv", 5, 10.0, 14.0);
    let (code, stdout, stderr) = gate(
        dir.path(),
        &new,
        &old,
        &["--fail-if-slower", "0", "--fail-on", "all"],
    );
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(regressions(&stdout).is_empty(), "{stdout}");
    let capnp = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("capnp "))
        .unwrap();
    assert!(
        capnp.contains("0.77x") && capnp.contains("faster") && capnp.contains("p = 0.008"),
        "{capnp}"
    );
}

/// capnp's selective de batch 14 → 20 ns: not in the ranking figure (ser + de_all), so only
/// `--fail-on all` fails, on `de batch` (20.2 / 14.2 = 1.42x).
#[test]
fn fail_on_all_also_gates_each_batch_figure() {
    let dir = tempfile::tempdir().unwrap();
    let old = runs_csv(dir.path(), "old.csv", 5, 10.0, 14.0);
    let new = runs_csv(dir.path(), "new.csv", 5, 10.0, 20.0);
    let (code, stdout, _) = gate(dir.path(), &new, &old, &["--fail-if-slower", "10"]);
    assert_eq!(code, Some(0), "{stdout}");
    let (code, stdout, _) = gate(
        dir.path(),
        &new,
        &old,
        &["--fail-if-slower", "10", "--fail-on", "all"],
    );
    assert_eq!(code, Some(3), "{stdout}");
    let found = regressions(&stdout);
    assert_eq!(found.len(), 1, "{stdout}");
    assert!(
        found[0].starts_with("regression: capnp day5.pcapng.gz [normal] de batch: 1.42x slower"),
        "{stdout}"
    );
}

#[test]
fn a_gate_without_a_baseline_is_refused_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let new = runs_csv(dir.path(), "new.csv", 5, 10.0, 14.0);
    let out = dir.path().join("out");
    for args in [
        vec!["report", new.to_str().unwrap(), "--fail-if-slower", "10"],
        vec!["bench", "--quick", "--fail-if-slower", "10"],
    ] {
        let mut args = args;
        args.extend(["--out", out.to_str().unwrap()]);
        let o = shootout(&args);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
        assert!(stderr.contains("--baseline"), "{stderr}");
    }
    assert!(!out.exists());
}

/// `bench --baseline`: compared in the same process after the runs. The baseline is a
/// hand-written folder whose raw takes 0.001 ns per packet, which no real run comes near: every
/// one of the 4 new runs is slower than all 5 of the baseline's (exact p = 2 / C(9, 4) = 0.016).
#[test]
fn bench_compares_with_a_baseline_folder_and_gates() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("base");
    std::fs::create_dir_all(&base).unwrap();
    let mut rows: Vec<Fixture> = Vec::new();
    for (i, run) in RUNS.into_iter().enumerate() {
        let d = i as f64 * 0.0001;
        rows.push(Fixture {
            de_all_p50: Some(1),
            batch: Some((0.0005 + d, 0.0005 + d, 0.0005 + d)),
            ..fx(
                run,
                "data/old.pcapng",
                "normal",
                "raw",
                "h",
                1,
                1,
                5_000_000,
                0.1,
            )
        });
    }
    write_csv(&base.join("runs.csv"), &columns_now(), &rows);
    let out = dir.path().join("results");
    let o = shootout(&[
        "bench",
        "--quick",
        "--runs",
        "4",
        "--prefix",
        "normal=",
        "--formats",
        "raw",
        "--no-stored-size",
        "--out",
        out.to_str().unwrap(),
        "--baseline",
        base.to_str().unwrap(),
        "--fail-if-slower",
        "10",
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{stdout}{stderr}");
    let found = regressions(&stdout);
    assert_eq!(found.len(), 1, "{stdout}");
    assert!(
        found[0].starts_with("regression: raw quick.pcapng [normal] ser + de_all batch: ")
            && found[0].contains("p = 0.016"),
        "{stdout}"
    );
    // The results and the report are there, with the comparison in it.
    let md = std::fs::read_to_string(out.join("report/summary.md")).unwrap();
    assert!(md.contains("## Against the baseline"), "{md}");
    // A baseline folder without runs.csv is refused before anything runs.
    let o = shootout(&[
        "bench",
        "--quick",
        "--out",
        dir.path().join("never").to_str().unwrap(),
        "--baseline",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("runs.csv: no such file"));
    assert!(!dir.path().join("never").exists());
}

/// Two real default benches of one binary (`shootout bench`: 6 runs under each of the labels
/// normal and taskset), one after the other on the repository's 2-core VM, their DEEP10 rows kept
/// (`tests/data/gate/`, README there). The runs are what the gate will see in CI, noise and all.
fn real_runs() -> (PathBuf, PathBuf) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/gate");
    (dir.join("old.csv"), dir.join("new.csv"))
}

/// `csv` with every batch and per-unit time of `format` multiplied by `factor`, in `out`.
fn slowed(csv: &Path, format: &str, factor: f64, out: &Path) -> PathBuf {
    let mut r = ::csv::Reader::from_path(csv).unwrap();
    let header = r.headers().unwrap().clone();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (fmt, timed): (usize, Vec<usize>) = (
        col("format"),
        header
            .iter()
            .enumerate()
            .filter(|(_, h)| h.ends_with("_ns") && (h.starts_with("ser_") || h.starts_with("de_")))
            .map(|(i, _)| i)
            .collect(),
    );
    let path = out.join(format!("slowed-{format}.csv"));
    let mut w = ::csv::Writer::from_path(&path).unwrap();
    w.write_record(&header).unwrap();
    let mut changed = 0;
    for rec in r.records() {
        let rec = rec.unwrap();
        let row: Vec<String> = rec
            .iter()
            .enumerate()
            .map(|(i, cell)| match cell.parse::<f64>() {
                // Whole nanoseconds stay whole (the percentile columns are integers).
                Ok(x) if rec[fmt] == *format && timed.contains(&i) && cell.contains('.') => {
                    format!("{}", x * factor)
                }
                Ok(x) if rec[fmt] == *format && timed.contains(&i) => {
                    format!("{}", (x * factor).round())
                }
                _ => cell.to_owned(),
            })
            .collect();
        changed += usize::from(rec[fmt] == *format);
        w.write_record(&row).unwrap();
    }
    w.flush().unwrap();
    assert!(changed >= 12, "{format}: {changed} rows");
    path
}

/// The done-when on real runs: two benches of the same binary pass a 10% gate on what the
/// report ranks by, and the same runs with one format made 30% slower in every run of the newer
/// bench fail it with exit 3, naming that format and no other. (`--fail-on all` on these same
/// runs names three figures of the unchanged binary: 152 tests at α 0.05; see
/// docs/BENCHMARKS.md, issue 39.)
#[test]
fn real_runs_of_one_binary_pass_and_a_planted_30_percent_slowdown_fails() {
    let (old, new) = real_runs();
    let dir = tempfile::tempdir().unwrap();
    let args = ["--fail-if-slower", "10"];
    let (code, stdout, stderr) = gate(dir.path(), &new, &old, &args);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(regressions(&stdout).is_empty(), "{stdout}");
    for format in ["capnp-packed", "wincode"] {
        let planted = slowed(&new, format, 1.3, dir.path());
        let (code, stdout, stderr) = gate(dir.path(), &planted, &old, &args);
        assert_eq!(code, Some(3), "{format}: {stdout}{stderr}");
        let found = regressions(&stdout);
        assert!(!found.is_empty(), "{format}: {stdout}");
        assert!(
            found
                .iter()
                .all(|l| l.starts_with(&format!("regression: {format} "))),
            "{format}: {found:#?}"
        );
    }
}
