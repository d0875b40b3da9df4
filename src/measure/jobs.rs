//! `run --jobs N`: the formats split across N worker processes, each pinned to a core of its
//! own, each streaming the capture itself; their outcomes merged into one run.
//!
//! Why processes and not threads: a worker is a whole `shootout run` of its formats (its own
//! allocator, its own parse, its own checks against the source), so what it measures is what a
//! one-job run of those formats measures, only beside another. The parent starts the workers
//! (this same binary with the hidden `--worker-cpu K`), reads their progress on stderr and their
//! outcome as JSON on stdout, checks that they read the same input (the same packets, messages
//! and reference aggregation), and merges: one `run_id`, one summary, every format's row.
//!
//! The split: the parent times each format once over a window early in the input (untimed for
//! the results) and deals the formats out largest first to the least loaded worker, so the
//! workers finish at about the same time. An A/A twin goes with its original, its weight added
//! to the original's: the two are compared within one process.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::affinity;
use super::args::RunArgs;
use super::clock::Timer;
use super::config::{Config, RunError};
use super::file::{self, RunFileError};
use super::outcome::{Outcome, Worker};
use super::runner::{PassIo, Runner};
use super::shootout;
use super::twins;
use super::window::Window;
use super::workload::{Timing, Workload};
use crate::formats::{Aggregate, Checksum};
use crate::output::{RunProgress, Tick};

/// The hidden `run` option that makes a process a worker pinned to the CPU it names.
pub const WORKER_FLAG: &str = "--worker-cpu";

/// A worker's stderr line that reports progress, not a message: `<tag> <position>`.
const PROGRESS_TAG: &str = "\u{1e}progress";

/// What a worker writes on stdout: its outcome, and the names a `&'static str` cannot carry.
#[derive(Serialize, Deserialize)]
struct Report {
    outcome: Outcome,
    formats: Vec<String>,
    feed: Option<String>,
    clock: String,
    cpu: Option<usize>,
    peak_rss: Option<u64>,
}

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

/// The worker side: pins this process to `cpu`, runs `config` over `path` and writes the
/// outcome as JSON on stdout, progress on stderr.
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
    let report = Report {
        formats: outcome.formats.iter().map(|f| f.name.to_owned()).collect(),
        feed: outcome.feed.map(str::to_owned),
        clock: outcome.clock.to_owned(),
        cpu: pinned,
        peak_rss: peak_rss(),
        outcome,
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    serde_json::to_writer(&mut out, &report)?;
    out.flush()?;
    Ok(())
}

