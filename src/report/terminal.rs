//! The report's answer as a terminal shows it at the end of a `bench`: each input's verdict
//! table in aligned plain-text columns, long cells cut to a width a terminal holds, then the
//! warnings one line per kind. A screenful, not the page: the reasoning behind each cell, the
//! notes and the charts are in `summary.md` and `index.html`, which the last lines name.

use super::document::{Block, Document};
use super::verdict::TIE;
use super::warnings::WarningGroup;
use crate::output::Table;

/// The widest a cell is shown, per verdict column (need, measured by, winner or tie,
/// runner-up, margin, raw floor): together about 150 columns. A cut cell ends in `…`; a tied
/// group is cut at whole names instead (see [`tied_names`]).
const WIDTHS: [usize; 6] = [26, 24, 28, 20, 44, 10];

/// The verdict columns whose brackets (a figure's min–max, a unit's detail) the terminal
/// leaves to the report: measured by, winner, runner-up, raw floor.
const WITHOUT_BRACKETS: [usize; 4] = [1, WINNER, 3, RAW_FLOOR];
/// The verdict's winner (or tied group) column.
const WINNER: usize = 2;
/// The verdict's raw floor column.
const RAW_FLOOR: usize = 5;

/// Every verdict of `document`, each under its caption's first sentence (which input, label
/// and how many runs).
pub fn verdicts(document: &Document) -> String {
    let mut out = String::new();
    for section in &document.sections {
        for block in &section.blocks {
            if let Block::Answer(answer) = block {
                out.push_str(&compact(&answer.verdict).ruled(&WIDTHS));
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

/// The verdict as the terminal shows it: under its caption's first sentence (which input, label
/// and how many runs), the figures without their brackets (min–max), a tied group by its names
/// alone, the margin's interval without its "95% CI" words (the report has them all).
fn compact(verdict: &Table) -> Table {
    let cell = |i: usize, text: &str| {
        if let Some(group) = text.strip_prefix(TIE).filter(|_| i == WINNER) {
            tied_names(group, WIDTHS[WINNER])
        } else if i == RAW_FLOOR {
            // The floor's own figure; what the aggregation alone costs is the report's.
            without_brackets(text.split(';').next().unwrap_or(text))
        } else if WITHOUT_BRACKETS.contains(&i) {
            without_brackets(text)
        } else {
            text.replace("(95% CI ", "(")
        }
    };
    Table {
        caption: first_sentence(&verdict.caption).replace(" (min–max)", ""),
        left: verdict.left,
        header: verdict.header.clone(),
        rows: verdict
            .rows
            .iter()
            .map(|r| r.iter().enumerate().map(|(i, c)| cell(i, c)).collect())
            .collect(),
    }
}

/// A tied group's names without their figures (`wincode 116.9, borsh 138.8` gives `tie:
/// wincode, borsh`), as many whole names as fit in `max` and then how many more: a name cut
/// short would read as another format.
fn tied_names(group: &str, max: usize) -> String {
    let names: Vec<&str> = group
        .split(", ")
        .map(|e| e.rsplit_once(' ').map_or(e, |(name, _figure)| name))
        .collect();
    let shown = |k: usize| {
        let more = names.len() - k;
        let tail = if more > 0 {
            format!(", {more} more")
        } else {
            String::new()
        };
        format!("{TIE}{}{tail}", names[..k].join(", "))
    };
    (1..=names.len())
        .rev()
        .map(shown)
        .find(|s| s.chars().count() <= max)
        .unwrap_or_else(|| shown(1))
}

/// `text` without any ` (...)` in it (nested brackets included).
fn without_brackets(text: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    let words = out.split_whitespace().collect::<Vec<_>>().join(" ");
    words.replace(" ;", ";").replace(" ,", ",")
}

/// Up to and including the first ". " (a caption's first sentence), or all of it.
fn first_sentence(text: &str) -> &str {
    match text.find(". ") {
        Some(at) => &text[..=at],
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A winner's row (the selective decode, with the aggregation's cost) and a tie of eight.
    fn verdict() -> Table {
        let rows = [
            [
                "fastest selective decode",
                "de batch, ns/packet",
                "sbe: 55.8 (49.7–66.1)",
                "wincode: 64.2 (56.6–70.4)",
                "1.14x (95% CI 1.09–1.20x, 6 runs); 1.35x above the aggregation's 31 ns",
                "37.6 (30.1–40.2); aggregation alone 31",
            ],
            [
                "fastest encode",
                "ser batch, ns/packet",
                "tie: wincode 89.9, borsh 102.6, sbe 104.1, rkyv 105, postcard 110.2, \
                 capnp-unpacked 112, msgpack 115.3, protobuf 120.9",
                "-",
                "tie: 1.14x (95% CI 0.95–1.37x, 6 runs) ≤ 5.0%",
                "80.3",
            ],
        ];
        Table {
            caption: "DEEP10.pcap.gz [normal]: median of 6 runs (min–max). Ranked by ...".into(),
            left: 6,
            header: crate::report::verdict::HEADER.map(String::from).to_vec(),
            rows: rows.map(|r| r.map(String::from).to_vec()).to_vec(),
        }
    }

    #[test]
    fn a_verdict_is_aligned_columns_with_long_cells_cut() {
        let text = compact(&verdict()).ruled(&WIDTHS);
        assert!(
            text.starts_with("DEEP10.pcap.gz [normal]: median of 6 runs.\n"),
            "{text}"
        );
        let lines: Vec<&str> = text.lines().skip(1).collect();
        assert_eq!(lines.len(), 4, "{text}");
        assert!(lines[0].starts_with("need            "), "{text}");
        assert!(lines[1].starts_with("------------------------  "), "{text}");
        // Every column starts where the header's does.
        let winner = lines[0].find("winner or tie").unwrap();
        assert_eq!(lines[2][winner..].split("  ").next(), Some("sbe: 55.8"));
        // The margin with the aggregation's words is 63 characters: cut to the column's 44.
        let margin = lines[2]
            .split("  ")
            .find(|c| c.starts_with("1.14x"))
            .unwrap();
        assert_eq!(margin.chars().count(), WIDTHS[4]);
        assert!(margin.ends_with('…'), "{margin}");
        assert!(lines[2].ends_with("37.6"), "{text}");
    }

    /// A tie shows who is tied, by whole names, and its margin whole: the one-line form fits.
    #[test]
    fn a_tied_group_is_cut_at_whole_names() {
        let c = compact(&verdict());
        // Eight names: "tie: wincode, borsh, sbe, 5 more" is 32 characters, over the 28 of the
        // column; "tie: wincode, borsh, 6 more" is 27.
        assert_eq!(c.rows[1][2], "tie: wincode, borsh, 6 more");
        assert_eq!(c.rows[1][3], "-");
        assert_eq!(c.rows[1][4], "tie: 1.14x (0.95–1.37x, 6 runs) ≤ 5.0%");
        let text = c.ruled(&WIDTHS);
        let tie = text.lines().nth(4).unwrap();
        assert!(tie.contains("  tie: wincode, borsh, 6 more  "), "{text}");
        assert!(
            tie.contains("  tie: 1.14x (0.95–1.37x, 6 runs) ≤ 5.0%  "),
            "{text}"
        );
        assert!(!tie.contains('…'), "{text}");
        // A group that fits is shown whole; a first name too long for the width is left to the
        // column's cut.
        assert_eq!(
            tied_names("wincode 116.9, borsh 138.8", 28),
            "tie: wincode, borsh"
        );
        assert_eq!(
            tied_names("rkyv-unchecked ‡ 80, sbe 90", 28),
            "tie: rkyv-unchecked ‡, sbe"
        );
        assert_eq!(
            tied_names("capnp-unpacked 1, capnp-packed 2", 12),
            "tie: capnp-unpacked, 1 more"
        );
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
    fn the_terminal_drops_the_ranges_the_report_keeps() {
        assert_eq!(
            without_brackets("wincode: 83.9 (62.3–106.1)"),
            "wincode: 83.9"
        );
        assert_eq!(
            without_brackets("32.6 (26.8–36.3); aggregation alone 37.1"),
            "32.6; aggregation alone 37.1"
        );
        assert_eq!(without_brackets("a (b (c) d) e"), "a e");
        let mut v = verdict();
        v.rows[0][4] = "1.31x (95% CI 1.10–1.55x, 6 runs)".into();
        let c = compact(&v);
        assert_eq!(c.rows[0][2], "sbe: 55.8");
        assert_eq!(c.rows[0][3], "wincode: 64.2");
        assert_eq!(c.rows[0][4], "1.31x (1.10–1.55x, 6 runs)");
        assert_eq!(c.rows[0][5], "37.6");
    }
}
