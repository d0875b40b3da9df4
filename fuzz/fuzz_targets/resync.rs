//! Resynchronising after a seek: arbitrary bytes and framings. The first 16 bytes choose the
//! framing, the file offset and whether the bytes end the file; the rest is the window.
#![no_main]

use libfuzzer_sys::fuzz_target;
use md_shootout::capture::pcap::Header;
use md_shootout::capture::resync::{find_boundary, settled_boundary, Framing, Settled};
use nom::number::Endianness;

fuzz_target!(|data: &[u8]| {
    // Framing::read on the whole input: any result, no panic.
    let _ = Framing::read(data);
    let Some((head, bytes)) = data.split_first_chunk::<16>() else {
        return;
    };
    let word = |i: usize| u32::from_le_bytes([head[i], head[i + 1], head[i + 2], head[i + 3]]);
    let mode = head[0];
    let endian = if mode & 1 == 0 {
        Endianness::Little
    } else {
        Endianness::Big
    };
    let framing = if mode & 2 == 0 {
        Framing::Pcap {
            header: Header {
                endian,
                nanos: mode & 4 != 0,
                version_major: 2,
                version_minor: 4,
                snaplen: word(4),
                link_type: 1,
            },
            first_ts_sec: word(8),
        }
    } else {
        Framing::Pcapng {
            endian,
            interfaces: word(4) % 4,
        }
    };
    let at_eof = mode & 8 != 0;
    let offset = u64::from(word(12));
    if let Some(b) = find_boundary(bytes, offset, &framing, at_eof) {
        assert!(b < bytes.len());
        // The chain found from b is there from b itself: resyncing at the boundary keeps it.
        let again = find_boundary(&bytes[b..], offset + b as u64, &framing, at_eof);
        assert_eq!(again, Some(0));
    }
    // A probe (any prefix) settles only the answer the whole bytes give.
    let whole = find_boundary(bytes, offset, &framing, at_eof);
    // When the whole bytes do not end the file, a probe may be told their length.
    let last = (!at_eof).then_some(bytes.len());
    for end in [bytes.len() / 3, bytes.len() / 2, bytes.len() * 3 / 4] {
        for last in [None, last] {
            if let Settled::At(k) = settled_boundary(&bytes[..end], offset, &framing, false, last) {
                assert_eq!(Some(k), whole, "probe of {end} bytes, last {last:?}");
            }
        }
    }
    match settled_boundary(bytes, offset, &framing, at_eof, None) {
        Settled::At(k) => assert_eq!(Some(k), whole),
        Settled::NoRecord => assert!(at_eof && whole.is_none()),
        Settled::Widen => assert!(!at_eof),
    }
});
