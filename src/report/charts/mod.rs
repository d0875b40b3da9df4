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

use plotters::prelude::*;

pub use axis::nines_label;
use axis::{err, DrawResult};
use bytes::{bytes_bars, stored_bytes_bars};
use distribution::distribution;
use percentiles::percentile_bars;

use super::dist;
use super::stats::{section_name, Summary, Warning, WarningKind};
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
            let title = format!("{section}: {side_name} latency per {}", groups[0].unit);
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
            let svg = distribution(&title, &runs, &colours, groups[0].unit)
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

#[cfg(test)]
mod tests {
    use super::axis::{log_ticks, thousands};
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
