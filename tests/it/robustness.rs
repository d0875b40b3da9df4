//! Property tests: no input, however broken, makes the parsers panic.

use crate::common::{deep_segments, pcap, pcapng_section, udp_frame, Order};
use md_shootout::iex::{decode, Segment};
use md_shootout::inspect::Tally;
use proptest::prelude::*;

/// Streams everything; the result does not matter, only that it returns.
fn consume(bytes: &[u8], lenient: bool) {
    let _ = Tally::from_reader(bytes, lenient);
}

fn valid_files() -> Vec<Vec<u8>> {
    let frames: Vec<_> = deep_segments().iter().map(|s| udp_frame(s, 1)).collect();
    vec![
        pcapng_section(Order::Little, &frames),
        pcapng_section(Order::Big, &frames),
        pcap(Order::Little, true, &frames),
        pcap(Order::Big, false, &frames),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        consume(&bytes, false);
        consume(&bytes, true);
        let _ = Segment::parse(&bytes).map(|s| s.map(|s| s.messages().count()));
        let _ = decode(&bytes);
    }

    #[test]
    fn mutated_valid_files_never_panic(
        which in 0usize..4,
        flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8),
        cut in any::<usize>(),
    ) {
        let mut file = valid_files().swap_remove(which);
        for (pos, xor) in flips {
            let i = pos % file.len();
            file[i] ^= xor;
        }
        file.truncate(cut % (file.len() + 1));
        consume(&file, false);
        consume(&file, true);
    }

    #[test]
    fn arbitrary_segments_behind_valid_headers_never_panic(
        payload in proptest::collection::vec(any::<u8>(), 0..300),
        count in any::<u16>(),
    ) {
        let mut seg = crate::common::segment(0x8004, 1, 0, &[]);
        seg[12..14].copy_from_slice(&(payload.len() as u16).to_le_bytes());
        seg[14..16].copy_from_slice(&count.to_le_bytes());
        seg.extend(&payload);
        if let Ok(Some(s)) = Segment::parse(&seg) {
            // A segment that validates must decode message by message without trouble.
            prop_assert_eq!(s.blocks().count(), usize::from(count));
            for m in s.messages() {
                let _ = m;
            }
        }
        consume(&pcapng_section(Order::Little, &[udp_frame(&seg, 0)]), false);
    }
}
