//! The `shootout` command line: its options, and a call into the library per command.

// The doc comments below are clap's `--help` text, read in a terminal: `<ts>` there is a
// placeholder, not HTML.
#![allow(rustdoc::invalid_html_tags)]

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{ArgMatches, Args, CommandFactory, FromArgMatches, Parser, Subcommand};

use md_shootout::bench;
use md_shootout::capability::{self, Requirement};
use md_shootout::capture::CaptureKind;
use md_shootout::export::{self, RunInfo, RunReport};
use md_shootout::fetch::{self, FetchOptions};
use md_shootout::gen::{self, GenOptions};
use md_shootout::inspect;
use md_shootout::measure::{
    self,
    args::{positive, InstructionsArg, RunArgs, SharedArgs, UnitArg},
    instructions::{self, Counting, Source, Want},
};
use md_shootout::model::Feed;
use md_shootout::report;

/// Counts each thread's allocations (one thread-local add each), so that a run reports what
/// every format allocates per unit; see `md_shootout::alloc_count` for what that costs.
#[global_allocator]
static ALLOCATOR: md_shootout::alloc_count::CountingAlloc = md_shootout::alloc_count::CountingAlloc;

#[derive(Parser)]
#[command(
    name = "shootout",
    version,
    about = "Which binary encoding should carry my market data?"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Stream a capture (pcap or pcapng, gzip'd or not) and report what is in it, and its shape
    /// (messages per packet, type mix, trading per symbol, heartbeats, message sizes, send-time
    /// gaps: the profile `gen --like` reproduces).
    Inspect(InspectArgs),
    /// Feed every packet of FILE to every format; time each packet's serialize and deserialize.
    Run(RunCommand),
    /// Join the parts `run --shard I/N --part FILE` wrote (on any hosts) into one run's result:
    /// checked to cover the input once, with one binary and one set of options.
    #[command(long_about = MERGE_ABOUT)]
    Merge(MergeArgs),
    /// Summarize results CSVs (any number, any days or machines) into tables, charts and warnings.
    Report(ReportArgs),
    /// Write a deterministic synthetic IEX day (gzip'd when FILE ends in .gz).
    Gen(GenArgs),
    /// The whole shootout: every input, several runs, under each scheduling prefix, into one
    /// results folder, then the report.
    #[command(
        long_about = BENCH_ABOUT,
        after_help = BENCH_AFTER,
        override_usage = "shootout bench [OPTIONS] [INPUT]...\n       shootout bench --resume DIR [OPTIONS]",
        // Where bench's runs differ from `run`'s defaults, and why.
        mut_arg("timing", |a| a.help(BENCH_TIMING)),
        mut_arg("warmup", |a| a.default_value("1000")),
        mut_arg("lenient", |a| a.help(BENCH_LENIENT)),
        mut_arg("jobs", |a| a.help(bench::help::jobs())),
        mut_arg("prefix", |a| a.help(bench::help::prefix())),
        mut_arg("runs", |a| a.help(bench::help::runs())),
        mut_arg("quick", |a| a.help(bench::help::quick())),
        mut_arg("inputs", |a| a.help(bench::help::inputs())),
    )]
    Bench(BenchArgs),
    /// Download one day of IEX HIST data (resumes a partial download; checks the size).
    Fetch(FetchArgs),
    /// What rules a format in or out besides speed, checked now (seconds): a schema with code
    /// generation, zero-copy, validation of untrusted input, schema evolution both ways, and
    /// which other languages' reference implementations read its bytes exactly.
    Formats(FormatsArgs),
}

#[derive(Args)]
struct FormatsArgs {
    /// Print one JSON array (an object per format) instead of the table.
    #[arg(long)]
    json: bool,
    /// Also write the rows as JSON to FILE, whole or not at all (what `report` reads).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Folder for the cross-language checks' files (encoded packets, the compiled SBE Java
    /// decoders, reused while the schema is unchanged) [default: md-shootout-formats in the
    /// system's temporary folder].
    #[arg(long, value_name = "DIR")]
    scratch: Option<PathBuf>,
}

#[derive(Args)]
struct InspectArgs {
    file: PathBuf,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Count and skip malformed frames and segments instead of stopping at the first, and
    /// read the whole packets of a capture cut short at its end (with a warning).
    #[arg(long)]
    lenient: bool,
}

