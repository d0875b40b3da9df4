//! Serialize and deserialize throughput per format over a realistic day's packets, without the
//! shootout harness around it: a cross-check of `shootout run`'s per-packet figures, and the
//! place to measure variants that are not in the registry (FlatBuffers without its verifier, rkyv
//! without bytecheck) and the `memcpy` floor under the `raw` baseline.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use md_shootout::formats::flatbuffers::{self as fb, generated::md_shootout::fbs, FlatBuffers};
use md_shootout::formats::mirror::ArchivedMPacket;
use md_shootout::formats::{raw::Raw, rkyv::Rkyv};
use md_shootout::formats::{Aggregate, Format};
use md_shootout::gen::{self, GenOptions};
use md_shootout::model::Packet;

/// Regular-hours packets of a generated day (the first 20k of a 100k-packet day are mostly the
/// start-of-day administrative burst, which is not what a feed handler spends its day on).
fn packets() -> Vec<Packet> {
    let opts = GenOptions {
        packets: 100_000,
        ..GenOptions::default()
    };
    gen::packets(&opts)
        .unwrap()
        .skip(40_000)
        .take(20_000)
        .collect()
}

fn encode_all<F: Format>(format: &mut F, packets: &[Packet], out: &mut Vec<u8>) {
    out.clear();
    for p in packets {
        format.encode(p, out);
    }
}

fn decode_all<F: Format>(format: &mut F, mut bytes: &[u8], sink: &mut Aggregate) {
    while !bytes.is_empty() {
        let used = format.decode(bytes, sink).expect("own encoding decodes");
        bytes = &bytes[used..];
    }
}

fn bench_format<F: Format>(c: &mut Criterion, packets: &[Packet]) {
    let mut group = c.benchmark_group(F::NAME);
    group.throughput(Throughput::Elements(packets.len() as u64));
    let mut format = F::default();
    let mut buf = Vec::new();
    group.bench_function(BenchmarkId::new("serialize", "packets"), |b| {
        b.iter(|| encode_all(&mut format, black_box(packets), &mut buf))
    });
    encode_all(&mut format, packets, &mut buf);
    group.bench_function(BenchmarkId::new("deserialize", "packets"), |b| {
        b.iter(|| {
            let mut agg = Aggregate::new();
            decode_all(&mut format, black_box(&buf), &mut agg);
            agg
        })
    });
    group.finish();
}

/// FlatBuffers deserialize with the verifier skipped: what the 2019 shootout's crate (which had
/// no verifier) measured. Only sound for bytes we encoded ourselves.
fn bench_flatbuffers_unverified(c: &mut Criterion, packets: &[Packet]) {
    let mut group = c.benchmark_group("flatbuffers");
    group.throughput(Throughput::Elements(packets.len() as u64));
    let mut buf = Vec::new();
    encode_all(&mut FlatBuffers::default(), packets, &mut buf);
    group.bench_function(BenchmarkId::new("deserialize-unverified", "packets"), |b| {
        b.iter(|| {
            let mut agg = Aggregate::new();
            let mut bytes = black_box(&buf[..]);
            while bytes.len() >= 4 {
                let len = 4 + u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as usize;
                // SAFETY: `buf` holds size-prefixed packets our own encoder just wrote, so every
                // root is a valid Packet table; this is exactly the trust the unchecked API needs.
                let root = unsafe { fbs::size_prefixed_root_as_packet_unchecked(&bytes[..len]) };
                fb::visit(root, &mut agg).expect("own encoding");
                bytes = &bytes[len..];
            }
            agg
        })
    });
    group.finish();
}

/// rkyv deserialize without bytecheck (`access_unchecked`): what validation costs. Only sound for
/// bytes we encoded ourselves; the registry's runner always validates.
fn bench_rkyv_unchecked(c: &mut Criterion, packets: &[Packet]) {
    let mut group = c.benchmark_group("rkyv");
    group.throughput(Throughput::Elements(packets.len() as u64));
    let mut buf = Vec::new();
    encode_all(&mut Rkyv::default(), packets, &mut buf);
    assert_eq!(buf.as_ptr() as usize % md_shootout::formats::rkyv::ALIGN, 0);
    group.bench_function(BenchmarkId::new("deserialize-unchecked", "packets"), |b| {
        b.iter(|| {
            let mut agg = Aggregate::new();
            let mut bytes = black_box(&buf[..]);
            while !bytes.is_empty() {
                let (archive, used) = md_shootout::formats::rkyv::split(bytes).expect("own");
                // SAFETY: `buf` holds records our own encoder just wrote, 16-byte aligned (checked
                // above; every record is a multiple of 16 bytes), each a valid archived packet.
                let root = unsafe { rkyv::access_unchecked::<ArchivedMPacket>(archive) };
                md_shootout::formats::rkyv::visit(root, &mut agg);
                bytes = &bytes[used..];
            }
            agg
        })
    });
    group.finish();
}

/// The floor under the floor: copying the very bytes `raw` writes, packet by packet, into a
/// reused buffer (`run` measures the same copy per packet as its memcpy floor), and walking the
/// neutral packets without writing anything.
fn bench_memcpy(c: &mut Criterion, packets: &[Packet]) {
    let mut group = c.benchmark_group("memcpy");
    group.throughput(Throughput::Elements(packets.len() as u64));
    let mut src = Vec::new();
    let mut ends = Vec::with_capacity(packets.len());
    let mut raw = Raw;
    for p in packets {
        raw.encode(p, &mut src);
        ends.push(src.len());
    }
    let mut out = Vec::with_capacity(src.len());
    group.bench_function(BenchmarkId::new("raw-bytes", "packets"), |b| {
        b.iter(|| {
            out.clear();
            let src = black_box(&src[..]);
            let mut start = 0;
            for &end in black_box(&ends[..]) {
                out.extend_from_slice(&src[start..end]);
                start = end;
            }
            black_box(&out);
        })
    });
    // What any encoder pays before writing a byte: walking each packet's message list and
    // matching on each message's type (here only to read its timestamp).
    group.bench_function(BenchmarkId::new("walk-model", "packets"), |b| {
        b.iter(|| {
            let mut sum = 0i64;
            for p in black_box(packets) {
                sum = sum.wrapping_add(p.send_time);
                for m in &p.messages {
                    sum = sum.wrapping_add(m.timestamp());
                }
            }
            sum
        })
    });
    group.finish();
}

macro_rules! bench_every_format {
    ($($module:ident: [$($name:ident: $F:ty),+ $(,)?]),* $(,)?) => {
        /// Every format of the registry's list, in its order.
        fn bench_every_format(c: &mut Criterion, packets: &[Packet]) {
            $($(bench_format::<$F>(c, packets);)+)*
        }
    };
}
md_shootout::for_each_format!(bench_every_format);

fn formats(c: &mut Criterion) {
    let packets = packets();
    bench_every_format(c, &packets);
    // Variants that are not in the registry: what the verifier and bytecheck cost.
    bench_flatbuffers_unverified(c, &packets);
    bench_rkyv_unchecked(c, &packets);
    bench_memcpy(c, &packets);
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2));
    targets = formats
}
criterion_main!(benches);
