//! Figures per message type (issue 48): a `--unit message` run's per-type rows, the report's
//! per-type table, and `report --mix` re-weighting them into a verdict for another mix.

use md_shootout::export::csv::{Latency, Row};
use md_shootout::measure::Workload;

use crate::common::{shootout, shootout_ok};

/// One run's row of `format`: of one type (`kind`) or over every type (`None`), every
/// per-unit statistic `ns` (ser and each decode alike), `units` messages timed.
fn row(run: usize, format: &str, kind: Option<u8>, ns: f64, units: u64) -> Row {
    let cells = Latency {
        p50: Some(ns as u64),
        p90: Some(ns as u64),
        p99: Some(ns as u64),
        p999: Some(ns as u64),
        p9999: Some(ns as u64),
        max: Some(ns as u64),
        mean: Some(ns),
        total: Some(ns as u64 * units),
    };
    let (twin_of, planted) = match format.strip_suffix(".twin") {
        Some(of) => (Some(of.to_owned()), Some(0.0)),
        None => (None, None),
    };
    let mut r = Row {
        run_id: format!("run{run}"),
        started_at: "2026-11-30T00:00:00Z".into(),
        label: "normal".into(),
        input: "data/sample-deep-plus.pcapng.gz".into(),
        input_bytes: 1,
        feed: "deep-plus".into(),
        packets: 700,
        messages: 700,
        format: format.into(),
        encoded_bytes: 40 * units,
        bytes_per_message: 40.0,
        msgs_per_sec: 0,
        host: "h".into(),
        cpu: "c".into(),
        rustc: "r".into(),
        git_rev: "g".into(),
        unit: Some("message".into()),
        units: Some(units),
        clock_step_ns: Some(1.0),
        twin_of,
        planted,
        msg_type: kind.map(|k| char::from(k).to_string()),
        ..Row::default()
    };
    for w in Workload::ALL {
        r.set_latency(w, cells);
    }
    r
}

/// Six runs of sbe, its A/A twin and postcard, by type: sbe twice as fast on price levels
/// (`8`, 500 messages a run), postcard twice as fast on adds (`a`) and deletes (`R`, 100 each);
/// each run 1% slower than the one before, for all alike.
fn crafted(dir: &std::path::Path) -> std::path::PathBuf {
    write(dir, "runs.csv", crafted_rows())
}

fn write(dir: &std::path::Path, name: &str, rows: Vec<Row>) -> std::path::PathBuf {
    let path = dir.join(name);
    let mut w = csv::Writer::from_path(&path).unwrap();
    for r in &rows {
        w.serialize(r).unwrap();
    }
    w.flush().unwrap();
    path
}

fn crafted_rows() -> Vec<Row> {
    let fast = |k: u8, f: &str| (k == b'8') == f.starts_with("sbe");
    let mut rows = Vec::new();
    for run in 0..6 {
        let drift = 1.0 + 0.01 * run as f64;
        for f in ["sbe", "sbe.twin", "postcard"] {
            rows.push(row(run, f, None, 200.0 * drift, 700));
            for (k, units) in [(b'8', 500), (b'a', 100), (b'R', 100)] {
                let ns = if fast(k, f) { 100.0 } else { 200.0 };
                rows.push(row(run, f, Some(k), ns * drift, units));
            }
        }
    }
    rows
}

/// The per-type table names the fastest per type by the verdict's rule, and a mix of adds and
/// deletes turns the verdict where the per-type figures say it must: sbe is fastest on the
/// input's own mix (71% price levels), postcard on adds and deletes alone.
#[test]
fn a_mix_of_adds_and_deletes_turns_the_verdict_the_per_type_figures_say() {
    let dir = tempfile::tempdir().unwrap();
    let csv = crafted(dir.path());
    let out = dir.path().join("report");
    let (csv, out) = (csv.to_str().unwrap(), out.to_str().unwrap());
    let printed = shootout_ok(&["report", "--out", out, "--mix", "add=1,delete=1", csv]);
    assert!(
        printed.contains("mix (given): add_order (a) 50%, order_delete (R) 50%"),
        "{printed}"
    );
    assert!(
        printed.contains(
            "fastest ser + decode with this mix: postcard; with the input's own mix: sbe"
        ),
        "{printed}"
    );
    let md = std::fs::read_to_string(dir.path().join("report/summary.md")).unwrap();
    let table = md
        .split("Per message type")
        .nth(1)
        .expect("summary.md has the per-type table");
    let line = |name: &str| {
        table
            .lines()
            .find(|l| l.contains(name))
            .unwrap_or_else(|| panic!("no row for {name}:\n{table}"))
            .to_owned()
    };
    // Most frequent first, the fastest named next to each type.
    assert!(table.find("price_level_buy (8)") < table.find("add_order (a)"));
    assert!(line("price_level_buy (8)").starts_with("| price_level_buy (8) | sbe |"));
    assert!(line("order_delete (R)").starts_with("| order_delete (R) | postcard |"));

    // The same mix by type bytes reads the same; the input's own mix by its message counts.
    let again = shootout_ok(&["report", "--out", out, "--mix", "a=3,R=3", csv]);
    assert!(again.contains("with this mix: postcard"), "{again}");
    let own = shootout_ok(&["report", "--out", out, "--mix", "8=5,a=1,R=1", csv]);
    assert!(
        own.contains("with this mix: sbe; with the input's own mix: sbe"),
        "{own}"
    );
}

