//! What a format whose unit is a whole window implements ([`WindowFormat`]): a columnar format
//! (Arrow IPC) writes a window of packets as one stream of columns, so no packet has bytes of its
//! own to time or decode alone. The harness times such a format only per window
//! (`measure::window_runner`), and refuses a per-packet pass of it rather than fake one.

use super::codec::{DecodeError, Documented, Sink, Visitor};
use super::languages::OtherLanguages;
use crate::model::{Message, Packet, Timestamp};

/// One encoding of a window of IEX packets as a single unit.
pub trait WindowFormat: Default + 'static {
    /// Stable id used in CSV rows and on the command line.
    const NAME: &'static str;

    /// What the format's documentation says of its schema, reading in place and validation.
    const DOCUMENTED: Documented;

    /// Which implementations outside Rust read its bytes ([`Format::OTHER_LANGUAGES`]).
    ///
    /// [`Format::OTHER_LANGUAGES`]: super::Format::OTHER_LANGUAGES
    const OTHER_LANGUAGES: OtherLanguages;

    /// Appends the encoding of `packets`, one unit, to `out` (a reused buffer: never cleared
    /// here) and returns how many messages it wrote (counted by the encoder, as
    /// [`Format::encode`](super::Format::encode) does).
    fn encode_window(&mut self, packets: &[Packet], out: &mut Vec<u8>) -> usize;

    /// Reads the window encoded in `bytes` (all of them: one unit) into `sink`, only the fields
    /// the aggregation needs, in packet order; returns how many packets it read.
    fn decode_window<K: Sink>(&mut self, bytes: &[u8], sink: &mut K) -> Result<usize, DecodeError>;

    /// Reads the window in `bytes` completely: every field of every message, handed to
    /// `visitor` in order, each packet's header before its messages; returns how many packets
    /// it read. The measured complete-decode workload.
    fn decode_window_all<V: Visitor>(
        &mut self,
        bytes: &[u8],
        visitor: &mut V,
    ) -> Result<usize, DecodeError>;

    /// [`WindowFormat::decode_window_all`] collected into packets appended to `out` (`--verify`,
    /// tests).
    fn decode_packets(&mut self, bytes: &[u8], out: &mut Vec<Packet>) -> Result<(), DecodeError> {
        let mut collect = Collect { out, started: 0 };
        collect.started = collect.out.len();
        self.decode_window_all(bytes, &mut collect).map(|_| ())
    }
}

/// Collects a complete decode's packets into a `Vec`: a packet header starts the next packet.
struct Collect<'a> {
    out: &'a mut Vec<Packet>,
    /// Packets of `out` before this decode's: a message is never appended to one of them.
    started: usize,
}

impl Visitor for Collect<'_> {
    fn packet(&mut self, seq: u64, send_time: Timestamp) {
        self.out.push(Packet {
            seq,
            send_time,
            messages: Vec::new(),
        });
    }

    fn message(&mut self, message: Message) {
        // A decoder hands a message over only after its packet's header (the arrow decoder
        // refuses a stream whose first row is a message); one that did not would lose it here,
        // and the comparison with the source would name the packet.
        if self.out.len() > self.started {
            if let Some(last) = self.out.last_mut() {
                last.messages.push(message);
            }
        }
    }
}
