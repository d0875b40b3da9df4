//! bitcode 0.6 (derive `Encode`/`Decode` on the wire vocabulary, [`MPacket`]).
//!
//! bitcode is columnar: it writes each field of all messages together (all tags, then all
//! timestamps, ...) and packs them, which makes it small but means a packet cannot be read message
//! by message or in place. Each packet is a `u32` little-endian length followed by bitcode's bytes
//! for the packet, so packets are self-delimiting.
//!
//! **As its maintainers use it.** bitcode's docs offer `bitcode::Buffer` to reuse allocations
//! between calls to `encode` and `decode`, and the Rust serialization benchmark keeps one
//! `Buffer` per side. Ours keeps one `Buffer` for both and encodes a reused mirror (one
//! field-by-field copy per message; its vector holds a datagram's messages from the start), then
//! copies the bytes the `Buffer` returns into the output buffer (`encode` returns a slice of the
//! buffer's own memory; the API has no way to write into the caller's). The `Buffer` grows its
//! column buffers to the largest packet it has seen and keeps them, and cannot be sized in
//! advance: so the runner, when built, encodes and decodes a datagram full of each message kind,
//! which takes every column to its largest before any timed pass.
//!
//! **The allocation it cannot avoid.** Decoding is owned, not zero-copy: `Buffer::decode` returns
//! a new `MPacket`, allocating its `messages` vector for every packet with messages, and there is
//! no decode into an existing value. The reused `Buffer` spares its column decoders' allocations.
//! Hostile bytes give an error, not a panic (bitcode validates lengths and enum tags).

use crate::formats::languages::OtherLanguages;
use super::mirror::MPacket;
use super::codec::{DecodeError, Documented, Format, PerPacket, Sink, Steady, Visitor, full_datagram, size_prefixed};
use crate::model::{kind, Packet, Symbol};

/// The bitcode runner: the mirror it encodes from and the library's reusable buffer.
pub struct Bitcode {
    mirror: MPacket,
    buffer: bitcode::Buffer,
}

impl Default for Bitcode {
    fn default() -> Self {
        let mut bitcode = Bitcode {
            mirror: MPacket::with_datagram_room(),
            buffer: bitcode::Buffer::new(),
        };
        // The `Buffer` cannot be sized in advance: it grows its columns to the largest packet it
        // has seen. A datagram full of each kind in turn takes every column to its largest.
        let mut out = Vec::new();
        for k in kind::ALL {
            out.clear();
            bitcode.encode(&full_datagram(k), &mut out);
            bitcode.read(&out).expect("its own encoding decodes");
        }
        bitcode
    }
}

impl Bitcode {
    fn read(&mut self, bytes: &[u8]) -> Result<(MPacket, usize), DecodeError> {
        let (body, used) = size_prefixed(bytes)?;
        let packet = self
            .buffer
            .decode::<MPacket>(body)
            .map_err(|e| DecodeError::library("bitcode", e))?;
        Ok((packet, used))
    }
}

const SOURCE: &str = "https://docs.rs/bitcode/0.6 (derive Encode/Decode: the Rust types are the schema; \
    decode returns an owned value, and an error on invalid input)";

impl Format for Bitcode {
    const NAME: &'static str = "bitcode";
    /// `bitcode::Buffer::decode` returns an owned value (no decode into an existing one): the
    /// decoded `Vec` of messages, one per packet with messages.
    const STEADY: Steady = Steady {
        encode: PerPacket::NONE,
        decode: PerPacket { with_messages: 1, ..PerPacket::NONE },
    };
    const DOCUMENTED: Documented = Documented::new(None, false, true, SOURCE);
    const OTHER_LANGUAGES: OtherLanguages = OtherLanguages::RustOnly {
        detail: "no implementation outside Rust: its README lists compatibility with languages other \
                 than Rust, and a format stable across major versions, as non-goals",
        source: "https://docs.rs/crate/bitcode/0.6.9/source/README.md (\"non-goals\")",
    };

    fn encode(&mut self, packet: &Packet, out: &mut Vec<u8>) -> usize {
        self.mirror.fill_from(packet);
        let bytes = self.buffer.encode(&self.mirror);
        let len = u32::try_from(bytes.len()).expect("one packet encodes to under 4 GiB");
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(bytes);
        self.mirror.messages.len()
    }

    fn decode<K: Sink>(&mut self, bytes: &[u8], sink: &mut K) -> Result<usize, DecodeError> {
        let (packet, used) = self.read(bytes)?;
        sink.packet(packet.seq);
        for m in &packet.messages {
            m.visit(sink, |s| Ok(*s))?;
        }
        Ok(used)
    }

    fn decode_all<V: Visitor>(&mut self, bytes: &[u8], v: &mut V) -> Result<usize, DecodeError> {
        let (packet, used) = self.read(bytes)?;
        v.packet(packet.seq, packet.send_time);
        for m in packet.messages {
            v.message(m.into_model(|s| Ok(Symbol(s)))?);
        }
        Ok(used)
    }
}
