//! The tables printed on stdout after a run, then how the time was spent and what was checked.
//!
//! The first table is throughput and size, ranked by the batch figures (each window timed whole
//! with one clock pair: `ser`, `de`, `de_all` in ns per packet); `x raw` is ser + de over raw's
//! (`-` when raw did not run). The second is the per-packet latency distribution of the same
//! three, with each mean less the timer's own cost. The third is what each of the three allocates
//! per unit (`measure::allocations`). A/A twins (`measure::twins`) follow the ranked formats,
//! marked, never ranked among them.

use std::fmt::Write;

use super::caveat::{no_latency, Caveat, Caveats};
use super::RunReport;
use crate::measure::floor::RAW;
use crate::measure::stats::FormatResult;
use crate::measure::stored::{StoredMode, SAMPLE_HEAD, SAMPLE_STRIDE};
use crate::measure::trust::{self, Governor};
use crate::measure::{Outcome, PerWorkload, Workload};
use crate::output::Table;

/// What each workload does, as the table's footer says it.
pub const WORKLOADS: &str = "ser builds the format's representation of each packet; de \
    (selective) reads the fields the aggregation needs (seq; trade and order execution symbol, \
    size, price; price level and add order side, symbol, price; quote symbol, bid and ask \
    price); de_all (complete) reads every \
    field of every message and folds it into a checksum";

/// Renders the results tables.
pub fn render(report: &RunReport<'_>) -> String {
    let o = report.outcome;
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{} packets, {} messages ({}), {} per packet on average; {}",
        o.packets,
        o.messages,
        o.feed.unwrap_or("no IEX data"),
        fmt_f(o.messages as f64 / o.packets.max(1) as f64, 2),
        timing_line(o),
    );
    let mut ranked: Vec<&FormatResult> = o.formats.iter().filter(|f| !is_twin(f)).collect();
    ranked.sort_by(|a, b| a.batch_ns().total_cmp(&b.batch_ns()));
    ranked.extend(o.formats.iter().filter(is_twin));
    let _ = write!(t, "\n{}", throughput_table(o, &ranked).text());
    latency_table(&mut t, o, &ranked);
    let counted = [allocations_table(o, &ranked), instructions_table(o)];
    for table in counted.iter().flatten() {
        let _ = write!(t, "\n{}", table.text());
    }
    caveat_notes(&mut t, o);
    code_paths(&mut t, o);
    let _ = writeln!(t, "\nworkloads: {WORKLOADS}");
    if !o.workers.is_empty() {
        let _ = writeln!(t, "{}", workers_line(o));
    }
    time_spent(&mut t, o);
    memcpy_floor_line(&mut t, o);
    verify_line(&mut t, o);
    stored_size_lines(&mut t, o);
    for warning in warnings(o, &Governor::here()) {
        let _ = writeln!(t, "warning: {warning}");
    }
    checked_line(&mut t, o);
    t
}

fn is_twin(f: &&FormatResult) -> bool {
    f.twin_of().is_some()
}

/// A format's name as the tables show it: with the mark of each of its caveats.
fn label(f: &FormatResult) -> String {
    Caveats::of_result(f).shown(f.name)
}

/// What each mark in the tables means, once; a lossy format's note names what it leaves out.
fn caveat_notes(t: &mut String, o: &Outcome) {
    let marked = Caveats::notes(o.formats.iter().map(Caveats::of_result));
    for c in marked.filter(|c| c.mark().is_some()) {
        if c != Caveat::Lossy {
            let _ = writeln!(t, "\n{}", c.note());
            continue;
        }
        for f in o.formats.iter().filter(|f| f.twin_of().is_none()) {
            if let Some(l) = crate::formats::descriptor(f.name).and_then(|d| d.lossy) {
                let _ = writeln!(t, "\n{}. {}: {}", c.note(), f.name, l.reason);
            }
        }
    }
}

