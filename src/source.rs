//! Opening an input file as a byte stream: gzip or not, detected by magic bytes (never by name).
//!
//! Plain files are read with large `read` calls into the capture layer's fixed buffer rather than
//! memory-mapped: a mapping's touched pages count towards the process's resident set, so mapping
//! a multi-GB day would make peak RSS grow with file size. Gzip'd files are inflated on their own
//! thread (zlib-rs) and handed over in 1 MiB chunks through a bounded channel, so decompression
//! and parsing overlap on two cores while at most a handful of chunks are ever in flight.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::Arc;
use std::thread::{self, JoinHandle};

use flate2::bufread::MultiGzDecoder;

use crate::error::{Error, Result};

/// Size of one inflated chunk handed from the gunzip thread to the parser.
const CHUNK: usize = 1 << 20;
/// Chunks allowed in flight between the threads: bounds memory to about `IN_FLIGHT` MiB.
const IN_FLIGHT: usize = 4;

/// How the file's bytes are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Compression {
    None,
    Gzip,
}

/// An opened input: a reader over the (decompressed) capture bytes.
pub struct Source {
    pub reader: Box<dyn Read + Send>,
    pub compression: Compression,
    /// Size of the file on disk.
    pub file_bytes: u64,
    /// Bytes of the file read so far (compressed bytes for a gzip'd file): for progress.
    pub read: Arc<AtomicU64>,
}

/// Counts the bytes read from the file into a shared counter, for the progress line.
struct Tally<R> {
    inner: R,
    read: Arc<AtomicU64>,
}

impl<R: Read> Read for Tally<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Opens `path`, sniffing the gzip magic `1f 8b`.
pub fn open(path: &Path) -> Result<Source> {
    let meta = std::fs::metadata(path).map_err(open_error)?;
    if meta.is_dir() {
        return Err(Error::IsDirectory);
    }
    let file = File::open(path).map_err(open_error)?;
    let read = Arc::new(AtomicU64::new(0));
    let file = Tally {
        inner: file,
        read: Arc::clone(&read),
    };
    let mut file = BufReader::with_capacity(256 << 10, file);
    let head = file.fill_buf().map_err(Error::Io)?;
    let gzip = head.starts_with(&[0x1f, 0x8b]);
    let (reader, compression): (Box<dyn Read + Send>, _) = if gzip {
        (Box::new(GunzipThread::spawn(file)), Compression::Gzip)
    } else {
        (Box::new(file), Compression::None)
    };
    Ok(Source {
        reader,
        compression,
        file_bytes: meta.len(),
        read,
    })
}

/// Whether the file at `path` starts with gzip's magic bytes (false if it cannot be read).
pub fn is_gzip(path: &Path) -> bool {
    let mut head = [0u8; 2];
    File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok()
        && head == [0x1f, 0x8b]
}

fn open_error(e: io::Error) -> Error {
    match e.kind() {
        io::ErrorKind::NotFound => Error::NotFound,
        _ => Error::Io(e),
    }
}

/// Counts the compressed bytes consumed, so a corrupt stream can say roughly where it broke.
struct Counting<R> {
    inner: R,
    count: u64,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count += n as u64;
        Ok(n)
    }
}

/// A `Read` over chunks inflated by a background thread.
struct GunzipThread {
    chunks: Receiver<Result<Vec<u8>>>,
    recycle: SyncSender<Vec<u8>>,
    current: Vec<u8>,
    pos: usize,
    worker: Option<JoinHandle<()>>,
}

impl GunzipThread {
    fn spawn<R: Read + Send + 'static>(compressed: R) -> GunzipThread {
        let (tx, chunks) = mpsc::sync_channel(IN_FLIGHT);
        let (recycle, spare) = mpsc::sync_channel::<Vec<u8>>(IN_FLIGHT + 2);
        let worker = thread::Builder::new()
            .name("gunzip".into())
            .spawn(move || inflate(compressed, &tx, &spare))
            .ok();
        GunzipThread {
            chunks,
            recycle,
            current: Vec::new(),
            pos: 0,
            worker,
        }
    }
}

