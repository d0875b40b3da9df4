//! `--csv`: one row per format per run, appended and flushed row by row under a header written
//! once. Column names are a contract: people paste these files into their decisions.

use std::fs::OpenOptions;
use std::io::{self, BufRead, BufReader, Write};
use std::path::Path;

use serde::Serialize;

use super::RunReport;
use crate::measure::stats::FormatResult;

/// One CSV row; field order is column order.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub run_id: String,
    pub started_at: String,
    pub label: String,
    pub input: String,
    pub input_bytes: u64,
    pub feed: String,
    pub packets: u64,
    pub messages: u64,
    pub format: String,
    pub encoded_bytes: u64,
    pub bytes_per_message: f64,
    pub ser_p50_ns: u64,
    pub ser_p90_ns: u64,
    pub ser_p99_ns: u64,
    pub ser_p999_ns: u64,
    pub ser_p9999_ns: u64,
    pub ser_max_ns: u64,
    pub ser_mean_ns: f64,
    pub ser_total_ns: u64,
    pub de_p50_ns: u64,
    pub de_p90_ns: u64,
    pub de_p99_ns: u64,
    pub de_p999_ns: u64,
    pub de_p9999_ns: u64,
    pub de_max_ns: u64,
    pub de_mean_ns: f64,
    pub de_total_ns: u64,
    pub msgs_per_sec: u64,
    pub timer_overhead_ns: f64,
    pub host: String,
    pub cpu: String,
    pub rustc: String,
    pub git_rev: String,
    /// The size as stored, exact (`--stored-size all`) or estimated from a sample of windows
    /// (`sample`, see `stored_mode`); empty with `--stored-size none`.
    pub zstd_bytes: Option<u64>,
    pub zlib_bytes: Option<u64>,
    /// Time zstd took over the windows it compressed.
    pub zstd_ns: Option<u64>,
    /// The memcpy floor of the run (see `measure::floor`): the same on every row of a run.
    pub memcpy_p50_ns: u64,
    pub memcpy_mean_ns: f64,
    /// The complete decode (every field of every message), per packet.
    pub de_all_p50_ns: u64,
    pub de_all_p90_ns: u64,
    pub de_all_p99_ns: u64,
    pub de_all_p999_ns: u64,
    pub de_all_p9999_ns: u64,
    pub de_all_max_ns: u64,
    pub de_all_mean_ns: f64,
    pub de_all_total_ns: u64,
    /// Whole windows timed with one clock pair, ns per packet, mean over the run.
    pub ser_batch_ns: f64,
    pub de_batch_ns: f64,
    pub de_all_batch_ns: f64,
    /// `tsc`, `cntvct` or `monotonic`: the clock behind every figure.
    pub clock: String,
    /// The memcpy floor timed per window like the batch figures, ns per packet.
    pub memcpy_batch_ns: f64,
    /// `packet` or `message`: what one timed unit was (`packets` stays the IEX-TP packets read).
    pub unit: String,
    /// Units whose times were recorded: what the percentiles rest on.
    pub units: u64,
    /// `sample`, `all` or `none`: which windows were compressed for the size as stored.
    pub stored_mode: String,
    /// Encoded bytes that were compressed: what `zstd_bytes` and `zlib_bytes` rest on.
    pub stored_sampled_bytes: Option<u64>,
    /// `alternate` or `both`: whether each window was timed one way in turn or both ways.
    pub timing: String,
    /// Units timed as part of whole windows: what the batch figures rest on.
    pub batch_units: u64,
    /// Worker processes the run's formats were split across (`run --jobs`); 1 for one process.
    pub jobs: usize,
    /// The CPU this format's worker was pinned to; empty in a one-process run.
    pub worker_cpu: Option<usize>,
    /// Minor page faults inside this format's timed passes (`measure::memory`); 0 when every
    /// buffer was written before it was timed.
    pub timed_faults: u64,
    /// The seed of the formats' order in each window (`run --order-seed` repeats it).
    pub order_seed: u64,
    /// Empty for a whole capture; for one cut short at its end (read with `--lenient`), the
    /// bytes of the incomplete last record that were dropped.
    pub dropped_bytes: Option<u64>,
}

/// The header line, as written.
pub const COLUMNS: &str = "run_id,started_at,label,input,input_bytes,feed,packets,messages,format,\
encoded_bytes,bytes_per_message,ser_p50_ns,ser_p90_ns,ser_p99_ns,ser_p999_ns,ser_p9999_ns,\
ser_max_ns,ser_mean_ns,ser_total_ns,de_p50_ns,de_p90_ns,de_p99_ns,de_p999_ns,de_p9999_ns,\
de_max_ns,de_mean_ns,de_total_ns,msgs_per_sec,timer_overhead_ns,host,cpu,rustc,git_rev,zstd_bytes,zlib_bytes,zstd_ns,\
memcpy_p50_ns,memcpy_mean_ns,de_all_p50_ns,de_all_p90_ns,de_all_p99_ns,de_all_p999_ns,de_all_p9999_ns,\
de_all_max_ns,de_all_mean_ns,de_all_total_ns,ser_batch_ns,de_batch_ns,de_all_batch_ns,clock,memcpy_batch_ns,unit,units,stored_mode,stored_sampled_bytes,timing,batch_units,jobs,worker_cpu,timed_faults,order_seed,dropped_bytes";

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

