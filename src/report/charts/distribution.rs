//! `dist-<input>-<label>-<side>.svg`: each format's latency distribution on the number-of-nines
//! axis: every run's histograms merged (bold), each run faint.

use plotters::prelude::*;

use super::axis::{err, nines_label, Axis, DrawResult};
use super::canvas::{plane, Axes, Canvas, Chart, Swatch};
use super::style::Colours;
use crate::report::dist::{Distribution, FormatRuns};
use crate::report::stats::{shown, Group};

/// Each format's latency distribution of one side, `formats` in the report's format order (the
/// legend lists them so).
pub(super) struct Distributions<'a> {
    pub formats: &'a [FormatRuns],
    pub colours: &'a Colours,
    /// The section's groups: what each name is shown with, and the unit.
    pub groups: &'a [&'a Group],
}

/// A distribution's points on the chart's axes: x the number of nines, log10(1/(1−p)); y ns,
/// at least 1 for the log axis.
fn points(d: &Distribution) -> Vec<(f64, f64)> {
    d.points
        .iter()
        .map(|&(q, v)| ((1.0 / (1.0 - q)).log10(), v.max(1.0)))
        .collect()
}

impl Chart for Distributions<'_> {
    fn draw(&self, canvas: &Canvas<'_, '_>) -> DrawResult<Vec<(String, Swatch)>> {
        let (formats, colours) = (self.formats, self.colours);
        let headlines: Vec<Distribution> = formats.iter().map(FormatRuns::headline).collect();
        let all: Vec<(f64, f64)> = formats
            .iter()
            .flat_map(|f| f.runs.iter().flat_map(points))
            .chain(headlines.iter().flat_map(points))
            .collect();
        let max_nines = all.iter().map(|p| p.0).fold(0.0, f64::max);
        // A last point a hair past a whole number of nines does not earn an empty decade.
        let nines = ((max_nines - 0.1).ceil() as usize).clamp(2, 9);
        let y_lo = all.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
        let y_hi = all.iter().map(|p| p.1).fold(1.0, f64::max);
        let y_lo = if y_lo.is_finite() { y_lo } else { 1.0 };
        let y_desc = format!("latency per {} (ns, log scale)", self.groups[0].unit);
        let mut chart = plane(
            canvas.plot,
            Axes {
                x: Axis::linear(0.0, nines as f64, (0..=nines).map(|n| n as f64).collect()),
                y: Axis::fitted_log(y_lo, y_hi * 1.05),
                x_desc: "percentile (x = 1/(1−p), log scale)",
                y_desc: &y_desc,
                x_labels: &|x| nines_label(*x),
                x_grid: true,
                margin_right: 10,
            },
        )?;
        for f in formats {
            let colour = colours.of(&f.format);
            let median = f.median_run();
            for run in &f.runs {
                // Without a merge the median run is the bold line: not drawn twice.
                if f.merged.is_none() && std::ptr::eq(run, median) {
                    continue;
                }
                chart
                    .draw_series(LineSeries::new(
                        points(run),
                        colour.mix(0.35).stroke_width(1),
                    ))
                    .map_err(err)?;
            }
        }
        // Bold lines last, so no faint line is drawn over one.
        let mut entries = Vec::new();
        for (f, headline) in formats.iter().zip(&headlines) {
            let colour = colours.of(&f.format);
            let dashed = colours.tier(&f.format) > 0;
            if dashed {
                chart
                    .draw_series(DashedLineSeries::new(
                        points(headline),
                        8,
                        5,
                        colour.stroke_width(3),
                    ))
                    .map_err(err)?;
            } else {
                chart
                    .draw_series(LineSeries::new(points(headline), colour.stroke_width(3)))
                    .map_err(err)?;
            }
            entries.push((
                shown(self.groups, &f.format),
                Swatch::Line(colour, 3, dashed),
            ));
        }
        Ok(entries)
    }
}
