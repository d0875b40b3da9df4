//! `shootout report`, step 2: group the rows by (input, label, format) and reduce each group's
//! runs to a median, a min–max spread and a coefficient of variation; rank formats; compare each
//! with the `raw` floor; warn about what makes the figures doubtful.

use std::collections::BTreeMap;

use super::load::{RunRow, Runs, PERCENTILES};
use crate::export::caveat::Caveats;
use crate::measure::{trust, PerWorkload, Workload};

/// Runs below this count get a warning: a median of fewer says little about the spread.
pub use crate::measure::trust::{trim, MAX_CV_PCT, MAX_OVERHEAD_SHARE, MIN_RUNS};

/// One column reduced across runs.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Stat {
    /// The median across runs (the mean of the middle two for an even count).
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// Sample standard deviation (n − 1) over the mean, in %; 0 for a single run or a zero mean.
    pub cv_pct: f64,
}

impl Stat {
    /// Reduces the values that are there; `None` when none is (a column no run measured).
    pub fn of_some(values: impl IntoIterator<Item = Option<f64>>) -> Option<Stat> {
        let v: Vec<f64> = values.into_iter().flatten().collect();
        (!v.is_empty()).then(|| Stat::of(&v))
    }

    /// Reduces `values` (at least one).
    pub fn of(values: &[f64]) -> Stat {
        assert!(!values.is_empty(), "a group has at least one run");
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        };
        let mean = v.iter().sum::<f64>() / n as f64;
        let cv_pct = if n < 2 || mean == 0.0 {
            0.0
        } else {
            let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
            100.0 * var.sqrt() / mean.abs()
        };
        Stat {
            median,
            min: v[0],
            max: v[n - 1],
            cv_pct,
        }
    }

    /// `69 (60–80)`, each number written by `number`; `69` when every run agreed.
    pub fn spread_with(&self, number: impl Fn(f64) -> String) -> String {
        let (median, min, max) = (number(self.median), number(self.min), number(self.max));
        if self.min == self.max {
            median
        } else {
            format!("{median} ({min}–{max})")
        }
    }
}

/// One workload timed per unit, each column in [`PERCENTILES`] order.
#[derive(Debug, Clone, PartialEq)]
pub struct SideStats(pub [Stat; 7]);

impl SideStats {
    /// Over the rows that timed `workload` per unit; `None` when none did.
    fn of(rows: &[&RunRow], workload: Workload) -> Option<SideStats> {
        let have: Vec<&[f64; 7]> = rows
            .iter()
            .filter_map(|r| r.latency[workload].as_ref())
            .collect();
        (!have.is_empty()).then(|| {
            SideStats(std::array::from_fn(|i| {
                Stat::of(&have.iter().map(|l| l[i]).collect::<Vec<_>>())
            }))
        })
    }
    pub fn p50(&self) -> &Stat {
        &self.0[0]
    }
    pub fn p99(&self) -> &Stat {
        &self.0[2]
    }
    pub fn p999(&self) -> &Stat {
        &self.0[3]
    }
}

/// All runs of one format on one input under one label.
#[derive(Debug, Clone)]
pub struct Group {
    /// The input's file name.
    pub input: String,
    pub label: String,
    /// `packet` or `message`: what the figures are per (the label says it too).
    pub unit: &'static str,
    pub format: String,
    pub runs: usize,
    /// Each run's row, in file order: what run-by-run comparisons and sums are computed from.
    pub rows: Vec<RunRow>,
    /// Units timed one by one in the run with the fewest (`units` column): what each run's
    /// percentiles rest on; `None` for CSVs from before the column.
    pub units_timed: Option<f64>,
    /// Units timed in whole windows in the run with the fewest (`batch_units` column).
    pub batch_units: Option<f64>,
    /// Distinct hosts the runs came from, sorted.
    pub hosts: Vec<String>,
    /// Each workload timed per unit, over the runs that timed it.
    pub latency: PerWorkload<Option<SideStats>>,
    /// Each workload timed by whole windows, ns per unit, over the runs that measured it.
    pub throughput: PerWorkload<Option<Stat>>,
    pub bytes_per_message: Stat,
    pub msgs_per_sec: Stat,
    pub timer_overhead_ns: Stat,
    /// The size as stored per message, over the runs that measured it: this group's, or any
    /// other label's runs that encoded the same bytes (`same_bytes`; `bench` compresses in one
    /// run only).
    pub zstd_bytes_per_message: Option<Stat>,
    pub zlib_bytes_per_message: Option<Stat>,
    /// Total zstd time per run, ns.
    pub zstd_ns: Option<Stat>,
    /// How many runs have both ser batch and de batch (at most [`Group::runs`]).
    pub batch_runs: usize,
    /// Distinct `clock` values of the runs, sorted; empty for CSVs from before.
    pub clocks: Vec<String>,
    /// What the section of this group is ranked by.
    pub basis: Basis,
    /// Each run's [`Basis::run_speed`] on [`Group::basis`]: what formats are ranked by.
    pub speed: Stat,
    /// [`Group::speed`]'s median over the fastest format's of the section.
    pub ratio_to_fastest: f64,
    /// The same over the `raw` floor's (fixed-size records copied in place); `None` without raw.
    pub ratio_to_raw: Option<f64>,
    /// ser batch + de_all batch over raw's: [`Group::ratio_to_raw`] when ranked on
    /// [`Basis::Batch`], `None` otherwise.
    pub ratio_all_to_raw: Option<f64>,
}

