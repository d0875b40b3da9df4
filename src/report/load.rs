//! `shootout report`, step 1: read any number of results CSVs (`run` writes them; other days,
//! other machines) and the `environment.txt` that `shootout bench` leaves next to each.
//!
//! Columns are read by header name into [`Row`], the type `run` writes them from: the columns
//! [`required`] lists must be there; every later one is read when the header has it, so files
//! from before it was written still load, and an empty cell (a run with `--no-stored-size`, or a
//! row from an older build in a pooled file) means not measured. Any other column is ignored, so
//! files from older and newer builds can be pooled.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::error::ReportError;
use crate::export::caveat::Caveats;
use crate::export::csv::{required, Latency, Row};
use crate::export::windows::{path_of, WindowRow};
use crate::measure::instructions::Source as Counter;
use crate::measure::window_times::{Block, WindowTimes};
use crate::measure::{PerWorkload, Workload};

/// The latency columns of one side the report reads, in this order.
pub const PERCENTILES: [&str; 7] = ["p50", "p90", "p99", "p99.9", "p99.99", "max", "mean"];

/// Column name stems matching [`PERCENTILES`] (`ser_p999_ns` is p99.9): the columns' first
/// statistics (the last, `total`, is not read).
pub const PERCENTILE_COLUMNS: &[&str] = Latency::STATISTICS.split_at(PERCENTILES.len()).0;

/// The label a row is grouped under: runs of several workers apart from one-process runs (as
/// `bench --jobs` names them), per-message runs apart from per-packet ones.
fn section_label(label: String, unit: Option<&str>, jobs: Option<usize>) -> String {
    let label = match jobs {
        Some(n) if n > 1 && !label.ends_with(&format!("({n} jobs)")) => {
            format!("{label} ({n} jobs)")
        }
        _ => label,
    };
    match unit {
        Some("message") => format!("{label} (per message)"),
        _ => label,
    }
}

/// One format in one run: the row as `run` wrote it (its cells through `Deref`: `r.run_id`,
/// `r.timed_faults`), with what the report reads differently or derives from it.
#[derive(Debug, Clone)]
pub struct RunRow {
    /// Index into [`Runs::sources`].
    pub source: usize,
    /// Its place among its CSV's rows: with `source`, the order `--baseline` pairs runs in.
    pub line: usize,
    /// Its `input`'s file name: what rows are grouped by.
    pub input_name: String,
    /// The section it is grouped under: its `label`, marked when several workers ran it or it
    /// timed messages.
    pub label: String,
    /// What one timed unit was: `packet` or `message` (`unit` column; packet when absent).
    pub unit: &'static str,
    /// Each workload timed per unit: ns per unit in [`PERCENTILES`] order.
    pub latency: PerWorkload<Option<[f64; 7]>>,
    /// Each workload timed by whole windows: ns per unit, mean over the run.
    pub throughput: PerWorkload<Option<f64>>,
    /// The counts and sizes of the row as figures (`units`: what its percentiles rest on).
    pub packets: f64,
    pub messages: f64,
    pub units: Option<f64>,
    pub batch_units: Option<f64>,
    pub msgs_per_sec: f64,
    /// `clock`, `twin_of` and `latency_note`, `None` where empty.
    pub clock: Option<String>,
    pub twin_of: Option<String>,
    pub latency_note: Option<String>,
    /// Allocations per unit of ser, de and de_all, and the bytes they asked for.
    pub allocs: Option<[f64; 3]>,
    pub alloc_bytes: Option<[f64; 3]>,
    /// What its columns say a reader must know before setting it beside another row: how the
    /// report marks it and whether the verdict ranks it, whatever this build's formats are.
    pub caveats: Caveats,
    /// Instructions per unit of each batch workload and where they were counted.
    pub instructions: Option<(Counter, [f64; 3])>,
    /// Its whole-window passes window by window, from the windows file beside the CSV.
    pub windows: Option<Windows>,
    pub row: Row,
}

impl std::ops::Deref for RunRow {
    type Target = Row;
    fn deref(&self) -> &Row {
        &self.row
    }
}

