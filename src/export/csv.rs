//! `--csv`: one row per format per run, appended and flushed row by row under a header written
//! once. Column names are a contract: people paste these files into their decisions.

use std::io;
use std::path::Path;

use serde::Deserialize;

use super::append::{append_rows, header_needed};
use super::caveat::{no_latency, Caveat, Caveats};
use super::columns::columns;
use super::RunReport;
use crate::measure::stats::{FormatResult, TypeResult};
use crate::measure::{PerWorkload, Workload};

columns! {
    statistics { p50: u64, p90: u64, p99: u64, p999: u64, p9999: u64, max: u64, mean: f64, total: u64 }
    required {
        run_id: String,
        started_at: String,
        label: String,
        input: String,
        input_bytes: u64,
        feed: String,
        packets: u64,
        messages: u64,
        format: String,
        encoded_bytes: u64,
        bytes_per_message: f64,
        latency ser = Encode,
        latency de = Selective,
        /// Read as any number: the first builds wrote it with a fraction.
        #[serde(deserialize_with = "whole_number")]
        msgs_per_sec: u64,
        timer_overhead_ns: f64,
        host: String,
        cpu: String,
        rustc: String,
        git_rev: String,
    }
    optional {
        /// The size as stored, exact (`--stored-size all`) or estimated from a sample of windows
        /// (`sample`, see `stored_mode`); empty with `--stored-size none`, and on an A/A twin's
        /// row (its bytes are its original's: its windows are not compressed again).
        zstd_bytes: u64,
        zlib_bytes: u64,
        /// Time zstd took over the windows it compressed.
        zstd_ns: u64,
        /// The memcpy floor of the run (see `measure::floor`): the same on every row of a run.
        memcpy_p50_ns: u64,
        memcpy_mean_ns: f64,
        // The complete decode (every field of every message), per packet.
        latency de_all = Complete,
        /// Whole windows timed with one clock pair, ns per packet, mean over the run.
        per_workload batch = _batch_ns: f64,
        /// `tsc`, `cntvct` or `monotonic`: the clock behind every figure.
        clock: String,
        /// The memcpy floor timed per window like the batch figures, ns per packet.
        memcpy_batch_ns: f64,
        /// `packet` or `message`: what one timed unit was (`packets` stays the IEX-TP packets read).
        unit: String,
        /// Units whose times were recorded: what the percentiles rest on.
        units: u64,
        /// `sample`, `all` or `none`: which windows were compressed for the size as stored.
        stored_mode: String,
        /// Encoded bytes that were compressed: what `zstd_bytes` and `zlib_bytes` rest on.
        stored_sampled_bytes: u64,
        /// `alternate` or `both`: whether each window was timed one way in turn or both ways.
        timing: String,
        /// Units timed as part of whole windows: what the batch figures rest on.
        batch_units: u64,
        /// Shares the run's input was split into (`run --jobs`, or the parts `merge` joined); 1 for
        /// one process.
        jobs: usize,
        /// The CPU this format's worker was pinned to; empty in a one-process run.
        worker_cpu: usize,
        /// Minor page faults inside this format's timed passes (`measure::memory`); 0 when every
        /// buffer was written before it was timed.
        timed_faults: u64,
        /// The seed of the formats' order in each window (`run --order-seed` repeats it).
        order_seed: u64,
        /// Empty for a whole capture; for one cut short at its end (read with `--lenient`), the
        /// bytes of the incomplete last record that were dropped.
        dropped_bytes: u64,
        /// Allocations per unit after the warm-up, counted in an untimed pass over one window in
        /// four (the first with units after the warm-up, then every fourth: `measure::allocations`):
        /// encode, selective decode, complete decode. Empty where the counting allocator was not
        /// installed.
        per_workload allocs = _allocs: f64,
        /// Bytes those allocations asked for, per unit (a `realloc` counts its new size).
        per_workload alloc_bytes = _alloc_bytes: f64,
        /// `true` for a format that trusts its producer (decodes without verifying, sound only on
        /// its own bytes: `formats::unchecked`), so a reader of the file can leave it out of a
        /// comparison among formats that check what they read.
        trusts_producer: bool,
        /// Set on an A/A twin's row (issue 39): the format whose codec this row measured a second
        /// time under another name (`format` is `<twin_of>.twin`). Twins are never ranked; the
        /// report reads the method's resolution from them.
        twin_of: String,
        /// The clock's step as this run measured it (the smallest nonzero difference of two
        /// reads), ns: what a per-unit figure moves in.
        clock_step_ns: f64,
        /// Involuntary context switches inside this format's timed passes (the kernel took the
        /// CPU away mid-measurement), counted like `timed_faults`.
        preempted: u64,
        /// Batch passes timed again because a context switch landed inside them.
        retimed: u64,
        /// The aggregation's own cost (the selective decode's per-symbol hash map fed from the
        /// parsed packets, no format involved), timed per window like the batch figures, ns per
        /// unit: the same on every row of a run, a floor under every format's `de_batch_ns`.
        aggregate_batch_ns: f64,
        /// `I/N` on the rows of one share of a run (`run --shard I/N`): that share's figures alone,
        /// to be merged (`shootout merge`), never read as a run. Empty for a whole run, merged or not.
        shard: String,
        /// Why the row's per-unit latency cells are empty: set on a format timed only per window
        /// (`formats::WindowFormat`), empty on every other row.
        latency_note: String,
        /// `true` for a lossy format (its descriptor's `lossy`: no slot for some IEX fields, checked
        /// against what it carries), so a reader can leave it out of an equal-work comparison.
        lossy: bool,
        /// On a twin's row (`twin_of` set), the extra work planted in it as a fraction of its
        /// original's: 0 for an A/A twin, 0.05 for the +5% positive control (`measure::twins`).
        /// Empty on every other row.
        planted: f64,
        /// Instructions per unit of the batch encode, selective and complete decode, where the run
        /// counted them (`--instructions`, `measure::instructions`); never a time.
        per_workload instructions = _instr: f64,
        /// Where the counts come from: `pmu` (the CPU's counter) or `callgrind`; counts of two
        /// sources are never compared.
        instr_source: String,
        /// Empty on a format's row over every message type. Set (`A`, `Q`: the IEX type byte as a
        /// character) on the rows a `--unit message` run adds beside it, one per type it timed:
        /// the per-unit figures of that type's messages alone (`units` of them), their bytes
        /// (`encoded_bytes`, `bytes_per_message`) and the format's caveats; the run's columns as
        /// on every row, and no batch, size-as-stored, allocation or instruction figures
        /// (`msgs_per_sec` 0). `report` reads them for its per-type table and `--mix`.
        msg_type: String,
    }
}

