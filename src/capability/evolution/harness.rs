//! What every format's evolution check shares: the source packets, the two directions
//! ([`forward`], [`backward`]) run against the codec under test, and how a finding names what a
//! reader got wrong.

use super::v2;
use crate::capability::finding::Finding;
use crate::formats::{DecodeError, Format};
use crate::measure::verify;
use crate::model::{self, Message, Packet, Side, Symbol};

/// The packets both directions carry: Trade Reports and Add Orders (the messages version 2
/// grows) among messages of other types, with values a reader cannot get right by accident, and
/// a packet of one message of every type.
pub fn source() -> Vec<Packet> {
    let sym = |s: &str| Symbol::new(s).expect("a ticker of at most 8 bytes");
    let t = 1_700_000_000_123_456_789;
    let trade = |timestamp, symbol, size, price, trade_id| model::Trade {
        flags: 0x40,
        timestamp,
        symbol: sym(symbol),
        size,
        price,
        trade_id,
    };
    let add = |side, timestamp, symbol, order_id, size, price| model::AddOrder {
        side,
        timestamp,
        symbol: sym(symbol),
        order_id,
        size,
        price,
    };
    let first = Packet {
        seq: 1_001,
        send_time: t + 1_000,
        messages: vec![
            Message::SystemEvent(model::SystemEvent {
                event: b'R',
                timestamp: t,
            }),
            Message::TradeReport(trade(t + 10, "AAPL", 100, 1_892_500, 4_242_001)),
            Message::AddOrder(add(b'8', t + 20, "MSFT", 77_000_001, 300, 4_201_000)),
            Message::PriceLevelUpdate(model::PriceLevelUpdate {
                side: Side::Buy,
                flags: 1,
                timestamp: t + 30,
                symbol: sym("AAPL"),
                size: 500,
                price: 1_892_400,
            }),
            Message::TradeReport(trade(t + 40, "ZIEXT", 25, 100_100, 4_242_002)),
            Message::OrderDelete(model::OrderDelete {
                timestamp: t + 50,
                symbol: sym("MSFT"),
                order_id: 77_000_001,
            }),
            Message::AddOrder(add(b'5', t + 60, "ZIEXT", 77_000_002, 200, 100_200)),
            Message::TradeBreak(trade(t + 70, "AAPL", 100, 1_892_500, 4_242_001)),
        ],
    };
    vec![first, crate::formats::every_kind()]
}

/// What a check found: `Ok` with what was read, or `Err` with what went wrong.
pub(super) type Outcome = Result<String, String>;

/// A read that came out right by layout alone is no capability a team can rely on: a format read
/// in place with no evolution mechanism (rkyv, musli-zerocopy) may have every offset moved by the
/// next appended field. The cell says `no`, and keeps what was measured.
pub(super) fn by_layout(f: Finding) -> Finding {
    if !f.yes() {
        return f;
    }
    let measured = f.answer.trim_start_matches("yes: ");
    Finding {
        answer: format!(
            "no: no evolution mechanism; this v2 read right only by layout: {measured}"
        ),
        ..f
    }
}

/// The finding of `outcome`, its detail followed by `mechanism` (why the format answers so).
pub(super) fn finding(outcome: Outcome, mechanism: &str, decided_by: &str) -> Finding {
    let ok = outcome.is_ok();
    let detail = outcome.unwrap_or_else(|e| e);
    Finding::measured(ok, format!("{detail}{mechanism}"), decided_by)
}

/// How many messages `packets` hold.
pub(super) fn messages(packets: &[Packet]) -> usize {
    packets.iter().map(|p| p.messages.len()).sum()
}

/// How many of the messages `packets` hold are of the `Message` variant `name`.
pub(super) fn count(packets: &[Packet], name: &str) -> usize {
    let all = packets.iter().flat_map(|p| &p.messages);
    all.filter(|m| m.name() == name).count()
}

/// How many Trade Reports and Add Orders `packets` hold, as a finding says it.
pub(super) fn grown(packets: &[Packet]) -> String {
    format!(
        "{} messages in {} packets, {} Trade Reports and {} Add Orders among them",
        messages(packets),
        packets.len(),
        count(packets, "TradeReport"),
        count(packets, "AddOrder")
    )
}

/// What a forward `yes` says the version 1 reader read of `source`.
pub(super) fn read_forward(source: &[Packet]) -> String {
    format!(
        "the v1 reader read every v1 field of {} exactly",
        grown(source)
    )
}

/// What a backward `yes` says the version 2 reader read of `source`: every field, and the
/// appended ones at their defaults.
pub(super) fn read_backward(source: &[Packet]) -> String {
    let defaults: Vec<String> = v2::APPENDED
        .iter()
        .map(|a| format!("{} {}", a.field, a.default))
        .collect();
    format!(
        "the v2 reader read every v1 field of {} exactly, and the defaults ({})",
        grown(source),
        defaults.join(", ")
    )
}