/// What formats are ranked by, and their ratios computed from: always serialize plus a decode,
/// the complete decode (`de_all`: every field read, what a consumer of the feed pays) wherever
/// the runs measured it; the selective decode stays a need of its own in the verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Basis {
    /// ser batch + de_all batch: every group of the section has them.
    Batch,
    /// ser p50 + de_all p50: some group lacks the batch figures (hand-made or partial CSVs).
    P50,
    /// ser p50 + de p50 (the selective decode): some group has no complete decode at all (CSVs
    /// from before it was timed).
    #[default]
    Selective,
}

impl Basis {
    /// One run's ser + decode on this basis, ns per unit.
    pub fn run_speed(self, r: &RunRow) -> Option<f64> {
        match self {
            Basis::Batch => {
                Some(r.throughput[Workload::Encode]? + r.throughput[Workload::Complete]?)
            }
            Basis::P50 => {
                Some(r.percentile(Workload::Encode, 0)? + r.percentile(Workload::Complete, 0)?)
            }
            Basis::Selective => {
                Some(r.percentile(Workload::Encode, 0)? + r.percentile(Workload::Selective, 0)?)
            }
        }
    }
    /// The sum as the tables name it: `ser + de_all batch`.
    pub fn sum_name(self) -> &'static str {
        match self {
            Basis::Batch => "ser + de_all batch",
            Basis::P50 => "ser + de_all p50",
            Basis::Selective => "ser + de p50",
        }
    }
    /// `batch`, `p50` or `p50-selective`, as `summary.csv`'s `ranked_by` says it.
    pub fn name(self) -> &'static str {
        match self {
            Basis::Batch => "batch",
            Basis::P50 => "p50",
            Basis::Selective => "p50-selective",
        }
    }
    /// The first basis (batch, p50, selective) every figure `has`: what a set of groups is ranked
    /// and compared on.
    pub fn first_all(has: impl Fn(Basis) -> bool) -> Basis {
        [Basis::Batch, Basis::P50]
            .into_iter()
            .find(|b| has(*b))
            .unwrap_or(Basis::Selective)
    }
    /// Whether figures on this basis are timed one unit at a time, so move in clock steps.
    pub fn quantized(self) -> bool {
        self != Basis::Batch
    }
}

impl Group {
    /// What its rows' columns say a reader must know (`export::caveat`), over every run.
    pub fn caveats(&self) -> Caveats {
        (self.rows.iter()).fold(Caveats::default(), |c, r| c.union(r.caveats))
    }

    /// Its format's name as the report shows it: with the mark of each caveat.
    pub fn shown(&self) -> String {
        self.caveats().shown(&self.format)
    }

    /// Why it has no per-unit latency, from its rows (a format timed only per window).
    pub fn latency_note(&self) -> Option<&str> {
        self.rows.iter().find_map(|r| r.latency_note.as_deref())
    }

    /// Each run's ser + decode on `basis`, reduced across the runs that have it.
    pub fn speed_on(&self, basis: Basis) -> Option<Stat> {
        self.column(|r| basis.run_speed(r))
    }
    /// A figure of its rows (`|r| r.memcpy_batch_ns`) reduced across the runs that have it.
    pub fn column(&self, of: impl Fn(&RunRow) -> Option<f64>) -> Option<Stat> {
        Stat::of_some(self.rows.iter().map(of))
    }
    pub fn latency(&self, workload: Workload) -> Option<&SideStats> {
        self.latency[workload].as_ref()
    }
    /// `workload`'s p50 (median across runs), where timed per unit.
    pub fn p50(&self, workload: Workload) -> Option<f64> {
        self.latency(workload).map(|s| s.p50().median)
    }
}