#[derive(Args)]
struct RunCommand {
    file: PathBuf,
    /// Append one row per format to this CSV (header written once).
    #[arg(long)]
    csv: Option<PathBuf>,
    /// Write the per-symbol aggregation all formats agreed on.
    #[arg(long)]
    summary: Option<PathBuf>,
    /// Write each format's latency distribution per side as .hgrm files here.
    #[arg(long)]
    hist_dir: Option<PathBuf>,
    /// Free text stored in the CSV `label` column (e.g. the CPU pinning used).
    #[arg(long, default_value = "")]
    label: String,
    #[command(flatten)]
    measure: RunArgs,
    /// Write this run's result as a part for `shootout merge` (JSON, histograms included), whole
    /// or not at all. Needed with --shard.
    #[arg(long, value_name = "FILE")]
    part: Option<PathBuf>,
    /// Internal: run as a `--jobs` worker pinned to this CPU (JSON results on stdout).
    #[arg(long, hide = true, conflicts_with = "jobs")]
    worker_cpu: Option<usize>,
    /// Internal: run under Callgrind for a parent's `--instructions` (each batch pass dumped;
    /// nothing written).
    #[arg(long, hide = true)]
    callgrind_child: bool,
}

const MERGE_ABOUT: &str = "Join the parts `run --shard I/N --part FILE` wrote into one run's \
result, the same in form as one `run` of the whole input: DIR/results.csv (the rows `run --csv` \
writes), DIR/summary.csv (as --summary), DIR/hist/ (as --hist-dir), and the results table.

The parts must be of one run: the same input (size and digest), the same binary, the same \
options (order seed and --chunk included), shards 1/N to N/N each once, and chunks that chain \
from the capture's first record to its last. A set that is not is refused in one line naming \
what differs or is missing, and nothing is written.";

