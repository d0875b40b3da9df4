//! A window of parsed packets: the bounded batch every format is fed in turn.
//!
//! What one timed unit is depends on [`Unit`]: an IEX-TP packet as it arrived (the default), or
//! one IEX message, carried as a packet of that one message (its sequence number is the
//! packet's first plus its index; heartbeats, which carry no message, make no unit).
//!
//! Packets are owned (the capture buffer moves on while formats run) but their storage is reused
//! from window to window, so filling a window allocates nothing once it has been filled once.

use std::io::Read;

use crate::error::Result;
use crate::iex::MessageError;
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
}

impl Window {
    /// Replaces the window's content with the next units until it holds at least `max` (a
    /// packet's messages are never split across windows); returns how many.
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
                    Err(MessageError::Unknown(_)) => self.unknown += 1,
                    // Segments are validated before they get here; count rather than panic.
                    Err(_) => self.unknown += 1,
                }
            }
        }
        Ok(self.len)
    }

    /// Starts the next unit, reusing a packet's storage from an earlier window.
    fn next_unit(&mut self, seq: u64, send_time: i64) {
        if self.len == self.packets.len() {
            self.packets.push(Packet::default());
        }
        let packet = &mut self.packets[self.len];
        packet.seq = seq;
        packet.send_time = send_time;
        packet.messages.clear();
        self.len += 1;
    }

    pub fn packets(&self) -> &[Packet] {
        &self.packets[..self.len]
    }
}
