//! A/A twins: a format's codec measured a second time, under its own name (`sbe.twin`), in the
//! same run. Two copies of the same code differ only by what the method cannot remove (their
//! place in the binary, their neighbours in the order, the noise of the run), so the report reads
//! the method's resolution from how far apart a format and its twin come out.
//!
//! A twin is a runner of its own: [`Twin<F, N>`] implements [`Format`] by delegating every call
//! (`#[inline(always)]`), so `FormatRunner<Twin<F, N>>` is another monomorphized copy of the
//! timed loop at an address of its own (`FormatRunner::pass` names its format in a way the
//! optimizer cannot merge away: LLVM's function merging would otherwise fold two identical copies
//! into one), and its timed decodes call copy `N` of the codec's decodes (`formats::Marked`),
//! machine code of their own, where the original calls copy 0: the A/A gap includes where the
//! codec's code landed, not only the loop's. `scripts/twin_copies.py` checks it on the release
//! binary. It takes its turn in each window's order like any format and gets every check the
//! original gets. Twins are not formats of the registry (`for_each_format!`): `shootout
//! formats`, the fuzz target and the conformance tests never see them.
//!
//! Beside each A/A twin (copy [`TWIN`]) runs a **positive control**, [`Control<F>`]
//! (`sbe.plus5`, copy [`CONTROL`]): the same code again, fed a window of more work. Its window
//! is its original's with every [`PLANTED_EVERY`]th unit repeated right after itself
//! (`measure::fed`), and its figures timed whole are divided by the original window's units, so
//! its time per unit is its original's times `1 + PLANTED` in expectation: the planted work is
//! units of the original's own, through the original's own code, warm as the original's are, by
//! construction. (An earlier control repeated the work out of line into receivers of its own, and
//! planted 4 to 30% where 5% was meant: the repeat's call and cold receivers cost more than the
//! unit.) Its checks are against its own window (`measure::shootout`, `Fed`): per-packet and
//! batch checksums, counts, aggregates and `--verify` of the window with the repeats. Its counts
//! (bytes, messages) are per unit of the source, equal to its original's; its latency histograms
//! hold its window's units, repeats included. Whether the report sees the +5% and whether its
//! interval contains it is the power and the calibration of the very runs it reports. A stream
//! format (`Format::STREAM`), whose repeated packet would be encoded otherwise the second time
//! (its bytes depend on the packets before), gets no control.

use crate::formats::{DecodeError, Documented, Format, Marked, Sink, Visitor};
use crate::model::Packet;

use super::config::RunError;
use super::runner::{runner, Runner};

/// What a twin's name adds to its original's.
pub const SUFFIX: &str = ".twin";

/// What a positive control's name adds to its original's.
pub const CONTROL_SUFFIX: &str = ".plus5";

/// A positive control's window repeats every this many'th unit of its chunk (`measure::fed`).
pub const PLANTED_EVERY: u32 = 20;

/// The extra work a positive control plants, as a fraction of its original's (the CSV's
/// `planted`): one unit in [`PLANTED_EVERY`] fed twice.
pub const PLANTED: f64 = 1.0 / PLANTED_EVERY as f64;

/// The formats twinned when `--twins` is not given (those of them the run measures; when it
/// measures neither, its first packet format): the fastest format, and one of middling speed.
pub const DEFAULT: [&str; 2] = ["raw", "sbe"];

/// Room for a twin's name, built at compile time.
const NAME_CAP: usize = 64;

/// `name` followed by `suffix`, in a fixed array (a const fn cannot build a `&str` of a
/// length that depends on a type parameter).
const fn joined(name: &str, suffix: &str) -> [u8; NAME_CAP] {
    let (a, b) = (name.as_bytes(), suffix.as_bytes());
    assert!(
        a.len() + b.len() <= NAME_CAP,
        "a format's name is too long for its twin's"
    );
    let (mut out, mut i) = ([0u8; NAME_CAP], 0);
    while i < a.len() + b.len() {
        out[i] = if i < a.len() { a[i] } else { b[i - a.len()] };
        i += 1;
    }
    out
}

/// The copy of the codec an A/A twin calls (its original calls copy 0).
pub const TWIN: u32 = 1;

