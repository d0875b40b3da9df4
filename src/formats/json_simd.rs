//! JSON decoded by simd-json (the Rust port of simdjson): the bytes of [`json`](super::json),
//! serde_json's JSON Lines, one object per packet then `\n`, so this row says what the same JSON
//! costs through a simdjson-style parser (a SIMD pass that finds every structural character,
//! then a tape).
//!
//! **Encoding** is simd-json's own `to_writer` into the reused output `Vec` (its `serde_impl`
//! provides "the same convenience functions that serde_json provides", its README), which writes
//! json's bytes, as json-sonic's does (a test compares them): only the timings differ.
//!
//! **Decoding.** simd-json parses mutable input (it unescapes strings in place), and a decoder
//! is handed `&[u8]`: each packet's line is copied into a buffer of ours, followed by the padding
//! simd-json's SIMD loads may read (`simd_json::INPUT_PADDING`). **The copy is part of the timed
//! decode**, as it would be for any consumer of bytes it does not own. The line is parsed with
//! `fill_tape_padded` into a tape we keep between packets, with simd-json's reusable `Buffers`,
//! then read through simd-json's serde `Deserializer::from_tape` with the same streaming
//! `serde_packet::read` as `json` (a `DeserializeSeed` over the messages array, no `Vec` per
//! packet), symbols borrowed from our copy; `into_tape().reset()` gives the tape's allocation
//! back. We do not use `Deserializer::from_slice_with_buffers`: in simd-json 0.19 it allocates a
//! new tape per call and copies the input a second time into its own aligned buffer;
//! `fill_tape_padded` (simd-json's documented allocation-free path, 0.19's doc example) does
//! neither. So a warm decode allocates nothing.
//!
//! **Sized at construction.** The copy buffer holds the longest line any packet of one UDP
//! datagram makes (a full datagram of the kind with the longest JSON, [`largest_line`]) and its
//! padding, every page mapped; the tape holds half that many nodes (every node but the root
//! follows a `,` or `:`, so a line of n bytes has at most n/2 + 1); simd-json's `Buffers` are
//! grown by parsing, once, a line of that length made of structural characters only (`[0,0,…]`,
//! the most a line of that length can have). No real packet then makes them grow, or fault in a
//! page, inside a timed pass.
//!
//! **Which code path runs.** simd-json picks its parser at run time (its default
//! `runtime-detection` feature): AVX2 when the CPU has avx2 and pclmulqdq, else SSE4.2, else
//! native Rust. [`simd_path`] names the one picked here (`simd_json::Deserializer::algorithm`),
//! and the run's table and `shootout formats` print it.

use crate::formats::languages::{OtherLanguages, WireFormat};
use simd_json::{Buffers, Implementation, Node, Tape, INPUT_PADDING};

use super::codec::{
    full_datagram, reserve_touched, DecodeError, Documented, Format, Sink, Visitor,
};
use super::json::{json_format, line_end, Json, SymIn, SymOut};
use super::serde_packet::{self, Handler, PacketOut};
use crate::model::{kind, Packet};

/// The json-simd runner: the copy of the line, simd-json's buffers and the tape, reused.
pub struct JsonSimd {
    /// The line being decoded, then [`INPUT_PADDING`] bytes.
    input: Vec<u8>,
    buffers: Buffers,
    /// The tape's allocation between packets (always empty there, so that no node outlives the
    /// borrow of `input` it was read from).
    tape: Vec<Node<'static>>,
}

/// What follows the line in the copy: simd-json reads up to this far past it.
const PADDING: [u8; INPUT_PADDING] = [b' '; INPUT_PADDING];

/// The longest line of one packet: the JSON of a full UDP datagram of the kind whose messages
/// are longest in JSON (about 340 KB), as `json` writes it (so does json-simd). Computed once
/// per process.
pub fn largest_line() -> usize {
    static LARGEST: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *LARGEST.get_or_init(|| {
        let mut line = Vec::new();
        kind::ALL
            .iter()
            .map(|&k| {
                line.clear();
                Json.encode(&full_datagram(k), &mut line);
                line.len()
            })
            .max()
            .unwrap_or(0)
    })
}

