//! `shootout bench`'s options, and everything checked before anything runs.

use std::ffi::OsString;
use std::path::PathBuf;

use super::failure::Failure;
use super::plan::{self, Prefix};
use crate::fetch;
use crate::measure::args::SharedArgs;
use crate::measure::Unit;
use crate::model::Feed;
use crate::report;

/// Runs per input and prefix unless `--runs` says otherwise: the run is the verdict's unit of
/// replication (`report::resolution`). Under the two default labels they make 12 pairs for a
/// gate, enough for Holm over up to 204 figures (`report::significance::pairs_needed`).
/// Six fit the default run's budget on the 2-core VM (docs/BENCHMARKS.md, issue 39).
pub const DEFAULT_RUNS: u32 = 6;
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
    /// What every run is given (`--formats`, `--verify`, `--timing`, ...); `--lenient` is also
    /// given to the default inputs that need it.
    pub run: SharedArgs,
    /// What one timed unit is, passed to runs (`--unit`): each unit is a dimension of the
    /// matrix. Per-message runs keep their histograms and resume records under
    /// `<label> (per message)`, the section `report` shows them in.
    pub units: Vec<Unit>,
    pub quick: bool,
    /// `--verbose`: every run's output on the terminal as it runs, and the whole summary at the
    /// end; otherwise one line per run (its output in `logs/`) and the verdicts.
    pub verbose: bool,
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

/// A default input: a bundled capture, and whether it is read with `--lenient`.
pub struct DefaultInput {
    pub path: &'static str,
    /// Cut short at its end (as IEX published it): runs read its whole packets.
    pub lenient: bool,
}

/// A bundled capture by its bytes: its size and SHA-256.
pub struct Bundled {
    pub bytes: u64,
    pub sha256: &'static str,
}

/// The bundled captures cut short as published, known by their bytes however they are named (the
/// README's `data/DEEP10.pcap.gz`, a glob of `data/`, a copy elsewhere): `bench` reads them with
/// `--lenient`, as when it picks them itself, rather than fail the first run and leave half a
/// bench.
pub const CUT_SHORT: [Bundled; 1] = [Bundled {
    // data/DEEP10.pcap.gz
    bytes: 4_190_373,
    sha256: "bf4a9b4a73bbaee8266103cf446756645f68aae39df0bedb306f983b4ccc537e",
}];

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

/// Everything `bench` checks before it touches the file system.
pub(crate) struct Checked {
    pub inputs: Vec<PathBuf>,
    pub runs: u32,
    pub prefixes: Vec<Prefix>,
    pub date: Option<String>,
}

pub(crate) fn check(opts: &Options) -> Result<Checked, Failure> {
    let usage = |m: &str| Err(Failure::Usage(m.to_owned()));
    if opts.runs == Some(0) {
        return usage("--runs needs a positive number");
    }
    if opts.units.is_empty()
        || (1..opts.units.len()).any(|i| opts.units[..i].contains(&opts.units[i]))
    {
        return usage("--unit names each of packet and message at most once, and one at least");
    }
    check_jobs(&opts.run)?;
    if opts.date.is_some() && !opts.inputs.is_empty() {
        return usage("--date fetches the input: give either --date or INPUT files, not both");
    }
    if opts.quick && (opts.date.is_some() || !opts.inputs.is_empty()) {
        return usage("--quick generates its own input: give no INPUT and no --date with it");
    }
    check_formats(&opts.run)?;
    if let Some(dir) = &opts.resume {
        if !dir.is_dir() {
            return usage(&format!("--resume {}: no such folder", dir.display()));
        }
        if opts.out.as_ref().is_some_and(|o| o != dir) {
            return usage(
                "--out and --resume name different folders: --resume continues in its own",
            );
        }
    }
    let date = (opts.date.as_ref())
        .map(|d| fetch::parse_date(d).map_err(|e| Failure::Usage(format!("--date {d}: {e}"))))
        .transpose()?;
    let inputs = plan::resolve_inputs(&opts.inputs)?;
    let prefixes = if opts.prefixes.is_empty() {
        plan::default_prefixes(opts.run.jobs, &mut |w| eprintln!("warning: {w}"))
    } else {
        plan::explicit_prefixes(&opts.prefixes)?
    };
    if prefixes.is_empty() {
        return usage("no scheduling prefix works here");
    }
    let runs = opts
        .runs
        .unwrap_or(if opts.quick { 1 } else { DEFAULT_RUNS });
    check_gate_runs(opts, runs, prefixes.len())?;
    Ok(Checked {
        inputs,
        runs,
        prefixes,
        date,
    })
}

/// `--fail-if-slower` with fewer runs than the gate's test can fail with, however few figures
/// it tests: refused before the first run, not after them. The gate pairs runs within each
/// label and tests each input's labels pooled, so a section has at most `runs` × labels pairs
/// (one label's `runs` under `--jobs` or per message, which are never pooled); report's own
/// refusal, which knows how many figures Holm's adjustment is over, does the rest.
fn check_gate_runs(opts: &Options, runs: u32, labels: usize) -> Result<(), Failure> {
    let pooled = opts.run.jobs <= 1 && opts.units.contains(&Unit::Packet);
    let blocks = if pooled { labels.max(1) } else { 1 };
    let pairs = runs as usize * blocks;
    let least = report::significance::pairs_needed(1);
    if opts.gate.is_none() || opts.baseline.is_none() || pairs >= least {
        return Ok(());
    }
    let plural = report::stats::plural::<usize>;
    Err(Failure::Usage(format!(
        "--fail-if-slower: {} under each of {} make at most {} of runs, whose smallest \
         signed-rank p is {:.4}, not below {}; run at least {least} runs a side (--runs {})",
        plural(runs as usize, "run"),
        plural(blocks, "label"),
        plural(pairs, "pair"),
        report::significance::smallest_p(pairs),
        report::significance::ALPHA,
        least.div_ceil(blocks)
    )))
}

/// `--jobs` against the CPUs: refused here, before the first run, not by each run.
fn check_jobs(run: &SharedArgs) -> Result<(), Failure> {
    let cpus = crate::measure::affinity::allowed_cpus();
    if run.jobs > 1 {
        crate::measure::jobs::check(run.jobs, crate::stream::Share::WHOLE, &cpus)
            .map_err(|e| Failure::Usage(e.to_string()))?;
    }
    Ok(())
}

/// `--formats` against the known formats: refused here, before the first run.
fn check_formats(run: &SharedArgs) -> Result<(), Failure> {
    let Some(formats) = &run.formats else {
        return Ok(());
    };
    let known = crate::formats::names();
    if formats.is_empty() {
        return Err(Failure::Usage(
            "--formats names no format: nothing would be measured".into(),
        ));
    }
    if let Some(bad) = formats.iter().find(|f| !known.contains(&f.as_str())) {
        return Err(Failure::Usage(format!(
            "--formats: unknown format {bad:?}; known: {}",
            known.join(",")
        )));
    }
    Ok(())
}
