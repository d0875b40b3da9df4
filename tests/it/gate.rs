//! `--fail-if-slower`: `report --baseline` and `bench --baseline` as a CI gate (exit code 3 on a
//! significant regression beyond the percent given), on hand-written runs whose figures and
//! p-values are known, and on two real benches of one binary.
//!
//! The gate pairs the k-th run of a label in the new results with the k-th in the baseline,
//! divides each format's new / old in a pair by the median of that over the pair's formats, and
//! tests the pairs' log differences with the one-sided Wilcoxon signed-rank test, Holm-adjusted
//! over the figures it gates. In the hand-written runs below the three formats move together
//! run by run (a machine factor, different on each side), so the median of each pair's three
//! ratios is that factor's and what is left of a format's ratio is its own change, the same in
//! every pair: a format made slower in every run is above zero in every pair, p = 1/2^pairs,
//! while the two formats that did not change are at zero.

use std::path::{Path, PathBuf};

use super::common::{place_capabilities, shootout};
use super::report::{columns_now, fx, write_csv, Fixture};

const RUNS: [&str; 8] = ["r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8"];

/// What one side's hand-written runs are.
#[derive(Clone, Copy)]
struct Side {
    runs: usize,
    /// capnp's ser batch and (selective) de batch, ns per packet.
    capnp_ser: f64,
    capnp_de: f64,
    /// Every format's figures times this (a slower machine).
    machine: f64,
}

const OLD: Side = Side {
    runs: 8,
    capnp_ser: 10.0,
    capnp_de: 14.0,
    machine: 1.0,
};

/// The old side's runs, `runs` of them, with capnp's ser batch at `capnp_ser`.
fn side(runs: usize, capnp_ser: f64) -> Side {
    Side {
        runs,
        capnp_ser,
        ..OLD
    }
}

