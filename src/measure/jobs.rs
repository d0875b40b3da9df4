//! `run --jobs N`: the input split across N worker processes by chunks, every worker measuring
//! every format over its share (see `stream::share`), each pinned to a core of its own; their
//! outcomes merged into one run (`measure::merge`), the same as one process's.
//!
//! Why processes and not threads: a worker is a whole `shootout run --shard I/N` (its own
//! allocator, its own parse, its own checks against the source), exactly what a scheduler runs
//! on another host, only beside its siblings. The parent starts the workers (this same binary
//! with the hidden `--worker-cpu K`), reads their progress on stderr and their outcome as JSON
//! on stdout, and merges.
//!
//! Why by chunks and not by formats (as before): with the formats dealt out, the slowest format
//! was the floor (protobuf-google alone was 16% of the timed work, so no number of cores beat
//! 6x). With chunks, every worker does the same mix of work and cores add up to the whole.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::affinity;
use super::args::RunArgs;
use super::config::{Config, RunError};
use super::file::{self, RunFileError};
use super::merge::{self, Report};
use super::outcome::Outcome;
use crate::output::{RunProgress, Tick};
use crate::stream::{Chunking, Share};

/// The hidden `run` option that makes a process a worker pinned to the CPU it names.
pub const WORKER_FLAG: &str = "--worker-cpu";

/// A worker's stderr line that reports progress, not a message: `<tag> <position>`.
const PROGRESS_TAG: &str = "\u{1e}progress";

