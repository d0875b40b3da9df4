//! Opening an input file as a byte stream: gzip or not, detected by magic bytes (never by name).
//!
//! Plain files are read with large `read` calls into the capture layer's fixed buffer rather than
//! memory-mapped: a mapping's touched pages count towards the process's resident set, so mapping
//! a multi-GB day would make peak RSS grow with file size. Gzip'd files are inflated on their own
//! thread (zlib-rs) and handed over in 1 MiB chunks through a bounded channel, so decompression
//! and parsing overlap on two cores while at most a handful of chunks are ever in flight.
//!
//! The gunzip thread passes a [`Gate`] between pieces of 64 KiB (`PIECE`): the measuring loop
//! closes it while a window's passes are timed, so no decompression runs then (under `taskset
//! -c 1` the thread would share the measuring CPU and land inside timed passes), and opens it
//! for the parse and the untimed work. With `SHOOTOUT_UNGATED_GUNZIP` set in the environment the
//! file gets no gate (the thread inflates whenever it has room), which is how what the gate
//! costs in wall time is measured.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::{self, JoinHandle};

use flate2::bufread::MultiGzDecoder;

use crate::error::{Error, Result};

/// Size of one inflated chunk handed from the gunzip thread to the parser.
const CHUNK: usize = 1 << 20;
/// Chunks allowed in flight between the threads: bounds memory to about `IN_FLIGHT` MiB.
const IN_FLIGHT: usize = 4;
/// Bytes inflated between two looks at the [`Gate`]: closing it waits for at most this much
/// inflating (tens of microseconds).
const PIECE: usize = 64 << 10;

/// Holds the gunzip thread between pieces while it is closed. [`Gate::close`] returns once the
/// thread is not inflating (it then waits at its next look, or for room in the channel), so no
/// decompression runs until [`Gate::open`].
#[derive(Debug, Default)]
pub struct Gate {
    state: Mutex<GateState>,
    changed: Condvar,
}

#[derive(Debug, Default)]
struct GateState {
    closed: bool,
    /// The gunzip thread is inflating a piece.
    busy: bool,
}

impl Gate {
    /// Stops the gunzip thread at its next look and waits until it is not inflating.
    pub fn close(&self) {
        let mut state = self.lock();
        state.closed = true;
        let busy = self.changed.wait_while(state, |s| s.busy);
        drop(busy.unwrap_or_else(PoisonError::into_inner));
    }

    /// Lets the gunzip thread go on.
    pub fn open(&self) {
        self.lock().closed = false;
        self.changed.notify_all();
    }

    /// The gunzip thread, before a piece: waits while the gate is closed.
    fn enter(&self) {
        let closed = self.changed.wait_while(self.lock(), |s| s.closed);
        closed.unwrap_or_else(PoisonError::into_inner).busy = true;
    }

