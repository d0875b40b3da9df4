//! `shootout run` end to end on a generated day: the summary equals one computed here, from the
//! generator's own record, with code independent of the formats' aggregation; every format
//! agrees; the CSV has the promised columns and ordered percentiles.

use std::collections::{BTreeMap, HashMap};

use md_shootout::gen::{self, GenOptions};
use md_shootout::measure::{self, stored::StoredMode, Config};
use md_shootout::model::{Feed, Message, Side};
use md_shootout::stream::IexReader;

use crate::common::{
    csv_rows, rows_of_every_format, shootout, shootout_ok, summary_csv, widen, Expected,
};

const COLUMNS: [&str; 83] = [
    "run_id",
    "started_at",
    "label",
    "input",
    "input_bytes",
    "feed",
    "packets",
    "messages",
    "format",
    "encoded_bytes",
    "bytes_per_message",
    "ser_p50_ns",
    "ser_p90_ns",
    "ser_p99_ns",
    "ser_p999_ns",
    "ser_p9999_ns",
    "ser_max_ns",
    "ser_mean_ns",
    "ser_total_ns",
    "de_p50_ns",
    "de_p90_ns",
    "de_p99_ns",
    "de_p999_ns",
    "de_p9999_ns",
    "de_max_ns",
    "de_mean_ns",
    "de_total_ns",
    "msgs_per_sec",
    "timer_overhead_ns",
    "host",
    "cpu",
    "rustc",
    "git_rev",
    "zstd_bytes",
    "zlib_bytes",
    "zstd_ns",
    "memcpy_p50_ns",
    "memcpy_mean_ns",
    "de_all_p50_ns",
    "de_all_p90_ns",
    "de_all_p99_ns",
    "de_all_p999_ns",
    "de_all_p9999_ns",
    "de_all_max_ns",
    "de_all_mean_ns",
    "de_all_total_ns",
    "ser_batch_ns",
    "de_batch_ns",
    "de_all_batch_ns",
    "clock",
    "memcpy_batch_ns",
    "unit",
    "units",
    "stored_mode",
    "stored_sampled_bytes",
    "timing",
    "batch_units",
    "jobs",
    "worker_cpu",
    "timed_faults",
    "order_seed",
    "dropped_bytes",
    "ser_allocs",
    "de_allocs",
    "de_all_allocs",
    "ser_alloc_bytes",
    "de_alloc_bytes",
    "de_all_alloc_bytes",
    "trusts_producer",
    "twin_of",
    "clock_step_ns",
    "preempted",
    "retimed",
    "aggregate_batch_ns",
    "shard",
    "latency_note",
    "lossy",
    "planted",
    "ser_instr",
    "de_instr",
    "de_all_instr",
    "instr_source",
    "msg_type",
];

/// The summary CSV the issue specifies, computed from the generator's packets.
fn expected_summary(opts: &GenOptions) -> (String, u64) {
    let mut by_symbol: BTreeMap<String, Expected> = BTreeMap::new();
    let mut messages = 0;
    for packet in gen::packets(opts).unwrap() {
        for m in &packet.messages {
            messages += 1;
            match m {
                Message::TradeReport(t) => by_symbol
                    .entry(t.symbol.to_string())
                    .or_default()
                    .trade(t.size, t.price),
                Message::PriceLevelUpdate(p) => {
                    let e = by_symbol.entry(p.symbol.to_string()).or_default();
                    match p.side {
                        Side::Buy => widen(&mut e.bid, p.price),
                        Side::Sell => widen(&mut e.ask, p.price),
                    }
                }
                Message::QuoteUpdate(q) if q.bid_price != 0 || q.ask_price != 0 => {
                    let e = by_symbol.entry(q.symbol.to_string()).or_default();
                    if q.bid_price != 0 {
                        widen(&mut e.bid, q.bid_price);
                    }
                    if q.ask_price != 0 {
                        widen(&mut e.ask, q.ask_price);
                    }
                }
                _ => {}
            }
        }
    }
    let csv = summary_csv(by_symbol.iter().map(|(s, e)| (s.as_str(), e)));
    (csv, messages)
}

