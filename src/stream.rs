//! A capture file as a stream of validated IEX-TP segments: source → capture → net → iex.
//!
//! Frames that are not IEX traffic (ARP, other UDP, fragments, unsupported links) are counted and
//! skipped. Malformed frames and segments stop the stream with an error saying where, unless the
//! reader is lenient, in which case they are counted and skipped too.

use std::io::Read;
use std::path::Path;

use crate::capture::{CaptureKind, CaptureReader};
use crate::error::{At, Error, FileError, Result};
use crate::iex::segment::HEADER_LEN;
use crate::iex::{Segment, SeqEvent, SequenceTracker};
use crate::net::{self, Skip};
use crate::source::{self, Compression};

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
}

pub struct IexReader<R> {
    capture: CaptureReader<R>,
    sequences: SequenceTracker,
    skipped: Skipped,
    segments: u64,
    lenient: bool,
}

impl<R: Read> IexReader<R> {
    pub fn new(src: R, lenient: bool) -> Result<Self> {
        Ok(IexReader {
            capture: CaptureReader::new(src)?,
            sequences: SequenceTracker::default(),
            skipped: Skipped::default(),
            segments: 0,
            lenient,
        })
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
        // Find the next segment while only remembering where its payload is, then borrow it once
        // the loop is over (returning a borrow from inside the loop would hold `capture` mutably
        // across iterations).
        let (header, feed, range) = loop {
            if !self.capture.advance()? {
                return Ok(None);
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
        let seq = self.sequences.observe(&header);
        self.segments += 1;
        let Some(frame) = self.capture.current() else {
            return Ok(None);
        };
        let payload = frame.data.get(range).unwrap_or_default();
        let segment = Segment::from_validated(header, feed, payload);
        Ok(Some(Item {
            number: self.segments,
            frame: frame.number,
            offset: frame.offset,
            capture_ns: frame.timestamp_ns,
            segment,
            seq,
        }))
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

/// Opens `path` (gzip'd or not) and reads its capture header.
pub fn open(path: &Path, lenient: bool) -> Result<Opened, FileError> {
    let src = source::open(path).map_err(|e| FileError::new(path, false, e))?;
    let gz = src.compression == Compression::Gzip;
    let reader = IexReader::new(src.reader, lenient).map_err(|e| FileError::new(path, gz, e))?;
    Ok(Opened {
        reader,
        compression: src.compression,
        file_bytes: src.file_bytes,
        read: src.read,
    })
}
