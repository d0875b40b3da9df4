//! A run split by chunks: `run --jobs N` (worker processes on one machine) and `run --shard I/N
//! --part` + `shootout merge` (shares run anywhere) give what one process gives: the same
//! messages, checks, sizes, allocation counts and histogram counts per format; and refusals and
//! failures that name what is wrong.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use md_shootout::gen::{self, GenOptions};
use md_shootout::measure::affinity::allowed_cpus;

use crate::common::{
    csv_rows, latencies_are_the_units, place_capabilities, rows_of_every_format, shootout,
    shootout_ok, ALLOC_COLUMNS,
};

type Row = HashMap<String, String>;

fn day(dir: &Path, name: &str, packets: u64) -> PathBuf {
    let input = dir.join(name);
    let opts = GenOptions {
        packets,
        seed: 3,
        symbols: 60,
        ..GenOptions::default()
    };
    gen::generate_file(&opts, &input).unwrap();
    input
}

/// The options every run of one comparison takes: small chunks, so that a small input has many
/// (and windows that fit in one: a longer window is refused).
pub const SPLIT: [&str; 10] = [
    "--window",
    "256",
    "--warmup",
    "300",
    "--chunk",
    "64K",
    "--order-seed",
    "11",
    "--stored-size",
    "all",
];

/// Columns that must agree exactly between one process and any split of the same run.
pub const SAME: [&str; 9] = [
    "format",
    "packets",
    "messages",
    "encoded_bytes",
    "units",
    "batch_units",
    "zstd_bytes",
    "zlib_bytes",
    "stored_sampled_bytes",
];

/// What one run wrote: its table, rows, summary and histogram folder.
struct Written {
    table: String,
    rows: Vec<Row>,
    summary: String,
    hist: PathBuf,
}

/// `run FILE` with `extra` and [`SPLIT`], writing into `dir/name*`.
fn run(dir: &Path, input: &Path, name: &str, extra: &[&str]) -> Written {
    let (csv, summary, hist) = (
        dir.join(format!("{name}.csv")),
        dir.join(format!("{name}-summary.csv")),
        dir.join(format!("{name}-hist")),
    );
    let mut args = vec![
        "run",
        input.to_str().unwrap(),
        "--csv",
        csv.to_str().unwrap(),
        "--summary",
        summary.to_str().unwrap(),
        "--hist-dir",
        hist.to_str().unwrap(),
    ];
    args.extend(SPLIT);
    args.extend(extra);
    let table = shootout_ok(&args);
    Written {
        table,
        rows: csv_rows(&csv),
        summary: std::fs::read_to_string(summary).unwrap(),
        hist,
    }
}

/// Every count and size of `split` equals `one`'s, and its histograms hold as many samples as it
/// recorded units.
fn same_as_one_process(one: &Written, split: &Written) {
    assert_eq!(
        split.summary, one.summary,
        "the aggregation every format agreed on"
    );
    assert_eq!(split.rows.len(), one.rows.len());
    // A stream format (dbn) numbers symbols in the order a process first sees them, so a share
    // writes other ids than one process: the same sizes, other bytes, which compress a little
    // otherwise (within 0.1%).
    let streams: Vec<&str> = md_shootout::measure::registry()
        .iter()
        .filter(|r| r.stream())
        .map(|r| r.name())
        .collect();
    for (a, b) in one.rows.iter().zip(&split.rows) {
        for c in SAME.into_iter().chain(ALLOC_COLUMNS) {
            let compressed = c.starts_with("zstd_") || c.starts_with("zlib_");
            if compressed && a[c] != b[c] && streams.contains(&a["format"].as_str()) {
                let (x, y): (f64, f64) = (a[c].parse().unwrap(), b[c].parse().unwrap());
                assert!(
                    (x - y).abs() <= x * 0.001,
                    "{c} of {}: {x} and {y}",
                    a["format"]
                );
                continue;
            }
            assert_eq!(a[c], b[c], "{c} of {}", a["format"]);
        }
        assert!(!b["de_all_allocs"].is_empty(), "{}", b["format"]);
        assert_eq!(b["shard"], "", "a merged run is a whole run");
        for side in ["ser", "de", "de_all"] {
            let log = std::fs::read(split.hist.join(format!("{}.{side}.hlog", b["format"])));
            let Ok(log) = log else { continue };
            let h = md_shootout::report::dist::parse_log(&log).unwrap();
            latencies_are_the_units(&b["format"], h.len(), &b["units"], side);
        }
    }
}

