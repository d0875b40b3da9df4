//! musli and musli-wire: version 2 is [`v2::Wire`](super::v2::Wire), derived like version 1's
//! with `#[musli(default)]` on each appended field (the mechanism Müsli's docs give for a field
//! a newer model adds), written and read as `formats::sequential` lays out a packet, by the same
//! encoding as the codec under test.
//!
//! What its docs say, measured: `musli::storage` is *partially* upgrade safe (a field is its
//! index and its value, with no type or length), so a v2 reader fills a missing field with its
//! default, but a v1 reader cannot step over the field it does not know; `musli::wire` tags
//! every value with its type and length, so it evolves both ways.

use super::harness::both;
use super::sequential::{read, write, Codec2};
use crate::capability::finding::Finding;
use crate::formats::musli::{Musli, MusliWire};
use crate::formats::Format;

/// The storage encoding's calls.
const STORAGE: (&str, &str) = ("musli::storage::encode", "musli::storage::decode");
/// The wire encoding's calls.
const WIRE: (&str, &str) = ("musli::wire::encode", "musli::wire::decode");

/// Why `musli` reads v1 bytes as v2 but not v2 bytes as v1.
const STORAGE_NOTE: &str = " (musli::storage is partially upgrade safe, as its docs say: a \
    field missing from the bytes takes its #[musli(default)], but a field is its index and its \
    value with no type or length, so a reader cannot skip a field it does not know)";

/// Why `musli-wire` evolves both ways.
const WIRE_NOTE: &str = " (musli::wire is upgrade stable, as its docs say: every value carries \
    its type and length, so a reader skips a field it does not know, and a field missing from \
    the bytes takes its #[musli(default)])";

/// The evolution of `F` written and read with `calls`, each finding followed by `note`.
fn check<F: Format + Codec2>(calls: (&str, &str), note: &str) -> (Finding, Finding) {
    let module = format!("capability::evolution::musli ({})", F::NAME);
    both::<F>(&module, calls, write::<F>, read::<F>, (note, note))
}

evolves! {
    Musli => check::<Musli>(STORAGE, STORAGE_NOTE);
    MusliWire => check::<MusliWire>(WIRE, WIRE_NOTE);
}

#[cfg(test)]
mod tests {
    use super::super::harness::{assert_answers, assert_round_trip};
    use super::*;

    /// The v1 storage reader reads a Trade Report whose field count says 7 and refuses field
    /// index 6 (`match_id`), which its type does not have (variant 8 is Trade Report's index);
    /// the v2 reader of v1 bytes finds 6 fields and defaults the seventh. musli-wire reads both
    /// ways.
    #[test]
    fn storage_evolves_backward_only_and_wire_both_ways() {
        let v2_reader = "yes: the v2 reader read every v1 field of 27 messages in 2 packets, 3 \
                         Trade Reports and 3 Add Orders among them exactly, and the defaults \
                         (match_id 0, attribution 0)";
        assert_answers(
            check::<Musli>(STORAGE, STORAGE_NOTE),
            STORAGE_NOTE,
            (
                "no: the v1 reader on v2 bytes, packet 0 (seq 1001): read messages[0..1] right \
                 (the last a SystemEvent), then stopped: musli: Type TradeReport received \
                 invalid variant field tag 6 for variant 8",
                v2_reader,
            ),
        );
        assert_answers(
            check::<MusliWire>(WIRE, WIRE_NOTE),
            WIRE_NOTE,
            (
                "yes: the v1 reader read every v1 field of 27 messages in 2 packets, 3 Trade \
                 Reports and 3 Add Orders among them exactly",
                v2_reader,
            ),
        );
    }

    /// Each encoding's version 2 writer and reader agree (so a `no` is the version mismatch).
    #[test]
    fn the_v2_writers_and_readers_round_trip() {
        assert_round_trip(write::<Musli>, read::<Musli>);
        assert_round_trip(write::<MusliWire>, read::<MusliWire>);
    }
}
