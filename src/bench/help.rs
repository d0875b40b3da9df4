//! `bench --help`'s words for its defaults, written from the constants the code runs on, so the
//! help (and docs/cli.md, its copy) cannot say one default while the code runs another.

use super::options::{DEFAULT_INPUTS, DEFAULT_RUNS, QUICK_PACKETS};
use super::plan::{DEFAULT_PREFIXES, JOBS_PREFIXES};

/// `--prefix`: what runs when none is given, with and without `--jobs`.
pub fn prefix() -> String {
    format!(
        "Run `CMD shootout run ...` and store L in the CSV `label` column; repeatable. Default: \
         {} (each only where it works here; skipped ones are named on stderr); with --jobs above \
         1: {}. High priority is one option away: --prefix \"nice=taskset -c 1 nice -n -19\"",
        specs(&DEFAULT_PREFIXES),
        specs(&JOBS_PREFIXES)
    )
}

/// `--runs`.
pub fn runs() -> String {
    format!("Runs per input and prefix [default: {DEFAULT_RUNS}; 1 with --quick]")
}

/// `--quick`.
pub fn quick() -> String {
    format!(
        "A small generated input ({QUICK_PACKETS} packets) instead of INPUT; 1 run unless --runs"
    )
}

/// `INPUT`: the bundled captures measured when none is named.
pub fn inputs() -> String {
    let defaults: Vec<String> = DEFAULT_INPUTS
        .iter()
        .map(|d| match d.lenient {
            true => format!("{} (read with --lenient: cut short as published)", d.path),
            false => d.path.to_owned(),
        })
        .collect();
    format!(
        "Capture files (pcap/pcapng, gzip'd or not), globs ('data/*.pcap.gz') or directories \
         (their *.pcap* files) [default: {}]",
        defaults.join(", ")
    )
}

/// `--jobs`: the prefixes change with it.
pub fn jobs() -> String {
    let labels: Vec<&str> = JOBS_PREFIXES.iter().map(|s| label(s)).collect();
    format!(
        "Worker processes per run, each pinned to its own CPU (see `shootout run --help`); the \
         default prefixes are then {}, labelled \"(N jobs)\"",
        labels.join(" and ")
    )
}

/// `normal= (none), taskset=taskset -c 1`.
fn specs(prefixes: &[&str]) -> String {
    let shown: Vec<String> = prefixes
        .iter()
        .map(|s| match s.ends_with('=') {
            true => format!("{s} (none)"),
            false => (*s).to_owned(),
        })
        .collect();
    shown.join(", ")
}

fn label(spec: &str) -> &str {
    spec.split_once('=').map_or(spec, |(l, _)| l)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_help_names_the_prefixes_the_code_runs() {
        assert!(prefix().contains("Default: normal= (none), taskset=taskset -c 1 (each"));
        assert!(prefix().contains("with --jobs above 1: normal= (none), nice=nice -n -19."));
        assert!(jobs().contains("are then normal and nice,"));
        assert!(runs().contains("[default: 6; 1 with --quick]"));
        assert!(inputs().contains("data/DEEP10.pcap.gz (read with --lenient"));
    }
}
