//! The answer first: for each need (fastest encode, smallest as stored, ...) the winner, the
//! runner-up and the margin with its spread across runs, for the top of `index.html` and
//! `summary.md`.
//!
//! A margin inside the run-to-run spread is a tie, and so is one a few clock steps wide on a
//! figure timed per packet: this machine's clock moves in [`CLOCK_STEP_NS`] steps, so two
//! medians 20 ns apart say nothing about which format is faster, and a ratio of two figures that
//! small would only restate the clock's resolution.

use super::stats::{trim, Basis, Group, Stat, RAW};
use super::tables::Table;

/// The step of the TSC clock on the machines the shootout ran on (a VM's TSC moves in 10 ns
/// steps). Figures timed one unit at a time (p50, p99.9) are multiples of it, near enough.
pub const CLOCK_STEP_NS: f64 = 10.0;

/// Medians fewer than this many clock steps apart are a tie, whatever the spread says.
pub const TIE_STEPS: f64 = 3.0;

/// A winner below this many clock steps is not divided by: the margin is given in ns.
pub const RATIO_STEPS: f64 = 5.0;

/// What a reader may want from a format, in the order of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    Encode,
    SelectiveDecode,
    CompleteDecode,
    Tail,
    Wire,
    Stored,
    BytesTime,
}

impl Need {
    pub const ALL: [Need; 7] = [
        Need::Encode,
        Need::SelectiveDecode,
        Need::CompleteDecode,
        Need::Tail,
        Need::Wire,
        Need::Stored,
        Need::BytesTime,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Need::Encode => "fastest encode",
            Need::SelectiveDecode => "fastest selective decode",
            Need::CompleteDecode => "fastest complete decode",
            Need::Tail => "best p99.9 tail",
            Need::Wire => "smallest on the wire",
            Need::Stored => "smallest as stored (zstd)",
            Need::BytesTime => "best bytes × time",
        }
    }

    /// What the need is judged by, for a group ranked on `basis`.
    pub fn measure(self, basis: Basis, unit: &str) -> String {
        let batch = basis == Basis::Batch;
        match self {
            Need::Encode if batch => format!("ser batch, ns/{unit}"),
            Need::Encode => format!("ser p50, ns/{unit}"),
            Need::SelectiveDecode if batch => format!("de batch, ns/{unit}"),
            Need::SelectiveDecode => format!("de p50, ns/{unit}"),
            Need::CompleteDecode if batch => format!("de_all batch, ns/{unit}"),
            Need::CompleteDecode => format!("de_all p50, ns/{unit}"),
            Need::Tail => format!("ser p99.9 + de p99.9, ns/{unit}"),
            Need::Wire => "bytes/msg encoded".into(),
            Need::Stored => "bytes/msg, zstd -3".into(),
            Need::BytesTime if batch => format!("bytes/msg × (ser + de batch ns/{unit})"),
            Need::BytesTime => format!("bytes/msg × (ser + de p50 ns/{unit})"),
        }
    }

    /// The group's figure for this need (lower is better), and whether it is timed one unit at a
    /// time, so moves in clock steps; `None` when not measured.
    pub fn figure(self, g: &Group) -> Option<(Stat, bool)> {
        let batch = g.basis == Basis::Batch;
        match self {
            Need::Encode if batch => g.ser_batch.map(|s| (s, false)),
            Need::Encode => Some((*g.ser.p50(), true)),
            Need::SelectiveDecode if batch => g.de_batch.map(|s| (s, false)),
            Need::SelectiveDecode => Some((*g.de.p50(), true)),
            Need::CompleteDecode if batch => g.de_all_batch.map(|s| (s, false)),
            Need::CompleteDecode => g.de_all.as_ref().map(|s| (*s.p50(), true)),
            Need::Tail => Some((sum(g.ser.p999(), g.de.p999()), true)),
            Need::Wire => Some((g.bytes_per_message, false)),
            Need::Stored => g.zstd_bytes_per_message.map(|s| (s, false)),
            Need::BytesTime => Some((product(&g.bytes_per_message, &speed(g)?), false)),
        }
    }

    /// How a figure of this need is written: ns, bytes, or bytes × ns.
    pub fn show(self, s: &Stat) -> String {
        let v = |x: f64| match self {
            Need::BytesTime => compact(x),
            _ => trim(x),
        };
        if s.min == s.max {
            v(s.median)
        } else {
            format!("{} ({}–{})", v(s.median), v(s.min), v(s.max))
        }
    }
}

/// ser + de of the group's basis, as one figure whose spread is the sum of the spreads.
pub fn speed(g: &Group) -> Option<Stat> {
    match g.basis {
        Basis::Batch => Some(sum(g.ser_batch.as_ref()?, g.de_batch.as_ref()?)),
        Basis::P50 => Some(sum(g.ser.p50(), g.de.p50())),
    }
}

