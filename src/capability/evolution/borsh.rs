//! borsh: no evolution mechanism (the specification gives each type one encoding, its fields in
//! order with nothing that names or delimits one), measured through [`super::sequential`].

use super::sequential;
use crate::capability::finding::Finding;
use crate::formats::borsh::Borsh;

pub(super) const NO_MECHANISM: &str = " (borsh has no evolution mechanism: a struct is its \
     fields in order with no names, tags or lengths, so a reader takes an appended field's bytes \
     for what it expects next, and a missing field from the next message)";

/// borsh's evolution: the v1 codec `formats::borsh` against borsh on the v2 types.
pub(super) fn check() -> (Finding, Finding) {
    sequential::check::<Borsh>(
        "capability::evolution::borsh",
        ("borsh::to_writer", "borsh::BorshDeserialize::deserialize"),
        NO_MECHANISM,
    )
}

#[cfg(test)]
mod tests {
    use super::super::harness::assert_answers;
    use super::*;

    /// The v1 reader reads the first Trade Report, then takes the low byte of its 8-byte
    /// `match_id` (0x0123456789ABCDEF, little-endian: 0xEF = 239) for the next message's `u8`
    /// variant index; the v2 reader takes the Add Order's variant index (13), side byte and six
    /// bytes of its timestamp for `match_id`, then the timestamp's seventh byte (0x97) for a
    /// variant index.
    #[test]
    fn borsh_misreads_what_follows_an_appended_field() {
        assert_answers(check(), NO_MECHANISM, (
                "no: the v1 reader on v2 bytes, packet 0 (seq 1001): read messages[0..2] right \
                 (the last a TradeReport), then stopped: borsh: Unexpected variant tag: 239",
                "no: the v2 reader on v1 bytes, packet 0 (seq 1001): \
                 messages[1].TradeReport.match_id came out as -7134197114826311667, not the default \
                 0, then stopped: borsh: Unexpected variant tag: 151",
            ));
    }
}
