//! `run_shootout.sh` and `shootout bench` end to end with the test build of `shootout`
//! (`SHOOTOUT_BIN`, so the script neither bootstraps nor builds): every run, format and prefix
//! lands in one runs.csv; a run killed with SIGKILL keeps only whole rows; `--resume` completes
//! it without repeating a run. Without `SHOOTOUT_BIN` the script runs the binary cargo says it
//! built, under `CARGO_TARGET_DIR` when that is set (a stand-in `cargo` here; the real build is
//! the ignored `real_build_under_cargo_target_dir`).

use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use md_shootout::export::csv::COLUMNS;

/// The rows of every run: every format in the registry runs in every run, and the default A/A
/// twins (`measure::twins`) beside them.
/// Rows of a run of every format: the formats, and for each default twin its A/A twin and its
/// positive control.
fn formats() -> usize {
    let names = md_shootout::formats::names();
    names.len()
        + 2 * md_shootout::measure::twins::chosen(None, &names)
            .unwrap()
            .len()
}

fn script() -> Command {
    let mut cmd = Command::new(Path::new(env!("CARGO_MANIFEST_DIR")).join("run_shootout.sh"));
    cmd.env("SHOOTOUT_BIN", env!("CARGO_BIN_EXE_shootout"));
    cmd
}

