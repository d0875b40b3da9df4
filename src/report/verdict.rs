//! The answer first: for each need (fastest encode, smallest as stored, ...) the winner, the
//! runner-up and the margin with its spread across runs, for the top of `index.html` and
//! `summary.md`; where the runs cannot resolve a winner, the tied group instead, its margin in
//! one short line and one note under the table saying what a tie is ([`tie_note`]).
//!
//! Formats are ranked by serialize plus the complete decode (see [`Basis`]). A margin is the
//! median of per-run ratios, runner-up over winner with both figures from the same run (matched
//! by run id), with their min–max: one run's runner-up over another run's winner would measure
//! the machine between the runs. It is a tie when some run's ratio is 1 or under (the runner-up
//! was as fast there), or when the figure is timed per unit and the medians are a few clock
//! steps apart: this machine's clock moves in [`CLOCK_STEP_NS`] steps, so two medians 20 ns
//! apart say nothing about which format is faster, and a ratio of two figures that small would
//! only restate the clock's resolution. A percentile with fewer than [`MIN_TAIL_SAMPLES`]
//! samples beyond it in a run names no winner.

use super::load::RunRow;
use super::resolution::{Interval, Resolution, MIN_PAIRED_RUNS, RESOLUTION_FLOOR};
use super::stats::{relative, trim, Basis, Group, Stat, TwinPair, MIN_TAIL_SAMPLES, RAW};
use crate::export::caveat::{Caveat, Caveats};
use crate::measure::Workload;
use crate::output::Table;

/// The step of the TSC clock on the machines the shootout ran on (a VM's TSC moves in 10 ns
/// steps). Figures timed one unit at a time (p50, p99.9) are multiples of it, near enough.
pub const CLOCK_STEP_NS: f64 = 10.0;

/// Medians fewer than this many clock steps apart are a tie, whatever the spread says.
pub const TIE_STEPS: f64 = 3.0;

/// A winner below this many clock steps is not divided by: the margin is given in ns.
pub const RATIO_STEPS: f64 = 5.0;

/// What the winner's cell says for a percentile that rests on too few samples.
pub const TOO_FEW: &str = "too few samples: a longer input or --timing both";

/// How a tie's cells begin (the tied group's, the margin's): a tie names no winner.
pub const TIE: &str = "tie: ";

/// What a reader may want from a format, in the order of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    Encode,
    SelectiveDecode,
    CompleteDecode,
    EncodeTail,
    DecodeTail,
    Wire,
    Stored,
    BytesTime,
    /// Serialize plus decode on the section's basis: what the per-type table and `--mix`
    /// rank by (not a row of the verdict, whose needs split it).
    Speed,
}

