//! What the evolution checks of the schema-compiled formats (Cap'n Proto, FlatBuffers, SBE,
//! protobuf) share: the source packets both writers write, what version 2 does to each message
//! type, and the two comparisons that turn what a reader read into a [`Finding`]. In each
//! format's file the v2 writer and reader are its generator's code for the v2 schema build.rs
//! derives; the v1 side is the codec under test (a verifier included).

use super::harness::{count, finding, messages};
use super::v2;
use crate::capability::finding::Finding;
use crate::formats::{DecodeError, Format};
use crate::measure::verify;
use crate::model::{kind, Message, Packet, Symbol, Trade};

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

/// A message of type `k` whose bytes after the type are 1, 2, 3, ... so that no two fields of
/// one message hold the same value (a reader that swaps two fields is caught), read by the IEX
/// parser.
fn numbered(k: u8) -> Message {
    let mut bytes = [0u8; 128];
    for (i, b) in bytes.iter_mut().enumerate() {
        *b = i as u8;
    }
    bytes[0] = k;
    crate::iex::message::decode(&bytes)
        .expect("a kind of kind::ALL decodes from 128 bytes")
        .to_owned()
}

/// A Trade Report, as IEX would send one.
pub(crate) fn trade_report(symbol: &str, size: u32, price: i64, trade_id: i64) -> Message {
    Message::TradeReport(Trade {
        flags: 0x80,
        timestamp: 1_700_000_000_123_456_789,
        symbol: Symbol::new(symbol).expect("a ticker of at most 8 bytes"),
        size,
        price,
        trade_id,
    })
}

/// An Add Order, as IEX DEEP+ would send one.
pub(crate) fn add_order(side: u8, symbol: &str, order_id: i64, size: u32, price: i64) -> Message {
    Message::AddOrder(crate::model::AddOrder {
        side,
        timestamp: 1_700_000_000_223_456_789,
        symbol: Symbol::new(symbol).expect("a ticker of at most 8 bytes"),
        order_id,
        size,
        price,
    })
}

/// The packets both writers write: one of every message type with distinct field values, and
/// one of Trade Reports and Add Orders among other types, a Trade Report last.
pub(crate) fn source() -> Vec<Packet> {
    vec![
        Packet {
            seq: 1_001,
            send_time: 1_700_000_000_000_000_001,
            messages: kind::ALL.iter().map(|&k| numbered(k)).collect(),
        },
        Packet {
            seq: 1_020,
            send_time: 1_700_000_000_300_000_000,
            messages: vec![
                trade_report("ZIEXT", 100, 1_234_500, 9_001),
                numbered(kind::SYSTEM_EVENT),
                add_order(b'8', "AAPL", 77_000_001, 300, 1_899_900),
                numbered(kind::TRADE_BREAK),
                add_order(b'5', "SPY", 77_000_002, 5, 4_500_100),
                numbered(kind::QUOTE_UPDATE),
                trade_report("SPY", 1, 4_500_000, 9_002),
            ],
        },
    ]
}

/// Forward: `write` (a v2 writer) writes every source packet, the v1 codec `F` reads it
/// ([`Format::decode_packet`]); `yes` only if every v1 field of every message comes back exactly
/// and every byte is used.
pub(crate) fn forward<F: Format>(
    decided_by: String,
    write: impl FnMut(&Packet) -> Vec<u8>,
) -> Finding {
    let mut v1 = F::default();
    forward_with(decided_by, write, |bytes| v1.decode_packet(bytes))
}

/// [`forward`] with the v1 reader `read` (what it read, and the bytes it used): for a format
/// whose reader must be told the writer's schema (Avro), which the codec under test alone is not.
pub(crate) fn forward_with(
    decided_by: String,
    mut write: impl FnMut(&Packet) -> Vec<u8>,
    mut read: impl FnMut(&[u8]) -> Result<(Packet, usize), DecodeError>,
) -> Finding {
    let source = source();
    let outcome = source.iter().enumerate().try_for_each(|(i, packet)| {
        let bytes = write(packet);
        match read(&bytes) {
            Err(e) => Err(format!(
                "the v1 reader refused packet {i} of a v2 writer: {e}"
            )),
            Ok((_, used)) if used != bytes.len() => Err(format!(
                "the v1 reader used {used} of the {} bytes of packet {i} of a v2 writer",
                bytes.len()
            )),
            Ok((got, _)) => verify::compare(packet, &got).map_or(Ok(()), |m| {
                Err(format!(
                    "the v1 reader read packet {i} of a v2 writer with {} = {} (written {})",
                    m.field, m.got, m.expected
                ))
            }),
        }
    });
    let carriers: Vec<String> = v2::APPENDED
        .iter()
        .map(|a| {
            format!(
                "{} {} with {}",
                count(&source, a.message),
                a.message,
                a.field
            )
        })
        .collect();
    let read = format!(
        "a v1 reader read every v1 field of {} messages written by v2 ({})",
        messages(&source),
        carriers.join(", ")
    );
    finding(outcome.map(|()| read), "", &decided_by)
}

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

