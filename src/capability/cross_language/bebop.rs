//! bebop bytes read by TypeScript: `xlang/bebop_read.js` reads the packets with Bebop's
//! TypeScript runtime (npm `bebop` 3.2.3) and the TypeScript bebopc 3.2.3 generates from the
//! schema the Rust code is compiled from (made here, in the scratch folder, by the bebopc
//! build.rs runs), and writes what it read, one JSON line a packet, each message tagged with its
//! union branch, named as the model's variant. The packets go to it back to back.

use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use super::compare::{Bytes, TheirPacket};
use super::tool::{self, Tool, ToolError};

/// The schema the Rust code is compiled from, as build.rs generated it from the message table
/// (`schemas/marketdata.bop` is a copy).
const SCHEMA: &str = include_str!(concat!(env!("OUT_DIR"), "/schemas/marketdata.bop"));

/// What scripts/bootstrap.sh installs (bebopc, the runtime, typescript).
const INSTALL: &str = "npm's bebop-tools 3.2.3, bebop 3.2.3 and typescript 5.9.3";

/// The runtime's version, which must be the compiler's.
const PIN: &str = "3.2.3";

fn node() -> Tool {
    Tool::find("NODE", None, "node", "Debian's nodejs")
}

/// Where the npm packages are: `$BEBOP_JS`, else where scripts/bootstrap.sh installs them.
fn modules() -> PathBuf {
    std::env::var_os("BEBOP_JS")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/bebop-tools/node_modules")
        })
}

/// bebopc: `$BEBOPC`, else the native binary of npm's bebop-tools for this platform.
fn bebopc() -> Tool {
    let arch = if cfg!(target_arch = "aarch64") {
        "arm64"
    } else {
        "x64"
    };
    let bundled = format!("tools/bebop-tools/node_modules/bebop-tools/tools/linux/{arch}/bebopc");
    Tool::find("BEBOPC", Some(&bundled), "bebopc", INSTALL)
}

/// The version of the npm package `name`, from its package.json.
fn version(name: &str) -> Result<String, ToolError> {
    let file = modules().join(name).join("package.json");
    let missing = || ToolError::NotFound {
        program: file.display().to_string(),
        install: INSTALL,
    };
    let text = std::fs::read(&file).map_err(|_| missing())?;
    let package: Json = serde_json::from_slice(&text).map_err(|_| missing())?;
    package["version"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(missing)
}

/// The runtime's version, refused unless it is the compiler's.
fn runtime() -> Result<String, ToolError> {
    let version = version("bebop")?;
    if version != PIN {
        return Err(node().output_error(format!(
            "npm's bebop {version}, not the {PIN} scripts/bootstrap.sh installs"
        )));
    }
    Ok(version)
}

/// `bebop 3.2.3 for TypeScript, bebopc 3.2.3 (Node v20.20.2)`.
pub fn describe() -> Result<String, ToolError> {
    Ok(format!(
        "bebop {} for TypeScript, bebopc {} ({})",
        runtime()?,
        bebopc().version(&["--version"])?,
        node()
            .version(&["--version"])
            .map(|v| format!("Node {v}"))?
    ))
}

/// Reads `bebop` packets.
pub fn read(units: &[Vec<u8>], dir: &Path) -> Result<Vec<TheirPacket>, ToolError> {
    runtime()?;
    version("typescript")?;
    let schema = dir.join("marketdata.bop");
    tool::write(&schema, SCHEMA.as_bytes())?;
    let generated = dir.join("marketdata.ts");
    let mut generator = std::ffi::OsString::from("ts:");
    generator.push(&generated);
    bebopc().run(
        [
            "--include".as_ref(),
            schema.as_os_str(),
            "build".as_ref(),
            "--generator".as_ref(),
            generator.as_os_str(),
        ],
        &[],
    )?;
    let tool = node();
    let script = include_str!("../../../xlang/bebop_read.js");
    let modules = modules();
    let args = [modules.as_os_str(), generated.as_os_str()];
    let lines = tool.script(dir, ("bebop_read.js", script), &args, &units.concat())?;
    tool.tagged(&lines, Bytes::Integer)
}

#[cfg(test)]
mod tests {
    /// Bebop's TypeScript runtime reads every field of every message of the sample exactly.
    #[test]
    fn typescript_reads_every_field() {
        let dir = tempfile::tempdir().unwrap();
        let found = super::super::read_by("bebop", dir.path()).expect("a known format");
        let (language, finding) = &found.findings[0];
        assert_eq!(language, "TypeScript");
        assert!(finding.measured && finding.yes(), "{}", finding.answer);
        let kinds = crate::model::kind::ALL.len();
        finding.assert_says(&format!("of {kinds} types read exactly by"));
    }
}
