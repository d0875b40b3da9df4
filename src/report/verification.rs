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
use super::tables::{Table, NOT_MEASURED};
use super::verdict::{CLOCK_STEP_NS, RATIO_STEPS, TIE_STEPS};
use crate::formats::{shown, unchecked::twin, TRUSTS_NOTE};
use crate::measure::Workload;

/// One figure of one run: a workload's p50 or its batch figure.
type Figure = fn(&RunRow, Workload) -> Option<f64>;

fn p50(r: &RunRow, w: Workload) -> Option<f64> {
    r.percentile(w, 0)
}

fn batch(r: &RunRow, w: Workload) -> Option<f64> {
    r.throughput[w]
}

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

/// The table of one (input, label): a row per workload for each format that trusts its
/// producer whose twin ran too; `None` when there is none.
pub fn table(groups: &[&Group]) -> Option<Table> {
    let mut rows = Vec::new();
    for trusting in groups {
        let Some(twin) = twin(&trusting.format) else {
            continue;
        };
        let Some(checked) = groups.iter().find(|g| g.format == twin) else {
            continue;
        };
        for w in Workload::ALL {
            let mut row = vec![
                checked.format.clone(),
                shown(&trusting.format),
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
             both: its ratio shows the noise. {TRUSTS_NOTE}."
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
mod tests {
    use super::cells;

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
