//! `summary.md`: the answer first (the verdict, the input, the size-vs-speed charts), then the
//! scheduling labels compared, the warnings grouped, and per input and label the tables and
//! charts; readable as plain text and rendered anywhere Markdown is (charts as relative links).

use std::io::{self, Write};

use super::stats::{section_hosts, section_name};
use super::tables::{self, section_tables, Table};
use super::{baseline, html, scheduling, verdict, warnings};
use super::{ChartFile, ChartKind, Export, ReportData};

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
        .map(|i| if i < t.left { "---" } else { "---:" })
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
        writeln!(w, "# md-shootout: which format, for which need\n")?;
        let of_kind = |input: &str, label: &str, kind: ChartKind| -> Vec<&ChartFile> {
            report
                .charts
                .iter()
                .filter(|c| c.input == input && c.label.as_deref() == Some(label) && c.kind == kind)
                .collect()
        };
        let primaries: Vec<_> = s
            .inputs()
            .into_iter()
            .filter_map(|i| s.primary(i))
            .collect();
        for (input, label, groups) in &primaries {
            table(
                w,
                &verdict::table(&verdict::verdicts(groups), &section_name(input, label)),
            )?;
            writeln!(w, "{}\n", verdict::input_line(input, groups, label))?;
            for c in of_kind(input, label, ChartKind::Scatter) {
                writeln!(w, "![{}]({})\n", cell(&c.title), c.file)?;
            }
        }
        if let Some(b) = report.baseline {
            writeln!(w, "## Against the baseline\n")?;
            table(w, &baseline::table(b))?;
        }
        let comparisons = scheduling::compare(s);
        if !comparisons.is_empty() {
            writeln!(w, "## Scheduling labels compared\n")?;
            for c in &comparisons {
                for f in &c.findings {
                    writeln!(w, "- {}", cell(f))?;
                }
                writeln!(w)?;
                table(w, &c.table)?;
            }
        }
        writeln!(w, "## Warnings\n")?;
        if report.warnings.is_empty() {
            writeln!(w, "None.\n")?;
        } else {
            for g in warnings::group(report.warnings, s) {
                writeln!(
                    w,
                    "<details><summary>{}</summary>\n",
                    html::escape(&g.summary)
                )?;
                for d in &g.details {
                    writeln!(w, "- {}", cell(d))?;
                }
                writeln!(w, "\n</details>\n")?;
            }
        }
        let sections = s.sections();
        for input in s.inputs() {
            for (_, label, groups) in sections.iter().filter(|(i, _, _)| *i == input) {
                writeln!(w, "## {}\n", cell(&section_name(input, label)))?;
                writeln!(w, "Hosts: {}\n", cell(&section_hosts(groups)))?;
                let primary = primaries.iter().any(|(i, l, _)| i == &input && l == label);
                if !primary {
                    table(
                        w,
                        &verdict::table(&verdict::verdicts(groups), &section_name(input, label)),
                    )?;
                }
                for t in section_tables(groups) {
                    table(w, &t)?;
                }
                let merged: Vec<_> = report
                    .merged
                    .iter()
                    .filter(|m| m.input == input && &m.label == label)
                    .collect();
                if let Some(t) = tables::merged_table(&merged, groups[0].unit) {
                    table(w, &t)?;
                }
                let mut own = Vec::new();
                if !primary {
                    own.extend(of_kind(input, label, ChartKind::Scatter));
                }
                for kind in [
                    ChartKind::Percentiles,
                    ChartKind::Bytes,
                    ChartKind::Distribution,
                ] {
                    own.extend(of_kind(input, label, kind));
                }
                for c in own {
                    writeln!(w, "![{}]({})\n", cell(&c.title), c.file)?;
                }
            }
        }
        writeln!(w, "## Results read\n")?;
        for src in &s.sources {
            writeln!(w, "- `{}` ({} rows)", src.csv.display(), src.rows)?;
        }
        Ok(())
    }
}
