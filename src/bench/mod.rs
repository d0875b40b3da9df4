//! `shootout bench`: the whole shootout in one command. It runs every input `runs` times under
//! every scheduling prefix, each run a `shootout run` child of this very binary (so the code
//! measured is the code that plans), and keeps everything in one results folder:
//!
//! ```text
//! runs.csv                       one row per format per run, for every input, prefix and run
//! hist/<input>/<label>/run<i>/   HdrHistogram .hgrm files per format and side
//! summary-<input>.csv            the per-symbol aggregation every format agreed on
//! environment.txt                machine, governor, kernel, compiler, revision, load, prefixes
//! done.txt                       one line per completed run: what --resume skips
//! args                           the options the folder was started with
//! report/                        the cross-run report
//! ```
//!
//! [`plan`] decides what runs (inputs, prefixes, order), [`resume`] what already ran,
//! [`environment`] describes the machine; this file runs it and writes the report.

pub mod environment;
pub mod plan;
pub mod resume;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::fetch::{self, FetchOptions};
use crate::gen::{self, GenOptions};
use crate::measure::stored::StoredMode;
use crate::model::Feed;
use crate::output::Progress;
use crate::report;

use plan::Prefix;
use resume::Done;

/// Runs per input and prefix unless `--runs` says otherwise.
pub const DEFAULT_RUNS: u32 = 3;
/// Packets in the `--quick` input.
pub const QUICK_PACKETS: u64 = 20_000;

/// The command line of `shootout bench`, parsed.
#[derive(Debug, Clone)]
pub struct Options {
    pub inputs: Vec<PathBuf>,
    /// `None`: [`DEFAULT_RUNS`], 1 with `--quick`.
    pub runs: Option<u32>,
    /// `LABEL=COMMAND` in the order given (`--label L` is `L=`); empty: the defaults.
    pub prefixes: Vec<String>,
    pub formats: Option<Vec<String>>,
    pub verify: bool,
    /// Every run reads its input with `--lenient` (the default inputs set it where needed).
    pub lenient: bool,
    /// Which windows runs compress for the size as stored (`--stored-size`).
    pub stored: StoredMode,
    pub warmup: u64,
    /// What one timed unit is, passed to runs (`--unit`): each unit is a dimension of the
    /// matrix. Per-message runs keep their histograms and resume records under
    /// `<label> (per message)`, the section `report` shows them in.
    pub units: Vec<crate::measure::Unit>,
    /// How runs time their windows (`--timing`).
    pub timing: crate::measure::Schedule,
    /// Worker processes per run (`--jobs`): the formats split across cores.
    pub jobs: usize,
    pub quick: bool,
    pub date: Option<String>,
    pub feed: Feed,
    pub data: PathBuf,
    pub hist_url: String,
    pub out: Option<PathBuf>,
    pub resume: Option<PathBuf>,
    /// An earlier results folder (its `runs.csv`) or results CSV to compare with after the
    /// runs (`--baseline`).
    pub baseline: Option<PathBuf>,
    /// `--fail-if-slower`: regressions against [`Options::baseline`] fail the bench (exit 3).
    pub gate: Option<report::baseline::Gate>,
    /// The arguments as given after `bench`, saved in a new folder for `--resume DIR` alone.
    pub args: Vec<OsString>,
}

/// Why a bench stopped.
#[derive(Debug, thiserror::Error)]
pub enum Failure {
    /// Options that make no sense; nothing was run (exit code 2).
    #[error("{0}")]
    Usage(String),
    /// Something failed on the way (exit code 1).
    #[error("{0}")]
    Failed(String),
    /// `--fail-if-slower` found regressions against the baseline (exit code 3); the results
    /// and the report are written.
    #[error("{0}")]
    Regressed(report::baseline::Regressed),
    /// A run was stopped by a signal (exit code 128 + the signal).
    #[error("{message}")]
    Interrupted { message: String, signal: i32 },
}

impl Failure {
    pub fn exit_code(&self) -> u8 {
        match self {
            Failure::Usage(_) => 2,
            Failure::Failed(_) => 1,
            Failure::Regressed(_) => report::baseline::REGRESSION_EXIT,
            Failure::Interrupted { signal, .. } => 128u8.saturating_add(*signal as u8),
        }
    }
}

fn failed(what: impl std::fmt::Display) -> impl FnOnce(std::io::Error) -> Failure {
    move |e| Failure::Failed(format!("{what}: {e}"))
}

