//! The options of a measured run, each defined once. `run` and `bench` flatten [`SharedArgs`]
//! into their command lines (bench only changes a few defaults); [`RunArgs`] adds what a single
//! run takes; [`RunArgs::to_args`] turns a run's options back into the arguments a child
//! `shootout run` is started with (a `--jobs` worker, a bench run). A new option is a field
//! here and the code that uses it: `to_args` reads the fields generically, and the round-trip
//! test checks every field comes back.

use std::ffi::OsString;
use std::str::FromStr;

use clap::{Args, CommandFactory, FromArgMatches, Parser};

use super::instructions::{Counting, Want};
use super::schedule::Schedule;
use super::shootout::{Config, DEFAULT_WINDOW};
use super::stored::StoredMode;
use super::window::Unit;
use crate::stream::share::{parse_chunk, Chunking, Share, DEFAULT_CHUNK};

/// The options `run` and `bench` share: what a run measures and how it reads its input.
#[derive(Args, serde::Serialize, Debug, Clone, PartialEq)]
pub struct SharedArgs {
    /// Comma-separated format names (default: all).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub formats: Option<Vec<String>>,
    /// Decode every packet back into the model and compare it field by field with the source.
    #[arg(long)]
    pub verify: bool,
    /// Count and skip malformed frames and segments instead of stopping at the first, and
    /// read the whole packets of a capture cut short at its end (with a warning).
    #[arg(long)]
    pub lenient: bool,
    /// Which windows are compressed (zstd -3, zlib -6) for the size as stored: `sample` (the
    /// first 16 of the first chunk, then about one in 16; the rest estimated from them), `all`
    /// (exact, the slowest
    /// part of a long run), or `none` (the CSV's size columns stay empty). `bench` compresses
    /// in the first run of each input only: the bytes are the same in every run and label.
    #[arg(long, value_enum, default_value_t = StoredArg::Sample)]
    pub stored_size: StoredArg,
    /// The same as --stored-size none (kept for scripts written before it).
    #[arg(long, conflicts_with = "stored_size")]
    pub no_stored_size: bool,
    /// How windows are timed: `alternate` (one window per packet, the next whole, in turn;
    /// the first after the warm-up both ways) or `both` (every window both ways: twice the
    /// samples and twice the timed work). Every window is checked by every format either way.
    #[arg(long, value_enum, default_value_t = TimingArg::Alternate)]
    pub timing: TimingArg,
    /// Split the input across N worker processes by chunks (see --chunk), each pinned to a CPU
    /// of its own and measuring every format over its share; one merged result, the same counts,
    /// checks and sizes as one process's. At most the CPUs this process may use.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = positive::<usize>)]
    pub jobs: usize,
    /// Packets (units, see --unit) run through every format before times are recorded: the
    /// input's first, within its first chunk (see --chunk); a longer warm-up is refused.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub warmup: u64,
    /// Count the instructions of every batch pass (per unit in the CSV's ser_instr, de_instr
    /// and de_all_instr; where from in instr_source): `auto` with the CPU's counter where the
    /// machine has one (user space only, read outside the timed region, so free), `on` (the
    /// option alone) with it or else under Callgrind (the run's options once more under
    /// valgrind: the same passes, 20-100 times slower, nothing timed there), `pmu` or `callgrind`
    /// that source only, `off` never. `bench` counts under Callgrind in the first run of each
    /// input only: the count is the same in every run.
    #[arg(long, value_enum, value_name = "WHERE", num_args = 0..=1,
          default_value_t = InstructionsArg::Auto, default_missing_value = "on")]
    pub instructions: InstructionsArg,
}

