//! Which charts a report has, their file names, and writing them into the report folder.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::bytes::Bytes;
use super::canvas::{svg, Chart};
use super::distribution::Distributions;
use super::percentiles::Percentiles;
use super::scatter::Scatter;
use super::style::Colours;
use crate::export::caveat::Caveats;
use crate::measure::Workload;
use crate::output::write_atomically;
use crate::report::dist::{FormatRuns, Histograms, SIDES};
use crate::report::error::ReportError;
use crate::report::stats::{section_name, Group, Summary, Warning, WarningKind};

/// A chart written into the report folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChartFile {
    /// File name inside the report folder.
    pub file: String,
    pub title: String,
    pub input: String,
    pub label: String,
    pub kind: ChartKind,
}

/// What a chart shows, for placing it on the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChartKind {
    /// Size against speed: beside the verdict.
    Scatter,
    Percentiles,
    Bytes,
    Distribution,
}

/// A chart to draw: its kind, its file name before [`Names`] cleans it, and what it shows (the
/// second line of its title, under the section).
struct Planned<'a> {
    kind: ChartKind,
    stem: String,
    what: String,
    chart: Box<dyn Chart + 'a>,
}

/// Draws every chart into `out_dir`, each section's scatter, percentile and bytes charts, then
/// each section's distributions; adds a warning for a section without histograms.
pub fn write_all(
    summary: &Summary,
    hists: &Histograms,
    hist_dirs: &[PathBuf],
    out_dir: &Path,
    warnings: &mut Vec<Warning>,
) -> Result<Vec<ChartFile>, ReportError> {
    let colours = Colours::new(summary);
    let mut files = Files {
        out_dir,
        names: Names::default(),
        written: Vec::new(),
    };
    for (input, label, groups) in summary.sections() {
        let order = summary.format_order(input);
        let ordered: Vec<&Group> = order
            .iter()
            .filter_map(|f| groups.iter().copied().find(|g| &g.format == f))
            .collect();
        let note = marks_note(groups.iter().map(|g| g.caveats()));
        for mut chart in section_charts((input, label), &groups, &ordered, &colours) {
            chart.what.push_str(&note);
            files.write((input, label), chart)?;
        }
    }
    for ((input, label, groups), sides) in summary.sections().into_iter().zip(&hists.0) {
        for (side, side_name, runs) in sides {
            let mut chart =
                distribution_chart((input, label), (side, side_name), runs, &colours, &groups);
            let drawn = (groups.iter()).filter(|g| runs.iter().any(|r| r.format == g.format));
            chart.what.push_str(&marks_note(drawn.map(|g| g.caveats())));
            files.write((input, label), chart)?;
        }
        // A pooled section's histograms are its labels': said there, once.
        if sides.is_empty() && !super::super::stats::is_pooled(label) {
            warnings.push(no_histograms((input, label), hist_dirs));
        }
    }
    Ok(files.written)
}

/// What a chart's title adds for the marks of the formats it shows (`export::caveat`): what
/// each mark means, in short.
fn marks_note(caveats: impl Iterator<Item = Caveats>) -> String {
    (Caveats::notes(caveats))
        .filter(|c| c.mark().is_some())
        .map(|c| format!("; {}", c.legend()))
        .collect()
}

