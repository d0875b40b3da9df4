//! `report NEW.csv --baseline OLD.csv`: each format against a baseline (two machines, two
//! versions, two days) as ratios, with the run-to-run spread of both sides, and "no change"
//! where the spreads overlap: a ratio of two medians alone would call noise a regression. The
//! two sides ran apart, so there is no per-run pairing here (unlike the verdict's margins).
//! What is compared is what the sections are ranked by: ser + de_all (see [`Basis`]).

use super::stats::{trim, Basis, Stat, Summary};
use super::tables::Table;
use super::verdict::{CLOCK_STEP_NS, TIE_STEPS};

/// One format against its baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// `input [label]` of the new side.
    pub section: String,
    pub format: String,
    /// What was compared: `ser + de_all batch`, `ser + de_all p50` or `ser + de p50` (the
    /// first both sides have, see [`Basis`]).
    pub basis: &'static str,
    pub new: Stat,
    pub old: Stat,
    /// New median over old median.
    pub ratio: f64,
    /// The range of that ratio the runs allow: new min over old max .. new max over old min.
    pub lo: f64,
    pub hi: f64,
    /// `no change`, `faster` or `slower`.
    pub call: &'static str,
    /// New bytes per message over old.
    pub size_ratio: f64,
}

/// Every format of the new runs matched with the baseline's.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub changes: Vec<Change>,
    /// `input [label] format` of the new runs without a baseline.
    pub unmatched: Vec<String>,
}

/// Matches by (input, label, format); when the two sides have one input each under other names
/// (two days), by (label, format).
pub fn compare(new: &Summary, old: &Summary) -> Comparison {
    let by_label =
        new.inputs().len() == 1 && old.inputs().len() == 1 && new.inputs() != old.inputs();
    let mut changes = Vec::new();
    let mut unmatched = Vec::new();
    for g in &new.groups {
        let section = super::stats::section_name(&g.input, &g.label);
        let Some(o) = old.groups.iter().find(|o| {
            o.format == g.format && o.label == g.label && (by_label || o.input == g.input)
        }) else {
            unmatched.push(format!("{section} {}", g.format));
            continue;
        };
        // Each side's runs' ser + decode on the first basis both have (the selective decode
        // always is).
        let (basis, n, b) = [Basis::Batch, Basis::P50, Basis::Selective]
            .into_iter()
            .find_map(|basis| Some((basis, g.speed_on(basis)?, o.speed_on(basis)?)))
            .expect("every row has ser and de p50");
        let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { f64::INFINITY };
        let overlap = n.min <= b.max && b.min <= n.max;
        // p50s move in clock steps: a few steps apart is no change whatever the spread.
        let within_steps =
            basis.quantized() && (n.median - b.median).abs() < TIE_STEPS * CLOCK_STEP_NS;
        let call = if overlap || within_steps {
            "no change"
        } else if n.median < b.median {
            "faster"
        } else {
            "slower"
        };
        changes.push(Change {
            section,
            format: g.format.clone(),
            basis: basis.sum_name(),
            ratio: ratio(n.median, b.median),
            lo: ratio(n.min, b.max),
            hi: ratio(n.max, b.min),
            new: n,
            old: b,
            call,
            size_ratio: ratio(g.bytes_per_message.median, o.bytes_per_message.median),
        });
    }
    Comparison { changes, unmatched }
}

fn spread(s: &Stat) -> String {
    format!("{} ({}–{})", trim(s.median), trim(s.min), trim(s.max))
}

/// The comparison as a table (also what `report --baseline` prints).
pub fn table(c: &Comparison) -> Table {
    Table {
        left: 3,
        caption: "Against the baseline: new over old, ns per unit (median, min–max across \
                  runs). The ratio's range is new min over old max to new max over old min; \
                  where the two sides' spreads overlap it is no change."
            .to_owned(),
        header: [
            "format",
            "section",
            "compared",
            "new",
            "baseline",
            "new / baseline",
            "change",
            "size new / baseline",
        ]
        .map(String::from)
        .to_vec(),
        rows: c
            .changes
            .iter()
            .map(|ch| {
                vec![
                    ch.format.clone(),
                    ch.section.clone(),
                    ch.basis.to_owned(),
                    spread(&ch.new),
                    spread(&ch.old),
                    format!("{:.2}x ({:.2}–{:.2}x)", ch.ratio, ch.lo, ch.hi),
                    ch.call.to_owned(),
                    format!("{:.2}x", ch.size_ratio),
                ]
            })
            .collect(),
    }
}

/// Plain text for the terminal: one line per format.
pub fn text(c: &Comparison) -> String {
    let mut out = String::from("against the baseline (new / baseline, ser + de_all):\n");
    for ch in &c.changes {
        out.push_str(&format!(
            "  {:<16} {:<40} {:.2}x ({:.2}–{:.2}x)  {}  [{}: {} vs {}]\n",
            ch.format,
            ch.section,
            ch.ratio,
            ch.lo,
            ch.hi,
            ch.call,
            ch.basis,
            trim(ch.new.median),
            trim(ch.old.median)
        ));
    }
    for u in &c.unmatched {
        out.push_str(&format!("  {u}: not in the baseline\n"));
    }
    out
}