/// What a warning is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum WarningKind {
    /// An A/A twin called apart from its own copy by the verdict's rule: the method is broken.
    TwinApart,
    /// Minor page faults inside a run's timed regions of a format that allocates nothing there:
    /// the tails measure the harness.
    TimedFaults,
    /// Minor page faults inside the timed regions of a format that allocates there: its
    /// allocator growing the heap, the format's own cost.
    OwnFaults,
    /// The input was cut short at its end and read with `--lenient`: its whole packets only.
    CutShort,
    FewRuns,
    HighVariation,
    TimerOverhead,
    AboveFloor,
    Governor,
    Duplicates,
    NoHistograms,
    /// Involuntary context switches inside a format's timed passes (`preempted`).
    Preempted,
    /// Batch passes timed again because a context switch landed inside them (`retimed`).
    Retimed,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Warning {
    pub kind: WarningKind,
    pub message: String,
    /// For [`WarningKind::HighVariation`]: the columns that varied (`ser p99`, `de batch`), so
    /// the warnings can be summed up by column; empty for the other kinds.
    pub columns: Vec<String>,
}

impl Warning {
    pub fn new(kind: WarningKind, message: String) -> Warning {
        Warning {
            kind,
            message,
            columns: Vec::new(),
        }
    }
}

/// A percentile with fewer samples than this beyond it, in one run, is read as indicative: its
/// run-to-run variation is expected and not flagged, the tables mark it, and the verdict never
/// ranks by it. (p99.99 of 50,000 units rests on 5 samples; p99.9 of the ~25,000 units a 50,000
/// packet input times one by one under `--timing alternate` on about 25.)
pub const MIN_TAIL_SAMPLES: f64 = 25.0;

/// The quantile of each of [`PERCENTILES`]; `None` for the mean. Max is the 1.0 quantile.
const QUANTILES: [Option<f64>; 7] = [
    Some(0.5),
    Some(0.9),
    Some(0.99),
    Some(0.999),
    Some(0.9999),
    Some(1.0),
    None,
];

impl Group {
    /// Units timed one by one in the run with the fewest: what a percentile rests on; for CSVs
    /// from before the `units` column, the input's packets (or messages), an upper bound.
    pub fn units(&self) -> f64 {
        match self.units_timed {
            Some(n) => n,
            None if self.unit == "message" => self.rows[0].messages,
            None => self.rows[0].packets,
        }
    }
    /// Samples beyond quantile `q` in one run (the run with the fewest).
    pub fn beyond(&self, q: f64) -> f64 {
        self.units() * (1.0 - q)
    }
    /// Whether quantile `q` has fewer than [`MIN_TAIL_SAMPLES`] samples beyond it in a run.
    pub fn thin_at(&self, q: f64) -> bool {
        self.beyond(q) < MIN_TAIL_SAMPLES
    }
    /// [`Group::thin_at`] for the percentile at `i` of [`PERCENTILES`] (the mean is never thin).
    pub fn thin(&self, i: usize) -> bool {
        QUANTILES[i].is_some_and(|q| self.thin_at(q))
    }
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// Everything the outputs show.
#[derive(Debug, Clone)]
pub struct Summary {
    /// Sorted by input, label, then fastest first. A/A twins are not among them: they are never
    /// ranked, charted or compared with a baseline.
    pub groups: Vec<Group>,
    /// The twins' groups (rows with `twin_of`: `<format>.twin`, or `<format>.plus5` with a
    /// planted extra work), sorted by input, label and name.
    pub twins: Vec<Group>,
    pub warnings: Vec<Warning>,
    /// The CSVs read, for the report's header and the default histogram folders.
    pub sources: Vec<super::load::Source>,
}

/// The format every other is compared with in [`Group::ratio_to_raw`].
pub use crate::measure::floor::RAW;

impl Summary {
    /// The (input, label) pairs in order, each with its groups (fastest first).
    pub fn sections(&self) -> Vec<(&str, &str, Vec<&Group>)> {
        let mut out: Vec<(&str, &str, Vec<&Group>)> = Vec::new();
        for g in &self.groups {
            match out.last_mut() {
                Some((i, l, gs)) if *i == g.input && *l == g.label => gs.push(g),
                _ => out.push((&g.input, &g.label, vec![g])),
            }
        }
        out
    }

    /// Every format name, sorted: the order colours are given in, so a format keeps its colour
    /// in every chart.
    pub fn formats(&self) -> Vec<&str> {
        sorted(self.groups.iter().map(|g| g.format.as_str()))
    }

