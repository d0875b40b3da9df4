//! `scatter-<input>-<label>-<wire|stored>.svg`: size against speed, one labelled point per
//! format with its run-to-run range as error bars, and the Pareto frontier: the formats no other
//! beats on both size and time. The first chart a reader sees, beside the verdict.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::axis::{err, Axis, DrawResult};
use super::canvas::{marker, plane, Axes, Canvas, Chart, Plane, Swatch};
use super::style::{Colours, FONT};
use crate::export::caveat::{Caveat, Caveats};
use crate::report::stats::{trim, Basis, Group, Stat, RAW};

/// The frontier's dashed line.
const FRONTIER: RGBColor = RGBColor(0x66, 0x66, 0x66);

/// Narrower than the other charts' 960 × 540: it is shown beside the verdict, at about 680 px,
/// and read for the labels next to each point.
const SCATTER_SIZE: (u32, u32) = (820, 600);

/// One format's point: size (x) and ser + de_all time (y, what the section is ranked by: see
/// [`Basis`]), each with its spread across runs.
#[derive(Debug, Clone)]
pub struct Point {
    pub format: String,
    /// Its rows' caveats: its name's marks, and whether it is a contender.
    pub caveats: Caveats,
    pub x: Stat,
    pub y: Stat,
}

/// The points of a section: bytes per message on the wire, or as stored (zstd) when `stored`;
/// formats without the figure are left out.
pub fn points(groups: &[&Group], stored: bool) -> Vec<Point> {
    groups
        .iter()
        .filter_map(|g| {
            let x = if stored {
                g.zstd_bytes_per_message?
            } else {
                g.bytes_per_message
            };
            Some(Point {
                format: g.format.clone(),
                caveats: g.caveats(),
                x,
                y: g.speed,
            })
        })
        .collect()
}

/// The formats nothing beats on both axes (by medians; raw, the floor, is not a contender, nor
/// is a format that trusts its producer or a lossy one, which the verdict beside the chart
/// leaves out too), smallest first.
pub fn pareto(points: &[Point]) -> Vec<&Point> {
    let contenders: Vec<&Point> = points
        .iter()
        .filter(|p| p.format != RAW && p.caveats.iter().all(|c| c.left_out().is_none()))
        .collect();
    let mut front: Vec<&Point> = contenders
        .iter()
        .copied()
        .filter(|p| {
            !contenders.iter().any(|q| {
                q.x.median <= p.x.median
                    && q.y.median <= p.y.median
                    && (q.x.median < p.x.median || q.y.median < p.y.median)
            })
        })
        .collect();
    front.sort_by(|a, b| a.x.median.total_cmp(&b.x.median));
    front
}

/// Size against speed for one section, on the wire or as stored.
pub(super) struct Scatter<'a> {
    /// The x axis's name.
    pub x_desc: &'a str,
    pub groups: &'a [&'a Group],
    pub colours: &'a Colours,
    /// Sizes as stored (zstd) rather than on the wire.
    pub stored: bool,
}

impl Chart for Scatter<'_> {
    fn size(&self) -> (u32, u32) {
        SCATTER_SIZE
    }

    fn draw(&self, canvas: &Canvas<'_, '_>) -> DrawResult<Vec<(String, Swatch)>> {
        let pts = points(self.groups, self.stored);
        let front = pareto(&pts);
        let unit = self.groups.first().map_or("packet", |g| g.unit);
        let basis = self.groups.first().map_or(Basis::Batch, |g| g.basis);
        let (x_axis, y_axis) = axes(&pts);
        let y_desc = format!(
            "{}, ns per {unit}{}",
            basis.sum_name(),
            if y_axis.is_log() { " (log scale)" } else { "" }
        );
        let mut chart = plane(
            canvas.plot,
            Axes {
                x: x_axis,
                y: y_axis,
                x_desc: self.x_desc,
                y_desc: &y_desc,
                x_labels: &|x| trim(*x),
                x_grid: true,
                margin_right: 20,
            },
        )?;
        // The frontier first, under the points.
        if front.len() > 1 {
            chart
                .draw_series(DashedLineSeries::new(
                    front.iter().map(|p| (p.x.median, p.y.median)),
                    6,
                    4,
                    FRONTIER.stroke_width(2),
                ))
                .map_err(err)?;
        }
        error_bars(&mut chart, &pts)?;
        // Markers, then each name beside its point where it covers no other name or point.
        let at: Vec<(i32, i32)> = pts
            .iter()
            .map(|p| chart.backend_coord(&(p.x.median, p.y.median)))
            .collect();
        for (p, &px) in pts.iter().zip(&at) {
            let colour = if p.format == RAW {
                RGBColor(0x99, 0x99, 0x99)
            } else {
                self.colours.of(&p.format)
            };
            marker(canvas.root, px, colour, self.colours.tier(&p.format), 6)?;
        }
        names(canvas, &pts, &at, &front)?;
        let not_contenders = Caveats::notes(pts.iter().map(|p| p.caveats))
            .filter(|c| c.left_out().is_some())
            .collect();
        Ok(legend(front.len() > 1, not_contenders))
    }
}

