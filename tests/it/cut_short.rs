//! Captures cut short at their end (a stopped capture, a cut download), damage that is not, and
//! sequences that start again: each file is built here, so the test knows how many packets are
//! whole, where the cut is and how many bytes of the cut packet are there.

use std::io::Write;
use std::path::{Path, PathBuf};

use md_shootout::capture::CaptureKind;
use md_shootout::gen::{self, GenOptions};

use crate::common::{
    pcap, pcap_records, pcapng_blocks, segment, shootout, trade, udp_frame, Order, TS,
};

const PACKETS: usize = 40;

fn generated(kind: CaptureKind) -> Vec<u8> {
    let opts = GenOptions {
        capture: kind,
        packets: PACKETS as u64,
        seed: 11,
        symbols: 8,
        ..GenOptions::default()
    };
    let mut bytes = Vec::new();
    gen::generate(&opts, &mut bytes).unwrap();
    bytes
}

/// Where each packet's record starts, and where the last one ends.
fn packet_starts(kind: CaptureKind, file: &[u8]) -> Vec<usize> {
    let mut starts = match kind {
        CaptureKind::Pcap => pcap_records(file),
        // The section and interface blocks come first.
        CaptureKind::Pcapng => pcapng_blocks(file)[2..].to_vec(),
    };
    assert_eq!(starts.len(), PACKETS);
    starts.push(file.len());
    starts
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

/// What the cut must be reported as.
struct Cut {
    /// The packet the file ends inside (1-based); the ones before it are whole.
    packet: usize,
    /// Capture offset of that packet's record.
    offset: usize,
    present: usize,
    needed: usize,
    what: &'static str,
    /// A gzip stream missing its end (the gzip'd cases).
    gzip: bool,
}

/// Without `--lenient`: one line naming the file and the cut, exit 1, no results file. With it:
/// every whole packet, one warning naming what was dropped, and `inspect --json` saying so.
fn assert_cut_short(dir: &Path, input: &Path, cut: &Cut) {
    let name = input.to_str().unwrap();
    let whole = cut.packet - 1;
    let csv = dir.join(format!(
        "{}.csv",
        input.file_name().unwrap().to_str().unwrap()
    ));
    let csv = csv.to_str().unwrap();
    let run = ["run", name, "--formats", "sbe,raw", "--csv", csv];
    for args in [&["inspect", name][..], &run[..]] {
        let out = shootout(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        let mut expected = vec![
            name.to_owned(),
            format!("the {whole} packets before it are whole and --lenient reads them"),
        ];
        if cut.present > 0 {
            expected.push(format!(
                "ends inside packet {} ({} at byte {}: {} of its {} bytes are there)",
                cut.packet, cut.what, cut.offset, cut.present, cut.needed
            ));
        }
        if cut.gzip {
            expected.push("gzip stream ends early".into());
        }
        for text in expected {
            assert!(err.contains(&text), "{args:?}: wanted {text:?} in {err}");
        }
        assert!(
            !Path::new(csv).exists(),
            "no results file for a refused input"
        );
    }
    let out = shootout(&["inspect", "--lenient", "--json", name]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let warnings: Vec<&str> = err.lines().filter(|l| l.starts_with("warning: ")).collect();
    assert_eq!(warnings.len(), 1, "{err}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["packets"], whole as u64);
    assert_eq!(v["frames"], whole as u64);
    assert_eq!(v["capture_bytes"], cut.offset as u64);
    let tail = &v["truncated_tail"];
    assert_eq!(tail["packet"], cut.packet as u64);
    assert_eq!(tail["offset"], cut.offset as u64);
    assert_eq!(tail["present"], cut.present as u64);
    assert_eq!(tail["needed"], cut.needed as u64);
    assert_eq!(tail["gzip_compressed_bytes"].is_u64(), cut.gzip, "{tail}");
    let warning = warnings[0];
    assert!(warning.contains(name), "{warning}");
    assert!(
        warning.contains(&format!("read the {whole} whole packets")),
        "{warning}"
    );
    if cut.present > 0 {
        assert!(
            warning.contains(&format!(
                "packet {} ({} at byte {}: {} of its {} bytes are there); dropped those {} bytes",
                cut.packet, cut.what, cut.offset, cut.present, cut.needed, cut.present
            )),
            "{warning}"
        );
    }
    // `run --lenient` measures the whole packets and writes its results.
    let mut lenient_run = vec!["run", "--lenient"];
    lenient_run.extend(&run[1..]);
    let out = shootout(&lenient_run);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(err.matches("warning: ").count(), 1, "{err}");
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with(&format!("{whole} packets")),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // Every row says the input was cut short, and by how many bytes.
    let mut rows = ::csv::Reader::from_path(csv).unwrap();
    let at = rows
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == "dropped_bytes")
        .unwrap();
    let dropped: Vec<String> = rows.records().map(|r| r.unwrap()[at].to_owned()).collect();
    // sbe, raw, their A/A twins and their positive controls.
    assert_eq!(dropped, vec![cut.present.to_string(); 6]);
}

#[test]
fn pcap_cut_inside_a_packet() {
    let dir = tempfile::tempdir().unwrap();
    let file = generated(CaptureKind::Pcap);
    let starts = packet_starts(CaptureKind::Pcap, &file);
    // Inside packet 31's frame, then inside its 16-byte record header.
    let (at, end) = (starts[30], starts[31]);
    let input = write(dir.path(), "frame.pcap", &file[..at + 70]);
    let cut = Cut {
        packet: 31,
        offset: at,
        present: 70,
        needed: end - at,
        what: "pcap record",
        gzip: false,
    };
    assert_cut_short(dir.path(), &input, &cut);
    let input = write(dir.path(), "header.pcap", &file[..at + 9]);
    let cut = Cut {
        present: 9,
        needed: 16,
        what: "pcap record header",
        ..cut
    };
    assert_cut_short(dir.path(), &input, &cut);
}

#[test]
fn pcapng_cut_inside_a_packet() {
    let dir = tempfile::tempdir().unwrap();
    let file = generated(CaptureKind::Pcapng);
    let starts = packet_starts(CaptureKind::Pcapng, &file);
    // The last packet, cut just before its trailing length.
    let (at, end) = (starts[PACKETS - 1], starts[PACKETS]);
    let input = write(dir.path(), "last.pcapng", &file[..end - 2]);
    assert_cut_short(
        dir.path(),
        &input,
        &Cut {
            packet: PACKETS,
            offset: at,
            present: end - 2 - at,
            needed: end - at,
            what: "pcapng enhanced packet block",
            gzip: false,
        },
    );
    // Inside packet 12's block header, before its length is known.
    let at = starts[11];
    let input = write(dir.path(), "block-header.pcapng", &file[..at + 5]);
    assert_cut_short(
        dir.path(),
        &input,
        &Cut {
            packet: 12,
            offset: at,
            present: 5,
            needed: 8,
            what: "pcapng block header",
            gzip: false,
        },
    );
}

#[test]
fn gzip_stream_cut_short() {
    let dir = tempfile::tempdir().unwrap();
    for kind in [CaptureKind::Pcap, CaptureKind::Pcapng] {
        let file = generated(kind);
        let starts = packet_starts(kind, &file);
        let (at, end) = (starts[20], starts[21]);
        // Deflate cut short: compress up to 33 bytes into packet 21, flush (so everything so far
        // can be inflated from what is written), and end the file there.
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(&file[..at + 33]).unwrap();
        enc.flush().unwrap();
        let cut = enc.get_ref().clone();
        let input = write(dir.path(), &format!("deflate-cut-{kind:?}.gz"), &cut);
        let what = match kind {
            CaptureKind::Pcap => "pcap record",
            CaptureKind::Pcapng => "pcapng enhanced packet block",
        };
        assert_cut_short(
            dir.path(),
            &input,
            &Cut {
                packet: 21,
                offset: at,
                present: 33,
                needed: end - at,
                what,
                gzip: true,
            },
        );
        // Every packet inflated, but the gzip end (CRC and size) is missing: the file is still
        // incomplete, and all its packets are whole.
        let gz = gzip(&file);
        let input = write(
            dir.path(),
            &format!("no-trailer-{kind:?}.gz"),
            &gz[..gz.len() - 8],
        );
        assert_cut_short(
            dir.path(),
            &input,
            &Cut {
                packet: PACKETS + 1,
                offset: file.len(),
                present: 0,
                needed: 0,
                what: "",
                gzip: true,
            },
        );
    }
}

/// Damage in the middle is not a capture cut short: an error with `--lenient` too.
#[test]
fn damage_in_the_middle_stays_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let pcap_file = generated(CaptureKind::Pcap);
    let r = pcap_records(&pcap_file)[12];
    // Record 13 claims 4 MiB more than it holds: it runs past the end of the file, but its
    // header is one no capture writes.
    let mut long_record = pcap_file.clone();
    long_record[r + 10] ^= 0x40;
    let ng = generated(CaptureKind::Pcapng);
    let b = pcapng_blocks(&ng)[12];
    // A packet block whose leading length grew by 1 MiB: it runs past the end too, but its
    // captured length says it is a 100-odd-byte block.
    let mut long_block = ng.clone();
    long_block[b + 6] ^= 0x10;
    // A pcapng block whose two length fields disagree.
    let mut mismatch = ng.clone();
    mismatch[b + 4] ^= 0x04;
    // A gzip stream damaged in the middle: inflate may notice, or hand on bytes the capture
    // layer refuses (as it does here).
    let mut gz = gzip(&ng);
    let mid = gz.len() / 2;
    for byte in &mut gz[mid..mid + 8] {
        *byte ^= 0x5a;
    }
    for (name, bytes, expect) in [
        (
            "long-record.pcap",
            long_record,
            &["malformed pcap record header"][..],
        ),
        ("long-block.pcapng", long_block, &["damaged, not cut short"]),
        (
            "length-mismatch.pcapng",
            mismatch,
            &["malformed pcapng block"],
        ),
        (
            "damaged.pcapng.gz",
            gz,
            &["corrupt gzip stream", "malformed"],
        ),
    ] {
        let input = write(dir.path(), name, &bytes);
        for lenient in [false, true] {
            let mut args = vec!["inspect", input.to_str().unwrap()];
            if lenient {
                args.push("--lenient");
            }
            let out = shootout(&args);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{name} {args:?}: {err}");
            assert!(expect.iter().any(|e| err.contains(e)), "{name}: {err}");
            assert!(!err.contains("--lenient reads"), "{name}: {err}");
            assert!(!err.contains("warning"), "{name}: {err}");
        }
    }
}

/// A sequence that starts again at 1 with new messages is a restart; the same segment again is
/// a duplicate.
#[test]
fn sequence_restarts_and_true_duplicates() {
    let trades = |n: usize, price: i64| -> Vec<Vec<u8>> {
        (0..n)
            .map(|i| trade(b'T', 0, "ZIEXT", 100, price + i as i64, i as i64))
            .collect()
    };
    // First recording: messages 1..=3, 4..=5; then its first segment again (a duplicate).
    let first = segment(0x8004, 1, TS, &trades(3, 10_000));
    let mut segments = vec![
        first.clone(),
        segment(0x8004, 4, TS + 1, &trades(2, 20_000)),
        first,
    ];
    // Two more recordings, each from 1 again with other messages, sent later.
    for (k, t) in [(1, TS + 1_000), (2, TS + 2_000)] {
        segments.push(segment(0x8004, 1, t, &trades(2, 30_000 * k)));
        segments.push(segment(0x8004, 3, t + 1, &trades(4, 40_000 * k)));
    }
    let frames: Vec<Vec<u8>> = segments.iter().map(|s| udp_frame(s, 0)).collect();
    let dir = tempfile::tempdir().unwrap();
    let input = write(
        dir.path(),
        "stitched.pcap",
        &pcap(Order::Little, true, &frames),
    );
    let name = input.to_str().unwrap();
    let out = shootout(&["inspect", "--json", name]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["packets"], 7);
    assert_eq!(v["restarts"], 2);
    assert_eq!(v["duplicates"], 1);
    assert_eq!(v["gaps"], 0);
    let out = shootout(&["inspect", name]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("sequence    restarted 2 times, 0 gaps (0 messages missing), 1 duplicates"),
        "{text}"
    );
}

/// The real captures bundled in data/ (IEX's own files; the figures are from data/README.md,
/// counted outside this code).
#[test]
fn real_iex_captures() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
    let deep = dir.join("DEEP10.pcap.gz");
    let deep = deep.to_str().unwrap();
    let out = shootout(&["inspect", deep]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(
            "it ends inside packet 121315 (pcap record at byte 22195748: 476 of its 1506 bytes \
             are there); the 121314 packets before it are whole and --lenient reads them"
        ),
        "{err}"
    );
    let out = shootout(&["inspect", "--lenient", "--json", deep]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["packets"], 121_314);
    assert_eq!(v["messages"], 391_999);
    // Twelve recordings stitched together: the sequence begins at 1 and starts again at 1
    // eleven times (packets 5245, 5728, 7885, 11865, 15261, 21520, 30058, 33595, 34181, 36103,
    // 40393, each also with its stream offset back at 0).
    assert_eq!(v["restarts"], 11);
    assert_eq!(v["duplicates"], 0);
    assert_eq!(v["gaps"], 0);
    assert_eq!(v["truncated_tail"]["packet"], 121_315);
    assert_eq!(v["truncated_tail"]["present"], 476);
    assert_eq!(v["truncated_tail"]["needed"], 1506);
    let tops = dir.join("20180127_IEXTP1_TOPS1.6.pcap.gz");
    let out = shootout(&["inspect", "--json", tops.to_str().unwrap()]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["capture"], "pcapng");
    assert_eq!(v["packets"], 57_719);
    assert_eq!(v["messages"], 99_871);
    assert_eq!(v["restarts"], 0);
    assert_eq!(v["gaps"], 0);
    assert_eq!(v["truncated_tail"], serde_json::Value::Null);
}