    /// The section the answer is given for on `input`: per packet, every label pooled where it
    /// ran under several, else label `normal` when there is one, else the first label
    /// (per-packet before per-message).
    pub fn primary(&self, input: &str) -> Option<(&str, &str, Vec<&Group>)> {
        let mut of_input: Vec<(&str, &str, Vec<&Group>)> = self
            .sections()
            .into_iter()
            .filter(|(i, _, _)| *i == input)
            .collect();
        of_input.sort_by_key(|(_, l, gs)| (gs[0].unit != "packet", !is_pooled(l), *l != "normal"));
        of_input.into_iter().next()
    }

    /// `input`'s formats in the one order every chart of it uses: fastest first in its
    /// [`Summary::primary`] section, then any other by name.
    pub fn format_order(&self, input: &str) -> Vec<String> {
        let mut order: Vec<String> = self
            .primary(input)
            .map(|(_, _, gs)| gs.iter().map(|g| g.format.clone()).collect())
            .unwrap_or_default();
        let rest = sorted(
            (self.groups.iter())
                .filter(|g| g.input == input && !order.contains(&g.format))
                .map(|g| g.format.clone()),
        );
        order.extend(rest);
        order
    }

    pub fn inputs(&self) -> Vec<&str> {
        sorted(self.groups.iter().map(|g| g.input.as_str()))
    }
}

/// What makes two rows' encodings the same bytes, whatever their label: the size as stored is a
/// property of those bytes, so one run's measurement serves every label.
/// (input, unit, format, encoded bytes, messages).
type SameBytes<'a> = (&'a str, &'a str, &'a str, u64, u64);

fn same_bytes(r: &RunRow) -> SameBytes<'_> {
    let (input, format) = (r.input_name.as_str(), r.format.as_str());
    (input, r.unit, format, r.encoded_bytes(), r.messages as u64)
}

/// The caveats of the format named `format` in `groups`: `format` as shown, marks and all.
pub fn shown(groups: &[&Group], format: &str) -> String {
    (groups.iter())
        .filter(|g| g.format == format)
        .fold(Caveats::default(), |c, g| c.union(g.caveats()))
        .shown(format)
}

/// The format an A/A twin's row measured a second time: its `twin_of`, else the name before a
/// `.twin` suffix; `None` on every other row.
pub fn twin_of(r: &RunRow) -> Option<&str> {
    r.twin_of
        .as_deref()
        .filter(|t| !t.is_empty())
        .or_else(|| r.format.strip_suffix(".twin"))
}

/// An A/A twin and the group it is a second copy of, in one section.
#[derive(Debug, Clone, Copy)]
pub struct TwinPair<'a> {
    pub twin: &'a Group,
    pub original: &'a Group,
}

/// The extra work planted in a twin's row, as a fraction of its original's (`planted`): 0 for an
/// A/A twin (and for a twin's row from before the column), 0.05 for the +5% positive control.
pub fn planted(r: &RunRow) -> f64 {
    r.planted.unwrap_or(0.0)
}

impl Summary {
    /// The A/A twins of one section with their originals (not the [`Summary::control_pairs`]).
    pub fn twin_pairs(&self, input: &str, label: &str) -> Vec<TwinPair<'_>> {
        self.copies(input, label, false)
    }

    /// The positive controls of one section (twins with planted extra work) with their originals.
    pub fn control_pairs(&self, input: &str, label: &str) -> Vec<TwinPair<'_>> {
        self.copies(input, label, true)
    }

    fn copies(&self, input: &str, label: &str, controls: bool) -> Vec<TwinPair<'_>> {
        self.twins
            .iter()
            .filter(|t| t.input == input && t.label == label)
            .filter(|t| (planted(&t.rows[0]) > 0.0) == controls)
            .filter_map(|twin| {
                let of = twin_of(&twin.rows[0])?;
                let original = self
                    .groups
                    .iter()
                    .find(|g| g.input == input && g.label == label && g.format == of)?;
                Some(TwinPair { twin, original })
            })
            .collect()
    }
}

