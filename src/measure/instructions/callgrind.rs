//! Counting under Callgrind: the run's options run once more under `valgrind --tool=callgrind`
//! with collection off ([`count_in_child`]); that child switches collection on around each batch
//! pass and dumps the pass's count under the pass's name ([`Client`]); the parent reads the
//! dumps back ([`read_dumps`]). Callgrind counts what the guest executes, the same for the same
//! binary and input whatever else the machine does.
//!
//! The client requests are Valgrind's documented magic sequence (`valgrind.h`,
//! `__SPECIAL_INSTRUCTION_PREAMBLE` then `xchg rbx, rbx`), written here because the crates
//! that wrap it need a nightly compiler (`valgrind_request`) or bindgen and a C compiler
//! (`crabgrind`). Outside Valgrind the sequence is a no-op that returns the default.

use std::collections::HashMap;
use std::ffi::CString;
use std::io::BufRead;
use std::path::Path;

use crate::measure::workload::Workload;

/// `VG_USERREQ_TOOL_BASE('C','T')`, then callgrind.h's requests in order.
const CALLGRIND_BASE: usize = ((b'C' as usize) << 24) | ((b'T' as usize) << 16);
const ZERO_STATS: usize = CALLGRIND_BASE + 1;
const TOGGLE_COLLECT: usize = CALLGRIND_BASE + 2;
const DUMP_STATS_AT: usize = CALLGRIND_BASE + 3;

/// One client request: `default` outside Valgrind.
#[cfg(all(target_arch = "x86_64", not(miri)))]
fn request(code: usize, arg: usize, default: usize) -> usize {
    let args: [usize; 6] = [code, arg, 0, 0, 0, 0];
    let result;
    // SAFETY: the rotations of rdi add up to 128 bits (rdi comes back unchanged) and `xchg
    // rbx, rbx` changes nothing: natively the sequence only leaves `default` in rdx. Under
    // Valgrind it reads the six words at rax (live across the asm) and writes rdx.
    unsafe {
        std::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            inout("rdx") default => result,
            in("rax") args.as_ptr(),
            inout("rdi") 0usize => _,
            options(nostack),
        );
    }
    result
}

#[cfg(not(all(target_arch = "x86_64", not(miri))))]
fn request(_code: usize, _arg: usize, default: usize) -> usize {
    default
}

/// The child's side: collection on around each pass, one dump per pass named after it.
pub struct Client {
    names: HashMap<(&'static str, Workload), CString>,
}

impl Client {
    /// Starts from zero: whatever ran before the first pass (start-up, parsing) is not counted.
    pub fn new() -> Client {
        request(ZERO_STATS, 0, 0);
        Client {
            names: HashMap::new(),
        }
    }

