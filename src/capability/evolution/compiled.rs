//! What the evolution checks of the schema-compiled formats (Cap'n Proto, FlatBuffers, SBE,
//! protobuf, Avro) share: what version 2 does to each message type, and how a v2 reader's
//! messages reach the harness's walks ([`super::harness`]). In each format's file the v2 writer
//! and reader are its generator's code for the v2 schema build.rs derives; the v1 side is the
//! codec under test (a verifier included).

use super::harness::{backward, decode, finding, forward, source, Got};
use crate::capability::finding::Finding;
use crate::formats::{DecodeError, Format};
use crate::model::{Message, Packet};

/// What version 2 does to the message type `$V`: `$trade` where it appends `match_id` (Trade
/// Report), `$add` where it appends `attribution` (Add Order), `$other` where it appends
/// nothing. Each format's v2 writer and reader name their own accessors in the three.
macro_rules! appended {
    (TradeReport, $trade:expr, $add:expr, $other:expr) => {
        $trade
    };
    (AddOrder, $trade:expr, $add:expr, $other:expr) => {
        $add
    };
    ($V:ident, $trade:expr, $add:expr, $other:expr) => {
        $other
    };
}
pub(super) use appended;

/// What a v2 reader reads of one message: the message and the field version 2 appends to its
/// type (`None` where it appends none). The codecs' copies return it over the v2 schema's code.
pub(crate) type MessageRead = (Message, Option<i64>);

/// A [`MessageRead`] of `$message`, of type `$V`, whose reader reads the appended fields as
/// `$match_id` and `$attribution` (each format's v2 `schema_adds!(read ..)`); without
/// `$message`, its appended field alone.
macro_rules! read_appended {
    ($V:ident, $message:expr, $match_id:expr, $attribution:expr) => {
        (
            $message,
            $crate::capability::evolution::compiled::read_appended!($V, $match_id, $attribution),
        )
    };
    ($V:ident, $match_id:expr, $attribution:expr) => {
        $crate::capability::evolution::compiled::appended!(
            $V,
            Some($match_id),
            Some(i64::from($attribution)),
            None
        )
    };
}
pub(super) use read_appended;

/// Sets the field version 2 appends to type `$V` to its value in the file with `$x`'s setters
/// `$match_id` and `$attribution` (the v2 `schema_adds!(write ..)` of formats with setters).
macro_rules! set_appended {
    ($V:ident, $x:ident . $match_id:ident, $attribution:ident) => {
        $crate::capability::evolution::compiled::appended!(
            $V,
            $x.$match_id($crate::capability::evolution::v2::MATCH_ID.value),
            $x.$attribution($crate::capability::evolution::v2::ATTRIBUTION.value),
            ()
        )
    };
}
pub(super) use set_appended;

/// What a v2 reader read of one packet: its v1 fields as the model, and per message the value of
/// its appended field (`None` for a type that has none).
pub(crate) type ReadV2 = (Packet, Vec<Option<i64>>);

/// A v2 reader's packet from its header and its messages, each read by `read` into the model and
/// its appended field.
pub(crate) fn read_all<M>(
    seq: u64,
    send_time: i64,
    messages: impl IntoIterator<Item = M>,
    mut read: impl FnMut(M) -> Result<MessageRead, DecodeError>,
) -> Result<ReadV2, DecodeError> {
    let mut packet = Packet {
        seq,
        send_time,
        messages: Vec::new(),
    };
    let mut appended = Vec::new();
    for m in messages {
        let (message, extra) = read(m)?;
        packet.messages.push(message);
        appended.push(extra);
    }
    Ok((packet, appended))
}

/// A v2 reader's `read` of `bytes` as the harness judges it: all of `bytes` used, or refused.
pub(crate) fn got(bytes: &[u8], read: Result<ReadV2, DecodeError>) -> Got {
    match read {
        Ok((packet, appended)) => (packet, appended, Ok(bytes.len())),
        Err(e) => (Packet::default(), Vec::new(), Err(e.to_string())),
    }
}