impl Need {
    pub const ALL: [Need; 8] = [
        Need::Encode,
        Need::SelectiveDecode,
        Need::CompleteDecode,
        Need::EncodeTail,
        Need::DecodeTail,
        Need::Wire,
        Need::Stored,
        Need::BytesTime,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Need::Encode => "fastest encode",
            Need::SelectiveDecode => "fastest selective decode",
            Need::CompleteDecode => "fastest complete decode",
            Need::EncodeTail => "best encode tail",
            Need::DecodeTail => "best decode tail",
            Need::Wire => "smallest on the wire",
            Need::Stored => "smallest as stored (zstd)",
            Need::BytesTime => "best bytes × time",
            Need::Speed => "fastest ser + decode",
        }
    }

    /// The workload a timed need times (the complete decode for the decode tail, as ranked).
    fn workload(self) -> Workload {
        match self {
            Need::Encode | Need::EncodeTail => Workload::Encode,
            Need::SelectiveDecode => Workload::Selective,
            _ => Workload::Complete,
        }
    }

    /// What the need is judged by, for a section ranked on `basis` and timed per `unit`.
    pub fn measure(self, basis: Basis, unit: &str) -> String {
        let batch = basis == Basis::Batch;
        match self {
            Need::EncodeTail => format!("ser p99.9, ns/{unit}"),
            Need::DecodeTail => {
                format!("de_all p99.9, ns/{unit} (the complete decode, as ranked)")
            }
            Need::Wire => "bytes/msg encoded".into(),
            Need::Speed => format!("{}, ns/{unit}", basis.sum_name()),
            Need::Stored => "bytes/msg, zstd -3".into(),
            Need::BytesTime if unit == "message" => {
                format!("bytes/msg × ns/msg of {}", basis.sum_name())
            }
            Need::BytesTime => format!(
                "bytes/msg × ns/msg of {} (ns/{unit} × {unit}s/messages of the input)",
                basis.sum_name()
            ),
            _ if batch => format!("{} batch, ns/{unit}", self.workload().column()),
            _ => format!("{} p50, ns/{unit}", self.workload().column()),
        }
    }

    /// The quantile the need's figure is on `basis`; `None` for batch figures and sizes.
    pub fn quantile(self, basis: Basis) -> Option<f64> {
        match self {
            Need::EncodeTail | Need::DecodeTail => Some(0.999),
            Need::Encode
            | Need::SelectiveDecode
            | Need::CompleteDecode
            | Need::BytesTime
            | Need::Speed
                if basis.quantized() =>
            {
                Some(0.5)
            }
            _ => None,
        }
    }

    /// Whether the need's figure moves in clock steps (a product with a size does not).
    pub fn quantized(self, basis: Basis) -> bool {
        self != Need::BytesTime && self.quantile(basis).is_some()
    }

    /// One run's figure for this need on `basis` (lower is better); `None` when not measured.
    pub fn value(self, basis: Basis, r: &RunRow) -> Option<f64> {
        let batch = basis == Basis::Batch;
        match self {
            Need::EncodeTail | Need::DecodeTail => r.percentile(self.workload(), 3),
            Need::Wire => Some(r.bytes_per_message),
            Need::Stored => r.zstd_bytes_per_message(),
            Need::BytesTime => {
                Some(r.bytes_per_message * basis.run_speed(r)? * units_per_message(r)?)
            }
            Need::Speed => basis.run_speed(r),
            _ if batch => r.throughput[self.workload()],
            _ => r.percentile(self.workload(), 0),
        }
    }

    /// The workloads whose whole-window times make the need's figure on `basis`.
    pub fn workloads(self, basis: Basis) -> &'static [Workload] {
        match (self, basis) {
            (Need::Encode, Basis::Batch) => &[Workload::Encode],
            (Need::SelectiveDecode, Basis::Batch) => &[Workload::Selective],
            (Need::CompleteDecode, Basis::Batch) => &[Workload::Complete],
            _ => &[],
        }
    }

    /// The group's figure across its runs, on its section's basis.
    pub fn figure(self, g: &Group) -> Option<Stat> {
        match self {
            // Measured in some run of the same bytes, not necessarily this label's (bench
            // compresses once per input): the group has it already.
            Need::Stored => g.zstd_bytes_per_message,
            _ => Stat::of_some(g.rows.iter().map(|r| self.value(g.basis, r))),
        }
    }

    /// Whether the need is a size: the same bytes in every run, never timed, so exact.
    pub fn exact(self) -> bool {
        matches!(self, Need::Wire | Need::Stored)
    }

    /// How a figure of this need is written: ns, bytes, or bytes × ns.
    pub fn show(self, s: &Stat) -> String {
        s.spread_with(|x| self.number(x))
    }

    /// One number of this need: bytes × ns products compact (`12.3k`, `4.56M`: they are large
    /// and only their ratio matters), the rest trimmed.
    fn number(self, x: f64) -> String {
        match self {
            Need::BytesTime => super::tables::abbreviated(x, 1e4),
            _ => trim(x),
        }
    }
}

/// What turns a run's ns per unit into ns per message: 1 for per-message rows, the input's
/// packets over its messages for per-packet ones; `None` for an input without messages.
fn units_per_message(r: &RunRow) -> Option<f64> {
    if r.unit == "message" {
        Some(1.0)
    } else {
        (r.messages > 0.0).then(|| r.packets / r.messages)
    }
}

/// How far apart the winner and the runner-up are.
#[derive(Debug, Clone, PartialEq)]
pub enum Call {
    /// A winner: the runner-up over the winner run by run; for a size (exact) the ratio of the
    /// medians, `lo` and `hi` equal to it and `runs` 0.
    Margin(Interval),
    /// The winner is only a few clock steps wide: the margin in ns, not a ratio.
    Steps { ns: f64, step: f64 },
    /// Not resolved: `with` is every format tied with the fastest and its figure, in ranked
    /// order; `why` the first one's case in short (`1.03x (95% CI 0.98–1.08x, 6 runs) ≤ 5.0%`),
    /// which [`tie_note`] explains once under the table.
    Tie {
        why: String,
        with: Vec<(String, Stat)>,
    },
    /// A percentile with fewer than [`MIN_TAIL_SAMPLES`] samples `beyond` it in some run.
    TooFew {
        percentile: &'static str,
        beyond: f64,
    },
    /// Nothing to compare with.
    Alone,
}

