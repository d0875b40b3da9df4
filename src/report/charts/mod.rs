//! The report's SVG charts, drawn with plotters' SVG backend (text stays `<text>` elements, so no
//! font files are needed to write them; the viewer's sans-serif font draws the text).
//!
//! - `dist-<input>-<side>.svg`: the latency distribution per format, from the `.hgrm` files. The
//!   x axis is HdrHistogram's "number of nines" scale: x = 1/(1−p) on a log axis, labelled 0%,
//!   90%, 99%, 99.9%, ...; the y axis is ns per packet on a log axis, so both the body and the
//!   preemption tail stay readable.
//!
//!   **Which run.** Every run found is drawn as a thin, faint line in its format's colour, and
//!   the run whose p50 is the median of the runs' p50s is drawn bold and named in the legend.
//!   The bold line is a run that happened: a pointwise median of several curves is not a
//!   distribution any run had, and the faint lines show how much the runs disagree (mostly in
//!   the tail), which one chosen run alone would hide.
//!   Sides: `ser`, `de` (selective decode) and, where the runs wrote `<format>.de_all.hgrm`,
//!   `de_all` (complete decode: every field read and checksummed).
//! - `pct-<input>-<label>-<side>.svg`: grouped bars of the median p50, p99 and p99.9 per format,
//!   with a whisker for the min–max across runs and the median written above each bar; `de_all`
//!   too when every format of the input and label measured it.
//! - `bytes-<input>-<label>.svg`: bytes per message per format. When the runs measured the size
//!   as stored, three bars per format: encoded, zstd and zlib (each window compressed whole),
//!   coloured by kind with a legend; otherwise one bar per format, in the format's colour.
//!
//! A format has the same colour in every chart.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

mod axis;
mod bytes;
mod distribution;
mod percentiles;
pub mod scatter;

use plotters::prelude::*;
use plotters::style::text_anchor;

pub use axis::nines_label;
use axis::{err, DrawResult};
use bytes::{bytes_bars, stored_bytes_bars};
use distribution::distribution;
use percentiles::percentile_bars;
use scatter::scatter;

use super::dist;
use super::stats::{section_name, Group, Summary, Warning, WarningKind};
use super::{write_atomically, ChartFile, ChartKind, ReportError};

const SIZE: (u32, u32) = (960, 540);
const FONT: &str = "sans-serif";

/// Paul Tol's "muted" scheme, distinguishable with every common colour-vision deficiency, then a
/// dark grey: one colour per format for the first ten. Beyond ten, [`Colours::of`] generates
/// hues and [`Colours::tier`] gives those formats dashed lines and other marker shapes, so no
/// two formats ever look alike however many there are.
const PALETTE: [RGBColor; 10] = [
    RGBColor(0x33, 0x22, 0x88),
    RGBColor(0xcc, 0x66, 0x77),
    RGBColor(0x11, 0x77, 0x33),
    RGBColor(0x88, 0xcc, 0xee),
    RGBColor(0x88, 0x22, 0x55),
    RGBColor(0x44, 0xaa, 0x99),
    RGBColor(0x99, 0x99, 0x33),
    RGBColor(0xaa, 0x44, 0x99),
    RGBColor(0xdd, 0xcc, 0x77),
    RGBColor(0x55, 0x55, 0x55),
];

/// Encoded, zstd and zlib in the bytes chart with the size as stored: coloured by kind, not by
/// format (the x axis names the format); slate for the encoding itself, then teal and coral.
const SIZE_COLOURS: [RGBColor; 3] = [
    RGBColor(0x5b, 0x67, 0x70),
    RGBColor(0x2a, 0x9d, 0x8f),
    RGBColor(0xe7, 0x6f, 0x51),
];

/// p50, p99, p99.9 in the grouped bars: light to dark, so higher percentiles read darker.
const PCT_COLOURS: [RGBColor; 3] = [
    RGBColor(0x9e, 0xca, 0xe1),
    RGBColor(0x42, 0x92, 0xc6),
    RGBColor(0x08, 0x3d, 0x7f),
];

/// A format's colour and line or marker style, fixed by its place in one order for every chart.
pub(crate) struct Colours(Vec<String>);