/// The gunzip thread: inflate into recycled chunks until the end, an error, or the reader leaves.
fn inflate<R: Read>(compressed: R, tx: &SyncSender<Result<Vec<u8>>>, spare: &Receiver<Vec<u8>>) {
    let counting = Counting {
        inner: compressed,
        count: 0,
    };
    let mut decoder = MultiGzDecoder::new(BufReader::with_capacity(256 << 10, counting));
    let mut produced: u64 = 0;
    loop {
        let mut chunk = spare.try_recv().unwrap_or_default();
        chunk.resize(CHUNK, 0);
        let mut filled = 0;
        let mut done = false;
        while filled < CHUNK {
            match decoder.read(&mut chunk[filled..]) {
                Ok(0) => {
                    done = true;
                    break;
                }
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    let offset = produced + filled as u64;
                    let compressed_offset = decoder.get_ref().get_ref().count;
                    let err = if e.kind() == io::ErrorKind::UnexpectedEof {
                        Error::GzipTruncated {
                            offset,
                            compressed_offset,
                        }
                    } else {
                        Error::Gzip {
                            offset,
                            compressed_offset,
                            message: e.to_string(),
                        }
                    };
                    chunk.truncate(filled);
                    if !chunk.is_empty() && tx.send(Ok(chunk)).is_err() {
                        return;
                    }
                    let _ = tx.send(Err(err));
                    return;
                }
            }
        }
        chunk.truncate(filled);
        produced += filled as u64;
        if !chunk.is_empty() && tx.send(Ok(chunk)).is_err() {
            return; // the parser stopped early
        }
        if done {
            return;
        }
    }
}

impl Read for GunzipThread {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.current.len() {
            match self.chunks.recv() {
                Ok(Ok(next)) => {
                    let used = std::mem::replace(&mut self.current, next);
                    let _ = self.recycle.try_send(used);
                    self.pos = 0;
                }
                Ok(Err(e)) => return Err(io::Error::other(e)),
                Err(_) => return Ok(0), // thread finished: end of stream
            }
        }
        let n = buf.len().min(self.current.len() - self.pos);
        buf[..n].copy_from_slice(&self.current[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

impl Drop for GunzipThread {
    fn drop(&mut self) {
        // Unblock the worker if it is waiting to send, then wait for it so no thread outlives us.
        let (_, dead) = mpsc::sync_channel(0);
        self.chunks = dead;
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::write::GzEncoder;
    use std::io::Write;

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut enc = GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(data).unwrap();
        enc.finish().unwrap()
    }

    #[test]
    fn gunzip_thread_returns_every_byte_across_chunks() {
        let data: Vec<u8> = (0..3 * CHUNK + 17).map(|i| (i * 7 % 251) as u8).collect();
        let mut out = Vec::new();
        GunzipThread::spawn(io::Cursor::new(gzip(&data)))
            .read_to_end(&mut out)
            .unwrap();
        assert_eq!(out, data);
    }

    #[test]
    fn gunzip_thread_reads_concatenated_members() {
        let mut both = gzip(b"first ");
        both.extend(gzip(b"second"));
        let mut out = String::new();
        GunzipThread::spawn(io::Cursor::new(both))
            .read_to_string(&mut out)
            .unwrap();
        assert_eq!(out, "first second");
    }

    #[test]
    fn truncated_gzip_is_reported_as_such() {
        let data = vec![42u8; 100_000];
        let gz = gzip(&data);
        let cut = &gz[..gz.len() / 2];
        let mut out = Vec::new();
        let err = GunzipThread::spawn(io::Cursor::new(cut.to_vec()))
            .read_to_end(&mut out)
            .unwrap_err();
        match Error::from_io(err) {
            Error::GzipTruncated { .. } => {}
            other => panic!("expected GzipTruncated, got {other:?}"),
        }
    }

    #[test]
    fn bad_crc_is_a_gzip_error() {
        let mut gz = gzip(b"hello world, hello world");
        let n = gz.len();
        gz[n - 8] ^= 0xff; // CRC32 in the trailer
        let mut out = Vec::new();
        let err = GunzipThread::spawn(io::Cursor::new(gz))
            .read_to_end(&mut out)
            .unwrap_err();
        assert!(matches!(Error::from_io(err), Error::Gzip { .. }));
    }
}
