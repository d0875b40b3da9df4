//! SBE's evolution, measured (`sbe`). Version 2 extends a message as SBE's maintainers document
//! it ("Message Versioning" in the simple-binary-encoding wiki): the new field goes at the end of
//! the root block with `sinceVersion="2"` and `presence="optional"`, and the schema's `version`
//! becomes 2. Trade Report's block grows from 37 to 45 bytes (`matchId int64`), Add Order's from
//! 37 to 41 (`attribution uint32`); every message header a v2 encoder writes says version 2 and
//! its own block length.
//!
//! What the mechanism asks of a reader: take the block length and version from each message
//! header, skip a block by the header's length (never the schema's), and read a field newer than
//! the header's version as absent. The codec under test ([`Sbe`]) walks by the header's block
//! length and the generated v1 decoders wrap with the acting block length and version, so forward
//! holds. Backward, the SBE 1.34.0 Rust generator checks the acting version for a required field
//! added later (it returns the null value) but not for an optional primitive one: the generated
//! `match_id()` reads the 8 bytes after a version-0 block, whatever they are (the next message's
//! header, or past the end of the buffer), and returns them as `Some(..)`. Upstream fixed this
//! after 1.34 (aeron-io/simple-binary-encoding#1066, PR #1067). The v2 reader here calls the
//! generated getters as they are and records what they return; it only refuses to let them read
//! past the end of the buffer, where the generated `ReadBuf` would panic.

use super::compiled::{self, MessageRead, ReadV2};
use super::v2;
use crate::capability::finding::Finding;
use crate::formats::sbe::{put, templates, Sbe};
use crate::formats::wire::IntoModel;
use crate::formats::DecodeError;
use crate::model::*;

crate::formats::generated!(
    /// The code the SBE generator made of the v2 schema (`OUT_DIR/evolution-v2/schemas/marketdata.xml`).
    generated,
    "/evolution-v2/sbe/mod.rs"
);

use generated::message_header_codec::{self, MessageHeaderDecoder};
use generated::*;

const HEADER: usize = message_header_codec::ENCODED_LENGTH;

crate::formats::sbe::conversions!();

/// What version 2 adds to the table's fields, for the codec's templates over its code: the
/// appended field, written with the file's value and read beside the message as the generated
/// getter returns it (see the module doc).
macro_rules! schema_adds {
    (write $V:ident $e:ident) => {
        compiled::set_appended!($V, $e.match_id, attribution)
    };
    (read $V:ident $d:ident, $message:expr) => {
        compiled::read_appended!(
            $V,
            $message,
            $d.match_id().unwrap_or(v2::MATCH_ID.default),
            $d.attribution().unwrap_or(v2::ATTRIBUTION.default)
        )
    };
}
for_each_message!(templates);

/// `packet` written by the v2 schema's encoders: a PacketHeader, then one message each.
pub(super) fn write_v2(packet: &Packet) -> Vec<u8> {
    let size = HEADER
        + usize::from(packet_header_codec::SBE_BLOCK_LENGTH)
        + packet.messages.iter().map(encoded_len).sum::<usize>();
    let mut out = vec![0; size];
    let mut off = put!(
        &mut out[..],
        0,
        packet_header_codec::PacketHeaderEncoder,
        |e| {
            e.seq(packet.seq);
            e.send_time(packet.send_time);
            e.message_count(u32::try_from(packet.messages.len()).expect("< 2^32 messages"));
        }
    );
    for m in &packet.messages {
        off += put_message(&mut out[..], off, m);
    }
    out
}

/// The message header at `pos`, with the message's length by its header's block length. The
/// whole block, and as much as the v2 template's block, must lie in `bytes`: the generated
/// getter of an optional field reads there whatever the header says (see the module doc), and
/// the generated `ReadBuf` panics past the end.
fn header_at(
    bytes: &[u8],
    pos: usize,
) -> Result<(MessageHeaderDecoder<ReadBuf<'_>>, u16, usize), DecodeError> {
    DecodeError::check_len(bytes, pos + HEADER)?;
    let header = MessageHeaderDecoder::default().wrap(ReadBuf::new(bytes), pos);
    if header.schema_id() != SBE_SCHEMA_ID {
        return Err(DecodeError::Malformed("SBE schema id is not this schema's"));
    }
    let template = header.template_id();
    let block = usize::from(header.block_length());
    let v2 = match template {
        packet_header_codec::SBE_TEMPLATE_ID => packet_header_codec::SBE_BLOCK_LENGTH,
        t => min_block(t).ok_or(DecodeError::Malformed("SBE template unknown to v2"))?,
    };
    DecodeError::check_len(bytes, pos + HEADER + block.max(usize::from(v2)))?;
    Ok((header, template, HEADER + block))
}

