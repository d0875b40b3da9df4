//! Cap'n Proto's evolution, measured (`capnp-unpacked` and `capnp-packed`). Version 2 gives the
//! struct behind each changed message a field with the next ordinal (`matchId @6` in `Trade`,
//! which Trade Report shares with Trade Break; `attribution @6` in `AddOrder`): its data section
//! grows by a word. A reader of an older schema ignores data past its struct's known size; a
//! reader of a newer one reads a field beyond the size the bytes' struct declares as its default
//! (the encoding spec, "Evolving your protocol" at capnproto.org/language.html).

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
pub(super) fn write_v2(packet: &Packet, packed: bool) -> Vec<u8> {
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
pub(super) fn read_v2(bytes: &[u8], packed: bool) -> Result<ReadV2, DecodeError> {
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

/// In the framing `PACKED` says.
impl<const PACKED: bool> super::Evolves for Capnp<PACKED> {
    fn evolution() -> (Finding, Finding) {
        compiled::both::<Capnp<PACKED>>(
            format!(
                "capability::evolution::capnp ({}; v2 schema: Trade.matchId @6, \
                 AddOrder.attribution @6)",
                <Capnp<PACKED> as crate::formats::Format>::NAME
            ),
            |p| write_v2(p, PACKED),
            |bytes| read_v2(bytes, PACKED),
        )
    }
}
