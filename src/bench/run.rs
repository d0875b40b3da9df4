//! Running the bench: the inputs, the results folder, then every step of the matrix as a
//! `shootout run` child of this binary, recorded as it completes.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};

use super::environment;
use super::failure::{failed, Failure};
use super::options::{check, Checked, Options, CUT_SHORT, DEFAULT_INPUTS, QUICK_PACKETS};
use super::plan::{self, Prefix, Step};
use super::report::{write_capabilities, write_report};
use super::resume::{self, Done, Record};
use crate::fetch::{self, FetchOptions};
use crate::gen::{self, GenOptions};
use crate::measure::args::{InstructionsArg, RunArgs, StoredArg};
use crate::measure::Unit;
use crate::report;

/// Runs the bench; returns after the report is written.
pub fn bench(opts: &Options) -> Result<(), Failure> {
    let Checked {
        mut inputs,
        runs,
        prefixes,
        date,
    } = check(opts)?;
    let baseline = baseline_csv(opts)?;
    // A source of instruction counts this machine lacks is refused before the first run.
    crate::measure::instructions::Want::from(opts.run.instructions)
        .resolve()
        .map_err(|e| Failure::Usage(e.to_string()))?;
    let exe = std::env::current_exe().map_err(failed("cannot find this program's own path"))?;
    // Inputs read with --lenient: all with the option, else the default inputs that need it.
    let lenient: Vec<PathBuf>;
    if inputs.is_empty() && date.is_none() && !opts.quick {
        (inputs, lenient) = default_inputs()?;
    } else {
        lenient = inputs.iter().filter(|p| cut_short(p)).cloned().collect();
    }
    if let Some(date) = &date {
        println!(
            "== fetching {date} ({})",
            opts.feed.to_string().to_ascii_lowercase()
        );
        inputs.push(fetch_day(opts, date)?);
    }
    let out = match (&opts.resume, &opts.out) {
        (Some(dir), _) => dir.clone(),
        (None, Some(out)) => out.clone(),
        (None, None) => PathBuf::from(format!(
            "results/{}",
            chrono::Utc::now().format("%Y%m%dT%H%M%SZ")
        )),
    };
    let mut record = prepare(opts, &out, || environment::capture(&exe, runs, &prefixes))?;
    if opts.quick {
        inputs = vec![quick_input(&out)?];
    }
    let matrix = Matrix {
        inputs: &inputs,
        lenient: &lenient,
        runs,
        prefixes: &prefixes,
    };
    run_matrix(opts, &exe, &out, &matrix, &mut record)?;
    write_capabilities(&out);
    write_report(&out, baseline.as_deref(), opts.gate, opts.verbose)
}

/// A run after an input's first leaves out what is the same in every run of it: the size as
/// stored, a property of the bytes (compressing them again in each run made the default bench
/// half as long again; the report gives every label the first run's, report::stats::SameBytes),
/// and the instructions under Callgrind (a run 20-100 times slower; the CPU's counter, free,
/// counts in every run).
fn not_again(run: &mut RunArgs) {
    run.shared.stored_size = StoredArg::None;
    run.shared.no_stored_size = false;
    run.shared.instructions = match run.shared.instructions {
        InstructionsArg::On => InstructionsArg::Auto,
        InstructionsArg::Callgrind => InstructionsArg::Off,
        other => other,
    };
}

/// [`DEFAULT_INPUTS`], and those of them read with `--lenient`.
fn default_inputs() -> Result<(Vec<PathBuf>, Vec<PathBuf>), Failure> {
    let (mut inputs, mut lenient) = (Vec::new(), Vec::new());
    for default in DEFAULT_INPUTS {
        let path = PathBuf::from(default.path);
        if !path.is_file() {
            return Err(Failure::Usage(format!(
                "{}: no such file (give INPUT files, --quick or --date)",
                default.path
            )));
        }
        if default.lenient {
            say_lenient(&path);
            lenient.push(path.clone());
        }
        inputs.push(path);
    }
    Ok((inputs, lenient))
}

/// Whether the named input `path` is one of the bundled captures cut short as published
/// ([`CUT_SHORT`]), which is then read as when `bench` picks it itself.
fn cut_short(path: &Path) -> bool {
    use sha2::Digest;
    let size = std::fs::metadata(path).map(|m| m.len()).ok();
    let found = CUT_SHORT.iter().any(|b| {
        Some(b.bytes) == size
            && std::fs::read(path)
                .is_ok_and(|data| format!("{:x}", sha2::Sha256::digest(data)) == b.sha256)
    });
    if found {
        say_lenient(path);
    }
    found
}

fn say_lenient(path: &Path) {
    println!(
        "== {}: cut short at its end as published; read with --lenient (its whole packets)",
        path.display()
    );
}

