//! The decision beyond speed: each format's capabilities (`formats.json`, written by `shootout
//! formats` or bench) beside the figures, and the verdict among the formats that meet the
//! requirements a team states (`report --require`), with the reason each other one is left out.

use std::path::{Path, PathBuf};

use super::error::ReportError;
use super::stats::{Group, RAW};
use crate::capability::finding::is_yes;
use crate::capability::{Requirement, Row};
use crate::export::capabilities;
use crate::export::caveat::{Caveat, Caveats};
use crate::output::Table;

/// What the report knows of the formats besides their figures, and what was required of them.
#[derive(Debug, Clone, Default)]
pub struct Decision {
    /// The rows of `formats.json`, where one was found.
    pub capabilities: Option<Vec<Row>>,
    /// Where they were read from.
    pub source: Option<PathBuf>,
    /// What `--require` asked for (empty: the unconstrained verdict).
    pub require: Vec<Requirement>,
    /// The caveats whose formats the verdict ranks too, which it otherwise leaves out
    /// ([`Caveat::left_out`]): `--trusted-producer`, `--lossy`.
    pub admitted: Caveats,
}

impl Decision {
    /// The capabilities from `given`, or else from `formats.json` beside the first CSV that has
    /// one. Requirements need them: without, they are refused with what to run.
    pub fn load(
        csvs: &[PathBuf],
        given: Option<&Path>,
        require: Vec<Requirement>,
    ) -> Result<Decision, ReportError> {
        let beside = || {
            csvs.iter()
                .map(|c| {
                    c.parent()
                        .unwrap_or(Path::new("."))
                        .join(capabilities::FILE)
                })
                .find(|p| p.is_file())
        };
        let source = given.map(Path::to_path_buf).or_else(beside);
        let rows = match &source {
            Some(path) => Some(capabilities::read(path).map_err(|e| ReportError::new(path, e))?),
            None if !require.is_empty() => {
                let at = csvs.first().map_or(Path::new("."), |c| c.as_path());
                return Err(ReportError::new(
                    at,
                    format!(
                        "--require needs the formats' capabilities: no {} beside the CSV \
                         (run `shootout formats --out DIR/{}`, or give --capabilities FILE)",
                        capabilities::FILE,
                        capabilities::FILE
                    ),
                ));
            }
            None => None,
        };
        Ok(Decision {
            capabilities: rows,
            source,
            require,
            admitted: Caveats::default(),
        })
    }

    fn row(&self, format: &str) -> Option<&Row> {
        self.capabilities
            .as_ref()?
            .iter()
            .find(|r| r.name == format)
    }

    /// Why `g`'s format fails the requirements; empty when it meets them all.
    pub fn unmet(&self, g: &Group) -> Vec<String> {
        let Some(row) = self.row(&g.format) else {
            return vec![format!("not in {}", capabilities::FILE)];
        };
        let allocs = busiest_side(g);
        self.require
            .iter()
            .filter_map(|r| r.unmet(row, allocs))
            .collect()
    }

