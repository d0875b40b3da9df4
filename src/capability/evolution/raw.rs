//! raw: version 2's records are version 1's with the appended fields after the others
//! ([`v2::raw`]): Trade Report's record grows from 38 to 46 bytes, Add Order's from 38 to 42.
//! raw has no evolution mechanism: a record's length is implied by its type byte, so a reader of
//! another version steps through the packet by lengths that are not the writer's.

use super::harness::{both, Read2};
use super::v2;
use crate::formats::raw::{split, Raw, RawHeader, HEADER};

/// raw's version 2 writer: `formats::raw`'s packet header, then the v2 records back to back.
pub(super) fn write(p: &v2::MPacket, out: &mut Vec<u8>) {
    let start = out.len();
    out.extend_from_slice(bytemuck::bytes_of(&RawHeader {
        body_len: 0,
        seq: p.seq,
        send_time: p.send_time,
    }));
    for m in &p.messages {
        v2::raw::put(out, m);
    }
    let body = u32::try_from(out.len() - start - HEADER).expect("a packet under 4 GiB");
    out[start..start + 4].copy_from_slice(&body.to_ne_bytes());
}

/// raw's version 2 reader: the header, then record by record, stepped through by their v2
/// lengths.
pub(super) fn read(bytes: &[u8]) -> Read2 {
    let mut p = v2::MPacket::default();
    let (header, body, used) = match split(bytes) {
        Ok(split) => split,
        Err(e) => return (p, Err(e.to_string())),
    };
    (p.seq, p.send_time) = (header.seq, header.send_time);
    let mut pos = 0;
    while pos < body.len() {
        let k = body[pos];
        let Some(len) = v2::raw::wire_len(k) else {
            let e = format!("unknown record type {k:#04x} at byte {pos} of the body");
            return (p, Err(e));
        };
        let Some(record) = body.get(pos..pos + len) else {
            let e = format!(
                "the {len}-byte record of type {:?} at byte {pos} runs past the {}-byte body",
                k as char,
                body.len()
            );
            return (p, Err(e));
        };
        p.messages.push(v2::raw::to_wire(k, record));
        pos += len;
    }
    (p, Ok(used))
}

const NO_MECHANISM: &str = " (raw has no evolution mechanism: the type byte implies a record's \
     length, so a reader of the other version steps to the next record at the wrong byte)";

// The v1 codec `formats::raw` against the v2 records.
evolves!(Raw => both::<Raw>(
    "capability::evolution::raw", ("the v2 records", "the v2 records"), write, read,
    (NO_MECHANISM, NO_MECHANISM)
););

#[cfg(test)]
mod tests {
    use super::super::harness::assert_answers;
    use super::super::Evolves;
    use super::*;
    use crate::model::kind;

    #[test]
    fn the_v2_records_grow_by_the_appended_fields() {
        assert_eq!(v2::raw::wire_len(kind::TRADE_REPORT), Some(38 + 8));
        assert_eq!(v2::raw::wire_len(kind::ADD_ORDER), Some(38 + 4));
        assert_eq!(v2::raw::wire_len(kind::TRADE_BREAK), Some(38));
    }

    /// The v1 reader takes `match_id`'s first byte (0xEF of 0x0123456789ABCDEF, little-endian)
    /// for a type byte; the v2 reader takes the Add Order's first 8 bytes for `match_id` and
    /// then a byte inside it (0x97, of its timestamp) for a type byte.
    #[test]
    fn raw_steps_to_the_wrong_byte() {
        assert_answers(
            Raw::evolution(),
            NO_MECHANISM,
            (
                "no: the v1 reader on v2 bytes, packet 0 (seq 1001): read messages[0..2] right \
                 (the last a TradeReport), then stopped: malformed: raw: unknown record \
                 type",
                "no: the v2 reader on v1 bytes, packet 0 (seq 1001): \
                 messages[1].TradeReport.match_id came out as -7134197114826311583, not the \
                 default 0, then stopped: unknown record type 0x97 at byte 56 of the \
                 body",
            ),
        );
    }
}
