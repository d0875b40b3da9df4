//! Every format: round trips of every IEX message type, the aggregation through the sink, empty
//! and datagram-sized packets, packets back to back in one buffer, and hostile bytes.

use md_shootout::formats::aggregate::visit_packet;
use md_shootout::formats::{json::Json, rkyv::Rkyv};
use md_shootout::formats::{Aggregate, Checksum, DecodeError, Format, SymbolStats};
use md_shootout::measure::clock::Timer;
use md_shootout::measure::runner::{Grain, PacketStat, PassIo};
use md_shootout::measure::{registry, Timing, Workload};
use md_shootout::model::*;

fn sym(s: &str) -> Symbol {
    Symbol::new(s).unwrap()
}

const TS: i64 = 1_696_240_800_123_456_789;

/// One message of every type, with distinct non-default values in every field.
fn every_type() -> Packet {
    let aapl = sym("AAPL");
    let spy = sym("SPY");
    let trade = |flags, size, price, trade_id| Trade {
        flags,
        timestamp: TS + 10,
        symbol: aapl,
        size,
        price,
        trade_id,
    };
    let order = |side, order_id, size, price| AddOrder {
        side,
        timestamp: TS + 60,
        symbol: aapl,
        order_id,
        size,
        price,
    };
    let level = |side, size, price| PriceLevelUpdate {
        side,
        flags: 1,
        timestamp: TS + 20,
        symbol: aapl,
        size,
        price,
    };
    Packet {
        seq: 123_456_789,
        send_time: TS,
        messages: vec![
            Message::SystemEvent(SystemEvent {
                event: b'R',
                timestamp: TS - 1,
            }),
            Message::SecurityDirectory(SecurityDirectory {
                flags: 0x80,
                timestamp: TS + 1,
                symbol: sym("ZIEXT"),
                round_lot_size: 100,
                adjusted_poc_price: 100_000,
                luld_tier: 1,
            }),
            Message::TradingStatus(TradingStatus {
                status: b'H',
                timestamp: TS + 2,
                symbol: aapl,
                reason: *b"T1  ",
            }),
            Message::OperationalHalt(OperationalHalt {
                status: b'O',
                timestamp: TS + 3,
                symbol: aapl,
            }),
            Message::ShortSalePriceTest(ShortSalePriceTest {
                status: 1,
                timestamp: TS + 4,
                symbol: aapl,
                detail: b'A',
            }),
            Message::SecurityEvent(SecurityEvent {
                event: b'C',
                timestamp: TS + 5,
                symbol: aapl,
            }),
            Message::RetailLiquidity(RetailLiquidity {
                indicator: b'B',
                timestamp: TS + 6,
                symbol: spy,
            }),
            Message::PriceLevelUpdate(level(Side::Buy, 300, 1_490_000)),
            Message::PriceLevelUpdate(level(Side::Buy, 0, 1_495_000)),
            Message::PriceLevelUpdate(level(Side::Sell, 200, 1_510_000)),
            Message::TradeReport(trade(0x40 | 0x20, 100, 1_500_000, 7_000_001)),
            Message::TradeReport(trade(0, 50, 1_501_000, 7_000_002)),
            Message::TradeBreak(trade(0x80, 1_000, 1_500_000, 7_000_001)),
            Message::OfficialPrice(OfficialPrice {
                price_type: b'Q',
                timestamp: TS + 30,
                symbol: spy,
                price: 4_300_100,
            }),
            Message::AuctionInformation(AuctionInformation {
                auction_type: b'C',
                timestamp: TS + 40,
                symbol: spy,
                paired_shares: 12_345,
                reference_price: 4_300_000,
                indicative_clearing_price: 4_300_500,
                imbalance_shares: 678,
                imbalance_side: b'B',
                extension_number: 2,
                scheduled_auction_time: 1_696_276_800,
                auction_book_clearing_price: 4_301_000,
                collar_reference_price: 4_299_000,
                lower_auction_collar: 3_869_100,
                upper_auction_collar: 4_728_900,
            }),
            Message::QuoteUpdate(QuoteUpdate {
                flags: 0x40,
                timestamp: TS + 50,
                symbol: spy,
                bid_size: 500,
                bid_price: 4_300_000,
                ask_price: 0,
                ask_size: 0,
            }),
            Message::QuoteUpdate(QuoteUpdate {
                flags: 0,
                timestamp: TS + 51,
                symbol: sym("QQQ"),
                bid_size: 0,
                bid_price: 0,
                ask_price: 0,
                ask_size: 0,
            }),
            // DEEP+: an order's life, and a side byte the spec does not list (kept, not booked).
            Message::AddOrder(order(b'8', 429_974, 100, 1_480_000)),
            Message::AddOrder(order(b'5', 429_975, 300, 1_520_000)),
            Message::AddOrder(AddOrder {
                symbol: spy,
                ..order(b'X', 429_976, 1, 9)
            }),
            Message::OrderModify(OrderModify {
                flags: 0x80,
                timestamp: TS + 61,
                symbol: aapl,
                order_id: 429_974,
                size: 80,
                price: 1_485_000,
            }),
            Message::OrderExecuted(OrderExecuted {
                flags: 0x20,
                timestamp: TS + 62,
                symbol: aapl,
                order_id: 429_974,
                size: 30,
                price: 1_500_500,
                trade_id: 7_000_003,
            }),
            Message::OrderDelete(OrderDelete {
                timestamp: TS + 63,
                symbol: aapl,
                order_id: 429_975,
            }),
            Message::ClearBook(ClearBook {
                timestamp: TS + 64,
                symbol: spy,
            }),
        ],
    }
}

