//! Instructions per unit beside the times, never as one (`measure::instructions`): a table
//! per section, and `report NEW --baseline OLD --fail-if-more-instructions PCT`, a gate on a
//! figure that does not move with the machine's noise. Counts of two sources (the CPU's counter,
//! Callgrind) are never compared: they count different things around the same passes (Callgrind
//! every guest instruction, the counter retired user-space instructions).

use super::load::RunRow;
use super::stats::{is_pooled, section_name, Group, Stat, Summary};
use crate::measure::instructions::Source;
use crate::measure::Workload;
use crate::output::Table;

/// A group's source and, per workload, its instructions per unit across the runs that counted
/// them with that source (the first run's source; a run of the other is left out).
fn counted(g: &Group) -> Option<(Source, [Stat; 3])> {
    let source = g.rows.iter().find_map(|r| r.instructions)?.0;
    let runs: Vec<&[f64; 3]> = g
        .rows
        .iter()
        .filter_map(|r: &RunRow| r.instructions.as_ref())
        .filter(|(s, _)| *s == source)
        .map(|(_, v)| v)
        .collect();
    Some((
        source,
        [0, 1, 2].map(|i| Stat::of(&runs.iter().map(|v| v[i]).collect::<Vec<_>>())),
    ))
}

/// Per format: instructions per unit of each batch workload; `None` when no run counted.
pub fn table(groups: &[&Group]) -> Option<Table> {
    let unit = groups.first().map_or("packet", |g| g.unit);
    let rows: Vec<(&Group, Source, [Stat; 3])> = groups
        .iter()
        .filter_map(|g| counted(g).map(|(s, v)| (*g, s, v)))
        .collect();
    let (_, source, _) = rows.first()?;
    let cell = |s: &Stat| {
        if s.min.round() == s.max.round() {
            format!("{:.0}", s.median)
        } else {
            format!("{:.0} ({:.0}–{:.0})", s.median, s.min, s.max)
        }
    };
    let how = match source {
        Source::Pmu => {
            "the CPU's counter of retired user-space instructions, read around the \
                        very passes that were timed"
        }
        Source::Callgrind => {
            "Callgrind, in a second run of the same options, windows and order \
                              under valgrind (nothing timed there): the same for the same binary \
                              and input whatever the machine does"
        }
    };
    Some(Table {
        left: 1,
        caption: format!(
            "Instructions per {unit} of the batch passes (instructions, not time): counted by \
             {how}; median across the runs that counted them. A twin counts what its original \
             does; a +5% control about 1.05 times it."
        ),
        header: ["format", "source"]
            .into_iter()
            .map(String::from)
            .chain(Workload::ALL.map(|w| format!("{} instr", w.column())))
            .collect(),
        rows: rows
            .iter()
            .map(|(g, s, v)| {
                let mut row = vec![g.shown(), s.name().to_owned()];
                row.extend(v.iter().map(cell));
                row
            })
            .collect(),
    })
}

/// A format's instructions on one workload, new against the baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct Growth {
    pub section: String,
    pub format: String,
    pub figure: &'static str,
    pub source: Source,
    /// Medians across each side's runs, instructions per unit.
    pub new: f64,
    pub old: f64,
}

impl Growth {
    pub fn ratio(&self) -> f64 {
        self.new / self.old
    }
}

impl std::fmt::Display for Growth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "more instructions: {} {} {} instr: {:.0} against {:.0} ({}), {:+.2}%",
            self.format,
            self.section,
            self.figure,
            self.new,
            self.old,
            self.source.name(),
            (self.ratio() - 1.0) * 100.0
        )
    }
}

/// Every format and workload counted on both sides with one source, new against old, matched
/// as `report --baseline` matches, pooled sections left out; and what could not be compared.
pub fn compare(new: &Summary, old: &Summary) -> (Vec<Growth>, Vec<String>) {
    let by_label = super::baseline::by_label(new, old);
    let (mut compared, mut not) = (Vec::new(), Vec::new());
    for g in new.groups.iter().filter(|g| !is_pooled(&g.label)) {
        let Some((source, n)) = counted(g) else {
            continue;
        };
        let section = section_name(&g.input, &g.label);
        let o = old.groups.iter().find(|o| {
            o.format == g.format && o.label == g.label && (by_label || o.input == g.input)
        });
        match o.and_then(counted) {
            None => not.push(format!(
                "{} {section}: no instructions in the baseline",
                g.format
            )),
            Some((s, _)) if s != source => not.push(format!(
                "{} {section}: counted by {} against the baseline's {}: never compared",
                g.format,
                source.name(),
                s.name()
            )),
            Some((_, b)) => {
                for (i, w) in Workload::ALL.into_iter().enumerate() {
                    if b[i].median > 0.0 {
                        compared.push(Growth {
                            section: section.clone(),
                            format: g.format.clone(),
                            figure: w.column(),
                            source,
                            new: n[i].median,
                            old: b[i].median,
                        });
                    }
                }
            }
        }
    }
    (compared, not)
}

/// `--fail-if-more-instructions` found formats whose instructions grew (exit code 3).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{count} figure(s) with more than {pct}% more instructions than the baseline")]
pub struct Grew {
    pub count: usize,
    pub pct: f64,
}

/// Nothing the instructions gate could compare: refused (exit code 2) rather than passed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "--fail-if-more-instructions: no format was counted with one source on both sides (run \
     both with --instructions){}",
    if .0.is_empty() { String::new() } else { format!("; {}", .0.join("; ")) }
)]
pub struct NothingCompared(pub Vec<String>);

/// The gate's lines and the failure to exit with.
pub fn check(
    new: &Summary,
    old: &Summary,
    pct: f64,
) -> Result<(String, Option<Grew>), NothingCompared> {
    let (compared, not) = compare(new, old);
    if compared.is_empty() {
        return Err(NothingCompared(not));
    }
    let limit = 1.0 + pct / 100.0;
    let grown: Vec<&Growth> = compared.iter().filter(|g| g.ratio() > limit).collect();
    let mut out = String::new();
    for g in &grown {
        out.push_str(&format!("{g}\n"));
    }
    for line in &not {
        out.push_str(&format!("instructions gate: {line}\n"));
    }
    if grown.is_empty() {
        out.push_str(&format!(
            "instructions gate: {} figures compared, none with more than {pct}% more \
             instructions\n",
            compared.len()
        ));
        return Ok((out, None));
    }
    let count = grown.len();
    Ok((out, Some(Grew { count, pct })))
}
