//! A share of a plain (not gzip'd) capture read by seeking: each chunk the share owns is read
//! as one region, from the first record that starts in it to the first record of the next
//! chunk, found by resynchronising on the file's record structure (`capture::resync`) rather
//! than by reading everything before it. A share of a day then reads its own bytes only.
//!
//! Why this is exact: a region's ends are a pure function of the file's bytes, so the share
//! that reads chunk c and the one that reads chunk c + 1 agree on where one stops and the other
//! starts; and a region must end on a record boundary, so a boundary found in the wrong place
//! (inside a record) makes the record before it run past the region's end: an error naming the
//! byte, never records read twice or skipped. The merge checks the chain again across shares
//! (`share::Cover::join`).

use std::fs::File;
use std::io::{BufReader, Read};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::share::Chunking;
use crate::capture::resync::{self, find_boundary, Settled};
use crate::capture::{CaptureReader, FormatState, MAX_FRAME};
use crate::error::{At, Error, Result};
use crate::source::Tally;

/// Bytes read to find a boundary, smallest first: a chain of eight IEX packets is about 12 KB,
/// so the first probe settles nearly every boundary; the last (a megabyte and the largest frame)
/// is resync's contract, read only where the first cannot settle (a record longer than it, or
/// damage), so a share reads about 6% more than its own bytes instead of 50%.
const PROBES: [usize; 2] = [128 << 10, (1 << 20) + MAX_FRAME + 64];

/// One owned chunk's records, ready to be read.
pub(crate) struct Region<R> {
    pub reader: CaptureReader<R>,
    /// Stream offset where the region ends: the next chunk's first record, or the file's end.
    pub end: u64,
    pub at_eof: bool,
}

/// The owned chunks of one file, region by region.
pub(crate) struct Regions {
    file: File,
    len: u64,
    state: FormatState,
    framing: resync::Framing,
    /// Where the first record starts (after the file header).
    pub head: u64,
    chunking: Chunking,
    /// The next chunk to look at (one the share owns).
    next: u64,
    /// File bytes read so far, for the progress line: set to each region's start, then counted.
    read: Arc<AtomicU64>,
}

impl Regions {
    /// Reads the file's header (and its first record, which tells the framing) and makes
    /// ready to read `chunking`'s share.
    pub fn open(path: &Path, chunking: Chunking, read: Arc<AtomicU64>) -> Result<Regions> {
        let file = File::open(path).map_err(Error::Io)?;
        let len = file.metadata().map_err(Error::Io)?.len();
        let mut head = vec![0u8; (64 << 10).min(len as usize)];
        file.read_exact_at(&mut head, 0).map_err(Error::Io)?;
        let (framing, _) = resync::Framing::read(&head)?;
        // The reader's own state after the header and the first record: the pcap header, or
        // the pcapng section with the interfaces it declared before its first packet.
        let mut first = CaptureReader::new(BufReader::new(file.try_clone().map_err(Error::Io)?))?;
        let head = match first.next_frame() {
            Ok(Some(frame)) => frame.offset,
            Ok(None) | Err(Error::CutShort(_)) => len,
            Err(e) => return Err(e),
        };
        let state = first.state();
        Ok(Regions {
            file,
            len,
            state,
            framing,
            head,
            chunking,
            next: u64::from(chunking.share.index),
            read,
        })
    }

    /// The framing the regions are read with.
    pub fn state(&self) -> FormatState {
        self.state.clone()
    }

    /// The next owned chunk that holds a record, or `None` when the share has no more.
    pub fn next_region(&mut self) -> Result<Option<Region<Box<dyn Read + Send>>>> {
        let bytes = self.chunking.bytes.max(1);
        loop {
            let chunk = self.next;
            self.next += u64::from(self.chunking.share.count.max(1));
            let from = chunk.saturating_mul(bytes);
            if from >= self.len {
                return Ok(None);
            }
            let start = match chunk {
                0 => self.head,
                _ => self.boundary(from)?.max(self.head),
            };
            if start >= self.len {
                return Ok(None);
            }
            if start >= from.saturating_add(bytes) {
                // No record starts in this chunk: the one at `start` is a later chunk's.
                continue;
            }
            let end = self.boundary(from.saturating_add(bytes))?;
            let mut file = self.file.try_clone().map_err(Error::Io)?;
            std::io::Seek::seek(&mut file, std::io::SeekFrom::Start(start)).map_err(Error::Io)?;
            self.read.store(start, Ordering::Relaxed);
            let src = Tally {
                inner: file.take(end - start),
                read: Arc::clone(&self.read),
            };
            let src: Box<dyn Read + Send> = Box::new(BufReader::with_capacity(256 << 10, src));
            return Ok(Some(Region {
                reader: CaptureReader::resume(src, self.state.clone(), start),
                end,
                at_eof: end >= self.len,
            }));
        }
    }

    /// The first record boundary at or after `at` (the file's end if none follows). Each probe
    /// answers only what more bytes cannot change ([`resync::settled_boundary`]), and the last
    /// is [`find_boundary`] itself, so the answer is the same whichever probe gives it: the
    /// shares on both sides of a boundary agree on it.
    fn boundary(&self, at: u64) -> Result<u64> {
        if at >= self.len {
            return Ok(self.len);
        }
        let left = self.len - at;
        let mut bytes = Vec::new();
        for (i, &probe) in PROBES.iter().enumerate() {
            let n = probe.min(n_left(left));
            bytes.resize(n, 0);
            self.file.read_exact_at(&mut bytes, at).map_err(Error::Io)?;
            let at_eof = n as u64 == left;
            let settled = if at_eof || i + 1 == PROBES.len() {
                match find_boundary(&bytes, at, &self.framing, at_eof) {
                    Some(k) => Settled::At(k),
                    None if at_eof => Settled::NoRecord,
                    None => break,
                }
            } else {
                // What the last probe will hold, unless it reaches the file's end.
                let last = PROBES[PROBES.len() - 1];
                let last = (last < n_left(left)).then_some(last);
                resync::settled_boundary(&bytes, at, &self.framing, false, last)
            };
            match settled {
                Settled::At(k) => return Ok(at + k as u64),
                Settled::NoRecord => return Ok(self.len),
                Settled::Widen => continue,
            }
        }
        Err(Error::Malformed {
            what: "capture",
            at: At {
                offset: at,
                packet: 0,
            },
            detail: format!(
                "no record starts in the {} KiB after this byte (looking for the first record \
                 of a chunk): the capture's record structure is damaged here",
                bytes.len() >> 10
            ),
        })
    }
}

/// `left` bytes as a length (saturated on a 32-bit target).
fn n_left(left: u64) -> usize {
    usize::try_from(left).unwrap_or(usize::MAX)
}
