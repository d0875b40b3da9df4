//! `shootout report`: finding and reading the histograms that `run --hist-dir` wrote, for the
//! distribution charts and the merged percentiles.
//!
//! Where a run left `<format>.<side>.hlog` (the histogram itself, HdrHistogram's interval log),
//! the runs' histograms are merged, across runs and across hosts (every `--hist-dir`): the
//! merged distribution is what all the timed units together had, which a median of each run's
//! percentiles is not. Folders from before, with `.hgrm` text only, still load: each run is
//! then a percentile curve and the median run stands in for the merge.
//!
//! Layout (what `shootout bench` writes):
//! `HIST_DIR/<input file name>/<label>/<run folder>/<format>.<ser|de|de_all>.hgrm` (`de_all`, the
//! complete decode, only from runs that measured it: a missing file is no error). Every sub-folder of
//! the label's folder counts as one run, and `.hgrm` files directly in it count as one more.
//! Without a folder for the label (histograms written by hand with `run --hist-dir`), the same
//! rule applies to `HIST_DIR/<input file name>/` itself, and its runs are pooled for every label.

use std::path::{Path, PathBuf};

use base64::Engine as _;
use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};
use hdrhistogram::serialization::Deserializer;
use hdrhistogram::Histogram;

use super::error::ReportError;
use super::stats::Summary;

/// One run's distribution: `(percentile in 0..1, ns)` rows, percentile < 1 (the final 100% row
/// has no `1/(1-p)` and is left out, as HdrHistogram's plotter does).
#[derive(Debug, Clone, PartialEq)]
pub struct Distribution {
    pub path: PathBuf,
    pub points: Vec<(f64, f64)>,
}

impl Distribution {
    /// The value at the first row at or past the 50th percentile.
    pub fn p50(&self) -> f64 {
        self.points
            .iter()
            .find(|(q, _)| *q >= 0.5)
            .or(self.points.last())
            .map_or(0.0, |p| p.1)
    }
}

/// Every run found for one format, one input and one side.
#[derive(Debug, Clone)]
pub struct FormatRuns {
    pub format: String,
    /// Sorted by p50.
    pub runs: Vec<Distribution>,
    /// Every run's histogram added into one, when every run left one (`.hlog`).
    pub merged: Option<Histogram<u64>>,
}

impl FormatRuns {
    /// The curve to draw bold: the merged distribution where there is one, else the median run.
    pub fn headline(&self) -> Distribution {
        match &self.merged {
            Some(h) => Distribution {
                path: PathBuf::from("merged"),
                points: points(h),
            },
            None => self.median_run().clone(),
        }
    }

    /// The run whose p50 is the median of the runs' p50s (the lower middle one for an even
    /// count). It is a run that happened, unlike a pointwise median of several curves.
    pub fn median_run(&self) -> &Distribution {
        &self.runs[(self.runs.len() - 1) / 2]
    }
}

/// A histogram's percentile curve as an `.hgrm` file has it: 5 ticks per half distance, the
/// final 100% row left out.
pub fn points(h: &Histogram<u64>) -> Vec<(f64, f64)> {
    if h.is_empty() {
        return Vec::new();
    }
    h.iter_quantiles(5)
        .map(|v| (v.quantile_iterated_to(), v.value_iterated_to() as f64))
        .filter(|(q, _)| *q < 1.0)
        .collect()
}

/// Every histogram in an interval log (`.hlog`), added into one.
pub fn parse_log(bytes: &[u8]) -> Result<Histogram<u64>, String> {
    let mut merged: Option<Histogram<u64>> = None;
    let mut deserializer = Deserializer::new();
    for entry in IntervalLogIterator::new(bytes) {
        let entry = entry.map_err(|e| format!("not an HdrHistogram interval log: {e:?}"))?;
        let LogEntry::Interval(interval) = entry else {
            continue;
        };
        let encoded = base64::engine::general_purpose::STANDARD
            .decode(interval.encoded_histogram())
            .map_err(|e| format!("a histogram is not base64: {e}"))?;
        let h: Histogram<u64> = deserializer
            .deserialize(&mut encoded.as_slice())
            .map_err(|e| format!("not a V2 histogram: {e:?}"))?;
        match &mut merged {
            None => merged = Some(h),
            Some(m) => m
                .add(&h)
                .map_err(|e| format!("cannot add the histograms: {e:?}"))?,
        }
    }
    merged.ok_or_else(|| "no histogram in the log".to_owned())
}

/// `runs` added into one histogram (auto-resizing, so runs recorded with other bounds fit).
pub fn merge<'a>(
    runs: impl IntoIterator<Item = &'a Histogram<u64>>,
) -> Result<Histogram<u64>, String> {
    let mut merged = Histogram::<u64>::new(3).expect("3 significant figures are valid");
    for h in runs {
        merged
            .add(h)
            .map_err(|e| format!("cannot add the histograms: {e:?}"))?;
    }
    Ok(merged)
}