/// Two figures added: medians added, and the widest spread they allow (the runs' minima may not
/// be the same run's, so this over-states the spread rather than hides it).
pub fn sum(a: &Stat, b: &Stat) -> Stat {
    Stat {
        median: a.median + b.median,
        min: a.min + b.min,
        max: a.max + b.max,
        cv_pct: a.cv_pct.max(b.cv_pct),
    }
}

fn product(a: &Stat, b: &Stat) -> Stat {
    Stat {
        median: a.median * b.median,
        min: a.min * b.min,
        max: a.max * b.max,
        cv_pct: a.cv_pct.max(b.cv_pct),
    }
}

/// `12.3k`, `4.56M`: bytes × ns products are large and only their ratio matters.
fn compact(x: f64) -> String {
    if x >= 1e6 {
        format!("{:.2}M", x / 1e6)
    } else if x >= 1e4 {
        format!("{:.1}k", x / 1e3)
    } else {
        format!("{x:.0}")
    }
}

/// How far apart the winner and the runner-up are.
#[derive(Debug, Clone, PartialEq)]
pub enum Call {
    /// The runner-up's median over the winner's, and the range of that ratio the runs allow
    /// (runner-up's min over winner's max .. runner-up's max over winner's min).
    Margin { ratio: f64, lo: f64, hi: f64 },
    /// The winner is only a few clock steps wide: the margin in ns, not a ratio.
    Steps { ns: f64 },
    /// Within the run-to-run spread, or within [`TIE_STEPS`] clock steps; `with` names every
    /// format tied with the winner.
    Tie { why: String, with: Vec<String> },
    /// Nothing to compare with.
    Alone,
}

/// One row of the verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub need: Need,
    pub measure: String,
    /// `(format, figure)`; `None` when no format measured the need.
    pub winner: Option<(String, Stat)>,
    pub runner_up: Option<(String, Stat)>,
    pub call: Call,
    /// The `raw` floor's figure, shown beside the winner (raw is the floor, never a winner).
    pub raw: Option<Stat>,
    /// Runs behind the winner's figure.
    pub runs: usize,
}

/// Ranks the formats of one section (input and label) for every need. `raw` is left out of the
/// ranking: it is the floor (fixed-size records copied in place), shown beside the winner.
pub fn verdicts(groups: &[&Group]) -> Vec<Verdict> {
    let basis = groups.first().map_or(Basis::P50, |g| g.basis);
    let unit = groups.first().map_or("packet", |g| g.unit);
    Need::ALL
        .into_iter()
        .filter_map(|need| {
            let mut ranked: Vec<(&Group, Stat, bool)> = groups
                .iter()
                .filter(|g| g.format != RAW)
                .filter_map(|g| need.figure(g).map(|(s, q)| (*g, s, q)))
                .collect();
            if ranked.is_empty() {
                return None;
            }
            ranked.sort_by(|a, b| {
                a.1.median
                    .total_cmp(&b.1.median)
                    .then(a.0.format.cmp(&b.0.format))
            });
            let (w, ws, quantized) = ranked[0];
            let call = match ranked.get(1) {
                None => Call::Alone,
                Some(_) => call(&ranked, quantized),
            };
            Some(Verdict {
                need,
                measure: need.measure(basis, unit),
                winner: Some((w.format.clone(), ws)),
                runner_up: ranked.get(1).map(|(g, s, _)| (g.format.clone(), *s)),
                call,
                raw: groups
                    .iter()
                    .find(|g| g.format == RAW)
                    .and_then(|g| need.figure(g))
                    .map(|(s, _)| s),
                runs: w.runs,
            })
        })
        .collect()
}

fn call(ranked: &[(&Group, Stat, bool)], quantized: bool) -> Call {
    let (w, ws, _) = ranked[0];
    let (_, rs, _) = ranked[1];
    let steps = TIE_STEPS * CLOCK_STEP_NS;
    let near = |s: &Stat| quantized && s.median - ws.median < steps;
    // Overlapping spreads only say something when both sides have one.
    let overlaps = |g: &Group, s: &Stat| w.runs > 1 && g.runs > 1 && s.min <= ws.max;
    let tied: Vec<String> = ranked[1..]
        .iter()
        .filter(|(g, s, _)| near(s) || overlaps(g, s))
        .map(|(g, _, _)| g.format.clone())
        .collect();
    if !tied.is_empty() {
        let why = if near(&rs) {
            format!(
                "{} ns apart, under {TIE_STEPS:.0} steps of the {CLOCK_STEP_NS:.0} ns clock",
                trim(rs.median - ws.median)
            )
        } else {
            "run-to-run spreads overlap".to_owned()
        };
        return Call::Tie { why, with: tied };
    }
    if quantized && ws.median < RATIO_STEPS * CLOCK_STEP_NS {
        return Call::Steps {
            ns: rs.median - ws.median,
        };
    }
    let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { f64::INFINITY };
    Call::Margin {
        ratio: ratio(rs.median, ws.median),
        lo: ratio(rs.min, ws.max),
        hi: ratio(rs.max, ws.min),
    }
}

