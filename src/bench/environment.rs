//! `environment.txt`: the machine and build a results folder was measured on, one `key: value`
//! a line. `shootout report` reads its `governor:` line. The CPU model, host, compiler and
//! revision come from [`RunInfo`], the same facts every CSV row carries: the compiler and
//! revision the running binary was built from, not whatever is checked out now.

use std::fmt::Write as _;
use std::path::Path;

use super::plan::Prefix;
use crate::export::RunInfo;

/// The file's text for a bench of `runs` runs under `prefixes` by the binary `exe`.
pub fn capture(exe: &Path, runs: u32, prefixes: &[Prefix]) -> String {
    let info = RunInfo::collect(Path::new(""), "");
    let read = |path: &str| {
        std::fs::read_to_string(path)
            .ok()
            .map(|s| s.trim().to_owned())
    };
    let governor = crate::measure::trust::Governor::here();
    let governor = governor.recorded();
    let kernel = match (
        read("/proc/sys/kernel/ostype"),
        read("/proc/sys/kernel/osrelease"),
    ) {
        (Some(os), Some(release)) => format!("{os} {release}"),
        _ => std::env::consts::OS.to_owned(),
    };
    let load = read("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "unknown".into());
    let cores = std::thread::available_parallelism()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "unknown".into());

    let mut text = String::new();
    let mut line = |key: &str, value: &str| {
        let _ = writeln!(text, "{key}: {value}");
    };
    line("date", &info.started_at);
    line("host", &info.host);
    line("cpu", &info.cpu);
    line("cores", &cores);
    line("governor", governor);
    line("kernel", &kernel);
    line("rustc", &info.rustc);
    line("git", &info.git_rev);
    line("binary", &exe.display().to_string());
    line("load average", &load);
    line("runs", &runs.to_string());
    for p in prefixes {
        line("prefix", &p.spec());
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_once_and_the_prefixes_in_order() {
        let prefixes = [
            Prefix::parse("normal=").unwrap(),
            Prefix::parse("pinned=taskset -c 1").unwrap(),
        ];
        let text = capture(Path::new("/x/shootout"), 3, &prefixes);
        for key in [
            "date",
            "host",
            "cpu",
            "cores",
            "governor",
            "kernel",
            "rustc",
            "git",
            "binary",
            "load average",
            "runs",
        ] {
            let n = text
                .lines()
                .filter(|l| l.starts_with(&format!("{key}: ")))
                .count();
            assert_eq!(n, 1, "{key}:\n{text}");
        }
        assert!(text.contains("binary: /x/shootout\n"));
        assert!(text.contains("runs: 3\n"));
        assert!(text.ends_with("prefix: normal=\nprefix: pinned=taskset -c 1\n"));
        assert_eq!(
            text.lines().find(|l| l.starts_with("cpu: ")).unwrap(),
            format!("cpu: {}", crate::export::environment::cpu_model())
        );
        assert_ne!(
            crate::report::load::parse_governor(&text),
            crate::report::load::Governor::NotRecorded
        );
    }
}
