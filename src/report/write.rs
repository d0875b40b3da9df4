//! Writing the report folder: the charts, then the page built once from the summary, then each
//! text file from it; `index.html` last.

use std::path::{Path, PathBuf};

use super::analysis::analyse;
use super::baseline::Comparison;
use super::by_type::Types;
use super::controls::ControlsCsv;
use super::decision::Decision;
use super::error::ReportError;
use super::export::{Export, ReportData};
use super::html::Html;
use super::markdown::Markdown;
use super::page::{self, Contents};
use super::stats::{Summary, Warning};
use super::summary_csv::SummaryCsv;
use super::{charts, dist};
use crate::output::write_atomically;

/// What [`write_report`] wrote.
#[derive(Debug, Clone)]
pub struct ReportFiles {
    /// Every file written, `index.html` last.
    pub files: Vec<PathBuf>,
    pub index: PathBuf,
    /// The summary's warnings plus those found while drawing the charts.
    pub warnings: Vec<Warning>,
    /// Each input's verdict as a terminal shows it (`report::terminal`), for `bench`'s last
    /// screen.
    pub verdicts: String,
}

/// Writes the report into `out_dir` (created if missing). The distribution charts read the
/// `.hgrm` files under `hist_dirs`; when none is given, `hist/` next to each CSV, where it
/// exists. A folder given explicitly must exist.
pub fn write_report(
    summary: &Summary,
    hist_dirs: &[PathBuf],
    out_dir: &Path,
) -> Result<ReportFiles, ReportError> {
    let types = Types::default();
    write_report_with(
        summary,
        hist_dirs,
        out_dir,
        None,
        &Decision::default(),
        &types,
    )
}

/// [`write_report`], with the comparison against a baseline shown after the answer, the
/// formats' capabilities and the requirements the verdict honours, and the figures per message
/// type with the mix asked for.
pub fn write_report_with(
    summary: &Summary,
    hist_dirs: &[PathBuf],
    out_dir: &Path,
    baseline: Option<&Comparison>,
    decision: &Decision,
    types: &Types,
) -> Result<ReportFiles, ReportError> {
    let hist_dirs = histogram_folders(summary, hist_dirs)?;
    // Read before anything is written: an unreadable histogram leaves no half-written report.
    let hists = dist::read_histograms(summary, &hist_dirs)?;
    std::fs::create_dir_all(out_dir)
        .map_err(|e| ReportError::new(out_dir, format!("cannot create the report folder: {e}")))?;
    let analysis = analyse(summary, decision);
    let mut warnings = summary.warnings.clone();
    warnings.extend(analysis.twin_warnings());
    let charts = charts::write_all(summary, &hists, &hist_dirs, out_dir, &mut warnings)?;
    let mut files: Vec<PathBuf> = charts.iter().map(|c| out_dir.join(&c.file)).collect();
    let document = page::build(&Contents {
        summary,
        analysis: &analysis,
        charts: &charts,
        warnings: &warnings,
        merged: &dist::merged_rows(summary, &hists),
        baseline,
        decision,
        types,
    });
    let data = ReportData {
        summary,
        analysis: &analysis,
        document: &document,
    };
    let exports: [&dyn Export; 4] = [&SummaryCsv, &ControlsCsv, &Markdown, &Html];
    for export in exports {
        let path = out_dir.join(export.file_name());
        write_atomically(&path, |w| export.write(&data, w))
            .map_err(|e| ReportError::new(&path, format!("cannot write: {e}")))?;
        files.push(path);
    }
    Ok(ReportFiles {
        index: out_dir.join(Html.file_name()),
        files,
        warnings,
        verdicts: super::terminal::verdicts(&document),
    })
}

/// The folders given, each of which must exist; else `hist/` next to each CSV, where there is one.
fn histogram_folders(summary: &Summary, given: &[PathBuf]) -> Result<Vec<PathBuf>, ReportError> {
    if given.is_empty() {
        let mut dirs: Vec<PathBuf> = summary
            .sources
            .iter()
            .map(|s| s.csv.parent().unwrap_or(Path::new(".")).join("hist"))
            .filter(|d| d.is_dir())
            .collect();
        dirs.dedup();
        return Ok(dirs);
    }
    for d in given {
        if !d.is_dir() {
            return Err(ReportError::new(d, "no such histogram folder"));
        }
    }
    Ok(given.to_vec())
}
