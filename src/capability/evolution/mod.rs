//! Schema evolution, measured. Version 2 of the schema appends one field to Trade Report and one
//! to Add Order (`schemas/evolution-v2.txt`); build.rs generates each format's v2 into OUT_DIR
//! beside its v1. For every format, through its own evolution mechanism:
//!
//! - **forward**: bytes written by a v2 writer are read by the v1 reader (the codec under test):
//!   does it read every v1 field exactly?
//! - **backward**: bytes written by the v1 writer (the codec under test) are read by a v2
//!   reader: does it see the new fields' defaults?
//!
//! Where a format cannot, the finding records what happened (an error, or which field came out
//! wrong) rather than skipping it. Where the crate under test cannot but the format's
//! specification can (Avro, SBE), [`of_the_format`] asks the format's reference implementation
//! too (`evolution::reference`), so that the row answers for the format beside the crate.

/// `impl Evolves` for each format type `$F`: its findings `$check`, and where it has one its
/// reference answer `$reference`, a function of the scratch folder.
macro_rules! evolves {
    ($($F:ty => $check:expr $(, reference $reference:expr)?;)+) => {$(
        impl $crate::capability::evolution::Evolves for $F {
            fn evolution() -> $crate::capability::evolution::Findings {
                $check
            }
            $(
                fn reference(
                    scratch: &std::path::Path,
                ) -> Option<$crate::capability::evolution::FormatEvolution> {
                    ($reference)(scratch)
                }
            )?
        }
    )+};
}

mod arrow;
mod avro;
mod bebop;
mod bitcode;
mod buffa;
mod capnp;
mod compiled;
mod dbn;
mod flatbuffers;
mod fory;
mod harness;
mod musli;
mod musli_zerocopy;
mod planus;
mod protobuf;
mod protobuf_google;
mod raw;
mod reference;
mod rkyv;
mod sbe;
mod sequential;
mod serde_formats;
pub mod v2;

use std::path::Path;

use super::finding::Finding;
use crate::formats::window::Packets;
use crate::formats::{Format, WindowFormat};
pub use reference::FormatEvolution;

/// Both directions' findings for one format.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Evolution {
    /// A v1 reader on v2 bytes.
    pub forward: Finding,
    /// A v2 reader on v1 bytes.
    pub backward: Finding,
}

/// Both directions' findings: forward (a v1 reader on v2 bytes), backward.
type Findings = (Finding, Finding);

/// A format's evolution check, implemented for its codec's type in the format's file below;
/// [`check`] finds it through the registries ([`by_name`]). Each file returns its findings
/// rather than an [`Evolution`], so that it imports nothing from this file but this trait
/// (scripts/imports.py: no cycles).
pub(crate) trait Evolves {
    /// Both directions' findings: forward (a v1 reader on v2 bytes), backward.
    fn evolution() -> (Finding, Finding);

    /// The format's answer through its reference implementation, for a format whose
    /// specification evolves where its crate does not (Avro, SBE); scratch files under
    /// `scratch`. `None` for a format without one.
    fn reference(_scratch: &Path) -> Option<FormatEvolution> {
        None
    }
}

/// What is done with a format's type once [`by_name`] finds it: `W` is the format as a window
/// format (a packet format through [`Packets`]), `E` the type its evolution check is for.
pub(crate) trait ByName {
    type Out;
    fn call<W: WindowFormat, E: Evolves>(&self) -> Self::Out;
}

/// `by`'s call on the format named `name` in either registry, or `None` for a name no format has.
pub(crate) fn by_name<B: ByName>(name: &str, by: &B) -> Option<B::Out> {
    macro_rules! packet {
        ($($module:ident: [$($n:ident: $F:ty),+ $(,)?]),* $(,)?) => {
            match name {
                $($(<$F as Format>::NAME => Some(by.call::<Packets<$F>, $F>()),)+)*
                _ => None,
            }
        };
    }
    macro_rules! window {
        ($($module:ident: [$($n:ident: $F:ty),+ $(,)?]),* $(,)?) => {
            match name {
                $($(<$F as WindowFormat>::NAME => Some(by.call::<$F, $F>()),)+)*
                _ => None,
            }
        };
    }
    crate::for_each_format!(packet).or_else(|| crate::for_each_window_format!(window))
}

