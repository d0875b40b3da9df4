//! wincode: no evolution mechanism (bincode's format: a struct is its fields in order, fixed
//! width, with nothing that names or delimits one), measured through
//! [`super::sequential`].

use super::sequential;
use crate::capability::finding::Finding;
use crate::formats::wincode::Wincode;

pub(super) const NO_MECHANISM: &str = " (wincode has no evolution mechanism: bincode's format \
     writes a struct's fields in order with no names, tags or lengths, so a reader takes an \
     appended field's bytes for what it expects next, and a missing field from the next \
     message)";

/// wincode's evolution: the v1 codec `formats::wincode` against wincode on the v2 types.
pub(super) fn check() -> (Finding, Finding) {
    sequential::check::<Wincode>(
        "capability::evolution::wincode",
        (
            "wincode::serialize_into",
            "wincode::DeserializeOwned::deserialize_from",
        ),
        NO_MECHANISM,
    )
}

#[cfg(test)]
mod tests {
    use super::super::harness::assert_answers;
    use super::*;

    /// The v1 reader reads the first Trade Report, then takes the low four bytes of its 8-byte
    /// `match_id` (0x0123456789ABCDEF, little-endian: 0x89ABCDEF = 2309737967) for the next
    /// message's `u32` variant index; the v2 reader takes the Add Order's variant index (13),
    /// side byte and the first three bytes of its timestamp for `match_id`, then the next four
    /// timestamp bytes (0x979CFE3D = 2543648317) for a variant index.
    #[test]
    fn wincode_misreads_what_follows_an_appended_field() {
        assert_answers(check(), NO_MECHANISM, (
                "no: the v1 reader on v2 bytes, packet 0 (seq 1001): read messages[0..2] right \
                 (the last a TradeReport), then stopped: wincode: Invalid tag encoding: 2309737967",
                "no: the v2 reader on v1 bytes, packet 0 (seq 1001): \
                 messages[1].TradeReport.match_id came out as -8805336375944544243, not the default \
                 0, then stopped: wincode: Invalid tag encoding: 2543648317",
            ));
    }
}
