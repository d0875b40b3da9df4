//! What a run leaves behind: CSV rows, per-format histograms, the aggregation summary and the
//! table on stdout. One file per output; all of them read the same [`RunReport`].

pub mod csv;
pub mod environment;
pub mod hgrm;
pub mod summary;
pub mod table;

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use crate::measure::Outcome;
pub use environment::RunInfo;

/// A finished run and where it came from.
pub struct RunReport<'a> {
    pub outcome: &'a Outcome,
    pub info: &'a RunInfo,
}

/// Writes a file whole or not at all: into a temporary file beside it, then renamed over it, so
/// an interrupted run never leaves a half-written report.
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut w = BufWriter::new(File::create(&tmp)?);
        write(&mut w)?;
        let file = w.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_leaves_nothing_on_failure() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.csv");
        write_atomically(&path, |w| w.write_all(b"whole")).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"whole");
        let err = write_atomically(&path, |w| {
            w.write_all(b"half")?;
            Err(io::Error::other("interrupted"))
        });
        assert!(err.is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"whole", "old file intact");
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temp left"
        );
    }
}