/// A section's charts from its summary: size against speed (on the wire, and as stored where
/// measured), each side's percentiles (`de_all` where every format measured it), the sizes.
fn section_charts<'a>(
    (input, label): (&str, &str),
    groups: &'a [&'a Group],
    ordered: &'a [&'a Group],
    colours: &'a Colours,
) -> Vec<Planned<'a>> {
    let unit = groups[0].unit;
    let mut planned = Vec::new();
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
        planned.push(Planned {
            kind: ChartKind::Scatter,
            stem: format!("scatter-{input}-{label}-{stem}"),
            what: format!("size {how} against {sum} time per {unit}"),
            chart: Box::new(Scatter {
                x_desc,
                groups: ordered,
                colours,
                stored,
            }),
        });
    }
    for (side, side_name) in SIDES {
        let timed = |g: &&Group| {
            Workload::ALL
                .iter()
                .any(|w| w.column() == side && g.latency(*w).is_some())
        };
        if !groups.iter().all(timed) {
            continue;
        }
        planned.push(Planned {
            kind: ChartKind::Percentiles,
            stem: format!("pct-{input}-{label}-{side}"),
            what: format!("{side_name} latency per {unit}: p50, p99, p99.9"),
            chart: Box::new(Percentiles {
                groups: ordered,
                side,
            }),
        });
    }
    let stored = groups
        .iter()
        .any(|g| g.zstd_bytes_per_message.is_some() || g.zlib_bytes_per_message.is_some());
    planned.push(Planned {
        kind: ChartKind::Bytes,
        stem: format!("bytes-{input}-{label}"),
        what: if stored {
            "size per message, encoded and as stored".to_owned()
        } else {
            "encoded size".to_owned()
        },
        chart: Box::new(Bytes {
            groups,
            colours,
            stored,
        }),
    });
    planned
}

/// One side's latency distributions; the title says how many runs and how they are drawn.
fn distribution_chart<'a>(
    (input, label): (&str, &str),
    (side, side_name): (&str, &str),
    runs: &'a [FormatRuns],
    colours: &'a Colours,
    groups: &'a [&'a Group],
) -> Planned<'a> {
    let most = runs.iter().map(|r| r.runs.len()).max().unwrap_or(0);
    let every_merged = runs.iter().all(|r| r.merged.is_some());
    Planned {
        kind: ChartKind::Distribution,
        stem: format!("dist-{input}-{label}-{side}"),
        what: format!(
            "{side_name} latency distribution ({})",
            match (most, every_merged) {
                (1, _) => "1 run".to_owned(),
                (n, true) => format!("{n} runs merged bold, each run faint"),
                (n, false) => format!("median of {n} runs by p50 bold, each run faint"),
            }
        ),
        chart: Box::new(Distributions {
            formats: runs,
            colours,
            groups,
        }),
    }
}

/// A section without histograms, and where they were looked for.
fn no_histograms((input, label): (&str, &str), hist_dirs: &[PathBuf]) -> Warning {
    let looked: Vec<String> = hist_dirs
        .iter()
        .map(|d| d.join(input).display().to_string())
        .collect();
    Warning::new(
        WarningKind::NoHistograms,
        format!(
            "{}: no histograms (.hlog or .hgrm) found (looked in {}); no distribution chart",
            section_name(input, label),
            if looked.is_empty() {
                "no histogram folder: pass --hist-dir".to_owned()
            } else {
                looked.join(", ")
            }
        ),
    )
}

/// The charts written so far, and the names taken.
struct Files<'a> {
    out_dir: &'a Path,
    names: Names,
    written: Vec<ChartFile>,
}

impl Files<'_> {
    fn write(&mut self, (input, label): (&str, &str), p: Planned<'_>) -> Result<(), ReportError> {
        let section = section_name(input, label);
        let file = self.names.get(&p.stem);
        let path = self.out_dir.join(&file);
        let svg = svg(&*p.chart, &section, &p.what)
            .map_err(|e| ReportError::new(&path, format!("cannot draw the chart: {e}")))?;
        write_atomically(&path, |w| w.write_all(svg.as_bytes()))
            .map_err(|e| ReportError::new(&path, format!("cannot write: {e}")))?;
        self.written.push(ChartFile {
            file,
            title: format!("{section}: {}", p.what),
            input: input.to_owned(),
            label: label.to_owned(),
            kind: p.kind,
        });
        Ok(())
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_clean_and_unique() {
        let mut names = Names::default();
        assert_eq!(names.get("pct-a b-"), "pct-a_b.svg");
        assert_eq!(names.get("pct-a_b"), "pct-a_b-2.svg");
    }
}