impl RunRow {
    /// The bytes it encoded (from `bytes_per_message`, as every results CSV has it).
    pub fn encoded_bytes(&self) -> u64 {
        (self.bytes_per_message * self.messages).round() as u64
    }
    /// `bytes` (a size as stored) per message of this run.
    pub fn per_message(&self, bytes: Option<u64>) -> Option<f64> {
        bytes
            .filter(|_| self.messages > 0.0)
            .map(|b| b as f64 / self.messages)
    }
    pub fn zstd_bytes_per_message(&self) -> Option<f64> {
        self.per_message(self.zstd_bytes)
    }
    pub fn zlib_bytes_per_message(&self) -> Option<f64> {
        self.per_message(self.zlib_bytes)
    }
    /// The IEX message type byte of a row of one type's messages; `None` on a format's row over
    /// every type.
    pub fn msg_type(&self) -> Option<u8> {
        match self.row.msg_type.as_deref().map(str::as_bytes) {
            Some(&[k]) => Some(k),
            _ => None,
        }
    }
    /// `workload`'s figure at `i` of [`PERCENTILES`], timed per unit; `None` where not measured.
    pub fn percentile(&self, workload: Workload, i: usize) -> Option<f64> {
        self.latency[workload].map(|l| l[i])
    }
}

pub use crate::measure::trust::Governor;

/// One CSV given on the command line.
#[derive(Debug, Clone)]
pub struct Source {
    pub csv: PathBuf,
    pub rows: usize,
    /// Rows skipped because the same (run_id, input, label, format) was already read.
    pub duplicates: usize,
    pub governor: Governor,
}

/// Every row of every CSV, in file order.
#[derive(Debug, Clone, Default)]
pub struct Runs {
    pub sources: Vec<Source>,
    /// Each format's row over every message type: what the report ranks and shows.
    pub rows: Vec<RunRow>,
    /// The rows of one message type each (`msg_type` set: `--unit message` runs), read by
    /// `report::by_type`.
    pub by_type: Vec<RunRow>,
}

/// Reads every CSV in `paths`. A file that is missing, empty, lacks a required column or has a
/// malformed row is an error naming the file (and the line). The same row read twice (the same
/// file given twice, or a copy) is counted once.
pub fn load(paths: &[PathBuf]) -> Result<Runs, ReportError> {
    if paths.is_empty() {
        return Err(ReportError::new("report", "no results CSV given"));
    }
    let mut runs = Runs::default();
    let mut seen = HashSet::new();
    for path in paths {
        let source = runs.sources.len();
        let mut rows = read_csv(path, source)?;
        let mut windows = read_beside(path)?;
        for row in rows.iter_mut().filter(|r| r.msg_type().is_none()) {
            row.windows = windows.remove(&(row.run_id.clone(), row.format.clone()));
        }
        let (mut kept, mut duplicates) = (0, 0);
        for row in rows {
            let key = (
                row.run_id.clone(),
                row.input.clone(),
                row.label.clone(),
                row.format.clone(),
                row.msg_type(),
            );
            if !seen.insert(key) {
                duplicates += 1;
            } else if row.msg_type().is_some() {
                runs.by_type.push(row);
            } else {
                runs.rows.push(row);
                kept += 1;
            }
        }
        runs.sources.push(Source {
            csv: path.clone(),
            rows: kept,
            duplicates,
            governor: governor_next_to(path),
        });
    }
    apart_by_host(&mut runs);
    Ok(runs)
}

/// Runs of one input and label measured on different hosts are never pooled: a median over two
/// machines is neither's, and a min–max spanning both reads as one machine's noise. Each host's
/// runs get a section of their own, its label followed by `on <host>`; `report --baseline`
/// sets one machine's runs beside another's. (The host of a run merged from shards names every
/// shard's host, so its runs stay together.)
fn apart_by_host(runs: &mut Runs) {
    let mut hosts: HashMap<(String, String), HashSet<String>> = HashMap::new();
    for r in runs.rows.iter().chain(&runs.by_type) {
        hosts
            .entry((r.input_name.clone(), r.label.clone()))
            .or_default()
            .insert(r.host.clone());
    }
    for r in runs.rows.iter_mut().chain(runs.by_type.iter_mut()) {
        if hosts[&(r.input_name.clone(), r.label.clone())].len() > 1 {
            r.label = format!("{} on {}", r.label, r.host);
        }
    }
}

