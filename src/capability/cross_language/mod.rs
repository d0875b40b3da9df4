//! Other languages read our bytes, measured. The bytes each format writes are read by that
//! format's reference implementation in another language, and what it read is compared field by
//! field with the source packets ([`compare`]):
//!
//! | wire format ([`WireFormat`]) | reader | file |
//! |---|---|---|
//! | Cap'n Proto, unpacked and packed | `capnp convert binary:json` / `packed:json` (C++) | [`capnp`] |
//! | FlatBuffers | `flatc --json` (C++) | [`flatbuffers`] |
//! | Protocol Buffers | `protoc --decode` (C++) | [`protobuf`] |
//! | SBE | the Java decoders the SBE generator makes, driven by `xlang/SbeDump.java` | [`sbe`] |
//! | JSON lines | Python's `json` module, driven by `xlang/json_read.py` | [`json`] |
//! | Avro | Apache Avro's Python implementation, driven by `xlang/avro_read.py` | [`avro`] |
//! | MessagePack, CBOR | PyPI's `msgpack`, `cbor2`, driven by `xlang/serde_read.py` | [`serde_formats`] |
//! | Borsh | borsh-js (npm `borsh`), driven by `xlang/borsh_read.js` | [`borsh`] |
//! | Arrow IPC | pyarrow, driven by `xlang/arrow_read.py` | [`arrow`] |
//! | DBN | Databento's `databento-dbn` for Python, driven by `xlang/dbn_read.py` | [`dbn`] |
//! | Bebop | Bebop's TypeScript runtime and bebopc's TypeScript, driven by `xlang/bebop_read.js` | [`bebop`] |
//!
//! Which wire format a format writes is its descriptor's `other_languages`
//! ([`OtherLanguages`]), stated in the format's own file; a format with no implementation
//! outside Rust says why there, and the finding is documented with its source ([`rust_only`]).
//!
//! The input covers every message type of DEEP, TOPS and DEEP+: a packet of one message of every
//! kind, then the first packets of the three bundled captures ([`sample`]). Every format encodes
//! one packet as a self-delimiting unit, so each packet is encoded on its own and each tool is
//! handed the units in the form it takes, in one call per format (seconds, not minutes).

pub mod arrow;
pub mod avro;
pub mod bebop;
pub mod borsh;
pub mod capnp;
pub mod compare;
pub mod dbn;
pub mod flatbuffers;
pub mod fory;
pub mod json;
pub mod protobuf;
pub mod sbe;
pub mod serde_formats;
pub mod tool;

use std::path::{Path, PathBuf};

use super::evolution::{by_name, ByName, Evolves};
use super::finding::Finding;
use crate::formats::{OtherLanguages, WindowFormat, WireFormat};
use crate::model::Packet;
use compare::TheirPacket;
use tool::ToolError;

/// Which other languages read one format's bytes.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CrossLanguage {
    /// The languages whose reference implementation read every field exactly (`["C++"]`).
    pub languages: Vec<String>,
    /// Each language's finding (for a Rust-only format: one documented `no`).
    pub findings: Vec<(String, Finding)>,
}

/// How many packets of each bundled capture the check reads.
pub const PACKETS_PER_CAPTURE: usize = 200;

/// The captures the sample reads, under data/, and whether each is cut short at its end.
const CAPTURES: [(&str, bool); 3] = [
    ("DEEP10.pcap.gz", true),
    ("20180127_IEXTP1_TOPS1.6.pcap.gz", false),
    ("sample-deep-plus.pcapng.gz", false),
];

/// The packets every check encodes: one message of every kind (`formats::every_kind`), then the
/// first [`PACKETS_PER_CAPTURE`] packets of the DEEP, TOPS and DEEP+ captures in data/.
pub fn sample() -> Result<Vec<Packet>, String> {
    let mut packets = vec![crate::formats::every_kind()];
    for (file, lenient) in CAPTURES {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("data")
            .join(file);
        packets.extend(first_packets(&path, lenient, PACKETS_PER_CAPTURE)?);
    }
    Ok(packets)
}

