//! Every input a fuzzer once broke us with, replayed through the same path as its fuzz target.
//! Files are named `<target>-<what>.bin` in `tests/fuzz-regressions/`.

use std::path::Path;

use md_shootout::formats::{Aggregate, Checksum, DecodeError};
use md_shootout::iex::Segment;
use md_shootout::inspect::Tally;
use md_shootout::measure::clock::Timer;
use md_shootout::measure::runner::PassIo;
use md_shootout::measure::{registry, Timing, Workload};

/// What the `format_decode` target does, returning both decode results; `None` where it does
/// nothing (no format at that position, or one that trusts its producer).
fn format_decode(data: &[u8]) -> Option<(&'static str, bool, bool)> {
    let (&pick, bytes) = data.split_first()?;
    let mut runners = registry();
    let runner = runners.get_mut(usize::from(pick))?;
    if runner.trusts_producer() {
        return None;
    }
    runner.load(bytes).unwrap();
    let timer = Timer::calibrate();
    let mut decode = |workload, timing| {
        let (mut aggregate, mut checksum) = (Aggregate::new(), Checksum::default());
        let mut io = PassIo::new(&[], &mut aggregate, &mut checksum);
        runner
            .pass(workload, timing, &mut io, &timer, &mut Vec::new())
            .is_ok()
    };
    let [selective, complete] = [Workload::Selective, Workload::Complete].map(|w| {
        // A pass timed per window walks the same bytes and must agree with one timed per unit.
        let [unit, window] = Timing::ALL.map(|t| decode(w, t));
        assert_eq!(unit, window, "{w:?}");
        unit
    });
    let packets = runner.decode_packets(&mut Vec::new()).is_ok();
    assert_eq!(complete, packets, "{}", runner.name());
    Some((runner.name(), selective, packets))
}

#[test]
fn every_recorded_fuzz_finding_is_handled() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-regressions");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let data = std::fs::read(&path).unwrap();
        seen += 1;
        match name.split('-').next().unwrap() {
            "format_decode" => {
                format_decode(&data);
            }
            "stream" => {
                if let Some((&mode, file)) = data.split_first() {
                    let _ = Tally::from_reader(file, mode & 1 == 1);
                }
            }
            "iex_segment" => {
                let _ = Segment::parse(&data).map(|s| s.map(|s| s.messages().count()));
            }
            "capture" => {
                if let Ok(mut r) = md_shootout::capture::CaptureReader::new(&data[..]) {
                    while let Ok(Some(_)) = r.next_frame() {}
                }
            }
            other => panic!("{name}: unknown fuzz target {other}"),
        }
    }
    assert!(seen >= 1);
}

/// A Cap'n Proto packet whose message list claims millions of zero-sized elements made
/// `decode_packet` reserve gigabytes (fuzzer: out-of-memory, malloc of 2.8 GB). It must now be
/// refused as malformed.
#[test]
fn capnp_list_claiming_millions_of_messages_is_refused() {
    let data = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fuzz-regressions/format_decode-capnp-list-oom.bin"),
    )
    .unwrap();
    let (name, _, packets_ok) = format_decode(&data).unwrap();
    assert_eq!(name, "capnp-unpacked");
    assert!(!packets_ok);
    let mut runners = registry();
    runners[0].load(&data[1..]).unwrap();
    let mut out = Vec::new();
    let err = runners[0].decode_packets(&mut out).unwrap_err();
    // Before the fix this decoded the first packet (reserving 2.8 GB) and failed only on the
    // next one ("Too many or too few segments"). Now the first packet is refused: by the
    // traversal limit, or by the message-count cap when the list is within it.
    let refused_early = match &err {
        DecodeError::Library { message, .. } => message.contains("Read limit exceeded"),
        other => *other == DecodeError::Malformed("more messages than an IEX-TP packet can hold"),
    };
    assert!(refused_early, "{err:?}");
    assert!(out.is_empty(), "no packet decoded before the refusal");
}

/// The fuzz target skips a format that trusts its producer, and its runner refuses foreign
/// bytes: every other format's runner takes them.
#[test]
fn formats_that_trust_their_producer_are_never_fed_foreign_bytes() {
    let trusting: Vec<_> = md_shootout::formats::descriptors()
        .iter()
        .filter(|d| d.trusts_producer())
        .map(|d| d.name)
        .collect();
    assert_eq!(trusting, ["flatbuffers-unverified", "rkyv-unchecked"]);
    for (i, mut runner) in registry().into_iter().enumerate() {
        let noise = [i as u8, 0xff, 0x00, 0x10, 0x00, 0x00, 0x00, 0x7f];
        let trusts = trusting.contains(&runner.name());
        assert_eq!(runner.trusts_producer(), trusts, "{}", runner.name());
        assert_eq!(
            runner.load(&noise[1..]).is_err(),
            trusts,
            "{}",
            runner.name()
        );
        if trusts {
            assert!(runner.buffer().is_empty(), "{}", runner.name());
            assert_eq!(format_decode(&noise), None, "{}", runner.name());
        } else {
            assert_eq!(runner.buffer(), &noise[1..]);
            assert_eq!(format_decode(&noise).unwrap().0, runner.name());
        }
    }
}
