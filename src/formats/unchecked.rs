//! The two formats that **trust their producer**: `flatbuffers-unverified` (FlatBuffers'
//! `root_unchecked`) and `rkyv-unchecked` (rkyv's `access_unchecked`). Each is its checked twin
//! (`flatbuffers`, `rkyv`) with the verifier left out and nothing else changed: the same encoder,
//! the same bytes, the same field reads (a const parameter of the twin's runner, folded at
//! compile time, so the twin's own code is what it was). Side by side, the two rows say what the
//! verifier costs, which is what users ask before they skip it.
//!
//! **Why they exist, and where they must not be used.** Both calls are `unsafe`: on bytes that
//! are not a valid buffer (corrupt, truncated inside, hostile) they read out of bounds or make
//! invalid values, which is undefined behaviour, not an error. They are sound here only because
//! nothing gives them bytes their own encoder did not write:
//!
//! - `shootout run` encodes every window itself and decodes only the runner's own buffer;
//!   [`crate::measure::Runner::load`], the one way foreign bytes reach a runner, refuses them.
//! - Every check that feeds decoders untrusted bytes skips a format whose [`Format::DOCUMENTED`](super::Format::DOCUMENTED)
//!   says it does not validate ([`Documented::trusts_producer`]): `capability::validation` (its
//!   cell is the documented `no`), the fuzz target, the fuzz regressions and the conformance
//!   tests' truncations and corruptions.
//! - Their evolution and other-language cells are their twins' (the bytes are the same), so the
//!   checks that read another writer's bytes run the twin, verifier included.
//!
//! A consumer may skip the verifier only where the same holds: bytes from its own process, or
//! from a producer it trusts over a channel that cannot corrupt them.
//!
//! [`Documented::trusts_producer`]: super::Documented::trusts_producer

use super::flatbuffers::FlatBuffersCodec;
use super::rkyv::RkyvCodec;

/// `flatbuffers-unverified`: `flatbuffers` read with `root_unchecked`, no verifier.
pub type FlatBuffersUnverified = FlatBuffersCodec<false>;

/// `rkyv-unchecked`: `rkyv` read with `access_unchecked`, no bytecheck.
pub type RkyvUnchecked = RkyvCodec<false>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::Format;
    use crate::formats::flatbuffers::FlatBuffers;
    use crate::formats::rkyv::Rkyv;
    use crate::formats::{every_kind, full_datagram, Aggregate, Checksum};
    use crate::model::kind;

    /// `bytes` decoded packet by packet both ways: the aggregate, the checksum and its count.
    fn read<F: Format>(f: &mut F, bytes: &[u8]) -> (Aggregate, u64, u64) {
        let (mut agg, mut sum, mut at) = (Aggregate::new(), Checksum::default(), 0);
        while at < bytes.len() {
            let used = f.decode(&bytes[at..], &mut agg).unwrap();
            assert_eq!(f.decode_all(&bytes[at..], &mut sum).unwrap(), used);
            at += used;
        }
        (agg, sum.value(), sum.messages())
    }

    /// Each unchecked format writes its twin's bytes, and reads its own bytes to the twin's
    /// aggregate and checksum: only the verifier differs.
    fn same_as_twin<U: Format, C: Format>() {
        let packets = [every_kind(), full_datagram(kind::QUOTE_UPDATE)];
        let (mut u, mut c) = (U::default(), C::default());
        let (mut ub, mut cb) = (Vec::new(), Vec::new());
        for p in &packets {
            u.encode(p, &mut ub);
            c.encode(p, &mut cb);
        }
        let trust = (U::DOCUMENTED.trusts_producer(), C::DOCUMENTED.trusts_producer());
        assert_eq!(trust, (true, false), "{} trusts its producer, {} not", U::NAME, C::NAME);
        assert_eq!(ub, cb, "{} writes {}'s bytes", U::NAME, C::NAME);
        let (mine, twins) = (read(&mut u, &ub), read(&mut c, &ub));
        assert_eq!(mine, twins, "{}", U::NAME);
        assert_eq!(mine.2, packets.iter().map(|p| p.messages.len() as u64).sum::<u64>());
    }

    #[test]
    fn flatbuffers_unverified_is_flatbuffers_without_the_verifier() {
        same_as_twin::<FlatBuffersUnverified, FlatBuffers>();
    }

    #[test]
    fn rkyv_unchecked_is_rkyv_without_bytecheck() {
        same_as_twin::<RkyvUnchecked, Rkyv>();
    }
}
