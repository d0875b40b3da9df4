//! What rules a format in or out besides speed and size: whether its schema can evolve
//! ([`evolution`]), which other languages' reference implementations read its bytes
//! ([`cross_language`]), and the cells `shootout formats` prints from them. Each cell is a
//! [`Finding`]: an answer that starts with `yes` or `no`, and what decided it, so a reader can
//! rerun the check or follow the source.
//!
//! It sits above `measure` (zero-copy is judged from the measured allocations) and below
//! `export` and `report`, which print and weigh the findings.

pub mod cross_language;
pub mod evolution;
pub mod row;
pub mod validation;

pub use row::{Requirement, Row};

use serde::{Deserialize, Serialize};

/// One answer about one format, and what decided it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// `yes` or `no`, then what happened (`no: the v1 reader refused the bytes: ...`).
    pub answer: String,
    /// The test, tool or document that decided it (`capnp decode (C++, capnproto 1.0.1)`,
    /// `capability::evolution::capnp`, a documentation link).
    pub decided_by: String,
    /// Measured by running a check, rather than taken from documentation.
    pub measured: bool,
}

impl Finding {
    /// A measured answer: `yes` when `ok`, else `no`, followed by `detail` when it is not empty.
    pub fn measured(ok: bool, detail: impl AsRef<str>, decided_by: impl Into<String>) -> Self {
        Self::new(ok, detail.as_ref(), decided_by.into(), true)
    }

    /// An answer taken from the format's documentation (`source` names it).
    pub fn documented(ok: bool, detail: impl AsRef<str>, source: impl Into<String>) -> Self {
        Self::new(ok, detail.as_ref(), source.into(), false)
    }

    fn new(ok: bool, detail: &str, decided_by: String, measured: bool) -> Self {
        let word = if ok { "yes" } else { "no" };
        let answer = if detail.is_empty() {
            word.to_string()
        } else {
            format!("{word}: {detail}")
        };
        Finding {
            answer,
            decided_by,
            measured,
        }
    }

    /// Whether the answer is `yes`.
    pub fn yes(&self) -> bool {
        row::is_yes(&self.answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_starts_with_yes_or_no_and_keeps_its_detail() {
        let f = Finding::measured(false, "the reader refused the bytes", "a test");
        assert_eq!(f.answer, "no: the reader refused the bytes");
        assert!(!f.yes());
        let f = Finding::documented(true, "", "https://capnproto.org/language.html");
        assert_eq!(f.answer, "yes");
        assert!(f.yes() && !f.measured);
        assert!(!Finding::measured(true, "", "x").answer.starts_with("no"));
        // `yesterday` is not a yes.
        let odd = Finding {
            answer: "yesterday".into(),
            decided_by: String::new(),
            measured: true,
        };
        assert!(!odd.yes());
    }
}
