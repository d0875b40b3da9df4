//! Runs that differ only by label (`normal`, `taskset`, `nice`: the scheduling prefixes of
//! `shootout bench`) compared side by side: one table with each format's figures per label, and
//! whether pinning changed the ranking or the tails beyond the run-to-run spread. The per-label
//! sections repeat each other; this says what differs.

use super::stats::{is_pooled, trim, Group, Stat, Summary};
use super::tables::maybe_spread;
use crate::measure::Workload;
use crate::output::Table;

/// The comparison of one input's labels (of one unit).
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// The label the others are compared with (the primary's: `normal` when there is one).
    pub baseline: String,
    pub labels: Vec<String>,
    pub table: Table,
    /// Sentences: what changed the ranking, what moved the tails.
    pub findings: Vec<String>,
}

/// `a` clearly below `b`: their spreads do not overlap.
fn below(a: &Stat, b: &Stat) -> bool {
    a.max < b.min
}

/// The tails compared: each side's p99.9 on its own (a sum of two p99.9s is the p99.9 of
/// nothing), the decode's of the complete decode, as formats are ranked.
const TAILS: [(&str, &str); 2] = [("ser p99.9", "encode"), ("de_all p99.9", "decode")];

/// `g`'s tail `i` of [`TAILS`]; `None` when not measured or resting on too few samples.
fn tail(g: &Group, i: usize) -> Option<Stat> {
    if g.thin_at(0.999) {
        return None;
    }
    let workload = [Workload::Encode, Workload::Complete][i];
    g.latency(workload).map(|s| *s.p999())
}

/// One comparison per (input, unit) with more than one label.
pub fn compare(summary: &Summary) -> Vec<Comparison> {
    let mut out = Vec::new();
    for input in summary.inputs() {
        let order = summary.format_order(input);
        for unit in ["packet", "message"] {
            let sections: Vec<(&str, Vec<&Group>)> = summary
                .sections()
                .into_iter()
                .filter(|(i, l, gs)| *i == input && gs[0].unit == unit && !is_pooled(l))
                .map(|(_, l, gs)| (l, gs))
                .collect();
            if sections.len() < 2 {
                continue;
            }
            let baseline = summary
                .primary(input)
                .filter(|(_, l, gs)| gs[0].unit == unit && !is_pooled(l))
                .map_or(
                    sections
                        .iter()
                        .find(|(l, _)| *l == "normal")
                        .unwrap_or(&sections[0])
                        .0,
                    |(_, l, _)| l,
                );
            let mut sections = sections;
            sections.sort_by_key(|(l, _)| *l != baseline);
            out.push(comparison(input, unit, baseline, &sections, &order));
        }
    }
    out
}

fn comparison(
    input: &str,
    unit: &'static str,
    baseline: &str,
    sections: &[(&str, Vec<&Group>)],
    order: &[String],
) -> Comparison {
    let formats: Vec<&String> = order
        .iter()
        .filter(|f| sections.iter().any(|(_, gs)| find(gs, f).is_some()))
        .collect();
    let (_, base) = &sections[0];
    let findings = sections[1..]
        .iter()
        .flat_map(|(label, gs)| findings((baseline, base), (label, gs), &formats))
        .collect();
    Comparison {
        baseline: baseline.to_owned(),
        table: table(input, unit, sections, &formats),
        labels: sections.iter().map(|(l, _)| l.to_string()).collect(),
        findings,
    }
}

fn find<'a>(gs: &[&'a Group], f: &str) -> Option<&'a Group> {
    gs.iter().copied().find(|g| g.format == f)
}

