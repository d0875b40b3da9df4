//! `bytes-<input>-<label>.svg`: bytes per message per format, encoded and as stored, smallest
//! first.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::axis::{err, Axis, DrawResult};
use super::canvas::{bar_centre, grouped_bars, slots, Area, Canvas, Chart, Plane, Swatch};
use super::style::{Colours, FONT, SIZE_COLOURS};
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

/// The plane both bytes charts draw in: one slot per format on x (named), bytes on y.
fn bytes_frame<'a, 'b>(
    plot: &'a Area<'b>,
    names: &[String],
    top: f64,
    y_desc: &str,
) -> DrawResult<Plane<'a, 'b>> {
    let y = Axis::linear(0.0, top, Axis::round_ticks(top, 8));
    slots(plot, names, y, "format (smallest encoded first)", y_desc)
}

/// Bytes per message per format, smallest encoded first: with the size as stored, three bars
/// per format (encoded, zstd, zlib) coloured by kind; otherwise one, in the format's colour.
pub(super) struct Bytes<'a> {
    pub groups: &'a [&'a Group],
    pub colours: &'a Colours,
    pub stored: bool,
}

impl Chart for Bytes<'_> {
    fn has_legend(&self) -> bool {
        self.stored
    }

    fn draw(&self, canvas: &Canvas<'_, '_>) -> DrawResult<Vec<(String, Swatch)>> {
        let groups = by_size(self.groups);
        if self.stored {
            stored_bytes_bars(canvas.plot, &groups)
        } else {
            bytes_bars(canvas.plot, &groups, self.colours).map(|()| Vec::new())
        }
    }
}

fn bytes_bars(plot: &Area<'_>, groups: &[&Group], colours: &Colours) -> DrawResult<()> {
    let top = groups
        .iter()
        .map(|g| g.bytes_per_message.max)
        .fold(1.0, f64::max)
        * 1.12; // room for the values above the bars
    let names: Vec<String> = groups.iter().map(|g| g.shown()).collect();
    let mut chart = bytes_frame(
        plot,
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
    Ok(())
}

/// Three bars per format: encoded, zstd and zlib bytes per message (medians). A format whose
/// runs did not measure the size as stored gets its encoded bar only.
fn stored_bytes_bars(plot: &Area<'_>, groups: &[&Group]) -> DrawResult<Vec<(String, Swatch)>> {
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
    let names: Vec<String> = groups.iter().map(|g| g.shown()).collect();
    let mut chart = bytes_frame(plot, &names, top, "bytes per message (median across runs)")?;
    // Written upwards from just above the bar: three labels side by side would not fit.
    let value_style = TextStyle::from((FONT, 12).into_font().transform(FontTransform::Rotate270))
        .pos(Pos::new(HPos::Left, VPos::Center));
    let kinds = ["encoded", "zstd -3, as stored", "zlib -6, as stored"];
    let size = |i: usize, j: usize| sizes(groups[i])[j];
    let entries = grouped_bars(&mut chart, groups.len(), kinds, SIZE_COLOURS, 0.0, size)?;
    for (i, g) in groups.iter().enumerate() {
        for (j, b) in sizes(g).into_iter().enumerate() {
            let Some(b) = b else { continue };
            chart
                .draw_series([Text::new(
                    format!("{b:.1}"),
                    (bar_centre(i, j), b + top * 0.01),
                    value_style.clone(),
                )])
                .map_err(err)?;
        }
    }
    Ok(entries)
}
