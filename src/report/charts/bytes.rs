//! `bytes-<input>-<label>.svg`: bytes per message per format, encoded and as stored, smallest
//! first.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::axis::{err, thousands, Axis, DrawResult};
use super::{frame, legend_column, slot_labels, Colours, Swatch, FONT, SIZE, SIZE_COLOURS};
use crate::report::stats::Group;

/// `groups` smallest encoded size first (then by name), as both bytes charts show them.
fn by_size<'a>(groups: &[&'a Group]) -> Vec<&'a Group> {
    let mut g = groups.to_vec();
    g.sort_by(|a, b| {
        a.bytes_per_message
            .median
            .total_cmp(&b.bytes_per_message.median)
            .then(a.format.cmp(&b.format))
    });
    g
}

/// The frame both bytes charts draw in: one slot per format on x (named), bytes on y.
fn bytes_frame<'a, 'b>(
    plot: &'a DrawingArea<SVGBackend<'b>, plotters::coord::Shift>,
    names: &[String],
    top: f64,
    y_desc: &str,
) -> DrawResult<ChartContext<'a, SVGBackend<'b>, Cartesian2d<Axis, Axis>>> {
    let n = names.len();
    let mut chart = ChartBuilder::on(plot)
        .margin(10)
        .x_label_area_size(56)
        .y_label_area_size(90)
        .build_cartesian_2d(
            Axis::linear(0.0, n as f64, (0..n).map(|i| i as f64 + 0.5).collect()),
            Axis::linear(0.0, top, Axis::round_ticks(top, 8)),
        )
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_desc("format (smallest encoded first)")
        .y_desc(y_desc)
        .x_label_formatter(&|_| String::new())
        .y_label_formatter(&|y| thousands(*y))
        .label_style((FONT, 14))
        .axis_desc_style((FONT, 16))
        .light_line_style(WHITE)
        .bold_line_style(BLACK.mix(0.12))
        .draw()
        .map_err(err)?;
    let (bx, by) = plot.get_base_pixel();
    slot_labels(plot, names, |i| {
        let (x, y) = chart.backend_coord(&(i as f64 + 0.5, 0.0));
        (x - bx, y - by)
    })?;
    Ok(chart)
}

pub(super) fn bytes_bars(
    section: &str,
    what: &str,
    groups: &[&Group],
    colours: &Colours,
) -> DrawResult<String> {
    let groups = by_size(groups);
    let top = groups
        .iter()
        .map(|g| g.bytes_per_message.max)
        .fold(1.0, f64::max)
        * 1.12; // room for the values above the bars
    let names: Vec<String> = groups.iter().map(|g| g.format.clone()).collect();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        let (plot, _) = frame(&root, section, what, false)?;
        let mut chart = bytes_frame(
            &plot,
            &names,
            top,
            "bytes per message (encoded, median across runs)",
        )?;
        let value_style =
            TextStyle::from((FONT, 14).into_font()).pos(Pos::new(HPos::Center, VPos::Bottom));
        for (i, g) in groups.iter().enumerate() {
            let colour = colours.of(&g.format);
            let b = g.bytes_per_message.median;
            chart
                .draw_series([Rectangle::new(
                    [(i as f64 + 0.2, 0.0), (i as f64 + 0.8, b)],
                    colour.filled(),
                )])
                .map_err(err)?;
            chart
                .draw_series([Text::new(
                    format!("{b:.1}"),
                    (i as f64 + 0.5, b + top * 0.01),
                    value_style.clone(),
                )])
                .map_err(err)?;
        }
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// Three bars per format: encoded, zstd and zlib bytes per message (medians). A format whose
/// runs did not measure the size as stored gets its encoded bar only.
pub(super) fn stored_bytes_bars(
    section: &str,
    what: &str,
    groups: &[&Group],
) -> DrawResult<String> {
    let groups = by_size(groups);
    let sizes = |g: &Group| -> [Option<f64>; 3] {
        [
            Some(g.bytes_per_message.median),
            g.zstd_bytes_per_message.map(|s| s.median),
            g.zlib_bytes_per_message.map(|s| s.median),
        ]
    };
    let highest = groups
        .iter()
        .flat_map(|g| sizes(g).into_iter().flatten())
        .fold(1.0, f64::max);
    // Room above the highest bar for its value, written upwards.
    let top = highest * 1.18;
    let names: Vec<String> = groups.iter().map(|g| g.format.clone()).collect();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        let (plot, legend) = frame(&root, section, what, true)?;
        let mut chart = bytes_frame(&plot, &names, top, "bytes per message (median across runs)")?;
        let width = 0.8 / 3.0;
        // Written upwards from just above the bar: three labels side by side would not fit.
        let value_style =
            TextStyle::from((FONT, 12).into_font().transform(FontTransform::Rotate270))
                .pos(Pos::new(HPos::Left, VPos::Center));
        let kinds = ["encoded", "zstd -3, as stored", "zlib -6, as stored"];
        let mut entries = Vec::new();
        for (j, kind) in kinds.iter().enumerate() {
            let colour = SIZE_COLOURS[j];
            let bars = groups.iter().enumerate().filter_map(|(i, g)| {
                let b = sizes(g)[j]?;
                let x0 = i as f64 + 0.1 + j as f64 * width;
                Some(Rectangle::new(
                    [(x0 + 0.01, 0.0), (x0 + width - 0.01, b)],
                    colour.filled(),
                ))
            });
            chart.draw_series(bars).map_err(err)?;
            entries.push((kind.to_string(), Swatch::Fill(colour)));
        }
        for (i, g) in groups.iter().enumerate() {
            for (j, b) in sizes(g).into_iter().enumerate() {
                let Some(b) = b else { continue };
                let xc = i as f64 + 0.1 + (j as f64 + 0.5) * width;
                chart
                    .draw_series([Text::new(
                        format!("{b:.1}"),
                        (xc, b + top * 0.01),
                        value_style.clone(),
                    )])
                    .map_err(err)?;
            }
        }
        legend_column(&legend, &entries)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}
