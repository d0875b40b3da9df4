//! Warnings summed up by what they are about: one line per kind with its count, the single
//! warnings behind it for whoever opens the details. Thirty lines of "CV above 10%" before the
//! first figure bury the figures; one line saying where the variation is informs.

use std::collections::BTreeMap;

use super::stats::{
    is_pooled, plural, Group, Summary, Warning, WarningKind, MAX_CV_PCT, MIN_RUNS, MIN_TAIL_SAMPLES,
};

/// Every warning of one kind.
#[derive(Debug, Clone, PartialEq)]
pub struct WarningGroup {
    pub kind: WarningKind,
    /// One line: what, how many, and what it means.
    pub summary: String,
    pub details: Vec<String>,
}

/// The warnings grouped by kind, in [`WarningKind`] order.
pub fn group(warnings: &[Warning], summary: &Summary) -> Vec<WarningGroup> {
    let mut by_kind: BTreeMap<WarningKind, Vec<&Warning>> = BTreeMap::new();
    for w in warnings {
        by_kind.entry(w.kind).or_default().push(w);
    }
    // A pooled section repeats its labels' rows: counted once, in their own sections.
    let own = |g: &&Group| !is_pooled(&g.label);
    let groups = summary.groups.iter().filter(own).count();
    let rows: usize = summary
        .groups
        .iter()
        .chain(&summary.twins)
        .filter(own)
        .map(|g| g.runs)
        .sum();
    let sections = (summary.sections().iter())
        .filter(|(_, l, _)| !is_pooled(l))
        .count();
    let files = summary.sources.len();
    by_kind
        .into_iter()
        .map(|(kind, ws)| {
            let n = ws.len();
            let summary = match kind {
                WarningKind::TwinApart | WarningKind::Preempted | WarningKind::Retimed => {
                    issue39_summary(kind, n, rows)
                }
                WarningKind::TimedFaults => format!(
                    "Minor page faults inside timed regions in {n} of {rows} results rows of \
                     formats that allocate nothing there (one format in one run each; 0 \
                     expected): a fault costs microseconds, so the tails there measure the \
                     harness, not the format."
                ),
                WarningKind::OwnFaults => format!(
                    "Minor page faults inside timed regions in {n} of {rows} results rows of \
                     formats that allocate there: the allocator growing its heap, a cost of the \
                     format's own allocations, so its tails keep them (a format that allocates \
                     nothing does not pay it)."
                ),
                WarningKind::CutShort => format!(
                    "{} cut short at its end read with --lenient: the figures are those of its \
                     whole packets.",
                    plural(n, "capture")
                ),
                WarningKind::FewRuns => format!(
                    "Fewer than {MIN_RUNS} runs behind {n} of {groups} format rows: a median of \
                     fewer says little about the spread, so margins and ties there are rough."
                ),
                WarningKind::HighVariation => format!(
                    "CV above {MAX_CV_PCT}% in {n} of {groups} format rows (run-to-run \
                     variation), mostly {}. Percentiles with fewer than {MIN_TAIL_SAMPLES:.0} samples beyond \
                     them in a run (and max, one sample) vary as expected and are not counted: \
                     the tables mark them †.",
                    most_common(&ws)
                ),
                WarningKind::TimerOverhead => format!(
                    "The timer's own cost is a large share of the smallest median in {n} of \
                     {}: read the batch figures there, not p50.",
                    plural(sections, "section")
                ),
                WarningKind::AboveFloor => format!(
                    "raw is well above the memcpy floor in {n} of {}: the machine was busy or \
                     the loop costs more than the copy.",
                    plural(sections, "section")
                ),
                WarningKind::Governor => format!(
                    "The CPU frequency governor was not `performance` (or not recorded) for \
                     {n} of {}: clock speed may have moved during the runs.",
                    plural(files, "results file")
                ),
                WarningKind::Duplicates => format!(
                    "Rows read twice and counted once in {}.",
                    plural(n, "file")
                ),
                WarningKind::NoHistograms => format!(
                    "No histograms for {n} of {}: no distribution chart there (pass \
                     --hist-dir).",
                    plural(sections, "section")
                ),
            };
            WarningGroup {
                kind,
                summary,
                details: ws.iter().map(|w| w.message.clone()).collect(),
            }
        })
        .collect()
}

/// The summary lines of the kinds issue 39 added: a twin called apart, preemptions, retimed
/// passes.
fn issue39_summary(kind: WarningKind, n: usize, rows: usize) -> String {
    match kind {
        WarningKind::TwinApart => format!(
            "THE METHOD IS BROKEN: {n} A/A twin figure{} called apart from {} own copy \
             (the same code measured twice): two copies of one codec land further apart \
             than the other twins' gaps allow, so a winner at this resolution is not to be \
             trusted. More runs make such a gap more certain, not smaller; compare the twins' \
             tables, and on a busy machine run again.",
            if n == 1 { "" } else { "s" },
            if n == 1 { "its" } else { "their" }
        ),
        WarningKind::Preempted => format!(
            "Involuntary context switches inside timed passes in {n} of {rows} results \
             rows: another task took the CPU while a format was timed."
        ),
        WarningKind::Retimed => format!(
            "Batch passes timed again after a context switch in {n} of {rows} results \
             rows: the figures are the retimed passes'."
        ),
        _ => String::new(),
    }
}

/// `in ser p99 (12), de p99.9 (9) and de batch (3)`: the columns flagged most often, by count.
fn most_common(ws: &[&Warning]) -> String {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for w in ws {
        for c in &w.columns {
            *counts.entry(c.as_str()).or_default() += 1;
        }
    }
    let mut by_count: Vec<(&str, usize)> = counts.into_iter().collect();
    by_count.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let top: Vec<String> = by_count
        .iter()
        .take(3)
        .map(|(c, n)| format!("{c} ({n})"))
        .collect();
    match top.len() {
        0 => "in no named column".to_owned(),
        1 => format!("in {}", top[0]),
        _ => format!(
            "in {} and {}",
            top[..top.len() - 1].join(", "),
            top[top.len() - 1]
        ),
    }
}