fn run(args: &[&str], out: &Path) -> Output {
    let output = script().args(args).arg("--out").arg(out).output().unwrap();
    assert!(
        output.status.success(),
        "run_shootout.sh {args:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// The prefixes the script says it used, as (label, command).
fn prefixes(out: &Path) -> Vec<(String, String)> {
    let env = std::fs::read_to_string(out.join("environment.txt")).unwrap();
    env.lines()
        .filter_map(|l| l.strip_prefix("prefix: "))
        .map(|p| {
            let (label, cmd) = p.split_once('=').unwrap();
            (label.to_string(), cmd.to_string())
        })
        .collect()
}

/// runs.csv as records, after checking the header and that every line has its column count.
fn rows(out: &Path) -> Vec<csv::StringRecord> {
    let text = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    assert_eq!(text.lines().next(), Some(COLUMNS));
    assert!(text.ends_with('\n'), "last row is whole");
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(text.as_bytes());
    let width = reader.headers().unwrap().len();
    assert_eq!(width, md_shootout::export::csv::COLUMNS.split(',').count());
    let records: Vec<_> = reader.records().map(|r| r.unwrap()).collect();
    for (i, r) in records.iter().enumerate() {
        assert_eq!(r.len(), width, "row {} has {} fields", i + 2, r.len());
    }
    records
}

fn done(out: &Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(out.join("done.txt"))
        .unwrap()
        .lines()
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

/// (label, format) → rows, and run_id → rows.
fn counts(
    records: &[csv::StringRecord],
) -> (BTreeMap<(String, String), usize>, BTreeMap<String, usize>) {
    let mut by_label_format = BTreeMap::new();
    let mut by_run = BTreeMap::new();
    for r in records {
        *by_label_format
            .entry((r[2].to_string(), r[8].to_string()))
            .or_default() += 1;
        *by_run.entry(r[0].to_string()).or_default() += 1;
    }
    (by_label_format, by_run)
}

#[test]
fn quick_runs_every_format_under_every_prefix_into_one_csv() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results");
    let output = run(&["--quick", "--runs", "2"], &out);
    // The one bench of the suite that assesses the formats itself (the others are handed
    // `formats.json`): it wrote a row for every format.
    let assessed: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("formats.json")).unwrap()).unwrap();
    let names: Vec<&str> = assessed
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, md_shootout::formats::names());

    let prefixes = prefixes(&out);
    assert!(!prefixes.is_empty());
    assert_eq!(prefixes[0], ("normal".to_string(), String::new()));
    let labels: BTreeSet<String> = prefixes.iter().map(|(l, _)| l.clone()).collect();
    assert!(labels.is_subset(&["normal", "taskset", "nice"].map(String::from).into()));

    let records = rows(&out);
    assert_eq!(records.len(), 2 * formats() * prefixes.len());
    let (by_label_format, by_run) = counts(&records);
    assert_eq!(by_label_format.len(), formats() * prefixes.len());
    assert!(
        by_label_format.values().all(|&n| n == 2),
        "{by_label_format:?}"
    );
    let seen_labels: BTreeSet<String> = by_label_format.keys().map(|(l, _)| l.clone()).collect();
    assert_eq!(seen_labels, labels);
    assert_eq!(by_run.len(), 2 * prefixes.len());
    assert!(by_run.values().all(|&n| n == formats()));
    assert!(records
        .iter()
        .all(|r| r[3].ends_with("quick.pcapng") && r[6] == *"20000"));

    let done = done(&out);
    assert_eq!(done.len(), 2 * prefixes.len());
    for (label, _) in &prefixes {
        for run in ["run1", "run2"] {
            let hist: PathBuf = out.join("hist/quick.pcapng").join(label).join(run);
            let hgrm = std::fs::read_dir(&hist)
                .unwrap_or_else(|e| panic!("{}: {e}", hist.display()))
                .filter(|e| e.as_ref().unwrap().path().extension() == Some("hgrm".as_ref()))
                .count();
            // ser, de and de_all for every format and twin but a window format (no per-unit
            // latency: no histogram).
            let windows = md_shootout::formats::window_names().len();
            assert_eq!(hgrm, 3 * (formats() - windows), "{}", hist.display());
            assert!(done
                .iter()
                .any(|d| d[..3] == [String::from("quick.pcapng"), label.clone(), run.into()]));
        }
    }
    // The size as stored is measured in the first run of the first label only (the bytes are
    // the same in every run and label); the report still gives it for every label.
    let zstd = COLUMNS.split(',').position(|c| c == "zstd_bytes").unwrap();
    for d in &done {
        let of_run: Vec<_> = records.iter().filter(|r| r[0] == *d[3]).collect();
        assert_eq!(of_run.len(), formats());
        let measured = of_run.iter().filter(|r| !r[zstd].is_empty()).count();
        let first = d[1] == prefixes[0].0 && d[2] == "run1";
        // Not the twins': their bytes are their originals'.
        let expected = if first {
            md_shootout::formats::names().len()
        } else {
            0
        };
        assert_eq!(measured, expected, "{d:?}");
    }
    let summary = std::fs::read_to_string(out.join("report/summary.csv")).unwrap();
    let mut summary = csv::Reader::from_reader(summary.as_bytes());
    let head = summary.headers().unwrap().clone();
    let size = head
        .iter()
        .position(|c| c == "zstd_bytes_per_message_median")
        .unwrap();
    let label = head.iter().position(|c| c == "label").unwrap();
    let sized: BTreeSet<String> = summary
        .records()
        .map(|r| r.unwrap())
        .filter(|r| r[size].parse::<f64>().is_ok_and(|b| b > 0.0))
        .map(|r| r[label].to_string())
        .collect();
    // Every label, and the section pooling them all (`normal + taskset`).
    let mut sections = labels.clone();
    if labels.len() > 1 {
        sections.insert(labels.iter().cloned().collect::<Vec<_>>().join(" + "));
    }
    assert_eq!(sized, sections);
    // ... and its verdict (one per section) ranks by it, saying it was compressed once.
    let md = std::fs::read_to_string(out.join("report/summary.md")).unwrap();
    let stored_rows: Vec<&str> = md
        .lines()
        .filter(|l| l.starts_with("| smallest as stored (zstd) |"))
        .collect();
    assert_eq!(stored_rows.len(), sections.len(), "{md}");
    assert!(
        stored_rows
            .iter()
            .all(|l| l.contains("x (the same bytes in every run)")
                || l.contains("| tie: the same size")),
        "{stored_rows:#?}"
    );
    let env = std::fs::read_to_string(out.join("environment.txt")).unwrap();
    for key in [
        "cpu: ",
        "governor: ",
        "kernel: ",
        "rustc: ",
        "git: ",
        "load average: ",
    ] {
        assert!(
            env.lines().any(|l| l.starts_with(key)),
            "{key} missing:\n{env}"
        );
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains(&format!("({} rows)", records.len())),
        "{stdout}"
    );
}