/// The results folder made ready: created, the arguments saved (a new bench),
/// `environment.txt` written once, and what an earlier, interrupted bench completed.
fn prepare(
    opts: &Options,
    out: &Path,
    environment: impl FnOnce() -> String,
) -> Result<Record, Failure> {
    std::fs::create_dir_all(out.join("hist")).map_err(failed(out.display()))?;
    if opts.resume.is_none() {
        resume::save_args(out, &opts.args).map_err(failed(out.join(resume::ARGS).display()))?;
    }
    let env_path = out.join("environment.txt");
    if !env_path.exists() {
        let text = environment();
        report::write_atomically(&env_path, |w| w.write_all(text.as_bytes()))
            .map_err(failed(env_path.display()))?;
    }
    let (record, reconciled) =
        resume::reconcile(out).map_err(failed(format!("{}: resuming", out.display())))?;
    if reconciled.dropped_rows > 0 {
        eprintln!(
            "note: dropped {} rows of an unfinished run from {}",
            reconciled.dropped_rows,
            out.join(resume::RUNS).display()
        );
    }
    if reconciled.dropped_done > 0 {
        eprintln!(
            "note: {} runs in {} had no rows in runs.csv; they run again",
            reconciled.dropped_done,
            out.join(resume::DONE).display()
        );
    }
    Ok(record)
}

/// `--quick`'s small slice: generated once, deterministically, next to the results.
fn quick_input(out: &Path) -> Result<PathBuf, Failure> {
    let quick = out.join("quick.pcapng");
    if !quick.is_file() {
        let gen_opts = GenOptions {
            packets: QUICK_PACKETS,
            ..GenOptions::default()
        };
        gen::generate_file(&gen_opts, &quick).map_err(failed(quick.display()))?;
    }
    Ok(quick)
}

/// `--baseline DIR`: DIR/runs.csv, or the CSV given; checked before anything runs.
fn baseline_csv(opts: &Options) -> Result<Option<PathBuf>, Failure> {
    let Some(given) = &opts.baseline else {
        return Ok(None);
    };
    let csv = if given.is_dir() {
        given.join(resume::RUNS)
    } else {
        given.clone()
    };
    if !csv.is_file() {
        return Err(Failure::Usage(format!(
            "{}: no such file (--baseline takes a results folder or its runs.csv)",
            csv.display()
        )));
    }
    Ok(Some(csv))
}

fn fetch_day(opts: &Options, date: &str) -> Result<PathBuf, Failure> {
    let fetch_opts = FetchOptions {
        date: date.to_owned(),
        feed: opts.feed,
        out_dir: opts.data.clone(),
        hist_url: opts.hist_url.clone(),
    };
    let fetched =
        fetch::fetch_showing_progress(&fetch_opts).map_err(failed(format!("fetching {date}")))?;
    println!("{} ({} bytes)", fetched.path.display(), fetched.bytes);
    Ok(fetched.path)
}

/// What [`run_matrix`] runs: inputs × runs × prefixes.
struct Matrix<'a> {
    inputs: &'a [PathBuf],
    /// The inputs read with `--lenient` without the option (default inputs cut short).
    lenient: &'a [PathBuf],
    runs: u32,
    prefixes: &'a [Prefix],
}

/// Every step of the matrix for every unit, in turn; the steps `record` holds are skipped.
fn run_matrix(
    opts: &Options,
    exe: &Path,
    out: &Path,
    matrix: &Matrix,
    record: &mut Record,
) -> Result<(), Failure> {
    let steps: Vec<_> = opts
        .units
        .iter()
        .flat_map(|&unit| {
            plan::steps(matrix.inputs, matrix.runs, matrix.prefixes)
                .into_iter()
                .map(move |s| (unit, s))
        })
        .collect();
    let total = steps.len();
    let mut skipped = 0;
    for (k, (unit, step)) in steps.into_iter().enumerate() {
        // Runs of several workers are kept apart from one-process runs in the report.
        let run_label = match opts.run.jobs {
            1 => step.prefix.label.clone(),
            n => format!("{} ({n} jobs)", step.prefix.label),
        };
        // Where this run's histograms and resume record go: per-message runs apart, under the
        // name of the report section they land in.
        let label = match unit {
            Unit::Packet => run_label.clone(),
            Unit::Message => format!("{run_label} (per message)"),
        };
        if record.contains(&step.name, &label, step.run) {
            skipped += 1;
            continue;
        }
        let how = if step.prefix.command.is_empty() {
            String::new()
        } else {
            format!(" ({})", step.prefix.command.join(" "))
        };
        let what = format!(
            "{}, {label}, run {} of {}{how}",
            step.name, step.run, matrix.runs
        );
        if opts.verbose {
            println!("== {what}");
        } else {
            print!("run {} of {total}: {what}: ", k + 1);
            let _ = std::io::Write::flush(&mut std::io::stdout());
        }
        let mut run = RunArgs {
            shared: opts.run.clone(),
            unit: unit.into(),
            ..RunArgs::default()
        };
        run.shared.lenient |= matrix.lenient.iter().any(|p| p == step.input);
        if step.run > 1 || step.prefix != &matrix.prefixes[0] {
            not_again(&mut run);
        }
        let place = Path::new(&step.name)
            .join(&label)
            .join(format!("run{}", step.run));
        let mut cmd = step.prefix.command_for(exe);
        cmd.arg("run")
            .arg(step.input)
            .args(run.to_args())
            .arg("--label")
            .arg(&run_label)
            .arg("--hist-dir")
            .arg(out.join("hist").join(&place))
            .arg("--summary")
            .arg(out.join(format!("summary-{}.csv", step.name)))
            .env(
                crate::output::progress::PREFIX_ENV,
                format!("run {} of {total}", k + 1),
            );
        let log = (!opts.verbose).then(|| log_path(out, &place));
        let done = run_step(cmd, exe, out, &step, &label, log.as_deref())?;
        record
            .add(out, done)
            .map_err(failed(out.join(resume::DONE).display()))?;
        if opts.verbose {
            println!();
        }
    }
    if skipped > 0 {
        println!(
            "skipped {skipped} runs already in {}",
            out.join(resume::DONE).display()
        );
    }
    Ok(())
}

