//! What survives a kill: `runs.csv` (every `shootout run` appends its rows in one synced write),
//! `done.txt` (one line per finished run: input, label, `run<i>`, run_id; tab-separated, appended
//! and synced after the run's rows) and `args` (the options a folder was started with).
//!
//! A run counts as done only when `done.txt` lists it AND its rows are in `runs.csv`. On
//! `--resume`, rows of runs `done.txt` does not list (a run killed after writing, before it
//! was recorded) are dropped, and so are `done.txt` lines whose rows are missing: both runs are
//! run again, so every run ends up in the CSV exactly once.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::fs::OpenOptions;
use std::io::{self, Write};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::Path;

use crate::report::write_atomically;

pub const DONE: &str = "done.txt";
pub const ARGS: &str = "args";
pub const RUNS: &str = "runs.csv";

/// One finished run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Done {
    pub input: String,
    pub label: String,
    /// `run1`, `run2`, ...
    pub run: String,
    pub run_id: String,
}

impl Done {
    fn line(&self) -> String {
        format!(
            "{}\t{}\t{}\t{}\n",
            self.input, self.label, self.run, self.run_id
        )
    }
}

/// The runs finished in `dir`, as far as `done.txt` and `runs.csv` agree.
#[derive(Debug, Default)]
pub struct Record {
    pub done: Vec<Done>,
}

impl Record {
    pub fn contains(&self, input: &str, label: &str, run: u32) -> bool {
        let run = format!("run{run}");
        self.done
            .iter()
            .any(|d| d.input == input && d.label == label && d.run == run)
    }

    /// Appends a finished run to `dir/done.txt`, synced.
    pub fn add(&mut self, dir: &Path, done: Done) -> io::Result<()> {
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join(DONE))?;
        file.write_all(done.line().as_bytes())?;
        file.sync_data()?;
        self.done.push(done);
        Ok(())
    }
}

/// What [`reconcile`] changed.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Reconciled {
    /// Rows of `runs.csv` whose run `done.txt` did not list (or a partial last line).
    pub dropped_rows: usize,
    /// `done.txt` lines without rows in `runs.csv` (or partial).
    pub dropped_done: usize,
}

/// Reads `dir/done.txt` and `dir/runs.csv`, keeps what both agree on and rewrites either file
/// (whole or not at all) where it held more.
pub fn reconcile(dir: &Path) -> io::Result<(Record, Reconciled)> {
    let mut changed = Reconciled::default();
    let done_text = read_or_empty(&dir.join(DONE))?;
    let mut done: Vec<Done> = Vec::new();
    for line in done_text.split_inclusive('\n') {
        let fields: Vec<&str> = line.trim_end_matches('\n').split('\t').collect();
        match fields[..] {
            [input, label, run, run_id]
                if line.ends_with('\n') && !run_id.is_empty() && run.starts_with("run") =>
            {
                done.push(Done {
                    input: input.into(),
                    label: label.into(),
                    run: run.into(),
                    run_id: run_id.into(),
                })
            }
            _ => changed.dropped_done += 1,
        }
    }
    let listed: BTreeSet<&str> = done.iter().map(|d| d.run_id.as_str()).collect();

    let csv_path = dir.join(RUNS);
    let csv = read_or_empty(&csv_path)?;
    let mut kept = String::with_capacity(csv.len());
    let mut in_csv = BTreeSet::new();
    for (i, line) in csv.split_inclusive('\n').enumerate() {
        if i == 0 && line.ends_with('\n') {
            kept.push_str(line);
            continue;
        }
        let id = run_id(line);
        if line.ends_with('\n') && listed.contains(id) {
            in_csv.insert(id.to_owned());
            kept.push_str(line);
        } else {
            changed.dropped_rows += 1;
        }
    }
    if changed.dropped_rows > 0 {
        write_atomically(&csv_path, |w| w.write_all(kept.as_bytes()))?;
    }

    let before = done.len();
    let mut seen = BTreeSet::new();
    // A run listed twice (or its run_id twice) keeps its first line.
    done.retain(|d| {
        in_csv.contains(&d.run_id) && seen.insert((d.input.clone(), d.label.clone(), d.run.clone()))
    });
    changed.dropped_done += before - done.len();
    if changed.dropped_done > 0 {
        let text: String = done.iter().map(Done::line).collect();
        write_atomically(&dir.join(DONE), |w| w.write_all(text.as_bytes()))?;
    }
    Ok((Record { done }, changed))
}

