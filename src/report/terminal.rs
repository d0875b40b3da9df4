//! The report's answer as a terminal shows it at the end of a `bench`: each input's verdict
//! table in aligned plain-text columns, long cells cut to a width a terminal holds, then the
//! warnings one line per kind. A screenful, not the page: the reasoning behind each cell, the
//! notes and the charts are in `summary.md` and `index.html`, which the last lines name.

use super::document::{Block, Document};
use super::tables::Table;
use super::warnings::WarningGroup;

/// The widest a cell is shown, per verdict column (need, measured by, winner, runner-up,
/// margin, raw floor): together about 150 columns. A cut cell ends in `…`.
const WIDTHS: [usize; 6] = [26, 26, 24, 24, 40, 12];

/// Every verdict of `document`, each under its caption's first sentence (which input, label
/// and how many runs).
pub fn verdicts(document: &Document) -> String {
    let mut out = String::new();
    for section in &document.sections {
        for block in &section.blocks {
            if let Block::Answer(answer) = block {
                out.push_str(first_sentence(&answer.verdict.caption));
                out.push('\n');
                out.push_str(&table(&answer.verdict, &WIDTHS));
                out.push('\n');
            }
        }
    }
    out
}

/// One line per kind of warning, as the report groups them.
pub fn warnings(groups: &[WarningGroup]) -> String {
    groups
        .iter()
        .map(|g| format!("warning: {}\n", g.summary))
        .collect()
}

/// Up to and including the first ". " (a caption's first sentence), or all of it.
fn first_sentence(text: &str) -> &str {
    match text.find(". ") {
        Some(at) => &text[..=at],
        None => text,
    }
}

/// `t` as aligned columns, each cell at most `widths[i]` characters (unbounded past the
/// widths given), columns two spaces apart, a dashed rule under the header.
fn table(t: &Table, widths: &[usize]) -> String {
    let cut = |i: usize, cell: &str| shorten(cell, widths.get(i).copied().unwrap_or(usize::MAX));
    let rows: Vec<Vec<String>> = std::iter::once(&t.header)
        .chain(&t.rows)
        .map(|r| r.iter().enumerate().map(|(i, c)| cut(i, c)).collect())
        .collect();
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let width: Vec<usize> = (0..columns)
        .map(|i| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: &[String]| {
        let padded: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{c:<w$}", w = width[i]))
            .collect();
        format!("{}\n", padded.join("  ").trim_end())
    };
    let mut out = String::new();
    for (k, r) in rows.iter().enumerate() {
        out.push_str(&line(r));
        if k == 0 {
            let rule: Vec<String> = width.iter().map(|&w| "-".repeat(w)).collect();
            out.push_str(&line(&rule));
        }
    }
    out
}

/// `text` cut to `max` characters, the last one `…` when anything was cut.
fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let kept: String = text.chars().take(max.saturating_sub(1)).collect();
    format!("{}…", kept.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict() -> Table {
        Table {
            caption: "DEEP10.pcap.gz [normal]: median of 6 runs (min–max). Ranked by ...".into(),
            left: 6,
            header: [
                "need",
                "measured by",
                "winner",
                "runner-up",
                "margin",
                "raw floor",
            ]
            .map(String::from)
            .to_vec(),
            rows: vec![[
                "fastest encode",
                "ser batch, ns/packet",
                "wincode: 89.9",
                "borsh: 102.6",
                "tie with borsh, sbe, rkyv, postcard, capnp-unpacked, msgpack, protobuf",
                "80.3",
            ]
            .map(String::from)
            .to_vec()],
        }
    }

    #[test]
    fn a_verdict_is_aligned_columns_with_long_cells_cut() {
        let text = table(&verdict(), &WIDTHS);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert!(lines[0].starts_with("need            "), "{text}");
        assert!(lines[1].starts_with("--------------  "), "{text}");
        // Every column starts where the header's does.
        let winner = lines[0].find("winner").unwrap();
        assert_eq!(lines[2][winner..].split("  ").next(), Some("wincode: 89.9"));
        let margin = lines[2].split("  ").find(|c| c.starts_with("tie")).unwrap();
        assert_eq!(margin.chars().count(), WIDTHS[4]);
        assert!(margin.ends_with('…'), "{margin}");
        assert!(lines[2].ends_with("80.3"), "{text}");
    }

    #[test]
    fn a_caption_gives_its_first_sentence() {
        assert_eq!(
            first_sentence(&verdict().caption),
            "DEEP10.pcap.gz [normal]: median of 6 runs (min–max)."
        );
        assert_eq!(first_sentence("no stop"), "no stop");
    }

    #[test]
    fn a_short_cell_is_kept_whole() {
        assert_eq!(shorten("wincode", 7), "wincode");
        assert_eq!(shorten("wincode", 6), "winco…");
    }
}