/// The first `n` IEX-TP segments of `path` as packets (messages of unknown types left out, as
/// the shootout does).
pub fn first_packets(path: &Path, lenient: bool, n: usize) -> Result<Vec<Packet>, String> {
    let mut opened = crate::stream::open(path, lenient).map_err(|e| e.to_string())?;
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let item = match opened.reader.next_segment() {
            Ok(Some(item)) => item,
            Ok(None) => break,
            Err(e) => return Err(opened.error(path, e).to_string()),
        };
        let header = item.segment.header;
        out.push(Packet {
            seq: header.first_seq,
            send_time: header.send_time,
            messages: item
                .segment
                .messages()
                .filter_map(Result::ok)
                .map(|m| m.to_owned())
                .collect(),
        });
    }
    Ok(out)
}

/// `packets` in the units the format named `format` writes ([`WindowFormat::units`]): each
/// packet on its own for a packet format, one window for a window format. `None` for a name no
/// format has.
pub fn encode(format: &str, packets: &[Packet]) -> Option<Vec<Vec<u8>>> {
    struct Units<'a>(&'a [Packet]);
    impl ByName for Units<'_> {
        type Out = Vec<Vec<u8>>;
        fn call<W: WindowFormat, E: Evolves>(&self) -> Self::Out {
            W::default().units(self.0)
        }
    }
    by_name(format, &Units(packets))
}

/// Reads the encoded packets (one unit each) in another language, scratch files under the
/// directory given; what it read.
pub type ReadFn = fn(&[Vec<u8>], &Path) -> Result<Vec<TheirPacket>, ToolError>;

/// One other language's reader of a format's bytes.
#[derive(Clone, Copy)]
pub struct Reader {
    /// The language (`C++`).
    pub language: &'static str,
    /// What reads the bytes, with its version: the finding's `decided_by`.
    pub describe: fn() -> Result<String, ToolError>,
    pub read: ReadFn,
}

/// The reader of the format named `format` in another language; `None` for a Rust-only format
/// or an unknown name.
pub fn reader(format: &str) -> Option<Reader> {
    match crate::formats::descriptor(format)?.other_languages {
        OtherLanguages::Read(wire) => Some(reader_of(wire)),
        OtherLanguages::RustOnly { .. } => None,
    }
}

/// The one reader of each wire format another language reads.
fn reader_of(wire: WireFormat) -> Reader {
    use serde_formats::{read_cbor as cbor, read_msgpack as msgpack};
    let (language, describe, read): (_, fn() -> _, ReadFn) = match wire {
        WireFormat::CapnpUnpacked => ("C++", capnp::describe, capnp::read::<false>),
        WireFormat::CapnpPacked => ("C++", capnp::describe, capnp::read::<true>),
        WireFormat::FlatBuffers => ("C++", flatbuffers::describe, flatbuffers::read),
        WireFormat::Protobuf => ("C++", protobuf::describe, protobuf::read),
        WireFormat::Sbe => ("Java", sbe::describe, sbe::read),
        WireFormat::Json => ("Python", json::describe, json::read),
        WireFormat::Avro => ("Python", avro::describe, avro::read),
        WireFormat::Msgpack => (
            "Python",
            || serde_formats::describe(serde_formats::MSGPACK),
            msgpack,
        ),
        WireFormat::Cbor => (
            "Python",
            || serde_formats::describe(serde_formats::CBOR),
            cbor,
        ),
        WireFormat::Borsh => ("JavaScript", borsh::describe, borsh::read),
        WireFormat::Arrow => ("Python", arrow::describe, arrow::read),
        WireFormat::Dbn => ("Python", dbn::describe, dbn::read),
        WireFormat::Fory => ("Python", fory::describe, fory::read),
        WireFormat::Bebop => ("TypeScript", bebop::describe, bebop::read),
    };
    Reader {
        language,
        describe,
        read,
    }
}

