//! `report NEW.csv --baseline OLD.csv`: each format against a baseline (two machines, two
//! versions, two days) as ratios, with the run-to-run spread of both sides, and "no change"
//! where the spreads overlap: a ratio of two medians alone would call noise a regression. The
//! two sides ran apart, so there is no per-run pairing here (unlike the verdict's margins).
//! What is compared is what the sections are ranked by: ser + de_all (see [`Basis`]), and each
//! batch figure on its own; every figure with a Mann–Whitney p-value (see [`super::significance`])
//! so that `--fail-if-slower` can gate on differences beyond chance (see [`regressions`]).

use super::load::RunRow;
use super::significance::{self, ALPHA, MIN_RUNS};
use super::stats::{trim, Basis, Stat, Summary};
use super::tables::Table;
use super::verdict::{CLOCK_STEP_NS, TIE_STEPS};
use crate::measure::Workload;

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
    /// The figure compared above (`basis`) run by run, then ser batch, de batch and de_all batch
    /// where both sides have them: what the p-values and the gate work on.
    pub figures: Vec<Figure>,
}

impl Change {
    /// The two-sided Mann–Whitney p of the compared figure; `None` with fewer than
    /// [`MIN_RUNS`] runs a side.
    pub fn p(&self) -> Option<f64> {
        self.figures[0].p
    }
}

/// One figure of a format on both sides, run by run.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// `ser + de_all batch` (or the basis compared), `ser batch`, `de batch`, `de_all batch`.
    pub name: &'static str,
    /// Each run's figure, ns per unit, in file order.
    pub new: Vec<f64>,
    pub old: Vec<f64>,
    /// New median over old median.
    pub ratio: f64,
    /// Two-sided Mann–Whitney p; `None` with fewer than [`MIN_RUNS`] runs a side.
    pub p: Option<f64>,
}

impl Figure {
    fn of(
        name: &'static str,
        g: &[RunRow],
        o: &[RunRow],
        f: impl Fn(&RunRow) -> Option<f64>,
    ) -> Option<Figure> {
        let new: Vec<f64> = g.iter().filter_map(&f).collect();
        let old: Vec<f64> = o.iter().filter_map(&f).collect();
        if new.is_empty() || old.is_empty() {
            return None;
        }
        Some(Figure {
            name,
            ratio: ratio(Stat::of(&new).median, Stat::of(&old).median),
            p: significance::mann_whitney(&new, &old),
            new,
            old,
        })
    }
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        a / b
    } else {
        f64::INFINITY
    }
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
    // A pooled section repeats its labels' runs: testing it beside them would test the same
    // runs twice (the gate's own error control is issue 46's item 6).
    for g in new
        .groups
        .iter()
        .filter(|g| !super::stats::is_pooled(&g.label))
    {
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
        let figures: Vec<Figure> = [
            Figure::of(basis.sum_name(), &g.rows, &o.rows, |r| basis.run_speed(r)),
            Figure::of("ser batch", &g.rows, &o.rows, |r| {
                r.throughput[Workload::Encode]
            }),
            Figure::of("de batch", &g.rows, &o.rows, |r| {
                r.throughput[Workload::Selective]
            }),
            Figure::of("de_all batch", &g.rows, &o.rows, |r| {
                r.throughput[Workload::Complete]
            }),
        ]
        .into_iter()
        .flatten()
        .collect();
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
            figures,
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
                  where the two sides' spreads overlap it is no change. p: two-sided Mann–Whitney \
                  U test of the two sides' runs (significant below 0.05; not tested with fewer \
                  than 3 runs a side)."
            .to_owned(),
        header: [
            "format",
            "section",
            "compared",
            "new",
            "baseline",
            "new / baseline",
            "change",
            "p",
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
                    p_text(ch.p()),
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
            "  {:<16} {:<40} {:.2}x ({:.2}–{:.2}x)  {}  [{}: {} vs {}]  {}\n",
            ch.format,
            ch.section,
            ch.ratio,
            ch.lo,
            ch.hi,
            ch.call,
            ch.basis,
            trim(ch.new.median),
            trim(ch.old.median),
            p_text(ch.p())
        ));
    }
    for u in &c.unmatched {
        out.push_str(&format!("  {u}: not in the baseline\n"));
    }
    out
}

/// `p = 0.008`, or why there is none.
pub fn p_text(p: Option<f64>) -> String {
    match p {
        Some(p) if p < 0.001 => "p < 0.001".to_owned(),
        Some(p) => format!("p = {p:.3}"),
        None => format!("p: n/a, fewer than {MIN_RUNS} runs a side cannot be significant"),
    }
}

/// The exit code of `report` and `bench` when `--fail-if-slower` found a regression (1 is an
/// error, 2 a refused option).
pub const REGRESSION_EXIT: u8 = 3;

