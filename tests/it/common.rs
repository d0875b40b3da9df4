//! Test fixtures built byte by byte from the spec tables in `iex-feed.md`, deliberately without
//! using the generator's writers, so parser and generator are checked against each other and
//! against the spec rather than against themselves.
#![allow(dead_code)]

/// The allocation columns of the results CSV (`export::csv::Row`), in its order.
pub const ALLOC_COLUMNS: [&str; 6] = [
    "ser_allocs",
    "de_allocs",
    "de_all_allocs",
    "ser_alloc_bytes",
    "de_alloc_bytes",
    "de_all_alloc_bytes",
];

/// Every row of the CSV file at `path`, each a map from column to cell.
pub fn csv_rows(path: &std::path::Path) -> Vec<std::collections::HashMap<String, String>> {
    let mut r = csv::Reader::from_path(path).unwrap();
    let header: Vec<String> = r.headers().unwrap().iter().map(str::to_owned).collect();
    r.records()
        .map(|rec| {
            header
                .iter()
                .cloned()
                .zip(rec.unwrap().iter().map(str::to_owned))
                .collect()
        })
        .collect()
}

pub const TS: i64 = 1_471_980_632_572_715_948; // 2016-08-23 15:30:32.572715948 UTC

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Order {
    Little,
    Big,
}

impl Order {
    pub fn u16(self, v: u16) -> [u8; 2] {
        match self {
            Order::Little => v.to_le_bytes(),
            Order::Big => v.to_be_bytes(),
        }
    }
    pub fn u32(self, v: u32) -> [u8; 4] {
        match self {
            Order::Little => v.to_le_bytes(),
            Order::Big => v.to_be_bytes(),
        }
    }
    pub fn i64(self, v: i64) -> [u8; 8] {
        match self {
            Order::Little => v.to_le_bytes(),
            Order::Big => v.to_be_bytes(),
        }
    }
}

pub fn sym(s: &str) -> [u8; 8] {
    let mut out = [b' '; 8];
    out[..s.len()].copy_from_slice(s.as_bytes());
    out
}

/// Type, flag byte, timestamp, symbol: the head most messages share.
pub fn head(kind: u8, flag: u8, ts: i64, symbol: &str) -> Vec<u8> {
    let mut m = vec![kind, flag];
    m.extend(ts.to_le_bytes());
    m.extend(sym(symbol));
    m
}

pub fn trade(kind: u8, flags: u8, symbol: &str, size: u32, price: i64, id: i64) -> Vec<u8> {
    let mut m = head(kind, flags, TS, symbol);
    m.extend(size.to_le_bytes());
    m.extend(price.to_le_bytes());
    m.extend(id.to_le_bytes());
    m
}

pub fn price_level(kind: u8, symbol: &str, size: u32, price: i64) -> Vec<u8> {
    let mut m = head(kind, 1, TS, symbol);
    m.extend(size.to_le_bytes());
    m.extend(price.to_le_bytes());
    m
}

/// The 40-byte IEX-TP header followed by `(length u16, message)` blocks, on channel 1.
pub fn segment(protocol: u16, first_seq: u64, send_time: i64, messages: &[Vec<u8>]) -> Vec<u8> {
    segment_on(protocol, 1, first_seq, send_time, messages)
}

/// [`segment`] on channel `channel`.
pub fn segment_on(
    protocol: u16,
    channel: u32,
    first_seq: u64,
    send_time: i64,
    messages: &[Vec<u8>],
) -> Vec<u8> {
    let payload: Vec<u8> = messages
        .iter()
        .flat_map(|m| {
            let mut b = (m.len() as u16).to_le_bytes().to_vec();
            b.extend(m);
            b
        })
        .collect();
    let mut s = vec![1, 0];
    s.extend(protocol.to_le_bytes());
    s.extend(channel.to_le_bytes());
    s.extend(0x4200_0000u32.to_le_bytes()); // session
    s.extend((payload.len() as u16).to_le_bytes());
    s.extend((messages.len() as u16).to_le_bytes());
    s.extend(0u64.to_le_bytes()); // stream offset
    s.extend(first_seq.to_le_bytes());
    s.extend(send_time.to_le_bytes());
    s.extend(payload);
    s
}

/// Ethernet II (with `vlan_tags` 802.1Q tags) + IPv4 (no checksum needed) + UDP to port 10378.
pub fn udp_frame(payload: &[u8], vlan_tags: usize) -> Vec<u8> {
    let mut f = vec![
        0x01, 0x00, 0x5e, 0x57, 0x15, 0x04, 0x00, 0x1c, 0x73, 0x00, 0x00, 0x99,
    ];
    for _ in 0..vlan_tags {
        f.extend([0x81, 0x00, 0x00, 0x0a]);
    }
    f.extend([0x08, 0x00]);
    let total = (20 + 8 + payload.len()) as u16;
    f.extend([0x45, 0]);
    f.extend(total.to_be_bytes());
    f.extend([
        0, 0, 0x40, 0, 64, 17, 0, 0, 23, 226, 155, 132, 233, 215, 21, 4,
    ]);
    f.extend(10378u16.to_be_bytes());
    f.extend(10378u16.to_be_bytes());
    f.extend(((8 + payload.len()) as u16).to_be_bytes());
    f.extend([0, 0]);
    f.extend(payload);
    f
}

