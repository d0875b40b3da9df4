//! Size as stored: each window's encoded bytes compressed with zstd (level 3) and zlib (level 6),
//! outside the timed per-packet regions.
//!
//! Compressing is the slowest part of a long run (zlib -6 above all), so by default only a
//! deterministic sample of windows is compressed ([`StoredMode::Sample`]): the first
//! [`SAMPLE_HEAD`] windows (a small input is then compressed whole), then one window in
//! [`SAMPLE_STRIDE`], spread over the whole day. The estimate keeps the two apart: the head
//! counts as itself, and the strided windows' compression ratio is applied to the encoded bytes
//! of every window after the head (a ratio estimator: the start-of-day burst, which compresses
//! unlike the rest of the day, is not weighted as if it were one window in sixteen).
//!
//! A window (4096 packets by default) is compressed as one unit, which is how such data is
//! stored: in blocks or files of many packets, never packet by packet (a single packet is too
//! small for either compressor to find repetition in; per-packet figures would mostly measure
//! frame overhead). Both compressors are created once and reused, their state reset between
//! windows, and their output goes to one reused buffer, so measuring allocates nothing per window
//! once the buffer has grown. Only the sizes are kept; the compressed bytes are discarded.

use std::io;
use std::time::Instant;

use flate2::{Compress, Compression, FlushCompress, Status};

/// zstd level: 3 is zstd's default, the usual choice for storage.
pub const ZSTD_LEVEL: i32 = 3;
/// zlib level: 6 is zlib's default.
pub const ZLIB_LEVEL: u32 = 6;

/// Windows always compressed in `sample` mode: the whole of a small input.
pub const SAMPLE_HEAD: u64 = 16;
/// After the head, one window in this many is compressed in `sample` mode.
pub const SAMPLE_STRIDE: u64 = 16;

/// Which windows are compressed for the size as stored (`--stored-size`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum StoredMode {
    /// The head and one window in [`SAMPLE_STRIDE`]; the rest estimated from them.
    #[default]
    Sample,
    /// Every window: exact, and the slowest part of a long run.
    All,
    /// None: the size columns stay empty.
    None,
}

impl StoredMode {
    /// The name in the CSV's `stored_mode` column and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            StoredMode::Sample => "sample",
            StoredMode::All => "all",
            StoredMode::None => "none",
        }
    }

    /// Whether window `index` (0-based) is compressed.
    pub fn compresses(self, index: u64) -> bool {
        match self {
            StoredMode::Sample => in_sample(index),
            StoredMode::All => true,
            StoredMode::None => false,
        }
    }
}

fn in_sample(index: u64) -> bool {
    index < SAMPLE_HEAD || (index - SAMPLE_HEAD).is_multiple_of(SAMPLE_STRIDE)
}

/// Encoded and compressed bytes of a set of windows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Sums {
    encoded: u64,
    zstd: u64,
    zlib: u64,
}

impl Sums {
    fn add(&mut self, encoded: u64, s: &StoredSize) {
        self.encoded += encoded;
        self.zstd += s.zstd_bytes;
        self.zlib += s.zlib_bytes;
    }
}

/// One format's windows, as compressed: the size as stored, exact or estimated.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StoredTally {
    /// Windows before [`SAMPLE_HEAD`].
    head: Sums,
    /// Sampled windows after the head.
    strided: Sums,
    /// Windows after the head outside the sample (compressed in `all` mode only).
    others: Sums,
    /// Encoded bytes of every window after the head, compressed or not.
    rest_encoded: u64,
    /// Time zstd took, over the windows compressed.
    pub zstd_ns: u64,
}

/// An estimate of the size as stored: bytes after zstd and zlib.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Estimate {
    pub zstd_bytes: u64,
    pub zlib_bytes: u64,
}

impl StoredTally {
    /// Window `index` encoded to `encoded` bytes, and what compressing it gave if it was.
    pub fn add(&mut self, index: u64, encoded: u64, stored: Option<&StoredSize>) {
        if index >= SAMPLE_HEAD {
            self.rest_encoded += encoded;
        }
        let Some(s) = stored else { return };
        self.zstd_ns += s.zstd_ns;
        if index < SAMPLE_HEAD {
            self.head.add(encoded, s);
        } else if in_sample(index) {
            self.strided.add(encoded, s);
        } else {
            self.others.add(encoded, s);
        }
    }

    /// Encoded bytes that were compressed: what the size as stored rests on.
    pub fn compressed_bytes(&self) -> u64 {
        self.head.encoded + self.strided.encoded + self.others.encoded
    }

    /// Every compressed window summed: exact when every window was compressed.
    pub fn exact(&self) -> Estimate {
        Estimate {
            zstd_bytes: self.head.zstd + self.strided.zstd + self.others.zstd,
            zlib_bytes: self.head.zlib + self.strided.zlib + self.others.zlib,
        }
    }

    /// What the sample gives: the head as itself, the strided windows' ratio applied to every
    /// window after the head.
    pub fn sampled(&self) -> Estimate {
        let scale = |compressed: u64| -> u64 {
            if self.strided.encoded == 0 {
                return 0;
            }
            let ratio = compressed as f64 / self.strided.encoded as f64;
            (ratio * self.rest_encoded as f64).round() as u64
        };
        Estimate {
            zstd_bytes: self.head.zstd + scale(self.strided.zstd),
            zlib_bytes: self.head.zlib + scale(self.strided.zlib),
        }
    }

    /// The size as stored under `mode`.
    pub fn estimate(&self, mode: StoredMode) -> Option<Estimate> {
        match mode {
            StoredMode::Sample => Some(self.sampled()),
            StoredMode::All => Some(self.exact()),
            StoredMode::None => None,
        }
    }
}