/// A `shootout run`'s options for measuring: the shared ones and those only a single run takes
/// (`bench` runs the units as a matrix, and leaves the window and the seed to each run).
#[derive(Args, serde::Serialize, Debug, Clone, PartialEq)]
pub struct RunArgs {
    #[command(flatten)]
    #[serde(flatten)]
    pub shared: SharedArgs,
    /// Packets (units, see --unit) per window. A window never spans two chunks (see --chunk):
    /// each chunk's last window is shorter, and a window longer than the first chunk is refused.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_WINDOW)]
    pub window: usize,
    /// What one timed unit is: an IEX-TP packet, or one IEX message (a packet of one
    /// message, heartbeats skipped). --warmup and --window count units.
    #[arg(long, value_enum, default_value_t = UnitArg::Packet)]
    pub unit: UnitArg,
    /// Seed of the order the formats take their turns in each window (a balanced design: every
    /// format follows every other equally often); the CSV's order_seed. Default: a fresh one.
    #[arg(long, value_name = "SEED")]
    pub order_seed: Option<u64>,
    /// Formats measured twice more: as an A/A twin `<format>.twin` (the same codec from a copy
    /// of its own, placed in the order like any format; its CSV row says `twin_of`, `planted`
    /// 0) and as a positive control `<format>.plus5` (the same, with one packet in 20 done
    /// twice: `planted` 0.05). How far a twin lands from its original is the method's
    /// resolution; whether the control's +5% is seen, its power. A comma-separated list of
    /// formats the run measures, or `none`. Default: raw,sbe (those the run measures; else the
    /// run's first packet format).
    #[arg(long, value_name = "LIST|none")]
    pub twins: Option<String>,
    /// Bytes of capture stream per chunk (suffixes K, M, G): what `--jobs` and `--shard` deal
    /// out. A window never spans two chunks, so a run and its shares measure the same windows;
    /// runs to be compared or merged must use the same chunk.
    #[arg(long, value_name = "SIZE", default_value_t = DEFAULT_CHUNK, value_parser = parse_chunk)]
    pub chunk: u64,
    /// Measure share I of N of the input (every N-th chunk, starting at the I-th) and write a
    /// partial result with --part; `shootout merge` joins the N parts into one run's result.
    #[arg(long, value_name = "I/N", value_parser = shard_arg)]
    pub shard: Option<String>,
}

/// `--shard`'s value, checked, as given.
fn shard_arg(s: &str) -> Result<String, String> {
    s.parse::<Share>().map(|_| s.to_owned())
}

/// `run`'s options alone, to read `RunArgs` back from arguments.
#[derive(Parser)]
#[command(name = "run", no_binary_name = true)]
struct Alone {
    #[command(flatten)]
    args: RunArgs,
}

impl Default for RunArgs {
    /// `run`'s defaults: what [`RunArgs::to_args`] leaves out.
    fn default() -> Self {
        RunArgs::parse_args(Vec::<OsString>::new()).expect("every option of run has a default")
    }
}

impl RunArgs {
    /// Reads the options back from `args` (the options alone, no command or file).
    pub fn parse_args(args: Vec<OsString>) -> Result<RunArgs, clap::Error> {
        let matches = Alone::command().try_get_matches_from(args)?;
        Ok(Alone::from_arg_matches(&matches)?.args)
    }

    /// The options a run of `config` was given (its seed included), reading with `lenient`, in
    /// one process.
    pub fn of(config: &Config, lenient: bool) -> RunArgs {
        RunArgs {
            shared: SharedArgs {
                formats: config.formats.clone(),
                verify: config.verify,
                lenient,
                stored_size: config.stored.into(),
                no_stored_size: false,
                timing: config.timing.into(),
                jobs: 1,
                warmup: config.warmup,
                // A child counts only with the CPU's counter; Callgrind counts in a run of its own.
                instructions: match config.counting {
                    Some(Counting::Pmu) => InstructionsArg::Pmu,
                    _ => InstructionsArg::Off,
                },
            },
            window: config.window,
            unit: config.unit.into(),
            order_seed: Some(config.order_seed),
            twins: config.twins.as_ref().map(|t| match t.is_empty() {
                true => "none".to_owned(),
                false => t.join(","),
            }),
            chunk: config.chunking.bytes,
            shard: (!config.chunking.share.is_whole()).then(|| config.chunking.share.to_string()),
        }
    }

