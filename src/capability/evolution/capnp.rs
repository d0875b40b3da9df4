//! Cap'n Proto's evolution, measured (`capnp-unpacked` and `capnp-packed`). Version 2 gives the
//! struct behind each changed message a field with the next ordinal (`matchId @6` in `Trade`,
//! which Trade Report shares with Trade Break; `attribution @6` in `AddOrder`): its data section
//! grows by a word. A reader of an older schema ignores data past its struct's known size; a
//! reader of a newer one reads a field beyond the size the bytes' struct declares as its default
//! (the encoding spec, "Evolving your protocol" at capnproto.org/language.html).
//!
//! The v2 writer and reader here are capnpc's code for the v2 schema build.rs derives; the v1
//! side is the codec under test ([`CapnpUnpacked`] / [`CapnpPacked`]).

use ::capnp::message::{Builder, ReaderOptions};

use super::compiled::{self, MessageRead, ReadV2};
use crate::capability::finding::Finding;
use crate::formats::capnp::{copies, Capnp};
use crate::formats::wire::{IntoModel, ToLib};
use crate::formats::DecodeError;
use crate::model::*;

crate::formats::generated!(
    /// The code capnpc generated from the v2 schema (`OUT_DIR/evolution-v2/schemas/marketdata.capnp`).
    marketdata_capnp,
    "/evolution-v2/marketdata_capnp.rs"
);

use marketdata_capnp::{message as msg, packet};

fn err(e: impl std::fmt::Display) -> DecodeError {
    DecodeError::library("capnp (v2 schema)", e)
}

crate::formats::capnp::side_conversions!();

/// What version 2 adds to the table's fields, for the codec's copies over its code: the appended
/// field, written with the file's value and read beside the message.
macro_rules! schema_adds {
    (write $V:ident $x:ident) => {
        compiled::set_appended!($V, $x.set_match_id, set_attribution)
    };
    (read $V:ident $x:ident, $message:expr) => {
        compiled::read_appended!($V, $message, $x.get_match_id(), $x.get_attribution())
    };
}
for_each_message!(copies);

/// `packet` written by the v2 schema's code, in the standard or the packed framing.
fn write_v2(packet: &Packet, packed: bool) -> Vec<u8> {
    let mut message = Builder::new_default();
    {
        let mut root = message.init_root::<packet::Builder>();
        root.set_seq(packet.seq);
        root.set_send_time(packet.send_time);
        let len = u32::try_from(packet.messages.len()).expect("fewer than 2^32 messages");
        let mut list = root.init_messages(len);
        for (i, m) in packet.messages.iter().enumerate() {
            build_message(list.reborrow().get(i as u32), m);
        }
    }
    let mut out = Vec::new();
    let written = if packed {
        ::capnp::serialize_packed::write_message(&mut out, &message)
    } else {
        ::capnp::serialize::write_message(&mut out, &message)
    };
    written.expect("writing to a Vec cannot fail");
    out
}

/// `bytes` read by the v2 schema's code: every v1 field and the appended ones.
fn read_v2(bytes: &[u8], packed: bool) -> Result<ReadV2, DecodeError> {
    let mut rest = bytes;
    let reader = if packed {
        ::capnp::serialize_packed::read_message(&mut rest, ReaderOptions::new())
    } else {
        ::capnp::serialize::read_message(&mut rest, ReaderOptions::new())
    }
    .map_err(err)?;
    let root = reader.get_root::<packet::Reader>().map_err(err)?;
    let messages = root.get_messages().map_err(err)?;
    compiled::read_all(root.get_seq(), root.get_send_time(), messages, read_message)
}

fn decided_by(packed: bool) -> String {
    let name = if packed {
        "capnp-packed"
    } else {
        "capnp-unpacked"
    };
    format!(
        "capability::evolution::capnp ({name}; v2 schema: Trade.matchId @6, AddOrder.attribution @6)"
    )
}

/// Forward (a v1 reader, the codec, on bytes of the v2 writer) and backward (a v2 reader on
/// bytes of the codec), in the framing `PACKED` says.
pub(super) fn check<const PACKED: bool>() -> (Finding, Finding) {
    compiled::both::<Capnp<PACKED>>(
        decided_by(PACKED),
        |p| write_v2(p, PACKED),
        |bytes| read_v2(bytes, PACKED),
    )
}

impl<const PACKED: bool> super::Evolves for Capnp<PACKED> {
    fn evolution() -> (Finding, Finding) {
        check::<PACKED>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::capnp::{CapnpPacked, CapnpUnpacked};

    /// The packed framing's findings say so (both framings' answers: `compiled`'s tests).
    #[test]
    fn the_packed_findings_name_their_framing() {
        let (forward, backward) = check::<true>();
        assert!(forward.decided_by.contains("capnp-packed"));
        assert!(backward.decided_by.contains("capnp-packed"));
    }

    /// What the findings rest on, field by field: the v1 codec reads the v2 writer's Trade
    /// Report as written (the values come from the source, not the codec), and the v2 reader
    /// sees the v1 bytes' match id as 0 and the v2 bytes' as the file's value.
    #[test]
    fn the_values_behind_the_findings() {
        let (bytes, got) = compiled::v1_reads_v2::<CapnpUnpacked>(|p| write_v2(p, false));
        compiled::assert_first_carriers(&got);
        let (_, appended) = read_v2(&bytes, false).unwrap();
        assert_eq!(appended[0], Some(81_985_529_216_486_895));
        assert_eq!(appended[2], Some(i64::from(u32::from_le_bytes(*b"IEXG"))));
        assert_eq!(appended[1], None);

        let (read, appended) = read_v2(&compiled::v1_bytes::<CapnpPacked>(), true).unwrap();
        assert_eq!(
            read.messages[6],
            compiled::trade_report("SPY", 1, 4_500_000, 9_002)
        );
        assert_eq!(
            (appended[0], appended[2], appended[6]),
            (Some(0), Some(0), Some(0))
        );
    }

    /// The check catches a v2 writer that swaps two v1 fields.
    #[test]
    fn a_writer_that_swaps_fields_fails_forward() {
        compiled::assert_swap_fails_forward::<CapnpUnpacked>(decided_by(false), |p| {
            write_v2(p, false)
        });
    }
}
