//! What each format is, said once: a [`Descriptor`] per format, built from the consts its file
//! states on [`Format`] or [`WindowFormat`] and listed in the registries' order by
//! [`descriptors`]. Every question the house asks of a format by name (does it trust its
//! producer, is it lossy, is it timed only per window, which code path does its library run,
//! whose bytes does it write, which other language reads them) is answered here, so no code
//! outside a format's own files matches its name.

use std::sync::OnceLock;

use super::codec::{Documented, Format, Lossy};
use super::languages::OtherLanguages;
use super::window::{Packets, WindowFormat};

/// What a format's unit is: what the harness times and the report can say of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// One packet: encoded, decoded and timed alone ([`Format`]).
    Packet,
    /// A whole window of packets, one stream of columns ([`WindowFormat`]): timed only per
    /// window, no per-packet latency.
    Window,
}

/// One format, as every consumer outside its file sees it.
#[derive(Debug, Clone, Copy)]
pub struct Descriptor {
    /// Its `NAME`: CSV rows, the command line, the report.
    pub name: &'static str,
    pub unit: Unit,
    /// What its documentation says of it (schema, reading in place, validation).
    pub documented: Documented,
    /// `Some` for a format with no slot for some IEX fields.
    pub lossy: Option<Lossy>,
    /// The format whose bytes it writes, for one that writes another's with other code
    /// ([`Format::WRITES_BYTES_OF`]).
    pub writes_bytes_of: Option<&'static str>,
    pub other_languages: OtherLanguages,
    /// The code path its library picked in this build on this CPU ([`Format::code_path`]).
    pub code_path: Option<&'static str>,
}

impl Descriptor {
    /// The descriptor of the packet format `F`: its [`Packets`]' with its own unit and twin.
    pub fn of<F: Format>() -> Descriptor {
        Descriptor {
            unit: Unit::Packet,
            writes_bytes_of: F::WRITES_BYTES_OF,
            ..Descriptor::of_window::<Packets<F>>()
        }
    }

    /// The descriptor of the window format `W`.
    pub fn of_window<W: WindowFormat>() -> Descriptor {
        Descriptor {
            name: W::NAME,
            unit: Unit::Window,
            documented: W::DOCUMENTED,
            lossy: W::LOSSY,
            writes_bytes_of: None,
            other_languages: W::OTHER_LANGUAGES,
            code_path: W::code_path(),
        }
    }

    /// The decoder trusts its producer ([`Documented::trusts_producer`]).
    pub fn trusts_producer(&self) -> bool {
        self.documented.trusts_producer()
    }

    /// Timed only per window: no per-packet latency anywhere it is shown.
    pub fn per_window_only(&self) -> bool {
        self.unit == Unit::Window
    }
}

macro_rules! packet_descriptors {
    ($($module:ident: [$($name:ident: $F:ty),+ $(,)?]),* $(,)?) => {
        vec![$($(Descriptor::of::<$F>()),+),*]
    };
}

macro_rules! window_descriptors {
    ($($module:ident: [$($name:ident: $F:ty),+ $(,)?]),* $(,)?) => {
        vec![$($(Descriptor::of_window::<$F>()),+),*]
    };
}

/// Every format's descriptor: `for_each_format!`'s in order, then `for_each_window_format!`'s.
pub fn descriptors() -> &'static [Descriptor] {
    static ALL: OnceLock<Vec<Descriptor>> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut all = crate::for_each_format!(packet_descriptors);
        all.extend(crate::for_each_window_format!(window_descriptors));
        all
    })
}

/// The descriptor of the format named `name`; `None` for a name no format of this build has
/// (a row from another build).
pub fn descriptor(name: &str) -> Option<&'static Descriptor> {
    descriptors().iter().find(|d| d.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_every_writer_of_anothers_bytes_names_a_format_and_its_reader() {
        let all = descriptors();
        for (i, d) in all.iter().enumerate() {
            assert!(
                all[..i].iter().all(|e| e.name != d.name),
                "{} twice",
                d.name
            );
            if let Some(of) = d.writes_bytes_of {
                let of = descriptor(of).unwrap_or_else(|| panic!("{}: no format {of}", d.name));
                assert!(
                    of.writes_bytes_of.is_none(),
                    "{} -> {} -> …",
                    d.name,
                    of.name
                );
                assert_eq!(of.unit, d.unit, "{}", d.name);
                // One wire format, one reader.
                assert_eq!(of.other_languages, d.other_languages, "{}", d.name);
            }
        }
        assert!(descriptor("no-such-format").is_none());
    }

    /// A format that trusts its producer is its checked twin without the verifier: it writes
    /// the twin's bytes, and the twin reads them with its verifier.
    #[test]
    fn every_format_that_trusts_its_producer_writes_a_checked_formats_bytes() {
        let trusting: Vec<_> = descriptors()
            .iter()
            .filter(|d| d.trusts_producer())
            .collect();
        assert_eq!(
            trusting.len(),
            2,
            "flatbuffers-unverified and rkyv-unchecked"
        );
        for d in trusting {
            let twin = descriptor(d.writes_bytes_of.expect("a checked twin's bytes")).unwrap();
            assert_ne!(twin.name, d.name);
            assert!(!twin.trusts_producer(), "{}", twin.name);
        }
    }
}
