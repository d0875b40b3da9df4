//! `dist-<input>-<side>.svg`: each format's latency distribution on the number-of-nines axis.

use plotters::prelude::*;

use super::axis::{err, nines_label, thousands, Axis, DrawResult};
use super::{legend, Colours, FONT, SIZE};
use crate::report::dist::FormatRuns;

pub(super) fn distribution(
    title: &str,
    formats: &[FormatRuns],
    colours: &Colours,
    unit: &str,
) -> DrawResult<String> {
    let points = |d: &crate::report::dist::Distribution| -> Vec<(f64, f64)> {
        d.points
            .iter()
            .map(|&(q, v)| ((1.0 / (1.0 - q)).log10(), v.max(1.0)))
            .collect()
    };
    let all: Vec<(f64, f64)> = formats
        .iter()
        .flat_map(|f| f.runs.iter().flat_map(points))
        .collect();
    let max_nines = all.iter().map(|p| p.0).fold(0.0, f64::max);
    let nines = (max_nines.ceil() as usize).clamp(2, 9);
    let y_lo = all.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
    let y_hi = all.iter().map(|p| p.1).fold(1.0, f64::max);
    let y_lo = 10f64.powf(y_lo.log10().floor());
    let y_hi = 10f64.powf((y_hi * 1.05).log10().ceil());
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, (FONT, 22))
            .margin(16)
            .margin_right(48)
            .x_label_area_size(56)
            .y_label_area_size(96)
            .build_cartesian_2d(
                Axis::linear(0.0, nines as f64, (0..=nines).map(|n| n as f64).collect()),
                Axis::log(y_lo, y_hi),
            )
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("percentile (x = 1/(1−p), log scale)")
            .y_desc(format!("latency per {unit} (ns, log scale)"))
            .x_label_formatter(&|x| nines_label(*x))
            .y_label_formatter(&|y| thousands(*y))
            .label_style((FONT, 15))
            .axis_desc_style((FONT, 16))
            .light_line_style(WHITE)
            .bold_line_style(BLACK.mix(0.12))
            .draw()
            .map_err(err)?;
        for f in formats {
            let colour = colours.of(&f.format);
            let median = f.median_run();
            for run in &f.runs {
                if !std::ptr::eq(run, median) {
                    chart
                        .draw_series(LineSeries::new(
                            points(run),
                            colour.mix(0.35).stroke_width(1),
                        ))
                        .map_err(err)?;
                }
            }
        }
        // Bold lines last, so no faint line is drawn over one.
        for f in formats {
            let colour = colours.of(&f.format);
            let label = if f.runs.len() == 1 {
                f.format.clone()
            } else {
                format!("{} (median of {} runs by p50)", f.format, f.runs.len())
            };
            chart
                .draw_series(LineSeries::new(
                    points(f.median_run()),
                    colour.stroke_width(3),
                ))
                .map_err(err)?
                .label(label)
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 24, y)], colour.stroke_width(3))
                });
        }
        legend(&mut chart, SeriesLabelPosition::UpperLeft)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}