/// The copy of the codec a positive control calls.
pub const CONTROL: u32 = 2;

/// What the name of copy `copy` adds to its original's.
const fn suffix(copy: u32) -> &'static str {
    match copy {
        TWIN => SUFFIX,
        _ => CONTROL_SUFFIX,
    }
}

/// The codec of `F` as its copy `N` (`formats::Marked`), under the name `<F::NAME>.twin` for
/// an A/A twin ([`TWIN`]) and `<F::NAME>.plus5` for a positive control ([`CONTROL`]). The two
/// run the same code: what tells a control apart is the window it is fed (see the module docs).
#[derive(Default)]
pub struct Twin<F, const N: u32>(F);

/// A positive control: the twin fed the window with its planted repeats.
pub type Control<F> = Twin<F, CONTROL>;

/// The first `len` bytes of `bytes` as a name (a const fn's `&str` from [`joined`]).
const fn name_of(bytes: &'static [u8; NAME_CAP], len: usize) -> &'static str {
    match core::str::from_utf8(bytes.split_at(len).0) {
        Ok(name) => name,
        Err(_) => panic!("a format's name is UTF-8, and so is its twin's"),
    }
}

impl<F: Format, const N: u32> Twin<F, N> {
    const BYTES: &'static [u8; NAME_CAP] = &joined(F::NAME, suffix(N));
}

impl<F: Format, const N: u32> Format for Twin<F, N> {
    const NAME: &'static str = name_of(Self::BYTES, F::NAME.len() + suffix(N).len());
    const DOCUMENTED: Documented = F::DOCUMENTED;
    const LOSSY: Option<crate::formats::Lossy> = F::LOSSY;
    const STREAM: bool = F::STREAM;
    const OTHER_LANGUAGES: crate::formats::OtherLanguages = F::OTHER_LANGUAGES;
    const WRITES_BYTES_OF: Option<&'static str> = F::WRITES_BYTES_OF;

    fn code_path() -> Option<&'static str> {
        F::code_path()
    }

    #[inline(always)]
    fn encode(&mut self, packet: &Packet, out: &mut Vec<u8>) -> usize {
        self.0.encode(packet, out)
    }

    #[inline(always)]
    fn decode<K: Sink>(&mut self, bytes: &[u8], sink: &mut K) -> Result<usize, DecodeError> {
        self.0.decode(bytes, sink)
    }

    #[inline(always)]
    fn decode_all<V: Visitor>(
        &mut self,
        bytes: &[u8],
        visitor: &mut V,
    ) -> Result<usize, DecodeError> {
        self.0.decode_all(bytes, visitor)
    }

    #[inline(always)]
    fn decode_packet(&mut self, bytes: &[u8]) -> Result<(Packet, usize), DecodeError> {
        self.0.decode_packet(bytes)
    }

    #[inline(always)]
    fn decode_copy<K: Sink>(&mut self, bytes: &[u8], sink: &mut K) -> Result<usize, DecodeError> {
        self.0.decode(bytes, &mut Marked::<K, N>(sink))
    }

    #[inline(always)]
    fn decode_all_copy<V: Visitor>(
        &mut self,
        bytes: &[u8],
        visitor: &mut V,
    ) -> Result<usize, DecodeError> {
        self.0.decode_all(bytes, &mut Marked::<V, N>(visitor))
    }
}

macro_rules! copy_runner {
    ($($module:ident: [$($name:ident: $F:ty),+ $(,)?]),* $(,)?) => {
        |original: &str, control: bool| -> Option<Box<dyn Runner>> {
            $($(if original == <$F as Format>::NAME {
                return match control {
                    false => Some(runner::<Twin<$F, TWIN>>()),
                    true if <$F as Format>::STREAM => None,
                    true => Some(runner::<Control<$F>>()),
                };
            })+)*
            None
        }
    };
}

/// A fresh runner of the twin of the format named `original`; `None` for a name no format has.
pub fn twin_of(original: &str) -> Option<Box<dyn Runner>> {
    (crate::for_each_format!(copy_runner))(original, false)
}

/// A fresh runner of the positive control of the format named `original`; `None` for a name no
/// format has, and for a stream format (see the module docs).
pub fn control_of(original: &str) -> Option<Box<dyn Runner>> {
    (crate::for_each_format!(copy_runner))(original, true)
}

