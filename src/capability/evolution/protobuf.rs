//! Protocol Buffers' evolution, measured (`protobuf`, prost). Version 2 gives the message behind
//! each changed type a field with the next tag number (`int64 match_id = 7` in `Trade`, which
//! Trade Report shares with Trade Break; `uint32 attribution = 7` in `AddOrder`). A parser skips
//! a field whose tag it does not know; a field absent from the bytes reads as its type's zero
//! (protobuf.dev, "Updating a Message Type" in the proto3 language guide).

use prost::Message as _;

use super::compiled::{self, MessageRead, ReadV2};
use super::v2;
use crate::formats::protobuf::{copies, Protobuf};
use crate::formats::wire::{IntoModel, ToLib};
use crate::formats::DecodeError;
use crate::model::*;

crate::formats::generated!(
    /// The code prost-build generated from the v2 schema (`OUT_DIR/evolution-v2/schemas/marketdata.proto`).
    pb,
    "/evolution-v2/md_shootout.pb.rs"
);

use pb::message::Body;

/// What version 2 adds to the table's fields, for the codec's copies over its code: the appended
/// field, written with the file's value and read beside the message.
macro_rules! schema_adds {
    (body $V:ident $S:ident { $($fields:tt)* }) => {{
        #[allow(unused_mut, clippy::needless_update)]
        let mut x = pb::$S { $($fields)* ..Default::default() };
        compiled::appended!(
            $V,
            x.match_id = v2::MATCH_ID.value,
            x.attribution = v2::ATTRIBUTION.value,
            ()
        );
        Body::$V(x)
    }};
    (read $V:ident $x:ident, $message:expr) => {
        compiled::read_appended!($V, $message, $x.match_id, $x.attribution)
    };
}
for_each_message!(copies);

/// `packet` written by the v2 schema's code, length-delimited as the codec writes.
pub(super) fn write_v2(packet: &Packet) -> Vec<u8> {
    let p = pb::Packet {
        seq: packet.seq,
        send_time: packet.send_time,
        messages: packet.messages.iter().map(to_pb).collect(),
    };
    p.encode_length_delimited_to_vec()
}

/// `bytes` read by the v2 schema's code: every v1 field and the appended ones.
pub(super) fn read_v2(bytes: &[u8]) -> Result<ReadV2, DecodeError> {
    let p = pb::Packet::decode_length_delimited(bytes)
        .map_err(|e| DecodeError::library("protobuf (v2 schema)", e))?;
    compiled::read_all(p.seq, p.send_time, &p.messages, from_pb)
}

const DECIDED_BY: &str =
    "capability::evolution::protobuf (v2 schema: Trade.match_id = 7, AddOrder.attribution = 7)";

evolves!(Protobuf => compiled::both::<Protobuf>(DECIDED_BY.into(), write_v2, read_v2););