/// Where `got` (packet `i` as a reader read it: all of it, or the messages it handed over
/// before `failed`) first differs from `expected`, else `wrong` (what else the reader got
/// wrong), else what stopped it; `used` of `len` bytes. `Ok` when it read the packet whole and
/// right.
pub(super) fn judge(
    i: usize,
    (expected, got): (&Packet, &Packet),
    wrong: Option<String>,
    failed: Option<String>,
    (used, len): (usize, usize),
) -> Result<(), String> {
    let n = got.messages.len();
    let at = format!("packet {i} (seq {})", expected.seq);
    if let (Some(e), 0) = (&failed, n) {
        return Err(format!("{at}: refused before any message: {e}"));
    }
    // A reader that stopped is judged on the messages it handed over.
    let prefix;
    let expected = if failed.is_some() && n < expected.messages.len() {
        prefix = Packet {
            messages: expected.messages[..n].to_vec(),
            ..expected.clone()
        };
        &prefix
    } else {
        expected
    };
    let then = match &failed {
        Some(e) => format!(", then stopped: {e}"),
        None => String::new(),
    };
    if let Some(m) = verify::compare(expected, got) {
        return Err(format!(
            "{at}: {} came out as {} where the source has {}{then}",
            m.field, m.got, m.expected
        ));
    }
    if let Some(wrong) = wrong {
        return Err(format!("{at}: {wrong}{then}"));
    }
    if let Some(e) = failed {
        return Err(match got.messages.last() {
            Some(last) => format!(
                "{at}: read messages[0..{n}] right (the last a {}), then stopped: {e}",
                last.name()
            ),
            None => unreachable!("a reader that stopped before any message returned above"),
        });
    }
    if used != len {
        return Err(format!(
            "{at}: every field right, but the reader used {used} of its {len} bytes, so the \
             next packet would be read from the wrong place"
        ));
    }
    Ok(())
}

/// What a reader read of one packet: the messages it handed over, per message the field version
/// 2 appends to its type (`None` for a type that has none; nothing from a v1 reader), and the
/// bytes it used or why it stopped.
pub(crate) type Got = (Packet, Vec<Option<i64>>, Result<usize, String>);

/// Each packet of `source` written by `write` and read by `read`, judged, every appended field
/// at its default; a `no` names `who` read it.
fn walk(
    who: &str,
    source: &[Packet],
    mut write: impl FnMut(&Packet) -> Vec<u8>,
    mut read: impl FnMut(&[u8]) -> Got,
) -> Result<(), String> {
    for (i, expected) in source.iter().enumerate() {
        let bytes = write(expected);
        let (got, appended, used) = read(&bytes);
        let (failed, used) = match used {
            Ok(used) => (None, used),
            Err(e) => (Some(e), 0),
        };
        let wrong = wrong_default(&got, &appended);
        judge(i, (expected, &got), wrong, failed, (used, bytes.len()))
            .map_err(|e| format!("{who}, {e}"))?;
    }
    Ok(())
}

/// The first message whose appended field is not its default (`None`: not read), described.
fn wrong_default(got: &Packet, appended: &[Option<i64>]) -> Option<String> {
    let mut read = got.messages.iter().zip(appended).enumerate();
    read.find_map(|(k, (m, value))| {
        let a = v2::appended_to(m.name())?;
        (*value != Some(a.default)).then(|| {
            let value = value.map_or("nothing".to_owned(), |v| v.to_string());
            format!(
                "messages[{k}].{}.{} came out as {value}, not the default {}",
                m.name(),
                a.field,
                a.default
            )
        })
    })
}

/// **forward**: `write` (the format's version 2 writer) writes each packet of `source`, `read`
/// (the version 1 reader: the codec under test, [`decode`], for all but Avro) reads it; every
/// version 1 field must equal the source's.
pub(super) fn forward(
    source: &[Packet],
    write: impl FnMut(&Packet) -> Vec<u8>,
    mut read: impl FnMut(&[u8], &mut Packet) -> Result<usize, DecodeError>,
) -> Outcome {
    walk("the v1 reader on v2 bytes", source, write, |bytes| {
        let mut got = Packet::default();
        let used = read(bytes, &mut got).map_err(|e| e.to_string());
        (got, Vec::new(), used)
    })?;
    Ok(read_forward(source))
}

/// The codec under test `F` reading `bytes` into `got`: `decode_all` hands over each message as
/// it reads it (`decode_packet` collects the same), so what it read before an error is seen too.
pub(super) fn decode<F: Format>(bytes: &[u8], got: &mut Packet) -> Result<usize, DecodeError> {
    F::default().decode_all(bytes, got)
}