#[derive(Args)]
struct MergeArgs {
    /// The part files (`run --shard I/N --part FILE`), in any order.
    #[arg(required = true, value_name = "PART")]
    parts: Vec<PathBuf>,
    /// Folder for results.csv, summary.csv and hist/ (created if missing; an existing
    /// results.csv there is refused rather than appended to).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

/// A refusal (a set of parts that is not one run, a mix that names no type): exit 2, one line,
/// nothing written.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct Refused(String);

#[derive(Args)]
struct ReportArgs {
    /// Results CSVs written by `run --csv` (e.g. results/<ts>/runs.csv).
    #[arg(required = true)]
    csvs: Vec<PathBuf>,
    /// Folder for summary.csv, summary.md, the SVG charts and index.html (created if missing).
    #[arg(long)]
    out: PathBuf,
    /// Folders holding <input file name>/<run>/<format>.<ser|de>.hgrm (repeatable; default:
    /// hist/ next to each CSV).
    #[arg(long)]
    hist_dir: Vec<PathBuf>,
    /// Also write the summary as Bencher Metric Format JSON (one benchmark per
    /// input/label/format; value, lower_value and upper_value across runs).
    #[arg(long, value_name = "FILE")]
    bmf: Option<PathBuf>,
    /// Results CSV(s) to compare against (repeatable): each format's ratio to the baseline
    /// with both sides' spreads, "no change" where they overlap, and its change normalized over
    /// runs paired within each label, with a one-sided signed-rank p.
    #[arg(long, value_name = "OLD.csv")]
    baseline: Vec<PathBuf>,
    /// The verdict only among the formats that meet every requirement (comma-separated: schema,
    /// evolution, cross-language, zero-copy, no-alloc, validated); the others are listed with
    /// the reason each was left out. Needs the formats' capabilities (see --capabilities).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_requirement)]
    require: Vec<Requirement>,
    /// Also rank the formats that trust their producer (flatbuffers-unverified, rkyv-unchecked:
    /// decoding without the verifier, sound only on bytes from a producer you trust), which the
    /// verdict otherwise leaves out; each is always shown beside its checked twin.
    #[arg(long)]
    trusted_producer: bool,
    /// Also rank the lossy formats (dbn: records with no slot for some IEX fields, checked
    /// against what they carry), which the verdict otherwise leaves out: not the same work.
    #[arg(long)]
    lossy: bool,
    /// The formats' capabilities, as `shootout formats --out FILE` writes them [default:
    /// formats.json beside the first CSV that has one, as bench leaves it].
    #[arg(long, value_name = "FILE")]
    capabilities: Option<PathBuf>,
    /// Another feed's mix of message types (`add_order=0.45,order_delete=0.35,trade_report=0.2`:
    /// names, a word of one name, or type bytes; shares normalized): the figures per message type
    /// of `--unit message` runs re-weighted into a verdict for that mix. A re-weighting of IEX
    /// messages measured one at a time, not a measurement of that feed.
    #[arg(long, value_name = "TYPE=SHARE,...", conflicts_with = "mix_like")]
    mix: Option<String>,
    /// As --mix, with the mix of the messages in CAPTURE (the shares `inspect` counts).
    #[arg(long, value_name = "CAPTURE")]
    mix_like: Option<PathBuf>,
    #[command(flatten)]
    gate: GateArgs,
}

fn parse_requirement(text: &str) -> Result<Requirement, String> {
    text.parse()
}

#[derive(Args)]
struct GenArgs {
    /// Output file; written to a temporary name and renamed when complete.
    #[arg(long)]
    out: PathBuf,
    #[arg(long, value_enum, default_value_t = FeedArg::Deep)]
    feed: FeedArg,
    #[arg(long, value_enum, default_value_t = CaptureKind::Pcapng)]
    capture: CaptureKind,
    /// IEX-TP segments to write (2.37 messages each on average; see --day for a 2026-size
    /// day) [default: 100000, or with --like the capture's own packet count].
    #[arg(long)]
    packets: Option<u64>,
    /// A day the size of a 2026 IEX day: 190,000,000 packets (about 450M messages, 37 GB)
    /// for DEEP, 211,000,000 (about 500M messages, 42 GB) for DEEP+; no preset for TOPS.
    /// With --like, the same messages at the capture's messages per packet.
    #[arg(long, conflicts_with = "packets")]
    day: bool,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Distinct symbols traded.
    #[arg(long, default_value_t = 500)]
    symbols: usize,
    /// Reproduce the shape of this capture (its feed, messages per packet, type mix, trading
    /// per symbol, symbol count, heartbeats and send-time gaps, as `inspect` profiles them)
    /// instead of the built-in day; the feed and symbols are the capture's.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["feed", "symbols"])]
    like: Option<PathBuf>,
    /// With --like: read a capture with damaged frames or cut short at its end as `inspect
    /// --lenient` does.
    #[arg(long, requires = "like")]
    lenient: bool,
    /// Print what was written as one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct FetchArgs {
    /// The trading day: YYYYMMDD or YYYY-MM-DD.
    date: String,
    #[arg(long, value_enum, default_value_t = FeedArg::Deep)]
    feed: FeedArg,
    /// Directory to write into (the file keeps its published name).
    #[arg(long, default_value = "data")]
    out: PathBuf,
    /// The HIST index (JSON keyed by date).
    #[arg(long, default_value = fetch::DEFAULT_HIST_URL)]
    hist_url: String,
}

const BENCH_ABOUT: &str = "\
The whole shootout: runs every format over each input --runs times under each scheduling prefix
(by default plain and pinned to a CPU: see --prefix), each run a `shootout run` of this same
binary, then writes the report. Everything goes under results/<UTC timestamp>/ (or --out):
  runs.csv                       one row per format per run, for every input, prefix and run
  hist/<input>/<label>/run<i>/   HdrHistogram .hgrm files per format and side
  summary-<input>.csv            the per-symbol aggregation every format agreed on
  environment.txt                machine, governor, kernel, compiler, revision, load, prefixes
  done.txt                       one line per completed (input, label, run): what --resume skips
  report/                        the cross-run report (`shootout report`)";

const BENCH_AFTER: &str = "\
A killed or interrupted bench keeps every completed run: `--resume DIR` continues it and runs each
missing run once. Options that make no sense are refused with one line and exit code 2; with
--baseline and --fail-if-slower, a significant regression exits with code 3 (results kept).
./run_shootout.sh sets up the code generators, builds, runs this from the repository root
(relative paths are relative to it) and passes every argument on.";

/// `bench --timing`: the same option as `run`'s, with its own default.
const BENCH_TIMING: &str =
    "How windows are timed (see `shootout run --help`). Default `alternate`, \
as `run`: half the work per run, so that the default bench fits six runs per section in its budget \
(the run is what the verdict's interval counts). `both` doubles the per-unit samples, so that the \
p99.9 of a short input (the DEEP+ sample) rests on enough of them to be ranked";

const BENCH_LENIENT: &str = "Runs read every input with --lenient (see `shootout run --help`): a \
capture cut short at its end is measured on its whole packets. The bundled DEEP10.pcap.gz is read \
so anyway, by default or named, or a copy (it is cut short as IEX published it; bench knows it \
by its bytes)";

#[derive(Args)]
struct BenchArgs {
    /// Capture files (help: `bench::help::inputs`, written from the defaults the code runs).
    #[arg(value_name = "INPUT")]
    inputs: Vec<PathBuf>,
    /// Runs per input and prefix (help: `bench::help::runs`).
    #[arg(long, value_name = "N", value_parser = positive::<u32>, allow_hyphen_values = true)]
    runs: Option<u32>,
    /// Scheduling prefixes `L=CMD` (help: `bench::help::prefix`).
    #[arg(long, value_name = "L=CMD", allow_hyphen_values = true)]
    prefix: Vec<String>,
    /// Same as --prefix T= (no command); repeatable, in order with --prefix.
    #[arg(long, value_name = "T")]
    label: Vec<String>,
    #[command(flatten)]
    run: SharedArgs,
    /// What one timed unit is (see `shootout run --help`); `packet,message` runs the matrix
    /// for both.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "packet")]
    unit: Vec<UnitArg>,
    /// A small generated input (help: `bench::help::quick`).
    #[arg(long)]
    quick: bool,
    /// `shootout fetch DATE` into --data first (YYYYMMDD or YYYY-MM-DD), then run it.
    #[arg(long, value_name = "DATE")]
    date: Option<String>,
    /// The feed for --date.
    #[arg(long, value_enum, default_value_t = FeedArg::Deep, requires = "date")]
    feed: FeedArg,
    /// Where --date puts the file.
    #[arg(long, value_name = "DIR", default_value = "data", requires = "date")]
    data: PathBuf,
    /// The HIST index --date looks the day up in.
    #[arg(long, value_name = "URL", default_value = fetch::DEFAULT_HIST_URL, requires = "date")]
    hist_url: String,
    /// The results folder [default: results/<UTC timestamp>].
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Continue an interrupted bench in DIR: runs listed in DIR/done.txt are skipped. Alone, it
    /// reuses the options DIR was started with (DIR/args).
    #[arg(long, value_name = "DIR")]
    resume: Option<PathBuf>,
    /// An earlier results folder (its runs.csv) or results CSV: after the runs, each format is
    /// compared with it as `report --baseline` does.
    #[arg(long, value_name = "DIR")]
    baseline: Option<PathBuf>,
    #[command(flatten)]
    gate: GateArgs,
    /// Show every run's own output (its tables, notes and warnings) as it runs, and the whole
    /// summary.md at the end, instead of one line per run and the verdicts; the files hold all
    /// of it either way (each run's output in the results folder's logs/).
    #[arg(long)]
    verbose: bool,
}

/// `--fail-if-slower PCT [--fail-on ranking|all]`, for `report` and `bench`.
#[derive(Args)]
struct GateArgs {
    /// With --baseline: exit with code 3 when a format's ranking figure (ser + de_all batch) is
    /// significantly slower than the baseline's and the runs cannot show the slowdown below PCT
    /// percent (PCT is the slowdown the gate must not let through): runs paired by position
    /// within each label, each format's new/old over the median of its pair's formats (the
    /// machine's share cancels), one-sided Wilcoxon signed-rank tests, Holm-adjusted p < 0.05
    /// over the figures gated, Hodges–Lehmann change. One line per regression; improvements
    /// never fail; run counts too few to fail are refused.
    #[arg(long, value_name = "PCT", requires = "baseline", value_parser = percent)]
    fail_if_slower: Option<f64>,
    /// What --fail-if-slower looks at: `ranking` (the figure the report ranks by) or `all` (also
    /// ser batch, de batch and de_all batch each on its own).
    #[arg(long, value_enum, default_value_t = FailOnArg::Ranking, requires = "fail_if_slower")]
    fail_on: FailOnArg,
    /// With --baseline: exit with code 3 when a format's instructions per unit (ser, de or
    /// de_all batch, median across the runs that counted them with --instructions) grew by more
    /// than PCT percent. Counts of two sources (pmu, callgrind) are never compared; a baseline
    /// with nothing to compare is refused (exit code 2).
    #[arg(long, value_name = "PCT", requires = "baseline", value_parser = percent)]
    fail_if_more_instructions: Option<f64>,
}

impl GateArgs {
    fn gate(&self) -> Option<report::baseline::Gate> {
        self.fail_if_slower.map(|pct| report::baseline::Gate {
            pct,
            on: match self.fail_on {
                FailOnArg::Ranking => report::baseline::FailOn::Ranking,
                FailOnArg::All => report::baseline::FailOn::All,
            },
        })
    }
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum FailOnArg {
    Ranking,
    All,
}

fn percent(text: &str) -> Result<f64, String> {
    match text.trim_end_matches('%').parse::<f64>() {
        Ok(p) if p.is_finite() && p >= 0.0 => Ok(p),
        _ => Err("needs a percentage of 0 or more (e.g. 10)".into()),
    }
}

impl BenchArgs {
    /// The options, with --prefix and --label in the order given (`matches` holds their
    /// positions) and the arguments as given.
    fn into_options(self, matches: &ArgMatches, args: Vec<OsString>) -> bench::Options {
        let mut prefixes: Vec<(usize, String)> = Vec::new();
        if let Some(at) = matches.indices_of("prefix") {
            prefixes.extend(at.zip(self.prefix));
        }
        if let Some(at) = matches.indices_of("label") {
            prefixes.extend(at.zip(self.label.into_iter().map(|l| format!("{l}="))));
        }
        prefixes.sort_by_key(|(i, _)| *i);
        bench::Options {
            inputs: self.inputs,
            runs: self.runs,
            prefixes: prefixes.into_iter().map(|(_, p)| p).collect(),
            run: self.run,
            units: self.unit.into_iter().map(Into::into).collect(),
            quick: self.quick,
            verbose: self.verbose,
            date: self.date,
            feed: self.feed.into(),
            data: self.data,
            hist_url: self.hist_url,
            out: self.out,
            resume: self.resume,
            gate: self.gate.gate(),
            baseline: self.baseline,
            args,
        }
    }
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum FeedArg {
    Deep,
    Tops,
    /// DEEP+ 1.0, order by order.
    DeepPlus,
}

impl From<FeedArg> for Feed {
    fn from(feed: FeedArg) -> Feed {
        match feed {
            FeedArg::Deep => Feed::Deep,
            FeedArg::DeepPlus => Feed::DeepPlus,
            FeedArg::Tops => Feed::Tops,
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == "bench") {
        return match parse_bench(&args) {
            Ok(opts) => match bench::bench(&opts) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::from(e.exit_code())
                }
            },
            Err(e) => e,
        };
    }
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) => return refuse(e),
    };
    let done = match cli.command {
        Command::Inspect(args) => args.run(),
        Command::Run(args) => args.run(),
        Command::Merge(args) => args.run(),
        Command::Report(args) => args.run(),
        Command::Gen(args) => args.run(),
        Command::Fetch(args) => args.run(),
        Command::Formats(args) => args.run(),
        Command::Bench(_) => unreachable!("main runs bench itself"),
    };
    let Err(e) = done else {
        return ExitCode::SUCCESS;
    };
    use report::{baseline, instructions};
    // A refusal exits 2, a regression the gate's code; either is said in one line.
    let refused = e.is::<Refused>()
        || e.is::<baseline::GateRefused>()
        || e.is::<instructions::NothingCompared>();
    let regressed = e.is::<baseline::Regressed>() || e.is::<instructions::Grew>();
    let code = match (refused, regressed) {
        (true, _) => 2,
        (_, true) => baseline::REGRESSION_EXIT,
        _ => {
            eprintln!("error: {e:#}");
            return ExitCode::FAILURE;
        }
    };
    eprintln!("error: {e}");
    ExitCode::from(code)
}

