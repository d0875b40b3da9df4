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

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::dist::{self, FormatRuns};
use super::stats::{section_name, trim, Group, Stat, Summary, Warning, WarningKind};
use super::{write_atomically, ChartFile, ReportError};

const SIZE: (u32, u32) = (960, 540);
const FONT: &str = "sans-serif";

/// Distinct colours (Tableau 10, reordered so neighbours differ most), one per format.
const PALETTE: [RGBColor; 10] = [
    RGBColor(0x4e, 0x79, 0xa7),
    RGBColor(0xf2, 0x8e, 0x2b),
    RGBColor(0x59, 0xa1, 0x4f),
    RGBColor(0xe1, 0x57, 0x59),
    RGBColor(0xb0, 0x7a, 0xa1),
    RGBColor(0x76, 0xb7, 0xb2),
    RGBColor(0x9c, 0x75, 0x5f),
    RGBColor(0xed, 0xc9, 0x48),
    RGBColor(0xff, 0x9d, 0xa7),
    RGBColor(0x79, 0x70, 0x6e),
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

struct Colours(Vec<String>);

impl Colours {
    fn of(&self, format: &str) -> RGBColor {
        let i = self.0.iter().position(|f| f == format).unwrap_or(0);
        PALETTE[i % PALETTE.len()]
    }
}

/// The timed sides, as in file names and as in titles.
const SIDES: [(&str, &str); 3] = [
    ("ser", "serialize"),
    ("de", "selective decode"),
    ("de_all", "complete decode"),
];

/// Draws every chart into `out_dir`; adds a warning for an input without histograms.
pub fn write_all(
    summary: &Summary,
    hist_dirs: &[PathBuf],
    out_dir: &Path,
    warnings: &mut Vec<Warning>,
) -> Result<Vec<ChartFile>, ReportError> {
    // Colours follow the registry's order (for_each_format!), then any other format found in
    // the CSVs by name, so a format keeps its colour in every chart and every report, and a new
    // format appended to the list recolours none of the others.
    let mut order: Vec<String> = crate::formats::names()
        .into_iter()
        .map(String::from)
        .collect();
    for f in summary.formats() {
        if !order.iter().any(|o| o == f) {
            order.push(f.to_owned());
        }
    }
    let colours = Colours(order);
    let mut names = Names::default();
    let mut out = Vec::new();
    for (input, label, groups) in summary.sections() {
        let section = section_name(input, label);
        for (side, side_name) in SIDES {
            if side == "de_all" && !groups.iter().all(|g| g.de_all.is_some()) {
                continue;
            }
            let title = format!("{section}: {side_name} latency per packet");
            let file = names.get(&format!("pct-{input}-{label}-{side}"));
            let svg = percentile_bars(&title, &groups, side)
                .map_err(|e| chart_error(out_dir, &file, e))?;
            save(out_dir, &file, &svg)?;
            out.push(ChartFile {
                file,
                title,
                input: input.to_owned(),
                label: Some(label.to_owned()),
            });
        }
        let stored = groups
            .iter()
            .any(|g| g.zstd_bytes_per_message.is_some() || g.zlib_bytes_per_message.is_some());
        let title = if stored {
            format!("{section}: size per message, encoded and as stored")
        } else {
            format!("{section}: encoded size")
        };
        let file = names.get(&format!("bytes-{input}-{label}"));
        let svg = if stored {
            stored_bytes_bars(&title, &groups)
        } else {
            bytes_bars(&title, &groups, &colours)
        }
        .map_err(|e| chart_error(out_dir, &file, e))?;
        save(out_dir, &file, &svg)?;
        out.push(ChartFile {
            file,
            title,
            input: input.to_owned(),
            label: Some(label.to_owned()),
        });
    }
    for (input, label, groups) in summary.sections() {
        let section = section_name(input, label);
        let formats: Vec<&str> = groups.iter().map(|g| g.format.as_str()).collect();
        let mut found_any = false;
        for (side, side_name) in SIDES {
            let runs = dist::find(hist_dirs, input, label, side, &formats)?;
            if runs.is_empty() {
                continue;
            }
            found_any = true;
            let most = runs.iter().map(|r| r.runs.len()).max().unwrap_or(0);
            let title = format!(
                "{section}: {side_name} latency distribution ({})",
                if most == 1 {
                    "1 run".to_owned()
                } else {
                    format!("median run bold, all {most} runs faint")
                }
            );
            let file = names.get(&format!("dist-{input}-{label}-{side}"));
            let svg = distribution(&title, &runs, &colours)
                .map_err(|e| chart_error(out_dir, &file, e))?;
            save(out_dir, &file, &svg)?;
            out.push(ChartFile {
                file,
                title,
                input: input.to_owned(),
                label: Some(label.to_owned()),
            });
        }
        if !found_any {
            let looked: Vec<String> = hist_dirs
                .iter()
                .map(|d| d.join(input).display().to_string())
                .collect();
            warnings.push(Warning {
                kind: WarningKind::NoHistograms,
                message: format!(
                    "{section}: no .hgrm files found (looked in {}); no distribution chart",
                    if looked.is_empty() {
                        "no histogram folder: pass --hist-dir".to_owned()
                    } else {
                        looked.join(", ")
                    }
                ),
            });
        }
    }
    Ok(out)
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

/// `0%`, `90%`, `99%`, `99.9%`, ... for 0, 1, 2, 3 nines.
pub fn nines_label(nines: f64) -> String {
    let n = nines.round() as usize;
    match n {
        0 => "0%".into(),
        1 => "90%".into(),
        n => format!("99.{}%", "9".repeat(n - 2)).replace(".%", "%"),
    }
}

/// `1,234,567`.
fn thousands(x: f64) -> String {
    let digits = format!("{:.0}", x.abs());
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if x < 0.0 {
        format!("-{out}")
    } else {
        out
    }
}

/// Tick values 1, 2, 5 × 10^k within `lo..=hi` (only powers of ten when there would be many).
fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let mut all = Vec::new();
    let mut only_decades = Vec::new();
    let mut decade = 10f64.powf(lo.log10().floor());
    while decade <= hi {
        for m in [1.0, 2.0, 5.0] {
            let v = decade * m;
            if v >= lo && v <= hi {
                all.push(v);
                if m == 1.0 {
                    only_decades.push(v);
                }
            }
        }
        decade *= 10.0;
    }
    if all.len() > 12 {
        only_decades
    } else {
        all
    }
}

/// An f64 axis, linear or logarithmic, with ticks exactly where asked (plotters' own
/// `with_key_points` on an f64 range loses the label formatter).
#[derive(Clone)]
struct Axis {
    lo: f64,
    hi: f64,
    log: bool,
    ticks: Vec<f64>,
}

impl Axis {
    fn linear(lo: f64, hi: f64, ticks: Vec<f64>) -> Axis {
        Axis {
            lo,
            hi,
            log: false,
            ticks,
        }
    }
    fn log(lo: f64, hi: f64) -> Axis {
        Axis {
            lo,
            hi,
            log: true,
            ticks: log_ticks(lo, hi),
        }
    }
    /// Linear ticks at round steps, about `n` of them.
    fn round_ticks(hi: f64, n: usize) -> Vec<f64> {
        let raw = hi / n as f64;
        let mag = 10f64.powf(raw.log10().floor());
        let step = [1.0, 2.0, 2.5, 5.0, 10.0]
            .iter()
            .map(|m| m * mag)
            .find(|s| *s >= raw)
            .unwrap_or(10.0 * mag);
        (0..)
            .map(|i| i as f64 * step)
            .take_while(|v| *v <= hi)
            .collect()
    }
    fn t(&self, v: f64) -> f64 {
        if self.log {
            v.max(f64::MIN_POSITIVE).log10()
        } else {
            v
        }
    }
}

impl Ranged for Axis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let (lo, hi) = (self.t(self.lo), self.t(self.hi));
        let frac = if hi > lo {
            (self.t(*value) - lo) / (hi - lo)
        } else {
            0.0
        };
        limit.0 + (frac * (limit.1 - limit.0) as f64).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.lo..self.hi
    }
}