/// Per format, each label's sum with the format's rank in the label, and its tails.
fn table(input: &str, unit: &str, sections: &[(&str, Vec<&Group>)], formats: &[&String]) -> Table {
    let rank = |gs: &[&Group], f: &str| gs.iter().position(|g| g.format == f).map(|i| i + 1);
    let mut header = vec!["format".to_owned()];
    for (label, gs) in sections {
        header.push(format!("{label}: {} ns (rank)", gs[0].basis.sum_name()));
        for (tail, _) in TAILS {
            header.push(format!("{label}: {tail}"));
        }
    }
    let rows = formats
        .iter()
        .map(|f| {
            let mut row = vec![(*f).clone()];
            for (_, gs) in sections {
                match find(gs, f) {
                    Some(g) => {
                        let s = g.speed;
                        row.push(format!(
                            "{} #{} ({}–{})",
                            trim(s.median),
                            rank(gs, f).unwrap_or(0),
                            trim(s.min),
                            trim(s.max)
                        ));
                        row.extend((0..TAILS.len()).map(|i| maybe_spread(&tail(g, i))));
                    }
                    None => row.extend(["-"; 1 + TAILS.len()].map(String::from)),
                }
            }
            row
        })
        .collect();
    Table {
        left: 1,
        caption: format!(
            "{input}: the same runs under each scheduling label, side by side (ns per {unit}, \
             median across runs, min–max in brackets; # the rank within the label). The sum \
             is what each label's section ranks by; a tail is left out (-) where it rests \
             on too few samples or was not measured."
        ),
        header,
        rows,
    }
}

/// One label against the baseline label: whether the ranking changed, then each tail.
fn findings(
    (baseline, base): (&str, &[&Group]),
    (label, gs): (&str, &[&Group]),
    formats: &[&String],
) -> Vec<String> {
    let swaps = swaps(base, gs, formats);
    let sum = gs[0].basis.sum_name();
    let mut findings = vec![if swaps.is_empty() {
        format!(
            "{label} against {baseline}: the ranking by {sum} is the same beyond the \
             run-to-run spread."
        )
    } else {
        format!(
            "{label} against {baseline}: the ranking changed beyond the spread: {}.",
            swaps.join(", ")
        )
    }];
    let list = |v: &[String]| {
        if v.is_empty() {
            "none".to_owned()
        } else {
            format!("{} ({})", v.len(), v.join(", "))
        }
    };
    for (i, (tail_name, side)) in TAILS.into_iter().enumerate() {
        let (mut lower, mut higher, mut changes) = (Vec::new(), Vec::new(), Vec::new());
        for f in formats {
            let (Some(tb), Some(tl)) = (
                find(base, f).and_then(|g| tail(g, i)),
                find(gs, f).and_then(|g| tail(g, i)),
            ) else {
                continue;
            };
            if tb.median > 0.0 {
                changes.push(tl.median / tb.median - 1.0);
            }
            if below(&tl, &tb) {
                lower.push((*f).clone());
            } else if below(&tb, &tl) {
                higher.push((*f).clone());
            }
        }
        if changes.is_empty() {
            continue;
        }
        changes.sort_by(f64::total_cmp);
        let median = changes[changes.len() / 2];
        findings.push(format!(
            "{label} against {baseline}: {side} tails ({tail_name}) lower beyond the spread \
             for {}, higher for {}, of {} formats; median change {:+.0}%.",
            list(&lower),
            list(&higher),
            changes.len(),
            100.0 * median
        ));
    }
    findings
}

/// The pairs of formats ranked the other way round under `gs` than under `base`: a pair counts
/// only when both labels separate it beyond the spread.
fn swaps(base: &[&Group], gs: &[&Group], formats: &[&String]) -> Vec<String> {
    let mut swaps = Vec::new();
    for (i, a) in formats.iter().enumerate() {
        for b in &formats[i + 1..] {
            let (Some(ba), Some(bb), Some(la), Some(lb)) =
                (find(base, a), find(base, b), find(gs, a), find(gs, b))
            else {
                continue;
            };
            let (ba, bb, la, lb) = (ba.speed, bb.speed, la.speed, lb.speed);
            if (below(&ba, &bb) && below(&lb, &la)) || (below(&bb, &ba) && below(&la, &lb)) {
                let (first, second) = if below(&la, &lb) { (a, b) } else { (b, a) };
                swaps.push(format!("{first} ahead of {second}"));
            }
        }
    }
    swaps
}
