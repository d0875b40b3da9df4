//! `report NEW.csv --baseline OLD.csv`: each format against a baseline (two machines, two
//! versions, two days) as ratios, with the run-to-run spread of both sides, and "no change"
//! where the spreads overlap: a ratio of two medians alone would call noise a regression.
//! What is compared is what the sections are ranked by: ser + de_all (see [`Basis`]), and each
//! batch figure on its own.
//!
//! `--fail-if-slower` gates on each figure with runs paired across the sides and normalized
//! within each pair ([`super::pairing`]: over the median of the pair's formats, so what the
//! machine did to every format at once cancels): the one-sided Wilcoxon signed-rank test of the
//! pairs' log differences, its Hodges–Lehmann estimate as the change, and Holm's adjustment over
//! every figure the gate tests ([`super::significance`]), so that a bench of ~40 formats and
//! figures fails by chance no more often than 5% of the time. Each input is tested once: its
//! pooled section (every label's runs, each label a block of pairs) where it has one, else its
//! section.

use super::load::RunRow;
use super::pairing::{self, Pairing};
use super::significance::{self, ALPHA};
use super::stats::{is_pooled, plural, section_name, sorted, trim, Basis, Group, Stat, Summary};
use super::verdict::{CLOCK_STEP_NS, TIE_STEPS};
use crate::measure::Workload;
use crate::output::Table;

/// One format against its baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// `input [label]` of the new side.
    pub section: String,
    pub format: String,
    /// What was compared: the first [`Basis`] every format of the section has on both sides.
    pub basis: &'static str,
    pub new: Stat,
    pub old: Stat,
    /// New median over old median.
    pub ratio: f64,
    /// New min over old max .. new max over old min.
    pub lo: f64,
    pub hi: f64,
    /// `no change`, `faster` or `slower` (by the raw spreads).
    pub call: &'static str,
    /// New bytes per message over old.
    pub size_ratio: f64,
    /// The figure compared above, then each batch figure both sides have: what the gate tests.
    pub figures: Vec<Figure>,
}

impl Change {
    /// The compared figure's one-sided signed-rank p.
    pub fn p(&self) -> Option<f64> {
        self.figures.first().and_then(|f| f.p)
    }
}

/// One figure of a format on both sides.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    pub name: &'static str,
    /// Each run's figure, ns per unit, in file order (paired or not).
    pub new: Vec<f64>,
    pub old: Vec<f64>,
    /// New median over old median, raw.
    pub ratio: f64,
    /// log(new / old) of each pair of runs, normalized ([`super::pairing`]).
    pub diffs: Vec<f64>,
    /// The normalized change: e to the Hodges–Lehmann estimate of `diffs`; `None` without pairs.
    pub change: Option<f64>,
    /// One-sided (new slower) Wilcoxon signed-rank p of `diffs`; `None` without pairs.
    pub p: Option<f64>,
    /// `p` Holm-adjusted over every figure the comparison's [`FailOn`] gates.
    pub holm: Option<f64>,
}

/// What a figure is of a run.
#[derive(Debug, Clone, Copy)]
enum Measure {
    /// ser + decode on a basis.
    Sum(Basis),
    /// One workload timed by whole windows.
    Batch(Workload),
}

impl Measure {
    fn name(self) -> &'static str {
        match self {
            Measure::Sum(b) => b.sum_name(),
            Measure::Batch(Workload::Encode) => "ser batch",
            Measure::Batch(Workload::Selective) => "de batch",
            Measure::Batch(Workload::Complete) => "de_all batch",
        }
    }
    fn of(self, r: &RunRow) -> Option<f64> {
        match self {
            Measure::Sum(b) => b.run_speed(r),
            Measure::Batch(w) => r.throughput[w],
        }
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
    /// `input [label]: ...` for each label whose runs are not all paired.
    pub unpaired: Vec<String>,
    /// The figures Holm's adjustment is over (and the gate tests).
    pub on: FailOn,
}

/// The sections compared: each input's pooled section where it has one (testing its labels'
/// too would test the same runs twice), every other section as it is.
fn compared(s: &Summary) -> Vec<(&str, &str, Vec<&Group>)> {
    let sections = s.sections();
    let pooled_in = |input: &str, label: &str| {
        sections.iter().any(|(i, l, gs)| {
            *i == input
                && is_pooled(l)
                && gs.iter().any(|g| g.rows.iter().any(|r| r.label == label))
        })
    };
    (sections.iter())
        .filter(|(i, l, _)| is_pooled(l) || !pooled_in(i, l))
        .cloned()
        .collect()
}

/// The labels of a section's runs.
fn labels<'a>(groups: &[&'a Group]) -> Vec<&'a str> {
    sorted((groups.iter().flat_map(|g| &g.rows)).map(|r| r.label.as_str()))
}

