//! Size as stored: each window's encoded bytes compressed with zstd (level 3) and zlib (level 6),
//! outside the timed per-packet regions.
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
