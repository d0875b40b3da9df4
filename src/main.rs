//! The `shootout` command line. Everything it does lives in the library.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use md_shootout::inspect;

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
