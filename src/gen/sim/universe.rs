//! The symbol universe: the tickers of the day, which are IEX-listed, and each one's quote state.

use fastrand::Rng;
use rustc_hash::FxHashSet;

use crate::model::Symbol;

/// Upper bound on `--symbols`: keeps ticker generation fast and per-symbol state small.
pub const MAX_SYMBOLS: usize = 100_000;
/// The IEX test symbol, always present, always last (least active).
pub const TEST_SYMBOL: &str = "ZIEXT";
/// One tick: $0.01 in 4-decimal fixed point.
pub(super) const TICK: i64 = 100;

#[derive(Debug, Clone)]
pub(super) struct Sym {
    pub(super) symbol: Symbol,
    /// Best bid in fixed point, a multiple of `TICK`, at least one tick.
    pub(super) bid: i64,
    /// Spread in ticks, 1..=5.
    pub(super) spread: i64,
    pub(super) listed: bool,
    pub(super) seen: bool,
    /// Last trade (id, size, price) that a trade break may cancel.
    pub(super) last_trade: Option<(i64, u32, i64)>,
}

impl Sym {
    pub(super) fn ask(&self) -> i64 {
        self.bid + self.spread * TICK
    }
}

/// Unique random 1-5 letter tickers, the test symbol last; every 50th is IEX-listed.
pub(super) fn make_symbols(rng: &mut Rng, n: usize) -> Vec<Sym> {
    let mut used = FxHashSet::default();
    used.insert(Symbol::new(TEST_SYMBOL).unwrap_or_default());
    let mut out = Vec::with_capacity(n);
    while out.len() + 1 < n {
        let len = match rng.u8(0..100) {
            0 => 1,
            1..=5 => 2,
            6..=40 => 3,
            41..=95 => 4,
            _ => 5,
        };
        let mut t = [b' '; 8];
        for b in &mut t[..len] {
            *b = b'A' + rng.u8(0..26);
        }
        let symbol = Symbol(t);
        if used.insert(symbol) {
            let listed = out.len() % 50 == 7;
            out.push(new_sym(rng, symbol, listed));
        }
    }
    let test = Symbol::new(TEST_SYMBOL).unwrap_or_default();
    out.push(new_sym(rng, test, true));
    out
}

fn new_sym(rng: &mut Rng, symbol: Symbol, listed: bool) -> Sym {
    // $1 to $500, log-ish: most names trade between $10 and $100.
    let dollars = match rng.u8(0..10) {
        0 => rng.i64(1..10),
        1..=7 => rng.i64(10..100),
        _ => rng.i64(100..500),
    };
    Sym {
        symbol,
        bid: dollars * 10_000 + rng.i64(0..100) * TICK,
        spread: rng.i64(1..=3),
        listed,
        seen: false,
        last_trade: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tickers_unique_uppercase_and_test_symbol_last() {
        let mut rng = Rng::with_seed(1);
        let syms = make_symbols(&mut rng, 2000);
        assert_eq!(syms.len(), 2000);
        let set: FxHashSet<Symbol> = syms.iter().map(|s| s.symbol).collect();
        assert_eq!(set.len(), 2000);
        for s in &syms {
            let t = s.symbol.trimmed();
            assert!((1..=5).contains(&t.len()));
            assert!(t.iter().all(u8::is_ascii_uppercase));
            assert!(s.bid >= TICK && s.bid % TICK == 0);
        }
        assert_eq!(syms.last().unwrap().symbol.trimmed(), b"ZIEXT");
        assert!(syms.last().unwrap().listed);
    }
}
