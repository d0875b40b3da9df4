//! The frame every chart shares: the title over the plot, the axes' look, the legend column
//! right of the plot, the format names under bar slots, and the markers; and [`Chart`], what a
//! chart draws inside it.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor;

use super::axis::{err, Axis, DrawResult};
use super::style::{FONT, SIZE};
use crate::report::tables::count;

/// What a legend entry shows beside its label.
#[derive(Clone, Copy)]
pub(super) enum Swatch {
    Fill(RGBColor),
    /// A line of this width; dashed when the format's tier is not 0.
    Line(RGBColor, u32, bool),
    /// A marker of the format's tier.
    Marker(RGBColor, usize),
    /// The min–max whisker.
    Whisker,
    /// Nothing: a second line of the entry above.
    Blank,
}

/// Legend column width, px: the legend sits right of the plot, never over the data.
pub(super) const LEGEND_WIDTH: u32 = 210;

/// A part of a chart's SVG canvas.
pub(super) type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// A chart's coordinates over its plot: both axes [`Axis`], linear or logarithmic.
pub(super) type Plane<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<Axis, Axis>>;

/// One chart of the report. Each chart draws its data only; the title, the axes' look, the
/// legend column and the SVG around them are drawn the same for all by [`svg`].
pub(super) trait Chart {
    /// Width and height in pixels.
    fn size(&self) -> (u32, u32) {
        SIZE
    }
    /// Whether a legend column is kept right of the plot.
    fn has_legend(&self) -> bool {
        true
    }
    /// Draws the plot; returns the legend's entries.
    fn draw(&self, canvas: &Canvas<'_, '_>) -> DrawResult<Vec<(String, Swatch)>>;
}

/// Where a chart draws: the whole canvas (for what is placed in pixels, such as labels beside
/// points) and the plot under the title.
pub(super) struct Canvas<'a, 'b> {
    pub root: &'a Area<'b>,
    pub plot: &'a Area<'b>,
}

/// `chart` as an SVG document, titled with `section` (grey) over `what`.
pub(super) fn svg(chart: &dyn Chart, section: &str, what: &str) -> DrawResult<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, chart.size()).into_drawing_area();
        let (plot, legend) = frame(&root, section, what, chart.has_legend())?;
        let entries = chart.draw(&Canvas {
            root: &root,
            plot: &plot,
        })?;
        if chart.has_legend() {
            legend_column(&legend, &entries)?;
        }
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// What the axes of a chart show; everything else about them is the same in every chart.
pub(super) struct Axes<'a> {
    pub x: Axis,
    pub y: Axis,
    pub x_desc: &'a str,
    pub y_desc: &'a str,
    /// The x tick labels; bar charts give none and name their slots with [`slot_labels`].
    pub x_labels: &'a dyn Fn(&f64) -> String,
    /// Vertical grid lines at the x ticks (not through the bars of a bar chart).
    pub x_grid: bool,
    /// Room right of the plot, px (the scatter's labels may stand right of its last point).
    pub margin_right: u32,
}

/// The plot's coordinates with the axes every chart shares: 14 px tick labels, 16 px axis
/// names, y values with thousands separators, a faint grid at the ticks only.
pub(super) fn plane<'a, 'b>(plot: &'a Area<'b>, axes: Axes<'_>) -> DrawResult<Plane<'a, 'b>> {
    let mut chart = ChartBuilder::on(plot)
        .margin(10)
        .margin_right(axes.margin_right)
        .x_label_area_size(56)
        .y_label_area_size(90)
        .build_cartesian_2d(axes.x, axes.y)
        .map_err(err)?;
    let mut mesh = chart.configure_mesh();
    if !axes.x_grid {
        mesh.disable_x_mesh();
    }
    mesh.x_desc(axes.x_desc)
        .y_desc(axes.y_desc)
        .x_label_formatter(axes.x_labels)
        .y_label_formatter(&|y| count(*y))
        .label_style((FONT, 14))
        .axis_desc_style((FONT, 16))
        .light_line_style(WHITE)
        .bold_line_style(BLACK.mix(0.12))
        .draw()
        .map_err(err)?;
    Ok(chart)
}

