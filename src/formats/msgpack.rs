//! MessagePack (rmp-serde 1.3, the serde implementation of msgpack-rust), on the serde wire
//! vocabulary ([`Wire`](super::wire::Wire)).
//!
//! **Structs go as arrays**, rmp-serde's default (`Serializer::new`, `to_vec`, `encode::write`): a
//! packet is `[seq, send_time, [message, …]]` and a message `{"trade_report": [flags, timestamp,
//! symbol, size, price, trade_id]}` (rmp-serde tags every enum variant by name). The field names a
//! map would carry (`to_vec_named`, `with_struct_map`) would nearly double the bytes per message
//! (CBOR, which carries them, takes 88.7 bytes a message on DEEP10 where this takes 48.4), and a
//! market-data consumer already knows its schema: arrays are the compact MessagePack. The price is
//! evolution: a reader takes fields by position, so an appended field can be defaulted when missing
//! but not skipped when unknown (the evolution cell measures both directions). Symbols are `bin 8`
//! (their 8 bytes), integers MessagePack's smallest width for the value; a packet is one
//! MessagePack object, so it is self-delimiting.
//!
//! **As its maintainers use it.** rmp-serde's README serializes with `value.serialize(&mut
//! Serializer::new(&mut buf))`: ours writes straight from the model into the reused output buffer
//! (`serde_packet::PacketOut`), no allocation. Decoding reads the packet with serde's streaming
//! pattern (`serde_packet::read`), each message handed over as it is parsed. rmp-serde's zero-copy
//! reader (`from_slice`) cannot say how many bytes it read (msgpack-rust issue #325, open), and a
//! packet must report its length; its `Cursor` reader does (`position()`), so ours reads through
//! it. That reader keeps a 128-byte scratch buffer per `Deserializer` (one allocation per packet
//! decoded, counted by the allocation cell), and byte strings are copied into it before the 8
//! symbol bytes are copied out.

use std::io::Cursor;

use super::codec::{DecodeError, Documented, Format, Sink, Visitor};
use super::serde_packet::{self, Handler, Sym8};
use crate::model::Packet;

#[derive(Debug, Default)]
pub struct Msgpack;

/// Decodes the MessagePack object at the start of `bytes` into `handler`; returns the bytes used.
fn read(bytes: &[u8], handler: &mut impl Handler<Sym8>) -> Result<usize, DecodeError> {
    let mut de = rmp_serde::Deserializer::new(Cursor::new(bytes));
    serde_packet::read(&mut de, handler, "msgpack")?;
    // At most `bytes.len()`: the cursor reads only from `bytes`.
    Ok(de.position() as usize)
}

const SOURCE: &str = "https://docs.rs/rmp-serde/1.3 (serde types are the schema; structs as arrays \
    by default; values are decoded, an error on what does not match the types)";

/// rmp-serde's `Cursor` reader keeps a 128-byte scratch buffer per `Deserializer`: one
/// allocation per packet decoded (its zero-copy reader cannot report the bytes a packet used).
const STEADY: super::codec::Steady = super::codec::Steady {
    encode: super::codec::PerPacket::NONE,
    decode: super::codec::PerPacket {
        packet: 1,
        ..super::codec::PerPacket::NONE
    },
};

serde_packet::binary_format!(Msgpack, "msgpack", SOURCE, Msgpack, STEADY, |out| {
    rmp_serde::Serializer::new(&mut *out)
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fixtures;
    use crate::formats::codec::library_error;

    fn trade_packet() -> Packet {
        fixtures::packet(vec![fixtures::trade(1_500_000, 5)])
    }

    /// The bytes, from the MessagePack specification's format table: fixarray 3, positive
    /// fixints 10 and 20, fixarray 1, fixmap 1, fixstr 12 "trade_report", fixarray 6, then the
    /// fields (bin 8 for the symbol, uint 32 for the price).
    #[test]
    fn a_trade_is_written_as_the_specification_lays_it_out() {
        let mut out = vec![0xAA];
        Msgpack.encode(&trade_packet(), &mut out);
        let mut expected = vec![0xAA, 0x93, 0x0A, 0x14, 0x91, 0x81, 0xAC];
        expected.extend(b"trade_report");
        expected.extend([0x96, 0x40, 0x05, 0xC4, 0x08]);
        expected.extend(b"AAPL    ");
        expected.extend([0x64, 0xCE, 0x00, 0x16, 0xE3, 0x60, 0x07]);
        assert_eq!(out, expected);
    }

    #[test]
    fn a_symbol_of_another_length_is_refused() {
        let mut out = Vec::new();
        Msgpack.encode(&trade_packet(), &mut out);
        let at = out.iter().position(|&b| b == 0xC4).unwrap();
        out[at + 1] = 7;
        let message = library_error::<Msgpack>(&out);
        assert!(message.contains("invalid length 7"), "{message}");
    }
}