/// The columns a results CSV must have for [`Row`] to read it: those up to `git_rev`, the first
/// header `run` wrote ([`Row`]'s later fields are optional).
pub fn required() -> impl Iterator<Item = &'static str> {
    REQUIRED.split(',')
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

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

impl Row {
    /// `f`'s row in `report`'s run.
    pub fn new(report: &RunReport<'_>, f: &FormatResult) -> Row {
        let caveats = Caveats::of_result(f);
        let per_unit = !caveats.has(Caveat::WindowOnly);
        let mut row = Row::of_run(report);
        row.set_format(report, f, per_unit);
        row.set_figures(f, per_unit);
        row.set_caveats(f, caveats);
        row
    }

    /// `f`'s row for its messages of one IEX type, `kind` (see the `msg_type` column).
    pub fn of_type(report: &RunReport<'_>, f: &FormatResult, kind: u8, t: &TypeResult) -> Row {
        let mut row = Row::of_run(report);
        row.format = f.name.to_owned();
        row.msg_type = Some(char::from(kind).to_string());
        row.encoded_bytes = t.encoded_bytes;
        row.bytes_per_message = round3(t.bytes_per_message());
        row.units = Some(t.messages);
        row.set_latencies(&t.latency, true);
        row.set_caveats(f, Caveats::of_result(f));
        row
    }

