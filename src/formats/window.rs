//! What a format whose unit is a whole window implements ([`WindowFormat`]): a columnar format
//! (Arrow IPC) writes a window of packets as one stream of columns, so no packet has bytes of its
//! own to time or decode alone. The harness times such a format only per window
//! (`measure::window_runner`), and refuses a per-packet pass of it rather than fake one.

use super::codec::{DecodeError, Documented, Format, Lossy, Sink, Visitor};
use super::languages::OtherLanguages;
use crate::model::{Message, Packet, Timestamp};

/// One encoding of a window of IEX packets as a single unit.
pub trait WindowFormat: Default + 'static {
    /// Stable id used in CSV rows and on the command line.
    const NAME: &'static str;

    /// What the format's documentation says of its schema, reading in place and validation.
    const DOCUMENTED: Documented;

    /// Which implementations outside Rust read its bytes ([`Format::OTHER_LANGUAGES`]).
    const OTHER_LANGUAGES: OtherLanguages;

    /// `Some` for a format with no slot for some IEX fields ([`Format::LOSSY`]).
    const LOSSY: Option<Lossy> = None;

    /// Which of its library's code paths it runs ([`Format::code_path`]).
    fn code_path() -> Option<&'static str> {
        None
    }

    /// Appends the encoding of `packets`, one unit, to `out` (a reused buffer: never cleared
    /// here) and returns how many messages it wrote (counted by the encoder, as
    /// [`Format::encode`] does).
    fn encode_window(&mut self, packets: &[Packet], out: &mut Vec<u8>) -> usize;

    /// Reads the window encoded in `bytes` (all of them: one unit) into `sink`, only the fields
    /// the aggregation needs, in packet order; returns how many packets it read.
    fn decode_window<K: Sink>(&mut self, bytes: &[u8], sink: &mut K) -> Result<usize, DecodeError>;

    /// Reads the window in `bytes` completely: every field of every message, handed to
    /// `v` in order, each packet's header before its messages; returns how many packets
    /// it read. The measured complete-decode workload.
    fn decode_window_all<V: Visitor>(
        &mut self,
        bytes: &[u8],
        v: &mut V,
    ) -> Result<usize, DecodeError>;

    /// [`WindowFormat::decode_window_all`] collected into packets appended to `out` (`--verify`,
    /// tests).
    fn decode_packets(&mut self, bytes: &[u8], out: &mut Vec<Packet>) -> Result<(), DecodeError> {
        let mut collect = Collect { out, started: 0 };
        collect.started = collect.out.len();
        self.decode_window_all(bytes, &mut collect).map(|_| ())
    }

    /// `packets` in the units the format writes, each self-contained: one window here, one
    /// packet each for a packet format ([`Packets`]). What a reader in another language is
    /// handed, and what the validation check cuts and corrupts.
    fn units(&mut self, packets: &[Packet]) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        self.encode_window(packets, &mut out);
        vec![out]
    }

    /// Reads one unit of [`WindowFormat::units`] completely; an error for bytes that are not
    /// one. A packet format reads the packet at the unit's start, as its consumers do, so a
    /// truncation it takes for a shorter packet is read, not refused by what follows.
    fn read_unit(&mut self, unit: &[u8]) -> Result<(), DecodeError> {
        self.decode_packets(unit, &mut Vec::new())
    }
}

/// A packet format seen as a window format: a window is its packets' encodings back to back.
/// The one seam through which the consumers of a format's units (the capability checks, the
/// other languages' readers) take both kinds; the timed loops never use it (`measure::runner`
/// times each packet of a packet format alone).
#[derive(Default)]
pub struct Packets<F>(pub F);

impl<F: Format> WindowFormat for Packets<F> {
    const NAME: &'static str = F::NAME;
    const DOCUMENTED: Documented = F::DOCUMENTED;
    const OTHER_LANGUAGES: OtherLanguages = F::OTHER_LANGUAGES;
    const LOSSY: Option<Lossy> = F::LOSSY;

    fn code_path() -> Option<&'static str> {
        F::code_path()
    }

    fn encode_window(&mut self, packets: &[Packet], out: &mut Vec<u8>) -> usize {
        packets.iter().map(|p| self.0.encode(p, out)).sum()
    }

    fn decode_window<K: Sink>(&mut self, bytes: &[u8], sink: &mut K) -> Result<usize, DecodeError> {
        walk(bytes, |rest| self.0.decode(rest, sink))
    }

    fn decode_window_all<V: Visitor>(
        &mut self,
        bytes: &[u8],
        v: &mut V,
    ) -> Result<usize, DecodeError> {
        walk(bytes, |rest| self.0.decode_all(rest, v))
    }

    fn units(&mut self, packets: &[Packet]) -> Vec<Vec<u8>> {
        packets
            .iter()
            .map(|p| {
                let mut out = Vec::new();
                self.0.encode(p, &mut out);
                out
            })
            .collect()
    }

    fn read_unit(&mut self, unit: &[u8]) -> Result<(), DecodeError> {
        self.0.decode_packet(unit).map(|_| ())
    }
}

/// Walks `bytes` packet by packet with `decode`, which returns the bytes each packet used; how
/// many packets it read. The timed passes (`measure::runner`) and [`Packets`] read a window so.
#[inline(always)]
pub fn walk(
    bytes: &[u8],
    mut decode: impl FnMut(&[u8]) -> Result<usize, DecodeError>,
) -> Result<usize, DecodeError> {
    let (mut pos, mut packets) = (0, 0);
    while pos < bytes.len() {
        let used = decode(&bytes[pos..])?;
        if used == 0 {
            return Err(DecodeError::Malformed("decoder used no bytes"));
        }
        pos += used;
        packets += 1;
    }
    if pos > bytes.len() {
        return Err(DecodeError::Malformed(
            "the decoder claimed more bytes than the buffer holds",
        ));
    }
    Ok(packets)
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