/// Everything `bench` checks before it touches the file system.
struct Checked {
    inputs: Vec<PathBuf>,
    runs: u32,
    prefixes: Vec<Prefix>,
    date: Option<String>,
}

fn check(opts: &Options) -> Result<Checked, Failure> {
    let usage = |m: &str| Err(Failure::Usage(m.to_owned()));
    if opts.runs == Some(0) {
        return usage("--runs needs a positive number");
    }
    if opts.units.is_empty()
        || (1..opts.units.len()).any(|i| opts.units[..i].contains(&opts.units[i]))
    {
        return usage("--unit names each of packet and message at most once, and one at least");
    }
    let cpus = crate::measure::affinity::allowed_cpus();
    let formats = opts
        .formats
        .as_ref()
        .map_or(crate::formats::names().len(), Vec::len);
    if opts.jobs > 1 {
        crate::measure::jobs::check(opts.jobs, formats, &cpus)
            .map_err(|e| Failure::Usage(e.to_string()))?;
    }
    if opts.date.is_some() && !opts.inputs.is_empty() {
        return usage("--date fetches the input: give either --date or INPUT files, not both");
    }
    if opts.quick && (opts.date.is_some() || !opts.inputs.is_empty()) {
        return usage("--quick generates its own input: give no INPUT and no --date with it");
    }
    if let Some(formats) = &opts.formats {
        let known = crate::formats::names();
        if formats.is_empty() {
            return usage("--formats names no format: nothing would be measured");
        }
        if let Some(bad) = formats.iter().find(|f| !known.contains(&f.as_str())) {
            return Err(Failure::Usage(format!(
                "--formats: unknown format {bad:?}; known: {}",
                known.join(",")
            )));
        }
    }
    if let Some(dir) = &opts.resume {
        if !dir.is_dir() {
            return Err(Failure::Usage(format!(
                "--resume {}: no such folder",
                dir.display()
            )));
        }
        if opts.out.as_ref().is_some_and(|o| o != dir) {
            return usage(
                "--out and --resume name different folders: --resume continues in its own",
            );
        }
    }
    let date = match &opts.date {
        Some(d) => {
            Some(fetch::parse_date(d).map_err(|e| Failure::Usage(format!("--date {d}: {e}")))?)
        }
        None => None,
    };
    let inputs = plan::resolve_inputs(&opts.inputs)?;
    let prefixes = if opts.prefixes.is_empty() {
        plan::default_prefixes(opts.jobs, &mut |w| eprintln!("warning: {w}"))
    } else {
        plan::explicit_prefixes(&opts.prefixes)?
    };
    if prefixes.is_empty() {
        return usage("no scheduling prefix works here");
    }
    let runs = opts
        .runs
        .unwrap_or(if opts.quick { 1 } else { DEFAULT_RUNS });
    Ok(Checked {
        inputs,
        runs,
        prefixes,
        date,
    })
}

/// A default input: a bundled capture, and whether it is read with `--lenient`.
pub struct DefaultInput {
    pub path: &'static str,
    /// Cut short at its end (as IEX published it): runs read its whole packets.
    pub lenient: bool,
}

/// The default inputs when none is given: IEX's own DEEP sample (real; its last record is cut
/// short, so it is read with `--lenient`) and the synthetic DEEP+ sample (IEX publishes none),
/// so every report shows the two workloads (price levels, orders) side by side. data/README.md
/// says what each is.
pub const DEFAULT_INPUTS: [DefaultInput; 2] = [
    DefaultInput {
        path: "data/DEEP10.pcap.gz",
        lenient: true,
    },
    DefaultInput {
        path: "data/sample-deep-plus.pcapng.gz",
        lenient: false,
    },
];

