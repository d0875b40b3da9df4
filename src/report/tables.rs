//! The tables of `summary.md` and `index.html`, built once as text cells so both show the same.

use super::dist::MergedRow;
use super::load::{RunRow, PERCENTILES};
use super::stats::{distinct, trim, Basis, Group, SideStats, Stat, MIN_TAIL_SAMPLES};
use crate::export::caveat::Caveats;
use crate::measure::Workload;
use crate::output::Table;

/// The two tables of one (input, label): the headline figures, then every percentile.
pub fn section_tables(groups: &[&Group]) -> [Table; 2] {
    [headline(groups), percentiles(groups)]
}

/// Per format: the ratios, the sizes, the rate, each side's p50 to p99.9 and the batch figures.
fn headline(groups: &[&Group]) -> Table {
    let runs = runs_text(groups);
    let unit = groups.first().map_or("packet", |g| g.unit);
    Table {
        left: 1,
        caption: format!(
            "Median across {runs}, min–max in brackets; ns per {unit}. {} \
             de is the selective decode (only the fields the aggregation needs); de_all the \
             complete decode (every field of every message read and folded into a checksum). \
             msgs/s: messages over ser + de_all time, from the batch timing in runs that have \
             it, from the per-packet totals in older ones. \
             zstd and zlib B/msg: the size as stored (each window compressed whole). \
             A dash marks what was not measured.{}{}{}{}",
            basis_text(groups),
            floor_text(groups),
            clock_text(groups),
            marks_text(groups),
            window_text(groups),
        ),
        header: headline_header(),
        rows: groups
            .iter()
            .map(|g| {
                let tails = |w| {
                    let at = |p: fn(&SideStats) -> &Stat| g.latency(w).map(|s| *p(s));
                    [SideStats::p50, SideStats::p99, SideStats::p999].map(|p| maybe_spread(&at(p)))
                };
                let mut row = vec![
                    g.shown(),
                    g.runs.to_string(),
                    format!("{:.2}x", g.ratio_to_fastest),
                    g.ratio_to_raw
                        .map_or(NOT_MEASURED.to_owned(), |r| format!("{r:.2}x")),
                    format!("{:.1}", g.bytes_per_message.median),
                    size(&g.zstd_bytes_per_message),
                    size(&g.zlib_bytes_per_message),
                    rate(g.msgs_per_sec.median),
                ];
                row.extend(tails(Workload::Encode));
                row.extend(tails(Workload::Selective));
                row.extend(g.throughput.values().map(maybe_spread));
                row.extend(tails(Workload::Complete));
                row
            })
            .collect(),
    }
}

/// The headline's columns: as [`headline`]'s rows, each side's tails around the batch figures.
fn headline_header() -> Vec<String> {
    let tails = |w: Workload| ["p50", "p99", "p99.9"].map(|p| format!("{} {p}", w.column()));
    let mut header: Vec<String> = [
        "format",
        "runs",
        "vs fastest",
        "x raw",
        "bytes/msg",
        "zstd B/msg",
        "zlib B/msg",
        "msgs/s (ser+de)",
    ]
    .map(String::from)
    .to_vec();
    header.extend(tails(Workload::Encode));
    header.extend(tails(Workload::Selective));
    header.extend(Workload::ALL.map(|w| format!("{} batch", w.column())));
    header.extend(tails(Workload::Complete));
    header
}

/// Per format and side: every percentile with its variation across runs.
fn percentiles(groups: &[&Group]) -> Table {
    let runs = runs_text(groups);
    let unit = groups.first().map_or("packet", |g| g.unit);
    let mut header = vec!["format".to_owned(), "side".to_owned()];
    header.extend(PERCENTILES.iter().map(|p| p.to_string()));
    let side_row = |g: &Group, side: &str, s: &SideStats| {
        let mut row = vec![g.shown(), side.to_owned()];
        row.extend(s.0.iter().enumerate().map(|(i, st)| {
            let thin = if g.thin(i) && PERCENTILES[i] != "max" {
                " †"
            } else {
                ""
            };
            format!("{} ({:.1}%){thin}", trim(st.median), st.cv_pct)
        }));
        row
    };
    Table {
        left: 2,
        caption: format!(
            "Every percentile: median across {runs} in ns per {unit}, coefficient of variation \
             (stdev/mean across runs) in brackets. Each {unit} timed on its own (a clock pair \
             per {unit}). de: selective decode; de_all: complete decode, where measured. \
             † fewer than {MIN_TAIL_SAMPLES:.0} samples lie beyond this percentile in a run: \
             indicative only, and its variation across runs is expected (max is one sample).{}",
            window_text(groups)
        ),
        header,
        rows: groups
            .iter()
            .flat_map(|g| {
                g.latency
                    .iter()
                    .filter_map(|(w, s)| Some(side_row(g, w.column(), s.as_ref()?)))
                    .collect::<Vec<_>>()
            })
            .collect(),
    }
}