#[test]
fn a_killed_run_keeps_whole_rows_and_resume_completes_it_once() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results");
    // The capability assessment once for the test process, not in every bench.
    crate::common::place_capabilities(&out);
    let mut child = script()
        .args(["--quick", "--runs", "2", "--out"])
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    // A guard against a hang, not a speed limit: on a loaded 2-core machine (a build beside
    // the suite) the first quick run took over 120 s.
    let deadline = Instant::now() + Duration::from_secs(600);
    while std::fs::read_to_string(out.join("done.txt"))
        .map(|d| d.lines().count())
        .unwrap_or(0)
        < 1
    {
        assert!(Instant::now() < deadline, "no run completed in 600 s");
        assert!(child.try_wait().unwrap().is_none(), "script ended early");
        std::thread::sleep(Duration::from_millis(20));
    }
    let killed = Command::new("kill")
        .args(["-s", "KILL", "--", &format!("-{}", child.id())])
        .status()
        .unwrap();
    assert!(killed.success());
    child.wait().unwrap();

    let prefixes = prefixes(&out).len();
    let total = 2 * formats() * prefixes;
    let before = rows(&out);
    let first_done = done(&out);
    assert!(
        !first_done.is_empty() && first_done.len() < 2 * prefixes,
        "{first_done:?} of {prefixes} prefixes"
    );
    assert!(
        before.len() >= formats() && before.len() < total,
        "{}",
        before.len()
    );
    let first_run_id = first_done[0][3].clone();
    assert_eq!(
        before.iter().filter(|r| r[0] == *first_run_id).count(),
        formats()
    );
    // What a run killed between two of its rows leaves: rows of a run_id done.txt never got.
    let mut csv = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    let orphan = csv
        .lines()
        .nth(1)
        .unwrap()
        .replacen(&first_run_id, "unfinished-1", 1);
    csv.push_str(&orphan);
    csv.push('\n');
    std::fs::write(out.join("runs.csv"), csv).unwrap();

    // `--resume DIR` alone reuses the options the folder was started with.
    let output = script().arg("--resume").arg(&out).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("dropped"), "{stderr}");

    let after = rows(&out);
    assert_eq!(after.len(), total);
    assert!(after.iter().all(|r| &r[0] != "unfinished-1"));
    let (by_label_format, by_run) = counts(&after);
    assert!(
        by_label_format.values().all(|&n| n == 2),
        "{by_label_format:?}"
    );
    assert_eq!(by_run.len(), 2 * prefixes);
    assert!(by_run.values().all(|&n| n == formats()), "{by_run:?}");
    assert_eq!(
        by_run[&first_run_id],
        formats(),
        "the completed run was kept, not redone"
    );
    let done = done(&out);
    assert_eq!(done.len(), 2 * prefixes);
    let keys: BTreeSet<_> = done.iter().map(|d| d[..3].to_vec()).collect();
    assert_eq!(keys.len(), done.len(), "no run recorded twice");
    let done_ids: BTreeSet<&str> = done.iter().map(|d| d[3].as_str()).collect();
    let csv_ids: BTreeSet<&str> = by_run.keys().map(String::as_str).collect();
    assert_eq!(done_ids, csv_ids);
}

#[test]
fn explicit_prefixes_and_labels_replace_the_defaults() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results");
    crate::common::place_capabilities(&out);
    run(
        &[
            "--quick",
            "--prefix",
            "plain=",
            "--prefix",
            "env=env",
            "--label",
            "lab",
            "--formats",
            "sbe,flatbuffers",
        ],
        &out,
    );
    assert_eq!(
        prefixes(&out),
        [("plain", ""), ("env", "env"), ("lab", "")].map(|(l, c)| (l.to_string(), c.to_string()))
    );
    let records = rows(&out);
    let (by_label_format, _) = counts(&records);
    let expected: BTreeMap<(String, String), usize> = ["plain", "env", "lab"]
        .iter()
        .flat_map(|l| {
            ["flatbuffers", "sbe", "sbe.twin", "sbe.plus5"]
                .map(|f| ((l.to_string(), f.to_string()), 1))
        })
        .collect();
    assert_eq!(by_label_format, expected);

    let bad = script()
        .args(["--quick", "--prefix", "no-equals-sign"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&bad.stderr),
        "error: --prefix no-equals-sign: expected LABEL=COMMAND\n"
    );
}

