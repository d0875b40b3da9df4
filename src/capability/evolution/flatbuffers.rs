//! FlatBuffers' evolution, measured (`flatbuffers`). Version 2 appends a field to the table
//! behind each changed type (`match_id:long` to `Trade`, which Trade Report shares with Trade
//! Break; `attribution:uint` to `AddOrder`), so it takes the next vtable slot. A reader of an
//! older schema never asks for that slot; a reader of a newer one finds the slot beyond the
//! bytes' vtable and returns the field's default (flatbuffers.dev, "Schema evolution": add new
//! fields only at the end of a table).

use ::flatbuffers::FlatBufferBuilder;

use super::compiled::{self, MessageRead, ReadV2};
use super::v2;
use crate::capability::finding::Finding;
use crate::formats::flatbuffers::{copies, FlatBuffers, FlatBuffersCodec};
use crate::formats::DecodeError;
use crate::model::*;

crate::formats::generated!(
    /// The code flatc generated from the v2 schema (`OUT_DIR/evolution-v2/schemas/marketdata.fbs`).
    generated,
    "/evolution-v2/marketdata_generated.rs"
);

use generated::md_shootout::fbs;

crate::formats::flatbuffers::conversions!();

/// What version 2 adds to the table's fields, for the codec's copies over its code: the appended
/// field, written with the file's value and read beside the message.
macro_rules! schema_adds {
    (args $m:ident, $V:ident $Args:ident [$($f:ident @ $at:literal),*]) => {
        fbs::$Args {
            $($f: crate::formats::flatbuffers::fb_arg!($m, $f),)*
            ..compiled::appended!(
                $V,
                fbs::TradeArgs { match_id: v2::MATCH_ID.value, ..Default::default() },
                fbs::AddOrderArgs { attribution: v2::ATTRIBUTION.value, ..Default::default() },
                Default::default()
            )
        }
    };
    (read $V:ident $x:ident, $message:expr) => {
        compiled::read_appended!($V, $message, $x.match_id(), $x.attribution())
    };
}
for_each_message!(copies);

/// `packet` written by the v2 schema's code, size-prefixed as the codec writes.
pub(super) fn write_v2(packet: &Packet) -> Vec<u8> {
    let mut fbb = FlatBufferBuilder::new();
    let offsets: Vec<_> = packet
        .messages
        .iter()
        .map(|m| {
            let (body_type, body) = build_body(&mut fbb, m);
            fbs::Message::create(
                &mut fbb,
                &fbs::MessageArgs {
                    body_type,
                    body: Some(body),
                },
            )
        })
        .collect();
    let messages = fbb.create_vector(&offsets);
    let root = fbs::Packet::create(
        &mut fbb,
        &fbs::PacketArgs {
            seq: packet.seq,
            send_time: packet.send_time,
            messages: Some(messages),
        },
    );
    fbs::finish_size_prefixed_packet_buffer(&mut fbb, root);
    fbb.finished_data().to_vec()
}

/// `bytes` read by the v2 schema's code (verified): every v1 field and the appended ones.
pub(super) fn read_v2(bytes: &[u8]) -> Result<ReadV2, DecodeError> {
    let root = fbs::size_prefixed_root_as_packet(bytes)
        .map_err(|e| DecodeError::library("flatbuffers (v2 schema)", e))?;
    compiled::read_all(root.seq(), root.send_time(), root.messages(), read_message)
}

const DECIDED_BY: &str = "capability::evolution::flatbuffers (v2 schema: Trade.match_id and \
                          AddOrder.attribution appended, each the table's next vtable slot)";

/// The unverified codec writes the verified one's bytes: its check is the verified one's.
impl<const VERIFY: bool> super::Evolves for FlatBuffersCodec<VERIFY> {
    fn evolution() -> (Finding, Finding) {
        compiled::both::<FlatBuffers>(DECIDED_BY.into(), write_v2, read_v2)
    }
}
