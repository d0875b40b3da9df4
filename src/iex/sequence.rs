//! Sequence-number continuity per (channel, session): the only way to know a capture lost data.

use rustc_hash::FxHashMap;

use super::SegmentHeader;

/// What a segment's first sequence number says about continuity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeqEvent {
    /// The first segment seen for its (channel, session).
    First,
    InOrder,
    /// Messages `expected..got` never arrived.
    Gap {
        expected: u64,
        got: u64,
    },
    /// Starts before the next expected number: a retransmission or a duplicate segment.
    Duplicate {
        expected: u64,
        got: u64,
    },
}

/// Remembers the next expected sequence number of each stream.
#[derive(Debug, Default)]
pub struct SequenceTracker {
    next: FxHashMap<(u32, u32), u64>,
    /// The last stream seen, to skip the hash lookup on a one-stream capture.
    last: Option<((u32, u32), u64)>,
}

impl SequenceTracker {
    pub fn observe(&mut self, h: &SegmentHeader) -> SeqEvent {
        let key = (h.channel_id, h.session_id);
        let end = h.first_seq.saturating_add(u64::from(h.message_count));
        let expected = match self.last {
            Some((k, next)) if k == key => Some(next),
            Some((k, next)) => {
                self.next.insert(k, next);
                self.next.get(&key).copied()
            }
            None => self.next.get(&key).copied(),
        };
        let (event, next) = match expected {
            None => (SeqEvent::First, end),
            Some(expected) if h.first_seq == expected => (SeqEvent::InOrder, end),
            Some(expected) if h.first_seq > expected => (
                SeqEvent::Gap {
                    expected,
                    got: h.first_seq,
                },
                end,
            ),
            Some(expected) => (
                SeqEvent::Duplicate {
                    expected,
                    got: h.first_seq,
                },
                expected.max(end),
            ),
        };
        self.last = Some((key, next));
        event
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(channel: u32, session: u32, first_seq: u64, count: u16) -> SegmentHeader {
        SegmentHeader {
            version: 1,
            protocol_id: crate::iex::DEEP_PROTOCOL_ID,
            channel_id: channel,
            session_id: session,
            payload_len: 0,
            message_count: count,
            stream_offset: 0,
            first_seq,
            send_time: 0,
        }
    }

    #[test]
    fn detects_gaps_and_duplicates_per_stream() {
        let mut t = SequenceTracker::default();
        assert_eq!(t.observe(&header(1, 7, 1, 3)), SeqEvent::First);
        assert_eq!(t.observe(&header(1, 7, 4, 0)), SeqEvent::InOrder); // heartbeat
        assert_eq!(t.observe(&header(1, 7, 4, 2)), SeqEvent::InOrder);
        assert_eq!(t.observe(&header(2, 7, 100, 1)), SeqEvent::First);
        assert_eq!(
            t.observe(&header(1, 7, 9, 1)),
            SeqEvent::Gap {
                expected: 6,
                got: 9
            }
        );
        assert_eq!(
            t.observe(&header(1, 7, 9, 1)),
            SeqEvent::Duplicate {
                expected: 10,
                got: 9
            }
        );
        assert_eq!(t.observe(&header(2, 7, 101, 1)), SeqEvent::InOrder);
        assert_eq!(t.observe(&header(1, 7, 10, 1)), SeqEvent::InOrder);
        assert_eq!(t.observe(&header(1, 8, 10, 1)), SeqEvent::First);
    }
}
