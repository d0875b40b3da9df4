//! A fixed-size window over a byte stream: the only place capture bytes are held.
//!
//! Records are parsed in place from the window; when a record runs past its end, the unread tail
//! is moved to the front and the window refilled with one large `read`. The window only grows to
//! hold a single record larger than itself, and callers cap that with [`super::record::MAX_RECORD`], so
//! memory is bounded whatever the file size.

use std::io::Read;

use crate::error::{At, Error, Result};

/// Full window: large enough that a refill is one big `read` per few thousand packets.
const WINDOW: usize = 4 << 20;
/// The window starts this small and doubles while the stream keeps it full, so a small input
/// (a test fixture, a fuzzer's case) does not pay for zeroing 4 MiB.
const FIRST_WINDOW: usize = 64 << 10;

pub(crate) struct Buffer<R> {
    src: R,
    data: Vec<u8>,
    start: usize,
    end: usize,
    /// Stream offset of `data[0]`.
    base: u64,
    eof: bool,
    /// Compressed bytes read when a gzip stream ended early: its end is then the end of the
    /// stream, and the records decoded before it stay readable.
    gzip_cut: Option<u64>,
}

impl<R: Read> Buffer<R> {
    pub(crate) fn new(src: R) -> Self {
        Buffer {
            src,
            data: vec![0; FIRST_WINDOW],
            start: 0,
            end: 0,
            base: 0,
            eof: false,
            gzip_cut: None,
        }
    }

    /// A buffer over `src`, whose first byte is at stream offset `offset` (a region of a file
    /// read after a seek, see `stream::regions`).
    pub(crate) fn at(src: R, offset: u64) -> Self {
        Buffer {
            base: offset,
            ..Buffer::new(src)
        }
    }

    /// Compressed bytes read, if the stream is a gzip stream that ended early.
    pub(crate) fn gzip_cut(&self) -> Option<u64> {
        self.gzip_cut
    }

    /// The error for a file header (at offset 0, before any record) that needs `n` bytes the
    /// stream does not hold: there is nothing whole to fall back on.
    pub(crate) fn short_header(&self, what: &'static str, n: usize) -> Error {
        let available = self.available().len() as u64;
        match self.gzip_cut {
            Some(compressed_offset) => Error::GzipTruncated {
                offset: self.offset() + available,
                compressed_offset,
            },
            None if available == 0 && self.offset() == 0 => Error::Empty,
            None => Error::Truncated {
                what,
                at: At {
                    offset: self.offset(),
                    packet: 0,
                },
                needed: n as u64,
                available,
            },
        }
    }

    /// The bytes read but not yet consumed.
    #[inline]
    pub(crate) fn available(&self) -> &[u8] {
        &self.data[self.start..self.end]
    }

    /// Stream offset of the first available byte.
    #[inline]
    pub(crate) fn offset(&self) -> u64 {
        self.base + self.start as u64
    }

    #[inline]
    pub(crate) fn consume(&mut self, n: usize) {
        debug_assert!(n <= self.end - self.start);
        self.start += n.min(self.end - self.start);
    }

    /// Makes at least `n` bytes available; `false` if the stream ends first (what is there stays
    /// available so the caller can say how much was left).
    #[inline]
    pub(crate) fn fill(&mut self, n: usize) -> Result<bool> {
        if self.end - self.start >= n {
            return Ok(true);
        }
        self.fill_slow(n)
    }

    #[cold]
    fn fill_slow(&mut self, n: usize) -> Result<bool> {
        if self.start + n > self.data.len() {
            // Move the unread tail to the front, growing only for a record bigger than the window.
            self.data.copy_within(self.start..self.end, 0);
            self.base += self.start as u64;
            self.end -= self.start;
            self.start = 0;
            if n > self.data.len() {
                self.data.resize(n.next_power_of_two(), 0);
            }
        }
        while self.end - self.start < n && !self.eof {
            match self.src.read(&mut self.data[self.end..]) {
                Ok(0) => self.eof = true,
                Ok(read) => self.end += read,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => match Error::from_io(e) {
                    // What was inflated before the cut is good: end the stream there and let the
                    // record parsers say what it cut short.
                    Error::GzipTruncated {
                        compressed_offset, ..
                    } => {
                        self.eof = true;
                        self.gzip_cut = Some(compressed_offset);
                    }
                    e => return Err(e),
                },
            }
        }
        if !self.eof && self.end == self.data.len() && self.data.len() < WINDOW {
            // The stream filled the window and has more: it is worth a bigger one next time.
            let grown = (self.data.len() * 2).min(WINDOW);
            self.data.resize(grown, 0);
        }
        Ok(self.end - self.start >= n)
    }

