//! Every command a reader may copy from README.md, docs/, data/ and deploy/ (shell blocks, and
//! `shootout ...` or `./run_shootout.sh ...` in running text), checked against the binary: the
//! command exists, each option is in its `--help`, each value of an option with a fixed set is
//! one of them, and each name given to `--formats` is a format. An example that drifts from the
//! code (`--formats sbe,capnp`, where no format is called `capnp`) fails here, not on a reader.
//! docs/BENCHMARKS.md and CHANGELOG.md are records of commands as they were run, and are left as
//! they are.

use std::collections::HashMap;
use std::path::PathBuf;

use super::cli_doc::{help, COMMANDS, MARKER};
use super::doc_links::root;

/// The documents a reader copies commands from: doc_links' less the dated records.
fn documents() -> Vec<PathBuf> {
    super::doc_links::documents()
        .into_iter()
        .filter(|p| !p.ends_with("BENCHMARKS.md") && !p.ends_with("CHANGELOG.md"))
        .collect()
}

/// A command as a reader would type it: the `shootout` command it runs and its words after it.
#[derive(Debug, PartialEq)]
struct Example {
    line: usize,
    command: String,
    words: Vec<String>,
}

/// Splits a shell line into words, quotes removed (`--prefix "a=b c"` is two words).
fn words(line: &str) -> Vec<String> {
    let (mut out, mut word, mut quote) = (Vec::new(), String::new(), None);
    let mut any = false;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                any = true;
            }
            (None, c) if c.is_whitespace() => {
                if any || !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
                any = false;
            }
            (None, c) => word.push(c),
        }
    }
    if any || !word.is_empty() {
        out.push(word);
    }
    out
}

/// The `shootout` commands in one shell command line (`a && b`, `a; b`, `a | b` are several):
/// `shootout CMD`, `target/release/shootout CMD`, `$SHOOTOUT CMD`, `./run_shootout.sh` (bench),
/// and the deploy scripts, whose words after `--` go to `shootout run`.
fn examples_in(line: usize, text: &str, out: &mut Vec<Example>) {
    for part in text.split("&&").flat_map(|p| p.split([';', '|'])) {
        let w = words(part);
        let at = w.iter().position(|x| {
            x == "shootout"
                || x.ends_with("/shootout")
                || x.ends_with("SHOOTOUT")
                || x.ends_with("{SHOOTOUT}")
        });
        let (command, rest) = if let Some(i) = w.iter().position(|x| x.ends_with("run_shootout.sh"))
        {
            ("bench".to_owned(), &w[i + 1..])
        } else if let Some(i) = w
            .iter()
            .position(|x| x.ends_with("run-day.sh") || x.ends_with("submit.sh"))
        {
            match w[i..].iter().position(|x| x == "--") {
                Some(j) => ("run".to_owned(), &w[i + j + 1..]),
                None => continue,
            }
        } else if let Some(i) = at.filter(|&i| i + 1 < w.len()) {
            (w[i + 1].clone(), &w[i + 2..])
        } else {
            continue;
        };
        if command.starts_with('-') && command != "--help" {
            continue;
        }
        out.push(Example {
            line,
            command,
            words: rest.to_vec(),
        });
    }
}

/// Every example in a Markdown text: the lines of its shell blocks (continuations joined,
/// comments dropped) and the code spans of its running text (a span may run over a line end: a
/// paragraph is read as one line, numbered by its first).
fn examples(text: &str) -> Vec<Example> {
    let mut found = Vec::new();
    let (mut block, mut shell) = (false, false);
    let mut joined = String::new();
    let mut paragraph = (0, String::new());
    let spans = |(line, text): &(usize, String), found: &mut Vec<Example>| {
        for span in text.split('`').skip(1).step_by(2) {
            if span.starts_with("shootout ") || span.starts_with("./run_shootout.sh") {
                examples_in(*line, span, found);
            }
        }
    };
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        if let Some(info) = raw.trim_start().strip_prefix("```") {
            spans(&std::mem::take(&mut paragraph), &mut found);
            block = !block;
            shell = block && matches!(info.trim(), "sh" | "bash" | "shell" | "");
            continue;
        }
        if !block {
            if raw.trim().is_empty() {
                spans(&std::mem::take(&mut paragraph), &mut found);
            } else {
                if paragraph.1.is_empty() {
                    paragraph.0 = line;
                }
                paragraph.1.push_str(raw.trim());
                paragraph.1.push(' ');
            }
            continue;
        }
        if !shell {
            continue;
        }
        let code = raw.split(" #").next().unwrap_or("").trim_end();
        if code.trim_start().starts_with('#') {
            continue;
        }
        joined.push_str(code.trim_end_matches('\\'));
        joined.push(' ');
        if !code.ends_with('\\') {
            examples_in(line, &joined, &mut found);
            joined.clear();
        }
    }
    spans(&paragraph, &mut found);
    found
}