/// This process's peak resident set (`VmHWM` in /proc/self/status), in bytes.
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The parent side: splits the formats `config` names over `jobs` workers, runs them and merges
/// their outcomes. Refuses more jobs than formats or than CPUs this process may use.
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
    let runners = shootout::select(config).map_err(fail)?;
    let all: Vec<&'static str> = runners.iter().map(|r| r.name()).collect();
    let names: Vec<&'static str> = all
        .iter()
        .copied()
        .filter(|n| twins::original(n).is_none())
        .collect();
    let cpus = affinity::allowed_cpus();
    check(jobs, names.len(), &cpus).map_err(fail)?;
    let mut weights = vec![0.0; names.len()];
    for (name, w) in all.iter().zip(calibrate(path, config, lenient, runners)?) {
        let format = twins::original(name).unwrap_or(name);
        if let Some(at) = names.iter().position(|n| *n == format) {
            weights[at] += w;
        }
    }
    let groups = split(&weights, jobs);
    let exe = std::env::current_exe()
        .map_err(|e| fail(RunError::Worker(format!("cannot find this program: {e}"))))?;
    let total = std::fs::metadata(path).map_or(0, |m| m.len());
    let progress = RunProgress::new(total);
    let mut running = Vec::new();
    for (group, &cpu) in groups.iter().zip(&cpus) {
        let formats: Vec<&str> = group.iter().map(|&i| names[i]).collect();
        let twinned: Vec<&str> = all
            .iter()
            .filter_map(|n| twins::original(n))
            .filter(|o| formats.contains(o))
            .collect();
        match spawn(&exe, path, config, lenient, cpu, &formats, &twinned) {
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
    let reports = wait_all(&mut running, &progress, &path.display().to_string());
    progress.finish();
    let reports = reports.map_err(fail)?;
    merge(reports, started.elapsed().as_nanos() as u64).map_err(fail)
}

/// Refuses a `--jobs` that would leave a worker without a format or put two on one CPU.
pub fn check(jobs: usize, formats: usize, cpus: &[usize]) -> Result<(), RunError> {
    if jobs > formats {
        return Err(RunError::Config(format!(
            "--jobs {jobs} with {formats} format{}: a worker would have none to run",
            if formats == 1 { "" } else { "s" }
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

/// Windows read to find the one the split is timed on.
const CALIBRATION_WINDOWS: usize = 8;

/// Each format's cost over one window (at most 2048 units) from early in the input: encode,
/// selective and complete decode timed whole; the least of three rounds (the first warms the
/// caches; the least is the one the machine interrupted least).
fn calibrate(
    path: &Path,
    config: &Config,
    lenient: bool,
    mut runners: Vec<Box<dyn Runner>>,
) -> Result<Vec<f64>, RunFileError> {
    let opened = crate::stream::open(path, lenient)?;
    let gz = opened.compression == crate::source::Compression::Gzip;
    let mut reader = opened.reader;
    // Past the start-of-day burst (administrative messages for every symbol, unlike the
    // trading day): the last full window of the first CALIBRATION_WINDOWS, or the input's last.
    let (mut window, mut next) = (Window::default(), Window::default());
    let size = config.window.min(2048);
    for _ in 0..CALIBRATION_WINDOWS {
        let n = next
            .fill(&mut reader, size, config.unit)
            .map_err(|e| crate::error::FileError::new(path, gz, e))?;
        if n == 0 {
            break;
        }
        std::mem::swap(&mut window, &mut next);
        if n < size {
            break;
        }
    }
    let packets = window.packets();
    let timer = Timer::calibrate();
    let mut weights = Vec::with_capacity(runners.len());
    for runner in &mut runners {
        let mut ns = u64::MAX;
        for _ in 0..3 {
            let (mut sink, mut checksum) = (Aggregate::new(), Checksum::default());
            let mut io = PassIo::new(packets, &mut sink, &mut checksum);
            let started = Instant::now();
            for workload in Workload::ALL {
                // A decode error here is the workers' to report, with the packet.
                let _ = runner.pass(workload, Timing::Window, &mut io, &timer, &mut Vec::new());
                if workload == Workload::Encode {
                    // What the decodes read.
                    runner.adopt_batch();
                }
            }
            ns = ns.min(started.elapsed().as_nanos() as u64);
        }
        weights.push(ns.max(1) as f64);
    }
    Ok(weights)
}

/// Deals the formats (by index, with their `weights`) to `jobs` groups, heaviest first to the
/// lightest group (longest processing time first); each group in index order.
pub fn split(weights: &[f64], jobs: usize) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..weights.len()).collect();
    order.sort_by(|&a, &b| weights[b].total_cmp(&weights[a]).then(a.cmp(&b)));
    let mut groups = vec![Vec::new(); jobs.max(1)];
    let mut loads = vec![0.0f64; groups.len()];
    for i in order {
        let lightest = (0..loads.len())
            .min_by(|&a, &b| loads[a].total_cmp(&loads[b]).then(a.cmp(&b)))
            .unwrap_or(0);
        groups[lightest].push(i);
        loads[lightest] += weights[i];
    }
    for g in &mut groups {
        g.sort_unstable();
    }
    groups
}

/// A started worker: its process, what it runs, and its output as it arrives.
struct Running {
    child: Child,
    cpu: usize,
    formats: String,
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
    formats: &[&str],
    twinned: &[&str],
) -> std::io::Result<Running> {
    // The parent's options, this worker's formats and their twins, in one process (a worker
    // runs no workers).
    let mut args = RunArgs::of(config, lenient);
    args.shared.formats = Some(formats.iter().map(|&f| f.to_owned()).collect());
    args.twins = Some(match twinned.is_empty() {
        true => "none".to_owned(),
        false => twinned.join(","),
    });
    let mut cmd = Command::new(exe);
    cmd.arg("run")
        .arg(path)
        .args(args.to_args())
        .arg(WORKER_FLAG)
        .arg(cpu.to_string());
    let mut child = cmd
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
        formats: formats.join(","),
        position,
        stdout,
        stderr,
    })
}

/// Waits for every worker, showing the slowest one's progress; the first that fails stops the
/// others and its error is the run's.
fn wait_all(
    running: &mut Vec<Running>,
    progress: &RunProgress,
    path: &str,
) -> Result<Vec<Report>, RunError> {
    let mut done = vec![false; running.len()];
    let mut failure = None;
    while failure.is_none() && done.iter().any(|d| !d) {
        for (i, w) in running.iter_mut().enumerate() {
            if done[i] {
                continue;
            }
            match w.child.try_wait() {
                Ok(Some(status)) => {
                    done[i] = true;
                    if !status.success() {
                        failure = Some((i, status.to_string()));
                        break;
                    }
                }
                Ok(None) => {}
                Err(e) => {
                    failure = Some((i, e.to_string()));
                    break;
                }
            }
        }
        let slowest = running
            .iter()
            .zip(&done)
            .filter(|(_, d)| !**d)
            .map(|(w, _)| Tick {
                file_bytes: w.position[0].load(Ordering::Relaxed),
                messages: w.position[1].load(Ordering::Relaxed),
            })
            .min_by_key(|t| t.file_bytes);
        if let Some(tick) = slowest {
            progress.set(tick);
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
        let who = format!("the worker on CPU {} ({})", w.cpu, w.formats);
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
        reports.push(report);
    }
    match failure {
        Some(_) => Err(RunError::Worker("a worker failed".into())),
        None => Ok(reports),
    }
}

/// `name` as the `&'static str` among `known` it equals.
fn known(name: &str, known: &[&'static str], what: &str) -> Result<&'static str, RunError> {
    known
        .iter()
        .copied()
        .find(|k| *k == name)
        .ok_or_else(|| RunError::Worker(format!("a worker reported an unknown {what} {name:?}")))
}

/// One outcome from the workers': each format's results as its worker measured them; times
/// spent summed over the workers; the memcpy floor of the worker that ran `raw` (the floor is
/// compared with raw's figures), else of the first. Every worker must have read the same input.
fn merge(reports: Vec<Report>, elapsed_ns: u64) -> Result<Outcome, RunError> {
    let names = twins::runner_names();
    let feeds = ["deep", "tops", "deep-plus", "mixed"];
    let clocks = ["tsc", "cntvct", "monotonic"];
    let mut parts = Vec::with_capacity(reports.len());
    let mut workers = Vec::with_capacity(reports.len());
    for r in reports {
        let mut o = r.outcome;
        o.feed = r
            .feed
            .as_deref()
            .map(|f| known(f, &feeds, "feed"))
            .transpose()?;
        o.clock = known(&r.clock, &clocks, "clock")?;
        if r.formats.len() != o.formats.len() {
            return Err(RunError::Worker(
                "a worker's results name too few formats".into(),
            ));
        }
        for (f, name) in o.formats.iter_mut().zip(&r.formats) {
            f.name = known(name, &names, "format")?;
            f.worker_cpu = r.cpu;
        }
        workers.push(Worker {
            cpu: r.cpu,
            formats: o.formats.iter().map(|f| f.name).collect(),
            wall_ns: o.wall_ns,
            timer_overhead_ns: o.timer_overhead_ns,
            peak_rss: r.peak_rss,
        });
        parts.push(o);
    }
    let floor_from = parts
        .iter()
        .position(|o| o.formats.iter().any(|f| f.name == super::floor::RAW))
        .unwrap_or(0);
    let floor = parts.get(floor_from).map(|o| {
        (
            o.memcpy.clone(),
            o.memcpy_batch,
            o.aggregate_batch,
            o.aggregate_faults,
        )
    });
    let mut parts = parts.into_iter();
    let mut merged = parts
        .next()
        .ok_or_else(|| RunError::Worker("no worker reported".into()))?;
    for o in parts {
        same_input(&merged, &o)?;
        merged.formats.extend(o.formats);
        merged.timer_overhead_ns = merged.timer_overhead_ns.max(o.timer_overhead_ns);
        merged.clock_step_ns = merged.clock_step_ns.max(o.clock_step_ns);
        merged.wall_ns += o.wall_ns;
        merged.parse_ns += o.parse_ns;
        merged.timed_ns += o.timed_ns;
        merged.compress_ns += o.compress_ns;
        merged.verify_ns += o.verify_ns;
        merged.passes += o.passes;
    }
    if let Some(floor) = floor {
        (
            merged.memcpy,
            merged.memcpy_batch,
            merged.aggregate_batch,
            merged.aggregate_faults,
        ) = floor;
    }
    merged
        .formats
        .sort_by_key(|f| names.iter().position(|n| *n == f.name));
    merged.workers = workers;
    merged.elapsed_ns = elapsed_ns;
    Ok(merged)
}

/// The workers must have read the same packets: a difference means the file changed under them
/// or a worker is broken, and their figures could not be put side by side.
fn same_input(a: &Outcome, b: &Outcome) -> Result<(), RunError> {
    let differ = |what: &str, x: String, y: String| {
        Err(RunError::Worker(format!(
            "the workers read different inputs: {what} {x} in one, {y} in another"
        )))
    };
    macro_rules! same {
        ($($field:ident),*) => {$(
            if a.$field != b.$field {
                return differ(stringify!($field), format!("{:?}", a.$field), format!("{:?}", b.$field));
            }
        )*};
    }
    same!(
        packets,
        messages,
        unknown,
        feed,
        clock,
        capture_bytes,
        units_recorded,
        units_batch
    );
    same!(unit, timing, stored, order_seed);
    if a.reference != b.reference {
        return differ("the aggregation", "one value".into(), "another".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_heaviest_formats_go_first_to_the_lightest_worker() {
        // One format as heavy as the nine others together: alone on one worker.
        let mut w = vec![1.0; 10];
        w[3] = 9.0;
        assert_eq!(split(&w, 2), vec![vec![3], vec![0, 1, 2, 4, 5, 6, 7, 8, 9]]);
        // Every format exactly once, no worker empty, loads within the heaviest format.
        let w = [7.0, 3.0, 5.0, 2.0, 8.0, 1.0, 4.0];
        for jobs in 1..=w.len() {
            let groups = split(&w, jobs);
            assert_eq!(groups.len(), jobs);
            let mut all: Vec<usize> = groups.concat();
            all.sort_unstable();
            assert_eq!(all, (0..w.len()).collect::<Vec<_>>());
            let loads: Vec<f64> = groups
                .iter()
                .map(|g| g.iter().map(|&i| w[i]).sum())
                .collect();
            assert!(loads.iter().all(|&l| l > 0.0));
            let (lo, hi) = (
                loads.iter().copied().fold(f64::MAX, f64::min),
                loads.iter().copied().fold(0.0, f64::max),
            );
            assert!(hi - lo <= 8.0, "{jobs}: {loads:?}");
        }
        assert_eq!(split(&[2.0, 2.0, 1.0], 2), vec![vec![0, 2], vec![1]]);
    }

    #[test]
    fn more_jobs_than_formats_or_cpus_are_refused() {
        assert!(check(2, 10, &[0, 1]).is_ok());
        let e = check(3, 2, &[0, 1, 2, 3]).unwrap_err().to_string();
        assert_eq!(
            e,
            "--jobs 3 with 2 formats: a worker would have none to run"
        );
        let e = check(2, 1, &[0, 1]).unwrap_err().to_string();
        assert!(e.starts_with("--jobs 2 with 1 format: "), "{e}");
        let e = check(3, 10, &[1, 5]).unwrap_err().to_string();
        assert!(
            e.starts_with("--jobs 3: this process may run on 2 CPUs (1,5); "),
            "{e}"
        );
    }
}