/// The code path each format ran whose library picks one by the build or the CPU
/// (its descriptor's `code_path`: sonic-rs's SIMD path or its fallback, simd-json's detected one), so
/// that a row is never read as the library's SIMD figure when it was not.
fn code_paths(t: &mut String, o: &Outcome) {
    let mut paths = (o.formats.iter())
        .filter_map(|f| Some((f.name, crate::formats::descriptor(f.name)?.code_path?)))
        .peekable();
    if paths.peek().is_some() {
        let _ = writeln!(t, "\ncode paths (chosen by the build or the CPU):");
        for (name, path) in paths {
            let _ = writeln!(t, "  {name}: {path}");
        }
    }
}

/// The first table: throughput from whole windows and sizes, `ranked` fastest first.
fn throughput_table(o: &Outcome, ranked: &[&FormatResult]) -> Table {
    let raw = o
        .formats
        .iter()
        .find(|f| f.name == RAW)
        .map(FormatResult::batch_ns)
        .filter(|&ns| ns > 0.0);
    let caption = format!(
        "throughput, ns per {} from whole windows timed at once (ranked by ser + de_all):",
        o.unit.name()
    );
    let sizes = ["format", "bytes/msg", "zstd B/msg", "zlib B/msg"];
    let times = ["ser", "de", "de_all", "msgs/s", "x raw"];
    let mut table = Table::new(caption, 1, &[&sizes[..], &times].concat());
    for f in ranked {
        let estimate = f.stored(o.stored);
        let per_message = |bytes: Option<u64>| {
            bytes.map_or("-".to_owned(), |b| {
                fmt_f(b as f64 / f.messages_encoded.max(1) as f64, 1)
            })
        };
        let mut row = vec![
            label(f),
            fmt_f(f.bytes_per_message(), 1),
            per_message(estimate.map(|e| e.zstd_bytes)),
            per_message(estimate.map(|e| e.zlib_bytes)),
        ];
        row.extend(f.throughput.values().map(|t| fmt_f(t.ns_per_packet(), 1)));
        row.extend([
            format!("{:.2}M", f.msgs_per_sec() / 1e6),
            raw.map_or("-".to_owned(), |raw| fmt_f(f.batch_ns() / raw, 1)),
        ]);
        table.rows.push(row);
    }
    table
}

/// The second table: the per-unit latency distribution of each workload.
fn latency_table(t: &mut String, o: &Outcome, ranked: &[&FormatResult]) {
    let caption = format!(
        "latency per {unit} in ns (clock read before and after each {unit}; mean-t is the \
         mean less the timer's {} ns):",
        fmt_f(o.timer_overhead_ns, 1),
        unit = o.unit.name()
    );
    let mut table = Table::new(caption, 1, &["format"]);
    for side in ["ser", "de", "de_all"] {
        table.header.push(format!("{side} p50"));
        table
            .header
            .extend(["p99", "p99.9", "mean-t"].map(String::from));
    }
    let mut notes = Vec::new();
    for f in ranked {
        // A format timed only per window has no per-unit figure: said below, not shown as 0.
        if Caveats::of_result(f).has(Caveat::WindowOnly) {
            notes.push(no_latency(f.name));
            continue;
        }
        let mut row = vec![label(f)];
        for latency in f.latency.values() {
            let s = latency.summary();
            row.extend([
                s.p50.to_string(),
                s.p99.to_string(),
                s.p999.to_string(),
                fmt_f((s.mean - o.timer_overhead_ns).max(0.0), 1),
            ]);
        }
        table.rows.push(row);
    }
    let _ = write!(t, "\n{}", table.text());
    for note in notes {
        let _ = writeln!(t, "({note})");
    }
}

/// The third table: allocations and bytes allocated per unit, from the untimed counting pass;
/// left out where nothing was counted (the counting allocator is not installed).
fn allocations_table(o: &Outcome, ranked: &[&FormatResult]) -> Option<Table> {
    if ranked.iter().all(|f| f.allocations.is_none()) {
        return None;
    }
    let caption = format!(
        "allocations per {} after the warm-up (counted in an untimed pass over one window in \
         four, the same calls as the timed ones; bytes as asked for):",
        o.unit.name()
    );
    let header = ["format", "ser", "de", "de_all", "ser B", "de B", "de_all B"];
    let mut table = Table::new(caption, 1, &header);
    for f in ranked {
        let mut row = vec![label(f)];
        match f.allocations.and_then(|a| a.per_unit()) {
            Some(a) => {
                row.extend(a.values().map(|u| fmt_f(u.allocations, 3)));
                row.extend(a.values().map(|u| fmt_f(u.bytes, 1)));
            }
            None => row.extend(std::iter::repeat_n("-".to_owned(), 6)),
        }
        table.rows.push(row);
    }
    Some(table)
}

