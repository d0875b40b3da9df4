//! Synthetic IEX trading day generator: spec-valid DEEP, TOPS or DEEP+ (order by order)
//! captures of any size, without needing a multi-GB download.
//!
//! One [`sim::Simulation`] decides every packet; [`generate`] frames and writes what it decides,
//! [`packets`] hands the same packets out as [`model::Packet`](crate::model::Packet)s, so tests
//! and benches can derive expected values from the generator's own record. Same options and seed
//! give byte-identical output.

pub mod capture;
pub mod day;
pub mod encode;
mod error;
pub mod frame;
pub mod like;
mod options;
pub mod sim;

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::Path;
use std::sync::mpsc;

use crate::model::{Feed, Message, Packet, Timestamp};
use crate::output::atomic::write_file_atomically_with;
use crate::output::direct::BLOCK;
use crate::output::DirectWriter;

pub use capture::CaptureKind;
pub use error::{GenError, Writing};
pub use like::Shape;
pub use options::GenOptions;
pub use sim::Simulation;

/// IEX-TP channel id of the simulated feed.
pub const CHANNEL_ID: u32 = 1;
/// Capture timestamps trail the IEX send time by this wire + capture delay.
pub const CAPTURE_DELAY_NS: i64 = 2_500;
/// Output goes to the writer in chunks of about this size, each ending with a whole record
/// (`Chunking::Records`).
const CHUNK: usize = 256 * 1024;
/// Or of exactly this size, aligned in memory, so that [`crate::output::DirectWriter`] writes
/// each straight from the chunk without a copy ([`Chunking::Blocks`]): 1 MiB, as synchronous
/// direct writes reach the disk's full speed from about that size (docs/BENCHMARKS.md, "`gen
/// --feed deep-plus` at DEEP's speed").
const BLOCKS_CHUNK: usize = 1 << 20;
/// Bytes queued for the writer: 4 MiB, so the simulation keeps going while the writer waits
/// for the disk ([`crate::output::DirectWriter`] writes synchronously).
const IN_FLIGHT_BYTES: usize = 4 << 20;
/// Messages (or segments) per batch from the simulation to the encoder: 1024 messages of 88
/// bytes are about 90 KiB, small enough to pass between the cores' caches; larger batches only
/// take more memory (docs/BENCHMARKS.md, "`gen --feed deep-plus` at DEEP's speed").
const BATCH: usize = 1024;
/// Batches queued for the encoder.
const BATCHES_IN_FLIGHT: usize = 4;

/// What was generated.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct GenReport {
    /// IEX-TP segments, heartbeats included.
    pub packets: u64,
    pub heartbeats: u64,
    pub messages: u64,
    /// Message count per type byte.
    pub by_type: BTreeMap<char, u64>,
    /// Distinct symbols appearing in messages.
    pub symbols: usize,
    /// Capture bytes written, before any gzip.
    pub bytes: u64,
    /// 0 when no packet was written.
    pub first_send_time: Timestamp,
    pub last_send_time: Timestamp,
    pub feed: Feed,
}

/// The generated packets, in order, without writing a capture. Allocates one vector per packet;
/// use [`Simulation::next_into`] directly to reuse one.
pub struct Packets {
    sim: Simulation,
}

impl Iterator for Packets {
    type Item = Packet;

    fn next(&mut self) -> Option<Packet> {
        let mut p = Packet::default();
        self.sim.next_into(&mut p).then_some(p)
    }
}

impl Packets {
    /// Distinct symbols seen in the packets produced so far.
    pub fn distinct_symbols(&self) -> usize {
        self.sim.distinct_symbols()
    }
}

/// The packets [`generate`] would write for `opts`; fails only on invalid options.
pub fn packets(opts: &GenOptions) -> Result<Packets, GenError> {
    Ok(Packets {
        sim: Simulation::new(opts)?,
    })
}

/// Counts kept while writing; message types indexed by their byte so counting is a plain add.
struct Counts {
    packets: u64,
    heartbeats: u64,
    messages: u64,
    by_type: [u64; 256],
    first: Timestamp,
    last: Timestamp,
}

