//! IEX Transport Protocol v1 and the DEEP 1.0 / TOPS 1.6 messages it carries.
//!
//! All IEX integers are little-endian. Parsing is zero-copy: segments and messages borrow the
//! capture buffer, symbols included. A segment is validated whole (lengths, counts, each known
//! message's minimum size) before any of its messages is handed out, so a caller sees either a
//! consistent segment or an error, never half of one.

pub mod message;
pub mod segment;
pub mod sequence;

pub use message::{decode, DecodeError};
pub use segment::{Segment, SegmentHeader};
pub use sequence::{SeqEvent, SequenceTracker};
