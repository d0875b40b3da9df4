//! `index.html`: the whole report on one page, viewable offline. Styles are inline, there is no
//! script and no font or stylesheet from elsewhere; the charts are the SVG files beside it,
//! linked relatively, so the folder can be copied or archived as it is.

use std::io::{self, Write};

use super::stats::{section_hosts, section_name};
use super::tables::{section_tables, Table};
use super::{ChartFile, Export, ReportData};

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
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;margin:2em auto;max-width:1500px;padding:0 1em;color:#222;line-height:1.4}
h1{font-size:1.7em}h2{margin-top:2em;border-bottom:2px solid #ddd;padding-bottom:.2em}
table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:.88em}
th,td{border:1px solid #ccc;padding:.3em .45em;text-align:right;white-space:nowrap}
th{white-space:normal;vertical-align:bottom}
th{background:#f0f3f7}td:first-child,th:first-child,td.side{text-align:left}
tr:nth-child(even) td{background:#fafafa}
p.caption{color:#555;margin-bottom:.3em}
.warnings{background:#fff6e0;border:1px solid #e8c15a;padding:.6em 1.2em;border-radius:4px}
.ok{background:#eaf6ea;border:1px solid #8c8;padding:.6em 1.2em;border-radius:4px}
figure{margin:1em 0}figure img{width:960px;max-width:100%;border:1px solid #ddd}
.scroll{overflow-x:auto}td small{color:#777;white-space:normal}
code{background:#f3f3f3;padding:0 .2em}
";

fn table(w: &mut dyn Write, t: &Table) -> io::Result<()> {
    writeln!(
        w,
        "<p class=\"caption\">{}</p>\n<div class=\"scroll\"><table>",
        escape(&t.caption)
    )?;
    write!(w, "<tr>")?;
    for h in &t.header {
        write!(w, "<th>{}</th>", escape(h))?;
    }
    writeln!(w, "</tr>")?;
    for r in &t.rows {
        write!(w, "<tr>")?;
        for (i, c) in r.iter().enumerate() {
            let class = if i == 1 && t.header[1] == "side" {
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

fn charts(w: &mut dyn Write, charts: &[&ChartFile]) -> io::Result<()> {
    if charts.is_empty() {
        return Ok(());
    }
    writeln!(w, "<div class=\"charts\">")?;
    for c in charts {
        writeln!(
            w,
            "<figure><img src=\"{}\" alt=\"{}\"></figure>",
            escape(&c.file),
            escape(&c.title)
        )?;
    }
    writeln!(w, "</div>")
}

impl Export for Html {
    fn file_name(&self) -> &'static str {
        "index.html"
    }

    fn write(&self, report: &ReportData<'_>, w: &mut dyn Write) -> io::Result<()> {
        let s = report.summary;
        writeln!(
            w,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <title>md-shootout report</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n\
             <h1>md-shootout report</h1>"
        )?;
        writeln!(w, "<p>Results read:</p>\n<ul>")?;
        for src in &s.sources {
            writeln!(
                w,
                "<li><code>{}</code> ({} rows)</li>",
                escape(&src.csv.display().to_string()),
                src.rows
            )?;
        }
        writeln!(w, "</ul>")?;
        writeln!(w, "<h2 id=\"warnings\">Warnings</h2>")?;
        if report.warnings.is_empty() {
            writeln!(w, "<p class=\"ok\">None.</p>")?;
        } else {
            writeln!(w, "<ul class=\"warnings\">")?;
            for warning in report.warnings {
                writeln!(w, "<li>{}</li>", escape(&warning.message))?;
            }
            writeln!(w, "</ul>")?;
        }
        let sections = s.sections();
        for input in s.inputs() {
            for (_, label, groups) in sections.iter().filter(|(i, _, _)| *i == input) {
                writeln!(w, "<h2>{}</h2>", escape(&section_name(input, label)))?;
                writeln!(w, "<p>Hosts: {}</p>", escape(&section_hosts(groups)))?;
                for t in section_tables(groups) {
                    table(w, &t)?;
                }
                let own: Vec<&ChartFile> = report
                    .charts
                    .iter()
                    .filter(|c| c.input == input && c.label.as_deref() == Some(*label))
                    .collect();
                charts(w, &own)?;
            }
            let dists: Vec<&ChartFile> = report
                .charts
                .iter()
                .filter(|c| c.input == input && c.label.is_none())
                .collect();
            if !dists.is_empty() {
                writeln!(w, "<h2>{} — percentile distributions</h2>", escape(input))?;
                charts(w, &dists)?;
            }
        }
        writeln!(w, "</body>\n</html>")
    }
}
