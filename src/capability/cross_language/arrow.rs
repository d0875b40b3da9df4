//! Arrow IPC bytes read by Python: `xlang/arrow_read.py` reads the window (one IPC stream) with
//! PyPI's `pyarrow` (pinned, installed by scripts/bootstrap.sh into tools/arrow-venv), walks its
//! dense union by the schema's own names and writes back what it read, one JSON line a packet,
//! messages tagged with their child's name (the model's, snake case).

use std::path::Path;

use super::compare::{self, Bytes, TheirPacket};
use super::tool::{self, Tool, ToolError};

const SCRIPT: &str = include_str!("../../../xlang/arrow_read.py");

/// What installs the reader.
const INSTALL: &str = "PyPI pyarrow 26.0.1 into tools/arrow-venv";

/// The venv's Python (`$ARROW_PYTHON3` overrides it), else `python3` on PATH.
fn python() -> Tool {
    Tool::find(
        "ARROW_PYTHON3",
        Some("tools/arrow-venv/bin/python3"),
        "python3",
        INSTALL,
    )
}

/// `pyarrow 26.0.1 (Python 3.11.2)`; an error if Python cannot import it.
pub fn describe() -> Result<String, ToolError> {
    let tool = python();
    let code = "import sys, pyarrow; \
        print('pyarrow', pyarrow.__version__, '(Python', sys.version.split()[0] + ')')";
    let out = tool.run(["-c", code], b"")?;
    Ok(String::from_utf8_lossy(&out).trim().to_owned())
}

/// Reads the window (the one unit `cross_language::encode` gives a window format).
pub fn read(units: &[Vec<u8>], dir: &Path) -> Result<Vec<TheirPacket>, ToolError> {
    let tool = python();
    let script = dir.join("arrow_read.py");
    tool::write(&script, SCRIPT.as_bytes())?;
    let out = tool.run([script.as_os_str()], &units.concat())?;
    let packets = tool::json_lines(&tool, &out)?;
    compare::tagged_packets(&packets, Bytes::Text, false).map_err(|e| tool.output_error(e))
}
