//! Ethernet II / IPv4 / UDP framing around an IEX-TP segment, as the IEX multicast feed arrives
//! on the wire. Network headers are big-endian.
//!
//! The frame is written in place into the caller's buffer: headers first (from a template, see
//! [`Headers`]), the payload after, then the UDP checksum is patched, so no temporary buffer is
//! needed.

/// Ethernet (14) + IPv4 without options (20) + UDP (8).
pub const HEADERS_LEN: usize = 14 + 20 + 8;

use crate::iex::UDP_PORT as IEX_UDP_PORT;

/// Fixed addressing of the simulated feed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Endpoints {
    pub src_mac: [u8; 6],
    pub src_ip: [u8; 4],
    pub dst_ip: [u8; 4],
    pub src_port: u16,
    pub dst_port: u16,
}

impl Endpoints {
    /// An IEX-like multicast group (233.215.21.x) on port 10378; `group` picks the last octet
    /// so DEEP and TOPS land on different groups as they do in production.
    pub fn iex(group: u8) -> Self {
        Endpoints {
            src_mac: [0x00, 0x1c, 0x73, 0x10, 0x20, 0x30],
            src_ip: [23, 226, 155, 132],
            dst_ip: [233, 215, 21, group],
            src_port: IEX_UDP_PORT,
            dst_port: IEX_UDP_PORT,
        }
    }

    /// The IPv4 multicast MAC: 01:00:5e followed by the low 23 bits of the group address.
    pub fn dst_mac(&self) -> [u8; 6] {
        [
            0x01,
            0x00,
            0x5e,
            self.dst_ip[1] & 0x7f,
            self.dst_ip[2],
            self.dst_ip[3],
        ]
    }
}

/// Adds big-endian 16-bit words of `data` to a ones-complement accumulator (odd tail padded).
/// Returns it below 2^34, so a caller may add a few small terms before [`finish16`].
///
/// The data is summed as little-endian 16-bit words into 32-bit lanes, which the compiler
/// vectorizes: no carries to wrap (a block of 64 KiB, 32 768 words of at most 0xffff, cannot
/// overflow a lane) and no byte swaps. That is the same ones-complement sum: the sum of
/// byte-swapped words is the byte-swapped sum (RFC 1071, section 2(B)), so one swap at the end
/// makes it big-endian. The checksum was the largest part of the encoder thread's framing cost.
pub fn sum16(acc: u64, data: &[u8]) -> u64 {
    let mut le: u64 = 0;
    for block in data.chunks(1 << 16) {
        let words = block.chunks_exact(2);
        let tail = words.remainder();
        let lanes: u32 = words
            .map(|w| u32::from(u16::from_le_bytes([w[0], w[1]])))
            .sum();
        le += u64::from(lanes);
        if let [last] = tail {
            // Padded with a zero byte after it: the low byte of a little-endian word. Only the
            // last block can be odd.
            le += u64::from(*last);
        }
    }
    while le >> 16 != 0 {
        le = (le & 0xffff) + (le >> 16);
    }
    let be = u64::from((le as u16).swap_bytes());
    // Below 2^34 on the way in: folded to below 2^33, plus under 2^16.
    let acc = (acc >> 32) + (acc & 0xffff_ffff) + be;
    (acc >> 32) + (acc & 0xffff_ffff)
}

