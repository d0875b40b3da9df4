//! Figures per IEX message type, and the verdict for another feed's mix of types.
//!
//! A `--unit message` run writes, beside each format's row, one row per message type it timed
//! (`msg_type` set; `export::csv`). Each type's rows are reduced and ranked the way a section's
//! are ([`summarize`], the verdict's rule with the same type's A/A twins for its resolution), so
//! the fastest per type is named only where the runs resolve one.
//!
//! `report --mix add_order=0.45,...` (or `--mix-like CAPTURE`, the shares `inspect` counts)
//! re-weights those figures: each run's figure for a format is Σ share × its p50 of each type.
//! That is a re-weighting of IEX messages measured one at a time, not a measurement of a feed
//! with that mix (whose messages would meet each other in the caches), and the report says so.

use std::collections::BTreeMap;
use std::path::Path;

use super::decision::Decision;
use super::load::{RunRow, Runs};
use super::stats::{summarize, Summary};
use super::verdict::{self, Need, Verdict};
use crate::measure::{PerWorkload, Workload};
use crate::model::kind;
use crate::output::Table;

/// The types the per-type table shows: the most frequent.
pub const SHOWN_TYPES: usize = 8;

/// What a mix's verdict ranks: the figures a sum of per-type figures can give. A tail is not a
/// sum of tails, and the size as stored was measured over whole windows.
pub const MIX_NEEDS: [Need; 5] = [
    Need::Speed,
    Need::Encode,
    Need::SelectiveDecode,
    Need::CompleteDecode,
    Need::Wire,
];

/// One message type's rows of one section, reduced as a section of its own.
#[derive(Debug, Clone)]
pub struct TypeSummary {
    pub kind: u8,
    /// Messages of the type timed one by one in a run (the median over the runs of one format).
    pub messages: f64,
    pub summary: Summary,
}

/// The per-type figures of one input and label.
#[derive(Debug, Clone)]
pub struct TypeSection {
    pub input: String,
    pub label: String,
    /// Most messages first.
    pub types: Vec<TypeSummary>,
    /// Every per-type row of the section, for re-weighting.
    rows: Vec<RunRow>,
}

/// What the report shows per message type: each section's per-type figures, and the mix
/// asked for re-weighted over them.
#[derive(Debug, Clone, Default)]
pub struct Types {
    pub sections: Vec<TypeSection>,
    pub mix: Option<(Mix, Vec<MixSection>)>,
}

impl Types {
    /// The per-type rows of `runs`, and `mix` over them; a mix is refused where no run timed
    /// messages by type.
    pub fn of(runs: &Runs, mix: Option<Mix>) -> Result<Types, String> {
        let sections = sections(runs);
        if mix.is_some() && sections.is_empty() {
            return Err(
                "--mix: the results have no figures per message type: they come from \
                        runs timed per message (`run --unit message`, `bench --unit message`)"
                    .to_owned(),
            );
        }
        let mix = mix.map(|m| {
            let each = reweigh(&sections, &m);
            (m, each)
        });
        Ok(Types { sections, mix })
    }
}

/// The sections of `runs`' per-type rows, in (input, label) order.
pub fn sections(runs: &Runs) -> Vec<TypeSection> {
    let mut by_section: BTreeMap<(&str, &str), Vec<&RunRow>> = BTreeMap::new();
    for r in &runs.by_type {
        by_section
            .entry((&r.input_name, &r.label))
            .or_default()
            .push(r);
    }
    by_section
        .into_iter()
        .map(|((input, label), rows)| {
            let mut by_kind: BTreeMap<u8, Vec<RunRow>> = BTreeMap::new();
            for r in &rows {
                if let Some(k) = r.msg_type() {
                    by_kind.entry(k).or_default().push((*r).clone());
                }
            }
            let mut types: Vec<TypeSummary> = by_kind
                .into_iter()
                .map(|(kind, rows)| TypeSummary {
                    kind,
                    messages: messages(&rows),
                    summary: summarize(&Runs {
                        sources: runs.sources.clone(),
                        rows,
                        by_type: Vec::new(),
                    }),
                })
                .collect();
            types.sort_by(|a, b| b.messages.total_cmp(&a.messages).then(a.kind.cmp(&b.kind)));
            TypeSection {
                input: input.to_owned(),
                label: label.to_owned(),
                types,
                rows: rows.into_iter().cloned().collect(),
            }
        })
        .collect()
}

