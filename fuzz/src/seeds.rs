//! Writes seed corpora for every fuzz target from the generator: small DEEP, TOPS and DEEP+ days
//! as pcapng and pcap, their IEX-TP payloads, and every format's encoding of their packets.
//! Usage (from fuzz/): cargo run --bin seeds -- corpus

use std::path::Path;

use md_shootout::capture::{CaptureKind, CaptureReader};
use md_shootout::formats::{Aggregate, Checksum};
use md_shootout::measure::runner::PassIo;
use md_shootout::measure::{registry, Timing, Workload};
use md_shootout::gen::{self, GenOptions};
use md_shootout::measure::clock::Timer;
use md_shootout::model::Feed;
use md_shootout::net;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = std::env::args().nth(1).unwrap_or_else(|| "corpus".into());
    let root = Path::new(&root);
    let dir = |name: &str| -> std::io::Result<std::path::PathBuf> {
        let d = root.join(name);
        std::fs::create_dir_all(&d)?;
        Ok(d)
    };
    let (capture, stream, segment, formats) = (
        dir("capture")?,
        dir("stream")?,
        dir("iex_segment")?,
        dir("format_decode")?,
    );
    let timer = Timer::calibrate();
    let mut n = 0;
    for feed in [Feed::Deep, Feed::Tops, Feed::DeepPlus] {
        for kind in [CaptureKind::Pcapng, CaptureKind::Pcap] {
            for packets in [3u64, 40] {
                let opts = GenOptions {
                    feed,
                    capture: kind,
                    packets,
                    seed: packets,
                    symbols: 5,
                };
                let mut file = Vec::new();
                gen::generate(&opts, &mut file)?;
                let name = format!("{feed}-{kind:?}-{packets}");
                std::fs::write(capture.join(&name), &file)?;
                let mut moded = vec![0u8];
                moded.extend(&file);
                std::fs::write(stream.join(&name), &moded)?;

                let mut reader = CaptureReader::new(&file[..]).expect("generated capture");
                while let Ok(Some(frame)) = reader.next_frame() {
                    if let Ok(d) = net::udp_payload(frame.link_type, frame.data) {
                        n += 1;
                        std::fs::write(segment.join(format!("seg-{n}")), d.payload)?;
                    }
                }

                let packets: Vec<_> = gen::packets(&opts)?.collect();
                for (i, mut runner) in registry().into_iter().enumerate() {
                    if runner.trusts_producer() {
                        continue; // the fuzz target skips it: no seeds
                    }
                    let (mut aggregate, mut checksum) = (Aggregate::new(), Checksum::default());
                    let mut io = PassIo::new(&packets, &mut aggregate, &mut checksum);
                    let (encode, unit) = (Workload::Encode, Timing::PerUnit);
                    let _ = runner.pass(encode, unit, &mut io, &timer, &mut Vec::new());
                    let mut seed = vec![i as u8];
                    seed.extend(runner.buffer());
                    std::fs::write(formats.join(format!("{}-{name}", runner.name())), seed)?;
                }
            }
        }
    }
    println!("seeds written under {}", root.display());
    Ok(())
}