    /// The columns that are the same on every row of the run.
    fn of_run(report: &RunReport<'_>) -> Row {
        let (o, info) = (report.outcome, report.info);
        let floor = o.memcpy.summary();
        Row {
            run_id: info.run_id.clone(),
            started_at: info.started_at.clone(),
            label: info.label.clone(),
            input: info.input.clone(),
            input_bytes: info.input_bytes,
            feed: o.feed.unwrap_or("none").to_owned(),
            packets: o.packets,
            messages: o.messages,
            timer_overhead_ns: round3(o.timer_overhead_ns),
            host: info.host.clone(),
            cpu: info.cpu.clone(),
            rustc: info.rustc.clone(),
            git_rev: info.git_rev.clone(),
            memcpy_p50_ns: Some(floor.p50),
            memcpy_mean_ns: Some(round3(floor.mean)),
            clock: Some(o.clock.to_owned()),
            memcpy_batch_ns: Some(round3(o.memcpy_batch.ns_per_packet())),
            unit: Some(o.unit.name().to_owned()),
            stored_mode: Some(o.stored.name().to_owned()),
            timing: Some(o.timing.name().to_owned()),
            jobs: Some(o.workers.len().max(1)),
            order_seed: Some(o.order_seed),
            dropped_bytes: o.dropped_bytes,
            clock_step_ns: Some(round3(o.clock_step_ns)),
            aggregate_batch_ns: Some(round3(o.aggregate_batch.ns_per_packet())),
            shard: (!o.chunking.share.is_whole()).then(|| o.chunking.share.to_string()),
            ..Row::default()
        }
    }

    /// What the format is and what it cost to store, and where and how it was measured.
    fn set_format(&mut self, report: &RunReport<'_>, f: &FormatResult, per_unit: bool) {
        let o = report.outcome;
        let stored = f.stored(o.stored);
        // Timed one by one and in whole windows: the run's units, or for a format timed only
        // per window none and its own count, since it is timed whole in every window.
        let (units, batch_units) = match per_unit {
            true => (o.units_recorded, o.units_batch),
            false => (0, f.throughput[Workload::Encode].packets),
        };
        self.format = f.name.to_owned();
        self.encoded_bytes = f.encoded_bytes;
        self.bytes_per_message = round3(f.bytes_per_message());
        self.msgs_per_sec = f.msgs_per_sec().round() as u64;
        self.zstd_bytes = stored.map(|s| s.zstd_bytes);
        self.zlib_bytes = stored.map(|s| s.zlib_bytes);
        self.zstd_ns = stored.map(|_| f.stored.zstd_ns);
        self.stored_sampled_bytes = stored.map(|_| f.stored.compressed_bytes());
        self.units = Some(units);
        self.batch_units = Some(batch_units);
        self.worker_cpu = f.worker_cpu;
        self.timed_faults = Some(f.timed_faults);
        self.preempted = Some(f.preempted);
        self.retimed = Some(f.retimed);
        self.instr_source = f.instructions.map(|c| c.source.name().to_owned());
    }

    /// Every workload's figures: per unit (none for a format timed only per window), per
    /// window, allocations and instructions.
    fn set_figures(&mut self, f: &FormatResult, per_unit: bool) {
        self.set_latencies(&f.latency, per_unit);
        self.set_batch(PerWorkload(
            f.throughput.0.map(|t| Some(round3(t.ns_per_packet()))),
        ));
        let allocs = f.allocations.and_then(|a| a.per_unit());
        let each = |x: fn(&crate::measure::allocations::PerUnit) -> f64| {
            PerWorkload(allocs.map_or([None; 3], |a| a.0.map(|u| Some(round3(x(&u))))))
        };
        self.set_allocs(each(|u| u.allocations));
        self.set_alloc_bytes(each(|u| u.bytes));
        self.set_instructions(PerWorkload(
            Workload::ALL.map(|w| f.instructions_per_unit(w).map(round3)),
        ));
    }

    /// Each workload's per-unit cells (empty unless `per_unit`).
    fn set_latencies(
        &mut self,
        latency: &PerWorkload<crate::measure::stats::Latency>,
        per_unit: bool,
    ) {
        for (w, latency) in latency.iter() {
            let cells = Latency::of(&latency.summary());
            let cells = Latency {
                mean: cells.mean.map(round3),
                ..cells
            };
            self.set_latency(w, if per_unit { cells } else { Latency::default() });
        }
    }