/// Answers `requests` HTTP/1.1 GETs on 127.0.0.1 from `routes(base_url)`; returns the base URL.
fn serve(
    routes: impl FnOnce(&str) -> BTreeMap<String, Vec<u8>>,
    requests: usize,
) -> (String, std::thread::JoinHandle<()>) {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let routes = routes(&base);
    let thread = std::thread::spawn(move || {
        for stream in listener.incoming().take(requests) {
            let mut stream = stream.unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            let path = line.split_whitespace().nth(1).unwrap_or("/");
            let path = path.split('?').next().unwrap().to_string();
            loop {
                let mut header = String::new();
                if reader.read_line(&mut header).unwrap() == 0 || header == "\r\n" {
                    break;
                }
            }
            let (status, body) = match routes.get(&path) {
                Some(body) => ("200 OK", body.as_slice()),
                None => ("404 Not Found", &b""[..]),
            };
            let head = format!(
                "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(body);
        }
    });
    (base, thread)
}

#[test]
fn date_fetches_the_day_then_runs_it() {
    let sample =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample-deep.pcapng.gz"))
            .unwrap();
    let size = sample.len();
    let (base, server) = serve(
        |base| {
            let index = format!(
                r#"{{"20190903": [{{"link": "{base}/day.pcapng.gz", "feed": "DEEP", "version": "1.0", "protocol": "IEXTP1", "size": "{size}"}}]}}"#
            );
            BTreeMap::from([
                ("/hist".to_string(), index.into_bytes()),
                ("/day.pcapng.gz".to_string(), sample.clone()),
            ])
        },
        2,
    );
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let out = dir.path().join("results");
    // The capability assessment once for the test process, not in every bench.
    crate::common::place_capabilities(&out);
    let hist_url = format!("{base}/hist");
    let data_arg = data.to_str().unwrap();
    let output = run(
        &[
            "--date",
            "2019-09-03",
            "--hist-url",
            &hist_url,
            "--data",
            data_arg,
            "--runs",
            "1",
            "--prefix",
            "normal=",
            "--formats",
            "sbe",
        ],
        &out,
    );
    server.join().unwrap();
    let fetched = data.join("day.pcapng.gz");
    assert!(std::fs::read(&fetched).unwrap() == sample);
    let records = rows(&out);
    // sbe, its A/A twin and its positive control.
    assert_eq!(records.len(), 3);
    assert_eq!(&records[0][3], fetched.to_str().unwrap());
    assert_eq!(&records[0][6], "50000", "the sample's packets");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains(&format!("{} ({size} bytes)", fetched.display())),
        "{stdout}"
    );
}

