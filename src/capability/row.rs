//! One format's capabilities as `shootout formats` prints them and `report --require` weighs
//! them ([`Row`]), and the requirements a team can state ([`Requirement`]).

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::evolution::FormatEvolution;
use super::finding::{is_yes, Finding};

/// A format's cells: answers that start with `yes` or `no`, the languages whose reference
/// implementations read its bytes exactly, and for each cell what decided it. Flat, so that a
/// JSON reader tests `row["evolution_forward"].startswith("yes")`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Row {
    pub name: String,
    /// A schema document and code generation.
    pub schema: String,
    /// Decoding reads in place: documented, and measured as no allocation.
    pub zero_copy: String,
    /// Decoding checks untrusted input.
    pub validates: String,
    /// A v1 reader reads v2 bytes exactly.
    pub evolution_forward: String,
    /// A v2 reader reads v1 bytes, with the new fields' defaults.
    pub evolution_backward: String,
    /// Languages other than Rust whose reference implementation read our bytes exactly.
    pub read_by: Vec<String>,
    /// What decided each cell, by cell name (`read_by`: every tool tried, with its answer).
    pub decided_by: BTreeMap<String, String>,
    /// Which cells were measured by running a check (the rest are documented).
    pub measured: BTreeMap<String, bool>,
    /// The format's own evolution, by its reference implementation, where the crate under test
    /// (the two cells above) says `no` to what the format's specification provides for; `null`
    /// elsewhere. Kept apart so that a reader tells the format's answer from the crate's.
    #[serde(default)]
    pub evolution_format: Option<FormatEvolution>,
    /// Which of its library's code paths the format ran where the library picks one by the
    /// build or the CPU (`Format::code_path`); absent for every other format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_path: Option<String>,
    /// For a lossy format (`Format::LOSSY`), every IEX field it does not carry; absent for
    /// every other format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lossy: Option<String>,
}

/// The cells of a [`Row`] that are findings, by name, in column order.
pub const CELLS: [&str; 5] = [
    "schema",
    "zero_copy",
    "validates",
    "evolution_forward",
    "evolution_backward",
];

impl Row {
    /// A row from its findings; `read_by` lists the languages that read the bytes exactly and
    /// `cross_language` each language tried, with its finding.
    pub fn new(
        name: &str,
        cells: [Finding; 5],
        read_by: Vec<String>,
        cross_language: &[(String, Finding)],
    ) -> Row {
        let mut decided_by = BTreeMap::new();
        let mut measured = BTreeMap::new();
        for (cell, f) in CELLS.iter().zip(&cells) {
            decided_by.insert(cell.to_string(), f.decided_by.clone());
            measured.insert(cell.to_string(), f.measured);
        }
        let tried: Vec<String> = cross_language
            .iter()
            .map(|(language, f)| format!("{language}: {} ({})", f.decided_by, f.answer))
            .collect();
        decided_by.insert("read_by".into(), tried.join("; "));
        measured.insert(
            "read_by".into(),
            cross_language.iter().any(|(_, f)| f.measured),
        );
        let [schema, zero_copy, validates, evolution_forward, evolution_backward] =
            cells.map(|f| f.answer);
        Row {
            name: name.to_string(),
            schema,
            zero_copy,
            validates,
            evolution_forward,
            evolution_backward,
            read_by,
            decided_by,
            measured,
            evolution_format: None,
            code_path: None,
            lossy: None,
        }
    }

    /// The row with the format's own evolution beside the crate's.
    pub fn with_evolution_format(mut self, format: Option<FormatEvolution>) -> Row {
        self.evolution_format = format;
        self
    }

    /// The format's finding for the evolution cell `cell` (`evolution_forward` or
    /// `evolution_backward`), where there is one.
    fn format_finding(&self, cell: &str) -> Option<&Finding> {
        let f = self.evolution_format.as_ref()?;
        match cell {
            "evolution_forward" => Some(&f.forward),
            "evolution_backward" => Some(&f.backward),
            _ => None,
        }
    }

    /// The cell `cell` in a word, `yes` or `no`, followed by the format's word where its
    /// reference implementation answers otherwise (`no (format yes)`).
    pub fn word(&self, cell: &str) -> String {
        let own = yes_no(self.answer(cell).unwrap_or("no"));
        match self.format_finding(cell) {
            Some(f) if yes_no(&f.answer) != own => format!("{own} (format {})", yes_no(&f.answer)),
            _ => own.to_owned(),
        }
    }

