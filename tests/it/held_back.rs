//! Held-back DEEP+: a capture written here from the spec's layouts, never by `gen` and never used
//! to tune anything, in the shapes a real DEEP+ (or DPLC) capture may take that the generator
//! never makes: four channels interleaved, each with its own sequence and clock; messages with
//! appended fields and of unknown types; every administrative type; reserved bytes and flag
//! bytes that are not zero; sides the spec does not know; prices and sizes at the ends of their
//! ranges (0, negative, `i64::MIN`/`MAX`, `u32::MAX`), order ids near `i64::MAX`; 8-character and
//! dotted symbols; segments from heartbeats to 40 messages; classic pcap with VLAN tags.
//!
//! Every format must carry it field for field (`run --verify`, the complete decode's checksum
//! per packet and window), and the aggregation must equal the one computed here from the bytes
//! written, by the rules of the issue (volume = `L` + `T` sizes, bid/ask from `a` by side).

use std::collections::BTreeMap;

use crate::common::{
    head, pcap, segment_on, shootout, summary_csv, udp_frame, widen, Expected, Order, TS,
};
use md_shootout::iex::DEEP_PLUS_PROTOCOL_ID;

/// xorshift64: a fixed stream of choices, independent of the crate's own generators.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

const SYMBOLS: [&str; 7] = ["ZIEXT", "A", "BRK.A", "BF.B", "ABCDEFGH", "SPY", "QQQQ.WI"];

/// One channel's state: the next sequence number, its clock, its live order ids.
struct Channel {
    id: u32,
    seq: u64,
    clock: i64,
    next_order: i64,
    live: Vec<(i64, &'static str)>,
}

struct Day {
    rng: Rng,
    expected: BTreeMap<&'static str, Expected>,
    /// Messages of a known type written.
    known: u64,
}

impl Day {
    fn price(&mut self) -> i64 {
        if self.rng.chance(2) {
            self.rng
                .pick(&[0, -1, -990_500, i64::MAX, i64::MIN, i64::MIN + 1])
        } else {
            10_000 + self.rng.below(5_000_000) as i64
        }
    }

    fn size(&mut self) -> u32 {
        if self.rng.chance(2) {
            self.rng.pick(&[0, 1, u32::MAX])
        } else {
            1 + self.rng.below(2_000) as u32
        }
    }

    fn symbol(&mut self) -> &'static str {
        self.rng.pick(&SYMBOLS)
    }

    /// An order id: a live one mostly, sometimes one never added.
    fn referenced(&mut self, ch: &mut Channel) -> (i64, &'static str) {
        if !ch.live.is_empty() && self.rng.chance(90) {
            let i = self.rng.below(ch.live.len() as u64) as usize;
            if self.rng.chance(50) {
                return ch.live.swap_remove(i);
            }
            return ch.live[i];
        }
        (self.rng.next() as i64, self.symbol())
    }

    /// One message for `ch`, as bytes; counted into the expected figures.
    fn message(&mut self, ch: &mut Channel) -> Vec<u8> {
        ch.clock += 1 + self.rng.below(5_000) as i64;
        let ts = ch.clock;
        let flag = self.rng.pick(&[0u8, 0x01, 0x80, 0xc0, 0x20, 0xff]);
        let roll = self.rng.below(100);
        let mut m = match roll {
            0..=29 => {
                let symbol = self.symbol();
                let side = if self.rng.chance(97) {
                    self.rng.pick(b"85")
                } else {
                    self.rng.pick(&[b'X', 0, b'B'])
                };
                ch.next_order += 1 + self.rng.below(3) as i64;
                let id = ch.next_order;
                ch.live.push((id, symbol));
                let (size, price) = (self.size(), self.price());
                let e = self.expected.entry(symbol).or_default();
                match side {
                    b'8' => widen(&mut e.bid, price),
                    b'5' => widen(&mut e.ask, price),
                    _ => {}
                }
                let mut m = head(b'a', side, ts, symbol);
                m.extend(id.to_le_bytes());
                m.extend(size.to_le_bytes());
                m.extend(price.to_le_bytes());
                m
            }
            30..=54 => {
                let (id, symbol) = self.referenced(ch);
                let mut m = head(b'R', flag, ts, symbol); // a reserved byte that is not zero
                m.extend(id.to_le_bytes());
                m
            }
            55..=64 => {
                let (id, symbol) = self.referenced(ch);
                let mut m = head(b'M', flag, ts, symbol);
                m.extend(id.to_le_bytes());
                m.extend(self.size().to_le_bytes());
                m.extend(self.price().to_le_bytes());
                m
            }
            65..=74 => {
                let (id, symbol) = self.referenced(ch);
                let (size, price) = (self.size(), self.price());
                self.expected.entry(symbol).or_default().trade(size, price);
                let mut m = head(b'L', flag, ts, symbol);
                m.extend(id.to_le_bytes());
                m.extend(size.to_le_bytes());
                m.extend(price.to_le_bytes());
                m.extend((self.rng.next() as i64).to_le_bytes());
                m
            }
            75..=80 => {
                let kind = if self.rng.chance(85) { b'T' } else { b'B' };
                let symbol = self.symbol();
                let (size, price) = (self.size(), self.price());
                if kind == b'T' {
                    self.expected.entry(symbol).or_default().trade(size, price);
                }
                let mut m = head(kind, flag, ts, symbol);
                m.extend(size.to_le_bytes());
                m.extend(price.to_le_bytes());
                m.extend((self.rng.next() as i64).to_le_bytes());
                m
            }
            81 => {
                let symbol = self.symbol();
                ch.live.retain(|&(_, s)| s != symbol);
                head(b'C', flag, ts, symbol)
            }
            82 => {
                let mut m = vec![b'S', self.rng.pick(b"OSRMEC")];
                m.extend(ts.to_le_bytes());
                m
            }
            83..=84 => {
                let mut m = head(b'D', flag, ts, self.symbol());
                m.extend((self.rng.next() as u32).to_le_bytes());
                m.extend(self.price().to_le_bytes());
                m.push(self.rng.pick(&[0, 1, 2, 0xff]));
                m
            }
            85..=86 => {
                let mut m = head(b'H', self.rng.pick(b"HOPT"), ts, self.symbol());
                m.extend(self.rng.pick(&[*b"T1  ", *b"IPO1", *b"    ", *b"NA  "]));
                m
            }
            87 => head(b'O', self.rng.pick(b"ON"), ts, self.symbol()),
            88 => {
                let mut m = head(b'P', self.rng.pick(&[0, 1]), ts, self.symbol());
                m.push(self.rng.pick(b" ACDN"));
                m
            }
            89 => head(b'E', self.rng.pick(b"OC"), ts, self.symbol()),
            90..=91 => head(b'I', self.rng.pick(b" ABC"), ts, self.symbol()),
            // Types this parser does not know (IEX may add some): skipped by their length.
            _ => {
                let mut m = vec![self.rng.pick(b"z~\x01"), 0];
                m.extend((0..8 + self.rng.below(30)).map(|_| self.rng.next() as u8));
                return m;
            }
        };
        self.known += 1;
        // Fields IEX may append to any message: parsed by the known prefix.
        if self.rng.chance(6) {
            m.extend((0..1 + self.rng.below(16)).map(|_| self.rng.next() as u8));
        }
        m
    }
}