/// Whether the two sides are matched by label alone: one input each, under other names (two
/// days of one feed, say).
pub fn by_label(new: &Summary, old: &Summary) -> bool {
    new.inputs().len() == 1 && old.inputs().len() == 1 && new.inputs() != old.inputs()
}

/// Matches sections by (input, label), or by label alone ([`by_label`]); a pooled section with
/// no namesake takes the baseline's section of the same input that shares a label with it.
pub fn compare(new: &Summary, old: &Summary, on: FailOn) -> Comparison {
    let by_label = by_label(new, old);
    let theirs = compared(old);
    let mut c = Comparison {
        changes: Vec::new(),
        unmatched: Vec::new(),
        unpaired: Vec::new(),
        on,
    };
    for (input, label, groups) in compared(new) {
        let section = section_name(input, label);
        let same_input = |i: &str| by_label || i == input;
        let mine = labels(&groups);
        let matched =
            (theirs.iter().find(|(i, l, _)| same_input(i) && *l == label)).or_else(|| {
                (theirs.iter())
                    .find(|(i, _, gs)| same_input(i) && labels(gs).iter().any(|l| mine.contains(l)))
            });
        let Some((_, _, old_groups)) = matched else {
            c.unmatched
                .extend(groups.iter().map(|g| format!("{section} {}", g.format)));
            continue;
        };
        compare_section(&mut c, &section, &groups, old_groups);
    }
    adjust(&mut c.changes, on);
    c
}

/// One section's formats against the baseline's section `old`.
fn compare_section(c: &mut Comparison, section: &str, new: &[&Group], old: &[&Group]) {
    let mut both: Vec<(&Group, &Group)> = Vec::new();
    for g in new {
        match old.iter().find(|o| o.format == g.format) {
            Some(o) => both.push((g, o)),
            None => c.unmatched.push(format!("{section} {}", g.format)),
        }
    }
    let Pairing { pairs, unpaired } = pairing::pair(new, old);
    c.unpaired
        .extend(unpaired.into_iter().map(|u| format!("{section}: {u}")));
    // The first basis every format has on both sides: normalizing needs one figure for all.
    let basis = Basis::first_all(|b| {
        (both.iter()).all(|(g, o)| g.speed_on(b).is_some() && o.speed_on(b).is_some())
    });
    let formats: Vec<&str> = both.iter().map(|(g, _)| g.format.as_str()).collect();
    let measures = [
        Measure::Sum(basis),
        Measure::Batch(Workload::Encode),
        Measure::Batch(Workload::Selective),
        Measure::Batch(Workload::Complete),
    ];
    let diffs: Vec<Vec<Vec<f64>>> = (measures.iter())
        .map(|m| pairing::log_differences(&pairs, &formats, |r| m.of(r)))
        .collect();
    for (i, (g, o)) in both.into_iter().enumerate() {
        let figures = (measures.iter().zip(&diffs))
            .filter_map(|(m, d)| figure(*m, g, o, d[i].clone()))
            .collect();
        if let Some(change) = change_of(section, basis, g, o, figures) {
            c.changes.push(change);
        }
    }
}

/// `m` of one format on both sides.
fn figure(m: Measure, g: &Group, o: &Group, diffs: Vec<f64>) -> Option<Figure> {
    let new: Vec<f64> = g.rows.iter().filter_map(|r| m.of(r)).collect();
    let old: Vec<f64> = o.rows.iter().filter_map(|r| m.of(r)).collect();
    if new.is_empty() || old.is_empty() {
        return None;
    }
    Some(Figure {
        name: m.name(),
        ratio: ratio(Stat::of(&new).median, Stat::of(&old).median),
        change: significance::hodges_lehmann(&diffs).map(f64::exp),
        p: significance::signed_rank(&diffs),
        holm: None,
        diffs,
        new,
        old,
    })
}

/// The format's line: its compared figure's spreads and call, and its figures.
fn change_of(
    section: &str,
    basis: Basis,
    g: &Group,
    o: &Group,
    figures: Vec<Figure>,
) -> Option<Change> {
    let (n, b) = (g.speed_on(basis)?, o.speed_on(basis)?);
    let overlap = n.min <= b.max && b.min <= n.max;
    // p50s move in clock steps: a few steps apart is no change whatever the spread.
    let within_steps = basis.quantized() && (n.median - b.median).abs() < TIE_STEPS * CLOCK_STEP_NS;
    let call = if overlap || within_steps {
        "no change"
    } else if n.median < b.median {
        "faster"
    } else {
        "slower"
    };
    Some(Change {
        section: section.to_owned(),
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
    })
}

