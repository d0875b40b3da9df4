//! What a bench runs: the inputs (files, folders, globs), the scheduling prefixes (each probed
//! here before it is used) and the order of the matrix, inputs × runs × prefixes.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::failure::Failure;

/// A scheduling prefix: `label=command`; the command (split at whitespace) is put in front of
/// every `shootout run` of the label. An empty command runs `shootout run` as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prefix {
    pub label: String,
    pub command: Vec<String>,
}

impl Prefix {
    /// Parses `LABEL=COMMAND`; the label names the run in the CSV and in the folders.
    pub fn parse(text: &str) -> Result<Prefix, String> {
        let (label, command) = text
            .split_once('=')
            .ok_or_else(|| format!("--prefix {text}: expected LABEL=COMMAND"))?;
        let valid = |c: char| c.is_ascii_alphanumeric() || "._+-".contains(c);
        if label.is_empty() || !label.chars().all(valid) {
            return Err(format!(
                "--prefix {text}: the label must be letters, digits, . _ + -"
            ));
        }
        Ok(Prefix {
            label: label.to_owned(),
            command: command.split_whitespace().map(str::to_owned).collect(),
        })
    }

    /// As given: `label=command words`.
    pub fn spec(&self) -> String {
        format!("{}={}", self.label, self.command.join(" "))
    }

    /// `program args...` under this prefix.
    pub fn command_for(&self, program: &Path) -> Command {
        match self.command.split_first() {
            None => Command::new(program),
            Some((first, rest)) => {
                let mut cmd = Command::new(first);
                cmd.args(rest).arg(program);
                cmd
            }
        }
    }

    /// Whether `command true` works here, quietly: `Err` says why not. GNU `nice` only warns
    /// when it may not raise the priority, so anything on stderr counts as not working.
    pub fn probe(&self) -> Result<(), String> {
        if self.command.is_empty() {
            return Ok(());
        }
        let out = self
            .command_for(Path::new("true"))
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("`{}` cannot be run: {e}", self.command[0]))?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        let said = stderr.lines().next().unwrap_or("").trim();
        if !out.status.success() {
            Err(format!(
                "`{} true` failed ({}){}",
                self.command.join(" "),
                out.status,
                if said.is_empty() {
                    String::new()
                } else {
                    format!(": {said}")
                }
            ))
        } else if !said.is_empty() {
            Err(format!("`{} true` says: {said}", self.command.join(" ")))
        } else {
            Ok(())
        }
    }
}

/// The defaults: plain, and pinned to CPU 1. Pinned at high priority (`nice=taskset -c 1 nice
/// -n -19`) is one `--prefix` away; it left the defaults so that each section gets more runs
/// inside the default run's budget (issue 39: the run is what the verdict's interval counts,
/// and two sections of six runs resolve more than three of four).
pub const DEFAULT_PREFIXES: [&str; 2] = ["normal=", "taskset=taskset -c 1"];

/// The defaults with `--jobs` above 1: each worker pins itself to a core of its own, so
/// `taskset` (one CPU for all of them) has no place; plain, and at high priority.
pub const JOBS_PREFIXES: [&str; 2] = ["normal=", "nice=nice -n -19"];

/// The default prefixes that work here (for runs of `jobs` workers); each one skipped is named
/// in a warning.
pub fn default_prefixes(jobs: usize, warn: &mut dyn FnMut(String)) -> Vec<Prefix> {
    let mut prefixes = Vec::new();
    let specs: &[&str] = if jobs > 1 {
        &JOBS_PREFIXES
    } else {
        &DEFAULT_PREFIXES
    };
    for &spec in specs {
        let prefix = Prefix::parse(spec).expect("the defaults parse");
        let works = if prefix.command.first().is_some_and(|c| c == "taskset")
            && !Path::new("/sys/devices/system/cpu/cpu1").is_dir()
        {
            Err("there is no CPU 1".to_owned())
        } else {
            prefix.probe()
        };
        match works {
            Ok(()) => prefixes.push(prefix),
            Err(why) => warn(format!(
                "skipping prefix {} ({}): {why}",
                prefix.label,
                prefix.command.join(" ")
            )),
        }
    }
    prefixes
}

