//! Arrow IPC bytes read by Python: `xlang/arrow_read.py` reads the window (one IPC stream) with
//! PyPI's `pyarrow` (pinned, installed by scripts/bootstrap.sh into tools/arrow-venv), walks its
//! dense union by the schema's own names and writes back what it read, one JSON line a packet,
//! messages tagged with their child's name (the model's, snake case).

use std::path::Path;

use super::compare::{Bytes, TheirPacket};
use super::tool::{Tool, ToolError};

/// The venv's Python (`$ARROW_PYTHON3` overrides it), else `python3` on PATH.
fn python() -> Tool {
    let install = "PyPI pyarrow 26.0.1 into tools/arrow-venv";
    Tool::venv_python("ARROW_PYTHON3", "arrow-venv", Some("python3"), install)
}

/// `pyarrow 26.0.1 (Python 3.11.2)`; an error if Python cannot import it.
pub fn describe() -> Result<String, ToolError> {
    python().python(
        "import sys, pyarrow; \
         print('pyarrow', pyarrow.__version__, '(Python', sys.version.split()[0] + ')')",
    )
}

/// Reads the window (the one unit `cross_language::encode` gives a window format).
pub fn read(units: &[Vec<u8>], dir: &Path) -> Result<Vec<TheirPacket>, ToolError> {
    let tool = python();
    let script = (
        "arrow_read.py",
        include_str!("../../../xlang/arrow_read.py"),
    );
    let lines = tool.script(dir, script, &[], &units.concat())?;
    tool.tagged(&lines, Bytes::Text)
}
