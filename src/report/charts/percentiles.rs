//! `pct-<input>-<label>-<side>.svg`: grouped bars of p50, p99 and p99.9 per format.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::axis::{err, Axis, DrawResult};
use super::canvas::{bar_centre, grouped_bars, slots, Canvas, Chart, Plane, Swatch, BAR};
use super::style::{FONT, PCT_COLOURS};
use crate::measure::Workload;
use crate::report::stats::{trim, Group, Stat};

/// The side's p50, p99 and p99.9 (`de_all` only for groups that have it: see [`super::files`]).
fn side_stats<'a>(g: &'a Group, side: &str) -> [&'a Stat; 3] {
    let s = Workload::ALL
        .into_iter()
        .find(|w| w.column() == side)
        .and_then(|w| g.latency(w))
        .expect("charts only of a workload every group timed per unit");
    [s.p50(), s.p99(), s.p999()]
}

/// One side's p50, p99 and p99.9 per format, `groups` in the report's format order (the same in
/// every chart of the input).
pub(super) struct Percentiles<'a> {
    pub groups: &'a [&'a Group],
    /// `ser`, `de` or `de_all`.
    pub side: &'a str,
}

impl Chart for Percentiles<'_> {
    fn draw(&self, canvas: &Canvas<'_, '_>) -> DrawResult<Vec<(String, Swatch)>> {
        let (groups, side) = (self.groups, self.side);
        let n = groups.len();
        let highest = groups
            .iter()
            .flat_map(|g| side_stats(g, side).map(|s| s.max.max(s.median)))
            .fold(1.0, f64::max);
        let lowest = groups
            .iter()
            .flat_map(|g| side_stats(g, side).map(|s| s.min.min(s.median)))
            .fold(f64::INFINITY, f64::min)
            .max(1.0);
        // Log scale: p99.9 is often 10-100x p50. Fitted to the data, with room above the
        // highest whisker for its value.
        let y = Axis::fitted_log(lowest * 0.8, highest * 1.3);
        let bottom = y.bounds().0;
        let names: Vec<String> = groups.iter().map(|g| g.shown()).collect();
        let y_desc = format!("ns per {}, median across runs (log scale)", groups[0].unit);
        let mut chart = slots(canvas.plot, &names, y, "format", &y_desc)?;
        let kinds = ["p50", "p99", "p99.9"];
        let median = |i: usize, j: usize| Some(side_stats(groups[i], side)[j].median);
        let mut entries = grouped_bars(&mut chart, n, kinds, PCT_COLOURS, bottom, median)?;
        whiskers_and_values(&mut chart, groups, side)?;
        if groups.iter().map(|g| g.runs).max().unwrap_or(0) > 1 {
            entries.push(("min–max of runs".to_owned(), Swatch::Whisker));
        }
        Ok(entries)
    }
}

/// Over each bar, its min–max across runs (where they differ) and its median written above.
fn whiskers_and_values(chart: &mut Plane<'_, '_>, groups: &[&Group], side: &str) -> DrawResult<()> {
    let value_style =
        TextStyle::from((FONT, 13).into_font()).pos(Pos::new(HPos::Center, VPos::Bottom));
    for (i, g) in groups.iter().enumerate() {
        for (j, s) in side_stats(g, side).iter().enumerate() {
            let xc = bar_centre(i, j);
            if s.min < s.max {
                let cap = BAR * 0.2;
                let whisker = BLACK.stroke_width(1);
                chart
                    .draw_series([
                        PathElement::new(vec![(xc, s.min), (xc, s.max)], whisker),
                        PathElement::new(vec![(xc - cap, s.min), (xc + cap, s.min)], whisker),
                        PathElement::new(vec![(xc - cap, s.max), (xc + cap, s.max)], whisker),
                    ])
                    .map_err(err)?;
            }
            chart
                .draw_series([Text::new(
                    trim(s.median),
                    (xc, s.max.max(s.median) * 1.04),
                    value_style.clone(),
                )])
                .map_err(err)?;
        }
    }
    Ok(())
}