    /// The caveats for which the verdict leaves `g` out: those behind a flag not given.
    fn left_out(&self, g: &Group) -> impl Iterator<Item = Caveat> + use<'_> {
        let admitted = self.admitted;
        (g.caveats().iter()).filter(move |c| c.left_out().is_some() && !admitted.has(*c))
    }

    /// The groups a verdict without requirements ranks (below the answer): all but those with a
    /// caveat the verdict leaves out unless asked.
    pub fn rankable<'a>(&self, groups: &[&'a Group]) -> Vec<&'a Group> {
        groups
            .iter()
            .copied()
            .filter(|g| self.left_out(g).next().is_none())
            .collect()
    }

    /// The groups the verdict ranks (raw always, as the floor), and each format left out with
    /// its reasons.
    pub fn eligible<'a>(
        &self,
        groups: &[&'a Group],
    ) -> (Vec<&'a Group>, Vec<(String, Vec<String>)>) {
        let mut kept = Vec::new();
        let mut left_out = Vec::new();
        for g in groups {
            let mut why = if self.require.is_empty() {
                Vec::new()
            } else {
                self.unmet(g)
            };
            let caveats = (self.left_out(g)).filter_map(|c| c.left_out().map(|l| l.why.to_owned()));
            why.splice(0..0, caveats);
            if why.is_empty() || g.format == RAW {
                kept.push(*g);
            }
            if !why.is_empty() {
                left_out.push((g.shown(), why));
            }
        }
        (kept, left_out)
    }

    /// The lines under the verdict: what was required and who was left out, then the
    /// capabilities of each format in `named` (the winners, then the tied formats: see
    /// [`super::verdict::named_formats`]).
    pub fn notes(&self, groups: &[&Group], named: &[String]) -> Vec<String> {
        let mut notes = window_notes(groups);
        let (kept, left_out) = self.eligible(groups);
        if self.require.is_empty() {
            // Only formats with a caveat can be left out: one line for each, lossy first.
            for c in [Caveat::Lossy, Caveat::TrustsProducer] {
                let Some(l) = c.left_out() else { continue };
                let names: Vec<&str> = (left_out.iter())
                    .filter(|(_, w)| w.iter().any(|w| w == l.why))
                    .map(|(f, _)| f.as_str())
                    .collect();
                if !names.is_empty() {
                    notes.push(format!("Left out: {}: {}.", names.join(", "), l.note));
                }
            }
        } else {
            let names: Vec<&str> = self.require.iter().map(|r| r.name()).collect();
            let kept: Vec<&str> = kept
                .iter()
                .filter(|g| g.format != RAW)
                .map(|g| g.format.as_str())
                .collect();
            notes.push(format!(
                "Required: {}. Ranked among {}: {}.",
                names.join(", "),
                super::stats::plural(kept.len(), "format"),
                if kept.is_empty() {
                    "none".to_string()
                } else {
                    kept.join(", ")
                }
            ));
            for (format, why) in left_out {
                let why: Vec<&str> = why.iter().map(|w| brief(w)).collect();
                notes.push(format!("Left out: {format}: {}.", why.join("; ")));
            }
        }
        for w in named {
            if let Some(row) = self.row(w) {
                notes.push(format!("{w}: {}.", summary(row)));
            }
        }
        notes
    }

    /// Every format's capabilities.
    pub fn table(&self, groups: &[&Group]) -> Option<Table> {
        let rows = self.capabilities.as_ref()?;
        let source = self
            .source
            .as_ref()
            .map_or(String::new(), |p| p.display().to_string());
        Some(Table {
            caption: format!(
                "What rules a format in or out besides speed, from {source}: yes or no per cell, \
                 * where documented rather than measured (every cell's answer and what decided it \
                 are in that file; `shootout formats` prints them). Evolution: a v1 reader reads \
                 v2 bytes exactly (v2→v1) and a v2 reader reads v1 bytes with the new fields' \
                 defaults (v1→v2), \"no (format yes)\" where the crate under test cannot and \
                 the format's reference implementation can, on the same bytes; read by: the \
                 languages whose reference implementation read every field of our bytes exactly."
            ),
            ..capabilities::table(rows, |r| super::stats::shown(groups, &r.name), "*")
        })
    }
}

/// A row's capabilities in a few words: `schema, zero-copy, validates, evolves both ways, read
/// by C++`, with what it lacks.
pub fn summary(row: &Row) -> String {
    let yes = |cell: &str| row.answer(cell).is_some_and(is_yes);
    let mut has = Vec::new();
    let mut lacks = Vec::new();
    for (cell, name) in [
        ("schema", "schema"),
        ("zero_copy", "zero-copy"),
        ("validates", "validates"),
    ] {
        (if yes(cell) { &mut has } else { &mut lacks }).push(name.to_string());
    }
    // Where the format's reference implementation evolves both ways, a lack is the crate's.
    let crate_only = row
        .evolution_format
        .as_ref()
        .filter(|f| f.forward.yes() && f.backward.yes())
        .map_or(String::new(), |f| {
            format!(
                " with {} (the format evolves: {})",
                f.crate_under_test, f.reference
            )
        });
    match (yes("evolution_forward"), yes("evolution_backward")) {
        (true, true) => has.push("evolves both ways".into()),
        (true, false) => {
            has.push("v1 reads v2".into());
            lacks.push(format!("v2 reading v1{crate_only}"));
        }
        (false, true) => {
            has.push("v2 reads v1".into());
            lacks.push(format!("v1 reading v2{crate_only}"));
        }
        (false, false) => lacks.push(format!("evolution{crate_only}")),
    }
    if row.read_by.is_empty() {
        lacks.push("other languages".into());
    } else {
        has.push(format!("read by {}", row.read_by.join(", ")));
    }
    let mut text = if has.is_empty() {
        "nothing beyond Rust".to_string()
    } else {
        has.join(", ")
    };
    if !lacks.is_empty() {
        text.push_str(&format!("; no {}", lacks.join(", no ")));
    }
    text
}

/// A reason without its closing parenthesis, which explains the mechanism at length
/// (`formats.json` keeps it whole).
fn brief(reason: &str) -> &str {
    let Some(body) = reason.strip_suffix(')') else {
        return reason;
    };
    let mut depth = 0;
    for (i, c) in body.char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' if depth == 0 => return body[..i].trim_end(),
            '(' => depth -= 1,
            _ => {}
        }
    }
    reason
}