/// One row of the verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub need: Need,
    pub measure: String,
    /// The fastest by median, `(format, figure)`: the winner unless the call is a tie (see
    /// [`Verdict::named_winner`]).
    pub winner: Option<(String, Stat)>,
    pub runner_up: Option<(String, Stat)>,
    pub call: Call,
    /// The `raw` floor's figure, shown beside the winner (raw is the floor, never a winner).
    pub raw: Option<Stat>,
    /// Runs behind the winner's figure (the most behind any format's, when there is none).
    pub runs: usize,
    /// What the section is ranked by.
    pub basis: Basis,
    /// The smallest difference a winner must clear (`None` for sizes).
    pub resolution: Option<Resolution>,
    /// The aggregation's own cost, ns per unit, in the selective decode's batch row: the same
    /// work inside every format's `de`.
    pub aggregate: Option<f64>,
    /// The clock's step the section's runs measured (see [`clock_step`]).
    pub step: f64,
    /// Each ranked format's caveats: how its name is shown.
    pub caveats: Vec<(String, Caveats)>,
}

/// The clock's step in a section: the runs' median `clock_step_ns`, else [`CLOCK_STEP_NS`].
pub fn clock_step(groups: &[&Group]) -> f64 {
    Stat::of_some(
        groups
            .iter()
            .flat_map(|g| g.rows.iter().map(|r| r.clock_step_ns))
            .map(|s| s.filter(|s| s.is_finite() && *s > 0.0)),
    )
    .map_or(CLOCK_STEP_NS, |s| s.median)
}

/// [`verdicts_with`] without twins: the resolution is the floor.
pub fn verdicts(groups: &[&Group]) -> Vec<Verdict> {
    verdicts_with(groups, &[])
}