fn heartbeat() -> Packet {
    Packet {
        seq: 42,
        send_time: TS + 1_000,
        messages: vec![],
    }
}

/// A full UDP datagram's worth: 65,507 bytes of UDP payload less the 40-byte IEX-TP header, in
/// (2-byte length + 38-byte trade report) blocks: 1,636 trades.
fn biggest() -> Packet {
    let n = (65_507 - 40) / (2 + 38);
    assert_eq!(n, 1_636);
    let symbols = [sym("AAPL"), sym("MSFT"), sym("SPY"), sym("A")];
    Packet {
        seq: 1 << 40,
        send_time: TS,
        messages: (0..n)
            .map(|i| {
                Message::TradeReport(Trade {
                    flags: (i % 256) as u8,
                    timestamp: TS + i as i64,
                    symbol: symbols[i % symbols.len()],
                    size: 1 + i as u32,
                    price: 1_000_000 + i as i64,
                    trade_id: 9_000_000 + i as i64,
                })
            })
            .collect(),
    }
}

fn encode<F: Format>(f: &mut F, p: &Packet) -> Vec<u8> {
    let mut out = Vec::new();
    f.encode(p, &mut out);
    assert!(!out.is_empty(), "{} wrote nothing", F::NAME);
    out
}

/// `p` as format `F` carries it: itself, or a lossy format's projection of it.
fn carried<F: Format>(p: &Packet) -> Packet {
    F::LOSSY.map_or_else(|| p.clone(), |l| (l.project)(p))
}

fn round_trip<F: Format>(p: &Packet) {
    let mut f = F::default();
    let bytes = encode(&mut f, p);
    let (back, used) = f.decode_packet(&bytes).unwrap();
    assert_eq!(used, bytes.len(), "{}", F::NAME);
    assert_eq!(back, carried::<F>(p), "{}", F::NAME);
    // The same runner encodes again into a reused buffer and gets identical bytes (a stream
    // format: in a new stream, which starts with an empty buffer).
    let prefix = if F::STREAM { 0 } else { 3 };
    let mut again = vec![0xAA; prefix];
    f.encode(p, &mut again);
    assert_eq!(
        &again[prefix..],
        &bytes[..],
        "{}: re-encode differs",
        F::NAME
    );
}

fn every_type_round_trips<F: Format>() {
    let p = every_type();
    // Sanity: the fixture really covers every wire type.
    let mut kinds: Vec<u8> = p.messages.iter().map(|m| m.kind()).collect();
    kinds.sort_unstable();
    kinds.dedup();
    let mut all = kind::ALL.to_vec();
    all.sort_unstable();
    assert_eq!(kinds, all);
    round_trip::<F>(&p);
}

