//! `summary.md`: the warnings, then per input and label the tables and charts, readable as
//! plain text and rendered anywhere Markdown is (charts as relative image links).

use std::io::{self, Write};

use super::stats::{section_hosts, section_name};
use super::tables::{section_tables, Table};
use super::{Export, ReportData};

pub struct Markdown;

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn table(w: &mut dyn Write, t: &Table) -> io::Result<()> {
    writeln!(w, "{}\n", t.caption)?;
    let row = |cells: &[String]| {
        format!(
            "| {} |",
            cells
                .iter()
                .map(|c| cell(c))
                .collect::<Vec<_>>()
                .join(" | ")
        )
    };
    writeln!(w, "{}", row(&t.header))?;
    let align: Vec<&str> = (0..t.header.len())
        .map(|i| {
            if i == 0 || (i == 1 && t.header[1] == "side") {
                "---"
            } else {
                "---:"
            }
        })
        .collect();
    writeln!(w, "|{}|", align.join("|"))?;
    for r in &t.rows {
        writeln!(w, "{}", row(r))?;
    }
    writeln!(w)
}

impl Export for Markdown {
    fn file_name(&self) -> &'static str {
        "summary.md"
    }

    fn write(&self, report: &ReportData<'_>, w: &mut dyn Write) -> io::Result<()> {
        let s = report.summary;
        writeln!(w, "# md-shootout report\n")?;
        writeln!(w, "Results read:\n")?;
        for src in &s.sources {
            writeln!(w, "- `{}` ({} rows)", src.csv.display(), src.rows)?;
        }
        writeln!(w)?;
        writeln!(w, "## Warnings\n")?;
        if report.warnings.is_empty() {
            writeln!(w, "None.\n")?;
        } else {
            for warning in report.warnings {
                writeln!(w, "- {}", cell(&warning.message))?;
            }
            writeln!(w)?;
        }
        let sections = s.sections();
        for input in s.inputs() {
            for (_, label, groups) in sections.iter().filter(|(i, _, _)| *i == input) {
                writeln!(w, "## {}\n", cell(&section_name(input, label)))?;
                writeln!(w, "Hosts: {}\n", cell(&section_hosts(groups)))?;
                for t in section_tables(groups) {
                    table(w, &t)?;
                }
                for c in report
                    .charts
                    .iter()
                    .filter(|c| c.input == input && c.label.as_deref() == Some(*label))
                {
                    writeln!(w, "![{}]({})\n", cell(&c.title), c.file)?;
                }
            }
            let dists: Vec<_> = report
                .charts
                .iter()
                .filter(|c| c.input == input && c.label.is_none())
                .collect();
            if !dists.is_empty() {
                writeln!(w, "## {} — percentile distributions\n", cell(input))?;
                for c in dists {
                    writeln!(w, "![{}]({})\n", cell(&c.title), c.file)?;
                }
            }
        }
        Ok(())
    }
}
