//! What the verifiers cost: each format that trusts its producer (`formats::unchecked`) beside
//! its checked twin, which writes the same bytes and reads the same fields through its verifier.
//!
//! Every ratio is the twin's figure over the trusting format's within one run (matched by run
//! id: the same machine, the same moment), then the median of those per-run ratios with their
//! min–max, as the verdict's margins are; figures from different runs are never divided. A p50
//! moves in clock steps, so two p50s fewer than [`TIE_STEPS`] steps apart, or a trusting p50
//! under [`RATIO_STEPS`] steps, give the difference in ns, not a ratio. Encoding is the same
//! code in both: its ratio is a control that shows the noise between two identical runners.

use super::load::RunRow;
use super::stats::{trim, Group, Stat};
use super::tables::NOT_MEASURED;
use super::verdict::{CLOCK_STEP_NS, RATIO_STEPS, TIE_STEPS};
use crate::export::caveat::Caveat;
use crate::measure::Workload;
use crate::output::Table;

/// One figure of one run: a workload's p50 or its batch figure.
type Figure = fn(&RunRow, Workload) -> Option<f64>;

/// The `(checked, trusting)` figure of every run both timed, matched by run id.
fn paired(checked: &Group, trusting: &Group, w: Workload, figure: Figure) -> Vec<(f64, f64)> {
    checked
        .rows
        .iter()
        .filter_map(|c| {
            let t = (trusting.rows.iter()).find(|t| t.run_id == c.run_id && t.label == c.label)?;
            Some((figure(c, w)?, figure(t, w)?))
        })
        .collect()
}

/// The two medians and what one costs over the other: `1.45x (1.40–1.52x)` from per-run
/// ratios, or for quantized p50s too close to divide, the difference in ns.
fn cells(pairs: &[(f64, f64)], quantized: bool) -> [String; 3] {
    let median = |f: fn(&(f64, f64)) -> f64| Stat::of_some(pairs.iter().map(|p| Some(f(p))));
    let (Some(c), Some(t)) = (median(|p| p.0), median(|p| p.1)) else {
        return [NOT_MEASURED, NOT_MEASURED, "no run timed both"].map(String::from);
    };
    let diff = c.median - t.median;
    let ns = format!("{}{} ns", if diff >= 0.0 { "+" } else { "" }, trim(diff));
    let ratio = if quantized && diff.abs() < TIE_STEPS * CLOCK_STEP_NS {
        format!("{ns}: under {TIE_STEPS:.0} clock steps")
    } else if quantized && t.median < RATIO_STEPS * CLOCK_STEP_NS {
        format!("{ns}: too few clock steps to divide")
    } else {
        let r = Stat::of_some(pairs.iter().map(|&(c, t)| (t > 0.0).then(|| c / t)));
        match r {
            Some(r) if r.max - r.min > 0.005 => {
                format!("{:.2}x ({:.2}–{:.2}x)", r.median, r.min, r.max)
            }
            Some(r) => format!("{:.2}x", r.median),
            None => NOT_MEASURED.to_owned(),
        }
    };
    [trim(c.median), trim(t.median), ratio]
}

/// The checked twin of `trusting` (a format that trusts its producer) among `groups`, from
/// what the rows say rather than this build's registry: a format that checks what it reads,
/// named as the start of the trusting one's name (`flatbuffers` of `flatbuffers-unverified`),
/// that wrote the same bytes in every run both timed; the longest such name.
fn checked_twin<'a>(trusting: &Group, groups: &[&'a Group]) -> Option<&'a Group> {
    let same_bytes = |g: &Group| {
        let both = |r: &&RunRow| (g.rows.iter()).find(|c| c.run_id == r.run_id);
        let runs: Vec<(&RunRow, &RunRow)> = (trusting.rows.iter())
            .filter_map(|t| Some((t, both(&t)?)))
            .collect();
        !runs.is_empty()
            && runs
                .iter()
                .all(|(t, c)| t.encoded_bytes() == c.encoded_bytes())
    };
    (groups.iter().copied())
        .filter(|g| !g.caveats().has(Caveat::TrustsProducer))
        .filter(|g| {
            (trusting.format.strip_prefix(g.format.as_str()))
                .is_some_and(|rest| rest.starts_with('-'))
        })
        .filter(|g| same_bytes(g))
        .max_by_key(|g| g.format.len())
}