/// A format's [`Evolves`] as values.
struct Hooks;

impl ByName for Hooks {
    type Out = (fn() -> Findings, fn(&Path) -> Option<FormatEvolution>);
    fn call<W: WindowFormat, E: Evolves>(&self) -> Self::Out {
        (E::evolution, E::reference)
    }
}

/// The evolution check of the format named `format` (its `Format::NAME`), or `None` for a name
/// no format has. A format that trusts its producer writes its checked twin's bytes, and its
/// file's check is the twin's (verifier included, since it reads another writer's bytes).
pub fn check(format: &str) -> Option<Evolution> {
    let (forward, backward) = by_name(format, &Hooks)?.0();
    Some(Evolution { forward, backward })
}

/// The format's own answer beside `crate_` (the crate's, from [`check`]): where the crate says
/// `no` in a direction and the format named `format` has a reference implementation to ask
/// (its file's `Evolves::reference`); scratch files under `scratch`.
pub fn of_the_format(format: &str, crate_: &Evolution, scratch: &Path) -> Option<FormatEvolution> {
    if crate_.forward.yes() && crate_.backward.yes() {
        return None;
    }
    by_name(format, &Hooks)?.1(scratch)
}

#[cfg(test)]
mod tests {
    use super::harness::{assert_answers, assert_round_trip, decode, forward, of_source, source};
    use super::*;
    use crate::formats::borsh::Borsh;
    use crate::formats::json::Json;
    use crate::formats::rkyv::Rkyv;
    use crate::formats::wincode::Wincode;

    /// The appended fields as build.rs read them from schemas/evolution-v2.txt. What the source
    /// and the v2 writers hold, the exact answers assert (below, and in the formats' files:
    /// `cbor_evolves_both_ways_with_serde_defaults`, `the_v2_json_writer_writes_the_appended_fields`).
    #[test]
    fn version_2_appends_the_fields_of_its_file() {
        assert_eq!(
            v2::APPENDED.map(|a| (a.message, a.field, a.ty, a.default, a.value)),
            [
                ("TradeReport", "match_id", "i64", 0, 81_985_529_216_486_895),
                ("AddOrder", "attribution", "u32", 0, 1_196_967_241)
            ]
        );
        assert_eq!(v2::ATTRIBUTION.value.to_le_bytes(), *b"IEXG");
        assert_eq!(v2::appended_to("TradeBreak"), None);
    }

    /// The check compares with the source, not with what was written: a writer that swaps two
    /// fields makes a forward `yes` a `no` that names the field.
    #[test]
    fn a_v2_writer_that_swaps_two_fields_makes_forward_no() {
        let source = source();
        let bad = |write: fn(&v2::MPacket, &mut Vec<u8>)| {
            let write = of_source(write);
            move |p: &crate::model::Packet| write(&compiled::swapped(p))
        };
        let expected = "the v1 reader on v2 bytes, packet 0 (seq 1001): \
                        messages[1].TradeReport.price came out as 4242001 where the source has \
                        1892500";
        let json = forward(&source, bad(serde_formats::json_write), decode::<Json>);
        assert_eq!(json, Err(expected.to_owned()));
        let good = of_source(serde_formats::json_write);
        assert!(forward(&source, good, decode::<Json>).is_ok());
        let rkyv = forward(&source, bad(rkyv::write), decode::<Rkyv>);
        assert_eq!(rkyv, Err(expected.to_owned()));
        assert!(forward(&source, of_source(rkyv::write), decode::<Rkyv>).is_ok());
    }

