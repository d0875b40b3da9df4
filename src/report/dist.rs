//! `shootout report`: finding and reading the `.hgrm` percentile distributions that `run
//! --hist-dir` wrote, for the distribution charts.
//!
//! Layout (what `shootout bench` writes):
//! `HIST_DIR/<input file name>/<label>/<run folder>/<format>.<ser|de|de_all>.hgrm` (`de_all`, the
//! complete decode, only from runs that measured it: a missing file is no error). Every sub-folder of
//! the label's folder counts as one run, and `.hgrm` files directly in it count as one more.
//! Without a folder for the label (histograms written by hand with `run --hist-dir`), the same
//! rule applies to `HIST_DIR/<input file name>/` itself, and its runs are pooled for every label.

use std::path::{Path, PathBuf};

use super::ReportError;

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
}

impl FormatRuns {
    /// The run whose p50 is the median of the runs' p50s (the lower middle one for an even
    /// count). It is a run that happened, unlike a pointwise median of several curves.
    pub fn median_run(&self) -> &Distribution {
        &self.runs[(self.runs.len() - 1) / 2]
    }
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

/// Reads every `<format>.<side>.hgrm` for `input` under `hist_dirs`, one entry per format of
/// `formats` that has at least one run, in the order of `formats`.
pub fn find(
    hist_dirs: &[PathBuf],
    input: &str,
    label: &str,
    side: &str,
    formats: &[&str],
) -> Result<Vec<FormatRuns>, ReportError> {
    let mut folders = Vec::new();
    for dir in hist_dirs {
        let labelled = dir.join(input).join(label);
        let base = if labelled.is_dir() {
            labelled
        } else {
            dir.join(input)
        };
        if !base.is_dir() {
            continue;
        }
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
        for folder in &folders {
            let path = folder.join(format!("{format}.{side}.hgrm"));
            if path.is_file() {
                runs.push(read(&path)?);
            }
        }
        if !runs.is_empty() {
            runs.sort_by(|a, b| a.p50().total_cmp(&b.p50()));
            out.push(FormatRuns {
                format: (*format).to_owned(),
                runs,
            });
        }
    }
    Ok(out)
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
