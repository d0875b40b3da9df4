//! `shootout report`: what many runs left behind (see `crate::export`), read back across runs,
//! days and machines: [`mod@load`] the CSVs,
//! [`summarize`] them (medians, spreads, ratios, warnings), [`write_report`] the outputs
//! (`summary.csv`, `summary.md`, SVG charts, `index.html`), one file per output behind [`Export`].

pub mod baseline;
pub mod bmf;
pub mod charts;
pub mod dist;
pub mod error;
pub mod html;
pub mod load;
pub mod markdown;
pub mod scheduling;
pub mod significance;
pub mod stats;
pub mod summary_csv;
pub mod tables;
pub mod verdict;
pub mod warnings;

pub use crate::output::write_atomically;
pub use charts::{ChartFile, ChartKind};
pub use error::ReportError;
pub use load::{load, Runs};
pub use stats::{summarize, Summary, Warning, WarningKind};

use std::io;
use std::path::{Path, PathBuf};

/// What a text output renders: the summary, the charts drawn for it, and every warning
/// (the summary's and those found while drawing).
pub struct ReportData<'a> {
    pub summary: &'a Summary,
    pub charts: &'a [ChartFile],
    pub warnings: &'a [Warning],
    /// Every run's histograms merged, per (input, label, format, side), where runs left them.
    pub merged: &'a [dist::MergedRow],
    /// Each format against the baseline (`--baseline`), when given.
    pub baseline: Option<&'a baseline::Comparison>,
}

/// One file of the report (`summary.csv`, `summary.md`, `index.html`), written whole.
pub trait Export {
    fn file_name(&self) -> &'static str;
    fn write(&self, report: &ReportData<'_>, w: &mut dyn io::Write) -> io::Result<()>;
}

/// What [`write_report`] wrote.
#[derive(Debug, Clone)]
pub struct ReportFiles {
    /// Every file written, `index.html` last.
    pub files: Vec<PathBuf>,
    pub index: PathBuf,
    /// The summary's warnings plus those found while drawing the charts.
    pub warnings: Vec<Warning>,
}

/// Writes the report into `out_dir` (created if missing). The distribution charts read the
/// `.hgrm` files under `hist_dirs`; when none is given, `hist/` next to each CSV, where it
/// exists. A folder given explicitly must exist.
pub fn write_report(
    summary: &Summary,
    hist_dirs: &[PathBuf],
    out_dir: &Path,
) -> Result<ReportFiles, ReportError> {
    write_report_with(summary, hist_dirs, out_dir, None)
}

/// [`write_report`], with the comparison against a baseline shown after the answer.
pub fn write_report_with(
    summary: &Summary,
    hist_dirs: &[PathBuf],
    out_dir: &Path,
    baseline: Option<&baseline::Comparison>,
) -> Result<ReportFiles, ReportError> {
    let hist_dirs: Vec<PathBuf> = if hist_dirs.is_empty() {
        let mut dirs: Vec<PathBuf> = summary
            .sources
            .iter()
            .map(|s| s.csv.parent().unwrap_or(Path::new(".")).join("hist"))
            .filter(|d| d.is_dir())
            .collect();
        dirs.dedup();
        dirs
    } else {
        for d in hist_dirs {
            if !d.is_dir() {
                return Err(ReportError::new(d, "no such histogram folder"));
            }
        }
        hist_dirs.to_vec()
    };
    let hists = dist::read_histograms(summary, &hist_dirs)?;
    std::fs::create_dir_all(out_dir)
        .map_err(|e| ReportError::new(out_dir, format!("cannot create the report folder: {e}")))?;
    let mut warnings = summary.warnings.clone();
    let mut files = Vec::new();
    let charts = charts::write_all(summary, &hists, &hist_dirs, out_dir, &mut warnings)?;
    files.extend(charts.iter().map(|c| out_dir.join(&c.file)));
    let merged = dist::merged_rows(summary, &hists);
    let data = ReportData {
        summary,
        charts: &charts,
        warnings: &warnings,
        merged: &merged,
        baseline,
    };
    let exports: [&dyn Export; 3] = [&summary_csv::SummaryCsv, &markdown::Markdown, &html::Html];
    for export in exports {
        let path = out_dir.join(export.file_name());
        write_atomically(&path, |w| export.write(&data, w))
            .map_err(|e| ReportError::new(&path, format!("cannot write: {e}")))?;
        files.push(path);
    }
    Ok(ReportFiles {
        index: out_dir.join(html::Html.file_name()),
        files,
        warnings,
    })
}
