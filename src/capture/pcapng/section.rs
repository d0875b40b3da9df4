//! Section Header Block: byte-order magic, version, section length, options.

use nom::number::complete::{i64 as ni64, u16 as nu16, u32 as nu32};
use nom::number::Endianness;
use nom::{IResult, Parser};

use super::layout::{malformed, BYTE_ORDER_MAGIC};
use crate::capture::record::parsed;
use crate::error::{At, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SectionHeader {
    pub major: u16,
    pub minor: u16,
    /// -1 when not given.
    pub section_length: i64,
}

impl SectionHeader {
    /// Parses the body (after type and length) in the byte order the magic announced.
    pub fn parse(body: &[u8], endian: Endianness) -> IResult<&[u8], SectionHeader> {
        let (rest, (_magic, major, minor, section_length)) =
            (nu32(endian), nu16(endian), nu16(endian), ni64(endian)).parse(body)?;
        Ok((
            rest,
            SectionHeader {
                major,
                minor,
                section_length,
            },
        ))
    }
}

/// The byte order from the 4 magic bytes that follow the block length.
pub(super) fn byte_order(magic: &[u8], at: At) -> Result<Endianness> {
    let bytes: [u8; 4] = magic.try_into().unwrap_or_default();
    if u32::from_le_bytes(bytes) == BYTE_ORDER_MAGIC {
        Ok(Endianness::Little)
    } else if u32::from_be_bytes(bytes) == BYTE_ORDER_MAGIC {
        Ok(Endianness::Big)
    } else {
        Err(malformed(
            at,
            &format!("section header byte-order magic is {bytes:02x?}, not 1a2b3c4d"),
        ))
    }
}

pub(super) fn read(body: &[u8], endian: Endianness, at: At) -> Result<SectionHeader> {
    let shb = parsed(
        SectionHeader::parse(body, endian),
        "pcapng section header block",
        at,
    )?;
    if shb.major != 1 {
        return Err(malformed(
            at,
            &format!("unsupported pcapng version {}.{}", shb.major, shb.minor),
        ));
    }
    Ok(shb)
}