/// Ranks the formats of one section (input and label) for every need; `twins` (the section's
/// A/A twins, never ranked) set the resolution. `raw` is left out of the ranking: it is the
/// floor (fixed-size records copied in place), shown beside the winner.
pub fn verdicts_with(groups: &[&Group], twins: &[TwinPair<'_>]) -> Vec<Verdict> {
    verdicts_on(groups, twins, &Need::ALL)
}

/// [`verdicts_with`] for the `needs` given, in that order.
pub fn verdicts_on(groups: &[&Group], twins: &[TwinPair<'_>], needs: &[Need]) -> Vec<Verdict> {
    let basis = groups.first().map_or(Basis::Selective, |g| g.basis);
    let unit = groups.first().map_or("packet", |g| g.unit);
    let step = clock_step(groups);
    needs
        .iter()
        .copied()
        .filter_map(|need| {
            let mut ranked: Vec<(&Group, Stat)> = groups
                .iter()
                .filter(|g| g.format != RAW)
                .filter_map(|g| need.figure(g).map(|s| (*g, s)))
                .collect();
            if ranked.is_empty() {
                return None;
            }
            let base = Verdict {
                need,
                measure: need.measure(basis, unit),
                winner: None,
                runner_up: None,
                call: Call::Alone,
                raw: None,
                runs: ranked.iter().map(|(g, _)| g.runs).max().unwrap_or(0),
                basis,
                resolution: None,
                aggregate: None,
                step,
                caveats: Vec::new(),
            };
            if let Some(q) = need.quantile(basis) {
                let beyond = ranked
                    .iter()
                    .map(|(g, _)| g.beyond(q))
                    .fold(f64::INFINITY, f64::min);
                if beyond < MIN_TAIL_SAMPLES {
                    let percentile = if q >= 0.999 { "p99.9" } else { "p50" };
                    let call = Call::TooFew { percentile, beyond };
                    return Some(Verdict { call, ..base });
                }
            }
            ranked.sort_by(|a, b| {
                a.1.median
                    .total_cmp(&b.1.median)
                    .then(a.0.format.cmp(&b.0.format))
            });
            let (w, ws) = ranked[0];
            let resolution = (!need.exact()).then(|| resolution(need, basis, twins));
            let call = match (ranked.get(1), &resolution) {
                (None, _) => Call::Alone,
                (Some(_), None) => exact_call(&ranked),
                (Some(_), Some(res)) => call(need, basis, &ranked, res, step),
            };
            let aggregate = (need == Need::SelectiveDecode && basis == Basis::Batch)
                .then(|| aggregate(groups))
                .flatten();
            Some(Verdict {
                winner: Some((w.format.clone(), ws)),
                runner_up: ranked.get(1).map(|(g, s)| (g.format.clone(), *s)),
                call,
                raw: groups
                    .iter()
                    .find(|g| g.format == RAW)
                    .and_then(|g| need.figure(g)),
                runs: w.runs,
                resolution,
                aggregate,
                caveats: (ranked.iter())
                    .map(|(g, _)| (g.format.clone(), g.caveats()))
                    .collect(),
                ..base
            })
        })
        .collect()
}

/// The aggregation's own cost in a section: the median over its runs.
pub fn aggregate(groups: &[&Group]) -> Option<f64> {
    Stat::of_some(
        groups
            .iter()
            .flat_map(|g| g.rows.iter().map(|r| r.aggregate_batch_ns)),
    )
    .map(|s| s.median)
}

/// `other`'s figure over `winner`'s run by run (`report::windows`).
pub fn paired_ratios(need: Need, basis: Basis, winner: &Group, other: &Group) -> Vec<f64> {
    super::windows::ratios(need.workloads(basis), &winner.rows, &other.rows, |r| {
        need.value(basis, r)
    })
}

/// The interval of `other` over `winner` on `need`, run by run.
pub fn interval(need: Need, basis: Basis, winner: &Group, other: &Group) -> Option<Interval> {
    Interval::of_ratios(&paired_ratios(need, basis, winner, other))
}

/// The section's resolution for `need`: on a batch figure the A/A bias of its twins
/// (`twins::bias`), else what its twins show in the same figure.
pub fn resolution(need: Need, basis: Basis, twins: &[TwinPair<'_>]) -> Resolution {
    if !need.workloads(basis).is_empty() {
        return super::twins::bias(twins, None);
    }
    Resolution::of(twins.iter().filter_map(|p| {
        Some((
            p.twin.format.as_str(),
            interval(need, basis, p.original, p.twin)?,
        ))
    }))
}

/// Sizes are exact (the same bytes in every run): the smaller wins, equal sizes tie.
fn exact_call(ranked: &[(&Group, Stat)]) -> Call {
    let (_, ws) = ranked[0];
    let tied: Vec<(String, Stat)> = ranked[1..]
        .iter()
        .filter(|(_, s)| s.median <= ws.median)
        .map(|(g, s)| (g.format.clone(), *s))
        .collect();
    if !tied.is_empty() {
        return Call::Tie {
            why: "the same size".to_owned(),
            with: tied,
        };
    }
    let ratio = relative(ranked[1].1.median, ws.median);
    Call::Margin(Interval {
        ratio,
        lo: ratio,
        hi: ratio,
        runs: 0,
    })
}

/// A timed need: tied with the winner is every format a few clock steps away or whose interval
/// does not clear the resolution.
fn call(need: Need, basis: Basis, ranked: &[(&Group, Stat)], res: &Resolution, step: f64) -> Call {
    let (w, ws) = ranked[0];
    let quantized = need.quantized(basis);
    let near = |s: &Stat| quantized && s.median - ws.median < TIE_STEPS * step;
    let of = |g: &Group| interval(need, basis, w, g);
    let resolved = |g: &Group| of(g).is_some_and(|iv| iv.slower_beyond(res.delta));
    let tied: Vec<&(&Group, Stat)> = ranked[1..]
        .iter()
        .filter(|(g, s)| near(s) || !resolved(g))
        .collect();
    // The first tied is the second name of the group the row shows: the margin is its case.
    if let Some((first, fs)) = tied.first() {
        let why = if near(fs) {
            format!(
                "+{} ns, under {TIE_STEPS:.0} clock steps of {} ns",
                trim(fs.median - ws.median),
                trim(step)
            )
        } else {
            unresolved(of(first), res)
        };
        return Call::Tie {
            why,
            with: tied.iter().map(|(g, s)| (g.format.clone(), *s)).collect(),
        };
    }
    let (r, rs) = ranked[1];
    if quantized && ws.median < RATIO_STEPS * step {
        return Call::Steps {
            ns: rs.median - ws.median,
            step,
        };
    }
    Call::Margin(of(r).expect("resolved, so paired"))
}

/// Why an interval names no winner, in short: `1.03x (95% CI 0.98–1.08x, 6 runs) ≤ 5.0%`.
fn unresolved(iv: Option<Interval>, res: &Resolution) -> String {
    match iv {
        Some(iv) if iv.runs >= MIN_PAIRED_RUNS => {
            format!("{} ≤ {:.1}%", iv.text(), res.delta * 100.0)
        }
        Some(iv) => format!(
            "{:.2}x over {} paired runs ({MIN_PAIRED_RUNS} needed)",
            iv.ratio, iv.runs
        ),
        None => format!("fewer than {MIN_PAIRED_RUNS} runs timed both"),
    }
}

impl Verdict {
    /// The margin column: `1.32x (95% CI 1.24–1.41x, 8 runs)`, or for a tie its case in short,
    /// `tie: 1.03x (95% CI 0.98–1.08x, 6 runs) ≤ 5.0%`.
    pub fn margin_text(&self) -> String {
        let text = match &self.call {
            Call::Margin(iv) if iv.runs == 0 => {
                format!("{:.2}x (the same bytes in every run)", iv.ratio)
            }
            Call::Margin(iv) => iv.text(),
            Call::Steps { ns, step } => format!(
                "+{} ns ({:.0} clock steps; too few to divide)",
                trim(*ns),
                ns / step
            ),
            Call::Tie { why, .. } => format!("{TIE}{why}"),
            Call::TooFew { percentile, beyond } => format!(
                "{:.0} samples beyond {percentile} in a run; {MIN_TAIL_SAMPLES:.0} needed",
                beyond.floor()
            ),
            Call::Alone => "no other format measured".to_owned(),
        };
        format!("{text}{}", self.aggregate_text())
    }

    /// The selective decode's margin above the aggregation's own cost, which every format's
    /// `de` contains: `; 1.35x above the aggregation's 31 ns`.
    fn aggregate_text(&self) -> String {
        let (Some(agg), Some((_, w)), Some((_, r))) =
            (self.aggregate, &self.winner, &self.runner_up)
        else {
            return String::new();
        };
        match self.call {
            Call::Margin(_) if w.median > agg => format!(
                "; {:.2}x above the aggregation's {} ns",
                (r.median - agg) / (w.median - agg),
                trim(agg)
            ),
            _ => format!("; both include the aggregation's {} ns", trim(agg)),
        }
    }

    pub fn is_tie(&self) -> bool {
        matches!(self.call, Call::Tie { .. })
    }

    /// The winner the row names: none for a tie or a percentile on too few samples. What counts
    /// winners must read this, not `winner`.
    pub fn named_winner(&self) -> Option<&str> {
        match self.call {
            Call::Tie { .. } | Call::TooFew { .. } => None,
            _ => self.winner.as_ref().map(|(f, _)| f.as_str()),
        }
    }

    /// A tie's group, fastest first, each with its figure; empty when the call is not a tie.
    pub fn tied(&self) -> Vec<(&str, &Stat)> {
        let (Call::Tie { with, .. }, Some((w, ws))) = (&self.call, &self.winner) else {
            return Vec::new();
        };
        std::iter::once((w.as_str(), ws))
            .chain(with.iter().map(|(f, s)| (f.as_str(), s)))
            .collect()
    }

    /// The winner and runner-up cells: `sbe: 55.8 (49.7–66.1)`, `wincode: 64.2`; for a tie
    /// the group with each median, `tie: wincode 116.9, borsh 138.8`, and no runner-up.
    fn contender_cells(&self) -> [String; 2] {
        let shown = |f: &str| {
            let (_, c) = (self.caveats.iter())
                .find(|(n, _)| n == f)
                .cloned()
                .unwrap_or_default();
            c.shown(f)
        };
        let named = |x: &Option<(String, Stat)>| {
            x.as_ref().map_or("-".to_owned(), |(f, s)| {
                format!("{}: {}", shown(f), self.need.show(s))
            })
        };
        match self.call {
            Call::TooFew { .. } => [TOO_FEW.to_owned(), named(&self.runner_up)],
            Call::Tie { .. } => {
                let group: Vec<String> = (self.tied().iter())
                    .map(|(f, s)| format!("{} {}", shown(f), self.need.number(s.median)))
                    .collect();
                [format!("{TIE}{}", group.join(", ")), "-".to_owned()]
            }
            _ => [named(&self.winner), named(&self.runner_up)],
        }
    }
}

/// The formats the verdict names, for the notes on their capabilities: each winner, then each
/// member of a tied group (a tie leaves the choice among them to what they can do); each once.
pub fn named_formats(verdicts: &[Verdict]) -> Vec<String> {
    let winners = verdicts.iter().filter_map(Verdict::named_winner);
    let tied = verdicts
        .iter()
        .flat_map(|v| v.tied().into_iter().map(|(f, _)| f));
    let mut named: Vec<String> = Vec::new();
    for f in winners.chain(tied) {
        if !named.iter().any(|n| n == f) {
            named.push(f.to_owned());
        }
    }
    named
}

/// The one note under a verdict table with a tie: what a tie means, said once.
pub fn tie_note(verdicts: &[Verdict]) -> Option<String> {
    verdicts.iter().any(Verdict::is_tie).then(|| {
        format!(
            "A tie names the fastest and every format the runs cannot call slower than it by \
             more than the resolution (the A/A bias: 1.96 × the rms of the gaps the A/A twins \
             show; {:.0}% where no twin measured one): these runs cannot tell them apart at \
             that resolution. \
             Its margin: the second named over the first, run by run, with its 95% interval \
             and, after ≤, the resolution the interval's lower end does not clear; or what is \
             too few to tell (under {TIE_STEPS:.0} clock steps apart, fewer than \
             {MIN_PAIRED_RUNS} paired runs). Sizes tie only when equal. More runs (--runs) or \
             a quieter machine may resolve a tie.",
            RESOLUTION_FLOOR * 100.0
        )
    })
}

/// What the input was, in one line: feed, packets, messages, a real IEX day or synthetic, and
/// how many runs each figure rests on.
pub fn input_line(input: &str, groups: &[&Group], label: &str) -> String {
    let Some(g) = groups.first() else {
        return String::new();
    };
    let kind = provenance(input);
    let runs = super::tables::runs_text(groups);
    // A format timed only per window times no unit alone and every window whole: its counts
    // are not the run's (the window notes say so).
    let fewest = |f: fn(&Group) -> Option<f64>| {
        (groups.iter())
            .filter(|g| !g.caveats().has(Caveat::WindowOnly))
            .filter_map(|g| f(g))
            .reduce(f64::min)
    };
    let whole = fewest(|g| g.batch_units).map_or(String::new(), |n| {
        let n = super::tables::count(n);
        format!(" and {n} in whole windows (the batch figures)")
    });
    let timed = fewest(|g| g.units_timed).map_or(String::new(), |one| {
        format!(
            " Per run, {} {}s were timed one by one (what the percentiles rest on){whole}.",
            super::tables::count(one),
            g.unit
        )
    });
    let label = match label {
        "" => "label (none)".to_owned(),
        l if super::stats::is_pooled(l) => format!(
            "labels {} pooled (each label a block of runs: its own shift is not counted as noise)",
            l.replace(super::stats::POOL_SEP, " and ")
        ),
        l => format!("label {l}"),
    };
    format!(
        "Input: {input}, IEX {} feed, {} packets, {} messages; {kind}. Each figure above is the \
         median of {runs} under {label}, timed per {}, on {}.{timed}",
        // The input's, as the first run recorded them.
        feed_name(&g.rows[0].feed),
        super::tables::count(g.rows[0].packets),
        super::tables::count(g.rows[0].messages),
        g.unit,
        super::stats::section_hosts(groups),
    )
}

/// The feed as IEX names it: `DEEP`, `TOPS`, `DEEP+` (the CSV says `deep-plus`).
fn feed_name(feed: &str) -> String {
    match feed {
        "deep-plus" => "DEEP+".to_owned(),
        other => other.to_uppercase(),
    }
}

/// Where an input comes from, by its file name (the bundled captures: data/README.md).
pub fn provenance(input: &str) -> String {
    let name = input.trim_end_matches(".gz");
    if name == "DEEP10.pcap" {
        return "real: IEX DEEP 1.0 sample, 2017-04-25 (IEX's developer sample, stitched from \
                twelve short recordings: not a full day)"
            .to_owned();
    }
    match real_day(input) {
        Some(day) if name == "20180127_IEXTP1_TOPS1.6.pcap" => format!(
            "real: IEX HIST TOPS 1.6, {day} (a weekend test session: not a full trading day)"
        ),
        Some(day) => format!("real: an IEX HIST day, {day}"),
        None if input.starts_with("sample-") => {
            "synthetic: a bundled sample written by `shootout gen`, not a real day".to_owned()
        }
        None => "not an IEX file name: synthetic or a capture of your own".to_owned(),
    }
}

/// `2019-09-03` from an IEX HIST file name (`data_feeds_20190903_20190903_IEXTP1_DEEP1.0...`).
pub fn real_day(input: &str) -> Option<String> {
    if !input.contains("IEXTP1") {
        return None;
    }
    input
        .split(|c: char| !c.is_ascii_digit())
        .find(|d| d.len() == 8)
        .map(|d| format!("{}-{}-{}", &d[..4], &d[4..6], &d[6..]))
}

/// The resolution each timed need used, those with the same one together.
fn resolutions_text(verdicts: &[Verdict]) -> String {
    let mut by: Vec<(String, Vec<&str>)> = Vec::new();
    for v in verdicts {
        let (Some(r), Some(_)) = (&v.resolution, &v.winner) else {
            continue;
        };
        let name = v.need.name().trim_start_matches("fastest ");
        let name = name.trim_start_matches("best ");
        match by.iter_mut().find(|(t, _)| *t == r.text()) {
            Some((_, needs)) => needs.push(name),
            None => by.push((r.text(), vec![name])),
        }
    }
    if by.is_empty() {
        return "none (nothing timed was ranked)".to_owned();
    }
    by.iter()
        .map(|(t, needs)| format!("{t} for {}", needs.join(", ")))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The floor column: raw's figure, and beside the selective decode the aggregation's own cost.
fn raw_cell(v: &Verdict) -> String {
    let raw = v.raw.as_ref().map(|s| v.need.show(s));
    match (raw, v.aggregate) {
        (Some(raw), Some(agg)) => format!("{raw}; aggregation alone {}", trim(agg)),
        (None, Some(agg)) => format!("aggregation alone {}", trim(agg)),
        (Some(raw), None) => raw,
        (None, None) => "-".to_owned(),
    }
}

/// The verdict table's columns.
pub const HEADER: [&str; 6] = [
    "need",
    "measured by",
    "winner or tie",
    "runner-up",
    "margin",
    "raw floor",
];

/// The verdict as a table for the outputs.
pub fn table(verdicts: &[Verdict], what: &str) -> Table {
    let runs = verdicts.iter().map(|v| v.runs).max().unwrap_or(0);
    let step = verdicts.iter().find_map(|v| match v.call {
        Call::Steps { step, .. } => Some(step),
        _ => None,
    });
    let step = step.unwrap_or(verdicts.first().map_or(CLOCK_STEP_NS, |v| v.step));
    let ranked = match verdicts.first().map_or(Basis::Batch, |v| v.basis) {
        Basis::Selective => {
            "Ranked by ser + de p50 (the selective decode: these runs timed no complete decode)"
                .to_owned()
        }
        basis => format!(
            "Ranked by {}: serialize plus the complete decode",
            basis.sum_name()
        ),
    };
    Table {
        left: 6,
        caption: format!(
            "{what}: median of {} (min–max). {ranked}. Margin: runner-up over winner run by run \
             (paired by run), the geometric mean of those ratios with its 95% Student-t \
             interval across runs. A winner is named only when the interval's lower bound \
             exceeds 1 + the resolution: the A/A bias, 1.96 × the root mean square of the \
             gaps the A/A twins (one format's codec copied and measured again in the same runs) \
             show on the batch figures ({:.0}% where no twin measured one); \
             fewer than {MIN_PAIRED_RUNS} paired runs resolve nothing. Resolution used: {}. \
             Sizes are exact. Figures timed per unit also tie when the medians are under \
             {TIE_STEPS:.0} clock steps ({} ns, {}) apart, and a percentile with fewer than \
             {MIN_TAIL_SAMPLES:.0} samples beyond it in a run names no winner. raw is the \
             floor, not a contender.",
            super::stats::plural(runs, "run"),
            RESOLUTION_FLOOR * 100.0,
            resolutions_text(verdicts),
            trim(step),
            if step == CLOCK_STEP_NS {
                "assumed"
            } else {
                "as the runs measured it"
            },
        ),
        header: HEADER.map(String::from).to_vec(),
        rows: verdicts
            .iter()
            .map(|v| {
                let [winner, runner_up] = v.contender_cells();
                vec![
                    v.need.name().to_owned(),
                    v.measure.clone(),
                    winner,
                    runner_up,
                    v.margin_text(),
                    raw_cell(v),
                ]
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feeds_are_named_as_iex_names_them() {
        assert_eq!(super::feed_name("deep"), "DEEP");
        assert_eq!(super::feed_name("tops"), "TOPS");
        assert_eq!(super::feed_name("deep-plus"), "DEEP+");
    }

    #[test]
    fn inputs_say_real_or_synthetic() {
        assert!(provenance("DEEP10.pcap.gz").starts_with("real: IEX DEEP 1.0 sample, 2017-04-25"));
        assert!(provenance("20180127_IEXTP1_TOPS1.6.pcap.gz")
            .starts_with("real: IEX HIST TOPS 1.6, 2018-01-27 (a weekend test session"));
        assert_eq!(
            provenance("data_feeds_20190903_20190903_IEXTP1_DEEP1.0.pcap.gz"),
            "real: an IEX HIST day, 2019-09-03"
        );
        assert!(provenance("sample-deep-plus.pcapng.gz").starts_with("synthetic: "));
        assert!(provenance("mine.pcap").starts_with("not an IEX file name"));
    }

    fn stat(median: f64) -> Stat {
        Stat::of(&[median])
    }

    /// An encode row: wincode fastest by median, borsh the runner-up; `call` a tie (borsh and
    /// rkyv with wincode) or a resolved margin.
    fn encode(call: Call) -> Verdict {
        Verdict {
            need: Need::Encode,
            measure: "ser batch, ns/packet".into(),
            winner: Some(("wincode".into(), stat(116.9))),
            runner_up: Some(("borsh".into(), stat(138.8))),
            call,
            raw: Some(stat(116.7)),
            runs: 6,
            basis: Basis::Batch,
            resolution: Some(Resolution::floor()),
            aggregate: None,
            step: CLOCK_STEP_NS,
            caveats: Vec::new(),
        }
    }

    #[test]
    fn a_tie_names_its_group_and_no_winner() {
        let tie = encode(Call::Tie {
            why: "1.16x (95% CI 1.07–1.25x, 6 runs) ≤ 10.6%".into(),
            with: vec![("borsh".into(), stat(138.8)), ("rkyv".into(), stat(146.3))],
        });
        assert_eq!(tie.named_winner(), None);
        assert_eq!(
            tie.contender_cells(),
            ["tie: wincode 116.9, borsh 138.8, rkyv 146.3", "-"]
        );
        assert_eq!(
            tie.margin_text(),
            "tie: 1.16x (95% CI 1.07–1.25x, 6 runs) ≤ 10.6%"
        );
        let win = encode(Call::Margin(Interval {
            ratio: 1.19,
            lo: 1.12,
            hi: 1.26,
            runs: 6,
        }));
        assert_eq!(win.named_winner(), Some("wincode"));
        assert!(win.tied().is_empty());
        assert_eq!(
            win.contender_cells(),
            ["wincode: 116.9", "borsh: 138.8"].map(String::from)
        );
        assert_eq!(win.margin_text(), "1.19x (95% CI 1.12–1.26x, 6 runs)");
        // Winners first, then the tied, each once; the note only where a row ties.
        let both = [win.clone(), tie];
        assert_eq!(named_formats(&both), ["wincode", "borsh", "rkyv"]);
        assert!(tie_note(&both).is_some_and(|n| n.starts_with("A tie names the fastest")));
        assert_eq!(tie_note(&[win]), None);
        let t = table(&both, "day");
        assert_eq!(t.header[2], "winner or tie");
        assert_eq!(
            t.rows[1][2..5],
            [
                "tie: wincode 116.9, borsh 138.8, rkyv 146.3",
                "-",
                "tie: 1.16x (95% CI 1.07–1.25x, 6 runs) ≤ 10.6%"
            ]
        );
    }

    #[test]
    fn products_are_compact() {
        let compact = |x| Need::BytesTime.number(x);
        assert_eq!(compact(12_345.0), "12.3k");
        assert_eq!(compact(4_560_000.0), "4.56M");
        assert_eq!(compact(7_376.4), "7376");
    }
}