/// The "merged" rows of a section: every run's histograms added into one, per format and side;
/// `None` when no run left its histograms (`.hlog`).
pub fn merged_table(rows: &[&MergedRow], groups: &[&Group]) -> Option<Table> {
    let unit = groups.first().map_or("packet", |g| g.unit);
    if rows.is_empty() {
        return None;
    }
    let mut header = vec!["format".to_owned(), "side".to_owned(), "runs".to_owned()];
    header.push(format!("{unit}s"));
    header.extend(PERCENTILES.iter().map(|p| p.to_string()));
    Some(Table {
        left: 2,
        caption: format!(
            "Merged: each format's histograms of every run (and every host) added into one, \
             ns per {unit}. Unlike a median of the runs' percentiles, these are the percentiles \
             of all the timed {unit}s together; the distribution charts draw the same."
        ),
        header,
        rows: rows
            .iter()
            .map(|r| {
                let mut row = vec![
                    super::stats::shown(groups, &r.format),
                    format!("{} merged", r.side),
                    r.runs.to_string(),
                    count(r.count as f64),
                ];
                row.extend(r.values.iter().map(|v| trim(*v)));
                row
            })
            .collect(),
    })
}

/// Per format: allocations and bytes allocated per unit on each side; `None` when no run of the
/// section counted them.
pub fn allocations_table(groups: &[&Group]) -> Option<Table> {
    let unit = groups.first().map_or("packet", |g| g.unit);
    let side = |g: &Group, pick: fn(&RunRow) -> Option<[f64; 3]>, i: usize| {
        Stat::of_some(g.rows.iter().map(|r| pick(r).map(|a| a[i])))
    };
    if !groups
        .iter()
        .any(|g| g.rows.iter().any(|r| r.allocs.is_some()))
    {
        return None;
    }
    let cell = |s: Option<Stat>, decimals: usize| {
        s.map_or(NOT_MEASURED.to_owned(), |s| {
            s.spread_with(|x| format!("{x:.decimals$}"))
        })
    };
    Some(Table {
        left: 1,
        caption: format!(
            "Allocations per {unit} after the warm-up, and the bytes they asked for, on each \
             side: counted by a counting global allocator in an untimed pass over every window \
             (the same encode and decode calls as the timed passes, after them), median across \
             the runs that counted them. 0 means the format allocated nothing once warm."
        ),
        header: ["format", "ser allocs", "de allocs", "de_all allocs"]
            .into_iter()
            .chain(["ser bytes", "de bytes", "de_all bytes"])
            .map(String::from)
            .collect(),
        rows: groups
            .iter()
            .map(|g| {
                let mut row = vec![g.shown()];
                row.extend((0..3).map(|i| cell(side(g, |r| r.allocs, i), 3)));
                row.extend((0..3).map(|i| cell(side(g, |r| r.alloc_bytes, i), 1)));
                row
            })
            .collect(),
    })
}

/// Why a format timed only per window has no percentile, for a caption.
fn window_text(groups: &[&Group]) -> String {
    (groups.iter())
        .filter_map(|g| g.latency_note())
        .map(|note| format!(" {note}."))
        .collect()
}

/// What each mark after a format's name means, for a caption.
pub fn marks_text(groups: &[&Group]) -> String {
    (Caveats::notes(groups.iter().map(|g| g.caveats())))
        .filter(|c| c.mark().is_some())
        .map(|c| format!(" {}.", c.note()))
        .collect()
}

