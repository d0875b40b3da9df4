//! IEX Transport Protocol v1 and the DEEP 1.0 / TOPS 1.6 / DEEP+ 1.0 messages it carries.
//!
//! All IEX integers are little-endian. Parsing is zero-copy: segments and messages borrow the
//! capture buffer, symbols included. A segment is validated whole (lengths, counts, each known
//! message's minimum size) before any of its messages is handed out, so a caller sees either a
//! consistent segment or an error, never half of one.

pub mod book;
pub mod book_thread;
pub mod live_orders;
pub mod message;
pub mod segment;
pub mod sequence;

pub use message::{decode, MessageError};

use crate::model::Feed;

/// The UDP port IEX publishes its feeds on.
pub const UDP_PORT: u16 = 10378;
/// IEX-TP message protocol id of TOPS 1.6.
pub const TOPS_PROTOCOL_ID: u16 = 0x8003;
/// IEX-TP message protocol id of DEEP 1.0.
pub const DEEP_PROTOCOL_ID: u16 = 0x8004;
/// IEX-TP message protocol id of DEEP+ 1.0.
pub const DEEP_PLUS_PROTOCOL_ID: u16 = 0x8005;

impl Feed {
    /// The feed a segment's message protocol id names, if we read it.
    pub fn from_protocol_id(id: u16) -> Option<Feed> {
        match id {
            TOPS_PROTOCOL_ID => Some(Feed::Tops),
            DEEP_PROTOCOL_ID => Some(Feed::Deep),
            DEEP_PLUS_PROTOCOL_ID => Some(Feed::DeepPlus),
            _ => None,
        }
    }

    /// The message protocol id of this feed's segments.
    pub fn protocol_id(self) -> u16 {
        match self {
            Feed::Tops => TOPS_PROTOCOL_ID,
            Feed::Deep => DEEP_PROTOCOL_ID,
            Feed::DeepPlus => DEEP_PLUS_PROTOCOL_ID,
        }
    }
}
pub use segment::{Segment, SegmentHeader};
pub use sequence::{SeqEvent, SequenceTracker};
