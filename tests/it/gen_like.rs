//! `inspect`'s profile and `gen --like`: the profile of a capture built byte by byte here equals
//! figures worked out by hand, and a capture generated like a real one has its shape.

use std::path::{Path, PathBuf};

use crate::common::*;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join(name)
}

fn inspect_json(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["inspect", "--json"];
    all.extend(args);
    let out = shootout(&all);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The three most common types of an `inspect --json` report, as a sorted set (ties make the
/// order within the three arbitrary).
fn top3(v: &serde_json::Value) -> Vec<String> {
    let mut types: Vec<(String, u64)> = v["by_type"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, n)| (k.clone(), n.as_u64().unwrap()))
        .collect();
    types.sort_by_key(|t| std::cmp::Reverse(t.1));
    let mut top: Vec<String> = types.into_iter().take(3).map(|(k, _)| k).collect();
    top.sort();
    top
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn profile_of_a_hand_built_capture() {
    let sys = {
        let mut m = vec![b'S', b'O'];
        m.extend(TS.to_le_bytes());
        m
    };
    let status: Vec<u8> = head(b'H', b'T', TS, "ZIEXT")
        .into_iter()
        .chain(*b"    ")
        .collect();
    // Send-time gaps 100, 0, 1000 and 2000 ns; 2, 3, 0, 1 and 2 messages.
    let segments = [
        segment(0x8004, 1, TS, &[sys, status]),
        segment(
            0x8004,
            3,
            TS + 100,
            &[
                price_level(b'8', "AAPL", 100, 990_500),
                price_level(b'5', "AAPL", 200, 990_700),
                trade(b'T', 0, "AAPL", 100, 990_500, 1),
            ],
        ),
        segment(0x8004, 6, TS + 100, &[]),
        segment(0x8004, 6, TS + 1100, &[trade(b'T', 0, "MSFT", 5, 10, 2)]),
        segment(
            0x8004,
            7,
            TS + 3100,
            &[
                trade(b'T', 0, "AAPL", 5, 10, 3),
                trade(b'B', 0, "IBM", 5, 10, 4),
            ],
        ),
    ];
    let frames: Vec<Vec<u8>> = segments.iter().map(|s| udp_frame(s, 0)).collect();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("hand.pcapng");
    std::fs::write(&file, pcapng_section(Order::Little, &frames)).unwrap();
    let v = inspect_json(&[file.to_str().unwrap()]);
    let p = &v["profile"];

    let m = &p["messages_per_packet"];
    // 8 messages in 5 packets; sorted counts 0 1 2 2 3: the 3rd (p50) is 2, the 5th (p90, p99)
    // is 3.
    assert!(close(m["mean"].as_f64().unwrap(), 1.6));
    assert_eq!(
        (&m["p50"], &m["p90"], &m["p99"], &m["max"]),
        (&2.into(), &3.into(), &3.into(), &3.into())
    );
    assert_eq!(
        m["histogram"],
        serde_json::json!({"0": 1, "1": 1, "2": 2, "3": 1})
    );
    assert!(close(p["heartbeat_share"].as_f64().unwrap(), 0.2));

    let share = &p["type_share"];
    for (k, n) in [
        ("S", 1.0),
        ("H", 1.0),
        ("8", 1.0),
        ("5", 1.0),
        ("T", 3.0),
        ("B", 1.0),
    ] {
        assert!(close(share[k].as_f64().unwrap(), n / 8.0), "{k}: {share}");
    }
    assert_eq!(share.as_object().unwrap().len(), 6);
    // Spec sizes: S 10, H 22, 8 and 5 30, T and B 38.
    let bytes = &p["message_bytes"];
    assert!(close(
        bytes["mean"].as_f64().unwrap(),
        (10.0 + 22.0 + 60.0 + 4.0 * 38.0) / 8.0
    ));
    assert!(close(bytes["by_type"]["T"].as_f64().unwrap(), 38.0));
    assert!(close(bytes["by_type"]["H"].as_f64().unwrap(), 22.0));

    // Trading messages (8, 5, T, B): AAPL 4, MSFT 1, IBM 1.
    let t = &p["trading"];
    assert_eq!((&t["messages"], &t["symbols"]), (&6.into(), &3.into()));
    assert!(close(t["top1_share"].as_f64().unwrap(), 4.0 / 6.0));
    assert!(close(t["top10_share"].as_f64().unwrap(), 1.0));
    assert!(close(t["hhi"].as_f64().unwrap(), (16.0 + 1.0 + 1.0) / 36.0));
    // The maximum-likelihood Zipf exponent s makes the law's mean log rank over ranks 1..=3
    // equal the observed one, (4 ln 1 + ln 2 + ln 3) / 6.
    let s = t["zipf_exponent"].as_f64().unwrap();
    let w: Vec<f64> = (1..=3).map(|r| (r as f64).powf(-s)).collect();
    let law = (w[1] * 2f64.ln() + w[2] * 3f64.ln()) / w.iter().sum::<f64>();
    assert!((law - (2f64.ln() + 3f64.ln()) / 6.0).abs() < 1e-6, "s {s}");

    // Gaps 100, 0, 1000, 2000: nearest-rank p50 100, p90 and p99 2000; mean 775; standard
    // deviation sqrt(5010000 / 4 - 775^2).
    let g = &p["send_gaps"];
    assert_eq!(
        (&g["p50_ns"], &g["p90_ns"], &g["p99_ns"], &g["max_ns"]),
        (&100.into(), &2000.into(), &2000.into(), &2000.into())
    );
    assert!(close(g["mean_ns"].as_f64().unwrap(), 775.0));
    let cv = (5_010_000.0f64 / 4.0 - 775.0 * 775.0).sqrt() / 775.0;
    assert!((g["cv"].as_f64().unwrap() - cv).abs() < 1e-9);
    assert!(close(g["within_1us_share"].as_f64().unwrap(), 0.75));
    assert_eq!(g["backwards"], 0);

    // The text report carries the same figures.
    let out = shootout(&["inspect", file.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("per packet  1.60 messages (p50 2, p90 3, p99 3, max 3), 20.0% heartbeats"),
        "{text}"
    );
    assert!(text.contains("mix         T 37.5%, 5 12.5%"), "{text}");
}

/// `gen --like` of a real capture: messages per packet within 15% of the real one (the real
/// figures are data/README.md's counts, made outside this code), the same three most common
/// types, every symbol of the real one's status messages, and a spec-valid file (`inspect`
/// reads it without a skip, a gap or a duplicate).
fn like_real(name: &str, real_messages: f64, real_packets: f64, lenient: bool) {
    let real = data(name);
    let real = real.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out_file = dir.path().join("like.pcapng");
    let out_file = out_file.to_str().unwrap();
    let mut args = vec![
        "gen",
        "--like",
        real,
        "--packets",
        "20000",
        "--out",
        out_file,
    ];
    if lenient {
        args.push("--lenient");
    }
    let out = shootout(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let real_v = if lenient {
        inspect_json(&["--lenient", real])
    } else {
        inspect_json(&[real])
    };
    let like = inspect_json(&[out_file]);
    assert_eq!(like["packets"], 20_000);
    assert_eq!(like["feed"], real_v["feed"]);
    for k in ["gaps", "duplicates", "restarts", "unknown"] {
        assert_eq!(like[k], 0, "{k}");
    }
    assert_eq!(like["skipped"]["malformed_segments"], 0);
    let per_packet = like["messages"].as_f64().unwrap() / 20_000.0;
    let real_per_packet = real_messages / real_packets;
    assert!(
        (per_packet / real_per_packet - 1.0).abs() < 0.15,
        "{name}: {per_packet:.3} messages per packet, real {real_per_packet:.3}"
    );
    assert_eq!(top3(&like), top3(&real_v), "{name}");
    let heartbeats = like["profile"]["heartbeat_share"].as_f64().unwrap();
    let real_heartbeats = real_v["profile"]["heartbeat_share"].as_f64().unwrap();
    assert!(
        (heartbeats - real_heartbeats).abs() < 0.02,
        "{heartbeats} {real_heartbeats}"
    );
}

#[test]
fn gen_like_real_tops() {
    // 99,871 messages in 57,719 packets; the three most common types Q, T, H.
    like_real("20180127_IEXTP1_TOPS1.6.pcap.gz", 99_871.0, 57_719.0, false);
}

#[test]
fn gen_like_real_deep_cut_short() {
    // 391,999 messages in the 121,314 whole packets; its end is cut short: --lenient.
    like_real("DEEP10.pcap.gz", 391_999.0, 121_314.0, true);
    let out = shootout(&[
        "gen",
        "--like",
        data("DEEP10.pcap.gz").to_str().unwrap(),
        "--out",
        "/nonexistent/never-written.pcapng",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--lenient reads them"));
}

#[test]
fn gen_like_is_deterministic_for_a_seed() {
    let real = data("20180127_IEXTP1_TOPS1.6.pcap.gz");
    let dir = tempfile::tempdir().unwrap();
    let run = |seed: &str, name: &str| {
        let file = dir.path().join(name);
        let out = shootout(&[
            "gen",
            "--like",
            real.to_str().unwrap(),
            "--packets",
            "3000",
            "--seed",
            seed,
            "--out",
            file.to_str().unwrap(),
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::read(file).unwrap()
    };
    let a = run("7", "a.pcapng");
    assert!(a == run("7", "b.pcapng"), "same seed, different bytes");
    assert!(a != run("8", "c.pcapng"), "another seed, the same bytes");
}

#[test]
fn gen_like_refuses_options_that_conflict() {
    let real = data("20180127_IEXTP1_TOPS1.6.pcap.gz");
    let real = real.to_str().unwrap();
    for extra in [["--feed", "deep"], ["--symbols", "10"]] {
        let mut args = vec!["gen", "--like", real, "--out", "/nonexistent/x.pcapng"];
        args.extend(extra);
        let out = shootout(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains("--like") && err.contains(extra[0]), "{err}");
    }
    let out = shootout(&["gen", "--lenient", "--out", "/nonexistent/x.pcapng"]);
    assert_eq!(out.status.code(), Some(2));
    // A TOPS day has no preset size, with or without --like.
    let out = shootout(&[
        "gen",
        "--like",
        real,
        "--day",
        "--out",
        "/nonexistent/x.pcapng",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("--day has no preset for tops"), "{err}");
}
