use ::dbn::decode::{DbnRecordDecoder, DecodeRecordRef};
use ::dbn::v3::{MboMsg, Mbp1Msg, StatusMsg, SymbolMappingMsg};
use ::dbn::{rtype, UNDEF_PRICE};

use super::projection::project;
use super::*;
use crate::formats::codec::every_kind;
use crate::formats::Checksum;
use crate::model::*;

fn sym(s: &str) -> Symbol {
    Symbol::new(s).unwrap()
}

fn trade(flags: u8, price: i64, trade_id: i64) -> Message {
    Message::TradeReport(Trade {
        flags,
        timestamp: 1_000,
        symbol: sym("AAPL"),
        size: 100,
        price,
        trade_id,
    })
}

fn status(s: u8) -> Message {
    Message::TradingStatus(TradingStatus {
        status: s,
        timestamp: 5,
        symbol: sym("SPY"),
        reason: *b"T1  ",
    })
}

fn packet(seq: u64, send_time: i64, messages: Vec<Message>) -> Packet {
    Packet {
        seq,
        send_time,
        messages,
    }
}

/// `packets` encoded by `f` into one new stream.
fn encoded(f: &mut Dbn, packets: &[&Packet]) -> Vec<u8> {
    let mut out = Vec::new();
    for p in packets {
        f.encode(p, &mut out);
    }
    out
}

/// A record of [`crate_records`] copied out as a `T` (an owned, aligned value).
fn record<T>(r: &(u8, Vec<u8>)) -> T {
    assert!(r.1.len() >= std::mem::size_of::<T>());
    // SAFETY: the bytes hold a `T` (checked just above), all of whose bit patterns are valid.
    unsafe { std::ptr::read_unaligned(r.1.as_ptr().cast()) }
}

/// The records of `bytes` as the crate's own decoder reads them: (rtype, record bytes).
fn crate_records(bytes: &[u8]) -> Vec<(u8, Vec<u8>)> {
    let mut decoder = DbnRecordDecoder::new(bytes);
    let mut out = Vec::new();
    while let Some(r) = decoder.decode_record_ref().unwrap() {
        out.push((r.header().rtype, r.as_ref().to_vec()));
    }
    out
}

/// Decodes `bytes` packet by packet with a fresh-or-given runner.
fn decode_all(f: &mut Dbn, bytes: &[u8]) -> Result<Vec<Packet>, DecodeError> {
    let mut pos = 0;
    let mut out = Vec::new();
    while pos < bytes.len() {
        let (p, used) = f.decode_packet(&bytes[pos..])?;
        out.push(p);
        pos += used;
    }
    Ok(out)
}

#[test]
fn the_crates_own_decoder_reads_our_records_with_databentos_units() {
    let p = packet(77, 2_000, vec![trade(0x40, 1_500_000, 9)]);
    let records = crate_records(&encoded(&mut Dbn::default(), &[&p]));
    // The symbol's mapping, then the trade, ending the packet.
    assert_eq!(
        records.iter().map(|r| r.0).collect::<Vec<_>>(),
        [rtype::SYMBOL_MAPPING, rtype::MBO]
    );
    let mbo: MboMsg = record(&records[1]);
    // $150.0000 in IEX's 1e-4 is 150,000,000,000 in DBN's 1e-9.
    assert_eq!(mbo.price, 150_000_000_000);
    assert_eq!((mbo.action as u8, mbo.side as u8), (b'T', b'N'));
    assert_eq!((mbo.order_id, mbo.size, mbo.sequence), (9, 100, 77));
    assert_eq!((mbo.hd.ts_event, mbo.ts_recv, mbo.ts_in_delta), (1_000, 2_000, 0));
    assert!(mbo.flags.is_last());
    let map: SymbolMappingMsg = record(&records[0]);
    assert_eq!(map.stype_out_symbol().unwrap(), "AAPL");
    assert_eq!(map.hd.instrument_id, mbo.hd.instrument_id);
}

#[test]
fn what_is_not_carried_really_differs_and_the_rest_comes_back() {
    let p = every_kind();
    let mut f = Dbn::default();
    let out = encoded(&mut f, &[&p]);
    let back = decode_all(&mut f, &out).unwrap();
    assert_eq!(back, vec![project(&p)]);
    // The projection is not the identity: the source's filler bytes ('7') in fields with no slot
    // (flags, system event code, retail indicator, ...) and its overflowing prices
    // (0x3737... x 1e5) do not come back.
    assert_ne!(back[0], p);
    let differ = p
        .messages
        .iter()
        .zip(&back[0].messages)
        .filter(|(a, b)| a != b)
        .count();
    // Every kind but order delete and clear book (whose every field has a slot) loses one.
    assert_eq!(differ, p.messages.len() - 2);
    // A real trade report loses only its sale-condition flags.
    let t = packet(1, 2, vec![trade(0x40, 1_500_000, 9)]);
    let out = encoded(&mut f, &[&t]);
    let back = decode_all(&mut f, &out).unwrap().remove(0);
    assert_eq!(back.messages[0], trade(0, 1_500_000, 9));
    assert_ne!(Checksum::of(&[back]), Checksum::of(&[t]));
}

