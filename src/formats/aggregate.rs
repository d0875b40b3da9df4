//! The concrete [`Sink`] every format decodes into, so formats can be checked against each other.

use std::collections::BTreeMap;
use std::io::{self, Write};

use rustc_hash::FxHashMap;

use super::codec::Sink;
use crate::model::{Side, Symbol};

/// What the aggregation keeps per symbol. Prices are `None` until one is seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct SymbolStats {
    /// Sum of trade report and (DEEP+) order execution sizes: the symbol's executed volume
    /// (breaks not subtracted, not counted).
    pub trade_volume: u64,
    /// Sum of those trades' size x price (raw fixed point): makes the selective decode read every
    /// trade's price, so no format can skip that load.
    pub trade_notional: i128,
    pub bid_high: Option<i64>,
    pub bid_low: Option<i64>,
    pub ask_high: Option<i64>,
    pub ask_low: Option<i64>,
    /// Every value the selective decode handed over for this symbol, folded in order: sums and
    /// extremes alone would pass a decoder that gets a price wrong that is not an extreme, or
    /// swaps two values.
    pub fold: u64,
}

/// FxHash's multiplier, as in the complete decode's checksum.
const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl SymbolStats {
    #[inline(always)]
    fn fold(&mut self, v: u64) {
        self.fold = (self.fold.rotate_left(5) ^ v).wrapping_mul(K);
    }

    /// What differs between two stats of one symbol, in words, for an error message.
    pub fn difference(&self, got: &SymbolStats) -> String {
        let (mut a, mut b) = (*self, *got);
        if a.fold != b.fold {
            (a.fold, b.fold) = (0, 0);
            if a == b {
                return "the same sums and extremes, but not the same values in order (a value \
                        that is not an extreme is wrong, or two are swapped)"
                    .into();
            }
        }
        format!("expected {self:?}, got {got:?}")
    }

    fn bid(&mut self, price: i64) {
        self.fold(1 ^ price as u64);
        self.bid_high = Some(self.bid_high.map_or(price, |p| p.max(price)));
        self.bid_low = Some(self.bid_low.map_or(price, |p| p.min(price)));
    }

    fn ask(&mut self, price: i64) {
        self.fold(2 ^ price as u64);
        self.ask_high = Some(self.ask_high.map_or(price, |p| p.max(price)));
        self.ask_low = Some(self.ask_low.map_or(price, |p| p.min(price)));
    }
}

/// Per symbol trade volume and notional and bid / ask high and low; packet and message counts and
/// a sum of packet sequence numbers.
///
/// Bid side: buy price level updates (DEEP `8`), non-zero quote bid prices (TOPS `Q`) and buy add
/// orders (DEEP+ `a` with side `8`). Ask side: sell price level updates (`5`), non-zero quote ask
/// prices and sell add orders (side `5`). Two aggregates are equal when
/// every count and every symbol's figures are. Every value a decoder hands over is used, so the
/// compiler cannot drop a load for one format and keep it for another.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Aggregate {
    pub packets: u64,
    pub messages: u64,
    /// Wrapping sum of the packets' sequence numbers.
    pub seq_sum: u64,
    /// As a list of pairs in JSON (a worker's results, see `measure::jobs`): map keys there must
    /// be strings.
    #[serde(with = "symbol_pairs")]
    symbols: FxHashMap<[u8; 8], SymbolStats>,
}

mod symbol_pairs {
    use super::{FxHashMap, SymbolStats};
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(
        map: &FxHashMap<[u8; 8], SymbolStats>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.collect_seq(map.iter())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<FxHashMap<[u8; 8], SymbolStats>, D::Error> {
        let pairs = Vec::<([u8; 8], SymbolStats)>::deserialize(d)?;
        Ok(pairs.into_iter().collect())
    }
}

impl Aggregate {
    pub fn new() -> Aggregate {
        Aggregate::default()
    }

    /// The figures for one symbol, if any trade, price level or quote named it.
    pub fn get(&self, symbol: &Symbol) -> Option<&SymbolStats> {
        self.symbols.get(&symbol.0)
    }

    /// Number of symbols with figures.
    pub fn symbol_count(&self) -> usize {
        self.symbols.len()
    }

    /// Makes room for `symbols` in all, so that the map neither grows nor touches a fresh page
    /// in a timed pass: when its table grows, every bucket of the new table is written once
    /// (filled with placeholder symbols, then cleared) and the entries are put back.
    pub fn reserve(&mut self, symbols: usize) {
        let before = self.symbols.capacity();
        self.symbols
            .reserve(symbols.saturating_sub(self.symbols.len()));
        if self.symbols.capacity() == before {
            return;
        }
        let entries: Vec<_> = self.symbols.drain().collect();
        // 0xFF is no symbol's first byte (symbols are printable ASCII).
        let mut placeholder = 0xFF00_0000_0000_0000u64;
        while self.symbols.len() < self.symbols.capacity() {
            self.symbols
                .insert(placeholder.to_be_bytes(), SymbolStats::default());
            placeholder += 1;
        }
        self.symbols.clear();
        self.symbols.extend(entries);
    }