/// The prefixes asked for, in order: each parsed, labels distinct, each probed.
pub fn explicit_prefixes(specs: &[String]) -> Result<Vec<Prefix>, Failure> {
    let mut prefixes: Vec<Prefix> = Vec::new();
    for spec in specs {
        let prefix = Prefix::parse(spec).map_err(Failure::Usage)?;
        if prefixes.iter().any(|p| p.label == prefix.label) {
            return Err(Failure::Usage(format!(
                "--prefix {spec}: label {} given twice",
                prefix.label
            )));
        }
        prefix
            .probe()
            .map_err(|why| Failure::Usage(format!("--prefix {spec}: {why}")))?;
        prefixes.push(prefix);
    }
    Ok(prefixes)
}

/// Inputs as given: a file is itself, a folder its `*.pcap*` files, a glob (`*`, `?`, `[...]`)
/// the files it matches; each folder's and glob's files in name order.
pub fn resolve_inputs(given: &[PathBuf]) -> Result<Vec<PathBuf>, Failure> {
    let mut inputs = Vec::new();
    for path in given {
        let text = path.to_string_lossy();
        if path.is_dir() {
            let mut found = matching(path, "*.pcap*")
                .map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))?;
            found.retain(|p| p.is_file());
            found.sort();
            if found.is_empty() {
                return Err(Failure::Usage(format!(
                    "{}: no *.pcap* files in this folder",
                    path.display()
                )));
            }
            inputs.extend(found);
        } else if path.is_file() {
            inputs.push(path.clone());
        } else if text.contains(['*', '?', '[']) {
            let found = glob(path);
            if found.is_empty() {
                return Err(Failure::Usage(format!("{text}: matches no file")));
            }
            inputs.extend(found);
        } else {
            return Err(Failure::Usage(format!("{text}: no such file")));
        }
    }
    let mut names: Vec<String> = inputs.iter().map(|p| input_name(p)).collect();
    names.sort();
    if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
        return Err(Failure::Usage(format!(
            "two inputs are named {}: results are kept by file name",
            w[0]
        )));
    }
    Ok(inputs)
}

/// The name results are kept under: the file name.
pub fn input_name(input: &Path) -> String {
    input
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| input.display().to_string())
}

/// The files matching `pattern`, wildcards allowed in any component ([`matching`]). Sorted.
fn glob(pattern: &Path) -> Vec<PathBuf> {
    use std::path::Component;
    let mut found = vec![PathBuf::new()];
    for component in pattern.components() {
        let part = match component {
            Component::Normal(p) => p.to_string_lossy().into_owned(),
            other => {
                found.iter_mut().for_each(|f| f.push(other.as_os_str()));
                continue;
            }
        };
        if !part.contains(['*', '?', '[']) {
            found.iter_mut().for_each(|f| f.push(&part));
            continue;
        }
        found = (found.iter())
            .flat_map(|dir| matching(dir, &part).unwrap_or_default())
            .collect();
    }
    let mut files: Vec<PathBuf> = found.into_iter().filter(|p| p.is_file()).collect();
    files.sort();
    files
}

/// The entries of `dir` (the current folder when empty) whose names `pattern` matches; hidden
/// names match only a pattern that starts with a dot.
fn matching(dir: &Path, pattern: &str) -> std::io::Result<Vec<PathBuf>> {
    let pat: Vec<char> = pattern.chars().collect();
    let read = std::fs::read_dir(if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    })?;
    let mut found = Vec::new();
    for entry in read.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let hidden = name.starts_with('.') && !pattern.starts_with('.');
        if !hidden && matches(&pat, &name.chars().collect::<Vec<_>>()) {
            found.push(dir.join(&name));
        }
    }
    Ok(found)
}