#[test]
fn globbed_inputs_and_the_report_when_the_binary_has_one() {
    let dir = tempfile::tempdir().unwrap();
    let caps = dir.path().join("caps");
    std::fs::create_dir(&caps).unwrap();
    for (name, seed) in [("a.pcapng", "1"), ("b.pcapng", "2")] {
        let status = Command::new(env!("CARGO_BIN_EXE_shootout"))
            .args(["gen", "--packets", "2000", "--seed", seed, "--out"])
            .arg(caps.join(name))
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
    }
    // A stand-in for SHOOTOUT_BIN that logs how it is called: once, as `bench`; the runs are
    // children of the real binary itself, not of whatever launched it.
    let log = dir.path().join("calls.log");
    let fake = dir.path().join("shootout");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\necho \"$1\" >>'{}'\nexec '{}' \"$@\"\n",
            log.display(),
            env!("CARGO_BIN_EXE_shootout")
        ),
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();

    let out = dir.path().join("results");
    crate::common::place_capabilities(&out);
    let glob = format!("{}/*.pcapng", caps.display());
    let output = script()
        .env("SHOOTOUT_BIN", &fake)
        .args([
            glob.as_str(),
            "--runs",
            "1",
            "--label",
            "x",
            "--formats",
            "sbe",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let records = rows(&out);
    let mut inputs: Vec<&str> = records.iter().map(|r| &r[3]).collect();
    // sbe's row and its A/A twin's, per input.
    inputs.dedup();
    assert_eq!(
        inputs,
        [caps.join("a.pcapng"), caps.join("b.pcapng")].map(|p| p.display().to_string())
    );
    assert!(out.join("hist/a.pcapng/x/run1/sbe.ser.hgrm").is_file());
    assert!(out.join("hist/b.pcapng/x/run1/sbe.de.hgrm").is_file());
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "bench\n");
    // The report is written in the same process, from runs.csv and hist/.
    let o = out.display();
    let summary = std::fs::read_to_string(out.join("report/summary.md")).unwrap();
    assert!(
        summary.contains("a.pcapng") && summary.contains("b.pcapng"),
        "{summary}"
    );
    assert!(out.join("report/index.html").is_file());
    // A screenful: one line per run, each input's verdict, the warnings one line per kind,
    // where the files are; each run's own tables are in its log, not on the terminal.
    for (k, input) in ["a.pcapng", "b.pcapng"].iter().enumerate() {
        let line = format!("run {} of 2: {input}, x, run 1 of 1: ", k + 1);
        let line = stdout
            .lines()
            .find(|l| l.starts_with(&line))
            .expect(&stdout);
        assert!(
            line.ends_with(" warnings") || line.ends_with(" warning"),
            "{line}"
        );
        assert!(line.contains(" s, every field checked, "), "{line}");
        let log = out.join(format!("logs/{input}/x/run1.log"));
        let log = std::fs::read_to_string(&log).unwrap();
        assert!(log.contains("throughput, ns per packet"), "{log}");
        assert!(
            log.lines().any(|l| l.starts_with("checked: every field")),
            "{log}"
        );
        let verdict = format!("{input} [x]: median of 1 run.\nneed ");
        assert!(stdout.contains(&verdict), "{stdout}");
    }
    assert!(!stdout.contains("throughput, ns per packet"), "{stdout}");
    assert!(!stdout.contains("== summary across runs"), "{stdout}");
    assert!(stdout.contains(&format!("report: {o}/report/")), "{stdout}");
    assert!(
        // Two inputs, each sbe, its A/A twin and its positive control.
        stdout.contains(&format!(
            "results: {o}/runs.csv (6 rows), histograms in {o}/hist/, each run's own output in \
             {o}/logs/"
        )),
        "{stdout}"
    );
    // The default bench (two inputs, three labels, six runs each) prints 34 more run lines than
    // this one and nothing else more (the verdict shows one label per input): it must still fit
    // in 120 lines.
    let stderr = String::from_utf8_lossy(&output.stderr);
    let lines = stdout.lines().count() + stderr.lines().count();
    assert!(lines + 34 <= 120, "{lines} lines:\n{stdout}{stderr}");
}

/// `bench --verbose`: every run's own output on the terminal, and the whole summary.md at the
/// end, as before the one-line-per-run view.
#[test]
fn verbose_bench_shows_each_run_and_the_whole_summary() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results");
    crate::common::place_capabilities(&out);
    let o = out.display().to_string();
    let args = [
        "--quick",
        "--label",
        "x",
        "--formats",
        "raw",
        "--verbose",
        "--out",
        &o,
    ];
    let output = bench(dir.path(), &args);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(
        stdout.contains("== quick.pcapng, x, run 1 of 1\n"),
        "{stdout}"
    );
    assert!(stdout.contains("throughput, ns per packet"), "{stdout}");
    let summary = std::fs::read_to_string(out.join("report/summary.md")).unwrap();
    assert!(
        stdout.contains(&format!("== summary across runs\n{summary}")),
        "{stdout}"
    );
    assert!(!out.join("logs").exists());
}