#[test]
fn packets_sent_at_the_same_nanosecond_stay_apart() {
    // As in DEEP10: a burst of status messages split over two datagrams of one send time.
    let a = packet(10, 99, vec![status(b'H'), status(b'T')]);
    let b = packet(12, 99, vec![status(b'P')]);
    let heartbeat = packet(13, 99, vec![]);
    let mut f = Dbn::default();
    let out = encoded(&mut f, &[&a, &b, &heartbeat, &a]);
    let back = decode_all(&mut f, &out).unwrap();
    assert_eq!(back, vec![a.clone(), b, heartbeat, a]);
    // Each starts with a SystemMsg (no record of theirs can carry F_LAST or a sequence).
    let records = crate_records(&out);
    let systems = records.iter().filter(|r| r.0 == rtype::SYSTEM).count();
    assert_eq!(systems, 4);
    let status: StatusMsg = record(&records[2]);
    assert_eq!((status.action, status.reason), (8, 30)); // Halt, NewsPending
}

#[test]
fn a_stream_announces_each_symbol_once_and_a_new_stream_again() {
    let p = packet(1, 2, vec![trade(0, 1, 1), trade(0, 2, 2)]);
    let mut f = Dbn::default();
    let first = encoded(&mut f, &[&p]).len();
    let out = encoded(&mut f, &[&p, &p]);
    let mappings = |b: &[u8]| {
        crate_records(b)
            .iter()
            .filter(|r| r.0 == rtype::SYMBOL_MAPPING)
            .count()
    };
    assert_eq!(mappings(&out), 1);
    assert_eq!(out.len() - first, 2 * std::mem::size_of::<MboMsg>());
    // A new stream (an empty buffer) announces it again, under the same id.
    let mut again = Vec::new();
    f.encode(&p, &mut again);
    assert_eq!(again, out[..first]);
    // A fresh decoder cannot read the second packet alone: its id is unmapped.
    let e = Dbn::default().decode_packet(&out[first..]).unwrap_err();
    assert!(e.to_string().contains("no symbol mapping"), "{e}");
}

#[test]
fn hostile_records_are_errors_not_panics() {
    let p = packet(1, 2, vec![trade(0, 1_500_000, 1)]);
    let out = encoded(&mut Dbn::default(), &[&p]);
    let mut f = Dbn::default();
    // Misaligned: the same bytes one byte in.
    let mut shifted = vec![0u8; out.len() + 1];
    let base = if shifted.as_ptr().align_offset(8) == 0 { 1 } else { 0 };
    shifted[base..base + out.len()].copy_from_slice(&out);
    let e = f.decode_packet(&shifted[base..base + out.len()]);
    assert!(
        matches!(e, Err(DecodeError::Malformed(m)) if m.contains("aligned")),
        "{e:?}"
    );
    // A length claiming more than is left, and one shorter than its type.
    let mut long = out.clone();
    long[std::mem::size_of::<SymbolMappingMsg>()] = 255;
    assert!(f.decode_packet(&long).is_err());
    let mut short = out.clone();
    short[0] = 4;
    assert!(f.decode_packet(&short).is_err());
    // A price finer than IEX's 1e-4.
    let mut fine = out.clone();
    let at = std::mem::size_of::<SymbolMappingMsg>() + 24;
    fine[at..at + 8].copy_from_slice(&1i64.to_le_bytes());
    assert!(f.decode_packet(&fine).is_err());
}

#[test]
fn quotes_and_levels_use_databentos_undefined_price_and_flags() {
    let p = Packet {
        seq: 5,
        send_time: 6,
        messages: vec![
            Message::QuoteUpdate(QuoteUpdate {
                flags: 0,
                timestamp: 7,
                symbol: sym("QQQ"),
                bid_size: 100,
                bid_price: 3_000_000,
                ask_price: 0,
                ask_size: 0,
            }),
            Message::PriceLevelUpdate(PriceLevelUpdate {
                side: Side::Sell,
                flags: 1,
                timestamp: 8,
                symbol: sym("QQQ"),
                size: 0,
                price: 3_000_100,
            }),
        ],
    };
    let mut f = Dbn::default();
    let out = encoded(&mut f, &[&p]);
    let records = crate_records(&out);
    let q: Mbp1Msg = record(&records[1]);
    assert_eq!(q.levels[0].bid_px, 300_000_000_000);
    assert_eq!(q.levels[0].ask_px, UNDEF_PRICE);
    assert!(q.flags.is_tob() && !q.flags.is_last());
    let l: Mbp1Msg = record(&records[2]);
    assert_eq!((l.side as u8, l.action as u8), (b'A', b'C'));
    assert!(l.flags.is_mbp() && l.flags.is_last() && l.flags.is_publisher_specific());
    assert_eq!(decode_all(&mut f, &out).unwrap(), vec![p]);
}
