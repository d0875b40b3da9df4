//! Classic pcap: a 24-byte global header, then 16-byte record headers each followed by the frame.
//!
//! The magic `a1b2c3d4` (µs timestamps) or `a1b23c4d` (ns) read in either byte order tells both
//! the byte order and the timestamp unit; everything after it uses that byte order.

use std::io::Read;

use nom::number::complete::{u16 as nu16, u32 as nu32};
use nom::number::Endianness;
use nom::{IResult, Parser};

use super::buffer::Buffer;
use super::record::{need, parsed, within_limit, Span, MAX_FRAME};
use crate::bytes::by_endian;
use crate::error::{At, Error, Result};

pub const MAGIC_MICROS: u32 = 0xa1b2_c3d4;
pub const MAGIC_NANOS: u32 = 0xa1b2_3c4d;
pub const GLOBAL_HEADER_LEN: usize = 24;
pub const RECORD_HEADER_LEN: usize = 16;

/// The global header, with the byte order it was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub endian: Endianness,
    /// Timestamps' fraction is nanoseconds (else microseconds).
    pub nanos: bool,
    pub version_major: u16,
    pub version_minor: u16,
    pub snaplen: u32,
    pub link_type: u32,
}

impl Header {
    pub fn is_magic(bytes: [u8; 4]) -> bool {
        Self::magic_order(bytes).is_some()
    }

    /// Byte order and nanosecond flag from the first four bytes.
    fn magic_order(bytes: [u8; 4]) -> Option<(Endianness, bool)> {
        match (u32::from_le_bytes(bytes), u32::from_be_bytes(bytes)) {
            (MAGIC_MICROS, _) => Some((Endianness::Little, false)),
            (MAGIC_NANOS, _) => Some((Endianness::Little, true)),
            (_, MAGIC_MICROS) => Some((Endianness::Big, false)),
            (_, MAGIC_NANOS) => Some((Endianness::Big, true)),
            _ => None,
        }
    }

    /// Parses the 24-byte global header.
    pub fn parse(i: &[u8]) -> IResult<&[u8], Option<Header>> {
        let (rest, magic) = nom::bytes::complete::take(4usize)(i)?;
        let magic: [u8; 4] = magic.try_into().unwrap_or_default();
        let Some((endian, nanos)) = Self::magic_order(magic) else {
            return Ok((rest, None));
        };
        let (rest, (version_major, version_minor, _thiszone, _sigfigs, snaplen, network)) = (
            nu16(endian),
            nu16(endian),
            nu32(endian),
            nu32(endian),
            nu32(endian),
            nu32(endian),
        )
            .parse(rest)?;
        Ok((
            rest,
            Some(Header {
                endian,
                nanos,
                version_major,
                version_minor,
                snaplen,
                // The upper bits may carry FCS information; the link type is the low 16.
                link_type: network & 0xffff,
            }),
        ))
    }
}

/// A record header: timestamp, captured and original length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordHeader {
    pub ts_sec: u32,
    pub ts_frac: u32,
    pub incl_len: u32,
    pub orig_len: u32,
}

impl RecordHeader {
    pub fn parse(i: &[u8], endian: Endianness) -> IResult<&[u8], RecordHeader> {
        by_endian!(endian, |u32| {
            let (rest, (ts_sec, ts_frac, incl_len, orig_len)) = (u32, u32, u32, u32).parse(i)?;
            Ok((
                rest,
                RecordHeader {
                    ts_sec,
                    ts_frac,
                    incl_len,
                    orig_len,
                },
            ))
        })
    }
}

pub(crate) fn read_header<R: Read>(buf: &mut Buffer<R>) -> Result<Header> {
    let at = At {
        offset: 0,
        packet: 0,
    };
    if !buf.fill(GLOBAL_HEADER_LEN)? {
        return Err(buf.short_header("pcap global header", GLOBAL_HEADER_LEN));
    }
    let header = parsed(Header::parse(buf.available()), "pcap global header", at)?.ok_or(
        Error::Malformed {
            what: "pcap global header",
            at,
            detail: "bad magic".into(),
        },
    )?;
    if header.version_major != 2 {
        return Err(Error::Malformed {
            what: "pcap global header",
            at,
            detail: format!(
                "unsupported version {}.{} (expected 2.x)",
                header.version_major, header.version_minor
            ),
        });
    }
    buf.consume(GLOBAL_HEADER_LEN);
    Ok(header)
}

/// The next record, or `None` at a clean end of file.
#[inline]
pub(crate) fn next<R: Read>(
    buf: &mut Buffer<R>,
    header: &Header,
    number: u64,
) -> Result<Option<Span>> {
    if !need(buf, RECORD_HEADER_LEN, "pcap record header", number)? {
        return Ok(None);
    }
    let at = At {
        offset: buf.offset(),
        packet: number,
    };
    let record = parsed(
        RecordHeader::parse(buf.available(), header.endian),
        "pcap record header",
        at,
    )?;
    let len = record.incl_len as usize;
    within_limit(len, "pcap record", at)?;
    match need(buf, RECORD_HEADER_LEN + len, "pcap record", number) {
        // A record that runs past the end is a capture stopped mid-write only if its header is
        // one a capture could write; otherwise the header is damaged, wherever it is.
        Err(Error::CutShort(_)) if len > (record.orig_len as usize).min(MAX_FRAME) => {
            return Err(Error::Malformed {
                what: "pcap record header",
                at,
                detail: format!(
                    "captured length {len} runs past the end of the file and is not a length a \
                     capture writes (original length {}, frames are at most {MAX_FRAME} bytes)",
                    record.orig_len
                ),
            });
        }
        result => result?,
    };
    let frac_ns = u64::from(record.ts_frac) * if header.nanos { 1 } else { 1_000 };
    Ok(Some(Span {
        data_start: RECORD_HEADER_LEN,
        data_len: len,
        record_len: RECORD_HEADER_LEN + len,
        link_type: header.link_type,
        timestamp_ns: u64::from(record.ts_sec) * 1_000_000_000 + frac_ns,
        original_len: record.orig_len,
    }))
}
