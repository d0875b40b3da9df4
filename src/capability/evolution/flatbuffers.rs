//! FlatBuffers' evolution, measured (`flatbuffers`). Version 2 appends a field to the table
//! behind each changed type (`match_id:long` to `Trade`, which Trade Report shares with Trade
//! Break; `attribution:uint` to `AddOrder`), so it takes the next vtable slot. A reader of an
//! older schema never asks for that slot; a reader of a newer one finds the slot beyond the
//! bytes' vtable and returns the field's default (flatbuffers.dev, "Schema evolution": add new
//! fields only at the end of a table).
//!
//! The v2 writer and reader here are flatc's code for the v2 schema build.rs derives; the v1 side
//! is the codec under test ([`FlatBuffers`]), its verifier included.

use ::flatbuffers::{FlatBufferBuilder, UnionWIPOffset, WIPOffset};

use super::compiled::{self, v2, ReadV2};
use crate::capability::finding::Finding;
use crate::formats::flatbuffers::{read_table, FlatBuffers};
use crate::formats::DecodeError;
use crate::model::*;

/// The code flatc generated from the v2 schema (`OUT_DIR/evolution-v2/marketdata.fbs`).
#[allow(
    clippy::all,
    clippy::pedantic,
    dead_code,
    unused_imports,
    non_camel_case_types,
    deprecated,
    missing_docs,
    unsafe_op_in_unsafe_fn,
    mismatched_lifetime_syntaxes
)]
pub mod generated {
    include!(concat!(
        env!("OUT_DIR"),
        "/evolution-v2/marketdata_generated.rs"
    ));
}

use generated::md_shootout::fbs;

crate::formats::flatbuffers::conversions!();

/// A table's args from a model message, with version 2's appended field where it has one.
macro_rules! table_args {
    ($m:ident, $V:ident $Args:ident, [$($f:ident @ $at:literal),*]) => {
        fbs::$Args {
            $($f: $m.$f.to_fb().arg(),)*
            ..compiled::appended!(
                $V,
                fbs::TradeArgs { match_id: v2::MATCH_ID.value, ..Default::default() },
                fbs::AddOrderArgs { attribution: v2::ATTRIBUTION.value, ..Default::default() },
                Default::default()
            )
        }
    };
}

/// The v2 writer's and reader's field-by-field copies, from the message table (as the codec's).
macro_rules! copies {
    ($($V:ident($S:ident) $snake:ident {
        kinds [$($K:ident $implied:tt),+], len $len:literal, wire $wire:tt,
        fields $fields:tt, capnp $init:ident $capnp:tt,
        flatbuffers $Args:ident [$($Tag:ident $as:ident),+], sbe $($sbe:ident)*,
    },)*) => {
        #[allow(clippy::needless_update)]
        fn build_body(
            fbb: &mut FlatBufferBuilder<'static>,
            m: &Message,
        ) -> (fbs::Body, WIPOffset<UnionWIPOffset>) {
            let kind = m.kind();
            match m {
                $(Message::$V(m) => (
                    match kind {
                        $(kind::$K => fbs::Body::$Tag,)+
                        _ => fbs::Body::NONE,
                    },
                    fbs::$S::create(fbb, &table_args!(m, $V $Args, $wire)).as_union_value(),
                ),)*
            }
        }

        fn read_message(m: fbs::Message<'_>) -> Result<(Message, Option<i64>), DecodeError> {
            const NO_BODY: DecodeError = DecodeError::Malformed("FlatBuffers message without a body");
            Ok(match m.body_type() {
                $($(fbs::Body::$Tag => {
                    let x = m.$as().ok_or(NO_BODY)?;
                    let appended = compiled::appended!(
                        $V,
                        Some(x.match_id()),
                        Some(i64::from(x.attribution())),
                        None
                    );
                    (read_table!(x, $V($S) $implied $wire), appended)
                })+)*
                _ => return Err(DecodeError::Malformed("FlatBuffers body type unknown to v2")),
            })
        }
    };
}
for_each_message!(copies);

/// `packet` written by the v2 schema's code, size-prefixed as the codec writes.
fn write_v2(packet: &Packet) -> Vec<u8> {
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
fn read_v2(bytes: &[u8]) -> Result<ReadV2, DecodeError> {
    let root = fbs::size_prefixed_root_as_packet(bytes)
        .map_err(|e| DecodeError::library("flatbuffers (v2 schema)", e))?;
    compiled::read_all(root.seq(), root.send_time(), root.messages(), read_message)
}

const DECIDED_BY: &str = "capability::evolution::flatbuffers (v2 schema: Trade.match_id and \
                          AddOrder.attribution appended, each the table's next vtable slot)";

/// Forward (a v1 reader, the codec, on bytes of the v2 writer) and backward (a v2 reader on
/// bytes of the codec).
pub(super) fn check() -> (Finding, Finding) {
    compiled::both::<FlatBuffers>(DECIDED_BY.into(), write_v2, read_v2)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the findings rest on: the v1 codec (verifier included) reads the v2 writer's
    /// messages as the source has them, and the v2 reader sees 0 in the new fields of v1 bytes,
    /// the file's values in v2's.
    #[test]
    fn the_values_behind_the_findings() {
        compiled::assert_appended_values::<FlatBuffers>(write_v2, read_v2);
    }

    /// The check catches a v2 writer that swaps two v1 fields.
    #[test]
    fn a_writer_that_swaps_fields_fails_forward() {
        compiled::assert_swap_fails_forward::<FlatBuffers>(DECIDED_BY.into(), write_v2);
    }
}
