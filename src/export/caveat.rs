//! What a reader must know about a format's row before setting it beside another, said the same
//! way wherever rows are shown (the run's tables, `shootout formats`, the report's tables,
//! verdict and charts): a mark after the name, a note that says once what the mark means, and
//! whether the verdict ranks the row. A row carries a set of them ([`Caveats`]): a lossy format
//! may trust its producer too. The run learns them from the registry ([`Caveats::of_format`],
//! the one place it asks); the report reads them back from the row's own columns
//! (`export::csv::Row::caveats`), so a CSV from another build is read as that build wrote it.

use crate::measure::stats::FormatResult;

/// One thing to know about a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caveat {
    /// Decodes without the format's verifier (`formats::unchecked`): sound only on its own bytes.
    TrustsProducer,
    /// Has no slot for some IEX fields (`Format::LOSSY`): not the others' work.
    Lossy,
    /// An A/A twin: another format's codec measured again under another name.
    Twin,
    /// A positive control: a twin with extra work planted in it.
    Control,
    /// Timed only per window (`formats::WindowFormat`): no per-unit latency.
    WindowOnly,
}

/// Why the verdict leaves a row out by default, and the `report` flag that ranks it anyway.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeftOut {
    pub flag: &'static str,
    /// The reason beside one format's name.
    pub why: &'static str,
    /// The sentence after the list of every format left out for it.
    pub note: &'static str,
}

impl Caveat {
    /// In the order their marks follow a name.
    pub const ALL: [Caveat; 5] = [
        Caveat::TrustsProducer,
        Caveat::Lossy,
        Caveat::Twin,
        Caveat::Control,
        Caveat::WindowOnly,
    ];

    /// The mark after the name wherever it is shown; none for a window format, whose dashes
    /// and note say it.
    pub fn mark(self) -> Option<&'static str> {
        match self {
            Caveat::TrustsProducer => Some("‡"),
            Caveat::Lossy => Some("§"),
            Caveat::Twin => Some("(A/A)"),
            Caveat::Control => Some("(+5% control)"),
            Caveat::WindowOnly => None,
        }
    }

    /// What the mark means, said once wherever it appears (for a window format, after its name).
    pub fn note(self) -> &'static str {
        match self {
            Caveat::TrustsProducer => {
                "‡ trusts its producer: decoded without the format's verifier (flatbuffers' \
                 root_unchecked, rkyv's access_unchecked), sound only on bytes its own encoder \
                 wrote, as in these runs; never on bytes from a network or a file"
            }
            Caveat::Lossy => {
                "§ lossy: has no slot for some IEX fields (`shootout formats` lists them); its \
                 every-field check covers what it carries (the source projected onto its \
                 records), its counts and aggregation are the source's; left out of the verdict \
                 unless report --lossy"
            }
            Caveat::Twin => {
                "(A/A) twin: the codec of the format named before .twin, measured again under \
                 another name as a copy of its own (its own timed loop, its own turn in the \
                 order, every check); listed after the ranked formats, never ranked: how far a \
                 twin is from its original is a difference this run cannot tell from none"
            }
            Caveat::Control => {
                "(+5% control): the codec of the format named before .plus5, measured again as \
                 a copy of its own fed its window with one packet in 20 repeated; never ranked: \
                 the report says whether the runs resolved the planted difference"
            }
            Caveat::WindowOnly => "a window format, timed only per window: no per-packet latency",
        }
    }

    /// The mark and what it is, in a few words: a chart's title, a legend.
    pub fn legend(self) -> &'static str {
        match self {
            Caveat::TrustsProducer => "‡ trusts its producer",
            Caveat::Lossy => "§ lossy",
            Caveat::Twin => "(A/A) twin",
            Caveat::Control => "(+5% control)",
            Caveat::WindowOnly => "no per-packet latency",
        }
    }

    /// Whether the verdict leaves the row out unless a flag asks for it; `None` where it ranks
    /// it (a window format, on what it has) or never does (twins and controls are not
    /// contenders: the report sets them apart by `twin_of`).
    pub fn left_out(self) -> Option<LeftOut> {
        match self {
            Caveat::TrustsProducer => Some(LeftOut {
                flag: "--trusted-producer",
                why: "trusts its producer: decodes without verifying; report --trusted-producer \
                      ranks it too",
                note: "each trusts its producer (decodes without verifying); report \
                       --trusted-producer ranks them too. What their verifiers cost: each \
                       section's table \"What verification costs\"",
            }),
            Caveat::Lossy => Some(LeftOut {
                flag: "--lossy",
                why: "lossy: does not carry every IEX field, so not the same work; report \
                      --lossy ranks it too",
                note: "lossy (does not carry every IEX field, so its work is not the others'; \
                       its checks cover what it carries); report --lossy ranks it too",
            }),
            _ => None,
        }
    }

    fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// The caveats of one row (or of every row of a format: [`Caveats::union`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Caveats(u8);