/// The capture's frames and the figures the aggregation must show.
fn held_back_day(packets: usize) -> (Vec<Vec<u8>>, Day) {
    let mut day = Day {
        rng: Rng(0x2545_f491_4f6c_dd1d),
        expected: BTreeMap::new(),
        known: 0,
    };
    let mut channels: Vec<Channel> = (1..=4)
        .map(|id| Channel {
            id,
            seq: 1,
            clock: TS + i64::from(id) * 1_000_000,
            next_order: if id == 4 {
                i64::MAX - 50_000
            } else {
                i64::from(id) << 40
            },
            live: Vec::new(),
        })
        .collect();
    let mut frames = Vec::with_capacity(packets);
    for _ in 0..packets {
        let c = day.rng.below(4) as usize;
        let count = match day.rng.below(10) {
            0 => 0, // a heartbeat
            1 => 30 + day.rng.below(11),
            _ => 1 + day.rng.below(6),
        };
        let ch = &mut channels[c];
        let messages: Vec<Vec<u8>> = (0..count).map(|_| day.message(ch)).collect();
        let segment = segment_on(DEEP_PLUS_PROTOCOL_ID, ch.id, ch.seq, ch.clock, &messages);
        ch.seq += count;
        let vlan = day.rng.below(2) as usize;
        frames.push(udp_frame(&segment, vlan));
    }
    (frames, day)
}

#[test]
fn every_format_carries_a_held_back_deep_plus_capture_field_for_field() {
    let (frames, day) = held_back_day(3_000);
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("20261123_IEXTP1_DPLC1.0.pcap");
    std::fs::write(&input, pcap(Order::Little, false, &frames)).unwrap();
    let summary = dir.path().join("summary.csv");
    let out = shootout(&[
        "run",
        input.to_str().unwrap(),
        "--verify",
        "--warmup",
        "100",
        "--window",
        "256",
        "--summary",
        summary.to_str().unwrap(),
        "--csv",
        dir.path().join("runs.csv").to_str().unwrap(),
    ]);
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{table}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        table.contains(&format!(
            "checked: every field of every message of all {} formats (the complete decode's \
             checksum equals the source's for every packet and every window), {} messages each \
             way",
            md_shootout::formats::names().len(),
            day.known
        )),
        "{table}"
    );

    let expected = summary_csv(day.expected.iter().map(|(s, e)| (*s, e)));
    assert_eq!(std::fs::read_to_string(&summary).unwrap(), expected);
    // The day is not a trivial one: every symbol traded and was bid and offered.
    assert_eq!(day.expected.len(), SYMBOLS.len());
    assert!(day
        .expected
        .values()
        .all(|e| e.volume > 0 && e.bid.is_some() && e.ask.is_some()));

    // inspect agrees on what is in it, counting the unknown types and the appended fields.
    let out = shootout(&["inspect", "--json", input.to_str().unwrap()]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["feed"], "deep-plus");
    assert_eq!(v["packets"], 3_000);
    assert_eq!(v["gaps"], 0);
    assert_eq!(v["duplicates"], 0);
    assert_eq!(
        v["messages"].as_u64().unwrap(),
        day.known,
        "unknown types are not messages"
    );
    assert!(v["unknown"].as_u64().unwrap() > 0);
    assert!(v["longer"].as_u64().unwrap() > 0);
}