/// Messages of one type timed per run: the median over the runs of the first format (every
/// format times the same messages).
fn messages(rows: &[RunRow]) -> f64 {
    let first = &rows[0].format;
    let units: Vec<f64> = (rows.iter())
        .filter(|r| &r.format == first)
        .map(|r| r.units.unwrap_or(0.0))
        .collect();
    super::stats::Stat::of(&units).median
}

/// A type as the report names it: `add_order (a)`.
pub fn type_label(k: u8) -> String {
    match kind::name(k) {
        Some(name) => format!("{name} ({})", char::from(k)),
        None => crate::profile::type_name(k),
    }
}

/// The verdict's rule on one section of groups for `needs`, among the formats `decision` ranks.
fn verdicts(summary: &Summary, decision: &Decision, needs: &[Need]) -> Vec<Verdict> {
    let Some((input, label, groups)) = summary.sections().into_iter().next() else {
        return Vec::new();
    };
    let ranked = decision.rankable(&groups);
    verdict::verdicts_on(&ranked, &summary.twin_pairs(input, label), needs)
}

impl TypeSummary {
    /// The fastest of this type by ser + decode, where the runs resolve one.
    pub fn fastest(&self, decision: &Decision) -> Option<Verdict> {
        verdicts(&self.summary, decision, &[Need::Speed]).pop()
    }
}

/// A verdict's answer in one cell: the winner, or the tie's group.
pub fn answer_cell(v: &Verdict) -> String {
    match v.named_winner() {
        Some(w) => w.to_owned(),
        None => {
            let tied: Vec<&str> = v.tied().into_iter().map(|(f, _)| f).collect();
            match tied.is_empty() {
                true => "-".to_owned(),
                false => format!("{}{}", verdict::TIE, tied.join(", ")),
            }
        }
    }
}

/// The per-type table of a section: the most frequent types as rows, each ranked format's ser +
/// decode per message as columns (median over runs), and the fastest under the verdict's rule.
pub fn table(section: &TypeSection, decision: &Decision) -> Option<Table> {
    let first = section.types.first()?;
    let formats: Vec<String> = match first.summary.sections().into_iter().next() {
        Some((_, _, groups)) => (decision.rankable(&groups).iter())
            .map(|g| g.format.clone())
            .collect(),
        None => return None,
    };
    let basis = first.summary.groups.first().map(|g| g.basis)?;
    // The answer next to the type, before the many formats' columns (which scroll on a page).
    let mut header = vec!["type", "fastest", "messages"];
    header.extend(formats.iter().map(String::as_str));
    let mut t = Table::new(
        format!(
            "Per message type, {}: {}, ns per message, median of the runs, for the {} most \
             frequent types (of {}). Fastest: the verdict's rule on each type's runs alone \
             (paired by run, the resolution from the same type's A/A twins).",
            super::stats::section_name(&section.input, &section.label),
            basis.sum_name(),
            SHOWN_TYPES.min(section.types.len()),
            section.types.len()
        ),
        2,
        &header,
    );
    for ty in section.types.iter().take(SHOWN_TYPES) {
        let fastest = ty
            .fastest(decision)
            .map_or("-".to_owned(), |v| answer_cell(&v));
        let mut row = vec![type_label(ty.kind), fastest, format!("{:.0}", ty.messages)];
        row.extend(formats.iter().map(|f| {
            (ty.summary.groups.iter())
                .find(|g| &g.format == f)
                .map_or("-".to_owned(), |g| super::stats::trim(g.speed.median))
        }));
        t.rows.push(row);
    }
    Some(t)
}

/// Shares of message types, normalized to sum to 1: another feed's mix.
#[derive(Debug, Clone, PartialEq)]
pub struct Mix {
    /// Type byte and share, in the order given.
    pub shares: Vec<(u8, f64)>,
    /// Where the shares came from, as the report says it: `given` or `like FILE`.
    pub from: String,
}

