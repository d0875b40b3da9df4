//! Enhanced Packet Block and Simple Packet Block: where the frames are.

use nom::number::complete::u32 as nu32;
use nom::number::Endianness;
use nom::Parser;

use super::interface::Interface;
use super::layout::malformed;
use crate::bytes::by_endian;
use crate::capture::record::{parsed, Span};
use crate::error::{At, Result};

/// Bytes before the frame data in an EPB: type, length, interface, ts high, ts low, caplen, len.
const EPB_DATA_START: usize = 28;
/// Bytes before the frame data in an SPB: type, length, original length.
const SPB_DATA_START: usize = 12;

/// The EPB's fixed fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EnhancedPacketHeader {
    pub interface_id: u32,
    pub ts_high: u32,
    pub ts_low: u32,
    pub captured_len: u32,
    pub original_len: u32,
}

impl EnhancedPacketHeader {
    pub fn parse(body: &[u8], endian: Endianness) -> nom::IResult<&[u8], EnhancedPacketHeader> {
        by_endian!(endian, |u32| {
            let (rest, (interface_id, ts_high, ts_low, captured_len, original_len)) =
                (u32, u32, u32, u32, u32).parse(body)?;
            Ok((
                rest,
                EnhancedPacketHeader {
                    interface_id,
                    ts_high,
                    ts_low,
                    captured_len,
                    original_len,
                },
            ))
        })
    }
}

/// A packet block as the block reader found it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Block<'a> {
    /// The block without its type, leading and trailing length.
    pub body: &'a [u8],
    /// The section's byte order.
    pub endian: Endianness,
    pub at: At,
    /// The block's total length.
    pub len: usize,
}

/// An Enhanced Packet Block: the frame, timed at its interface's resolution.
#[inline]
pub(super) fn enhanced(b: Block<'_>, interfaces: &[Interface]) -> Result<Span> {
    let epb = parsed(
        EnhancedPacketHeader::parse(b.body, b.endian),
        "pcapng enhanced packet block",
        b.at,
    )?;
    let Some(iface) = interfaces.get(epb.interface_id as usize) else {
        return Err(malformed(
            b.at,
            &format!(
                "packet on interface {} but the section declares {}",
                epb.interface_id,
                interfaces.len()
            ),
        ));
    };
    let room = b.body.len() - 20;
    let captured = epb.captured_len as usize;
    if captured > room {
        return Err(malformed(
            b.at,
            &format!("captured length {captured} exceeds the {room} bytes the block holds"),
        ));
    }
    let raw_ts = (u64::from(epb.ts_high) << 32) | u64::from(epb.ts_low);
    Ok(Span {
        data_start: EPB_DATA_START,
        data_len: captured,
        record_len: b.len,
        link_type: iface.link_type,
        timestamp_ns: iface.timestamp_nanos(raw_ts),
        original_len: epb.original_len,
    })
}

/// A Simple Packet Block has no timestamp and belongs to the section's first interface.
pub(super) fn simple(b: Block<'_>, interfaces: &[Interface]) -> Result<Span> {
    let original_len = parsed(
        nu32(b.endian).parse(b.body),
        "pcapng simple packet block",
        b.at,
    )?;
    let Some(iface) = interfaces.first() else {
        return Err(malformed(b.at, "simple packet block before any interface"));
    };
    let room = b.body.len() - 4;
    let mut captured = room.min(original_len as usize);
    if iface.snaplen != 0 {
        captured = captured.min(iface.snaplen as usize);
    }
    Ok(Span {
        data_start: SPB_DATA_START,
        data_len: captured,
        record_len: b.len,
        link_type: iface.link_type,
        timestamp_ns: 0,
        original_len,
    })
}