    /// What the run measures; without `--order-seed`, a fresh seed.
    pub fn config(&self) -> Config {
        Config {
            formats: self.shared.formats.clone(),
            verify: self.shared.verify,
            warmup: self.shared.warmup,
            window: self.window,
            // The older `--no-stored-size` is `--stored-size none`.
            stored: match self.shared.no_stored_size {
                true => StoredMode::None,
                false => self.shared.stored_size.into(),
            },
            unit: self.unit.into(),
            timing: self.shared.timing.into(),
            order_seed: self.order_seed.unwrap_or_else(|| fastrand::u64(..)),
            twins: self.twins.as_deref().map(twins_list),
            chunking: Chunking {
                bytes: self.chunk,
                // `--shard`, checked as it was parsed, or the whole input.
                share: (self.shard.as_deref())
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(Share::WHOLE),
            },
            // Resolved by the caller (`Want::resolve`): opening a counter is not an option's job.
            counting: None,
        }
    }

    /// The arguments that give a child `shootout run` these options: every option whose value
    /// differs from `run`'s default, under clap's own name for it, the value as the command
    /// line spells it (a list joined by its delimiter).
    pub fn to_args(&self) -> Vec<OsString> {
        let (values, defaults) = (fields(self), fields(&RunArgs::default()));
        let mut args = Vec::new();
        for arg in Alone::command().get_arguments() {
            let (id, Some(long)) = (arg.get_id().as_str(), arg.get_long()) else {
                continue;
            };
            let value = values.get(id).unwrap_or(&serde_json::Value::Null);
            if defaults.get(id) == Some(value) {
                continue;
            }
            let text = match value {
                serde_json::Value::Null | serde_json::Value::Bool(false) => continue,
                serde_json::Value::Bool(true) => None,
                serde_json::Value::Array(items) => {
                    let sep = arg.get_value_delimiter().unwrap_or(',').to_string();
                    Some(items.iter().map(scalar).collect::<Vec<_>>().join(&sep))
                }
                other => Some(scalar(other)),
            };
            args.push(format!("--{long}").into());
            args.extend(text.map(OsString::from));
        }
        args
    }
}