/// One format's windows in one run, per workload.
pub type Windows = Arc<PerWorkload<WindowTimes>>;

/// The windows file beside the results file `csv`, by run id and format; empty when there is
/// none.
pub fn read_beside(csv: &Path) -> Result<HashMap<(String, String), Windows>, ReportError> {
    let path = path_of(csv);
    if !path.exists() {
        return Ok(HashMap::new());
    }
    let err = |msg: String| ReportError::new(&path, msg);
    let mut reader = ::csv::Reader::from_path(&path).map_err(|e| err(e.to_string()))?;
    let mut by_run: HashMap<(String, String), PerWorkload<WindowTimes>> = HashMap::new();
    for (i, row) in reader.deserialize::<WindowRow>().enumerate() {
        let line = i + 2;
        let row = row.map_err(|e| err(format!("line {line}: {e}")))?;
        let workload = Workload::ALL
            .into_iter()
            .find(|w| w.column() == row.workload)
            .ok_or_else(|| {
                err(format!(
                    "line {line}: workload {:?} is none of ser, de, de_all",
                    row.workload
                ))
            })?;
        if !row.windows.is_power_of_two() {
            return Err(err(format!(
                "line {line}: {} windows in a block; a block holds a power of two",
                row.windows
            )));
        }
        let times = &mut by_run.entry((row.run_id, row.format)).or_default()[workload];
        let shift = row.windows.trailing_zeros();
        if !times.blocks.is_empty() && times.shift != shift {
            return Err(err(format!(
                "line {line}: blocks of {} windows where the run's earlier ones hold {}",
                row.windows,
                1u64 << times.shift
            )));
        }
        times.shift = shift;
        times.blocks.push(Block {
            chunk: row.chunk,
            first: row.window,
            units: row.units,
            ns: row.ns,
        });
    }
    Ok(by_run
        .into_iter()
        .map(|(k, mut v)| {
            for t in v.0.iter_mut() {
                t.blocks.sort_by_key(Block::key);
            }
            (k, Arc::new(v))
        })
        .collect())
}

fn read_csv(path: &Path, source: usize) -> Result<Vec<RunRow>, ReportError> {
    let err = |msg: String| ReportError::new(path, msg);
    let meta = std::fs::metadata(path).map_err(|e| err(io_message(&e)))?;
    if meta.is_dir() {
        return Err(err("is a directory, not a results CSV".into()));
    }
    let mut reader = ::csv::ReaderBuilder::new()
        .has_headers(true)
        .from_path(path)
        .map_err(|e| err(e.to_string()))?;
    let headers = reader.headers().map_err(|e| err(e.to_string()))?.clone();
    if headers.is_empty() || (headers.len() == 1 && headers[0].is_empty()) {
        return Err(err(
            "empty file: expected a results CSV with a header".into()
        ));
    }
    let missing: Vec<&str> = required()
        .filter(|c| !headers.iter().any(|h| h == *c))
        .collect();
    if !missing.is_empty() {
        return Err(err(format!(
            "not a shootout results CSV: missing column{} {} (first line: {:.60})",
            if missing.len() == 1 { "" } else { "s" },
            missing.join(", "),
            headers.iter().collect::<Vec<_>>().join(",")
        )));
    }
    let mut rows = Vec::new();
    for (i, record) in reader.deserialize::<Row>().enumerate() {
        let line = |msg: String| err(format!("line {}: {msg}", i + 2));
        let r = record.map_err(|e| line(csv_message(&e)))?;
        if let Some(shard) = r.shard.as_deref().filter(|s| !s.is_empty()) {
            return Err(line(format!(
                "a row of shard {shard} of a run, one share's figures alone: join the parts with \
                 `shootout merge` and report its results.csv"
            )));
        }
        rows.push(RunRow {
            line: i,
            ..run_row(r, source).map_err(line)?
        });
    }
    if rows.is_empty() {
        return Err(err(
            "no rows: the header is there but no run was recorded".into()
        ));
    }
    Ok(rows)
}

