//! The complete-decode workload's [`Visitor`]: every field of every message folded into one
//! running 64-bit value, in one canonical order (the packet's `seq` and `send_time`, then each
//! message's type byte and its fields in the order of the model's structs).
//!
//! Why a checksum and not a comparison: it is the same cheap work for every format (one
//! multiply per field, no allocation), it makes every field's value really used (no load can be
//! optimised away for one format and not another), and comparing it with the checksum of the
//! parsed packets checks every field of every message of every format in every run. The fold is
//! order-sensitive, so swapped messages or fields change it, and it is chained across packets,
//! so one value per window checks the whole window; the per-packet values name the first packet
//! that differs.

use super::Visitor;
use crate::model::{Message, Packet, Symbol, Timestamp};

/// FxHash's multiplier: odd, with well-spread bits.
const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
/// Where a chain starts (any non-zero value: a zero state would ignore leading zero fields).
const SEED: u64 = 0x9e37_79b9_7f4a_7c15;

/// The running checksum of a complete decode and how many messages went into it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checksum {
    state: u64,
    messages: u64,
}

impl Default for Checksum {
    fn default() -> Self {
        Checksum {
            state: SEED,
            messages: 0,
        }
    }
}

impl Checksum {
    /// The value so far.
    pub fn value(&self) -> u64 {
        self.state
    }

    /// Messages folded in so far.
    pub fn messages(&self) -> u64 {
        self.messages
    }

    /// Starts a new chain (a new window).
    pub fn reset(&mut self) {
        *self = Checksum::default();
    }

    /// The checksum of `packets` from a fresh chain, straight from the model: the reference every
    /// format's complete decode must reproduce.
    pub fn of(packets: &[Packet]) -> Checksum {
        let mut c = Checksum::default();
        for p in packets {
            c.visit(p);
        }
        c
    }

    /// Folds a parsed packet, exactly as a complete decode of it would.
    pub fn visit(&mut self, packet: &Packet) {
        self.packet(packet.seq, packet.send_time);
        for m in &packet.messages {
            self.message(*m);
        }
    }

    #[inline(always)]
    fn mix(&mut self, v: u64) {
        self.state = (self.state.rotate_left(5) ^ v).wrapping_mul(K);
    }

    #[inline(always)]
    fn mix_i(&mut self, v: i64) {
        self.mix(v as u64);
    }

    #[inline(always)]
    fn mix_symbol(&mut self, s: &Symbol) {
        self.mix(s.as_u64());
    }
}

impl Visitor for Checksum {
    #[inline]
    fn packet(&mut self, seq: u64, send_time: Timestamp) {
        self.mix(seq);
        self.mix_i(send_time);
    }

