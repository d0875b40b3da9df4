//! Generation throughput: how fast the synthetic day generator writes captures (into a sink, so
//! only generation is measured, not the disk).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use md_shootout::gen::{self, CaptureKind, GenOptions};
use md_shootout::model::{Feed, Packet};

fn bench_generate(c: &mut Criterion) {
    let mut group = c.benchmark_group("gen");
    for (feed, capture) in [
        (Feed::Deep, CaptureKind::Pcapng),
        (Feed::Deep, CaptureKind::Pcap),
        (Feed::Tops, CaptureKind::Pcapng),
        (Feed::DeepPlus, CaptureKind::Pcapng),
    ] {
        let opts = GenOptions {
            feed,
            capture,
            packets: 50_000,
            seed: 1,
            symbols: 500,
        };
        let bytes = gen::generate(&opts, std::io::sink())
            .expect("valid options")
            .bytes;
        group.throughput(Throughput::Bytes(bytes));
        group.bench_function(format!("{feed}-{capture:?}"), |b| {
            b.iter(|| gen::generate(&opts, std::io::sink()).expect("valid options"))
        });
    }
    // The simulation alone, to see what framing and encoding add on top; for DEEP+ this is the
    // order book bookkeeping.
    for feed in [Feed::Deep, Feed::DeepPlus] {
        let opts = GenOptions {
            feed,
            packets: 50_000,
            ..GenOptions::default()
        };
        let bytes = gen::generate(&opts, std::io::sink())
            .expect("valid options")
            .bytes;
        group.throughput(Throughput::Bytes(bytes));
        let name = match feed {
            Feed::Deep => "simulation-only".to_string(),
            _ => format!("simulation-only-{feed}"),
        };
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut sim = gen::Simulation::new(&opts).expect("valid options");
                let mut p = Packet::default();
                let mut n = 0usize;
                while sim.next_into(&mut p) {
                    n += p.messages.len();
                }
                n
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_generate);
criterion_main!(benches);