/// The most a run of `g` allocated per unit on any side; `None` where no run counted.
fn busiest_side(g: &Group) -> Option<f64> {
    g.rows
        .iter()
        .filter_map(|r| r.allocs)
        .flat_map(|a| a.into_iter())
        .reduce(f64::max)
}

/// One line per format of `groups` timed only per window: it has no per-unit figure, so the
/// verdict ranks it on the batch figures and sizes only, never on a tail.
pub fn window_notes(groups: &[&Group]) -> Vec<String> {
    groups
        .iter()
        .filter_map(|g| g.latency_note())
        .map(|note| {
            format!(
                "{note}; ranked on the batch figures and sizes only, not on the tails ({}, {}).",
                super::verdict::Need::EncodeTail.name(),
                super::verdict::Need::DecodeTail.name(),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{brief, summary, Decision};
    use crate::export::caveat::{Caveat, Caveats};
    use crate::report::load::runs_of;
    use crate::report::stats::summarize;
    use crate::report::verification::tests::row;

    /// The verdict leaves out what the rows say trusts its producer or is lossy, each unless
    /// its flag lets it in; a name the registry knows plays no part.
    #[test]
    fn rows_are_left_out_by_their_own_columns() {
        let lossy = crate::export::csv::Row {
            lossy: Some(true),
            ..row("r1", "c", 10.0, false)
        };
        let rows = vec![
            row("r1", "a", 10.0, false),
            row("r1", "b", 10.0, true),
            lossy,
            row("r1", "rkyv-unchecked", 10.0, false),
        ];
        let summary = summarize(&runs_of(rows));
        let groups: Vec<_> = summary.groups.iter().collect();
        let ranked = |d: &Decision| -> Vec<String> {
            let mut f: Vec<String> = (d.rankable(&groups).iter())
                .map(|g| g.format.clone())
                .collect();
            f.sort();
            f
        };
        let mut d = Decision::default();
        assert_eq!(ranked(&d), ["a", "rkyv-unchecked"]);
        d.admitted = Caveats::default().with(Caveat::TrustsProducer);
        assert_eq!(ranked(&d), ["a", "b", "rkyv-unchecked"]);
        d.admitted = d.admitted.with(Caveat::Lossy);
        assert_eq!(ranked(&d), ["a", "b", "c", "rkyv-unchecked"]);
        let notes = Decision::default().notes(&groups, &[]);
        assert_eq!(
            notes[..2],
            [
                "Left out: c §: lossy (does not carry every IEX field, so its work is not the \
                 others'; its checks cover what it carries); report --lossy ranks it too.",
                "Left out: b ‡: each trusts its producer (decodes without verifying); report \
                 --trusted-producer ranks them too. What their verifiers cost: each section's \
                 table \"What verification costs\"."
            ]
        );
    }
    use crate::capability::evolution::FormatEvolution;
    use crate::capability::{Finding, Row};

    /// A lack of the crate's is said to be the crate's where the format's reference
    /// implementation evolves both ways, and not otherwise.
    #[test]
    fn a_summary_names_the_crate_that_cannot_evolve_where_the_format_can() {
        let f = |yes| Finding::measured(yes, "", "t");
        let row = Row::new(
            "sbe",
            [f(true), f(true), f(true), f(true), f(false)],
            vec![],
            &[],
        );
        assert_eq!(
            summary(&row),
            "schema, zero-copy, validates, v1 reads v2; no v2 reading v1, no other languages"
        );
        let format = |backward| FormatEvolution {
            reference: "SBE 1.34.0 Java decoders".into(),
            crate_under_test: "the SBE 1.34.0 Rust generator".into(),
            crate_defect: "d".into(),
            forward: f(true),
            backward: f(backward),
        };
        assert_eq!(
            summary(&row.clone().with_evolution_format(Some(format(true)))),
            "schema, zero-copy, validates, v1 reads v2; no v2 reading v1 with the SBE 1.34.0 \
             Rust generator (the format evolves: SBE 1.34.0 Java decoders), no other languages"
        );
        assert_eq!(
            summary(&row.clone().with_evolution_format(Some(format(false)))),
            summary(&row)
        );
    }

    #[test]
    fn a_reason_loses_only_its_closing_parenthesis() {
        assert_eq!(
            brief("no: stopped at packet 0 (seq 1) (no mechanism (none))"),
            "no: stopped at packet 0 (seq 1)"
        );
        assert_eq!(brief("no: plain"), "no: plain");
        assert_eq!(brief("unbalanced)"), "unbalanced)");
    }
}
