//! MessagePack and CBOR bytes read by Python: `xlang/serde_read.py` reads the packets (one data
//! item each, back to back) with PyPI's `msgpack` or `cbor2` (pinned, installed by
//! scripts/bootstrap.sh into tools/serde-venv) and writes back what it read, one JSON line a
//! packet, Python's types kept, byte strings as arrays of byte values. CBOR names every field
//! (minicbor-serde writes structs as maps); MessagePack's compact structs are arrays, so here
//! each value is named by its position in the message table, as any reader of compact
//! MessagePack needs the schema's field order.

use std::ffi::OsStr;
use std::path::Path;

use serde_json::Value as Json;

use super::compare::{self, Bytes, TheirMessage, TheirPacket};
use super::tool::{Tool, ToolError};

/// The venv's Python (`$SERDE_PYTHON3` overrides it), else `python3` on PATH.
fn python() -> Tool {
    let install = "PyPI msgpack 1.2.4 and cbor2 6.3.0 into tools/serde-venv";
    Tool::venv_python("SERDE_PYTHON3", "serde-venv", Some("python3"), install)
}

/// The Python modules that read MessagePack and CBOR.
pub const MSGPACK: &str = "msgpack";
pub const CBOR: &str = "cbor2";

/// `module version (Python 3.11.7)` (`msgpack 1.2.4 (...)`, `cbor2 6.3.0 (...)`); an error if
/// Python cannot import `module`.
pub fn describe(module: &str) -> Result<String, ToolError> {
    python().python(&format!(
        "import sys; from importlib.metadata import version; \
         print('{module}', version('{module}'), '(Python', sys.version.split()[0] + ')')"
    ))
}

/// Runs the script on the units for `format`; its lines.
fn run(tool: &Tool, format: &str, units: &[Vec<u8>], dir: &Path) -> Result<Vec<Json>, ToolError> {
    let script = (
        "serde_read.py",
        include_str!("../../../xlang/serde_read.py"),
    );
    tool.script(dir, script, &[OsStr::new(format)], &units.concat())
}

/// Reads `cbor` packets: maps with the model's field names, messages externally tagged.
pub fn read_cbor(units: &[Vec<u8>], dir: &Path) -> Result<Vec<TheirPacket>, ToolError> {
    let tool = python();
    tool.tagged(&run(&tool, "cbor", units, dir)?, Bytes::Text)
}

/// Reads `msgpack` packets: `[seq, send_time, [{"trade_report": [values]}, …]]`.
pub fn read_msgpack(units: &[Vec<u8>], dir: &Path) -> Result<Vec<TheirPacket>, ToolError> {
    let tool = python();
    let packets = run(&tool, "msgpack", units, dir)?;
    packets
        .iter()
        .map(positional_packet)
        .collect::<Result<_, _>>()
        .map_err(|e| tool.output_error(e))
}

/// A packet written as an array, its three elements named.
fn positional_packet(p: &Json) -> Result<TheirPacket, String> {
    let Some([seq, send_time, messages]) = p.as_array().map(Vec::as_slice) else {
        return Err(format!("{p} is not [seq, send_time, messages]"));
    };
    let named = serde_json::json!({"seq": seq, "send_time": send_time, "messages": messages});
    compare::packet(&named, false, positional_message)
}

/// A message written as `{"trade_report": [values]}`, each value named by its position in the
/// message table; a count that differs from the table's is an error.
fn positional_message(m: &Json) -> Result<TheirMessage, String> {
    let (variant, values) = match m
        .as_object()
        .map(|o| o.iter().collect::<Vec<_>>())
        .as_deref()
    {
        Some([(tag, Json::Array(values))]) => (compare::camel(tag), values),
        _ => return Err(format!("{m} is not one message of positional fields")),
    };
    let Some(table) = compare::fields_of(&variant) else {
        return Err(format!("{variant} is not a message type of the model"));
    };
    if table.len() != values.len() {
        return Err(format!(
            "{variant} has {} values where the model has {} fields",
            values.len(),
            table.len()
        ));
    }
    let named: serde_json::Map<String, Json> = table
        .iter()
        .zip(values)
        .map(|((name, _), v)| (name.to_string(), v.clone()))
        .collect();
    compare::message(&variant, &named, Bytes::Text, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values are named by position; a value too many or too few is named, not shifted.
    #[test]
    fn positional_fields_are_named_by_the_message_table() {
        let m = serde_json::json!({"system_event": [79, 500]});
        let read = positional_message(&m).unwrap();
        assert_eq!(read.variant, "SystemEvent");
        assert_eq!(
            read.fields,
            vec![
                ("event".to_string(), compare::Value::Int(79)),
                ("timestamp".to_string(), compare::Value::Int(500)),
            ]
        );
        let m = serde_json::json!({"system_event": [79, 500, 1]});
        assert_eq!(
            positional_message(&m).unwrap_err(),
            "SystemEvent has 3 values where the model has 2 fields"
        );
        let p = serde_json::json!([1, 2]);
        assert!(positional_packet(&p).is_err());
    }
}
