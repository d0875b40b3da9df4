//! Avro bytes read by Python: `xlang/avro_read.py` reads the datums (one per packet, back to
//! back) with Apache Avro's Python implementation (PyPI `avro`, pinned and installed into
//! `tools/avro-venv` by scripts/bootstrap.sh) on the schema build.rs generated, and writes back
//! what it read, one JSON line a packet: messages tagged with their record's name, `fixed`
//! symbols and reason codes as byte values, the side as its enum symbol.

use std::path::Path;

use super::compare::{self, Bytes, TheirPacket};
use super::tool::{self, Tool, ToolError};
use crate::formats::avro::SCHEMA_TEXT;

const SCRIPT: &str = include_str!("../../../xlang/avro_read.py");
/// The version scripts/bootstrap.sh installs.
pub(crate) const AVRO_PY: &str = "1.12.2";
/// Where scripts/bootstrap.sh puts it.
const VENV_PYTHON: &str = "tools/avro-venv/bin/python3";

/// The virtual environment's Python (or `$AVRO_PYTHON`, a Python that has `avro`).
fn python() -> Tool {
    Tool::find(
        "AVRO_PYTHON",
        Some(VENV_PYTHON),
        VENV_PYTHON,
        "PyPI avro==1.12.2 into tools/avro-venv",
    )
}

/// `Apache Avro 1.12.2 for Python (Python 3.11.7)`; an error if `avro` does not import.
pub fn describe() -> Result<String, ToolError> {
    let tool = python();
    let code = "import avro; print(avro.__version__)";
    let version = tool.run(["-c", code], &[])?;
    let version = String::from_utf8_lossy(&version).trim().to_owned();
    if version != AVRO_PY {
        return Err(tool.output_error(format!(
            "avro {version}, not the {AVRO_PY} scripts/bootstrap.sh installs"
        )));
    }
    let python = tool.version(&["--version"])?;
    Ok(format!("Apache Avro {version} for Python ({python})"))
}

/// Reads `avro` datums.
pub fn read(units: &[Vec<u8>], dir: &Path) -> Result<Vec<TheirPacket>, ToolError> {
    let lines = read_resolved(units, dir, SCHEMA_TEXT, None)?;
    compare::tagged_packets(&lines, Bytes::Text, false).map_err(|e| python().output_error(e))
}

/// The datums `units` (back to back) as written with the schema `writer` and, where `reader` is
/// given, resolved into it by the library: one JSON line per packet (`xlang/avro_read.py`).
pub(crate) fn read_resolved(
    units: &[Vec<u8>],
    dir: &Path,
    writer: &str,
    reader: Option<&str>,
) -> Result<Vec<serde_json::Value>, ToolError> {
    let tool = python();
    let script = dir.join("avro_read.py");
    tool::write(&script, SCRIPT.as_bytes())?;
    let mut args = vec![script];
    for (name, text) in [("writer.avsc", Some(writer)), ("reader.avsc", reader)] {
        if let Some(text) = text {
            let path = dir.join(name);
            tool::write(&path, text.as_bytes())?;
            args.push(path);
        }
    }
    let out = tool.run(&args, &units.concat())?;
    tool::json_lines(&tool, &out)
}
