//! A capture's shape: the figures that make two captures comparable whatever their size, and
//! that `gen --like` reproduces ([`crate::gen::like`]).
//!
//! Gathered during `inspect`'s one streaming pass ([`ProfileTally`], fed by
//! [`crate::inspect::Tally`]) in bounded memory: a histogram of messages per packet (at most one
//! bucket per count a segment can carry), byte counts per type, one counter per symbol that
//! trades, and an HdrHistogram of send-time gaps; nothing per packet.

use std::collections::BTreeMap;

use hdrhistogram::Histogram;
use rustc_hash::FxHashMap;

use crate::model::{kind, Timestamp};

/// Largest send-time gap the histogram tells apart (a day); longer ones count as this.
const MAX_GAP_NS: u64 = 86_400_000_000_000;
/// Significant digits of the gap histogram: gaps up to 2048 ns are exact, longer ones within
/// 0.1%.
const GAP_DIGITS: u8 = 3;
/// Gaps this short or shorter count as "within 1 µs" of the previous packet.
const CLOSE_GAP_NS: u64 = 1_000;

/// Message types that trade, quote or change a book: how concentrated trading is across symbols
/// is measured over these. The others (status, directory, auction, official price, security
/// events) go to every symbol in turn and say little about where the trading is.
pub fn is_trading(k: u8) -> bool {
    matches!(
        k,
        kind::TRADE_REPORT
            | kind::TRADE_BREAK
            | kind::PRICE_LEVEL_BUY
            | kind::PRICE_LEVEL_SELL
            | kind::QUOTE_UPDATE
            | kind::ADD_ORDER
            | kind::ORDER_MODIFY
            | kind::ORDER_DELETE
            | kind::ORDER_EXECUTED
            | kind::CLEAR_BOOK
    )
}

/// The running counts behind a [`Profile`].
#[derive(Debug)]
pub struct ProfileTally {
    /// Packets by message count (index), heartbeats at 0.
    per_packet: Vec<u64>,
    by_type: [u64; 256],
    bytes_by_type: [u64; 256],
    /// Trading messages per symbol (the symbol's 8 bytes as one integer).
    trading: FxHashMap<u64, u64>,
    /// The current run of trading messages on one symbol, not yet in `trading`: updates come in
    /// runs, so most messages skip the hash.
    run: Option<(u64, u64)>,
    gaps: Histogram<u64>,
    gap_sum: f64,
    gap_sum_sq: f64,
    close_gaps: u64,
    backwards: u64,
    pub(crate) last_send: Option<Timestamp>,
    pub(crate) first_send: Option<Timestamp>,
}

impl Default for ProfileTally {
    fn default() -> Self {
        ProfileTally {
            per_packet: Vec::new(),
            by_type: [0; 256],
            bytes_by_type: [0; 256],
            trading: FxHashMap::default(),
            run: None,
            gaps: Histogram::new_with_bounds(1, MAX_GAP_NS, GAP_DIGITS)
                .expect("constant histogram bounds are valid"),
            gap_sum: 0.0,
            gap_sum_sq: 0.0,
            close_gaps: 0,
            backwards: 0,
            last_send: None,
            first_send: None,
        }
    }
}

impl ProfileTally {
    /// One message of type `k`, `len` bytes on the wire (type byte included); `symbol` when it
    /// carries one.
    #[inline]
    pub fn message(&mut self, k: u8, len: usize, symbol: Option<u64>) {
        self.by_type[usize::from(k)] += 1;
        self.bytes_by_type[usize::from(k)] += len as u64;
        if let (true, Some(s)) = (is_trading(k), symbol) {
            match &mut self.run {
                Some((at, n)) if *at == s => *n += 1,
                run => {
                    if let Some((at, n)) = run.replace((s, 1)) {
                        *self.trading.entry(at).or_default() += n;
                    }
                }
            }
        }
    }