#[test]
fn two_workers_by_chunks_give_what_one_process_gives() {
    if allowed_cpus().len() < 2 {
        eprintln!("one CPU here: --jobs 2 is refused, see the test below");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // gzip'd: the workers inflate the whole stream and pass over each other's chunks.
    let input = day(dir.path(), "day.pcapng.gz", 6_000);
    let one = run(dir.path(), &input, "one", &[]);
    let two = run(dir.path(), &input, "two", &["--jobs", "2"]);

    assert!(
        two.table
            .contains("jobs: 2 worker processes side by side, each every format over its share"),
        "{}",
        two.table
    );
    for share in ["share 1/2 on CPU ", "share 2/2 on CPU "] {
        assert!(two.table.contains(share), "{}", two.table);
    }
    assert!(two.table.contains(" idle "), "{}", two.table);
    assert!(!one.table.contains("jobs: "), "{}", one.table);
    assert_eq!(
        two.rows
            .iter()
            .map(|r| r["format"].clone())
            .collect::<Vec<_>>(),
        rows_of_every_format(),
        "every format once, in the registry's order, then the twins"
    );
    let ids: BTreeSet<&str> = two.rows.iter().map(|r| r["run_id"].as_str()).collect();
    assert_eq!(ids.len(), 1, "one run_id for the merged run");
    for (a, b) in one.rows.iter().zip(&two.rows) {
        assert_eq!((a["jobs"].as_str(), b["jobs"].as_str()), ("1", "2"));
        // Every worker measured every format.
        assert_eq!(b["worker_cpu"], "");
    }
    same_as_one_process(&one, &two);
}

#[test]
fn four_shards_merged_give_what_one_process_gives_and_bad_sets_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    // Plain pcap: each share reads its own chunks.
    let opts = GenOptions {
        packets: 6_000,
        seed: 3,
        symbols: 60,
        capture: md_shootout::capture::CaptureKind::Pcap,
        ..GenOptions::default()
    };
    let input = dir.path().join("day.pcap");
    gen::generate_file(&opts, &input).unwrap();
    let formats = ["--formats", "raw,sbe,capnp-packed,json"];
    let one = run(dir.path(), &input, "one", &formats);
    let mut parts = Vec::new();
    for i in 1..=4 {
        let part = dir.path().join(format!("part-{i}.json"));
        let shard = format!("{i}/4");
        let mut args = vec![
            "run",
            input.to_str().unwrap(),
            "--shard",
            &shard,
            "--part",
            part.to_str().unwrap(),
        ];
        args.extend(SPLIT);
        args.extend(formats);
        shootout_ok(&args);
        parts.push(part);
    }
    let merge = |parts: &[PathBuf], out: &Path| {
        let mut args = vec!["merge".to_owned()];
        args.extend(parts.iter().map(|p| p.display().to_string()));
        args.extend(["--out".to_owned(), out.display().to_string()]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        shootout(&args)
    };
    // In any order.
    let shuffled = [&parts[2], &parts[0], &parts[3], &parts[1]].map(|p| p.to_path_buf());
    let out = dir.path().join("merged");
    let o = merge(&shuffled, &out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let merged = Written {
        table: String::from_utf8_lossy(&o.stdout).into_owned(),
        rows: csv_rows(&out.join("results.csv")),
        summary: std::fs::read_to_string(out.join("summary.csv")).unwrap(),
        hist: out.join("hist"),
    };
    assert!(merged.table.contains("share 4/4 on "), "{}", merged.table);
    for r in &merged.rows {
        assert_eq!(r["jobs"], "4");
    }
    same_as_one_process(&one, &merged);
    // The merged rows are a run `report` reads.
    let report = dir.path().join("report");
    shootout_ok(&[
        "report",
        out.join("results.csv").to_str().unwrap(),
        "--out",
        report.to_str().unwrap(),
    ]);

    // Refused in one line, exit 2, nothing written.
    let refused = |parts: &[PathBuf], expect: &str| {
        let out = dir.path().join("refused");
        let o = merge(parts, &out);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains(expect), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(!out.exists());
    };
    refused(&parts[..3], "incomplete: shard 4/4 of 4 missing");
    refused(
        &[&parts[0], &parts[1], &parts[1], &parts[2], &parts[3]].map(|p| p.to_path_buf()),
        "shard 2/4 given more than once",
    );
    // A part of the same share without the twins: not one run.
    let other = dir.path().join("other-4.json");
    let mut args = vec![
        "run",
        input.to_str().unwrap(),
        "--shard",
        "4/4",
        "--part",
        other.to_str().unwrap(),
    ];
    args.extend(SPLIT);
    args.extend(formats);
    args.extend(["--twins", "none"]);
    shootout_ok(&args);
    let mixed = [&parts[0], &parts[1], &parts[2], &other].map(|p| p.to_path_buf());
    refused(&mixed, "not parts of one run: the options differ");
    let junk = dir.path().join("junk.json");
    std::fs::write(&junk, "{\"a\": 1}").unwrap();
    refused(
        std::slice::from_ref(&junk),
        "not a part written by `run --shard --part`",
    );
    // The merged folder is not written twice.
    let o = merge(&parts, &out);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("results.csv exists"));
    // A share's own rows are not a run.
    let csv = dir.path().join("shard.csv");
    let mut args = vec![
        "run",
        input.to_str().unwrap(),
        "--shard",
        "1/4",
        "--part",
        parts[0].to_str().unwrap(),
        "--csv",
        csv.to_str().unwrap(),
    ];
    args.extend(SPLIT);
    args.extend(formats);
    shootout_ok(&args);
    assert!(csv_rows(&csv).iter().all(|r| r["shard"] == "1/4"));
    let o = shootout(&[
        "report",
        csv.to_str().unwrap(),
        "--out",
        dir.path().join("r2").to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("a row of shard 1/4 of a run"));
}

#[test]
fn splits_that_make_no_sense_are_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let input = day(dir.path(), "day.pcapng", 500);
    let refused = |args: &[&str]| {
        let mut all = vec!["run", input.to_str().unwrap()];
        all.extend_from_slice(args);
        let out = shootout(&all);
        assert!(!out.status.success(), "{args:?} was accepted");
        let e = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(e.trim_end().lines().count(), 1, "{e}");
        e
    };
    let e = refused(&["--jobs", "0"]);
    assert!(e.contains("needs a positive number"), "{e}");
    let n = allowed_cpus().len();
    let too_many = (n + 1).to_string();
    let e = refused(&["--jobs", &too_many]);
    assert!(
        e.contains(&format!(
            "--jobs {too_many}: this process may run on {n} CPU"
        )),
        "{e}"
    );
    let e = refused(&["--shard", "2/4"]);
    assert!(e.contains("--shard 2/4 needs --part FILE"), "{e}");
    for bad in ["0/4", "5/4", "x"] {
        let e = refused(&["--shard", bad]);
        assert!(e.contains("expected I/N with 1 <= I <= N"), "{e}");
    }
    let e = refused(&["--chunk", "1K"]);
    assert!(e.contains("below the smallest chunk"), "{e}");
    let part = dir.path().join("p.json");
    let e = refused(&[
        "--shard",
        "1/2",
        "--part",
        part.to_str().unwrap(),
        "--jobs",
        "2",
    ]);
    assert!(e.contains("--jobs 2 with --shard 1/2"), "{e}");
}

#[test]
fn a_worker_that_fails_fails_the_run_naming_the_file_and_writes_no_row() {
    if allowed_cpus().len() < 2 {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let input = day(dir.path(), "day.pcapng", 30_000);
    // Cut the capture inside its last packet: the worker that reads to the end stops there.
    let bytes = std::fs::read(&input).unwrap();
    let cut = dir.path().join("cut.pcapng");
    std::fs::write(&cut, &bytes[..bytes.len() - 100]).unwrap();
    let csv = dir.path().join("runs.csv");
    let out = shootout(&[
        "run",
        cut.to_str().unwrap(),
        "--jobs",
        "2",
        "--chunk",
        "64K",
        "--window",
        "256",
        "--formats",
        "raw",
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
    assert!(
        err.starts_with("error: --jobs 40: this process may run on "),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(!out.exists(), "nothing written for a refused bench");
    if allowed_cpus().len() < 2 {
        return;
    }
    place_capabilities(&out);
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
    let rows = csv_rows(&out.join("runs.csv"));
    // raw, sbe, json, the twins of sbe and raw, and their positive controls.
    assert_eq!(rows.len(), 7);
    for r in &rows {
        assert_eq!(r["jobs"], "2");
        assert_eq!(r["label"], "normal (2 jobs)");
    }
    assert!(out.join("report/index.html").is_file());
}

/// Generated plain pcap of `packets` packets.
fn plain_day(dir: &Path, packets: u64) -> PathBuf {
    let opts = GenOptions {
        packets,
        seed: 5,
        symbols: 30,
        capture: md_shootout::capture::CaptureKind::Pcap,
        ..GenOptions::default()
    };
    let input = dir.join("plain.pcap");
    gen::generate_file(&opts, &input).unwrap();
    input
}

#[test]
fn a_share_of_a_plain_capture_reads_its_own_chunks_and_a_gzipd_one_reads_all() {
    use md_shootout::stream::{open_share, Chunking, Share};
    let dir = tempfile::tempdir().unwrap();
    let plain = plain_day(dir.path(), 20_000);
    let share = Chunking {
        bytes: 64 << 10,
        share: "2/4".parse::<Share>().unwrap(),
    };
    // Every segment share 2/4 yields (chunks 1, 5, 9, ...), and its cover.
    let read = |path: &Path| -> Result<(Vec<(u64, u64)>, usize), String> {
        let mut opened = open_share(path, false, share).map_err(|e| e.to_string())?;
        let mut seen = Vec::new();
        while let Some(item) = opened.reader.next_segment().map_err(|e| e.to_string())? {
            assert_eq!(item.chunk % 4, 1, "only chunks 1, 5, 9, ...");
            seen.push((item.offset, item.segment.header.first_seq));
        }
        let spans = opened.reader.cover().unwrap().spans.clone();
        assert!(spans.iter().all(|s| s.chunk % 4 == 1), "{spans:?}");
        Ok((seen, spans.len()))
    };
    let intact = read(&plain).unwrap();
    assert!(
        intact.0.len() > 3_000 && intact.1 > 10,
        "{}",
        intact.0.len()
    );

    // Garbage inside chunks 0 and 2 (other shares'): a share that seeks never reads it.
    let mut bytes = std::fs::read(&plain).unwrap();
    bytes[10 << 10..60 << 10].fill(0xEE);
    bytes[140 << 10..180 << 10].fill(0xEE);
    let damaged = dir.path().join("damaged.pcap");
    std::fs::write(&damaged, &bytes).unwrap();
    assert_eq!(
        read(&damaged).unwrap(),
        intact,
        "the same records, seeked past the damage"
    );

    // gzip'd, the same share must inflate and walk every record before its own: it meets the
    // damage.
    let gz = dir.path().join("damaged.pcap.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut enc, &bytes).unwrap();
    std::fs::write(&gz, enc.finish().unwrap()).unwrap();
    let e = read(&gz).unwrap_err();
    assert!(e.starts_with("pcap record at byte 10"), "{e}");
}

#[test]
fn a_share_that_cannot_find_its_chunk_in_a_damaged_capture_says_where() {
    let dir = tempfile::tempdir().unwrap();
    let plain = plain_day(dir.path(), 20_000);
    let mut bytes = std::fs::read(&plain).unwrap();
    assert!(bytes.len() > (3 << 20), "{}", bytes.len());
    // 1.25 MiB of garbage from byte 1 MiB: no record structure where chunk 16 starts.
    bytes[(1 << 20)..(1 << 20) + (5 << 18)].fill(0xFF);
    std::fs::write(&plain, &bytes).unwrap();
    let part = dir.path().join("p.json");
    // Chunk 16 (byte 1,048,576) is share 1/4's.
    let out = shootout(&[
        "run",
        plain.to_str().unwrap(),
        "--shard",
        "1/4",
        "--chunk",
        "64K",
        "--window",
        "256",
        "--part",
        part.to_str().unwrap(),
        "--formats",
        "raw",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("plain.pcap"), "{err}");
    assert!(err.contains("byte 1048576"), "{err}");
    assert!(err.contains("damaged"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(!part.exists(), "no part for a failed share");
}