/// Folds the accumulator and complements it: the Internet checksum (RFC 1071).
pub fn finish16(mut acc: u64) -> u16 {
    while acc >> 16 != 0 {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    !(acc as u16)
}

/// The Ethernet + IPv4 + UDP headers of every frame between two [`Endpoints`], built once.
///
/// Frames differ only in their lengths, IPv4 id and checksums: [`Headers::begin`] appends the
/// template and patches those, with the IPv4 checksum from the fixed words' sum plus the two
/// that change, and [`Headers::finish_udp`] sums the payload alone in the same way. No header
/// is read back.
#[derive(Debug, Clone)]
pub struct Headers {
    template: [u8; HEADERS_LEN],
    /// Ones-complement sum of the IPv4 header without its length, id and checksum.
    ip_sum: u64,
    /// Of the UDP pseudo-header and header without the two UDP lengths and the checksum:
    /// addresses, protocol, ports.
    udp_sum: u64,
}

impl Headers {
    pub fn new(ep: &Endpoints) -> Self {
        let mut h = [0u8; HEADERS_LEN];
        h[0..6].copy_from_slice(&ep.dst_mac());
        h[6..12].copy_from_slice(&ep.src_mac);
        h[12..14].copy_from_slice(&0x0800u16.to_be_bytes());
        let ip = &mut h[14..34];
        ip[0] = 0x45; // version 4, IHL 5
        ip[8] = 64; // TTL
        ip[9] = 17; // UDP
        ip[12..16].copy_from_slice(&ep.src_ip);
        ip[16..20].copy_from_slice(&ep.dst_ip);
        let udp = &mut h[34..42];
        udp[0..2].copy_from_slice(&ep.src_port.to_be_bytes());
        udp[2..4].copy_from_slice(&ep.dst_port.to_be_bytes());
        Headers {
            template: h,
            ip_sum: sum16(0, &h[14..34]),
            udp_sum: sum16(sum16(0, &h[26..34]) + 17, &h[34..42]),
        }
    }

    /// Appends the headers for a UDP payload of `payload_len` bytes, with the IPv4 checksum done
    /// and the UDP checksum left zero. Returns the offset of the frame start; call
    /// [`Headers::finish_udp`] after appending the payload.
    pub fn begin(&self, ip_id: u16, payload_len: usize, out: &mut Vec<u8>) -> usize {
        let start = out.len();
        let udp_len = (8 + payload_len) as u16;
        let ip_len = 20 + udp_len;
        let h = crate::bytes::append::<HEADERS_LEN>(out);
        *h = self.template;
        h[16..18].copy_from_slice(&ip_len.to_be_bytes());
        h[18..20].copy_from_slice(&ip_id.to_be_bytes());
        let c = finish16(self.ip_sum + u64::from(ip_len) + u64::from(ip_id));
        h[24..26].copy_from_slice(&c.to_be_bytes());
        h[38..40].copy_from_slice(&udp_len.to_be_bytes());
        start
    }

    /// Computes and patches the UDP checksum (pseudo-header included) of the frame at `start`,
    /// whose payload runs to the end of `out`.
    pub fn finish_udp(&self, out: &mut [u8], start: usize) {
        let udp_start = start + 34;
        let udp_len = (out.len() - udp_start) as u64;
        // The UDP length counts twice: in the pseudo-header and in the UDP header.
        let acc = sum16(self.udp_sum + 2 * udp_len, &out[udp_start + 8..]);
        let mut c = finish16(acc);
        if c == 0 {
            c = 0xffff; // 0 means "no checksum" in UDP over IPv4
        }
        out[udp_start + 6..udp_start + 8].copy_from_slice(&c.to_be_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Textbook sum over 16-bit words, independent of `sum16`'s unrolling.
    fn slow_sum(data: &[u8]) -> u32 {
        let mut s: u32 = 0;
        for i in (0..data.len()).step_by(2) {
            let hi = data[i] as u32;
            let lo = data.get(i + 1).copied().unwrap_or(0) as u32;
            s += (hi << 8) | lo;
            s = (s & 0xffff) + (s >> 16);
        }
        s
    }

    #[test]
    fn rfc1071_example() {
        // RFC 1071 section 3 example: words 0001 f203 f4f5 f6f7 sum to ddf2 (folded).
        let data = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
        assert_eq!(finish16(sum16(0, &data)), !0xddf2);
    }

    #[test]
    fn unrolled_sum_matches_textbook() {
        let data: Vec<u8> = (0..=255u8)
            .cycle()
            .take(1001)
            .map(|b| b.wrapping_mul(37))
            .collect();
        // All ones: the sum is a multiple of 0xffff, which must fold to 0xffff, not 0.
        let ones = vec![0xff; 1001];
        // Over more than one 64 KiB block, odd, all ones (every lane near its limit) or not.
        let big: Vec<u8> = (0..200_001u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
            .collect();
        let big_ones = vec![0xff; 200_001];
        let small = [0, 1, 2, 7, 8, 9, 63, 1001];
        let large = [65_535, 65_536, 65_537, 131_072, 200_001];
        for (data, lens) in [
            (&data, &small[..]),
            (&ones, &small),
            (&big, &large),
            (&big_ones, &large),
        ] {
            for &n in lens {
                let mut a = sum16(0, &data[..n]);
                while a >> 16 != 0 {
                    a = (a & 0xffff) + (a >> 16);
                }
                assert_eq!(a as u32, slow_sum(&data[..n]), "len {n}");
            }
        }
        // An accumulator carried in, as the UDP checksum does after the pseudo-header.
        let a = sum16(sum16(0, &data[..8]) + 17 + 1001, &data[8..1001]);
        let mut whole = vec![0, 17, 0x03, 0xe9];
        whole.extend_from_slice(&data[..1001]);
        assert_eq!(finish16(a), !(slow_sum(&whole) as u16));
    }

    /// The frames' headers and both checksums are checked on every frame of generated days by
    /// tests/it's `gen::capture_is_spec_valid_and_matches_packet_view` (`check_frame`), the MAC's
    /// multicast prefix only: its low 23 bits, the group's, here.
    #[test]
    fn the_destination_mac_is_the_groups() {
        // 233.215.21.4: 215 & 0x7f = 0x57.
        assert_eq!(Endpoints::iex(4).dst_mac(), [0x01, 0x00, 0x5e, 0x57, 21, 4]);
    }
}