impl Caveats {
    pub fn with(self, c: Caveat) -> Caveats {
        Caveats(self.0 | c.bit())
    }

    /// `self` with `c` where `yes`.
    pub fn with_if(self, c: Caveat, yes: bool) -> Caveats {
        if yes {
            self.with(c)
        } else {
            self
        }
    }

    pub fn has(self, c: Caveat) -> bool {
        self.0 & c.bit() != 0
    }

    pub fn union(self, other: Caveats) -> Caveats {
        Caveats(self.0 | other.0)
    }

    /// Every caveat in the set, in [`Caveat::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = Caveat> {
        Caveat::ALL.into_iter().filter(move |c| self.has(*c))
    }

    /// `name` as shown: followed by each mark (`dbn §`, `x ‡ §`).
    pub fn shown(self, name: &str) -> String {
        self.iter()
            .filter_map(Caveat::mark)
            .fold(name.to_owned(), |s, mark| format!("{s} {mark}"))
    }

    /// The caveats of a row that trusts its producer, is lossy, is a copy of another format
    /// (`copy`: the extra work planted in it, 0 for an A/A twin) or is timed only per window,
    /// as each says.
    pub fn of(trusts_producer: bool, lossy: bool, copy: Option<f64>, window_only: bool) -> Caveats {
        Caveats::default()
            .with_if(Caveat::TrustsProducer, trusts_producer)
            .with_if(Caveat::Lossy, lossy)
            .with_if(Caveat::Twin, copy.is_some_and(|p| p <= 0.0))
            .with_if(Caveat::Control, copy.is_some_and(|p| p > 0.0))
            .with_if(Caveat::WindowOnly, window_only)
    }

    /// What this build's descriptor says of the format named `name`; a twin (`twin_of` its
    /// original, `planted` its extra work) trusts its producer or is lossy as its original is.
    pub fn of_format(name: &str, twin_of: Option<&str>, planted: Option<f64>) -> Caveats {
        let described = |n: &str| crate::formats::descriptor(n);
        let original = described(twin_of.unwrap_or(name));
        Caveats::of(
            original.is_some_and(|d| d.trusts_producer()),
            original.is_some_and(|d| d.lossy.is_some()),
            twin_of.map(|_| planted.unwrap_or(0.0)),
            described(name).is_some_and(|d| d.per_window_only()),
        )
    }

    /// [`Caveats::of_format`] of a format this run measured.
    pub fn of_result(f: &FormatResult) -> Caveats {
        Caveats::of_format(f.name, f.twin_of(), f.planted())
    }

    /// The notes of every caveat any of `sets` carries, each once, in [`Caveat::ALL`] order.
    pub fn notes(sets: impl IntoIterator<Item = Caveats>) -> impl Iterator<Item = Caveat> {
        sets.into_iter()
            .fold(Caveats::default(), Caveats::union)
            .iter()
    }
}

/// Why a format's per-unit latency cells are empty, as its row's `latency_note` says it.
pub fn no_latency(name: &str) -> String {
    format!("{name}: {}", Caveat::WindowOnly.note())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Several caveats at once are shown in one order; none leaves the name as it is.
    #[test]
    fn marks_follow_the_name_in_one_order() {
        let c = Caveats::default()
            .with(Caveat::Lossy)
            .with(Caveat::TrustsProducer)
            .with(Caveat::WindowOnly);
        assert_eq!(c.shown("a"), "a ‡ §");
        assert!(c.has(Caveat::WindowOnly) && !c.has(Caveat::Twin));
        assert_eq!(Caveats::default().shown("c"), "c");
        assert_eq!(
            no_latency("w"),
            "w: a window format, timed only per window: no per-packet latency"
        );
    }

    /// Only what trusts its producer and what is lossy is left out, each behind its own flag.
    #[test]
    fn left_out_unless_asked() {
        let flags: Vec<&str> = (Caveat::ALL.iter())
            .filter_map(|c| c.left_out())
            .map(|l| l.flag)
            .collect();
        assert_eq!(flags, ["--trusted-producer", "--lossy"]);
        let union = Caveats::notes([
            Caveats::default().with(Caveat::Lossy),
            Caveats::default().with(Caveat::TrustsProducer),
        ]);
        assert_eq!(
            union.collect::<Vec<_>>(),
            [Caveat::TrustsProducer, Caveat::Lossy]
        );
    }
}
