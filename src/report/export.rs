//! One file of the report, written whole from what every file is written from.

use std::io;

use super::analysis::Analysis;
use super::document::Document;
use super::stats::Summary;

/// What the files are written from: the summary, its analysis, and the page built from them once.
pub struct ReportData<'a> {
    pub summary: &'a Summary,
    pub analysis: &'a Analysis<'a>,
    pub document: &'a Document,
}

/// One file of the report (`summary.csv`, `summary.md`, `index.html`), written whole.
pub trait Export {
    fn file_name(&self) -> &'static str;
    fn write(&self, report: &ReportData<'_>, w: &mut dyn io::Write) -> io::Result<()>;
}
