//! rkyv: version 2 is [`v2::MPacket`], the packet with the appended fields, derived like
//! version 1's (`formats::mirror::MPacket`). rkyv has no evolution mechanism: an archive is the
//! type's memory layout, read in place, so a reader of another version sees the bytes at the
//! offsets of its own layout. Both readers use the checked access (`rkyv::access`, bytecheck):
//! an unchecked access on bytes of another layout is undefined behaviour.

use ::rkyv::rancor;
use ::rkyv::util::AlignedVec;

use super::harness::{both, by_layout, whole, Read2};
use super::v2;
use crate::capability::finding::Finding;
use crate::formats::rkyv::{split, Rkyv, RkyvCodec, ALIGN, HEADER};
use crate::formats::wire::ArchivedWire;

/// rkyv's version 2 writer: `rkyv::to_bytes` of the v2 packet in `formats::rkyv`'s record (a
/// `u32` little-endian length, 12 zero bytes, the archive, zeros to a multiple of 16).
pub(super) fn write(p: &v2::MPacket, out: &mut Vec<u8>) {
    let archive = ::rkyv::to_bytes::<rancor::Error>(p).expect("serializing into a Vec cannot fail");
    let len = u32::try_from(archive.len()).expect("an archive of one packet is under 4 GiB");
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&[0; HEADER - 4]);
    out.extend_from_slice(&archive);
    out.resize(out.len().next_multiple_of(ALIGN), 0);
}

/// rkyv's version 2 reader: the record's archive, copied to an aligned buffer, checked by
/// `rkyv::access` as the v2 packet, then deserialized (all or nothing: the check covers the
/// whole archive).
pub(super) fn read(bytes: &[u8]) -> Read2 {
    whole((|| {
        let (archive, used) = split(bytes).map_err(|e| e.to_string())?;
        let mut aligned = AlignedVec::<ALIGN>::new();
        aligned.extend_from_slice(archive);
        let p = ::rkyv::access::<v2::ArchivedMPacket, rancor::Error>(&aligned)
            .map_err(|e| format!("rkyv: {e}"))?;
        let p = ::rkyv::deserialize::<v2::MPacket, rancor::Error>(p)
            .map_err(|e| format!("rkyv: {e}"))?;
        Ok::<_, String>((p, used))
    })())
}

/// Why rkyv's answer is what it is: the archived message's size in both versions.
fn layout() -> String {
    let v1 = std::mem::size_of::<ArchivedWire<[u8; 8]>>();
    let v2 = std::mem::size_of::<v2::ArchivedWire<[u8; 8]>>();
    if v1 == v2 {
        format!(
            " (rkyv has no evolution mechanism: this holds by layout. An archived message takes \
             {v1} bytes in both versions, its largest variant's size, so every v1 field keeps its \
             offset and the appended fields sit in bytes v1 leaves as padding, which rkyv 0.8 \
             writes as zeros; a field that made a message outgrow {v1} bytes, or one appended to \
             the packet, would move the offsets)"
        )
    } else {
        format!(
            " (rkyv has no evolution mechanism: an archived message takes {v1} bytes in v1 and \
             {v2} in v2, so the readers find messages at offsets the writer did not use)"
        )
    }
}

/// rkyv's evolution: the v1 codec `formats::rkyv` against rkyv on the v2 packet (either codec's
/// check: the unchecked one writes the same bytes).
impl<const CHECK: bool> super::Evolves for RkyvCodec<CHECK> {
    fn evolution() -> (Finding, Finding) {
        let (forward, backward) = both::<Rkyv>(
            "capability::evolution::rkyv",
            ("rkyv::to_bytes", "rkyv::access, checked"),
            write,
            read,
            (&layout(), &layout()),
        );
        (by_layout(forward), by_layout(backward))
    }
}

#[cfg(test)]
mod tests {
    use super::super::Evolves;
    use super::*;

    /// Read right both ways, by layout: the archived message is as large in v2 as in v1 (its
    /// largest variant, Auction Information, did not grow); the cell still says `no`.
    #[test]
    fn rkyv_reads_both_ways_because_the_archived_message_did_not_grow() {
        assert_eq!(
            std::mem::size_of::<ArchivedWire<[u8; 8]>>(),
            std::mem::size_of::<v2::ArchivedWire<[u8; 8]>>()
        );
        let e = Rkyv::evolution();
        assert!(!e.0.yes() && !e.1.yes(), "{e:?}");
        assert!(
            e.0.answer
                .starts_with("no: no evolution mechanism; this v2 read right only by layout: "),
            "{}",
            e.0.answer
        );
        e.0.assert_says("this holds by layout");
        e.1.assert_says("the defaults (match_id 0, attribution 0)");
    }
}
