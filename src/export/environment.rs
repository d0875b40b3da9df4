//! Where a run came from: every CSV row carries it, so rows from different machines, builds and
//! scheduling prefixes can be pooled and still told apart.

use std::path::Path;

/// Facts about the run that are not measurements.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RunInfo {
    pub run_id: String,
    /// RFC 3339, UTC.
    pub started_at: String,
    pub label: String,
    pub input: String,
    pub input_bytes: u64,
    pub host: String,
    pub cpu: String,
    pub rustc: String,
    pub git_rev: String,
}

impl RunInfo {
    /// Gathers the facts for a run of `input` starting now.
    pub fn collect(input: &Path, label: &str) -> RunInfo {
        let now = chrono::Utc::now();
        RunInfo {
            run_id: format!(
                "{}-{}",
                now.format("%Y%m%dT%H%M%S%.3fZ"),
                std::process::id()
            ),
            started_at: now.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            label: label.to_owned(),
            input: input.display().to_string(),
            input_bytes: std::fs::metadata(input).map(|m| m.len()).unwrap_or(0),
            host: host(),
            cpu: cpu_model(),
            rustc: env!("MD_SHOOTOUT_RUSTC").to_owned(),
            git_rev: env!("MD_SHOOTOUT_GIT_REV").to_owned(),
        }
    }
}

fn host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|s| s.trim().to_owned())
        .unwrap_or_else(|_| "unknown".into())
}

/// The CPU model from `/proc/cpuinfo` (Linux), else the architecture.
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_owned())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_owned())
}
