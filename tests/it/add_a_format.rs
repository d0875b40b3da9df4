//! A new format, added the way docs/formats.md ("How to add ...") says: a copy of `raw` under a
//! name of its own, whose file is this one. What its file states (the `Format` impl and its
//! consts) is all the runner, the every-field checks and the capability checks that measure
//! (validation, zero-copy) need; what is found by name (its evolution check, its reader in
//! another language) needs the registry line, and says so rather than guess.

use md_shootout::capability::assess;
use md_shootout::formats::raw::Raw;
use md_shootout::formats::window::Packets;
use md_shootout::formats::{
    DecodeError, Descriptor, Documented, Format, OtherLanguages, Sink, Unit, Visitor,
};
use md_shootout::gen::{self, GenOptions};
use md_shootout::measure::runner::runner;
use md_shootout::measure::shootout::run_with;
use md_shootout::measure::stored::StoredMode;
use md_shootout::measure::{Config, Schedule};
use md_shootout::model::Packet;
use md_shootout::stream::IexReader;

/// The new format's file: `raw`'s codec, its own name, its documentation and its other-language
/// cell stated once.
#[derive(Default)]
struct RawCopy(Raw);

impl Format for RawCopy {
    const NAME: &'static str = "raw-copy";
    const DOCUMENTED: Documented = Raw::DOCUMENTED;
    const OTHER_LANGUAGES: OtherLanguages = OtherLanguages::RustOnly {
        detail: "a copy of raw's records, no implementation outside this test",
        source: "tests/it/add_a_format.rs",
    };

    fn encode(&mut self, packet: &Packet, out: &mut Vec<u8>) -> usize {
        self.0.encode(packet, out)
    }

    fn decode<K: Sink>(&mut self, bytes: &[u8], sink: &mut K) -> Result<usize, DecodeError> {
        self.0.decode(bytes, sink)
    }

    fn decode_all<V: Visitor>(
        &mut self,
        bytes: &[u8],
        visitor: &mut V,
    ) -> Result<usize, DecodeError> {
        self.0.decode_all(bytes, visitor)
    }
}

fn capture(packets: u64) -> Vec<u8> {
    let mut bytes = Vec::new();
    let opts = GenOptions {
        packets,
        ..GenOptions::default()
    };
    gen::generate(&opts, &mut bytes).unwrap();
    bytes
}

#[test]
fn a_copy_of_raw_is_described_run_and_checked_from_its_file_alone() {
    // Its descriptor is what its file says.
    let d = Descriptor::of::<RawCopy>();
    assert_eq!((d.name, d.unit), ("raw-copy", Unit::Packet));
    assert!(!d.trusts_producer() && d.lossy.is_none() && d.code_path.is_none());
    assert!(matches!(d.other_languages, OtherLanguages::RustOnly { .. }));

    // A run beside raw: every field of every message checked, the same bytes and aggregation.
    let bytes = capture(3_000);
    let config = Config {
        stored: StoredMode::None,
        window: 512,
        timing: Schedule::Both,
        verify: true,
        ..Config::default()
    };
    let reader = IexReader::new(&bytes[..], false).unwrap();
    let runners = vec![runner::<Raw>(), runner::<RawCopy>()];
    let outcome = run_with(reader, &config, runners, |_| {}).expect("both pass every check");
    let [raw, copy] = &outcome.formats[..] else {
        panic!("two rows: {:?}", outcome.formats.len())
    };
    assert_eq!(copy.name, "raw-copy");
    assert_eq!(copy.encoded_bytes, raw.encoded_bytes);
    assert_eq!(copy.messages_encoded, raw.messages_encoded);
    assert!(copy.messages_encoded > 3_000);
    assert_eq!(copy.aggregate, raw.aggregate);
}

#[test]
fn its_capability_row_measures_what_its_file_allows_and_names_what_the_registry_adds() {
    // The checks' own sample: a packet of every message kind, then the bundled captures' first.
    let packets = md_shootout::capability::cross_language::shared_sample().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let row = assess::row::<Packets<RawCopy>>(packets, scratch.path());
    let raw = assess::row::<Packets<Raw>>(packets, scratch.path());
    let cell = |r: &md_shootout::capability::row::Row, name: &str| {
        let json = serde_json::to_value(r).unwrap();
        json[name].as_str().unwrap_or_default().to_owned()
    };
    // Measured from the file alone, as raw's are.
    for name in ["schema", "zero_copy", "validates"] {
        assert_eq!(cell(&row, name), cell(&raw, name), "{name}");
    }
    assert!(
        cell(&row, "validates").starts_with("yes: every one of"),
        "{row:?}"
    );
    // Found by name through the registry: a format not in it has no check, and says so.
    assert_eq!(
        cell(&row, "evolution_forward"),
        "no: no evolution check exists for this format"
    );
}
