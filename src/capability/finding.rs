//! A capability cell: an answer that starts with `yes` or `no`, and what decided it.

use serde::{Deserialize, Serialize};

use crate::formats::Documented;

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

    /// `no: detail`, taken from a format's documentation `doc`, where it does not claim what `claims` asks
    /// (what the documentation disclaims, no measurement makes a yes); `None` where it does.
    pub fn disclaimed(
        doc: Documented,
        claims: fn(&Documented) -> bool,
        detail: &str,
    ) -> Option<Self> {
        (!claims(&doc)).then(|| Self::documented(false, detail, doc.source))
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
        is_yes(&self.answer)
    }
}

/// Whether an answer is a `yes` (`yes`, or `yes:` and a detail).
pub fn is_yes(answer: &str) -> bool {
    answer == "yes" || answer.starts_with("yes:")
}

#[cfg(test)]
impl Finding {
    /// Asserts that the answer says `words`.
    pub(crate) fn assert_says(&self, words: &str) {
        assert!(self.answer.contains(words), "{}", self.answer);
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
