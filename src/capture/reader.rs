//! The capture reader: picks pcap or pcapng by the first four bytes and streams frames.

use std::io::Read;

use super::buffer::Buffer;
use super::record::Span;
use super::{pcap, pcapng};
use crate::error::{Error, Result, TruncatedTail};

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

#[derive(Debug, Clone)]
enum Format {
    Pcap(pcap::Header),
    Pcapng(pcapng::Section),
}

/// What a reader knows of its file's framing after its header: enough to read a region of the
/// same file from a record boundary on ([`CaptureReader::resume`]).
#[derive(Debug, Clone)]
pub struct FormatState(Format);

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
    /// Whether record numbers count from the file's start (false for a region read after a
    /// seek: its records are then named by byte offset only).
    numbered: bool,
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
        Ok(CaptureReader::framed(buf, format, true))
    }

    /// A reader of `buf` framed as `format`, before its first record.
    fn framed(buf: Buffer<R>, format: Format, numbered: bool) -> Self {
        CaptureReader {
            buf,
            format,
            frames: 0,
            pending: 0,
            current: None,
            tail: None,
            numbered,
        }
    }

    /// The framing read so far (the pcap header; the pcapng section and interfaces seen).
    pub fn state(&self) -> FormatState {
        FormatState(self.format.clone())
    }

    /// A reader of `src`, the bytes of the same file from stream offset `offset` on, which must
    /// be a record boundary, framed as `state` says. Its records are named by offset only.
    pub fn resume(src: R, state: FormatState, offset: u64) -> Self {
        CaptureReader::framed(Buffer::at(src, offset), state.0, false)
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
        let number = if self.numbered { self.frames + 1 } else { 0 };
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
        self.frames += 1;
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
            number: if self.numbered { self.frames } else { 0 },
            offset: self.buf.offset(),
            link_type: span.link_type,
            timestamp_ns: span.timestamp_ns,
            original_len: span.original_len,
            data,
        })
    }
}

/// The magic bytes as an error names them.
pub(super) fn hex(bytes: [u8; 4]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}
