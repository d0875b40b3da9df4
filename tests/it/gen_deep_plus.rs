//! The DEEP+ generator: its days replayed through a book kept here (order id → symbol, side,
//! remaining size), so consistency is checked against the DEEP+ semantics in iex-feed.md, not
//! against the generator's own book; the message mix; gen → inspect counts.

use std::collections::{BTreeMap, HashMap, HashSet};

use md_shootout::gen::{self, CaptureKind, GenOptions};
use md_shootout::model::{Feed, Message, Symbol};

fn opts(packets: u64, seed: u64, symbols: usize) -> GenOptions {
    GenOptions {
        feed: Feed::DeepPlus,
        capture: CaptureKind::Pcapng,
        packets,
        seed,
        symbols,
    }
}

/// What a replay of a day saw.
#[derive(Default)]
struct Replay {
    by_type: BTreeMap<u8, u64>,
    peak_live: usize,
    live_at_end: usize,
    partial_executions: u64,
    full_executions: u64,
    improved_executions: u64,
    keep_priority: u64,
    reset_priority: u64,
}

type Levels = HashMap<(Symbol, u8), BTreeMap<i64, u32>>;

/// Adds `delta` orders at `price` on one side of a symbol's book and asserts the book is not
/// locked or crossed: every buy strictly below every sell.
fn level(levels: &mut Levels, sym: Symbol, side: u8, price: i64, delta: i32) {
    let l = levels.entry((sym, side)).or_default();
    let n = l.entry(price).or_insert(0);
    *n = n.checked_add_signed(delta).expect("level count");
    if *n == 0 {
        l.remove(&price);
    }
    let bid = levels
        .get(&(sym, b'8'))
        .and_then(|l| l.keys().next_back().copied());
    let ask = levels
        .get(&(sym, b'5'))
        .and_then(|l| l.keys().next().copied());
    if let (Some(b), Some(a)) = (bid, ask) {
        assert!(b < a, "{sym}: book locked or crossed: bid {b} ask {a}");
    }
}