    /// One packet of `messages` messages sent at `send_time`, after its messages.
    #[inline]
    pub fn packet(&mut self, messages: usize, send_time: Timestamp) {
        if self.per_packet.len() <= messages {
            self.per_packet.resize(messages + 1, 0);
        }
        self.per_packet[messages] += 1;
        self.first_send.get_or_insert(send_time);
        if let Some(last) = self.last_send.replace(send_time) {
            match u64::try_from(send_time.wrapping_sub(last)) {
                Ok(gap) if send_time >= last => {
                    self.gaps.saturating_record(gap.min(MAX_GAP_NS));
                    let g = gap as f64;
                    self.gap_sum += g;
                    self.gap_sum_sq += g * g;
                    self.close_gaps += u64::from(gap <= CLOSE_GAP_NS);
                }
                _ => self.backwards += 1,
            }
        }
    }

    /// The figures, from everything counted so far.
    pub fn finish(mut self) -> Profile {
        if let Some((at, n)) = self.run.take() {
            *self.trading.entry(at).or_default() += n;
        }
        let packets: u64 = self.per_packet.iter().sum();
        let messages: u64 = self.by_type.iter().sum();
        let bytes: u64 = self.bytes_by_type.iter().sum();
        let share = |n: u64, of: u64| ratio(n as f64, of);
        let per_packet_histogram: BTreeMap<u32, u64> = self
            .per_packet
            .iter()
            .enumerate()
            .filter(|&(_, &n)| n > 0)
            .map(|(count, &n)| (count as u32, n))
            .collect();
        let percentile = |q: f64| nearest_rank(&per_packet_histogram, q);
        let mut type_share = BTreeMap::new();
        let mut bytes_by_type = BTreeMap::new();
        let mut type_counts = Vec::new();
        for k in 0..=255u8 {
            let n = self.by_type[usize::from(k)];
            if n > 0 {
                type_share.insert(type_name(k), share(n, messages));
                bytes_by_type.insert(
                    type_name(k),
                    self.bytes_by_type[usize::from(k)] as f64 / n as f64,
                );
                type_counts.push((k, n));
            }
        }
        let mut counts: Vec<u64> = self.trading.into_values().collect();
        counts.sort_unstable_by(|a, b| b.cmp(a));
        let gaps = self.gaps.len();
        let mean_gap = ratio(self.gap_sum, gaps);
        let sd = (ratio(self.gap_sum_sq, gaps) - mean_gap * mean_gap)
            .max(0.0)
            .sqrt();
        let gap_at = |q: f64| {
            if gaps == 0 {
                0
            } else {
                self.gaps.lowest_equivalent(self.gaps.value_at_quantile(q))
            }
        };
        Profile {
            messages_per_packet: PerPacket {
                mean: share(messages, packets),
                p50: percentile(0.50),
                p90: percentile(0.90),
                p99: percentile(0.99),
                max: per_packet_histogram
                    .keys()
                    .next_back()
                    .copied()
                    .unwrap_or(0),
                histogram: per_packet_histogram,
            },
            heartbeat_share: share(self.per_packet.first().copied().unwrap_or(0), packets),
            type_share,
            message_bytes: MessageBytes {
                mean: share(bytes, messages),
                by_type: bytes_by_type,
            },
            trading: Concentration::of(&counts),
            send_gaps: SendGaps {
                p50_ns: gap_at(0.50),
                p90_ns: gap_at(0.90),
                p99_ns: gap_at(0.99),
                max_ns: if gaps == 0 { 0 } else { self.gaps.max() },
                mean_ns: mean_gap,
                cv: if mean_gap > 0.0 { sd / mean_gap } else { 0.0 },
                within_1us_share: share(self.close_gaps, gaps),
                backwards: self.backwards,
            },
            first_send_time: self.first_send,
            type_counts,
            trading_counts: counts,
            gap_counts: self
                .gaps
                .iter_recorded()
                .map(|v| {
                    (
                        self.gaps.lowest_equivalent(v.value_iterated_to()),
                        v.count_at_value(),
                    )
                })
                .collect(),
        }
    }
}

/// `n` over `of`, 0 when `of` is.
fn ratio(n: f64, of: u64) -> f64 {
    if of == 0 {
        0.0
    } else {
        n / of as f64
    }
}

/// The smallest count that at least `q` of the packets do not exceed (nearest rank).
fn nearest_rank(histogram: &BTreeMap<u32, u64>, q: f64) -> u32 {
    let total: u64 = histogram.values().sum();
    let rank = ((q * total as f64).ceil() as u64).max(1);
    let mut seen = 0;
    for (&count, &n) in histogram {
        seen += n;
        if seen >= rank {
            return count;
        }
    }
    0
}

