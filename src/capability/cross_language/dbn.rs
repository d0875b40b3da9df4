//! DBN bytes read by Python: `xlang/dbn_read.py` reads our records with Databento's own reader
//! (PyPI `databento-dbn`, pinned and installed into `tools/dbn-venv` by scripts/bootstrap.sh),
//! behind a DBN version 3 metadata header written here with the crate's `MetadataEncoder` (a DBN
//! stream starts with one; the codec writes records only), and maps each record back to the IEX
//! message it stands for by the mapping table (its own implementation in Python), one JSON line
//! a packet. The comparison is with the source as `dbn` carries it (its projection).

use std::path::Path;

use ::dbn::encode::DbnMetadataEncoder;
use ::dbn::{Metadata, SType};

use super::compare::{self, Bytes, TheirPacket};
use super::tool::{self, Tool, ToolError};

const SCRIPT: &str = include_str!("../../../xlang/dbn_read.py");
/// The version scripts/bootstrap.sh installs.
const DBN_PY: &str = "0.72.0";
/// Where scripts/bootstrap.sh puts it.
const VENV_PYTHON: &str = "tools/dbn-venv/bin/python3";

/// The virtual environment's Python (or `$DBN_PYTHON`, a Python that has `databento_dbn`).
fn python() -> Tool {
    Tool::find(
        "DBN_PYTHON",
        Some(VENV_PYTHON),
        VENV_PYTHON,
        "PyPI databento-dbn==0.72.0 into tools/dbn-venv",
    )
}

/// `databento-dbn 0.72.0 (Python 3.11.2)`; an error if it does not import.
pub fn describe() -> Result<String, ToolError> {
    let tool = python();
    let code = "import databento_dbn, importlib.metadata as m; print(m.version('databento-dbn'))";
    let version = tool.run(["-c", code], &[])?;
    let version = String::from_utf8_lossy(&version).trim().to_owned();
    if version != DBN_PY {
        return Err(tool.output_error(format!(
            "databento-dbn {version}, not the {DBN_PY} scripts/bootstrap.sh installs"
        )));
    }
    let python = tool.version(&["--version"])?;
    Ok(format!("databento-dbn {version} ({python})"))
}

/// The metadata header of a DBN version 3 stream of mixed schemas, symbols in as raw symbols.
pub fn metadata_header(start: u64) -> Vec<u8> {
    let metadata = Metadata::builder()
        .dataset("IEXG.DEEP")
        .schema(None)
        .start(start)
        .stype_in(Some(SType::RawSymbol))
        .stype_out(SType::InstrumentId)
        .build();
    let mut out = Vec::new();
    DbnMetadataEncoder::new(&mut out)
        .encode(&metadata)
        .expect("a metadata header is written to memory");
    out
}

/// Reads `dbn` packets (one stream each, so each announces its symbols).
pub fn read(units: &[Vec<u8>], dir: &Path) -> Result<Vec<TheirPacket>, ToolError> {
    let tool = python();
    let script = dir.join("dbn_read.py");
    tool::write(&script, SCRIPT.as_bytes())?;
    let mut input = metadata_header(0);
    for u in units {
        input.extend_from_slice(u);
    }
    let out = tool.run([script.as_os_str()], &input)?;
    compare::tagged_packets(&tool::json_lines(&tool, &out)?, Bytes::Text, false)
        .map_err(|e| tool.output_error(e))
}
