//! `shootout report` on hand-written results CSVs: exact medians, spreads, CVs, ratios, run
//! counts and warnings, and the files it writes (summary.csv, summary.md, SVG, index.html).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use md_shootout::export::{self, csv::COLUMNS};
use md_shootout::measure::Workload::{Complete, Encode, Selective};
use md_shootout::report::{
    self,
    stats::{Basis, Group},
    WarningKind,
};

/// One fixture row: a run of one format. The other percentiles follow p50 by fixed factors
/// (p90 = 2x, p99 = 4x, p99.9 = 8x, p99.99 = 16x, max = 100x, mean = 1.5x), so every percentile
/// of a group has the CV of its p50 and medians scale the same way.
pub(crate) struct Fixture {
    pub(crate) run: &'static str,
    pub(crate) input: &'static str,
    pub(crate) label: &'static str,
    pub(crate) format: &'static str,
    pub(crate) host: &'static str,
    pub(crate) bytes: f64,
    pub(crate) ser_p50: u64,
    pub(crate) de_p50: u64,
    pub(crate) msgs_per_sec: u64,
    pub(crate) overhead: f64,
    pub(crate) messages: u64,
    /// The size as stored, whole run: `None` writes an empty cell (`--no-stored-size`).
    pub(crate) zstd: Option<u64>,
    pub(crate) zlib: Option<u64>,
    pub(crate) zstd_ns: Option<u64>,
    /// The run's memcpy floor (p50, mean); `None` writes empty cells.
    pub(crate) floor: Option<(u64, f64)>,
    /// The complete decode's p50 (the other percentiles follow it like ser's and de's); `None`
    /// writes empty cells, as a row from before it was measured.
    pub(crate) de_all_p50: Option<u64>,
    /// ser batch, de batch, de_all batch (ns per packet); `None` writes empty cells.
    pub(crate) batch: Option<(f64, f64, f64)>,
    /// The memcpy floor timed the batch way; `None` writes an empty cell.
    pub(crate) memcpy_batch: Option<f64>,
    pub(crate) clock: Option<&'static str>,
    /// Units timed one by one in the run (`units`): what its percentiles rest on.
    pub(crate) units: u64,
    /// Minor page faults inside the run's timed regions; `None` writes an empty cell.
    pub(crate) timed_faults: Option<u64>,
    /// The `dropped_bytes` column: set for an input cut short at its end.
    pub(crate) dropped_bytes: Option<u64>,
    /// Allocations per unit of ser, de and de_all (64 bytes each); `None` writes empty cells, as
    /// a run without the counting allocator.
    pub(crate) allocs: Option<[f64; 3]>,
    /// The harness columns of issue 39 (`preempted`, `retimed`, `aggregate_batch_ns`,
    /// `clock_step_ns`); `None` writes empty cells, as a run from before them.
    pub(crate) preempted: Option<u64>,
    pub(crate) retimed: Option<u64>,
    pub(crate) aggregate: Option<f64>,
    pub(crate) clock_step: Option<f64>,
}

fn values(f: &Fixture) -> HashMap<String, String> {
    let mut v: HashMap<String, String> = HashMap::new();
    let mut set = |k: &str, x: String| {
        v.insert(k.to_owned(), x);
    };
    set("run_id", f.run.into());
    set("started_at", "2026-11-21T06:00:00.000Z".into());
    set("label", f.label.into());
    set("input", f.input.into());
    set("input_bytes", "3300000".into());
    set("feed", "deep".into());
    set("packets", "50000".into());
    set("messages", f.messages.to_string());
    set("format", f.format.into());
    set(
        "encoded_bytes",
        format!("{}", (f.bytes * f.messages as f64) as u64),
    );
    set("bytes_per_message", f.bytes.to_string());
    for (side, p50) in [("ser", f.ser_p50), ("de", f.de_p50)] {
        for (col, k) in [
            ("p50", 1),
            ("p90", 2),
            ("p99", 4),
            ("p999", 8),
            ("p9999", 16),
            ("max", 100),
        ] {
            set(&format!("{side}_{col}_ns"), (p50 * k).to_string());
        }
        set(&format!("{side}_mean_ns"), (p50 as f64 * 1.5).to_string());
        set(&format!("{side}_total_ns"), (p50 * 50000).to_string());
    }
    set("msgs_per_sec", f.msgs_per_sec.to_string());
    set("timer_overhead_ns", f.overhead.to_string());
    set("host", f.host.into());
    set("cpu", "AMD EPYC, 2.6 GHz".into()); // a comma: the field must be quoted
    set("rustc", "rustc 1.95.0".into());
    set("git_rev", "abc123".into());
    let cell = |x: Option<u64>| x.map_or(String::new(), |x| x.to_string());
    set("zstd_bytes", cell(f.zstd));
    set("zlib_bytes", cell(f.zlib));
    set("zstd_ns", cell(f.zstd_ns));
    set("memcpy_p50_ns", cell(f.floor.map(|(p50, _)| p50)));
    set(
        "memcpy_mean_ns",
        f.floor.map_or(String::new(), |(_, mean)| mean.to_string()),
    );
    for (col, k) in [
        ("p50", 1),
        ("p90", 2),
        ("p99", 4),
        ("p999", 8),
        ("p9999", 16),
        ("max", 100),
        ("total", 50000),
    ] {
        set(
            &format!("de_all_{col}_ns"),
            cell(f.de_all_p50.map(|p| p * k)),
        );
    }
    set(
        "de_all_mean_ns",
        f.de_all_p50
            .map_or(String::new(), |p| (p as f64 * 1.5).to_string()),
    );
    let float = |x: Option<f64>| x.map_or(String::new(), |x| x.to_string());
    set("ser_batch_ns", float(f.batch.map(|b| b.0)));
    set("de_batch_ns", float(f.batch.map(|b| b.1)));
    set("de_all_batch_ns", float(f.batch.map(|b| b.2)));
    set("clock", f.clock.unwrap_or("").into());
    set("memcpy_batch_ns", float(f.memcpy_batch));
    set("unit", "packet".into());
    set("units", f.units.to_string());
    let stored = f.zstd.is_some();
    set("stored_mode", if stored { "all" } else { "none" }.into());
    set(
        "stored_sampled_bytes",
        if stored {
            format!("{}", (f.bytes * f.messages as f64) as u64)
        } else {
            String::new()
        },
    );
    set("timing", "both".into());
    set("batch_units", "50000".into());
    set("jobs", "1".into());
    set("worker_cpu", String::new());
    set("shard", String::new());
    set("timed_faults", cell(f.timed_faults));
    // Above i64::MAX: the seed is a u64.
    set("order_seed", "17293822569102704642".into());
    set("dropped_bytes", cell(f.dropped_bytes));
    // Allocations as given (tests/it/allocations.rs reads a real run's).
    for (i, side) in ["ser", "de", "de_all"].into_iter().enumerate() {
        let count = f.allocs.map(|a| a[i]);
        set(&format!("{side}_allocs"), float(count));
        set(
            &format!("{side}_alloc_bytes"),
            float(count.map(|n| 64.0 * n)),
        );
    }
    set(
        "trusts_producer",
        md_shootout::formats::descriptor(f.format)
            .is_some_and(|d| d.trusts_producer())
            .to_string(),
    );
    // An A/A twin names its original (`sbe.twin` is sbe's); the harness columns of issue 39
    // as given.
    // A positive control (`sbe.plus5`) too, with its planted extra work (issue 46): 0 on an A/A
    // twin's row, 0.05 on a control's, empty on a format's.
    let (twin_of, planted) = match (
        f.format.strip_suffix(".twin"),
        f.format.strip_suffix(".plus5"),
    ) {
        (Some(of), _) => (of, "0"),
        (_, Some(of)) => (of, "0.05"),
        _ => ("", ""),
    };
    set("twin_of", twin_of.to_owned());
    set("planted", planted.to_owned());
    set("clock_step_ns", float(f.clock_step));
    set("preempted", cell(f.preempted));
    set("retimed", cell(f.retimed));
    set("aggregate_batch_ns", float(f.aggregate));
    // The fixtures' formats are timed per packet (`latency_note` is for a window format's row,
    // issue 37: `arrow`) and carry every field (`lossy`, issue 37: `dbn`).
    set("latency_note", String::new());
    set("lossy", "false".to_owned());
    // Instructions are counted only with `--instructions` where the CPU has no counters.
    for column in ["ser_instr", "de_instr", "de_all_instr", "instr_source"] {
        set(column, String::new());
    }
    // A format's row over every message type (tests/it/by_type.rs writes the others).
    set("msg_type", String::new());
    v
}

/// The header `run` writes, complete decode, batch and harness columns included.
pub(crate) fn columns_now() -> Vec<&'static str> {
    COLUMNS.split(',').collect()
}

