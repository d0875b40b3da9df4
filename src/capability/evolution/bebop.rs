//! Bebop's evolution, measured (`bebop`). Version 2 gives the union branch of each changed
//! message type a field with the message's next index (`7 -> int64 match_id` in Trade Report's
//! branch, not Trade Break's: each type has its own branch; `7 -> uint32 attribution` in Add
//! Order's). A `message` writes each field behind its index and ends with a 0; a reader stops at
//! the first index it does not know and skips to the message's end by its length, and a field
//! absent from the bytes reads as absent, `None` in Rust, which a reader takes as the default
//! (docs.bebop.sh, "Messages": fields are optional, and messages can be evolved by adding
//! fields). Read here with `unwrap_or_default`.

use ::bebop::{Record as _, SubRecord as _};

use super::compiled::{self, MessageRead, ReadV2};
use super::v2;
use crate::formats::bebop::{copies, present, Bebop, UNKNOWN};
use crate::formats::wire::{IntoModel, ToLib};
use crate::formats::DecodeError;
use crate::model::*;

crate::formats::generated!(
    /// The code bebopc generated from the v2 schema (`OUT_DIR/evolution-v2/schemas/marketdata.bop`).
    #[allow(unexpected_cfgs)]
    bop,
    "/evolution-v2/marketdata_bebop.rs"
);

crate::formats::bebop::side_conversions!();

/// The field version 2 appends to Trade Report, as a v2 reader takes it (absent: the default).
fn match_id(m: &bop::Message) -> i64 {
    match *m {
        bop::Message::TradeReport { match_id, .. } => match_id.unwrap_or_default(),
        _ => 0,
    }
}

/// The field version 2 appends to Add Order, as a v2 reader takes it (absent: the default).
fn attribution(m: &bop::Message) -> u32 {
    match *m {
        bop::Message::AddOrder { attribution, .. } => attribution.unwrap_or_default(),
        _ => 0,
    }
}

/// What version 2 adds to the table's fields, for the codec's copies over its code: the appended
/// field, written with the file's value and read beside the message.
macro_rules! schema_adds {
    (body $V:ident { $($fields:tt)* }) => {
        compiled::appended!(
            $V,
            bop::Message::$V { $($fields)* match_id: Some(v2::MATCH_ID.value) },
            bop::Message::$V { $($fields)* attribution: Some(v2::ATTRIBUTION.value) },
            bop::Message::$V { $($fields)* }
        )
    };
    (read $V:ident $m:ident, $message:expr) => {
        compiled::read_appended!($V, $message, match_id($m), attribution($m))
    };
}
for_each_message!(copies);

/// `packet` written by the v2 schema's code.
pub(super) fn write_v2(packet: &Packet) -> Vec<u8> {
    let p = bop::Packet {
        seq: packet.seq,
        send_time: packet.send_time,
        messages: packet.messages.iter().map(to_bop).collect(),
    };
    let mut out = Vec::new();
    p.serialize(&mut out)
        .expect("a Vec grows to fit the packet");
    out
}

/// `bytes` read by the v2 schema's code: every v1 field and the appended ones.
pub(super) fn read_v2(bytes: &[u8]) -> Result<ReadV2, DecodeError> {
    let (_, p) = bop::Packet::_deserialize_chained(bytes)
        .map_err(|e| DecodeError::library("bebop (v2 schema)", e))?;
    compiled::read_all(p.seq, p.send_time, &p.messages, from_bop)
}

const DECIDED_BY: &str = "capability::evolution::bebop (v2 schema: TradeReport 7 -> match_id, \
                          AddOrder 7 -> attribution)";

evolves!(Bebop => compiled::both::<Bebop>(DECIDED_BY.into(), write_v2, read_v2););

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_values_behind_the_findings() {
        compiled::assert_values_behind_the_findings::<Bebop>(write_v2, read_v2);
    }

    /// A v1 reader reads v2 bytes exactly, and a v2 reader finds the defaults in v1 bytes.
    #[test]
    fn bebop_evolves_both_ways() {
        use super::super::Evolves as _;
        let (forward, backward) = Bebop::evolution();
        assert!(forward.yes(), "{}", forward.answer);
        assert!(backward.yes(), "{}", backward.answer);
    }
}
