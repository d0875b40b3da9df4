//! Shares of one run joined into the run's result: what `run --jobs` does with its workers and
//! `shootout merge` with the parts of `run --shard`.
//!
//! Every share measured every format over its own chunks (see `stream::share`), so joining is
//! adding: histograms add, batch sums add, counts add, the size-as-stored tallies add (their
//! sample was chosen by window place, the same in every split). Before adding, the shares must
//! be one run cut in pieces: the same chunking and options, each share once, and their chunks
//! chaining from the first record to the last ([`Cover::join`]). What is not a sum: the timer's
//! overhead and clock step (the largest), and the per-symbol fold of the reference aggregation,
//! whose order across shares is lost (the sum of the shares' folds; it is only ever compared
//! within one process, where every format is checked against its own share's reference).

use serde::{Deserialize, Serialize};

use super::config::RunError;
use super::instructions::Instructions;
use super::outcome::{Outcome, Worker};
use super::stats::FormatResult;
use super::twins;
use crate::stream::{Cover, Share};

/// One share's outcome as it travels between processes (a `--jobs` worker's stdout, a part
/// file): the outcome and the names a `&'static str` cannot carry through serde.
#[derive(Serialize, Deserialize)]
pub struct Report {
    pub outcome: Outcome,
    pub formats: Vec<String>,
    pub feed: Option<String>,
    pub clock: String,
    /// The CPU the process was pinned to, if it was.
    pub cpu: Option<usize>,
    /// Its peak resident memory (`VmHWM`), in bytes.
    pub peak_rss: Option<u64>,
}

impl Report {
    /// `cpu`: the CPU this process pinned itself to; without one, the CPU a scheduler confined
    /// it to (Slurm's task affinity, a pod's cpuset), if it is one.
    pub fn new(outcome: Outcome, cpu: Option<usize>) -> Report {
        let cpu = cpu.or_else(|| match super::affinity::allowed_cpus()[..] {
            [one] => Some(one),
            _ => None,
        });
        Report {
            formats: outcome.formats.iter().map(|f| f.name.to_owned()).collect(),
            feed: outcome.feed.map(str::to_owned),
            clock: outcome.clock.to_owned(),
            cpu,
            peak_rss: peak_rss(),
            outcome,
        }
    }

    /// The outcome with its names back as the program's own `&'static str`s.
    pub fn restore(self) -> Result<Outcome, RunError> {
        let mut o = self.outcome;
        o.feed = self
            .feed
            .as_deref()
            .map(|f| known(f, &["deep", "tops", "deep-plus", "mixed"], "feed"))
            .transpose()?;
        o.clock = known(&self.clock, &["tsc", "cntvct", "monotonic"], "clock")?;
        if self.formats.len() != o.formats.len() {
            return Err(RunError::Worker(
                "a share's results name too few formats".into(),
            ));
        }
        let names = twins::runner_names();
        for (f, name) in o.formats.iter_mut().zip(&self.formats) {
            f.name = known(name, &names, "format")?;
        }
        Ok(o)
    }

    /// The worker that measured this share, `wall_ns` from its start to its exit.
    pub fn worker(&self, wall_ns: u64) -> Worker {
        let o = &self.outcome;
        Worker {
            cpu: self.cpu,
            share: o.chunking.share,
            wall_ns,
            timed_ns: o.timed_ns,
            timer_overhead_ns: o.timer_overhead_ns,
            peak_rss: self.peak_rss,
            chunks: o.cover.spans.len() as u64,
        }
    }
}