/// A usage error as one line on stderr and exit code 2: clap's message up to its first blank
/// line (the tips and usage after it are left out), joined. Help and version are printed whole.
fn refuse(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind::*;
    if matches!(
        e.kind(),
        DisplayHelp | DisplayVersion | DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        e.exit()
    }
    let text = e.render().to_string();
    let message: Vec<&str> = text
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .map(str::trim)
        .collect();
    eprintln!("{}", message.join(" "));
    ExitCode::from(2)
}

/// `shootout bench ...`: `--resume DIR` alone takes the options DIR was started with. A
/// refusal is one line and exit code 2 ([`refuse`]); help is printed whole.
fn parse_bench(args: &[OsString]) -> Result<bench::Options, ExitCode> {
    let parse = |args: &[OsString]| -> Result<bench::Options, ExitCode> {
        let matches = Cli::command().try_get_matches_from(args).map_err(refuse)?;
        let cli = Cli::from_arg_matches(&matches).map_err(refuse)?;
        let (Command::Bench(bench_args), Some(sub)) =
            (cli.command, matches.subcommand_matches("bench"))
        else {
            unreachable!("argv[1] is bench");
        };
        Ok(bench_args.into_options(sub, args[2..].to_vec()))
    };
    let mut opts = parse(args)?;
    let given = &args[2..];
    let alone = match given {
        [flag, _] => flag == "--resume",
        [flag] => flag.to_string_lossy().starts_with("--resume="),
        _ => false,
    };
    if let (true, Some(dir)) = (alone, opts.resume.clone()) {
        let saved = bench::resume::saved_args(&dir).map_err(|e| {
            eprintln!("error: {}: {e}", dir.join(bench::resume::ARGS).display());
            ExitCode::from(2)
        })?;
        if let Some(saved) = saved {
            let mut again = args[..2].to_vec();
            again.extend(saved);
            let n = again.len();
            again.extend(["--resume".into(), dir.clone().into_os_string()]);
            let mut resumed = parse(&again)?;
            // The folder is the one being resumed, whatever --out it was started with.
            resumed.out = None;
            resumed.args = again[2..n].to_vec();
            opts = resumed;
        }
    }
    Ok(opts)
}