    /// The evolution cell `cell` for the format and for the crate, where the format has an
    /// answer of its own: `format yes (Python avro 1.12.2), apache-avro 0.22 no: why`.
    pub fn format_and_crate(&self, cell: &str) -> Option<String> {
        let found = self.format_finding(cell)?;
        let f = self.evolution_format.as_ref()?;
        let own = self.answer(cell).unwrap_or("no");
        let why = if is_yes(own) {
            String::new()
        } else {
            format!(": {}", f.crate_defect)
        };
        Some(format!(
            "format {} ({}), {} {}{why}",
            yes_no(&found.answer),
            f.reference,
            f.crate_under_test,
            yes_no(own)
        ))
    }

    /// The answer of the cell named `cell` (one of [`CELLS`]).
    pub fn answer(&self, cell: &str) -> Option<&str> {
        Some(match cell {
            "schema" => &self.schema,
            "zero_copy" => &self.zero_copy,
            "validates" => &self.validates,
            "evolution_forward" => &self.evolution_forward,
            "evolution_backward" => &self.evolution_backward,
            _ => return None,
        })
    }
}

/// `yes` or `no`, the first word of an answer.
fn yes_no(answer: &str) -> &'static str {
    if is_yes(answer) {
        "yes"
    } else {
        "no"
    }
}

/// A requirement a team states before any number (`report --require`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Requirement {
    /// A schema document with code generation.
    Schema,
    /// Schema evolution both ways.
    Evolution,
    /// Read exactly by at least one reference implementation in another language.
    CrossLanguage,
    /// Decoding reads in place without allocating.
    ZeroCopy,
    /// No allocation on any side (the run's measured allocations per unit are all 0).
    NoAlloc,
    /// Decoding checks untrusted input.
    Validated,
}

impl Requirement {
    /// Every requirement, in the order the report lists them.
    pub const ALL: [Requirement; 6] = [
        Requirement::Schema,
        Requirement::Evolution,
        Requirement::CrossLanguage,
        Requirement::ZeroCopy,
        Requirement::NoAlloc,
        Requirement::Validated,
    ];

    /// Its name on the command line.
    pub const fn name(self) -> &'static str {
        match self {
            Requirement::Schema => "schema",
            Requirement::Evolution => "evolution",
            Requirement::CrossLanguage => "cross-language",
            Requirement::ZeroCopy => "zero-copy",
            Requirement::NoAlloc => "no-alloc",
            Requirement::Validated => "validated",
        }
    }

    /// Why `row` fails this requirement, or `None` when it meets it. [`Requirement::NoAlloc`]
    /// is decided by the run's allocation columns, not by the row: `allocs` is the largest of
    /// the format's mean allocations per unit across sides and runs (`None`: not measured).
    pub fn unmet(self, row: &Row, allocs: Option<f64>) -> Option<String> {
        let cell = |name: &str, what: &str| {
            let answer = row.answer(name).unwrap_or("no");
            (!is_yes(answer)).then(|| format!("{what}: {answer}"))
        };
        match self {
            Requirement::Schema => cell("schema", "no schema"),
            Requirement::Evolution => {
                let evolution = |name: &str, what: &str| {
                    let format = row
                        .evolution_format
                        .as_ref()
                        .filter(|_| row.format_finding(name).is_some_and(Finding::yes));
                    let what = match format {
                        Some(f) => format!(
                            "{what} with {} (the format has it: {} says yes)",
                            f.crate_under_test, f.reference
                        ),
                        None => what.to_owned(),
                    };
                    cell(name, &what)
                };
                evolution("evolution_forward", "no forward evolution")
                    .or_else(|| evolution("evolution_backward", "no backward evolution"))
            }
            Requirement::CrossLanguage => row
                .read_by
                .is_empty()
                .then(|| "read by no other language".to_string()),
            Requirement::ZeroCopy => cell("zero_copy", "not zero-copy"),
            Requirement::NoAlloc => match allocs {
                Some(a) if a > 0.0 => Some(format!(
                    "allocates ({a:.2} allocations per unit on its busiest side)"
                )),
                Some(_) => None,
                None => Some("allocations not measured in these runs".into()),
            },
            Requirement::Validated => cell("validates", "does not validate"),
        }
    }
}

