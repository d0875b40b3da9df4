//! Whether a format's decoder checks untrusted bytes, measured. A consumer of a market-data feed
//! reads bytes that crossed a network: a decoder that validates refuses what is not a packet and
//! never misbehaves on it. The check feeds the decoder under test every truncation and every
//! single-byte corruption of a packet holding one message of every kind: every truncation must be
//! refused (a packet cut short is never read as a shorter one) and no input may panic. A decoder
//! that its documentation says trusts its producer is not fed corrupt bytes (that would be
//! undefined behaviour, not a measurement): its cell is the documented `no`.

use std::panic::{catch_unwind, AssertUnwindSafe};

use super::finding::Finding;
use crate::formats::{every_kind, WindowFormat};

/// What was fed and what came of it.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Tally {
    truncations: usize,
    /// Truncations read as a packet instead of refused.
    truncations_read: usize,
    corruptions: usize,
    corruptions_refused: usize,
    panics: usize,
}

/// The byte changes each position gets: the lowest bit, the highest, every bit.
const FLIPS: [u8; 3] = [0x01, 0x80, 0xff];

/// Encodes the every-kind packet with `W` (a packet format through `Packets`: the packet alone)
/// and feeds its decoder every truncation and every single-byte corruption of the unit.
fn tally<W: WindowFormat>() -> Tally {
    let mut format = W::default();
    let units = format.units(&[every_kind()]);
    let bytes = &units[0];
    let mut t = Tally::default();
    let mut feed =
        |input: &[u8]| catch_unwind(AssertUnwindSafe(|| format.read_unit(input).is_ok()));
    for cut in 0..bytes.len() {
        t.truncations += 1;
        match feed(&bytes[..cut]) {
            Ok(true) => t.truncations_read += 1,
            Ok(false) => {}
            Err(_) => t.panics += 1,
        }
    }
    let mut corrupt = bytes.to_vec();
    for at in 0..bytes.len() {
        for flip in FLIPS {
            corrupt[at] = bytes[at] ^ flip;
            t.corruptions += 1;
            match feed(&corrupt) {
                Ok(true) => {}
                Ok(false) => t.corruptions_refused += 1,
                Err(_) => t.panics += 1,
            }
            corrupt[at] = bytes[at];
        }
    }
    t
}

/// The `validates` cell of `W`, a window format or a packet format through [`Packets`](crate::formats::window::Packets).
pub fn validates<W: WindowFormat>() -> Finding {
    // Feeding a format that trusts its producer corrupt bytes would be undefined behaviour, not a
    // measurement.
    let trusts = "trusts its producer: not run on corrupt bytes (decoding does not check them)";
    if let Some(no) = Finding::disclaimed(W::DOCUMENTED, |doc| !doc.trusts_producer(), trusts) {
        return no;
    }
    finding(tally::<W>())
}

/// What a tally says.
fn finding(t: Tally) -> Finding {
    let decided_by = format!(
        "capability::validation: every truncation and single-byte corruption (x {}) of one packet of every message kind",
        FLIPS.len()
    );
    let ok = t.panics == 0 && t.truncations_read == 0;
    let detail = if t.panics > 0 {
        format!(
            "{} of {} inputs panicked",
            t.panics,
            t.truncations + t.corruptions
        )
    } else if t.truncations_read > 0 {
        format!(
            "{} of {} truncations were read as a packet",
            t.truncations_read, t.truncations
        )
    } else {
        format!(
            "every one of {} truncations refused; {} single-byte corruptions read without a panic ({} refused, the rest read as other values)",
            t.truncations, t.corruptions, t.corruptions_refused
        )
    };
    Finding::measured(ok, detail, decided_by)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::window::Packets;
    use crate::formats::Format;
    use crate::formats::{raw::Raw, DecodeError, Documented, Sink, Visitor};
    use crate::model::Packet;

    /// Raw's decoder with the length check of its header skipped: it reads any prefix of a
    /// packet as a packet of the messages that fit.
    #[derive(Default)]
    struct Lax(Raw);

    impl Format for Lax {
        const NAME: &'static str = "lax";
        const DOCUMENTED: Documented = Raw::DOCUMENTED;
        const OTHER_LANGUAGES: crate::formats::OtherLanguages = Raw::OTHER_LANGUAGES;
        fn encode(&mut self, packet: &Packet, out: &mut Vec<u8>) -> usize {
            self.0.encode(packet, out)
        }
        fn decode<K: Sink>(&mut self, bytes: &[u8], sink: &mut K) -> Result<usize, DecodeError> {
            self.0.decode(bytes, sink)
        }
        fn decode_all<V: Visitor>(
            &mut self,
            bytes: &[u8],
            v: &mut V,
        ) -> Result<usize, DecodeError> {
            if bytes.len() < 20 {
                return Err(DecodeError::Truncated {
                    needed: 20,
                    available: bytes.len(),
                });
            }
            v.packet(0, 0);
            Ok(bytes.len())
        }
    }

    #[test]
    fn raw_refuses_every_truncation_and_never_panics() {
        let f = validates::<Packets<Raw>>();
        assert!(f.yes() && f.measured, "{f:?}");
        let len = {
            let mut v = Vec::new();
            Raw.encode(&every_kind(), &mut v);
            v.len()
        };
        f.assert_says(&format!("every one of {len} truncations refused"));
        f.assert_says(&format!("{} single-byte corruptions", len * 3));
    }

    macro_rules! all_validate {
        ($($module:ident: [$($name:ident: $F:ty),+ $(,)?]),* $(,)?) => {
            vec![$($((<$F as Format>::NAME, validates::<Packets<$F>>())),+),*]
        };
    }

    /// Every format under test that documents that it validates is measured to: none reads a
    /// cut packet or panics on a corrupt one (the fuzz target explores further). One that
    /// trusts its producer is not fed them: its cell is the documented `no`.
    #[test]
    fn every_format_under_test_validates_or_trusts_its_producer() {
        for (name, f) in crate::for_each_format!(all_validate) {
            if crate::formats::descriptor(name).unwrap().trusts_producer() {
                assert!(!f.yes() && !f.measured, "{name}: {f:?}");
                assert!(f
                    .answer
                    .contains("trusts its producer: not run on corrupt bytes"));
            } else {
                assert!(f.yes() && f.measured, "{name}: {}", f.answer);
            }
            eprintln!("{name}: {}", f.answer);
        }
    }

    #[test]
    fn a_decoder_that_reads_a_cut_packet_does_not_validate() {
        let f = validates::<Packets<Lax>>();
        assert!(!f.yes(), "{f:?}");
        f.assert_says("truncations were read as a packet");
    }
}