impl InspectArgs {
    fn run(self) -> anyhow::Result<()> {
        let report = inspect::inspect(&self.file, self.lenient)?;
        let text = if self.json {
            serde_json::to_string_pretty(&report)?
        } else {
            report.to_text()
        };
        print(&text)
    }
}

impl RunCommand {
    fn run(self) -> anyhow::Result<()> {
        let (file, lenient) = (&self.file, self.measure.shared.lenient);
        let mut config = self.measure.config();
        if self.callgrind_child {
            config.counting = Some(Counting::CallgrindChild);
            config.check()?;
            measure::run_file(file, &config, lenient)?;
            return Ok(());
        }
        let source = Want::from(self.measure.shared.instructions).resolve()?;
        config.counting = (source == Some(Source::Pmu)).then_some(Counting::Pmu);
        let share = config.chunking.share;
        if !share.is_whole() && self.worker_cpu.is_none() {
            if self.part.is_none() {
                anyhow::bail!("--shard {share} needs --part FILE: where the share's result goes for `shootout merge`");
            }
            if self.measure.order_seed.is_none() {
                // Every share must take the same turns: a seed from the input, not a fresh one.
                config.order_seed = seed_of(file)?;
            }
        }
        // Settings that would measure nothing are refused before the file is opened.
        config.check()?;
        if let Some(cpu) = self.worker_cpu {
            return Ok(measure::jobs::work(file, &config, lenient, cpu)?);
        }
        let info = RunInfo::collect(file, &self.label);
        let mut outcome = match self.measure.shared.jobs {
            1 => measure::run_file(file, &config, lenient)?,
            jobs => measure::jobs::run(file, &config, lenient, jobs)?,
        };
        if source == Some(Source::Callgrind) {
            eprintln!(
                "counting instructions under Callgrind (the same run once more, untimed) ..."
            );
            instructions::child::count(file, &config, lenient, &mut outcome)?;
        }
        if let Some(path) = &self.part {
            let part = export::part::Part {
                version: export::part::PART_VERSION,
                input: export::part::InputId::of(file).map_err(at(file))?,
                binary: export::part::binary_digest()?,
                options: {
                    let mut args = measure::args::RunArgs::of(&config, lenient);
                    args.shard = None;
                    // Shares may count instructions on hosts with and without counters.
                    args.shared.instructions = InstructionsArg::Auto;
                    args.to_args()
                        .iter()
                        .map(|a| a.to_string_lossy().into_owned())
                        .collect()
                },
                info: info.clone(),
                report: measure::merge::Report::new(outcome, None),
            };
            export::part::write(path, &part).map_err(at(path))?;
            // The table below reads the outcome back from the part (its only owner now).
            outcome = part.report.restore()?;
        }
        let (csv, summary) = (self.csv.as_deref(), self.summary.as_deref());
        write_outputs(&outcome, &info, [csv, summary, self.hist_dir.as_deref()])
    }
}