/// Classic pcap, µs or ns magic, in the given byte order.
pub fn pcap(order: Order, nanos: bool, frames: &[Vec<u8>]) -> Vec<u8> {
    let magic = if nanos { 0xa1b2_3c4d } else { 0xa1b2_c3d4 };
    let mut f = order.u32(magic).to_vec();
    f.extend(order.u16(2));
    f.extend(order.u16(4));
    f.extend(order.u32(0));
    f.extend(order.u32(0));
    f.extend(order.u32(65535));
    f.extend(order.u32(1));
    for (i, frame) in frames.iter().enumerate() {
        f.extend(order.u32(1_567_500_000 + i as u32));
        f.extend(order.u32(123));
        f.extend(order.u32(frame.len() as u32));
        f.extend(order.u32(frame.len() as u32));
        f.extend(frame);
    }
    f
}

pub fn block(order: Order, kind: u32, body: &[u8]) -> Vec<u8> {
    let mut body = body.to_vec();
    while !body.len().is_multiple_of(4) {
        body.push(0);
    }
    let len = (body.len() + 12) as u32;
    let mut b = order.u32(kind).to_vec();
    b.extend(order.u32(len));
    b.extend(body);
    b.extend(order.u32(len));
    b
}

pub fn shb(order: Order) -> Vec<u8> {
    let mut body = order.u32(0x1a2b_3c4d).to_vec();
    body.extend(order.u16(1));
    body.extend(order.u16(0));
    body.extend(order.i64(-1));
    block(order, 0x0a0d_0d0a, &body)
}

/// IDB for Ethernet with `if_tsresol` = 9 (nanoseconds).
pub fn idb(order: Order) -> Vec<u8> {
    let mut body = order.u16(1).to_vec();
    body.extend(order.u16(0));
    body.extend(order.u32(65535));
    body.extend(order.u16(9));
    body.extend(order.u16(1));
    body.extend([9, 0, 0, 0]);
    body.extend([0, 0, 0, 0]);
    block(order, 1, &body)
}

pub fn epb(order: Order, ts_ns: u64, frame: &[u8]) -> Vec<u8> {
    let mut body = order.u32(0).to_vec();
    body.extend(order.u32((ts_ns >> 32) as u32));
    body.extend(order.u32(ts_ns as u32));
    body.extend(order.u32(frame.len() as u32));
    body.extend(order.u32(frame.len() as u32));
    body.extend(frame);
    block(order, 6, &body)
}

pub fn spb(order: Order, frame: &[u8]) -> Vec<u8> {
    let mut body = order.u32(frame.len() as u32).to_vec();
    body.extend(frame);
    block(order, 3, &body)
}

/// One pcapng section: SHB, IDB, a Name Resolution Block to be skipped, then one EPB per frame.
pub fn pcapng_section(order: Order, frames: &[Vec<u8>]) -> Vec<u8> {
    let mut f = shb(order);
    f.extend(idb(order));
    f.extend(block(order, 4, &[0, 0, 0, 0])); // NRB with just opt_endofrecord: skipped
    for (i, frame) in frames.iter().enumerate() {
        f.extend(epb(order, 1_567_500_000_000_000_000 + i as u64, frame));
    }
    f
}

/// A small DEEP day: one segment per message kind group, heartbeat included.
pub fn deep_segments() -> Vec<Vec<u8>> {
    let s1 = segment(
        0x8004,
        1,
        TS,
        &[
            {
                let mut m = vec![b'S', b'O'];
                m.extend(TS.to_le_bytes());
                m
            },
            head(b'H', b'T', TS, "ZIEXT")
                .into_iter()
                .chain(*b"    ")
                .collect(),
        ],
    );
    let s2 = segment(
        0x8004,
        3,
        TS + 1,
        &[
            price_level(b'8', "ZIEXT", 100, 990_500),
            price_level(b'5', "ZIEXT", 200, 990_700),
            trade(b'T', 0, "ZIEXT", 100, 990_500, 429_974),
        ],
    );
    let heartbeat = segment(0x8004, 6, TS + 2, &[]);
    let s3 = segment(
        0x8004,
        6,
        TS + 3,
        &[trade(b'B', 0, "AAPL", 5, 1_000_000, 7)],
    );
    vec![s1, s2, heartbeat, s3]
}

/// Runs the `shootout` binary cargo built for these tests with `args`, and waits for it.
pub fn shootout(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_shootout"))
        .args(args)
        .output()
        .expect("run shootout")
}

