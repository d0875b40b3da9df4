//! Capture framing: classic pcap and pcapng, either byte order, read as a stream of frames.
//!
//! The format is chosen by the first four bytes, never by the file name ([`reader`]). Each
//! format's parsers live in their own file and take the byte order once, from the file or section
//! header; [`record`] holds what they share.

mod buffer;
pub mod pcap;
pub mod pcapng;
pub mod reader;
pub mod record;
pub mod resync;

pub use crate::error::TruncatedTail;
pub use reader::{CaptureKind, CaptureReader, FormatState, Frame};
pub use record::{link, MAX_FRAME, MAX_RECORD};