#[test]
fn run_matches_an_independent_summary_and_writes_sound_csv() {
    for (feed, name) in [
        (md_shootout::model::Feed::Deep, "deep"),
        (md_shootout::model::Feed::Tops, "tops"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let opts = GenOptions {
            feed,
            packets: 8_000,
            seed: 11,
            symbols: 200,
            ..GenOptions::default()
        };
        let input = dir.path().join(format!("{name}.pcapng.gz"));
        gen::generate_file(&opts, &input).unwrap();
        let (expected, messages) = expected_summary(&opts);

        let csv = dir.path().join("runs.csv");
        let summary = dir.path().join("summary.csv");
        let hist = dir.path().join("hist");
        let args = [
            "run",
            input.to_str().unwrap(),
            "--verify",
            "--label",
            "pinned",
            "--csv",
            csv.to_str().unwrap(),
            "--summary",
            summary.to_str().unwrap(),
            "--hist-dir",
            hist.to_str().unwrap(),
            "--warmup",
            "1000",
            "--window",
            "1000",
        ];
        let table = shootout_ok(&args);
        let names = md_shootout::formats::names();
        assert!(
            table.contains(&format!(
                "checked: every field of every message of all {} formats (the complete decode's \
                 checksum equals the source's for every packet and every window), {messages} \
                 messages each way",
                names.len()
            )),
            "{table}"
        );
        assert_eq!(
            std::fs::read_to_string(&summary).unwrap(),
            expected,
            "{name}"
        );

        // A second run appends rows under the same single header.
        shootout_ok(&args);
        let mut reader = csv::Reader::from_path(&csv).unwrap();
        assert_eq!(
            reader.headers().unwrap().iter().collect::<Vec<_>>(),
            COLUMNS
        );
        let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
        let every = rows_of_every_format();
        assert_eq!(
            rows.len(),
            2 * every.len(),
            "every format and twin x 2 runs"
        );
        let col = |r: &csv::StringRecord, c: &str| -> String {
            r[COLUMNS.iter().position(|x| *x == c).unwrap()].to_owned()
        };
        let num = |r: &csv::StringRecord, c: &str| col(r, c).parse::<f64>().unwrap();
        let formats: Vec<String> = rows[..every.len()]
            .iter()
            .map(|r| col(r, "format"))
            .collect();
        assert_eq!(
            formats, every,
            "one row per format, in the registry's order, then the twins"
        );
        for r in &rows {
            assert_eq!(col(r, "feed"), name);
            assert_eq!(col(r, "label"), "pinned");
            assert_eq!(num(r, "packets"), 8_000.0);
            assert_eq!(num(r, "messages"), messages as f64);
            assert!(num(r, "encoded_bytes") > 0.0);
            let bpm = num(r, "encoded_bytes") / num(r, "messages");
            assert!((num(r, "bytes_per_message") - bpm).abs() < 0.01);
            // A format timed only per window has no per-unit figure, and its row says why.
            let window_format = md_shootout::formats::descriptor(&col(r, "format"))
                .is_some_and(|d| d.per_window_only());
            assert_eq!(col(r, "latency_note").is_empty(), !window_format);
            for side in ["ser", "de", "de_all"] {
                if window_format {
                    for q in ["p50", "p90", "p99", "p999", "p9999", "max", "mean", "total"] {
                        assert_eq!(col(r, &format!("{side}_{q}_ns")), "", "{side} {q}");
                    }
                    continue;
                }
                let p: Vec<f64> = ["p50", "p90", "p99", "p999", "p9999", "max"]
                    .iter()
                    .map(|q| num(r, &format!("{side}_{q}_ns")))
                    .collect();
                assert!(
                    p.windows(2).all(|w| w[0] <= w[1]),
                    "{side} percentiles {p:?}"
                );
                assert!(p[0] > 0.0);
                assert!(num(r, &format!("{side}_total_ns")) > 0.0);
            }
            assert!(num(r, "msgs_per_sec") > 0.0);
            assert_eq!(col(r, "timing"), "alternate");
            // A window format is timed whole in every window (the 7,000 units after the
            // warm-up), never one by one; a packet format both ways in the first window, then
            // one way in turn (1,000 + 3 × 1,000 each).
            let units = if window_format {
                (0.0, 7_000.0)
            } else {
                (4_000.0, 4_000.0)
            };
            assert_eq!((num(r, "units"), num(r, "batch_units")), units);
            // Throughput: whole windows timed, ns per packet; msgs/s is ser + de_all from them.
            for c in [
                "ser_batch_ns",
                "de_batch_ns",
                "de_all_batch_ns",
                "memcpy_batch_ns",
            ] {
                assert!(num(r, c) > 0.0, "{c}");
            }
            let per_packet = num(r, "messages") / num(r, "packets");
            let from_batch =
                1e9 * per_packet / (num(r, "ser_batch_ns") + num(r, "de_all_batch_ns"));
            // Warm-up packets hold a few more messages than the average; within 5%.
            assert!(
                (num(r, "msgs_per_sec") / from_batch - 1.0).abs() < 0.05,
                "msgs_per_sec {} vs {from_batch} from the batch figures",
                num(r, "msgs_per_sec")
            );
            assert!(["tsc", "cntvct", "monotonic"].contains(&col(r, "clock").as_str()));
            // An A/A twin's row says whose twin it is, a control's too, and what work was
            // planted in it; its bytes are its original's.
            let twin_of = col(r, "twin_of");
            let format = col(r, "format");
            if let Some(suffix) = format
                .strip_prefix(twin_of.as_str())
                .filter(|_| !twin_of.is_empty())
            {
                let planted = match suffix {
                    ".twin" => 0.0,
                    ".plus5" => 0.05,
                    other => panic!("{format}: a twin's suffix {other}"),
                };
                assert_eq!(num(r, "planted"), planted, "{format}");
                let original = rows
                    .iter()
                    .find(|x| col(x, "run_id") == col(r, "run_id") && col(x, "format") == twin_of)
                    .unwrap();
                assert_eq!(col(r, "encoded_bytes"), col(original, "encoded_bytes"));
                for c in ["zstd_bytes", "zlib_bytes", "zstd_ns"] {
                    assert_eq!(col(r, c), "", "{c}: a twin's windows are not compressed");
                }
            } else {
                assert_eq!((twin_of.as_str(), col(r, "planted").as_str()), ("", ""));
                // Size as stored: compressed, smaller than encoded, timed.
                for c in ["zstd_bytes", "zlib_bytes"] {
                    assert!(
                        num(r, c) > 0.0 && num(r, c) < num(r, "encoded_bytes"),
                        "{c}"
                    );
                }
                assert!(num(r, "zstd_ns") > 0.0);
            }
            // Issue 39's columns: the clock's step and the aggregation floor (one figure per
            // run), and the preemptions counted and retimed for each format.
            assert!(num(r, "clock_step_ns") > 0.0);
            assert!(num(r, "clock_step_ns") <= 1_000.0);
            assert!(num(r, "aggregate_batch_ns") > 0.0);
            assert!(num(r, "preempted") >= num(r, "retimed"));
            assert!(num(r, "timer_overhead_ns") >= 0.0);
            // The memcpy floor: measured (the clock reads at least one step), one figure per run.
            assert!(num(r, "memcpy_p50_ns") > 0.0 && num(r, "memcpy_mean_ns") > 0.0);
            let first_of_run = rows
                .iter()
                .find(|x| col(x, "run_id") == col(r, "run_id"))
                .unwrap();
            for c in [
                "memcpy_p50_ns",
                "memcpy_mean_ns",
                "memcpy_batch_ns",
                "clock",
                "clock_step_ns",
                "aggregate_batch_ns",
            ] {
                assert_eq!(col(r, c), col(first_of_run, c), "{c} differs within a run");
            }
            assert!(!col(r, "git_rev").is_empty() && col(r, "rustc").starts_with("rustc "));
        }
        // The second run's first row.
        assert_ne!(col(&rows[0], "run_id"), col(&rows[every.len()], "run_id"));
        windows_sum_to_the_batch_figures(&csv, &rows, &col);

        for f in &formats {
            if md_shootout::formats::descriptor(f).is_some_and(|d| d.per_window_only()) {
                // No per-unit distribution to write.
                for side in ["ser", "de", "de_all"] {
                    assert!(!hist.join(format!("{f}.{side}.hgrm")).exists());
                }
                continue;
            }
            for side in ["ser", "de", "de_all"] {
                let text = std::fs::read_to_string(hist.join(format!("{f}.{side}.hgrm"))).unwrap();
                assert!(text.starts_with("       Value     Percentile TotalCount"));
                // Warm-up packets are run but not recorded; of the 7 windows after it (1000
                // packets each), the first is timed both ways, then the even ones per packet. A
                // positive control's latencies are its window's: one unit in 20 of its chunk
                // repeated (give or take one a window, where the chunks' windows fall).
                let count: u64 = text
                    .split("Total count    =")
                    .nth(1)
                    .and_then(|t| t.split(']').next())
                    .and_then(|n| n.trim().parse().ok())
                    .unwrap_or(0);
                if f.ends_with(".plus5") {
                    assert!(count.abs_diff(4200) <= 10, "{f} {side}: {count}");
                } else {
                    assert_eq!(count, 4000, "{f} {side}");
                }
                // The histogram itself, as an HdrHistogram interval log: the same count.
                let log = std::fs::read(hist.join(format!("{f}.{side}.hlog"))).unwrap();
                let h = md_shootout::report::dist::parse_log(&log).unwrap();
                assert_eq!(h.len(), count, "{f} {side}.hlog");
            }
        }
    }
}

/// The windows file beside the results (`runs.windows.csv`): every format's batch passes of
/// every run window by window, one window per block on an input this small, summing to the
/// row's batch units and figures.
fn windows_sum_to_the_batch_figures(
    csv: &std::path::Path,
    rows: &[csv::StringRecord],
    col: &dyn Fn(&csv::StringRecord, &str) -> String,
) {
    let path = csv.with_file_name("runs.windows.csv");
    let mut reader = csv::Reader::from_path(&path).unwrap();
    assert_eq!(
        reader.headers().unwrap().iter().collect::<Vec<_>>(),
        ["run_id", "format", "workload", "chunk", "window", "windows", "units", "ns"]
    );
    let windows: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
    for r in rows {
        let window_format = md_shootout::formats::descriptor(&col(r, "format"))
            .is_some_and(|d| d.per_window_only());
        for side in ["ser", "de", "de_all"] {
            let mine: Vec<&csv::StringRecord> = windows
                .iter()
                .filter(|w| w[0] == col(r, "run_id") && w[1] == col(r, "format") && &w[2] == side)
                .collect();
            // A packet format times the first window after the warm-up whole, then every other
            // one (4 of 7); a window format every window that holds a unit after the warm-up.
            if window_format {
                assert!(mine.len() >= 7, "{side}: {}", mine.len());
            } else {
                assert_eq!(mine.len(), 4, "{side}");
            }
            assert!(mine.iter().all(|w| &w[5] == "1"));
            let sum = |i: usize| {
                mine.iter()
                    .map(|w| w[i].parse::<f64>().unwrap())
                    .sum::<f64>()
            };
            assert_eq!(sum(6), col(r, "batch_units").parse::<f64>().unwrap());
            let figure = col(r, &format!("{side}_batch_ns")).parse::<f64>().unwrap();
            assert!((sum(7) / sum(6) - figure).abs() <= 0.01 * figure, "{side}");
        }
    }
}

#[test]
fn formats_can_be_chosen_and_unknown_ones_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("day.pcapng");
    let opts = GenOptions {
        packets: 2_000,
        ..GenOptions::default()
    };
    gen::generate_file(&opts, &input).unwrap();
    let table = shootout_ok(&[
        "run",
        input.to_str().unwrap(),
        "--formats",
        "sbe,capnp-packed",
    ]);
    assert!(table.contains("sbe") && table.contains("capnp-packed"));
    assert!(!table.contains("flatbuffers") && !table.contains("capnp-unpacked"));

    // Without the size as stored, the size columns are left empty rather than zero.
    let csv_path = dir.path().join("latency-only.csv");
    let table = shootout_ok(&[
        "run",
        input.to_str().unwrap(),
        "--formats",
        "sbe",
        "--no-stored-size",
        "--csv",
        csv_path.to_str().unwrap(),
    ]);
    let mut reader = csv::Reader::from_path(&csv_path).unwrap();
    let headers = reader.headers().unwrap().clone();
    let row = reader.records().next().unwrap().unwrap();
    for column in ["zstd_bytes", "zlib_bytes", "zstd_ns"] {
        let i = headers.iter().position(|h| h == column).unwrap();
        assert_eq!(&row[i], "", "{column}");
    }
    assert!(!table.contains("size as stored"), "{table}");

    let out = shootout(&["run", input.to_str().unwrap(), "--formats", "bincode"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown format \"bincode\""), "{err}");
}