pub(crate) fn write_csv(path: &Path, header: &[&str], rows: &[Fixture]) {
    let mut w = csv::Writer::from_path(path).unwrap();
    w.write_record(header).unwrap();
    for f in rows {
        let v = values(f);
        w.write_record(header.iter().map(|h| v[*h].as_str()))
            .unwrap();
    }
    w.flush().unwrap();
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn fx(
    run: &'static str,
    input: &'static str,
    label: &'static str,
    format: &'static str,
    host: &'static str,
    ser_p50: u64,
    de_p50: u64,
    msgs_per_sec: u64,
    overhead: f64,
) -> Fixture {
    Fixture {
        run,
        input,
        label,
        format,
        host,
        bytes: if format == "sbe" { 50.3 } else { 41.4 },
        ser_p50,
        de_p50,
        msgs_per_sec,
        overhead,
        messages: 121655,
        zstd: None,
        zlib: None,
        zstd_ns: None,
        floor: None,
        de_all_p50: None,
        batch: None,
        memcpy_batch: None,
        clock: None,
        units: 50000,
        timed_faults: None,
        dropped_bytes: None,
        allocs: None,
        preempted: None,
        retimed: None,
        aggregate: None,
        clock_step: None,
    }
}

/// The header before the size as stored was added: the first 33 columns.
fn old_columns() -> Vec<&'static str> {
    let all: Vec<&str> = COLUMNS.split(',').collect();
    assert_eq!(all[33..36], ["zstd_bytes", "zlib_bytes", "zstd_ns"]);
    assert_eq!(all[36..38], ["memcpy_p50_ns", "memcpy_mean_ns"]);
    all[..33].to_vec()
}

/// Writes the fixtures:
/// - `a/runs.csv` (host a, governor performance, the old 33-column header, without the size as
///   stored): label `normal` runs 1 and 2 of sbe and capnp-packed;
/// - `b/runs.csv` (host a again, another day: governor powersave, the header `run` writes today with the size
///   columns left empty as `--no-stored-size` does, input under another path): label `normal`
///   run 3, and label `pinned` runs p1, p2.
///
/// No `raw` format in either.
///
/// Returns (dir, csv a, csv b).
pub(crate) fn fixtures() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    let day = "data/day1.pcapng.gz";
    write_csv(
        &a.join("runs.csv"),
        &old_columns(),
        &[
            fx("r1", day, "normal", "sbe", "a", 40, 30, 10_000_000, 10.0),
            fx(
                "r1",
                day,
                "normal",
                "capnp-packed",
                "a",
                100,
                200,
                3_000_000,
                10.0,
            ),
            fx("r2", day, "normal", "sbe", "a", 44, 30, 12_000_000, 10.0),
            fx(
                "r2",
                day,
                "normal",
                "capnp-packed",
                "a",
                160,
                200,
                3_500_000,
                10.0,
            ),
        ],
    );
    std::fs::write(
        a.join("environment.txt"),
        "cores: 2\ngovernor: performance\n",
    )
    .unwrap();
    let other = "/mnt/other/day1.pcapng.gz";
    write_csv(
        &b.join("runs.csv"),
        &columns_now(),
        &[
            fx("r3", other, "normal", "sbe", "a", 42, 30, 11_000_000, 10.0),
            fx(
                "r3",
                other,
                "normal",
                "capnp-packed",
                "a",
                130,
                200,
                4_000_000,
                10.0,
            ),
            fx("p1", other, "pinned", "sbe", "a", 100, 100, 9_000_000, 1.0),
            fx(
                "p1",
                other,
                "pinned",
                "capnp-packed",
                "a",
                300,
                300,
                2_000_000,
                1.0,
            ),
            fx("p2", other, "pinned", "sbe", "a", 100, 120, 9_000_000, 1.0),
            fx(
                "p2",
                other,
                "pinned",
                "capnp-packed",
                "a",
                300,
                300,
                2_000_000,
                1.0,
            ),
        ],
    );
    std::fs::write(b.join("environment.txt"), "governor: powersave\n").unwrap();
    (dir, a.join("runs.csv"), b.join("runs.csv"))
}

fn group<'a>(s: &'a report::Summary, label: &str, format: &str) -> &'a Group {
    s.groups
        .iter()
        .find(|g| g.label == label && g.format == format)
        .unwrap_or_else(|| panic!("no group {label} {format}"))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn medians_spreads_cv_and_ratios() {
    let (_dir, a, b) = fixtures();
    let runs = report::load(&[a, b]).unwrap();
    assert_eq!(runs.rows.len(), 10);
    // a's old 33-column header and b's empty size cells both read as not measured.
    assert_eq!(runs.sources[0].rows, 4);
    for r in &runs.rows {
        assert_eq!((r.zstd_bytes, r.zlib_bytes, r.zstd_ns), (None, None, None));
        assert_eq!(r.messages, 121655.0);
    }
    let s = report::summarize(&runs);
    // Two labels of two formats, and the section pooling both labels (`normal + pinned`).
    assert_eq!(s.groups.len(), 6);
    let pooled = group(&s, "normal + pinned", "sbe");
    assert_eq!(pooled.runs, 5);
    // Both paths of day1.pcapng.gz pool into one input.
    assert!(s.groups.iter().all(|g| g.input == "day1.pcapng.gz"));

    let sbe = group(&s, "normal", "sbe");
    assert_eq!(sbe.runs, 3);
    assert_eq!(sbe.hosts, ["a"]);
    // ser p50 40, 44, 42: median 42, spread 40–44, mean 42, sample variance (4+4+0)/2 = 4,
    // stdev 2, CV 2/42 = 4.7619%.
    let p50 = sbe.latency(Encode).unwrap().p50();
    assert_eq!((p50.median, p50.min, p50.max), (42.0, 40.0, 44.0));
    assert!(close(p50.cv_pct, 200.0 / 42.0), "{}", p50.cv_pct);
    // p99.9 = 8x p50: median 336, 320–352, same CV.
    let p999 = sbe.latency(Encode).unwrap().p999();
    assert_eq!((p999.median, p999.min, p999.max), (336.0, 320.0, 352.0));
    assert!(close(p999.cv_pct, 200.0 / 42.0));
    // mean = 1.5x p50: 60, 63, 66 → median 63.
    assert_eq!(sbe.latency(Encode).unwrap().0[6].median, 63.0);
    // de p50 30, 30, 30: no spread, CV 0.
    assert_eq!(
        (
            sbe.latency(Selective).unwrap().p50().median,
            sbe.latency(Selective).unwrap().p50().min,
            sbe.latency(Selective).unwrap().p50().max,
            sbe.latency(Selective).unwrap().p50().cv_pct
        ),
        (30.0, 30.0, 30.0, 0.0)
    );
    assert_eq!(sbe.bytes_per_message.median, 50.3);
    assert_eq!(sbe.msgs_per_sec.median, 11_000_000.0);
    assert_eq!(sbe.ratio_to_fastest, 1.0);
    // No size as stored in any run, no raw format to compare with.
    assert_eq!(sbe.zstd_bytes_per_message, None);
    assert_eq!(sbe.zlib_bytes_per_message, None);
    assert_eq!(sbe.zstd_ns, None);
    assert!(s.groups.iter().all(|g| g.ratio_to_raw.is_none()));

    let capnp = group(&s, "normal", "capnp-packed");
    assert_eq!(capnp.runs, 3);
    // ser p50 100, 160, 130: median 130, spread 100–160, sample variance (900+900+0)/2 = 900,
    // stdev 30, CV 30/130 = 23.077%.
    let p50 = capnp.latency(Encode).unwrap().p50();
    assert_eq!((p50.median, p50.min, p50.max), (130.0, 100.0, 160.0));
    assert!(close(p50.cv_pct, 3000.0 / 130.0));
    // (130 + 200) / (42 + 30) = 330 / 72 = 4.58333x the fastest.
    assert!(close(capnp.ratio_to_fastest, 330.0 / 72.0));

    // pinned: 2 runs each. sbe de p50 100, 120: median (even count) 110, mean 110, sample
    // variance (100+100)/1 = 200, stdev 14.142, CV 12.856%.
    let pinned = group(&s, "pinned", "sbe");
    assert_eq!(pinned.runs, 2);
    assert_eq!(pinned.latency(Selective).unwrap().p50().median, 110.0);
    assert!(close(
        pinned.latency(Selective).unwrap().p50().cv_pct,
        100.0 * 200f64.sqrt() / 110.0
    ));
    // (300 + 300) / (100 + 110) = 2.857x.
    assert!(close(
        group(&s, "pinned", "capnp-packed").ratio_to_fastest,
        600.0 / 210.0
    ));
    // Sorted by input, label, then fastest first.
    let order: Vec<(&str, &str)> = s
        .groups
        .iter()
        .map(|g| (g.label.as_str(), g.format.as_str()))
        .collect();
    assert_eq!(
        order,
        [
            ("normal", "sbe"),
            ("normal", "capnp-packed"),
            ("normal + pinned", "sbe"),
            ("normal + pinned", "capnp-packed"),
            ("pinned", "sbe"),
            ("pinned", "capnp-packed")
        ]
    );
}

/// The messages of `s`'s warnings of one kind, in order.
fn warnings_of(s: &report::Summary, kind: WarningKind) -> Vec<&str> {
    s.warnings
        .iter()
        .filter(|w| w.kind == kind)
        .map(|w| w.message.as_str())
        .collect()
}

