//! SBE bytes read by Java: the SBE generator (`sbe-all`, `-Dsbe.target.language=Java`) makes
//! Java decoders from our schema, `javac` compiles them with `xlang/SbeDump.java` (hand-written:
//! it prints every field of every message through those decoders, one JSON line each), and one
//! JVM run reads all the packets back to back, as a window holds them. The generated and
//! compiled classes are cached under the scratch directory, keyed by the schema, the dump
//! program and the jar, so only the first check pays for `javac`.

use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use super::compare::{self, Bytes, TheirPacket, Value};
use super::tool::{self, Tool, ToolError};
use crate::model::for_each_message;

/// Version 1 of the schema, the one `formats::sbe` is generated from, as build.rs generated it
/// from the message table (`schemas/marketdata.xml` is a copy).
pub(crate) const SCHEMA: &str = include_str!(concat!(env!("OUT_DIR"), "/schemas/marketdata.xml"));
const DUMP: &str = include_str!("../../../xlang/SbeDump.java");
/// The generator's version, as scripts/bootstrap.sh fetches it.
pub(crate) const SBE_VERSION: &str = "1.34.0";

/// The JVM's quick-start setting: every run here is short, so the optimizing compiler would only
/// cost time.
const QUICK_START: &str = "-XX:TieredStopAtLevel=1";

/// The JDK's `java` or `javac`: under `$JAVA_HOME/bin` if set, else on PATH.
fn jdk(program: &str) -> Tool {
    let program = match std::env::var_os("JAVA_HOME").filter(|v| !v.is_empty()) {
        Some(home) => PathBuf::from(home).join("bin").join(program),
        None => PathBuf::from(program),
    };
    Tool {
        program,
        install: "Debian's openjdk-17-jdk-headless",
    }
}

/// The SBE generator's jar, as scripts/bootstrap.sh places it (or `$SBE_JAR`).
fn sbe_jar() -> Result<PathBuf, ToolError> {
    let bundled = format!("tools/sbe-all-{SBE_VERSION}.jar");
    let jar = Tool::find("SBE_JAR", Some(&bundled), &bundled, "").program;
    if jar.is_file() {
        Ok(jar)
    } else {
        Err(ToolError::NotFound {
            program: jar.display().to_string(),
            install: "uk.co.real-logic:sbe-all 1.34.0 from Maven Central",
        })
    }
}

/// `SBE 1.34.0 Java decoders (openjdk version "17.0.15" 2025-04-15)`.
pub fn describe() -> Result<String, ToolError> {
    sbe_jar()?;
    jdk("javac").version(&["-version"])?;
    let java = jdk("java").version(&["-version"])?;
    Ok(format!("SBE {SBE_VERSION} Java decoders ({java})"))
}

macro_rules! decoders {
    ($($V:ident($S:ident) $snake:ident {
        kinds $kinds:tt, len $len:tt, wire $wire:tt, fields $fields:tt, capnp $init:ident $capnp:tt,
        flatbuffers $args:ident $tags:tt, sbe $codec:ident $Enc:ident $Dec:ident,
        $($rest:tt)*
    },)*) => {
        /// The generated decoder class of every message type.
        const DECODERS: &[&str] = &[$(stringify!($Dec)),*];
    };
}
for_each_message!(decoders);

