//! `gen --like FILE`: the shape of a real capture ([`Profile`]) as the simulation's parameters.
//!
//! The simulation ([`super::Simulation`]) then draws every packet from these tables instead of
//! its own day layout: the number of messages (heartbeats included) from the capture's
//! histogram, each message's type from its type mix, the symbol of a trading message from its
//! per-symbol counts by rank (other messages go to every symbol in turn, as status messages do),
//! and each packet's send-time gap from its gap histogram. Every message is still made by the
//! simulation's own code (books, order references, prices), so a generated capture keeps the
//! same invariants whatever the shape. Message sizes follow from the mix: each type has the
//! spec's fixed size.

use crate::model::{kind, Feed, Timestamp};
use crate::profile::Profile;

use super::day;
use super::error::GenError;
use super::sim::layout::SYSTEM_START;
use super::sim::universe::MAX_SYMBOLS;

/// Most messages one generated packet carries: 780 of the largest type (80 bytes and its 2-byte
/// length) still fit an IEX-TP segment's 64 KiB payload. Real captures stay far below.
pub const MAX_MESSAGES_PER_PACKET: u32 = 780;

/// A capture's shape, as the tables the simulation draws from. Each table is cumulative:
/// `(value, packets or messages up to and including it)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape {
    pub feed: Feed,
    /// Distinct symbols of the capture (at most [`MAX_SYMBOLS`]): the generated universe.
    pub symbols: usize,
    /// Packets of the capture.
    pub packets: u64,
    pub(crate) counts: Vec<(u32, u64)>,
    pub(crate) types: Vec<(u8, u64)>,
    /// Trading messages by symbol rank (most active first), cumulative.
    pub(crate) trading: Vec<u64>,
    pub(crate) gaps: Vec<(u64, u64)>,
    /// The first packet's send time.
    pub(crate) start: Timestamp,
}

/// The message types the generator writes for `feed` (the spec's types of that feed; DEEP+
/// without official prices and auctions, as [`super::sim`] leaves them out).
pub fn feed_kinds(feed: Feed) -> &'static [u8] {
    use kind::*;
    /// The types every feed has: status messages, retail liquidity and trades.
    const ALL: [u8; 9] = [
        SYSTEM_EVENT,
        SECURITY_DIRECTORY,
        TRADING_STATUS,
        OPERATIONAL_HALT,
        SHORT_SALE_PRICE_TEST,
        SECURITY_EVENT,
        RETAIL_LIQUIDITY,
        TRADE_REPORT,
        TRADE_BREAK,
    ];
    const DEEP: [u8; 13] = join(
        ALL,
        [
            OFFICIAL_PRICE,
            AUCTION_INFORMATION,
            PRICE_LEVEL_BUY,
            PRICE_LEVEL_SELL,
        ],
    );
    const TOPS: [u8; 12] = join(ALL, [OFFICIAL_PRICE, AUCTION_INFORMATION, QUOTE_UPDATE]);
    const DEEP_PLUS: [u8; 14] = join(
        ALL,
        [
            ADD_ORDER,
            ORDER_MODIFY,
            ORDER_DELETE,
            ORDER_EXECUTED,
            CLEAR_BOOK,
        ],
    );
    match feed {
        Feed::Deep => &DEEP,
        Feed::Tops => &TOPS,
        Feed::DeepPlus => &DEEP_PLUS,
    }
}

/// `a` then `b`, as one array of length `N` (which must be their lengths' sum: checked when
/// the constant is evaluated).
const fn join<const A: usize, const B: usize, const N: usize>(a: [u8; A], b: [u8; B]) -> [u8; N] {
    assert!(A + B == N);
    let mut out = [0; N];
    let mut i = 0;
    while i < N {
        out[i] = if i < A { a[i] } else { b[i - A] };
        i += 1;
    }
    out
}

fn cumulative<T: Copy>(items: impl IntoIterator<Item = (T, u64)>) -> Vec<(T, u64)> {
    let mut sum = 0;
    items
        .into_iter()
        .filter(|&(_, n)| n > 0)
        .map(|(v, n)| {
            sum += n;
            (v, sum)
        })
        .collect()
}