/// `bytes` read by the v2 schema's decoders: every v1 field and the appended ones.
fn read_v2(bytes: &[u8]) -> Result<ReadV2, DecodeError> {
    let (header, template, mut pos) = header_at(bytes, 0)?;
    if template != packet_header_codec::SBE_TEMPLATE_ID {
        return Err(DecodeError::Malformed("SBE packet without a PacketHeader"));
    }
    let d = packet_header_codec::PacketHeaderDecoder::default().header(header, 0);
    compiled::read_all(d.seq(), d.send_time(), 0..d.message_count(), |_| {
        let (header, template, len) = header_at(bytes, pos)?;
        let read = read_message(template, header, pos)?;
        pos += len;
        Ok(read)
    })
}

/// The block lengths of the changed templates, v1 → v2, and the generator, for `decided_by`.
fn decided_by() -> String {
    use crate::formats::sbe::generated as v1;
    format!(
        "capability::evolution::sbe (v2 schema: sinceVersion=2, presence=optional; \
         TradeReport blockLength {}→{}, AddOrder {}→{}; SBE {} Rust generator)",
        v1::trade_report_codec::SBE_BLOCK_LENGTH,
        trade_report_codec::SBE_BLOCK_LENGTH,
        v1::add_order_codec::SBE_BLOCK_LENGTH,
        add_order_codec::SBE_BLOCK_LENGTH,
        env!("MD_SHOOTOUT_SBE_VERSION"),
    )
}

/// Both directions (its [`Evolves`](super::Evolves) is beside its reference check).
pub(super) fn check() -> (Finding, Finding) {
    compiled::both::<Sbe>(decided_by(), write_v2, read_v2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::Format;

    /// Where the first message of a packet starts: after the PacketHeader's header and block.
    const FIRST: usize = HEADER + packet_header_codec::SBE_BLOCK_LENGTH as usize;

    /// The source's first packet from its first Trade Report to its second: a Trade Report, an
    /// Add Order, a Price Level Update and a Trade Report.
    fn grown() -> Packet {
        let source = &super::super::harness::source()[0];
        Packet {
            messages: source.messages[1..5].to_vec(),
            ..source.clone()
        }
    }

    /// Forward holds: the v2 writer stamps version 2 and the 45-byte block in the Trade Report's
    /// header, and the codec (walking by the header's block length, its generated decoders
    /// wrapping with the acting block length) reads every v1 field as the source has it.
    #[test]
    fn a_v1_reader_reads_v2_bytes_exactly() {
        let f = check().0;
        assert!(f.yes(), "{f:?}");
        assert!(
            f.decided_by.contains("blockLength 37→45"),
            "{}",
            f.decided_by
        );

        let packet = grown();
        let bytes = write_v2(&packet);
        // Message header: blockLength, templateId, schemaId, version (u16 little-endian each).
        let word = |at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]);
        assert_eq!((word(FIRST), word(FIRST + 6)), (45, 2));
        let (got, used) = Sbe.decode_packet(&bytes).unwrap();
        assert_eq!(used, bytes.len());
        assert_eq!(got, packet);
        // And the v2 reader finds the file's values in v2 bytes.
        let (_, appended) = read_v2(&bytes[..]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(appended[0], Some(81_985_529_216_486_895));
        assert_eq!(appended[1], Some(1_196_967_241));
    }

    /// Backward fails with SBE 1.34.0's Rust generator: the generated getter of the optional
    /// `matchId` (sinceVersion 2) does not look at the acting version, so on a version-0 Trade
    /// Report it returns the 8 bytes after the 37-byte block, the next message's header, rather
    /// than `None`. The v1 fields themselves read right. If the pinned generator is upgraded past
    /// the fix (aeron-io/simple-binary-encoding#1067), this test fails and the finding turns yes.
    #[test]
    fn a_v2_reader_reads_the_next_header_as_the_new_field() {
        let f = check().1;
        assert!(!f.yes(), "{f:?}");
        f.assert_says("TradeReport.match_id");

        let packet = grown();
        let mut v1 = Vec::new();
        Sbe.encode(&packet, &mut v1);
        // The Trade Report's header says version 0 and its v1 block of 37 bytes.
        let word = |at: usize| u16::from_le_bytes([v1[at], v1[at + 1]]);
        assert_eq!((word(FIRST), word(FIRST + 6)), (37, 0));
        let after = FIRST + HEADER + 37;
        let next_header = i64::from_le_bytes(v1[after..after + 8].try_into().unwrap());
        let (header, template, _) = header_at(&v1, FIRST).unwrap();
        let (message, appended) = read_message(template, header, FIRST).unwrap();
        assert_eq!(message, packet.messages[0]);
        assert_eq!(appended, Some(next_header));
        assert_ne!(appended, Some(v2::MATCH_ID.default));
        // The packet ends with a Trade Report: its getter would read past the buffer, which the
        // reader refuses rather than let the generated `ReadBuf` panic.
        assert!(matches!(read_v2(&v1), Err(DecodeError::Truncated { .. })));
    }

    /// The check catches a v2 writer that swaps two v1 fields.
    #[test]
    fn a_writer_that_swaps_fields_fails_forward() {
        compiled::assert_swap_fails_forward::<Sbe>(write_v2);
    }
}
