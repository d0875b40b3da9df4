//! protobuf bytes read by C++: `protoc --decode` prints a message in protobuf's text format. Our
//! packets are length-delimited (a varint length, then the `Packet`), so each one behind the key
//! byte of field 1 (`0x0a`) is one element of `Window { repeated Packet packets = 1; }`, and a
//! single `protoc` call reads them all. proto3 writes no zero value, so a field the text leaves
//! out reads as zero, as every proto3 reader reads it.

use std::path::Path;

use serde_json::{Map, Value as Json};

use super::compare::{self, Bytes, TheirPacket};
use super::tool::{self, Tool, ToolError};

/// The schema the Rust code is compiled from, as build.rs generated it from the message table
/// (`schemas/marketdata.proto` is a copy).
const SCHEMA: &str = include_str!(concat!(env!("OUT_DIR"), "/schemas/marketdata.proto"));

/// The wrapper whose one repeated field holds the packets.
const WINDOW: &str = "syntax = \"proto3\";
package md_shootout.xlang;
import \"marketdata.proto\";
message Window { repeated md_shootout.pb.Packet packets = 1; }
";

/// The key of `Window.packets`: field 1, wire type 2 (length-delimited).
const PACKETS_KEY: u8 = 0x0a;

fn protoc() -> Tool {
    Tool::find("PROTOC", None, "protoc", "Debian's protobuf-compiler")
}

/// `protoc --decode (C++, libprotoc 3.21.12)`.
pub fn describe() -> Result<String, ToolError> {
    protoc().describe("protoc --decode", "C++")
}

/// Reads `protobuf` packets.
pub fn read(units: &[Vec<u8>], dir: &Path) -> Result<Vec<TheirPacket>, ToolError> {
    let tool = protoc();
    tool::write(&dir.join("marketdata.proto"), SCHEMA.as_bytes())?;
    tool::write(&dir.join("window.proto"), WINDOW.as_bytes())?;
    let mut window = Vec::with_capacity(units.iter().map(|u| u.len() + 1).sum());
    for unit in units {
        window.push(PACKETS_KEY);
        window.extend_from_slice(unit);
    }
    let include = format!("--proto_path={}", dir.display());
    let out = tool.run(
        [
            include.as_str(),
            "--decode=md_shootout.xlang.Window",
            "window.proto",
        ],
        &window,
    )?;
    let text = String::from_utf8_lossy(&out);
    let parsed = parse(&text).map_err(|e| tool.output_error(e))?;
    let packets = match parsed.get("packets") {
        Some(Json::Array(ps)) => ps.clone(),
        None => Vec::new(),
        Some(other) => return Err(tool.output_error(format!("packets: {other}"))),
    };
    compare::tagged_packets(&packets, Bytes::Integer, true).map_err(|e| tool.output_error(e))
}

/// The fields that repeat in our schema: kept as arrays even with one element.
const REPEATED: [&str; 2] = ["packets", "messages"];

/// Protobuf's text format as `protoc --decode` prints it (`name: value` and `name { ... }`, no
/// strings in our schema) as JSON: scalars as strings, messages as objects.
fn parse(text: &str) -> Result<Map<String, Json>, String> {
    let tokens: Vec<&str> = tokens(text);
    let mut at = 0;
    let out = fields(&tokens, &mut at)?;
    match tokens.get(at) {
        None => Ok(out),
        Some(t) => Err(format!("unexpected {t:?} at token {at}")),
    }
}

/// Words, `:`, `{` and `}`.
fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        let punct = matches!(c, ':' | '{' | '}');
        if c.is_whitespace() || punct {
            if let Some(s) = start.take() {
                out.push(&text[s..i]);
            }
            if punct {
                out.push(&text[i..i + 1]);
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        out.push(&text[s..]);
    }
    out
}

/// The fields up to a closing `}` or the end.
fn fields(tokens: &[&str], at: &mut usize) -> Result<Map<String, Json>, String> {
    let mut out = Map::new();
    while let Some(&name) = tokens.get(*at) {
        if name == "}" {
            break;
        }
        *at += 1;
        let value = match tokens.get(*at).copied() {
            Some(":") => {
                let v = tokens.get(*at + 1).ok_or("a value is missing at the end")?;
                *at += 2;
                Json::String((*v).to_owned())
            }
            Some("{") => {
                *at += 1;
                let inner = fields(tokens, at)?;
                if tokens.get(*at) != Some(&"}") {
                    return Err(format!("{name} {{ is not closed"));
                }
                *at += 1;
                Json::Object(inner)
            }
            other => return Err(format!("{name} is followed by {other:?}")),
        };
        if REPEATED.contains(&name) {
            let slot = out.entry(name).or_insert_with(|| Json::Array(Vec::new()));
            if let Json::Array(items) = slot {
                items.push(value);
            }
        } else if out.insert(name.to_owned(), value).is_some() {
            return Err(format!("{name} appears twice"));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_format_becomes_json() {
        let text = "packets {\n  seq: 7\n  messages {\n    trade_report {\n      price: 150\n    }\n  }\n}\npackets {\n  seq: 9\n}\n";
        let parsed = parse(text).unwrap();
        assert_eq!(
            Json::Object(parsed),
            serde_json::json!({"packets": [
                {"seq": "7", "messages": [{"trade_report": {"price": "150"}}]},
                {"seq": "9"},
            ]})
        );
        assert!(parse("seq: 7 seq: 8").is_err());
        assert!(parse("packets { seq: 7").is_err());
    }
}