    /// The symbols and their figures, sorted by symbol.
    pub fn sorted(&self) -> BTreeMap<Symbol, SymbolStats> {
        self.symbols.iter().map(|(s, v)| (Symbol(*s), *v)).collect()
    }

    /// Writes `symbol,trade_volume,bid_high,bid_low,ask_high,ask_low,trade_notional` with a
    /// header line, one row per symbol sorted by symbol; prices (and the notional, the sum of
    /// size x price) in raw fixed point, empty where none was seen. The notional is last so that
    /// readers of the first six columns keep working; it lets an independent decoder check
    /// trade prices too.
    pub fn write_csv(&self, mut w: impl Write) -> io::Result<()> {
        writeln!(
            w,
            "symbol,trade_volume,bid_high,bid_low,ask_high,ask_low,trade_notional"
        )?;
        let opt = |p: Option<i64>| p.map(|p| p.to_string()).unwrap_or_default();
        for (symbol, s) in self.sorted() {
            writeln!(
                w,
                "{symbol},{},{},{},{},{},{}",
                s.trade_volume,
                opt(s.bid_high),
                opt(s.bid_low),
                opt(s.ask_high),
                opt(s.ask_low),
                s.trade_notional
            )?;
        }
        Ok(())
    }

    /// Adds the aggregation of other packets (another share of the input, see
    /// `measure::merge`): counts and sums add, extremes widen. The folds, whose order across
    /// the two is lost, add too: a merged fold is not one pass's, and is compared with nothing.
    pub fn absorb(&mut self, other: &Aggregate) {
        self.packets += other.packets;
        self.messages += other.messages;
        self.seq_sum = self.seq_sum.wrapping_add(other.seq_sum);
        for (symbol, o) in &other.symbols {
            let e = self.entry(symbol);
            e.trade_volume += o.trade_volume;
            e.trade_notional += o.trade_notional;
            let widen = |a: Option<i64>, b: Option<i64>, f: fn(i64, i64) -> i64| match (a, b) {
                (Some(a), Some(b)) => Some(f(a, b)),
                (a, b) => a.or(b),
            };
            e.bid_high = widen(e.bid_high, o.bid_high, i64::max);
            e.bid_low = widen(e.bid_low, o.bid_low, i64::min);
            e.ask_high = widen(e.ask_high, o.ask_high, i64::max);
            e.ask_low = widen(e.ask_low, o.ask_low, i64::min);
            e.fold = e.fold.wrapping_add(o.fold);
        }
    }

    fn entry(&mut self, symbol: &[u8; 8]) -> &mut SymbolStats {
        self.symbols.entry(*symbol).or_default()
    }
}

impl Sink for Aggregate {
    #[inline]
    fn packet(&mut self, seq: u64) {
        self.packets += 1;
        self.seq_sum = self.seq_sum.wrapping_add(seq);
    }

    #[inline]
    fn trade(&mut self, symbol: &[u8; 8], size: u32, price: i64) {
        self.messages += 1;
        let e = self.entry(symbol);
        e.fold(u64::from(size));
        e.fold(price as u64);
        e.trade_volume += u64::from(size);
        e.trade_notional += i128::from(size) * i128::from(price);
    }

    #[inline]
    fn price_level(&mut self, side: Side, symbol: &[u8; 8], price: i64) {
        self.messages += 1;
        let e = self.entry(symbol);
        match side {
            Side::Buy => e.bid(price),
            Side::Sell => e.ask(price),
        }
    }

    #[inline]
    fn add_order(&mut self, side: u8, symbol: &[u8; 8], price: i64) {
        self.messages += 1;
        match side {
            b'8' => self.entry(symbol).bid(price),
            b'5' => self.entry(symbol).ask(price),
            // Not a side the spec knows: the message counts, its price does not.
            _ => {}
        }
    }

    #[inline]
    fn quote(&mut self, symbol: &[u8; 8], bid_price: i64, ask_price: i64) {
        self.messages += 1;
        if bid_price == 0 && ask_price == 0 {
            return;
        }
        let e = self.entry(symbol);
        if bid_price != 0 {
            e.bid(bid_price);
        }
        if ask_price != 0 {
            e.ask(ask_price);
        }
    }

    #[inline]
    fn other(&mut self) {
        self.messages += 1;
    }
}

/// Feeds a neutral packet to a sink exactly as a decoder would: the reference the formats'
/// aggregates are checked against.
pub fn visit_packet<K: Sink>(packet: &crate::model::Packet, sink: &mut K) {
    use crate::model::Message;
    sink.packet(packet.seq);
    for m in &packet.messages {
        match m {
            Message::TradeReport(t) => sink.trade(&t.symbol.0, t.size, t.price),
            Message::OrderExecuted(e) => sink.trade(&e.symbol.0, e.size, e.price),
            Message::AddOrder(a) => sink.add_order(a.side, &a.symbol.0, a.price),
            Message::PriceLevelUpdate(p) => sink.price_level(p.side, &p.symbol.0, p.price),
            Message::QuoteUpdate(q) => sink.quote(&q.symbol.0, q.bid_price, q.ask_price),
            _ => sink.other(),
        }
    }
}