impl Shape {
    /// The shape of a capture of `feed` with `profile` and `symbols` distinct symbols, as
    /// `inspect` reported them. Types `feed` does not have (unknown ones) are left out of the
    /// mix; a capture with no message at all gives heartbeats only.
    pub fn new(profile: &Profile, feed: Feed, symbols: u64) -> Shape {
        let kinds = feed_kinds(feed);
        let types = cumulative(
            profile
                .type_counts
                .iter()
                .copied()
                .filter(|(k, _)| kinds.contains(k)),
        );
        let counts = cumulative(
            profile
                .messages_per_packet
                .histogram
                .iter()
                .map(|(&c, &n)| {
                    let c = if types.is_empty() {
                        0
                    } else {
                        c.min(MAX_MESSAGES_PER_PACKET)
                    };
                    (c, n)
                }),
        );
        let symbols = (symbols as usize).clamp(1, MAX_SYMBOLS);
        let trading = cumulative(
            profile
                .trading_counts
                .iter()
                .take(symbols)
                .map(|&n| ((), n)),
        )
        .into_iter()
        .map(|(_, c)| c)
        .collect();
        let mut gaps = cumulative(profile.gap_counts.iter().copied());
        if gaps.is_empty() {
            gaps.push((1, 1));
        }
        Shape {
            feed,
            symbols,
            packets: profile.messages_per_packet.histogram.values().sum(),
            counts: if counts.is_empty() {
                vec![(0, 1)]
            } else {
                counts
            },
            types,
            trading,
            gaps,
            start: profile.first_send_time.unwrap_or(SYSTEM_START),
        }
    }

    /// Mean messages per packet of the tables (after any cap).
    pub fn mean_per_packet(&self) -> f64 {
        let mut prev = 0;
        let mut messages = 0u128;
        for &(c, cum) in &self.counts {
            messages += u128::from(c) * u128::from(cum - prev);
            prev = cum;
        }
        messages as f64 / prev.max(1) as f64
    }

    /// `--day`: the packets that carry the feed's 2026-size day of messages ([`day`]) at this
    /// shape's messages per packet; refused for TOPS (no preset) and for a shape of heartbeats.
    pub fn day_packets(&self) -> Result<u64, GenError> {
        let messages = day::day_messages(self.feed).ok_or_else(|| GenError::InvalidOption {
            option: "--day",
            reason: format!("has no preset for {}: use --packets N", self.feed),
        })?;
        let per_packet = self.mean_per_packet();
        if per_packet <= 0.0 {
            return Err(GenError::InvalidOption {
                option: "--day",
                reason: "needs a capture with messages: this one has heartbeats only".into(),
            });
        }
        Ok((messages as f64 / per_packet).round() as u64)
    }
}

/// One value from a cumulative table, drawn by its weights.
pub(crate) fn draw<T: Copy>(rng: &mut fastrand::Rng, table: &[(T, u64)]) -> T {
    let total = table.last().map_or(0, |&(_, c)| c);
    let r = rng.u64(0..total.max(1));
    let at = table.partition_point(|&(_, c)| c <= r);
    table[at.min(table.len() - 1)].0
}

/// An index into a cumulative table of weights, drawn by its weights.
pub(crate) fn draw_index(rng: &mut fastrand::Rng, table: &[u64]) -> usize {
    let total = table.last().copied().unwrap_or(0);
    let r = rng.u64(0..total.max(1));
    table
        .partition_point(|&c| c <= r)
        .min(table.len().saturating_sub(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_follow_the_weights() {
        let table = cumulative([(b'a', 1u64), (b'b', 0), (b'c', 3)]);
        assert_eq!(table, vec![(b'a', 1), (b'c', 4)]);
        let mut rng = fastrand::Rng::with_seed(3);
        let n = 40_000;
        let a = (0..n).filter(|_| draw(&mut rng, &table) == b'a').count();
        // Expected a quarter; 4 standard deviations is ±0.9%.
        assert!((a as f64 / n as f64 - 0.25).abs() < 0.009, "{a}");
        let idx = [2u64, 2, 10];
        let third = (0..n).filter(|_| draw_index(&mut rng, &idx) == 2).count();
        assert!((third as f64 / n as f64 - 0.8).abs() < 0.009, "{third}");
        assert!((0..1000).all(|_| draw_index(&mut rng, &idx) != 1));
    }
}
