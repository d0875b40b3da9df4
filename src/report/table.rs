//! The table printed on stdout after a run: one line per format, then how the time was spent.
//!
//! `zstd B/msg` and `zlib B/msg` are the size as stored (each window compressed whole); `x raw` is
//! the format's p50 serialize + p50 deserialize over the `raw` baseline's (`-` when raw did not
//! run).

use std::fmt::Write;

use super::stats::RAW;
use super::RunReport;
use crate::measure::floor::{self, MAX_RAW_OVER_FLOOR};

/// Renders the results table.
pub fn render(report: &RunReport<'_>) -> String {
    let o = report.outcome;
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{} packets, {} messages ({}), {} per packet on average; times per packet in ns",
        o.packets,
        o.messages,
        o.feed.unwrap_or("no IEX data"),
        fmt_f(o.messages as f64 / o.packets.max(1) as f64, 2),
    );
    let header = [
        "format",
        "bytes/msg",
        "ser p50",
        "p99",
        "p99.9",
        "max",
        "de p50",
        "p99",
        "p99.9",
        "max",
        "total ms",
        "msgs/s",
        "zstd B/msg",
        "zlib B/msg",
        "x raw",
    ];
    // The floor: raw's p50 serialize + deserialize, when raw ran.
    let raw = o
        .formats
        .iter()
        .find(|f| f.name == RAW)
        .map(|f| f.ser.summary().p50 + f.de.summary().p50)
        .filter(|&ns| ns > 0);
    let mut rows: Vec<Vec<String>> = vec![header.iter().map(|s| s.to_string()).collect()];
    for f in &o.formats {
        let (s, d) = (f.ser.summary(), f.de.summary());
        let stored = |bytes: u64| {
            if o.stored_size {
                fmt_f(bytes as f64 / f.messages_encoded.max(1) as f64, 1)
            } else {
                "-".to_owned()
            }
        };
        rows.push(vec![
            f.name.to_owned(),
            fmt_f(f.bytes_per_message(), 1),
            s.p50.to_string(),
            s.p99.to_string(),
            s.p999.to_string(),
            s.max.to_string(),
            d.p50.to_string(),
            d.p99.to_string(),
            d.p999.to_string(),
            d.max.to_string(),
            fmt_f((s.total + d.total) as f64 / 1e6, 1),
            format!("{:.2}M", f.msgs_per_sec() / 1e6),
            stored(f.zstd_bytes),
            stored(f.zlib_bytes),
            raw.map_or("-".to_owned(), |raw| {
                fmt_f((s.p50 + d.p50) as f64 / raw as f64, 1)
            }),
        ]);
    }
    let widths: Vec<usize> = (0..header.len())
        .map(|c| rows.iter().map(|r| r[c].len()).max().unwrap_or(0))
        .collect();
    for row in &rows {
        let line: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, cell)| {
                if c == 0 {
                    format!("{cell:<w$}", w = widths[c])
                } else {
                    format!("{cell:>w$}", w = widths[c])
                }
            })
            .collect();
        let _ = writeln!(t, "{}", line.join("  ").trim_end());
    }
    let measuring = o.measuring_ns().max(1) as f64;
    let _ = writeln!(
        t,
        "timer overhead {} ns per sample; {:.1}% of {:.2} s spent measuring latency was parsing \
         ({:.1}%) or timed serialize/deserialize ({:.1}%)",
        fmt_f(o.timer_overhead_ns, 1),
        o.timed_share() * 100.0,
        measuring / 1e9,
        o.parse_ns as f64 * 100.0 / measuring,
        o.timed_ns as f64 * 100.0 / measuring,
    );
    let floor = o.memcpy.summary();
    if floor.count > 0 {
        let vs_raw = raw_over_floor(o).map_or(String::new(), |(ser, de)| {
            format!(
                "; raw's ser p50 is {}x it, de p50 {}x",
                fmt_f(ser, 1),
                fmt_f(de, 1)
            )
        });
        let _ = writeln!(
            t,
            "memcpy floor (raw's bytes copied packet by packet in the same timed loop): p50 {} ns, \
             mean {} ns{vs_raw}",
            floor.p50,
            fmt_f(floor.mean, 1),
        );
    }
    if o.verify_ns > 0 {
        let _ = writeln!(
            t,
            "verify: every packet decoded back and compared field by field, untimed: {:.2} s more",
            o.verify_ns as f64 / 1e9
        );
    }
    if o.stored_size {
        let zstd_ns: u64 = o.formats.iter().map(|f| f.zstd_ns).sum();
        let _ = writeln!(
            t,
            "size as stored: each window compressed whole (zstd -3, zlib -6), untimed: {:.2} s \
             more ({:.1}% of the {:.2} s wall time), of which zstd {:.2} s; \
             --no-stored-size skips it",
            o.compress_ns as f64 / 1e9,
            o.compress_ns as f64 * 100.0 / o.wall_ns.max(1) as f64,
            o.wall_ns as f64 / 1e9,
            zstd_ns as f64 / 1e9,
        );
    }
    for warning in warnings(o, &governor()) {
        let _ = writeln!(t, "warning: {warning}");
    }
    let _ = writeln!(
        t,
        "checked: all {} formats carried {} messages and match the source aggregation ({} symbols)",
        o.formats.len(),
        o.messages,
        o.reference.symbol_count()
    );
    t
}

