//! What rules a format in or out besides speed and size: whether its schema can evolve
//! ([`evolution`]), which other languages' reference implementations read its bytes
//! ([`cross_language`]), and the cells `shootout formats` prints from them. Each cell is a
//! [`Finding`]: an answer that starts with `yes` or `no`, and what decided it, so a reader can
//! rerun the check or follow the source.
//!
//! It sits above `measure` (zero-copy is judged from the measured allocations) and below
//! `export` and `report`, which print and weigh the findings.

pub mod assess;
pub mod cross_language;
pub mod evolution;
pub mod finding;
pub mod row;
pub mod validation;

pub use finding::Finding;
pub use row::{Requirement, Row};
