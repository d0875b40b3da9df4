//! The `shootout` command line. Everything it does lives in the library.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use md_shootout::capture::CaptureKind;
use md_shootout::gen::{self, GenOptions};
use md_shootout::inspect;
use md_shootout::model::Feed;

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
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum FeedArg {
    Deep,
    Tops,
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
                feed: match feed {
                    FeedArg::Deep => Feed::Deep,
                    FeedArg::Tops => Feed::Tops,
                },
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