/// `raw`'s serialize and deserialize p50 over the memcpy floor's p50, when raw ran and the floor
/// measured something.
fn raw_over_floor(o: &crate::measure::Outcome) -> Option<(f64, f64)> {
    let floor = o.memcpy.summary().p50;
    let raw = o.formats.iter().find(|f| f.name == RAW)?;
    (floor > 0).then(|| {
        (
            raw.ser.summary().p50 as f64 / floor as f64,
            raw.de.summary().p50 as f64 / floor as f64,
        )
    })
}

/// The CPU frequency governor, if the kernel shows it.
fn governor() -> Option<String> {
    std::fs::read_to_string("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
        .ok()
        .map(|s| s.trim().to_owned())
}

/// What a single run can tell about its own trustworthiness (the cross-run warnings, such as
/// too few runs or a large spread, are `shootout report`'s).
fn warnings(o: &crate::measure::Outcome, governor: &Option<String>) -> Vec<String> {
    let mut out = Vec::new();
    let smallest = o
        .formats
        .iter()
        .flat_map(|f| [f.ser.summary().p50, f.de.summary().p50])
        .filter(|&p| p > 0)
        .min();
    if let Some(smallest) = smallest {
        if o.timer_overhead_ns > crate::report::stats::MAX_OVERHEAD_SHARE * smallest as f64 {
            out.push(format!(
                "the timer's own cost ({} ns) is {:.0}% of the smallest median ({smallest} ns): \
                 differences that small are the clock's, not the format's",
                fmt_f(o.timer_overhead_ns, 1),
                100.0 * o.timer_overhead_ns / smallest as f64
            ));
        }
    }
    if let Some((ser, de)) = raw_over_floor(o) {
        // Already ratios: a floor of 1.
        let over: Vec<String> = floor::sides_above(ser, de, 1.0)
            .into_iter()
            .map(|(side, ratio)| format!("{side} p50 {}x", fmt_f(ratio, 1)))
            .collect();
        if !over.is_empty() {
            out.push(format!(
                "raw's {} the memcpy floor, above {MAX_RAW_OVER_FLOOR}x: the measuring loop, or \
                 raw's own work, costs more than the copy it stands for",
                over.join(" and ")
            ));
        }
    }
    match governor.as_deref() {
        Some("performance") => {}
        Some(other) => out.push(format!(
            "the CPU frequency governor is {other:?}, not \"performance\": clock speed may vary \
             during the run"
        )),
        None => out.push(
            "the CPU frequency governor is not readable here (a VM?): clock speed may vary".into(),
        ),
    }
    out
}

fn fmt_f(x: f64, decimals: usize) -> String {
    format!("{x:.decimals$}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::{self, GenOptions};
    use crate::measure::{self, Config};
    use crate::stream::IexReader;

    fn outcome() -> crate::measure::Outcome {
        outcome_of("sbe")
    }

    fn outcome_of(format: &str) -> crate::measure::Outcome {
        let mut bytes = Vec::new();
        let opts = GenOptions {
            packets: 300,
            ..GenOptions::default()
        };
        gen::generate(&opts, &mut bytes).unwrap();
        let config = Config {
            formats: Some(vec![format.into()]),
            stored_size: false,
            ..Config::default()
        };
        measure::run(IexReader::new(&bytes[..], false).unwrap(), &config, |_| {}).unwrap()
    }

    #[test]
    fn warns_about_the_governor_and_a_costly_timer() {
        let mut o = outcome();
        o.timer_overhead_ns = 0.0;
        assert!(warnings(&o, &Some("performance".into())).is_empty());
        let w = warnings(&o, &Some("powersave".into()));
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("\"powersave\""), "{w:?}");
        assert!(warnings(&o, &None)[0].contains("not readable"));
        o.timer_overhead_ns = 1e6;
        let w = warnings(&o, &Some("performance".into()));
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("timer's own cost"), "{w:?}");
        assert!(render(&RunReport {
            outcome: &o,
            info: &crate::report::RunInfo::collect(std::path::Path::new("x"), "t"),
        })
        .contains("warning: the timer's own cost"));
    }

    #[test]
    fn compares_raw_with_the_memcpy_floor_and_warns_above_twice() {
        use crate::measure::stats::SideStats;
        let mut o = outcome_of("raw");
        // The floor was measured on every recorded packet, like raw.
        assert_eq!(o.memcpy.hist.len(), o.formats[0].ser.hist.len());
        let times = |ns: u64| {
            let mut s = SideStats::default();
            (0..100).for_each(|_| s.record(ns));
            s
        };
        o.timer_overhead_ns = 0.0;
        o.memcpy = times(10);
        o.formats[0].ser = times(20);
        o.formats[0].de = times(20);
        assert!(warnings(&o, &Some("performance".into())).is_empty());
        o.formats[0].ser = times(30);
        let w = warnings(&o, &Some("performance".into()));
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with("raw's ser p50 3.0x the memcpy floor, above 2x"),
            "{w:?}"
        );
        let table = render(&RunReport {
            outcome: &o,
            info: &crate::report::RunInfo::collect(std::path::Path::new("x"), "t"),
        });
        assert!(
            table.contains(
                "memcpy floor (raw's bytes copied packet by packet in the same timed loop): \
                 p50 10 ns, mean 10.0 ns; raw's ser p50 is 3.0x it, de p50 2.0x"
            ),
            "{table}"
        );
    }
}