impl Default for JsonSimd {
    fn default() -> Self {
        let largest = largest_line();
        let mut input = Vec::new();
        reserve_touched(&mut input, largest + INPUT_PADDING);
        let mut tape = Vec::new();
        reserve_touched(&mut tape, largest / 2 + 2);
        let mut s = JsonSimd {
            input,
            buffers: Buffers::new(largest),
            tape,
        };
        // Grow simd-json's buffers (structural indexes, the stage-2 stack, the string buffer)
        // to what the densest line of that length needs: one structural character a byte.
        s.input.push(b'[');
        while s.input.len() + 2 < largest {
            s.input.extend_from_slice(b"0,");
        }
        s.input.extend_from_slice(b"0]");
        let len = s.input.len();
        s.input.extend_from_slice(&PADDING);
        let mut tape = Tape(std::mem::take(&mut s.tape)).reset();
        simd_json::fill_tape_padded(&mut s.input, len, &mut s.buffers, &mut tape)
            .expect("an array of zeros is JSON");
        s.tape = tape.reset().0;
        s
    }
}

/// Which of simd-json's parsers runs on this CPU (chosen at run time).
pub fn simd_path() -> &'static str {
    match simd_json::Deserializer::algorithm() {
        Implementation::AVX2 => {
            "simd-json's AVX2 path, chosen at run time (this CPU has avx2 and pclmulqdq)"
        }
        Implementation::SSE42 => {
            "simd-json's SSE4.2 path, chosen at run time (this CPU lacks avx2 or pclmulqdq)"
        }
        Implementation::Native => {
            "simd-json's native Rust fallback, not a SIMD path (this CPU has neither avx2 nor sse4.2)"
        }
        Implementation::StdSimd => "simd-json's std::simd path",
        Implementation::NEON => "simd-json's NEON path",
        Implementation::SIMD128 => "simd-json's wasm SIMD128 path",
    }
}

impl JsonSimd {
    /// Decodes the packet before the first newline of `bytes` into `handler`: copies the line,
    /// builds its tape, reads it with serde; returns the bytes used with the newline.
    fn read<H>(&mut self, bytes: &[u8], handler: &mut H) -> Result<usize, DecodeError>
    where
        H: for<'a> Handler<SymIn<'a>>,
    {
        let end = line_end(bytes)?;
        self.input.clear();
        self.input.extend_from_slice(&bytes[..end]);
        self.input.extend_from_slice(&PADDING);
        let mut tape = Tape(std::mem::take(&mut self.tape)).reset();
        let filled = simd_json::fill_tape_padded(&mut self.input, end, &mut self.buffers, &mut tape);
        let read = match filled {
            Ok(()) => {
                let mut de = simd_json::Deserializer::from_tape(tape);
                let read = serde_packet::read::<_, SymIn<'_>, _>(&mut de, handler, Self::NAME);
                self.tape = de.into_tape().reset().0;
                read
            }
            Err(e) => {
                self.tape = tape.reset().0;
                Err(DecodeError::library(Self::NAME, e))
            }
        };
        read.map(|()| end + 1)
    }
}

const SOURCE: &str = "https://docs.rs/simd-json/0.19.0 (serde types are the schema; the parser \
    refuses what is not JSON of those types; numbers are parsed into values; the SIMD path is \
    chosen at run time by CPU detection, `Deserializer::algorithm`; the decode copies each \
    line into a buffer of ours, simd-json's input being mutable)";

json_format!(JsonSimd, simd_json, "json-simd", SOURCE, code path simd_path(), {
    fn decode<K: Sink>(&mut self, bytes: &[u8], sink: &mut K) -> Result<usize, DecodeError> {
        self.read(bytes, &mut serde_packet::Selective(sink))
    }

    fn decode_all<V: Visitor>(&mut self, bytes: &[u8], v: &mut V) -> Result<usize, DecodeError> {
        self.read(bytes, &mut serde_packet::Complete(v))
    }
});