/// Writes the capture for `opts` to `out` (unbuffered writers are fine: output is written in
/// large chunks). Returns what was written.
///
/// Three threads, so a large day runs at the speed of the slowest stage rather than their sum:
/// one simulates the day into batches of messages, a second encodes and frames them into
/// chunks of capture bytes, and this one writes the chunks (and, for a `.gz`
/// output, compresses). The simulation is the slowest stage and cannot be split (every message
/// depends on the random state the previous one left), so everything else is moved off it.
/// Batches and chunks go round between the threads (`BATCHES_IN_FLIGHT`, and
/// `IN_FLIGHT_BYTES` of chunks, at most), so memory stays a few of each. Should a thread not
/// start, the same work is done here, one chunk after the other.
///
/// `out` gets the bytes in chunks of `Chunking::Records`: a compressor's output depends on
/// where its input was cut, and a `.gz` of the same day stays the same file.
pub fn generate<W: Write>(opts: &GenOptions, out: W) -> Result<GenReport, GenError> {
    generate_chunked(opts, None, out, Chunking::Records)
}

/// How [`generate`] cuts the capture into the writes it hands its writer. The bytes are the same
/// either way; a compressor's output is not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Chunking {
    /// Chunks of whole records, each as soon as it reaches [`CHUNK`] bytes, as `gen` always
    /// wrote them (and so the `.gz` files it always made).
    Records,
    /// Chunks of exactly [`BLOCKS_CHUNK`] bytes, cutting records where they fall, block-aligned
    /// in memory: a [`DirectWriter`] writes them without a copy.
    Blocks,
}

impl Chunking {
    fn chunk(self) -> usize {
        match self {
            Chunking::Records => CHUNK,
            Chunking::Blocks => BLOCKS_CHUNK,
        }
    }
}

/// [`generate`], with the chunks cut as `chunking` says.
fn generate_chunked<W: Write>(
    opts: &GenOptions,
    shape: Option<&Shape>,
    mut out: W,
    chunking: Chunking,
) -> Result<GenReport, GenError> {
    let opts = &opts.shaped_by(shape);
    let sim = Simulation::with_shape(opts, shape)?;
    let write_err = |cause| Writing::Capture.failed(cause);
    let mut written: io::Result<()> = Ok(());
    let mut bytes = 0u64;
    let (counts, symbols) = std::thread::scope(|scope| {
        let (batch_tx, batch_rx) = mpsc::sync_channel::<Batch>(BATCHES_IN_FLIGHT);
        let (free_batch_tx, free_batch_rx) = mpsc::channel::<Batch>();
        let simulating =
            std::thread::Builder::new()
                .name("gen".into())
                .spawn_scoped(scope, move || {
                    let mut sim = sim;
                    simulate(&mut sim, |batch| {
                        let mut next = free_batch_rx.try_recv().unwrap_or_else(|_| Batch::new());
                        next.clear();
                        batch_tx.send(std::mem::replace(batch, next)).is_ok()
                    });
                    sim.distinct_symbols()
                });
        let (full_tx, full_rx) = mpsc::sync_channel::<Chunk>(IN_FLIGHT_BYTES / chunking.chunk());
        let (empty_tx, empty_rx) = mpsc::channel::<Chunk>();
        let encoding = simulating.and_then(|simulating| {
            let encoder = std::thread::Builder::new()
                .name("gen-encode".into())
                .spawn_scoped(scope, move || {
                    let mut framer = Framer::new(opts, chunking);
                    let mut emit = |chunk: &mut Chunk| {
                        let mut next = empty_rx.try_recv().unwrap_or_else(|_| Chunk::new());
                        next.clear();
                        full_tx.send(std::mem::replace(chunk, next)).is_ok()
                    };
                    for mut batch in batch_rx.iter() {
                        if !framer.batch(&batch, &mut emit) {
                            // Writing failed: dropping the batches stops the simulation.
                            return framer.counts;
                        }
                        batch.clear();
                        // The simulation may be done already: then the batch is just dropped.
                        let _ = free_batch_tx.send(batch);
                    }
                    framer.finish(&mut emit)
                });
            match encoder {
                Ok(encoder) => Ok((simulating, encoder)),
                Err(e) => {
                    // Its batches' receiver is gone with the closure: the simulation stops.
                    let _ = simulating.join();
                    Err(e)
                }
            }
        });
        match encoding {
            Ok((simulating, encoder)) => {
                (written, bytes) = write_chunks(&full_rx, &empty_tx, &mut out);
                // Stops the encoder at its next chunk, and so the simulation, if writing failed.
                drop(full_rx);
                let counts = encoder
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                let symbols = simulating
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                Ok((counts, symbols))
            }
            Err(_) => {
                // The options were valid a moment ago, and a simulation is a pure function of
                // them: this is the same day.
                let mut sim = Simulation::with_shape(opts, shape)?;
                let counts = encode_day(opts, &mut sim, chunking, |chunk| {
                    written = out.write_all(chunk.data());
                    bytes += chunk.data().len() as u64;
                    chunk.clear();
                    written.is_ok()
                });
                Ok((counts, sim.distinct_symbols()))
            }
        }
    })?;
    written.map_err(write_err)?;
    out.flush().map_err(write_err)?;
    Ok(GenReport::of(&counts, symbols, bytes, opts.feed))
}

