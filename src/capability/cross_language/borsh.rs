//! borsh bytes read by JavaScript: `xlang/borsh_read.js` reads the packets with borsh-js (npm
//! `borsh`, the reference implementation for JavaScript in near's borsh family), through a schema
//! in borsh-js's notation made here from the message table (the variants in the wire vocabulary's
//! order, each field's type), and writes back what it read, one JSON line a packet. The packets
//! go to it back to back behind their count as a `u32`: the borsh encoding of a `Vec` of packets.

use std::path::{Path, PathBuf};

use serde_json::{json, Value as Json};

use super::compare::{self, Bytes, TheirPacket};
use super::tool::{self, Tool, ToolError};

fn node() -> Tool {
    Tool::find("NODE", None, "node", "Debian's nodejs")
}

/// Where borsh-js is: `$BORSH_JS`, else where scripts/bootstrap.sh installs it.
fn module() -> PathBuf {
    std::env::var_os("BORSH_JS")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/borsh-js/node_modules/borsh")
        })
}

/// borsh-js's version, from its package.json.
fn version() -> Result<String, ToolError> {
    let missing = || ToolError::NotFound {
        program: module().display().to_string(),
        install: "npm's borsh 2.0.0",
    };
    let text = std::fs::read(module().join("package.json")).map_err(|_| missing())?;
    let package: Json = serde_json::from_slice(&text).map_err(|_| missing())?;
    package["version"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(missing)
}

/// `borsh-js 2.0.0 (Node v20.20.2)`.
pub fn describe() -> Result<String, ToolError> {
    Ok(format!(
        "borsh-js {} ({})",
        version()?,
        node()
            .version(&["--version"])
            .map(|v| format!("Node {v}"))?
    ))
}

/// A field type of the message table in borsh-js's notation, as the wire vocabulary carries it.
fn field_type(ty: &str) -> Json {
    match ty {
        "u8" | "u32" | "i64" => json!(ty),
        "Symbol" => json!({"array": {"type": "u8", "len": 8}}),
        "Bytes4" => json!({"array": {"type": "u8", "len": 4}}),
        "Side" => json!({"enum": [
            {"struct": {"Buy": {"struct": {}}}},
            {"struct": {"Sell": {"struct": {}}}},
        ]}),
        other => unreachable!("the message table has no field type {other}"),
    }
}

/// A packet in borsh-js's notation. borsh-js reads a struct's fields in the order its object
/// lists them, so the JSON is written here in the table's order (a `serde_json` map would sort
/// the names).
fn schema() -> String {
    let variants: Vec<String> = compare::table()
        .iter()
        .map(|(variant, fields)| {
            let fields: Vec<String> = fields
                .iter()
                .map(|(name, ty)| format!("\"{name}\":{}", field_type(ty)))
                .collect();
            format!(
                "{{\"struct\":{{\"{variant}\":{{\"struct\":{{{}}}}}}}}}",
                fields.join(",")
            )
        })
        .collect();
    format!(
        "{{\"struct\":{{\"seq\":\"u64\",\"send_time\":\"i64\",\"messages\":\
         {{\"array\":{{\"type\":{{\"enum\":[{}]}}}}}}}}}}",
        variants.join(",")
    )
}

/// Reads `borsh` packets.
pub fn read(units: &[Vec<u8>], dir: &Path) -> Result<Vec<TheirPacket>, ToolError> {
    version()?;
    let tool = node();
    let schema_file = dir.join("packet.json");
    tool::write(&schema_file, schema().as_bytes())?;
    let count = u32::try_from(units.len()).expect("fewer than 2^32 packets");
    let input = [&count.to_le_bytes()[..], &units.concat()].concat();
    let script = include_str!("../../../xlang/borsh_read.js");
    let module = module();
    let args = [module.as_os_str(), schema_file.as_os_str()];
    let lines = tool.script(dir, ("borsh_read.js", script), &args, &input)?;
    tool.tagged(&lines, Bytes::Integer)
}
