//! A capture file as a stream of validated IEX-TP segments: source → capture → net → iex.
//!
//! Frames that are not IEX traffic (ARP, other UDP, fragments, unsupported links) are counted and
//! skipped. Malformed frames and segments stop the stream with an error saying where, unless the
//! reader is lenient, in which case they are counted and skipped too. A capture cut short at its
//! end (a stopped capture, a cut download) is an error too, naming the cut and pointing to
//! `--lenient`; a lenient reader ends at the last whole packet instead and keeps what it dropped
//! ([`IexReader::truncated_tail`]).

mod regions;
pub mod share;

use std::io::Read;
use std::path::Path;

pub use crate::capture::TruncatedTail;
use crate::capture::{CaptureKind, CaptureReader};
use crate::error::{file_label, At, Error, FileError, Result};
use crate::iex::segment::HEADER_LEN;
use crate::iex::{Segment, SegmentHeader, SeqEvent, SequenceTracker};
use crate::model::Feed;
use crate::net::{self, Skip};
use crate::source::{self, Compression};
pub use share::{Chunking, Cover, Share};

/// Frames and segments passed over, by reason.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Skipped {
    pub unsupported_link: u64,
    pub non_ipv4: u64,
    pub non_udp: u64,
    pub fragments: u64,
    /// UDP datagrams that are not IEX-TP (wrong version or protocol id).
    pub non_iex: u64,
    /// Frames whose IPv4/UDP headers were cut off or inconsistent (only with `lenient`).
    pub malformed_frames: u64,
    /// IEX-TP segments that failed validation (only with `lenient`).
    pub malformed_segments: u64,
}

/// One IEX-TP segment and where it came from.
#[derive(Debug, Clone, Copy)]
pub struct Item<'a> {
    /// 1-based count of IEX-TP segments so far.
    pub number: u64,
    /// 1-based capture record number.
    pub frame: u64,
    /// Stream offset of the capture record.
    pub offset: u64,
    pub capture_ns: u64,
    pub segment: Segment<'a>,
    pub seq: SeqEvent,
    /// The chunk of the stream the record lies in (see [`share`]); 0 when the reader is not
    /// cut into chunks.
    pub chunk: u64,
}

/// The chunks a reader yields and what it has read of them (see [`share`]).
struct Chunks {
    chunking: Chunking,
    cover: Cover,
    /// The chunk of the last record read, owned or not.
    last: Option<u64>,
}

type NextRegion<R> = Box<dyn FnMut() -> Result<Option<regions::Region<R>>>>;

/// The segment last returned, kept so that [`IexReader::hold`] can return it again.
#[derive(Clone)]
struct Last {
    header: SegmentHeader,
    feed: Feed,
    range: std::ops::Range<usize>,
    seq: SeqEvent,
    chunk: u64,
}

pub struct IexReader<R> {
    capture: CaptureReader<R>,
    sequences: SequenceTracker,
    skipped: Skipped,
    segments: u64,
    lenient: bool,
    /// How warnings name the file, when this reader prints them ([`open`]'s readers do).
    warn_as: Option<String>,
    /// The gate of the thread inflating a gzip'd file, which the measuring loop closes while it
    /// times (see [`source::Gate`]).
    gate: Option<std::sync::Arc<source::Gate>>,
    chunks: Option<Chunks>,
    last: Option<Last>,
    held: bool,
    /// A share of a plain file read by seeking: its next region ([`regions`]), and where the
    /// one being read ends (and whether that is the file's end).
    regions: Option<NextRegion<R>>,
    region_end: Option<(u64, bool)>,
}

impl<R: Read> IexReader<R> {
    pub fn new(src: R, lenient: bool) -> Result<Self> {
        Ok(IexReader::new_from(CaptureReader::new(src)?, lenient))
    }

    /// A reader of the segments `capture` yields.
    fn new_from(capture: CaptureReader<R>, lenient: bool) -> Self {
        IexReader {
            capture,
            sequences: SequenceTracker::default(),
            skipped: Skipped::default(),
            segments: 0,
            lenient,
            warn_as: None,
            gate: None,
            chunks: None,
            last: None,
            held: false,
            regions: None,
            region_end: None,
        }
    }

    /// Cuts the stream into chunks and yields only the segments of the chunks `chunking`'s share
    /// owns; the records of the others are passed over without being parsed past their capture
    /// header. What was read is in [`Self::cover`].
    pub fn set_chunking(&mut self, chunking: Chunking) {
        if self.chunks.as_ref().is_some_and(|c| c.chunking == chunking) {
            // Already reading this share (its regions, see [`open_share`]).
            return;
        }
        self.chunks = Some(Chunks {
            chunking,
            cover: Cover::default(),
            last: None,
        });
    }