/// Fills the canvas and writes the title in two lines (the section in grey, then what the
/// chart shows), shrinking the font when a line would not fit; returns the area under it split
/// into the plot (left) and the legend column (right, [`LEGEND_WIDTH`] wide; zero wide when
/// `legend` is false).
fn frame<'a>(
    root: &Area<'a>,
    section: &str,
    what: &str,
    legend: bool,
) -> DrawResult<(Area<'a>, Area<'a>)> {
    root.fill(&WHITE).map_err(err)?;
    let (w, _) = root.dim_in_pixel();
    let fit = |text: &str, size: f64| -> f64 {
        // About 0.56 em per character in a sans-serif font.
        let room = f64::from(w) - 40.0;
        size.min(room / (0.56 * text.chars().count().max(1) as f64))
            .floor()
    };
    let style = |size: f64, colour: &'static RGBColor| {
        TextStyle::from((FONT, size).into_font())
            .color(colour)
            .pos(text_anchor::Pos::new(
                text_anchor::HPos::Left,
                text_anchor::VPos::Top,
            ))
    };
    let lines = [
        (section, 10, 16.0, &RGBColor(0x66, 0x66, 0x66)),
        (what, 32, 21.0, &RGBColor(0x22, 0x22, 0x22)),
    ];
    for (text, y, size, colour) in lines {
        let text_style = style(fit(text, size), colour);
        root.draw(&Text::new(text.to_owned(), (20, y), text_style))
            .map_err(err)?;
    }
    let (_, body) = root.split_vertically(64);
    let (bw, _) = body.dim_in_pixel();
    let legend = if legend { LEGEND_WIDTH } else { 0 };
    Ok(body.split_horizontally(bw.saturating_sub(legend)))
}

/// Draws `entries` down the legend column, each a swatch and its label.
fn legend_column(area: &Area<'_>, entries: &[(String, Swatch)]) -> DrawResult<()> {
    let style = TextStyle::from((FONT, 15).into_font()).pos(text_anchor::Pos::new(
        text_anchor::HPos::Left,
        text_anchor::VPos::Center,
    ));
    for (i, (label, swatch)) in entries.iter().enumerate() {
        let y = 24 + 26 * i as i32;
        let (x0, x1) = (10, 36);
        match *swatch {
            Swatch::Fill(c) => area
                .draw(&Rectangle::new(
                    [(x0 + 4, y - 7), (x1 - 4, y + 7)],
                    c.filled(),
                ))
                .map_err(err)?,
            Swatch::Line(c, width, dashed) => {
                let dashes = [(x0, x0 + 6), (x0 + 10, x0 + 16), (x0 + 20, x0 + 26)];
                let line = if dashed { &dashes[..] } else { &[(x0, x1)] };
                for &(a, b) in line {
                    let dash = PathElement::new(vec![(a, y), (b, y)], c.stroke_width(width));
                    area.draw(&dash).map_err(err)?;
                }
            }
            Swatch::Marker(c, tier) => marker(area, ((x0 + x1) / 2, y), c, tier, 6)?,
            Swatch::Blank => {}
            Swatch::Whisker => {
                let s = BLACK.stroke_width(1);
                let xc = (x0 + x1) / 2;
                area.draw(&PathElement::new(vec![(xc, y - 8), (xc, y + 8)], s))
                    .map_err(err)?;
                area.draw(&PathElement::new(vec![(xc - 4, y - 8), (xc + 4, y - 8)], s))
                    .map_err(err)?;
                area.draw(&PathElement::new(vec![(xc - 4, y + 8), (xc + 4, y + 8)], s))
                    .map_err(err)?;
            }
        }
        area.draw(&Text::new(label.clone(), (x1 + 8, y), style.clone()))
            .map_err(err)?;
    }
    Ok(())
}

/// A bar's width in slots: three bars fill 0.8 of a slot.
pub(super) const BAR: f64 = 0.8 / 3.0;

pub(super) fn bar_centre(i: usize, j: usize) -> f64 {
    i as f64 + 0.1 + (j as f64 + 0.5) * BAR
}