/// Where a run's own output goes unless `--verbose`: `logs/` mirrors `hist/`.
fn log_path(out: &Path, place: &Path) -> PathBuf {
    out.join("logs").join(place).with_extension("log")
}

/// Runs one step's `cmd` (appending to `runs.csv`) and returns its record: the one `run_id`
/// its rows carry. With a `log`, the run's stdout and stderr go there and one line on the
/// terminal ends the one `run_matrix` began: how long it took, whether it checked every field,
/// how many warnings it gave.
fn run_step(
    mut cmd: Command,
    exe: &Path,
    out: &Path,
    step: &Step,
    label: &str,
    log: Option<&Path>,
) -> Result<Done, Failure> {
    let csv = out.join(resume::RUNS);
    let before = resume::len_or_zero(&csv).map_err(failed(csv.display()))?;
    if let Some(log) = log {
        let file = open_log(log)?;
        let copy = file.try_clone().map_err(failed(log.display()))?;
        cmd.stdout(file).stderr(copy);
    }
    let started = std::time::Instant::now();
    let status = cmd
        .arg("--csv")
        .arg(&csv)
        .stdin(Stdio::null())
        .status()
        .map_err(failed(format!(
            "cannot start `{}`",
            step.prefix
                .command
                .first()
                .map(String::as_str)
                .unwrap_or(&exe.display().to_string())
        )))?;
    if let Some(log) = log {
        let said = std::fs::read_to_string(log).unwrap_or_default();
        if status.success() {
            println!("{}", run_line(&said, started.elapsed()));
        } else {
            println!("failed; its last lines ({}):", log.display());
            let lines: Vec<&str> = said.lines().collect();
            for line in &lines[lines.len().saturating_sub(LAST_LINES)..] {
                eprintln!("  {line}");
            }
        }
    }
    if !status.success() {
        return Err(stopped(status, out, step, label));
    }
    let ids = resume::run_ids_after(&csv, before).map_err(failed(csv.display()))?;
    let run_id = match ids.len() {
        1 => ids.into_iter().next().unwrap_or_default(),
        n => {
            return Err(Failure::Failed(format!(
                "{}: expected the rows of one run after {}, {label}, run {}; found {n} run_ids",
                csv.display(),
                step.name,
                step.run
            )))
        }
    };
    Ok(Done {
        input: step.name.clone(),
        label: label.to_owned(),
        run: format!("run{}", step.run),
        run_id,
    })
}

/// How many of a failed run's last lines of output `bench` shows (the rest are in its log).
const LAST_LINES: usize = 15;

/// The log file, its folder made.
fn open_log(log: &Path) -> Result<std::fs::File, Failure> {
    if let Some(dir) = log.parent() {
        std::fs::create_dir_all(dir).map_err(failed(dir.display()))?;
    }
    std::fs::File::create(log).map_err(failed(log.display()))
}

/// The end of a run's line: its wall time, whether it said it checked every field (its
/// `checked:` line), and how many `warning:` lines it wrote.
fn run_line(said: &str, took: std::time::Duration) -> String {
    let checked = if said.lines().any(|l| l.starts_with("checked: every field")) {
        "every field checked"
    } else {
        "done"
    };
    let warnings = said.lines().filter(|l| l.starts_with("warning:")).count();
    let plural = if warnings == 1 { "" } else { "s" };
    format!(
        "{:.1} s, {checked}, {warnings} warning{plural}",
        took.as_secs_f64()
    )
}

/// A run that failed or was stopped by a signal, with how to continue the bench.
fn stopped(status: ExitStatus, out: &Path, step: &Step, label: &str) -> Failure {
    use std::os::unix::process::ExitStatusExt;
    let again = format!(
        "completed runs are in {} (continue: shootout bench --resume {})",
        out.display(),
        out.display()
    );
    match status.signal() {
        Some(signal) => Failure::Interrupted {
            message: format!(
                "{}, {label}, run {} stopped by signal {signal}; {again}",
                step.name, step.run
            ),
            signal,
        },
        None => Failure::Failed(format!(
            "{}, {label}, run {} failed ({status}); {again}",
            step.name, step.run
        )),
    }
}
