//! DBN bytes read by Python: `xlang/dbn_read.py` reads our records with Databento's own reader
//! (PyPI `databento-dbn`, pinned and installed into `tools/dbn-venv` by scripts/bootstrap.sh),
//! behind a DBN version 3 metadata header written here with the crate's `MetadataEncoder` (a DBN
//! stream starts with one; the codec writes records only), and maps each record back to the IEX
//! message it stands for by the mapping table (its own implementation in Python), one JSON line
//! a packet. The comparison is with the source as `dbn` carries it (its projection).

use std::path::Path;

use ::dbn::encode::DbnMetadataEncoder;
use ::dbn::{Metadata, SType};

use super::compare::{Bytes, TheirPacket};
use super::tool::{Tool, ToolError};

/// The version scripts/bootstrap.sh installs.
const DBN_PY: &str = "0.72.0";

/// The virtual environment's Python (or `$DBN_PYTHON`, a Python that has `databento_dbn`).
fn python() -> Tool {
    let install = "PyPI databento-dbn==0.72.0 into tools/dbn-venv";
    Tool::venv_python("DBN_PYTHON", "dbn-venv", None, install)
}

/// `databento-dbn 0.72.0 (Python 3.11.2)`; an error if it does not import.
pub fn describe() -> Result<String, ToolError> {
    let code = "import databento_dbn, importlib.metadata as m; print(m.version('databento-dbn'))";
    let [dbn, python] = python().pinned("databento-dbn", code, DBN_PY)?;
    Ok(format!("databento-dbn {dbn} ({python})"))
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
    let script = ("dbn_read.py", include_str!("../../../xlang/dbn_read.py"));
    let input = [metadata_header(0), units.concat()].concat();
    tool.tagged(&tool.script(dir, script, &[], &input)?, Bytes::Text)
}