/// Groups `runs` by (input file name, label, format) and reduces each group.
pub fn summarize(runs: &Runs) -> Summary {
    let pooled = pooled_labels(runs);
    let mut by_key: BTreeMap<(&str, &str, &str), Vec<&RunRow>> = BTreeMap::new();
    let mut stored_by_bytes: BTreeMap<SameBytes, Vec<&RunRow>> = BTreeMap::new();
    for r in &runs.rows {
        by_key
            .entry((&r.input_name, &r.label, &r.format))
            .or_default()
            .push(r);
        // The same row in its input's pooled section, when it has one.
        let key = (r.input_name.as_str(), r.host.as_str());
        if let Some(label) = pooled.get(&key).filter(|_| poolable(r)) {
            by_key
                .entry((&r.input_name, label, &r.format))
                .or_default()
                .push(r);
        }
        if r.zstd_bytes.is_some() {
            stored_by_bytes.entry(same_bytes(r)).or_default().push(r);
        }
    }
    let groups: Vec<Group> = by_key
        .into_iter()
        .map(|((input, label, format), rows)| {
            let col =
                |f: fn(&RunRow) -> f64| Stat::of(&rows.iter().map(|r| f(r)).collect::<Vec<_>>());
            let stored = stored_of(&rows, &stored_by_bytes);
            let of_stored =
                |f: fn(&RunRow) -> Option<f64>| Stat::of_some(stored.iter().map(|r| f(r)));
            Group {
                input: input.to_owned(),
                label: label.to_owned(),
                unit: rows[0].unit,
                format: format.to_owned(),
                runs: rows.len(),
                rows: rows.iter().map(|r| (*r).clone()).collect(),
                units_timed: rows.iter().filter_map(|r| r.units).reduce(f64::min),
                batch_units: rows.iter().filter_map(|r| r.batch_units).reduce(f64::min),
                hosts: sorted(rows.iter().map(|r| r.host.clone())),
                latency: PerWorkload(Workload::ALL.map(|w| SideStats::of(&rows, w))),
                throughput: PerWorkload(
                    Workload::ALL.map(|w| Stat::of_some(rows.iter().map(|r| r.throughput[w]))),
                ),
                bytes_per_message: col(|r| r.bytes_per_message),
                msgs_per_sec: col(|r| r.msgs_per_sec),
                timer_overhead_ns: col(|r| r.timer_overhead_ns),
                zstd_bytes_per_message: of_stored(RunRow::zstd_bytes_per_message),
                zlib_bytes_per_message: of_stored(RunRow::zlib_bytes_per_message),
                zstd_ns: of_stored(|r| Some(r.zstd_ns? as f64)),
                batch_runs: rows
                    .iter()
                    .filter(|r| {
                        let t = &r.throughput;
                        t[Workload::Encode].is_some() && t[Workload::Selective].is_some()
                    })
                    .count(),
                clocks: sorted(rows.iter().filter_map(|r| r.clock.clone())),
                basis: Basis::Selective,
                speed: Stat::default(),
                ratio_to_fastest: 1.0,
                ratio_to_raw: None,
                ratio_all_to_raw: None,
            }
        })
        .collect();
    let (mut twins, mut groups): (Vec<Group>, Vec<Group>) = groups
        .into_iter()
        .partition(|g| twin_of(&g.rows[0]).is_some());
    rank(&mut groups);
    rank(&mut twins);
    let mut summary = Summary {
        groups,
        twins,
        warnings: Vec::new(),
        sources: runs.sources.clone(),
    };
    summary.warnings = warnings(&summary, runs);
    summary
}

/// The runs that measured the size as stored of the bytes `rows` encoded, under any label.
fn stored_of<'r>(
    rows: &[&'r RunRow],
    stored_by_bytes: &BTreeMap<SameBytes<'r>, Vec<&'r RunRow>>,
) -> Vec<&'r RunRow> {
    sorted(rows.iter().map(|r| same_bytes(r)))
        .iter()
        .filter_map(|k| stored_by_bytes.get(k))
        .flatten()
        .copied()
        .collect()
}

/// `key` over `base` for ranking: 1 when both are 0 (equal), infinite when only the base is (the
/// key is infinitely worse). Compare `measure::stats::div_or_zero`, which is for averages.
pub fn relative(key: f64, base: f64) -> f64 {
    if base > 0.0 {
        key / base
    } else if key == 0.0 {
        1.0
    } else {
        f64::INFINITY
    }
}