    /// The gunzip thread, after a piece.
    fn leave(&self) {
        self.lock().busy = false;
        self.changed.notify_all();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, GateState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

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
    /// The gunzip thread's gate, for a gzip'd file.
    pub gate: Option<Arc<Gate>>,
}

/// Counts the bytes read into a shared counter: the file's (or a region's of it) for the
/// progress line, the compressed stream's so a corrupt one can say roughly where it broke.
pub(crate) struct Tally<R> {
    pub inner: R,
    pub read: Arc<AtomicU64>,
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
    let ungated = std::env::var_os("SHOOTOUT_UNGATED_GUNZIP").is_some();
    let gate = (gzip && !ungated).then(|| Arc::new(Gate::default()));
    let (reader, compression): (Box<dyn Read + Send>, _) = if gzip {
        // Without a gate of the measuring loop's, one nobody closes.
        let thread_gate = gate.clone().unwrap_or_default();
        (
            Box::new(GunzipThread::spawn(file, thread_gate)),
            Compression::Gzip,
        )
    } else {
        (Box::new(file), Compression::None)
    };
    Ok(Source {
        reader,
        compression,
        file_bytes: meta.len(),
        read,
        gate,
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

/// A `Read` over chunks inflated by a background thread.
struct GunzipThread {
    chunks: Receiver<Result<Vec<u8>>>,
    recycle: SyncSender<Vec<u8>>,
    current: Vec<u8>,
    pos: usize,
    worker: Option<JoinHandle<()>>,
    gate: Arc<Gate>,
    /// Bytes inflated so far (the tests watch the gate with it).
    #[cfg_attr(not(test), allow(dead_code))]
    inflated: Arc<AtomicU64>,
}

impl GunzipThread {
    fn spawn<R: Read + Send + 'static>(compressed: R, gate: Arc<Gate>) -> GunzipThread {
        let (tx, chunks) = mpsc::sync_channel(IN_FLIGHT);
        let (recycle, spare) = mpsc::sync_channel::<Vec<u8>>(IN_FLIGHT + 2);
        let inflated = Arc::new(AtomicU64::new(0));
        let inflater = Inflater {
            tx,
            spare,
            gate: Arc::clone(&gate),
            inflated: Arc::clone(&inflated),
        };
        let worker = thread::Builder::new()
            .name("gunzip".into())
            .spawn(move || inflate(compressed, &inflater))
            .ok();
        GunzipThread {
            chunks,
            recycle,
            current: Vec::new(),
            pos: 0,
            worker,
            gate,
            inflated,
        }
    }
}

/// The gunzip thread's ends: where it sends chunks, gets spent ones back, and its gate.
struct Inflater {
    tx: SyncSender<Result<Vec<u8>>>,
    spare: Receiver<Vec<u8>>,
    gate: Arc<Gate>,
    inflated: Arc<AtomicU64>,
}

impl Inflater {
    /// One piece of at most [`PIECE`] bytes into `buf`, between the gate's looks.
    fn piece<D: Read>(&self, decoder: &mut D, buf: &mut [u8]) -> io::Result<usize> {
        let end = buf.len().min(PIECE);
        self.gate.enter();
        let n = decoder.read(&mut buf[..end]);
        self.gate.leave();
        if let Ok(n) = n {
            self.inflated.fetch_add(n as u64, Ordering::Relaxed);
        }
        n
    }
}

/// The gunzip thread: inflate into recycled chunks until the end, an error, or the reader leaves.
fn inflate<R: Read>(compressed: R, ends: &Inflater) {
    let (tx, spare) = (&ends.tx, &ends.spare);
    let counting = Tally {
        inner: compressed,
        read: Arc::default(),
    };
    let mut decoder = MultiGzDecoder::new(BufReader::with_capacity(256 << 10, counting));
    let mut produced: u64 = 0;
    loop {
        let mut chunk = spare.try_recv().unwrap_or_default();
        chunk.resize(CHUNK, 0);
        let mut filled = 0;
        // `Some` once the stream has ended: with the error it ended in, if any.
        let mut end = None;
        while filled < CHUNK && end.is_none() {
            match ends.piece(&mut decoder, &mut chunk[filled..]) {
                Ok(0) => end = Some(None),
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    let offset = produced + filled as u64;
                    let compressed_offset =
                        decoder.get_ref().get_ref().read.load(Ordering::Relaxed);
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
                    end = Some(Some(err));
                }
            }
        }
        chunk.truncate(filled);
        produced += filled as u64;
        if !chunk.is_empty() && tx.send(Ok(chunk)).is_err() {
            return; // the parser stopped early
        }
        if let Some(end) = end {
            if let Some(err) = end {
                let _ = tx.send(Err(err));
            }
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
        self.gate.open();
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
    fn gunzip_thread_reads_concatenated_members() {
        let mut both = gzip(b"first ");
        both.extend(gzip(b"second"));
        let mut out = String::new();
        GunzipThread::spawn(io::Cursor::new(both), Arc::default())
            .read_to_string(&mut out)
            .unwrap();
        assert_eq!(out, "first second");
    }

    #[test]
    fn a_closed_gate_holds_the_inflater_still_and_opening_it_lets_it_finish() {
        let data: Vec<u8> = (0..6 * CHUNK).map(|i| (i * 7 % 251) as u8).collect();
        let gate = Arc::new(Gate::default());
        gate.close();
        let mut reader = GunzipThread::spawn(io::Cursor::new(gzip(&data)), Arc::clone(&gate));
        // Open, it would have inflated the channel full (more than 4 MiB) by now.
        std::thread::sleep(std::time::Duration::from_millis(200));
        assert_eq!(reader.inflated.load(Ordering::Relaxed), 0);
        gate.open();
        let mut first = vec![0u8; CHUNK];
        reader.read_exact(&mut first).unwrap();
        // Closed again mid-stream: once `close` returns, not a byte more is inflated.
        gate.close();
        let held = reader.inflated.load(Ordering::Relaxed);
        std::thread::sleep(std::time::Duration::from_millis(200));
        assert_eq!(reader.inflated.load(Ordering::Relaxed), held);
        assert!(held >= CHUNK as u64);
        gate.open();
        let mut rest = Vec::new();
        reader.read_to_end(&mut rest).unwrap();
        first.extend(rest);
        assert_eq!(first, data);
        assert_eq!(reader.inflated.load(Ordering::Relaxed), data.len() as u64);
    }

    #[test]
    fn dropping_the_reader_with_the_gate_closed_ends_the_thread() {
        let data = vec![7u8; 3 * CHUNK];
        let gate = Arc::new(Gate::default());
        gate.close();
        let reader = GunzipThread::spawn(io::Cursor::new(gzip(&data)), Arc::clone(&gate));
        drop(reader);
        // The drop opened the gate and joined the thread: nothing waits on it any more.
        assert!(!gate.lock().closed);
    }
}