fn sink_gives_expected_aggregate<F: Format>() {
    let p = every_type();
    let mut f = F::default();
    let bytes = encode(&mut f, &p);
    let mut agg = Aggregate::new();
    assert_eq!(f.decode(&bytes, &mut agg).unwrap(), bytes.len());

    assert_eq!(agg.packets, 1);
    assert_eq!(agg.seq_sum, p.seq, "the packet's sequence number is read");
    assert_eq!(agg.messages, p.messages.len() as u64);
    assert_eq!(agg.messages, 24);
    assert_eq!(agg.symbol_count(), 2, "{agg:?}"); // AAPL and SPY; QQQ had no prices
    assert_eq!(
        agg.get(&sym("AAPL")),
        Some(&SymbolStats {
            // Two trade reports and one order execution; the break is not counted.
            trade_volume: 100 + 50 + 30,
            // size x price, from the spec's fixed point
            trade_notional: 100 * 1_500_000 + 50 * 1_501_000 + 30 * 1_500_500,
            // Price level updates and add orders alike (modifies are not read).
            bid_high: Some(1_495_000),
            bid_low: Some(1_480_000),
            ask_high: Some(1_520_000),
            ask_low: Some(1_510_000),
            // The values in order: checked against the source's just below (`reference`).
            fold: agg.get(&sym("AAPL")).unwrap().fold,
        })
    );
    assert_eq!(
        agg.get(&sym("SPY")),
        Some(&SymbolStats {
            trade_volume: 0,
            trade_notional: 0,
            bid_high: Some(4_300_000),
            bid_low: Some(4_300_000),
            ask_high: None,
            ask_low: None,
            fold: agg.get(&sym("SPY")).unwrap().fold,
        })
    );
    let mut reference = Aggregate::new();
    visit_packet(&p, &mut reference);
    assert_eq!(agg, reference);

    let mut csv = Vec::new();
    agg.write_csv(&mut csv).unwrap();
    assert_eq!(
        String::from_utf8(csv).unwrap(),
        format!(
            "symbol,trade_volume,bid_high,bid_low,ask_high,ask_low,trade_notional\n\
             AAPL,180,1495000,1480000,1520000,1510000,{}\n\
             SPY,0,4300000,4300000,,,0\n",
            100 * 1_500_000 + 50 * 1_501_000 + 30 * 1_500_500
        )
    );
}

fn heartbeat_works<F: Format>() {
    let p = heartbeat();
    round_trip::<F>(&p);
    let mut f = F::default();
    let bytes = encode(&mut f, &p);
    let mut agg = Aggregate::new();
    assert_eq!(f.decode(&bytes, &mut agg).unwrap(), bytes.len());
    assert_eq!((agg.packets, agg.messages, agg.symbol_count()), (1, 0, 0));
}

fn biggest_packet_works<F: Format>() {
    let p = biggest();
    round_trip::<F>(&p);
    let mut f = F::default();
    let bytes = encode(&mut f, &p);
    let mut agg = Aggregate::new();
    assert_eq!(f.decode(&bytes, &mut agg).unwrap(), bytes.len());
    assert_eq!(agg.messages, 1_636);
    // Sizes 1..=1636 dealt round-robin over 4 symbols: AAPL gets 1, 5, 9, ...
    let aapl: u64 = (0..1_636u64).filter(|i| i % 4 == 0).map(|i| i + 1).sum();
    assert_eq!(agg.get(&sym("AAPL")).unwrap().trade_volume, aapl);
    let total: u64 = (1..=1_636u64).sum();
    let sum: u64 = agg.sorted().values().map(|s| s.trade_volume).sum();
    assert_eq!(sum, total);
}

fn packets_back_to_back<F: Format>() {
    let packets = [every_type(), heartbeat(), biggest(), every_type()];
    let mut f = F::default();
    let mut buf = Vec::new();
    let mut ends = Vec::new();
    for p in &packets {
        f.encode(p, &mut buf);
        ends.push(buf.len());
    }
    let mut pos = 0;
    for (p, end) in packets.iter().zip(&ends) {
        let (back, used) = f.decode_packet(&buf[pos..]).unwrap();
        assert_eq!(back, carried::<F>(p), "{}", F::NAME);
        pos += used;
        assert_eq!(pos, *end, "{}", F::NAME);
    }
    assert_eq!(pos, buf.len());

    let mut agg = Aggregate::new();
    let mut pos = 0;
    while pos < buf.len() {
        pos += f.decode(&buf[pos..], &mut agg).unwrap();
    }
    let mut reference = Aggregate::new();
    for p in &packets {
        visit_packet(&carried::<F>(p), &mut reference);
    }
    assert_eq!(agg, reference, "{}", F::NAME);
    assert_eq!(agg.packets, 4);
}

