//! The Callgrind child of a run: the run's own options (its seed, windows and share included,
//! so the child times the very passes the run timed) once more under Callgrind, and the counts
//! it dumped attached to the run's formats.

use std::collections::HashMap;
use std::path::Path;

use super::{callgrind, Instructions, Source};
use crate::measure::args::RunArgs;
use crate::measure::config::Config;
use crate::measure::outcome::Outcome;
use crate::measure::workload::Workload;

/// The flag that makes `run` the child (hidden from `--help`).
pub const FLAG: &str = "--callgrind-child";

/// Counts `outcome`'s batch passes under Callgrind and attaches the counts to its formats.
pub fn count(
    file: &Path,
    config: &Config,
    lenient: bool,
    outcome: &mut Outcome,
) -> Result<(), super::Unavailable> {
    let mut args: Vec<std::ffi::OsString> = vec!["run".into(), file.into()];
    args.extend(RunArgs::of(config, lenient).to_args());
    args.push(FLAG.into());
    let counts = callgrind::count_in_child(&args)
        .map_err(|e| super::Unavailable(format!("--instructions callgrind: {e}")))?;
    attach(outcome, Source::Callgrind, &counts);
    Ok(())
}

/// Gives each format of `outcome` the counts read from Callgrind's dumps (by format name and
/// workload); a format the dumps do not name gets none.
fn attach(outcome: &mut Outcome, source: Source, counts: &HashMap<(String, Workload), u64>) {
    for f in &mut outcome.formats {
        let mut counted = Instructions::new(source);
        let mut any = false;
        for w in Workload::ALL {
            if let Some(&n) = counts.get(&(f.name.to_owned(), w)) {
                counted.count[w] = n;
                any = true;
            }
        }
        f.instructions = any.then_some(counted);
    }
}