#[test]
fn warnings_name_what_is_doubtful() {
    let (_dir, a, b) = fixtures();
    let s = report::summarize(&report::load(&[a, b.clone()]).unwrap());
    let of = |kind| warnings_of(&s, kind);
    // Two runs under `pinned`, for each format.
    let few = of(WarningKind::FewRuns);
    assert_eq!(few.len(), 2, "{few:?}");
    assert!(few
        .iter()
        .all(|m| m.contains("[pinned]") && m.contains("only 2 runs")));
    // capnp-packed under `normal`: every ser percentile but max at 23.1%; pinned sbe de at 12.9%.
    let cv = of(WarningKind::HighVariation);
    assert_eq!(cv.len(), 2, "{cv:?}");
    assert!(cv[0].contains("[normal] capnp-packed"));
    assert!(cv[0].contains("ser p50 23.1%"));
    assert!(cv[0].contains("ser p99.9 23.1%"));
    assert!(!cv[0].contains("max"), "max is not checked: {}", cv[0]);
    // p99.99 of 50,000 packets rests on 5 samples: marked in the tables, not flagged.
    assert!(!cv[0].contains("p99.99"), "{}", cv[0]);
    assert!(!cv[0].contains("de "), "de did not vary: {}", cv[0]);
    assert!(cv[1].contains("[pinned] sbe") && cv[1].contains("de p50 12.9%"));
    // normal: 10 ns overhead against sbe's de p50 of 30 ns (33%); pinned: 1 ns against 100.
    let overhead = of(WarningKind::TimerOverhead);
    assert_eq!(overhead.len(), 1, "{overhead:?}");
    assert!(overhead[0].contains("[normal]") && overhead[0].contains("33%"));
    assert!(overhead[0].contains("sbe de"));
    // b's machine ran powersave; a's ran performance.
    let gov = of(WarningKind::Governor);
    assert_eq!(gov.len(), 1, "{gov:?}");
    assert!(gov[0].contains(&b.display().to_string()) && gov[0].contains("powersave"));
}

#[test]
fn governor_unknown_or_missing_is_said() {
    let (_dir, a, b) = fixtures();
    std::fs::write(
        a.parent().unwrap().join("environment.txt"),
        "governor: unreadable\n",
    )
    .unwrap();
    std::fs::remove_file(b.parent().unwrap().join("environment.txt")).unwrap();
    let s = report::summarize(&report::load(&[a, b]).unwrap());
    let gov = warnings_of(&s, WarningKind::Governor);
    assert_eq!(gov.len(), 2);
    assert!(gov.iter().all(|m| m.contains("could not be checked")));
    assert!(gov[0].contains("unreadable") && gov[1].contains("no environment.txt"));
}

#[test]
fn the_same_rows_twice_count_once() {
    let (_dir, a, _b) = fixtures();
    let runs = report::load(&[a.clone(), a]).unwrap();
    assert_eq!(runs.rows.len(), 4);
    let s = report::summarize(&runs);
    assert_eq!(group(&s, "normal", "sbe").runs, 2);
    assert!(s
        .warnings
        .iter()
        .any(|w| w.kind == WarningKind::Duplicates && w.message.contains("4 rows")));
}

/// `c/runs.csv` (host c, governor performance, the header `run` writes today, every size as
/// stored measured): input day2, label `normal`, runs s1, s2, s3 of raw, sbe and json. The runs
/// carry 1000, 2000 and 4000 messages, so a size per message is each run's bytes over its own
/// messages. zstd_ns is 10 ns per zstd byte.
///
/// | format | ser p50    | de p50 | zstd bytes           | zlib bytes           |
/// |--------|------------|--------|----------------------|----------------------|
/// | raw    | 10, 12, 11 | 5      | 20000, 42000, 76000  | 22000, 44000, 88000  |
/// | sbe    | 40, 44, 42 | 30     | 15500, 31000, 62000  | 16000, 40000, 48000  |
/// | json   | 300,320,310| 502    | 30000, 64000, 124000 | 28000, 56000, 112000 |
///
/// Latency CVs stay under 10% (raw ser 9.09%); sbe's zlib size varies 25% across runs.
pub(crate) fn stored_fixture() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c");
    std::fs::create_dir_all(&c).unwrap();
    let runs = [("s1", 1000), ("s2", 2000), ("s3", 4000)];
    let table = [
        (
            "raw",
            40.0,
            [10, 12, 11],
            5,
            [20000, 42000, 76000],
            [22000, 44000, 88000],
        ),
        (
            "sbe",
            50.3,
            [40, 44, 42],
            30,
            [15500, 31000, 62000],
            [16000, 40000, 48000],
        ),
        (
            "json",
            150.0,
            [300, 320, 310],
            502,
            [30000, 64000, 124000],
            [28000, 56000, 112000],
        ),
    ];
    let mut rows = Vec::new();
    for (i, (run, messages)) in runs.into_iter().enumerate() {
        for (format, bytes, ser, de, zstd, zlib) in &table {
            rows.push(Fixture {
                run,
                input: "data/day2.pcapng.gz",
                label: "normal",
                format,
                host: "c",
                bytes: *bytes,
                ser_p50: ser[i],
                de_p50: *de,
                msgs_per_sec: 5_000_000,
                overhead: 0.1,
                messages,
                zstd: Some(zstd[i]),
                zlib: Some(zlib[i]),
                zstd_ns: Some(zstd[i] * 10),
                floor: Some((10, [11.5, 12.5, 12.0][i])),
                ..fx(run, "", "", "", "", 0, 0, 0, 0.0)
            });
        }
    }
    write_csv(&c.join("runs.csv"), &columns_now(), &rows);
    std::fs::write(c.join("environment.txt"), "governor: performance\n").unwrap();
    (dir, c.join("runs.csv"))
}

#[test]
fn size_as_stored_and_ratio_to_raw() {
    let (dir, c) = stored_fixture();
    let runs = report::load(&[c]).unwrap();
    assert_eq!(runs.rows.len(), 9);
    assert_eq!(runs.rows[0].zstd_bytes, Some(20000));
    assert_eq!(runs.rows[0].zstd_bytes_per_message(), Some(20.0));
    let s = report::summarize(&runs);
    // Latency CVs under 10%, 3 runs, governor performance, overhead 0.1 ns against raw's de p50
    // of 5 ns: nothing to warn about. In particular not sbe's zlib size, 25% apart across runs.
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);

    let raw = group(&s, "normal", "raw");
    // zstd per message 20000/1000, 42000/2000, 76000/4000 = 20, 21, 19: median 20, 19–21,
    // mean 20, sample variance (0+1+1)/2 = 1, CV 1/20 = 5%.
    let z = raw.zstd_bytes_per_message.unwrap();
    assert_eq!((z.median, z.min, z.max), (20.0, 19.0, 21.0));
    assert!(close(z.cv_pct, 5.0), "{}", z.cv_pct);
    // zlib 22, 22, 22.
    let z = raw.zlib_bytes_per_message.unwrap();
    assert_eq!((z.median, z.min, z.max, z.cv_pct), (22.0, 22.0, 22.0, 0.0));
    // zstd_ns 200000, 420000, 760000: median 420000.
    assert_eq!(raw.zstd_ns.unwrap().median, 420000.0);
    // raw: ser p50 median 11 + de 5 = 16, its own floor.
    assert_eq!(raw.ratio_to_raw, Some(1.0));

    let sbe = group(&s, "normal", "sbe");
    // zstd 15.5 every run; zlib 16, 20, 12: median 16, 12–20, mean 16, variance (0+16+16)/2 =
    // 16, stdev 4, CV 25%.
    assert_eq!(sbe.zstd_bytes_per_message.unwrap().median, 15.5);
    let z = sbe.zlib_bytes_per_message.unwrap();
    assert_eq!((z.median, z.min, z.max), (16.0, 12.0, 20.0));
    assert!(close(z.cv_pct, 25.0));
    // (42 + 30) / 16 = 4.5.
    assert_eq!(sbe.ratio_to_raw, Some(4.5));

    let json = group(&s, "normal", "json");
    // zstd 30, 32, 31: median 31, CV 1/31 = 3.226%; zlib 28 every run.
    let z = json.zstd_bytes_per_message.unwrap();
    assert_eq!((z.median, z.min, z.max), (31.0, 30.0, 32.0));
    assert!(close(z.cv_pct, 100.0 / 31.0));
    assert_eq!(json.zlib_bytes_per_message.unwrap().median, 28.0);
    // (310 + 502) / 16 = 50.75; raw is also the fastest here.
    assert_eq!(json.ratio_to_raw, Some(50.75));
    assert_eq!(json.ratio_to_fastest, 50.75);

    let out = dir.path().join("report");
    report::write_report(&s, &[], &out).unwrap();
    let csv_text = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let rows: Vec<HashMap<String, String>> = csv::Reader::from_reader(csv_text.as_bytes())
        .deserialize()
        .map(|x| x.unwrap())
        .collect();
    let formats: Vec<&str> = rows.iter().map(|r| r["format"].as_str()).collect();
    assert_eq!(formats, ["raw", "sbe", "json"]);
    let want = [
        // zstd median, min, max, cv; zlib median, min, max, cv; zstd_ns median; x raw.
        ["20", "19", "21", "5", "22", "22", "22", "0", "420000", "1"],
        [
            "15.5", "15.5", "15.5", "0", "16", "12", "20", "25", "310000", "4.5",
        ],
        [
            "31", "30", "32", "3.226", "28", "28", "28", "0", "640000", "50.75",
        ],
    ];
    for (row, want) in rows.iter().zip(want) {
        let got: Vec<&str> = report::summary_csv::columns()[6 + 17 * 4..6 + 17 * 4 + 10]
            .iter()
            .map(|c| row[c].as_str())
            .collect();
        assert_eq!(got, want, "{}", row["format"]);
    }

    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(
        md.contains(
            "The memcpy floor (raw's bytes copied packet by packet in the same timed loop): \
             p50 10, mean 12 (11.5–12.5) ns."
        ),
        "{md}"
    );
    assert!(
        md.contains("| raw | 3 | 1.00x | 1.00x | 40.0 | 20.0 | 22.0 | 5.00M | 11 (10–12) |"),
        "{md}"
    );
    assert!(
        md.contains("| sbe | 3 | 4.50x | 4.50x | 50.3 | 15.5 | 16.0 | 5.00M |"),
        "{md}"
    );
    assert!(
        md.contains("| json | 3 | 50.75x | 50.75x | 150.0 | 31.0 | 28.0 | 5.00M |"),
        "{md}"
    );
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(
        html.contains("<td>4.50x</td><td>4.50x</td><td>50.3</td><td>15.5</td><td>16.0</td>"),
        "{html}"
    );

    // The bytes chart: three bars per format, a legend entry per kind, every median written.
    let bytes = std::fs::read_to_string(out.join("bytes-day2.pcapng.gz-normal.svg")).unwrap();
    let doc = roxmltree::Document::parse(&bytes).unwrap();
    let texts = svg_texts(&doc);
    for want in ["encoded", "zstd -3, as stored", "zlib -6, as stored"] {
        assert_eq!(
            texts.iter().filter(|t| *t == want).count(),
            1,
            "{want}: {texts:?}"
        );
    }
    for want in [
        "40.0", "20.0", "22.0", "50.3", "15.5", "16.0", "150.0", "31.0", "28.0",
    ] {
        assert!(texts.iter().any(|t| t == want), "{want} not in {texts:?}");
    }
    assert!(texts.iter().any(|t| t.contains("as stored")));
    // 9 bars and 3 legend swatches, in three distinct fills (the background and legend box
    // are white).
    let fills: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("rect"))
        .filter_map(|n| n.attribute("fill"))
        .filter(|f| *f != "#FFFFFF" && *f != "none")
        .collect();
    let mut distinct = fills.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!((fills.len(), distinct.len()), (12, 3), "{fills:?}");
}

