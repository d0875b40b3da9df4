//! Fory bytes read by Python: `xlang/fory_read.py` reads our packets (Fory xlang root objects,
//! back to back) with Apache Fory's Python implementation (PyPI `pyfory`, pinned and installed
//! into `tools/fory-venv` by scripts/bootstrap.sh), its own dataclasses registered under our
//! xlang names in compatible mode, and writes back what it read, one JSON line a packet:
//! messages tagged with their type's name, byte fields as their values.

use std::path::Path;

use super::compare::{Bytes, TheirPacket};
use super::tool::{self, Tool, ToolError};

/// The version scripts/bootstrap.sh installs.
const PYFORY: &str = "1.7.7";

/// The virtual environment's Python (or `$FORY_PYTHON`, a Python that has `pyfory`).
fn python() -> Tool {
    let install = "PyPI pyfory==1.7.7 into tools/fory-venv";
    Tool::venv_python("FORY_PYTHON", "fory-venv", None, install)
}

/// `pyfory 1.7.7 (Python 3.11.2)`; an error if it does not import.
pub fn describe() -> Result<String, ToolError> {
    let code = "import pyfory, importlib.metadata as m; print(m.version('pyfory'))";
    let [fory, python] = python().pinned("pyfory", code, PYFORY)?;
    Ok(format!("pyfory {fory} ({python})"))
}

/// Reads `fory` packets, the script's types declared from the message table.
pub fn read(units: &[Vec<u8>], dir: &Path) -> Result<Vec<TheirPacket>, ToolError> {
    let table = dir.join("iex-messages.txt");
    tool::write(
        &table,
        include_str!("../../../schemas/iex-messages.txt").as_bytes(),
    )?;
    let tool = python();
    let script = ("fory_read.py", include_str!("../../../xlang/fory_read.py"));
    let args = [table.as_os_str()];
    tool.tagged(
        &tool.script(dir, script, &args, &units.concat())?,
        Bytes::Text,
    )
}

#[cfg(test)]
mod tests {
    /// pyfory reads every field of every message of the sample exactly.
    #[test]
    fn python_reads_every_field() {
        let dir = tempfile::tempdir().unwrap();
        let found = super::super::read_by("fory", dir.path()).expect("a known format");
        let (language, finding) = &found.findings[0];
        assert_eq!(language, "Python");
        assert!(finding.measured && finding.yes(), "{}", finding.answer);
        let kinds = crate::model::kind::ALL.len();
        finding.assert_says(&format!("of {kinds} types read exactly by"));
    }
}
