//! `capture::resync` against the parser: from any offset of a capture, `find_boundary` must
//! give the first record (pcap) or packet block (pcapng) the parser reads at or after it.
//! Inputs: captures the generator writes (every feed, both formats, random seeds) and the real
//! IEX captures in data/.

use std::io::Read;
use std::path::Path;
use std::sync::OnceLock;

use md_shootout::capture::resync::{find_boundary, settled_boundary, Framing, Settled};
use md_shootout::capture::CaptureReader;
use md_shootout::error::Error;
use md_shootout::gen::{self, CaptureKind, GenOptions};
use md_shootout::model::Feed;
use proptest::prelude::*;

/// A capture with the offsets of its records as the parser reads them (a record the file ends
/// inside included), and where the file header ends.
struct Walked {
    bytes: Vec<u8>,
    starts: Vec<u64>,
    framing: Framing,
    header: usize,
    /// The file ends inside its last record.
    cut_short: bool,
}

impl Walked {
    fn new(bytes: Vec<u8>) -> Walked {
        let mut reader = CaptureReader::new(&bytes[..]).unwrap();
        let mut starts = Vec::new();
        let mut cut_short = false;
        loop {
            match reader.next_frame() {
                Ok(Some(frame)) => starts.push(frame.offset),
                Ok(None) => break,
                Err(Error::CutShort(tail)) => {
                    starts.push(tail.offset);
                    cut_short = true;
                    break;
                }
                Err(e) => panic!("{e}"),
            }
        }
        let (framing, header) = Framing::read(&bytes).unwrap();
        assert_eq!(starts.first().copied(), Some(header as u64));
        Walked {
            bytes,
            starts,
            framing,
            header,
            cut_short,
        }
    }

    /// The first record start at or after `x`, relative to `x`.
    fn truth(&self, x: usize) -> Option<usize> {
        let i = self.starts.partition_point(|&s| (s as usize) < x);
        self.starts.get(i).map(|&s| s as usize - x)
    }

    /// What a probe of `probe` bytes from `x` settles (up to the end of the file), told the
    /// final probe's size (`last`) or not.
    fn settle(&self, x: usize, probe: usize, last: Option<usize>) -> Settled {
        let end = x.saturating_add(probe).min(self.bytes.len());
        let at_eof = end == self.bytes.len();
        settled_boundary(&self.bytes[x..end], x as u64, &self.framing, at_eof, last)
    }

    /// Resync from `x` with `window` bytes (or up to the end of the file).
    fn resync(&self, x: usize, window: usize) -> Option<usize> {
        let end = x.saturating_add(window).min(self.bytes.len());
        let at_eof = end == self.bytes.len();
        find_boundary(&self.bytes[x..end], x as u64, &self.framing, at_eof)
    }
}

fn gunzip(name: &str, limit: u64) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join(name);
    let mut bytes = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
        .take(limit)
        .read_to_end(&mut bytes)
        .unwrap();
    bytes
}

/// Resync's contract: 1 MiB plus the largest record; IEX frames are under 1.6 KB, so 64 KiB
/// leaves a chain of eight plenty of room and makes the window's end matter in the tests.
const WINDOW: usize = 64 << 10;
const PREFIX: u64 = 2 << 20;
/// The final probe of `stream::regions` (1 MiB + the largest frame + 64): both real files are
/// longer than a prefix and this, so a probe in a prefix may be told it.
const LAST_PROBE: usize = (1 << 20) + (256 << 10) + 64;

/// The first 2 MB of IEX's DEEP 1.0 sample (pcap, µs) and of the TOPS 1.6 HIST file (pcapng):
/// the prefix ends inside a record, as a shard's window does.
fn real_prefixes() -> &'static [Walked; 2] {
    static PREFIXES: OnceLock<[Walked; 2]> = OnceLock::new();
    PREFIXES.get_or_init(|| {
        [
            Walked::new(gunzip("DEEP10.pcap.gz", PREFIX)),
            Walked::new(gunzip("20180127_IEXTP1_TOPS1.6.pcap.gz", PREFIX)),
        ]
    })
}

