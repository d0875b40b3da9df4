//! `--csv`: one row per format per run, appended and flushed row by row under a header written
//! once. Column names are a contract: people paste these files into their decisions.

use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::append::{append_rows, header_needed};
use super::RunReport;
use crate::measure::stats::FormatResult;
use crate::measure::Workload;

/// One CSV row, as `run` writes it and `shootout report` reads it back; field order is column
/// order. The columns up to `git_rev` are [`required`]; every later one was added since, so it
/// is optional (`None` for an empty cell or a file from before it) and old CSVs still load.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
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
    /// Each workload's per-unit latency: empty on the row of a format timed only per window
    /// (`latency_note` says why), never a zero that would read as a measurement.
    pub ser_p50_ns: Option<u64>,
    pub ser_p90_ns: Option<u64>,
    pub ser_p99_ns: Option<u64>,
    pub ser_p999_ns: Option<u64>,
    pub ser_p9999_ns: Option<u64>,
    pub ser_max_ns: Option<u64>,
    pub ser_mean_ns: Option<f64>,
    pub ser_total_ns: Option<u64>,
    pub de_p50_ns: Option<u64>,
    pub de_p90_ns: Option<u64>,
    pub de_p99_ns: Option<u64>,
    pub de_p999_ns: Option<u64>,
    pub de_p9999_ns: Option<u64>,
    pub de_max_ns: Option<u64>,
    pub de_mean_ns: Option<f64>,
    pub de_total_ns: Option<u64>,
    /// Read as any number: the first builds wrote it with a fraction.
    #[serde(deserialize_with = "whole_number")]
    pub msgs_per_sec: u64,
    pub timer_overhead_ns: f64,
    pub host: String,
    pub cpu: String,
    pub rustc: String,
    pub git_rev: String,
    /// The size as stored, exact (`--stored-size all`) or estimated from a sample of windows
    /// (`sample`, see `stored_mode`); empty with `--stored-size none`, and on an A/A twin's
    /// row (its bytes are its original's: its windows are not compressed again).
    #[serde(default)]
    pub zstd_bytes: Option<u64>,
    #[serde(default)]
    pub zlib_bytes: Option<u64>,
    /// Time zstd took over the windows it compressed.
    #[serde(default)]
    pub zstd_ns: Option<u64>,
    /// The memcpy floor of the run (see `measure::floor`): the same on every row of a run.
    #[serde(default)]
    pub memcpy_p50_ns: Option<u64>,
    #[serde(default)]
    pub memcpy_mean_ns: Option<f64>,
    /// The complete decode (every field of every message), per packet.
    #[serde(default)]
    pub de_all_p50_ns: Option<u64>,
    #[serde(default)]
    pub de_all_p90_ns: Option<u64>,
    #[serde(default)]
    pub de_all_p99_ns: Option<u64>,
    #[serde(default)]
    pub de_all_p999_ns: Option<u64>,
    #[serde(default)]
    pub de_all_p9999_ns: Option<u64>,
    #[serde(default)]
    pub de_all_max_ns: Option<u64>,
    #[serde(default)]
    pub de_all_mean_ns: Option<f64>,
    #[serde(default)]
    pub de_all_total_ns: Option<u64>,
    /// Whole windows timed with one clock pair, ns per packet, mean over the run.
    #[serde(default)]
    pub ser_batch_ns: Option<f64>,
    #[serde(default)]
    pub de_batch_ns: Option<f64>,
    #[serde(default)]
    pub de_all_batch_ns: Option<f64>,
    /// `tsc`, `cntvct` or `monotonic`: the clock behind every figure.
    #[serde(default)]
    pub clock: Option<String>,
    /// The memcpy floor timed per window like the batch figures, ns per packet.
    #[serde(default)]
    pub memcpy_batch_ns: Option<f64>,
    /// `packet` or `message`: what one timed unit was (`packets` stays the IEX-TP packets read).
    #[serde(default)]
    pub unit: Option<String>,
    /// Units whose times were recorded: what the percentiles rest on.
    #[serde(default)]
    pub units: Option<u64>,
    /// `sample`, `all` or `none`: which windows were compressed for the size as stored.
    #[serde(default)]
    pub stored_mode: Option<String>,
    /// Encoded bytes that were compressed: what `zstd_bytes` and `zlib_bytes` rest on.
    #[serde(default)]
    pub stored_sampled_bytes: Option<u64>,
    /// `alternate` or `both`: whether each window was timed one way in turn or both ways.
    #[serde(default)]
    pub timing: Option<String>,
    /// Units timed as part of whole windows: what the batch figures rest on.
    #[serde(default)]
    pub batch_units: Option<u64>,
    /// Shares the run's input was split into (`run --jobs`, or the parts `merge` joined); 1 for
    /// one process.
    #[serde(default)]
    pub jobs: Option<usize>,
    /// The CPU this format's worker was pinned to; empty in a one-process run.
    #[serde(default)]
    pub worker_cpu: Option<usize>,
    /// Minor page faults inside this format's timed passes (`measure::memory`); 0 when every
    /// buffer was written before it was timed.
    #[serde(default)]
    pub timed_faults: Option<u64>,
    /// The seed of the formats' order in each window (`run --order-seed` repeats it).
    #[serde(default)]
    pub order_seed: Option<u64>,
    /// Empty for a whole capture; for one cut short at its end (read with `--lenient`), the
    /// bytes of the incomplete last record that were dropped.
    #[serde(default)]
    pub dropped_bytes: Option<u64>,
    /// Allocations per unit after the warm-up, counted in an untimed pass over one window in
    /// four (the first with units after the warm-up, then every fourth: `measure::allocations`):
    /// encode, selective decode, complete decode. Empty where the counting allocator was not
    /// installed.
    #[serde(default)]
    pub ser_allocs: Option<f64>,
    #[serde(default)]
    pub de_allocs: Option<f64>,
    #[serde(default)]
    pub de_all_allocs: Option<f64>,
    /// Bytes those allocations asked for, per unit (a `realloc` counts its new size).
    #[serde(default)]
    pub ser_alloc_bytes: Option<f64>,
    #[serde(default)]
    pub de_alloc_bytes: Option<f64>,
    #[serde(default)]
    pub de_all_alloc_bytes: Option<f64>,
    /// `true` for a format that trusts its producer (decodes without verifying, sound only on
    /// its own bytes: `formats::unchecked`), so a reader of the file can leave it out of a
    /// comparison among formats that check what they read.
    #[serde(default)]
    pub trusts_producer: Option<bool>,
    /// Set on an A/A twin's row (issue 39): the format whose codec this row measured a second
    /// time under another name (`format` is `<twin_of>.twin`). Twins are never ranked; the
    /// report reads the method's resolution from them.
    #[serde(default)]
    pub twin_of: Option<String>,
    /// The clock's step as this run measured it (the smallest nonzero difference of two
    /// reads), ns: what a per-unit figure moves in.
    #[serde(default)]
    pub clock_step_ns: Option<f64>,
    /// Involuntary context switches inside this format's timed passes (the kernel took the
    /// CPU away mid-measurement), counted like `timed_faults`.
    #[serde(default)]
    pub preempted: Option<u64>,
    /// Batch passes timed again because a context switch landed inside them.
    #[serde(default)]
    pub retimed: Option<u64>,
    /// The aggregation's own cost (the selective decode's per-symbol hash map fed from the
    /// parsed packets, no format involved), timed per window like the batch figures, ns per
    /// unit: the same on every row of a run, a floor under every format's `de_batch_ns`.
    #[serde(default)]
    pub aggregate_batch_ns: Option<f64>,
    /// `I/N` on the rows of one share of a run (`run --shard I/N`): that share's figures alone,
    /// to be merged (`shootout merge`), never read as a run. Empty for a whole run, merged or not.
    #[serde(default)]
    pub shard: Option<String>,
    /// Why the row's per-unit latency cells are empty: set on a format timed only per window
    /// (`formats::WindowFormat`), empty on every other row.
    #[serde(default)]
    pub latency_note: Option<String>,
    /// `true` for a lossy format (`formats::lossy`: no slot for some IEX fields, checked
    /// against what it carries), so a reader can leave it out of an equal-work comparison. Last,
    /// so that readers of the earlier columns keep working.
    #[serde(default)]
    pub lossy: Option<bool>,
    /// On a twin's row (`twin_of` set), the extra work planted in it as a fraction of its
    /// original's: 0 for an A/A twin, 0.05 for the +5% positive control (`measure::twins`).
    /// Empty on every other row. Last, so that readers of the earlier columns keep working.
    #[serde(default)]
    pub planted: Option<f64>,
    /// Instructions per unit of the batch encode, selective and complete decode, where the run
    /// counted them (`--instructions`, `measure::instructions`); never a time.
    #[serde(default)]
    pub ser_instr: Option<f64>,
    #[serde(default)]
    pub de_instr: Option<f64>,
    #[serde(default)]
    pub de_all_instr: Option<f64>,
    /// Where the counts come from: `pmu` (the CPU's counter) or `callgrind`; counts of two
    /// sources are never compared.
    #[serde(default)]
    pub instr_source: Option<String>,
}

