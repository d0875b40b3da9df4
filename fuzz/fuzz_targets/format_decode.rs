//! Every format's decode entry points fed arbitrary bytes: the first byte picks the format by its
//! position in the registry (so a new format is fuzzed without a new target, and, appended at
//! the end of the list, shifts no existing format's inputs; bytes past the list are skipped),
//! the rest is its buffer. The registry lists the packet formats, then the window formats
//! (`arrow`: the whole buffer is one window; its passes timed per unit are refused, an error,
//! and its window passes decode). arrow-ipc 60.1 panics on some corrupt streams; our decoder
//! catches that and refuses the bytes, with libfuzzer-sys's aborting panic hook skipped for the
//! panics it catches (`formats::arrow::quietly`), so such inputs are not crashes here: checked by
//! running this target (unsanitized build, 2026-11-27) on the input `formats::arrow`'s test
//! `corrupt_union_length_panics_in_arrow_ipc` finds, arrow-ipc's panic reached (a breakpoint on
//! `rust_panic` in `Buffer::slice_with_length`, reader.rs:210) and the run exiting 0. Any other
//! panic still aborts. The
//! measured paths (selective into the aggregation, complete into the checksum, per packet and
//! per window) and the decode into packets used by `--verify` all run; for
//! zero-copy formats they go through the validating entry points, as the runners do. A format
//! that trusts its producer (`flatbuffers-unverified`, `rkyv-unchecked`: undefined behaviour on
//! bytes it did not write) is skipped, as `Runner::load` refuses it foreign bytes. Runners are
//! built once and reused, as in a real run.
#![no_main]

use std::cell::RefCell;

use libfuzzer_sys::fuzz_target;
use md_shootout::formats::{Aggregate, Checksum};
use md_shootout::measure::runner::PassIo;
use md_shootout::measure::{registry, Runner, Timing, Workload};
use md_shootout::measure::clock::Timer;

thread_local! {
    static STATE: RefCell<(Vec<Box<dyn Runner>>, Timer)> =
        RefCell::new((registry(), Timer::calibrate()));
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, bytes)) = data.split_first() else {
        return;
    };
    STATE.with(|state| {
        let (runners, timer) = &mut *state.borrow_mut();
        let Some(runner) = runners.get_mut(usize::from(pick)) else {
            return;
        };
        if runner.trusts_producer() || runner.load(bytes).is_err() {
            return;
        }
        for timing in Timing::ALL {
            for workload in [Workload::Selective, Workload::Complete] {
                let (mut aggregate, mut checksum) = (Aggregate::new(), Checksum::default());
                let mut io = PassIo::new(&[], &mut aggregate, &mut checksum);
                let _ = runner.pass(workload, timing, &mut io, timer, &mut Vec::new());
            }
        }
        let _ = runner.decode_packets(&mut Vec::new());
    });
});
