//! Bad input through the real binary: one clear line naming the file and where, a non-zero
//! exit, and never a panic.

use std::io::Write;
use std::path::Path;

use crate::common::{deep_segments, pcapng_section, udp_frame, Order};

use crate::common::shootout;

fn good_file() -> Vec<u8> {
    let frames: Vec<_> = deep_segments().iter().map(|s| udp_frame(s, 0)).collect();
    pcapng_section(Order::Little, &frames)
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

/// Runs `inspect` on `bytes` written to a file and checks the failure is one clear line that
/// names the file and contains every `expect`ed fragment.
fn assert_fails(bytes: &[u8], expect: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("input.bin");
    std::fs::write(&path, bytes).unwrap();
    assert_fails_at(&path, expect);
}

fn assert_fails_at(path: &Path, expect: &[&str]) {
    let out = shootout(&["inspect", path.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "should fail: {stderr}");
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    let parts: Vec<&str> = stderr.trim_end().split(": ").collect();
    let mut seen = std::collections::HashSet::new();
    assert!(
        parts.iter().all(|p| seen.insert(*p)),
        "repeats itself: {stderr}"
    );
    assert!(
        stderr.contains(path.to_str().unwrap()),
        "names the file: {stderr}"
    );
    for fragment in expect {
        assert!(
            stderr.contains(fragment),
            "{fragment:?} missing in: {stderr}"
        );
    }
}

#[test]
fn empty_file() {
    assert_fails(b"", &["empty file"]);
}

#[test]
fn not_a_capture() {
    assert_fails(b"hello, world\n", &["not a pcap or pcapng", "68 65 6c 6c"]);
}

#[test]
fn nonexistent_path_and_directory() {
    let dir = tempfile::tempdir().unwrap();
    assert_fails_at(&dir.path().join("missing.pcap"), &["no such file"]);
    assert_fails_at(dir.path(), &["is a directory"]);
}

#[test]
fn truncated_mid_block() {
    let file = good_file();
    let cut = file.len() - 10;
    assert_fails(
        &file[..cut],
        &[
            "capture cut short",
            "ends inside packet 4 (pcapng enhanced packet block at byte ",
            "the 3 packets before it are whole and --lenient reads them",
        ],
    );
}

#[test]
fn truncated_and_corrupt_gzip() {
    let gz = gzip(&good_file());
    assert_fails(
        &gz[..gz.len() / 2],
        &["gzip stream ends early", "compressed"],
    );
    let mut bad_crc = gz.clone();
    let n = bad_crc.len();
    bad_crc[n - 6] ^= 0xff;
    assert_fails(&bad_crc, &["corrupt gzip", "decompressed byte"]);
}

#[test]
fn frame_shorter_than_its_headers() {
    let segs = deep_segments();
    let mut frame = udp_frame(&segs[1], 0);
    frame.truncate(30); // inside the IPv4 header
    let mut file = pcapng_section(Order::Little, &[udp_frame(&segs[0], 0)]);
    file.extend(crate::common::epb(Order::Little, 5, &frame));
    assert_fails(&file, &["malformed frame", "(packet 2)", "cut off"]);
}

#[test]
fn message_length_past_the_end_of_its_segment() {
    let segs = deep_segments();
    let mut seg = segs[1].clone();
    seg[40] = 200; // first message's length prefix
    let file = pcapng_section(Order::Little, &[udp_frame(&segs[0], 0), udp_frame(&seg, 0)]);
    assert_fails(
        &file,
        &["bad IEX-TP segment", "(packet 2)", "claims 200 bytes"],
    );
}

#[test]
fn lenient_skips_and_counts_malformed_segments() {
    let segs = deep_segments();
    let mut seg = segs[1].clone();
    seg[40] = 200;
    let file = pcapng_section(Order::Little, &[udp_frame(&segs[0], 0), udp_frame(&seg, 0)]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.pcapng");
    std::fs::write(&path, file).unwrap();
    let out = shootout(&["inspect", "--lenient", "--json", path.to_str().unwrap()]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["skipped"]["malformed_segments"], 1);
    assert_eq!(v["packets"], 1);
}

#[test]
fn json_report_has_the_promised_keys_and_values() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("day.pcapng.gz");
    std::fs::write(&path, gzip(&good_file())).unwrap();
    let out = shootout(&["inspect", "--json", path.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["packets"], 4);
    assert_eq!(v["heartbeats"], 1);
    assert_eq!(v["messages"], 6);
    assert_eq!(v["by_type"]["T"], 1);
    assert_eq!(v["by_type"]["8"], 1);
    assert_eq!(v["by_type"]["5"], 1);
    assert_eq!(v["by_type"]["B"], 1);
    assert_eq!(v["unknown"], 0);
    assert_eq!(v["gaps"], 0);
    assert_eq!(v["symbols"], 2);
    assert_eq!(v["feed"], "deep");
    assert_eq!(v["compression"], "gzip");
    assert_eq!(v["capture"], "pcapng");
    assert_eq!(v["first_send_time"], crate::common::TS);
}

#[test]
fn gaps_are_reported() {
    let segs = deep_segments();
    // Drop the second segment (3 messages): seq jumps from 3 to 6.
    let frames = [udp_frame(&segs[0], 0), udp_frame(&segs[3], 0)];
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gap.pcapng");
    std::fs::write(&path, pcapng_section(Order::Big, &frames)).unwrap();
    let out = shootout(&["inspect", "--json", path.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["gaps"], 1);
    assert_eq!(v["missing_messages"], 3);
}

/// A warm-up longer than the first chunk of a longer input (within which it is taken) is refused
/// in one line, before any row is written, rather than cut short with nothing said (issue 49);
/// so too under `--jobs`, where the worker holding the first chunk may hold no other (it
/// recorded from the next chunk on, or, with the whole input in one chunk, merged a run that
/// recorded nothing and exited 0).
#[test]
fn a_warm_up_past_the_first_chunk_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("out.csv");
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/data/sample-deep.pcapng.gz");
    for split in [&[][..], &["--jobs", "2"], &["--chunk", "1G", "--jobs", "2"]] {
        let mut args = vec![
            "run",
            sample,
            "--warmup",
            "100000000",
            "--formats",
            "raw",
            "--no-stored-size",
            "--csv",
            csv.to_str().unwrap(),
        ];
        args.extend_from_slice(split);
        let out = shootout(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{split:?}: {stderr}");
        assert_eq!(
            stderr.trim_end().lines().count(),
            1,
            "{split:?}, one line: {stderr}"
        );
        assert!(
            stderr.contains("--warmup 100000000 is longer than the input's first chunk ("),
            "{split:?}: {stderr}"
        );
        assert!(
            stderr.contains("packets), within which the warm-up is taken"),
            "{split:?}: {stderr}"
        );
        assert!(!csv.exists(), "{split:?}: a results file was written");
    }
}

/// A window longer than the input's first chunk is refused in one line (issue 49: a window never
/// spans two chunks, so `--window 65536` ran windows of one chunk each, about 21,000 packets,
/// with nothing said); the same window over one larger chunk is what was asked.
#[test]
fn a_window_longer_than_a_chunk_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("out.csv");
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/data/sample-deep.pcapng.gz");
    let args = |chunk: &'static str| {
        let mut a = vec![
            "run",
            sample,
            "--window",
            "65536",
            "--formats",
            "raw",
            "--twins",
        ];
        a.extend([
            "none",
            "--no-stored-size",
            "--chunk",
            chunk,
            "--csv",
            csv.to_str().unwrap(),
        ]);
        a
    };
    let out = shootout(&args("4M"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(
        stderr.contains("--window 65536 is longer than the input's first chunk ("),
        "{stderr}"
    );
    assert!(!csv.exists(), "a results file was written");
    let out = shootout(&args("1G"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(csv.exists());
}

/// Options under which `run` would measure nothing: one line, exit 1, and no CSV written.
#[test]
fn run_refuses_settings_that_measure_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.pcapng");
    std::fs::write(&input, good_file()).unwrap();
    let csv = dir.path().join("out.csv");
    let packets = deep_segments().len();
    let too_big = (1usize << 20) + 1;
    let cases: [(Vec<String>, String); 4] = [
        (
            vec!["--window".into(), "0".into()],
            "error: --window 0 is out of range: a window holds 1 to 1048576 packets".into(),
        ),
        (
            vec!["--window".into(), too_big.to_string()],
            format!("error: --window {too_big} is out of range"),
        ),
        (
            vec!["--warmup".into(), packets.to_string()],
            format!("--warmup {packets} leaves nothing to record: the input has {packets} packets"),
        ),
        (
            vec!["--formats".into(), "".into()],
            "unknown format \"\"; known: capnp-unpacked,".into(),
        ),
    ];
    for (args, expect) in cases {
        let mut all = vec![
            "run".to_owned(),
            input.to_str().unwrap().to_owned(),
            "--csv".to_owned(),
            csv.to_str().unwrap().to_owned(),
            "--no-stored-size".to_owned(),
        ];
        all.extend(args.iter().cloned());
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        let out = shootout(&all);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
        assert!(
            stderr.contains(&expect),
            "{args:?}: {expect:?} missing in {stderr}"
        );
        assert!(!csv.exists(), "{args:?} left a results file");
    }
}