/// A format that trusts its producer is never given bytes its encoder did not write (its
/// decoder's behaviour on them is undefined), so the hostile-input checks below skip it; what is
/// checked instead is the gate: its runner refuses foreign bytes, even its own bytes cut short.
fn refuses_foreign_bytes<F: Format>() -> bool {
    if !F::DOCUMENTED.trusts_producer() {
        return false;
    }
    let mut own = Vec::new();
    F::default().encode(&every_type(), &mut own);
    let mut runner = md_shootout::measure::runner::runner::<F>();
    assert!(runner.trusts_producer(), "{}", F::NAME);
    for foreign in [&own[..own.len() - 1], &own[..]] {
        assert!(runner.load(foreign).is_err(), "{}", F::NAME);
        assert!(runner.buffer().is_empty(), "{}", F::NAME);
    }
    true
}

fn truncated_is_an_error<F: Format>() {
    if refuses_foreign_bytes::<F>() {
        return;
    }
    for p in [every_type(), heartbeat()] {
        let mut f = F::default();
        let bytes = encode(&mut f, &p);
        for len in 0..bytes.len() {
            let cut = &bytes[..len];
            assert!(
                f.decode(cut, &mut Aggregate::new()).is_err(),
                "{}: decode of {len}/{} bytes succeeded",
                F::NAME,
                bytes.len()
            );
            assert!(f.decode_packet(cut).is_err(), "{}: {len} bytes", F::NAME);
        }
    }
    let mut f = F::default();
    let bytes = encode(&mut f, &biggest());
    for len in [
        0,
        1,
        7,
        8,
        9,
        100,
        bytes.len() / 2,
        bytes.len() - 8,
        bytes.len() - 1,
    ] {
        assert!(
            f.decode_packet(&bytes[..len]).is_err(),
            "{}: {len}",
            F::NAME
        );
    }
    let e = f.decode_packet(&[]).unwrap_err();
    assert!(!e.to_string().is_empty());
}

/// Corrupted bytes must give Ok or Err, never a panic (a fixed-seed mini fuzz).
fn corrupted_never_panics<F: Format>() {
    if refuses_foreign_bytes::<F>() {
        return;
    }
    let mut f = F::default();
    let good = encode(&mut f, &every_type());
    let mut rng = fastrand::Rng::with_seed(0x1EC5_F00D);
    for _ in 0..2_000 {
        let mut bad = good.clone();
        for _ in 0..rng.usize(1..6) {
            let i = rng.usize(..bad.len());
            bad[i] = rng.u8(..);
        }
        let _ = f.decode(&bad, &mut Aggregate::new());
        let _ = f.decode_packet(&bad);
    }
    for len in [0, 1, 8, 16, 64, 512] {
        let noise: Vec<u8> = (0..len).map(|_| rng.u8(..)).collect();
        let _ = f.decode(&noise, &mut Aggregate::new());
        let _ = f.decode_packet(&noise);
        let ones = vec![0xFF; len];
        let _ = f.decode_packet(&ones);
    }
}

/// One test module per format of the registry's list (`capnp_unpacked::heartbeat`, ...), each
/// with every conformance check; and the list's names.
macro_rules! format_tests {
    ($($module:ident: [$($name:ident: $F:ty),+ $(,)?]),* $(,)?) => {
        $($(
            mod $name {
                #[test] fn every_type_round_trips() { super::every_type_round_trips::<$F>() }
                #[test] fn sink_gives_expected_aggregate() { super::sink_gives_expected_aggregate::<$F>() }
                #[test] fn heartbeat() { super::heartbeat_works::<$F>() }
                #[test] fn biggest_packet() { super::biggest_packet_works::<$F>() }
                #[test] fn packets_back_to_back() { super::packets_back_to_back::<$F>() }
                #[test] fn truncated_is_an_error() { super::truncated_is_an_error::<$F>() }
                #[test] fn corrupted_never_panics() { super::corrupted_never_panics::<$F>() }
            }
        )+)*

        /// Every format's `NAME`, in the list's order.
        fn every_name() -> Vec<&'static str> {
            vec![$($(<$F as Format>::NAME),+),*]
        }
    };
}
md_shootout::for_each_format!(format_tests);

#[test]
fn registry_lists_every_format_once() {
    let names: Vec<_> = registry().iter().map(|r| r.name()).collect();
    let mut listed = every_name();
    listed.extend(md_shootout::formats::window_names());
    assert_eq!(
        names, listed,
        "the registry follows for_each_format!, then for_each_window_format!"
    );
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "a name twice: {names:?}");
    assert!(
        names.iter().all(|n| !n.is_empty()
            && n.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')),
        "names are CSV- and command-line-safe: {names:?}"
    );
    assert!(
        names.contains(&"raw"),
        "the baseline every ratio divides by"
    );
}