/// A type byte as `inspect` prints it: the character, or `0x..` when it is not printable.
pub fn type_name(k: u8) -> String {
    if k.is_ascii_graphic() {
        char::from(k).to_string()
    } else {
        format!("0x{k:02x}")
    }
}

/// A capture's shape (`inspect --json`'s `profile`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Profile {
    pub messages_per_packet: PerPacket,
    /// Share of packets with no message (heartbeats).
    pub heartbeat_share: f64,
    /// Share of the messages of each type (unknown types included).
    pub type_share: BTreeMap<String, f64>,
    pub message_bytes: MessageBytes,
    /// How concentrated the trading messages are across symbols.
    pub trading: Concentration,
    /// Gaps between consecutive packets' send times, in capture order.
    pub send_gaps: SendGaps,
    /// The first packet's send time: `gen --like` starts there.
    #[serde(skip)]
    pub first_send_time: Option<Timestamp>,
    /// Messages per type byte, the types seen only.
    #[serde(skip)]
    pub type_counts: Vec<(u8, u64)>,
    /// Trading messages per symbol, most active first.
    #[serde(skip)]
    pub trading_counts: Vec<u64>,
    /// The gap histogram: (gap in ns, packets), gaps ascending.
    #[serde(skip)]
    pub gap_counts: Vec<(u64, u64)>,
}

/// Messages per packet, heartbeats (0) included. Percentiles are nearest-rank: the smallest
/// count that at least that share of the packets do not exceed.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PerPacket {
    pub mean: f64,
    pub p50: u32,
    pub p90: u32,
    pub p99: u32,
    pub max: u32,
    /// Packets by message count.
    pub histogram: BTreeMap<u32, u64>,
}

/// Bytes per message on the wire, type byte included.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct MessageBytes {
    pub mean: f64,
    /// Mean per type: the spec's fixed size, unless IEX appended fields.
    pub by_type: BTreeMap<String, f64>,
}

/// Trading messages ([`is_trading`]) across symbols.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Concentration {
    pub messages: u64,
    /// Symbols with at least one trading message.
    pub symbols: u64,
    /// Share of the trading messages on the most active symbol, and on the ten most active.
    pub top1_share: f64,
    pub top10_share: f64,
    /// Herfindahl index: the sum of the symbols' squared shares; 1 when one symbol has all,
    /// 1/N when N symbols share evenly.
    pub hhi: f64,
    /// Exponent s of the Zipf law (share of the r-th most active symbol ∝ r^-s over the symbols
    /// seen) that fits best (maximum likelihood); null with fewer than two symbols.
    pub zipf_exponent: Option<f64>,
}

impl Concentration {
    /// From the per-symbol counts, most active first.
    fn of(counts: &[u64]) -> Concentration {
        let total: u64 = counts.iter().sum();
        let share = |n: u64| ratio(n as f64, total);
        Concentration {
            messages: total,
            symbols: counts.len() as u64,
            top1_share: share(counts.first().copied().unwrap_or(0)),
            top10_share: share(counts.iter().take(10).sum()),
            hhi: counts.iter().map(|&n| share(n) * share(n)).sum(),
            zipf_exponent: zipf_fit(counts),
        }
    }
}