#[cfg(test)]
mod tests {
    use super::super::json::Json;
    use super::super::json_sonic::JsonSonic;
    use super::super::codec::{every_kind, SHORTEST_KIND};
    use super::*;
    use crate::model::fixtures;

    /// One packet of every kind, the largest datagram of each kind, and packets of a generated
    /// DEEP+ and TOPS day, as every JSON encoder writes them.
    fn sample() -> Vec<Packet> {
        let mut packets = vec![every_kind(), fixtures::packet(vec![fixtures::trade(1_500_000, 5)])];
        packets.extend(kind::ALL.map(full_datagram));
        for feed in [crate::model::Feed::DeepPlus, crate::model::Feed::Tops] {
            let opts = crate::gen::GenOptions {
                feed,
                packets: 300,
                ..Default::default()
            };
            packets.extend(crate::gen::packets(&opts).unwrap());
        }
        packets
    }

    fn encoded<F: Format>(packets: &[Packet]) -> Vec<u8> {
        let mut f = F::default();
        let mut out = Vec::new();
        for p in packets {
            assert_eq!(f.encode(p, &mut out), p.messages.len(), "{}", F::NAME);
        }
        out
    }

    /// Decodes every packet of `bytes` with `F`, each whole and each selectively.
    fn decoded<F: Format>(mut bytes: &[u8]) -> Vec<Packet> {
        let mut f = F::default();
        let mut out = Vec::new();
        while !bytes.is_empty() {
            let (p, used) = f.decode_packet(bytes).unwrap_or_else(|e| panic!("{}: {e}", F::NAME));
            let mut sink = crate::formats::Aggregate::new();
            assert_eq!(f.decode(bytes, &mut sink), Ok(used), "{}", F::NAME);
            out.push(p);
            bytes = &bytes[used..];
        }
        out
    }

    /// The three JSON rows write the same bytes (serde_json's, sonic-rs's and simd-json's
    /// writers), and each of the three decoders reads each one's bytes back to the packets.
    #[test]
    fn each_json_decoder_reads_every_json_encoder_s_bytes() {
        let packets = sample();
        let json = encoded::<Json>(&packets);
        assert!(json.len() > 1_000_000, "{}", json.len());
        assert!(json == encoded::<JsonSonic>(&packets), "sonic-rs wrote other bytes");
        assert!(json == encoded::<JsonSimd>(&packets), "simd-json wrote other bytes");
        assert_eq!(decoded::<Json>(&json), packets);
        assert_eq!(decoded::<JsonSonic>(&json), packets);
        assert_eq!(decoded::<JsonSimd>(&json), packets);
    }

    /// A line cut short is refused, and the next good line still decodes (the tape and buffers
    /// are reused after an error).
    #[test]
    fn a_refused_line_leaves_the_decoder_reusable() {
        let mut f = JsonSimd::default();
        let mut good = Vec::new();
        f.encode(&every_kind(), &mut good);
        let cut = [&good[..good.len() / 2], b"\n"].concat();
        assert!(matches!(f.decode_packet(&cut), Err(DecodeError::Library { .. })));
        assert_eq!(f.decode_packet(&good), Ok((every_kind(), good.len())));
    }

    /// The buffers sized at construction hold the largest datagram's line: its copy fits without
    /// growing.
    #[test]
    fn the_largest_line_fits_the_buffers_made_at_construction() {
        let mut f = JsonSimd::default();
        let capacity = f.input.capacity();
        let mut line = Vec::new();
        f.encode(&full_datagram(SHORTEST_KIND), &mut line);
        assert!(line.len() <= largest_line());
        assert!(largest_line() > 300_000, "{}", largest_line());
        assert!(f.decode_packet(&line).is_ok());
        assert_eq!(f.input.capacity(), capacity);
    }

    #[test]
    fn the_path_named_is_the_one_simd_json_picked() {
        let path = simd_path();
        assert!(path.starts_with("simd-json's "), "{path}");
        #[cfg(target_arch = "x86_64")]
        assert_eq!(
            path.contains("AVX2"),
            std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("pclmulqdq"),
            "{path}"
        );
    }
}