macro_rules! copy_names {
    ($($module:ident: [$($name:ident: $F:ty),+ $(,)?]),* $(,)?) => {
        vec![$($((
            <$F as Format>::NAME,
            <Twin<$F, TWIN> as Format>::NAME,
            (!<$F as Format>::STREAM).then_some(<Control<$F> as Format>::NAME),
        )),+),*]
    };
}

/// Every packet format's name, its twin's and its control's (none for a stream format), in
/// `for_each_format!`'s order.
fn copies() -> Vec<(&'static str, &'static str, Option<&'static str>)> {
    crate::for_each_format!(copy_names)
}

/// Every name a runner can have: the formats' (packet formats, then window formats, as
/// `formats::names`), then the packet formats' twins, then their controls (a window format has
/// neither), each in registry order (the order of a run's rows).
pub fn runner_names() -> Vec<&'static str> {
    let copies = copies();
    copies
        .iter()
        .map(|c| c.0)
        .chain(crate::formats::window_names())
        .chain(copies.iter().map(|c| c.1))
        .chain(copies.iter().filter_map(|c| c.2))
        .collect()
}

/// The format a twin or a control named `name` measures again; `None` for any other name.
pub fn original(name: &str) -> Option<&'static str> {
    copies()
        .into_iter()
        .find(|c| c.1 == name || c.2 == Some(name))
        .map(|c| c.0)
}

/// The extra work planted in the runner named `name`, as a fraction of its original's: 0 for an
/// A/A twin, [`PLANTED`] for a positive control, `None` for a format.
pub fn planted(name: &str) -> Option<f64> {
    let control = copies().into_iter().any(|c| c.2 == Some(name));
    original(name).map(|_| if control { PLANTED } else { 0.0 })
}

