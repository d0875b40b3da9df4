//! From a captured frame to its UDP payload: Ethernet II (with any 802.1Q / 802.1ad tags) or
//! Linux cooked or raw IP, then IPv4 (header length from IHL, options allowed), then UDP.
//!
//! Network headers are big-endian. A frame that is not IPv4/UDP is not an error: captures hold
//! ARP, IGMP and the like. Such frames are classified ([`Skip`]) so the caller can count them.

use nom::bytes::complete::take;

use crate::bytes::{array, be_u16, u8 as be_u8};
use nom::{IResult, Parser};

use crate::capture::link;

const ETHERTYPE_IPV4: u16 = 0x0800;
const ETHERTYPE_VLAN: u16 = 0x8100;
const ETHERTYPE_QINQ: u16 = 0x88a8;
const IP_PROTO_UDP: u8 = 17;
/// Stacked VLAN tags we look through; more than this is not a real frame.
const MAX_VLAN_TAGS: usize = 4;

/// Why a frame carries no UDP payload we can use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Skip {
    /// A link type we do not decode.
    UnsupportedLink,
    /// Not IPv4 (ARP, IPv6, ...).
    NotIpv4,
    /// IPv4 but not UDP.
    NotUdp,
    /// A fragment of a larger datagram; IEX-TP never fragments.
    Fragment,
    /// Headers cut off or inconsistent (snap length, corrupt lengths).
    Malformed,
}

/// A UDP datagram inside a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Datagram<'a> {
    pub src_ip: [u8; 4],
    pub dst_ip: [u8; 4],
    pub src_port: u16,
    pub dst_port: u16,
    pub payload: &'a [u8],
}

/// The UDP payload of a frame of the given link type.
#[inline]
pub fn udp_payload(link_type: u32, frame: &[u8]) -> Result<Datagram<'_>, Skip> {
    let ip = match link_type {
        link::ETHERNET => ethernet(frame)?,
        link::LINUX_SLL => linux_sll(frame)?,
        link::RAW | link::IPV4 => frame,
        _ => return Err(Skip::UnsupportedLink),
    };
    ipv4_udp(ip)
}

/// Parse failures only ever mean "headers cut off", so they carry no detail.
type Parsed<'a, T> = IResult<&'a [u8], T, ()>;

fn malformed(_: nom::Err<()>) -> Skip {
    Skip::Malformed
}

/// Skips `n` bytes and reads the big-endian u16 after them.
fn u16_after(n: usize, i: &[u8]) -> Parsed<'_, u16> {
    (take(n), be_u16).parse(i).map(|(rest, (_, v))| (rest, v))
}

/// Ethernet II: skips MAC addresses and VLAN tags, returns the IPv4 packet.
fn ethernet(frame: &[u8]) -> Result<&[u8], Skip> {
    let (mut rest, mut ethertype) = u16_after(12, frame).map_err(malformed)?;
    for _ in 0..MAX_VLAN_TAGS {
        if ethertype != ETHERTYPE_VLAN && ethertype != ETHERTYPE_QINQ {
            break;
        }
        (rest, ethertype) = u16_after(2, rest).map_err(malformed)?;
    }
    if ethertype != ETHERTYPE_IPV4 {
        return Err(Skip::NotIpv4);
    }
    Ok(rest)
}

/// Linux cooked capture (SLL): 16 bytes, protocol type last.
fn linux_sll(frame: &[u8]) -> Result<&[u8], Skip> {
    match u16_after(14, frame) {
        Ok((rest, ETHERTYPE_IPV4)) => Ok(rest),
        Ok(_) => Err(Skip::NotIpv4),
        Err(e) => Err(malformed(e)),
    }
}

struct Ipv4Header {
    header_len: usize,
    total_len: usize,
    fragmented: bool,
    protocol: u8,
    src: [u8; 4],
    dst: [u8; 4],
}

fn ipv4_header(i: &[u8]) -> Parsed<'_, Option<Ipv4Header>> {
    let (rest, (ver_ihl, _tos, total_len, _id, flags_frag, _ttl, protocol, _csum, src, dst)) = (
        be_u8,
        be_u8,
        be_u16,
        be_u16,
        be_u16,
        be_u8,
        be_u8,
        be_u16,
        array::<4, _>,
        array::<4, _>,
    )
        .parse(i)?;
    if ver_ihl >> 4 != 4 {
        return Ok((rest, None));
    }
    Ok((
        rest,
        Some(Ipv4Header {
            header_len: usize::from(ver_ihl & 0x0f) * 4,
            total_len: usize::from(total_len),
            // More-fragments flag or a non-zero fragment offset.
            fragmented: flags_frag & 0x3fff != 0,
            protocol,
            src: *src,
            dst: *dst,
        }),
    ))
}

