//! `<results>.windows.csv` beside every `--csv` file: each format's whole-window passes window by
//! window (`measure::window_times`), one row per format, workload and block of windows. The
//! report compares two formats on the windows they shared (`report::windows`); a results file
//! without its windows file is read as before, by the ratio of the runs' sums.

use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::append::{append_rows, header_needed};
use super::RunReport;
use crate::measure::workload::Workload;

/// One block of windows of one workload of one format in one run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowRow {
    pub run_id: String,
    pub format: String,
    /// `ser`, `de` or `de_all`, as the results file's columns name the workloads.
    pub workload: String,
    pub chunk: u64,
    /// The block's first window in its chunk, counted from 0.
    pub window: u64,
    /// Windows in the block: a power of two, 1 unless the input had more windows than a run
    /// keeps apart (`measure::window_times::MAX_BLOCKS`); `2^32 × 2^c` is `2^c` whole chunks
    /// from `chunk` on (`window` 0), where the input had more chunks than that
    /// (`measure::window_times::CHUNK_SHIFT`).
    pub windows: u64,
    pub units: u64,
    pub ns: u64,
}

/// The header, in [`WindowRow`]'s field order.
pub const COLUMNS: &str = "run_id,format,workload,chunk,window,windows,units,ns";

/// Where the windows of the results file `csv` go: `runs.csv` → `runs.windows.csv`.
pub fn path_of(csv: &Path) -> PathBuf {
    let stem = csv.file_stem().unwrap_or_default().to_string_lossy();
    csv.with_file_name(format!("{stem}.windows.csv"))
}

/// The run's rows, every format and workload timed whole.
pub fn rows(report: &RunReport<'_>) -> Vec<WindowRow> {
    let mut out = Vec::new();
    for f in &report.outcome.formats {
        for workload in Workload::ALL {
            let times = &f.windows[workload];
            out.extend(times.blocks.iter().map(|b| WindowRow {
                run_id: report.info.run_id.clone(),
                format: f.name.to_owned(),
                workload: workload.column().to_owned(),
                chunk: b.chunk,
                window: b.first,
                windows: 1 << times.shift,
                units: b.units,
                ns: b.ns,
            }));
        }
    }
    out
}

/// Appends the run's windows to `path`, the header first when the file is new: in one write,
/// synced, so a killed run leaves all of its windows or none. A file with other columns is
/// refused rather than mixed.
pub fn append(path: &Path, report: &RunReport<'_>) -> io::Result<()> {
    let header = header_needed(path, COLUMNS)?;
    append_rows(path, COLUMNS, header, rows(report))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::append::header_of;

    #[test]
    fn the_header_is_the_row_types_fields() {
        assert_eq!(header_of(WindowRow::default()), COLUMNS);
    }

    #[test]
    fn the_windows_file_sits_beside_the_results_file() {
        assert_eq!(
            path_of(Path::new("out/runs.csv")),
            Path::new("out/runs.windows.csv")
        );
        assert_eq!(
            path_of(Path::new("results")),
            Path::new("results.windows.csv")
        );
    }
}
