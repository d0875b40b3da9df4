//! The corrupt-input suite: real captures broken the ways downloads and disks break them. Every
//! case runs the real binary; each must give a non-zero exit, one line naming the file and where,
//! no panic, and leave no output file behind (or, with `--lenient`, count what it skipped).

use std::path::{Path, PathBuf};

use md_shootout::capture::CaptureKind;
use md_shootout::gen::{self, GenOptions};

use crate::common::{pcap_records, pcapng_blocks, shootout};

fn generated(kind: CaptureKind) -> Vec<u8> {
    let opts = GenOptions {
        capture: kind,
        packets: 40,
        seed: 3,
        symbols: 10,
        ..GenOptions::default()
    };
    let mut bytes = Vec::new();
    gen::generate(&opts, &mut bytes).unwrap();
    bytes
}

struct Case {
    name: String,
    bytes: Vec<u8>,
}

/// `run` with every output option on the broken file: must fail cleanly and write nothing.
fn assert_fails_cleanly(dir: &Path, case: &Case) {
    let input = dir.join(format!("{}.pcap", case.name));
    std::fs::write(&input, &case.bytes).unwrap();
    let out_dir = dir.join(format!("out-{}", case.name));
    std::fs::create_dir_all(&out_dir).unwrap();
    let csv = out_dir.join("runs.csv");
    let summary = out_dir.join("summary.csv");
    let hist = out_dir.join("hist");
    for args in [
        vec!["inspect", input.to_str().unwrap()],
        vec![
            "run",
            input.to_str().unwrap(),
            "--csv",
            csv.to_str().unwrap(),
            "--summary",
            summary.to_str().unwrap(),
            "--hist-dir",
            hist.to_str().unwrap(),
            "--formats",
            "sbe,capnp-packed",
        ],
    ] {
        let out = shootout(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{}: {args:?}: {stderr}",
            case.name
        );
        assert!(!stderr.contains("panicked"), "{}: {stderr}", case.name);
        assert_eq!(
            stderr.trim_end().lines().count(),
            1,
            "{}: {stderr}",
            case.name
        );
        let parts: Vec<&str> = stderr.trim_end().split(": ").collect();
        let mut seen = std::collections::HashSet::new();
        assert!(
            parts.iter().all(|p| seen.insert(*p)),
            "{}: repeats itself: {stderr}",
            case.name
        );
        assert!(
            stderr.contains(input.to_str().unwrap()),
            "{}: names the file: {stderr}",
            case.name
        );
        assert!(
            stderr.contains("byte") || stderr.contains("packet"),
            "{}: says where: {stderr}",
            case.name
        );
    }
    let left: Vec<PathBuf> = std::fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(
        left.is_empty(),
        "{}: output left behind: {left:?}",
        case.name
    );
}

#[test]
fn truncations_at_every_structural_boundary() {
    let dir = tempfile::tempdir().unwrap();
    let pcap = generated(CaptureKind::Pcap);
    let records = pcap_records(&pcap);
    let r = records[3];
    let ng = generated(CaptureKind::Pcapng);
    let blocks = pcapng_blocks(&ng);
    let b = blocks[5];
    // Within a record or EPB: the frame starts at +16 (pcap) / +28 (EPB); Ethernet 14, IPv4 20,
    // UDP 8, then the 40-byte IEX-TP header and the messages.
    let cuts = [
        ("pcap-mid-global-header", pcap[..13].to_vec()),
        ("pcap-mid-record-header", pcap[..r + 7].to_vec()),
        ("pcap-mid-frame-headers", pcap[..r + 16 + 20].to_vec()),
        ("pcap-mid-iex-header", pcap[..r + 16 + 42 + 17].to_vec()),
        ("pcap-mid-message", pcap[..r + 16 + 42 + 40 + 5].to_vec()),
        ("pcapng-mid-shb", ng[..20].to_vec()),
        ("pcapng-mid-block-header", ng[..b + 6].to_vec()),
        ("pcapng-mid-iex-header", ng[..b + 28 + 42 + 10].to_vec()),
        ("pcapng-mid-message", ng[..b + 28 + 42 + 40 + 3].to_vec()),
        ("pcapng-before-trailer", ng[..blocks[6] - 2].to_vec()),
    ];
    for (name, bytes) in cuts {
        assert_fails_cleanly(
            dir.path(),
            &Case {
                name: name.into(),
                bytes,
            },
        );
    }
}

#[test]
fn truncations_at_random_offsets() {
    let dir = tempfile::tempdir().unwrap();
    let ng = generated(CaptureKind::Pcapng);
    let blocks = pcapng_blocks(&ng);
    let mut rng = fastrand::Rng::with_seed(42);
    let mut tried = 0;
    while tried < 12 {
        let cut = rng.usize(1..ng.len());
        if blocks.contains(&cut) {
            continue; // a cut on a block boundary is a valid, shorter file
        }
        tried += 1;
        let case = Case {
            name: format!("random-cut-{cut}"),
            bytes: ng[..cut].to_vec(),
        };
        assert_fails_cleanly(dir.path(), &case);
    }
}