/// `.hgrm` files for `formats` × `runs` under `hist/day1.pcapng.gz/normal/run<i>/`, the layout
/// `run_shootout.sh` writes (input, label, run); the `pinned` label gets none.
fn write_histograms(hist: &Path, formats: &[&str], runs: usize) {
    for run in 1..=runs {
        let dir = hist
            .join("day1.pcapng.gz")
            .join("normal")
            .join(format!("run{run}"));
        std::fs::create_dir_all(&dir).unwrap();
        for (f, format) in formats.iter().enumerate() {
            for side in ["ser", "de"] {
                let mut h = hdrhistogram::Histogram::<u64>::new(3).unwrap();
                for i in 0..10_000u64 {
                    h.record(
                        10 * (f as u64 + 1) * run as u64 + i % 97 + (i % 1000 == 0) as u64 * 5000,
                    )
                    .unwrap();
                }
                let mut text = Vec::new();
                export::hgrm::write_distribution(&h, &mut text).unwrap();
                std::fs::write(dir.join(format!("{format}.{side}.hgrm")), text).unwrap();
            }
        }
    }
}

pub(crate) fn svg_texts(doc: &roxmltree::Document) -> Vec<String> {
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| n.text().unwrap_or("").trim().to_owned())
        .collect()
}

#[test]
fn writes_csv_markdown_charts_and_html() {
    let (dir, a, b) = fixtures();
    let formats = ["capnp-packed", "sbe"];
    write_histograms(&a.parent().unwrap().join("hist"), &formats, 3);
    let s = report::summarize(&report::load(&[a, b]).unwrap());
    let out = dir.path().join("report/nested");
    let files = report::write_report(&s, &[], &out).unwrap();
    assert!(files.index.ends_with("index.html"));

    // summary.csv: documented header, one row per group, exact values.
    let csv_text = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let mut r = csv::Reader::from_reader(csv_text.as_bytes());
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(header, report::summary_csv::columns());
    assert_eq!(
        &header[..6],
        [
            "input",
            "label",
            "format",
            "runs",
            "hosts",
            "ratio_to_fastest"
        ]
    );
    // 17 measures and 2 sizes as stored, 4 columns each; zstd_ns_median, ratio_to_raw; then 7
    // de_all percentiles and 4 batch timings, 4 columns each; ratio_all_to_raw, ranked_by,
    // clocks.
    assert_eq!(header.len(), 6 + 17 * 4 + 2 * 4 + 2 + 11 * 4 + 3);
    assert_eq!(
        header[6 + 17 * 4..6 + 17 * 4 + 10],
        [
            "zstd_bytes_per_message_median",
            "zstd_bytes_per_message_min",
            "zstd_bytes_per_message_max",
            "zstd_bytes_per_message_cv_pct",
            "zlib_bytes_per_message_median",
            "zlib_bytes_per_message_min",
            "zlib_bytes_per_message_max",
            "zlib_bytes_per_message_cv_pct",
            "zstd_ns_median",
            "ratio_to_raw",
        ]
    );
    let rows: Vec<HashMap<String, String>> = r.deserialize().map(|x| x.unwrap()).collect();
    // Two formats under each of two labels, then pooled (`normal + pinned`, between them).
    assert_eq!(rows.len(), 6);
    assert_eq!(rows[2]["label"], "normal + pinned");
    let capnp = &rows[1];
    assert_eq!(capnp["format"], "capnp-packed");
    assert_eq!(capnp["label"], "normal");
    assert_eq!(capnp["runs"], "3");
    assert_eq!(capnp["hosts"], "a");
    assert_eq!(capnp["ratio_to_fastest"], "4.583");
    assert_eq!(capnp["ser_p50_ns_median"], "130");
    assert_eq!(capnp["ser_p50_ns_min"], "100");
    assert_eq!(capnp["ser_p50_ns_max"], "160");
    assert_eq!(capnp["ser_p50_ns_cv_pct"], "23.077");
    assert_eq!(capnp["ser_p999_ns_median"], "1040");
    assert_eq!(capnp["de_p50_ns_cv_pct"], "0");
    assert_eq!(capnp["bytes_per_message_median"], "41.4");
    assert_eq!(capnp["msgs_per_sec_median"], "3500000");
    assert_eq!(capnp["timer_overhead_ns_median"], "10");
    assert_eq!(rows[0]["ratio_to_fastest"], "1");
    assert_eq!(rows[4]["de_p50_ns_median"], "110");
    // Not measured (old header, empty cells) and no raw: empty cells, not zeros. Without batch
    // figures the ranking is by p50.
    for row in &rows {
        for c in header[6 + 17 * 4..].iter().filter(|c| *c != "ranked_by") {
            assert_eq!(row[c], "", "{c} of {}", row["format"]);
        }
        assert_eq!(row["ranked_by"], "p50-selective");
    }

    // summary.md: a table per input and label, the spreads, the warnings.
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(md.contains("## day1.pcapng.gz [normal]"));
    assert!(md.contains("## day1.pcapng.gz [pinned]"));
    assert!(md.contains(
        "| format | runs | vs fastest | x raw | bytes/msg | zstd B/msg | zlib B/msg | msgs/s (ser+de) |"
    ), "{md}");
    assert!(
        md.contains("| capnp-packed | 3 | 4.58x | - | 41.4 | - | - | 3.50M | 130 (100–160) |"),
        "{md}"
    );
    assert!(
        md.contains("| sbe | 3 | 1.00x | - | 50.3 | - | - | 11.00M | 42 (40–44) |"),
        "{md}"
    );
    assert!(md.contains("| capnp-packed | ser | 130 (23.1%) |"), "{md}");
    assert!(md.contains("only 2 runs") && md.contains("powersave"));

    // Charts: every SVG parses and has a title; the distribution charts have one series per
    // format (one legend entry, one bold line, the other runs faint).
    let svgs: Vec<&PathBuf> = files
        .files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "svg"))
        .collect();
    // scatter (wire only: no size as stored) + pct ser/de + bytes per (input, label), the
    // pooled `normal + pinned` too = 12, dist ser/de for the label with histograms and for the
    // pool that holds it = 4.
    assert_eq!(svgs.len(), 16, "{svgs:?}");
    assert!(
        md.contains("day1.pcapng.gz [pinned]: no histograms (.hlog or .hgrm) found"),
        "{md}"
    );
    for path in &svgs {
        let text = std::fs::read_to_string(path).unwrap();
        let doc = roxmltree::Document::parse(&text)
            .unwrap_or_else(|e| panic!("{}: not XML: {e}", path.display()));
        assert_eq!(doc.root_element().tag_name().name(), "svg");
        let texts = svg_texts(&doc);
        assert!(
            texts.iter().any(|t| t.contains("day1.pcapng.gz")),
            "no title"
        );
        for format in formats {
            assert!(texts.iter().any(|t| t.contains(format)), "{format} missing");
        }
    }
    for side in ["ser", "de"] {
        let text =
            std::fs::read_to_string(out.join(format!("dist-day1.pcapng.gz-normal-{side}.svg")))
                .unwrap();
        let doc = roxmltree::Document::parse(&text).unwrap();
        let texts = svg_texts(&doc);
        assert!(
            texts.iter().any(|t| t == "99.9%"),
            "nines axis labels: {texts:?}"
        );
        assert!(texts.iter().any(|t| t.contains("(ns, log scale)")));
        let lines: Vec<roxmltree::Node> = doc
            .descendants()
            .filter(|n| n.has_tag_name("polyline"))
            .collect();
        // The legend names each format once, without repeating what every entry shares.
        for format in formats {
            let legend = format.to_string();
            assert_eq!(
                texts.iter().filter(|t| **t == legend).count(),
                1,
                "{legend}"
            );
        }
        // Bold: one data line and one legend swatch per format. Faint: the other 2 runs each.
        let bold = lines
            .iter()
            .filter(|n| n.attribute("stroke-width") == Some("3"))
            .count();
        let faint = lines
            .iter()
            .filter(|n| n.attribute("opacity").is_some_and(|o| o != "1"))
            .count();
        assert_eq!((bold, faint), (2 * formats.len(), 2 * formats.len()));
    }
    let pct = std::fs::read_to_string(out.join("pct-day1.pcapng.gz-normal-ser.svg")).unwrap();
    let texts = svg_texts(&roxmltree::Document::parse(&pct).unwrap());
    for want in ["p50", "p99", "p99.9", "42", "130", "1040"] {
        assert!(texts.iter().any(|t| t == want), "{want} not in {texts:?}");
    }
    assert!(texts.iter().any(|t| t.contains("ns per packet")));
    let bytes = std::fs::read_to_string(out.join("bytes-day1.pcapng.gz-normal.svg")).unwrap();
    let texts = svg_texts(&roxmltree::Document::parse(&bytes).unwrap());
    assert!(texts.iter().any(|t| t == "41.4") && texts.iter().any(|t| t == "50.3"));
    assert!(texts.iter().any(|t| t.contains("bytes per message")));
    // Without the size as stored: one bar per format, as before, and no compressor legend.
    assert!(
        texts.iter().any(|t| t.ends_with("encoded size")),
        "{texts:?}"
    );
    assert!(!texts
        .iter()
        .any(|t| t.contains("zstd") || t.contains("zlib")));

    // index.html: self-contained, every chart, the tables and the warnings.
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    for path in &svgs {
        let name = path.file_name().unwrap().to_str().unwrap();
        assert!(
            html.contains(&format!("<img src=\"{name}\"")),
            "{name} not in index.html"
        );
    }
    // Two tables per (input, label), the pooled `normal + pinned` too, the labels side by side,
    // and the verdicts: the primary (pooled) section's at the top, the others' in their sections.
    assert_eq!(html.matches("<table>").count(), 7);
    assert_eq!(html.matches("<table class=\"verdict\">").count(), 3);
    // The answer first: the verdict and the size-vs-speed chart before any warning.
    let at = |what: &str| {
        html.find(what)
            .unwrap_or_else(|| panic!("{what} not in index.html"))
    };
    assert!(at("<table class=\"verdict\">") < at("id=\"warnings\""));
    assert!(at("scatter-day1.pcapng.gz-normal___pinned-wire.svg") < at("id=\"warnings\""));
    assert!(at("id=\"scheduling\"") < at("id=\"warnings\""));
    assert!(html.contains("<details class=\"warnings\"><summary>Fewer than 3 runs behind 2 of 4"));
    assert!(html.contains("Input: day1.pcapng.gz, IEX DEEP feed, 50,000 packets"));
    assert!(
        md.find("| need | measured by | winner or tie |").unwrap()
            < md.find("## Warnings").unwrap()
    );
    assert!(html.contains("<td>capnp-packed</td>"));
    assert!(html.contains("<th>x raw</th><th>bytes/msg</th><th>zstd B/msg</th><th>zlib B/msg</th>"));
    assert!(
        html.contains("<td>4.58x</td><td>-</td><td>41.4</td><td>-</td><td>-</td>"),
        "{html}"
    );
    assert!(html.contains("130<br><small>(100–160)</small>"));
    assert!(html.contains("only 2 runs") && html.contains("powersave"));
    for external in ["http:", "https:", "<script", "<link"] {
        assert!(!html.contains(external), "index.html has {external}");
    }
}

