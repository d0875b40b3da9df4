//! wincode and borsh: version 2 is [`v2::Wire`], derived like version 1's, written and read as
//! `formats::sequential` lays out a packet (a header, then the messages back to back). Neither
//! format has an evolution mechanism: a struct is its fields in order, with no names, tags or
//! lengths, so a reader of another version takes the bytes after the fields it knows for
//! whatever it expects next.

use super::harness::{both, Read2};
use super::v2;
use crate::capability::finding::Finding;
use crate::formats::sequential::{self, Sequential};
use crate::formats::Format;

/// A version 2 message, symbols as their 8 bytes.
type Message2 = v2::Wire<[u8; 8]>;

/// The version 2 writer of codec `F`: its header, then each v2 message.
pub(super) fn write<F: Sequential<Message2>>(p: &v2::MPacket, out: &mut Vec<u8>) {
    sequential::write::<F, _>(p.seq, p.send_time, p.messages.iter().copied(), out);
}

/// The version 2 reader of codec `F`: the header, then message by message (what it read before
/// an error is kept).
pub(super) fn read<F: Sequential<Message2>>(bytes: &[u8]) -> Read2 {
    let mut p = v2::MPacket::default();
    let used = sequential::read::<F, Message2, _>(
        bytes,
        &mut p,
        |p, seq, send_time| (p.seq, p.send_time) = (seq, send_time),
        |p, m| {
            p.messages.push(m);
            Ok(())
        },
    );
    (p, used.map_err(|e| e.to_string()))
}

/// Both directions for codec `F` (the v1 codec under test) against the same crate on the v2
/// types; `calls` names the crate's write and read calls, `note` why it answers so.
pub(super) fn check<F: Format + Sequential<Message2>>(
    module: &str,
    calls: (&str, &str),
    note: &str,
) -> (Finding, Finding) {
    both::<F>(module, calls, write::<F>, read::<F>, (note, note))
}
