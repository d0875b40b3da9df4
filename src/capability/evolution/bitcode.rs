//! bitcode: version 2 is [`v2::MPacket`], the packet with the appended fields, derived like
//! version 1's (`formats::mirror::MPacket`). bitcode has no evolution mechanism: its encoding is
//! the type's fields, column by column, with no names, tags or lengths per field, so a reader of
//! another version reads columns that are not the ones it expects.

use super::harness::{both, whole, Read2};
use super::v2;
use crate::formats::bitcode::Bitcode;

/// Bytes of the length prefix `formats::bitcode` puts before each packet.
const PREFIX: usize = 4;

/// bitcode's version 2 writer: `bitcode::encode` of the v2 packet behind its `u32`
/// little-endian length, as `formats::bitcode` frames it.
pub(super) fn write(p: &v2::MPacket, out: &mut Vec<u8>) {
    let bytes = bitcode::encode(p);
    let len = u32::try_from(bytes.len()).expect("one packet encodes to under 4 GiB");
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&bytes);
}

/// bitcode's version 2 reader: the length prefix, then `bitcode::decode` of the v2 packet
/// (all or nothing: bitcode decodes a packet's columns together).
pub(super) fn read(bytes: &[u8]) -> Read2 {
    whole((|| {
        let prefix: [u8; PREFIX] = bytes
            .get(..PREFIX)
            .and_then(|b| b.try_into().ok())
            .ok_or("shorter than the length prefix")?;
        let used = PREFIX + u32::from_le_bytes(prefix) as usize;
        let body = bytes
            .get(PREFIX..used)
            .ok_or_else(|| format!("the prefix says {used} bytes, there are {}", bytes.len()))?;
        let p = bitcode::decode::<v2::MPacket>(body).map_err(|e| format!("bitcode: {e}"))?;
        Ok((p, used))
    })())
}

pub(super) const NO_MECHANISM: &str =
    " (bitcode has no evolution mechanism: a packet is its fields' \
     columns, packed, with nothing that names a field, so a reader of the other version finds \
     columns it cannot unpack)";

// The v1 codec `formats::bitcode` against bitcode on the v2 packet.
evolves!(Bitcode => both::<Bitcode>(
    "capability::evolution::bitcode", ("bitcode::encode", "bitcode::decode"), write, read,
    (NO_MECHANISM, NO_MECHANISM)
););