impl Colours {
    /// The registry's order (`for_each_format!`), then any other format of the summary by name:
    /// a format keeps its colour in every chart and every report, and a format appended to the
    /// registry recolours none of the others.
    pub(crate) fn new(summary: &Summary) -> Colours {
        let mut order: Vec<String> = crate::formats::names()
            .into_iter()
            .map(String::from)
            .collect();
        for f in summary.formats() {
            if !order.iter().any(|o| o == f) {
                order.push(f.to_owned());
            }
        }
        Colours(order)
    }
    fn index(&self, format: &str) -> usize {
        self.0.iter().position(|f| f == format).unwrap_or(0)
    }
    pub(crate) fn of(&self, format: &str) -> RGBColor {
        let i = self.index(format);
        match PALETTE.get(i) {
            Some(c) => *c,
            None => {
                // Golden-angle hues at two lightnesses: neighbours in the order differ most.
                let k = i - PALETTE.len();
                let hue = (k as f64 * 0.381_966).fract();
                let light = if k % 2 == 0 { 0.38 } else { 0.55 };
                let (r, g, b) = HSLColor(hue, 0.65, light).rgb();
                RGBColor(r, g, b)
            }
        }
    }
    /// 0 for the palette's formats (solid lines, round markers); 1, 2, ... for the generated
    /// ones (dashed lines; triangles, squares, crosses).
    pub(crate) fn tier(&self, format: &str) -> usize {
        let i = self.index(format);
        if i < PALETTE.len() {
            0
        } else {
            1 + (i - PALETTE.len()) % 3
        }
    }
}

/// The timed sides, as in file names and as in titles.
const SIDES: [(&str, &str); 3] = [
    ("ser", "serialize"),
    ("de", "selective decode"),
    ("de_all", "complete decode"),
];

/// One format's histograms of one side, every run merged: the "merged" rows of the tables.
#[derive(Debug, Clone, PartialEq)]
pub struct MergedRow {
    pub input: String,
    pub label: String,
    pub format: String,
    pub side: &'static str,
    pub runs: usize,
    /// Timed units in all runs together.
    pub count: u64,
    /// In [`crate::report::load::PERCENTILES`] order: p50 ... p99.99, max, mean.
    pub values: [f64; 7],
}

