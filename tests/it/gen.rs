//! Integration tests of the synthetic day generator. The capture is parsed here with a small
//! independent reader (not the generator's own code) and checked against the spec layouts and
//! against the generator's packet view.

use std::collections::{BTreeMap, HashSet};

use md_shootout::gen::{self, CaptureKind, GenOptions};
use md_shootout::model::{kind, Feed, Message, Packet};

const REGULAR_OPEN: i64 = 1_567_517_400_000_000_000; // 2019-09-03 13:30 UTC
const REGULAR_CLOSE: i64 = 1_567_540_800_000_000_000; // 2019-09-03 20:00 UTC

fn opts(feed: Feed, capture: CaptureKind, packets: u64, seed: u64) -> GenOptions {
    GenOptions {
        feed,
        capture,
        packets,
        seed,
        symbols: 500,
    }
}

fn bytes_of(o: &GenOptions) -> (Vec<u8>, gen::GenReport) {
    let mut v = Vec::new();
    let r = gen::generate(o, &mut v).unwrap();
    (v, r)
}

fn u16le(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}
fn u32le(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}
fn u64le(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}
fn u16be(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

/// Ones-complement sum of 16-bit big-endian words, folded. A header whose checksum is right
/// sums to 0xFFFF.
fn ones_sum(data: &[u8]) -> u16 {
    let mut s: u32 = 0;
    for pair in data.chunks(2) {
        let w = if pair.len() == 2 {
            ((pair[0] as u32) << 8) | pair[1] as u32
        } else {
            (pair[0] as u32) << 8
        };
        s += w;
        s = (s & 0xffff) + (s >> 16);
    }
    s as u16
}

/// (capture timestamp ns, frame bytes) of every record; asserts the container layout.
fn records(cap: &[u8]) -> Vec<(u64, &[u8])> {
    let mut out = Vec::new();
    if u32le(cap, 0) == 0x0a0d_0d0a {
        // SHB
        assert_eq!(u32le(cap, 4), 28);
        assert_eq!(u32le(cap, 8), 0x1a2b_3c4d);
        assert_eq!((u16le(cap, 12), u16le(cap, 14)), (1, 0));
        assert_eq!(u64le(cap, 16), u64::MAX);
        assert_eq!(u32le(cap, 24), 28);
        // IDB
        let idb = &cap[28..];
        assert_eq!(u32le(idb, 0), 1);
        let idb_len = u32le(idb, 4) as usize;
        assert_eq!(u32le(idb, idb_len - 4) as usize, idb_len);
        assert_eq!(u16le(idb, 8), 1, "link type ethernet");
        assert_eq!(u32le(idb, 12), 65535);
        // options: if_tsresol = 9, then end of options
        assert_eq!((u16le(idb, 16), u16le(idb, 18), idb[20]), (9, 1, 9));
        assert_eq!((u16le(idb, 24), u16le(idb, 26)), (0, 0));
        let mut at = 28 + idb_len;
        while at < cap.len() {
            let b = &cap[at..];
            assert_eq!(u32le(b, 0), 6, "EPB at {at}");
            let total = u32le(b, 4) as usize;
            assert_eq!(total % 4, 0);
            assert_eq!(
                u32le(b, total - 4) as usize,
                total,
                "trailing length at {at}"
            );
            assert_eq!(u32le(b, 8), 0, "interface id");
            let ts = ((u32le(b, 12) as u64) << 32) | u32le(b, 16) as u64;
            let caplen = u32le(b, 20) as usize;
            assert_eq!(u32le(b, 24) as usize, caplen);
            assert_eq!(total, 28 + caplen.div_ceil(4) * 4 + 4);
            out.push((ts, &b[28..28 + caplen]));
            at += total;
        }
        assert_eq!(at, cap.len());
    } else {
        assert_eq!(u32le(cap, 0), 0xa1b2_3c4d, "ns pcap magic");
        assert_eq!((u16le(cap, 4), u16le(cap, 6)), (2, 4));
        assert_eq!(u32le(cap, 16), 65535);
        assert_eq!(u32le(cap, 20), 1);
        let mut at = 24;
        while at < cap.len() {
            let b = &cap[at..];
            let ns = u32le(b, 4) as u64;
            assert!(ns < 1_000_000_000);
            let ts = u32le(b, 0) as u64 * 1_000_000_000 + ns;
            let len = u32le(b, 8) as usize;
            assert_eq!(u32le(b, 12) as usize, len);
            out.push((ts, &b[16..16 + len]));
            at += 16 + len;
        }
        assert_eq!(at, cap.len());
    }
    out
}

/// A segment as read back from one frame.
struct Seg {
    seq: u64,
    send_time: i64,
    /// (type, timestamp) of each message
    msgs: Vec<(u8, i64)>,
}

/// Checks one frame's network headers and IEX-TP header; returns the decoded segment.
fn check_frame(f: &[u8], o: &GenOptions, ip_id: u16, stream_offset: &mut u64) -> Seg {
    let feed = o.feed;
    assert_eq!(&f[0..3], &[0x01, 0x00, 0x5e], "multicast MAC");
    assert_eq!(u16be(f, 12), 0x0800);
    let ip = &f[14..34];
    assert_eq!(ip[0], 0x45, "IPv4, IHL 5");
    assert_eq!(u16be(ip, 2) as usize, f.len() - 14, "IP total length");
    assert_eq!(u16be(ip, 4), ip_id, "incrementing IP id");
    assert!(ip[8] > 0, "TTL");
    assert_eq!(ip[9], 17);
    assert_eq!(ones_sum(ip), 0xffff, "IPv4 header checksum");
    assert_eq!(ip[16] & 0xf0, 0xe0, "multicast destination");
    let udp = &f[34..];
    assert_eq!(u16be(udp, 2), 10378);
    assert_eq!(u16be(udp, 4) as usize, udp.len());
    assert_ne!(u16be(udp, 6), 0, "UDP checksum present");
    let mut pseudo = Vec::new();
    pseudo.extend_from_slice(&ip[12..20]);
    pseudo.extend_from_slice(&[0, 17]);
    pseudo.extend_from_slice(&(udp.len() as u16).to_be_bytes());
    pseudo.extend_from_slice(udp);
    assert_eq!(ones_sum(&pseudo), 0xffff, "UDP checksum");

    let t = &udp[8..];
    assert_eq!(t[0], 1, "IEX-TP version");
    assert_eq!(u16le(t, 2), feed.protocol_id());
    assert_eq!(u32le(t, 4), 1, "channel");
    assert_eq!(u32le(t, 8), o.session_id(), "session");
    let payload_len = u16le(t, 12) as usize;
    assert_eq!(payload_len, t.len() - 40);
    let count = u16le(t, 14) as usize;
    assert_eq!(u64le(t, 16), *stream_offset, "stream offset");
    *stream_offset += payload_len as u64;
    let seq = u64le(t, 24);
    let send_time = u64le(t, 32) as i64;
    let mut msgs = Vec::with_capacity(count);
    let mut at = 40;
    for _ in 0..count {
        let len = u16le(t, at) as usize;
        let m = &t[at + 2..at + 2 + len];
        assert_eq!(kind::wire_len(m[0]), Some(len), "type {}", m[0] as char);
        msgs.push((m[0], u64le(m, 2) as i64));
        at += 2 + len;
    }
    assert_eq!(at, t.len(), "messages fill the payload exactly");
    Seg {
        seq,
        send_time,
        msgs,
    }
}

/// Parses and checks a whole capture; returns its segments.
fn check_capture(cap: &[u8], o: &GenOptions) -> Vec<Seg> {
    let mut segs = Vec::new();
    let mut offset = 0;
    let mut next_seq = 1;
    let mut last_send = i64::MIN;
    for (i, (ts, f)) in records(cap).into_iter().enumerate() {
        let seg = check_frame(f, o, i as u16, &mut offset);
        assert_eq!(seg.seq, next_seq, "sequence continuous at packet {i}");
        next_seq += seg.msgs.len() as u64;
        assert!(
            seg.send_time > last_send,
            "send time increases at packet {i}"
        );
        assert!(ts as i64 >= seg.send_time, "captured after sent");
        for &(_, mts) in &seg.msgs {
            assert!(mts <= seg.send_time, "message timestamp after send time");
            assert!(mts > last_send, "message timestamp before previous send");
        }
        last_send = seg.send_time;
        segs.push(seg);
    }
    segs
}

fn view(o: &GenOptions) -> Vec<Packet> {
    gen::packets(o).unwrap().collect()
}

#[test]
fn same_seed_same_bytes_different_seed_different_bytes() {
    let a = bytes_of(&opts(Feed::Deep, CaptureKind::Pcapng, 3000, 42)).0;
    let b = bytes_of(&opts(Feed::Deep, CaptureKind::Pcapng, 3000, 42)).0;
    let c = bytes_of(&opts(Feed::Deep, CaptureKind::Pcapng, 3000, 43)).0;
    assert_eq!(a, b);
    assert_ne!(a, c);
    assert_eq!(
        view(&opts(Feed::Tops, CaptureKind::Pcap, 500, 9)),
        view(&opts(Feed::Tops, CaptureKind::Pcap, 500, 9))
    );
    let d = bytes_of(&opts(Feed::DeepPlus, CaptureKind::Pcapng, 3000, 42)).0;
    let e = bytes_of(&opts(Feed::DeepPlus, CaptureKind::Pcapng, 3000, 42)).0;
    let f = bytes_of(&opts(Feed::DeepPlus, CaptureKind::Pcapng, 3000, 43)).0;
    assert_eq!(d, e);
    assert_ne!(d, f);
    assert_ne!(a, d, "the feed changes the day");
}

#[test]
fn every_message_type_appears_in_a_20k_packet_day() {
    for feed in [Feed::Deep, Feed::Tops, Feed::DeepPlus] {
        let r =
            gen::generate(&opts(feed, CaptureKind::Pcapng, 20_000, 1), std::io::sink()).unwrap();
        let expected: &[u8] = match feed {
            Feed::Deep => b"SDHOPEI85TBXA",
            Feed::Tops => b"SDHOPEIQTBXA",
            Feed::DeepPlus => b"SDHOPEIaMRLCTB",
        };
        for &k in expected {
            assert!(
                r.by_type.get(&(k as char)).copied().unwrap_or(0) > 0,
                "{feed}: no {} in {:?}",
                k as char,
                r.by_type
            );
        }
        let absent: &[u8] = match feed {
            Feed::Deep => b"Q",
            Feed::Tops => b"85",
            Feed::DeepPlus => b"85QXA",
        };
        for &k in absent {
            assert!(
                !r.by_type.contains_key(&(k as char)),
                "{feed} has {}",
                k as char
            );
        }
        assert_eq!(r.packets, 20_000);
        assert!(r.heartbeats > 0);
        assert_eq!(r.symbols, 500);
    }
}

#[test]
fn capture_is_spec_valid_and_matches_packet_view() {
    for (feed, capture) in [
        (Feed::Deep, CaptureKind::Pcapng),
        (Feed::Tops, CaptureKind::Pcap),
        (Feed::DeepPlus, CaptureKind::Pcapng),
        (Feed::DeepPlus, CaptureKind::Pcap),
    ] {
        let o = opts(feed, capture, 5_000, 3);
        let (cap, report) = bytes_of(&o);
        assert_eq!(report.bytes as usize, cap.len());
        let segs = check_capture(&cap, &o);
        let pkts = view(&o);
        assert_eq!(segs.len(), pkts.len());
        for (s, p) in segs.iter().zip(&pkts) {
            assert_eq!(s.seq, p.seq);
            assert_eq!(s.send_time, p.send_time);
            let kinds: Vec<(u8, i64)> = p
                .messages
                .iter()
                .map(|m| (m.kind(), m.timestamp()))
                .collect();
            assert_eq!(s.msgs, kinds);
        }
        // The report agrees with counts made from the packet view.
        let mut by_type = BTreeMap::new();
        let mut syms = HashSet::new();
        for m in pkts.iter().flat_map(|p| &p.messages) {
            *by_type.entry(m.kind() as char).or_insert(0u64) += 1;
            if let Some(s) = m.symbol() {
                syms.insert(*s);
            }
        }
        assert_eq!(report.packets, pkts.len() as u64);
        assert_eq!(report.messages, by_type.values().sum::<u64>());
        assert_eq!(report.by_type, by_type);
        assert_eq!(
            report.heartbeats,
            pkts.iter().filter(|p| p.messages.is_empty()).count() as u64
        );
        assert_eq!(report.symbols, syms.len());
        assert_eq!(report.first_send_time, pkts[0].send_time);
        assert_eq!(report.last_send_time, pkts.last().unwrap().send_time);
        assert_eq!(report.feed, feed);
        // A heartbeat carries the next sequence number (checked by continuity above) and no payload.
        assert!(segs.iter().any(|s| s.msgs.is_empty()));
    }
}

#[test]
fn system_events_run_through_the_day_in_order() {
    for packets in [1000u64, 20_000] {
        let pkts = view(&opts(Feed::Deep, CaptureKind::Pcapng, packets, 5));
        let events: Vec<u8> = pkts
            .iter()
            .flat_map(|p| &p.messages)
            .filter_map(|m| match m {
                Message::SystemEvent(e) => Some(e.event),
                _ => None,
            })
            .collect();
        assert_eq!(events, b"OSRMEC", "{packets} packets");
        // Start of day is a dense admin burst; the day spans 08:00 to midnight UTC.
        assert!(pkts[0].messages.len() >= 10);
        assert_eq!(pkts[0].send_time / 1_000_000_000, 1_567_497_600); // 08:00:00
        assert!(pkts.last().unwrap().send_time >= 1_567_555_200_000_000_000); // 24:00
                                                                              // Every symbol gets its admin messages, and its opening and closing official price.
        let count = |k: u8| {
            pkts.iter()
                .flat_map(|p| &p.messages)
                .filter(|m| m.kind() == k)
                .count()
        };
        let admin_count = |k: u8| {
            pkts.iter()
                .flat_map(|p| &p.messages)
                .filter(|m| m.kind() == k && m.timestamp() < 1_567_497_601_000_000_000)
                .count()
        };
        for k in [b'H', b'O', b'P', b'I'] {
            assert_eq!(admin_count(k), 500, "{}", k as char);
        }
        assert!(count(b'X') == 1000 && count(b'E') == 1000);
        assert!((5..50).contains(&count(b'D')));
    }
}

#[test]
fn regular_hours_look_like_a_market() {
    let pkts = view(&opts(Feed::Deep, CaptureKind::Pcapng, 20_000, 11));
    let regular: Vec<&Packet> = pkts
        .iter()
        .filter(|p| {
            p.send_time > REGULAR_OPEN + 1_000_000_000
                && p.send_time < REGULAR_CLOSE - 600_000_000_000
        })
        .collect();
    let msgs: Vec<&Message> = regular.iter().flat_map(|p| &p.messages).collect();
    let per_packet = msgs.len() as f64 / regular.len() as f64;
    assert!(
        (2.0..3.0).contains(&per_packet),
        "messages per packet {per_packet}"
    );
    let frac = |ks: &[u8]| {
        msgs.iter().filter(|m| ks.contains(&m.kind())).count() as f64 / msgs.len() as f64
    };
    assert!(frac(b"85") > 0.8, "price levels {}", frac(b"85"));
    let trades = frac(b"T");
    assert!((0.05..0.10).contains(&trades), "trades {trades}");
    assert!(frac(b"B") < 0.005);
    for m in &msgs {
        match m {
            Message::PriceLevelUpdate(u) => {
                assert!(u.price > 0 && u.price % 100 == 0);
                assert!(u.flags <= 1);
            }
            Message::TradeReport(t) => {
                assert!(t.price > 0 && t.price % 100 == 0 && t.size > 0);
                assert_eq!(t.flags & 0x20 != 0, t.size < 100, "odd lot flag");
                assert_eq!(t.flags & 0x40, 0, "no extended-hours flag in regular hours");
            }
            _ => {}
        }
    }
    // Both odd and round lots.
    let sizes: Vec<u32> = msgs
        .iter()
        .filter_map(|m| match m {
            Message::TradeReport(t) => Some(t.size),
            _ => None,
        })
        .collect();
    assert!(sizes.iter().any(|&s| s < 100) && sizes.iter().any(|&s| s % 100 == 0));
    // Trade breaks refer to an earlier trade of the same symbol, with its price and size.
    let mut trades_seen = std::collections::HashMap::new();
    for m in pkts.iter().flat_map(|p| &p.messages) {
        match m {
            Message::TradeReport(t) => {
                trades_seen.insert(t.trade_id, (t.symbol, t.size, t.price));
            }
            Message::TradeBreak(b) => {
                assert_eq!(
                    trades_seen.get(&b.trade_id),
                    Some(&(b.symbol, b.size, b.price))
                );
            }
            _ => {}
        }
    }
}

#[test]
fn zero_packets_and_tiny_days_are_valid_captures() {
    for packets in [0u64, 1, 2, 7] {
        for capture in [CaptureKind::Pcapng, CaptureKind::Pcap] {
            let mut o = opts(Feed::Deep, capture, packets, 1);
            o.symbols = 3;
            let (cap, r) = bytes_of(&o);
            let segs = check_capture(&cap, &o);
            assert_eq!(segs.len() as u64, packets);
            assert_eq!(r.packets, packets);
        }
    }
}

#[test]
fn generate_file_gzips_and_leaves_no_temp_files() {
    let dir = tempfile::tempdir().unwrap();
    let o = opts(Feed::Tops, CaptureKind::Pcapng, 800, 2);
    let (plain, _) = bytes_of(&o);
    let gz_path = dir.path().join("day.pcapng.gz");
    let r = gen::generate_file(&o, &gz_path).unwrap();
    assert_eq!(r.bytes as usize, plain.len());
    let mut unzipped = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::GzDecoder::new(std::fs::File::open(&gz_path).unwrap()),
        &mut unzipped,
    )
    .unwrap();
    assert_eq!(unzipped, plain);
    let raw_path = dir.path().join("day.pcapng");
    gen::generate_file(&o, &raw_path).unwrap();
    assert_eq!(std::fs::read(&raw_path).unwrap(), plain);

    let mut bad = o.clone();
    bad.symbols = 0;
    let err = gen::generate_file(&bad, &dir.path().join("bad.pcapng")).unwrap_err();
    assert!(
        matches!(
            err,
            gen::GenError::InvalidOption {
                option: "symbols",
                ..
            }
        ),
        "{err:?}"
    );
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["day.pcapng", "day.pcapng.gz"]);
}