/// Writes the encoder's full chunks to `out` as they come, handing each back emptied; what
/// writing gave and how many bytes it wrote. Stops at the first failed write.
fn write_chunks<W: Write>(
    full: &mpsc::Receiver<Chunk>,
    empty: &mpsc::Sender<Chunk>,
    out: &mut W,
) -> (io::Result<()>, u64) {
    let mut bytes = 0u64;
    for mut chunk in full.iter() {
        if let Err(e) = out.write_all(chunk.data()) {
            return (Err(e), bytes);
        }
        bytes += chunk.data().len() as u64;
        chunk.clear();
        // The encoder may be done already: then the chunk is just dropped.
        let _ = empty.send(chunk);
    }
    (Ok(()), bytes)
}

impl GenReport {
    /// The report of a day whose records `c` counted, `bytes` long.
    fn of(c: &Counts, symbols: usize, bytes: u64, feed: Feed) -> GenReport {
        GenReport {
            packets: c.packets,
            heartbeats: c.heartbeats,
            messages: c.messages,
            by_type: (0..=255u8)
                .filter(|&k| c.by_type[k as usize] > 0)
                .map(|k| (k as char, c.by_type[k as usize]))
                .collect(),
            symbols,
            bytes,
            first_send_time: c.first,
            last_send_time: c.last,
            feed,
        }
    }
}

/// Simulated segments on their way to the encoder: the messages of many segments in one
/// vector, so a batch is two allocations, reused, whatever its segments' sizes.
struct Batch {
    messages: Vec<Message>,
    /// Sequence number, send time and message count of each segment, in order.
    segments: Vec<(u64, Timestamp, u32)>,
}

impl Batch {
    fn new() -> Self {
        Batch {
            messages: Vec::with_capacity(BATCH + 1024),
            segments: Vec::with_capacity(BATCH),
        }
    }

    fn clear(&mut self) {
        self.messages.clear();
        self.segments.clear();
    }
}

/// Simulates the whole day into batches of about [`BATCH`] messages; `emit` gets each (and the
/// last, shorter one), must leave it empty for more, and returns `false` to stop early.
fn simulate(sim: &mut Simulation, mut emit: impl FnMut(&mut Batch) -> bool) {
    let mut batch = Batch::new();
    loop {
        let before = batch.messages.len();
        let Some((seq, send_time)) = sim.next_onto(&mut batch.messages) else {
            break;
        };
        let n = (batch.messages.len() - before) as u32;
        batch.segments.push((seq, send_time, n));
        if (batch.messages.len() >= BATCH || batch.segments.len() >= BATCH) && !emit(&mut batch) {
            return;
        }
    }
    if !batch.segments.is_empty() {
        emit(&mut batch);
    }
}