/// The header line, as written: [`Row`]'s fields in order (a test checks it).
pub const COLUMNS: &str = "run_id,started_at,label,input,input_bytes,feed,packets,messages,format,\
encoded_bytes,bytes_per_message,ser_p50_ns,ser_p90_ns,ser_p99_ns,ser_p999_ns,ser_p9999_ns,\
ser_max_ns,ser_mean_ns,ser_total_ns,de_p50_ns,de_p90_ns,de_p99_ns,de_p999_ns,de_p9999_ns,\
de_max_ns,de_mean_ns,de_total_ns,msgs_per_sec,timer_overhead_ns,host,cpu,rustc,git_rev,zstd_bytes,zlib_bytes,zstd_ns,\
memcpy_p50_ns,memcpy_mean_ns,de_all_p50_ns,de_all_p90_ns,de_all_p99_ns,de_all_p999_ns,de_all_p9999_ns,\
de_all_max_ns,de_all_mean_ns,de_all_total_ns,ser_batch_ns,de_batch_ns,de_all_batch_ns,clock,memcpy_batch_ns,unit,units,stored_mode,stored_sampled_bytes,timing,batch_units,jobs,worker_cpu,timed_faults,order_seed,dropped_bytes,\
ser_allocs,de_allocs,de_all_allocs,ser_alloc_bytes,de_alloc_bytes,de_all_alloc_bytes,trusts_producer,\
twin_of,clock_step_ns,preempted,retimed,aggregate_batch_ns,shard,latency_note,lossy,planted,\
ser_instr,de_instr,de_all_instr,instr_source";