impl Row {
    pub fn new(report: &RunReport<'_>, f: &FormatResult) -> Row {
        let (o, info) = (report.outcome, report.info);
        let (ser, de, floor) = (f.ser.summary(), f.de.summary(), o.memcpy.summary());
        let all = f.de_all.summary();
        let stored = f.stored(o.stored);
        Row {
            run_id: info.run_id.clone(),
            started_at: info.started_at.clone(),
            label: info.label.clone(),
            input: info.input.clone(),
            input_bytes: info.input_bytes,
            feed: o.feed.unwrap_or("none").to_owned(),
            packets: o.packets,
            messages: o.messages,
            format: f.name.to_owned(),
            encoded_bytes: f.encoded_bytes,
            bytes_per_message: round3(f.bytes_per_message()),
            ser_p50_ns: ser.p50,
            ser_p90_ns: ser.p90,
            ser_p99_ns: ser.p99,
            ser_p999_ns: ser.p999,
            ser_p9999_ns: ser.p9999,
            ser_max_ns: ser.max,
            ser_mean_ns: round3(ser.mean),
            ser_total_ns: ser.total,
            de_p50_ns: de.p50,
            de_p90_ns: de.p90,
            de_p99_ns: de.p99,
            de_p999_ns: de.p999,
            de_p9999_ns: de.p9999,
            de_max_ns: de.max,
            de_mean_ns: round3(de.mean),
            de_total_ns: de.total,
            msgs_per_sec: f.msgs_per_sec().round() as u64,
            timer_overhead_ns: round3(o.timer_overhead_ns),
            host: info.host.clone(),
            cpu: info.cpu.clone(),
            rustc: info.rustc.clone(),
            git_rev: info.git_rev.clone(),
            zstd_bytes: stored.map(|s| s.zstd_bytes),
            zlib_bytes: stored.map(|s| s.zlib_bytes),
            zstd_ns: stored.map(|_| f.stored.zstd_ns),
            memcpy_p50_ns: floor.p50,
            memcpy_mean_ns: round3(floor.mean),
            de_all_p50_ns: all.p50,
            de_all_p90_ns: all.p90,
            de_all_p99_ns: all.p99,
            de_all_p999_ns: all.p999,
            de_all_p9999_ns: all.p9999,
            de_all_max_ns: all.max,
            de_all_mean_ns: round3(all.mean),
            de_all_total_ns: all.total,
            ser_batch_ns: round3(f.ser_batch.ns_per_packet()),
            de_batch_ns: round3(f.de_batch.ns_per_packet()),
            de_all_batch_ns: round3(f.de_all_batch.ns_per_packet()),
            clock: o.clock.to_owned(),
            memcpy_batch_ns: round3(o.memcpy_batch.ns_per_packet()),
            unit: o.unit.name().to_owned(),
            units: o.units_recorded,
            stored_mode: o.stored.name().to_owned(),
            stored_sampled_bytes: stored.map(|_| f.stored.compressed_bytes()),
            timing: o.timing.name().to_owned(),
            batch_units: o.units_batch,
            jobs: o.workers.len().max(1),
            worker_cpu: f.worker_cpu,
            timed_faults: f.timed_faults,
            order_seed: o.order_seed,
            dropped_bytes: o.dropped_bytes,
        }
    }
}

/// Appends the run's rows to `path`, writing the header if the file is new or empty. All rows
/// go out in one write and are synced, so a killed run leaves all of them or none. A file whose
/// header is not ours is refused rather than mixed.
pub fn append(path: &Path, report: &RunReport<'_>) -> io::Result<()> {
    let existing_header = match std::fs::File::open(path) {
        Ok(f) => {
            let mut line = String::new();
            BufReader::new(f).read_line(&mut line)?;
            Some(line.trim_end().to_owned())
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    let needs_header = match existing_header.as_deref() {
        None | Some("") => true,
        Some(COLUMNS) => false,
        Some(other) => {
            return Err(io::Error::other(format!(
                "{} has other columns than this version writes (first line: {other:.60}...)",
                path.display()
            )))
        }
    };
    // The header (when new) and all of the run's rows go out in one append: a run is in the
    // file whole or not at all, which is what `shootout bench --resume` relies on.
    let mut w = ::csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(Vec::new());
    for f in &report.outcome.formats {
        w.serialize(Row::new(report, f)).map_err(io::Error::other)?;
    }
    let rows = w
        .into_inner()
        .map_err(|e| io::Error::other(e.to_string()))?;
    let mut text = Vec::with_capacity(COLUMNS.len() + 1 + rows.len());
    if needs_header {
        text.extend_from_slice(COLUMNS.as_bytes());
        text.push(b'\n');
    }
    text.extend_from_slice(&rows);
    let mut file = OpenOptions::new().create(true).append(true).open(path)?;
    file.write_all(&text)?;
    file.sync_data()
}