/// The results files asked for (`run`'s --csv, --summary and --hist-dir), and the table.
fn write_outputs(
    outcome: &measure::Outcome,
    info: &RunInfo,
    [csv, summary, hist_dir]: [Option<&Path>; 3],
) -> anyhow::Result<()> {
    let report = &RunReport { outcome, info };
    if let Some(path) = csv {
        export::csv::append(path, report).map_err(at(path))?;
    }
    if let Some(path) = summary {
        export::aggregation::write(path, report).map_err(at(path))?;
    }
    if let Some(dir) = hist_dir {
        export::hgrm::write_all(dir, report).map_err(at(dir))?;
    }
    print(export::table::render(report).trim_end())
}

/// The order seed of a sharded run without `--order-seed`: from the input's digest, so that
/// every shard of one input takes the same turns.
fn seed_of(file: &Path) -> anyhow::Result<u64> {
    let digest = export::part::sampled_digest(file).map_err(at(file))?;
    let hex = digest.rsplit(':').next().unwrap_or_default();
    Ok(u64::from_str_radix(&hex[..16.min(hex.len())], 16).unwrap_or(0))
}

impl MergeArgs {
    fn run(self) -> anyhow::Result<()> {
        let mut parts = Vec::with_capacity(self.parts.len());
        for path in &self.parts {
            let part = export::part::read(path).map_err(Refused)?;
            parts.push((path.clone(), part));
        }
        let mut workers: Vec<measure::Worker> = (parts.iter())
            .map(|(_, p)| p.report.worker(p.report.outcome.wall_ns))
            .collect();
        let (mut outcome, info) = export::part::join(parts).map_err(Refused)?;
        workers.sort_by_key(|w| w.share.index);
        outcome.workers = workers;
        let csv = self.out.join("results.csv");
        if csv.exists() {
            return Err(Refused(format!(
                "{} exists: merge into a new folder (a merged run is written whole, never appended)",
                csv.display()
            ))
            .into());
        }
        std::fs::create_dir_all(&self.out).map_err(at(&self.out))?;
        let (summary, hist) = (self.out.join("summary.csv"), self.out.join("hist"));
        write_outputs(
            &outcome,
            &info,
            [&csv, &summary, &hist].map(|p| Some(p.as_path())),
        )
    }
}