/// `--twins`: the default twins the run's formats among raw and sbe; a list twins those it
/// names, `none` none; a twin of a format the run does not measure, or of no format, is refused
/// in one line. The table lists twins after the ranked formats, marked.
#[test]
fn twins_can_be_chosen_and_a_twin_of_nothing_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("day.pcapng");
    let opts = GenOptions {
        packets: 2_000,
        ..GenOptions::default()
    };
    gen::generate_file(&opts, &input).unwrap();
    let formats = |args: &[&str]| -> Vec<(String, String)> {
        let csv_path = dir.path().join(format!("twins-{}.csv", args.join("-")));
        let mut all = vec![
            "run",
            input.to_str().unwrap(),
            "--no-stored-size",
            "--csv",
            csv_path.to_str().unwrap(),
        ];
        all.extend_from_slice(args);
        let table = shootout_ok(&all);
        let mut reader = csv::Reader::from_path(&csv_path).unwrap();
        let headers = reader.headers().unwrap().clone();
        let at = |c: &str| headers.iter().position(|h| h == c).unwrap();
        let rows: Vec<(String, String)> = reader
            .records()
            .map(|r| r.unwrap())
            .map(|r| (r[at("format")].to_owned(), r[at("twin_of")].to_owned()))
            .collect();
        for (format, twin_of) in &rows {
            if format.ends_with(".twin") {
                assert!(table.contains(&format!("{format} (A/A)")), "{table}");
            } else if !twin_of.is_empty() {
                assert!(
                    table.contains(&format!("{format} (+5% control)")),
                    "{table}"
                );
            }
        }
        // The checks' line counts them apart.
        let twins = rows.iter().filter(|r| r.0.ends_with(".twin")).count();
        let controls = rows.iter().filter(|r| r.0.ends_with(".plus5")).count();
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        if twins > 0 {
            let said = format!(
                "the same for their {twins} A/A twin{} and {controls} positive control{}",
                plural(twins),
                plural(controls)
            );
            assert!(table.contains(&said), "{table}");
        }
        rows
    };
    let pair = |f: &str, t: &str| (f.to_owned(), t.to_owned());
    assert_eq!(
        formats(&["--formats", "json,raw"]),
        [
            pair("json", ""),
            pair("raw", ""),
            pair("raw.twin", "raw"),
            pair("raw.plus5", "raw")
        ]
    );
    // Neither default measured: the first format is twinned, so the controls are always there.
    assert_eq!(
        formats(&["--formats", "json,cbor"]),
        [
            pair("json", ""),
            pair("cbor", ""),
            pair("json.twin", "json"),
            pair("json.plus5", "json")
        ]
    );
    assert_eq!(
        formats(&["--formats", "json,raw", "--twins", "json,raw"]),
        [
            pair("json", ""),
            pair("raw", ""),
            pair("json.twin", "json"),
            pair("raw.twin", "raw"),
            pair("json.plus5", "json"),
            pair("raw.plus5", "raw")
        ]
    );
    assert_eq!(
        formats(&["--formats", "sbe", "--twins", "none"]),
        [pair("sbe", "")]
    );
    for (args, says) in [
        (
            ["--formats", "json", "--twins", "sbe"],
            "--twins sbe: the run does not measure sbe",
        ),
        (
            ["--formats", "json", "--twins", "sb"],
            "--twins sb: no format has that name",
        ),
    ] {
        let mut all = vec!["run", input.to_str().unwrap()];
        all.extend_from_slice(&args);
        let out = shootout(&all);
        assert!(!out.status.success(), "{args:?} was accepted");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
}

