//! planus's evolution, measured (`planus`): the FlatBuffers mechanism, through a second
//! implementation. Version 2 appends `match_id:long` to `Trade` and `attribution:uint` to
//! `AddOrder`, each the table's next vtable slot; a reader of the older schema never asks for
//! it, a reader of the newer one finds the slot beyond the bytes' vtable and reads the default.

use ::planus::{Builder, ReadAsRoot, UnionOffset};

use super::compiled::{self, ReadV2};
use super::v2;
use crate::formats::planus::{err, frame, read_table, unframe, Planus, NO_BODY};
use crate::formats::DecodeError;
use crate::model::*;

/// What decided both findings.
const DECIDED_BY: &str = "capability::evolution::planus (planus's code for the v2 schema, whose \
                          Trade and AddOrder tables each gain a last vtable slot)";
evolves!(Planus => compiled::both::<Planus>(DECIDED_BY.into(), write_v2, read_v2););

crate::formats::planus::planus_code!(
    "/evolution-v2/marketdata_planus.rs",
    "/evolution-v2/marketdata_planus_body.rs"
);
crate::formats::planus::conversions!();

/// The v2 writer's and reader's field-by-field copies, from the message table (as the codec's),
/// with version 2's appended field where a table has one.
macro_rules! copies {
    ($($V:ident($S:ident) $snake:ident {
        kinds [$K0:ident $i0:tt $(, $K:ident $implied:tt)*], len $len:literal,
        wire $wire:tt, fields $fields:tt, capnp $init:ident $capnp:tt,
        flatbuffers $Args:ident [$Tag0:ident $as0:ident $(, $Tag:ident $as:ident)*],
        sbe $($sbe:ident)*,
    },)*) => {
        #[allow(clippy::needless_update)]
        fn build_body(b: &mut Builder, m: &Message) -> UnionOffset<fbs::Body> {
            let kind = m.kind();
            match m {
                $(Message::$V(m) => {
                    let table = v2_table!(m, $V, $S, $wire);
                    match kind {
                        $(kind::$K => create_body!($Tag, b, &table),)*
                        _ => create_body!($Tag0, b, &table),
                    }
                })*
            }
        }

        fn read_message(m: fbs::MessageRef<'_>) -> Result<(Message, Option<i64>), DecodeError> {
            Ok(match m.body().map_err(err)?.ok_or(NO_BODY)? {
                $(fbs::BodyRef::$Tag0(x) => (
                    read_table!(x, $V($S) $i0 $wire),
                    appended_of!($V, x),
                ),
                $(fbs::BodyRef::$Tag(x) => (
                    read_table!(x, $V($S) $implied $wire),
                    appended_of!($V, x),
                ),)*)*
            })
        }
    };
}

/// A table of the v2 code from a model message, with version 2's appended field where it has one.
macro_rules! v2_table {
    ($m:ident, $V:ident, $S:ident, [$($f:ident @ $at:literal),*]) => {
        fbs::$S {
            $($f: crate::formats::wire::ToLib::to_lib($m.$f),)*
            ..compiled::appended!(
                $V,
                fbs::Trade { match_id: v2::MATCH_ID.value, ..Default::default() },
                fbs::AddOrder { attribution: v2::ATTRIBUTION.value, ..Default::default() },
                Default::default()
            )
        }
    };
}

/// The appended field of the table `$x` of message type `$V`, read through its accessor.
macro_rules! appended_of {
    ($V:ident, $x:ident) => {
        compiled::read_appended!(
            $V,
            $x.match_id().map_err(err)?,
            $x.attribution().map_err(err)?
        )
    };
}
for_each_message!(copies);

/// `packet` written by the v2 schema's code, framed as the codec frames its packets.
pub(super) fn write_v2(packet: &Packet) -> Vec<u8> {
    let mut b = Builder::new();
    let mut offsets = Vec::with_capacity(packet.messages.len());
    for m in &packet.messages {
        let body = build_body(&mut b, m);
        offsets.push(fbs::Message::create(&mut b, body));
    }
    let messages = b.create_vector(offsets.as_slice());
    let root = fbs::Packet::create(&mut b, packet.seq, packet.send_time, messages);
    let mut out = Vec::new();
    frame(b.finish(root, None), &mut out);
    out
}

/// `bytes` read by the v2 schema's code: every v1 field and the appended ones.
pub(super) fn read_v2(bytes: &[u8]) -> Result<ReadV2, DecodeError> {
    let (data, _) = unframe(bytes)?;
    let root = fbs::PacketRef::read_as_root(data).map_err(err)?;
    let messages = root.messages().map_err(err)?;
    compiled::read_all(
        root.seq().map_err(err)?,
        root.send_time().map_err(err)?,
        messages,
        |m| read_message(m.map_err(err)?),
    )
}