/// What the section is ranked by, as sentences for the caption.
fn basis_text(groups: &[&Group]) -> String {
    let basis = groups.first().map_or(Basis::Selective, |g| g.basis);
    let unit = groups.first().map_or("packet", |g| g.unit);
    let partial = groups
        .iter()
        .any(|g| g.batch_runs > 0 && g.batch_runs < g.runs);
    let ranked = "vs fastest and x raw are that over the fastest's and raw's";
    match basis {
        Basis::Batch => format!(
            "Ranked by ser batch + de_all batch, each run's sum, median across runs (batch: one \
             clock pair around each whole window, ns per {unit}, mean over the run; not \
             quantized by the clock's steps and without the timer's own cost; de_all: the \
             complete decode); {ranked}. p50, p99 and p99.9 time each {unit} on its own.{}",
            if partial {
                " Batch figures are over the runs that measured them."
            } else {
                ""
            }
        ),
        Basis::P50 => format!(
            "Ranked by ser p50 + de_all p50, each run's sum, median across runs, as not every \
             format here has batch figures; {ranked}."
        ),
        Basis::Selective => format!(
            "Ranked by ser p50 + de p50 (the selective decode), each run's sum, median across \
             runs, as not every format here has a complete decode (CSVs from before it was \
             timed); {ranked}."
        ),
    }
}

/// The clocks the section's runs timed with, as a sentence; empty for CSVs from before.
fn clock_text(groups: &[&Group]) -> String {
    let clocks = distinct(groups, |g| &g.clocks);
    if clocks.is_empty() {
        String::new()
    } else {
        format!(" Clock: {}.", clocks.join(", "))
    }
}

/// The memcpy floor of the section's runs, as a sentence for the caption.
fn floor_text(groups: &[&Group]) -> String {
    let Some((g, p50)) =
        (groups.iter()).find_map(|g| Some((g, g.column(|r| Some(r.memcpy_p50_ns? as f64))?)))
    else {
        return aggregate_text(groups);
    };
    let mean = g.column(|r| r.memcpy_mean_ns);
    let batch = groups.iter().find_map(|g| g.column(|r| r.memcpy_batch_ns));
    format!(
        " The memcpy floor (raw's bytes copied packet by packet in the same timed loop): \
         p50 {}{}{} ns.{}",
        spread(&p50),
        mean.map_or(String::new(), |m| format!(", mean {}", spread(&m))),
        batch.map_or(String::new(), |b| format!(", batch {}", spread(&b))),
        aggregate_text(groups)
    )
}

/// The aggregation's own cost, the floor under every format's `de`, as a sentence.
fn aggregate_text(groups: &[&Group]) -> String {
    groups
        .iter()
        .find_map(|g| g.column(|r| r.aggregate_batch_ns))
        .map_or(String::new(), |a| {
            format!(
                " The aggregation floor (the selective decode's per-symbol hash map fed \
                 without a format, the same work inside every format's de): batch {} ns.",
                spread(&a)
            )
        })
}

/// What a cell shows for a figure no run measured.
pub const NOT_MEASURED: &str = "-";

/// A median size per message, `-` when not measured.
fn size(s: &Option<Stat>) -> String {
    s.map_or(NOT_MEASURED.to_owned(), |s| format!("{:.1}", s.median))
}

pub(super) fn runs_text(groups: &[&Group]) -> String {
    let min = groups.iter().map(|g| g.runs).min().unwrap_or(0);
    let max = groups.iter().map(|g| g.runs).max().unwrap_or(0);
    match (min, max) {
        (a, b) if a == b => super::stats::plural(a, "run"),
        (a, b) => format!("{a}–{b} runs"),
    }
}

/// [`spread`], or `-` when not measured.
pub fn maybe_spread(s: &Option<Stat>) -> String {
    s.as_ref().map_or(NOT_MEASURED.to_owned(), spread)
}

/// `69 (60–80)`, or `69` when every run agreed.
pub fn spread(s: &Stat) -> String {
    s.spread_with(trim)
}

/// `1,234,567`: a count, or an axis value of a chart.
pub fn count(x: f64) -> String {
    let digits = format!("{:.0}", x.abs());
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if x < 0.0 {
        format!("-{out}")
    } else {
        out
    }
}

/// `6.07M`, `950.0k`.
pub fn rate(x: f64) -> String {
    abbreviated(x, 1e3)
}

/// `x` in millions (`4.56M`), in thousands from `thousands_from` (`12.3k`), else whole.
pub fn abbreviated(x: f64, thousands_from: f64) -> String {
    if x >= 1e6 {
        format!("{:.2}M", x / 1e6)
    } else if x >= thousands_from {
        format!("{:.1}k", x / 1e3)
    } else {
        format!("{x:.0}")
    }
}
