//! Counting with the CPU's own counter (Linux `perf_event_open`, user space only, this thread):
//! on by default where the machine has hardware counters, since reading one costs three system
//! calls per pass, all outside the timed region.

use perf_event::events::Hardware;
use perf_event::{Builder, Counter};

/// The retired-instructions counter of this thread, off between passes.
pub struct Pmu {
    counter: Counter,
    /// The count after the last pass (the counter is never reset: a pass's count is the
    /// difference).
    last: u64,
}

impl Pmu {
    /// The counter, or why there is none (no hardware counters in this VM, `perf_event_paranoid`,
    /// another OS).
    pub fn open() -> std::io::Result<Pmu> {
        let counter = Builder::new(Hardware::INSTRUCTIONS)
            .exclude_kernel(true)
            .exclude_hv(true)
            .build()?;
        Ok(Pmu { counter, last: 0 })
    }

    /// `work`, and the user-space instructions it retired: the counter enabled right before
    /// and disabled right after. `None` when the kernel shared the counter with another event
    /// during the pass (multiplexed: its count is an estimate) or a read failed.
    pub fn count<R>(&mut self, work: impl FnOnce() -> R) -> (R, Option<u64>) {
        if self.counter.enable().is_err() {
            return (work(), None);
        }
        let out = work();
        let stopped = self.counter.disable();
        let read = self.counter.read_full();
        let (Ok(()), Ok(data)) = (stopped, read) else {
            return (out, None);
        };
        let whole = data.time_enabled() == data.time_running();
        let now = data.count();
        let n = now.saturating_sub(self.last);
        self.last = now;
        (out, whole.then_some(n))
    }
}
