//! Capture file writers: classic pcap (nanosecond magic) and pcapng, both little-endian with
//! Ethernet link type, as IEX HIST and tcpdump produce them.
//!
//! A record is written in two halves around the frame so the frame can be built straight into the
//! same buffer: [`CaptureKind::begin_record`] reserves the record header, [`CaptureKind::end_record`]
//! fills it in once the frame length is known and adds pcapng's padding and trailing length.

use crate::capture::link::ETHERNET;
use crate::capture::pcap::{MAGIC_NANOS, RECORD_HEADER_LEN};
use crate::capture::pcapng::{BYTE_ORDER_MAGIC, EPB_TYPE, IDB_TYPE, SHB_TYPE};
pub use crate::capture::CaptureKind;

/// Large enough for any IEX frame; IEX captures use 65535.
const SNAPLEN: u32 = 65535;
/// EPB: type, length, interface, ts high, ts low, captured, original.
const EPB_HEADER: usize = 28;

/// Writes each word little-endian over `out` from `at`, growing `out` where it ends first.
fn put(out: &mut Vec<u8>, at: usize, words: &[u32]) {
    let end = at + 4 * words.len();
    if out.len() < end {
        out.resize(end, 0);
    }
    for (field, w) in out[at..end].chunks_exact_mut(4).zip(words) {
        field.copy_from_slice(&w.to_le_bytes());
    }
}

impl CaptureKind {
    /// Appends the file header (pcap global header, or pcapng SHB + IDB). Every field is a
    /// little-endian `u32` or a pair of `u16`s, low first.
    pub fn file_header(self, out: &mut Vec<u8>) {
        let at = out.len();
        match self {
            // Version 2.4, thiszone and sigfigs 0.
            CaptureKind::Pcap => {
                let header = [MAGIC_NANOS, 2 | 4 << 16, 0, 0, SNAPLEN, ETHERNET];
                put(out, at, &header);
            }
            CaptureKind::Pcapng => {
                // Section Header Block: 28 bytes, version 1.0, no options, section length
                // unknown (-1).
                let shb = u32::from_le_bytes(SHB_TYPE);
                let shb = [shb, 28, BYTE_ORDER_MAGIC, 1, u32::MAX, u32::MAX, 28];
                put(out, at, &shb);
                // Interface Description Block (Ethernet, reserved 0): if_tsresol = 9 (10^-9 s:
                // option 9, length 1, value and padding), then opt_endofopt.
                let idb = [IDB_TYPE, 32, ETHERNET, SNAPLEN, 9 | 1 << 16, 9, 0, 32];
                put(out, at + 28, &idb);
            }
        }
    }

    /// Reserves the record header; returns where the record starts.
    pub fn begin_record(self, out: &mut Vec<u8>) -> usize {
        let start = out.len();
        match self {
            CaptureKind::Pcap => _ = crate::bytes::append::<RECORD_HEADER_LEN>(out),
            CaptureKind::Pcapng => _ = crate::bytes::append::<EPB_HEADER>(out),
        }
        start
    }

    /// Completes the record begun at `start`, whose frame runs to the end of `out`.
    /// `ts` is the capture time in ns since the epoch (negative times are clamped to 0).
    pub fn end_record(self, out: &mut Vec<u8>, start: usize, ts: i64) {
        let ts = ts.max(0) as u64;
        match self {
            CaptureKind::Pcap => {
                let len = (out.len() - start - RECORD_HEADER_LEN) as u32;
                let (sec, frac) = (ts / 1_000_000_000, ts % 1_000_000_000);
                put(out, start, &[sec as u32, frac as u32, len, len]);
            }
            CaptureKind::Pcapng => {
                let len = out.len() - start - EPB_HEADER;
                let pad = (4 - len % 4) % 4;
                out.extend_from_slice(&[0u8; 3][..pad]);
                let total = (EPB_HEADER + len + pad + 4) as u32;
                put(out, out.len(), &[total]);
                let (high, low, len) = ((ts >> 32) as u32, ts as u32, len as u32);
                // Interface 0.
                put(out, start, &[EPB_TYPE, total, 0, high, low, len, len]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u32le(b: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
    }

    /// The file headers' fields and every record's lengths are checked on generated days by
    /// tests/it's `gen::capture_is_spec_valid_and_matches_packet_view` (`records`); the
    /// timestamps there only as at or after the send time. Exactly, here.
    #[test]
    fn records_carry_the_capture_time() {
        let ts = 1_567_500_000_123_456_789;
        let mut v = Vec::new();
        CaptureKind::Pcap.file_header(&mut v);
        let s = CaptureKind::Pcap.begin_record(&mut v);
        v.extend_from_slice(&[7; 5]);
        CaptureKind::Pcap.end_record(&mut v, s, ts);
        let record = [24, 28, 32, 36].map(|at| u32le(&v, at));
        assert_eq!(record, [1_567_500_000, 123_456_789, 5, 5]);
        let mut v = Vec::new();
        let s = CaptureKind::Pcapng.begin_record(&mut v);
        CaptureKind::Pcapng.end_record(&mut v, s, ts);
        let (high, low) = (u32le(&v, s + 12), u32le(&v, s + 16));
        assert_eq!((u64::from(high) << 32) + u64::from(low), ts as u64);
        assert_eq!(v.len(), 32);
    }
}