/// Backward: the v1 codec `F` writes every source packet ([`Format::encode`]), `read` (a v2
/// reader) reads it; `yes` only if every v1 field comes back exactly and every appended field
/// reads its default.
pub(crate) fn backward<F: Format>(
    decided_by: String,
    mut read: impl FnMut(&[u8]) -> Result<ReadV2, DecodeError>,
) -> Finding {
    let mut v1 = F::default();
    let outcome = source().iter().enumerate().try_for_each(|(i, packet)| {
        let mut bytes = Vec::new();
        v1.encode(packet, &mut bytes);
        let (got, appended) = read(&bytes)
            .map_err(|e| format!("a v2 reader refused packet {i} of the v1 writer: {e}"))?;
        let wrong = match verify::compare(packet, &got) {
            Some(m) => format!("with {} = {} (written {})", m.field, m.got, m.expected),
            None => match wrong_default(&got, &appended) {
                Some(wrong) => wrong,
                None => return Ok(()),
            },
        };
        Err(format!(
            "a v2 reader read packet {i} of the v1 writer {wrong}"
        ))
    });
    let defaults: Vec<String> = v2::APPENDED
        .iter()
        .map(|a| format!("{}.{} = {}", a.message, a.field, a.default))
        .collect();
    let read = format!(
        "a v2 reader read every v1 field, and {} (the defaults)",
        defaults.join(" and ")
    );
    finding(outcome.map(|()| read), "", &decided_by)
}

/// Both directions for the codec under test `F` and the format's version 2 code, `write` and
/// `read`: `(forward, backward)`, each decided by `decided_by`.
pub(crate) fn both<F: Format>(
    decided_by: String,
    write: impl FnMut(&Packet) -> Vec<u8>,
    read: impl FnMut(&[u8]) -> Result<ReadV2, DecodeError>,
) -> (Finding, Finding) {
    (
        forward::<F>(decided_by.clone(), write),
        backward::<F>(decided_by, read),
    )
}

/// The first message whose appended field is not its default (or missing), described.
fn wrong_default(got: &Packet, appended: &[Option<i64>]) -> Option<String> {
    if appended.len() != got.messages.len() {
        return Some(format!(
            "with {} appended values for {} messages",
            appended.len(),
            got.messages.len()
        ));
    }
    got.messages
        .iter()
        .zip(appended)
        .enumerate()
        .find_map(|(j, (m, value))| {
            let a = v2::appended_to(m.name())?;
            (*value != Some(a.default)).then(|| {
                let seen = value.map_or("nothing".to_owned(), |v| v.to_string());
                format!(
                    "with messages[{j}].{}.{} = {seen}, not its default {}",
                    m.name(),
                    a.field,
                    a.default
                )
            })
        })
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
pub(crate) fn assert_swap_fails_forward<F: Format>(
    decided_by: String,
    mut write: impl FnMut(&Packet) -> Vec<u8>,
) {
    let f = forward::<F>(decided_by, |p| write(&swapped(p)));
    assert!(!f.yes());
    f.assert_says("TradeReport.price");
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
    let bytes = write(&source()[1]);
    let (got, used) = F::default().decode_packet(&bytes).unwrap();
    assert_eq!(used, bytes.len());
    assert_first_carriers(&got);
    // source()[1]: Trade Reports at 0 and 6, Add Orders at 2 and 4; schemas/evolution-v2.txt's
    // values (match_id m, attribution a).
    let (m, a) = (Some(81_985_529_216_486_895), Some(1_196_967_241));
    let (_, appended) = read(&bytes).unwrap();
    assert_eq!(appended, [m, None, a, None, a, None, m]);
    let mut v1 = Vec::new();
    F::default().encode(&source()[1], &mut v1);
    let (v1, appended) = read(&v1).unwrap();
    assert_eq!(v1.messages, source()[1].messages);
    assert_eq!(
        appended,
        [Some(0), None, Some(0), None, Some(0), None, Some(0)]
    );
    assert_swap_fails_forward::<F>(String::new(), &write);
}

/// `read`, the v1 codec's reading of the v2 writer's bytes of `source()[1]`, has its first Trade
/// Report and Add Order as the source has them (the values from [`source`], not from a codec).
#[cfg(test)]
pub(crate) fn assert_first_carriers(read: &Packet) {
    assert_eq!(
        read.messages[0],
        trade_report("ZIEXT", 100, 1_234_500, 9_001)
    );
    assert_eq!(
        read.messages[2],
        add_order(b'8', "AAPL", 77_000_001, 300, 1_899_900)
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_source_has_every_type_and_distinct_fields() {
        let source = source();
        assert_eq!(source[0].messages.len(), kind::ALL.len());
        assert_eq!(count(&source, "TradeReport"), 3);
        assert_eq!(count(&source, "AddOrder"), 3);
        // Trade report of the numbered packet: bytes 1.. of the wire message.
        let Message::TradeReport(t) = numbered(kind::TRADE_REPORT) else {
            panic!("a trade report")
        };
        assert_eq!(t.flags, 1);
        assert_eq!(t.size, u32::from_le_bytes([18, 19, 20, 21]));
        assert_ne!(t.price, t.trade_id);
        assert_ne!(swapped(&source[1]), source[1]);
    }

    #[test]
    fn a_wrong_default_is_named() {
        let p = Packet {
            seq: 1,
            send_time: 2,
            messages: vec![add_order(b'8', "A", 1, 2, 3)],
        };
        assert_eq!(wrong_default(&p, &[Some(0)]), None);
        assert_eq!(
            wrong_default(&p, &[Some(7)]).as_deref(),
            Some("with messages[0].AddOrder.attribution = 7, not its default 0")
        );
        assert!(wrong_default(&p, &[None]).unwrap().contains("nothing"));
    }

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
