//! A/A twins: a format's codec measured a second time, under its own name (`sbe.twin`), in the
//! same run. Two copies of the same code differ only by what the method cannot remove (their
//! place in the binary, their neighbours in the order, the noise of the run), so the report reads
//! the method's resolution from how far apart a format and its twin come out.
//!
//! A twin is a runner of its own: [`Twin<F>`] implements [`Format`] by delegating every call
//! (`#[inline(always)]`), so `FormatRunner<Twin<F>>` is a second monomorphized copy of the timed
//! loop at an address of its own (`FormatRunner::pass` names its format in a way the optimizer
//! cannot merge away: LLVM's function merging would otherwise fold two identical copies into
//! one). It takes its turn in each window's order like any format and gets every check the
//! original gets. Twins are not formats of the registry (`for_each_format!`): `shootout formats`,
//! the fuzz target and the conformance tests never see them.

use crate::formats::{DecodeError, Documented, Format, Sink, Visitor};
use crate::model::Packet;

use super::config::RunError;
use super::runner::{runner, Runner};

/// What a twin's name adds to its original's.
pub const SUFFIX: &str = ".twin";

/// The formats twinned when `--twins` is not given (those of them the run measures): the
/// fastest format, and one of middling speed.
pub const DEFAULT: [&str; 2] = ["raw", "sbe"];

/// Room for a twin's name, built at compile time.
const NAME_CAP: usize = 64;

/// `name` followed by [`SUFFIX`], in a fixed array (a const fn cannot build a `&str` of a
/// length that depends on a type parameter).
const fn joined(name: &str) -> [u8; NAME_CAP] {
    let (a, b) = (name.as_bytes(), SUFFIX.as_bytes());
    assert!(
        a.len() + b.len() <= NAME_CAP,
        "a format's name is too long for its twin's"
    );
    let mut out = [0u8; NAME_CAP];
    let mut i = 0;
    while i < a.len() {
        out[i] = a[i];
        i += 1;
    }
    let mut j = 0;
    while j < b.len() {
        out[i + j] = b[j];
        j += 1;
    }
    out
}

/// The codec of `F` under the name `<F::NAME>.twin`.
#[derive(Default)]
pub struct Twin<F>(F);

impl<F: Format> Twin<F> {
    const BYTES: &'static [u8; NAME_CAP] = &joined(F::NAME);
}

impl<F: Format> Format for Twin<F> {
    const NAME: &'static str =
        match core::str::from_utf8(Self::BYTES.split_at(F::NAME.len() + SUFFIX.len()).0) {
            Ok(name) => name,
            Err(_) => panic!("a format's name is UTF-8, and so is its twin's"),
        };
    const DOCUMENTED: Documented = F::DOCUMENTED;
    const LOSSY: Option<crate::formats::Lossy> = F::LOSSY;
    const STREAM: bool = F::STREAM;

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
}

macro_rules! twin_runner {
    ($($module:ident: [$($name:ident: $F:ty),+ $(,)?]),* $(,)?) => {
        |original: &str| -> Option<Box<dyn Runner>> {
            $($(if original == <$F as Format>::NAME {
                return Some(runner::<Twin<$F>>());
            })+)*
            None
        }
    };
}

/// A fresh runner of the twin of the format named `original`; `None` for a name no format has.
pub fn twin_of(original: &str) -> Option<Box<dyn Runner>> {
    (crate::for_each_format!(twin_runner))(original)
}

macro_rules! twin_names {
    ($($module:ident: [$($name:ident: $F:ty),+ $(,)?]),* $(,)?) => {
        vec![$($((<$F as Format>::NAME, <Twin<$F> as Format>::NAME)),+),*]
    };
}

/// Every format's name and its twin's, in `for_each_format!`'s order.
pub fn pairs() -> Vec<(&'static str, &'static str)> {
    crate::for_each_format!(twin_names)
}

/// Every name a runner can have: the formats' (packet formats, then window formats, as
/// `formats::names`), then the packet formats' twins (a window format has none), each in
/// registry order (the order of a run's rows).
pub fn runner_names() -> Vec<&'static str> {
    let pairs = pairs();
    pairs
        .iter()
        .map(|p| p.0)
        .chain(crate::formats::window_names())
        .chain(pairs.iter().map(|p| p.1))
        .collect()
}

/// The format a twin named `name` measures again; `None` for any other name.
pub fn original(name: &str) -> Option<&'static str> {
    pairs().into_iter().find(|p| p.1 == name).map(|p| p.0)
}

/// The formats to twin among `selected` (the run's formats), in their order: `asked`
/// (`--twins`; empty for `none`), or by default those of [`DEFAULT`] the run measures. An asked
/// name that is no format, or a format the run does not measure, is refused.
pub fn chosen(
    asked: Option<&[String]>,
    selected: &[&'static str],
) -> Result<Vec<&'static str>, RunError> {
    let Some(asked) = asked else {
        return Ok(selected
            .iter()
            .copied()
            .filter(|s| DEFAULT.contains(s))
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
    use super::*;
    use crate::formats::{raw::Raw, sbe::Sbe};

    #[test]
    fn a_twin_is_named_after_its_original_and_found_back() {
        assert_eq!(<Twin<Sbe> as Format>::NAME, "sbe.twin");
        assert_eq!(<Twin<Raw> as Format>::NAME, "raw.twin");
        assert_eq!(twin_of("sbe").unwrap().name(), "sbe.twin");
        assert!(twin_of("sbe.twin").is_none() && twin_of("nope").is_none());
        assert_eq!(original("sbe.twin"), Some("sbe"));
        assert_eq!(original("sbe"), None);
        let all = runner_names();
        // Every format, then a twin per packet format (a window format has none: `--twins
        // arrow` is refused).
        let formats = crate::formats::names();
        let windows = crate::formats::window_names().len();
        assert_eq!(all.len(), 2 * formats.len() - windows);
        assert_eq!(&all[..formats.len()], &formats[..]);
        // No twin's name is a format's.
        assert!(all[formats.len()..].iter().all(|t| !formats.contains(t)));
    }

    #[test]
    fn the_default_twins_only_what_the_run_measures_and_a_bad_list_is_refused() {
        assert_eq!(
            chosen(None, &["json", "sbe", "raw"]).unwrap(),
            ["sbe", "raw"]
        );
        assert_eq!(chosen(None, &["json"]).unwrap(), Vec::<&str>::new());
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
        let e = chosen(Some(&asked(&["sbe"])), &["json"])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("--twins sbe: the run does not measure sbe"),
            "{e}"
        );
        assert_eq!(e.lines().count(), 1);
    }
}