fn shootout() -> Command {
    Command::new(env!("CARGO_BIN_EXE_shootout"))
}

#[test]
fn command_line_writes_the_report_and_prints_warnings() {
    let (dir, a, b) = fixtures();
    let out = dir.path().join("out");
    let o = shootout()
        .arg("report")
        .arg(&a)
        .arg(&b)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(o.status.success(), "{stderr}");
    assert!(stdout.contains("index.html"), "{stdout}");
    // One line per kind of warning, not one per warning.
    assert!(
        stderr.contains("warning: Fewer than 3 runs behind 2 of 4 format rows"),
        "{stderr}"
    );
    assert_eq!(
        stderr.lines().count(),
        stderr
            .lines()
            .filter(|l| l.starts_with("warning: "))
            .count()
    );
    // No histograms next to the CSVs: said, not an error.
    assert!(
        stderr.contains("No histograms for 2 of 2 sections"),
        "{stderr}"
    );
    for f in ["summary.csv", "summary.md", "index.html"] {
        assert!(out.join(f).is_file(), "{f}");
    }
}

#[test]
fn bad_input_is_one_line_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.csv");
    std::fs::write(&empty, "").unwrap();
    let header_only = dir.path().join("header.csv");
    std::fs::write(&header_only, format!("{COLUMNS}\n")).unwrap();
    let wrong = dir.path().join("wrong.csv");
    std::fs::write(&wrong, "symbol,trade_volume\nAAPL,100\n").unwrap();
    let short = dir.path().join("short.csv");
    std::fs::write(&short, format!("{COLUMNS}\nr1,2026,normal\n")).unwrap();
    let missing = dir.path().join("missing.csv");
    let out = dir.path().join("out");
    for (file, says) in [
        (&empty, "empty file"),
        (&header_only, "no rows"),
        (&wrong, "missing columns run_id"),
        (&short, "line 2"),
        (&missing, "no such file"),
    ] {
        let o = shootout()
            .arg("report")
            .arg(file)
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.starts_with(&format!("error: {}: ", file.display())) && stderr.contains(says),
            "{stderr}"
        );
    }
    assert!(!out.exists(), "nothing written for bad input");
    let (_fixtures, good, _) = fixtures();
    let nope = dir.path().join("nope");
    let o = shootout()
        .args(["report", "--out"])
        .arg(&out)
        .arg(&good)
        .arg("--hist-dir")
        .arg(&nope)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("{}: no such histogram folder", nope.display())),
        "{stderr}"
    );
}

/// raw's medians against the memcpy floor of the same runs: above 2x is a warning naming the
/// side, at or under 2x is not.
#[test]
fn warns_when_raw_is_far_above_the_memcpy_floor() {
    let warned = |ser_p50: u64, de_p50: u64| {
        let dir = tempfile::tempdir().unwrap();
        let rows: Vec<Fixture> = ["s1", "s2", "s3"]
            .into_iter()
            .map(|run| Fixture {
                floor: Some((10, 12.0)),
                overhead: 0.1,
                ..fx(
                    run,
                    "data/day3.pcapng.gz",
                    "normal",
                    "raw",
                    "c",
                    ser_p50,
                    de_p50,
                    40_000_000,
                    0.1,
                )
            })
            .collect();
        let csv_path = dir.path().join("runs.csv");
        write_csv(&csv_path, &columns_now(), &rows);
        std::fs::write(
            dir.path().join("environment.txt"),
            "governor: performance\n",
        )
        .unwrap();
        let s = report::summarize(&report::load(&[csv_path]).unwrap());
        s.warnings
            .into_iter()
            .filter(|w| w.kind == WarningKind::AboveFloor)
            .map(|w| w.message)
            .collect::<Vec<_>>()
    };
    assert_eq!(warned(20, 20), Vec::<String>::new());
    let w = warned(25, 20);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains("day3.pcapng.gz [normal]: raw's ser p50 25 ns (2.5x) above 2x the memcpy floor of 10 ns"),
        "{w:?}"
    );
    let w = warned(30, 40);
    assert!(
        w[0].contains("ser p50 30 ns (3.0x) and de p50 40 ns (4.0x)"),
        "{w:?}"
    );
}

