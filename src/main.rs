//! The `shootout` command line. Everything it does lives in the library.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use md_shootout::capture::CaptureKind;
use md_shootout::fetch::{self, FetchOptions};
use md_shootout::gen::{self, GenOptions};
use md_shootout::inspect;
use md_shootout::measure::{self, shootout::DEFAULT_WINDOW};
use md_shootout::model::Feed;
use md_shootout::output::Progress;
use md_shootout::report::{self, RunInfo, RunReport};

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
        /// Count and skip malformed frames and segments instead of stopping at the first.
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
        /// Count and skip malformed frames and segments instead of stopping at the first.
        #[arg(long)]
        lenient: bool,
        /// Skip compressing every window for the size as stored (zstd, zlib): the slowest part
        /// of a run; the CSV's size columns stay empty.
        #[arg(long)]
        no_stored_size: bool,
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
        /// IEX-TP segments to write (a full DEEP day is about 40,000,000).
        #[arg(long, default_value_t = 100_000)]
        packets: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Distinct symbols traded.
        #[arg(long, default_value_t = 500)]
        symbols: usize,
        /// Print what was written as one JSON object.
        #[arg(long)]
        json: bool,
    },
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

#[derive(Clone, Copy, clap::ValueEnum)]
enum FeedArg {
    Deep,
    Tops,
}

impl From<FeedArg> for Feed {
    fn from(feed: FeedArg) -> Feed {
        match feed {
            FeedArg::Deep => Feed::Deep,
            FeedArg::Tops => Feed::Tops,
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
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
            no_stored_size,
        } => {
            let config = measure::Config {
                formats,
                verify,
                warmup,
                window,
                stored_size: !no_stored_size,
            };
            // Settings that would measure nothing are refused before the file is opened.
            config.check()?;
            let info = RunInfo::collect(&file, &label);
            let outcome = measure::run_file(&file, &config, lenient)?;
            let report = RunReport {
                outcome: &outcome,
                info: &info,
            };
            if let Some(path) = &csv {
                report::csv::append(path, &report)
                    .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            }
            if let Some(path) = &summary {
                report::summary::write(path, &report)
                    .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            }
            if let Some(dir) = &hist_dir {
                report::hgrm::write_all(dir, &report)
                    .map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?;
            }
            print(report::table::render(&report).trim_end())
        }
        Command::Report {
            csvs,
            out,
            hist_dir,
        } => {
            let summary = report::summarize(&report::load(&csvs)?);
            let files = report::write_report(&summary, &hist_dir, &out)?;
            for w in &files.warnings {
                eprintln!("warning: {w}");
            }
            print(&format!(
                "wrote {} files to {}; open {}",
                files.files.len(),
                out.display(),
                files.index.display()
            ))
        }
        Command::Gen {
            out,
            feed,
            capture,
            packets,
            seed,
            symbols,
            json,
        } => {
            let opts = GenOptions {
                feed: feed.into(),
                capture,
                packets,
                seed,
                symbols,
            };
            let report = gen::generate_file(&opts, &out)
                .map_err(|e| anyhow::anyhow!("{}: {e:#}", out.display()))?;
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
