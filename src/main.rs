//! The `shootout` command line. Everything it does lives in the library.

// The doc comments below are clap's `--help` text, read in a terminal: `<ts>` there is a
// placeholder, not HTML.
#![allow(rustdoc::invalid_html_tags)]

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{ArgMatches, Args, CommandFactory, FromArgMatches, Parser, Subcommand};

use md_shootout::bench;
use md_shootout::capture::CaptureKind;
use md_shootout::export::{self, RunInfo, RunReport};
use md_shootout::fetch::{self, FetchOptions};
use md_shootout::gen::{self, GenOptions};
use md_shootout::inspect;
use md_shootout::measure::{self, shootout::DEFAULT_WINDOW, stored::StoredMode};
use md_shootout::model::Feed;
use md_shootout::output::Progress;
use md_shootout::report;

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
    /// Stream a capture (pcap or pcapng, gzip'd or not) and report what is in it.
    Inspect {
        file: PathBuf,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        /// Count and skip malformed frames and segments instead of stopping at the first, and
        /// read the whole packets of a capture cut short at its end (with a warning).
        #[arg(long)]
        lenient: bool,
    },
    /// Feed every packet of FILE to every format; time each packet's serialize and deserialize.
    Run {
        file: PathBuf,
        /// Comma-separated format names (default: all).
        #[arg(long, value_delimiter = ',')]
        formats: Option<Vec<String>>,
        /// Append one row per format to this CSV (header written once).
        #[arg(long)]
        csv: Option<PathBuf>,
        /// Write the per-symbol aggregation all formats agreed on.
        #[arg(long)]
        summary: Option<PathBuf>,
        /// Write each format's latency distribution per side as .hgrm files here.
        #[arg(long)]
        hist_dir: Option<PathBuf>,
        /// Decode every packet back into the model and compare it field by field with the source.
        #[arg(long)]
        verify: bool,
        /// Free text stored in the CSV `label` column (e.g. the CPU pinning used).
        #[arg(long, default_value = "")]
        label: String,
        /// Packets run through every format before times are recorded.
        #[arg(long, default_value_t = 0)]
        warmup: u64,
        /// Packets per window.
        #[arg(long, default_value_t = DEFAULT_WINDOW)]
        window: usize,
        /// Count and skip malformed frames and segments instead of stopping at the first, and
        /// read the whole packets of a capture cut short at its end (with a warning).
        #[arg(long)]
        lenient: bool,
        /// Which windows are compressed (zstd -3, zlib -6) for the size as stored: `sample` (the
        /// first 16, then one in 16; the rest estimated from them), `all` (exact, the slowest
        /// part of a long run), or `none` (the CSV's size columns stay empty).
        #[arg(long, value_enum, default_value_t = StoredArg::Sample)]
        stored_size: StoredArg,
        /// The same as --stored-size none (kept for scripts written before it).
        #[arg(long, conflicts_with = "stored_size")]
        no_stored_size: bool,
        /// What one timed unit is: an IEX-TP packet, or one IEX message (a packet of one
        /// message, heartbeats skipped). --warmup and --window count units.
        #[arg(long, value_enum, default_value_t = UnitArg::Packet)]
        unit: UnitArg,
        /// How windows are timed: `alternate` (one window per packet, the next whole, in turn;
        /// the first after the warm-up both ways) or `both` (every window both ways: twice the
        /// samples and twice the timed work). Every window is checked by every format either way.
        #[arg(long, value_enum, default_value_t = TimingArg::Alternate)]
        timing: TimingArg,
        /// Seed of the order the formats take their turns in each window (a balanced design: every
        /// format follows every other equally often); the CSV's order_seed. Default: a fresh one.
        #[arg(long, value_name = "SEED")]
        order_seed: Option<u64>,
        /// Split the formats across N worker processes, each pinned to a CPU of its own and
        /// streaming the input itself; one merged result. At most the CPUs this process may use.
        #[arg(long, value_name = "N", default_value_t = 1, value_parser = positive_usize)]
        jobs: usize,
        /// Internal: run as a `--jobs` worker pinned to this CPU (JSON results on stdout).
        #[arg(long, hide = true, conflicts_with = "jobs")]
        worker_cpu: Option<usize>,
    },
    /// Summarize results CSVs (any number, any days or machines) into tables, charts and warnings.
    Report {
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
        /// with both sides' spreads, "no change" where they overlap, and a Mann–Whitney p.
        #[arg(long, value_name = "OLD.csv")]
        baseline: Vec<PathBuf>,
        #[command(flatten)]
        gate: GateArgs,
    },
    /// Write a deterministic synthetic IEX day (gzip'd when FILE ends in .gz).
    Gen {
        /// Output file; written to a temporary name and renamed when complete.
        #[arg(long)]
        out: PathBuf,
        #[arg(long, value_enum, default_value_t = FeedArg::Deep)]
        feed: FeedArg,
        #[arg(long, value_enum, default_value_t = CaptureKind::Pcapng)]
        capture: CaptureKind,
        /// IEX-TP segments to write (2.37 messages each on average; see --day for a 2026-size
        /// day).
        #[arg(long, default_value_t = 100_000)]
        packets: u64,
        /// A day the size of a 2026 IEX day: 190,000,000 packets (about 450M messages, 37 GB)
        /// for DEEP, 211,000,000 (about 500M messages, 42 GB) for DEEP+; no preset for TOPS.
        #[arg(long, conflicts_with = "packets")]
        day: bool,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Distinct symbols traded.
        #[arg(long, default_value_t = 500)]
        symbols: usize,
        /// Print what was written as one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// The whole shootout: every input, several runs, under each scheduling prefix, into one
    /// results folder, then the report.
    #[command(
        long_about = BENCH_ABOUT,
        after_help = BENCH_AFTER,
        override_usage = "shootout bench [OPTIONS] [INPUT]...\n       shootout bench --resume DIR [OPTIONS]"
    )]
    Bench(BenchArgs),
    /// Download one day of IEX HIST data (resumes a partial download; checks the size).
    Fetch {
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
    },
}