#[test]
fn bit_flips_in_length_fields() {
    let dir = tempfile::tempdir().unwrap();
    let pcap = generated(CaptureKind::Pcap);
    let r = pcap_records(&pcap)[2];
    let ng = generated(CaptureKind::Pcapng);
    let b = pcapng_blocks(&ng)[4];
    let flip = |file: &[u8], at: usize, bit: u8| {
        let mut f = file.to_vec();
        f[at] ^= bit;
        f
    };
    let cases = [
        // pcap incl_len: the record claims more than the file holds.
        ("pcap-incl-len", flip(&pcap, r + 8 + 2, 0x40)),
        // pcapng block length, leading copy: disagrees with the trailing one.
        ("pcapng-block-len", flip(&ng, b + 4, 0x04)),
        // IPv4 total length larger than the frame.
        ("ipv4-total-len", flip(&pcap, r + 16 + 14 + 2, 0x08)),
        // IEX-TP payload length.
        ("iex-payload-len", flip(&pcap, r + 16 + 42 + 12, 0x01)),
        // The first message's length prefix.
        ("iex-message-len", flip(&pcap, r + 16 + 42 + 40, 0x80)),
    ];
    for (name, bytes) in cases {
        assert_fails_cleanly(
            dir.path(),
            &Case {
                name: name.into(),
                bytes,
            },
        );
    }
}

#[test]
fn pcapng_byte_order_change_without_a_section_header() {
    let dir = tempfile::tempdir().unwrap();
    let ng = generated(CaptureKind::Pcapng);
    let b = pcapng_blocks(&ng)[3];
    let mut bytes = ng.clone();
    // Re-write one EPB's lengths big-endian inside a little-endian section.
    let len = u32::from_le_bytes(bytes[b + 4..b + 8].try_into().unwrap());
    bytes[b + 4..b + 8].copy_from_slice(&len.to_be_bytes());
    assert_fails_cleanly(
        dir.path(),
        &Case {
            name: "byte-order-flip".into(),
            bytes,
        },
    );
}

#[test]
fn lenient_counts_malformed_segments_and_succeeds() {
    let dir = tempfile::tempdir().unwrap();
    let pcap = generated(CaptureKind::Pcap);
    let records = pcap_records(&pcap);
    let mut bytes = pcap.clone();
    for &r in &records[5..8] {
        bytes[r + 16 + 42 + 40] ^= 0x80; // three segments with a bad message length
    }
    let input = dir.path().join("three-bad.pcap");
    std::fs::write(&input, &bytes).unwrap();
    let out = shootout(&["inspect", "--lenient", "--json", input.to_str().unwrap()]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["skipped"]["malformed_segments"], 3);
    assert_eq!(v["packets"], 40 - 3);
    let out = shootout(&[
        "run",
        "--lenient",
        "--formats",
        "sbe",
        input.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("37 packets"));
}

#[test]
fn gzip_damage_empty_files_directories_and_strangers() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let ng = generated(CaptureKind::Pcapng);
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(&ng).unwrap();
    let gz = enc.finish().unwrap();
    let mut bad_crc = gz.clone();
    let n = bad_crc.len();
    bad_crc[n - 7] ^= 0x10;
    let cases = [
        ("gzip-cut", gz[..gz.len() / 2].to_vec()),
        ("gzip-bad-crc", bad_crc),
        ("empty", Vec::new()),
        ("a-png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec()),
    ];
    for (name, bytes) in cases {
        assert_fails_cleanly(
            dir.path(),
            &Case {
                name: name.into(),
                bytes,
            },
        );
    }
    let out = shootout(&["run", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is a directory"));
}

#[test]
fn resource_bounds_hold_against_lying_lengths() {
    let dir = tempfile::tempdir().unwrap();
    let ng = generated(CaptureKind::Pcapng);
    let b = pcapng_blocks(&ng)[4];
    // A block claiming 4 GB.
    let mut huge_block = ng.clone();
    huge_block[b + 4..b + 8].copy_from_slice(&0xffff_fff0u32.to_le_bytes());
    // A pcap record claiming a 4 GB frame.
    let pcap = generated(CaptureKind::Pcap);
    let r = pcap_records(&pcap)[2];
    let mut huge_record = pcap.clone();
    huge_record[r + 8..r + 12].copy_from_slice(&u32::MAX.to_le_bytes());
    // A segment announcing 65535 messages in a few bytes.
    let mut many = pcap.clone();
    many[r + 16 + 42 + 14..r + 16 + 42 + 16].copy_from_slice(&u16::MAX.to_le_bytes());
    for (name, bytes, expect) in [
        ("pcapng-4gb-block", huge_block, "over the"),
        ("pcap-4gb-record", huge_record, "over the"),
        ("65535-messages", many, "message"),
    ] {
        let case = Case {
            name: name.into(),
            bytes,
        };
        assert_fails_cleanly(dir.path(), &case);
        let input = dir.path().join(format!("{name}.pcap"));
        let out = shootout(&["inspect", input.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(expect), "{name}: {stderr}");
    }
}