/// What the report keeps of a row read from `source`.
fn run_row(r: Row, source: usize) -> Result<RunRow, String> {
    // Empty on the row of a format timed only per window (its `latency_note` says why), and
    // the complete decode's in rows from before it was timed.
    let mut latency = PerWorkload([None; 3]);
    for w in Workload::ALL {
        let cells = r.latency(w).ns();
        let figures = std::array::from_fn(|i| cells[i]);
        latency[w] = all_or_none(figures, &format!("{}_*_ns", w.column()))?;
    }
    let allocs = all_or_none(r.allocs().0, "*_allocs")?;
    let alloc_bytes = all_or_none(r.alloc_bytes().0, "*_alloc_bytes")?;
    let throughput = r.batch();
    let caveats = r.caveats();
    let ns = |x: u64| x as f64;
    let instructions = instructions(&r)?;
    if let Some(t) = r.msg_type.as_deref().filter(|t| t.len() > 1) {
        return Err(format!("msg_type {t:?} is not one IEX type byte"));
    }
    Ok(RunRow {
        source,
        line: 0,
        input_name: input_name(&r.input),
        // Per-message figures are never ranked against per-packet ones: they form sections
        // of their own, named by the unit.
        unit: match r.unit.as_deref() {
            Some("message") => "message",
            _ => "packet",
        },
        label: section_label(r.label.clone(), r.unit.as_deref(), r.jobs),
        latency,
        throughput,
        packets: ns(r.packets),
        messages: ns(r.messages),
        units: r.units.map(ns),
        batch_units: r.batch_units.map(ns),
        msgs_per_sec: ns(r.msgs_per_sec),
        clock: r.clock.clone().filter(|c| !c.is_empty()),
        twin_of: r.twin_of.clone().filter(|t| !t.is_empty()),
        latency_note: r.latency_note.clone().filter(|n| !n.is_empty()),
        allocs,
        alloc_bytes,
        caveats,
        instructions,
        windows: None,
        row: r,
    })
}

/// The row's instructions per unit and their source; `None` where the run did not count.
fn instructions(r: &Row) -> Result<Option<(Counter, [f64; 3])>, String> {
    let counts = all_or_none(r.instructions().0, "*_instr")?;
    let source = r.instr_source.as_deref().and_then(Counter::parse);
    Ok(counts.zip(source).map(|(counts, source)| (source, counts)))
}

/// The three sides' cells of one figure: all there, or none (not measured).
fn all_or_none<const N: usize>(
    cells: [Option<f64>; N],
    columns: &str,
) -> Result<Option<[f64; N]>, String> {
    match cells.iter().filter(|x| x.is_some()).count() {
        0 => Ok(None),
        n if n == N => Ok(Some(cells.map(Option::unwrap_or_default))),
        _ => Err(format!("some {columns} cells are empty and others are not")),
    }
}

/// `rows` as if read from one CSV: what report tests build their summaries from.
#[cfg(test)]
pub(crate) fn runs_of(rows: Vec<Row>) -> Runs {
    let (by_type, rows): (Vec<RunRow>, Vec<RunRow>) = (rows.into_iter().enumerate())
        .map(|(line, r)| RunRow {
            line,
            ..run_row(r, 0).unwrap()
        })
        .partition(|r| r.msg_type().is_some());
    Runs {
        by_type,
        sources: vec![Source {
            csv: PathBuf::from("runs.csv"),
            rows: rows.len(),
            duplicates: 0,
            governor: Governor::Performance,
        }],
        rows,
    }
}

/// The file name of an `input` column value (`data/x.pcapng.gz` → `x.pcapng.gz`).
pub fn input_name(input: &str) -> String {
    input
        .rsplit(['/', '\\'])
        .find(|s| !s.is_empty())
        .unwrap_or(input)
        .to_owned()
}