/// Shell wildcard match of a whole name: `*`, `?`, `[abc]`, `[a-z]`, `[!a]`.
fn matches(pat: &[char], name: &[char]) -> bool {
    match pat.split_first() {
        None => name.is_empty(),
        Some(('*', rest)) => (0..=name.len()).any(|i| matches(rest, &name[i..])),
        Some(('?', rest)) => !name.is_empty() && matches(rest, &name[1..]),
        Some(('[', rest)) => {
            let Some(end) = rest.iter().skip(1).position(|&c| c == ']').map(|i| i + 1) else {
                return name.first() == Some(&'[') && matches(rest, &name[1..]);
            };
            let Some(&c) = name.first() else { return false };
            let (negate, set) = match rest[..end].split_first() {
                Some(('!' | '^', set)) => (true, set),
                _ => (false, &rest[..end]),
            };
            let mut hit = false;
            let mut i = 0;
            while i < set.len() {
                if i + 2 < set.len() && set[i + 1] == '-' {
                    hit |= set[i] <= c && c <= set[i + 2];
                    i += 3;
                } else {
                    hit |= set[i] == c;
                    i += 1;
                }
            }
            hit != negate && matches(&rest[end + 1..], &name[1..])
        }
        Some((&p, rest)) => name.first() == Some(&p) && matches(rest, &name[1..]),
    }
}

/// One run of the matrix.
#[derive(Debug, Clone)]
pub struct Step<'a> {
    pub input: &'a Path,
    pub name: String,
    /// 1-based.
    pub run: u32,
    pub prefix: &'a Prefix,
}

/// The matrix in the order it runs: run 1 of every input under every prefix, then run 2, ... so
/// a drift over time spreads across the inputs and the prefixes instead of landing on one (two
/// inputs, real and synthetic say, are compared on runs taken in turn).
pub fn steps<'a>(inputs: &'a [PathBuf], runs: u32, prefixes: &'a [Prefix]) -> Vec<Step<'a>> {
    let mut steps = Vec::new();
    for run in 1..=runs {
        for input in inputs {
            for prefix in prefixes {
                steps.push(Step {
                    input,
                    name: input_name(input),
                    run,
                    prefix,
                });
            }
        }
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, n: &str) -> bool {
        matches(
            &p.chars().collect::<Vec<_>>(),
            &n.chars().collect::<Vec<_>>(),
        )
    }

    #[test]
    fn wildcards() {
        assert!(m("*.pcap*", "a.pcap.gz"));
        assert!(m("*.pcap*", "a.pcap"));
        assert!(!m("*.pcap*", "a.pca"));
        assert!(m("day-?.pcapng", "day-1.pcapng"));
        assert!(!m("day-?.pcapng", "day-12.pcapng"));
        assert!(m("[ab].x", "b.x"));
        assert!(!m("[!ab].x", "b.x"));
        assert!(m("[a-c]*", "cat"));
        assert!(!m("[a-c]*", "dog"));
    }

    #[test]
    fn prefixes_parse() {
        let p = Prefix::parse("nice=taskset -c 1  nice -n -19").unwrap();
        assert_eq!(p.label, "nice");
        assert_eq!(p.command, ["taskset", "-c", "1", "nice", "-n", "-19"]);
        assert_eq!(p.spec(), "nice=taskset -c 1 nice -n -19");
        assert_eq!(Prefix::parse("plain=").unwrap().command.len(), 0);
        assert!(Prefix::parse("plain").is_err());
        assert!(Prefix::parse("a b=x").is_err());
        assert!(Prefix::parse("=x").is_err());
    }

    #[test]
    fn the_matrix_runs_every_input_and_prefix_before_the_next_run() {
        let inputs = [PathBuf::from("x/a.pcap"), PathBuf::from("b.pcap")];
        let prefixes = [Prefix::parse("p=").unwrap(), Prefix::parse("q=").unwrap()];
        let order: Vec<(String, u32, &str)> = steps(&inputs, 2, &prefixes)
            .iter()
            .map(|s| (s.name.clone(), s.run, s.prefix.label.as_str()))
            .collect();
        assert_eq!(order.len(), 8);
        assert_eq!(order[0], ("a.pcap".into(), 1, "p"));
        assert_eq!(order[1], ("a.pcap".into(), 1, "q"));
        assert_eq!(order[2], ("b.pcap".into(), 1, "p"));
        assert_eq!(order[3], ("b.pcap".into(), 1, "q"));
        assert_eq!(order[4], ("a.pcap".into(), 2, "p"));
        assert_eq!(order[7], ("b.pcap".into(), 2, "q"));
    }
}