/// The maximum-likelihood Zipf exponent for counts by rank (most active first): the s at which
/// the law's mean log rank equals the observed one (the likelihood's derivative is zero there;
/// the law's mean log rank falls as s grows, so bisection finds it). Searched in 0..=20.
fn zipf_fit(counts: &[u64]) -> Option<f64> {
    let total: u64 = counts.iter().sum();
    if counts.len() < 2 || total == 0 {
        return None;
    }
    let observed = counts
        .iter()
        .enumerate()
        .map(|(r, &n)| n as f64 * ((r + 1) as f64).ln())
        .sum::<f64>()
        / total as f64;
    let mean_log_rank = |s: f64| {
        let (mut weights, mut logs) = (0.0, 0.0);
        for r in 1..=counts.len() {
            let ln = (r as f64).ln();
            let w = (-s * ln).exp();
            weights += w;
            logs += w * ln;
        }
        logs / weights
    };
    let (mut lo, mut hi) = (0.0f64, 20.0f64);
    for _ in 0..60 {
        let mid = (lo + hi) / 2.0;
        if mean_log_rank(mid) > observed {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some((lo + hi) / 2.0)
}

/// Send-time gaps between consecutive packets. Percentiles from an HdrHistogram (exact up to
/// 2048 ns, within 0.1% above); a packet sent before the one before it is counted in
/// `backwards` and left out of the rest.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SendGaps {
    pub p50_ns: u64,
    pub p90_ns: u64,
    pub p99_ns: u64,
    pub max_ns: u64,
    pub mean_ns: f64,
    /// Coefficient of variation (standard deviation / mean): 1 for a Poisson stream, far above
    /// for bursts between quiet spells.
    pub cv: f64,
    /// Share of the gaps of 1 µs or less.
    pub within_1us_share: f64,
    pub backwards: u64,
}

impl Profile {
    /// The human-readable lines `inspect` prints.
    pub fn to_lines(&self) -> Vec<String> {
        let m = &self.messages_per_packet;
        let g = &self.send_gaps;
        let c = &self.trading;
        let total: u64 = self.type_counts.iter().map(|&(_, n)| n).sum();
        // The message types, most common first (ties by type byte).
        let mut by_count = self.type_counts.clone();
        by_count.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let mix: Vec<String> = (by_count.into_iter())
            .map(|(k, n)| {
                let pct = 100.0 * n as f64 / total as f64;
                let digits = if pct >= 0.1 { 1 } else { 3 };
                format!("{} {pct:.digits$}%", type_name(k))
            })
            .collect();
        let zipf = c
            .zipf_exponent
            .map_or_else(|| "none".to_owned(), |s| format!("{s:.2}"));
        vec![
            format!(
                "per packet  {:.2} messages (p50 {}, p90 {}, p99 {}, max {}), {:.1}% heartbeats",
                m.mean,
                m.p50,
                m.p90,
                m.p99,
                m.max,
                100.0 * self.heartbeat_share
            ),
            format!("mix         {}", mix.join(", ")),
            format!("msg bytes   {:.1} mean", self.message_bytes.mean),
            format!(
                "trading     {} messages on {} symbols: top 1 {:.1}%, top 10 {:.1}%, HHI {:.3}, \
                 Zipf exponent {zipf}",
                c.messages,
                c.symbols,
                100.0 * c.top1_share,
                100.0 * c.top10_share,
                c.hhi
            ),
            format!(
                "send gaps   p50 {} ns, p90 {} ns, p99 {} ns, max {} ns, CV {:.1}, {:.1}% within \
                 1 µs{}",
                g.p50_ns,
                g.p90_ns,
                g.p99_ns,
                g.max_ns,
                g.cv,
                100.0 * g.within_1us_share,
                if g.backwards > 0 {
                    format!(", {} backwards", g.backwards)
                } else {
                    String::new()
                }
            ),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zipf_fit_finds_the_exponent_of_exact_zipf_counts() {
        // Counts proportional to r^-1 and r^-2 over 50 ranks: the fit gives the exponent back.
        for s in [1.0f64, 2.0] {
            let counts: Vec<u64> = (1..=50)
                .map(|r| (1e9 * (r as f64).powf(-s)).round() as u64)
                .collect();
            let fit = zipf_fit(&counts).unwrap();
            assert!((fit - s).abs() < 1e-3, "s {s}: fit {fit}");
        }
        // Even counts: exponent 0.
        assert!(zipf_fit(&[5, 5, 5, 5]).unwrap() < 1e-9);
        assert_eq!(zipf_fit(&[7]), None);
    }

    #[test]
    fn nearest_rank_percentiles() {
        // Ten packets: counts 0 (x2), 1 (x5), 2 (x2), 9 (x1).
        let h: BTreeMap<u32, u64> = [(0, 2), (1, 5), (2, 2), (9, 1)].into_iter().collect();
        assert_eq!(nearest_rank(&h, 0.2), 0);
        assert_eq!(nearest_rank(&h, 0.5), 1);
        assert_eq!(nearest_rank(&h, 0.7), 1);
        assert_eq!(nearest_rank(&h, 0.9), 2);
        assert_eq!(nearest_rank(&h, 0.99), 9);
    }
}