/// Which figures `--fail-if-slower` gates on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FailOn {
    /// What the report ranks by (ser + de_all batch per run, or the basis both sides have).
    #[default]
    Ranking,
    /// That and each batch figure on its own: ser batch, de batch, de_all batch.
    All,
}

/// `--fail-if-slower PCT [--fail-on ...]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gate {
    /// A slowdown of more than this many percent (new median over old median), when
    /// significant, fails.
    pub pct: f64,
    pub on: FailOn,
}

/// A figure slower than the baseline beyond the gate's percent, and significantly so.
#[derive(Debug, Clone, PartialEq)]
pub struct Regression {
    pub section: String,
    pub format: String,
    pub figure: Figure,
}

impl std::fmt::Display for Regression {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let runs = |v: &[f64]| v.iter().map(|x| trim(*x)).collect::<Vec<_>>().join(", ");
        write!(
            f,
            "regression: {} {} {}: {:.2}x slower, {}; new runs [{}] vs baseline runs [{}]",
            self.format,
            self.section,
            self.figure.name,
            self.figure.ratio,
            p_text(self.figure.p),
            runs(&self.figure.new),
            runs(&self.figure.old)
        )
    }
}

/// Every figure the gate looks at that is slower than the baseline by more than `gate.pct`
/// percent with p < [`ALPHA`]. Faster figures never are (the gate is one-sided on purpose: an
/// improvement is news, not a failure); nor are figures with too few runs to test.
pub fn regressions(c: &Comparison, gate: Gate) -> Vec<Regression> {
    let limit = 1.0 + gate.pct / 100.0;
    let mut found = Vec::new();
    for ch in &c.changes {
        let figures = match gate.on {
            FailOn::Ranking => &ch.figures[..1],
            FailOn::All => &ch.figures[..],
        };
        for fig in figures {
            if fig.ratio > limit && fig.p.is_some_and(|p| p < ALPHA) {
                found.push(Regression {
                    section: ch.section.clone(),
                    format: ch.format.clone(),
                    figure: fig.clone(),
                });
            }
        }
    }
    found
}

/// A gate whose test cannot fail at the run counts given: refused (exit code 2) before
/// anything is printed as a pass.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct GateRefused(pub String);

/// Why `gate` cannot fail on `c`: the fewest runs of a figure it gates on, new and baseline,
/// cannot give a Mann–Whitney p below [`ALPHA`]; `None` when every figure can.
pub fn refusal(c: &Comparison, gate: Gate) -> Option<GateRefused> {
    let (n, m) = c
        .changes
        .iter()
        .flat_map(|ch| match gate.on {
            FailOn::Ranking => &ch.figures[..1],
            FailOn::All => &ch.figures[..],
        })
        .map(|f| (f.new.len(), f.old.len()))
        .max_by(|a, b| {
            significance::smallest_p(a.0, a.1).total_cmp(&significance::smallest_p(b.0, b.1))
        })?;
    let p = significance::smallest_p(n, m);
    if p < ALPHA {
        return None;
    }
    let runs = if n == m {
        format!("{n} run{} a side", if n == 1 { "" } else { "s" })
    } else {
        format!(
            "{n} new run{} against {m} baseline",
            if n == 1 { "" } else { "s" }
        )
    };
    Some(GateRefused(format!(
        "--fail-if-slower: {runs} cannot reach p < {ALPHA} (Mann–Whitney's smallest p is \
         {p:.3}); run at least {} runs a side",
        significance::min_runs_a_side()
    )))
}

/// `--fail-if-slower` found regressions: what `report` and `bench` exit with
/// [`REGRESSION_EXIT`] on.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "{count} figure(s) slower than the baseline by more than {pct}% (Mann–Whitney p < {ALPHA})"
)]
pub struct Regressed {
    pub count: usize,
    pub pct: f64,
}

/// The gate's lines (one per regression, then none when clean), and the failure to exit with.
pub fn check(c: &Comparison, gate: Gate) -> (String, Option<Regressed>) {
    let found = regressions(c, gate);
    let mut out = String::new();
    for r in &found {
        out.push_str(&format!("{r}\n"));
    }
    let untested: Vec<String> = c
        .changes
        .iter()
        .filter(|ch| ch.p().is_none())
        .map(|ch| format!("{} {}", ch.format, ch.section))
        .collect();
    if !untested.is_empty() {
        // A gate that cannot fail should not pass silently.
        out.push_str(&format!(
            "gate: not tested (fewer than {MIN_RUNS} runs a side): {}\n",
            untested.join(", ")
        ));
    }
    if found.is_empty() {
        out.push_str(&format!(
            "gate: no figure slower than the baseline by more than {}% with p < {ALPHA}\n",
            gate.pct
        ));
        (out, None)
    } else {
        let count = found.len();
        (
            out,
            Some(Regressed {
                count,
                pct: gate.pct,
            }),
        )
    }
}
