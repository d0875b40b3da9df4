//! The day's schedule: wall-clock landmarks, the phases of the day, and how many packets each
//! phase gets ([`layout`]).

use crate::model::Timestamp;

pub(super) const NS: i64 = 1_000_000_000;
const HOUR: i64 = 3600 * NS;
const MINUTE: i64 = 60 * NS;
/// 2019-09-03 00:00:00 UTC, the day of the original shootout's DEEP capture.
pub const DAY_START: Timestamp = 1_567_468_800 * NS;
/// Start of system hours, 04:00 New York.
pub const SYSTEM_START: Timestamp = DAY_START + 8 * HOUR;
/// Regular market open, 09:30 New York.
pub const MARKET_OPEN: Timestamp = DAY_START + 13 * HOUR + 30 * MINUTE;
/// Regular market close, 16:00 New York.
pub const MARKET_CLOSE: Timestamp = DAY_START + 20 * HOUR;
/// End of system hours, 20:00 New York.
pub const SYSTEM_END: Timestamp = DAY_START + 24 * HOUR;
/// Auction information is published this long before the open and the close.
const AUCTION_WINDOW: i64 = 10 * MINUTE;
/// Spacing of packets inside a burst; bursts stay far shorter than the 1 s gap after them.
pub(super) const BURST_STEP: i64 = 5_000;
/// Densest burst packing; 40 × 33-byte `D` messages still fits a 1500-byte MTU.
const MAX_BURST_DENSITY: u64 = 40;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Flow {
    Pre,
    OpenAuction,
    Regular,
    CloseAuction,
    Post,
}

impl Flow {
    pub(super) fn extended_hours(self) -> bool {
        matches!(self, Flow::Pre | Flow::Post | Flow::OpenAuction)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Burst {
    Admin,
    Open,
    Close,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Burst(Burst),
    Flow(Flow),
    End,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Phase {
    pub(super) kind: Kind,
    pub(super) packets: u64,
    pub(super) t0: Timestamp,
    pub(super) t1: Timestamp,
    /// Messages per packet for bursts; the burst's total message count in `burst_msgs`.
    pub(super) density: u64,
    pub(super) burst_msgs: u64,
}

/// Splits `packets` into the phases of the day.
///
/// Bursts get their natural size when packets are plentiful and are packed denser (up to
/// [`MAX_BURST_DENSITY`]) to stay within a quarter of the packets when they are not; with very
/// few packets the bursts are cut short (fewer symbols get their admin messages). The last packet
/// is the end of day whenever there are at least two.
/// `oc_per_sym` is how many messages each symbol gets in the open and the close bursts.
pub(super) fn layout(packets: u64, n_sym: u64, n_listed: u64, oc_per_sym: u64) -> Vec<Phase> {
    let mut phases = Vec::with_capacity(10);
    if packets == 0 {
        return phases;
    }
    let has_end = packets >= 2;
    let rest = packets - u64::from(has_end);
    let admin_msgs = 2 + 4 * n_sym + n_listed;
    let oc_msgs = 1 + oc_per_sym * n_sym;
    let need = |d_admin: u64, d_oc: u64| {
        (
            admin_msgs.div_ceil(d_admin),
            oc_msgs.div_ceil(d_oc),
            oc_msgs.div_ceil(d_oc),
        )
    };
    let budget = (rest / 4).max(1);
    let (pa, po, _) = need(16, 8);
    let scale = (pa + 2 * po).div_ceil(budget).max(1);
    let d_admin = (16 * scale).min(MAX_BURST_DENSITY);
    let d_oc = (8 * scale).min(MAX_BURST_DENSITY);
    let (mut pa, mut po, mut pc) = need(d_admin, d_oc);
    let sum = pa + po + pc;
    let cap = (rest as u128 * 3 / 4) as u64;
    if sum > cap {
        let shrink = |p: u64| ((p as u128 * cap as u128 / sum as u128) as u64).max(1);
        (pa, po, pc) = (shrink(pa), shrink(po), shrink(pc));
    }
    let mut left = rest;
    let mut take = |want: u64| {
        let got = want.min(left);
        left -= got;
        got
    };
    let (pa, po, pc) = (take(pa), take(po), take(pc));
    let flows = left;
    let share = |pct: u64| (flows as u128 * pct as u128 / 100) as u64;
    let (pre, oa, ca, post) = (share(10), share(3), share(3), share(10));
    let regular = flows - pre - oa - ca - post;

    let burst = |b: Burst, packets, t0, density, msgs| Phase {
        kind: Kind::Burst(b),
        packets,
        t0,
        t1: t0,
        density,
        burst_msgs: msgs,
    };
    let flow = |f: Flow, packets, t0, t1| Phase {
        kind: Kind::Flow(f),
        packets,
        t0,
        t1,
        density: 0,
        burst_msgs: 0,
    };
    let (open_auction, close_auction) =
        (MARKET_OPEN - AUCTION_WINDOW, MARKET_CLOSE - AUCTION_WINDOW);
    phases.extend([
        burst(Burst::Admin, pa, SYSTEM_START, d_admin, admin_msgs),
        flow(Flow::Pre, pre, SYSTEM_START + NS, open_auction),
        flow(Flow::OpenAuction, oa, open_auction, MARKET_OPEN),
        burst(Burst::Open, po, MARKET_OPEN, d_oc, oc_msgs),
        flow(Flow::Regular, regular, MARKET_OPEN + NS, close_auction),
        flow(Flow::CloseAuction, ca, close_auction, MARKET_CLOSE),
        burst(Burst::Close, pc, MARKET_CLOSE, d_oc, oc_msgs),
        flow(Flow::Post, post, MARKET_CLOSE + NS, SYSTEM_END - NS),
    ]);
    if has_end {
        phases.push(Phase {
            kind: Kind::End,
            packets: 1,
            t0: SYSTEM_END,
            t1: SYSTEM_END,
            density: 2,
            burst_msgs: 0,
        });
    }
    phases
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_sums_to_packets() {
        for n in [0u64, 1, 2, 3, 10, 100, 1000, 20_000, 40_000_000, u64::MAX] {
            for syms in [1u64, 500, 100_000] {
                let p = layout(n, syms, syms / 50 + 1, 2);
                assert_eq!(
                    p.iter().map(|p| p.packets).sum::<u64>(),
                    n,
                    "n={n} syms={syms}"
                );
            }
        }
        // Plenty of packets: bursts at natural density, regular hours dominate.
        let p = layout(40_000_000, 500, 11, 2);
        assert_eq!(p[0].density, 16);
        assert_eq!(p[0].packets, (2 + 4 * 500 + 11u64).div_ceil(16));
        assert!(p[4].packets > 29_000_000);
    }
}