    /// Consumes `n` bytes that need not fit in the window (a huge block being skipped). Returns
    /// how many bytes were actually there.
    pub(crate) fn skip(&mut self, mut n: u64) -> Result<u64> {
        let wanted = n;
        loop {
            let here = (self.end - self.start) as u64;
            let take = here.min(n);
            self.start += take as usize;
            n -= take;
            if n == 0 {
                return Ok(wanted);
            }
            if !self.fill(1)? {
                return Ok(wanted - n);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that hands out at most 3 bytes per call, to exercise refills.
    struct Dribble<'a>(&'a [u8]);
    impl Read for Dribble<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(3);
            self.0.read(&mut buf[..n])
        }
    }

    #[test]
    fn fill_consume_and_offsets() {
        let data: Vec<u8> = (0..=255).collect();
        let mut b = Buffer::new(Dribble(&data));
        assert!(b.fill(10).unwrap());
        assert_eq!(&b.available()[..10], &data[..10]);
        b.consume(10);
        assert_eq!(b.offset(), 10);
        assert!(b.fill(200).unwrap());
        assert_eq!(b.available()[0], 10);
        assert_eq!(b.skip(100).unwrap(), 100);
        assert_eq!(b.offset(), 110);
        assert!(!b.fill(1000).unwrap());
        assert_eq!(b.available().len(), 146);
        assert_eq!(b.skip(1000).unwrap(), 146);
    }

    #[test]
    fn grows_to_the_window_then_only_for_a_larger_record() {
        let data = vec![7u8; 4 * WINDOW];
        let mut b = Buffer::new(&data[..]);
        assert_eq!(b.data.len(), FIRST_WINDOW);
        // Streaming through doubles the window up to WINDOW and no further.
        let mut sizes = vec![b.data.len()];
        while b.data.len() < WINDOW {
            b.fill(FIRST_WINDOW).unwrap();
            let n = b.available().len();
            b.consume(n);
            sizes.push(b.data.len());
        }
        assert_eq!(
            sizes,
            [64, 128, 256, 512, 1024, 2048, 4096].map(|k| k << 10)
        );
        assert!(b.fill(WINDOW + 4).unwrap());
        assert!(b.data.len() >= WINDOW + 4);
        // A small input never grows it.
        let small = vec![1u8; 1000];
        let mut b = Buffer::new(&small[..]);
        assert!(!b.fill(2000).unwrap());
        assert_eq!(b.data.len(), FIRST_WINDOW);
    }

    /// Hands out its bytes, then fails as the gunzip thread does when the gzip stream ends early.
    struct CutGzip<'a>(&'a [u8]);
    impl Read for CutGzip<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.0.is_empty() {
                return Err(std::io::Error::other(Error::GzipTruncated {
                    offset: 10,
                    compressed_offset: 77,
                }));
            }
            self.0.read(buf)
        }
    }

    #[test]
    fn a_gzip_stream_cut_short_ends_the_stream_and_is_remembered() {
        let data: Vec<u8> = (0..10).collect();
        let mut b = Buffer::new(CutGzip(&data));
        assert!(b.fill(4).unwrap());
        assert_eq!(b.gzip_cut(), None);
        assert!(!b.fill(20).unwrap());
        assert_eq!(b.available(), &data[..]);
        assert_eq!(b.gzip_cut(), Some(77));
        assert!(matches!(
            b.short_header("pcap global header", 24),
            Error::GzipTruncated {
                offset: 10,
                compressed_offset: 77
            }
        ));
    }
}