/// `--twins`' value as the formats it names: none for `none`.
fn twins_list(text: &str) -> Vec<String> {
    if text.trim() == "none" {
        return Vec::new();
    }
    text.split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The options by clap id (the field name), as JSON values.
fn fields(args: &RunArgs) -> serde_json::Map<String, serde_json::Value> {
    match serde_json::to_value(args) {
        Ok(serde_json::Value::Object(map)) => map,
        _ => unreachable!("a struct of plain fields serializes to an object"),
    }
}

/// A number, or a name without JSON's quotes.
fn scalar(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A number above zero (`--jobs`, `bench --runs`).
pub fn positive<T: FromStr + PartialOrd + Default>(text: &str) -> Result<T, String> {
    match text.parse::<T>() {
        Ok(n) if n > T::default() => Ok(n),
        _ => Err("needs a positive number".into()),
    }
}

/// A command-line value enum that mirrors a library enum variant for variant, with conversions
/// both ways: the library's types stay free of clap, and the names are clap's (kebab-case), also
/// when serialized for [`RunArgs::to_args`].
macro_rules! mirror {
    ($(#[$meta:meta])* $arg:ident <=> $lib:ident { $($variant:ident),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
        #[serde(rename_all = "kebab-case")]
        pub enum $arg {
            $($variant),+
        }

        impl From<$arg> for $lib {
            fn from(arg: $arg) -> $lib {
                match arg {
                    $($arg::$variant => $lib::$variant),+
                }
            }
        }

        impl From<$lib> for $arg {
            fn from(value: $lib) -> $arg {
                match value {
                    $($lib::$variant => $arg::$variant),+
                }
            }
        }
    };
}

mirror!(
    /// `--unit`.
    UnitArg <=> Unit { Packet, Message }
);
mirror!(
    /// `--timing`.
    TimingArg <=> Schedule { Alternate, Both }
);
mirror!(
    /// `--instructions`.
    InstructionsArg <=> Want { Auto, On, Pmu, Callgrind, Off }
);
mirror!(
    /// `--stored-size`.
    StoredArg <=> StoredMode { Sample, All, None }
);

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(args: &RunArgs) -> RunArgs {
        RunArgs::parse_args(args.to_args()).unwrap_or_else(|e| {
            panic!("{:?} do not parse: {e}", args.to_args());
        })
    }

    #[test]
    fn every_option_changed_or_alone_comes_back_the_same() {
        let changed = RunArgs {
            shared: SharedArgs {
                formats: Some(vec!["sbe".into(), "json".into()]),
                verify: true,
                lenient: true,
                stored_size: StoredArg::All,
                no_stored_size: false,
                timing: TimingArg::Both,
                jobs: 3,
                warmup: 1000,
                instructions: InstructionsArg::Callgrind,
            },
            window: 512,
            unit: UnitArg::Message,
            order_seed: Some(7),
            twins: Some("sbe".into()),
            chunk: 1 << 20,
            shard: Some("2/4".into()),
        };
        assert_eq!(round_trip(&changed), changed);
        // Spelled as a person would type them.
        let text: Vec<String> = changed
            .to_args()
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            text.join(" "),
            "--formats sbe,json --verify --lenient --stored-size all --timing both --jobs 3 \
             --warmup 1000 --instructions callgrind --window 512 --unit message --order-seed 7 \
             --twins sbe --chunk 1048576 --shard 2/4"
        );
        // The defaults give no arguments, and each option alone comes back the same.
        assert!(RunArgs::default().to_args().is_empty());
        assert_eq!(RunArgs::default().shared.warmup, 0);
        assert_eq!(RunArgs::default().window, DEFAULT_WINDOW);
        let shared = |change: fn(&mut SharedArgs)| {
            let mut args = RunArgs::default();
            change(&mut args.shared);
            args
        };
        let one_each = [
            shared(|s| s.no_stored_size = true),
            shared(|s| s.stored_size = StoredArg::None),
            shared(|s| s.formats = Some(vec!["raw".into()])),
            RunArgs {
                order_seed: Some(0),
                ..RunArgs::default()
            },
        ];
        for args in one_each {
            assert!(args.to_args().len() <= 2, "{:?}", args.to_args());
            assert_eq!(round_trip(&args), args);
        }
    }

    #[test]
    fn a_configuration_comes_back_from_its_arguments() {
        let config = Config {
            formats: Some(vec!["capnp".into(), "postcard".into()]),
            twins: Some(vec![]),
            verify: true,
            warmup: 12,
            window: 99,
            stored: StoredMode::None,
            unit: Unit::Message,
            timing: Schedule::Both,
            order_seed: u64::MAX,
            chunking: Chunking {
                bytes: 3 << 20,
                share: Share { index: 2, count: 3 },
            },
            counting: None,
        };
        let args = RunArgs::of(&config, true);
        let back = round_trip(&args);
        assert!(back.shared.lenient);
        assert_eq!(format!("{:?}", back.config()), format!("{config:?}"));
        // A child of a run counting with the CPU's counter counts with it; of any other, not
        // (Callgrind counts in a run of its own).
        for (counting, child) in [
            (Some(Counting::Pmu), InstructionsArg::Pmu),
            (Some(Counting::CallgrindChild), InstructionsArg::Off),
            (None, InstructionsArg::Off),
        ] {
            let config = Config {
                counting,
                ..config.clone()
            };
            assert_eq!(
                round_trip(&RunArgs::of(&config, false)).shared.instructions,
                child
            );
        }
        for twins in [None, Some(vec!["capnp".to_owned(), "postcard".into()])] {
            let config = Config {
                twins,
                ..config.clone()
            };
            let back = round_trip(&RunArgs::of(&config, false)).config();
            assert_eq!(back.twins, config.twins);
        }
    }

    #[test]
    fn positive_refuses_zero_and_words() {
        assert_eq!(positive::<usize>("4"), Ok(4));
        assert!(positive::<usize>("0").is_err());
        assert!(positive::<u32>("-1").is_err());
        assert!(positive::<u32>("two").is_err());
    }
}