/// What compressing one window gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoredSize {
    pub zstd_bytes: u64,
    pub zlib_bytes: u64,
    /// Wall time of the zstd compression.
    pub zstd_ns: u64,
}

/// The reused compressors.
pub struct Compressors {
    zstd: zstd::bulk::Compressor<'static>,
    zlib: Compress,
    out: Vec<u8>,
}

/// zlib's output goes through `out` in chunks of at most this many bytes.
const ZLIB_CHUNK: usize = 256 * 1024;

impl Compressors {
    pub fn new() -> io::Result<Compressors> {
        Ok(Compressors {
            zstd: zstd::bulk::Compressor::new(ZSTD_LEVEL)?,
            zlib: Compress::new(Compression::new(ZLIB_LEVEL), true),
            out: Vec::new(),
        })
    }

    /// Compresses `bytes` with both and returns the sizes (zlib with its header and checksum,
    /// zstd as one frame).
    pub fn measure(&mut self, bytes: &[u8]) -> io::Result<StoredSize> {
        self.out.clear();
        self.out
            .reserve(zstd::zstd_safe::compress_bound(bytes.len()));
        let start = Instant::now();
        let zstd_bytes = self.zstd.compress_to_buffer(bytes, &mut self.out)?;
        let zstd_ns = start.elapsed().as_nanos() as u64;

        self.zlib.reset();
        loop {
            self.out.clear();
            self.out.reserve(ZLIB_CHUNK);
            let consumed = self.zlib.total_in() as usize;
            let before = self.zlib.total_out();
            let status = self
                .zlib
                .compress_vec(&bytes[consumed..], &mut self.out, FlushCompress::Finish)
                .map_err(io::Error::other)?;
            match status {
                Status::StreamEnd => break,
                Status::Ok => {}
                Status::BufError if self.zlib.total_out() > before => {}
                Status::BufError => return Err(io::Error::other("zlib made no progress")),
            }
        }
        Ok(StoredSize {
            zstd_bytes: zstd_bytes as u64,
            zlib_bytes: self.zlib.total_out(),
            zstd_ns,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn size(zstd: u64, zlib: u64) -> StoredSize {
        StoredSize {
            zstd_bytes: zstd,
            zlib_bytes: zlib,
            zstd_ns: 1,
        }
    }

    #[test]
    fn the_sample_is_the_head_then_one_window_in_sixteen() {
        let picked: Vec<u64> = (0..60)
            .filter(|&i| StoredMode::Sample.compresses(i))
            .collect();
        let mut expected: Vec<u64> = (0..16).collect();
        expected.extend([16, 32, 48]);
        assert_eq!(picked, expected);
        assert!((0..60).all(|i| StoredMode::All.compresses(i)));
        assert!(!(0..60).any(|i| StoredMode::None.compresses(i)));
    }

    #[test]
    fn the_estimate_scales_the_strided_ratio_to_the_rest_and_keeps_the_head_exact() {
        let mut t = StoredTally::default();
        // Head: windows of 1000 bytes that compress 10:1 (the start-of-day burst).
        for i in 0..SAMPLE_HEAD {
            t.add(i, 1000, Some(&size(100, 120)));
        }
        // The rest: 32 windows of 2000 bytes at 4:1, of which two are in the sample.
        for i in SAMPLE_HEAD..SAMPLE_HEAD + 32 {
            let s = size(500, 600);
            t.add(i, 2000, StoredMode::Sample.compresses(i).then_some(&s));
        }
        assert_eq!(t.compressed_bytes(), SAMPLE_HEAD * 1000 + 2 * 2000);
        let e = t.estimate(StoredMode::Sample).unwrap();
        assert_eq!(e.zstd_bytes, SAMPLE_HEAD * 100 + 32 * 500);
        assert_eq!(e.zlib_bytes, SAMPLE_HEAD * 120 + 32 * 600);
        assert_eq!(t.estimate(StoredMode::None), None);
    }

    #[test]
    fn compressing_everything_is_exact_and_still_gives_the_sample_estimate() {
        let mut t = StoredTally::default();
        for i in 0..40 {
            // Windows outside the sample compress worse: the sample cannot know.
            let s = if StoredMode::Sample.compresses(i) {
                size(250, 300)
            } else {
                size(500, 600)
            };
            t.add(i, 1000, Some(&s));
        }
        let exact = t.estimate(StoredMode::All).unwrap();
        assert_eq!(
            exact.zstd_bytes,
            (SAMPLE_HEAD + 2) * 250 + (38 - SAMPLE_HEAD) * 500
        );
        assert_eq!(t.sampled().zstd_bytes, 40 * 250);
        assert_eq!(t.compressed_bytes(), 40 * 1000);
    }

    #[test]
    fn sizes_match_one_shot_compression_and_reuse_gives_the_same() {
        let data: Vec<u8> = (0..300_000u32)
            .flat_map(|i| (i % 1000).to_le_bytes())
            .collect();
        let mut c = Compressors::new().unwrap();
        let first = c.measure(&data).unwrap();
        let zstd = zstd::bulk::compress(&data, ZSTD_LEVEL).unwrap();
        assert_eq!(first.zstd_bytes, zstd.len() as u64);
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), Compression::new(ZLIB_LEVEL));
        io::Write::write_all(&mut z, &data).unwrap();
        assert_eq!(first.zlib_bytes, z.finish().unwrap().len() as u64);
        assert!(first.zstd_bytes < data.len() as u64 / 4);
        let again = c.measure(&data).unwrap();
        assert_eq!(
            (again.zstd_bytes, again.zlib_bytes),
            (first.zstd_bytes, first.zlib_bytes)
        );
        let empty = c.measure(&[]).unwrap();
        assert!(empty.zstd_bytes > 0 && empty.zlib_bytes > 0);
    }
}