/// What one option takes, read from a `--help`: its fixed set of values, if any.
fn possible_values(help: &str, option: &str) -> Option<Vec<String>> {
    let mut lines = help.lines().skip_while(|l| {
        let l = l.trim_start();
        !(l.starts_with(&format!("{option} "))
            || l.contains(&format!(", {option} "))
            || l == option)
    });
    let mut entry = lines.next()?.to_owned();
    for line in lines.take_while(|l| !l.trim_start().starts_with('-')) {
        entry.push_str(line);
    }
    let list = entry.split("[possible values: ").nth(1)?;
    Some(
        list[..list.find(']')?]
            .split(", ")
            .map(str::to_owned)
            .collect(),
    )
}

/// A word standing for a value the reader fills in (`FILE`, `<ts>`, `$DAY`, `X,Y`), not one.
fn placeholder(value: &str) -> bool {
    value.is_empty()
        || value.contains(['$', '<', '{', '*', '…'])
        || value.contains("...")
        || value.chars().any(|c| c.is_ascii_uppercase())
}

#[test]
fn every_example_uses_a_command_option_value_and_format_the_binary_has() {
    let formats = md_shootout::formats::names();
    let mut helps: HashMap<String, String> = HashMap::new();
    let (mut options, mut values) = (0, 0);
    let mut failures = Vec::new();
    for path in documents() {
        let doc = path.strip_prefix(root()).unwrap().display().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let text = text.split(MARKER).next().unwrap();
        for ex in examples(text) {
            let at = format!("{doc}:{}", ex.line);
            if ex.command == "--help" {
                continue;
            }
            if !COMMANDS.contains(&ex.command.as_str()) {
                failures.push(format!("{at}: `shootout {}` is no command", ex.command));
                continue;
            }
            let help = helps
                .entry(ex.command.clone())
                .or_insert_with(|| help(&ex.command));
            for (i, word) in ex.words.iter().enumerate() {
                let Some(option) = word.strip_prefix("--").map(|_| word.as_str()) else {
                    continue;
                };
                if option == "--" {
                    break;
                }
                let (option, inline) = match option.split_once('=') {
                    Some((o, v)) => (o, Some(v)),
                    None => (option, None),
                };
                let option = option.trim_end_matches([',', ')', '.', ']']);
                let listed = help
                    .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                    .any(|w| w == option);
                if !listed {
                    failures.push(format!(
                        "{at}: `{} {option}`: not in its --help",
                        ex.command
                    ));
                    continue;
                }
                options += 1;
                let value = inline.or_else(|| ex.words.get(i + 1).map(String::as_str));
                let Some(value) = value.filter(|v| !v.starts_with('-') && !placeholder(v)) else {
                    continue;
                };
                let given: Vec<&str> = value.split(',').collect();
                let allowed: Option<Vec<String>> = if option == "--formats" {
                    Some(formats.iter().map(|f| f.to_string()).collect())
                } else {
                    possible_values(help, option)
                };
                if let Some(allowed) = allowed {
                    for v in given {
                        values += 1;
                        if !allowed.iter().any(|a| a == v) {
                            failures.push(format!(
                                "{at}: `{} {option} {value}`: {v:?} is none of {}",
                                ex.command,
                                allowed.join(", ")
                            ));
                        }
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Over README, docs/, data/ and deploy/ when this was written: 131 options, 48 values.
    assert!(
        options > 100,
        "only {options} options found: the parser missed the examples"
    );
    assert!(
        values > 30,
        "only {values} values checked: {options} options"
    );
}

#[test]
fn the_example_parser_reads_blocks_spans_continuations_and_scripts() {
    let text =
        "```sh\nshootout run x --formats a \\\n    --verify # --not-this\n./run_shootout.sh \
                --runs 1 && shootout report r.csv\nSHOOTOUT=/x deploy/slurm/submit.sh f 4 /o -- \
                --lenient\n```\nThen `shootout merge P --out D` and shootout run --outside.\n\
                ```text\nshootout run --not-shell\n```\n";
    let found: Vec<(String, Vec<String>)> = examples(text)
        .into_iter()
        .map(|e| (e.command, e.words))
        .collect();
    let w = |s: &str| s.split(' ').map(str::to_owned).collect::<Vec<_>>();
    assert_eq!(
        found,
        [
            ("run".into(), w("x --formats a --verify")),
            ("bench".into(), w("--runs 1")),
            ("report".into(), w("r.csv")),
            ("run".into(), w("--lenient")),
            ("merge".into(), w("P --out D")),
        ]
    );
    assert_eq!(words(r#"--prefix "a=b c" x"#), ["--prefix", "a=b c", "x"]);
}

#[test]
fn possible_values_are_read_from_the_help() {
    let help =
        "  --timing <T>\n      How [default: a]\n      [possible values: alternate, both]\n  \
                -x, --x <X>\n      y\n  --y  [possible values: a]\n";
    assert_eq!(
        possible_values(help, "--timing").unwrap(),
        ["alternate", "both"]
    );
    assert_eq!(possible_values(help, "--x"), None);
}