/// The axes fitted to the points and their spreads: x linear; y log where the times span more
/// than a factor of 4 (json beside sbe would flatten the rest), else linear.
fn axes(pts: &[Point]) -> (Axis, Axis) {
    let range = |of: fn(&Point) -> &Stat| {
        let start = (f64::INFINITY, 0.0f64);
        (pts.iter()).fold(start, |(lo, hi), p| (lo.min(of(p).min), hi.max(of(p).max)))
    };
    let ((x_lo, x_hi), (y_lo, y_hi)) = (range(|p| &p.x), range(|p| &p.y));
    let pad = (x_hi - x_lo).max(1.0) * 0.08;
    let x_axis = Axis::fitted_linear((x_lo - pad).max(0.0), x_hi + pad, 8);
    let y_axis = if y_hi > 4.0 * y_lo.max(1e-9) {
        Axis::fitted_log(y_lo * 0.85, y_hi * 1.15)
    } else {
        let pad = (y_hi - y_lo).max(1.0) * 0.1;
        Axis::fitted_linear((y_lo - pad).max(0.0), y_hi + pad, 8)
    };
    (x_axis, y_axis)
}

/// Each point's min–max across runs, both ways, where the runs differ.
fn error_bars(chart: &mut Plane<'_, '_>, pts: &[Point]) -> DrawResult<()> {
    let bar = BLACK.mix(0.6).stroke_width(1);
    for p in pts {
        let (x, y) = (p.x.median, p.y.median);
        let bars = [
            (p.y.min < p.y.max, [(x, p.y.min), (x, p.y.max)]),
            (p.x.min < p.x.max, [(p.x.min, y), (p.x.max, y)]),
        ];
        for (spread, ends) in bars {
            if spread {
                chart
                    .draw_series([PathElement::new(ends.to_vec(), bar)])
                    .map_err(err)?;
            }
        }
    }
    Ok(())
}

/// A label's box in pixels: left, top, right, bottom.
type Boxed = (i32, i32, i32, i32);

fn overlaps(a: Boxed, b: Boxed) -> bool {
    a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3
}

/// Each format's name beside its point (at pixel `at`), in the first place tried that stays
/// inside the plot and covers no point or name already placed; bold on the frontier.
fn names(
    canvas: &Canvas<'_, '_>,
    pts: &[Point],
    at: &[(i32, i32)],
    front: &[&Point],
) -> DrawResult<()> {
    let (pw, ph) = canvas.plot.dim_in_pixel();
    let (ox, oy) = canvas.plot.get_base_pixel();
    let bounds = (ox + 100, oy + 10, ox + pw as i32 - 10, oy + ph as i32 - 60);
    let inside =
        |b: Boxed| b.0 >= bounds.0 && b.2 <= bounds.2 && b.1 >= bounds.1 && b.3 <= bounds.3;
    let mut taken: Vec<Boxed> = at
        .iter()
        .map(|&(x, y)| (x - 7, y - 7, x + 7, y + 7))
        .collect();
    for (p, &(x, y)) in pts.iter().zip(at) {
        let on_front = front.iter().any(|f| f.format == p.format);
        let text = if p.format == RAW {
            "raw (floor)".to_owned()
        } else {
            p.caveats.shown(&p.format)
        };
        let size = 16;
        let w = (0.58 * size as f64 * text.chars().count() as f64) as i32;
        let h = size + 2;
        // Right, left, above, below, then further out.
        let tries = [
            (10, -h / 2),
            (-10 - w, -h / 2),
            (-w / 2, -10 - h),
            (-w / 2, 10),
            (10, -h - 6),
            (10, 6),
            (-10 - w, -h - 6),
            (-10 - w, 6),
            (-w / 2, -22 - h),
            (-w / 2, 22),
        ];
        let place = tries
            .iter()
            .map(|(dx, dy)| (x + dx, y + dy, x + dx + w, y + dy + h))
            .find(|b| inside(*b) && !taken.iter().any(|t| overlaps(*t, *b)))
            .unwrap_or((x + 10, y - h / 2, x + 10 + w, y + h / 2));
        taken.push(place);
        let font = if on_front {
            (FONT, size).into_font().style(FontStyle::Bold)
        } else {
            (FONT, size).into_font()
        };
        canvas
            .root
            .draw(&Text::new(
                text,
                (place.0, place.1),
                TextStyle::from(font).pos(Pos::new(HPos::Left, VPos::Top)),
            ))
            .map_err(err)?;
    }
    Ok(())
}

/// The legend: the marker, the whisker, the frontier's line where there is one, and what bold
/// names mean (and that formats the verdict leaves out are not contenders, where shown).
fn legend(frontier: bool, not_contenders: Vec<Caveat>) -> Vec<(String, Swatch)> {
    let mut entries = vec![
        (
            "format (median)".to_owned(),
            Swatch::Marker(RGBColor(0x33, 0x22, 0x88), 0),
        ),
        ("min–max of runs".to_owned(), Swatch::Whisker),
    ];
    if frontier {
        entries.push((
            "Pareto frontier".to_owned(),
            Swatch::Line(FRONTIER, 2, true),
        ));
    }
    for line in [
        "bold names: no other",
        "format is both smaller",
        "and faster",
    ] {
        entries.push((line.to_owned(), Swatch::Blank));
    }
    // The mark alone: the legend is narrow, and the chart's title says what each mark means.
    for mark in not_contenders.into_iter().filter_map(Caveat::mark) {
        entries.push((format!("({mark}: not a contender)"), Swatch::Blank));
    }
    entries
}