/// Instructions per unit of each batch pass, where the run counted them (`--instructions`):
/// every format, twins and controls too (a control's count is its plant made visible).
fn instructions_table(o: &Outcome) -> Option<Table> {
    let source = o.formats.iter().find_map(|f| f.instructions)?.source;
    let caption = format!(
        "instructions per {} of the batch passes ({}; instructions, not time):",
        o.unit.name(),
        source.name()
    );
    let mut table = Table::new(caption, 1, &["format", "ser", "de", "de_all"]);
    for f in &o.formats {
        let mut row = vec![label(f)];
        row.extend(Workload::ALL.map(|w| {
            f.instructions_per_unit(w)
                .map_or("-".to_owned(), |n| fmt_f(n, 0))
        }));
        table.rows.push(row);
    }
    Some(table)
}

/// Where the measuring time went: the clock, parsing and timed work, and each pass's share.
fn time_spent(t: &mut String, o: &Outcome) {
    let measuring = o.measuring_ns().max(1) as f64;
    let _ = writeln!(
        t,
        "clock: {}, {} ns per read pair (mean of back-to-back reads), step {} ns; {:.1}% of \
         {:.2} s spent measuring was parsing ({:.1}%) or timed work ({:.1}%)",
        o.clock,
        fmt_f(o.timer_overhead_ns, 1),
        fmt_f(o.clock_step_ns, 1),
        o.timed_share() * 100.0,
        measuring / 1e9,
        o.parse_ns as f64 * 100.0 / measuring,
        o.timed_ns as f64 * 100.0 / measuring,
    );
    let p = &o.passes;
    let secs = |ns: u64| format!("{:.2}", ns as f64 / 1e9);
    let by_workload = |ns: &PerWorkload<u64>| {
        ns.iter()
            .map(|(w, &ns)| format!("{} {}", w.column(), secs(ns)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = writeln!(
        t,
        "timed work by pass (s, all formats): per packet {}; per window {}; memcpy floor {}; \
         aggregation floor {}",
        by_workload(&p.per_unit),
        by_workload(&p.window),
        secs(p.floor),
        secs(p.aggregate),
    );
    let preempted: u64 = o.formats.iter().map(|f| f.preempted).sum();
    let retimed: u64 = o.formats.iter().map(|f| f.retimed).sum();
    let _ = writeln!(
        t,
        "preempted: {preempted} involuntary context switches inside the formats' timed passes; \
         {retimed} whole-window passes timed again for one (at most {} runs each, the last kept)",
        crate::measure::interference::TRIES
    );
}

/// The memcpy floor beside raw's figures, when it was timed.
fn memcpy_floor_line(t: &mut String, o: &Outcome) {
    let floor = o.memcpy.summary();
    if floor.count > 0 {
        let vs_raw = raw_over_floor(o).map_or(String::new(), |(ser, de)| {
            format!("; raw's ser is {}x it, de {}x", fmt_f(ser, 1), fmt_f(de, 1))
        });
        let _ = writeln!(
            t,
            "memcpy floor (raw's bytes copied packet by packet in the same loop): {} ns per \
             packet timed by window, p50 {} ns timed per packet{vs_raw}",
            fmt_f(o.memcpy_batch.ns_per_packet(), 1),
            floor.p50,
        );
    }
    if o.aggregate_batch.packets > 0 {
        let _ = writeln!(
            t,
            "aggregation floor (the selective decode's per-symbol hash map fed the window's \
             calls, recorded from the parsed packets, no format): {} ns per {} timed by window, \
             a part of every format's de",
            fmt_f(o.aggregate_batch.ns_per_packet(), 1),
            o.unit.name()
        );
    }
}

/// What `--verify` cost, when it ran.
fn verify_line(t: &mut String, o: &Outcome) {
    if o.verify_ns > 0 {
        let _ = writeln!(
            t,
            "verify: every packet decoded back and compared field by field, untimed: {:.2} s more",
            o.verify_ns as f64 / 1e9
        );
    }
}

/// Which windows were compressed for the size as stored, and what that cost.
fn stored_size_lines(t: &mut String, o: &Outcome) {
    if o.stored != StoredMode::None {
        // A twin's windows are not compressed (its bytes are its original's).
        let formats = || o.formats.iter().filter(|f| !is_twin(f));
        let zstd_ns: u64 = formats().map(|f| f.stored.zstd_ns).sum();
        let encoded: u64 = formats().map(|f| f.encoded_bytes).sum();
        let compressed: u64 = formats().map(|f| f.stored.compressed_bytes()).sum();
        let which = match o.stored {
            StoredMode::Sample => format!(
                "a sample of windows ({:.1}% of the encoded bytes: the first chunk's first \
                 {SAMPLE_HEAD}, then one in {SAMPLE_STRIDE}; --stored-size all compresses every \
                 one)",
                compressed as f64 * 100.0 / encoded.max(1) as f64
            ),
            _ => "every window (--stored-size sample estimates from a sample)".to_owned(),
        };
        let _ = writeln!(
            t,
            "size as stored: {which}, each compressed whole (zstd -3, zlib -6), untimed: {:.2} s \
             more ({:.1}% of the {:.2} s wall time), of which zstd {:.2} s",
            o.compress_ns as f64 / 1e9,
            o.compress_ns as f64 * 100.0 / o.wall_ns.max(1) as f64,
            o.wall_ns as f64 / 1e9,
            zstd_ns as f64 / 1e9,
        );
        if o.stored == StoredMode::All {
            if let Some(worst) = sampling_error(o) {
                let _ = writeln!(
                    t,
                    "  the sample alone would have estimated every format's size as stored \
                     within {worst:.2}% (zstd and zlib)"
                );
            }
        }
    }
}

/// What every run checks, for all formats.
fn checked_line(t: &mut String, o: &Outcome) {
    let _ = writeln!(
        t,
        "checked: every field of every message of all {} formats (the complete decode's checksum \
         equals the source's for every packet and every window), {} messages each way, and the \
         selective decode's aggregation matches the source ({} symbols){}",
        o.formats.iter().filter(|f| !is_twin(f)).count(),
        o.messages,
        o.reference.symbol_count(),
        copies_checked(o)
    );
}

/// `; the same for their 2 A/A twins and 2 positive controls`, or nothing without copies.
fn copies_checked(o: &Outcome) -> String {
    let count = |control: bool| {
        o.formats
            .iter()
            .filter(|f| f.planted().is_some_and(|p| (p > 0.0) == control))
            .count()
    };
    let named = |n: usize, one: &str, many: &str| match n {
        0 => None,
        1 => Some(format!("1 {one}")),
        n => Some(format!("{n} {many}")),
    };
    let parts: Vec<String> = [
        named(count(false), "A/A twin", "A/A twins"),
        named(count(true), "positive control", "positive controls"),
    ]
    .into_iter()
    .flatten()
    .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!("; the same for their {}", parts.join(" and "))
    }
}

/// A `--jobs` run: each worker's CPU, share, wall, timed and idle time, and what the times
/// below mean.
fn workers_line(o: &Outcome) -> String {
    let each: Vec<String> = o
        .workers
        .iter()
        .map(|w| {
            let cpu = w.cpu.map_or("unpinned".to_owned(), |c| format!("CPU {c}"));
            let rss = w.peak_rss.map_or(String::new(), |b| {
                format!(", peak RSS {:.1} MB", b as f64 / 1e6)
            });
            format!(
                "share {} on {cpu}: {} chunks, wall {:.2} s, timed {:.2} s, idle {:.2} s (timer {} \
                 ns{rss})",
                w.share,
                w.chunks,
                w.wall_ns as f64 / 1e9,
                w.timed_ns as f64 / 1e9,
                w.idle_ns(o.elapsed_ns) as f64 / 1e9,
                fmt_f(w.timer_overhead_ns, 1)
            )
        })
        .collect();
    format!(
        "jobs: {} worker processes side by side, each every format over its share of the chunks, \
         {:.2} s elapsed; {}. The times spent below are summed over the workers; idle is the \
         wait for the slowest",
        o.workers.len(),
        o.elapsed_ns as f64 / 1e9,
        each.join("; ")
    )
}

/// What the figures rest on: how many units were timed one by one and in whole windows.
fn timing_line(o: &Outcome) -> String {
    use crate::measure::Schedule;
    let unit = o.unit.name();
    match o.timing {
        Schedule::Both => format!(
            "every window timed both ways: {} {unit}s timed one by one and again in whole \
             windows (--timing alternate halves the timed work)",
            o.units_recorded
        ),
        Schedule::Alternate => format!(
            "windows timed per {unit} and whole in turn (--timing both does both on every \
             window): {} {unit}s timed one by one, {} in whole windows; every window encoded, \
             decoded and checked by every format",
            o.units_recorded, o.units_batch
        ),
    }
}

/// With every window compressed: the largest difference, in percent of the exact size, between
/// what the sample would have estimated and the exact size, over every format, zstd and zlib.
/// `None` when the input has no window past the sample's head (the sample is then exact).
fn sampling_error(o: &Outcome) -> Option<f64> {
    let mut worst: Option<f64> = None;
    for f in &o.formats {
        let (exact, sampled) = (f.stored.exact(), f.stored.sampled());
        if sampled == exact {
            continue;
        }
        for (e, s) in [
            (exact.zstd_bytes, sampled.zstd_bytes),
            (exact.zlib_bytes, sampled.zlib_bytes),
        ] {
            let pct = (s as f64 - e as f64).abs() * 100.0 / e.max(1) as f64;
            worst = Some(worst.map_or(pct, |w: f64| w.max(pct)));
        }
    }
    worst
}

/// `raw`'s batch serialize and selective deserialize over the memcpy floor's batch figure, when
/// raw ran and the floor measured something.
fn raw_over_floor(o: &Outcome) -> Option<(f64, f64)> {
    let floor = o.memcpy_batch.ns_per_packet();
    let raw = o.formats.iter().find(|f| f.name == RAW)?;
    (floor > 0.0).then(|| {
        (
            raw.throughput[Workload::Encode].ns_per_packet() / floor,
            raw.throughput[Workload::Selective].ns_per_packet() / floor,
        )
    })
}

/// What a single run can tell about its own trustworthiness (the cross-run warnings, such as
/// too few runs or a large spread, are `shootout report`'s), in `measure::trust`'s words.
fn warnings(o: &Outcome, governor: &Governor) -> Vec<String> {
    let mut out = Vec::new();
    let smallest = o
        .formats
        .iter()
        .flat_map(|f| {
            f.latency
                .iter()
                .map(|(w, latency)| (latency.summary().p50, f.name, w.column()))
        })
        .filter(|&(p, _, _)| p > 0)
        .min_by_key(|&(p, _, _)| p);
    if let Some((smallest, name, side)) = smallest {
        out.extend(trust::timer_cost(
            o.timer_overhead_ns,
            smallest as f64,
            &format!("{name} {side}"),
        ));
    }
    let floor = o.memcpy_batch.ns_per_packet();
    if let Some(raw) = o.formats.iter().find(|f| f.name == RAW) {
        out.extend(trust::raw_above_floor(
            raw.throughput[Workload::Encode].ns_per_packet(),
            raw.throughput[Workload::Selective].ns_per_packet(),
            floor,
            "batch",
        ));
    }
    let faulted: Vec<(&str, u64)> = o
        .formats
        .iter()
        .map(|f| (f.name, f.timed_faults))
        .chain([
            ("the memcpy floor", o.memcpy_faults),
            ("the aggregation floor", o.aggregate_faults),
        ])
        .collect();
    out.extend(trust::timed_faults(&faulted));
    out.extend(governor.warning());
    out
}

fn fmt_f(x: f64, decimals: usize) -> String {
    format!("{x:.decimals$}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::{self, Config};
    use crate::stream::IexReader;

    fn outcome_of(format: &str) -> Outcome {
        let bytes = measure::synthetic_capture(300);
        let config = Config {
            formats: Some(vec![format.into()]),
            stored: StoredMode::None,
            ..Config::default()
        };
        measure::run(IexReader::new(&bytes[..], false).unwrap(), &config, |_| {}).unwrap()
    }

    fn rendered(o: &Outcome) -> String {
        let info = crate::export::RunInfo::collect(std::path::Path::new("x"), "t");
        render(&RunReport {
            outcome: o,
            info: &info,
        })
    }

    /// No timer cost to warn of, and no page faults (they have a warning of their own, set on
    /// purpose where it is tested).
    fn quiet(o: &mut Outcome) {
        o.timer_overhead_ns = 0.0;
        o.memcpy_faults = 0;
        o.formats.iter_mut().for_each(|f| f.timed_faults = 0);
    }

    /// The JSON rows whose parser depends on the build or the CPU say which one ran; the
    /// others say nothing of it.
    #[test]
    fn the_json_rows_name_the_code_path_that_ran() {
        let table = rendered(&outcome_of("json-sonic"));
        let line = format!("  json-sonic: {}", crate::formats::json_sonic::simd_path());
        assert!(table.contains("code paths (chosen by the build or the CPU):"));
        assert!(table.contains(&line), "{table}");
        let table = rendered(&outcome_of("sbe"));
        assert!(!table.contains("code paths"), "{table}");
    }

    #[test]
    fn warns_about_the_governor_and_a_costly_timer() {
        let mut o = outcome_of("sbe");
        quiet(&mut o);
        let performance = Governor::named("performance");
        assert!(warnings(&o, &performance).is_empty());
        let w = warnings(&o, &Governor::named("powersave"));
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("`powersave`"), "{w:?}");
        assert!(warnings(&o, &Governor::Unreadable)[0].contains("could not be checked"));
        o.formats[0].timed_faults = 3;
        let w = warnings(&o, &performance);
        assert_eq!(w.len(), 1);
        assert!(
            w[0].starts_with("page faults inside timed passes (sbe 3): "),
            "{w:?}"
        );
        o.formats[0].timed_faults = 0;
        o.timer_overhead_ns = 1e6;
        let w = warnings(&o, &performance);
        assert_eq!(w.len(), 1);
        assert!(w[0].starts_with("timer overhead 1000000 ns is "), "{w:?}");
        assert!(rendered(&o).contains("warning: timer overhead "));
    }

    #[test]
    fn compares_raw_with_the_memcpy_floor_and_warns_above_twice() {
        use crate::measure::stats::{Latency, Throughput};
        let mut o = outcome_of("raw");
        // The floor was measured on every recorded packet, like raw.
        let encode = Workload::Encode;
        assert_eq!(o.memcpy.hist.len(), o.formats[0].latency[encode].hist.len());
        assert_eq!(
            o.memcpy_batch.packets,
            o.formats[0].throughput[encode].packets
        );
        let times = |ns: u64| {
            let mut s = Latency::default();
            (0..100).for_each(|_| s.record(ns));
            s
        };
        let batch = |ns: u64| Throughput {
            ns: ns * 100,
            packets: 100,
        };
        quiet(&mut o);
        o.memcpy = times(10);
        o.memcpy_batch = batch(10);
        // Equal medians, but the batch figures decide.
        o.formats[0].latency[encode] = times(10);
        o.formats[0].latency[Workload::Selective] = times(10);
        o.formats[0].throughput[encode] = batch(20);
        o.formats[0].throughput[Workload::Selective] = batch(20);
        let performance = Governor::named("performance");
        assert!(warnings(&o, &performance).is_empty());
        o.formats[0].throughput[encode] = batch(30);
        let w = warnings(&o, &performance);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with(
                "raw's ser batch 30 ns (3.0x) above 2x the memcpy floor (batch) of 10 ns"
            ),
            "{w:?}"
        );
        let table = rendered(&o);
        assert!(
            table.contains(
                "memcpy floor (raw's bytes copied packet by packet in the same loop): 10.0 ns \
                 per packet timed by window, p50 10 ns timed per packet; raw's ser is 3.0x it, \
                 de 2.0x"
            ),
            "{table}"
        );
    }
}