/// A mix naming no type, or a word of more than one, is refused in one line; so is a mix with
/// no figures per type to re-weight, and a type the runs never timed gives no verdict.
#[test]
fn a_mix_that_names_no_type_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let csv = crafted(dir.path());
    let (csv, out) = (csv.to_str().unwrap(), dir.path().join("r"));
    let out = out.to_str().unwrap();
    for (mix, says) in [
        ("foo=1", "no IEX message type is called \"foo\""),
        (
            "trade=1",
            "names more than one type (trade_report, trade_break)",
        ),
        ("add=x", "is not a number"),
        ("add=0", "no message with a share above 0"),
    ] {
        let o = shootout(&["report", "--out", out, "--mix", mix, csv]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{mix}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{mix}: {err}");
        assert!(err.contains(says), "{mix}: {err}");
        assert!(!dir.path().join("r").exists(), "{mix}: nothing written");
    }
    let per_packet = crafted_rows().into_iter().filter(|r| r.msg_type.is_none());
    let plain = write(dir.path(), "plain.csv", per_packet.collect());
    let o = shootout(&[
        "report",
        "--out",
        out,
        "--mix",
        "add=1",
        plain.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("no figures per message type"), "{err}");
    assert!(!dir.path().join("r").exists());
    let printed = shootout_ok(&["report", "--out", out, "--mix", "quote=1", csv]);
    assert!(
        printed.contains("no verdict for this mix: its runs timed no quote_update (Q) (100%)"),
        "{printed}"
    );
}

/// Message lengths from the IEX DEEP+ and DEEP specifications' message tables (type byte
/// included), for the types the generated DEEP+ day carries.
const SPEC_LEN: [(u8, f64); 12] = [
    (b'S', 10.0),
    (b'D', 31.0),
    (b'H', 22.0),
    (b'O', 18.0),
    (b'P', 19.0),
    (b'E', 18.0),
    (b'I', 18.0),
    (b'T', 38.0),
    (b'a', 38.0),
    (b'M', 38.0),
    (b'R', 26.0),
    (b'L', 46.0),
];

/// A run timed per message writes, beside each format's row, one row per message type: the
/// same messages for every format (their counts add up to the format's `units`), every
/// workload's percentiles, and bytes that follow the spec's lengths (`raw` copies each message's
/// fields into a fixed record behind a fixed header: its bytes per type less the spec's length
/// are one constant).
#[test]
fn a_run_per_message_writes_each_formats_figures_by_type() {
    let dir = tempfile::tempdir().unwrap();
    let (day, csv) = (dir.path().join("day.pcapng"), dir.path().join("runs.csv"));
    let (day, csv) = (day.to_str().unwrap(), csv.to_str().unwrap());
    shootout_ok(&[
        "gen",
        "--feed",
        "deep-plus",
        "--packets",
        "3000",
        "--out",
        day,
    ]);
    shootout_ok(&[
        "run",
        "--unit",
        "message",
        "--stored-size",
        "none",
        "--formats",
        "raw,sbe,fory",
        "--csv",
        csv,
        day,
    ]);
    let rows: Vec<Row> = csv::Reader::from_path(csv)
        .unwrap()
        .deserialize()
        .map(Result::unwrap)
        .collect();
    let types_of = |f: &str| -> Vec<(String, u64)> {
        (rows.iter())
            .filter(|r| r.format == f && r.msg_type.is_some())
            .map(|r| (r.msg_type.clone().unwrap(), r.units.unwrap()))
            .collect()
    };
    let raw_types = types_of("raw");
    assert!(raw_types.len() >= 8, "{raw_types:?}");
    for f in ["raw", "sbe", "fory", "raw.twin", "sbe.twin"] {
        let all = rows.iter().find(|r| r.format == f && r.msg_type.is_none());
        let all = all.unwrap_or_else(|| panic!("no row of {f}"));
        let types = types_of(f);
        assert_eq!(types, raw_types, "{f}: the same messages");
        assert_eq!(
            types.iter().map(|t| t.1).sum::<u64>(),
            all.units.unwrap(),
            "{f}"
        );
        for r in rows
            .iter()
            .filter(|r| r.format == f && r.msg_type.is_some())
        {
            for w in Workload::ALL {
                assert!(
                    r.latency(w).p50.is_some_and(|p| p > 0),
                    "{f} {:?}",
                    r.msg_type
                );
            }
            assert_eq!(r.msgs_per_sec, 0);
            assert_eq!(
                (r.ser_batch_ns, r.zstd_bytes, r.ser_allocs),
                (None, None, None)
            );
        }
    }
    let header: Vec<f64> = (rows.iter())
        .filter(|r| r.format == "raw")
        .filter_map(|r| {
            let t = r.msg_type.as_deref()?.as_bytes()[0];
            let (_, len) = SPEC_LEN.iter().find(|(k, _)| *k == t)?;
            Some(r.bytes_per_message - len)
        })
        .collect();
    assert!(header.len() >= 8, "{header:?}");
    assert!(
        header.iter().all(|h| *h == header[0] && *h > 0.0),
        "{header:?}"
    );
}

/// The shares of a run timed per message, merged, hold the figures by type one process holds:
/// the same messages of each type and the same bytes.
#[test]
fn shares_merged_hold_the_figures_by_type_of_one_process() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).to_str().unwrap().to_owned();
    shootout_ok(&[
        "gen",
        "--packets",
        "4000",
        "--out",
        &p("day.pcap"),
        "--capture",
        "pcap",
    ]);
    let common = |out: &mut Vec<String>| {
        let split = crate::jobs::SPLIT.map(str::to_owned);
        out.extend(split);
        out.extend(["--unit", "message", "--formats", "raw,sbe"].map(str::to_owned));
    };
    let mut one = vec![
        "run".to_owned(),
        p("day.pcap"),
        "--csv".into(),
        p("one.csv"),
    ];
    common(&mut one);
    shootout_ok(&one.iter().map(String::as_str).collect::<Vec<_>>());
    let mut merge = vec!["merge".to_owned()];
    for i in 1..=2 {
        let part = p(&format!("part-{i}.json"));
        let mut args = vec!["run".to_owned(), p("day.pcap"), "--shard".into()];
        args.extend([format!("{i}/2"), "--part".into(), part.clone()]);
        common(&mut args);
        shootout_ok(&args.iter().map(String::as_str).collect::<Vec<_>>());
        merge.push(part);
    }
    merge.extend(["--out".to_owned(), p("merged")]);
    shootout_ok(&merge.iter().map(String::as_str).collect::<Vec<_>>());
    let by_type = |csv: &str| -> Vec<(String, String, Option<u64>, u64)> {
        let rows = csv::Reader::from_path(csv)
            .unwrap()
            .into_deserialize::<Row>();
        rows.map(Result::unwrap)
            .filter_map(|r| Some((r.format, r.msg_type?, r.units, r.encoded_bytes)))
            .collect()
    };
    let one = by_type(&p("one.csv"));
    assert!(one.len() >= 8, "{one:?}");
    assert_eq!(by_type(&p("merged/results.csv")), one);
}