/// The table of one (input, label): a row per workload for each format that trusts its
/// producer whose checked twin ran too; `None` when there is none.
pub fn table(groups: &[&Group]) -> Option<Table> {
    let mut rows = Vec::new();
    let (p50, batch): (Figure, Figure) = (|r, w| r.percentile(w, 0), |r, w| r.throughput[w]);
    for trusting in groups
        .iter()
        .filter(|g| g.caveats().has(Caveat::TrustsProducer))
    {
        let Some(checked) = checked_twin(trusting, groups) else {
            continue;
        };
        for w in Workload::ALL {
            let mut row = vec![
                checked.format.clone(),
                trusting.shown(),
                w.column().to_owned(),
            ];
            row.extend(cells(&paired(checked, trusting, w, p50), true));
            row.extend(cells(&paired(checked, trusting, w, batch), false));
            rows.push(row);
        }
    }
    if rows.is_empty() {
        return None;
    }
    let unit = groups[0].unit;
    Some(Table {
        caption: format!(
            "What verification costs: each format that trusts its producer beside its checked \
             twin (the same encoder, the same bytes, the same field reads, with the verifier), \
             ns per {unit}, medians across the runs that timed both. Ratio: the twin's figure \
             over the trusting one's within each run, the median of those per-run ratios \
             (min–max); p50s under {TIE_STEPS:.0} clock steps ({CLOCK_STEP_NS:.0} ns) apart, or \
             a trusting p50 under {RATIO_STEPS:.0} steps, are given as a difference in ns. ser is the same code in \
             both: its ratio shows the noise. {}.",
            Caveat::TrustsProducer.note()
        ),
        left: 3,
        header: [
            "checked twin",
            "trusting",
            "workload",
            "twin p50",
            "trusting p50",
            "p50: twin / trusting",
            "twin batch",
            "trusting batch",
            "batch: twin / trusting",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::cells;
    use crate::export::csv::{Latency, Row};
    use crate::measure::{PerWorkload, Workload};
    use crate::report::load::runs_of;
    use crate::report::stats::summarize;

    /// A row of run `run` of `format`, `bytes` per message, that trusts its producer or not.
    pub(crate) fn row(run: &str, format: &str, bytes: f64, trusts: bool) -> Row {
        let mut r = Row {
            run_id: run.into(),
            input: "day.pcap".into(),
            label: "normal".into(),
            format: format.into(),
            messages: 100,
            bytes_per_message: bytes,
            trusts_producer: Some(trusts),
            ..Row::default()
        };
        r.set_batch(PerWorkload([Some(10.0), Some(20.0), Some(30.0)]));
        let ns = Some(100);
        let timed = Latency {
            p50: ns,
            p90: ns,
            p99: ns,
            p999: ns,
            p9999: ns,
            max: ns,
            mean: Some(100.0),
            total: ns,
        };
        for w in Workload::ALL {
            r.set_latency(w, timed);
        }
        r
    }

    /// The table's pairs: each trusting format (as its row says) beside the format that checks,
    /// begins its name and wrote the same bytes; a format the registry knows as trusting is
    /// not one where its row says otherwise.
    #[test]
    fn a_trusting_format_is_paired_by_its_rows_not_the_registry() {
        let mut rows = Vec::new();
        for run in ["r1", "r2"] {
            rows.extend([
                row(run, "a", 10.0, false),
                row(run, "a-fast", 10.0, true),
                row(run, "b", 10.0, false),
                row(run, "c", 12.0, false),
                row(run, "c-fast", 10.0, true),
                row(run, "flatbuffers", 10.0, false),
                row(run, "flatbuffers-unverified", 10.0, false),
            ]);
        }
        let summary = summarize(&runs_of(rows));
        let groups: Vec<_> = summary.groups.iter().collect();
        let table = super::table(&groups).expect("a-fast has its twin");
        let pairs: Vec<(&str, &str)> = (table.rows.iter())
            .map(|r| (r[0].as_str(), r[1].as_str()))
            .collect();
        // c-fast's bytes are not c's: no pair; b's are a-fast's, but its name does not begin it.
        assert_eq!(pairs, [("a", "a-fast ‡"); 3]);
    }

    #[test]
    fn ratios_are_per_run_and_close_p50s_are_not_divided() {
        // Per-run ratios 2.0, 1.5, 1.8: median 1.8, not the ratio of the medians (300 / 150).
        let pairs = [(300.0, 150.0), (330.0, 220.0), (270.0, 150.0)];
        assert_eq!(cells(&pairs, true), ["300", "150", "1.80x (1.50–2.00x)"]);
        // 20 ns apart on a 10 ns clock: a difference, not a ratio.
        assert_eq!(
            cells(&[(120.0, 100.0)], true),
            ["120", "100", "+20 ns: under 3 clock steps"]
        );
        // The same figures timed as whole windows are divided.
        assert_eq!(cells(&[(120.0, 100.0)], false), ["120", "100", "1.20x"]);
        // A trusting p50 of 40 ns (4 steps) is not divided even 40 ns apart.
        assert_eq!(
            cells(&[(80.0, 40.0)], true),
            ["80", "40", "+40 ns: too few clock steps to divide"]
        );
        assert_eq!(cells(&[], false)[2], "no run timed both");
    }
}