/// Why a Rust-only format has no reader in another language, and the source that says so (its
/// descriptor's [`OtherLanguages::RustOnly`]).
pub fn rust_only(format: &str) -> Option<Finding> {
    match crate::formats::descriptor(format)?.other_languages {
        OtherLanguages::RustOnly { detail, source } => {
            Some(Finding::documented(false, detail, source))
        }
        OtherLanguages::Read(_) => None,
    }
}

/// [`sample`], read once per process: every format's check (and `capability::assess`'s
/// zero-copy check) encodes the same packets.
pub fn shared_sample() -> Result<&'static [Packet], &'static str> {
    static SAMPLE: std::sync::OnceLock<Result<Vec<Packet>, String>> = std::sync::OnceLock::new();
    let sample = SAMPLE.get_or_init(sample);
    sample.as_deref().map_err(String::as_str)
}

/// The check for the format named `format`: every other language's finding, and the languages
/// that read every field of every sample packet exactly. Scratch files (encoded packets, the
/// generated and compiled Java decoders) go under `scratch`. `None` for an unknown name.
pub fn read_by(format: &str, scratch: &Path) -> Option<CrossLanguage> {
    if let Some(finding) = rust_only(format) {
        return Some(CrossLanguage {
            languages: Vec::new(),
            findings: vec![("other languages".into(), finding)],
        });
    }
    let reader = reader(format)?;
    let finding = match shared_sample() {
        Ok(packets) => check(format, reader, packets, |_| {}, scratch),
        Err(e) => Finding::measured(
            false,
            format!("the sample could not be read: {e}"),
            "sample",
        ),
    };
    let languages = finding.yes().then(|| reader.language.to_owned());
    Some(CrossLanguage {
        languages: languages.into_iter().collect(),
        findings: vec![(reader.language.to_owned(), finding)],
    })
}