/// Chooses each section's [`Basis`] (the first every group has), sets each group's speed and
/// ratios, and sorts fastest first.
fn rank(groups: &mut [Group]) {
    groups.sort_by(|a, b| (&a.input, &a.label).cmp(&(&b.input, &b.label)));
    let mut start = 0;
    while start < groups.len() {
        let end = start
            + groups[start..]
                .iter()
                .take_while(|g| g.input == groups[start].input && g.label == groups[start].label)
                .count();
        let section = &mut groups[start..end];
        let basis = Basis::first_all(|b| section.iter().all(|g| g.speed_on(b).is_some()));
        for g in section.iter_mut() {
            g.basis = basis;
            g.speed = g.speed_on(basis).expect("every row has ser and de p50");
        }
        section.sort_by(|a, b| {
            a.speed
                .median
                .total_cmp(&b.speed.median)
                .then(a.format.cmp(&b.format))
        });
        let fastest = section[0].speed.median;
        let raw = section.iter().find(|g| g.format == RAW);
        let (raw_key, raw_all) = (
            raw.map(|r| r.speed.median),
            raw.and_then(|r| r.speed_on(Basis::Batch)),
        );
        for g in section.iter_mut() {
            let key = g.speed.median;
            g.ratio_to_fastest = relative(key, fastest);
            g.ratio_to_raw = raw_key.map(|raw| relative(key, raw));
            g.ratio_all_to_raw = match (basis, g.speed_on(Basis::Batch), raw_all) {
                (Basis::Batch, Some(all), Some(raw)) => Some(relative(all.median, raw.median)),
                _ => None,
            };
        }
        start = end;
    }
}

/// The distinct values, sorted, of a list each group holds (its hosts, its clocks).
pub fn distinct<'a>(
    groups: &[&'a Group],
    list: impl Fn(&'a Group) -> &'a [String],
) -> Vec<&'a str> {
    sorted(
        groups
            .iter()
            .flat_map(|g| list(g).iter().map(String::as_str)),
    )
}

pub(super) fn sorted<T: Ord>(values: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut v: Vec<T> = values.into_iter().collect();
    v.sort_unstable();
    v.dedup();
    v
}

pub fn section_hosts(groups: &[&Group]) -> String {
    distinct(groups, |g| &g.hosts).join(", ")
}

/// `1 run`, `3 runs`: `n` and `noun`, plural unless one.
pub fn plural<N: std::fmt::Display + PartialEq + From<u8>>(n: N, noun: &str) -> String {
    let s = if n == N::from(1) { "" } else { "s" };
    format!("{n} {noun}{s}")
}

/// What joins the labels of a pooled section: `normal + taskset`.
pub const POOL_SEP: &str = " + ";

/// Whether `label` is a pooled section's: every scheduling label of its input at once.
pub fn is_pooled(label: &str) -> bool {
    label.contains(POOL_SEP)
}

/// A row whose label may be pooled with its input's others: one process timing one unit per
/// packet, as `bench`'s scheduling prefixes run it (`--jobs` and per-message runs measure
/// something else, and stay sections of their own).
fn poolable(r: &RunRow) -> bool {
    r.unit == "packet" && !r.label.ends_with(" jobs)")
}

/// Each input and host run under more than one poolable label, with its pooled section's label
/// (its labels in order, joined by [`POOL_SEP`]). Every run of an input informs its answer: the
/// label is a block of runs, not a question of its own (`report::windows` centres each label's
/// ratios). Another host's runs are never pooled in (`report::load` gives them labels of their
/// own, so their pooled section is another).
fn pooled_labels(runs: &Runs) -> BTreeMap<(&str, &str), String> {
    let mut labels: BTreeMap<(&str, &str), Vec<&str>> = BTreeMap::new();
    for r in runs.rows.iter().filter(|r| poolable(r)) {
        let of_input = labels.entry((&r.input_name, &r.host)).or_default();
        if !of_input.contains(&r.label.as_str()) {
            of_input.push(&r.label);
        }
    }
    labels
        .into_iter()
        .filter(|(_, l)| l.len() > 1)
        .map(|(input, mut l)| {
            l.sort_unstable();
            (input, l.join(POOL_SEP))
        })
        .collect()
}

/// `input [label]` as shown in warnings.
pub fn section_name(input: &str, label: &str) -> String {
    if label.is_empty() {
        input.to_owned()
    } else {
        format!("{input} [{label}]")
    }
}

fn warnings(summary: &Summary, runs: &Runs) -> Vec<Warning> {
    let mut out = Vec::new();
    timed_faults(&mut out, runs);
    cut_short(&mut out, runs);
    preemptions(&mut out, runs);
    // A pooled group's rows are its labels' groups' rows: warned about there.
    for g in summary.groups.iter().filter(|g| !is_pooled(&g.label)) {
        group_warnings(&mut out, g);
    }
    timer_overhead(&mut out, summary);
    above_floor(&mut out, summary);
    source_warnings(&mut out, runs);
    out
}

/// `input [label] format, run id`: one row as warnings name it.
fn row_name(r: &RunRow) -> String {
    let section = section_name(&r.input_name, &r.label);
    format!("{section} {}, run {}", r.format, r.run_id)
}

