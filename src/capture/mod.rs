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

/// What a capture cut short at its end lost: the record the stream ended inside, as tcpdump and
/// Wireshark report it when a capture was stopped or a download cut off. Every record before it is
/// whole. Offsets count capture bytes (decompressed ones for a gzip'd file).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct TruncatedTail {
    /// 1-based number the cut record would have had (`packet - 1` packets are whole before it).
    pub packet: u64,
    /// Stream offset where the cut record starts: where the whole packets end.
    pub offset: u64,
    /// Bytes of it in the stream (dropped); 0 when a gzip stream ended between two records.
    pub present: u64,
    /// Bytes it needs: the whole record, or only its header when the header itself is cut.
    pub needed: u64,
    /// What was being read: `pcap record`, `pcapng enhanced packet block`, ...
    pub what: &'static str,
    /// Compressed bytes read when the gzip stream itself ended early (no gzip end: deflate cut
    /// short or the trailer missing); `None` when the compressed stream was whole.
    pub gzip_compressed_bytes: Option<u64>,
}

impl TruncatedTail {
    /// Packets before the cut: all whole.
    pub fn whole_packets(&self) -> u64 {
        self.packet.saturating_sub(1)
    }

    /// Whether the cut record would have been a packet (not a section or interface block).
    fn is_packet(&self) -> bool {
        !matches!(
            self.what,
            "pcapng section header block" | "pcapng interface description block" | "pcapng block"
        )
    }
}

impl std::fmt::Display for TruncatedTail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.gzip_compressed_bytes {
            Some(n) => write!(
                f,
                "gzip stream ends early after {n} compressed bytes (truncated download?), so the \
                 capture is cut short"
            )?,
            None => write!(f, "capture cut short")?,
        }
        if self.present == 0 {
            return write!(
                f,
                " at byte {}, after packet {}",
                self.offset,
                self.whole_packets()
            );
        }
        let (at, present, needed) = (self.offset, self.present, self.needed);
        let there = format!("at byte {at}: {present} of its {needed} bytes are there");
        if self.is_packet() {
            let (packet, what) = (self.packet, self.what);
            write!(f, ": it ends inside packet {packet} ({what} {there})")
        } else {
            let (after, what) = (self.whole_packets(), self.what);
            write!(
                f,
                ": it ends after packet {after}, inside a {what} ({there})"
            )
        }
    }
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
    /// Set when the stream ended inside a record; nothing is read after it.
    tail: Option<TruncatedTail>,
}

impl<R: Read> CaptureReader<R> {
    /// Reads the file header and decides the format.
    pub fn new(src: R) -> Result<Self> {
        let mut buf = Buffer::new(src);
        if !buf.fill(4)? {
            return Err(buf.short_header("capture file header", 4));
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
            tail: None,
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

    /// What was dropped when the stream ended inside a record (set once [`Self::advance`] has
    /// reported it as [`Error::CutShort`]).
    pub fn truncated_tail(&self) -> Option<TruncatedTail> {
        self.tail
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
    /// one without holding a mutable borrow). A stream that ends inside a record gives
    /// [`Error::CutShort`] once, then `false`: the caller decides whether the whole records
    /// before it are enough.
    #[inline]
    pub fn advance(&mut self) -> Result<bool> {
        self.buf.consume(std::mem::take(&mut self.pending));
        self.current = None;
        if self.tail.is_some() {
            return Ok(false);
        }
        let number = self.frames + 1;
        let span = match &mut self.format {
            Format::Pcap(header) => pcap::next(&mut self.buf, header, number),
            Format::Pcapng(section) => pcapng::next(&mut self.buf, section, number),
        };
        let span = match span {
            Ok(span) => span,
            Err(Error::CutShort(tail)) => {
                self.tail = Some(tail);
                return Err(Error::CutShort(tail));
            }
            Err(e) => return Err(e),
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
