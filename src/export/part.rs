//! A share's result as a file: what `run --shard I/N --part FILE` writes and `shootout merge`
//! reads. One JSON document holding the share's outcome (histograms included) and what the
//! merge checks before adding the parts: the input (its size and a digest), the binary (a
//! digest of the executable), the options, and where the part was measured.

use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::RunInfo;
use crate::measure::merge::{self, Report};
use crate::measure::Outcome;

/// Bumped when the file's layout changes: a merge refuses parts of another layout.
pub const PART_VERSION: u32 = 1;

/// Which file a part measured: enough to refuse parts of two different files.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct InputId {
    /// Its name, without the folder (hosts may mount it in different places).
    pub name: String,
    pub bytes: u64,
    /// [`sampled_digest`] of the file.
    pub digest: String,
}

#[derive(serde::Serialize, serde::Deserialize)]
pub struct Part {
    pub version: u32,
    pub input: InputId,
    /// SHA-256 of the executable that measured the part.
    pub binary: String,
    /// The run's options but `--shard` (its order seed and chunk among them): equal in every
    /// part of one run.
    pub options: Vec<String>,
    pub info: RunInfo,
    pub report: Report,
}

/// Blocks of the file hashed by [`sampled_digest`], and their size.
const DIGEST_BLOCKS: u64 = 33;
const DIGEST_BLOCK: u64 = 64 << 10;

/// SHA-256 of a file's size and of 33 blocks of 64 KiB spread evenly over it, the first and the
/// last included (the whole file when it is under 2 MiB): tells two captures apart in
/// milliseconds without reading a day of them on every host. It does not prove that no byte in
/// between differs; the merge's chunk chain catches a file whose records moved.
pub fn sampled_digest(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    let mut hash = Sha256::new();
    hash.update(len.to_le_bytes());
    let mut block = vec![0u8; DIGEST_BLOCK as usize];
    if len <= DIGEST_BLOCKS * DIGEST_BLOCK {
        let mut all = Vec::new();
        file.read_to_end(&mut all)?;
        hash.update(&all);
    } else {
        let last = len - DIGEST_BLOCK;
        for k in 0..DIGEST_BLOCKS {
            file.seek(SeekFrom::Start(last * k / (DIGEST_BLOCKS - 1)))?;
            file.read_exact(&mut block)?;
            hash.update(&block);
        }
    }
    Ok(format!("sha256-sampled:{:x}", hash.finalize()))
}

/// SHA-256 of the running executable.
pub fn binary_digest() -> std::io::Result<String> {
    let exe = std::env::current_exe()?;
    let mut file = BufReader::new(std::fs::File::open(exe)?);
    let mut hash = Sha256::new();
    std::io::copy(&mut file, &mut hash)?;
    Ok(format!("sha256:{:x}", hash.finalize()))
}

impl InputId {
    pub fn of(path: &Path) -> std::io::Result<InputId> {
        Ok(InputId {
            name: path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into(),
            ),
            bytes: std::fs::metadata(path)?.len(),
            digest: sampled_digest(path)?,
        })
    }
}

/// Writes `part` to `path` whole or not at all.
pub fn write(path: &Path, part: &Part) -> std::io::Result<()> {
    crate::output::write_atomically(path, |w| Ok(serde_json::to_writer(w, part)?))
}

/// Reads a part, refusing a file that is not one or of another layout.
pub fn read(path: &Path) -> Result<Part, String> {
    let at = |e: String| format!("{}: {e}", path.display());
    let file = std::fs::File::open(path).map_err(|e| at(format!("cannot read: {e}")))?;
    let value: serde_json::Value = serde_json::from_reader(BufReader::new(file))
        .map_err(|e| at(format!("not a part written by `run --shard --part` ({e})")))?;
    match value.get("version").and_then(serde_json::Value::as_u64) {
        Some(v) if v == u64::from(PART_VERSION) => {}
        Some(v) => {
            return Err(at(format!(
                "a part of layout {v}; this shootout reads layout {PART_VERSION}: merge with the \
                 binary that wrote it"
            )))
        }
        None => return Err(at("not a part written by `run --shard --part`".into())),
    }
    serde_json::from_value(value).map_err(|e| at(format!("a damaged part ({e})")))
}

/// The parts as one run: checked to be of one input, one binary and one set of options, each
/// share once and none missing (see `measure::merge`); the run's facts from the first share's,
/// its hosts and CPUs joined when they differ.
pub fn join(parts: Vec<(PathBuf, Part)>) -> Result<(Outcome, RunInfo), String> {
    let Some((first_path, first)) = parts.first() else {
        return Err("no parts to merge".into());
    };
    let differ = |what: &str, path: &Path| {
        format!(
            "{} and {} are not parts of one run: {what} differ{}",
            first_path.display(),
            path.display(),
            if what.ends_with('s') { "" } else { "s" }
        )
    };
    for (path, p) in &parts[1..] {
        if p.input != first.input {
            return Err(differ("the input", path));
        }
        if p.binary != first.binary {
            return Err(differ("the binary", path));
        }
        if p.options != first.options {
            return Err(format!(
                "{}: {} and {}: {}",
                differ("the options", path),
                first.options.join(" "),
                path.display(),
                p.options.join(" ")
            ));
        }
        if p.info.label != first.info.label {
            return Err(differ("the label", path));
        }
    }
    let mut info = first.info.clone();
    info.host = joined(parts.iter().map(|(_, p)| p.info.host.as_str()));
    info.cpu = joined(parts.iter().map(|(_, p)| p.info.cpu.as_str()));
    info.started_at = parts
        .iter()
        .map(|(_, p)| p.info.started_at.clone())
        .min()
        .unwrap_or_default();
    let mut outcomes = Vec::with_capacity(parts.len());
    for (path, p) in parts {
        let outcome = p
            .report
            .restore()
            .map_err(|e| format!("{}: {e}", path.display()))?;
        outcomes.push(outcome);
    }
    let elapsed = outcomes.iter().map(|o| o.wall_ns).max().unwrap_or(0);
    let mut merged = merge::merge(outcomes).map_err(|e| e.to_string())?;
    merged.elapsed_ns = elapsed;
    Ok((merged, info))
}

/// The distinct values, in order of first appearance, joined by `+`.
fn joined<'a>(values: impl Iterator<Item = &'a str>) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for v in values {
        if !seen.contains(&v) {
            seen.push(v);
        }
    }
    seen.join("+")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sampled_digest_tells_files_apart_and_reads_a_large_one_in_blocks() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        let big: Vec<u8> = (0..5_000_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&a, &big).unwrap();
        let mut other = big.clone();
        // A byte in the first block (always hashed) differs.
        other[100] ^= 1;
        std::fs::write(&b, &other).unwrap();
        let (da, db) = (sampled_digest(&a).unwrap(), sampled_digest(&b).unwrap());
        assert!(da.starts_with("sha256-sampled:"), "{da}");
        assert_ne!(da, db);
        // One byte more: the size is hashed too.
        other[100] ^= 1;
        other.push(0);
        std::fs::write(&b, &other).unwrap();
        assert_ne!(sampled_digest(&b).unwrap(), da);
        // The same bytes, the same digest.
        std::fs::write(&b, &big).unwrap();
        assert_eq!(sampled_digest(&b).unwrap(), da);
    }

    #[test]
    fn hosts_join_in_order_once_each() {
        assert_eq!(joined(["a", "b", "a", "c"].into_iter()), "a+b+c");
        assert_eq!(joined(["a", "a"].into_iter()), "a");
    }
}
