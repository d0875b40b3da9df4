//! What the pcap and pcapng parsers share: the limits on a record, where a parsed frame sits,
//! and the helpers that turn an oversized, short or unparsable record into a typed error.

use std::io::Read;

use super::buffer::Buffer;
use crate::error::{At, Error, Result, TruncatedTail};

/// No packet record may claim more than this. Real frames are at most 256 KiB (a pcapng snaplen
/// limit); the cap keeps a corrupt length field from making us allocate gigabytes.
pub const MAX_RECORD: usize = 16 << 20;
/// The largest frame a real capture holds (libpcap's and Wireshark's limit). A record cut short
/// by the end of the file is taken for a capture that was stopped only if it claims no more.
pub const MAX_FRAME: usize = 256 << 10;

/// Link-layer header types we can take apart (tcpdump's LINKTYPE_ values).
pub mod link {
    pub const ETHERNET: u32 = 1;
    pub const RAW: u32 = 101;
    pub const LINUX_SLL: u32 = 113;
    pub const IPV4: u32 = 228;
}

/// Where a parsed frame sits in the buffer; turned into a [`Frame`](super::reader::Frame) once parsing is done, so the
/// borrow of the buffer starts only after all refills.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Span {
    /// Data range, relative to the start of the record.
    pub data_start: usize,
    pub data_len: usize,
    /// Bytes the whole record occupies.
    pub record_len: usize,
    pub link_type: u32,
    pub timestamp_ns: u64,
    pub original_len: u32,
}

/// Refuses a record (`what`, at `at`) that claims more than [`MAX_RECORD`] bytes, before its
/// bytes are read.
pub(crate) fn within_limit(len: usize, what: &'static str, at: At) -> Result<()> {
    if len > MAX_RECORD {
        return Err(Error::TooLarge {
            what,
            at,
            len: len as u64,
            limit: MAX_RECORD as u64,
        });
    }
    Ok(())
}

/// Makes `n` bytes of record `packet` (at the buffer's front) available, or says how the stream
/// cut it short ([`Error::CutShort`]). `Ok(false)` only when the stream ended exactly at a record
/// boundary and was whole (a gzip stream that ends early between two records is cut short too).
pub(crate) fn need<R: Read>(
    buf: &mut Buffer<R>,
    n: usize,
    what: &'static str,
    packet: u64,
) -> Result<bool> {
    if buf.fill(n)? {
        return Ok(true);
    }
    let present = buf.available().len() as u64;
    let gzip_compressed_bytes = buf.gzip_cut();
    if present == 0 && gzip_compressed_bytes.is_none() {
        return Ok(false);
    }
    Err(Error::CutShort(TruncatedTail {
        packet,
        offset: buf.offset(),
        present,
        needed: if present == 0 { 0 } else { n as u64 },
        what: if present == 0 { "" } else { what },
        gzip_compressed_bytes,
    }))
}

/// Parses a fixed-layout header with nom, turning "not enough input" into a typed error. Callers
/// have already made the bytes available, so a failure here means a logic error in the caller,
/// which is still reported rather than panicking.
pub(crate) fn parsed<T>(result: nom::IResult<&[u8], T>, what: &'static str, at: At) -> Result<T> {
    result.map(|(_, v)| v).map_err(|_| Error::Malformed {
        what,
        at,
        detail: "header too short".into(),
    })
}