/// How many of [`COLUMNS`] every results CSV has: those up to `git_rev`, the first header
/// `run` wrote. [`Row`]'s later fields are optional.
const REQUIRED_COUNT: usize = 33;

/// The columns a results CSV must have for [`Row`] to read it.
pub fn required() -> impl Iterator<Item = &'static str> {
    COLUMNS.split(',').take(REQUIRED_COUNT)
}

/// A count written as an integer, or as a float by the first builds (rounded).
fn whole_number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    let x = f64::deserialize(d)?;
    if x.is_finite() && x >= 0.0 {
        Ok(x.round() as u64)
    } else {
        Err(serde::de::Error::custom(format!("{x} is not a count")))
    }
}

/// A row's `units` (timed one by one) and `batch_units` (timed in whole windows): the run's,
/// or for a format timed only per window (`per_unit` false) none and its own count, since it
/// is timed whole in every window.
fn units(o: &crate::measure::Outcome, f: &FormatResult, per_unit: bool) -> (u64, u64) {
    if per_unit {
        (o.units_recorded, o.units_batch)
    } else {
        (0, f.throughput[crate::measure::Workload::Encode].packets)
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

impl Row {
    pub fn new(report: &RunReport<'_>, f: &FormatResult) -> Row {
        let (o, info) = (report.outcome, report.info);
        let [ser, de, all] = f.latency.0.each_ref().map(|l| l.summary());
        // A format timed only per window has no per-unit figure: its cells stay empty.
        let per_unit = !crate::formats::per_window_only(f.name);
        let ns = |x: u64| per_unit.then_some(x);
        let mean = |x: f64| per_unit.then_some(round3(x));
        let (units, batch_units) = units(o, f, per_unit);
        let [ser_batch, de_batch, de_all_batch] =
            f.throughput.0.map(|t| Some(round3(t.ns_per_packet())));
        let floor = o.memcpy.summary();
        let stored = f.stored(o.stored);
        let allocs = f.allocations.and_then(|a| a.per_unit());
        let [ser_allocs, de_allocs, de_all_allocs] =
            allocs.map_or([None; 3], |a| a.0.map(|u| Some(round3(u.allocations))));
        let [ser_alloc_bytes, de_alloc_bytes, de_all_alloc_bytes] =
            allocs.map_or([None; 3], |a| a.0.map(|u| Some(round3(u.bytes))));
        let [ser_instr, de_instr, de_all_instr] =
            Workload::ALL.map(|w| f.instructions_per_unit(w).map(round3));
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
            ser_p50_ns: ns(ser.p50),
            ser_p90_ns: ns(ser.p90),
            ser_p99_ns: ns(ser.p99),
            ser_p999_ns: ns(ser.p999),
            ser_p9999_ns: ns(ser.p9999),
            ser_max_ns: ns(ser.max),
            ser_mean_ns: mean(ser.mean),
            ser_total_ns: ns(ser.total),
            de_p50_ns: ns(de.p50),
            de_p90_ns: ns(de.p90),
            de_p99_ns: ns(de.p99),
            de_p999_ns: ns(de.p999),
            de_p9999_ns: ns(de.p9999),
            de_max_ns: ns(de.max),
            de_mean_ns: mean(de.mean),
            de_total_ns: ns(de.total),
            msgs_per_sec: f.msgs_per_sec().round() as u64,
            timer_overhead_ns: round3(o.timer_overhead_ns),
            host: info.host.clone(),
            cpu: info.cpu.clone(),
            rustc: info.rustc.clone(),
            git_rev: info.git_rev.clone(),
            zstd_bytes: stored.map(|s| s.zstd_bytes),
            zlib_bytes: stored.map(|s| s.zlib_bytes),
            zstd_ns: stored.map(|_| f.stored.zstd_ns),
            memcpy_p50_ns: Some(floor.p50),
            memcpy_mean_ns: Some(round3(floor.mean)),
            de_all_p50_ns: ns(all.p50),
            de_all_p90_ns: ns(all.p90),
            de_all_p99_ns: ns(all.p99),
            de_all_p999_ns: ns(all.p999),
            de_all_p9999_ns: ns(all.p9999),
            de_all_max_ns: ns(all.max),
            de_all_mean_ns: mean(all.mean),
            de_all_total_ns: ns(all.total),
            ser_batch_ns: ser_batch,
            de_batch_ns: de_batch,
            de_all_batch_ns: de_all_batch,
            clock: Some(o.clock.to_owned()),
            memcpy_batch_ns: Some(round3(o.memcpy_batch.ns_per_packet())),
            unit: Some(o.unit.name().to_owned()),
            units: Some(units),
            stored_mode: Some(o.stored.name().to_owned()),
            stored_sampled_bytes: stored.map(|_| f.stored.compressed_bytes()),
            timing: Some(o.timing.name().to_owned()),
            batch_units: Some(batch_units),
            jobs: Some(o.workers.len().max(1)),
            worker_cpu: f.worker_cpu,
            timed_faults: Some(f.timed_faults),
            order_seed: Some(o.order_seed),
            dropped_bytes: o.dropped_bytes,
            ser_allocs,
            de_allocs,
            de_all_allocs,
            ser_alloc_bytes,
            de_alloc_bytes,
            de_all_alloc_bytes,
            // A twin trusts its producer when its original does.
            trusts_producer: Some(crate::formats::trusts_producer(
                f.twin_of().unwrap_or(f.name),
            )),
            twin_of: f.twin_of().map(str::to_owned),
            clock_step_ns: Some(round3(o.clock_step_ns)),
            preempted: Some(f.preempted),
            retimed: Some(f.retimed),
            aggregate_batch_ns: Some(round3(o.aggregate_batch.ns_per_packet())),
            shard: (!o.chunking.share.is_whole()).then(|| o.chunking.share.to_string()),
            latency_note: (!per_unit).then(|| crate::formats::no_latency_reason(f.name)),
            // A twin is lossy when its original is.
            lossy: Some(crate::formats::lossy(f.twin_of().unwrap_or(f.name)).is_some()),
            planted: f.planted(),
            ser_instr,
            de_instr,
            de_all_instr,
            instr_source: f.instructions.map(|c| c.source.name().to_owned()),
        }
    }
}

/// Appends the run's rows to `path`, writing the header if the file is new or empty, and its
/// windows to the file beside it (`export::windows`). All rows go out in one write and are
/// synced, so a killed run leaves all of them or none. A file whose header is not ours is
/// refused rather than mixed.
pub fn append(path: &Path, report: &RunReport<'_>) -> io::Result<()> {
    let header = header_needed(path, COLUMNS)?;
    // The run's windows first (`export::windows`): a run in the results file always has them.
    super::windows::append(&super::windows::path_of(path), report)?;
    // The header (when new) and all of the run's rows go out in one append: a run is in the
    // file whole or not at all, which is what `shootout bench --resume` relies on.
    let rows = report.outcome.formats.iter().map(|f| Row::new(report, f));
    append_rows(path, COLUMNS, header, rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The header `csv` derives from [`Row`]'s fields is [`COLUMNS`], so the two cannot drift.
    #[test]
    fn the_header_is_the_row_types_fields() {
        let mut w = ::csv::Writer::from_writer(Vec::new());
        w.serialize(Row::default()).unwrap();
        let text = String::from_utf8(w.into_inner().unwrap()).unwrap();
        assert_eq!(text.lines().next(), Some(COLUMNS));
        assert_eq!(required().last(), Some("git_rev"));
    }

    /// A row reads back as written, and a file with the required columns only (the first
    /// header) still loads, its later columns `None`.
    #[test]
    fn rows_read_back_and_old_headers_load() {
        let row = Row {
            run_id: "r1".into(),
            cpu: "AMD EPYC, 2.6 GHz".into(),
            msgs_per_sec: 12,
            zstd_bytes: Some(7),
            clock: Some("tsc".into()),
            order_seed: Some(u64::MAX),
            trusts_producer: Some(true),
            ..Row::default()
        };
        let mut w = ::csv::Writer::from_writer(Vec::new());
        w.serialize(&row).unwrap();
        let text = w.into_inner().unwrap();
        let back: Row = ::csv::Reader::from_reader(&text[..])
            .deserialize()
            .next()
            .unwrap()
            .unwrap();
        assert_eq!(format!("{back:?}"), format!("{row:?}"));

        let old: Vec<&str> = required().collect();
        let mut values = vec!["0"; old.len()];
        values[old.iter().position(|c| *c == "msgs_per_sec").unwrap()] = "2.5e6";
        let text = format!("{}\n{}\n", old.join(","), values.join(","));
        let back: Row = ::csv::Reader::from_reader(text.as_bytes())
            .deserialize()
            .next()
            .unwrap()
            .unwrap();
        assert_eq!(back.msgs_per_sec, 2_500_000);
        assert_eq!((back.zstd_bytes, back.clock, back.jobs), (None, None, None));
        assert_eq!((back.ser_allocs, back.de_all_alloc_bytes), (None, None));
        assert_eq!(back.trusts_producer, None);
    }
}
