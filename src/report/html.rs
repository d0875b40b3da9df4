//! `index.html`: the report's document (see [`super::page`]) on one page, viewable offline. Styles are inline, there is no
//! script and no font or stylesheet from elsewhere; the charts are the SVG files beside it,
//! linked relatively, so the folder can be copied or archived as it is.

use std::io::{self, Write};

use super::document::{spans, Block, Figure};
use super::export::{Export, ReportData};
use crate::output::Table;

pub struct Html;

/// Escapes text for HTML element content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "\
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;margin:1em auto;max-width:1500px;padding:0 1em;color:#222;line-height:1.4}
h1{font-size:1.7em}h2{margin-top:2em;border-bottom:2px solid #ddd;padding-bottom:.2em}
table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:.88em}
th,td{border:1px solid #ccc;padding:.3em .45em;text-align:right;white-space:nowrap}
th{white-space:normal;vertical-align:bottom}
th{background:#f0f3f7}td:first-child,th:first-child,td.side,th.side{text-align:left}
table.verdict th{text-align:left}
tr:nth-child(even) td{background:#fafafa}
p.caption{color:#555;margin-bottom:.3em}
details.warnings{background:#fff6e0;border:1px solid #e8c15a;padding:.4em 1em;border-radius:4px;margin:.4em 0}
details.warnings summary{cursor:pointer}details.warnings li{font-size:.9em}
.answer{display:flex;flex-wrap:wrap;gap:0 1.5em;align-items:flex-start}
.answer .verdict{flex:1 1 560px;max-width:720px}.answer figure{flex:1 1 600px;max-width:680px;margin:0}
.answer figure img{width:100%}table.verdict{font-size:.84em}
table.verdict td{white-space:normal;text-align:left}table.verdict td small{white-space:nowrap}
table.verdict td:nth-child(2) small,table.verdict td:nth-child(5) small{white-space:normal}
p.lead{font-size:.92em;color:#333;margin:.2em 0}h1{margin:.2em 0 .4em}
ul.findings{margin:.3em 0}
.ok{background:#eaf6ea;border:1px solid #8c8;padding:.6em 1.2em;border-radius:4px}
figure{margin:1em 0}figure img{width:960px;max-width:100%;border:1px solid #ddd}
.scroll{overflow-x:auto}td small{color:#777;white-space:normal}
code{background:#f3f3f3;padding:0 .2em}
";

/// A table with its caption above; `class` on the table element when not empty.
fn table(w: &mut dyn Write, t: &Table, class: &str) -> io::Result<()> {
    let class = if class.is_empty() {
        String::new()
    } else {
        format!(" class=\"{class}\"")
    };
    writeln!(
        w,
        "<p class=\"caption\">{}</p>\n<div class=\"scroll\"><table{class}>",
        escape(&t.caption)
    )?;
    write!(w, "<tr>")?;
    for (i, h) in t.header.iter().enumerate() {
        // A text column's heading aligned as its cells are (the first is, by the stylesheet).
        let class = if i > 0 && i < t.left {
            " class=\"side\""
        } else {
            ""
        };
        write!(w, "<th{class}>{}</th>", escape(h))?;
    }
    writeln!(w, "</tr>")?;
    for r in &t.rows {
        write!(w, "<tr>")?;
        for (i, c) in r.iter().enumerate() {
            let class = if i > 0 && i < t.left {
                " class=\"side\""
            } else {
                ""
            };
            // `911 (851–911)`: the spread in small grey type under the median, which may break
            // after the dash when the table would be wider than the page.
            let cell = match c.split_once(" (") {
                Some((median, rest)) => {
                    format!("{}<br><small>({}</small>", escape(median), escape(rest))
                }
                None => escape(c),
            };
            write!(w, "<td{class}>{cell}</td>")?;
        }
        writeln!(w, "</tr>")?;
    }
    writeln!(w, "</table></div>")
}

impl Export for Html {
    fn file_name(&self) -> &'static str {
        "index.html"
    }

    fn write(&self, report: &ReportData<'_>, w: &mut dyn Write) -> io::Result<()> {
        let doc = report.document;
        writeln!(
            w,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <title>md-shootout report</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n\
             <h1>{}</h1>",
            escape(&doc.title)
        )?;
        for section in &doc.sections {
            if let Some(h) = &section.heading {
                match h.id {
                    Some(id) => writeln!(w, "<h2 id=\"{id}\">{}</h2>", escape(&h.text))?,
                    None => writeln!(w, "<h2>{}</h2>", escape(&h.text))?,
                }
            }
            for block in &section.blocks {
                self.block(w, block)?;
            }
        }
        writeln!(w, "</body>\n</html>")
    }
}

impl Html {
    fn block(&self, w: &mut dyn Write, block: &Block) -> io::Result<()> {
        match block {
            // The verdict and the input beside the charts; wrapped under them when narrow.
            Block::Answer(a) => {
                writeln!(w, "<div class=\"answer\" id=\"answer\">")?;
                writeln!(w, "<div class=\"verdict\">")?;
                table(w, &a.verdict, "verdict")?;
                writeln!(w, "<p class=\"lead\">{}</p>", escape(&a.input))?;
                if !a.notes.is_empty() {
                    findings(w, &a.notes)?;
                }
                writeln!(w, "</div>")?;
                for f in &a.figures {
                    figure(w, f)?;
                }
                writeln!(w, "</div>")
            }
            Block::Paragraph(text) => writeln!(w, "<p>{}</p>", escape(text)),
            Block::Table(t) => table(w, t, ""),
            Block::Verdict(t) => table(w, t, "verdict"),
            Block::Findings(items) => findings(w, items),
            Block::Warnings(groups) => {
                for g in groups {
                    writeln!(
                        w,
                        "<details class=\"warnings\"><summary>{}</summary>\n<ul>",
                        escape(&g.summary)
                    )?;
                    for d in &g.details {
                        writeln!(w, "<li>{}</li>", escape(d))?;
                    }
                    writeln!(w, "</ul></details>")?;
                }
                Ok(())
            }
            Block::Note(text) => writeln!(w, "<p class=\"ok\">{}</p>", escape(text)),
            Block::Figures(figures) => {
                writeln!(w, "<div class=\"charts\">")?;
                for f in figures {
                    figure(w, f)?;
                }
                writeln!(w, "</div>")
            }
            Block::List(items) => {
                writeln!(w, "<ul>")?;
                for item in items {
                    let spans = spans(item, escape, |c| format!("<code>{}</code>", escape(c)));
                    writeln!(w, "<li>{spans}</li>")?;
                }
                writeln!(w, "</ul>")
            }
        }
    }
}

fn findings(w: &mut dyn Write, items: &[String]) -> io::Result<()> {
    writeln!(w, "<ul class=\"findings\">")?;
    for f in items {
        writeln!(w, "<li>{}</li>", escape(f))?;
    }
    writeln!(w, "</ul>")
}

fn figure(w: &mut dyn Write, f: &Figure) -> io::Result<()> {
    writeln!(
        w,
        "<figure><img src=\"{}\" alt=\"{}\"></figure>",
        escape(&f.file),
        escape(&f.title)
    )
}