/// `--mix-like CAPTURE` takes the shares of the capture's own messages, as `inspect` counts
/// them; re-weighting needs every one of its types timed, so a section that timed fewer says so.
#[test]
fn a_mix_like_a_capture_takes_its_message_shares() {
    let dir = tempfile::tempdir().unwrap();
    let csv = crafted(dir.path());
    let day = dir.path().join("day.pcapng");
    let (csv, day, out) = (
        csv.to_str().unwrap(),
        day.to_str().unwrap(),
        dir.path().join("r"),
    );
    shootout_ok(&[
        "gen",
        "--feed",
        "deep-plus",
        "--packets",
        "2000",
        "--out",
        day,
    ]);
    let seen: serde_json::Value =
        serde_json::from_str(&shootout_ok(&["inspect", "--json", day])).unwrap();
    let by_type = seen["by_type"].as_object().unwrap();
    let total: f64 = by_type.values().map(|n| n.as_f64().unwrap()).sum();
    let adds = by_type["a"].as_f64().unwrap() / total * 100.0;
    let printed = shootout_ok(&[
        "report",
        "--out",
        out.to_str().unwrap(),
        "--mix-like",
        day,
        csv,
    ]);
    let line = printed.lines().next().unwrap();
    assert!(
        line.starts_with(&format!("mix (like {day}): ")),
        "{printed}"
    );
    let share = line
        .split("add_order (a) ")
        .nth(1)
        .and_then(|s| s.split('%').next())
        .and_then(|s| s.parse::<f64>().ok())
        .unwrap_or_else(|| panic!("{line}"));
    assert!(
        (share - adds).abs() < 0.1,
        "{share} against inspect's {adds}"
    );
    assert!(
        printed.contains("no verdict for this mix: its runs timed no "),
        "{printed}"
    );
}
