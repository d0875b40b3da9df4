//! The block loop: reads blocks until the next packet, skipping the ones it does not need.

use std::io::Read;

use nom::number::Endianness;
use nom::Parser;

use super::interface::{self, Interface};
use super::layout::{malformed, EPB_TYPE, IDB_TYPE, MAX_INTERFACES, SHB_TYPE, SPB_TYPE};
use super::{packet, section};
use crate::bytes::by_endian;
use crate::capture::buffer::Buffer;
use crate::capture::record::{need, parsed, within_limit, Span, MAX_FRAME};
use crate::error::{At, Error, Result, TruncatedTail};

/// Parsing state of the current section.
#[derive(Debug, Clone, Default)]
pub struct Section {
    pub endian: Option<Endianness>,
    pub interfaces: Vec<Interface>,
    /// Sections seen so far.
    pub count: u64,
}

/// Reads blocks until the next packet, returning where its frame is; `None` at a clean end.
#[inline]
pub(crate) fn next<R: Read>(
    buf: &mut Buffer<R>,
    section: &mut Section,
    number: u64,
) -> Result<Option<Span>> {
    loop {
        if !need(buf, 8, "pcapng block header", number)? {
            return Ok(None);
        }
        let at = At {
            offset: buf.offset(),
            packet: number,
        };
        let is_shb = buf.available()[..4] == SHB_TYPE;
        if is_shb {
            need(buf, 12, "pcapng section header block", number)?;
            section.endian = Some(section::byte_order(&buf.available()[8..12], at)?);
        }
        let Some(endian) = section.endian else {
            return Err(malformed(at, "block before the first section header"));
        };
        let (block_type, total_len) = parsed(
            block_header(buf.available(), endian),
            "pcapng block header",
            at,
        )?;
        let len = total_len as usize;
        if len < 12 || !len.is_multiple_of(4) {
            return Err(malformed(
                at,
                &format!("block length {total_len} is not a multiple of 4 of at least 12"),
            ));
        }
        let known = is_shb || matches!(block_type, IDB_TYPE | EPB_TYPE | SPB_TYPE);
        if !known {
            skip_block(buf, len, at, number)?;
            continue;
        }
        within_limit(len, "pcapng block", at)?;
        match need(buf, len, block_name(is_shb, block_type), number) {
            Err(Error::CutShort(tail)) if block_type == EPB_TYPE && !is_shb => {
                return Err(cut_packet_block(buf.available(), endian, len, at, tail))
            }
            result => result?,
        };
        let block = &buf.available()[..len];
        let trailer = parsed(
            block_header(&block[len - 8..], endian).map(|(r, (_, t))| (r, t)),
            "pcapng block trailer",
            at,
        )?;
        if trailer != total_len {
            return Err(malformed(
                at,
                &format!("block length {total_len} at its start but {trailer} at its end"),
            ));
        }
        let body = &block[8..len - 4];
        if is_shb {
            section::read(body, endian, at)?;
            section.interfaces.clear();
            section.count += 1;
        } else {
            match block_type {
                IDB_TYPE => {
                    if section.interfaces.len() >= MAX_INTERFACES {
                        return Err(malformed(at, "more than 65536 interfaces in one section"));
                    }
                    let iface = interface::read(body, endian, at)?;
                    section.interfaces.push(iface);
                }
                _ => {
                    let block = packet::Block {
                        body,
                        endian,
                        at,
                        len,
                    };
                    return if block_type == EPB_TYPE {
                        packet::enhanced(block, &section.interfaces)
                    } else {
                        packet::simple(block, &section.interfaces)
                    }
                    .map(Some);
                }
            }
        }
        buf.consume(len);
    }
}

/// Block type and total length, with the byte order decided once (this runs per packet).
#[inline]
fn block_header(i: &[u8], endian: Endianness) -> nom::IResult<&[u8], (u32, u32)> {
    by_endian!(endian, |u32| (u32, u32).parse(i))
}

fn skip_block<R: Read>(buf: &mut Buffer<R>, len: usize, at: At, number: u64) -> Result<()> {
    let skipped = buf.skip(len as u64)?;
    if skipped < len as u64 {
        return Err(Error::CutShort(TruncatedTail {
            packet: number,
            offset: at.offset,
            present: skipped,
            needed: len as u64,
            what: "pcapng block",
            gzip_compressed_bytes: buf.gzip_cut(),
        }));
    }
    Ok(())
}

/// An Enhanced Packet Block the stream ends inside: a capture stopped mid-write if the fixed
/// fields that are there agree with the block length, damage (whatever its place) if not.
#[cold]
fn cut_packet_block(
    present: &[u8],
    endian: Endianness,
    len: usize,
    at: At,
    tail: TruncatedTail,
) -> Error {
    let fields = present
        .get(8..)
        .map(|body| packet::EnhancedPacketHeader::parse(body, endian));
    let Some(Ok((_, epb))) = fields else {
        return Error::CutShort(tail);
    };
    // The block is its 32 bytes of fields and lengths, the padded frame, then options (a few
    // dozen bytes in practice; anything past 64 KiB of them is a damaged length).
    let captured = epb.captured_len as usize;
    let frame_end = captured.div_ceil(4) * 4 + 32;
    let fits = frame_end <= len && len - frame_end <= 64 << 10;
    if captured <= (epb.original_len as usize).min(MAX_FRAME) && fits {
        return Error::CutShort(tail);
    }
    malformed(
        at,
        &format!(
            "block of {len} bytes runs past the end of the file and does not match its captured \
             length {captured} (original {}): damaged, not cut short",
            epb.original_len
        ),
    )
}

fn block_name(is_shb: bool, block_type: u32) -> &'static str {
    match (is_shb, block_type) {
        (true, _) => "pcapng section header block",
        (_, IDB_TYPE) => "pcapng interface description block",
        (_, EPB_TYPE) => "pcapng enhanced packet block",
        _ => "pcapng simple packet block",
    }
}