const BENCH_ABOUT: &str = "\
The whole shootout: runs every format over each input --runs times under each scheduling prefix
(plain, pinned to a CPU, pinned and at high priority), each run a `shootout run` of this same
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

#[derive(Args)]
struct BenchArgs {
    /// Capture files (pcap/pcapng, gzip'd or not), globs ('data/*.pcap.gz') or directories (their
    /// *.pcap* files) [default: data/DEEP10.pcap.gz, IEX's own DEEP sample, read with
    /// --lenient, and data/sample-deep-plus.pcapng.gz, a synthetic DEEP+ day].
    #[arg(value_name = "INPUT")]
    inputs: Vec<PathBuf>,
    /// Runs per input and prefix [default: 3; 1 with --quick].
    #[arg(long, value_name = "N", value_parser = positive, allow_hyphen_values = true)]
    runs: Option<u32>,
    /// Run `CMD shootout run ...` and store L in the CSV `label` column; repeatable. Default:
    /// normal= (none), taskset=taskset -c 1, nice=taskset -c 1 nice -n -19 (each only where it
    /// works here; skipped ones are named on stderr).
    #[arg(long, value_name = "L=CMD", allow_hyphen_values = true)]
    prefix: Vec<String>,
    /// Same as --prefix T= (no command); repeatable, in order with --prefix.
    #[arg(long, value_name = "T")]
    label: Vec<String>,
    /// Comma-separated formats (default: all; see `shootout run --help`).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    formats: Option<Vec<String>>,
    /// Also decode every packet back and compare it field by field with the source.
    #[arg(long)]
    verify: bool,
    /// Runs read every input with --lenient (see `shootout run --help`): a capture cut short at
    /// its end is measured on its whole packets. Without INPUT, the bundled DEEP10.pcap.gz is
    /// read so anyway (it is cut short as IEX published it).
    #[arg(long)]
    lenient: bool,
    /// Which windows are compressed for the size as stored: sample, all or none (see `shootout
    /// run --help`).
    #[arg(long, value_enum, default_value_t = StoredArg::Sample)]
    stored_size: StoredArg,
    /// The same as --stored-size none.
    #[arg(long, conflicts_with = "stored_size")]
    no_stored_size: bool,
    /// What one timed unit is (see `shootout run --help`); `packet,message` runs the matrix
    /// for both.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "packet")]
    unit: Vec<UnitArg>,
    /// How windows are timed (see `shootout run --help`). Default `both`, unlike `run`: twice the
    /// samples, so that the bundled samples' p99.9 rests on enough of them to be ranked.
    #[arg(long, value_enum, default_value_t = TimingArg::Both)]
    timing: TimingArg,
    /// Worker processes per run, each pinned to its own CPU (see `shootout run --help`); the
    /// default prefixes are then normal and nice (no taskset), labelled "(N jobs)".
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = positive_usize)]
    jobs: usize,
    /// Packets run through every format before times are recorded.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    warmup: u64,
    /// A small generated input (20000 packets) instead of INPUT; 1 run unless --runs.
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
}