/// Runs `shootout` with `args`, which must succeed (its exit code and stderr otherwise); returns
/// what it printed.
pub fn shootout_ok(args: &[&str]) -> String {
    let out = shootout(args);
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("shootout prints UTF-8")
}

/// One symbol's figures in the summary CSV, computed independently of the formats.
#[derive(Default)]
pub struct Expected {
    pub volume: u64,
    /// Sum of the trades' size x price (raw fixed point).
    pub notional: i128,
    pub bid: Option<(i64, i64)>,
    pub ask: Option<(i64, i64)>,
}

impl Expected {
    /// One trade (or order execution) of `size` at `price`.
    pub fn trade(&mut self, size: u32, price: i64) {
        self.volume += u64::from(size);
        self.notional += i128::from(size) * i128::from(price);
    }
}

/// Widens a (high, low) range to take in `price`.
pub fn widen(range: &mut Option<(i64, i64)>, price: i64) {
    let (hi, lo) = range.get_or_insert((price, price));
    *hi = (*hi).max(price);
    *lo = (*lo).min(price);
}

/// The summary CSV `run --summary` must write for these figures, rows in symbol order.
pub fn summary_csv<'a>(by_symbol: impl IntoIterator<Item = (&'a str, &'a Expected)>) -> String {
    let cells = |r: Option<(i64, i64)>| r.map_or(",".to_owned(), |(h, l)| format!("{h},{l}"));
    let mut csv =
        String::from("symbol,trade_volume,bid_high,bid_low,ask_high,ask_low,trade_notional\n");
    for (symbol, e) in by_symbol {
        csv += &format!(
            "{symbol},{},{},{},{}\n",
            e.volume,
            cells(e.bid),
            cells(e.ask),
            e.notional
        );
    }
    csv
}

/// Offsets of each record's start in a little-endian pcap (24-byte header, 16-byte records).
pub fn pcap_records(file: &[u8]) -> Vec<usize> {
    let mut at = 24;
    let mut starts = Vec::new();
    while at + 16 <= file.len() {
        starts.push(at);
        let incl = u32::from_le_bytes(file[at + 8..at + 12].try_into().unwrap()) as usize;
        at += 16 + incl;
    }
    starts
}

/// Offsets of each block's start in a little-endian pcapng.
pub fn pcapng_blocks(file: &[u8]) -> Vec<usize> {
    let mut at = 0;
    let mut starts = Vec::new();
    while at + 8 <= file.len() {
        starts.push(at);
        at += u32::from_le_bytes(file[at + 4..at + 8].try_into().unwrap()) as usize;
    }
    starts
}

/// The rows a run of every format writes, in order: the formats, then the default A/A twins
/// (`measure::twins`) in the registry's order, then their +5% positive controls.
pub fn rows_of_every_format() -> Vec<String> {
    let names = md_shootout::formats::names();
    let twins = md_shootout::measure::twins::chosen(None, &names).unwrap();
    assert_eq!(
        twins,
        ["sbe", "raw"],
        "the default twins, in the registry's order"
    );
    (names.iter().map(|n| n.to_string()))
        .chain(twins.iter().map(|t| format!("{t}.twin")))
        .chain(twins.iter().map(|t| format!("{t}.plus5")))
        .collect()
}

/// A row's histogram holds `count` latencies where its `units` column says the units timed one
/// by one: the same, but for a positive control (`.plus5`), whose latencies are its fed window's,
/// one unit in 20 of each chunk repeated (`measure::fed`), give or take one a window.
pub fn latencies_are_the_units(format: &str, count: u64, units: &str, side: &str) {
    if format.ends_with(".plus5") {
        let units: f64 = units.parse().unwrap();
        let want = units * 1.05;
        assert!(
            (count as f64 - want).abs() <= units * 0.01 + 10.0,
            "{side} of {format}: {count} latencies against {want}"
        );
    } else {
        assert_eq!(count.to_string(), units, "{side} of {format}");
    }
}

/// What `shootout formats --json --out FILE` printed and the file it wrote, run once per test
/// process: the capability assessment (every format's evolution, validation and other-language
/// checks) takes a minute or more in a debug build. Bench tests place the file in their results
/// folder first ([`place_capabilities`]), and bench keeps a folder's own `formats.json`, so the
/// assessment runs once for them all; `decision.rs` checks what it found.
pub fn capabilities() -> &'static (String, std::path::PathBuf) {
    static ONCE: std::sync::OnceLock<(String, std::path::PathBuf)> = std::sync::OnceLock::new();
    ONCE.get_or_init(|| {
        let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("capabilities-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("formats.json");
        let printed = shootout_ok(&["formats", "--json", "--out", path.to_str().unwrap()]);
        (printed, path)
    })
}

/// `out` (a bench's results folder, made here) with [`capabilities`]' `formats.json` in it.
pub fn place_capabilities(out: &std::path::Path) {
    std::fs::create_dir_all(out).unwrap();
    std::fs::copy(&capabilities().1, out.join("formats.json")).unwrap();
}