/// Parses the text of an `.hgrm` file: `Value Percentile TotalCount 1/(1-Percentile)` rows.
pub fn parse(text: &str) -> Result<Vec<(f64, f64)>, String> {
    let mut points = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.is_empty() || line.trim_start().starts_with('#') || fields[0] == "Value" {
            continue;
        }
        if fields.len() < 3 {
            return Err(format!("line {}: not a percentile row: {line:.60}", i + 1));
        }
        let num = |s: &str| {
            s.parse::<f64>()
                .map_err(|_| format!("line {}: `{s}` is not a number", i + 1))
        };
        let (value, q) = (num(fields[0])?, num(fields[1])?);
        if !(0.0..=1.0).contains(&q) {
            return Err(format!("line {}: percentile {q} is not within 0..1", i + 1));
        }
        if q < 1.0 {
            points.push((q, value));
        }
    }
    if points.is_empty() {
        return Err("no percentile rows".into());
    }
    Ok(points)
}

/// The timed sides, as in file names and as in titles.
pub const SIDES: [(&str, &str); 3] = [
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
    fn of((input, label, side): (&str, &str, &'static str), f: &FormatRuns) -> Option<MergedRow> {
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

/// Every section's histograms, per side: read before anything is written, so an unreadable
/// histogram leaves no half-written report.
pub struct Histograms(pub Vec<Vec<(&'static str, &'static str, Vec<FormatRuns>)>>);

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
            let runs = find(hist_dirs, input, label, side, &formats)?;
            if !runs.is_empty() {
                sides.push((side, side_name, runs));
            }
        }
        out.push(sides);
    }
    Ok(Histograms(out))
}

/// The merged rows of every section, per side, in the order [`read_histograms`] read them.
pub fn merged_rows(summary: &Summary, hists: &Histograms) -> Vec<MergedRow> {
    let mut merged = Vec::new();
    for ((input, label, _), sides) in summary.sections().into_iter().zip(&hists.0) {
        for (side, _, runs) in sides {
            merged.extend(
                runs.iter()
                    .filter_map(|f| MergedRow::of((input, label, side), f)),
            );
        }
    }
    merged
}

/// Reads every `<format>.<side>.hgrm` for `input` under `hist_dirs`, one entry per format of
/// `formats` that has a run.
pub fn find(
    hist_dirs: &[PathBuf],
    input: &str,
    label: &str,
    side: &str,
    formats: &[&str],
) -> Result<Vec<FormatRuns>, ReportError> {
    let mut folders = Vec::new();
    // A pooled section's runs are its labels' (`stats::POOL_SEP`).
    let labels: Vec<&str> = if super::stats::is_pooled(label) {
        label.split(super::stats::POOL_SEP).collect()
    } else {
        vec![label]
    };
    let bases = hist_dirs.iter().flat_map(|dir| {
        labels.iter().map(move |label| {
            let labelled = dir.join(input).join(label);
            if labelled.is_dir() {
                labelled
            } else {
                dir.join(input)
            }
        })
    });
    let mut seen = Vec::new();
    for base in bases {
        if !base.is_dir() || seen.contains(&base) {
            continue;
        }
        seen.push(base.clone());
        folders.push(base.clone());
        let mut subs: Vec<PathBuf> = std::fs::read_dir(&base)
            .map_err(|e| ReportError::new(&base, format!("cannot list: {e}")))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_dir())
            .collect();
        subs.sort();
        folders.extend(subs);
    }
    let mut out = Vec::new();
    for format in formats {
        let mut runs = Vec::new();
        let mut hists = Vec::new();
        let mut text_only = false;
        for folder in &folders {
            let log = folder.join(format!("{format}.{side}.hlog"));
            let path = folder.join(format!("{format}.{side}.hgrm"));
            if log.is_file() {
                let h = read_log(&log)?;
                runs.push(Distribution {
                    path: log,
                    points: points(&h),
                });
                hists.push(h);
            } else if path.is_file() {
                runs.push(read(&path)?);
                text_only = true;
            }
        }
        if !runs.is_empty() {
            runs.sort_by(|a, b| a.p50().total_cmp(&b.p50()));
            let merged = if text_only {
                None
            } else {
                Some(merge(&hists).map_err(|m| ReportError::new(&folders[0], m))?)
            };
            out.push(FormatRuns {
                format: (*format).to_owned(),
                runs,
                merged,
            });
        }
    }
    Ok(out)
}

fn read_log(path: &Path) -> Result<Histogram<u64>, ReportError> {
    let bytes =
        std::fs::read(path).map_err(|e| ReportError::new(path, format!("cannot read: {e}")))?;
    parse_log(&bytes).map_err(|m| ReportError::new(path, m))
}

fn read(path: &Path) -> Result<Distribution, ReportError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| ReportError::new(path, format!("cannot read: {e}")))?;
    let points = parse(&text).map_err(|m| {
        ReportError::new(path, format!("not an .hgrm percentile distribution: {m}"))
    })?;
    Ok(Distribution {
        path: path.to_owned(),
        points,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_what_hgrm_writes() {
        let mut h = hdrhistogram::Histogram::<u64>::new(3).unwrap();
        for v in [10u64, 20, 20, 30, 40, 1000] {
            h.record(v).unwrap();
        }
        let mut text = Vec::new();
        crate::export::hgrm::write_distribution(&h, &mut text).unwrap();
        let points = parse(std::str::from_utf8(&text).unwrap()).unwrap();
        assert_eq!(points[0], (0.0, 10.0));
        assert!(points.iter().all(|(q, _)| *q < 1.0));
        let d = Distribution {
            path: PathBuf::new(),
            points,
        };
        assert_eq!(d.p50(), 20.0);
        assert!(parse("Value Percentile\n\n").is_err());
        assert!(parse("12 x 3 4").is_err());
    }
}
