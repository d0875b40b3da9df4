//! wincode and borsh: version 2 is [`v2::Wire`], derived like version 1's, written and read as
//! `formats::sequential` lays out a packet (a header, then the messages back to back). Neither
//! has an evolution mechanism: bincode's format (wincode's) and borsh's write a struct as its
//! fields in order, with no names, tags or lengths, so a reader of another version takes the
//! bytes after the fields it knows for whatever it expects next. One file for both, as
//! `serde_formats` is for JSON and postcard: the two checks differ only in the codec.

use super::harness::{both, Read2};
use super::v2;
use crate::capability::finding::Finding;
use crate::formats::borsh::Borsh;
use crate::formats::sequential::{self, Framed, Header, Sequential};
use crate::formats::wincode::Wincode;
use crate::formats::Format;

/// A version 2 message, symbols as their 8 bytes.
type Message2 = v2::Wire<[u8; 8]>;

/// What codec `F` must do to write and read version 2.
pub(super) trait Codec2: Framed + Sequential<Message2> + Sequential<Header<Self>> {}
impl<F: Framed + Sequential<Message2> + Sequential<Header<F>>> Codec2 for F {}

/// The version 2 writer of codec `F`: its header, then each v2 message.
pub(super) fn write<F: Codec2>(p: &v2::MPacket, out: &mut Vec<u8>) {
    sequential::write::<F, _>(p.seq, p.send_time, p.messages.iter().copied(), out);
}

/// The version 2 reader of codec `F`: the header, then message by message (what it read before
/// an error is kept).
pub(super) fn read<F: Codec2>(bytes: &[u8]) -> Read2 {
    let mut p = v2::MPacket::default();
    let used = sequential::read::<F, Message2, _>(
        bytes,
        &mut p,
        |p, seq, send_time| (p.seq, p.send_time) = (seq, send_time),
        |p, m| {
            p.messages.push(m);
            Ok(())
        },
    );
    (p, used.map_err(|e| e.to_string()))
}

/// Why the format named `name` cannot evolve, as its findings end.
fn no_mechanism(name: &str) -> String {
    format!(
        " ({name} has no evolution mechanism: a struct is its fields in order with no names, \
         tags or lengths, so a reader takes an appended field's bytes for what it expects next, \
         and a missing field from the next message)"
    )
}

/// The evolution of codec `F` (`formats::wincode`, `formats::borsh`: the v1 codec under test)
/// against the same crate on the v2 types, written and read with `calls` (the crate's).
pub(super) fn check<F: Format + Codec2>(calls: (&str, &str)) -> (Finding, Finding) {
    let module = format!("capability::evolution::sequential ({})", F::NAME);
    let note = no_mechanism(F::NAME);
    both::<F>(&module, calls, write::<F>, read::<F>, (&note, &note))
}

/// wincode's calls: `serialize_into` a `Vec`, `deserialize_from` a `&mut &[u8]`.
pub(super) const WINCODE: (&str, &str) = ("wincode::serialize_into", "wincode::deserialize_from");
/// borsh's calls: `BorshSerialize::serialize` into a `Vec`, `deserialize` from a `&mut &[u8]`.
pub(super) const BORSH: (&str, &str) = (
    "borsh::BorshSerialize::serialize",
    "borsh::BorshDeserialize::deserialize",
);

evolves! {
    Wincode => check::<Wincode>(WINCODE);
    Borsh => check::<Borsh>(BORSH);
}

#[cfg(test)]
mod tests {
    use super::super::harness::assert_answers;
    use super::*;
    use crate::formats::borsh::Borsh;
    use crate::formats::wincode::Wincode;

    /// The v1 reader reads the first Trade Report, then takes the low bytes of its 8-byte
    /// `match_id` (0x0123456789ABCDEF, little-endian) for the next message's variant index:
    /// wincode's `u32` 0x89ABCDEF = 2309737967, borsh's `u8` 0xEF = 239. The v2 reader takes the
    /// Add Order's variant index (13), side byte and the first bytes of its timestamp
    /// (0x17979CFE3D85CD29) for `match_id`, then the timestamp's next bytes for a variant index:
    /// wincode's four, 0x979CFE3D = 2543648317; borsh's one, 0x97 = 151.
    #[test]
    fn neither_reads_the_other_version() {
        let v1_reader = |stop: &str| {
            format!(
                "no: the v1 reader on v2 bytes, packet 0 (seq 1001): read messages[0..2] right \
                 (the last a TradeReport), then stopped: {stop}"
            )
        };
        let v2_reader = |match_id: i64, stop: &str| {
            format!(
                "no: the v2 reader on v1 bytes, packet 0 (seq 1001): \
                 messages[1].TradeReport.match_id came out as {match_id}, not the default 0, \
                 then stopped: {stop}"
            )
        };
        assert_answers(
            check::<Wincode>(WINCODE),
            &no_mechanism("wincode"),
            (
                &v1_reader("wincode: Invalid tag encoding: 2309737967"),
                &v2_reader(
                    -8_805_336_375_944_544_243,
                    "wincode: Invalid tag encoding: 2543648317",
                ),
            ),
        );
        assert_answers(
            check::<Borsh>(BORSH),
            &no_mechanism("borsh"),
            (
                &v1_reader("borsh: Unexpected variant tag: 239"),
                &v2_reader(
                    -7_134_197_114_826_311_667,
                    "borsh: Unexpected variant tag: 151",
                ),
            ),
        );
    }
}
