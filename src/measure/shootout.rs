//! The shootout loop: parse once, feed identical windows of packets to every format, time each
//! packet's serialize and deserialize, then check everything outside the timed regions.

use std::io::Read;
use std::time::Instant;

use crate::error::Error;
use crate::formats::{self, aggregate::visit_packet, Aggregate, DecodeError, PacketStat, Runner};
use crate::model::Packet;
use crate::stream::IexReader;

use super::clock::Timer;
use super::floor::MemcpyFloor;
use super::stats::{FormatResult, SideStats};
use super::stored::Compressors;
use super::verify;
use super::window::Window;

/// Packets per window: large enough that switching formats is rare, small enough that every
/// format's buffer stays in a few hundred KB whatever the file size.
pub const DEFAULT_WINDOW: usize = 4096;

#[derive(Debug, Clone)]
pub struct Config {
    /// Format names to run, in registry order; `None` for all.
    pub formats: Option<Vec<String>>,
    /// Decode every packet back into the model and compare field by field.
    pub verify: bool,
    /// Packets run through every format before times are recorded.
    pub warmup: u64,
    pub window: usize,
    /// Compress every window (zstd, zlib) for the size as stored. It is the slowest part of a
    /// run (zlib -6 especially), untimed per packet; off, the size columns stay empty.
    pub stored_size: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            formats: None,
            verify: false,
            warmup: 0,
            window: DEFAULT_WINDOW,
            stored_size: true,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Input(#[from] Error),
    #[error("unknown format {name:?}; known: {known}")]
    UnknownFormat { name: String, known: String },
    #[error("{format}: cannot decode packet {packet} (seq {seq}): {cause}")]
    Decode {
        format: &'static str,
        packet: u64,
        seq: u64,
        cause: DecodeError,
    },
    #[error("{format}: packet {packet} (seq {seq}) decodes differently from the source: {field} should be {expected}, is {got}")]
    Mismatch {
        format: &'static str,
        packet: u64,
        seq: u64,
        field: String,
        expected: String,
        got: String,
    },
    #[error("{format}: {what}")]
    Disagree { format: &'static str, what: String },
    #[error("compressing for size as stored: {0}")]
    Compress(std::io::Error),
}

impl From<std::io::Error> for RunError {
    fn from(e: std::io::Error) -> Self {
        RunError::Compress(e)
    }
}

/// What a run measured.
pub struct Outcome {
    pub formats: Vec<FormatResult>,
    /// The aggregation computed straight from the parsed packets, which every format must match.
    pub reference: Aggregate,
    pub packets: u64,
    pub messages: u64,
    /// Messages of unknown type in the input (carried by no format).
    pub unknown: u64,
    pub feed: Option<&'static str>,
    pub timer_overhead_ns: f64,
    /// Capture bytes parsed.
    pub capture_bytes: u64,
    pub wall_ns: u64,
    /// Time spent reading and parsing the input into windows.
    pub parse_ns: u64,
    /// Time inside the timed serialize and deserialize regions.
    pub timed_ns: u64,
    /// Time spent compressing windows for the size as stored (zstd and zlib, untimed per packet).
    pub compress_ns: u64,
    /// Whether the size as stored was measured (`Config::stored_size`).
    pub stored_size: bool,
    /// Time spent decoding every packet back and comparing it (`--verify`), untimed.
    pub verify_ns: u64,
    /// The memcpy floor: `raw`'s bytes copied packet by packet in the same timed loop
    /// (see [`super::floor`]).
    pub memcpy: SideStats,
}

impl Outcome {
    /// Share of the wall time spent parsing or inside timed regions: the rest is the harness.
    /// Wall time spent measuring latency: without the compression for the size as stored and
    /// the `--verify` comparisons, which are measurements and checks of their own (reported
    /// separately), not harness overhead.
    pub fn measuring_ns(&self) -> u64 {
        self.wall_ns
            .saturating_sub(self.compress_ns)
            .saturating_sub(self.verify_ns)
    }

    /// Share of the latency-measuring time spent parsing or inside timed regions: the rest is
    /// the harness.
    pub fn timed_share(&self) -> f64 {
        super::stats::ratio(
            (self.parse_ns + self.timed_ns) as f64,
            self.measuring_ns() as f64,
        )
    }
}

/// Picks the runners named in `config`, in registry order.
pub fn select(config: &Config) -> Result<Vec<Box<dyn Runner>>, RunError> {
    let all = formats::registry();
    let Some(wanted) = &config.formats else {
        return Ok(all);
    };
    let known: Vec<&str> = all.iter().map(|r| r.name()).collect();
    if let Some(bad) = wanted.iter().find(|w| !known.contains(&w.as_str())) {
        return Err(RunError::UnknownFormat {
            name: bad.clone(),
            known: known.join(", "),
        });
    }
    Ok(all
        .into_iter()
        .filter(|r| wanted.iter().any(|w| w == r.name()))
        .collect())
}

/// Runs the shootout over every packet `reader` yields. `progress` is called after each window
/// with the capture bytes consumed so far.
pub fn run<R: Read>(
    mut reader: IexReader<R>,
    config: &Config,
    mut progress: impl FnMut(u64),
) -> Result<Outcome, RunError> {
    let mut runners = select(config)?;
    let timer = Timer::calibrate();
    let started = Instant::now();
    let mut results: Vec<FormatResult> = runners
        .iter()
        .map(|r| FormatResult::new(r.name()))
        .collect();
    let mut reference = Aggregate::new();
    let mut window = Window::default();
    let mut stats: Vec<PacketStat> = Vec::with_capacity(config.window);
    let mut decoded: Vec<Packet> = Vec::new();
    let (mut packets, mut messages, mut parse_ns, mut timed_ns) = (0u64, 0u64, 0u64, 0u64);
    let mut rotation = 0;
    let mut compressors = Compressors::new()?;
    let mut compress_ns = 0u64;
    let mut verify_ns = 0u64;
    let mut floor = MemcpyFloor::default();

    loop {
        let parse_start = Instant::now();
        let n = window.fill(&mut reader, config.window.max(1))?;
        parse_ns += parse_start.elapsed().as_nanos() as u64;
        if n == 0 {
            break;
        }
        let first_packet = packets + 1;
        // Packets of this window whose times count (the rest are warm-up).
        let skip = config.warmup.saturating_sub(packets).min(n as u64) as usize;
        let recorded_messages: u64 = window.packets()[skip..]
            .iter()
            .map(|p| p.messages.len() as u64)
            .sum();
        for p in window.packets() {
            visit_packet(p, &mut reference);
        }

        // Rotate which format goes first so none always runs on a cold cache; the memcpy floor
        // takes its turn in the rotation as slot `count`.
        let count = runners.len();
        for k in 0..=count {
            let i = (k + rotation) % (count + 1);
            if i == count {
                timed_ns += floor.measure(window.packets(), skip, &timer, &mut stats);
                continue;
            }
            let (runner, result) = (&mut runners[i], &mut results[i]);

            stats.clear();
            runner.encode_window(window.packets(), &timer, &mut stats);
            for s in &stats[skip..] {
                result.ser.record(s.ns);
            }
            timed_ns += stats.iter().map(|s| s.ns).sum::<u64>();
            result.encoded_bytes += runner.buffer().len() as u64;
            result.messages_encoded += window.messages;
            result.messages_recorded += recorded_messages;

            stats.clear();
            runner
                .decode_window(&mut result.aggregate, &timer, &mut stats)
                .map_err(|cause| {
                    // The packet that failed is the one after the last decoded.
                    let at = stats.len();
                    RunError::Decode {
                        format: result.name,
                        packet: first_packet + at as u64,
                        seq: window.packets().get(at).map_or(0, |p| p.seq),
                        cause,
                    }
                })?;
            for s in &stats[skip..] {
                result.de.record(s.ns);
            }
            timed_ns += stats.iter().map(|s| s.ns).sum::<u64>();
        }

        // Untimed work on every format's window comes after all the timed work: between two
        // timed regions it would evict their caches (compression between SBE's encode and decode
        // tripled its serialize p50). Each runner still holds this window's encoding.
        for (runner, result) in runners.iter_mut().zip(results.iter_mut()) {
            if config.stored_size {
                // Size as stored: the whole window compressed (see measure::stored).
                let compress_start = Instant::now();
                let stored = compressors.measure(runner.buffer())?;
                compress_ns += compress_start.elapsed().as_nanos() as u64;
                result.zstd_bytes += stored.zstd_bytes;
                result.zlib_bytes += stored.zlib_bytes;
                result.zstd_ns += stored.zstd_ns;
            }
            if config.verify {
                let verify_start = Instant::now();
                verify_window(
                    runner.as_mut(),
                    window.packets(),
                    first_packet,
                    &mut decoded,
                )?;
                verify_ns += verify_start.elapsed().as_nanos() as u64;
            }
        }
        rotation += 1;
        packets += n as u64;
        messages += window.messages;
        progress(reader.position());
    }

    let wall_ns = started.elapsed().as_nanos() as u64;
    cross_check(&results, &reference, messages)?;
    let feed = window.feeds.name();
    Ok(Outcome {
        formats: results,
        reference,
        packets,
        messages,
        unknown: window.unknown,
        feed,
        timer_overhead_ns: timer.overhead_ns,
        capture_bytes: reader.position(),
        wall_ns,
        parse_ns,
        timed_ns,
        compress_ns,
        stored_size: config.stored_size,
        verify_ns,
        memcpy: floor.stats,
    })
}

/// Decodes the runner's buffer back into packets and compares each with its source.
fn verify_window(
    runner: &mut dyn Runner,
    source: &[Packet],
    first_packet: u64,
    decoded: &mut Vec<Packet>,
) -> Result<(), RunError> {
    decoded.clear();
    let format = runner.name();
    runner
        .decode_packets(decoded)
        .map_err(|source_err| RunError::Decode {
            format,
            packet: first_packet + decoded.len() as u64,
            seq: source.get(decoded.len()).map_or(0, |p| p.seq),
            cause: source_err,
        })?;
    if decoded.len() != source.len() {
        return Err(RunError::Disagree {
            format,
            what: format!(
                "window starting at packet {first_packet} decodes to {} packets, not {}",
                decoded.len(),
                source.len()
            ),
        });
    }
    for (i, (expected, got)) in source.iter().zip(decoded.iter()).enumerate() {
        if let Some(m) = verify::compare(expected, got) {
            return Err(RunError::Mismatch {
                format,
                packet: first_packet + i as u64,
                seq: expected.seq,
                field: m.field,
                expected: m.expected,
                got: m.got,
            });
        }
    }
    Ok(())
}

/// Every format must have carried every message and produced the reference aggregation.
fn cross_check(
    results: &[FormatResult],
    reference: &Aggregate,
    messages: u64,
) -> Result<(), RunError> {
    for r in results {
        let disagree = |what: String| RunError::Disagree {
            format: r.name,
            what,
        };
        if r.messages_encoded != messages {
            return Err(disagree(format!(
                "serialized {} messages, the input has {messages}",
                r.messages_encoded
            )));
        }
        if r.aggregate.messages != messages {
            return Err(disagree(format!(
                "deserialized {} messages, serialized {messages}",
                r.aggregate.messages
            )));
        }
        if r.aggregate != *reference {
            let differing = reference
                .sorted()
                .into_iter()
                .find(|(s, v)| r.aggregate.get(s) != Some(v))
                .map(|(s, v)| format!("symbol {s}: expected {v:?}, got {:?}", r.aggregate.get(&s)))
                .unwrap_or_else(|| "symbols or packet counts differ".to_owned());
            return Err(disagree(format!(
                "aggregate differs from the source: {differing}"
            )));
        }
    }
    Ok(())
}

/// Why `run_file` failed: the input (with file and offset), or the shootout itself.
#[derive(Debug, thiserror::Error)]
pub enum RunFileError {
    #[error(transparent)]
    Input(#[from] crate::error::FileError),
    #[error("{path}: {error}")]
    Run { path: String, error: Box<RunError> },
}

/// Runs the shootout over a capture file, with a progress bar on a terminal: all of
/// `shootout run` but writing the results.
pub fn run_file(
    path: &std::path::Path,
    config: &Config,
    lenient: bool,
) -> Result<Outcome, RunFileError> {
    use crate::source::Compression;

    // Refuse an unknown format before reading anything.
    select(config).map_err(|error| RunFileError::Run {
        path: path.display().to_string(),
        error: Box::new(error),
    })?;
    let crate::stream::Opened {
        reader,
        compression,
        file_bytes,
    } = crate::stream::open(path, lenient)?;
    let progress =
        crate::output::Progress::new((compression == Compression::None).then_some(file_bytes));
    let outcome = run(reader, config, |pos| progress.set(pos));
    progress.finish();
    let gz = compression == Compression::Gzip;
    outcome.map_err(|e| match e {
        RunError::Input(e) => RunFileError::Input(crate::error::FileError::new(path, gz, e)),
        error => RunFileError::Run {
            path: path.display().to_string(),
            error: Box::new(error),
        },
    })
}