    #[inline]
    fn message(&mut self, message: Message) {
        self.messages += 1;
        self.mix(u64::from(message.kind()));
        match message {
            Message::SystemEvent(m) => {
                self.mix(u64::from(m.event));
                self.mix_i(m.timestamp);
            }
            Message::SecurityDirectory(m) => {
                self.mix(u64::from(m.flags));
                self.mix_i(m.timestamp);
                self.mix_symbol(&m.symbol);
                self.mix(u64::from(m.round_lot_size));
                self.mix_i(m.adjusted_poc_price);
                self.mix(u64::from(m.luld_tier));
            }
            Message::TradingStatus(m) => {
                self.mix(u64::from(m.status));
                self.mix_i(m.timestamp);
                self.mix_symbol(&m.symbol);
                self.mix(u64::from(u32::from_le_bytes(m.reason)));
            }
            Message::OperationalHalt(m) => {
                self.mix(u64::from(m.status));
                self.mix_i(m.timestamp);
                self.mix_symbol(&m.symbol);
            }
            Message::ShortSalePriceTest(m) => {
                self.mix(u64::from(m.status));
                self.mix_i(m.timestamp);
                self.mix_symbol(&m.symbol);
                self.mix(u64::from(m.detail));
            }
            Message::SecurityEvent(m) => {
                self.mix(u64::from(m.event));
                self.mix_i(m.timestamp);
                self.mix_symbol(&m.symbol);
            }
            Message::RetailLiquidity(m) => {
                self.mix(u64::from(m.indicator));
                self.mix_i(m.timestamp);
                self.mix_symbol(&m.symbol);
            }
            Message::PriceLevelUpdate(m) => {
                // The side is the type byte, already folded.
                self.mix(u64::from(m.flags));
                self.mix_i(m.timestamp);
                self.mix_symbol(&m.symbol);
                self.mix(u64::from(m.size));
                self.mix_i(m.price);
            }
            Message::TradeReport(m) | Message::TradeBreak(m) => {
                self.mix(u64::from(m.flags));
                self.mix_i(m.timestamp);
                self.mix_symbol(&m.symbol);
                self.mix(u64::from(m.size));
                self.mix_i(m.price);
                self.mix_i(m.trade_id);
            }
            Message::OfficialPrice(m) => {
                self.mix(u64::from(m.price_type));
                self.mix_i(m.timestamp);
                self.mix_symbol(&m.symbol);
                self.mix_i(m.price);
            }
            Message::AuctionInformation(m) => {
                self.mix(u64::from(m.auction_type));
                self.mix_i(m.timestamp);
                self.mix_symbol(&m.symbol);
                self.mix(u64::from(m.paired_shares));
                self.mix_i(m.reference_price);
                self.mix_i(m.indicative_clearing_price);
                self.mix(u64::from(m.imbalance_shares));
                self.mix(u64::from(m.imbalance_side));
                self.mix(u64::from(m.extension_number));
                self.mix(u64::from(m.scheduled_auction_time));
                self.mix_i(m.auction_book_clearing_price);
                self.mix_i(m.collar_reference_price);
                self.mix_i(m.lower_auction_collar);
                self.mix_i(m.upper_auction_collar);
            }
            Message::QuoteUpdate(m) => {
                self.mix(u64::from(m.flags));
                self.mix_i(m.timestamp);
                self.mix_symbol(&m.symbol);
                self.mix(u64::from(m.bid_size));
                self.mix_i(m.bid_price);
                self.mix_i(m.ask_price);
                self.mix(u64::from(m.ask_size));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{SystemEvent, Trade};

    fn trade(price: i64, ts: i64) -> Message {
        Message::TradeReport(Trade {
            flags: 0x40,
            timestamp: ts,
            symbol: Symbol::new("AAPL").unwrap(),
            size: 100,
            price,
            trade_id: 7,
        })
    }

    fn packet(messages: Vec<Message>) -> Packet {
        Packet {
            seq: 10,
            send_time: 20,
            messages,
        }
    }

    #[test]
    fn every_field_and_the_order_change_the_value() {
        let base = packet(vec![trade(1_000, 1), trade(2_000, 2)]);
        let c = Checksum::of(std::slice::from_ref(&base));
        assert_eq!(c.messages(), 2);
        assert_eq!(
            c,
            Checksum::of(std::slice::from_ref(&base)),
            "deterministic"
        );
        let mut variants = vec![
            packet(vec![trade(1_001, 1), trade(2_000, 2)]),
            packet(vec![trade(1_000, 3), trade(2_000, 2)]),
            packet(vec![trade(2_000, 2), trade(1_000, 1)]),
            packet(vec![trade(1_000, 1)]),
        ];
        let mut break_ = base.clone();
        break_.messages[1] = match break_.messages[1] {
            Message::TradeReport(t) => Message::TradeBreak(t),
            m => m,
        };
        variants.push(break_);
        let mut seq = base.clone();
        seq.seq += 1;
        variants.push(seq);
        let mut admin = base.clone();
        admin.messages.push(Message::SystemEvent(SystemEvent {
            event: b'O',
            timestamp: 0,
        }));
        variants.push(admin);
        for v in variants {
            assert_ne!(
                Checksum::of(std::slice::from_ref(&v)).value(),
                c.value(),
                "{v:?}"
            );
        }
    }

    #[test]
    fn chains_across_packets() {
        let a = packet(vec![trade(1, 1)]);
        let b = packet(vec![trade(2, 2)]);
        let ab = Checksum::of(&[a.clone(), b.clone()]);
        let ba = Checksum::of(&[b, a]);
        assert_ne!(ab, ba);
        let mut c = Checksum::default();
        c.visit(&packet(vec![trade(1, 1)]));
        c.reset();
        assert_eq!(c, Checksum::default());
    }
}
