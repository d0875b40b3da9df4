//! Sequence-number continuity per (channel, session): the only way to know a capture lost data.
//!
//! A stream whose sequence number starts again at 1 with new content has restarted (a recording
//! stitched from several, as IEX's own DEEP sample is): counting everything after it as a
//! duplicate would bury the real duplicates. A segment at 1 that is the same segment again (a
//! retransmission, an A/B copy) stays a duplicate: the segments a stream began with are
//! remembered by a fingerprint of their bytes.

use std::hash::Hasher;

use rustc_hash::{FxHashMap, FxHasher};

use super::segment::SegmentHeader;

/// Segments starting at sequence 1 remembered per stream (a heartbeat or two, then the first
/// messages): bounded so a hostile capture cannot grow the tracker.
const FIRST_SEGMENTS: usize = 8;

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
    /// Starts again at 1, with content the stream did not begin with: a new recording of the
    /// same (channel, session). Counting goes on from it.
    Restart {
        /// The number that was expected instead.
        expected: u64,
    },
}

/// Where one stream is.
#[derive(Debug, Clone, Default)]
struct Stream {
    next: u64,
    /// Fingerprints of the segments this stream (or its latest restart) began with at 1.
    first: Vec<u64>,
}

/// Remembers the next expected sequence number of each stream.
#[derive(Debug, Default)]
pub struct SequenceTracker {
    streams: FxHashMap<(u32, u32), Stream>,
    /// The last stream seen, kept out of the map to skip the hash lookup on a one-stream capture.
    last: Option<((u32, u32), Stream)>,
}

impl SequenceTracker {
    /// Classifies one segment; `payload` (its bytes after the header) is only looked at when
    /// the segment starts at sequence 1, to tell a restart from a duplicate.
    #[inline]
    pub fn observe(&mut self, h: &SegmentHeader, payload: &[u8]) -> SeqEvent {
        let key = (h.channel_id, h.session_id);
        let end = h.first_seq.saturating_add(u64::from(h.message_count));
        let fingerprint = (h.first_seq == 1).then(|| fingerprint(h, payload));
        match &mut self.last {
            Some((k, stream)) if *k == key => stream.observe(h.first_seq, end, fingerprint),
            _ => self.switch(key, end, h.first_seq, fingerprint),
        }
    }

    /// A segment of another stream than the last one: park the last in the map, fetch this one.
    #[cold]
    fn switch(
        &mut self,
        key: (u32, u32),
        end: u64,
        got: u64,
        fingerprint: Option<u64>,
    ) -> SeqEvent {
        if let Some((k, stream)) = self.last.take() {
            self.streams.insert(k, stream);
        }
        let (event, stream) = match self.streams.remove(&key) {
            Some(mut stream) => (stream.observe(got, end, fingerprint), stream),
            None => (
                SeqEvent::First,
                Stream {
                    next: end,
                    first: fingerprint.into_iter().collect(),
                },
            ),
        };
        self.last = Some((key, stream));
        event
    }
}

impl Stream {
    #[inline]
    fn observe(&mut self, got: u64, end: u64, fingerprint: Option<u64>) -> SeqEvent {
        let expected = self.next;
        let event = if got == expected {
            SeqEvent::InOrder
        } else if got > expected {
            SeqEvent::Gap { expected, got }
        } else if fingerprint.is_some_and(|f| !self.first.contains(&f)) {
            self.first.clear();
            SeqEvent::Restart { expected }
        } else {
            self.next = expected.max(end);
            return SeqEvent::Duplicate { expected, got };
        };
        self.next = end;
        if let Some(f) = fingerprint {
            if self.first.len() < FIRST_SEGMENTS && !self.first.contains(&f) {
                self.first.push(f);
            }
        }
        event
    }
}

/// A 64-bit hash of everything a copy of the same segment repeats: the header fields that
/// describe it and its messages' bytes.
fn fingerprint(h: &SegmentHeader, payload: &[u8]) -> u64 {
    let mut hasher = FxHasher::default();
    hasher.write_i64(h.send_time);
    hasher.write_u64(h.stream_offset);
    hasher.write_u16(h.message_count);
    hasher.write(payload);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use SeqEvent::{First, InOrder};

    fn gap(expected: u64, got: u64) -> SeqEvent {
        SeqEvent::Gap { expected, got }
    }

    fn duplicate(expected: u64, got: u64) -> SeqEvent {
        SeqEvent::Duplicate { expected, got }
    }

    fn restart(expected: u64) -> SeqEvent {
        SeqEvent::Restart { expected }
    }

    /// A segment (channel, session, first sequence number, message count, send time, payload)
    /// and the event it must be.
    type Step<'a> = (u32, u32, u64, u16, i64, &'a [u8], SeqEvent);

    /// Feeds one tracker each step's segment in turn.
    fn check(steps: &[Step]) {
        let mut t = SequenceTracker::default();
        for (i, &(channel_id, session_id, first_seq, count, send_time, payload, event)) in
            steps.iter().enumerate()
        {
            let h = SegmentHeader {
                version: 1,
                protocol_id: crate::iex::DEEP_PROTOCOL_ID,
                channel_id,
                session_id,
                payload_len: 0,
                message_count: count,
                stream_offset: 0,
                first_seq,
                send_time,
            };
            assert_eq!(t.observe(&h, payload), event, "step {i}");
        }
    }

    #[test]
    fn detects_gaps_and_duplicates_per_stream() {
        check(&[
            (1, 7, 1, 3, 0, b"", First),
            (1, 7, 4, 0, 0, b"", InOrder), // heartbeat
            (1, 7, 4, 2, 0, b"", InOrder),
            (2, 7, 100, 1, 0, b"", First),
            (1, 7, 9, 1, 0, b"", gap(6, 9)),
            (1, 7, 9, 1, 0, b"", duplicate(10, 9)),
            (2, 7, 101, 1, 0, b"", InOrder),
            (1, 7, 10, 1, 0, b"", InOrder),
            (1, 8, 10, 1, 0, b"", First),
        ]);
    }

    #[test]
    fn a_new_recording_from_1_is_a_restart_a_copy_of_its_start_a_duplicate() {
        check(&[
            // The first recording: a heartbeat at 1, then messages 1..=5.
            (1, 7, 1, 0, 10, b"", First),
            (1, 7, 1, 3, 11, b"abc", InOrder),
            (1, 7, 4, 2, 12, b"de", InOrder),
            // The same first segment again (a retransmission): a duplicate, and counting goes
            // on from 6. So is a copy of the heartbeat the stream began with.
            (1, 7, 1, 3, 11, b"abc", duplicate(6, 1)),
            (1, 7, 1, 0, 10, b"", duplicate(6, 1)),
            (1, 7, 6, 1, 13, b"f", InOrder),
            // A second recording: sequence 1 again, sent later, other messages.
            (1, 7, 1, 2, 500, b"xy", restart(7)),
            // Counting goes on from the restart: no run of duplicates behind it.
            (1, 7, 3, 4, 501, b"zzzz", InOrder),
            (1, 7, 7, 1, 502, b"w", InOrder),
            // Same bytes, different send time: not the same segment, a restart too.
            (1, 7, 1, 2, 900, b"xy", restart(8)),
            // A segment before the expected number that does not start at 1 stays a duplicate.
            (1, 7, 2, 1, 901, b"q", duplicate(3, 2)),
            // Other streams are untouched, and a stream's own restart does not leak into them.
            (2, 7, 1, 1, 5, b"a", First),
            (2, 7, 2, 1, 6, b"b", InOrder),
        ]);
    }
}
