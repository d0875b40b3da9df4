//! Capture framing: classic pcap and pcapng, either byte order, read as a stream of frames.
//!
//! The format is chosen by the first four bytes, never by the file name. Each format's parsers
//! live in their own file and take the byte order once, from the file or section header.

mod buffer;
pub mod pcap;
pub mod pcapng;

use std::io::Read;

use buffer::Buffer;

use crate::error::{At, Error, Result};

/// No packet record may claim more than this. Real frames are at most 256 KiB (a pcapng snaplen
/// limit); the cap keeps a corrupt length field from making us allocate gigabytes.
pub const MAX_RECORD: usize = 16 << 20;

/// Link-layer header types we can take apart (tcpdump's LINKTYPE_ values).
pub mod link {
    pub const ETHERNET: u32 = 1;
    pub const RAW: u32 = 101;
    pub const LINUX_SLL: u32 = 113;
    pub const IPV4: u32 = 228;
}

/// Which capture file format a stream is in (or the generator writes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum CaptureKind {
    /// Classic pcap (the generator writes nanosecond timestamps).
    Pcap,
    /// pcapng, as IEX HIST files are (the generator writes one section, one Ethernet
    /// interface at nanosecond resolution).
    #[default]
    Pcapng,
}

/// One captured frame, borrowed from the reader's buffer until the next call.
#[derive(Debug, Clone, Copy)]
pub struct Frame<'a> {
    /// 1-based record number in the file.
    pub number: u64,
    /// Stream offset of the record (of its header).
    pub offset: u64,
    pub link_type: u32,
    /// Capture time in nanoseconds since the epoch (as the capture states it).
    pub timestamp_ns: u64,
    pub original_len: u32,
    pub data: &'a [u8],
}

/// Where a parsed frame sits in the buffer; turned into a [`Frame`] once parsing is done, so the
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

enum Format {
    Pcap(pcap::Header),
    Pcapng(pcapng::Section),
}

/// Streams frames out of a pcap or pcapng byte stream.
pub struct CaptureReader<R> {
    buf: Buffer<R>,
    format: Format,
    frames: u64,
    /// Bytes of the previous record still to consume before parsing the next.
    pending: usize,
    current: Option<Span>,
}

impl<R: Read> CaptureReader<R> {
    /// Reads the file header and decides the format.
    pub fn new(src: R) -> Result<Self> {
        let mut buf = Buffer::new(src);
        if !buf.fill(4)? {
            let got = buf.available();
            if got.is_empty() {
                return Err(Error::Empty);
            }
            return Err(Error::Truncated {
                what: "capture file header",
                at: At {
                    offset: 0,
                    packet: 0,
                },
                needed: 4,
                available: got.len() as u64,
            });
        }
        let magic: [u8; 4] = buf.available()[..4].try_into().unwrap_or_default();
        let format = if pcap::Header::is_magic(magic) {
            Format::Pcap(pcap::read_header(&mut buf)?)
        } else if magic == pcapng::SHB_TYPE {
            Format::Pcapng(pcapng::Section::default())
        } else {
            return Err(Error::UnknownMagic(hex(magic)));
        };
        Ok(CaptureReader {
            buf,
            format,
            frames: 0,
            pending: 0,
            current: None,
        })
    }

    pub fn kind(&self) -> CaptureKind {
        match self.format {
            Format::Pcap(_) => CaptureKind::Pcap,
            Format::Pcapng(_) => CaptureKind::Pcapng,
        }
    }

    /// Stream bytes consumed so far (the current frame included).
    pub fn position(&self) -> u64 {
        self.buf.offset() + self.pending as u64
    }

    /// Frames returned so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// The next frame, or `None` at a clean end of the stream.
    #[inline]
    pub fn next_frame(&mut self) -> Result<Option<Frame<'_>>> {
        Ok(if self.advance()? {
            self.current()
        } else {
            None
        })
    }

    /// Moves to the next frame; `false` at a clean end of the stream. The frame is then
    /// available from [`Self::current`] (split in two so callers can loop over frames and return
    /// one without holding a mutable borrow).
    #[inline]
    pub fn advance(&mut self) -> Result<bool> {
        self.buf.consume(std::mem::take(&mut self.pending));
        self.current = None;
        let number = self.frames + 1;
        let span = match &mut self.format {
            Format::Pcap(header) => pcap::next(&mut self.buf, header, number)?,
            Format::Pcapng(section) => pcapng::next(&mut self.buf, section, number)?,
        };
        let Some(span) = span else { return Ok(false) };
        self.frames = number;
        self.pending = span.record_len;
        self.current = Some(span);
        Ok(true)
    }

    /// The frame the last [`Self::advance`] moved to.
    #[inline]
    pub fn current(&self) -> Option<Frame<'_>> {
        let span = self.current?;
        let data = self
            .buf
            .available()
            .get(span.data_start..span.data_start + span.data_len)?;
        Some(Frame {
            number: self.frames,
            offset: self.buf.offset(),
            link_type: span.link_type,
            timestamp_ns: span.timestamp_ns,
            original_len: span.original_len,
            data,
        })
    }
}

/// Makes `n` bytes of the record at the buffer's front available, or says how it was cut short.
/// `Ok(false)` only when the stream ended exactly at a record boundary.
pub(crate) fn need<R: Read>(
    buf: &mut Buffer<R>,
    n: usize,
    what: &'static str,
    packet: u64,
) -> Result<bool> {
    if buf.fill(n)? {
        return Ok(true);
    }
    let available = buf.available().len();
    if available == 0 {
        return Ok(false);
    }
    Err(Error::Truncated {
        what,
        at: At {
            offset: buf.offset(),
            packet,
        },
        needed: n as u64,
        available: available as u64,
    })
}

fn hex(bytes: [u8; 4]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
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
