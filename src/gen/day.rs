//! `gen --day`: a synthetic day the size of a real 2026 IEX day, so nobody has to work out the
//! packet count that gives it.
//!
//! The target is a message count (what parsers of real days report), but the generator is
//! driven by IEX-TP packets, so the preset is the target divided by the generator's own messages
//! per packet. That ratio is counted on 2M generated packets, not assumed (docs/BENCHMARKS.md, "A
//! 2026-size day from the generator"). The `day_presets_give_the_target_messages` test counts
//! it again, so a change to the simulation's mix that moves the ratio fails there rather than
//! silently generating a day of the wrong size.

use crate::model::Feed;

/// Messages in a 2026 DEEP day: open-source parsers of real May 2026 DEEP files report 347M and
/// 469M price level updates per day; 450M sits at the busy end, which is what a capacity test
/// wants.
pub const DEEP_DAY_MESSAGES: u64 = 450_000_000;
/// Messages in a 2026 DEEP+ day: the full-day size the DEEP+ issue gives.
pub const DEEP_PLUS_DAY_MESSAGES: u64 = 500_000_000;

/// DEEP: 450M messages / 2.369 messages per packet.
pub const DEEP_DAY_PACKETS: u64 = 190_000_000;
/// DEEP+: 500M messages / 2.368 messages per packet.
pub const DEEP_PLUS_DAY_PACKETS: u64 = 211_000_000;

/// The packet count of a 2026-size day of `feed`, or `None` for TOPS: there is no measured 2026
/// TOPS day to size it by, and a guess would look like a measurement.
pub fn day_packets(feed: Feed) -> Option<u64> {
    match feed {
        Feed::Deep => Some(DEEP_DAY_PACKETS),
        Feed::DeepPlus => Some(DEEP_PLUS_DAY_PACKETS),
        Feed::Tops => None,
    }
}

/// The message count [`day_packets`] aims at, for the same feeds.
pub fn day_messages(feed: Feed) -> Option<u64> {
    match feed {
        Feed::Deep => Some(DEEP_DAY_MESSAGES),
        Feed::DeepPlus => Some(DEEP_PLUS_DAY_MESSAGES),
        Feed::Tops => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::{self, GenOptions};

    #[test]
    fn the_presets_are_the_documented_packet_counts() {
        // README and docs/BENCHMARKS.md quote these figures; change them together.
        assert_eq!(day_packets(Feed::Deep), Some(190_000_000));
        assert_eq!(day_packets(Feed::DeepPlus), Some(211_000_000));
        assert_eq!(day_packets(Feed::Tops), None);
        assert_eq!(day_messages(Feed::Tops), None);
    }

    #[test]
    fn day_presets_give_the_target_messages() {
        for feed in [Feed::Deep, Feed::DeepPlus] {
            let sample = 100_000;
            let opts = GenOptions {
                feed,
                packets: sample,
                ..GenOptions::default()
            };
            let messages: u64 = gen::packets(&opts)
                .unwrap()
                .map(|p| p.messages.len() as u64)
                .sum();
            let estimate = messages as f64 / sample as f64 * day_packets(feed).unwrap() as f64;
            let target = day_messages(feed).unwrap() as f64;
            // A short day carries its start-of-day burst over fewer packets, so it runs about 1%
            // above a long day's ratio; 2M packets is within 0.1% of the target.
            assert!(
                (0.99..1.03).contains(&(estimate / target)),
                "{feed}: {messages} messages in {sample} packets scale to {estimate:.0}, \
                 target {target}"
            );
        }
    }
}