fn io_message(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        _ => format!("cannot read: {e}"),
    }
}

fn csv_message(e: &::csv::Error) -> String {
    match e.kind() {
        ::csv::ErrorKind::Deserialize { err, .. } => match err.field() {
            Some(_) => format!("bad value: {}", err.kind()),
            None => err.to_string(),
        },
        ::csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => format!("{len} fields where the header has {expected_len}"),
        _ => e.to_string(),
    }
}

/// Reads the `governor:` line of `environment.txt` beside `csv`.
fn governor_next_to(csv: &Path) -> Governor {
    let env = csv
        .parent()
        .unwrap_or_else(|| Path::new("."))
        .join("environment.txt");
    match std::fs::read_to_string(env) {
        Err(_) => Governor::NotRecorded,
        Ok(text) => parse_governor(&text),
    }
}

/// The governor named on the `governor:` line of an `environment.txt`.
pub fn parse_governor(text: &str) -> Governor {
    let value = text.lines().find_map(|l| {
        l.strip_prefix("governor:")
            .map(|v| v.trim().to_ascii_lowercase())
    });
    match value.as_deref() {
        Some("performance") => Governor::Performance,
        None | Some("") | Some("unreadable") | Some("unknown") => Governor::Unreadable,
        Some(other) => Governor::Other(other.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_windows_file_beside_the_results() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let csv = dir.join("runs.csv");
        std::fs::write(
            dir.join("runs.windows.csv"),
            "run_id,format,workload,chunk,window,windows,units,ns\n\
             r1,sbe,ser,0,1,1,10,300\n\
             r1,sbe,ser,0,0,1,10,100\n\
             r1,sbe,de_all,0,0,1,10,50\n\
             r1,sbe,de_all,0,1,1,10,70\n\
             r1,sbe,de,0,1,1,10,70\n",
        )
        .unwrap();
        let read = read_beside(&csv).unwrap();
        let w = &read[&("r1".to_owned(), "sbe".to_owned())];
        // Blocks in input order, whatever order the file had them in.
        assert_eq!(w[Workload::Encode].blocks[0].ns, 100);
        assert_eq!(w[Workload::Complete].blocks.len(), 2);
        assert_eq!(w[Workload::Selective].blocks.len(), 1);
        // No windows file: no windows, no error.
        assert!(read_beside(&dir.join("other.csv")).unwrap().is_empty());
        std::fs::write(
            dir.join("bad.windows.csv"),
            "run_id,format,workload,chunk,window,windows,units,ns\nr1,sbe,ser,0,0,3,10,1\n",
        )
        .unwrap();
        let e = read_beside(&dir.join("bad.csv")).unwrap_err().to_string();
        assert!(e.contains("bad.windows.csv") && e.contains("line 2"), "{e}");
    }

    #[test]
    fn names_and_governors() {
        for (input, name) in [
            ("data/sample-deep.pcapng.gz", "sample-deep.pcapng.gz"),
            ("x.pcap", "x.pcap"),
            ("/a/b/", "b"),
        ] {
            assert_eq!(input_name(input), name);
        }
        // `performance`, another governor and `unreadable`: tests/it/report.rs, the fixtures'
        // warnings (warnings_name_what_is_doubtful) and governor_unknown_or_missing_is_said.
        assert_eq!(parse_governor("cpu: x"), Governor::Unreadable);
    }

    #[test]
    fn runs_of_several_workers_and_per_message_runs_form_sections_of_their_own() {
        let l = |label: &str, unit, jobs| section_label(label.to_owned(), unit, jobs);
        assert_eq!(l("normal", None, None), "normal");
        assert_eq!(l("normal", Some("packet"), Some(1)), "normal");
        assert_eq!(l("pinned", None, Some(2)), "pinned (2 jobs)");
        // bench --jobs 2 names its runs so already.
        assert_eq!(l("normal (2 jobs)", None, Some(2)), "normal (2 jobs)");
        assert_eq!(
            l("normal (2 jobs)", Some("message"), Some(2)),
            "normal (2 jobs) (per message)"
        );
    }
}