/// Sets each gated figure's Holm-adjusted p.
fn adjust(changes: &mut [Change], on: FailOn) {
    let mut cells: Vec<&mut Figure> = changes
        .iter_mut()
        .flat_map(|ch| on.gated_mut(&mut ch.figures))
        .filter(|f| f.p.is_some())
        .collect();
    let p: Vec<f64> = cells.iter().map(|f| f.p.unwrap_or(1.0)).collect();
    for (f, adjusted) in cells.iter_mut().zip(significance::holm(&p)) {
        f.holm = Some(adjusted);
    }
}

fn spread(s: &Stat) -> String {
    format!("{} ({}–{})", trim(s.median), trim(s.min), trim(s.max))
}

/// `1.19x`, or `-` without pairs.
fn times(x: Option<f64>) -> String {
    x.map_or_else(|| "-".to_owned(), |x| format!("{x:.2}x"))
}

/// The comparison as a table (also what `report --baseline` prints).
pub fn table(c: &Comparison) -> Table {
    Table {
        left: 3,
        caption: format!(
            "Against the baseline: new over old, ns per unit (median, min–max across runs). The \
             ratio's range is new min over old max to new max over old min; where the two \
             sides' spreads overlap it is no change. normalized: runs paired by position within \
             their label, each format's new over old in a pair divided by the median of that \
             over the pair's formats (a run's machine factor cancels), as the Hodges–Lehmann \
             estimate over the pairs; p: one-sided Wilcoxon signed-rank test of those pairs \
             (new slower); Holm p: adjusted over the {} figures the gate tests.",
            gated(c).count()
        ),
        header: [
            "format",
            "section",
            "compared",
            "new",
            "baseline",
            "new / baseline",
            "change",
            "normalized",
            "pairs",
            "p",
            "Holm p",
            "size new / baseline",
        ]
        .map(String::from)
        .to_vec(),
        rows: c.changes.iter().map(table_row).collect(),
    }
}

fn table_row(ch: &Change) -> Vec<String> {
    let first = ch.figures.first();
    vec![
        ch.format.clone(),
        ch.section.clone(),
        ch.basis.to_owned(),
        spread(&ch.new),
        spread(&ch.old),
        format!("{:.2}x ({:.2}–{:.2}x)", ch.ratio, ch.lo, ch.hi),
        ch.call.to_owned(),
        times(first.and_then(|f| f.change)),
        first.map_or(0, |f| f.diffs.len()).to_string(),
        p_text(ch.p()),
        p_text(first.and_then(|f| f.holm)),
        format!("{:.2}x", ch.size_ratio),
    ]
}

/// Plain text for the terminal: one line per format, then the runs left unpaired.
pub fn text(c: &Comparison) -> String {
    let mut out = String::from(
        "against the baseline (new / baseline, ser + de_all; normalized: over the median of the \
         formats, runs paired within each label; p one-sided, Holm-adjusted):\n",
    );
    for ch in &c.changes {
        let first = ch.figures.first();
        out.push_str(&format!(
            "  {:<16} {:<40} {:.2}x ({:.2}–{:.2}x)  {}  [{}: {} vs {}]  normalized {}, {} pairs, \
             {}, Holm {}\n",
            ch.format,
            ch.section,
            ch.ratio,
            ch.lo,
            ch.hi,
            ch.call,
            ch.basis,
            trim(ch.new.median),
            trim(ch.old.median),
            times(first.and_then(|f| f.change)),
            first.map_or(0, |f| f.diffs.len()),
            p_text(ch.p()),
            p_text(first.and_then(|f| f.holm)),
        ));
    }
    for u in &c.unmatched {
        out.push_str(&format!("  {u}: not in the baseline\n"));
    }
    for u in &c.unpaired {
        out.push_str(&format!("  {u}\n"));
    }
    out
}

/// `p = 0.008`, or `p: n/a` without pairs.
pub fn p_text(p: Option<f64>) -> String {
    match p {
        Some(p) if p < 0.001 => "p < 0.001".to_owned(),
        Some(p) => format!("p = {p:.3}"),
        None => "p: n/a".to_owned(),
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

impl FailOn {
    /// How many of a format's figures (the first ones) this gates on.
    fn count(self, figures: usize) -> usize {
        match self {
            FailOn::Ranking => figures.min(1),
            FailOn::All => figures,
        }
    }
    fn gated(self, figures: &[Figure]) -> &[Figure] {
        &figures[..self.count(figures.len())]
    }
    fn gated_mut(self, figures: &mut [Figure]) -> &mut [Figure] {
        let n = self.count(figures.len());
        &mut figures[..n]
    }
}

/// Every (change, figure) the comparison's gate tests: Holm's family.
fn gated(c: &Comparison) -> impl Iterator<Item = (&Change, &Figure)> {
    (c.changes.iter()).flat_map(|ch| c.on.gated(&ch.figures).iter().map(move |f| (ch, f)))
}

/// `--fail-if-slower PCT [--fail-on ...]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gate {
    /// The slowdown the gate must not let through: a figure the runs show slower fails unless
    /// they show it below this many percent ([`regressions`]).
    pub pct: f64,
    /// Pass it to [`compare`]: the figures tested, and so Holm's family.
    pub on: FailOn,
}

/// A figure significantly slower than the baseline and not shown within the gate's percent.
#[derive(Debug, Clone, PartialEq)]
pub struct Regression {
    pub section: String,
    pub format: String,
    pub figure: Figure,
}

impl std::fmt::Display for Regression {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let runs = |v: &[f64]| v.iter().map(|x| trim(*x)).collect::<Vec<_>>().join(", ");
        let fig = &self.figure;
        write!(
            f,
            "regression: {} {} {}: {} slower normalized ({:.2}x raw median), {} pairs, {}, Holm \
             {}; new runs [{}] vs baseline runs [{}]",
            self.format,
            self.section,
            fig.name,
            times(fig.change),
            fig.ratio,
            fig.diffs.len(),
            p_text(fig.p),
            p_text(fig.holm),
            runs(&fig.new),
            runs(&fig.old)
        )
    }
}