/// `d/runs.csv` (host d, governor performance, every column measured, clock tsc): input day4,
/// label `normal`, runs t1, t2, t3 of raw, sbe and capnp. The per-packet p50s and the batch
/// figures disagree on sbe against capnp:
///
/// | format | ser p50 | de p50 | ser batch        | de batch         | de_all batch | de_all p50 |
/// |--------|---------|--------|------------------|------------------|--------------|------------|
/// | raw    | 10      | 10     | 4                | 3                | 5            | 12         |
/// | sbe    | 20      | 20     | 17.5, 18, 18.5   | 16               | 30           | 40, 44, 42 |
/// | capnp  | 30      | 30     | 10               | 13.5, 14, 14.5   | 50           | 70         |
///
/// By p50: raw 20, sbe 40, capnp 60. By batch: raw 7, capnp 24, sbe 34. The memcpy floor: p50
/// 10, batch 3 (raw at 1.33x and 1x of it). Every CV stays under 10%.
pub(crate) fn batch_fixture() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("d");
    std::fs::create_dir_all(&d).unwrap();
    // format, ser and de p50, ser batch, de batch, de_all batch, de_all p50.
    type Row = (&'static str, u64, [f64; 3], [f64; 3], f64, [u64; 3]);
    let table: [Row; 3] = [
        ("raw", 10, [4.0; 3], [3.0; 3], 5.0, [12; 3]),
        ("sbe", 20, [17.5, 18.0, 18.5], [16.0; 3], 30.0, [40, 44, 42]),
        ("capnp", 30, [10.0; 3], [13.5, 14.0, 14.5], 50.0, [70; 3]),
    ];
    let mut rows = Vec::new();
    for (i, run) in ["t1", "t2", "t3"].into_iter().enumerate() {
        for (format, p50, ser_b, de_b, all_b, all_p50) in &table {
            rows.push(Fixture {
                floor: Some((10, 11.0)),
                de_all_p50: Some(all_p50[i]),
                batch: Some((ser_b[i], de_b[i], *all_b)),
                memcpy_batch: Some(3.0),
                clock: Some("tsc"),
                ..fx(
                    run,
                    "data/day4.pcapng.gz",
                    "normal",
                    format,
                    "d",
                    *p50,
                    *p50,
                    5_000_000,
                    0.1,
                )
            });
        }
    }
    write_csv(&d.join("runs.csv"), &columns_now(), &rows);
    std::fs::write(d.join("environment.txt"), "governor: performance\n").unwrap();
    (dir, d.join("runs.csv"))
}

/// `.hgrm` files for `formats` × `sides` × `runs` under `hist/<input>/<label>/run<i>/`.
fn write_side_histograms(
    hist: &Path,
    input: &str,
    label: &str,
    formats: &[&str],
    sides: &[&str],
    runs: usize,
) {
    for run in 1..=runs {
        let dir = hist.join(input).join(label).join(format!("run{run}"));
        std::fs::create_dir_all(&dir).unwrap();
        for (f, format) in formats.iter().enumerate() {
            for side in sides {
                let mut h = hdrhistogram::Histogram::<u64>::new(3).unwrap();
                for i in 0..1000u64 {
                    h.record(10 * (f as u64 + 1) * run as u64 + i % 97).unwrap();
                }
                let mut text = Vec::new();
                export::hgrm::write_distribution(&h, &mut text).unwrap();
                std::fs::write(dir.join(format!("{format}.{side}.hgrm")), text).unwrap();
            }
        }
    }
}

#[test]
fn ranks_by_batch_figures_when_every_format_has_them() {
    let (dir, d) = batch_fixture();
    let runs = report::load(&[d]).unwrap();
    assert_eq!(runs.rows.len(), 9);
    let r = &runs.rows[1];
    assert_eq!(r.format, "sbe");
    assert_eq!((r.throughput.0), [Some(17.5), Some(16.0), Some(30.0)]);
    assert_eq!(r.memcpy_batch_ns, Some(3.0));
    assert_eq!(r.clock.as_deref(), Some("tsc"));
    assert_eq!(
        r.latency[Complete],
        Some([40.0, 80.0, 160.0, 320.0, 640.0, 4000.0, 60.0])
    );
    let s = report::summarize(&runs);
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    let order: Vec<&str> = s.groups.iter().map(|g| g.format.as_str()).collect();
    // Ranked by ser batch + de_all batch (the complete decode): raw 4 + 5 = 9, sbe 17.5–18.5
    // + 30 = 48 (47.5–48.5), capnp 10 + 50 = 60. By ser batch + de batch (the selective
    // decode) capnp would come before sbe: 10 + 14 = 24 against 18 + 16 = 34.
    assert_eq!(order, ["raw", "sbe", "capnp"]);
    assert!(s.groups.iter().all(|g| g.basis == Basis::Batch));
    let capnp = group(&s, "normal", "capnp");
    let sbe = group(&s, "normal", "sbe");
    let raw = group(&s, "normal", "raw");
    assert_eq!(capnp.speed.median, 60.0);
    assert_eq!(
        (sbe.speed.median, sbe.speed.min, sbe.speed.max),
        (48.0, 47.5, 48.5)
    );
    // 60 / 9 and 48 / 9: the fastest is raw.
    assert!(close(capnp.ratio_to_fastest, 60.0 / 9.0));
    assert!(close(sbe.ratio_to_fastest, 48.0 / 9.0));
    assert_eq!(sbe.ratio_to_raw, Some(sbe.ratio_to_fastest));
    // The same sum over raw's, as the ranking is by it.
    assert_eq!(raw.ratio_all_to_raw, Some(1.0));
    assert!(close(sbe.ratio_all_to_raw.unwrap(), 48.0 / 9.0));
    assert!(close(capnp.ratio_all_to_raw.unwrap(), 60.0 / 9.0));
    // The size-vs-speed chart draws the same sum.
    let (_, _, groups) = s.primary("day4.pcapng.gz").unwrap();
    let points = report::charts::scatter::points(&groups, false);
    let y: Vec<(&str, f64)> = points
        .iter()
        .map(|p| (p.format.as_str(), p.y.median))
        .collect();
    assert_eq!(y, [("raw", 9.0), ("sbe", 48.0), ("capnp", 60.0)]);
    let sb = sbe.throughput[Encode].unwrap();
    assert_eq!((sb.median, sb.min, sb.max), (18.0, 17.5, 18.5));
    assert_eq!(capnp.throughput[Selective].unwrap().median, 14.0);
    // de_all p50 40, 44, 42: median 42, 40–44, CV 2/42.
    let all = sbe.latency(Complete).unwrap();
    assert_eq!(
        (all.p50().median, all.p50().min, all.p50().max),
        (42.0, 40.0, 44.0)
    );
    assert!(close(all.p50().cv_pct, 200.0 / 42.0));
    assert_eq!(all.p999().median, 336.0);
    assert_eq!(sbe.clocks, ["tsc"]);

    let hist = dir.path().join("d/hist");
    write_side_histograms(
        &hist,
        "day4.pcapng.gz",
        "normal",
        &["raw", "sbe", "capnp"],
        &["ser", "de", "de_all"],
        2,
    );
    let out = dir.path().join("report");
    let files = report::write_report(&s, &[], &out).unwrap();

    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(
        md.contains("Ranked by ser batch + de_all batch, each run's sum, median across runs (batch: one clock pair around each whole window, ns per packet"),
        "{md}"
    );
    assert!(!md.contains("Ranked by ser p50"), "{md}");
    assert!(md.contains("de_all the complete decode"), "{md}");
    assert!(md.contains("Clock: tsc."), "{md}");
    assert!(md.contains("p50 10, mean 11, batch 3 ns."), "{md}");
    assert!(md.contains(
        "| de p99.9 | ser batch | de batch | de_all batch | de_all p50 | de_all p99 | de_all p99.9 |"
    ), "{md}");
    // capnp third: 60 / 9 = 6.67x; the batch columns, then de_all p50 70, p99 280, p99.9 560.
    assert!(md.contains("| capnp | 3 | 6.67x | 6.67x |"), "{md}");
    assert!(
        md.contains("| 10 | 14 (13.5–14.5) | 50 | 70 | 280 | 560 |"),
        "{md}"
    );
    assert!(md.contains("| sbe | 3 | 5.33x | 5.33x |"), "{md}");
    assert!(
        md.contains("| 18 (17.5–18.5) | 16 | 30 | 42 (40–44) | 168 (160–176) | 336 (320–352) |"),
        "{md}"
    );
    // The percentile table: a de_all row per format.
    assert!(md.contains("| sbe | de_all | 42 (4.8%) |"), "{md}");
    assert!(md.contains("| raw | de_all | 12 (0.0%) |"), "{md}");

    let csv_text = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let rows: Vec<HashMap<String, String>> = csv::Reader::from_reader(csv_text.as_bytes())
        .deserialize()
        .map(|x| x.unwrap())
        .collect();
    let formats: Vec<&str> = rows.iter().map(|r| r["format"].as_str()).collect();
    assert_eq!(formats, ["raw", "sbe", "capnp"]);
    let sbe = &rows[1];
    for (col, want) in [
        ("ratio_to_fastest", "5.333"),
        ("ratio_to_raw", "5.333"),
        ("ranked_by", "batch"),
        ("ratio_all_to_raw", "5.333"),
        ("clocks", "tsc"),
        ("de_all_p50_ns_median", "42"),
        ("de_all_p50_ns_min", "40"),
        ("de_all_p50_ns_max", "44"),
        ("de_all_p50_ns_cv_pct", "4.762"),
        ("de_all_p999_ns_median", "336"),
        ("de_all_mean_ns_median", "63"),
        ("ser_batch_ns_median", "18"),
        ("ser_batch_ns_min", "17.5"),
        ("ser_batch_ns_max", "18.5"),
        ("de_batch_ns_median", "16"),
        ("de_all_batch_ns_median", "30"),
        ("memcpy_batch_ns_median", "3"),
    ] {
        assert_eq!(sbe[col], want, "{col}");
    }

    // Distribution charts for the three sides, percentile bars for de_all too.
    for side in ["ser", "de", "de_all"] {
        for kind in ["dist", "pct"] {
            let name = format!("{kind}-day4.pcapng.gz-normal-{side}.svg");
            assert!(
                files.files.contains(&out.join(&name)),
                "{name} in {:?}",
                files.files
            );
        }
    }
    let text = std::fs::read_to_string(out.join("dist-day4.pcapng.gz-normal-de_all.svg")).unwrap();
    let texts = svg_texts(&roxmltree::Document::parse(&text).unwrap());
    assert!(
        texts
            .iter()
            .any(|t| t.contains("complete decode latency distribution")),
        "{texts:?}"
    );
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(html.contains("<th>de_all batch</th>"));
    assert!(html.contains("<img src=\"dist-day4.pcapng.gz-normal-de_all.svg\""));
}

