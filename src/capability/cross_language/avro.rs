//! Avro bytes read by Python: `xlang/avro_read.py` reads the datums (one per packet, back to
//! back) with Apache Avro's Python implementation (PyPI `avro`, pinned and installed into
//! `tools/avro-venv` by scripts/bootstrap.sh) on the schema build.rs generated, and writes back
//! what it read, one JSON line a packet: messages tagged with their record's name, `fixed`
//! symbols and reason codes as byte values, the side as its enum symbol.

use std::ffi::OsStr;
use std::path::Path;

use super::compare::{Bytes, TheirPacket};
use super::tool::{self, Tool, ToolError};
use crate::formats::avro::SCHEMA_TEXT;

/// The version scripts/bootstrap.sh installs.
pub(crate) const AVRO_PY: &str = "1.12.2";

/// The virtual environment's Python (or `$AVRO_PYTHON`, a Python that has `avro`).
fn python() -> Tool {
    let install = "PyPI avro==1.12.2 into tools/avro-venv";
    Tool::venv_python("AVRO_PYTHON", "avro-venv", None, install)
}

/// `Apache Avro 1.12.2 for Python (Python 3.11.7)`; an error if `avro` does not import.
pub fn describe() -> Result<String, ToolError> {
    let [avro, python] =
        python().pinned("avro", "import avro; print(avro.__version__)", AVRO_PY)?;
    Ok(format!("Apache Avro {avro} for Python ({python})"))
}

/// Reads `avro` datums.
pub fn read(units: &[Vec<u8>], dir: &Path) -> Result<Vec<TheirPacket>, ToolError> {
    python().tagged(&read_resolved(units, dir, SCHEMA_TEXT, None)?, Bytes::Text)
}

/// The datums `units` (back to back) as written with the schema `writer` and, where `reader` is
/// given, resolved into it by the library: one JSON line per packet (`xlang/avro_read.py`).
pub(crate) fn read_resolved(
    units: &[Vec<u8>],
    dir: &Path,
    writer: &str,
    reader: Option<&str>,
) -> Result<Vec<serde_json::Value>, ToolError> {
    let mut schemas = Vec::new();
    for (name, text) in [("writer.avsc", Some(writer)), ("reader.avsc", reader)] {
        if let Some(text) = text {
            let path = dir.join(name);
            tool::write(&path, text.as_bytes())?;
            schemas.push(path);
        }
    }
    let args: Vec<&OsStr> = schemas.iter().map(|p| p.as_os_str()).collect();
    let script = ("avro_read.py", include_str!("../../../xlang/avro_read.py"));
    python().script(dir, script, &args, &units.concat())
}
