//! JSON bytes read by Python: `xlang/json_read.py` reads the packets (one JSON object a line)
//! with the standard library's `json` module and writes back what it read, one line a packet,
//! Python's types kept (an integer that became a float would show). Symbols are strings without
//! their space padding; reason codes arrays of byte values.

use std::path::Path;

use super::compare::{Bytes, TheirPacket};
use super::tool::{Tool, ToolError};

fn python() -> Tool {
    Tool::find("PYTHON3", None, "python3", "Debian's python3")
}

/// `json (Python 3.11.2)`.
pub fn describe() -> Result<String, ToolError> {
    Ok(format!("json ({})", python().version(&["--version"])?))
}

/// Reads `json` packets.
pub fn read(units: &[Vec<u8>], dir: &Path) -> Result<Vec<TheirPacket>, ToolError> {
    let tool = python();
    let script = ("json_read.py", include_str!("../../../xlang/json_read.py"));
    let lines = tool.script(dir, script, &[], &units.concat())?;
    tool.tagged(&lines, Bytes::Text)
}