type DrawResult<T> = Result<T, String>;

fn err<E: std::fmt::Debug>(e: E) -> String {
    format!("{e:?}")
}

fn distribution(title: &str, formats: &[FormatRuns], colours: &Colours) -> DrawResult<String> {
    let points = |d: &dist::Distribution| -> Vec<(f64, f64)> {
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
            .y_desc("latency per packet (ns, log scale)")
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

fn percentile_bars(title: &str, groups: &[&Group], side: &str) -> DrawResult<String> {
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
            .y_desc("ns per packet, median across runs (log scale)")
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

/// The legend every chart draws: same font, background and border, placed where the data is not.
fn legend<'a, DB, CT>(
    chart: &mut ChartContext<'a, DB, CT>,
    position: SeriesLabelPosition,
) -> DrawResult<()>
where
    DB: DrawingBackend + 'a,
    CT: plotters::coord::CoordTranslate,
{
    chart
        .configure_series_labels()
        .position(position)
        .label_font((FONT, 15))
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK.mix(0.4))
        .draw()
        .map_err(err)
}

/// The frame both bytes charts draw in: one slot per format on x (named), bytes on y.
fn bytes_frame<'a, 'b>(
    root: &'a DrawingArea<SVGBackend<'b>, plotters::coord::Shift>,
    title: &str,
    names: &[String],
    top: f64,
    y_desc: &str,
) -> DrawResult<ChartContext<'a, SVGBackend<'b>, Cartesian2d<Axis, Axis>>> {
    root.fill(&WHITE).map_err(err)?;
    let n = names.len();
    let mut chart = ChartBuilder::on(root)
        .caption(title, (FONT, 22))
        .margin(16)
        .margin_right(48)
        .x_label_area_size(56)
        .y_label_area_size(90)
        .build_cartesian_2d(
            Axis::linear(0.0, n as f64, (0..n).map(|i| i as f64 + 0.5).collect()),
            Axis::linear(0.0, top, Axis::round_ticks(top, 8)),
        )
        .map_err(err)?;
    let name_of = |x: &f64| names.get(x.floor() as usize).cloned().unwrap_or_default();
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_desc("format (fastest first)")
        .y_desc(y_desc)
        .x_label_formatter(&name_of)
        .y_label_formatter(&|y| thousands(*y))
        .label_style((FONT, 15))
        .axis_desc_style((FONT, 16))
        .light_line_style(WHITE)
        .bold_line_style(BLACK.mix(0.12))
        .draw()
        .map_err(err)?;
    Ok(chart)
}

fn bytes_bars(title: &str, groups: &[&Group], colours: &Colours) -> DrawResult<String> {
    let top = groups
        .iter()
        .map(|g| g.bytes_per_message.max)
        .fold(1.0, f64::max)
        * (1.25 + 0.07 * groups.len() as f64); // room for the legend above the bars
    let names: Vec<String> = groups.iter().map(|g| g.format.clone()).collect();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        let mut chart = bytes_frame(
            &root,
            title,
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
                .map_err(err)?
                .label(g.format.clone())
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 6), (x + 14, y + 6)], colour.filled())
                });
            chart
                .draw_series([Text::new(
                    format!("{b:.1}"),
                    (i as f64 + 0.5, b + top * 0.01),
                    value_style.clone(),
                )])
                .map_err(err)?;
        }
        legend(&mut chart, SeriesLabelPosition::UpperRight)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// Three bars per format: encoded, zstd and zlib bytes per message (medians). A format whose
/// runs did not measure the size as stored gets its encoded bar only.
fn stored_bytes_bars(title: &str, groups: &[&Group]) -> DrawResult<String> {
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
    // The upper third for the legend and the values written above the bars.
    let top = highest * 1.5;
    let names: Vec<String> = groups.iter().map(|g| g.format.clone()).collect();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        let mut chart = bytes_frame(
            &root,
            title,
            &names,
            top,
            "bytes per message (median across runs)",
        )?;
        let width = 0.8 / 3.0;
        // Written upwards from just above the bar: three labels side by side would not fit.
        let value_style =
            TextStyle::from((FONT, 13).into_font().transform(FontTransform::Rotate270))
                .pos(Pos::new(HPos::Left, VPos::Center));
        let kinds = ["encoded", "zstd -3, as stored", "zlib -6, as stored"];
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
            chart
                .draw_series(bars)
                .map_err(err)?
                .label(*kind)
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 6), (x + 14, y + 6)], colour.filled())
                });
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
        legend(&mut chart, SeriesLabelPosition::UpperRight)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

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
