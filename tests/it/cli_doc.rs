//! docs/cli.md against the binary: its last section is every command's `--help` as the binary
//! prints it (`doc_examples` checks every example against the same help).
//! `UPDATE_CLI_DOC=1 cargo test --test it cli_doc` rewrites the section.

use std::path::Path;
use std::process::Command;

/// Where the generated part of docs/cli.md starts; everything after it is generated.
pub(crate) const MARKER: &str = "## Every option, as `--help` prints it";

/// The commands, in the order `shootout --help` lists them.
pub(crate) const COMMANDS: [&str; 8] = [
    "inspect", "run", "merge", "report", "gen", "bench", "fetch", "formats",
];

pub(crate) fn help(command: &str) -> String {
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