/// Encodes `packets` with `format`, lets `mutate` alter the bytes (tests), hands them to `reader`
/// and compares what it read with `packets`.
pub fn check(
    format: &str,
    reader: Reader,
    packets: &[Packet],
    mutate: impl FnOnce(&mut [Vec<u8>]),
    scratch: &Path,
) -> Finding {
    let decided_by = match (reader.describe)() {
        Ok(d) => d,
        Err(e) => {
            let lookup = format!(
                "capability::cross_language: the {} reader's tool",
                reader.language
            );
            return Finding::measured(false, e.to_string(), lookup);
        }
    };
    let Some(mut units) = encode(format, packets) else {
        return Finding::measured(false, format!("no format is named {format}"), decided_by);
    };
    mutate(&mut units);
    let dir: PathBuf = scratch.join(format);
    let theirs = match tool::make_dir(&dir).and_then(|()| (reader.read)(&units, &dir)) {
        Ok(theirs) => theirs,
        Err(e) => return Finding::measured(false, e.to_string(), decided_by),
    };
    // A lossy format's bytes hold what it carries: compared with the source projected so.
    let carried: Option<Vec<Packet>> = crate::formats::descriptor(format)
        .and_then(|d| d.lossy)
        .map(|l| packets.iter().map(l.project).collect());
    let packets = carried.as_deref().unwrap_or(packets);
    match compare::compare(packets, &theirs) {
        Ok(tally) => Finding::measured(
            true,
            format!(
                "{} messages of {} types read exactly by {decided_by}",
                tally.messages,
                tally.kinds.len()
            ),
            decided_by,
        ),
        Err(difference) => Finding::measured(false, difference, decided_by),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reads_exactly(format: &str, language: &str) {
        let dir = tempfile::tempdir().unwrap();
        let found = read_by(format, dir.path()).expect("a known format");
        let (lang, finding) = &found.findings[0];
        assert_eq!(lang, language);
        assert!(finding.yes(), "{format}: {}", finding.answer);
        assert!(finding.measured);
        assert_eq!(found.languages, vec![language.to_string()]);
        // Every kind of the table, and more than the one packet of every kind.
        let kinds = crate::model::kind::ALL.len();
        finding.assert_says(&format!("of {kinds} types read exactly by"));
        let n: usize = finding.answer["yes: ".len()..]
            .split(' ')
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap();
        assert!(n > 1_000, "{}", finding.answer);
    }

    /// The readers tests/it/decision.rs does not assert (it asserts the others' `read_by`, their
    /// findings `yes`) read every field of the sample exactly. dbn: Databento's own Python reader
    /// reads our records behind the crate's metadata header, and what it read, mapped back by the
    /// script's own table, is the source as `dbn` carries it.
    #[test]
    fn avro_and_dbn_are_read_by_python() {
        reads_exactly("avro", "Python");
        reads_exactly("dbn", "Python");
    }

    /// One trade whose symbol's bytes appear once, as they are, in every format's encoding.
    fn marked() -> Vec<Packet> {
        vec![compare::tests::trade("MUTATEME", 1_500_000)]
    }

    /// Bytes altered after encoding: each tool reads the altered symbol, and the comparison says
    /// so, naming the packet, message and field.
    #[test]
    fn a_byte_altered_after_encoding_is_named() {
        let dir = tempfile::tempdir().unwrap();
        for format in [
            "capnp-unpacked",
            "capnp-packed",
            "flatbuffers",
            "protobuf",
            "sbe",
            "json",
            "avro",
            "msgpack",
            "cbor",
            "borsh",
            "json-sonic",
            "json-simd",
        ] {
            let reader = reader(format).unwrap();
            let alter = |units: &mut [Vec<u8>]| {
                let unit = &mut units[0];
                let at = unit
                    .windows(8)
                    .position(|w| w == b"MUTATEME")
                    .expect("the symbol's bytes are in the encoding");
                unit[at + 7] = b'F';
            };
            let finding = check(format, reader, &marked(), alter, dir.path());
            assert_eq!(
                finding.answer,
                "no: packet 1 (seq 9), message 1 (TradeReport), field symbol: \
                 ours \"MUTATEME\" vs theirs \"MUTATEMF\"",
                "{format}"
            );
            assert!(finding.measured && !finding.yes());
        }
    }

    #[test]
    fn rust_only_formats_are_documented_noes() {
        for format in ["rkyv", "bitcode", "postcard", "wincode", "raw"] {
            let found = read_by(format, Path::new("/nonexistent")).unwrap();
            assert!(found.languages.is_empty(), "{format}");
            let (_, finding) = &found.findings[0];
            assert!(
                finding.answer.starts_with("no: no implementation"),
                "{format}"
            );
            assert!(
                !finding.measured && !finding.decided_by.is_empty(),
                "{format}"
            );
        }
        assert!(read_by("nonesuch", Path::new("/nonexistent")).is_none());
        // Every format is either checked or documented.
        for name in crate::formats::names() {
            assert!(
                reader(name).is_some() != rust_only(name).is_some(),
                "{name}"
            );
        }
    }

    /// A tool that is not installed is a `no` naming what to install, not a panic.
    #[test]
    fn a_missing_tool_is_a_no_naming_what_to_install() {
        let tool = tool::Tool {
            program: PathBuf::from("/nonexistent/protoc"),
            install: "Debian's protobuf-compiler",
        };
        let err = tool.version(&["--version"]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "/nonexistent/protoc not found (install Debian's protobuf-compiler: \
             scripts/bootstrap.sh does)"
        );
        let missing = Reader {
            language: "C++",
            describe: || {
                Err(tool::Tool {
                    program: PathBuf::from("/nonexistent/capnp"),
                    install: "Debian's capnproto",
                }
                .version(&["--version"])
                .unwrap_err())
            },
            read: |_, _| unreachable!("a reader whose tool is missing is not run"),
        };
        let finding = check(
            "capnp-packed",
            missing,
            &marked(),
            |_| {},
            Path::new("/nonexistent"),
        );
        assert!(
            finding
                .answer
                .starts_with("no: /nonexistent/capnp not found (install Debian's capnproto"),
            "{}",
            finding.answer
        );
    }
}