/// `side.runs` runs of raw, sbe and capnp on `input` under `label`. Per run: ser batch, de batch,
/// de_all batch (ns per packet), all three formats times the run's machine factor: 1 + 4% × k
/// for the k-th run of the old side, 1 + 4% × (8 − k) of the new (the runs' order reversed), so
/// the raw figures spread 1.28x and the sides' runs differ pair by pair while the formats' ratios
/// within a run do not.
fn rows(name: &str, label: &'static str, side: Side) -> Vec<Fixture> {
    let old = name.starts_with("old");
    let mut rows: Vec<Fixture> = Vec::new();
    for (i, run) in RUNS.into_iter().take(side.runs).enumerate() {
        let k = if old { i } else { 7 - i.min(7) };
        let m = side.machine * (1.0 + 0.04 * k as f64);
        for (format, (ser, de, all)) in [
            ("raw", (4.0, 3.0, 5.0)),
            ("sbe", (18.0, 16.0, 30.0)),
            ("capnp", (side.capnp_ser, side.capnp_de, 50.0)),
        ] {
            rows.push(Fixture {
                floor: Some((10, 11.0)),
                de_all_p50: Some(42),
                batch: Some((ser * m, de * m, all * m)),
                memcpy_batch: Some(3.0),
                clock: Some("tsc"),
                ..fx(
                    run,
                    if old {
                        "data/day4.pcapng.gz"
                    } else {
                        "data/day5.pcapng.gz"
                    },
                    label,
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
    rows
}

/// The runs of `side` under label normal in `dir/name`.
fn runs_csv(dir: &Path, name: &str, side: Side) -> PathBuf {
    let path = dir.join(name);
    write_csv(&path, &columns_now(), &rows(name, "normal", side));
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
    let old = runs_csv(dir.path(), "old.csv", OLD);
    let (code, stdout, stderr) = gate(
        dir.path(),
        &old,
        &old,
        &["--fail-if-slower", "0", "--fail-on", "all"],
    );
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(regressions(&stdout).is_empty(), "{stdout}");
    // Every pair's difference is zero: dropped, p = 1 exactly.
    assert!(
        stdout.contains("normalized 1.00x, 8 pairs, p = 1.000, Holm p = 1.000"),
        "{stdout}"
    );
    assert!(
        stdout.contains("gate: no figure shown slower than the baseline (normalized")
            && stdout.contains("(12 figures tested)"),
        "{stdout}"
    );
}

/// capnp's ser batch 10 → 28 ns: ser + de_all batch 60 → 78 ns times each run's machine factor,
/// 1.30x raw. Normalized, 1.30x in every pair (raw's and sbe's ratios, the median, are the
/// machine's): all 8 pairs above zero, exact p = 1/2^8 = 0.004, Holm over the 3 formats
/// 3/256 = 0.012.
#[test]
fn a_format_made_30_percent_slower_fails_with_its_line_and_exit_3() {
    let dir = tempfile::tempdir().unwrap();
    let old = runs_csv(dir.path(), "old.csv", OLD);
    let slower = Side {
        capnp_ser: 28.0,
        ..OLD
    };
    let new = runs_csv(dir.path(), "new.csv", slower);
    let (code, stdout, stderr) = gate(dir.path(), &new, &old, &["--fail-if-slower", "10"]);
    assert_eq!(code, Some(3), "{stdout}{stderr}");
    assert_eq!(
        regressions(&stdout),
        [
            "regression: capnp day5.pcapng.gz [normal] ser + de_all batch: 1.30x slower \
             normalized (1.30x raw median), 8 pairs, p = 0.004, Holm p = 0.012; new runs [99.8, \
             96.7, 93.6, 90.5, 87.4, 84.2, 81.1, 78] vs baseline runs [60, 62.4, 64.8, 67.2, \
             69.6, 72, 74.4, 76.8]"
        ],
        "{stdout}"
    );
    assert!(
        stderr.contains(
            "error: 1 figure(s) slower than the baseline (normalized, Holm-adjusted signed-rank p < \
             0.05) and not shown within 10%"
        ),
        "{stderr}"
    );
    // The report is written all the same, with the p-values in the comparison table.
    let md = std::fs::read_to_string(dir.path().join("out/summary.md")).unwrap();
    assert!(
        md.contains("| Holm p |") && md.contains("| 1.30x | 8 | p = 0.004 | p = 0.012 |"),
        "{md}"
    );
    // 1.30x is under a 35% gate.
    let (code, stdout, _) = gate(dir.path(), &new, &old, &["--fail-if-slower", "35"]);
    assert_eq!(code, Some(0), "{stdout}");
    // Without --fail-if-slower the comparison is printed and the exit stays 0.
    let (code, stdout, _) = gate(dir.path(), &new, &old, &[]);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(regressions(&stdout).is_empty(), "{stdout}");
}

/// capnp's ser batch made exactly 1.10x in every pair: at `--fail-if-slower 10` that is the
/// slowdown the gate must not let through, and the runs cannot show it smaller (every pair at
/// the limit), so it fails, on that figure alone; a 15% gate, which every pair shows it within,
/// passes it. (A rule of "the estimate above the percent" let it through at 10%, and caught a
/// planted 10% in 74 of 180 plantings over 45 pairs of real benches.)
#[test]
fn a_slowdown_of_the_gates_percent_fails_and_passes_a_gate_it_is_shown_within() {
    let dir = tempfile::tempdir().unwrap();
    let old = runs_csv(dir.path(), "old.csv", OLD);
    let new = runs_csv(dir.path(), "new.csv", side(8, 11.0));
    let at = |pct| {
        gate(
            dir.path(),
            &new,
            &old,
            &["--fail-if-slower", pct, "--fail-on", "all"],
        )
    };
    let (code, stdout, stderr) = at("10");
    assert_eq!(code, Some(3), "{stdout}{stderr}");
    let found = regressions(&stdout);
    assert_eq!(found.len(), 1, "{stdout}");
    assert!(
        found[0].starts_with("regression: capnp day5.pcapng.gz [normal] ser batch: 1.10x slower"),
        "{stdout}"
    );
    let (code, stdout, _) = at("15");
    assert_eq!(code, Some(0), "{stdout}");
    assert!(regressions(&stdout).is_empty(), "{stdout}");
}

/// Every format 25% slower in every new run (a slower machine, a busier bench): the raw medians
/// say 1.25x for all three, the normalized figures nothing, and the gate passes.
#[test]
fn a_slower_machine_does_not_fail() {
    let dir = tempfile::tempdir().unwrap();
    let old = runs_csv(dir.path(), "old.csv", OLD);
    let busy = Side {
        machine: 1.25,
        ..OLD
    };
    let new = runs_csv(dir.path(), "new.csv", busy);
    let (code, stdout, stderr) = gate(
        dir.path(),
        &new,
        &old,
        &["--fail-if-slower", "10", "--fail-on", "all"],
    );
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    for format in ["raw ", "sbe ", "capnp "] {
        let line = stdout
            .lines()
            .find(|l| l.trim_start().starts_with(format))
            .unwrap();
        assert!(
            line.contains(" 1.25x (")
                && line.contains("normalized 1.00x, 8 pairs, p = 1.000, Holm p = 1.000"),
            "{line}"
        );
    }
}

/// A gate whose test cannot reach Holm's p < 0.05 at the pairs given is refused in one line,
/// before anything is printed as a pass: 4 pairs (smallest p 1/16) over 3 formats need p <
/// 0.05/3; 8 new runs against 3 make 3 pairs; 6 pairs reach 3/64 = 0.047 on the ranking figure
/// but not over the 12 figures of `--fail-on all`.
#[test]
fn a_gate_that_cannot_fail_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let old = runs_csv(dir.path(), "old4.csv", side(4, 10.0));
    let new = runs_csv(dir.path(), "new4.csv", side(4, 28.0));
    let (code, stdout, stderr) = gate(dir.path(), &new, &old, &["--fail-if-slower", "10"]);
    assert_eq!(code, Some(2), "{stdout}{stderr}");
    assert_eq!(
        stderr.trim_end(),
        "error: --fail-if-slower: 4 pairs of runs cannot reach p < 0.05 over 3 figures (the \
         signed-rank test's smallest p is 1/2^4 = 0.0625, Holm's first step needs 0.05/3 = \
         0.0167); run at least 6 runs a side (paired within each label)"
    );
    assert!(!stdout.contains("gate:"), "{stdout}");
    assert!(!dir.path().join("out").exists());
    let old = runs_csv(dir.path(), "old3.csv", side(3, 10.0));
    let new = runs_csv(dir.path(), "new8.csv", side(8, 28.0));
    let (code, _, stderr) = gate(dir.path(), &new, &old, &["--fail-if-slower", "10"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains(": 3 pairs of runs cannot reach"),
        "{stderr}"
    );
    // 6 a side can: the planted slowdown fails with exit 3.
    let old = runs_csv(dir.path(), "old6.csv", side(6, 10.0));
    let new = runs_csv(dir.path(), "new6.csv", side(6, 28.0));
    let (code, stdout, _) = gate(dir.path(), &new, &old, &["--fail-if-slower", "10"]);
    assert_eq!(code, Some(3), "{stdout}");
    assert!(
        stdout.contains("6 pairs, p = 0.016, Holm p = 0.047"),
        "{stdout}"
    );
    let all = ["--fail-if-slower", "10", "--fail-on", "all"];
    let (code, _, stderr) = gate(dir.path(), &new, &old, &all);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("over 12 figures") && stderr.contains("run at least 8 runs a side"),
        "{stderr}"
    );
    // Without the gate, the comparison of 3 pairs is printed as before.
    let old = runs_csv(dir.path(), "old3.csv", side(3, 10.0));
    let new = runs_csv(dir.path(), "new3.csv", side(3, 28.0));
    let (code, stdout, _) = gate(dir.path(), &new, &old, &[]);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains("3 pairs, p = 0.125"), "{stdout}");
}

/// `bench --baseline --fail-if-slower` refuses, before anything runs, fewer runs than the test
/// can fail with even on one figure: 5 pairs (1/32 < 0.05). Runs under several labels pair
/// label by label, so two labels of 2 runs are 4 pairs.
#[test]
fn bench_refuses_a_gate_on_too_few_runs_up_front() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("base");
    std::fs::create_dir_all(&base).unwrap();
    runs_csv(&base, "runs.csv", OLD);
    let out = dir.path().join("never");
    for (runs, prefixes, expected) in [
        (
            "4",
            &["normal="][..],
            "--fail-if-slower: 4 runs under each of 1 label make at most 4 pairs of runs, whose \
             smallest signed-rank p is 0.0625, not below 0.05; run at least 5 runs a side \
             (--runs 5)",
        ),
        (
            "2",
            &["normal=", "again="][..],
            "2 runs under each of 2 labels make at most 4 pairs of runs",
        ),
    ] {
        let mut args = vec!["bench", "--quick", "--runs", runs];
        for p in prefixes {
            args.extend(["--prefix", p]);
        }
        args.extend([
            "--out",
            out.to_str().unwrap(),
            "--baseline",
            base.to_str().unwrap(),
            "--fail-if-slower",
            "10",
        ]);
        let o = shootout(&args);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
        assert!(stderr.contains(expected), "{stderr}");
        assert!(!out.exists());
    }
}

#[test]
fn improvements_are_reported_and_never_fail() {
    let dir = tempfile::tempdir().unwrap();
    // The slow runs are the baseline now: capnp got 1.30x faster. Normalized, raw and sbe did not
    // move: capnp's speed-up does not make them look slower (as dividing by the formats'
    // geometric mean would, by 1.3^(1/3) = 1.09x, failing this 0% gate).
    let slow = Side {
        capnp_ser: 28.0,
        ..OLD
    };
    let old = runs_csv(dir.path(), "old.csv", slow);
    let new = runs_csv(dir.path(), "new.csv", OLD);
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
        capnp.contains("0.77x")
            && capnp.contains("faster")
            && capnp.contains("normalized 0.77x, 8 pairs, p = 1.000"),
        "{capnp}"
    );
    for format in ["raw ", "sbe "] {
        let line = (stdout.lines())
            .find(|l| l.trim_start().starts_with(format))
            .unwrap();
        assert!(
            line.contains("normalized 1.00x, 8 pairs, p = 1.000"),
            "{line}"
        );
    }
}

/// capnp's selective de batch 14 → 20 ns: not in the ranking figure (ser + de_all), so only
/// `--fail-on all` fails, on `de batch` (20 / 14 = 1.43x, raw and normalized; Holm over 3
/// formats × 4 figures: 12/256 = 0.047).
#[test]
fn fail_on_all_also_gates_each_batch_figure() {
    let dir = tempfile::tempdir().unwrap();
    let old = runs_csv(dir.path(), "old.csv", OLD);
    let new = runs_csv(
        dir.path(),
        "new.csv",
        Side {
            capnp_de: 20.0,
            ..OLD
        },
    );
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
        found[0].starts_with(
            "regression: capnp day5.pcapng.gz [normal] de batch: 1.43x slower normalized (1.43x \
             raw median), 8 pairs, p = 0.004, Holm p = 0.047;"
        ),
        "{stdout}"
    );
}

