//! Appending a run's rows to a CSV file that other runs share: the header checked (another
//! version's columns are refused, never mixed) and every row in one synced write, so a killed run
//! leaves all of its rows or none. The results file (`csv`) and its windows file (`windows`)
//! both append so.

use std::fs::OpenOptions;
use std::io::{self, BufRead, BufReader, Write};
use std::path::Path;

use serde::Serialize;

/// Whether `path` needs the header `columns`: it is missing or empty. A file whose first line
/// is other columns is refused rather than mixed.
pub fn header_needed(path: &Path, columns: &str) -> io::Result<bool> {
    let existing_header = match std::fs::File::open(path) {
        Ok(f) => {
            let mut line = String::new();
            BufReader::new(f).read_line(&mut line)?;
            line.trim_end().to_owned()
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(true),
        Err(e) => return Err(e),
    };
    match existing_header.as_str() {
        "" => Ok(true),
        h if h == columns => Ok(false),
        other => Err(io::Error::other(format!(
            "{} has other columns than this version writes (first line: {other:.60}...)",
            path.display()
        ))),
    }
}

/// The header `csv` derives from `row`'s type: the tests hold each file's columns to it.
#[cfg(test)]
pub(super) fn header_of(row: impl Serialize) -> String {
    let mut w = ::csv::Writer::from_writer(Vec::new());
    w.serialize(row).unwrap();
    let text = String::from_utf8(w.into_inner().unwrap()).unwrap();
    text.lines().next().unwrap_or_default().to_owned()
}

/// Appends `rows` to `path` under `columns` (written first when `header`), all in one write,
/// synced: a killed run leaves all of them or none.
pub fn append_rows<T: Serialize>(
    path: &Path,
    columns: &str,
    header: bool,
    rows: impl IntoIterator<Item = T>,
) -> io::Result<()> {
    let mut w = ::csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(Vec::new());
    for row in rows {
        w.serialize(row).map_err(io::Error::other)?;
    }
    let body = w
        .into_inner()
        .map_err(|e| io::Error::other(e.to_string()))?;
    let mut text = Vec::with_capacity(columns.len() + 1 + body.len());
    if header {
        text.extend_from_slice(columns.as_bytes());
        text.push(b'\n');
    }
    text.extend_from_slice(&body);
    let mut file = OpenOptions::new().create(true).append(true).open(path)?;
    file.write_all(&text)?;
    file.sync_data()
}
