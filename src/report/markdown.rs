//! `summary.md`: the report's document (see [`super::page`]) as Markdown, readable as plain text
//! and rendered anywhere Markdown is (charts as relative links).

use std::io::{self, Write};

use super::document::{spans, Block, Figure};
use super::export::{Export, ReportData};
use super::html;
use crate::output::Table;

pub struct Markdown;

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The caption, then the table; number columns aligned right.
fn table(t: &Table) -> String {
    let row = |cells: &[String]| {
        format!(
            "| {} |\n",
            cells
                .iter()
                .map(|c| cell(c))
                .collect::<Vec<_>>()
                .join(" | ")
        )
    };
    let align: Vec<&str> = (0..t.header.len())
        .map(|i| if i < t.left { "---" } else { "---:" })
        .collect();
    let mut out = format!("{}\n\n{}|{}|\n", t.caption, row(&t.header), align.join("|"));
    for r in &t.rows {
        out.push_str(&row(r));
    }
    out
}

impl Export for Markdown {
    fn file_name(&self) -> &'static str {
        "summary.md"
    }

    /// Every block and heading a paragraph of its own: rendered each on its own and joined by
    /// blank lines.
    fn write(&self, report: &ReportData<'_>, w: &mut dyn Write) -> io::Result<()> {
        let doc = report.document;
        let mut parts = vec![format!("# {}\n", cell(&doc.title))];
        for section in &doc.sections {
            if let Some(h) = &section.heading {
                parts.push(format!("## {}\n", cell(&h.text)));
            }
            for block in &section.blocks {
                block_parts(block, &mut parts);
            }
        }
        w.write_all(parts.join("\n").as_bytes())
    }
}

fn block_parts(block: &Block, parts: &mut Vec<String>) {
    let lines = |items: &mut dyn Iterator<Item = String>| -> String {
        items.map(|i| format!("- {i}\n")).collect()
    };
    match block {
        Block::Answer(a) => {
            parts.push(table(&a.verdict));
            parts.push(format!("{}\n", cell(&a.input)));
            if !a.notes.is_empty() {
                parts.push(lines(&mut a.notes.iter().map(|n| cell(n))));
            }
            parts.extend(a.figures.iter().map(figure));
        }
        Block::Paragraph(text) | Block::Note(text) => parts.push(format!("{}\n", cell(text))),
        Block::Table(t) | Block::Verdict(t) => parts.push(table(t)),
        Block::Findings(items) => parts.push(lines(&mut items.iter().map(|f| cell(f)))),
        // One line per kind, its single warnings folded under it (as the HTML does): a
        // renderer of Markdown shows the line and opens the rest on a click.
        Block::Warnings(groups) => parts.push(
            groups
                .iter()
                .map(|g| {
                    let details = format!(
                        "\n  <details><summary>the {} behind it</summary>{}</details>",
                        super::stats::plural(g.details.len(), "warning"),
                        html::escape(&cell(&g.details.join("; ")))
                    );
                    format!("- {}{details}\n", cell(&g.summary))
                })
                .collect(),
        ),
        Block::Figures(figures) => parts.extend(figures.iter().map(figure)),
        Block::List(items) => parts.push(lines(
            &mut items
                .iter()
                .map(|item| spans(item, cell, |c| format!("`{c}`"))),
        )),
    }
}

/// A chart as an image link, relative to the file.
fn figure(f: &Figure) -> String {
    format!("![{}]({})\n", cell(&f.title), f.file)
}