    /// Each format's version 2 writer and reader agree with each other (so a `no` is the
    /// version mismatch, not a broken writer or reader).
    #[test]
    fn the_v2_writers_and_readers_round_trip() {
        assert_round_trip(serde_formats::json_write, serde_formats::json_read);
        assert_round_trip(serde_formats::postcard_write, serde_formats::postcard_read);
        assert_round_trip(serde_formats::msgpack_write, serde_formats::msgpack_read);
        assert_round_trip(serde_formats::cbor_write, serde_formats::cbor_read);
        assert_round_trip(bitcode::write, bitcode::read);
        assert_round_trip(rkyv::write, rkyv::read);
        assert_round_trip(raw::write, raw::read);
        assert_round_trip(sequential::write::<Wincode>, sequential::read::<Wincode>);
        assert_round_trip(sequential::write::<Borsh>, sequential::read::<Borsh>);
    }

    /// The dispatch reaches each format's check by its `Format::NAME`, measured; the
    /// schema-compiled formats' (but SBE's) evolve both ways, and a framing's findings name it.
    #[test]
    fn every_format_of_this_check_is_dispatched_and_measured() {
        let compiled = [
            "capnp-unpacked",
            "capnp-packed",
            "flatbuffers",
            "protobuf",
            "protobuf-google",
            "planus",
        ];
        for name in compiled.into_iter().chain([
            "json",
            "postcard",
            "msgpack",
            "cbor",
            "bitcode",
            "rkyv",
            "raw",
            "wincode",
            "borsh",
            "json-sonic",
            "json-simd",
            "arrow",
        ]) {
            let e = check(name).expect(name);
            let both_ways = e.forward.yes() && e.backward.yes();
            assert!(both_ways || !compiled.contains(&name), "{name}: {e:?}");
            for f in [&e.forward, &e.backward] {
                assert!(f.measured, "{name}");
                assert!(
                    f.decided_by.starts_with("capability::evolution::"),
                    "{name}"
                );
            }
        }
        let packed = check("capnp-packed").unwrap();
        assert!(packed.forward.decided_by.contains("capnp-packed"));
        assert!(packed.backward.decided_by.contains("capnp-packed"));
        let sbe = check("sbe").expect("sbe has a check");
        assert!(sbe.forward.yes() && !sbe.backward.yes(), "{sbe:?}");
        assert_eq!(check("no-such-format"), None);
    }

    #[test]
    fn a_crate_that_evolves_both_ways_gets_no_format_answer() {
        let yes = Finding::measured(true, "", "t");
        let no = Finding::measured(false, "", "t");
        let dir = Path::new("/nonexistent");
        let both = |f: &Finding, b: &Finding| Evolution {
            forward: f.clone(),
            backward: b.clone(),
        };
        assert_eq!(of_the_format("avro", &both(&yes, &yes), dir), None);
        // A format without a reference check has none, whatever its crate says.
        assert_eq!(of_the_format("postcard", &both(&no, &no), dir), None);
    }

    /// dbn's cells are documented (no field of our own can be added to its records): forward
    /// no, backward yes for DBN's own versions.
    #[test]
    fn dbns_evolution_is_documented_from_the_crate() {
        let e = check("dbn").expect("dbn");
        assert!(!e.forward.measured && !e.backward.measured);
        assert!(!e.forward.yes() && e.backward.yes());
        assert!(e.backward.decided_by.contains("VersionUpgradePolicy"));
    }

    /// Neither version's reader unpacks the other's columns: both refuse the first packet whole.
    #[test]
    fn bitcode_refuses_the_other_version_s_packet() {
        assert_answers(
            crate::formats::bitcode::Bitcode::evolution(),
            bitcode::NO_MECHANISM,
            (
                "no: the v1 reader on v2 bytes, packet 0 (seq 1001): refused before any \
                 message: bitcode: invalid packing",
                "no: the v2 reader on v1 bytes, packet 0 (seq 1001): refused before any \
                 message: bitcode: invalid packing",
            ),
        );
    }
}
