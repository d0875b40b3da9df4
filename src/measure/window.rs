//! A window of parsed packets: the bounded batch every format is fed in turn.
//!
//! What one timed unit is depends on [`Unit`]: an IEX-TP packet as it arrived (the default), or
//! one IEX message, carried as a packet of that one message (its sequence number is the
//! packet's first plus its index; heartbeats, which carry no message, make no unit).
//!
//! Packets are owned (the capture buffer moves on while formats run). Each packet's messages are
//! allocated afresh in every window, in the order the packets arrive (the slots of packets are
//! reused): a positive control's copy of the window is cloned afresh the same way, slot by slot in
//! order (`measure::fed`; a clone's storage is its exact length where this one grew by pushes), so
//! the two lie in memory alike. Reusing each slot's messages, as before 2026-11-29, left every
//! slot the largest allocation any window had put there, the source's packets spread over far
//! more memory than a fresh copy's, and a control's encode per unit 0.86 times its original's on
//! DEEP10 where 1.05 was planted (its interval holding 1.05 in 4 of 10 benches; BENCHMARKS,
//! "part four"). The allocations are outside every timed pass.

use std::io::Read;

use crate::error::Result;
use crate::model::{FeedsSeen, Packet};
use crate::stream::IexReader;

/// What every format encodes, decodes and times as one sample.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Unit {
    /// One IEX-TP packet (segment), as a feed handler receives it.
    #[default]
    Packet,
    /// One IEX message, as a system that republishes or stores messages one by one handles it.
    Message,
}

impl Unit {
    /// As in the CSV's `unit` column and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Unit::Packet => "packet",
            Unit::Message => "message",
        }
    }
}

/// Where a window lies in the input, the same however the input is split (see
/// `stream::share`): its chunk, and its place among that chunk's windows. Everything a run decides
/// per window is decided from this, so that shares measure what one process would.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WindowId {
    pub chunk: u64,
    pub local: u64,
}

impl WindowId {
    /// The window's turn in designs that alternate (which timing, which pass goes first):
    /// consecutive windows of a chunk alternate, and so do the first windows of consecutive
    /// chunks.
    pub fn turn(self) -> u64 {
        self.chunk.wrapping_add(self.local)
    }

    /// Whether the window is one of a deterministic sample of about one window in `stride`,
    /// spread over the input (a hash of its place, not its index in a process's run).
    pub fn one_in(self, stride: u64) -> bool {
        let mut h = self.chunk.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ self.local;
        // splitmix64's finaliser.
        h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        h ^= h >> 31;
        h.is_multiple_of(stride.max(1))
    }
}

#[derive(Default)]
pub struct Window {
    packets: Vec<Packet>,
    len: usize,
    /// IEX-TP packets read into the current window (heartbeats included).
    pub segments: u64,
    /// Messages in the current window.
    pub messages: u64,
    /// Messages of unknown type skipped while filling (no format carries them).
    pub unknown: u64,
    pub feeds: FeedsSeen,
    /// The chunk every packet of the window lies in (a window never spans two).
    pub chunk: u64,
}

impl Window {
    /// Replaces the window's content with the next units until it holds at least `max` (a
    /// packet's messages are never split across windows) or the next packet lies in another
    /// chunk; returns how many (0 only at the end of the stream).
    pub fn fill<R: Read>(
        &mut self,
        reader: &mut IexReader<R>,
        max: usize,
        unit: Unit,
    ) -> Result<usize> {
        self.len = 0;
        self.messages = 0;
        self.segments = 0;
        while self.len < max {
            let Some(item) = reader.next_segment()? else {
                break;
            };
            if item.chunk != self.chunk || self.segments == 0 {
                if self.len > 0 {
                    // The next chunk's first segment opens the next window.
                    reader.hold();
                    break;
                }
                self.chunk = item.chunk;
            }
            self.segments += 1;
            self.feeds.add(item.segment.feed);
            let (seq, send_time) = (item.segment.header.first_seq, item.segment.header.send_time);
            if unit == Unit::Packet {
                self.next_unit(seq, send_time);
            }
            for (i, message) in item.segment.messages().enumerate() {
                match message {
                    Ok(m) => {
                        if unit == Unit::Message {
                            self.next_unit(seq + i as u64, send_time);
                        }
                        self.packets[self.len - 1].messages.push(m.to_owned());
                        self.messages += 1;
                    }
                    // An unknown type (segments are validated before): counted, never a panic.
                    Err(_) => self.unknown += 1,
                }
            }
        }
        Ok(self.len)
    }

    /// Starts the next unit in a packet slot of an earlier window, its messages allocated afresh.
    fn next_unit(&mut self, seq: u64, send_time: i64) {
        if self.len == self.packets.len() {
            self.packets.push(Packet::default());
        }
        let packet = &mut self.packets[self.len];
        packet.seq = seq;
        packet.send_time = send_time;
        packet.messages = Vec::new();
        self.len += 1;
    }

    pub fn packets(&self) -> &[Packet] {
        &self.packets[..self.len]
    }
}