/// Generates and compiles the Java decoders of `schema` and the dump program into `dir/classes`
/// unless a previous call already did for the same inputs; returns the class path.
fn compile(jar: &Path, dir: &Path, schema: &str) -> Result<String, ToolError> {
    let classes = dir.join("classes");
    let stamp = dir.join("stamp");
    let key = format!(
        "{}\n{}\n{}\n{}",
        jar.display(),
        std::fs::metadata(jar).map(|m| m.len()).unwrap_or(0),
        schema,
        DUMP
    );
    let class_path = format!("{}:{}", classes.display(), jar.display());
    if std::fs::read_to_string(&stamp).is_ok_and(|s| s == key) {
        return Ok(class_path);
    }
    let (generated, sources) = (dir.join("generated"), dir.join("src"));
    for d in [&generated, &classes, &sources] {
        tool::empty_dir(d)?;
    }
    let schema_file = sources.join("marketdata.xml");
    tool::write(&schema_file, schema.as_bytes())?;
    let dump = sources.join("SbeDump.java");
    tool::write(&dump, DUMP.as_bytes())?;
    let mut args: Vec<std::ffi::OsString> = vec![
        QUICK_START.into(),
        "-Dsbe.target.language=Java".into(),
        format!("-Dsbe.output.dir={}", generated.display()).into(),
        "-jar".into(),
        jar.into(),
        schema_file.into(),
    ];
    jdk("java").run(&args, &[])?;
    let package = generated.join("md_shootout");
    let mut java_files: Vec<PathBuf> = std::fs::read_dir(&package)
        .map_err(|e| tool::scratch_error(&package, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        // Only the decoders (and what they use): compiling the encoders too doubles the wait.
        .filter(|p| {
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            name.ends_with(".java") && !name.ends_with("Encoder.java")
        })
        .collect();
    java_files.sort();
    java_files.push(dump);
    args = vec![
        format!("-J{QUICK_START}").into(),
        "-J-XX:+UseSerialGC".into(),
        "-g:none".into(),
        "-nowarn".into(),
        "-d".into(),
        classes.into(),
        "-cp".into(),
        jar.into(),
    ];
    args.extend(java_files.into_iter().map(Into::into));
    jdk("javac").run(&args, &[])?;
    tool::write(&stamp, key.as_bytes())?;
    Ok(class_path)
}

/// Reads `sbe` packets.
pub fn read(units: &[Vec<u8>], dir: &Path) -> Result<Vec<TheirPacket>, ToolError> {
    let lines = dump(units, &dir.join("java"), SCHEMA, dir, false)?;
    packets(&lines).map_err(|e| jdk("java").output_error(e))
}

/// The packets `units` (back to back, written to a file under `dir`) as the Java decoders of
/// `schema` (generated and compiled into `classes`, or found there) read them: `SbeDump`'s JSON
/// lines, with each message's acting version and block length where `acting` (SbeDump
/// `--acting`).
pub(crate) fn dump(
    units: &[Vec<u8>],
    classes: &Path,
    schema: &str,
    dir: &Path,
    acting: bool,
) -> Result<Vec<Json>, ToolError> {
    let class_path = compile(&sbe_jar()?, classes, schema)?;
    let window = dir.join("window.sbe");
    tool::write(&window, &units.concat())?;
    let java = jdk("java");
    let mut args: Vec<String> = vec![
        QUICK_START.into(),
        "-XX:+UseSerialGC".into(),
        // Agrona's buffers use the JDK's internal Unsafe (as its documentation says to allow).
        "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED".into(),
        "-cp".into(),
        class_path,
        "SbeDump".into(),
    ];
    if acting {
        args.push("--acting".into());
    }
    args.push(window.display().to_string());
    args.push("PacketHeaderDecoder".into());
    args.extend(DECODERS.iter().map(|d| d.to_string()));
    let out = java.run(&args, &[])?;
    tool::json_lines(&java, &out)
}

/// The dump's lines grouped into packets: a `PacketHeader` line, then its `messageCount`
/// messages.
pub(crate) fn packets(lines: &[Json]) -> Result<Vec<TheirPacket>, String> {
    let mut out: Vec<(TheirPacket, i128)> = Vec::new();
    for line in lines {
        let Some(mut fields) = line.as_object().cloned() else {
            return Err(format!("{line} is not a message"));
        };
        let Some(Json::String(name)) = fields.remove("message") else {
            return Err(format!("{line} names no message"));
        };
        if name == "PacketHeader" {
            let get = |k: &str| {
                fields
                    .get(k)
                    .ok_or(format!("PacketHeader has no {k}"))
                    .and_then(compare::integer)
            };
            let packet = TheirPacket {
                seq: Value::Int(get("seq")?),
                send_time: Value::Int(get("sendTime")?),
                messages: Vec::new(),
            };
            out.push((packet, get("messageCount")?));
            continue;
        }
        let Some((packet, _)) = out.last_mut() else {
            return Err(format!("a {name} before the first PacketHeader"));
        };
        packet
            .messages
            .push(compare::message(&name, &fields, Bytes::Text, false)?);
    }
    out.into_iter()
        .map(|(packet, count)| {
            if packet.messages.len() as i128 == count {
                Ok(packet)
            } else {
                Err(format!(
                    "a PacketHeader says {count} messages, {} follow",
                    packet.messages.len()
                ))
            }
        })
        .collect()
}