/// This process's peak resident set (`VmHWM` in /proc/self/status), in bytes.
pub fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// `name` as the `&'static str` among `known` it equals.
fn known(name: &str, known: &[&'static str], what: &str) -> Result<&'static str, RunError> {
    known
        .iter()
        .copied()
        .find(|k| *k == name)
        .ok_or_else(|| RunError::Worker(format!("a share reported an unknown {what} {name:?}")))
}

/// Checks that `shares` are the shares of one run, each once, and none missing: the first
/// problem, in one line.
pub fn check_set(shares: &[Share]) -> Result<(), String> {
    let Some(n) = shares.first().map(|s| s.count) else {
        return Err("no parts to merge".into());
    };
    if let Some(other) = shares.iter().find(|s| s.count != n) {
        return Err(format!(
            "the parts are of different splits: shard {} and shard {other}",
            shares[0]
        ));
    }
    let mut seen = vec![0u32; n as usize];
    for s in shares {
        seen[s.index as usize] += 1;
    }
    // The shards seen as often as `times` says, as a list.
    let listed = |times: fn(u32) -> bool| -> String {
        let list = (0..n).filter(|&i| times(seen[i as usize]));
        list.map(|i| format!("{}/{n}", i + 1))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match (listed(|t| t > 1), listed(|t| t == 0)) {
        (twice, _) if !twice.is_empty() => Err(format!("shard {twice} given more than once")),
        (_, missing) if !missing.is_empty() => {
            Err(format!("incomplete: shard {missing} of {n} missing"))
        }
        _ => Ok(()),
    }
}

/// The shares' outcomes as one run's, checked (see the module's doc). Formats keep the order of
/// the first share's.
pub fn merge(parts: Vec<Outcome>) -> Result<Outcome, RunError> {
    let fail = |what: String| RunError::Worker(what);
    let shares: Vec<Share> = parts.iter().map(|o| o.chunking.share).collect();
    check_set(&shares).map_err(fail)?;
    let covers: Vec<Cover> = parts.iter().map(|o| o.cover.clone()).collect();
    let cover = Cover::join(&covers).map_err(fail)?;
    let mut parts = parts.into_iter();
    let mut merged = parts
        .next()
        .ok_or_else(|| fail("no parts to merge".into()))?;
    for o in parts {
        same_run(&merged, &o)?;
        absorb(&mut merged, o)?;
    }
    merged.chunking.share = Share::WHOLE;
    merged.cover = cover;
    if merged.packets == 0 {
        return Err(fail(
            "the parts together hold no IEX packet: there is nothing to report".into(),
        ));
    }
    Ok(merged)
}

/// The parts must be of one run: the same options, chunking and formats.
fn same_run(a: &Outcome, b: &Outcome) -> Result<(), RunError> {
    let differ = |what: &str, x: String, y: String| {
        Err(RunError::Worker(format!(
            "the parts are not of one run: {what} {x} in one, {y} in another"
        )))
    };
    macro_rules! same {
        ($($field:ident),*) => {$(
            if a.$field != b.$field {
                return differ(stringify!($field), format!("{:?}", a.$field), format!("{:?}", b.$field));
            }
        )*};
    }
    same!(unit, timing, stored, order_seed, clock);
    if a.chunking.bytes != b.chunking.bytes {
        return differ(
            "--chunk",
            a.chunking.bytes.to_string(),
            b.chunking.bytes.to_string(),
        );
    }
    let names = |o: &Outcome| o.formats.iter().map(|f| f.name).collect::<Vec<_>>();
    if names(a) != names(b) {
        return differ("the formats", names(a).join(","), names(b).join(","));
    }
    Ok(())
}

/// `$into.field += $from.field` for each field.
macro_rules! add {
    ($into:ident, $from:ident: $($field:ident),*) => {$($into.$field += $from.$field;)*};
}

/// Adds `o` into `into`.
fn absorb(into: &mut Outcome, o: Outcome) -> Result<(), RunError> {
    for (f, g) in into.formats.iter_mut().zip(&o.formats) {
        add_format(f, g)?;
    }
    into.reference.absorb(&o.reference);
    add!(into, o: packets, messages, units_recorded, units_batch, unknown, wall_ns, parse_ns);
    add!(into, o: timed_ns, passes, compress_ns, verify_ns, memcpy_batch, memcpy_faults);
    add!(into, o: aggregate_batch, aggregate_faults);
    into.feed = match (into.feed, o.feed) {
        (a, None) => a,
        (None, b) => b,
        (Some(a), Some(b)) if a == b => Some(a),
        _ => Some("mixed"),
    };
    into.timer_overhead_ns = into.timer_overhead_ns.max(o.timer_overhead_ns);
    into.clock_step_ns = into.clock_step_ns.max(o.clock_step_ns);
    // Every share walks the stream it reads to its end or to its file's size.
    into.capture_bytes = into.capture_bytes.max(o.capture_bytes);
    into.dropped_bytes = into.dropped_bytes.or(o.dropped_bytes);
    add_latency(&mut into.memcpy, &o.memcpy)?;
    into.elapsed_ns = into.elapsed_ns.max(o.elapsed_ns);
    Ok(())
}

fn add_format(f: &mut FormatResult, g: &FormatResult) -> Result<(), RunError> {
    for (w, l) in g.latency.iter() {
        add_latency(&mut f.latency[w], l)?;
    }
    for (w, t) in g.windows.iter() {
        f.windows[w].absorb(t);
    }
    add!(f, g: throughput, encoded_bytes, messages_encoded, messages_batch, timed_faults);
    add!(f, g: preempted, retimed);
    f.stored.absorb(&g.stored);
    f.instructions = Instructions::merge(f.instructions, g.instructions);
    f.allocations = match (f.allocations, g.allocations) {
        (Some(mut a), Some(b)) => {
            a.absorb(&b);
            Some(a)
        }
        (a, b) => a.or(b),
    };
    for (k, t) in &g.by_type {
        f.by_type
            .entry(*k)
            .or_default()
            .absorb(t)
            .map_err(cannot_add)?;
    }
    // Measured on every share's CPU.
    f.worker_cpu = None;
    Ok(())
}

fn add_latency(
    into: &mut super::stats::Latency,
    from: &super::stats::Latency,
) -> Result<(), RunError> {
    into.absorb(from).map_err(cannot_add)
}

fn cannot_add(e: hdrhistogram::errors::AdditionError) -> RunError {
    RunError::Worker(format!("cannot add two shares' histograms: {e:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn share(s: &str) -> Share {
        s.parse().unwrap()
    }

    #[test]
    fn a_set_of_shares_must_be_whole_and_each_once() {
        let all: Vec<Share> = ["3/4", "1/4", "4/4", "2/4"].map(share).to_vec();
        assert_eq!(check_set(&all), Ok(()));
        // A share missing, a share twice: tests/it/jobs.rs,
        // `four_shards_merged_give_what_one_process_gives_and_bad_sets_are_refused`.
        let mixed = [share("1/2"), share("2/3")];
        assert_eq!(
            check_set(&mixed),
            Err("the parts are of different splits: shard 1/2 and shard 2/3".into())
        );
        assert_eq!(check_set(&[]), Err("no parts to merge".into()));
    }
}
