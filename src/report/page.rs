//! The page's layout, once for every text output: the answer first (per input, the verdict
//! with the size-vs-speed charts beside it), the comparison with a baseline, the scheduling
//! labels compared, the warnings grouped, then per input and label its tables and charts, and
//! the files read.

use super::analysis::{Analysis, SectionFigures};
use super::baseline::{self, Comparison};
use super::by_type::{self, Types};
use super::charts::{ChartFile, ChartKind};
use super::decision::Decision;
use super::dist::MergedRow;
use super::document::{Answer, Block, Document, Figure, Heading, Section, Span};
use super::scheduling;
use super::stats::{section_hosts, section_name, Group, Summary, Warning};
use super::tables::{allocations_table, merged_table, section_tables};
use super::verdict;
use super::verification;
use super::{controls, twins, warnings};

/// What the page is laid out from: the summary and its analysis, the charts drawn for it, and
/// every warning (the summary's and those found while drawing).
pub struct Contents<'a> {
    pub summary: &'a Summary,
    pub analysis: &'a Analysis<'a>,
    pub charts: &'a [ChartFile],
    pub warnings: &'a [Warning],
    /// Every run's histograms merged, per (input, label, format, side), where runs left them.
    pub merged: &'a [MergedRow],
    /// Each format against the baseline (`--baseline`), when given.
    pub baseline: Option<&'a Comparison>,
    /// The formats' capabilities and what was required of them.
    pub decision: &'a Decision,
    /// The figures per message type, and the mix asked for.
    pub types: &'a Types,
}

pub const TITLE: &str = "md-shootout: which format, for which need";

/// The whole page.
pub fn build(c: &Contents<'_>) -> Document {
    let s = c.summary;
    let mut sections: Vec<Section> = (c.analysis.answers())
        .map(|a| Section {
            heading: None,
            blocks: vec![Block::Answer(Answer {
                verdict: verdict::table(&a.verdicts, &section_name(a.input, a.label)),
                input: verdict::input_line(a.input, &a.groups, a.label),
                // What a tie means first, nearest the table it explains.
                notes: [
                    verdict::tie_note(&a.verdicts).into_iter().collect(),
                    a.decision_notes.clone(),
                    twins::answer_lines(&a.twin_figures),
                    controls::answer_line(&a.control_figures, &a.controls)
                        .into_iter()
                        .collect(),
                ]
                .concat(),
                figures: c.figures(a.input, a.label, &[ChartKind::Scatter]),
            })],
        })
        .collect();
    sections.extend(mix_section(c));
    let every: Vec<&Group> = s.groups.iter().collect();
    if let Some(table) = c.decision.table(&every) {
        sections.push(Section {
            heading: heading("Capabilities", Some("capabilities")),
            blocks: vec![Block::Table(table)],
        });
    }
    if let Some(b) = c.baseline {
        sections.push(Section {
            heading: heading("Against the baseline", Some("baseline")),
            blocks: vec![Block::Table(baseline::table(b))],
        });
    }
    sections.extend(scheduling_section(s));
    sections.push(warnings_section(c));
    sections.extend(c.analysis.sections.iter().map(|a| c.section(a)));
    let files = s
        .sources
        .iter()
        .map(|src| {
            vec![
                Span::Code(src.csv.display().to_string()),
                Span::Text(format!(" ({} rows)", src.rows)),
            ]
        })
        .collect();
    sections.push(Section {
        heading: heading("Results read", Some("sources")),
        blocks: vec![Block::List(files)],
    });
    Document {
        title: TITLE.to_owned(),
        sections,
    }
}

fn heading(text: &str, id: Option<&'static str>) -> Option<Heading> {
    Some(Heading {
        text: text.to_owned(),
        id,
    })
}

/// Each input's labels side by side, where an input ran under more than one.
fn scheduling_section(s: &Summary) -> Option<Section> {
    let comparisons = scheduling::compare(s);
    if comparisons.is_empty() {
        return None;
    }
    Some(Section {
        heading: heading("Scheduling labels compared", Some("scheduling")),
        blocks: comparisons
            .into_iter()
            .flat_map(|c| [Block::Findings(c.findings), Block::Table(c.table)])
            .collect(),
    })
}