#[test]
fn generate_file_names_the_step_that_failed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing-dir").join("day.pcapng");
    let o = opts(Feed::Deep, CaptureKind::Pcapng, 10, 1);
    let err = gen::generate_file(&o, &path).unwrap_err();
    assert!(
        matches!(
            &err,
            gen::GenError::Write {
                what: gen::Writing::File(md_shootout::output::atomic::Step::CreateTemp(_)),
                cause,
            } if cause.kind() == std::io::ErrorKind::NotFound
        ),
        "{err:?}"
    );
    assert!(
        err.to_string().starts_with("creating temporary file "),
        "{err}"
    );
}

#[test]
fn the_command_line_reports_a_write_failure_in_one_line_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing-dir").join("day.pcapng.gz");
    let path = path.to_str().unwrap();
    let out = crate::common::shootout(&["gen", "--packets", "10", "--out", path]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(
        stderr.starts_with(&format!("error: {path}: creating temporary file ")),
        "{stderr}"
    );

    let out = crate::common::shootout(&["gen", "--symbols", "0", "--out", path]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(
        stderr.trim_end(),
        format!("error: {path}: symbols must be between 1 and 100000, got 0")
    );
}

#[test]
fn day_refuses_packets_and_tops_in_one_line_writing_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("day.pcapng");
    let p = path.to_str().unwrap();

    let out = crate::common::shootout(&["gen", "--day", "--packets", "5", "--out", p]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(
        stderr.contains("'--day'") && stderr.contains("'--packets <PACKETS>'"),
        "names both options: {stderr}"
    );

    // TOPS has no measured 2026 day to size a preset by: refused, not guessed.
    let out = crate::common::shootout(&["gen", "--day", "--feed", "tops", "--out", p]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(
        stderr.trim_end(),
        "error: --day has no preset for tops: use --packets N"
    );

    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// Manual throughput measurement, not a correctness test (`GEN_MEASURE_FEED`: deep, tops or
/// deep-plus; deep by default):
/// `GEN_MEASURE_OUT=/dev/shm/day.pcapng GEN_MEASURE_PACKETS=2000000 cargo test --release --test it measure_throughput -- --ignored --nocapture`
#[test]
#[ignore]
fn measure_throughput() {
    let path =
        std::env::var("GEN_MEASURE_OUT").unwrap_or_else(|_| "/dev/shm/gen-measure.pcapng".into());
    let packets = std::env::var("GEN_MEASURE_PACKETS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2_000_000);
    let feed = match std::env::var("GEN_MEASURE_FEED").as_deref() {
        Ok("tops") => Feed::Tops,
        Ok("deep-plus") => Feed::DeepPlus,
        _ => Feed::Deep,
    };
    let o = opts(feed, CaptureKind::Pcapng, packets, 1);
    let t = std::time::Instant::now();
    let r = gen::generate(&o, std::io::sink()).unwrap();
    let sink_s = t.elapsed().as_secs_f64();
    let t = std::time::Instant::now();
    let r2 = gen::generate_file(&o, std::path::Path::new(&path)).unwrap();
    let file_s = t.elapsed().as_secs_f64();
    assert_eq!(r, r2);
    let mb = r.bytes as f64 / 1e6;
    println!(
        "{feed}: {} packets, {} messages, {} heartbeats, {:.1} MB: sink {:.3} s = {:.0} MB/s = {:.2} M messages/s, file {path} {:.3} s = {:.0} MB/s; {:.1} bytes/packet, {:.2} messages/packet",
        r.packets,
        r.messages,
        r.heartbeats,
        mb,
        sink_s,
        mb / sink_s,
        r.messages as f64 / sink_s / 1e6,
        file_s,
        mb / file_s,
        r.bytes as f64 / r.packets as f64,
        r.messages as f64 / r.packets as f64
    );
    println!("{}", serde_json::to_string(&r).unwrap());
}