/// Why a `--jobs` worker stopped: its run failed, or its outcome could not reach the parent.
#[derive(Debug, thiserror::Error)]
pub enum WorkError {
    #[error(transparent)]
    Run(#[from] RunFileError),
    #[error("writing the outcome to the parent: {0}")]
    Write(#[from] std::io::Error),
    #[error("encoding the outcome for the parent: {0}")]
    Encode(#[from] serde_json::Error),
}

/// The worker side: pins this process to `cpu`, runs `config` (its share) over `path` and
/// writes the outcome as JSON on stdout, progress on stderr.
pub fn work(path: &Path, config: &Config, lenient: bool, cpu: usize) -> Result<(), WorkError> {
    // Before the gunzip thread exists, so that it inherits the mask.
    let pinned = match affinity::pin(cpu) {
        Ok(()) => Some(cpu),
        Err(e) => {
            eprintln!("warning: the worker for CPU {cpu} could not pin itself to it ({e}): it runs unpinned");
            None
        }
    };
    let mut last = Instant::now();
    let outcome = file::run_file_with(path, config, lenient, |tick| {
        if last.elapsed() >= Duration::from_millis(200) {
            last = Instant::now();
            eprintln!("{PROGRESS_TAG} {} {}", tick.file_bytes, tick.messages);
        }
    })?;
    let report = Report::new(outcome, pinned);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    serde_json::to_writer(&mut out, &report)?;
    out.flush()?;
    Ok(())
}

/// The parent side: runs `config` over `path` as `jobs` workers, share `i` of `jobs` each, and
/// merges their outcomes. Refuses more jobs than CPUs this process may use.
pub fn run(
    path: &Path,
    config: &Config,
    lenient: bool,
    jobs: usize,
) -> Result<Outcome, RunFileError> {
    let fail = |error: RunError| RunFileError::Run {
        path: path.display().to_string(),
        error: Box::new(error),
    };
    let started = Instant::now();
    // Unknown formats are refused before any worker starts.
    super::shootout::select(config).map_err(fail)?;
    let cpus = affinity::allowed_cpus();
    check(jobs, config.chunking.share, &cpus).map_err(fail)?;
    let exe = std::env::current_exe()
        .map_err(|e| fail(RunError::Worker(format!("cannot find this program: {e}"))))?;
    let total = std::fs::metadata(path).map_or(0, |m| m.len());
    let progress = RunProgress::new(total);
    let mut running = Vec::new();
    for (index, &cpu) in cpus.iter().take(jobs).enumerate() {
        let share = Share {
            index: index as u32,
            count: jobs as u32,
        };
        let config = Config {
            chunking: Chunking {
                share,
                ..config.chunking
            },
            ..config.clone()
        };
        match spawn(&exe, path, &config, lenient, cpu, share) {
            Ok(worker) => running.push(worker),
            Err(e) => {
                for w in &mut running {
                    let _ = w.child.kill();
                    let _ = w.child.wait();
                }
                return Err(fail(RunError::Worker(format!(
                    "cannot start a worker: {e}"
                ))));
            }
        }
    }
    let finished = wait_all(&mut running, &progress, total, &path.display().to_string());
    progress.finish();
    let finished = finished.map_err(fail)?;
    let elapsed_ns = started.elapsed().as_nanos() as u64;
    let (mut workers, mut parts) = (Vec::new(), Vec::new());
    for (report, wall_ns) in finished {
        workers.push(report.worker(wall_ns));
        parts.push(report.restore().map_err(fail)?);
    }
    let mut merged = merge::merge(parts).map_err(fail)?;
    merged.workers = workers;
    merged.elapsed_ns = elapsed_ns;
    Ok(merged)
}

/// Refuses a `--jobs` that would put two workers on one CPU, or split a share again.
pub fn check(jobs: usize, share: Share, cpus: &[usize]) -> Result<(), RunError> {
    if !share.is_whole() {
        return Err(RunError::Config(format!(
            "--jobs {jobs} with --shard {share}: a shard runs in one process (give each shard a \
             host or a core of its own instead)"
        )));
    }
    if jobs > cpus.len() {
        let list: Vec<String> = cpus.iter().map(usize::to_string).collect();
        return Err(RunError::Config(format!(
            "--jobs {jobs}: this process may run on {} CPU{} ({}); workers sharing a core would \
             time each other's work",
            cpus.len(),
            if cpus.len() == 1 { "" } else { "s" },
            list.join(",")
        )));
    }
    Ok(())
}

/// A started worker: its process, its share, and its output as it arrives.
struct Running {
    child: Child,
    cpu: usize,
    share: Share,
    started: Instant,
    /// When it exited, as the parent saw it.
    wall_ns: Option<u64>,
    /// The file bytes read and messages parsed, as the worker last reported.
    position: Arc<[AtomicU64; 2]>,
    stdout: std::thread::JoinHandle<std::io::Result<Vec<u8>>>,
    stderr: std::thread::JoinHandle<Vec<String>>,
}

fn spawn(
    exe: &Path,
    path: &Path,
    config: &Config,
    lenient: bool,
    cpu: usize,
    share: Share,
) -> std::io::Result<Running> {
    // The parent's options (its seed and chunk included) and this worker's share.
    let args = RunArgs::of(config, lenient).to_args();
    let started = Instant::now();
    let mut child = Command::new(exe)
        .arg("run")
        .arg(path)
        .args(args)
        .arg(WORKER_FLAG)
        .arg(cpu.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let mut out = child.stdout.take().expect("stdout is piped");
    let err = child.stderr.take().expect("stderr is piped");
    let position = Arc::new([AtomicU64::new(0), AtomicU64::new(0)]);
    let seen = Arc::clone(&position);
    let stdout = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        out.read_to_end(&mut bytes).map(|_| bytes)
    });
    // Progress lines update the position; every other line is a message (a warning, or the
    // error the worker stops with), passed on and kept for the parent's error.
    let stderr = std::thread::spawn(move || {
        let mut messages = Vec::new();
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            match line.strip_prefix(PROGRESS_TAG) {
                Some(tick) => {
                    for (slot, value) in seen.iter().zip(tick.split_whitespace()) {
                        slot.store(value.parse().unwrap_or(0), Ordering::Relaxed);
                    }
                }
                None => {
                    if line.starts_with("warning: ") {
                        eprintln!("{line}");
                    }
                    messages.push(line);
                }
            }
        }
        messages
    });
    Ok(Running {
        child,
        cpu,
        share,
        started,
        wall_ns: None,
        position,
        stdout,
        stderr,
    })
}

/// What the progress line says of each worker: its share and how far through the file it is.
fn shares_line(running: &[Running], total: u64) -> String {
    running
        .iter()
        .map(|w| match w.wall_ns {
            Some(_) => format!("{} done", w.share),
            None => {
                let at = w.position[0].load(Ordering::Relaxed);
                let pct = (at as f64 * 100.0 / total.max(1) as f64).min(100.0);
                format!("{} {pct:.0}%", w.share)
            }
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

/// Waits for every worker, showing each one's share and progress; the first that fails stops
/// the others and its error is the run's. Each report comes with the worker's wall time.
fn wait_all(
    running: &mut Vec<Running>,
    progress: &RunProgress,
    total: u64,
    path: &str,
) -> Result<Vec<(Report, u64)>, RunError> {
    let mut failure = None;
    while failure.is_none() && running.iter().any(|w| w.wall_ns.is_none()) {
        for (i, w) in running.iter_mut().enumerate() {
            if w.wall_ns.is_some() {
                continue;
            }
            let failed = match w.child.try_wait() {
                Ok(Some(status)) => {
                    w.wall_ns = Some(w.started.elapsed().as_nanos() as u64);
                    (!status.success()).then(|| status.to_string())
                }
                Ok(None) => None,
                Err(e) => Some(e.to_string()),
            };
            if let Some(why) = failed {
                failure = Some((i, why));
                break;
            }
        }
        let slowest = running
            .iter()
            .filter(|w| w.wall_ns.is_none())
            .map(|w| w.position[0].load(Ordering::Relaxed))
            .min();
        let messages = running
            .iter()
            .map(|w| w.position[1].load(Ordering::Relaxed))
            .sum();
        if let Some(file_bytes) = slowest {
            progress.set(
                Tick {
                    file_bytes,
                    messages,
                },
                Some(&shares_line(running, total)),
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    if failure.is_some() {
        for w in running.iter_mut() {
            let _ = w.child.kill();
        }
    }
    let mut reports = Vec::new();
    for (i, w) in running.drain(..).enumerate() {
        let mut child = w.child;
        let _ = child.wait();
        let stdout = w.stdout.join().unwrap_or_else(|_| Ok(Vec::new()));
        let messages = w.stderr.join().unwrap_or_default();
        let who = format!("the worker on CPU {} (share {})", w.cpu, w.share);
        if let Some((at, status)) = &failure {
            if *at == i {
                let why = messages
                    .iter()
                    .rev()
                    .find(|m| !m.starts_with("warning: "))
                    // The parent's error names the file already.
                    .map(|m| {
                        let m = m.trim_start_matches("error: ");
                        m.strip_prefix(path)
                            .and_then(|m| m.strip_prefix(": "))
                            .unwrap_or(m)
                            .to_owned()
                    })
                    .unwrap_or_else(|| format!("it exited with {status}"));
                return Err(RunError::Worker(format!("{who}: {why}")));
            }
            continue;
        }
        let bytes =
            stdout.map_err(|e| RunError::Worker(format!("{who}: cannot read its results: {e}")))?;
        let report: Report = serde_json::from_slice(&bytes)
            .map_err(|e| RunError::Worker(format!("{who}: its results do not parse: {e}")))?;
        reports.push((report, w.wall_ns.unwrap_or(0)));
    }
    match failure {
        Some(_) => Err(RunError::Worker("a worker failed".into())),
        None => Ok(reports),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn more_jobs_than_cpus_and_jobs_of_a_shard_are_refused() {
        assert!(check(2, Share::WHOLE, &[0, 1]).is_ok());
        let e = check(3, Share::WHOLE, &[1, 5]).unwrap_err().to_string();
        assert!(
            e.starts_with("--jobs 3: this process may run on 2 CPUs (1,5); "),
            "{e}"
        );
        // Jobs of a shard: tests/it/jobs.rs, `splits_that_make_no_sense_are_refused_in_one_line`.
    }
}
