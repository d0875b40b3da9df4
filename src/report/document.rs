//! The report as a document: what the page says, in order, without markup. [`super::page`]
//! builds it once from the summary; `index.html` ([`super::html`]) and `summary.md`
//! ([`super::markdown`]) each render it, so both say the same in the same order.

use super::warnings::WarningGroup;
use crate::output::Table;

pub struct Document {
    pub title: String,
    pub sections: Vec<Section>,
}

/// A part of the page under one heading (the answer at the top has none).
pub struct Section {
    pub heading: Option<Heading>,
    pub blocks: Vec<Block>,
}

pub struct Heading {
    pub text: String,
    /// An anchor, for the sections a reader links to.
    pub id: Option<&'static str>,
}

pub enum Block {
    Answer(Answer),
    Paragraph(String),
    /// Figures as text cells, with the caption above.
    Table(Table),
    /// A verdict table: sentences in its cells, read across.
    Verdict(Table),
    /// Sentences that sum up the table after them.
    Findings(Vec<String>),
    /// Warnings by kind: one line each, the single warnings folded away under it.
    Warnings(Vec<WarningGroup>),
    /// A short all-clear where a list would be.
    Note(String),
    Figures(Vec<Figure>),
    /// A list whose items mix text and code (file names).
    List(Vec<Vec<Span>>),
}

/// The answer for one input: the verdict with the input described under it, and the
/// size-vs-speed charts beside it (under it where there is no room, and in plain text).
pub struct Answer {
    pub verdict: Table,
    pub input: String,
    /// Under the input line: what a tie means (when the verdict has one), what was required
    /// and who was left out, the capabilities of the formats the verdict names.
    pub notes: Vec<String>,
    pub figures: Vec<Figure>,
}

/// A chart: the SVG file beside the page, and its title (the text shown without it).
pub struct Figure {
    pub file: String,
    pub title: String,
}

/// A run of text in a list item.
pub enum Span {
    Text(String),
    /// Shown as code: a file name, taken literally.
    Code(String),
}

/// A list item as one string, its text and its code each marked up by the function given.
pub fn spans(
    item: &[Span],
    text: impl Fn(&str) -> String,
    code: impl Fn(&str) -> String,
) -> String {
    item.iter()
        .map(|s| match s {
            Span::Text(t) => text(t),
            Span::Code(c) => code(c),
        })
        .collect()
}