/// Capture bytes on their way to the writer: [`Chunk::data`], which starts on a
/// [`BLOCK`](crate::output::direct::BLOCK) boundary in memory.
struct Chunk {
    /// Padding up to the block boundary, then the data.
    bytes: Vec<u8>,
    /// Where the data starts in `bytes`.
    start: usize,
}

impl Chunk {
    fn new() -> Self {
        // Room for the padding, a full chunk, and the record that crosses its end (a segment
        // is at most 64 KiB). Should a record not fit, the vector grows: the data is then
        // no longer aligned, and is written with a copy, the same bytes either way.
        let mut chunk = Chunk {
            bytes: Vec::with_capacity(BLOCK + BLOCKS_CHUNK + (64 << 10) + 256),
            start: 0,
        };
        chunk.clear();
        chunk
    }

    fn data(&self) -> &[u8] {
        &self.bytes[self.start..]
    }

    fn len(&self) -> usize {
        self.bytes.len() - self.start
    }

    /// Empties the chunk, with the data starting on a block boundary again.
    fn clear(&mut self) {
        self.bytes.clear();
        self.start = self
            .bytes
            .as_ptr()
            .align_offset(BLOCK)
            .min(self.bytes.capacity());
        self.bytes.resize(self.start, 0);
    }
}

/// Cuts chunks as its [`Chunking`] says.
struct Splitter {
    chunking: Chunking,
    /// What is over a [`Chunking::Blocks`] chunk (part of a record), on its way to the next.
    tail: Vec<u8>,
}

impl Splitter {
    fn new(chunking: Chunking) -> Self {
        Splitter {
            chunking,
            tail: Vec::new(),
        }
    }

    /// Hands `emit` the chunk once it is full, after each record; `false` as soon as `emit`
    /// does. For [`Chunking::Blocks`], `emit` gets the first [`BLOCKS_CHUNK`] bytes, and what
    /// is over goes into the empty chunk `emit` leaves.
    fn emit_full(&mut self, chunk: &mut Chunk, emit: &mut impl FnMut(&mut Chunk) -> bool) -> bool {
        let size = self.chunking.chunk();
        if chunk.len() < size {
            return true;
        }
        if self.chunking == Chunking::Records {
            return emit(chunk);
        }
        self.tail.clear();
        self.tail.extend_from_slice(&chunk.data()[size..]);
        chunk.bytes.truncate(chunk.start + size);
        if !emit(chunk) {
            return false;
        }
        chunk.bytes.extend_from_slice(&self.tail);
        true
    }
}

/// Turns segments into capture records (Ethernet, IPv4, UDP, IEX-TP) in chunks, counting as it
/// goes.
struct Framer {
    chunk: Chunk,
    splitter: Splitter,
    capture: CaptureKind,
    headers: frame::Headers,
    header: encode::SegmentHeader,
    ip_id: u16,
    counts: Counts,
}

impl Framer {
    /// A framer whose first chunk holds the file header, cut as `chunking` says.
    fn new(opts: &GenOptions, chunking: Chunking) -> Self {
        let mut chunk = Chunk::new();
        opts.capture.file_header(&mut chunk.bytes);
        Framer {
            chunk,
            splitter: Splitter::new(chunking),
            capture: opts.capture,
            headers: frame::Headers::new(&frame::Endpoints::iex(match opts.feed {
                Feed::Deep => 4,
                Feed::Tops => 8,
                Feed::DeepPlus => 12,
            })),
            header: encode::SegmentHeader {
                version: crate::iex::segment::VERSION,
                protocol_id: opts.feed.protocol_id(),
                channel_id: CHANNEL_ID,
                session_id: opts.session_id(),
                payload_len: 0,
                message_count: 0,
                stream_offset: 0,
                first_seq: 0,
                send_time: 0,
            },
            ip_id: 0,
            counts: Counts {
                packets: 0,
                heartbeats: 0,
                messages: 0,
                by_type: [0; 256],
                first: 0,
                last: 0,
            },
        }
    }