fn ipv4_udp(packet: &[u8]) -> Result<Datagram<'_>, Skip> {
    let ip = match ipv4_header(packet) {
        Ok((_, Some(ip))) => ip,
        Ok((_, None)) => return Err(Skip::NotIpv4),
        Err(e) => return Err(malformed(e)),
    };
    // The total length trims Ethernet padding; it must cover the header and fit the capture.
    if ip.header_len < 20 || ip.total_len < ip.header_len || ip.total_len > packet.len() {
        return Err(Skip::Malformed);
    }
    if ip.protocol != IP_PROTO_UDP {
        return Err(Skip::NotUdp);
    }
    if ip.fragmented {
        return Err(Skip::Fragment);
    }
    let udp = &packet[ip.header_len..ip.total_len];
    let (payload, (src_port, dst_port, udp_len, _csum)) = (be_u16, be_u16, be_u16, be_u16)
        .parse(udp)
        .map_err(malformed)?;
    let udp_len = usize::from(udp_len);
    if udp_len < 8 || udp_len > udp.len() {
        return Err(Skip::Malformed);
    }
    Ok(Datagram {
        src_ip: ip.src,
        dst_ip: ip.dst,
        src_port,
        dst_port,
        payload: &payload[..udp_len - 8],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// IPv4 (IHL 5, total length 32) + UDP (1234 -> 10378, length 12) + 4 payload bytes.
    fn ip_udp() -> Vec<u8> {
        let mut p = vec![
            0x45, 0, 0, 32, 0, 1, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 1, 233, 215, 21, 4,
        ];
        p.extend([0x04, 0xd2, 0x28, 0x8a, 0, 12, 0, 0]);
        p.extend(b"IEX!");
        p
    }

    fn eth(ethertype: [u8; 2], tags: usize, payload: &[u8]) -> Vec<u8> {
        let mut f = vec![0x01, 0x00, 0x5e, 0, 0, 1, 2, 2, 2, 2, 2, 2];
        for _ in 0..tags {
            f.extend([0x81, 0x00, 0x00, 0x64]);
        }
        f.extend(ethertype);
        f.extend(payload);
        f
    }

    #[test]
    fn ethernet_ipv4_udp() {
        let mut frame = eth([8, 0], 0, &ip_udp());
        frame.extend([0; 6]); // Ethernet padding must be trimmed by the IP total length
        let d = udp_payload(link::ETHERNET, &frame).unwrap();
        assert_eq!(d.payload, b"IEX!");
        assert_eq!((d.src_port, d.dst_port), (1234, 10378));
        assert_eq!(d.src_ip, [10, 0, 0, 1]);
        assert_eq!(d.dst_ip, [233, 215, 21, 4]);
    }

    #[test]
    fn ip_options_are_skipped_by_ihl() {
        let mut p = ip_udp();
        p[0] = 0x46; // IHL 6: 4 bytes of options
        p[3] = 36;
        p.splice(20..20, [1, 1, 1, 0]);
        assert_eq!(udp_payload(link::RAW, &p).unwrap().payload, b"IEX!");
    }

    #[test]
    fn classifies_what_it_skips() {
        assert_eq!(
            udp_payload(link::ETHERNET, &eth([0x08, 0x06], 0, &[0; 28])),
            Err(Skip::NotIpv4)
        );
        let mut tcp = ip_udp();
        tcp[9] = 6;
        assert_eq!(udp_payload(link::RAW, &tcp), Err(Skip::NotUdp));
        let mut frag = ip_udp();
        frag[6] = 0x20; // more fragments
        assert_eq!(udp_payload(link::RAW, &frag), Err(Skip::Fragment));
        assert_eq!(
            udp_payload(link::RAW, &ip_udp()[..30]),
            Err(Skip::Malformed)
        );
        assert_eq!(udp_payload(link::ETHERNET, &[0; 5]), Err(Skip::Malformed));
        assert_eq!(udp_payload(147, &ip_udp()), Err(Skip::UnsupportedLink));
    }

    #[test]
    fn linux_cooked_capture() {
        let mut f = vec![0u8; 14];
        f.extend([8, 0]);
        f.extend(ip_udp());
        assert_eq!(udp_payload(link::LINUX_SLL, &f).unwrap().payload, b"IEX!");
    }
}