#[test]
fn falls_back_to_p50_without_batch_figures() {
    // The day1 fixtures are old CSVs: no batch figure and no complete decode anywhere, so the
    // ranking is by ser p50 + the selective de p50.
    let (dir, a, b) = fixtures();
    let s = report::summarize(&report::load(&[a, b]).unwrap());
    assert!(s.groups.iter().all(|g| g.basis == Basis::Selective));
    assert!(s.groups.iter().all(|g| g.latency(Complete).is_none()
        && g.throughput[Encode].is_none()
        && g.ratio_all_to_raw.is_none()));
    let out = dir.path().join("report");
    report::write_report(&s, &[], &out).unwrap();
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(
        md.contains(
            "Ranked by ser p50 + de p50 (the selective decode), each run's sum, median across \
             runs, as not every format here has a complete decode"
        ),
        "{md}"
    );
    assert!(!md.contains("Ranked by ser batch"), "{md}");
    // The new columns are dashes, and no de_all row in the percentile table.
    assert!(
        md.contains("| 30 | 120 | 240 | - | - | - | - | - | - |\n"),
        "{md}"
    );
    assert!(!md.contains("| de_all |"), "{md}");

    // One format without batch figures in a section that otherwise has them: ser p50 + de_all
    // p50 for all of it.
    let (dir, d) = batch_fixture();
    let text = std::fs::read_to_string(&d).unwrap();
    let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    let at = |c: &str| header.iter().position(|h| *h == c).unwrap();
    let mut rows: Vec<Vec<String>> = csv::Reader::from_path(&d)
        .unwrap()
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect();
    for row in rows.iter_mut().filter(|r| r[at("format")] == "capnp") {
        row[at("ser_batch_ns")].clear();
        row[at("de_batch_ns")].clear();
    }
    let e = dir.path().join("e.csv");
    let mut w = csv::Writer::from_path(&e).unwrap();
    w.write_record(&header).unwrap();
    for r in &rows {
        w.write_record(r).unwrap();
    }
    w.flush().unwrap();
    let s = report::summarize(&report::load(&[e]).unwrap());
    let order: Vec<&str> = s.groups.iter().map(|g| g.format.as_str()).collect();
    assert_eq!(order, ["raw", "sbe", "capnp"]);
    assert!(s.groups.iter().all(|g| g.basis == Basis::P50));
    // capnp 30 + 70 over raw's 10 + 12.
    assert!(close(
        group(&s, "normal", "capnp").ratio_to_fastest,
        100.0 / 22.0
    ));
    assert_eq!(group(&s, "normal", "sbe").ratio_all_to_raw, None);
}

#[test]
fn old_and_new_rows_pool_in_one_csv() {
    // The same file gets rows from before (empty de_all and batch cells) and after.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("runs.csv");
    let new = |run, ser_b: f64| Fixture {
        floor: Some((10, 11.0)),
        de_all_p50: Some(50),
        batch: Some((ser_b, 20.0, 40.0)),
        memcpy_batch: Some(3.0),
        clock: Some("tsc"),
        ..fx(run, "day5.pcap", "x", "sbe", "h", 40, 30, 1_000_000, 0.1)
    };
    let old = |run| Fixture {
        floor: Some((10, 11.0)),
        ..fx(run, "day5.pcap", "x", "sbe", "h", 44, 30, 1_000_000, 0.1)
    };
    write_csv(
        &path,
        &columns_now(),
        &[old("o1"), new("n1", 20.0), old("o2"), new("n2", 24.0)],
    );
    let runs = report::load(std::slice::from_ref(&path)).unwrap();
    assert_eq!(runs.rows.len(), 4);
    assert_eq!(runs.rows[0].latency[Complete], None);
    assert_eq!(runs.rows[0].throughput[Encode], None);
    assert_eq!(runs.rows[0].clock, None);
    assert_eq!(runs.rows[1].percentile(Complete, 0), Some(50.0));
    assert_eq!(runs.rows[1].clock.as_deref(), Some("tsc"));
    let s = report::summarize(&runs);
    let g = &s.groups[0];
    assert_eq!((g.runs, g.batch_runs), (4, 2));
    // Over the two runs that measured them.
    assert_eq!(g.throughput[Encode].unwrap().median, 22.0);
    assert_eq!(g.latency(Complete).unwrap().p50().median, 50.0);
    // ser p50 over all four: 44, 40, 44, 40.
    assert_eq!(g.p50(Encode), Some(42.0));
    assert_eq!(g.basis, Basis::Batch);
    let out = dir.path().join("report");
    report::write_report(&s, &[], &out).unwrap();
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(
        md.contains("Batch figures are over the runs that measured them."),
        "{md}"
    );

    // Some de_all cells empty and others not on one line: an error naming the line.
    let text = std::fs::read_to_string(&path).unwrap();
    let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    let p99 = header.iter().position(|h| *h == "de_all_p99_ns").unwrap();
    let mut rows: Vec<Vec<String>> = csv::Reader::from_path(&path)
        .unwrap()
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect();
    rows[1][p99].clear();
    let broken = dir.path().join("broken.csv");
    let mut w = csv::Writer::from_path(&broken).unwrap();
    w.write_record(&header).unwrap();
    for r in &rows {
        w.write_record(r).unwrap();
    }
    w.flush().unwrap();
    let e = report::load(&[broken]).unwrap_err();
    assert!(
        e.message.contains("line 3") && e.message.contains("de_all"),
        "{e}"
    );
}

/// raw's batch figures against the memcpy floor timed the batch way: they decide the warning
/// when present, whatever the p50s say.
#[test]
fn above_floor_warning_uses_batch_figures() {
    let warned = |p50: u64, ser_b: f64, de_b: f64| {
        let dir = tempfile::tempdir().unwrap();
        let rows: Vec<Fixture> = ["s1", "s2", "s3"]
            .into_iter()
            .map(|run| Fixture {
                floor: Some((10, 12.0)),
                batch: Some((ser_b, de_b, de_b)),
                memcpy_batch: Some(4.0),
                ..fx(
                    run,
                    "data/day6.pcapng.gz",
                    "normal",
                    "raw",
                    "c",
                    p50,
                    p50,
                    40_000_000,
                    0.1,
                )
            })
            .collect();
        let csv_path = dir.path().join("runs.csv");
        write_csv(&csv_path, &columns_now(), &rows);
        std::fs::write(
            dir.path().join("environment.txt"),
            "governor: performance\n",
        )
        .unwrap();
        let s = report::summarize(&report::load(&[csv_path]).unwrap());
        s.warnings
            .into_iter()
            .filter(|w| w.kind == WarningKind::AboveFloor)
            .map(|w| w.message)
            .collect::<Vec<_>>()
    };
    // p50s equal to the floor's p50 (1x), ser batch 2.5x the batch floor: warned.
    let w = warned(10, 10.0, 8.0);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains(
            "day6.pcapng.gz [normal]: raw's ser batch 10 ns (2.5x) above 2x the memcpy floor (batch) of 4 ns"
        ),
        "{w:?}"
    );
    assert!(!w[0].contains("de batch"), "{w:?}");
    // Both at 2x: silent.
    assert_eq!(warned(10, 8.0, 8.0), Vec::<String>::new());
    // p50s at 4x the p50 floor, batch at 2x: the batch figures decide, silent.
    assert_eq!(warned(40, 8.0, 8.0), Vec::<String>::new());
    // Both sides above.
    let w = warned(10, 12.0, 16.0);
    assert!(
        w[0].contains("ser batch 12 ns (3.0x) and de batch 16 ns (4.0x)"),
        "{w:?}"
    );
}