impl MergedRow {
    fn of(
        (input, label, side): (&str, &str, &'static str),
        f: &dist::FormatRuns,
    ) -> Option<MergedRow> {
        let h = f.merged.as_ref()?;
        let q = |q: f64| h.value_at_quantile(q) as f64;
        Some(MergedRow {
            input: input.to_owned(),
            label: label.to_owned(),
            format: f.format.clone(),
            side,
            runs: f.runs.len(),
            count: h.len(),
            values: [
                q(0.5),
                q(0.9),
                q(0.99),
                q(0.999),
                q(0.9999),
                h.max() as f64,
                h.mean(),
            ],
        })
    }
}

/// What [`write_all`] drew.
pub struct Drawn {
    pub charts: Vec<ChartFile>,
    pub merged: Vec<MergedRow>,
}

/// Every section's histograms, per side: read before anything is written, so an unreadable
/// histogram leaves no half-written report.
pub struct Histograms(Vec<Vec<(&'static str, &'static str, Vec<dist::FormatRuns>)>>);

/// Reads the histograms of every section of `summary` (in [`Summary::sections`] order).
pub fn read_histograms(
    summary: &Summary,
    hist_dirs: &[PathBuf],
) -> Result<Histograms, ReportError> {
    let mut out = Vec::new();
    for (input, label, groups) in summary.sections() {
        let order = summary.format_order(input);
        let formats: Vec<&str> = order
            .iter()
            .map(String::as_str)
            .filter(|f| groups.iter().any(|g| g.format == *f))
            .collect();
        let mut sides = Vec::new();
        for (side, side_name) in SIDES {
            let runs = dist::find(hist_dirs, input, label, side, &formats)?;
            if !runs.is_empty() {
                sides.push((side, side_name, runs));
            }
        }
        out.push(sides);
    }
    Ok(Histograms(out))
}

/// Draws every chart into `out_dir`; adds a warning for a section without histograms.
pub fn write_all(
    summary: &Summary,
    hists: &Histograms,
    hist_dirs: &[PathBuf],
    out_dir: &Path,
    warnings: &mut Vec<Warning>,
) -> Result<Drawn, ReportError> {
    let colours = Colours::new(summary);
    let mut names = Names::default();
    let mut out = Vec::new();
    let mut chart = |out: &mut Vec<ChartFile>,
                     kind: ChartKind,
                     (input, label): (&str, &str),
                     stem: String,
                     title: String,
                     draw: &dyn Fn() -> DrawResult<String>|
     -> Result<(), ReportError> {
        let file = names.get(&stem);
        let svg = draw().map_err(|e| chart_error(out_dir, &file, e))?;
        save(out_dir, &file, &svg)?;
        out.push(ChartFile {
            file,
            title,
            input: input.to_owned(),
            label: Some(label.to_owned()),
            kind,
        });
        Ok(())
    };
    for (input, label, groups) in summary.sections() {
        let section = section_name(input, label);
        let order = summary.format_order(input);
        let ordered: Vec<&Group> = order
            .iter()
            .filter_map(|f| groups.iter().copied().find(|g| &g.format == f))
            .collect();
        let unit = groups[0].unit;
        let sizes = [
            (
                false,
                "wire",
                "bytes per message, encoded (median)",
                "on the wire",
            ),
            (
                true,
                "stored",
                "bytes per message, zstd -3 (median)",
                "as stored (zstd)",
            ),
        ];
        for (stored, stem, x_desc, how) in sizes {
            if stored && !groups.iter().any(|g| g.zstd_bytes_per_message.is_some()) {
                continue;
            }
            let sum = groups
                .first()
                .map_or("ser + de_all", |g| g.basis.sum_name());
            let what = format!("size {how} against {sum} time per {unit}");
            chart(
                &mut out,
                ChartKind::Scatter,
                (input, label),
                format!("scatter-{input}-{label}-{stem}"),
                format!("{section}: {what}"),
                &|| scatter(&section, &what, x_desc, &ordered, &colours, stored),
            )?;
        }
        for (side, side_name) in SIDES {
            if side == "de_all" && !groups.iter().all(|g| g.de_all.is_some()) {
                continue;
            }
            let what = format!("{side_name} latency per {unit}: p50, p99, p99.9");
            chart(
                &mut out,
                ChartKind::Percentiles,
                (input, label),
                format!("pct-{input}-{label}-{side}"),
                format!("{section}: {what}"),
                &|| percentile_bars(&section, &what, &ordered, side),
            )?;
        }
        let stored = groups
            .iter()
            .any(|g| g.zstd_bytes_per_message.is_some() || g.zlib_bytes_per_message.is_some());
        let what = if stored {
            "size per message, encoded and as stored".to_owned()
        } else {
            "encoded size".to_owned()
        };
        chart(
            &mut out,
            ChartKind::Bytes,
            (input, label),
            format!("bytes-{input}-{label}"),
            format!("{section}: {what}"),
            &|| {
                if stored {
                    stored_bytes_bars(&section, &what, &groups)
                } else {
                    bytes_bars(&section, &what, &groups, &colours)
                }
            },
        )?;
    }
    let mut merged = Vec::new();
    for ((input, label, groups), sides) in summary.sections().into_iter().zip(&hists.0) {
        let section = section_name(input, label);
        let found_any = !sides.is_empty();
        for (side, side_name, runs) in sides {
            let side: &'static str = side;
            merged.extend(
                runs.iter()
                    .filter_map(|f| MergedRow::of((input, label, side), f)),
            );
            let most = runs.iter().map(|r| r.runs.len()).max().unwrap_or(0);
            let every_merged = runs.iter().all(|r| r.merged.is_some());
            let what = format!(
                "{side_name} latency distribution ({})",
                match (most, every_merged) {
                    (1, _) => "1 run".to_owned(),
                    (n, true) => format!("{n} runs merged bold, each run faint"),
                    (n, false) => format!("median of {n} runs by p50 bold, each run faint"),
                }
            );
            chart(
                &mut out,
                ChartKind::Distribution,
                (input, label),
                format!("dist-{input}-{label}-{side}"),
                format!("{section}: {what}"),
                &|| distribution(&section, &what, runs, &colours, groups[0].unit),
            )?;
        }
        if !found_any {
            let looked: Vec<String> = hist_dirs
                .iter()
                .map(|d| d.join(input).display().to_string())
                .collect();
            warnings.push(Warning::new(
                WarningKind::NoHistograms,
                format!(
                    "{section}: no histograms (.hlog or .hgrm) found (looked in {}); no distribution chart",
                    if looked.is_empty() {
                        "no histogram folder: pass --hist-dir".to_owned()
                    } else {
                        looked.join(", ")
                    }
                ),
            ));
        }
    }
    Ok(Drawn {
        charts: out,
        merged,
    })
}

fn chart_error(out_dir: &Path, file: &str, e: String) -> ReportError {
    ReportError::new(out_dir.join(file), format!("cannot draw the chart: {e}"))
}

fn save(out_dir: &Path, file: &str, svg: &str) -> Result<(), ReportError> {
    let path = out_dir.join(file);
    write_atomically(&path, |w| w.write_all(svg.as_bytes()))
        .map_err(|e| ReportError::new(&path, format!("cannot write: {e}")))
}

/// File names: `[A-Za-z0-9._-]` kept, the rest `_`, made unique with `-2`, `-3`, ...
#[derive(Default)]
struct Names(HashSet<String>);

impl Names {
    fn get(&mut self, stem: &str) -> String {
        let clean: String = stem
            .trim_end_matches('-')
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let mut name = format!("{clean}.svg");
        let mut n = 2;
        while !self.0.insert(name.clone()) {
            name = format!("{clean}-{n}.svg");
            n += 1;
        }
        name
    }
}

/// What a legend entry shows beside its label.
#[derive(Clone, Copy)]
pub(crate) enum Swatch {
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
pub(crate) const LEGEND_WIDTH: u32 = 210;

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

/// Fills the canvas and writes the title in two lines (the section in grey, then what the
/// chart shows), shrinking the font when a line would not fit; returns the area under it split
/// into the plot (left) and the legend column (right, [`LEGEND_WIDTH`] wide; zero wide when
/// `legend` is false).
pub(crate) fn frame<'a>(
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
    root.draw(&Text::new(
        section.to_owned(),
        (20, 10),
        style(fit(section, 16.0), &RGBColor(0x66, 0x66, 0x66)),
    ))
    .map_err(err)?;
    root.draw(&Text::new(
        what.to_owned(),
        (20, 32),
        style(fit(what, 21.0), &RGBColor(0x22, 0x22, 0x22)),
    ))
    .map_err(err)?;
    let (_, body) = root.split_vertically(64);
    if legend {
        let (bw, _) = body.dim_in_pixel();
        Ok(body.split_horizontally(bw.saturating_sub(LEGEND_WIDTH)))
    } else {
        let (bw, _) = body.dim_in_pixel();
        let (plot, rest) = body.split_horizontally(bw);
        Ok((plot, rest))
    }
}

/// Draws `entries` down the legend column, each a swatch and its label.
pub(crate) fn legend_column(area: &Area<'_>, entries: &[(String, Swatch)]) -> DrawResult<()> {
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
                if dashed {
                    for s in [x0, x0 + 10, x0 + 20] {
                        area.draw(&PathElement::new(
                            vec![(s, y), (s + 6, y)],
                            c.stroke_width(width),
                        ))
                        .map_err(err)?;
                    }
                } else {
                    area.draw(&PathElement::new(
                        vec![(x0, y), (x1, y)],
                        c.stroke_width(width),
                    ))
                    .map_err(err)?
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

/// The format names under a bar chart's slots, in two staggered rows when one row would make
/// neighbours touch. `at(i)` is the pixel of slot `i`'s centre on the x axis.
pub(crate) fn slot_labels(
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
pub(crate) fn marker(
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

#[cfg(test)]
mod tests {
    use super::axis::{log_ticks, thousands};
    use super::*;

    #[test]
    fn every_format_looks_different_however_many() {
        let names: Vec<String> = (0..40).map(|i| format!("f{i}")).collect();
        let c = Colours(names.clone());
        let looks: Vec<((u8, u8, u8), usize)> = names
            .iter()
            .map(|n| {
                let RGBColor(r, g, b) = c.of(n);
                ((r, g, b), c.tier(n))
            })
            .collect();
        let mut distinct = looks.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), names.len(), "{looks:?}");
        // The first ten are the palette, solid; the rest are drawn dashed, with other markers.
        assert!(looks[..10].iter().all(|(_, t)| *t == 0));
        assert!(looks[10..].iter().all(|(_, t)| *t > 0));
        // Generated colours are not the palette's.
        for (rgb, _) in &looks[10..] {
            assert!(!PALETTE.iter().any(|p| (p.0, p.1, p.2) == *rgb));
        }
    }

    #[test]
    fn labels_and_ticks() {
        assert_eq!(nines_label(0.0), "0%");
        assert_eq!(nines_label(1.0), "90%");
        assert_eq!(nines_label(2.0), "99%");
        assert_eq!(nines_label(4.0), "99.99%");
        assert_eq!(thousands(1234567.0), "1,234,567");
        assert_eq!(thousands(999.0), "999");
        assert_eq!(
            log_ticks(10.0, 1000.0),
            vec![10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0]
        );
        let mut names = Names::default();
        assert_eq!(names.get("pct-a b-"), "pct-a_b.svg");
        assert_eq!(names.get("pct-a_b"), "pct-a_b-2.svg");
    }
}