/// Applies every message of `o`'s day in sequence order to a book of live orders and panics on
/// the first inconsistency.
fn replay(o: &GenOptions) -> Replay {
    // id -> (symbol, side, remaining size, booked price)
    let mut live: HashMap<i64, (Symbol, u8, u32, i64)> = HashMap::new();
    let mut r = Replay::default();
    let mut next_seq = 1;
    let mut last_trade_id = i64::MIN;
    let mut trades = HashSet::new();
    // Per (symbol, side): price -> live orders at it, to see the top of book.
    let mut levels = Levels::new();
    for p in gen::packets(o).unwrap() {
        assert_eq!(p.seq, next_seq, "sequence numbers contiguous");
        next_seq += p.messages.len() as u64;
        for m in &p.messages {
            *r.by_type.entry(m.kind()).or_insert(0) += 1;
            match m {
                Message::AddOrder(a) => {
                    assert!(a.side == b'8' || a.side == b'5', "side {}", a.side);
                    assert!(a.size > 0 && a.price > 0 && a.price % 100 == 0);
                    let old = live.insert(a.order_id, (a.symbol, a.side, a.size, a.price));
                    assert!(old.is_none(), "order id {} added while live", a.order_id);
                    level(&mut levels, a.symbol, a.side, a.price, 1);
                }
                Message::OrderModify(mo) => {
                    let e = live
                        .get_mut(&mo.order_id)
                        .unwrap_or_else(|| panic!("M of order {} not live", mo.order_id));
                    assert_eq!(e.0, mo.symbol, "M names the order's symbol");
                    assert!(mo.size > 0 && mo.price > 0);
                    match mo.flags {
                        gen::sim::MODIFY_MAINTAIN_PRIORITY => {
                            // Priority is kept only for a smaller size at the same price.
                            assert!(mo.size < e.2 && mo.price == e.3, "{mo:?} of {e:?}");
                            r.keep_priority += 1;
                        }
                        gen::sim::MODIFY_RESET_PRIORITY => r.reset_priority += 1,
                        f => panic!("modify flags {f:#x}"),
                    }
                    level(&mut levels, e.0, e.1, e.3, -1);
                    level(&mut levels, e.0, e.1, mo.price, 1);
                    e.2 = mo.size;
                    e.3 = mo.price;
                }
                Message::OrderDelete(d) => {
                    let e = live
                        .remove(&d.order_id)
                        .unwrap_or_else(|| panic!("R of order {} not live", d.order_id));
                    assert_eq!(e.0, d.symbol);
                    level(&mut levels, e.0, e.1, e.3, -1);
                }
                Message::OrderExecuted(l) => {
                    let e = live
                        .get_mut(&l.order_id)
                        .unwrap_or_else(|| panic!("L of order {} not live", l.order_id));
                    assert_eq!(e.0, l.symbol);
                    assert!(
                        l.size > 0 && l.size <= e.2,
                        "L {} > remaining {}",
                        l.size,
                        e.2
                    );
                    assert!(l.trade_id > last_trade_id, "trade ids increase");
                    last_trade_id = l.trade_id;
                    trades.insert(l.trade_id);
                    assert_eq!(l.flags & 0x20 != 0, l.size < 100, "odd lot flag");
                    // The booked price, or better for the resting order.
                    if l.price != e.3 {
                        r.improved_executions += 1;
                        if e.1 == b'8' {
                            assert!(l.price < e.3, "{l:?} of {e:?}");
                        } else {
                            assert!(l.price > e.3, "{l:?} of {e:?}");
                        }
                    }
                    if l.size == e.2 {
                        r.full_executions += 1;
                        level(&mut levels, e.0, e.1, e.3, -1);
                        live.remove(&l.order_id);
                    } else {
                        r.partial_executions += 1;
                        e.2 -= l.size;
                    }
                }
                Message::ClearBook(c) => {
                    let before = live.len();
                    let others = live.values().filter(|e| e.0 != c.symbol).count();
                    live.retain(|_, e| e.0 != c.symbol);
                    levels.retain(|k, _| k.0 != c.symbol);
                    assert_eq!(live.len(), others, "C drops only its symbol's orders");
                    assert!(live.len() < before, "C clears a non-empty book");
                }
                Message::TradeReport(t) => {
                    assert!(t.trade_id > last_trade_id, "trade ids increase");
                    last_trade_id = t.trade_id;
                    trades.insert(t.trade_id);
                }
                Message::TradeBreak(b) => {
                    assert!(trades.contains(&b.trade_id), "B of an earlier trade");
                }
                Message::PriceLevelUpdate(_)
                | Message::QuoteUpdate(_)
                | Message::OfficialPrice(_)
                | Message::AuctionInformation(_) => panic!("not a DEEP+ message: {m:?}"),
                _ => {}
            }
            r.peak_live = r.peak_live.max(live.len());
        }
    }
    r.live_at_end = live.len();
    r
}

#[test]
fn a_day_replays_consistently_through_a_book() {
    for seed in [1u64, 2] {
        let o = opts(50_000, seed, 500);
        let r = replay(&o);
        let n = |k: u8| r.by_type.get(&k).copied().unwrap_or(0);
        let total: u64 = r.by_type.values().sum();
        assert!(total > 100_000, "{total} messages");
        // Every kind of lifecycle step happens.
        for k in *b"aMRLCTB" {
            assert!(n(k) > 0, "seed {seed}: no {}", k as char);
        }
        assert!(r.partial_executions > 0 && r.full_executions > 0);
        assert!(r.improved_executions > 0);
        assert!(r.keep_priority > 0 && r.reset_priority > 0);
        // The mix of the flow messages, within broad bounds around the documented one.
        let flow = (n(b'a') + n(b'R') + n(b'M') + n(b'L') + n(b'T')) as f64;
        let share = |k: u8| n(k) as f64 / flow;
        assert!((0.40..0.52).contains(&share(b'a')), "a {}", share(b'a'));
        assert!((0.33..0.45).contains(&share(b'R')), "R {}", share(b'R'));
        assert!((0.05..0.11).contains(&share(b'M')), "M {}", share(b'M'));
        assert!((0.025..0.06).contains(&share(b'L')), "L {}", share(b'L'));
        assert!((0.01..0.035).contains(&share(b'T')), "T {}", share(b'T'));
        assert!(n(b'B') * 500 < total && n(b'C') * 1000 < total);
        // The generator's count of live orders agrees with the replay's.
        let mut sim = gen::Simulation::new(&o).unwrap();
        let mut p = md_shootout::model::Packet::default();
        while sim.next_into(&mut p) {}
        assert_eq!(sim.live_orders(), r.live_at_end);
        assert!(r.live_at_end > 0);
    }
}