    /// Appends one segment's record, handing `emit` the chunk once it is full
    /// ([`Splitter::emit_full`]); `false` as soon as `emit` does.
    fn segment(
        &mut self,
        seq: u64,
        send_time: Timestamp,
        messages: &[Message],
        emit: &mut impl FnMut(&mut Chunk) -> bool,
    ) -> bool {
        // One pass over the messages (written on the simulation's core) for the payload length
        // and the counts; the encoding's pass finds them in this core's cache.
        let c = &mut self.counts;
        let mut payload = 0;
        for m in messages {
            let k = m.kind();
            c.by_type[usize::from(k)] += 1;
            payload += encode::prefixed_len(k);
        }
        if c.packets == 0 {
            c.first = send_time;
        }
        c.last = send_time;
        c.packets += 1;
        c.heartbeats += u64::from(messages.is_empty());
        c.messages += messages.len() as u64;

        let buf = &mut self.chunk.bytes;
        let rec = self.capture.begin_record(buf);
        let frame_start = self
            .headers
            .begin(self.ip_id, encode::SEGMENT_HEADER_LEN + payload, buf);
        self.header.first_seq = seq;
        self.header.send_time = send_time;
        encode::encode_segment_of(&self.header, messages, payload, buf);
        self.headers.finish_udp(buf, frame_start);
        self.capture
            .end_record(buf, rec, send_time.saturating_add(CAPTURE_DELAY_NS));
        self.header.stream_offset += payload as u64;
        self.ip_id = self.ip_id.wrapping_add(1);
        self.splitter.emit_full(&mut self.chunk, emit)
    }

    /// [`Framer::segment`] for every segment of `batch`.
    fn batch(&mut self, batch: &Batch, emit: &mut impl FnMut(&mut Chunk) -> bool) -> bool {
        let mut at = 0;
        batch.segments.iter().all(|&(seq, send_time, n)| {
            let messages = &batch.messages[at..at + n as usize];
            at += n as usize;
            self.segment(seq, send_time, messages, emit)
        })
    }

    /// Hands `emit` the last, shorter chunk; what was counted.
    fn finish(mut self, emit: &mut impl FnMut(&mut Chunk) -> bool) -> Counts {
        emit(&mut self.chunk);
        self.counts
    }
}

/// Simulates the day and encodes it into capture bytes on this thread alone: file header, then
/// one record per segment. `emit` gets each chunk as `chunking` cuts them (and the last,
/// shorter one), must leave it empty for more, and returns `false` to stop early (writing
/// failed).
fn encode_day(
    opts: &GenOptions,
    sim: &mut Simulation,
    chunking: Chunking,
    mut emit: impl FnMut(&mut Chunk) -> bool,
) -> Counts {
    let mut framer = Framer::new(opts, chunking);
    let mut pkt = Packet::default();
    while sim.next_into(&mut pkt) {
        if !framer.segment(pkt.seq, pkt.send_time, &pkt.messages, &mut emit) {
            return framer.counts;
        }
    }
    framer.finish(&mut emit)
}

/// Generates into `path`, gzip-compressed (level 6) when it ends in `.gz`, written whole or not
/// at all ([`crate::output::write_atomically`]).
pub fn generate_file(opts: &GenOptions, path: &Path) -> Result<GenReport, GenError> {
    generate_file_like(opts, None, path)
}