#[test]
fn runners_agree_on_a_window() {
    let source = vec![every_type(), heartbeat(), biggest(), every_type()];
    let timer = Timer::calibrate();
    for mut runner in registry() {
        if runner.grain() == Grain::Window {
            // Timed only whole: tests/it/window_format.rs checks that a per-unit pass is refused.
            continue;
        }
        // What this runner carries of the window, and its aggregation (a lossy format's
        // sequence numbers lose their high bits: `biggest` has one past 2^32).
        let window: Vec<Packet> = match runner.lossy() {
            Some(l) => source.iter().map(l.project).collect(),
            None => source.clone(),
        };
        let mut reference = Aggregate::new();
        for p in &window {
            visit_packet(p, &mut reference);
        }
        let (mut agg, mut checksum) = (Aggregate::new(), Checksum::default());
        let mut io = PassIo::new(&source, &mut agg, &mut checksum);
        let mut enc = Vec::new();
        let encoded = runner
            .pass(Workload::Encode, Timing::PerUnit, &mut io, &timer, &mut enc)
            .unwrap();
        assert_eq!(encoded.packets, window.len());
        assert_eq!(enc.len(), window.len(), "{}", runner.name());
        assert_eq!(enc.last().unwrap().end, runner.buffer().len());
        assert!(enc.windows(2).all(|w| w[0].end <= w[1].end));
        assert!(enc.iter().all(|s| s.ns < 1_000_000_000), "plausible times");

        let mut dec: Vec<PacketStat> = Vec::new();
        let decoded = runner
            .pass(
                Workload::Selective,
                Timing::PerUnit,
                &mut io,
                &timer,
                &mut dec,
            )
            .unwrap();
        assert_eq!(decoded.packets, window.len());
        assert_eq!(
            dec.iter().map(|s| s.end).collect::<Vec<_>>(),
            enc.iter().map(|s| s.end).collect::<Vec<_>>(),
            "{}",
            runner.name()
        );
        assert_eq!(*io.aggregate, reference, "{}", runner.name());

        let mut back = Vec::new();
        runner.decode_packets(&mut back).unwrap();
        assert_eq!(back, window, "{}", runner.name());

        // A second window reuses the buffer: it holds only the new window.
        io.packets = &source[1..2];
        runner
            .pass(Workload::Encode, Timing::PerUnit, &mut io, &timer, &mut enc)
            .unwrap();
        let mut back = Vec::new();
        runner.decode_packets(&mut back).unwrap();
        assert_eq!(back, vec![window[1].clone()], "{}", runner.name());
    }
}

#[test]
fn decode_error_says_what() {
    let e = DecodeError::Truncated {
        needed: 10,
        available: 3,
    };
    assert_eq!(e.to_string(), "truncated: need 10 bytes, have 3");
}

#[test]
fn rkyv_reads_a_misaligned_slice_through_its_scratch_copy() {
    let p = every_type();
    let mut f = Rkyv::default();
    // One byte in front moves the record off its 16-byte alignment.
    let mut buf = vec![0u8; 1];
    f.encode(&p, &mut buf);
    let (back, used) = f.decode_packet(&buf[1..]).unwrap();
    assert_eq!((back, used), (p, buf.len() - 1));
    let mut agg = Aggregate::new();
    assert_eq!(f.decode(&buf[1..], &mut agg).unwrap(), buf.len() - 1);
    assert_eq!(agg.messages, 24);
}

#[test]
fn json_is_one_line_per_packet_with_string_symbols_and_integer_prices() {
    let mut p = heartbeat();
    p.messages.push(Message::TradeReport(Trade {
        flags: 0,
        timestamp: 5,
        symbol: sym("A\"B\\C"),
        size: 100,
        price: 1_500_000,
        trade_id: 9,
    }));
    let mut f = Json;
    let bytes = encode(&mut f, &p);
    let text = std::str::from_utf8(&bytes).unwrap();
    assert_eq!(text.matches('\n').count(), 1);
    assert!(text.ends_with('\n'));
    assert!(text.contains(r#""symbol":"A\"B\\C""#), "{text}");
    assert!(text.contains(r#""price":1500000"#), "{text}");
    // An escaped symbol cannot be borrowed: it is decoded owned, and still round-trips.
    assert_eq!(f.decode_packet(&bytes).unwrap(), (p, bytes.len()));
}