fn generated(feed: Feed, capture: CaptureKind, seed: u64) -> Walked {
    let opts = GenOptions {
        feed,
        capture,
        packets: 1_500,
        seed,
        symbols: 50,
    };
    let mut bytes = Vec::new();
    gen::generate(&opts, &mut bytes).unwrap();
    Walked::new(bytes)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Generated captures, every feed and both formats: from random offsets, the whole rest of
    /// the file (at its end) and a 64 KiB window agree with the parser, past the last record too.
    #[test]
    fn generated_captures_resync_where_the_parser_reads(
        feed in prop_oneof![Just(Feed::Deep), Just(Feed::Tops), Just(Feed::DeepPlus)],
        pcapng in any::<bool>(),
        seed in 1u64..1_000_000,
        offsets in proptest::collection::vec(any::<prop::sample::Index>(), 48),
    ) {
        let capture = if pcapng { CaptureKind::Pcapng } else { CaptureKind::Pcap };
        let w = generated(feed, capture, seed);
        let records = w.bytes.len() - w.header;
        // The last 2 KB (inside and past the last record) get as many draws as the rest.
        let tail = w.bytes.len() - 2048;
        for (i, at) in offsets.iter().enumerate() {
            let x = if i % 2 == 0 { w.header + at.index(records) } else { tail + at.index(2049) };
            let want = w.truth(x);
            prop_assert_eq!(w.resync(x, usize::MAX), want, "offset {}", x);
            prop_assert_eq!(w.resync(x, WINDOW), want, "offset {} in a window", x);
            // A probe of any size answers the parser's record or widens, never another.
            let probe = 16 + at.index(4096);
            match w.settle(x, probe, None) {
                Settled::At(k) => prop_assert_eq!(Some(k), want, "offset {} probe {}", x, probe),
                Settled::NoRecord => prop_assert_eq!(want, None, "offset {}", x),
                Settled::Widen => prop_assert!(x + probe < w.bytes.len(), "offset {}", x),
            }
        }
    }

    /// The real captures' first 2 MB, as a shard's window (not at the end of the file).
    #[test]
    fn real_captures_resync_where_the_parser_reads(
        offsets in proptest::collection::vec(any::<prop::sample::Index>(), 256),
    ) {
        for w in real_prefixes() {
            for at in &offsets {
                let x = w.header + at.index(w.bytes.len() - WINDOW - w.header);
                prop_assert_eq!(w.resync(x, WINDOW), w.truth(x), "offset {}", x);
                // A probe of the run's first size answers the parser's record or widens.
                match w.settle(x, 128 << 10, Some(LAST_PROBE)) {
                    Settled::At(k) => prop_assert_eq!(Some(k), w.truth(x), "offset {}", x),
                    other => prop_assert_eq!(other, Settled::Widen, "offset {}", x),
                }
            }
        }
    }
}

/// Every offset of the last 16 KiB of each real file, with the end of the file: DEEP10's last
/// record is cut short (the parser reads the records before it with `--lenient`, and resync
/// finds all of them and the cut record's start); the TOPS file ends on a block boundary.
#[test]
fn real_captures_resync_to_their_end() {
    for name in ["DEEP10.pcap.gz", "20180127_IEXTP1_TOPS1.6.pcap.gz"] {
        let w = Walked::new(gunzip(name, u64::MAX));
        assert_eq!(w.cut_short, name.starts_with("DEEP"), "{name}");
        for x in w.bytes.len() - (16 << 10)..=w.bytes.len() {
            assert_eq!(w.resync(x, usize::MAX), w.truth(x), "{name} offset {x}");
        }
    }
}

/// How often the run's first probe (128 KiB) settles a boundary on real data, told the final
/// probe's size as `stream::regions` tells it: every 251st offset of each prefix. Widening costs
/// a share 1.25 MiB more read per boundary, so it must stay rare.
#[test]
fn the_first_probe_settles_nearly_every_boundary_of_real_data() {
    for w in real_prefixes() {
        let offsets: Vec<usize> = (w.header..w.bytes.len() - WINDOW).step_by(251).collect();
        let mut widened = 0;
        for &x in &offsets {
            match w.settle(x, 128 << 10, Some(LAST_PROBE)) {
                Settled::At(k) => assert_eq!(Some(k), w.truth(x), "offset {x}"),
                Settled::Widen => widened += 1,
                other => panic!("offset {x}: {other:?}"),
            }
        }
        let share = widened as f64 / offsets.len() as f64;
        eprintln!(
            "{} of {} offsets widened ({share:.4})",
            widened,
            offsets.len()
        );
        assert!(
            share < 0.01,
            "{widened} of {} offsets widened",
            offsets.len()
        );
    }
}
