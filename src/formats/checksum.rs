//! The complete-decode workload's [`Visitor`]: every field of every message folded into one
//! running 64-bit value, in one canonical order (the packet's `seq` and `send_time`, then each
//! message's type byte and its fields in the order of `schemas/iex-messages.txt`, through
//! [`Message::visit_fields`]).
//!
//! Why a checksum and not a comparison: it is the same cheap work for every format (one
//! multiply per field, no allocation), it makes every field's value really used (no load can be
//! optimised away for one format and not another), and comparing it with the checksum of the
//! parsed packets checks every field of every message of every format in every run. The fold is
//! order-sensitive, so swapped messages or fields change it, and it is chained across packets,
//! so one value per window checks the whole window; the per-packet values name the first packet
//! that differs.

use super::codec::Visitor;
use crate::model::{Field, FieldVisitor, Message, Packet, Timestamp};

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
}

impl Visitor for Checksum {
    #[inline]
    fn packet(&mut self, seq: u64, send_time: Timestamp) {
        self.mix(seq);
        self.mix(send_time as u64);
    }

    #[inline]
    fn message(&mut self, message: Message) {
        self.messages += 1;
        self.mix(u64::from(message.kind()));
        message.visit_fields(self);
    }
}

/// Every field in the table's order (see `schemas/iex-messages.txt`).
impl FieldVisitor for Checksum {
    #[inline(always)]
    fn field<T: Field>(&mut self, _name: &'static str, value: T) {
        self.mix(value.bits());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fixtures::{packet, trade};
    use crate::model::SystemEvent;

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