impl ReportArgs {
    fn run(self) -> anyhow::Result<()> {
        let mix = match (&self.mix, &self.mix_like) {
            (Some(text), _) => Some(report::by_type::Mix::parse(text)),
            (None, Some(capture)) => Some(report::by_type::Mix::like(capture)),
            (None, None) => None,
        };
        let mix = mix.transpose().map_err(Refused)?;
        let runs = report::load(&self.csvs)?;
        let types = report::by_type::Types::of(&runs, mix).map_err(Refused)?;
        let summary = report::summarize(&runs);
        let old = if self.baseline.is_empty() {
            None
        } else {
            Some(report::summarize(&report::load(&self.baseline)?))
        };
        let on = self.gate.gate().map(|g| g.on).unwrap_or_default();
        let against = (old.as_ref()).map(|old| report::baseline::compare(&summary, old, on));
        // A gate that cannot fail is refused before anything is written or printed.
        if let (Some(c), Some(_)) = (&against, self.gate.gate()) {
            if let Some(refused) = report::baseline::refusal(c) {
                return Err(refused.into());
            }
        }
        // `requires = "baseline"`: a gate always has a baseline.
        let instructions = match (self.gate.fail_if_more_instructions, &old) {
            (Some(pct), Some(old)) => Some(report::instructions::check(&summary, old, pct)?),
            _ => None,
        };
        let mut decision = report::decision::Decision::load(
            &self.csvs,
            self.capabilities.as_deref(),
            self.require.clone(),
        )?;
        use md_shootout::export::caveat::{Caveat, Caveats};
        decision.admitted = Caveats::default()
            .with_if(Caveat::TrustsProducer, self.trusted_producer)
            .with_if(Caveat::Lossy, self.lossy);
        let files = report::write_report_with(
            &summary,
            &self.hist_dir,
            &self.out,
            against.as_ref(),
            &decision,
            &types,
        )?;
        if let Some(path) = &self.bmf {
            report::bmf::write(&summary, path)?;
        }
        // One line per kind of warning; each single warning is in summary.md and index.html.
        for g in report::warnings::group(&files.warnings, &summary) {
            eprintln!("warning: {}", g.summary);
        }
        if let Some(c) = &against {
            print(report::baseline::text(c).trim_end())?;
        }
        if let Some((mix, each)) = &types.mix {
            print(&format!("mix ({}): {}", mix.from, mix.text()))?;
            for line in each.iter().filter_map(|m| m.finding(&decision)) {
                print(&line)?;
            }
        }
        print(&format!(
            "wrote {} files to {}; open {}",
            files.files.len(),
            self.out.display(),
            files.index.display()
        ))?;
        // `requires = "baseline"`: a gate always has a comparison. Both gates print before
        // either fails.
        let mut failed: Option<anyhow::Error> = None;
        if let (Some(c), Some(gate)) = (&against, self.gate.gate()) {
            let (lines, regressed) = report::baseline::check(c, gate);
            print(lines.trim_end())?;
            failed = regressed.map(Into::into);
        }
        if let Some((lines, grew)) = instructions {
            print(lines.trim_end())?;
            failed = failed.or(grew.map(Into::into));
        }
        failed.map_or(Ok(()), Err)
    }
}

impl FormatsArgs {
    fn run(self) -> anyhow::Result<()> {
        let scratch = self
            .scratch
            .unwrap_or_else(capability::assess::default_scratch);
        let rows = capability::assess::assess_sample(&scratch).map_err(anyhow::Error::msg)?;
        if let Some(path) = &self.out {
            export::capabilities::write(&rows, path).map_err(at(path))?;
        }
        if self.json {
            print(&export::capabilities::json(&rows))
        } else {
            print(export::capabilities::render(&rows).trim_end())
        }
    }
}