/// [`generate_file`], the packets drawn from `shape` when there is one (`gen --like`): its feed
/// and symbol count replace `opts`'s.
pub fn generate_file_like(
    opts: &GenOptions,
    shape: Option<&Shape>,
    path: &Path,
) -> Result<GenReport, GenError> {
    let opts = &opts.shaped_by(shape);
    // Reject bad options before touching the file system.
    Simulation::with_shape(opts, shape)?;
    let gz = path.to_string_lossy().ends_with(".gz");
    write_file_atomically_with(
        path,
        |file| {
            // A synthetic day is written once and is often larger than the page cache: straight
            // to the disk, not through the cache (see `DirectWriter`).
            let w = &mut DirectWriter::new(file);
            if gz {
                let mut enc = flate2::write::GzEncoder::new(w, flate2::Compression::new(6));
                let report = generate_chunked(opts, shape, &mut enc, Chunking::Records).map_err(
                    |e| match e {
                        GenError::Write {
                            what: Writing::Capture,
                            cause,
                        } => Writing::GzipEncoder.failed(cause),
                        other => other,
                    },
                )?;
                let finished = enc.finish().and_then(|w| w.flush());
                finished.map_err(|cause| Writing::GzipFinish.failed(cause))?;
                Ok(report)
            } else {
                // `generate` flushes at its end; flushing again is free, and says so here.
                // Chunks of whole blocks: the direct writer writes them without a copy.
                let report = generate_chunked(opts, shape, &mut *w, Chunking::Blocks)?;
                w.flush().map_err(|cause| Writing::Capture.failed(cause))?;
                Ok(report)
            }
        },
        |step, cause| Writing::File(step).failed(cause),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_packets_is_just_the_file_header() {
        for (capture, len) in [(CaptureKind::Pcapng, 60), (CaptureKind::Pcap, 24)] {
            let opts = GenOptions {
                packets: 0,
                capture,
                ..GenOptions::default()
            };
            let mut v = Vec::new();
            let r = generate(&opts, &mut v).unwrap();
            assert_eq!(v.len(), len);
            assert_eq!(r.bytes, len as u64);
            assert_eq!((r.packets, r.messages, r.symbols), (0, 0, 0));
            assert_eq!(r.first_send_time, 0);
        }
    }

    #[test]
    fn the_writer_thread_writes_what_one_thread_would() {
        for (feed, chunking) in Feed::ALL
            .into_iter()
            .flat_map(|f| [(f, Chunking::Records), (f, Chunking::Blocks)])
        {
            // ~10 MB: dozens of chunks (ten of the larger ones) and sixty batches, more than are
            // ever in flight, so both go round between the threads.
            let opts = GenOptions {
                feed,
                packets: 50_000,
                ..GenOptions::default()
            };
            let mut threaded = Vec::new();
            let report = generate_chunked(&opts, None, &mut threaded, chunking).unwrap();
            let mut single = Vec::new();
            let mut sizes = Vec::new();
            let mut sim = Simulation::new(&opts).unwrap();
            let counts = encode_day(&opts, &mut sim, chunking, |chunk| {
                single.extend_from_slice(chunk.data());
                sizes.push(chunk.len());
                chunk.clear();
                true
            });
            assert!(
                single.len() > 8 * BLOCKS_CHUNK,
                "{feed}: {} bytes",
                single.len()
            );
            assert!(threaded == single, "{feed} {chunking:?}: the bytes differ");
            assert_eq!(report.bytes, single.len() as u64);
            assert_eq!(report.packets, counts.packets);
            assert_eq!(report.symbols, sim.distinct_symbols());
            let last = sizes.pop().unwrap();
            match chunking {
                Chunking::Records => assert!(sizes.iter().all(|&n| n >= CHUNK)),
                Chunking::Blocks => assert!(sizes.iter().all(|&n| n == BLOCKS_CHUNK)),
            }
            assert!(last > 0);
        }
    }

    /// A writer that fails every write.
    struct Full;

    impl Write for Full {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::new(io::ErrorKind::StorageFull, "disk full"))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_failing_writer_is_a_write_error_naming_the_capture() {
        let e = generate(&GenOptions::default(), Full).unwrap_err();
        assert!(
            matches!(
                &e,
                GenError::Write { what: Writing::Capture, cause }
                    if cause.kind() == io::ErrorKind::StorageFull
            ),
            "{e:?}"
        );
        assert_eq!(e.to_string(), "writing the capture: disk full");
    }
}
