//! `pct-<input>-<label>-<side>.svg`: grouped bars of p50, p99 and p99.9 per format.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::axis::{err, thousands, Axis, DrawResult};
use super::{frame, legend_column, slot_labels, Swatch, FONT, PCT_COLOURS, SIZE};
use crate::report::stats::{trim, Group, Stat};

/// The side's p50, p99 and p99.9 (`de_all` only for groups that have it: see [`write_all`]).
fn side_stats<'a>(g: &'a Group, side: &str) -> [&'a Stat; 3] {
    let s = match side {
        "ser" => &g.ser,
        "de_all" => g
            .de_all
            .as_ref()
            .expect("de_all charts only where measured"),
        _ => &g.de,
    };
    [s.p50(), s.p99(), s.p999()]
}

/// `groups` in the report's format order (the same in every chart of the input).
pub(super) fn percentile_bars(
    section: &str,
    what: &str,
    groups: &[&Group],
    side: &str,
) -> DrawResult<String> {
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
    // Log scale: p99.9 is often 10-100x p50. Fitted to the data, with room above the highest
    // whisker for its value.
    let y = Axis::fitted_log(lowest * 0.8, highest * 1.3);
    let bottom = y.bounds().0;
    let names: Vec<String> = groups.iter().map(|g| g.format.clone()).collect();
    let most_runs = groups.iter().map(|g| g.runs).max().unwrap_or(0);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        let (plot, legend) = frame(&root, section, what, true)?;
        let mut chart = ChartBuilder::on(&plot)
            .margin(10)
            .x_label_area_size(56)
            .y_label_area_size(90)
            .build_cartesian_2d(
                Axis::linear(0.0, n as f64, (0..n).map(|i| i as f64 + 0.5).collect()),
                y,
            )
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_desc("format")
            .y_desc(format!(
                "ns per {}, median across runs (log scale)",
                groups[0].unit
            ))
            .x_label_formatter(&|_| String::new())
            .y_label_formatter(&|y| thousands(*y))
            .label_style((FONT, 14))
            .axis_desc_style((FONT, 16))
            .light_line_style(WHITE)
            .bold_line_style(BLACK.mix(0.12))
            .draw()
            .map_err(err)?;
        let (bx, by) = plot.get_base_pixel();
        slot_labels(&plot, &names, |i| {
            let (x, y) = chart.backend_coord(&(i as f64 + 0.5, bottom));
            (x - bx, y - by)
        })?;
        let width = 0.8 / 3.0;
        let value_style =
            TextStyle::from((FONT, 13).into_font()).pos(Pos::new(HPos::Center, VPos::Bottom));
        let mut entries = Vec::new();
        for (j, pct) in ["p50", "p99", "p99.9"].iter().enumerate() {
            let colour = PCT_COLOURS[j];
            let bars = groups.iter().enumerate().map(|(i, g)| {
                let x0 = i as f64 + 0.1 + j as f64 * width;
                let s = side_stats(g, side)[j];
                Rectangle::new(
                    [(x0 + 0.01, bottom), (x0 + width - 0.01, s.median)],
                    colour.filled(),
                )
            });
            chart.draw_series(bars).map_err(err)?;
            entries.push((pct.to_string(), Swatch::Fill(colour)));
        }
        for (i, g) in groups.iter().enumerate() {
            for (j, s) in side_stats(g, side).iter().enumerate() {
                let xc = i as f64 + 0.1 + (j as f64 + 0.5) * width;
                if s.min < s.max {
                    let cap = width * 0.2;
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
        if most_runs > 1 {
            entries.push(("min–max of runs".to_owned(), Swatch::Whisker));
        }
        legend_column(&legend, &entries)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}