impl fmt::Display for Requirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Requirement {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Requirement::ALL
            .into_iter()
            .find(|r| r.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Requirement::ALL.iter().map(|r| r.name()).collect();
                format!("unknown requirement {s:?} (one of: {})", names.join(", "))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(yes: bool, read_by: &[&str]) -> Row {
        let f = |name: &str| Finding::measured(yes, name, "t");
        Row::new(
            "x",
            [
                f("s"),
                f("z"),
                f("v"),
                f("ef"),
                Finding::measured(true, "", "t"),
            ],
            read_by.iter().map(|s| s.to_string()).collect(),
            &[(
                "C++".into(),
                Finding::measured(!read_by.is_empty(), "", "tool"),
            )],
        )
    }

    #[test]
    fn requirements_parse_by_name_and_refuse_others() {
        for r in Requirement::ALL {
            assert_eq!(r.name().parse::<Requirement>(), Ok(r));
        }
        let err = "fast".parse::<Requirement>().unwrap_err();
        assert!(
            err.contains("\"fast\"") && err.contains("cross-language"),
            "{err}"
        );
    }

    #[test]
    fn each_requirement_names_the_cell_that_fails_it() {
        let no = row(false, &[]);
        assert_eq!(
            Requirement::Schema.unmet(&no, None).unwrap(),
            "no schema: no: s"
        );
        // Backward is yes in `row`; forward is the one that fails.
        assert_eq!(
            Requirement::Evolution.unmet(&no, None).unwrap(),
            "no forward evolution: no: ef"
        );
        assert_eq!(
            Requirement::CrossLanguage.unmet(&no, None).unwrap(),
            "read by no other language"
        );
        assert!(Requirement::NoAlloc
            .unmet(&no, Some(1.5))
            .unwrap()
            .contains("1.50 allocations"));
        assert_eq!(Requirement::NoAlloc.unmet(&no, Some(0.0)), None);
        assert!(Requirement::NoAlloc.unmet(&no, None).is_some());
        let yes = row(true, &["C++"]);
        for r in Requirement::ALL
            .into_iter()
            .filter(|&r| r != Requirement::NoAlloc)
        {
            assert_eq!(r.unmet(&yes, None), None, "{r}");
        }
    }

    /// The crate's and the format's answers, as the table and `--require` show them.
    fn with_format(forward: bool, backward: bool) -> Row {
        row(false, &[]).with_evolution_format(Some(FormatEvolution {
            reference: "Python avro 1.12.2".into(),
            crate_under_test: "apache-avro 0.22".into(),
            crate_defect: "by shape".into(),
            forward: Finding::measured(forward, "f", "ref"),
            backward: Finding::measured(backward, "b", "ref"),
        }))
    }

    /// Where they differ, `export::capabilities`' tests assert both (`no (format yes)`, `format
    /// yes (..), apache-avro 0.22 no: by shape`), and tests/it/decision.rs `--require`'s words.
    #[test]
    fn the_format_s_answer_shows_beside_the_crate_s_where_they_differ() {
        let r = with_format(true, true);
        // `row`: forward no, backward yes.
        assert_eq!(r.word("evolution_backward"), "yes");
        assert_eq!(r.word("schema"), "no");
        assert_eq!(
            r.format_and_crate("evolution_backward").unwrap(),
            "format yes (Python avro 1.12.2), apache-avro 0.22 yes"
        );
        assert_eq!(r.format_and_crate("schema"), None);
        assert_eq!(row(false, &[]).format_and_crate("evolution_forward"), None);
        assert_eq!(with_format(false, true).word("evolution_forward"), "no");
        assert_eq!(
            Requirement::Evolution
                .unmet(&with_format(false, true), None)
                .unwrap(),
            "no forward evolution: no: ef"
        );
        // In JSON, a field of its own; a row without one reads back from older files.
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["evolution_format"]["forward"]["answer"], "yes: f");
        assert_eq!(json["evolution_forward"], "no: ef");
        let mut old = serde_json::to_value(row(true, &[])).unwrap();
        old.as_object_mut().unwrap().remove("evolution_format");
        let back: Row = serde_json::from_value(old).unwrap();
        assert_eq!(back.evolution_format, None);
    }

    #[test]
    fn a_row_keeps_what_decided_each_cell() {
        let r = row(true, &["C++"]);
        assert_eq!(r.decided_by["schema"], "t");
        assert_eq!(r.decided_by["read_by"], "C++: tool (yes)");
        assert!(r.measured["evolution_backward"]);
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["evolution_forward"], "yes: ef");
        assert_eq!(json["read_by"][0], "C++");
    }
}
