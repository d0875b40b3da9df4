//! A window of parsed packets: the bounded batch every format is fed in turn.
//!
//! Packets are owned (the capture buffer moves on while formats run) but their storage is reused
//! from window to window, so filling a window allocates nothing once it has been filled once.

use std::io::Read;

use crate::error::Result;
use crate::iex::MessageError;
use crate::model::{FeedsSeen, Packet};
use crate::stream::IexReader;

#[derive(Default)]
pub struct Window {
    packets: Vec<Packet>,
    len: usize,
    /// Messages in the current window.
    pub messages: u64,
    /// Messages of unknown type skipped while filling (no format carries them).
    pub unknown: u64,
    pub feeds: FeedsSeen,
}

impl Window {
    /// Replaces the window's content with up to `max` next packets; returns how many.
    pub fn fill<R: Read>(&mut self, reader: &mut IexReader<R>, max: usize) -> Result<usize> {
        self.len = 0;
        self.messages = 0;
        while self.len < max {
            let Some(item) = reader.next_segment()? else {
                break;
            };
            self.feeds.add(item.segment.feed);
            if self.len == self.packets.len() {
                self.packets.push(Packet::default());
            }
            let packet = &mut self.packets[self.len];
            packet.seq = item.segment.header.first_seq;
            packet.send_time = item.segment.header.send_time;
            packet.messages.clear();
            for message in item.segment.messages() {
                match message {
                    Ok(m) => packet.messages.push(m.to_owned()),
                    Err(MessageError::Unknown(_)) => self.unknown += 1,
                    // Segments are validated before they get here; count rather than panic.
                    Err(_) => self.unknown += 1,
                }
            }
            self.messages += packet.messages.len() as u64;
            self.len += 1;
        }
        Ok(self.len)
    }

    pub fn packets(&self) -> &[Packet] {
        &self.packets[..self.len]
    }
}