#[test]
fn the_live_book_stays_under_its_cap() {
    // Few symbols and many messages: every book reaches its depth target and hovers there, far
    // below its cap (the cap itself binding is a unit test: it needs a smaller cap).
    let o = opts(100_000, 3, 4);
    let r = replay(&o);
    let cap = gen::sim::live_cap(4);
    let target = gen::sim::DEPTH_TARGET;
    assert_eq!(cap, 1024);
    assert!(r.peak_live <= 4 * cap, "peak {}", r.peak_live);
    assert!(
        r.peak_live > 3 * target && r.peak_live < 6 * target,
        "books fill to about {target} each: peak {}",
        r.peak_live
    );
    assert!(r.live_at_end > 2 * target, "end {}", r.live_at_end);
}

#[test]
fn tiny_days_and_one_symbol_are_consistent() {
    for packets in [0u64, 1, 2, 3, 7, 100] {
        for symbols in [1usize, 2] {
            let r = replay(&opts(packets, 1, symbols));
            let n: u64 = r.by_type.values().sum();
            assert!(packets < 2 || n > 0);
        }
    }
}

#[test]
fn gen_and_inspect_count_the_same_deep_plus_day() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dplus.pcapng.gz");
    let path = path.to_str().unwrap();
    let run = |args: &[&str]| -> serde_json::Value {
        let out = crate::common::shootout(args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).expect("JSON on stdout")
    };
    let gen = run(&[
        "gen",
        "--out",
        path,
        "--feed",
        "deep-plus",
        "--packets",
        "20000",
        "--seed",
        "5",
        "--json",
    ]);
    assert_eq!(gen["feed"], "deep-plus");
    let seen = run(&["inspect", "--json", path]);
    assert_eq!(seen["feed"], "deep-plus");
    for key in [
        "packets",
        "heartbeats",
        "messages",
        "symbols",
        "first_send_time",
        "last_send_time",
        "by_type",
    ] {
        assert_eq!(seen[key], gen[key], "{key}");
    }
    for key in ["gaps", "duplicates", "unknown"] {
        assert_eq!(seen[key], 0, "{key}");
    }
    for k in ["a", "R", "M", "L"] {
        assert!(gen["by_type"][k].as_u64().unwrap() > 0, "{k}");
    }
}

#[test]
fn the_capture_decodes_field_for_field_to_the_packet_view() {
    use md_shootout::capture::CaptureReader;
    use md_shootout::iex::Segment;
    for capture in [CaptureKind::Pcapng, CaptureKind::Pcap] {
        let o = GenOptions {
            capture,
            ..opts(5_000, 9, 200)
        };
        let mut file = Vec::new();
        let report = gen::generate(&o, &mut file).unwrap();
        assert_eq!(report.feed, Feed::DeepPlus);
        let mut view = gen::packets(&o).unwrap();
        let mut reader = CaptureReader::new(&file[..]).unwrap();
        let mut n = 0u64;
        while let Some(frame) = reader.next_frame().unwrap() {
            let d = md_shootout::net::udp_payload(frame.link_type, frame.data).unwrap();
            let seg = Segment::parse(d.payload).unwrap().unwrap();
            assert_eq!(seg.feed, Feed::DeepPlus);
            assert_eq!(seg.header.protocol_id, 0x8005);
            let p = view.next().expect("as many packets as frames");
            assert_eq!(seg.header.first_seq, p.seq);
            assert_eq!(seg.header.send_time, p.send_time);
            let decoded: Vec<Message> = seg.messages().map(|m| m.unwrap().to_owned()).collect();
            assert_eq!(decoded, p.messages, "packet {n}");
            n += 1;
        }
        assert!(view.next().is_none());
        assert_eq!(n, report.packets);
    }
}