impl Mix {
    /// `add_order=0.45,order_delete=0.35,T=0.1`: names (or a word of one that no other type
    /// name has), or type bytes, each with a share; the shares are normalized.
    pub fn parse(text: &str) -> Result<Mix, String> {
        let mut shares: Vec<(u8, f64)> = Vec::new();
        for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (name, share) = item
                .split_once('=')
                .ok_or_else(|| format!("--mix: {item:?} is not TYPE=SHARE"))?;
            let k = type_named(name.trim())?;
            let share: f64 = (share.trim().parse().ok())
                .filter(|s: &f64| s.is_finite() && *s >= 0.0)
                .ok_or_else(|| {
                    format!("--mix: the share of {name} ({share}) is not a number ≥ 0")
                })?;
            if shares.iter().any(|(x, _)| *x == k) {
                return Err(format!("--mix: {} is given twice", type_label(k)));
            }
            shares.push((k, share));
        }
        Mix::normalized(shares, "given".to_owned())
    }

    /// The mix of the messages in `capture`, as `inspect` counts them.
    pub fn like(capture: &Path) -> Result<Mix, String> {
        let seen = crate::inspect::inspect(capture, true).map_err(|e| e.to_string())?;
        let shares = (seen.profile.type_counts.iter())
            .filter(|(k, _)| kind::wire_len(*k).is_some())
            .map(|&(k, n)| (k, n as f64))
            .collect();
        Mix::normalized(shares, format!("like {}", capture.display()))
    }

    fn normalized(mut shares: Vec<(u8, f64)>, from: String) -> Result<Mix, String> {
        let total: f64 = shares.iter().map(|(_, s)| s).sum();
        if total <= 0.0 {
            return Err(format!(
                "--mix: the mix ({from}) has no message with a share above 0"
            ));
        }
        shares.retain(|(_, s)| *s > 0.0);
        shares.iter_mut().for_each(|(_, s)| *s /= total);
        Ok(Mix { shares, from })
    }

    /// `add_order (a) 45%, order_delete (R) 35%`.
    pub fn text(&self) -> String {
        (self.shares.iter())
            .map(|(k, s)| format!("{} {}%", type_label(*k), super::stats::trim(s * 100.0)))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The type byte a name in `--mix` stands for: a type byte, a whole name (`add_order`), or a
/// word of exactly one name (`add`, `delete`).
fn type_named(name: &str) -> Result<u8, String> {
    let all = || kind::ALL.iter().filter_map(|&k| Some((k, kind::name(k)?)));
    if let [b] = name.as_bytes() {
        if kind::wire_len(*b).is_some() {
            return Ok(*b);
        }
    }
    let lower = name.to_ascii_lowercase();
    if let Some((k, _)) = all().find(|(_, n)| *n == lower) {
        return Ok(k);
    }
    let matches: Vec<(u8, &str)> = all()
        .filter(|(_, n)| n.split('_').any(|w| w == lower))
        .collect();
    match matches[..] {
        [(k, _)] => Ok(k),
        [] => Err(format!(
            "--mix: no IEX message type is called {name:?} (types: {})",
            all().map(|(_, n)| n).collect::<Vec<_>>().join(", ")
        )),
        _ => Err(format!(
            "--mix: {name:?} names more than one type ({}): give the whole name",
            matches
                .iter()
                .map(|(_, n)| *n)
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// A section's runs re-weighted to a mix.
#[derive(Debug, Clone)]
pub struct MixSection {
    pub input: String,
    pub label: String,
    /// The mix's types the section never timed, with their shares: no verdict without them.
    pub missing: Vec<(u8, f64)>,
    /// The re-weighted runs as a section (empty when types are missing).
    pub summary: Option<Summary>,
    /// The same re-weighting with the input's own mix (each type's share of the messages timed):
    /// what the mix's verdict is set beside.
    pub own: Option<Summary>,
}

impl MixSection {
    /// One line: the fastest with this mix beside the fastest with the input's own, or why
    /// there is no verdict.
    pub fn finding(&self, decision: &Decision) -> Option<String> {
        let name = super::stats::section_name(&self.input, &self.label);
        if !self.missing.is_empty() {
            let missing: Vec<String> = (self.missing.iter())
                .map(|(k, s)| format!("{} ({:.0}%)", type_label(*k), s * 100.0))
                .collect();
            return Some(format!(
                "{name}: no verdict for this mix: its runs timed no {}",
                missing.join(", ")
            ));
        }
        // Only the first need is said here: the table under it has the rest.
        let fastest = |s: &Option<Summary>| verdicts(s.as_ref()?, decision, &[Need::Speed]).pop();
        let (v, o) = (fastest(&self.summary)?, fastest(&self.own)?);
        Some(format!(
            "{name}: {} with this mix: {}; with the input's own mix: {}",
            v.need.name(),
            answer_cell(&v),
            answer_cell(&o)
        ))
    }

    /// The verdict for the mix, every need a sum of per-type figures can give ([`MIX_NEEDS`]).
    pub fn verdicts(&self, decision: &Decision) -> Vec<Verdict> {
        (self.summary.as_ref()).map_or(Vec::new(), |s| verdicts(s, decision, &MIX_NEEDS))
    }
}

/// Every section with per-type rows, re-weighted to `mix`.
pub fn reweigh(sections: &[TypeSection], mix: &Mix) -> Vec<MixSection> {
    sections
        .iter()
        .map(|s| {
            let timed = |k: u8| s.types.iter().any(|t| t.kind == k);
            let missing: Vec<(u8, f64)> = (mix.shares.iter().copied())
                .filter(|(k, _)| !timed(*k))
                .collect();
            let total: f64 = s.types.iter().map(|t| t.messages).sum();
            let own: Vec<(u8, f64)> = (s.types.iter())
                .map(|t| (t.kind, t.messages / total.max(1.0)))
                .collect();
            MixSection {
                input: s.input.clone(),
                label: s.label.clone(),
                summary: missing.is_empty().then(|| s.reweighed(&mix.shares)),
                own: Some(s.reweighed(&own)),
                missing,
            }
        })
        .collect()
}

impl TypeSection {
    /// Each format's runs re-weighted to `shares` (every type of which the section timed), as a
    /// section: a run of a format that lacks one of the types is left out.
    fn reweighed(&self, shares: &[(u8, f64)]) -> Summary {
        let mut by_run: BTreeMap<(&str, &str), BTreeMap<u8, &RunRow>> = BTreeMap::new();
        for r in &self.rows {
            if let Some(k) = r.msg_type() {
                by_run
                    .entry((&r.format, &r.run_id))
                    .or_default()
                    .insert(k, r);
            }
        }
        let rows = by_run
            .values()
            .filter_map(|types| {
                let parts: Option<Vec<(&RunRow, f64)>> = (shares.iter())
                    .map(|(k, s)| types.get(k).map(|r| (*r, *s)))
                    .collect();
                Some(mixed(&parts?))
            })
            .collect();
        summarize(&Runs {
            sources: Vec::new(),
            rows,
            by_type: Vec::new(),
        })
    }
}

/// One run of one format re-weighted: every per-unit figure Σ share × the type's, the bytes
/// likewise. The units the figures rest on (what a percentile's samples are judged by) are the
/// mix's messages its least sampled type supports: the fewest of each type's units over its
/// share (a type of 1% timed 300 times supports a mix of 30,000 messages).
fn mixed(parts: &[(&RunRow, f64)]) -> RunRow {
    let mut out = parts[0].0.clone();
    out.latency = PerWorkload(Workload::ALL.map(|w| {
        let each: Option<Vec<([f64; 7], f64)>> = parts
            .iter()
            .map(|(r, s)| Some((r.latency[w]?, *s)))
            .collect();
        each.map(|each| std::array::from_fn(|i| each.iter().map(|(l, s)| l[i] * s).sum()))
    }));
    out.units = (parts.iter())
        .map(|(r, s)| Some(r.units? / s))
        .collect::<Option<Vec<f64>>>()
        .and_then(|u| u.into_iter().reduce(f64::min));
    out.row.bytes_per_message = parts.iter().map(|(r, s)| r.bytes_per_message * s).sum();
    out.row.msg_type = None;
    out
}