    /// The chunks read so far, with where each starts and ends; `None` unless
    /// [`Self::set_chunking`] was called.
    pub fn cover(&self) -> Option<&Cover> {
        self.chunks.as_ref().map(|c| &c.cover)
    }

    /// Makes the next [`Self::next_segment`] return the segment it returned last again: how a
    /// window that ends at a chunk boundary leaves the next chunk's first segment for the next
    /// window.
    pub fn hold(&mut self) {
        self.held = self.last.is_some();
    }

    /// What a lenient reader dropped because the capture was cut short at its end (the cut
    /// record: packet number, offset, bytes present and needed); `None` while the stream has
    /// not ended that way. A strict reader returns the same as [`Error::CutShort`].
    pub fn truncated_tail(&self) -> Option<TruncatedTail> {
        self.capture.truncated_tail()
    }

    /// The gate of the thread that inflates the input, if it is gzip'd and opened by [`open`].
    pub fn gate(&self) -> Option<std::sync::Arc<source::Gate>> {
        self.gate.clone()
    }

    pub fn capture_kind(&self) -> CaptureKind {
        self.capture.kind()
    }

    pub fn skipped(&self) -> Skipped {
        self.skipped
    }

    pub fn frames(&self) -> u64 {
        self.capture.frames()
    }

    /// Capture bytes consumed so far.
    pub fn position(&self) -> u64 {
        self.capture.position()
    }

