//! JSON bytes read by Python: `xlang/json_read.py` reads the packets (one JSON object a line)
//! with the standard library's `json` module and writes back what it read, one line a packet,
//! Python's types kept (an integer that became a float would show). Symbols are strings without
//! their space padding; reason codes arrays of byte values.

use std::path::Path;

use super::compare::{self, Bytes, TheirPacket};
use super::tool::{self, Tool, ToolError};

const SCRIPT: &str = include_str!("../../../xlang/json_read.py");

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
    let script = dir.join("json_read.py");
    tool::write(&script, SCRIPT.as_bytes())?;
    let out = tool.run([script.as_os_str()], &units.concat())?;
    compare::tagged_packets(&tool::json_lines(&tool, &out)?, Bytes::Text, false)
        .map_err(|e| tool.output_error(e))
}