/// A bar chart's plane: one slot per name on x, named under it ([`slot_labels`]), `y` up.
pub(super) fn slots<'a, 'b>(
    plot: &'a Area<'b>,
    names: &[String],
    y: Axis,
    x_desc: &str,
    y_desc: &str,
) -> DrawResult<Plane<'a, 'b>> {
    let n = names.len();
    let bottom = y.bounds().0;
    let x = Axis::linear(0.0, n as f64, (0..n).map(|i| i as f64 + 0.5).collect());
    let chart = plane(
        plot,
        Axes {
            x,
            y,
            x_desc,
            y_desc,
            x_labels: &|_| String::new(),
            x_grid: false,
            margin_right: 10,
        },
    )?;
    let (bx, by) = plot.get_base_pixel();
    slot_labels(plot, names, |i| {
        let (x, y) = chart.backend_coord(&(i as f64 + 0.5, bottom));
        (x - bx, y - by)
    })?;
    Ok(chart)
}

/// Three bars per slot from `bottom`: bar `j` up to `value(i, j)` (none where `None`), filled
/// with `colours[j]`; returns the legend's entries, `kinds` in their colours.
pub(super) fn grouped_bars(
    chart: &mut Plane<'_, '_>,
    slots: usize,
    kinds: [&str; 3],
    colours: [RGBColor; 3],
    bottom: f64,
    value: impl Fn(usize, usize) -> Option<f64>,
) -> DrawResult<Vec<(String, Swatch)>> {
    let mut entries = Vec::new();
    for (j, (kind, colour)) in kinds.into_iter().zip(colours).enumerate() {
        let bars = (0..slots).filter_map(|i| {
            let x0 = i as f64 + 0.1 + j as f64 * BAR;
            let top = value(i, j)?;
            Some(Rectangle::new(
                [(x0 + 0.01, bottom), (x0 + BAR - 0.01, top)],
                colour.filled(),
            ))
        });
        chart.draw_series(bars).map_err(err)?;
        entries.push((kind.to_string(), Swatch::Fill(colour)));
    }
    Ok(entries)
}

/// The format names under a bar chart's slots, in two staggered rows when one row would make
/// neighbours touch. `at(i)` is the pixel of slot `i`'s centre on the x axis.
pub(super) fn slot_labels(
    root: &Area<'_>,
    names: &[String],
    at: impl Fn(usize) -> (i32, i32),
) -> DrawResult<()> {
    let size = 14.0;
    let width = |s: &str| 0.56 * size * s.chars().count() as f64;
    let slot = if names.len() > 1 {
        f64::from((at(1).0 - at(0).0).abs())
    } else {
        f64::INFINITY
    };
    let stagger = names.iter().any(|n| width(n) + 6.0 > slot);
    let style = TextStyle::from((FONT, size).into_font()).pos(text_anchor::Pos::new(
        text_anchor::HPos::Center,
        text_anchor::VPos::Top,
    ));
    for (i, name) in names.iter().enumerate() {
        let (x, y) = at(i);
        let dy = if stagger && i % 2 == 1 { 24 } else { 8 };
        if stagger && i % 2 == 1 {
            root.draw(&PathElement::new(
                vec![(x, y + 2), (x, y + dy - 2)],
                BLACK.mix(0.3).stroke_width(1),
            ))
            .map_err(err)?;
        }
        root.draw(&Text::new(name.clone(), (x, y + dy), style.clone()))
            .map_err(err)?;
    }
    Ok(())
}

/// A marker of `tier` at pixel `at`: circle, triangle, square, cross.
pub(super) fn marker(
    area: &Area<'_>,
    at: (i32, i32),
    colour: RGBColor,
    tier: usize,
    r: i32,
) -> DrawResult<()> {
    let (x, y) = at;
    let fill = colour.filled();
    match tier {
        0 => area.draw(&Circle::new(at, r, fill)),
        1 => area.draw(&Polygon::new(
            vec![(x, y - r - 1), (x - r - 1, y + r), (x + r + 1, y + r)],
            fill,
        )),
        2 => area.draw(&Rectangle::new([(x - r, y - r), (x + r, y + r)], fill)),
        _ => {
            let s = colour.stroke_width(3);
            area.draw(&PathElement::new(vec![(x - r, y - r), (x + r, y + r)], s))
                .and_then(|_| area.draw(&PathElement::new(vec![(x - r, y + r), (x + r, y - r)], s)))
        }
    }
    .map_err(err)
}