#[test]
fn bad_input_to_run_names_the_file_and_leaves_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("bad.pcap");
    std::fs::write(&input, b"\xd4\xc3\xb2\xa1 short").unwrap();
    let summary = dir.path().join("summary.csv");
    let out = shootout(&[
        "run",
        input.to_str().unwrap(),
        "--summary",
        summary.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.pcap") && err.contains("truncated"),
        "{err}"
    );
    assert!(!summary.exists());
}

/// `--unit message`: every IEX message is its own timed unit for every format, checked exactly as
/// packets are; `packets` keeps counting IEX-TP packets and `units` says what the percentiles rest
/// on (the messages less the warm-up). Synthetic days of both feeds, then the bundled sample in
/// both units.
#[test]
fn every_message_can_be_its_own_unit() {
    let dir = tempfile::tempdir().unwrap();
    let read = |csv: &std::path::Path| -> Vec<csv::StringRecord> {
        let mut reader = csv::Reader::from_path(csv).unwrap();
        assert_eq!(
            reader.headers().unwrap().iter().collect::<Vec<_>>(),
            COLUMNS
        );
        reader.records().map(|r| r.unwrap()).collect()
    };
    let col = |r: &csv::StringRecord, c: &str| {
        r[COLUMNS.iter().position(|x| *x == c).unwrap()].to_owned()
    };
    for (name, feed) in [("deep", Feed::Deep), ("tops", Feed::Tops)] {
        let opts = GenOptions {
            feed,
            packets: 3_000,
            seed: 5,
            symbols: 50,
            ..GenOptions::default()
        };
        let input = dir.path().join(format!("{name}.pcapng"));
        gen::generate_file(&opts, &input).unwrap();
        let (expected, messages) = expected_summary(&opts);
        let (csv, summary) = (
            dir.path().join(format!("{name}.csv")),
            dir.path().join(format!("{name}-summary.csv")),
        );
        let table = shootout_ok(&[
            "run",
            input.to_str().unwrap(),
            "--unit",
            "message",
            "--timing",
            "both",
            "--verify",
            "--no-stored-size",
            "--warmup",
            "500",
            "--csv",
            csv.to_str().unwrap(),
            "--summary",
            summary.to_str().unwrap(),
        ]);
        assert!(
            table.contains(&format!(
                "every window timed both ways: {} messages timed one by one and again in whole \
                 windows",
                messages - 500
            )),
            "{table}"
        );
        // The aggregation every format agreed on is the same whatever the unit.
        assert_eq!(
            std::fs::read_to_string(&summary).unwrap(),
            expected,
            "{name}"
        );
        // One row per format over every message type, and beside each per-unit format's its
        // rows by type (tests/it/by_type.rs), whose units add up to its own.
        let (rows, by_type): (Vec<_>, Vec<_>) = read(&csv)
            .into_iter()
            .partition(|r| col(r, "msg_type").is_empty());
        assert_eq!(rows.len(), rows_of_every_format().len());
        // (A positive control times a window with one unit in 20 repeated: more by type.)
        let plain = |r: &&csv::StringRecord| col(r, "planted").parse().unwrap_or(0.0) == 0.0;
        for r in rows
            .iter()
            .filter(|r| col(r, "latency_note").is_empty())
            .filter(plain)
        {
            let of_format = by_type
                .iter()
                .filter(|t| col(t, "format") == col(r, "format"));
            let units: u64 = of_format
                .map(|t| col(t, "units").parse::<u64>().unwrap())
                .sum();
            assert_eq!(units.to_string(), col(r, "units"), "{}", col(r, "format"));
        }
        for r in &rows {
            assert_eq!(col(r, "unit"), "message");
            assert_eq!(col(r, "timing"), "both");
            // A window format times no unit on its own (its latency_note says so).
            let one_by_one = match col(r, "latency_note").is_empty() {
                true => messages - 500,
                false => 0,
            };
            assert_eq!(col(r, "units"), one_by_one.to_string());
            assert_eq!(col(r, "batch_units"), (messages - 500).to_string());
            assert_eq!(col(r, "packets"), "3000");
            assert_eq!(col(r, "messages"), messages.to_string());
        }
    }

    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/data/sample-deep.pcapng.gz");
    let csv = dir.path().join("sample.csv");
    // A packet format and the window format: the default timing's split is the harness's, the
    // same for every format (each meets the per-message unit above).
    let table = shootout_ok(&[
        "run",
        sample,
        "--unit",
        "message",
        "--no-stored-size",
        "--formats",
        "raw,arrow",
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert!(table.contains("121655 messages each way"), "{table}");
    // Alternate timing, the default: the first window (4096 units) both ways, then each window
    // one way in turn.
    let split = |r: &csv::StringRecord| {
        let n = |c| col(r, c).parse::<u64>().unwrap();
        assert!(n("units") > 4096 && n("batch_units") > 4096);
        assert_eq!(col(r, "timing"), "alternate");
        n("units") + n("batch_units") - 4096
    };
    for r in read(&csv).iter().filter(|r| col(r, "msg_type").is_empty()) {
        if !col(r, "latency_note").is_empty() {
            // A window format: timed whole in every window, never one unit at a time.
            assert_eq!(
                (col(r, "units"), col(r, "packets")),
                ("0".into(), "50000".into())
            );
            assert!(col(r, "batch_units").parse::<u64>().unwrap() > 100_000);
            continue;
        }
        assert_eq!(
            (col(r, "unit"), split(r), col(r, "packets")),
            ("message".into(), 121655, "50000".into())
        );
    }
    let formats: Vec<String> = read(&csv).iter().map(|r| col(r, "format")).collect();
    assert!(formats.contains(&"raw".into()) && formats.contains(&"arrow".into()));
    // The same real-shaped sample per packet, the default: one unit per IEX-TP packet.
    let csv = dir.path().join("sample-packets.csv");
    shootout_ok(&[
        "run",
        sample,
        "--no-stored-size",
        "--formats",
        "raw,arrow",
        "--csv",
        csv.to_str().unwrap(),
    ]);
    for r in read(&csv).iter().filter(|r| col(r, "msg_type").is_empty()) {
        if !col(r, "latency_note").is_empty() {
            // A window format: timed whole in every window, never one unit at a time.
            assert_eq!(
                (col(r, "units"), col(r, "packets")),
                ("0".into(), "50000".into())
            );
            continue;
        }
        assert_eq!(
            (col(r, "unit"), split(r), col(r, "packets")),
            ("packet".into(), 50000, "50000".into())
        );
    }
}

/// The size as stored from a sample of windows (the default) against every window compressed:
/// which windows the sample took, and how close its estimate is.
#[test]
fn stored_size_from_a_sample_is_close_to_compressing_every_window() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("day.pcapng");
    let opts = GenOptions {
        packets: 6_000,
        ..GenOptions::default()
    };
    gen::generate_file(&opts, &input).unwrap();
    let run = |mode: &[&str], name: &str| -> Vec<HashMap<String, String>> {
        let csv_path = dir.path().join(name);
        let mut args = vec![
            "run",
            input.to_str().unwrap(),
            "--formats",
            "sbe,json",
            // The twin's windows are not compressed: nothing to compare.
            "--twins",
            "none",
            // 6,000 packets in windows of 50: 120 windows, of which the sample takes the first
            // 16, then about one in 16 (a hash of the window's place).
            "--window",
            "50",
            "--csv",
            csv_path.to_str().unwrap(),
        ];
        args.extend(mode);
        let text = shootout_ok(&args);
        let mut rows = csv_rows(&csv_path);
        rows.iter_mut().for_each(|r| {
            r.insert("table".into(), text.clone());
        });
        rows
    };
    let num = |r: &HashMap<String, String>, c: &str| r[c].parse::<f64>().unwrap();
    let sample = run(&[], "sample.csv");
    let all = run(&["--stored-size", "all"], "all.csv");
    for (s, a) in sample.iter().zip(&all) {
        assert_eq!(
            (s["stored_mode"].as_str(), a["stored_mode"].as_str()),
            ("sample", "all")
        );
        // Every window compressed rests on every encoded byte; the sample on 23 windows of 120.
        assert_eq!(num(a, "stored_sampled_bytes"), num(a, "encoded_bytes"));
        let share = num(s, "stored_sampled_bytes") / num(s, "encoded_bytes");
        assert!(
            (0.1..0.3).contains(&share),
            "{} sampled {share}",
            s["format"]
        );
        for c in ["zstd_bytes", "zlib_bytes"] {
            let error = (num(s, c) / num(a, c) - 1.0).abs();
            // Seven strided windows of 50 packets stand for 104: a few percent at most (on the
            // sample and the full day the estimate is far closer: docs/BENCHMARKS.md).
            assert!(
                error < 0.08,
                "{} {c}: sample {} vs all {}",
                s["format"],
                s[c],
                a[c]
            );
        }
    }
    assert!(sample[0]["table"].contains("size as stored: a sample of windows"));
    // Where the time went, pass by pass.
    assert!(sample[0]["table"].contains("timed work by pass (s, all formats): per packet ser "));
    assert!(all[0]["table"]
        .contains("the sample alone would have estimated every format's size as stored within"));

    // The older flag still works, and cannot be mixed with the new one.
    let none = run(&["--no-stored-size"], "none.csv");
    assert_eq!(none[0]["stored_mode"], "none");
    assert_eq!(none[0]["stored_sampled_bytes"], "");
    let out = shootout(&[
        "run",
        input.to_str().unwrap(),
        "--no-stored-size",
        "--stored-size",
        "all",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be used with"));
}

/// The progress a run reports: the file's bytes read (compressed bytes for a gzip'd file, so an
/// ETA holds for both) and messages parsed, both rising to the whole input.
#[test]
fn progress_counts_the_files_bytes_and_the_messages() {
    let sample = std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/sample-deep.pcapng.gz"
    ));
    let config = md_shootout::measure::Config {
        formats: Some(vec!["raw".into()]),
        stored: md_shootout::measure::stored::StoredMode::None,
        ..Default::default()
    };
    let mut ticks = Vec::new();
    let o = md_shootout::measure::file::run_file_with(sample, &config, false, |t| ticks.push(t))
        .unwrap();
    // One per window: 13 of 4096 packets, and one more where a chunk boundary (every 4 MiB of
    // the 9.8 MB stream) cuts a window short.
    assert!((14..=15).contains(&ticks.len()), "{}", ticks.len());
    assert!(ticks
        .windows(2)
        .all(|w| w[0].file_bytes <= w[1].file_bytes && w[0].messages < w[1].messages));
    let last = ticks.last().unwrap();
    assert_eq!(last.messages, o.messages);
    assert_eq!(last.file_bytes, std::fs::metadata(sample).unwrap().len());
    assert!(ticks[0].file_bytes < last.file_bytes);
}

/// No timed pass of a format that allocates nothing there, nor the memcpy floor, takes a page
/// fault on a generated day: every buffer was written before it was timed (`measure::memory`),
/// from the first window on. A format that allocates in its timed code (buffa's views, a `Box`
/// per message; counted in the same run) may fault where its allocator grows the heap: the
/// report calls that the format's own cost (`WarningKind::OwnFaults`), and so does this test
/// (buffa took 36 in one fresh-clone run of 2026-11-30).
#[test]
fn no_timed_pass_takes_a_page_fault() {
    if md_shootout::sys::thread_usage().is_none() {
        eprintln!("skipped: this OS does not count a thread's page faults");
        return;
    }
    for feed in [Feed::Deep, Feed::DeepPlus] {
        let mut bytes = Vec::new();
        let opts = GenOptions {
            packets: 12_000,
            feed,
            ..GenOptions::default()
        };
        gen::generate(&opts, &mut bytes).unwrap();
        let config = Config {
            stored: StoredMode::None,
            ..Config::default()
        };
        let o = measure::run(IexReader::new(&bytes[..], false).unwrap(), &config, |_| {}).unwrap();
        assert!(o.units_recorded > 0 && o.units_batch > 0);
        // A window format's arrays are allocated per window inside its timed encode (arrow's
        // builders: measured, a finding), and fresh pages come with them: its faults are in
        // its CSV row (timed_faults), not the harness's doing.
        let allocates = |f: &&md_shootout::measure::stats::FormatResult| {
            let per_unit = f.allocations.and_then(|a| a.per_unit());
            per_unit
                .expect("counted")
                .0
                .iter()
                .any(|w| w.allocations > 0.0)
        };
        let faulted: Vec<_> = o
            .formats
            .iter()
            .filter(|f| {
                f.timed_faults > 0
                    && !md_shootout::formats::descriptor(f.name)
                        .is_some_and(|d| d.per_window_only())
                    && !allocates(f)
            })
            .map(|f| (f.name, f.timed_faults))
            .collect();
        assert!(faulted.is_empty(), "{feed:?}: {faulted:?}");
        // The rule has formats on both sides of it: most allocate nothing once warm.
        let quiet = o.formats.iter().filter(|f| !allocates(f)).count();
        assert!(quiet > 15 && quiet < o.formats.len(), "{feed:?}: {quiet}");
        assert_eq!(o.memcpy_faults, 0, "{feed:?}");
        assert_eq!(o.aggregate_faults, 0, "{feed:?}");
    }
}