/// Runs whose timed regions took page faults.
fn timed_faults(out: &mut Vec<Warning>, runs: &Runs) {
    for r in &runs.rows {
        if let Some(n) = r.timed_faults.filter(|n| *n > 0) {
            let message = format!(
                "{}: {} inside timed regions",
                row_name(r),
                plural(n, "minor page fault")
            );
            match r.allocs.filter(|a| a.iter().any(|&x| x > 0.0)) {
                Some([ser, de, de_all]) => out.push(Warning::new(
                    WarningKind::OwnFaults,
                    format!(
                        "{message}, where it allocates ({} ser, {} de, {} de_all per {})",
                        allocs(ser),
                        allocs(de),
                        allocs(de_all),
                        r.unit
                    ),
                )),
                None => out.push(Warning::new(WarningKind::TimedFaults, message)),
            }
        }
    }
}

/// Allocations per unit as the warnings give them: three decimals at most, no trailing zeros.
fn allocs(x: f64) -> String {
    let text = format!("{x:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// Captures cut short inside a packet and read with `--lenient`: once per input.
fn cut_short(out: &mut Vec<Warning>, runs: &Runs) {
    let mut cut: BTreeMap<&str, (Vec<&str>, u64)> = BTreeMap::new();
    for r in &runs.rows {
        if let Some(bytes) = r.dropped_bytes {
            let (ids, most) = cut.entry(&r.input_name).or_default();
            if !ids.contains(&r.run_id.as_str()) {
                ids.push(&r.run_id);
            }
            *most = (*most).max(bytes);
        }
    }
    for (input, (ids, bytes)) in cut {
        out.push(Warning::new(
            WarningKind::CutShort,
            format!(
                "{input}: the capture ends inside a packet; its whole packets were measured and \
                 the last {bytes} bytes dropped (--lenient), in {}",
                plural(ids.len(), "run")
            ),
        ));
    }
}

/// Rows whose timed passes were preempted, or had batch passes timed again: one warning per
/// row and kind.
fn preemptions(out: &mut Vec<Warning>, runs: &Runs) {
    for r in &runs.rows {
        let name = row_name(r);
        if let Some(n) = r.preempted.filter(|n| *n > 0) {
            out.push(Warning::new(
                WarningKind::Preempted,
                format!("{name}: {n} involuntary context switches inside timed passes"),
            ));
        }
        if let Some(n) = r.retimed.filter(|n| *n > 0) {
            out.push(Warning::new(
                WarningKind::Retimed,
                format!("{name}: {n} batch passes timed again after a context switch"),
            ));
        }
    }
}

/// A group with too few runs for a median and a spread, or whose figures vary too much from run
/// to run (naming the columns).
fn group_warnings(out: &mut Vec<Warning>, g: &Group) {
    let name = format!("{} {}", section_name(&g.input, &g.label), g.format);
    if g.runs < MIN_RUNS {
        out.push(Warning::new(WarningKind::FewRuns,
            format!(
                "{name}: only {}; at least {MIN_RUNS} are needed for a median and a spread worth reading",
                plural(g.runs, "run")
            ),
        ));
    }
    // Max is left out: it is a preemption on a shared machine more often than the format.
    // Nor are the size-as-stored columns: a size is the input's, not the machine's, and
    // zstd_ns is harness time, outside what is measured.
    // Nor is a percentile with too few samples behind it: it varies as expected (the tables
    // mark it instead).
    let mut noisy: Vec<(String, f64)> = Workload::ALL
        .into_iter()
        .filter_map(|w| Some((w.column(), g.latency(w)?)))
        .flat_map(|(side, s)| {
            s.0.iter()
                .zip(PERCENTILES)
                .enumerate()
                .filter(|(i, (stat, p))| *p != "max" && !g.thin(*i) && stat.cv_pct > MAX_CV_PCT)
                .map(move |(_, (stat, p))| (format!("{side} {p}"), stat.cv_pct))
        })
        .collect();
    noisy.extend(
        g.throughput
            .iter()
            .filter_map(|(w, s)| Some((w, (*s)?)))
            .filter(|(_, s)| s.cv_pct > MAX_CV_PCT)
            .map(|(w, s)| (format!("{} batch", w.column()), s.cv_pct)),
    );
    if !noisy.is_empty() {
        let list: Vec<String> = noisy
            .iter()
            .map(|(c, cv)| format!("{c} {cv:.1}%"))
            .collect();
        let mut w = Warning::new(
            WarningKind::HighVariation,
            format!(
                "{name}: run-to-run coefficient of variation above {MAX_CV_PCT}%: {}",
                list.join(", ")
            ),
        );
        w.columns = noisy.into_iter().map(|(c, _)| c).collect();
        out.push(w);
    }
}

/// The sections of one label each (a pooled section repeats their rows).
fn own_sections(summary: &Summary) -> impl Iterator<Item = (&str, &str, Vec<&Group>)> {
    summary
        .sections()
        .into_iter()
        .filter(|(_, l, _)| !is_pooled(l))
}

/// Sections whose fastest p50 is within a few clock costs.
fn timer_overhead(out: &mut Vec<Warning>, summary: &Summary) {
    for (input, label, groups) in own_sections(summary) {
        let overhead = groups
            .iter()
            .map(|g| g.timer_overhead_ns.max)
            .fold(0.0, f64::max);
        let (smallest, which) = groups
            .iter()
            .flat_map(|g| {
                [Workload::Encode, Workload::Selective]
                    .into_iter()
                    .filter_map(|w| Some((g.p50(w)?, format!("{} {}", g.format, w.column()))))
            })
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .expect("a section has a group");
        if let Some(why) = trust::timer_cost(overhead, smallest, &which) {
            out.push(Warning::new(
                WarningKind::TimerOverhead,
                format!("{}: {why}", section_name(input, label)),
            ));
        }
    }
}

/// Sections where raw is well above the memcpy floor it should be near.
fn above_floor(out: &mut Vec<Warning>, summary: &Summary) {
    for (input, label, groups) in own_sections(summary) {
        let Some(raw) = groups.iter().find(|g| g.format == RAW) else {
            continue;
        };
        // The batch figures when raw has them and the floor was timed the same way: they carry
        // neither the clock's steps nor its cost. Else the per-packet p50s, as runs before
        // the batch timing wrote.
        let (encode, selective) = (Workload::Encode, Workload::Selective);
        let t = &raw.throughput;
        let batch = match (t[encode], t[selective], raw.column(|r| r.memcpy_batch_ns)) {
            (Some(ser), Some(de), Some(floor)) => Some((ser.median, de.median, floor.median)),
            _ => None,
        };
        let p50 = (
            raw.p50(encode),
            raw.p50(selective),
            raw.column(|r| Some(r.memcpy_p50_ns? as f64)),
        );
        let (ser, de, floor, basis) = match (batch, p50) {
            (Some((ser, de, floor)), _) => (ser, de, floor, "batch"),
            (None, (Some(ser), Some(de), Some(floor))) => (ser, de, floor.median, "p50"),
            (None, _) => continue,
        };
        if let Some(why) = trust::raw_above_floor(ser, de, floor, basis) {
            out.push(Warning::new(
                WarningKind::AboveFloor,
                format!("{}: {why}", section_name(input, label)),
            ));
        }
    }
}

/// Each CSV's governor and rows read twice.
fn source_warnings(out: &mut Vec<Warning>, runs: &Runs) {
    for s in &runs.sources {
        let csv = s.csv.display();
        if let Some(why) = s.governor.warning() {
            out.push(Warning::new(WarningKind::Governor, format!("{csv}: {why}")));
        }
        if s.duplicates > 0 {
            out.push(Warning::new(
                WarningKind::Duplicates,
                format!(
                    "{csv}: {} already read from an earlier file, counted once",
                    plural(s.duplicates, "row")
                ),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_spread_and_cv() {
        let s = Stat::of(&[30.0, 10.0, 20.0]);
        assert_eq!((s.median, s.min, s.max), (20.0, 10.0, 30.0));
        // mean 20, sample variance (100 + 0 + 100) / 2 = 100, stdev 10, CV 50%.
        assert!((s.cv_pct - 50.0).abs() < 1e-9);
        let s = Stat::of(&[4.0, 1.0, 3.0, 2.0]);
        assert_eq!(s.median, 2.5);
        assert_eq!(Stat::of(&[7.0]).cv_pct, 0.0);
        assert_eq!(Stat::of(&[0.0, 0.0]).cv_pct, 0.0);
        assert_eq!(Stat::of_some([None, None]), None);
        assert_eq!(
            Stat::of_some([Some(3.0), None, Some(1.0)]).map(|s| s.median),
            Some(2.0)
        );
    }

    #[test]
    fn ratios() {
        assert_eq!(relative(30.0, 10.0), 3.0);
        assert_eq!(relative(0.0, 0.0), 1.0);
        assert_eq!(relative(5.0, 0.0), f64::INFINITY);
    }
}
