//! The packet that rkyv and bitcode serialize: the model's packet with its messages in the wire
//! vocabulary ([`Wire`], symbols as their 8 bytes). Both libraries derive their encoding from a
//! type of their own, so `model.rs` stays free of format attributes.
//!
//! Encoders convert a [`Packet`] into an [`MPacket`] whose `messages` vector they keep and reuse
//! (a field-by-field copy of each message; the vector holds a datagram's messages from the start,
//! [`MPacket::with_datagram_room`], so it never grows); that copy is inside the timed encode, and
//! it is part of what using these libraries with an existing model costs.

use super::wire::Wire;
use crate::model::Packet;

/// A message as rkyv and bitcode carry it.
pub type MMessage = Wire<[u8; 8]>;

#[derive(
    Debug,
    Clone,
    Default,
    PartialEq,
    Eq,
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
    bitcode::Encode,
    bitcode::Decode,
)]
pub struct MPacket {
    pub seq: u64,
    pub send_time: i64,
    pub messages: Vec<MMessage>,
}

impl MPacket {
    /// An empty packet whose messages vector has room for a datagram's messages, its pages mapped
    /// (see [`super::MAX_DATAGRAM_MESSAGES`]).
    pub fn with_datagram_room() -> MPacket {
        let mut packet = MPacket::default();
        super::codec::reserve_touched(&mut packet.messages, super::codec::MAX_DATAGRAM_MESSAGES);
        packet
    }

    /// Overwrites `self` with `packet`, reusing the messages vector.
    pub fn fill_from(&mut self, packet: &Packet) {
        self.seq = packet.seq;
        self.send_time = packet.send_time;
        self.messages.clear();
        self.messages
            .extend(packet.messages.iter().map(|m| Wire::from_model(m, |s| s.0)));
    }
}