/// **backward**: the codec under test `F` encodes each packet of `source` (version 1 bytes);
/// `read` (the format's version 2 reader) decodes them; every version 1 field must equal the
/// source's and every appended field must be its default.
pub(super) fn backward<F: Format>(source: &[Packet], read: impl FnMut(&[u8]) -> Got) -> Outcome {
    let encode = |p: &Packet| {
        let mut bytes = Vec::new();
        F::default().encode(p, &mut bytes);
        bytes
    };
    walk("the v2 reader on v1 bytes", source, encode, read)?;
    Ok(read_backward(source))
}

/// What a version 2 reader read of one packet: the messages it read, and the bytes it used or
/// why it stopped.
pub(super) type Read2 = (v2::MPacket, Result<usize, String>);

/// What a version 2 reader that reads a packet all or nothing read: the packet and the bytes it
/// used, or an empty packet and why not.
pub(super) fn whole(read: Result<(v2::MPacket, usize), String>) -> Read2 {
    read.map_or_else(
        |e| (v2::MPacket::default(), Err(e)),
        |(p, used)| (p, Ok(used)),
    )
}

/// A [`Read2`] in the model: each message's v1 fields and its appended field.
fn in_model((p, used): Read2) -> Got {
    let mut got = Packet {
        seq: p.seq,
        send_time: p.send_time,
        messages: Vec::new(),
    };
    let mut appended = Vec::new();
    for (k, m) in p.messages.into_iter().enumerate() {
        let (v1, fields) = m.into_v1();
        match v1.into_model(|s| Ok(Symbol(s))) {
            Ok(m) => got.messages.push(m),
            Err(e) => {
                let stopped = used.and(Err(format!("messages[{k}] is no IEX message: {e}")));
                return (got, appended, stopped);
            }
        }
        appended.push(fields.first().map(|&(_, value)| value));
    }
    (got, appended, used)
}

/// `write`, a version 2 writer of [`v2::MPacket`]s, as a writer of source packets.
pub(super) fn of_source(write: impl Fn(&v2::MPacket, &mut Vec<u8>)) -> impl Fn(&Packet) -> Vec<u8> {
    move |p| {
        let mut bytes = Vec::new();
        write(&v2::MPacket::written(p), &mut bytes);
        bytes
    }
}

/// Both directions for the codec under test `F` and the format's version 2 `write` and `read`,
/// each finding followed by its `notes` entry (why the format answers so), decided by `check`
/// (the format's module) with `v2` (the library calls that write and read version 2).
pub(super) fn both<F: Format>(
    check: &str,
    (v2_writer, v2_reader): (&str, &str),
    write: impl Fn(&v2::MPacket, &mut Vec<u8>),
    read: impl Fn(&[u8]) -> Read2,
    notes: (&str, &str),
) -> (Finding, Finding) {
    let source = source();
    let v1 = format!("formats::{}", F::NAME);
    (
        finding(
            forward(&source, of_source(write), decode::<F>),
            notes.0,
            &format!("{check} (v2 writer: {v2_writer}; v1 reader: {v1})"),
        ),
        finding(
            backward::<F>(&source, |bytes| in_model(read(bytes))),
            notes.1,
            &format!("{check} (v1 writer: {v1}; v2 reader: {v2_reader})"),
        ),
    )
}

/// A format's version 2 writer and reader agree with each other on every source packet,
/// appended fields included: a `no` is then the version mismatch, not a broken writer or reader.
#[cfg(test)]
pub(super) fn assert_round_trip(
    write: impl Fn(&v2::MPacket, &mut Vec<u8>),
    read: impl Fn(&[u8]) -> Read2,
) {
    for p in source().iter().map(v2::MPacket::written) {
        let mut bytes = Vec::new();
        write(&p, &mut bytes);
        assert_eq!(read(&bytes), (p.clone(), Ok(bytes.len())));
    }
}

/// A format's two findings are measured and answer as expected: each `answer` is the expected
/// text followed by the format's `mechanism` note (why it can or cannot evolve).
#[cfg(test)]
pub(super) fn assert_answers(found: (Finding, Finding), mechanism: &str, expected: (&str, &str)) {
    assert!(found.0.measured && found.1.measured);
    assert_eq!(found.0.answer, format!("{}{mechanism}", expected.0));
    assert_eq!(found.1.answer, format!("{}{mechanism}", expected.1));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An appended field off its default, or not read at all, is named.
    #[test]
    fn a_wrong_default_is_named() {
        let p = Packet {
            messages: source()[0].messages[2..3].to_vec(),
            ..Packet::default()
        };
        assert_eq!(wrong_default(&p, &[Some(0)]), None);
        assert_eq!(
            wrong_default(&p, &[Some(7)]).as_deref(),
            Some("messages[0].AddOrder.attribution came out as 7, not the default 0")
        );
        assert!(wrong_default(&p, &[None]).unwrap().contains("nothing"));
    }
}
