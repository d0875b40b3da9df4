//! The 40-byte IEX-TP segment header and the `(length u16, message)` blocks after it.

use crate::bytes::array;
use nom::IResult;

use super::message::{decode, MessageError};
use crate::error::SegmentError;
use crate::model::{kind, Feed, Message, Symbol};

pub const HEADER_LEN: usize = 40;
pub const VERSION: u8 = 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SegmentHeader {
    pub version: u8,
    pub protocol_id: u16,
    pub channel_id: u32,
    pub session_id: u32,
    pub payload_len: u16,
    pub message_count: u16,
    /// Byte offset of this segment's payload in the session's stream.
    pub stream_offset: u64,
    pub first_seq: u64,
    /// Nanoseconds since the epoch.
    pub send_time: i64,
}

impl SegmentHeader {
    /// Appends the 40 header bytes (the reserved byte zero): the inverse of [`SegmentHeader::parse`],
    /// for the generator.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let b = crate::bytes::append::<HEADER_LEN>(out);
        b[0] = self.version;
        b[2..4].copy_from_slice(&self.protocol_id.to_le_bytes());
        b[4..8].copy_from_slice(&self.channel_id.to_le_bytes());
        b[8..12].copy_from_slice(&self.session_id.to_le_bytes());
        b[12..14].copy_from_slice(&self.payload_len.to_le_bytes());
        b[14..16].copy_from_slice(&self.message_count.to_le_bytes());
        b[16..24].copy_from_slice(&self.stream_offset.to_le_bytes());
        b[24..32].copy_from_slice(&self.first_seq.to_le_bytes());
        b[32..40].copy_from_slice(&self.send_time.to_le_bytes());
    }

    /// The header at the front of `i` (the inverse of [`SegmentHeader::encode`], at the same
    /// offsets), and what follows it.
    pub fn parse(i: &[u8]) -> IResult<&[u8], SegmentHeader> {
        let (rest, h) = array::<HEADER_LEN, _>(i)?;
        Ok((
            rest,
            SegmentHeader {
                version: h[0],
                protocol_id: u16::from_le_bytes(field(h, 2)),
                channel_id: u32::from_le_bytes(field(h, 4)),
                session_id: u32::from_le_bytes(field(h, 8)),
                payload_len: u16::from_le_bytes(field(h, 12)),
                message_count: u16::from_le_bytes(field(h, 14)),
                stream_offset: u64::from_le_bytes(field(h, 16)),
                first_seq: u64::from_le_bytes(field(h, 24)),
                send_time: i64::from_le_bytes(field(h, 32)),
            },
        ))
    }

    /// A heartbeat carries no messages.
    pub fn is_heartbeat(&self) -> bool {
        self.message_count == 0
    }
}

/// The `N` header bytes from `start`, for `from_le_bytes` (every offset a constant, so no
/// bounds check survives).
#[inline(always)]
fn field<const N: usize>(h: &[u8; HEADER_LEN], start: usize) -> [u8; N] {
    let mut bytes = [0; N];
    bytes.copy_from_slice(&h[start..start + N]);
    bytes
}

/// A validated IEX-TP segment, borrowing its payload.
#[derive(Debug, Clone, Copy)]
pub struct Segment<'a> {
    pub header: SegmentHeader,
    pub feed: Feed,
    payload: &'a [u8],
}

/// Does this UDP payload look like IEX-TP at all (version 1, a DEEP or TOPS protocol id)?
/// Datagrams that do not are someone else's traffic, to be counted and skipped.
pub fn feed_of(datagram: &[u8]) -> Option<Feed> {
    match datagram {
        [VERSION, _, lo, hi, ..] => Feed::from_protocol_id(u16::from_le_bytes([*lo, *hi])),
        _ => None,
    }
}

impl<'a> Segment<'a> {
    /// Parses and validates one UDP payload. `Ok(None)` if it is not IEX-TP (see [`feed_of`]).
    pub fn parse(datagram: &'a [u8]) -> Result<Option<Segment<'a>>, SegmentError> {
        let Some(feed) = feed_of(datagram) else {
            return Ok(None);
        };
        let Ok((payload, header)) = SegmentHeader::parse(datagram) else {
            return Err(SegmentError::ShortHeader {
                len: datagram.len(),
            });
        };
        if usize::from(header.payload_len) != payload.len() {
            return Err(SegmentError::PayloadLength {
                declared: usize::from(header.payload_len),
                present: payload.len(),
            });
        }
        validate_blocks(payload, header.message_count)?;
        Ok(Some(Segment::from_validated(header, feed, payload)))
    }

    /// Reassembles a segment that [`Segment::parse`] already accepted, without validating again.
    pub(crate) fn from_validated(header: SegmentHeader, feed: Feed, payload: &'a [u8]) -> Self {
        Segment {
            header,
            feed,
            payload,
        }
    }

    /// The raw message bytes, in order (type byte first).
    pub fn blocks(&self) -> Blocks<'a> {
        Blocks { rest: self.payload }
    }

    /// The decoded messages; unknown types come out as `Err(MessageError::Unknown(type))`.
    pub fn messages(
        &self,
    ) -> impl Iterator<Item = Result<Message<&'a Symbol>, MessageError>> + use<'a> {
        self.blocks().map(decode)
    }
}

/// Walks the `(length, message)` blocks once, checking they exactly fill the payload and that
/// every message of a known type is at least as long as the spec says.
fn validate_blocks(payload: &[u8], count: u16) -> Result<(), SegmentError> {
    let mut rest = payload;
    for index in 1..=count {
        let [lo, hi, tail @ ..] = rest else {
            return Err(SegmentError::LengthCut { index, count });
        };
        let len = usize::from(u16::from_le_bytes([*lo, *hi]));
        if len == 0 {
            return Err(SegmentError::EmptyMessage { index, count });
        }
        if len > tail.len() {
            return Err(SegmentError::MessagePastEnd {
                index,
                count,
                len,
                remaining: tail.len(),
            });
        }
        let kind = tail[0];
        if let Some(needed) = kind::wire_len(kind) {
            if len < needed {
                return Err(SegmentError::ShortMessage {
                    index,
                    kind: char::from(kind),
                    len,
                    needed,
                });
            }
        }
        rest = &tail[len..];
    }
    if !rest.is_empty() {
        return Err(SegmentError::TrailingBytes {
            count,
            trailing: rest.len(),
        });
    }
    Ok(())
}

/// Iterator over a validated segment's message blocks.
#[derive(Debug, Clone)]
pub struct Blocks<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for Blocks<'a> {
    type Item = &'a [u8];

    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        let [lo, hi, tail @ ..] = self.rest else {
            return None;
        };
        let len = usize::from(u16::from_le_bytes([*lo, *hi]));
        let message = tail.get(..len)?;
        self.rest = &tail[len..];
        Some(message)
    }
}
