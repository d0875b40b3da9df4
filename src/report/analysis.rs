//! The report's analysis, apart from its layout (criterion's split): every section's verdict,
//! A/A twins and positive controls and the notes on the formats the verdict names, computed in
//! one pass ([`analyse`]), so that [`super::page`] and the files only lay them out.

use super::decision::Decision;
use super::stats::{section_name, Group, Summary, TwinPair, Warning, WarningKind};
use super::twins::{copy_figures, CopyFigure};
use super::verdict::{self, Verdict};

/// One input and label's figures.
pub struct SectionFigures<'a> {
    pub input: &'a str,
    pub label: &'a str,
    /// Fastest first.
    pub groups: Vec<&'a Group>,
    /// Whether the answer at the top of the page is given for it (one section per input).
    pub primary: bool,
    /// The verdict: among the formats that meet the requirements in the answer's section, among
    /// every format a verdict without them ranks elsewhere.
    pub verdicts: Vec<Verdict>,
    /// What was required and who was left out, and the capabilities of the formats the verdict
    /// names (the answer's section only).
    pub decision_notes: Vec<String>,
    pub controls: Vec<TwinPair<'a>>,
    /// The A/A twins and the controls on each figure, and the formats they copy (the twins,
    /// then the controls: what the instructions table counts too).
    pub twin_figures: Vec<CopyFigure>,
    pub control_figures: Vec<CopyFigure>,
    pub copies: Vec<&'a Group>,
}

/// Every section, in [`Summary::sections`]' order.
pub struct Analysis<'a> {
    pub sections: Vec<SectionFigures<'a>>,
}

/// Computes every section's figures.
pub fn analyse<'a>(s: &'a Summary, decision: &Decision) -> Analysis<'a> {
    let primaries: Vec<_> = (s.inputs().into_iter())
        .filter_map(|i| s.primary(i))
        .map(|(i, l, _)| (i, l))
        .collect();
    let sections = (s.sections().into_iter())
        .map(|(input, label, groups)| {
            let primary = primaries.contains(&(input, label));
            let twins = s.twin_pairs(input, label);
            let controls = s.control_pairs(input, label);
            let ranked = match primary {
                true => decision.eligible(&groups).0,
                false => decision.rankable(&groups),
            };
            let verdicts = verdict::verdicts_with(&ranked, &twins);
            let decision_notes = match primary {
                true => decision.notes(&groups, &verdict::named_formats(&verdicts)),
                false => Vec::new(),
            };
            SectionFigures {
                input,
                label,
                primary,
                verdicts,
                decision_notes,
                twin_figures: copy_figures(&twins, &twins),
                control_figures: copy_figures(&controls, &twins),
                copies: (twins.iter().chain(&controls)).map(|p| p.twin).collect(),
                controls,
                groups,
            }
        })
        .collect();
    Analysis { sections }
}

impl Analysis<'_> {
    /// The sections the answer at the top is given for, one per input, in input order.
    pub fn answers(&self) -> impl Iterator<Item = &SectionFigures<'_>> {
        self.sections.iter().filter(|s| s.primary)
    }

    /// A warning for every twin the verdict's rule calls apart: the loudest thing the report can
    /// say.
    pub fn twin_warnings(&self) -> Vec<Warning> {
        let mut out = Vec::new();
        for s in &self.sections {
            for f in s.twin_figures.iter().filter(|f| f.apart) {
                let text = format!(
                    "{} {} {}: {} against its own copy: {}",
                    section_name(s.input, s.label),
                    f.copy,
                    f.figure,
                    f.interval_text(2),
                    f.call()
                );
                out.push(Warning::new(WarningKind::TwinApart, text));
            }
        }
        out
    }
}