    /// The next IEX-TP segment, or `None` at the end of the capture.
    #[inline]
    pub fn next_segment(&mut self) -> Result<Option<Item<'_>>> {
        if std::mem::take(&mut self.held) {
            if let Some(last) = self.last.clone() {
                return Ok(self.item(last));
            }
        }
        // Find the next segment while only remembering where its payload is, then borrow it once
        // the loop is over (returning a borrow from inside the loop would hold `capture` mutably
        // across iterations).
        let (header, feed, range) = loop {
            match self.capture.advance() {
                Ok(true) => {}
                Ok(false) => {
                    if self.next_region()? {
                        continue;
                    }
                    self.ended();
                    return Ok(None);
                }
                Err(Error::CutShort(tail)) if self.region_end.is_some_and(|(_, eof)| !eof) => {
                    return Err(self.overrun(&tail));
                }
                Err(Error::CutShort(tail)) if self.lenient => {
                    self.warn_cut(&tail);
                    self.ended();
                    return Ok(None);
                }
                Err(e) => return Err(e),
            }
            let Some(frame) = self.capture.current() else {
                return Ok(None);
            };
            let (offset, number) = (frame.offset, frame.number);
            if !self.owns(offset, number) {
                continue;
            }
            let Some(frame) = self.capture.current() else {
                return Ok(None);
            };
            let at = At {
                offset: frame.offset,
                packet: frame.number,
            };
            let datagram = match net::udp_payload(frame.link_type, frame.data) {
                Ok(d) => d,
                Err(skip) => {
                    let counter = match skip {
                        Skip::UnsupportedLink => &mut self.skipped.unsupported_link,
                        Skip::NotIpv4 => &mut self.skipped.non_ipv4,
                        Skip::NotUdp => &mut self.skipped.non_udp,
                        Skip::Fragment => &mut self.skipped.fragments,
                        Skip::Malformed if self.lenient => &mut self.skipped.malformed_frames,
                        Skip::Malformed => {
                            return Err(Error::Malformed {
                                what: "frame",
                                at,
                                detail: format!(
                                    "IPv4/UDP headers cut off or inconsistent ({} bytes captured)",
                                    frame.data.len()
                                ),
                            })
                        }
                    };
                    *counter += 1;
                    continue;
                }
            };
            match Segment::parse(datagram.payload) {
                Ok(Some(segment)) => {
                    let start = datagram.payload.as_ptr() as usize - frame.data.as_ptr() as usize;
                    let end = start + datagram.payload.len();
                    break (segment.header, segment.feed, start + HEADER_LEN..end);
                }
                Ok(None) => self.skipped.non_iex += 1,
                Err(_) if self.lenient => self.skipped.malformed_segments += 1,
                Err(cause) => return Err(Error::Segment { at, cause }),
            }
        };
        self.segments += 1;
        let Some(frame) = self.capture.current() else {
            return Ok(None);
        };
        let payload = frame.data.get(range.clone()).unwrap_or_default();
        let seq = self.sequences.observe(&header, payload);
        let chunk = self.chunks.as_ref().and_then(|c| c.last).unwrap_or(0);
        let last = Last {
            header,
            feed,
            range,
            seq,
            chunk,
        };
        self.last = Some(last.clone());
        Ok(self.item(last))
    }

    /// The segment `last` describes, in the capture's current frame.
    fn item(&self, last: Last) -> Option<Item<'_>> {
        let frame = self.capture.current()?;
        let payload = frame.data.get(last.range).unwrap_or_default();
        Some(Item {
            number: self.segments,
            frame: frame.number,
            offset: frame.offset,
            capture_ns: frame.timestamp_ns,
            segment: Segment::from_validated(last.header, last.feed, payload),
            seq: last.seq,
            chunk: last.chunk,
        })
    }

    /// A region's last record runs past where the next chunk's first record was found: not a
    /// cut, but a record structure that resynchronising misread (see [`regions`]).
    #[cold]
    fn overrun(&self, tail: &TruncatedTail) -> Error {
        let end = self.region_end.map_or(0, |(end, _)| end);
        Error::Malformed {
            what: tail.what,
            at: At {
                offset: tail.offset,
                packet: 0,
            },
            detail: format!(
                "it runs past byte {end}, where the next chunk's first record was found: the \
                 capture's record structure is damaged near there"
            ),
        }
    }

    /// Whether the record at `offset` (record `number`, 0 if unknown) is in a chunk this
    /// reader's share owns; records it in the cover if so.
    fn owns(&mut self, offset: u64, number: u64) -> bool {
        let Some(chunks) = &mut self.chunks else {
            return true;
        };
        let chunk = chunks.chunking.chunk_of(offset);
        if chunks.cover.head.is_none() && number == 1 {
            chunks.cover.head = Some(offset);
        }
        let jumped = chunks.last.is_some_and(|c| c + 1 != chunk && c != chunk);
        chunks.last = Some(chunk);
        if !chunks.chunking.share.owns(chunk) {
            return false;
        }
        if jumped {
            // Sequence numbers continue from a chunk this reader passed over.
            self.sequences = SequenceTracker::default();
        }
        chunks.cover.record(chunk, offset, self.capture.position());
        true
    }

    /// Moves to the share's next region, if it reads a plain file by regions and has one more.
    fn next_region(&mut self) -> Result<bool> {
        let Some(next_region) = &mut self.regions else {
            return Ok(false);
        };
        match next_region()? {
            Some(region) => {
                self.capture = region.reader;
                self.region_end = Some((region.end, region.at_eof));
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// The stream is over: where it ended goes in the cover, if this reader read to its end.
    fn ended(&mut self) {
        self.last = None;
        let to_the_end = self.region_end.is_none_or(|(_, at_eof)| at_eof);
        if let Some(chunks) = &mut self.chunks {
            if to_the_end {
                chunks.cover.end = Some(self.capture.position());
            }
        }
    }
}

impl<R> IexReader<R> {
    /// The one warning for a capture read up to a cut: on stderr, because the command line's
    /// `run` hands this reader to the measurement and only gets results back.
    #[cold]
    fn warn_cut(&self, tail: &TruncatedTail) {
        if let Some(file) = &self.warn_as {
            eprintln!("warning: {file}: {}", lenient_note(tail));
        }
    }
}

/// What `--lenient` did with a capture cut short: the cut, what was dropped and what was read.
pub fn lenient_note(tail: &TruncatedTail) -> String {
    if tail.packet == 0 {
        // Read after a seek: the packets are known by offset only.
        return format!("{tail}; dropped those bytes and read the whole packets before them");
    }
    let whole = tail.whole_packets();
    if tail.present == 0 {
        format!("{tail}; read the {whole} whole packets before the cut")
    } else {
        format!(
            "{tail}; dropped those {} bytes and read the {whole} whole packets before them",
            tail.present
        )
    }
}

/// A capture file opened for streaming, with what its errors need to say where they happened.
pub struct Opened {
    pub reader: IexReader<Box<dyn Read + Send>>,
    pub compression: Compression,
    /// Size of the file on disk.
    pub file_bytes: u64,
    /// Bytes of the file read so far (compressed, for a gzip'd file).
    pub read: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl Opened {
    /// `e`, from reading this file, as the one line the command line prints.
    pub fn error(&self, path: &Path, e: Error) -> FileError {
        FileError::new(path, self.compression == Compression::Gzip, e)
    }
}

/// Opens `path` to read `chunking`'s share of it: a plain file's chunks by seeking to each
/// (`stream::regions`); a gzip'd file (which cannot seek) or the whole input as a stream, whose reader
/// passes over the chunks of other shares.
pub fn open_share(path: &Path, lenient: bool, chunking: Chunking) -> Result<Opened, FileError> {
    if chunking.share.is_whole() || source::is_gzip(path) {
        let mut opened = open(path, lenient)?;
        opened.reader.set_chunking(chunking);
        return Ok(opened);
    }
    let fail = |e| FileError::new(path, false, e);
    let file_bytes = std::fs::metadata(path)
        .map_err(|e| fail(Error::Io(e)))?
        .len();
    let read = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let mut regions =
        regions::Regions::open(path, chunking, std::sync::Arc::clone(&read)).map_err(fail)?;
    let head = regions.head;
    let (capture, region_end) = match regions.next_region().map_err(fail)? {
        Some(r) => (r.reader, Some((r.end, r.at_eof))),
        // Nothing of this share holds a record: a reader that ends at once.
        None => {
            let empty: Box<dyn Read + Send> = Box::new(std::io::empty());
            let capture = CaptureReader::resume(empty, regions.state(), file_bytes);
            (capture, Some((file_bytes, false)))
        }
    };
    let mut reader = IexReader::new_from(capture, lenient);
    reader.warn_as = Some(file_label(&path.display().to_string(), false));
    reader.regions = Some(Box::new(move || regions.next_region()));
    reader.region_end = region_end;
    reader.set_chunking(chunking);
    if let Some(chunks) = &mut reader.chunks {
        chunks.cover.head = Some(head);
    }
    Ok(Opened {
        reader,
        compression: Compression::None,
        file_bytes,
        read,
    })
}

/// Opens `path` (gzip'd or not) and reads its capture header.
pub fn open(path: &Path, lenient: bool) -> Result<Opened, FileError> {
    let src = source::open(path).map_err(|e| FileError::new(path, false, e))?;
    let gz = src.compression == Compression::Gzip;
    let mut reader =
        IexReader::new(src.reader, lenient).map_err(|e| FileError::new(path, gz, e))?;
    reader.warn_as = Some(file_label(&path.display().to_string(), gz));
    reader.gate = src.gate;
    Ok(Opened {
        reader,
        compression: src.compression,
        file_bytes: src.file_bytes,
        read: src.read,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::{self, GenOptions};

    /// A generated 30-packet classic pcap (little-endian) and where each record starts.
    fn pcap_with_records() -> (Vec<u8>, Vec<usize>) {
        let opts = GenOptions {
            capture: CaptureKind::Pcap,
            packets: 30,
            seed: 5,
            symbols: 5,
            ..GenOptions::default()
        };
        let mut file = Vec::new();
        gen::generate(&opts, &mut file).unwrap();
        let mut starts = Vec::new();
        let mut at = 24;
        while at < file.len() {
            starts.push(at);
            at += 16 + u32::from_le_bytes(file[at + 8..at + 12].try_into().unwrap()) as usize;
        }
        assert_eq!((starts.len(), at), (30, file.len()));
        (file, starts)
    }

    /// Reads every segment; the count and how the stream ended.
    fn read_all(bytes: &[u8], lenient: bool) -> (IexReader<&[u8]>, u64, Result<()>) {
        let mut reader = IexReader::new(bytes, lenient).unwrap();
        let mut n = 0;
        let end = loop {
            match reader.next_segment() {
                Ok(Some(_)) => n += 1,
                Ok(None) => break Ok(()),
                Err(e) => break Err(e),
            }
        };
        (reader, n, end)
    }

    /// What only the reader shows of a cut (the cuts themselves, strict and lenient, are
    /// `cut_short::pcap_cut_inside_a_packet`'s in tests/it; damage that looks like a cut is
    /// `cut_short::damage_in_the_middle_stays_an_error`'s): a lenient reader's end stays the
    /// end, and a file cut exactly between records drops nothing.
    #[test]
    fn the_reader_keeps_what_a_cut_at_the_end_dropped() {
        let (file, starts) = pcap_with_records();
        let (mut lenient, n, end) = read_all(&file[..starts[27] + 50], true);
        assert!(end.is_ok(), "{end:?}");
        assert_eq!(n, 27);
        assert_eq!(lenient.truncated_tail().map(|t| t.present), Some(50));
        assert!(lenient.next_segment().unwrap().is_none());
        for bytes in [&file[..], &file[..starts[28]]] {
            let (reader, _, end) = read_all(bytes, false);
            assert!(end.is_ok());
            assert_eq!(reader.truncated_tail(), None);
        }
    }
}
