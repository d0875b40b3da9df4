//! When a figure is not to be trusted, and the sentence that says why: one rule and one wording
//! for each, used by `run`'s table (one run) and by `shootout report` (many runs), which only add
//! where the figure came from.

/// Fewer runs than this give no median and spread worth reading.
pub const MIN_RUNS: usize = 3;

/// A run-to-run coefficient of variation above this, in percent, is flagged.
pub const MAX_CV_PCT: f64 = 10.0;

/// The timer's own cost may be this share of the smallest per-packet median before it is flagged.
pub const MAX_OVERHEAD_SHARE: f64 = 0.10;

/// `raw`'s time may be this many times the memcpy floor's before it is flagged.
pub const MAX_RAW_OVER_FLOOR: f64 = 2.0;

/// `Some(sentence)` when the timer's cost (`overhead_ns`, a read pair) is more than
/// [`MAX_OVERHEAD_SHARE`] of the smallest per-packet median (`smallest_ns`, of `which`).
pub fn timer_cost(overhead_ns: f64, smallest_ns: f64, which: &str) -> Option<String> {
    if overhead_ns <= MAX_OVERHEAD_SHARE * smallest_ns {
        return None;
    }
    let share = if smallest_ns > 0.0 {
        format!("{:.0}%", 100.0 * overhead_ns / smallest_ns)
    } else {
        "more than all".to_owned()
    };
    Some(format!(
        "timer overhead {} ns is {share} of the smallest median p50 ({} ns, {which}); per-packet \
         differences that small are the clock's, not the format's (batch figures do not carry it)",
        trim(overhead_ns),
        trim(smallest_ns),
    ))
}

/// `Some(sentence)` when any timed pass took a page fault: `faulted` lists each format (or the
/// memcpy floor) with its count of minor faults inside timed passes.
pub fn timed_faults(faulted: &[(&str, u64)]) -> Option<String> {
    let listed: Vec<String> = faulted
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(name, n)| format!("{name} {n}"))
        .collect();
    if listed.is_empty() {
        return None;
    }
    Some(format!(
        "page faults inside timed passes ({}): each costs microseconds, so the tails (p99, p99.9) \
         of those formats include the kernel mapping memory, not only the format's work",
        listed.join(", ")
    ))
}

/// The sides (`"ser"`, `"de"`) whose time is above [`MAX_RAW_OVER_FLOOR`] times `floor`, each
/// with its ratio to the floor; empty when the floor is 0 (nothing measured).
pub fn sides_above(ser: f64, de: f64, floor: f64) -> Vec<(&'static str, f64)> {
    if floor <= 0.0 {
        return Vec::new();
    }
    [("ser", ser), ("de", de)]
        .into_iter()
        .map(|(side, ns)| (side, ns / floor))
        .filter(|&(_, ratio)| ratio > MAX_RAW_OVER_FLOOR)
        .collect()
}

/// `Some(sentence)` when raw's serialize or selective decode (`ser`, `de`, measured as `basis`:
/// `"batch"` or `"p50"`) is above [`MAX_RAW_OVER_FLOOR`] times the memcpy floor measured the same
/// way.
pub fn raw_above_floor(ser: f64, de: f64, floor: f64, basis: &str) -> Option<String> {
    let over: Vec<String> = sides_above(ser, de, floor)
        .into_iter()
        .map(|(side, ratio)| format!("{side} {basis} {} ns ({ratio:.1}x)", trim(ratio * floor)))
        .collect();
    if over.is_empty() {
        return None;
    }
    let floor_basis = if basis == "batch" { " (batch)" } else { "" };
    Some(format!(
        "raw's {} above {MAX_RAW_OVER_FLOOR}x the memcpy floor{floor_basis} of {} ns: the \
         measuring loop, or raw's own work, costs more than the copy it stands for",
        over.join(" and "),
        trim(floor),
    ))
}

/// What is known of the CPU frequency governor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Governor {
    /// `performance`: the clock speed stays put.
    Performance,
    /// Any other governor, by name.
    Other(String),
    /// The kernel did not show it (a VM, a container).
    Unreadable,
    /// Nothing recorded it (a results CSV with no `environment.txt` next to it).
    NotRecorded,
}

impl Governor {
    /// This machine's, from sysfs.
    pub fn here() -> Governor {
        match std::fs::read_to_string("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor") {
            Ok(g) if !g.trim().is_empty() => Governor::named(g.trim()),
            _ => Governor::Unreadable,
        }
    }

    /// The word `environment.txt` records (`performance`, another name, or `unreadable`), which
    /// `report` reads back.
    pub fn recorded(&self) -> &str {
        match self {
            Governor::Performance => "performance",
            Governor::Other(g) => g,
            Governor::Unreadable | Governor::NotRecorded => "unreadable",
        }
    }

    /// `performance` or another name.
    pub fn named(name: &str) -> Governor {
        if name == "performance" {
            Governor::Performance
        } else {
            Governor::Other(name.to_owned())
        }
    }

    /// `Some(sentence)` unless the governor is `performance`.
    pub fn warning(&self) -> Option<String> {
        match self {
            Governor::Performance => None,
            Governor::Other(g) => Some(format!(
                "the CPU frequency governor was `{g}`, not `performance`: the clock speed may \
                 have changed during the run"
            )),
            Governor::Unreadable => Some(
                "the CPU frequency governor could not be checked (it was unreadable, as in \
                 most VMs): the clock speed may have changed during the run"
                    .to_owned(),
            ),
            Governor::NotRecorded => Some(
                "the CPU frequency governor could not be checked (no environment.txt next to \
                 it)"
                .to_owned(),
            ),
        }
    }
}

/// A number with one decimal, without a trailing `.0`.
pub fn trim(x: f64) -> String {
    let s = format!("{x:.1}");
    s.strip_suffix(".0").map(str::to_owned).unwrap_or(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sides_above_twice_the_floor() {
        assert_eq!(sides_above(20.0, 20.0, 10.0), []);
        assert_eq!(sides_above(30.0, 20.0, 10.0), [("ser", 3.0)]);
        assert_eq!(sides_above(25.0, 40.0, 10.0), [("ser", 2.5), ("de", 4.0)]);
        assert_eq!(sides_above(30.0, 40.0, 0.0), []);
    }

    #[test]
    fn one_wording_for_each_doubt() {
        assert_eq!(timer_cost(1.0, 20.0, "raw ser"), None);
        let t = timer_cost(10.0, 20.0, "raw ser").unwrap();
        assert!(
            t.starts_with(
                "timer overhead 10 ns is 50% of the smallest median p50 (20 ns, raw ser)"
            ),
            "{t}"
        );
        assert!(timer_cost(5.0, 0.0, "x").unwrap().contains("more than all"));
        assert_eq!(raw_above_floor(20.0, 20.0, 10.0, "batch"), None);
        assert_eq!(
            raw_above_floor(25.0, 40.0, 10.0, "batch").unwrap(),
            "raw's ser batch 25 ns (2.5x) and de batch 40 ns (4.0x) above 2x the memcpy floor \
             (batch) of 10 ns: the measuring loop, or raw's own work, costs more than the copy \
             it stands for"
        );
        assert_eq!(Governor::named("performance").warning(), None);
        assert!(Governor::named("powersave")
            .warning()
            .unwrap()
            .contains("`powersave`"));
        // The p50 basis and the unchecked governors: tests/it/report.rs.
    }
}
