//! Progress on stderr, only when stderr is a terminal (never in CI logs or pipes).

use std::io::IsTerminal;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};

/// Shows capture bytes parsed: a bar against the file size for plain files, a counter for
/// gzip'd ones (their decompressed size is unknown until the end).
pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    pub fn new(total_bytes: Option<u64>) -> Progress {
        if !std::io::stderr().is_terminal() {
            return Progress { bar: None };
        }
        let bar = match total_bytes {
            Some(total) => ProgressBar::new(total).with_style(
                ProgressStyle::with_template(
                    "{bar:40} {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            ),
            None => ProgressBar::new_spinner().with_style(
                ProgressStyle::with_template("{spinner} {bytes} decompressed, {bytes_per_sec}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            ),
        };
        Progress { bar: Some(bar) }
    }

    pub fn set(&self, position: u64) {
        if let Some(bar) = &self.bar {
            bar.set_position(position);
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// How far a run has got: bytes of the file read (compressed bytes for a gzip'd file, whose
/// size on disk is known, so the ETA holds for both) and IEX messages parsed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tick {
    pub file_bytes: u64,
    pub messages: u64,
}

/// Set by `bench` for each run it starts ("run 4 of 18"): shown first on the run's line.
pub const PREFIX_ENV: &str = "SHOOTOUT_PROGRESS_PREFIX";

/// The one progress line of a run (for `--jobs`, the slowest worker's bar and every worker's
/// share and progress): the file's bytes done,
/// messages per second and the ETA, after the run's place in a bench matrix when there is one.
/// Nothing at all when stderr is not a terminal.
pub struct RunProgress {
    bar: Option<ProgressBar>,
    started: Instant,
}

impl RunProgress {
    pub fn new(file_bytes: u64) -> RunProgress {
        let started = Instant::now();
        if !std::io::stderr().is_terminal() {
            return RunProgress { bar: None, started };
        }
        let prefix = std::env::var(PREFIX_ENV)
            .map(|p| format!("{p}: "))
            .unwrap_or_default();
        let style =
            ProgressStyle::with_template("{prefix}{bar:30} {bytes}/{total_bytes} {msg} eta {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar());
        let bar = ProgressBar::new(file_bytes)
            .with_style(style)
            .with_prefix(prefix);
        RunProgress {
            bar: Some(bar),
            started,
        }
    }

    /// `shares` (each `--jobs` worker's share and progress) goes before the rate.
    pub fn set(&self, tick: Tick, shares: Option<&str>) {
        if let Some(bar) = &self.bar {
            bar.set_position(tick.file_bytes);
            let rate = rate(tick.messages, self.started.elapsed().as_secs_f64());
            bar.set_message(match shares {
                Some(shares) => format!("{shares} · {rate}"),
                None => rate,
            });
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// Messages per second, as the progress line shows it.
pub fn rate(messages: u64, secs: f64) -> String {
    if secs <= 0.0 {
        return "- msgs/s".to_owned();
    }
    let per_sec = messages as f64 / secs;
    if per_sec >= 1e6 {
        format!("{:.2}M msgs/s", per_sec / 1e6)
    } else {
        format!("{:.0}k msgs/s", per_sec / 1e3)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_reads_in_millions_or_thousands() {
        assert_eq!(rate(4_500_000, 1.0), "4.50M msgs/s");
        assert_eq!(rate(90_000, 2.0), "45k msgs/s");
        assert_eq!(rate(5, 0.0), "- msgs/s");
    }
}