impl GenArgs {
    fn run(self) -> anyhow::Result<()> {
        let shape = (self.like.as_deref())
            .map(|path| like_shape(path, self.lenient))
            .transpose()?;
        let feed = shape.as_ref().map_or(Feed::from(self.feed), |s| s.feed);
        let packets = match (&shape, self.day) {
            (Some(shape), true) => shape.day_packets().map_err(|e| anyhow::anyhow!("{e}"))?,
            (None, true) => gen::day::day_packets(feed).ok_or_else(|| {
                anyhow::anyhow!("--day has no preset for {feed}: use --packets N")
            })?,
            (Some(shape), false) => self.packets.unwrap_or(shape.packets),
            (None, false) => self.packets.unwrap_or(100_000),
        };
        let opts = GenOptions {
            feed,
            capture: self.capture,
            packets,
            seed: self.seed,
            symbols: self.symbols,
        };
        let out = &self.out;
        let report = gen::generate_file_like(&opts, shape.as_ref(), out).map_err(at(out))?;
        let text = if self.json {
            serde_json::to_string_pretty(&report)?
        } else {
            let like = self
                .like
                .as_ref()
                .map_or_else(String::new, |p| format!(" like {}", p.display()));
            format!(
                "wrote {}: {} packets ({} heartbeats), {} messages, {} symbols, {} bytes of \
                 {}{like}",
                out.display(),
                report.packets,
                report.heartbeats,
                report.messages,
                report.symbols,
                report.bytes,
                report.feed
            )
        };
        print(&text)
    }
}

impl FetchArgs {
    fn run(self) -> anyhow::Result<()> {
        let opts = FetchOptions {
            date: fetch::parse_date(&self.date)?,
            feed: self.feed.into(),
            out_dir: self.out,
            hist_url: self.hist_url,
        };
        let fetched = fetch::fetch_showing_progress(&opts)?;
        let how = if fetched.already_present {
            " (already complete)".to_string()
        } else if fetched.resumed_from > 0 {
            format!(" (resumed from byte {})", fetched.resumed_from)
        } else {
            String::new()
        };
        print(&format!(
            "{} ({} bytes){how}",
            fetched.path.display(),
            fetched.bytes
        ))
    }
}

/// An output's error, prefixed with its path.
fn at<E: std::fmt::Display>(path: &Path) -> impl FnOnce(E) -> anyhow::Error + '_ {
    move |e| anyhow::anyhow!("{}: {e}", path.display())
}

/// The shape of the capture at `path` for `gen --like`: one `inspect` pass.
fn like_shape(path: &Path, lenient: bool) -> anyhow::Result<gen::Shape> {
    // A capture cut short and read with --lenient is warned about as it is read.
    let inspection = inspect::inspect(path, lenient)?;
    let feed = match inspection.feed {
        Some("deep") => Feed::Deep,
        Some("tops") => Feed::Tops,
        Some("deep-plus") => Feed::DeepPlus,
        Some(_) => anyhow::bail!(
            "{}: --like needs a capture of one feed; this one mixes several",
            path.display()
        ),
        None => anyhow::bail!(
            "{}: --like found no IEX-TP segment to take a shape from",
            path.display()
        ),
    };
    Ok(gen::Shape::new(
        &inspection.profile,
        feed,
        inspection.symbols,
    ))
}

/// Prints to stdout; a closed pipe (`| head`) is not an error worth a panic or a message.
fn print(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use md_shootout::measure::args::TimingArg;

    fn bench_options(args: &[&str]) -> bench::Options {
        let args: Vec<OsString> = ["shootout", "bench"]
            .iter()
            .chain(args)
            .map(OsString::from)
            .collect();
        parse_bench(&args).unwrap_or_else(|_| panic!("{args:?} is refused"))
    }

    #[test]
    fn bench_keeps_its_own_defaults_for_the_shared_options() {
        let opts = bench_options(&[]);
        // Timing as `run` has it since issue 39 (six runs a section in the budget); warm-up its own.
        assert_eq!(opts.run.timing, TimingArg::Alternate);
        assert_eq!(opts.run.warmup, 1000);
        // The rest as `run` has them.
        let run = RunArgs::default().shared;
        assert_eq!((opts.run.jobs, opts.run.verify), (run.jobs, run.verify));
        assert_eq!((run.timing, run.warmup), (TimingArg::Alternate, 0));
        // Given, they are taken as given.
        let opts = bench_options(&["--timing", "both", "--warmup", "5", "--verify"]);
        assert_eq!(opts.run.timing, TimingArg::Both);
        assert_eq!(opts.run.warmup, 5);
        assert!(opts.run.verify);
    }
}