/// Rows timed per message (`run --unit message`) form sections of their own beside the per-packet
/// ones of the same label: a per-message figure is never ranked against a per-packet one.
#[test]
fn per_message_rows_are_kept_apart_from_per_packet_ones() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("runs.csv");
    let header = columns_now();
    let rows = [
        fx(
            "r1",
            "day.pcapng",
            "normal",
            "raw",
            "h",
            20,
            30,
            1_000_000,
            10.0,
        ),
        fx(
            "r1",
            "day.pcapng",
            "normal",
            "sbe",
            "h",
            40,
            40,
            1_000_000,
            10.0,
        ),
    ];
    write_csv(&csv, &header, &rows);
    // The same runs again, per message: same run ids, input, label and formats.
    let mut reader = csv::Reader::from_path(&csv).unwrap();
    let head = reader.headers().unwrap().clone();
    let unit = head.iter().position(|c| c == "unit").unwrap();
    let records: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
    let mut w = csv::Writer::from_path(&csv).unwrap();
    w.write_record(&head).unwrap();
    for r in &records {
        w.write_record(r).unwrap();
    }
    for r in &records {
        let mut cells: Vec<&str> = r.iter().collect();
        cells[unit] = "message";
        w.write_record(&cells).unwrap();
    }
    w.flush().unwrap();
    let runs = report::load(&[csv]).unwrap();
    assert_eq!(
        runs.rows.len(),
        4,
        "no row is taken for a duplicate of another unit's"
    );
    let summary = report::summarize(&runs);
    let sections: Vec<(String, usize)> = summary
        .sections()
        .iter()
        .map(|(_, label, groups)| (label.to_string(), groups.len()))
        .collect();
    assert_eq!(
        sections,
        [
            ("normal".to_owned(), 2),
            ("normal (per message)".to_owned(), 2)
        ]
    ); // Each section's tables say what their figures are per.
    for (_, label, groups) in summary.sections() {
        let unit = if label.ends_with("(per message)") {
            "message"
        } else {
            "packet"
        };
        let [headline, all] = report::tables::section_tables(&groups);
        for t in [&headline, &all] {
            assert!(
                t.caption.contains(&format!("ns per {unit}")),
                "{label}: {}",
                t.caption
            );
        }
    }
}

/// `timed_faults` (minor page faults inside a run's timed regions) and `order_seed` are read
/// when the header has them; a row with faults is warned about, naming the format and the
/// run, in one grouped line; CSVs from before the columns say nothing.
#[test]
fn page_faults_in_timed_regions_are_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let csv_path = dir.path().join("runs.csv");
    let rows: Vec<Fixture> = [
        ("f1", "sbe", Some(0), None),
        ("f1", "raw", Some(3), Some([0.0; 3])),
        ("f1", "bitcode", Some(2), Some([0.0, 0.935, 1.0])),
        ("f2", "sbe", Some(1), None),
        ("f2", "raw", None, None),
        ("f2", "bitcode", Some(0), Some([0.0, 0.935, 1.0])),
    ]
    .into_iter()
    .map(|(run, format, faults, allocs)| Fixture {
        timed_faults: faults,
        allocs,
        ..fx(
            run,
            "data/day8.pcapng.gz",
            "normal",
            format,
            "h",
            40,
            30,
            1_000_000,
            0.1,
        )
    })
    .collect();
    write_csv(&csv_path, &columns_now(), &rows);
    let runs = report::load(std::slice::from_ref(&csv_path)).unwrap();
    let faults: Vec<Option<u64>> = runs.rows.iter().map(|r| r.timed_faults).collect();
    assert_eq!(faults, [Some(0), Some(3), Some(2), Some(1), None, Some(0)]);
    assert!(runs
        .rows
        .iter()
        .all(|r| r.order_seed == Some(17_293_822_569_102_704_642)));
    let s = report::summarize(&runs);
    let faulted = warnings_of(&s, WarningKind::TimedFaults);
    assert_eq!(
        faulted,
        [
            "day8.pcapng.gz [normal] raw, run f1: 3 minor page faults inside timed regions",
            "day8.pcapng.gz [normal] sbe, run f2: 1 minor page fault inside timed regions",
        ]
    );
    // A format that allocates in its timed code faults on its own account.
    let own = warnings_of(&s, WarningKind::OwnFaults);
    assert_eq!(
        own,
        [
            "day8.pcapng.gz [normal] bitcode, run f1: 2 minor page faults inside timed regions, \
          where it allocates (0 ser, 0.935 de, 1 de_all per packet)"
        ]
    );
    let grouped = report::warnings::group(&s.warnings, &s);
    let line = |kind: WarningKind| -> Vec<&str> {
        grouped
            .iter()
            .filter(|g| g.kind == kind)
            .map(|g| g.summary.as_str())
            .collect()
    };
    let harness = line(WarningKind::TimedFaults);
    assert_eq!(harness.len(), 1, "{harness:?}");
    assert!(
        harness[0].starts_with(
            "Minor page faults inside timed regions in 2 of 6 results rows of formats that \
             allocate nothing there"
        ) && harness[0].ends_with("measure the harness, not the format."),
        "{harness:?}"
    );
    let own = line(WarningKind::OwnFaults);
    assert_eq!(own.len(), 1, "{own:?}");
    assert!(
        own[0].starts_with(
            "Minor page faults inside timed regions in 1 of 6 results rows of \
             formats that allocate there"
        ),
        "{own:?}"
    );
    let out = dir.path().join("out");
    report::write_report(&s, &[], &out).unwrap();
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(
        html.find("raw, run f1: 3 minor page faults").unwrap()
            > html.find("id=\"warnings\"").unwrap(),
        "in the warnings section"
    );

    // Older CSVs: no column, no count, no warning.
    let (_dir, a, b) = fixtures();
    let runs = report::load(&[a, b]).unwrap();
    assert!(runs.rows.iter().all(|r| r.timed_faults.is_none()));
    let s = report::summarize(&runs);
    assert!(s
        .warnings
        .iter()
        .all(|w| w.kind != WarningKind::TimedFaults));
}

/// A run over a capture cut short at its end (read with --lenient) is said once per run, not
/// once per format.
#[test]
fn a_capture_cut_short_is_warned_about_once_per_input() {
    let dir = tempfile::tempdir().unwrap();
    let csv_path = dir.path().join("runs.csv");
    let rows: Vec<Fixture> = [("c1", "sbe"), ("c1", "raw"), ("c2", "sbe"), ("c2", "raw")]
        .into_iter()
        .map(|(run, format)| Fixture {
            dropped_bytes: (run == "c1").then_some(476),
            ..fx(
                run,
                "data/DEEP10.pcap.gz",
                "normal",
                format,
                "h",
                40,
                30,
                1_000_000,
                0.1,
            )
        })
        .collect();
    write_csv(&csv_path, &columns_now(), &rows);
    let runs = report::load(std::slice::from_ref(&csv_path)).unwrap();
    let s = report::summarize(&runs);
    let cut = warnings_of(&s, WarningKind::CutShort);
    assert_eq!(
        cut,
        [
            "DEEP10.pcap.gz: the capture ends inside a packet; its whole packets were measured \
             and the last 476 bytes dropped (--lenient), in 1 run"
        ]
    );
}

/// Runs of one input and label from two hosts are never pooled into one section (issue 49: 6
/// runs from each host read as "12 runs", their min–max spanning both machines): each host's
/// label names it, each pools only its own labels, and the page shows both.
#[test]
fn runs_from_two_hosts_are_sections_of_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let day = "data/day1.pcapng.gz";
    let (x, y) = (dir.path().join("x.csv"), dir.path().join("y.csv"));
    for (csv, host, runs) in [(&x, "alpha", ["x1", "x2"]), (&y, "beta", ["y1", "y2"])] {
        let rows: Vec<Fixture> = runs
            .into_iter()
            .zip(["normal", "taskset"])
            .flat_map(|(run, label)| {
                [
                    fx(run, day, label, "sbe", host, 40, 30, 10_000_000, 10.0),
                    fx(run, day, label, "raw", host, 20, 10, 20_000_000, 10.0),
                ]
            })
            .collect();
        write_csv(csv, &columns_now(), &rows);
    }
    let s = report::summarize(&report::load(&[x, y]).unwrap());
    let mut labels: Vec<&str> = s.groups.iter().map(|g| g.label.as_str()).collect();
    labels.dedup();
    labels.sort_unstable();
    assert_eq!(
        labels,
        [
            "normal on alpha",
            "normal on alpha + taskset on alpha",
            "normal on beta",
            "normal on beta + taskset on beta",
            "taskset on alpha",
            "taskset on beta",
        ]
    );
    for g in &s.groups {
        assert_eq!(g.hosts.len(), 1, "{} pools {:?}", g.label, g.hosts);
        let pooled = g.label.contains(" + ");
        assert_eq!(g.runs, if pooled { 2 } else { 1 }, "{}", g.label);
    }
    let out = dir.path().join("report");
    report::write_report(&s, &[], &out).unwrap();
    let page = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(page.contains("normal on alpha") && page.contains("normal on beta"));
}