/// Runs under two labels are tested once, pooled (each label a block of pairs), not label by
/// label: 4 pairs under normal and 4 under taskset are 8 pairs; the new side's fifth taskset
/// run has no baseline run and is left out, in a line.
#[test]
fn labels_are_paired_within_and_tested_pooled() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, taskset: usize, capnp_ser: f64| {
        let mut all = rows(name, "normal", side(4, capnp_ser));
        all.extend(rows(name, "taskset", side(taskset, capnp_ser)));
        let path = dir.path().join(name);
        write_csv(&path, &columns_now(), &all);
        path
    };
    let old = write("old.csv", 4, 10.0);
    let new = write("new.csv", 5, 28.0);
    let (code, stdout, stderr) = gate(dir.path(), &new, &old, &["--fail-if-slower", "10"]);
    assert_eq!(code, Some(3), "{stdout}{stderr}");
    let found = regressions(&stdout);
    assert_eq!(found.len(), 1, "{stdout}");
    assert!(
        found[0].starts_with(
            "regression: capnp day5.pcapng.gz [normal + taskset] ser + de_all batch: 1.30x \
             slower normalized"
        ) && found[0].contains("8 pairs, p = 0.004, Holm p = 0.012"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "  day5.pcapng.gz [normal + taskset]: label taskset: 5 new runs against 4 in the \
             baseline, the last 1 unpaired and left out"
        ),
        "{stdout}"
    );
    // Three formats compared, once each: no label's own section beside the pooled one.
    let compared: Vec<&str> = (stdout.lines())
        .filter(|l| l.starts_with("  ") && l.contains("pairs, p"))
        .collect();
    assert_eq!(compared.len(), 3, "{stdout}");
    assert!(compared.iter().all(|l| l.contains("[normal + taskset]")));
    // A baseline that ran under normal only: the pooled section is compared with its section
    // through the label they share, normal's 4 pairs; taskset's runs are left out, in a line.
    let normal_only = dir.path().join("normal.csv");
    write_csv(
        &normal_only,
        &columns_now(),
        &rows("old-normal", "normal", side(4, 10.0)),
    );
    let (code, stdout, _) = gate(dir.path(), &new, &normal_only, &[]);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(
        stdout.contains("[normal + taskset]")
            && stdout.contains("4 pairs, p = 0.062")
            && stdout.contains(
                "label taskset: 5 new runs against 0 in the baseline, the last 5 unpaired"
            ),
        "{stdout}"
    );
}