/// The first CSV column: run_id (never quoted: a timestamp and a process id).
pub fn run_id(line: &str) -> &str {
    line.split([',', '\n']).next().unwrap_or("")
}

/// The run_ids of the rows `runs.csv` holds after byte `from` (the header skipped).
pub fn run_ids_after(csv: &Path, from: u64) -> io::Result<BTreeSet<String>> {
    let bytes = std::fs::read(csv)?;
    let start = usize::try_from(from).unwrap_or(usize::MAX).min(bytes.len());
    let text = String::from_utf8_lossy(&bytes[start..]);
    Ok(text
        .lines()
        .filter(|l| !(from == 0 && l.starts_with("run_id,")))
        .map(|l| run_id(l).to_owned())
        .filter(|id| !id.is_empty())
        .collect())
}

/// What a look at a file gave, `None` where the file does not exist.
fn if_exists<T>(result: io::Result<T>) -> io::Result<Option<T>> {
    match result {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        other => other.map(Some),
    }
}

/// The length of `path`, 0 when it does not exist yet.
pub fn len_or_zero(path: &Path) -> io::Result<u64> {
    Ok(if_exists(std::fs::metadata(path))?.map_or(0, |m| m.len()))
}

fn read_or_empty(path: &Path) -> io::Result<String> {
    let bytes = if_exists(std::fs::read(path))?.unwrap_or_default();
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Saves the options a folder is started with (NUL-separated, as `run_shootout.sh` did).
pub fn save_args(dir: &Path, args: &[OsString]) -> io::Result<()> {
    let mut bytes = Vec::new();
    for a in args {
        bytes.extend_from_slice(a.as_bytes());
        bytes.push(0);
    }
    write_atomically(&dir.join(ARGS), |w| w.write_all(&bytes))
}

/// The options `dir` was started with; `None` when it has no `args` file.
pub fn saved_args(dir: &Path) -> io::Result<Option<Vec<OsString>>> {
    Ok(if_exists(std::fs::read(dir.join(ARGS)))?.map(|bytes| {
        (bytes.split(|&b| b == 0))
            .filter(|a| !a.is_empty())
            .map(|a| OsString::from_vec(a.to_vec()))
            .collect()
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resume_keeps_only_runs_both_files_agree_on() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join(RUNS), "run_id,x\nA,1\nA,2\nB,1\nC,1\nC,2\nD,partial").unwrap();
        // A and C are listed; B is not (killed before recording); E has no rows; the last
        // line is partial.
        std::fs::write(
            d.join(DONE),
            "a\tn\trun1\tA\na\tn\trun2\tE\na\tn\trun3\tC\na\tn\trun1\tA\na\tq",
        )
        .unwrap();
        let (record, changed) = reconcile(d).unwrap();
        assert_eq!(
            changed,
            Reconciled {
                dropped_rows: 2,
                dropped_done: 3
            }
        );
        assert_eq!(
            std::fs::read_to_string(d.join(RUNS)).unwrap(),
            "run_id,x\nA,1\nA,2\nC,1\nC,2\n"
        );
        assert_eq!(
            std::fs::read_to_string(d.join(DONE)).unwrap(),
            "a\tn\trun1\tA\na\tn\trun3\tC\n"
        );
        assert!(record.contains("a", "n", 1));
        assert!(!record.contains("a", "n", 2));
        assert!(record.contains("a", "n", 3));

        let (_, again) = reconcile(d).unwrap();
        assert_eq!(again, Reconciled::default());
    }

    #[test]
    fn args_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(saved_args(dir.path()).unwrap(), None);
        let args: Vec<OsString> = ["--quick", "--prefix", "a=nice -n 1"]
            .map(OsString::from)
            .into();
        save_args(dir.path(), &args).unwrap();
        assert_eq!(saved_args(dir.path()).unwrap(), Some(args));
    }

    #[test]
    fn new_rows_are_read_after_the_old_end() {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join(RUNS);
        std::fs::write(&csv, "run_id,x\nA,1\n").unwrap();
        assert_eq!(
            run_ids_after(&csv, 0).unwrap(),
            BTreeSet::from(["A".to_string()])
        );
        let end = len_or_zero(&csv).unwrap();
        std::fs::write(&csv, "run_id,x\nA,1\nB,1\nB,2\n").unwrap();
        assert_eq!(
            run_ids_after(&csv, end).unwrap(),
            BTreeSet::from(["B".to_string()])
        );
    }
}
