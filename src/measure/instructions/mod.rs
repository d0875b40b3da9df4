//! Instructions per unit for each format's batch passes: a figure that does not move with the
//! machine's noise (rustc-perf gates on `instructions:u` for that reason: wall time moved ±9% where
//! instructions stayed within ±0.2%), shown beside the times and never as one.
//!
//! Two sources, never compared with each other: the CPU's counter ([`pmu`]) counts the very
//! passes that were timed, in the same process; Callgrind ([`callgrind`]) counts the same
//! passes (the same windows, order and options) in a second run under Valgrind, since timing
//! under Valgrind means nothing. Either way a pass's count includes the dispatch into the
//! format and the two clock reads around it (a few dozen instructions a window, against tens of
//! thousands for the window's work).

pub mod callgrind;
pub mod child;
pub mod pmu;

use super::workload::{PerWorkload, Workload};

/// Where a run's counts come from (the CSV's `instr_source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Source {
    /// The CPU's retired-instructions counter, user space only.
    Pmu,
    /// Valgrind's Callgrind (`Ir`, instructions executed), in a second run.
    Callgrind,
}

impl Source {
    pub fn name(self) -> &'static str {
        match self {
            Source::Pmu => "pmu",
            Source::Callgrind => "callgrind",
        }
    }

    pub fn parse(name: &str) -> Option<Source> {
        [Source::Pmu, Source::Callgrind]
            .into_iter()
            .find(|s| s.name() == name)
    }
}

/// What `--instructions` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Want {
    /// The CPU's counter where it works (free), else none.
    #[default]
    Auto,
    /// The CPU's counter, else Callgrind; refused where neither works.
    On,
    Pmu,
    Callgrind,
    Off,
}

/// `--instructions` asked for a source this machine lacks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Unavailable(pub String);

impl Want {
    /// The source a run counts with, or why the one asked for is missing.
    pub fn resolve(self) -> Result<Option<Source>, Unavailable> {
        let pmu = || pmu::Pmu::open().map(|_| Source::Pmu);
        let valgrind = || callgrind::valgrind_version().map(|_| Source::Callgrind);
        match self {
            Want::Off => Ok(None),
            Want::Auto => Ok(pmu().ok()),
            Want::Pmu => pmu().map(Some).map_err(|e| {
                Unavailable(format!(
                    "--instructions pmu: this machine gives no hardware instruction counter \
                     (perf_event_open: {e}); use --instructions callgrind (valgrind)"
                ))
            }),
            Want::Callgrind => valgrind().map(Some).map_err(|e| {
                Unavailable(format!(
                    "--instructions callgrind: {e}; install valgrind (apt-get install valgrind)"
                ))
            }),
            Want::On => match (pmu(), valgrind()) {
                (Ok(s), _) | (_, Ok(s)) => Ok(Some(s)),
                (Err(p), Err(v)) => Err(Unavailable(format!(
                    "--instructions: no hardware instruction counter (perf_event_open: {p}) \
                     and {v}; install valgrind (apt-get install valgrind) or run where \
                     hardware counters work"
                ))),
            },
        }
    }
}

/// A format's instructions over its batch passes, per workload (the figure divides them by the
/// passes' units).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Instructions {
    pub source: Source,
    pub count: PerWorkload<u64>,
}

impl Instructions {
    pub fn new(source: Source) -> Instructions {
        Instructions {
            source,
            count: PerWorkload::default(),
        }
    }

    /// Two shares' counts of one format: summed when both counted with one source.
    pub fn merge(a: Option<Instructions>, b: Option<Instructions>) -> Option<Instructions> {
        let (mut a, b) = (a?, b?);
        if a.source != b.source {
            return None;
        }
        a.count += b.count;
        Some(a)
    }
}

/// How a process counts its batch passes (`Config::counting`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counting {
    /// With the CPU's counter, into the results.
    Pmu,
    /// As the Callgrind child: each pass dumped, nothing timed that counts.
    CallgrindChild,
}

/// What a process counts with, around each batch pass.
pub enum Counter {
    Pmu(pmu::Pmu),
    /// This process is the Callgrind child: each pass dumped under its name.
    Callgrind(callgrind::Client),
}

impl Counter {
    /// The counter for `counting`, or why the CPU's cannot be opened.
    pub fn open(counting: Counting) -> std::io::Result<Counter> {
        Ok(match counting {
            Counting::Pmu => Counter::Pmu(pmu::Pmu::open()?),
            Counting::CallgrindChild => Counter::Callgrind(callgrind::Client::new()),
        })
    }

    /// `work` counted: the instructions where this process reads them itself (the CPU's
    /// counter), `None` under Callgrind (the parent reads the dumps).
    pub fn count<R>(
        &mut self,
        format: &'static str,
        workload: Workload,
        work: impl FnOnce() -> R,
    ) -> (R, Option<u64>) {
        match self {
            Counter::Pmu(pmu) => pmu.count(work),
            Counter::Callgrind(client) => (client.count(format, workload, work), None),
        }
    }

    /// Whether passes may be run again: not under Callgrind, whose dumps would count every
    /// try (a pass is timed again when a context switch landed in it; nothing is timed there).
    pub fn allows_retries(&self) -> bool {
        matches!(self, Counter::Pmu(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counted(source: Source, n: [u64; 3]) -> Option<Instructions> {
        Some(Instructions {
            source,
            count: PerWorkload(n),
        })
    }

    #[test]
    fn shares_counted_by_one_source_add_up_and_any_other_mix_has_no_count() {
        let a = counted(Source::Pmu, [10, 20, 30]);
        let b = counted(Source::Pmu, [1, 2, 3]);
        assert_eq!(
            Instructions::merge(a, b),
            counted(Source::Pmu, [11, 22, 33])
        );
        assert_eq!(
            Instructions::merge(a, counted(Source::Callgrind, [1, 2, 3])),
            None
        );
        assert_eq!(Instructions::merge(a, None), None);
        assert_eq!(Instructions::merge(None, b), None);
    }

    #[test]
    fn off_never_counts_and_callgrind_only_where_valgrind_is() {
        assert_eq!(Want::Off.resolve(), Ok(None));
        let valgrind = callgrind::valgrind_version().is_ok();
        assert_eq!(
            Want::Callgrind.resolve().is_ok(),
            valgrind,
            "{:?}",
            Want::Callgrind.resolve()
        );
        // Auto never refuses: it counts where the CPU can, else not at all.
        assert!(matches!(Want::Auto.resolve(), Ok(None | Some(Source::Pmu))));
        for source in [Source::Pmu, Source::Callgrind] {
            assert_eq!(Source::parse(source.name()), Some(source));
        }
        assert_eq!(Source::parse("cycles"), None);
    }
}
