//! One error type for the library: every variant says what went wrong and where (byte offset in
//! the capture stream, and the packet number when there is one), so the command line can print a
//! single useful line prefixed with the file name.
//!
//! Convention for every error type in this crate: a variant's message already includes its cause,
//! so no variant also exposes it as `source()` (a chain printer would repeat it).

use std::io;

/// Where in the capture stream something happened. Offsets count bytes of the capture as parsed,
/// i.e. of the decompressed stream for a gzip'd file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct At {
    pub offset: u64,
    /// 1-based number of the capture record (packet) being read, 0 before the first one.
    pub packet: u64,
}

impl std::fmt::Display for At {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.packet == 0 {
            write!(f, "byte {}", self.offset)
        } else {
            write!(f, "byte {} (packet {})", self.offset, self.packet)
        }
    }
}

/// Everything that can go wrong reading a capture.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("no such file")]
    NotFound,
    #[error("is a directory, not a capture file")]
    IsDirectory,
    #[error("cannot read: {0}")]
    Io(io::Error),
    #[error("empty file (0 bytes): not a pcap or pcapng capture")]
    Empty,
    #[error("not a pcap or pcapng capture: starts with bytes {0}")]
    UnknownMagic(String),
    #[error("corrupt gzip stream near compressed byte {compressed_offset} (decompressed byte {offset}): {message}")]
    Gzip {
        offset: u64,
        compressed_offset: u64,
        message: String,
    },
    #[error("gzip stream ends early (truncated download?) after {compressed_offset} compressed bytes (decompressed byte {offset})")]
    GzipTruncated { offset: u64, compressed_offset: u64 },
    #[error("truncated {what} at {at}: needs {needed} bytes, only {available} left in the file")]
    Truncated {
        what: &'static str,
        at: At,
        needed: u64,
        available: u64,
    },
    /// The stream ended inside a record: the records before it are whole. Readers that were told
    /// to be lenient stop there instead (see [`crate::stream::IexReader::truncated_tail`]).
    #[error("{0}; the {whole} packets before it are whole and --lenient reads them", whole = .0.whole_packets())]
    CutShort(TruncatedTail),
    #[error("malformed {what} at {at}: {detail}")]
    Malformed {
        what: &'static str,
        at: At,
        detail: String,
    },
    #[error("{what} at {at} claims {len} bytes, over the {limit}-byte limit")]
    TooLarge {
        what: &'static str,
        at: At,
        len: u64,
        limit: u64,
    },
    #[error("bad IEX-TP segment at {at}: {cause}")]
    Segment { at: At, cause: SegmentError },
}

/// Why an IEX-TP segment (one UDP payload) was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SegmentError {
    #[error("IEX-TP header needs 40 bytes, the datagram has {len}")]
    ShortHeader { len: usize },
    #[error("payload length field says {declared} bytes but {present} follow the 40-byte header")]
    PayloadLength { declared: usize, present: usize },
    #[error("message {index} of {count}: length prefix is cut off")]
    LengthCut { index: u16, count: u16 },
    #[error("message {index} of {count} claims {len} bytes but only {remaining} are left in the segment")]
    MessagePastEnd {
        index: u16,
        count: u16,
        len: usize,
        remaining: usize,
    },
    #[error("message {index} of {count} has length 0")]
    EmptyMessage { index: u16, count: u16 },
    #[error("{trailing} bytes left over after the {count} messages the header announces")]
    TrailingBytes { count: u16, trailing: usize },
    #[error("message {index} (type '{kind}') is {len} bytes, the spec says {needed}")]
    ShortMessage {
        index: u16,
        kind: char,
        len: usize,
        needed: usize,
    },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Turns an `io::Error` back into ours if it carries one (the gunzip thread's errors travel
    /// through `Read`), otherwise wraps it.
    pub fn from_io(e: io::Error) -> Error {
        match e.downcast::<Error>() {
            Ok(ours) => ours,
            Err(e) => Error::Io(e),
        }
    }
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
        if self.packet == 0 {
            // A region read after a seek: records are known by offset only.
            let what = self.what;
            write!(f, ": it ends inside a {what} ({there})")
        } else if self.is_packet() {
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

/// An [`Error`] together with the file it happened in: what the command line prints.
#[derive(Debug, thiserror::Error)]
#[error("{}: {error}", file_label(path, *.decompressed))]
pub struct FileError {
    pub path: String,
    /// Offsets refer to the decompressed stream.
    pub decompressed: bool,
    pub error: Error,
}

/// How messages name a file: its path, and what its byte offsets count when it is gzip'd.
pub fn file_label(path: &str, decompressed: bool) -> String {
    if decompressed {
        format!("{path} (gzip; byte offsets count decompressed bytes)")
    } else {
        path.to_owned()
    }
}

impl FileError {
    pub fn new(path: &std::path::Path, decompressed: bool, error: Error) -> Self {
        FileError {
            path: path.display().to_string(),
            decompressed,
            error,
        }
    }
}
