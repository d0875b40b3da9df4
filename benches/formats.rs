//! Serialize and deserialize throughput per format over a realistic day's packets, without the
//! shootout harness around it: a cross-check of `shootout run`'s per-packet figures (the
//! registry's `flatbuffers-unverified` and `rkyv-unchecked` included: what the verifiers cost),
//! and the `memcpy` floor under the `raw` baseline.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use md_shootout::formats::raw::Raw;
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
