//! docs/cli.md against the binary: its last section is every command's `--help` as the binary
//! prints it, and every option the README and docs/cli.md use in a shell block is one the
//! command's help lists. `UPDATE_CLI_DOC=1 cargo test --test it cli_doc` rewrites the section.

use std::path::Path;
use std::process::Command;

/// Where the generated part of docs/cli.md starts; everything after it is generated.
const MARKER: &str = "## Every option, as `--help` prints it";

/// The commands, in the order `shootout --help` lists them.
const COMMANDS: [&str; 8] = [
    "inspect", "run", "merge", "report", "gen", "bench", "fetch", "formats",
];

fn help(command: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_shootout"))
        .args([command, "--help"])
        .env("COLUMNS", "100")
        .output()
        .unwrap();
    assert!(out.status.success(), "shootout {command} --help");
    String::from_utf8(out.stdout).unwrap()
}

/// The generated section: each command's help in a text block.
fn generated() -> String {
    let mut text = format!(
        "{MARKER}\n\nGenerated from the binary (`shootout COMMAND --help`); a test keeps it \
         equal.\n"
    );
    for command in COMMANDS {
        text.push_str(&format!(
            "\n### shootout {command}\n\n```text\n{}```\n",
            help(command)
        ));
    }
    text
}

fn doc_path() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/cli.md")
}

#[test]
fn cli_doc_is_the_binarys_help() {
    let path = doc_path();
    let doc = std::fs::read_to_string(&path).unwrap();
    let at = doc.find(MARKER).unwrap_or(doc.len());
    let (written, expected) = (&doc[at..], generated());
    if written != expected && std::env::var_os("UPDATE_CLI_DOC").is_some() {
        std::fs::write(&path, format!("{}{expected}", &doc[..at])).unwrap();
        return;
    }
    assert!(
        written == expected,
        "docs/cli.md's last section differs from the binary's --help: rewrite it with \
         UPDATE_CLI_DOC=1 cargo test --test it cli_doc"
    );
}

/// Every shell line of `text` that runs `shootout` or `./run_shootout.sh`: the command (bench
/// for the script) and the options it gives, continuation lines joined, comments dropped.
fn commands(text: &str) -> Vec<(String, Vec<String>)> {
    let mut found = Vec::new();
    let mut in_block = false;
    let mut line = String::new();
    for raw in text.lines() {
        if raw.starts_with("```") {
            in_block = raw == "```sh";
            continue;
        }
        if !in_block {
            continue;
        }
        let code = raw.split(" #").next().unwrap_or("").trim_end();
        line.push_str(code.trim_end_matches('\\'));
        line.push(' ');
        if code.ends_with('\\') {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let command = match words.as_slice() {
            ["./run_shootout.sh", ..] => Some("bench"),
            ["shootout", c, ..] => Some(*c),
            _ => None,
        };
        if let Some(command) = command {
            let options = words
                .iter()
                .flat_map(|w| w.split(['[', ']', '|', '=']))
                .filter(|w| w.starts_with("--") && w.len() > 2)
                .map(str::to_owned)
                .collect();
            found.push((command.to_owned(), options));
        }
        line.clear();
    }
    found
}

#[test]
fn every_option_the_docs_use_is_one_the_command_has() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut checked = 0;
    for doc in ["README.md", "docs/cli.md"] {
        let text = std::fs::read_to_string(root.join(doc)).unwrap();
        let text = text.split(MARKER).next().unwrap();
        for (command, options) in commands(text) {
            assert!(
                COMMANDS.contains(&command.as_str()),
                "{doc}: `shootout {command}` is no command"
            );
            let help = help(&command);
            for option in options {
                let listed = help
                    .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                    .any(|w| w == option);
                assert!(listed, "{doc}: `{command} {option}`: not in its --help");
                checked += 1;
            }
        }
    }
    // The README's real day, docs/cli.md's synopses and recipes: 66 when this was written.
    assert!(
        checked > 50,
        "only {checked} options found: the parser missed the blocks"
    );
}

#[test]
fn the_command_parser_reads_continuations_and_drops_comments() {
    let text =
        "```sh\nshootout run x --formats a \\\n    --verify # --not-this\n./run_shootout.sh \
                --runs 1\n```\nshootout run --outside\n";
    assert_eq!(
        commands(text),
        [
            (
                "run".to_owned(),
                vec!["--formats".to_owned(), "--verify".to_owned()]
            ),
            ("bench".to_owned(), vec!["--runs".to_owned()]),
        ]
    );
}