/// `shootout bench` itself, in `dir` (so a default results/ would land there).
fn bench(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_shootout"))
        .arg("bench")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

#[test]
fn bench_refuses_what_makes_no_sense_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let capture = d.join("a.pcapng");
    std::fs::write(&capture, b"not read").unwrap();
    let cap = capture.to_str().unwrap();
    let missing = d.join("nowhere");
    let missing = missing.to_str().unwrap();
    let cases: [(&[&str], &str); 10] = [
        (&["--quick", "--runs", "0"], "--runs"),
        (&["--quick", "--runs", "-1"], "--runs"),
        (&["--resume", missing], "no such folder"),
        (&["--date", "20190903", cap], "--date"),
        (&["--quick", cap], "--quick"),
        (&["--quick", "--bogus"], "--bogus"),
        (&["--quick", "--feed", "tops"], "--date"),
        (&["--quick", "--formats", "sbe,nope"], "\"nope\""),
        (&["--date", "2019-13-45"], "--date 2019-13-45"),
        (&[missing], "no such file"),
    ];
    for (args, fragment) in cases {
        let out = bench(d, args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: one line: {stderr}");
        assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
        assert!(
            stderr.contains(fragment),
            "{args:?}: {fragment} in {stderr}"
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    let left: Vec<_> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["a.pcapng"], "a refused bench leaves nothing");

    // The same through the script, which passes every argument on.
    let out = script().args(["--quick", "--runs", "0"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1);
    let help = script().arg("--help").output().unwrap();
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(help.status.success());
    assert!(
        text.contains("--resume <DIR>") && text.contains("--prefix <L=CMD>"),
        "{text}"
    );
}

/// A stand-in `cargo` on PATH that reports, as `cargo build --message-format=json...` does, an
/// executable under `CARGO_TARGET_DIR`; the test puts the test build of `shootout` there.
#[test]
fn the_script_runs_the_binary_cargo_built_under_cargo_target_dir() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("target dir");
    let release = target.join("release");
    std::fs::create_dir_all(&release).unwrap();
    let exe = release.join("shootout");
    std::fs::copy(env!("CARGO_BIN_EXE_shootout"), &exe).unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let calls = dir.path().join("cargo.log");
    std::fs::write(
        bin.join("cargo"),
        format!(
            r#"#!/bin/sh
echo "$@" >>'{log}'
case " $* " in *" build --release "*"--message-format=json-render-diagnostics"*) ;; *) exit 99 ;; esac
echo 'Compiling? no: a line that is not JSON'
echo '{{"reason":"compiler-artifact","package_id":"path+file:///x#md-shootout@0.1.0","target":{{"kind":["lib"],"crate_types":["lib"],"name":"md_shootout","src_path":"/x/src/lib.rs"}},"filenames":["'$CARGO_TARGET_DIR'/release/libmd_shootout.rlib"],"executable":null,"fresh":true}}'
echo '{{"reason":"compiler-artifact","package_id":"path+file:///x#md-shootout@0.1.0","target":{{"kind":["bin"],"crate_types":["bin"],"name":"shootout","src_path":"/x/src/main.rs"}},"filenames":["'$CARGO_TARGET_DIR'/release/shootout"],"executable":"'$CARGO_TARGET_DIR'/release/shootout","fresh":false}}'
echo '{{"reason":"build-finished","success":true}}'
"#,
            log = calls.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(
        bin.join("cargo"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let out = dir.path().join("results");
    crate::common::place_capabilities(&out);
    let output = Command::new(Path::new(env!("CARGO_MANIFEST_DIR")).join("run_shootout.sh"))
        .env_remove("SHOOTOUT_BIN")
        .env("PATH", &path)
        .env("CARGO_TARGET_DIR", &target)
        .args([
            "--quick",
            "--runs",
            "1",
            "--prefix",
            "normal=",
            "--formats",
            "sbe",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(&calls).unwrap(),
        "build --release --bin shootout --message-format=json-render-diagnostics\n"
    );
    let env = std::fs::read_to_string(out.join("environment.txt")).unwrap();
    assert!(
        env.lines()
            .any(|l| l == format!("binary: {}", exe.display())),
        "{env}"
    );
    // sbe, its A/A twin and its positive control.
    assert_eq!(rows(&out).len(), 3);
}

/// The real thing, slow (a whole release build in a fresh target folder): `cargo test --test
/// run_script -- --ignored`.
#[test]
#[ignore]
fn real_build_under_cargo_target_dir() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("target");
    let out = dir.path().join("results");
    let output = Command::new(Path::new(env!("CARGO_MANIFEST_DIR")).join("run_shootout.sh"))
        .env_remove("SHOOTOUT_BIN")
        .env("CARGO_TARGET_DIR", &target)
        .args(["--quick", "--runs", "1", "--prefix", "normal=", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let env = std::fs::read_to_string(out.join("environment.txt")).unwrap();
    let built = target.join("release/shootout");
    assert!(
        env.lines()
            .any(|l| l == format!("binary: {}", built.display())),
        "{env}"
    );
    assert_eq!(rows(&out).len(), formats());
}

/// `bench --unit packet,message`: both units in one matrix and one `runs.csv`; the per-message
/// runs keep their histograms under `<label> (per message)`, the report section they land in.
#[test]
fn bench_runs_both_units_in_one_matrix() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results");
    // The capability assessment once for the test process, not in every bench.
    crate::common::place_capabilities(&out);
    let o = crate::common::shootout(&[
        "bench",
        "--quick",
        "--unit",
        "packet,message",
        "--prefix",
        "normal=",
        "--formats",
        "raw,sbe",
        "--no-stored-size",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut reader = csv::Reader::from_path(out.join("runs.csv")).unwrap();
    let head = reader.headers().unwrap().clone();
    let at = |c: &str| head.iter().position(|h| h == c).unwrap();
    let mut units: Vec<(String, String)> = reader
        .records()
        .map(|r| r.unwrap())
        .map(|r| (r[at("unit")].to_owned(), r[at("label")].to_owned()))
        .collect();
    units.sort();
    units.dedup();
    assert_eq!(
        units,
        [
            ("message".to_owned(), "normal".to_owned()),
            ("packet".to_owned(), "normal".to_owned())
        ]
    );
    for label in ["normal", "normal (per message)"] {
        let run = out.join("hist/quick.pcapng").join(label).join("run1");
        assert!(run.join("raw.de_all.hgrm").is_file(), "{}", run.display());
    }
    let md = std::fs::read_to_string(out.join("report/summary.md")).unwrap();
    assert!(
        md.contains("[normal (per message)]") && md.contains("[normal]"),
        "{md}"
    );

    let refused = crate::common::shootout(&["bench", "--quick", "--unit", "packet,packet"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--unit names each"));
}

#[test]
fn date_with_feed_deep_plus_fetches_the_dpls_file_and_runs_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let plus = std::fs::read(root.join("data/sample-deep-plus.pcapng.gz")).unwrap();
    let size = plus.len();
    let (base, server) = serve(
        |base| {
            // The day also lists DEEP and the multi-channel DPLC: only DPLS 1.0 is to be taken.
            let index = format!(
                r#"{{"20241105": [
                    {{"link": "{base}/deep.pcap.gz", "feed": "DEEP", "version": "1.0", "size": "9"}},
                    {{"link": "{base}/dplc.pcap", "feed": "DPLC", "version": "1.0", "size": "9"}},
                    {{"link": "{base}/dpls.pcapng.gz", "feed": "DPLS", "version": "1.0", "protocol": "IEXTP1", "size": "{size}"}}]}}"#
            );
            BTreeMap::from([
                ("/hist".to_string(), index.into_bytes()),
                ("/dpls.pcapng.gz".to_string(), plus.clone()),
            ])
        },
        2,
    );
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let out = dir.path().join("results");
    // The capability assessment once for the test process, not in every bench.
    crate::common::place_capabilities(&out);
    let hist_url = format!("{base}/hist");
    run(
        &[
            "--date",
            "20241105",
            "--feed",
            "deep-plus",
            "--hist-url",
            &hist_url,
            "--data",
            data.to_str().unwrap(),
            "--runs",
            "1",
            "--prefix",
            "normal=",
            "--formats",
            "sbe",
        ],
        &out,
    );
    server.join().unwrap();
    let fetched = data.join("dpls.pcapng.gz");
    assert!(std::fs::read(&fetched).unwrap() == plus);
    let records = rows(&out);
    // sbe, its A/A twin and its positive control.
    assert_eq!(records.len(), 3);
    assert_eq!(&records[0][5], "deep-plus", "the feed column");
    assert_eq!(&records[0][7], "120553", "the DEEP+ sample's messages");
}

/// With no INPUT the bench measures the bundled real DEEP sample (cut short as IEX published it,
/// so its runs read it with `--lenient`: the CSV says 476 bytes were dropped, the figure in
/// data/README.md) and the synthetic DEEP+ sample, and the report says which is which.
#[test]
fn the_default_inputs_are_the_real_deep_sample_and_the_synthetic_deep_plus_one() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results");
    // The capability assessment once for the test process, not in every bench.
    crate::common::place_capabilities(&out);
    let o = Command::new(env!("CARGO_BIN_EXE_shootout"))
        .args(["bench", "--runs", "1", "--prefix", "normal=", "--formats"])
        .arg("sbe")
        .args(["--no-stored-size", "--timing", "alternate", "--out"])
        .arg(&out)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut reader = csv::Reader::from_path(out.join("runs.csv")).unwrap();
    let head = reader.headers().unwrap().clone();
    let at = |c: &str| head.iter().position(|h| h == c).unwrap();
    let mut seen: Vec<(String, String, String)> = reader
        .records()
        .map(|r| r.unwrap())
        .map(|r| {
            (
                r[at("input")].to_owned(),
                r[at("packets")].to_owned(),
                r[at("dropped_bytes")].to_owned(),
            )
        })
        .collect();
    seen.sort();
    // sbe's row and its A/A twin's say the same of the input.
    seen.dedup();
    assert_eq!(
        seen,
        [
            ("data/DEEP10.pcap.gz".into(), "121314".into(), "476".into()),
            (
                "data/sample-deep-plus.pcapng.gz".into(),
                "50000".into(),
                String::new()
            ),
        ]
    );
    let html = std::fs::read_to_string(out.join("report/index.html")).unwrap();
    assert!(
        html.contains("real: IEX DEEP 1.0 sample, 2017-04-25"),
        "the report names the real input"
    );
    assert!(html.contains("synthetic: a bundled sample written by `shootout gen`"));
}

/// The bundled DEEP sample named, or copied under another name, reads as when `bench` picks it
/// itself (issue 49: named, its first run failed, "capture cut short", and left half a bench):
/// with `--lenient`, said once, its 121,314 whole packets.
#[test]
fn the_bundled_sample_reads_the_same_named_or_defaulted() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results");
    crate::common::place_capabilities(&out);
    let copy = dir.path().join("any-name.pcap.gz");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(root.join("data/DEEP10.pcap.gz"), &copy).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_shootout"))
        .args([
            "bench",
            "--runs",
            "1",
            "--prefix",
            "normal=",
            "--formats",
            "raw",
        ])
        .args(["--no-stored-size", "--timing", "alternate", "--out"])
        .arg(&out)
        .arg(&copy)
        .current_dir(root)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let said = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        said.matches("cut short at its end as published").count(),
        1,
        "{said}"
    );
    let mut reader = csv::Reader::from_path(out.join("runs.csv")).unwrap();
    let head = reader.headers().unwrap().clone();
    let at = |c: &str| head.iter().position(|h| h == c).unwrap();
    for r in reader.records().map(Result::unwrap) {
        assert_eq!(
            (&r[at("packets")], &r[at("dropped_bytes")]),
            ("121314", "476")
        );
    }
}

/// `./run_shootout.sh --help` answers at once, with no set-up and no build (issue 49): bench's
/// help as the binary prints it (docs/cli.md's copy, which `cli_doc` keeps equal), and no target
/// directory made.
#[test]
fn help_answers_without_setting_up_or_building() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("target");
    for flag in ["--help", "-h"] {
        let started = Instant::now();
        let output = Command::new(Path::new(env!("CARGO_MANIFEST_DIR")).join("run_shootout.sh"))
            .arg(flag)
            .env("CARGO_TARGET_DIR", &target)
            .env_remove("SHOOTOUT_BIN")
            .output()
            .unwrap();
        assert!(output.status.success(), "{flag}");
        assert!(started.elapsed() < Duration::from_secs(5), "{flag}");
        let help = crate::common::shootout(&["bench", "--help"]).stdout;
        assert_eq!(
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&help),
            "{flag}"
        );
        assert!(!target.exists(), "{flag} made a target directory");
    }
}