impl Verdict {
    /// The margin column: `1.32x (1.20–1.45x across runs)`, `tie: ...`.
    pub fn margin_text(&self) -> String {
        match &self.call {
            Call::Margin { ratio, lo, hi } if self.runs > 1 && (hi - lo).abs() > 0.005 => {
                format!("{ratio:.2}x ({lo:.2}–{hi:.2}x across runs)")
            }
            Call::Margin { ratio, .. } if self.runs > 1 => format!("{ratio:.2}x (every run)"),
            Call::Margin { ratio, .. } => format!("{ratio:.2}x (1 run: spread unknown)"),
            Call::Steps { ns } => format!(
                "+{} ns ({:.0} clock steps; too few to divide)",
                trim(*ns),
                ns / CLOCK_STEP_NS
            ),
            Call::Tie { why, with } => format!("tie with {}: {why}", with.join(", ")),
            Call::Alone => "no other format measured".to_owned(),
        }
    }

    pub fn is_tie(&self) -> bool {
        matches!(self.call, Call::Tie { .. })
    }
}

/// What the input was, in one line: feed, packets, messages, a real IEX day or synthetic, and
/// how many runs each figure rests on.
pub fn input_line(input: &str, groups: &[&Group], label: &str) -> String {
    let Some(g) = groups.first() else {
        return String::new();
    };
    let kind = match real_day(input) {
        Some(day) => format!("a real IEX HIST day ({day})"),
        None if input.starts_with("sample-") => {
            "the bundled sample: synthetic, written by `shootout gen`, not a real day".to_owned()
        }
        None => "not an IEX HIST file name: synthetic or a capture of your own".to_owned(),
    };
    let (lo, hi) = groups.iter().fold((usize::MAX, 0), |(lo, hi), g| {
        (lo.min(g.runs), hi.max(g.runs))
    });
    let runs = if lo == hi {
        format!("{lo} run{}", if lo == 1 { "" } else { "s" })
    } else {
        format!("{lo}–{hi} runs")
    };
    format!(
        "Input: {input}, IEX {} feed, {} packets, {} messages; {kind}. Each figure above is the \
         median of {runs} under label {}, timed per {}, on {}.",
        feed_name(&g.feed),
        super::tables::count(g.packets),
        super::tables::count(g.messages),
        if label.is_empty() { "(none)" } else { label },
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

/// The verdict as a table for the outputs.
pub fn table(verdicts: &[Verdict], what: &str) -> Table {
    let runs = verdicts.iter().map(|v| v.runs).max().unwrap_or(0);
    Table {
        left: 6,
        caption: format!(
            "{what}: median of {} (min–max). Margin: runner-up over winner; a tie when the \
             spreads overlap or the medians are under {TIE_STEPS:.0} clock steps \
             ({CLOCK_STEP_NS:.0} ns) apart. raw is the floor, not a contender.",
            if runs == 1 {
                "1 run".to_owned()
            } else {
                format!("{runs} runs")
            }
        ),
        header: [
            "need",
            "measured by",
            "winner",
            "runner-up",
            "margin",
            "raw floor",
        ]
        .map(String::from)
        .to_vec(),
        rows: verdicts
            .iter()
            .map(|v| {
                let named = |x: &Option<(String, Stat)>| {
                    x.as_ref()
                        .map_or("-".to_owned(), |(f, s)| format!("{f}: {}", v.need.show(s)))
                };
                vec![
                    v.need.name().to_owned(),
                    v.measure.clone(),
                    named(&v.winner),
                    named(&v.runner_up),
                    v.margin_text(),
                    v.raw.as_ref().map_or("-".to_owned(), |s| v.need.show(s)),
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

    fn st(median: f64, min: f64, max: f64) -> Stat {
        Stat {
            median,
            min,
            max,
            cv_pct: 0.0,
        }
    }

    #[test]
    fn real_days_are_named() {
        assert_eq!(
            real_day("data_feeds_20190903_20190903_IEXTP1_DEEP1.0.pcap.gz").as_deref(),
            Some("2019-09-03")
        );
        assert_eq!(real_day("sample-deep.pcapng.gz"), None);
    }

    #[test]
    fn sums_widen_the_spread() {
        let s = sum(&st(10.0, 9.0, 12.0), &st(5.0, 4.0, 5.0));
        assert_eq!((s.median, s.min, s.max), (15.0, 13.0, 17.0));
        assert_eq!(compact(12_345.0), "12.3k");
        assert_eq!(compact(4_560_000.0), "4.56M");
    }
}