/// Both directions for the codec under test `F` and the format's version 2 code, `write` and
/// `read`: `(forward, backward)`, each decided by `decided_by`.
pub(crate) fn both<F: Format>(
    decided_by: String,
    write: impl FnMut(&Packet) -> Vec<u8>,
    mut read: impl FnMut(&[u8]) -> Result<ReadV2, DecodeError>,
) -> (Finding, Finding) {
    let source = source();
    let backward = backward::<F>(&source, |bytes| got(bytes, read(bytes)));
    (
        finding(forward(&source, write, decode::<F>), "", &decided_by),
        finding(backward, "", &decided_by),
    )
}

/// The source with two same-typed v1 fields of every Trade Report swapped (price and trade id):
/// what a broken v2 writer would put on the wire, for the tests that check the checks.
#[cfg(test)]
pub(crate) fn swapped(packet: &Packet) -> Packet {
    let mut p = packet.clone();
    for m in &mut p.messages {
        if let Message::TradeReport(t) = m {
            std::mem::swap(&mut t.price, &mut t.trade_id);
        }
    }
    p
}

/// The check catches a v2 writer that swaps two v1 fields: `forward` with `write` fed the
/// [`swapped`] source says `no` and names the Trade Report's price.
#[cfg(test)]
pub(crate) fn assert_swap_fails_forward<F: Format>(mut write: impl FnMut(&Packet) -> Vec<u8>) {
    let f = forward(&source(), |p| write(&swapped(p)), decode::<F>);
    let wrong = f.expect_err("a swapped field read as written");
    assert!(wrong.contains("TradeReport.price"), "{wrong}");
}

/// What the findings of a schema-compiled format rest on, value by value: the v1 codec `F` reads
/// the v2 writer's (`write`) Trade Reports and Add Orders as the source has them, the v2 reader
/// (`read`) finds the file's appended values in v2 bytes and the defaults in the codec's, and
/// the check catches a v2 writer that swaps two v1 fields.
#[cfg(test)]
pub(crate) fn assert_values_behind_the_findings<F: Format>(
    write: impl Fn(&Packet) -> Vec<u8>,
    read: impl Fn(&[u8]) -> Result<ReadV2, DecodeError>,
) {
    let source = &source()[0];
    let bytes = write(source);
    let (got, used) = F::default().decode_packet(&bytes).unwrap();
    assert_eq!(used, bytes.len());
    assert_eq!(got.messages, source.messages);
    // source()[0]: Trade Reports at 1 and 4, Add Orders at 2 and 6; schemas/evolution-v2.txt's
    // values (match_id m, attribution a).
    let (m, a) = (Some(81_985_529_216_486_895), Some(1_196_967_241));
    let (_, appended) = read(&bytes).unwrap();
    assert_eq!(appended, [None, m, a, None, m, None, a, None]);
    let mut v1 = Vec::new();
    F::default().encode(source, &mut v1);
    let (v1, appended) = read(&v1).unwrap();
    assert_eq!(v1.messages, source.messages);
    let d = Some(0);
    assert_eq!(appended, [None, d, d, None, d, None, d, None]);
    assert_swap_fails_forward::<F>(&write);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each schema-compiled format's findings but SBE's, value by value (SBE's: its file).
    #[test]
    fn the_values_behind_the_findings() {
        use super::super::{
            capnp, flatbuffers as fb, planus, protobuf as pb, protobuf_google as gpb,
        };
        use crate::formats::capnp::{CapnpPacked, CapnpUnpacked};
        use crate::formats::protobuf_google::ProtobufGoogle;
        use crate::formats::{flatbuffers::FlatBuffers, planus::Planus, protobuf::Protobuf};
        assert_values_behind_the_findings::<FlatBuffers>(fb::write_v2, fb::read_v2);
        assert_values_behind_the_findings::<Protobuf>(pb::write_v2, pb::read_v2);
        assert_values_behind_the_findings::<ProtobufGoogle>(gpb::write_v2, gpb::read_v2);
        assert_values_behind_the_findings::<Planus>(planus::write_v2, planus::read_v2);
        assert_values_behind_the_findings::<CapnpUnpacked>(
            |p| capnp::write_v2(p, false),
            |bytes| capnp::read_v2(bytes, false),
        );
        assert_values_behind_the_findings::<CapnpPacked>(
            |p| capnp::write_v2(p, true),
            |bytes| capnp::read_v2(bytes, true),
        );
    }
}
