//! Size as stored: each window's encoded bytes compressed with zstd (level 3) and zlib (level 6),
//! outside the timed per-packet regions.
//!
//! Compressing is the slowest part of a long run (zlib -6 above all), so by default only a
//! deterministic sample of windows is compressed ([`StoredMode::Sample`]): the first
//! [`SAMPLE_HEAD`] windows of the input's first chunk, then about one window in
//! [`SAMPLE_STRIDE`] (a hash of the window's place, `WindowId::one_in`), spread over the whole
//! day; the same windows however the input is split into shares. The estimate keeps the two apart: the head
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

use super::window::WindowId;

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

    /// Whether window `id` is compressed.
    pub fn compresses(self, id: WindowId) -> bool {
        match self {
            StoredMode::Sample => in_sample(id),
            StoredMode::All => true,
            StoredMode::None => false,
        }
    }
}

fn in_sample(id: WindowId) -> bool {
    in_head(id) || id.one_in(SAMPLE_STRIDE)
}

/// The head: the first [`SAMPLE_HEAD`] windows of the input's first chunk.
fn in_head(id: WindowId) -> bool {
    id.chunk == 0 && id.local < SAMPLE_HEAD
}

/// Encoded and compressed bytes of a set of windows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Sums {
    encoded: u64,
    zstd: u64,
    zlib: u64,
}

impl Sums {
    fn add(&mut self, encoded: u64, zstd: u64, zlib: u64) {
        self.encoded += encoded;
        self.zstd += zstd;
        self.zlib += zlib;
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
    /// Adds another share's windows (see `measure::merge`).
    pub fn absorb(&mut self, other: &StoredTally) {
        for (a, b) in [
            (&mut self.head, &other.head),
            (&mut self.strided, &other.strided),
            (&mut self.others, &other.others),
        ] {
            a.add(b.encoded, b.zstd, b.zlib);
        }
        self.rest_encoded += other.rest_encoded;
        self.zstd_ns += other.zstd_ns;
    }

    /// Window `id` encoded to `encoded` bytes, and what compressing it gave if it was.
    pub fn add(&mut self, id: WindowId, encoded: u64, stored: Option<&StoredSize>) {
        if !in_head(id) {
            self.rest_encoded += encoded;
        }
        let Some(s) = stored else { return };
        self.zstd_ns += s.zstd_ns;
        let sums = if in_head(id) {
            &mut self.head
        } else if in_sample(id) {
            &mut self.strided
        } else {
            &mut self.others
        };
        sums.add(encoded, s.zstd_bytes, s.zlib_bytes);
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

    /// Window `i` of chunk 0, then of chunk 1, ...: 10 windows a chunk.
    fn id(i: u64) -> WindowId {
        WindowId {
            chunk: i / 10,
            local: i % 10,
        }
    }

    fn head(i: u64) -> WindowId {
        WindowId { chunk: 0, local: i }
    }

    #[test]
    fn the_sample_is_the_first_chunks_head_then_about_one_window_in_sixteen() {
        assert!((0..SAMPLE_HEAD).all(|i| StoredMode::Sample.compresses(head(i))));
        // After the head, the hash picks about one in sixteen: 10,000 windows in 1,000 chunks.
        let picked = (10..10_010)
            .filter(|&i| StoredMode::Sample.compresses(id(i)))
            .count();
        assert!((500..760).contains(&picked), "{picked}");
        assert!((0..60).all(|i| StoredMode::All.compresses(id(i))));
        assert!(!(0..60).any(|i| StoredMode::None.compresses(id(i))));
    }

    #[test]
    fn the_estimate_scales_the_strided_ratio_to_the_rest_and_keeps_the_head_exact() {
        let mut t = StoredTally::default();
        // Head: windows of 1000 bytes that compress 10:1 (the start-of-day burst).
        for i in 0..SAMPLE_HEAD {
            t.add(head(i), 1000, Some(&size(100, 120)));
        }
        // The rest: 320 windows of 2000 bytes at 4:1, of which some are in the sample.
        let rest: Vec<WindowId> = (20..340).map(id).collect();
        let sampled = rest
            .iter()
            .filter(|&&w| StoredMode::Sample.compresses(w))
            .count() as u64;
        assert!(sampled > 0);
        for &w in &rest {
            let s = size(500, 600);
            t.add(w, 2000, StoredMode::Sample.compresses(w).then_some(&s));
        }
        assert_eq!(t.compressed_bytes(), SAMPLE_HEAD * 1000 + sampled * 2000);
        let e = t.estimate(StoredMode::Sample).unwrap();
        assert_eq!(e.zstd_bytes, SAMPLE_HEAD * 100 + 320 * 500);
        assert_eq!(e.zlib_bytes, SAMPLE_HEAD * 120 + 320 * 600);
        assert_eq!(t.estimate(StoredMode::None), None);
        // Compressing everything is exact and still gives the sample estimate.
        let mut t = StoredTally::default();
        let windows: Vec<WindowId> = (0..SAMPLE_HEAD).map(head).chain((20..60).map(id)).collect();
        let in_sample = windows
            .iter()
            .filter(|&&w| StoredMode::Sample.compresses(w))
            .count() as u64;
        for &w in &windows {
            // Windows outside the sample compress worse: the sample cannot know.
            let s = if StoredMode::Sample.compresses(w) {
                size(250, 300)
            } else {
                size(500, 600)
            };
            t.add(w, 1000, Some(&s));
        }
        let n = windows.len() as u64;
        let exact = t.estimate(StoredMode::All).unwrap();
        assert_eq!(exact.zstd_bytes, in_sample * 250 + (n - in_sample) * 500);
        assert_eq!(t.sampled().zstd_bytes, n * 250);
        assert_eq!(t.compressed_bytes(), n * 1000);
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