/// The verdict for the mix asked for (`--mix`), per section timed by message type, beside the
/// same re-weighting with the input's own mix.
fn mix_section(c: &Contents<'_>) -> Option<Section> {
    let (mix, each) = c.types.mix.as_ref()?;
    let mut blocks = vec![Block::Paragraph(format!(
        "Mix ({}): {}. Each format's figures per message type (runs timed per message), \
         re-weighted: in each run, Σ share × the type's p50. A re-weighting of IEX messages \
         measured one at a time, not a measurement of a feed with this mix.",
        mix.from,
        mix.text()
    ))];
    for m in each {
        let name = section_name(&m.input, &m.label);
        if !m.missing.is_empty() {
            blocks.extend(m.finding(c.decision).map(Block::Paragraph));
            continue;
        }
        let verdicts = m.verdicts(c.decision);
        blocks.extend(m.finding(c.decision).map(|f| Block::Findings(vec![f])));
        blocks.push(Block::Verdict(verdict::table(
            &verdicts,
            &format!("{name}, re-weighted to the mix"),
        )));
        blocks.extend(verdict::tie_note(&verdicts).map(Block::Paragraph));
    }
    Some(Section {
        heading: heading("For another mix of messages", Some("mix")),
        blocks,
    })
}

fn warnings_section(c: &Contents<'_>) -> Section {
    let body = if c.warnings.is_empty() {
        Block::Note("None.".to_owned())
    } else {
        Block::Warnings(warnings::group(c.warnings, c.summary))
    };
    Section {
        heading: heading("Warnings", Some("warnings")),
        blocks: vec![body],
    }
}

impl Contents<'_> {
    /// One input and label: its hosts, its verdict (unless it is the answer at the top), its
    /// tables, and its charts.
    fn section(&self, a: &SectionFigures<'_>) -> Section {
        let (input, label, groups) = (a.input, a.label, &a.groups[..]);
        let mut blocks = vec![Block::Paragraph(format!(
            "Hosts: {}",
            section_hosts(groups)
        ))];
        if !a.primary {
            let name = section_name(input, label);
            blocks.push(Block::Verdict(verdict::table(&a.verdicts, &name)));
            // Under the table, as the answer's notes are.
            blocks.extend(verdict::tie_note(&a.verdicts).map(Block::Paragraph));
        }
        blocks.extend(section_tables(groups).map(Block::Table));
        let types = (self.types.sections.iter()).find(|t| t.input == input && t.label == label);
        blocks.extend(
            types
                .and_then(|t| by_type::table(t, self.decision))
                .map(Block::Table),
        );
        if let Some(t) = twins::table(&a.twin_figures) {
            if a.twin_figures.iter().any(|f| f.apart) {
                blocks.push(Block::Paragraph(
                    "⚠ THE METHOD IS BROKEN HERE: an A/A twin below is called apart from its own \
                     copy. No winner in this section is to be trusted at this resolution."
                        .to_owned(),
                ));
            }
            blocks.push(Block::Table(t));
        }
        blocks.extend(controls::table(&a.control_figures).map(Block::Table));
        blocks.extend(verification::table(groups).map(Block::Table));
        blocks.extend(allocations_table(groups).map(Block::Table));
        // Twins and controls too: a control's count is its plant, made visible.
        let counted: Vec<&Group> = [groups, &a.copies].concat();
        blocks.extend(super::instructions::table(&counted).map(Block::Table));
        let merged: Vec<_> = self
            .merged
            .iter()
            .filter(|m| m.input == input && m.label == label)
            .collect();
        blocks.extend(merged_table(&merged, groups).map(Block::Table));
        // The scatter is beside the verdict at the top for the answer's section.
        let kinds = [
            ChartKind::Scatter,
            ChartKind::Percentiles,
            ChartKind::Bytes,
            ChartKind::Distribution,
        ];
        let figures = self.figures(input, label, &kinds[usize::from(a.primary)..]);
        if !figures.is_empty() {
            blocks.push(Block::Figures(figures));
        }
        Section {
            heading: heading(&section_name(input, label), None),
            blocks,
        }
    }

    /// The charts of one input and label, of `kinds`, in that order.
    fn figures(&self, input: &str, label: &str, kinds: &[ChartKind]) -> Vec<Figure> {
        kinds
            .iter()
            .flat_map(|kind| {
                self.charts
                    .iter()
                    .filter(move |c| c.input == input && c.label == label && c.kind == *kind)
            })
            .map(|c| Figure {
                file: c.file.clone(),
                title: c.title.clone(),
            })
            .collect()
    }
}