/// `--fail-if-slower PCT [--fail-on ranking|all]`, for `report` and `bench`.
#[derive(Args)]
struct GateArgs {
    /// With --baseline: exit with code 3 when a format's ranking figure (ser + de_all batch per
    /// run) is slower than the baseline's by more than PCT percent (median over median) AND the
    /// difference is significant (two-sided Mann–Whitney U over the runs, p < 0.05; never with
    /// fewer than 3 runs a side). One line per regression; improvements never fail.
    #[arg(long, value_name = "PCT", requires = "baseline", value_parser = percent)]
    fail_if_slower: Option<f64>,
    /// What --fail-if-slower looks at: `ranking` (the figure the report ranks by) or `all` (also
    /// ser batch, de batch and de_all batch each on its own).
    #[arg(long, value_enum, default_value_t = FailOnArg::Ranking, requires = "fail_if_slower")]
    fail_on: FailOnArg,
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

fn positive_usize(text: &str) -> Result<usize, String> {
    positive(text).map(|n| n as usize)
}

fn positive(text: &str) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err("needs a positive number".into()),
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
            formats: self.formats,
            verify: self.verify,
            lenient: self.lenient,
            stored: stored_mode(self.stored_size, self.no_stored_size),
            warmup: self.warmup,
            units: self.unit.into_iter().map(Into::into).collect(),
            timing: self.timing.into(),
            jobs: self.jobs,
            quick: self.quick,
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
enum UnitArg {
    Packet,
    Message,
}

impl From<UnitArg> for measure::Unit {
    fn from(unit: UnitArg) -> measure::Unit {
        match unit {
            UnitArg::Packet => measure::Unit::Packet,
            UnitArg::Message => measure::Unit::Message,
        }
    }
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum TimingArg {
    Alternate,
    Both,
}

impl From<TimingArg> for measure::Schedule {
    fn from(timing: TimingArg) -> measure::Schedule {
        match timing {
            TimingArg::Alternate => measure::Schedule::Alternate,
            TimingArg::Both => measure::Schedule::Both,
        }
    }
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum StoredArg {
    Sample,
    All,
    None,
}

/// `--stored-size`, or none when the older `--no-stored-size` was given.
fn stored_mode(arg: StoredArg, no_stored_size: bool) -> StoredMode {
    match (no_stored_size, arg) {
        (true, _) | (false, StoredArg::None) => StoredMode::None,
        (false, StoredArg::Sample) => StoredMode::Sample,
        (false, StoredArg::All) => StoredMode::All,
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
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.is::<report::baseline::Regressed>() => {
            eprintln!("error: {e}");
            ExitCode::from(report::baseline::REGRESSION_EXIT)
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
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

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Inspect {
            file,
            json,
            lenient,
        } => {
            let report = inspect::inspect(&file, lenient)?;
            let text = if json {
                serde_json::to_string_pretty(&report)?
            } else {
                report.to_text()
            };
            print(&text)
        }
        Command::Run {
            file,
            formats,
            csv,
            summary,
            hist_dir,
            verify,
            label,
            warmup,
            window,
            lenient,
            stored_size,
            no_stored_size,
            unit,
            timing,
            order_seed,
            jobs,
            worker_cpu,
        } => {
            let config = measure::Config {
                formats,
                verify,
                warmup,
                window,
                stored: stored_mode(stored_size, no_stored_size),
                unit: unit.into(),
                timing: timing.into(),
                order_seed: order_seed.unwrap_or_else(|| fastrand::u64(..)),
            };
            // Settings that would measure nothing are refused before the file is opened.
            config.check()?;
            if let Some(cpu) = worker_cpu {
                return measure::jobs::work(&file, &config, lenient, cpu);
            }
            let info = RunInfo::collect(&file, &label);
            let outcome = if jobs > 1 {
                measure::jobs::run(&file, &config, lenient, jobs)?
            } else {
                measure::run_file(&file, &config, lenient)?
            };
            let report = RunReport {
                outcome: &outcome,
                info: &info,
            };
            if let Some(path) = &csv {
                export::csv::append(path, &report)
                    .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            }
            if let Some(path) = &summary {
                export::aggregation::write(path, &report)
                    .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            }
            if let Some(dir) = &hist_dir {
                export::hgrm::write_all(dir, &report)
                    .map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?;
            }
            print(export::table::render(&report).trim_end())
        }
        Command::Report {
            csvs,
            out,
            hist_dir,
            bmf,
            baseline,
            gate,
        } => {
            let summary = report::summarize(&report::load(&csvs)?);
            let against = if baseline.is_empty() {
                None
            } else {
                let old = report::summarize(&report::load(&baseline)?);
                Some(report::baseline::compare(&summary, &old))
            };
            let files = report::write_report_with(&summary, &hist_dir, &out, against.as_ref())?;
            if let Some(path) = &bmf {
                report::bmf::write(&summary, path)?;
            }
            // One line per kind of warning; each single warning is in summary.md and index.html.
            for g in report::warnings::group(&files.warnings, &summary) {
                eprintln!("warning: {}", g.summary);
            }
            if let Some(c) = &against {
                print(report::baseline::text(c).trim_end())?;
            }
            print(&format!(
                "wrote {} files to {}; open {}",
                files.files.len(),
                out.display(),
                files.index.display()
            ))?;
            // `requires = "baseline"`: a gate always has a comparison.
            if let (Some(c), Some(gate)) = (&against, gate.gate()) {
                let (lines, failed) = report::baseline::check(c, gate);
                print(lines.trim_end())?;
                if let Some(failed) = failed {
                    return Err(failed.into());
                }
            }
            Ok(())
        }
        Command::Gen {
            out,
            feed,
            capture,
            packets,
            day,
            seed,
            symbols,
            json,
        } => {
            let feed = Feed::from(feed);
            let packets = if day {
                gen::day::day_packets(feed).ok_or_else(|| {
                    anyhow::anyhow!("--day has no preset for {feed}: use --packets N")
                })?
            } else {
                packets
            };
            let opts = GenOptions {
                feed,
                capture,
                packets,
                seed,
                symbols,
            };
            let report = gen::generate_file(&opts, &out)
                .map_err(|e| anyhow::anyhow!("{}: {e}", out.display()))?;
            let text = if json {
                serde_json::to_string_pretty(&report)?
            } else {
                format!(
                    "wrote {}: {} packets ({} heartbeats), {} messages, {} symbols, {} bytes of {}",
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
        Command::Bench(_) => unreachable!("main runs bench itself"),
        Command::Fetch {
            date,
            feed,
            out,
            hist_url,
        } => {
            let opts = FetchOptions {
                date: fetch::parse_date(&date)?,
                feed: feed.into(),
                out_dir: out,
                hist_url,
            };
            let progress = std::cell::OnceCell::new();
            let fetched = fetch::fetch(&opts, |pos, total| {
                progress.get_or_init(|| Progress::new(total)).set(pos)
            });
            if let Some(p) = progress.get() {
                p.finish();
            }
            let fetched = fetched?;
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
}

/// Prints to stdout; a closed pipe (`| head`) is not an error worth a panic or a message.
fn print(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}
