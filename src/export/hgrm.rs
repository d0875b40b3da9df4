//! `--hist-dir`: each format's full latency distribution per side, twice: in the percentile
//! distribution text format HdrHistogram's own plotter reads (`*.hgrm`, for people), and as the
//! histogram itself in HdrHistogram's interval-log format (`*.hlog`: one interval, the V2
//! compressed encoding in base64, as Java's `HistogramLogWriter` writes it), so `shootout
//! report` and other HdrHistogram tools can merge runs instead of averaging their percentiles.

use std::io::{self, Write};
use std::path::Path;

use hdrhistogram::Histogram;

use super::caveat::{Caveat, Caveats};
use super::RunReport;
use crate::output::write_atomically;

/// Writes `FORMAT.ser.hgrm`, `FORMAT.de.hgrm` and `FORMAT.de_all.hgrm` for every format into
/// `dir`, each with its `.hlog` beside it; none for a format timed only per window, which has
/// no per-unit distribution (its CSV row's `latency_note` says so).
pub fn write_all(dir: &Path, report: &RunReport<'_>) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let timed =
        (report.outcome.formats.iter()).filter(|f| !Caveats::of_result(f).has(Caveat::WindowOnly));
    for f in timed {
        for (workload, stats) in f.latency.iter() {
            let side = workload.column();
            let path = dir.join(format!("{}.{side}.hgrm", f.name));
            write_atomically(&path, |w| write_distribution(&stats.hist, w))?;
            let path = dir.join(format!("{}.{side}.hlog", f.name));
            write_atomically(&path, |w| {
                write_log(&stats.hist, &format!("{} {side}, ns", f.name), w)
            })?;
        }
    }
    Ok(())
}

/// `h` as an interval log of one interval (start 0, length 0: the run is one interval), tagged
/// with nothing, values in ns; `comment` goes on a `#` line above it.
pub fn write_log(h: &Histogram<u64>, comment: &str, w: &mut dyn Write) -> io::Result<()> {
    use hdrhistogram::serialization::interval_log::IntervalLogWriterBuilder;
    use hdrhistogram::serialization::V2DeflateSerializer;
    let mut serializer = V2DeflateSerializer::new();
    let mut w = w;
    let mut log = IntervalLogWriterBuilder::new()
        .add_comment(comment)
        .begin_log_with(&mut w, &mut serializer)?;
    let zero = std::time::Duration::ZERO;
    log.write_histogram(h, zero, zero, None)
        .map_err(|e| io::Error::other(format!("cannot encode the histogram: {e:?}")))
}

/// The percentile distribution, values in nanoseconds, 5 ticks per half distance like
/// HdrHistogram's `outputPercentileDistribution`.
pub fn write_distribution(h: &Histogram<u64>, w: &mut dyn Write) -> io::Result<()> {
    writeln!(
        w,
        "{:>12} {:>14} {:>10} {:>14}\n",
        "Value", "Percentile", "TotalCount", "1/(1-Percentile)"
    )?;
    if h.is_empty() {
        return writeln!(
            w,
            "#[Mean    = {:>12.3}, StdDeviation   = {:>12.3}]",
            0.0, 0.0
        );
    }
    let mut total = 0u64;
    for v in h.iter_quantiles(5) {
        total += v.count_since_last_iteration();
        let q = v.quantile_iterated_to();
        let value = v.value_iterated_to() as f64;
        if q < 1.0 {
            writeln!(
                w,
                "{value:>12.3} {q:>2.12} {total:>10} {:>14.2}",
                1.0 / (1.0 - q)
            )?;
        } else {
            writeln!(w, "{value:>12.3} {q:>2.12} {total:>10}")?;
        }
    }
    writeln!(
        w,
        "#[Mean    = {:>12.3}, StdDeviation   = {:>12.3}]",
        h.mean(),
        h.stdev()
    )?;
    writeln!(
        w,
        "#[Max     = {:>12.3}, Total count    = {:>12}]",
        h.max() as f64,
        h.len()
    )?;
    writeln!(
        w,
        "#[Buckets = {:>12}, SubBuckets     = {:>12}]",
        h.buckets(),
        h.distinct_values()
    )
}
