//! Cap'n Proto bytes read by C++: the `capnp` tool's `convert` command (`binary:json` for
//! `capnp-unpacked`, `packed:json` for `capnp-packed`) reads the packets as the stream of messages
//! they are (each has its segment table) and prints each as one line of JSON, through the schema.
//! Its JSON writes 64-bit integers as strings, symbols being UInt64 among them.

use std::path::Path;

use super::compare::{Bytes, TheirPacket};
use super::tool::{self, Tool, ToolError};

/// The schema the Rust code is compiled from, as build.rs generated it from the message table
/// (`schemas/marketdata.capnp` is a copy).
const SCHEMA: &str = include_str!(concat!(env!("OUT_DIR"), "/schemas/marketdata.capnp"));

fn capnp() -> Tool {
    Tool::find("CAPNP", None, "capnp", "Debian's capnproto")
}

/// `capnp convert (C++, Cap'n Proto version 0.9.2)`.
pub fn describe() -> Result<String, ToolError> {
    capnp().describe("capnp convert", "C++")
}

/// Reads `capnp-packed` packets where `PACKED`, else `capnp-unpacked` ones.
pub fn read<const PACKED: bool>(
    units: &[Vec<u8>],
    dir: &Path,
) -> Result<Vec<TheirPacket>, ToolError> {
    let conversion = if PACKED { "packed:json" } else { "binary:json" };
    let tool = capnp();
    let schema = dir.join("marketdata.capnp");
    tool::write(&schema, SCHEMA.as_bytes())?;
    let out = tool.run(
        [
            "convert".as_ref(),
            conversion.as_ref(),
            "--short".as_ref(),
            schema.as_os_str(),
            "Packet".as_ref(),
        ],
        &units.concat(),
    )?;
    tool.tagged(&tool::json_lines(&tool, &out)?, Bytes::Integer)
}
