//! Capture file writers: classic pcap (nanosecond magic) and pcapng, both little-endian with
//! Ethernet link type, as IEX HIST and tcpdump produce them.
//!
//! A record is written in two halves around the frame so the frame can be built straight into the
//! same buffer: [`CaptureKind::begin_record`] reserves the record header, [`CaptureKind::end_record`]
//! fills it in once the frame length is known and adds pcapng's padding and trailing length.

pub use crate::capture::CaptureKind;

/// Link type 1: Ethernet.
pub const LINKTYPE_ETHERNET: u16 = 1;
/// Large enough for any IEX frame; IEX captures use 65535.
pub const SNAPLEN: u32 = 65535;
/// Classic pcap magic for nanosecond timestamps.
pub const PCAP_NS_MAGIC: u32 = 0xa1b2_3c4d;
pub const PCAPNG_SHB: u32 = 0x0a0d_0d0a;
pub const PCAPNG_IDB: u32 = 1;
pub const PCAPNG_EPB: u32 = 6;
pub const PCAPNG_BYTE_ORDER_MAGIC: u32 = 0x1a2b_3c4d;

const PCAP_RECORD_HEADER: usize = 16;
/// EPB: type, length, interface, ts high, ts low, captured, original.
const EPB_HEADER: usize = 28;

impl CaptureKind {
    /// Appends the file header (pcap global header, or pcapng SHB + IDB).
    pub fn file_header(self, out: &mut Vec<u8>) {
        match self {
            CaptureKind::Pcap => {
                out.extend_from_slice(&PCAP_NS_MAGIC.to_le_bytes());
                out.extend_from_slice(&2u16.to_le_bytes()); // version 2.4
                out.extend_from_slice(&4u16.to_le_bytes());
                out.extend_from_slice(&0i32.to_le_bytes()); // thiszone
                out.extend_from_slice(&0u32.to_le_bytes()); // sigfigs
                out.extend_from_slice(&SNAPLEN.to_le_bytes());
                out.extend_from_slice(&(LINKTYPE_ETHERNET as u32).to_le_bytes());
            }
            CaptureKind::Pcapng => {
                // Section Header Block: 28 bytes, no options, section length unknown (-1).
                out.extend_from_slice(&PCAPNG_SHB.to_le_bytes());
                out.extend_from_slice(&28u32.to_le_bytes());
                out.extend_from_slice(&PCAPNG_BYTE_ORDER_MAGIC.to_le_bytes());
                out.extend_from_slice(&1u16.to_le_bytes());
                out.extend_from_slice(&0u16.to_le_bytes());
                out.extend_from_slice(&(-1i64).to_le_bytes());
                out.extend_from_slice(&28u32.to_le_bytes());
                // Interface Description Block: if_tsresol = 9 (10^-9 s), then opt_endofopt.
                out.extend_from_slice(&PCAPNG_IDB.to_le_bytes());
                out.extend_from_slice(&32u32.to_le_bytes());
                out.extend_from_slice(&LINKTYPE_ETHERNET.to_le_bytes());
                out.extend_from_slice(&0u16.to_le_bytes());
                out.extend_from_slice(&SNAPLEN.to_le_bytes());
                out.extend_from_slice(&9u16.to_le_bytes()); // if_tsresol
                out.extend_from_slice(&1u16.to_le_bytes());
                out.extend_from_slice(&[9, 0, 0, 0]); // value + padding to 4
                out.extend_from_slice(&[0, 0, 0, 0]); // opt_endofopt
                out.extend_from_slice(&32u32.to_le_bytes());
            }
        }
    }

    /// Reserves the record header; returns where the record starts.
    pub fn begin_record(self, out: &mut Vec<u8>) -> usize {
        let start = out.len();
        match self {
            CaptureKind::Pcap => _ = crate::bytes::append::<PCAP_RECORD_HEADER>(out),
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
                let len = (out.len() - start - PCAP_RECORD_HEADER) as u32;
                let h = &mut out[start..start + PCAP_RECORD_HEADER];
                h[0..4].copy_from_slice(&((ts / 1_000_000_000) as u32).to_le_bytes());
                h[4..8].copy_from_slice(&((ts % 1_000_000_000) as u32).to_le_bytes());
                h[8..12].copy_from_slice(&len.to_le_bytes());
                h[12..16].copy_from_slice(&len.to_le_bytes());
            }
            CaptureKind::Pcapng => {
                let len = out.len() - start - EPB_HEADER;
                let pad = (4 - len % 4) % 4;
                out.extend_from_slice(&[0u8; 3][..pad]);
                let total = (EPB_HEADER + len + pad + 4) as u32;
                out.extend_from_slice(&total.to_le_bytes());
                let h = &mut out[start..start + EPB_HEADER];
                h[0..4].copy_from_slice(&PCAPNG_EPB.to_le_bytes());
                h[4..8].copy_from_slice(&total.to_le_bytes());
                h[8..12].copy_from_slice(&0u32.to_le_bytes()); // interface 0
                h[12..16].copy_from_slice(&((ts >> 32) as u32).to_le_bytes());
                h[16..20].copy_from_slice(&(ts as u32).to_le_bytes());
                h[20..24].copy_from_slice(&(len as u32).to_le_bytes());
                h[24..28].copy_from_slice(&(len as u32).to_le_bytes());
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

    #[test]
    fn pcap_header_and_record() {
        let mut v = Vec::new();
        CaptureKind::Pcap.file_header(&mut v);
        assert_eq!(v.len(), 24);
        assert_eq!(&v[0..4], &[0x4d, 0x3c, 0xb2, 0xa1]);
        assert_eq!(u32le(&v, 20), 1);
        let s = CaptureKind::Pcap.begin_record(&mut v);
        v.extend_from_slice(&[7; 5]);
        CaptureKind::Pcap.end_record(&mut v, s, 1_567_500_000_123_456_789);
        assert_eq!(u32le(&v, 24), 1_567_500_000);
        assert_eq!(u32le(&v, 28), 123_456_789);
        assert_eq!((u32le(&v, 32), u32le(&v, 36)), (5, 5));
        assert_eq!(v.len(), 24 + 16 + 5);
    }

    #[test]
    fn pcapng_blocks_have_consistent_lengths() {
        let mut v = Vec::new();
        CaptureKind::Pcapng.file_header(&mut v);
        assert_eq!(v.len(), 60);
        assert_eq!(&v[8..12], &[0x4d, 0x3c, 0x2b, 0x1a]);
        assert_eq!(&v[16..24], &[0xff; 8]);
        // IDB if_tsresol option.
        assert_eq!(&v[44..52], &[9, 0, 1, 0, 9, 0, 0, 0]);
        for len in [0usize, 1, 2, 3, 4, 5] {
            let s = CaptureKind::Pcapng.begin_record(&mut v);
            v.extend(std::iter::repeat_n(0xEE, len));
            CaptureKind::Pcapng.end_record(&mut v, s, (5i64 << 32) + 9);
            let total = u32le(&v, s + 4) as usize;
            assert_eq!(total % 4, 0);
            assert_eq!(s + total, v.len());
            assert_eq!(u32le(&v, v.len() - 4) as usize, total);
            assert_eq!(u32le(&v, s + 12), 5);
            assert_eq!(u32le(&v, s + 16), 9);
            assert_eq!(u32le(&v, s + 20) as usize, len);
        }
    }
}
