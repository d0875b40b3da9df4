//! `pct-<input>-<label>-<side>.svg`: grouped bars of p50, p99 and p99.9 per format.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::axis::{err, thousands, Axis, DrawResult};
use super::{legend, FONT, PCT_COLOURS, SIZE};
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

pub(super) fn percentile_bars(title: &str, groups: &[&Group], side: &str) -> DrawResult<String> {
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
    // Log scale: p99.9 is often 10-100x p50. The floor is a power of ten below the lowest
    // value; the top leaves the upper 30% for the legend and the value labels.
    let bottom = 10f64.powf(lowest.log10().floor());
    let top = 10f64.powf(bottom.log10() + (highest.log10() - bottom.log10()).max(1.0) / 0.7);
    let names: Vec<String> = groups.iter().map(|g| g.format.clone()).collect();
    let most_runs = groups.iter().map(|g| g.runs).max().unwrap_or(0);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, (FONT, 22))
            .margin(16)
            .margin_right(48)
            .x_label_area_size(56)
            .y_label_area_size(90)
            .build_cartesian_2d(
                Axis::linear(0.0, n as f64, (0..n).map(|i| i as f64 + 0.5).collect()),
                Axis::log(bottom, top),
            )
            .map_err(err)?;
        let name_of = |x: &f64| names.get(x.floor() as usize).cloned().unwrap_or_default();
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_desc("format (fastest first)")
            .y_desc(format!(
                "ns per {}, median across runs (log scale)",
                groups[0].unit
            ))
            .x_label_formatter(&name_of)
            .y_label_formatter(&|y| thousands(*y))
            .label_style((FONT, 15))
            .axis_desc_style((FONT, 16))
            .light_line_style(WHITE)
            .bold_line_style(BLACK.mix(0.12))
            .draw()
            .map_err(err)?;
        let width = 0.8 / 3.0;
        let value_style =
            TextStyle::from((FONT, 15).into_font()).pos(Pos::new(HPos::Center, VPos::Bottom));
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
            chart
                .draw_series(bars)
                .map_err(err)?
                .label(*pct)
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 6), (x + 14, y + 6)], colour.filled())
                });
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
            chart
                .draw_series(std::iter::empty::<PathElement<(f64, f64)>>())
                .map_err(err)?
                .label("min–max across runs")
                .legend(|(x, y)| {
                    PathElement::new(vec![(x + 7, y - 7), (x + 7, y + 7)], BLACK.stroke_width(1))
                });
        }
        legend(&mut chart, SeriesLabelPosition::UpperLeft)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}