/// Runs the bench; returns after the report is written.
pub fn bench(opts: &Options) -> Result<(), Failure> {
    let Checked {
        mut inputs,
        runs,
        prefixes,
        date,
    } = check(opts)?;
    let baseline = baseline_csv(opts)?;
    let exe = std::env::current_exe()
        .map_err(|e| Failure::Failed(format!("cannot find this program's own path: {e}")))?;
    // Inputs read with --lenient: all with the option, else the default inputs that need it.
    let mut lenient: Vec<PathBuf> = Vec::new();
    if inputs.is_empty() && date.is_none() && !opts.quick {
        for default in DEFAULT_INPUTS {
            let path = PathBuf::from(default.path);
            if !path.is_file() {
                return Err(Failure::Usage(format!(
                    "{}: no such file (give INPUT files, --quick or --date)",
                    default.path
                )));
            }
            if default.lenient {
                println!(
                    "== {}: cut short at its end as published; read with --lenient (its whole packets)",
                    default.path
                );
                lenient.push(path.clone());
            }
            inputs.push(path);
        }
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
    std::fs::create_dir_all(out.join("hist")).map_err(failed(out.display()))?;
    if opts.resume.is_none() {
        resume::save_args(&out, &opts.args).map_err(failed(out.join(resume::ARGS).display()))?;
    }
    let env_path = out.join("environment.txt");
    if !env_path.exists() {
        let text = environment::capture(&exe, runs, &prefixes);
        report::write_atomically(&env_path, |w| w.write_all(text.as_bytes()))
            .map_err(failed(env_path.display()))?;
    }
    let (mut record, reconciled) =
        resume::reconcile(&out).map_err(failed(format!("{}: resuming", out.display())))?;
    if reconciled.dropped_rows > 0 {
        eprintln!(
            "note: dropped {} rows of an unfinished run from {}",
            reconciled.dropped_rows,
            resume::runs_csv(&out).display()
        );
    }
    if reconciled.dropped_done > 0 {
        eprintln!(
            "note: {} runs in {} had no rows in runs.csv; they run again",
            reconciled.dropped_done,
            out.join(resume::DONE).display()
        );
    }

    if opts.quick {
        // A small slice: generated once, deterministically, next to the results.
        let quick = out.join("quick.pcapng");
        if !quick.is_file() {
            let gen_opts = GenOptions {
                feed: Feed::Deep,
                capture: crate::capture::CaptureKind::Pcapng,
                packets: QUICK_PACKETS,
                seed: 1,
                symbols: 500,
            };
            gen::generate_file(&gen_opts, &quick)
                .map_err(|e| Failure::Failed(format!("{}: {e}", quick.display())))?;
        }
        inputs = vec![quick];
    }

    let matrix = Matrix {
        inputs: &inputs,
        lenient: &lenient,
        runs,
        prefixes: &prefixes,
    };
    run_matrix(opts, &exe, &out, &matrix, &mut record)?;
    write_report(&out, baseline.as_deref(), opts.gate)
}

/// `--baseline DIR`: DIR/runs.csv, or the CSV given; checked before anything runs.
fn baseline_csv(opts: &Options) -> Result<Option<PathBuf>, Failure> {
    let Some(given) = &opts.baseline else {
        return Ok(None);
    };
    let csv = if given.is_dir() {
        resume::runs_csv(given)
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
    let progress = std::cell::OnceCell::new();
    let fetched = fetch::fetch(&fetch_opts, |pos, total| {
        progress.get_or_init(|| Progress::new(total)).set(pos)
    });
    if let Some(p) = progress.get() {
        p.finish();
    }
    let fetched = fetched.map_err(|e| Failure::Failed(format!("fetching {date}: {e}")))?;
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

fn run_matrix(
    opts: &Options,
    exe: &Path,
    out: &Path,
    matrix: &Matrix,
    record: &mut resume::Record,
) -> Result<(), Failure> {
    let Matrix {
        inputs,
        lenient,
        runs,
        prefixes,
    } = *matrix;
    let csv = resume::runs_csv(out);
    let mut skipped = 0;
    let steps: Vec<_> = opts
        .units
        .iter()
        .flat_map(|&unit| {
            plan::steps(inputs, runs, prefixes)
                .into_iter()
                .map(move |s| (unit, s))
        })
        .collect();
    let total = steps.len();
    for (k, (unit, step)) in steps.into_iter().enumerate() {
        // Runs of several workers are kept apart from one-process runs in the report.
        let run_label = &match opts.jobs {
            1 => step.prefix.label.clone(),
            n => format!("{} ({n} jobs)", step.prefix.label),
        };
        // Where this run's histograms and resume record go: per-message runs apart, under the
        // name of the report section they land in.
        let label = &match unit {
            crate::measure::Unit::Packet => run_label.clone(),
            crate::measure::Unit::Message => format!("{run_label} (per message)"),
        };
        if record.contains(&step.name, label, step.run) {
            skipped += 1;
            continue;
        }
        let how = if step.prefix.command.is_empty() {
            String::new()
        } else {
            format!(" ({})", step.prefix.command.join(" "))
        };
        println!("== {}, {label}, run {} of {runs}{how}", step.name, step.run);
        let before = resume::len_or_zero(&csv).map_err(failed(csv.display()))?;
        let mut cmd = step.prefix.command_for(exe);
        cmd.arg("run")
            .arg(step.input)
            .arg("--csv")
            .arg(&csv)
            .arg("--warmup")
            .arg(opts.warmup.to_string());
        if let Some(formats) = &opts.formats {
            cmd.arg("--formats").arg(formats.join(","));
        }
        if opts.verify {
            cmd.arg("--verify");
        }
        if opts.lenient || lenient.iter().any(|p| p == step.input) {
            cmd.arg("--lenient");
        }
        cmd.arg("--unit").arg(unit.name());
        cmd.arg("--timing").arg(opts.timing.name());
        cmd.arg("--jobs").arg(opts.jobs.to_string());
        cmd.arg("--stored-size").arg(opts.stored.name());
        cmd.arg("--label")
            .arg(run_label)
            .arg("--hist-dir")
            .arg(
                out.join("hist")
                    .join(&step.name)
                    .join(label)
                    .join(format!("run{}", step.run)),
            )
            .arg("--summary")
            .arg(out.join(format!("summary-{}.csv", step.name)))
            .env(
                crate::output::progress::PREFIX_ENV,
                format!("run {} of {total}", k + 1),
            )
            .stdin(Stdio::null());
        let status = cmd.status().map_err(|e| {
            Failure::Failed(format!(
                "cannot start `{}`: {e}",
                step.prefix
                    .command
                    .first()
                    .map(String::as_str)
                    .unwrap_or(&exe.display().to_string())
            ))
        })?;
        let again = format!(
            "completed runs are in {} (continue: shootout bench --resume {})",
            out.display(),
            out.display()
        );
        if !status.success() {
            use std::os::unix::process::ExitStatusExt;
            if let Some(signal) = status.signal() {
                return Err(Failure::Interrupted {
                    message: format!(
                        "{}, {label}, run {} stopped by signal {signal}; {again}",
                        step.name, step.run
                    ),
                    signal,
                });
            }
            return Err(Failure::Failed(format!(
                "{}, {label}, run {} failed ({status}); {again}",
                step.name, step.run
            )));
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
        record
            .add(
                out,
                Done {
                    input: step.name.clone(),
                    label: label.clone(),
                    run: format!("run{}", step.run),
                    run_id,
                },
            )
            .map_err(failed(out.join(resume::DONE).display()))?;
        println!();
    }
    if skipped > 0 {
        println!(
            "skipped {skipped} runs already in {}",
            out.join(resume::DONE).display()
        );
    }
    Ok(())
}

/// `report/` from `runs.csv` and `hist/`, in this process; prints its summary, then the
/// comparison with `baseline` and the gate's verdict, when given.
fn write_report(
    out: &Path,
    baseline: Option<&Path>,
    gate: Option<report::baseline::Gate>,
) -> Result<(), Failure> {
    let csv = resume::runs_csv(out);
    let hist = out.join("hist");
    let report_dir = out.join("report");
    let fail = |e: &dyn std::fmt::Display| {
        Failure::Failed(format!(
            "the report failed: {e}; the results are in {} and {}/",
            csv.display(),
            hist.display()
        ))
    };
    let runs = report::load(std::slice::from_ref(&csv)).map_err(|e| fail(&e))?;
    let rows = std::fs::read_to_string(&csv)
        .map(|t| t.lines().count().saturating_sub(1))
        .unwrap_or(0);
    let summary = report::summarize(&runs);
    let against = match baseline {
        Some(b) => {
            let old = report::load(&[b.to_path_buf()]).map_err(|e| fail(&e))?;
            Some(report::baseline::compare(
                &summary,
                &report::summarize(&old),
            ))
        }
        None => None,
    };
    let files = report::write_report_with(
        &summary,
        std::slice::from_ref(&hist),
        &report_dir,
        against.as_ref(),
    )
    .map_err(|e| fail(&e))?;
    for w in &files.warnings {
        eprintln!("warning: {w}");
    }
    if let Ok(md) = std::fs::read_to_string(report_dir.join("summary.md")) {
        println!("== summary across runs");
        print!("{md}");
        if !md.ends_with('\n') {
            println!();
        }
    }
    println!("report: {}/", report_dir.display());
    println!(
        "results: {} ({rows} rows), histograms in {}/",
        csv.display(),
        hist.display()
    );
    if let Some(c) = &against {
        println!("{}", report::baseline::text(c).trim_end());
        if let Some(gate) = gate {
            let (lines, failed) = report::baseline::check(c, gate);
            println!("{}", lines.trim_end());
            if let Some(failed) = failed {
                return Err(Failure::Regressed(failed));
            }
        }
    }
    Ok(())
}