/// New runs under a label the baseline never ran: nothing to compare, and a gate on nothing is
/// refused rather than passed.
#[test]
fn a_gate_with_nothing_to_compare_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let old = runs_csv(dir.path(), "old.csv", OLD);
    let new = dir.path().join("new.csv");
    write_csv(&new, &columns_now(), &rows("new.csv", "taskset", OLD));
    let (code, stdout, stderr) = gate(dir.path(), &new, &old, &["--fail-if-slower", "10"]);
    assert_eq!(code, Some(2), "{stdout}{stderr}");
    assert_eq!(
        stderr.trim_end(),
        "error: --fail-if-slower: no format of the new runs is in the baseline: nothing to gate"
    );
}

#[test]
fn a_gate_without_a_baseline_is_refused_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let new = runs_csv(dir.path(), "new.csv", OLD);
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
/// hand-written folder whose raw takes 0.001 ns per packet, which no real run comes near: each
/// of the 5 new runs is slower than its pair (one format: compared as it is, not normalized;
/// exact p = 1/2^5 = 0.031, Holm over one figure the same).
#[test]
fn bench_compares_with_a_baseline_folder_and_gates() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("base");
    std::fs::create_dir_all(&base).unwrap();
    let mut rows: Vec<Fixture> = Vec::new();
    for (i, run) in RUNS.into_iter().take(5).enumerate() {
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
    place_capabilities(&out);
    let o = shootout(&[
        "bench",
        "--quick",
        "--runs",
        "5",
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
            && found[0].contains("5 pairs, p = 0.031, Holm p = 0.031"),
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

/// The done-when on real runs: two benches of the same binary pass a 10% gate, on what
/// the report ranks by and on every batch figure (`--fail-on all`, 76 figures), both ways round;
/// and the same runs with one format made 30% or 15% slower in every run of the newer bench fail
/// it with exit 3, naming that format and no other. (15% is not caught for every format: on
/// these runs 12 of the 19, the others' normalized change or p falling short; the two here are
/// caught.)
#[test]
fn real_runs_of_one_binary_pass_and_a_planted_slowdown_fails() {
    let (old, new) = real_runs();
    let dir = tempfile::tempdir().unwrap();
    let args = ["--fail-if-slower", "10"];
    for (a, b, on) in [
        (&new, &old, "ranking"),
        (&new, &old, "all"),
        (&old, &new, "all"),
    ] {
        let (code, stdout, stderr) = gate(dir.path(), a, b, &[args[0], args[1], "--fail-on", on]);
        assert_eq!(code, Some(0), "{on}: {stdout}{stderr}");
        assert!(regressions(&stdout).is_empty(), "{stdout}");
        // Tested pooled, 12 pairs each.
        assert!(
            stdout.contains("DEEP10.pcap.gz [normal + taskset]") && stdout.contains("12 pairs"),
            "{stdout}"
        );
    }
    for format in ["capnp-packed", "wincode"] {
        for factor in [1.3, 1.15] {
            let planted = slowed(&new, format, factor, dir.path());
            let (code, stdout, stderr) = gate(dir.path(), &planted, &old, &args);
            assert_eq!(code, Some(3), "{format} x{factor}: {stdout}{stderr}");
            let found = regressions(&stdout);
            assert!(!found.is_empty(), "{format}: {stdout}");
            assert!(
                found
                    .iter()
                    .all(|l| l.starts_with(&format!("regression: {format} "))),
                "{format} x{factor}: {found:#?}"
            );
        }
    }
}
