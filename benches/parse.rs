//! Parsing throughput: synthetic DEEP and DEEP+ days generated once into memory, then parsed
//! from a byte slice so only the parser is measured (no disk, no gzip). The DEEP+ capture runs
//! through the same `inspect` pipeline, its book check included.
//!
//! Groups:
//! - `parse-bytes`: the whole `inspect` pipeline (`Tally::from_reader`), in capture bytes/s;
//! - `parse-messages`: the same, in IEX messages/s;
//! - `capture-only`: the pcap/pcapng framing alone (`CaptureReader::next_frame` loop);
//! - `decode`: `iex::decode` over every message block, already cut out of their segments.
//!
//! `cargo bench --bench parse` takes well under two minutes. Under `cargo test --all-targets` the
//! benches are built without optimisation and run once each, so a much smaller day is generated
//! there to keep the test suite fast.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion, Throughput};
use md_shootout::capture::CaptureReader;
use md_shootout::gen::{self, CaptureKind, GenOptions};
use md_shootout::iex::decode;
use md_shootout::inspect::Tally;
use md_shootout::model::Feed;
use md_shootout::stream::IexReader;

/// Packets per generated capture (~39 MB of DEEP pcapng in release builds).
const PACKETS: u64 = if cfg!(debug_assertions) {
    5_000
} else {
    200_000
};

struct Capture {
    name: &'static str,
    bytes: Vec<u8>,
    messages: u64,
}

fn capture(name: &'static str, feed: Feed, kind: CaptureKind) -> Capture {
    let opts = GenOptions {
        feed,
        capture: kind,
        packets: PACKETS,
        seed: 1,
        symbols: 500,
    };
    let mut bytes = Vec::new();
    let report = gen::generate(&opts, &mut bytes).expect("valid options");
    assert_eq!(report.bytes, bytes.len() as u64);
    Capture {
        name,
        bytes,
        messages: report.messages,
    }
}

fn captures() -> Vec<Capture> {
    vec![
        capture("deep-pcapng", Feed::Deep, CaptureKind::Pcapng),
        capture("deep-pcap", Feed::Deep, CaptureKind::Pcap),
        capture("deep-plus-pcapng", Feed::DeepPlus, CaptureKind::Pcapng),
    ]
}

/// Small samples: each iteration already parses tens of MB.
fn configure<M: criterion::measurement::Measurement>(group: &mut BenchmarkGroup<'_, M>) {
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
}

fn tally(bytes: &[u8]) -> u64 {
    let (tally, _) = Tally::from_reader(bytes, false).expect("generated capture parses");
    tally.messages
}

fn bench_parse(c: &mut Criterion) {
    let caps = captures();
    for cap in &caps {
        assert_eq!(
            tally(&cap.bytes),
            cap.messages,
            "parser disagrees with generator"
        );
    }

    let mut group = c.benchmark_group("parse-bytes");
    configure(&mut group);
    for cap in &caps {
        group.throughput(Throughput::Bytes(cap.bytes.len() as u64));
        group.bench_function(cap.name, |b| b.iter(|| tally(black_box(&cap.bytes))));
    }
    group.finish();

    let mut group = c.benchmark_group("parse-messages");
    configure(&mut group);
    for cap in &caps {
        group.throughput(Throughput::Elements(cap.messages));
        group.bench_function(cap.name, |b| b.iter(|| tally(black_box(&cap.bytes))));
    }
    group.finish();

    // The capture layer alone: walk every record, touching the frame so it is not optimised out.
    let mut group = c.benchmark_group("capture-only");
    configure(&mut group);
    for cap in &caps {
        group.throughput(Throughput::Bytes(cap.bytes.len() as u64));
        group.bench_function(cap.name, |b| {
            b.iter(|| {
                let mut reader = CaptureReader::new(black_box(&cap.bytes[..])).expect("header");
                let mut sum = 0u64;
                while let Some(frame) = reader.next_frame().expect("well-formed capture") {
                    sum = sum.wrapping_add(frame.data.len() as u64 ^ frame.timestamp_ns);
                }
                sum
            })
        });
    }
    group.finish();

    // Message decoding alone: every block of every segment, copied once into one flat buffer.
    let mut group = c.benchmark_group("decode");
    configure(&mut group);
    for (cap, name) in [
        (&caps[0], "deep-messages"),
        (&caps[2], "deep-plus-messages"),
    ] {
        let (blocks, ranges) = message_blocks(&cap.bytes);
        assert_eq!(ranges.len() as u64, cap.messages);
        group.throughput(Throughput::Elements(ranges.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| {
                let blocks = black_box(&blocks[..]);
                let mut ok = 0u64;
                for &(start, len) in &ranges {
                    let block = &blocks[start as usize..(start + len) as usize];
                    ok += u64::from(decode(block).is_ok());
                }
                ok
            })
        });
    }
    group.finish();
}

/// Every message block of the capture, concatenated, with each one's `(start, len)`.
fn message_blocks(bytes: &[u8]) -> (Vec<u8>, Vec<(u32, u32)>) {
    let mut reader = IexReader::new(bytes, false).expect("header");
    let mut blocks = Vec::new();
    let mut ranges = Vec::new();
    while let Some(item) = reader.next_segment().expect("well-formed capture") {
        for block in item.segment.blocks() {
            let start = u32::try_from(blocks.len()).expect("blocks fit in 4 GiB");
            let len = u32::try_from(block.len()).expect("block length");
            ranges.push((start, len));
            blocks.extend_from_slice(block);
        }
    }
    (blocks, ranges)
}

criterion_group!(benches, bench_parse);
criterion_main!(benches);