/// Every gated figure the runs show slower (Holm-adjusted one-sided signed-rank p below
/// [`ALPHA`]) and cannot show within the gate's percent ([`within`]). Faster figures never are
/// (the test is one-sided on purpose: an improvement is news, not a failure).
///
/// Why not "the estimate above the percent": a slowdown of exactly the percent would then fail
/// about half the time, however many runs, since its estimate falls either side of the limit;
/// measured on ten real benches, a planted 10% failed a 10% gate in 74 of 180 plantings over 45
/// pairs (41%; BENCHMARKS, part three). The percent is the slowdown the gate must not let
/// through, so a slowdown that is real fails unless the runs show it smaller than that (a 3%
/// slowdown measured tightly passes a 10% gate; measured loosely, it fails).
pub fn regressions(c: &Comparison, gate: Gate) -> Vec<Regression> {
    gated(c)
        .filter(|(_, f)| f.holm.is_some_and(|p| p < ALPHA) && !within(f, gate.pct))
        .map(|(ch, f)| Regression {
            section: ch.section.clone(),
            format: ch.format.clone(),
            figure: f.clone(),
        })
        .collect()
}

/// The runs show `f`'s slowdown below `pct` percent: the one-sided signed-rank test that the
/// pairs' log differences lie below ln(1 + pct/100) gives p below [`ALPHA`] (not adjusted: a
/// figure passes on it, so Holm's family is not the place for it).
pub fn within(f: &Figure, pct: f64) -> bool {
    let limit = (1.0 + pct / 100.0).ln();
    let below: Vec<f64> = f.diffs.iter().map(|d| limit - d).collect();
    significance::signed_rank(&below).is_some_and(|p| p < ALPHA)
}

/// A gate whose test cannot fail at the run counts given: refused (exit code 2).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct GateRefused(pub String);

/// Why the gate cannot fail on `c`: with n pairs the smallest one-sided signed-rank p is 1/2^n,
/// and Holm over m figures rejects none unless one p is below [`ALPHA`] / m; so the figure with
/// the fewest pairs must reach that (a regression there alone must be able to fail). `None`
/// when it can; refused too when nothing is compared at all.
pub fn refusal(c: &Comparison) -> Option<GateRefused> {
    let m = gated(c).count();
    let Some(n) = gated(c).map(|(_, f)| f.diffs.len()).min() else {
        return Some(GateRefused(
            "--fail-if-slower: no format of the new runs is in the baseline: nothing to gate"
                .to_owned(),
        ));
    };
    let smallest = significance::smallest_p(n);
    if smallest * (m as f64) < ALPHA {
        return None;
    }
    Some(GateRefused(format!(
        "--fail-if-slower: {} of runs cannot reach p < {ALPHA} over {} (the \
         signed-rank test's smallest p is 1/2^{n} = {smallest:.4}, Holm's first step needs \
         {ALPHA}/{m} = {:.4}); run at least {} runs a side (paired within each label)",
        plural(n, "pair"),
        plural(m, "figure"),
        ALPHA / m as f64,
        significance::pairs_needed(m)
    )))
}

/// `--fail-if-slower` found regressions: `report` and `bench` exit with [`REGRESSION_EXIT`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "{count} figure(s) slower than the baseline (normalized, Holm-adjusted signed-rank p < \
     {ALPHA}) and not shown within {pct}%"
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
    if found.is_empty() {
        out.push_str(&format!(
            "gate: no figure shown slower than the baseline (normalized, Holm-adjusted p < \
             {ALPHA}) and not shown within {}% ({} figures tested)\n",
            gate.pct,
            gated(c).count()
        ));
    }
    let (count, pct) = (found.len(), gate.pct);
    (out, (count > 0).then_some(Regressed { count, pct }))
}
