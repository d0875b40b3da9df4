//! pcap and pcapng fixtures in every byte order and variant, built here from the spec layouts,
//! must all decode to the same IEX messages.

use crate::common::{deep_segments, pcap, pcapng_section, udp_frame, Order};
use md_shootout::capture::{CaptureKind, CaptureReader};
use md_shootout::error::Error;
use md_shootout::model::{Message, Symbol};
use md_shootout::stream::IexReader;

/// Every message of every segment, owned, with the segment's first sequence number.
fn messages(file: &[u8]) -> Vec<(u64, Vec<Message<Symbol>>)> {
    let mut reader = IexReader::new(file, false).unwrap();
    let mut out = Vec::new();
    while let Some(item) = reader.next_segment().unwrap() {
        let msgs = item
            .segment
            .messages()
            .map(|m| m.unwrap().to_owned())
            .collect();
        out.push((item.segment.header.first_seq, msgs));
    }
    out
}

fn frames(vlan_tags: usize) -> Vec<Vec<u8>> {
    deep_segments()
        .iter()
        .map(|s| udp_frame(s, vlan_tags))
        .collect()
}

#[test]
fn every_capture_variant_yields_the_same_messages() {
    let reference = messages(&pcap(Order::Little, false, &frames(0)));
    assert_eq!(reference.len(), 4);
    assert_eq!(
        reference.iter().map(|(_, m)| m.len()).collect::<Vec<_>>(),
        vec![2, 3, 0, 1]
    );
    assert_eq!(reference[1].1[2].kind(), b'T');

    let mut two_sections = pcapng_section(Order::Little, &frames(0)[..2]);
    two_sections.extend(pcapng_section(Order::Big, &frames(1)[2..]));
    let variants = [
        ("pcap le us", pcap(Order::Little, false, &frames(0))),
        ("pcap be us", pcap(Order::Big, false, &frames(0))),
        ("pcap le ns", pcap(Order::Little, true, &frames(0))),
        ("pcap be ns", pcap(Order::Big, true, &frames(0))),
        ("pcapng le", pcapng_section(Order::Little, &frames(0))),
        ("pcapng be", pcapng_section(Order::Big, &frames(0))),
        ("pcapng vlan", pcapng_section(Order::Little, &frames(1))),
        ("pcapng qinq", pcapng_section(Order::Big, &frames(2))),
        ("pcapng two sections, both orders", two_sections),
    ];
    for (name, file) in variants {
        assert_eq!(messages(&file), reference, "{name}");
    }
}

#[test]
fn timestamps_follow_the_capture_units() {
    let fr = frames(0);
    let mut us = CaptureReader::new(std::io::Cursor::new(pcap(Order::Big, false, &fr))).unwrap();
    assert_eq!(us.kind(), CaptureKind::Pcap);
    let f = us.next_frame().unwrap().unwrap();
    assert_eq!(f.timestamp_ns, 1_567_500_000_000_123_000);
    assert_eq!((f.number, f.offset, f.link_type), (1, 24, 1));
    let mut ns = CaptureReader::new(std::io::Cursor::new(pcap(Order::Little, true, &fr))).unwrap();
    assert_eq!(
        ns.next_frame().unwrap().unwrap().timestamp_ns,
        1_567_500_000_000_000_123
    );
    let mut ng = CaptureReader::new(std::io::Cursor::new(pcapng_section(Order::Big, &fr))).unwrap();
    assert_eq!(ng.kind(), CaptureKind::Pcapng);
    let f = ng.next_frame().unwrap().unwrap();
    assert_eq!(f.timestamp_ns, 1_567_500_000_000_000_000);
    assert_eq!(f.data, &fr[0][..]);
}

#[test]
fn simple_packet_blocks_and_non_iex_frames() {
    let segs = deep_segments();
    let mut file = crate::common::shb(Order::Little);
    file.extend(crate::common::idb(Order::Little));
    file.extend(crate::common::spb(Order::Little, &udp_frame(&segs[0], 0)));
    // ARP, a UDP datagram of someone else's, then a real segment.
    let mut arp = udp_frame(&segs[0], 0);
    arp[12..14].copy_from_slice(&[0x08, 0x06]);
    file.extend(crate::common::epb(Order::Little, 1, &arp));
    file.extend(crate::common::epb(
        Order::Little,
        2,
        &udp_frame(b"not iex at all", 0),
    ));
    file.extend(crate::common::epb(
        Order::Little,
        3,
        &udp_frame(&segs[1], 0),
    ));
    let mut reader = IexReader::new(&file[..], false).unwrap();
    let mut seqs = Vec::new();
    while let Some(item) = reader.next_segment().unwrap() {
        seqs.push(item.segment.header.first_seq);
    }
    assert_eq!(seqs, vec![1, 3]);
    assert_eq!(reader.frames(), 4);
    assert_eq!(reader.skipped().non_ipv4, 1);
    assert_eq!(reader.skipped().non_iex, 1);
}

fn first_error(file: &[u8]) -> Error {
    let mut reader = match IexReader::new(file, false) {
        Ok(r) => r,
        Err(e) => return e,
    };
    loop {
        match reader.next_segment() {
            Ok(Some(_)) => {}
            Ok(None) => panic!("expected an error"),
            Err(e) => return e,
        }
    }
}

#[test]
fn block_length_mismatch_and_bad_byte_order_magic() {
    let good = pcapng_section(Order::Little, &frames(0));
    // Trailing length of the first EPB (offset: SHB 28 + IDB 32 + NRB 16 = 76).
    let epb_len = u32::from_le_bytes(good[80..84].try_into().unwrap()) as usize;
    let mut bad = good.clone();
    bad[76 + epb_len - 4] ^= 0x04;
    let e = first_error(&bad);
    assert!(
        e.to_string().contains("at its start but") && e.to_string().contains("byte 76"),
        "{e}"
    );
    let mut magic = good.clone();
    magic[8] = 0;
    assert!(first_error(&magic).to_string().contains("byte-order magic"));
}

#[test]
fn huge_lengths_are_refused_without_allocating() {
    let mut file = pcapng_section(Order::Little, &frames(0));
    // The first EPB claims 4 GB.
    file[80..84].copy_from_slice(&0xffff_fff0u32.to_le_bytes());
    assert!(matches!(first_error(&file), Error::TooLarge { .. }));
    let mut p = pcap(Order::Little, false, &frames(0));
    p[24 + 8..24 + 12].copy_from_slice(&0xffff_ffffu32.to_le_bytes());
    assert!(matches!(first_error(&p), Error::TooLarge { .. }));
}

#[test]
fn truncation_at_every_byte_is_an_error_or_a_clean_shorter_file() {
    for file in [
        pcap(Order::Big, true, &frames(0)),
        pcapng_section(Order::Little, &frames(1)),
    ] {
        let full = messages(&file).len();
        for cut in 0..file.len() {
            let part = &file[..cut];
            let mut segments = 0;
            let result = IexReader::new(part, false).and_then(|mut r| {
                while r.next_segment()?.is_some() {
                    segments += 1;
                }
                Ok(())
            });
            match result {
                Ok(()) => assert!(segments < full, "cut at {cut} lost nothing?"),
                Err(e) => {
                    let text = e.to_string();
                    assert!(
                        cut == 0 || text.contains("byte"),
                        "cut {cut}: error without a position: {text}"
                    );
                }
            }
        }
    }
}