/// The formats to twin among `selected` (the run's formats), in their order: `asked`
/// (`--twins`; empty for `none`), or by default those of [`DEFAULT`] the run measures. An asked
/// name that is no format, or a format the run does not measure, is refused.
pub fn chosen(
    asked: Option<&[String]>,
    selected: &[&'static str],
) -> Result<Vec<&'static str>, RunError> {
    let Some(asked) = asked else {
        let defaults: Vec<&'static str> = selected
            .iter()
            .copied()
            .filter(|s| DEFAULT.contains(s))
            .collect();
        if !defaults.is_empty() {
            return Ok(defaults);
        }
        // None of the defaults measured: the first packet format that is, so that every run
        // has its controls (`--formats wincode,borsh` twins wincode).
        let copies = copies();
        return Ok(selected
            .iter()
            .copied()
            .find(|s| copies.iter().any(|c| c.0 == *s))
            .into_iter()
            .collect());
    };
    let names = crate::formats::names();
    for name in asked {
        if !names.contains(&name.as_str()) {
            return Err(RunError::Config(format!(
                "--twins {name}: no format has that name; known: {}",
                names.join(", ")
            )));
        }
        if !selected.contains(&name.as_str()) {
            return Err(RunError::Config(format!(
                "--twins {name}: the run does not measure {name} (see --formats), so it has no \
                 twin to be"
            )));
        }
    }
    Ok(selected
        .iter()
        .copied()
        .filter(|s| asked.iter().any(|a| a == s))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::super::checks::tests::{Broken, NOTHING};
    use super::*;
    use crate::formats::{raw::Raw, sbe::Sbe, Aggregate, Checksum};

    #[test]
    fn a_twin_is_named_after_its_original_and_found_back() {
        assert_eq!(<Twin<Sbe, TWIN> as Format>::NAME, "sbe.twin");
        assert_eq!(<Twin<Raw, TWIN> as Format>::NAME, "raw.twin");
        assert_eq!(twin_of("sbe").unwrap().name(), "sbe.twin");
        assert!(twin_of("sbe.twin").is_none() && twin_of("nope").is_none());
        assert_eq!(original("sbe.twin"), Some("sbe"));
        assert_eq!(original("sbe"), None);
        assert_eq!(<Control<Sbe> as Format>::NAME, "sbe.plus5");
        assert_eq!(control_of("raw").unwrap().name(), "raw.plus5");
        assert_eq!(original("raw.plus5"), Some("raw"));
        assert_eq!(
            (planted("raw.twin"), planted("raw.plus5")),
            (Some(0.0), Some(PLANTED))
        );
        assert_eq!(planted("raw"), None);
        // A stream format's second encode of a packet would write other bytes: no control.
        assert!(control_of("dbn").is_none() && twin_of("dbn").is_some());
        let all = runner_names();
        // Every format, then a twin per packet format (a window format has none: `--twins
        // arrow` is refused), then a control per packet format that is not a stream format.
        let formats = crate::formats::names();
        let windows = crate::formats::window_names().len();
        let streams = copies().iter().filter(|c| c.2.is_none()).count();
        assert_eq!(streams, 1, "dbn");
        assert_eq!(all.len(), 3 * (formats.len() - windows) + windows - streams);
        assert_eq!(&all[..formats.len()], &formats[..]);
        // No twin's name is a format's.
        assert!(all[formats.len()..].iter().all(|t| !formats.contains(t)));
    }

    /// Through the receivers of copy 2 (`formats::Marked`): what they get is what the bare
    /// ones get. (`Broken<NOTHING>` is `raw` unbroken, counting its calls.)
    #[test]
    fn a_control_runs_its_originals_code_once_a_packet_and_its_receivers_get_the_same_values() {
        use crate::formats::{every_kind, full_datagram};
        use crate::model::kind;
        let packets: Vec<Packet> = (0..40)
            .map(|i| match i % 2 {
                0 => every_kind(),
                _ => full_datagram(kind::QUOTE_UPDATE),
            })
            .collect();
        let (mut control, mut raw) = (Control::<Broken<NOTHING>>::default(), Raw);
        let (mut mine, mut theirs) = (Vec::new(), Vec::new());
        for p in &packets {
            assert_eq!(control.encode(p, &mut mine), raw.encode(p, &mut theirs));
        }
        assert_eq!(mine, theirs, "a control writes its original's bytes");
        let read = |f: &mut dyn FnMut(&[u8], &mut Aggregate, &mut Checksum) -> usize| {
            let (mut agg, mut sum, mut at) = (Aggregate::new(), Checksum::default(), 0);
            while at < theirs.len() {
                at += f(&theirs[at..], &mut agg, &mut sum);
            }
            (agg, sum.value(), sum.messages())
        };
        let control_read = read(&mut |b, agg, sum| {
            let used = control.decode_copy(b, agg).unwrap();
            assert_eq!(control.decode_all_copy(b, sum).unwrap(), used);
            used
        });
        let original = read(&mut |b, agg, sum| {
            let used = raw.decode(b, agg).unwrap();
            raw.decode_all(b, sum).unwrap();
            used
        });
        assert_eq!(control_read, original);
        // One call per packet and workload: the planted work is in the window it is fed
        // (`measure::fed`), not in its code.
        assert_eq!(control.0.calls, [40; 3]);
        assert_eq!(PLANTED, 2.0 / 40.0);
    }

    #[test]
    fn the_default_twins_only_what_the_run_measures_and_a_bad_list_is_refused() {
        assert_eq!(
            chosen(None, &["json", "sbe", "raw"]).unwrap(),
            ["sbe", "raw"]
        );
        // Neither default measured: the first packet format (`json,cbor` twins json, see
        // tests/it/run.rs), so that a run has its controls; none for a window format alone.
        assert_eq!(chosen(None, &["arrow", "cbor"]).unwrap(), ["cbor"]);
        assert!(chosen(None, &["arrow"]).unwrap().is_empty());
        let asked = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            chosen(Some(&asked(&["raw", "json", "json"])), &["json", "raw"]).unwrap(),
            ["json", "raw"]
        );
        assert!(chosen(Some(&[]), &["raw"]).unwrap().is_empty());
        let e = chosen(Some(&asked(&["jsn"])), &["json"])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("--twins jsn: no format has that name; known: "),
            "{e}"
        );
        // A format the run does not measure, in one line: tests/it/run.rs,
        // `twins_can_be_chosen_and_a_twin_of_nothing_is_refused`.
    }
}