    /// What the row's own columns say a reader must know of it (`export::caveat`):
    /// `trusts_producer`, `lossy`, `twin_of` with `planted`, `latency_note`.
    pub fn caveats(&self) -> Caveats {
        let filled = |s: &Option<String>| s.as_deref().is_some_and(|s| !s.is_empty());
        Caveats::of(
            self.trusts_producer == Some(true),
            self.lossy == Some(true),
            filled(&self.twin_of).then(|| self.planted.unwrap_or(0.0)),
            filled(&self.latency_note),
        )
    }

    /// What a reader must know before setting the row beside another (`export::caveat`).
    fn set_caveats(&mut self, f: &FormatResult, caveats: Caveats) {
        self.trusts_producer = Some(caveats.has(Caveat::TrustsProducer));
        self.lossy = Some(caveats.has(Caveat::Lossy));
        self.twin_of = f.twin_of().map(str::to_owned);
        self.planted = f.planted();
        self.latency_note = caveats.has(Caveat::WindowOnly).then(|| no_latency(f.name));
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
    let rows = report.outcome.formats.iter().flat_map(|f| {
        let by_type = f
            .by_type
            .iter()
            .map(|(k, t)| Row::of_type(report, f, *k, t));
        std::iter::once(Row::new(report, f)).chain(by_type)
    });
    append_rows(path, COLUMNS, header, rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::append::header_of;

    /// The header `csv` derives from [`Row`]'s fields is [`COLUMNS`], so the two cannot drift.
    #[test]
    fn the_header_is_the_row_types_fields() {
        assert_eq!(header_of(Row::default()), COLUMNS);
        assert_eq!(required().last(), Some("git_rev"));
    }

    /// docs/method.md lists the columns as written, in order.
    #[test]
    fn the_docs_list_the_columns() {
        let docs = include_str!("../../docs/method.md");
        let list = docs
            .split("\n`run_id, ")
            .nth(1)
            .and_then(|rest| rest.split('`').next())
            .expect("docs/method.md lists the columns");
        let listed: Vec<&str> = ["run_id"]
            .into_iter()
            .chain(list.split(',').map(str::trim))
            .collect();
        assert_eq!(listed.join(","), COLUMNS);
    }

    /// A workload's cells are its own columns: set through the group, read by name.
    #[test]
    fn a_workloads_cells_are_its_columns() {
        let mut row = Row::default();
        let cells = Latency {
            p999: Some(7),
            mean: Some(2.5),
            ..Latency::default()
        };
        row.set_latency(Workload::Complete, cells);
        assert_eq!(
            (row.de_all_p999_ns, row.de_all_mean_ns),
            (Some(7), Some(2.5))
        );
        assert_eq!((row.de_p999_ns, row.ser_mean_ns), (None, None));
        assert_eq!(row.latency(Workload::Complete), cells);
        assert_eq!(Latency::STATISTICS[3], "p999");
        assert_eq!(cells.ns()[3], Some(7.0));
        row.set_allocs(PerWorkload([None, Some(1.5), None]));
        assert_eq!(row.de_allocs, Some(1.5));
        assert_eq!(row.allocs().0, [None, Some(1.5), None]);
    }

    /// A row's columns make its caveats, several at once.
    #[test]
    fn a_rows_columns_make_its_caveats() {
        let row = Row {
            trusts_producer: Some(true),
            lossy: Some(true),
            ..Row::default()
        };
        assert_eq!(row.caveats().shown("a"), "a ‡ §");
        let twin = Row {
            twin_of: Some("b".into()),
            planted: Some(0.0),
            latency_note: Some(no_latency("b.twin")),
            ..Row::default()
        };
        assert_eq!(twin.caveats().shown("b.twin"), "b.twin (A/A)");
        assert!(twin.caveats().has(Caveat::WindowOnly));
        let control = Row {
            planted: Some(0.05),
            ..twin
        };
        assert_eq!(control.caveats().shown("b.plus5"), "b.plus5 (+5% control)");
        // A row from before the columns: nothing to say.
        assert_eq!(Row::default().caveats(), Caveats::default());
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
