//! CBOR (RFC 8949) through minicbor-serde 0.7 (minicbor 2's serde glue), on the serde wire
//! vocabulary ([`Wire`](super::wire::Wire)).
//!
//! A packet is one CBOR map, `{"seq": …, "send_time": …, "messages": [{"trade_report": {"flags": 0,
//! "timestamp": …, "symbol": h'4141504c20202020', …}}, …]}`: minicbor-serde writes structs as maps
//! keyed by field name and enum variants as a one-entry map keyed by name (it has no array mode),
//! so the bytes name every field, as CBOR's self-describing data model intends. Integers take
//! CBOR's smallest head for the value; symbols are byte strings of their 8 bytes. A packet is one
//! CBOR data item, so it is self-delimiting.
//!
//! **Why minicbor, not ciborium.** Both are maintained and both were recommended when serde_cbor
//! was archived. minicbor (with minicbor-serde) decodes from a byte slice, borrowing byte and text
//! strings, and its decoder reports its position; ciborium reads through an `io::Read` with a
//! scratch buffer and cannot borrow. Where the two were compared, ciborium was the slower
//! (llogiq/serdebench#15; phnx-im/air#1188 measured 2 to 5x on deserialization after switching to
//! minicbor-serde).
//!
//! **As its maintainers use it.** minicbor-serde's `to_vec` is `val.serialize(&mut
//! Serializer::new(&mut v))`: ours serializes the same way straight from the model into the reused
//! output buffer (`serde_packet::PacketOut`; minicbor's `Write` for a `Vec` cannot fail). Decoding
//! reads the packet with serde's streaming pattern (`serde_packet::read`) from a `Deserializer`
//! over the slice, each message handed over as it is parsed, symbols read borrowed and their 8
//! bytes copied out: no allocation. The decoder's position is the bytes used.

use super::codec::{DecodeError, Documented, Format, Sink, Visitor};
use super::serde_packet::{self, Handler, Sym8};
use crate::model::Packet;

#[derive(Debug, Default)]
pub struct Cbor;

/// Decodes the CBOR data item at the start of `bytes` into `handler`; returns the bytes used.
fn read(bytes: &[u8], handler: &mut impl Handler<Sym8>) -> Result<usize, DecodeError> {
    let mut de = minicbor_serde::Deserializer::new(bytes);
    serde_packet::read(&mut de, handler, "cbor")?;
    Ok(de.decoder().position())
}

const SOURCE: &str = "https://docs.rs/minicbor-serde/0.7 (serde types are the schema; CBOR items are \
    decoded into values, byte strings borrowed; an error on what does not match the types)";

serde_packet::binary_format!(Cbor, "cbor", SOURCE, Cbor, super::codec::Steady::NOTHING, |out| {
    minicbor_serde::Serializer::new(&mut *out)
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::codec::library_error;
    use crate::model::{fixtures, Message, SystemEvent};

    fn event_packet() -> Packet {
        fixtures::packet(vec![Message::SystemEvent(SystemEvent {
            event: b'O',
            timestamp: 500,
        })])
    }

    /// The bytes, from RFC 8949's encoding of each item: map(3), text "seq", 10, text
    /// "send_time", 20, text "messages", array(1), map(1), text "system_event", map(2), text
    /// "event", 79, text "timestamp", 500 (0x19 0x01F4).
    #[test]
    fn a_system_event_is_written_as_rfc_8949_lays_it_out() {
        let mut out = vec![0xAA];
        Cbor.encode(&event_packet(), &mut out);
        let mut expected = vec![0xAA, 0xA3, 0x63];
        expected.extend(b"seq");
        expected.extend([0x0A, 0x69]);
        expected.extend(b"send_time");
        expected.extend([0x14, 0x68]);
        expected.extend(b"messages");
        expected.extend([0x81, 0xA1, 0x6C]);
        expected.extend(b"system_event");
        expected.extend([0xA2, 0x65]);
        expected.extend(b"event");
        expected.extend([0x18, 0x4F, 0x69]);
        expected.extend(b"timestamp");
        expected.extend([0x19, 0x01, 0xF4]);
        assert_eq!(out, expected);
    }

    #[test]
    fn a_symbol_of_another_length_is_refused() {
        let packet = fixtures::packet(vec![fixtures::trade(1_500_000, 5)]);
        let mut out = Vec::new();
        Cbor.encode(&packet, &mut out);
        // The symbol's head, a byte string of 8 (0x48), before its bytes; 0x47 makes it 7 bytes.
        let at = out.windows(8).position(|w| w == b"AAPL    ").unwrap() - 1;
        assert_eq!(out[at], 0x48);
        out[at] = 0x47;
        let message = library_error::<Cbor>(&out);
        assert!(message.contains("invalid length 7"), "{message}");
    }
}
