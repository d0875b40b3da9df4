//! Finding and running the other languages' tools: where each is looked for, the one error a
//! missing or failing tool becomes, and its version for the finding.

use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value as Json;

use super::compare::{self, Bytes, TheirPacket};

/// Why a tool could not read our bytes.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The program is not installed (or not where we looked).
    #[error("{program} not found (install {install}: scripts/bootstrap.sh does)")]
    NotFound {
        program: String,
        install: &'static str,
    },
    /// The program ran and failed: on our bytes, that is a `no`.
    #[error("{program} failed ({status}): {stderr}")]
    Failed {
        program: String,
        status: String,
        stderr: String,
    },
    /// Its output was not what it prints for our bytes.
    #[error("{program}'s output: {detail}")]
    Output { program: String, detail: String },
    /// The scratch directory.
    #[error("{path}: {source}")]
    Scratch {
        path: String,
        source: std::io::Error,
    },
}

/// A program of another language's implementation, and what installs it.
#[derive(Debug, Clone)]
pub struct Tool {
    pub program: PathBuf,
    pub install: &'static str,
}

impl Tool {
    /// `$env` if set, else `bundled` (relative to the repository: what scripts/bootstrap.sh puts
    /// in tools/) if it exists, else `name` on PATH.
    pub fn find(env: &str, bundled: Option<&str>, name: &str, install: &'static str) -> Tool {
        let program = std::env::var_os(env)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                bundled
                    .map(|b| Path::new(env!("CARGO_MANIFEST_DIR")).join(b))
                    .filter(|p| p.exists())
            })
            .unwrap_or_else(|| PathBuf::from(name));
        Tool { program, install }
    }

    /// The Python of `tools/{venv}` as scripts/bootstrap.sh makes it (`$env` overrides it), else
    /// `fallback` on PATH (or where the venv would be).
    pub fn venv_python(
        env: &str,
        venv: &str,
        fallback: Option<&str>,
        install: &'static str,
    ) -> Tool {
        let python = format!("tools/{venv}/bin/python3");
        Tool::find(env, Some(&python), fallback.unwrap_or(&python), install)
    }

    fn name(&self) -> String {
        self.program
            .file_name()
            .unwrap_or(self.program.as_os_str())
            .to_string_lossy()
            .into_owned()
    }

    /// Runs the program with `args`, `stdin` on its standard input; its standard output.
    pub fn run<I, S>(&self, args: I, stdin: &[u8]) -> Result<Vec<u8>, ToolError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut child = Command::new(&self.program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| self.spawn_error(e))?;
        // Written from another thread: a tool that prints as it reads would otherwise fill its
        // stdout pipe while we still write its stdin.
        let mut input = child.stdin.take().expect("stdin was piped");
        let stdin = stdin.to_vec();
        let writer = std::thread::spawn(move || input.write_all(&stdin));
        let out = child.wait_with_output().map_err(|e| self.spawn_error(e))?;
        // A tool that fails before reading all its input breaks the pipe; its exit status says why.
        let _ = writer.join();
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let first: Vec<&str> = stderr
                .lines()
                .filter(|l| !l.trim().is_empty())
                .take(3)
                .collect();
            return Err(ToolError::Failed {
                program: self.name(),
                status: out.status.to_string(),
                stderr: first.join(" / "),
            });
        }
        Ok(out.stdout)
    }

    /// Runs the script `text`, written to `dir/name`, with `args` after it and `stdin` as its
    /// input; the JSON lines it prints.
    pub fn script(
        &self,
        dir: &Path,
        (name, text): (&str, &str),
        args: &[&OsStr],
        stdin: &[u8],
    ) -> Result<Vec<Json>, ToolError> {
        let script = dir.join(name);
        write(&script, text.as_bytes())?;
        let out = self.run([script.as_os_str()].iter().chain(args), stdin)?;
        json_lines(self, &out)
    }

    /// Packets whose messages are externally tagged, as this program printed them, every field
    /// written (`compare::tagged_packets`).
    pub fn tagged(&self, lines: &[Json], bytes: Bytes) -> Result<Vec<TheirPacket>, ToolError> {
        compare::tagged_packets(lines, bytes, false).map_err(|e| self.output_error(e))
    }

    /// What this Python prints for `code` (`-c`), trimmed.
    pub fn python(&self, code: &str) -> Result<String, ToolError> {
        let out = self.run(["-c", code], &[])?;
        Ok(String::from_utf8_lossy(&out).trim().to_owned())
    }

    /// The version of `package` this Python's `code` prints, refused unless it is `pin` (what
    /// scripts/bootstrap.sh installs), and Python's own.
    pub fn pinned(&self, package: &str, code: &str, pin: &str) -> Result<[String; 2], ToolError> {
        let version = self.python(code)?;
        if version != pin {
            return Err(self.output_error(format!(
                "{package} {version}, not the {pin} scripts/bootstrap.sh installs"
            )));
        }
        Ok([version, self.version(&["--version"])?])
    }

    /// `what (language, version)`, the version as `--version` prints it: how a reader in
    /// another language names itself in a finding.
    pub fn describe(&self, what: &str, language: &str) -> Result<String, ToolError> {
        Ok(format!(
            "{what} ({language}, {})",
            self.version(&["--version"])?
        ))
    }

    /// The first line the program prints for `args` (`--version`), on stdout or stderr.
    pub fn version(&self, args: &[&str]) -> Result<String, ToolError> {
        let out = Command::new(&self.program)
            .args(args)
            .output()
            .map_err(|e| self.spawn_error(e))?;
        let text = [out.stdout, out.stderr].concat();
        Ok(String::from_utf8_lossy(&text)
            .lines()
            .next()
            .unwrap_or_default()
            .trim()
            .to_owned())
    }

    fn spawn_error(&self, e: std::io::Error) -> ToolError {
        if e.kind() == std::io::ErrorKind::NotFound {
            ToolError::NotFound {
                program: self.program.display().to_string(),
                install: self.install,
            }
        } else {
            ToolError::Failed {
                program: self.name(),
                status: "could not start".into(),
                stderr: e.to_string(),
            }
        }
    }

    /// A [`ToolError::Output`] of this program.
    pub fn output_error(&self, detail: impl Into<String>) -> ToolError {
        ToolError::Output {
            program: self.name(),
            detail: detail.into(),
        }
    }
}

/// Creates `dir` (and its parents); the error names it.
pub fn make_dir(dir: &Path) -> Result<(), ToolError> {
    std::fs::create_dir_all(dir).map_err(|source| scratch_error(dir, source))
}

/// Creates `dir` empty, what it held before removed; the error names it.
pub fn empty_dir(dir: &Path) -> Result<(), ToolError> {
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(|source| scratch_error(dir, source))?;
    }
    make_dir(dir)
}

/// Writes `bytes` to `path`; the error names it.
pub fn write(path: &Path, bytes: &[u8]) -> Result<(), ToolError> {
    std::fs::write(path, bytes).map_err(|source| scratch_error(path, source))
}

/// Reads `path`; the error names it.
pub fn read(path: &Path) -> Result<Vec<u8>, ToolError> {
    std::fs::read(path).map_err(|source| scratch_error(path, source))
}

pub fn scratch_error(path: &Path, source: std::io::Error) -> ToolError {
    ToolError::Scratch {
        path: path.display().to_string(),
        source,
    }
}

/// Each line of `out` as JSON.
pub fn json_lines(tool: &Tool, out: &[u8]) -> Result<Vec<Json>, ToolError> {
    out.split(|&b| b == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .map(|l| serde_json::from_slice(l).map_err(|e| tool.output_error(e.to_string())))
        .collect()
}