    /// `work` with collection on; its count dumped as `pass FORMAT WORKLOAD`. The name is made
    /// before collection starts, and the dump (which zeroes the counts) after it stops.
    pub fn count<R>(
        &mut self,
        format: &'static str,
        workload: Workload,
        work: impl FnOnce() -> R,
    ) -> R {
        let name = self
            .names
            .entry((format, workload))
            .or_insert_with(|| dump_name(format, workload));
        request(TOGGLE_COLLECT, 0, 0);
        let out = work();
        request(TOGGLE_COLLECT, 0, 0);
        request(DUMP_STATS_AT, name.as_ptr() as usize, 0);
        out
    }
}

impl Default for Client {
    fn default() -> Self {
        Client::new()
    }
}

const PREFIX: &str = "pass ";

fn dump_name(format: &str, workload: Workload) -> CString {
    CString::new(format!("{PREFIX}{format} {}", workload.column()))
        .expect("format and workload names hold no NUL")
}

/// Instructions by (format, workload) summed over every dump of a Callgrind output file
/// (`--combine-dumps=yes`: the parts one after the other, each with its trigger and totals).
pub fn read_dumps(path: &Path) -> std::io::Result<HashMap<(String, Workload), u64>> {
    let file = std::io::BufReader::new(std::fs::File::open(path)?);
    let mut counts = HashMap::new();
    let mut current: Option<(String, Workload)> = None;
    for line in file.lines() {
        let line = line?;
        if let Some(trigger) = line.strip_prefix("desc: Trigger: Client Request: ") {
            current = parse_name(trigger);
        } else if let Some(total) = line.strip_prefix("totals: ") {
            let Some(key) = current.take() else { continue };
            let n: u64 = total
                .split_whitespace()
                .next()
                .and_then(|t| t.parse().ok())
                .ok_or_else(|| {
                    let what = format!("{}: totals line {line:?} holds no count", path.display());
                    std::io::Error::new(std::io::ErrorKind::InvalidData, what)
                })?;
            *counts.entry(key).or_insert(0) += n;
        }
    }
    Ok(counts)
}

fn parse_name(trigger: &str) -> Option<(String, Workload)> {
    let (format, workload) = trigger.strip_prefix(PREFIX)?.rsplit_once(' ')?;
    let workload = Workload::ALL.into_iter().find(|w| w.column() == workload)?;
    Some((format.to_owned(), workload))
}

/// `valgrind --version`, or why there is none.
pub fn valgrind_version() -> Result<String, String> {
    match std::process::Command::new("valgrind")
        .arg("--version")
        .output()
    {
        Ok(out) if out.status.success() => {
            Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
        }
        Ok(out) => Err(format!("`valgrind --version` failed ({})", out.status)),
        Err(e) => Err(format!("valgrind is not installed ({e})")),
    }
}

/// The options Callgrind runs the child with: nothing collected until the child's first pass
/// switches collection on, every dump into one file, and no per-line detail (only the totals
/// are read).
fn valgrind_args(out: &Path) -> Vec<std::ffi::OsString> {
    let mut file = std::ffi::OsString::from("--callgrind-out-file=");
    file.push(out);
    [
        "--tool=callgrind",
        "--collect-atstart=no",
        "--combine-dumps=yes",
        "--dump-line=no",
        "-q",
    ]
    .into_iter()
    .map(Into::into)
    .chain([file])
    .collect()
}

/// Runs this binary with `args` (a `run` of the same options as the caller's, as the
/// Callgrind child) under Callgrind and reads back the instructions of every pass it dumped,
/// by format and workload.
pub fn count_in_child(
    args: &[std::ffi::OsString],
) -> Result<HashMap<(String, Workload), u64>, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this binary: {e}"))?;
    let out = std::env::temp_dir().join(format!("md-shootout-callgrind-{}", std::process::id()));
    let run = std::process::Command::new("valgrind")
        .args(valgrind_args(&out))
        .arg(&exe)
        .args(args)
        .stdout(std::process::Stdio::null())
        .output();
    let counts = match run {
        Err(e) => Err(format!("cannot start valgrind: {e}")),
        Ok(done) if !done.status.success() => {
            let said = String::from_utf8_lossy(&done.stderr);
            let last = said.lines().rev().find(|l| !l.trim().is_empty());
            Err(format!(
                "the run under Callgrind failed ({}): {}",
                done.status,
                last.unwrap_or("it printed nothing")
            ))
        }
        Ok(_) => read_dumps(&out).map_err(|e| format!("reading {}: {e}", out.display())),
    };
    let _ = std::fs::remove_file(&out);
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outside_valgrind_a_request_returns_its_default_and_changes_nothing() {
        assert_eq!(request(TOGGLE_COLLECT, 0, 42), 42);
        let mut client = Client::new();
        assert_eq!(client.count("raw", Workload::Encode, || 7), 7);
    }

    /// The layout of a combined Callgrind output, as valgrind 3.19 wrote it for a program that
    /// dumped three passes (abridged: the per-function lines between are skipped by the reader).
    const DUMPS: &str = "# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\n\
pid: 14205\ncmd:  ./cgt\npart: 1\n\ndesc: I1 cache: \ndesc: Timerange: Basic block 0 - 1\n\
desc: Trigger: Client Request: pass raw ser\n\npositions: line\nevents: Ir\nsummary: 9016\n\n\
fn=(1) cgt::work\n0 9016\ntotals: 9016\n\
part: 2\ndesc: Trigger: Client Request: pass sbe.twin de_all\nsummary: 18017\ntotals: 18017\n\
part: 3\ndesc: Trigger: Client Request: pass raw ser\nsummary: 9016\ntotals: 9016\n\
part: 4\ndesc: Trigger: Program termination\nsummary: 0\ntotals: 0\n";

    #[test]
    fn dumps_are_summed_by_format_and_workload_and_other_triggers_ignored() {
        let path = std::env::temp_dir().join(format!("md-shootout-dumps-{}", std::process::id()));
        std::fs::write(&path, DUMPS).unwrap();
        let counts = read_dumps(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(counts.len(), 2);
        assert_eq!(counts[&("raw".to_owned(), Workload::Encode)], 18_032);
        assert_eq!(counts[&("sbe.twin".to_owned(), Workload::Complete)], 18_017);
    }

    #[test]
    fn a_dump_name_reads_back_and_foreign_triggers_do_not() {
        for w in Workload::ALL {
            let name = dump_name("flatbuffers-unverified", w);
            let text = name.to_str().unwrap();
            assert_eq!(
                parse_name(text),
                Some(("flatbuffers-unverified".to_owned(), w))
            );
        }
        assert_eq!(parse_name("pass raw nonsense"), None);
        assert_eq!(parse_name("Program termination"), None);
    }
}
