//! Resynchronising on a capture's record structure after a seek: given the bytes from an
//! arbitrary offset of a plain (not gzip'd) capture, where does the next record (pcap) or block
//! (pcapng) start? This is what lets a shard of a file be measured without reading the file from
//! its start.
//!
//! Neither format marks its records: a pcap record header is 16 bytes of numbers, and a pcapng
//! block is found only by the length of the one before it. So every offset is tried in turn as a
//! record start, and one is taken only when a *chain* of records follows from it: [`CHAIN`]
//! consecutive headers that each pass the plausibility rules below, each starting where the one
//! before ends. A position inside a record has to fake a whole chain to pass.
//!
//! **How safe that is.** On pcapng a link is a known block type (12 values of 2^32), a length
//! that is a multiple of 4, and the same length again at the block's end; for an Enhanced Packet
//! Block also an interface id the section declared; and only offsets that are a multiple of 4
//! from the file's start are tried. On pcap a link is a timestamp within ±2 days of the
//! capture's first (a random u32 passes with p = 8·10^-5), a sub-second fraction in range (0.23
//! for nanoseconds, 2·10^-4 for microseconds), a captured length within the snap length (1.5·10^-5
//! for 65,535) and no more than the original length: about 10^-10 for random bytes. Bytes inside
//! IEX packets are not random, and a false chain's links are not independent draws (structure
//! repeats), so the evidence is measured, on every non-boundary offset of the two real IEX
//! captures in `data/` (`single_links_that_are_not_boundaries_never_chain` below): of the 22.2
//! million of the DEEP 1.0 sample (pcap), 3 pass one link and none passes two; of the 10.5
//! million of the TOPS 1.6 file (pcapng), 28 pass one link (each a block's trailing length read
//! one byte early, at an offset that is not a multiple of 4, so never tried) and none passes two.
//! Two links already separate every offset of real data; [`CHAIN`] is eight for six links of
//! margin. The timestamp rule carries the weight on pcap: without it, the offset 4 bytes past a
//! record's start (fraction read as seconds, original length as captured length, which IEX
//! records always equal) chains through the whole file, and resync answers it on the DEEP
//! sample. With it that alias never passes: fractions are below 10^9, and the seconds of any
//! capture since September 2001 are more than two days above that.
//!
//! **Stricter than the parser, on purpose.** The parser ([`super::pcap`], [`super::pcapng`])
//! takes any timestamp, fraction, original length and block type; the rules below do not, to be
//! able to tell a record from the bytes inside one. A record that breaks them (a capture whose
//! clock jumps by days, a private block type) is not found: the chains through it fail, and
//! [`find_boundary`] answers the first record after it whose chain holds. Every capture writer
//! keeps these rules, and so do the project's captures and IEX's. Callers that cut a file into
//! shards should therefore take *both* ends of a shard from [`find_boundary`] (shard `c` ends
//! where shard `c + 1` resynchronises), never one end from the parser: the shards then tile the
//! file whatever it holds.

use nom::number::complete::{u16 as nu16, u32 as nu32};
use nom::number::Endianness;
use nom::Parser;

use super::buffer::Buffer;
use super::pcap::{self, RecordHeader, GLOBAL_HEADER_LEN, RECORD_HEADER_LEN};
use super::pcapng::{
    self, EnhancedPacketHeader, BYTE_ORDER_MAGIC, EPB_TYPE, IDB_TYPE, SHB_TYPE, SPB_TYPE,
};
use super::record::{MAX_FRAME, MAX_RECORD};
use crate::error::{At, Error, Result};

/// Records that must follow a candidate start, itself included, unless the bytes end first.
/// On real IEX data no false start survives two (see the module doc); eight leave a wide margin
/// for a chain of one-in-a-thousand fakes (10^-24), and cost eight header reads, about 12 KB of
/// IEX packets.
pub const CHAIN: usize = 8;

/// A pcap record's timestamp must lie this close to the capture's first. IEX captures one day
/// per file (and the DEEP sample spans under 5 hours); two days either way leave room for a
/// capture started before midnight and a clock that was stepped, while keeping the field's
/// power to reject (a random u32 passes with p = 8·10^-5).
pub const TS_WINDOW_SECS: i64 = 2 * 86_400;

/// pcapng block types a capture may hold (the spec's registry): the Section Header Block, and
/// Interface Description (1), the obsolete Packet Block (2), Simple Packet (3), Name Resolution
/// (4), Interface Statistics (5), Enhanced Packet (6), IRIG timestamp (7), ARINC 429 (8),
/// systemd journal (9), Decryption Secrets (0x0A), and custom blocks (0xBAD, 0x40000BAD).
/// Not accepted: 0 (reserved), the Hone and Sysdig host-event types (0x101.., 0x201..: not
/// network captures), and the local-use range (bit 31 set): accepting 2^31 values would make the
/// type check pass half of all random words, and no IEX capture holds such a block.
fn known_block_type(block_type: u32) -> bool {
    matches!(block_type, 0x01..=0x0A | 0x0BAD | 0x4000_0BAD)
}

/// Options past an EPB's frame beyond which a block cut by the end of a file is damage, not a
/// capture stopped mid-write (the parser's rule, `cut_packet_block` in `pcapng/block.rs`).
const EPB_MAX_OPTIONS: usize = 64 << 10;

/// What resynchronising needs to know about a capture, read once from the file's start
/// ([`Framing::read`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// Classic pcap: the global header (byte order, timestamp unit, snap length) and the first
    /// record's seconds, which anchor the timestamp rule.
    Pcap {
        header: pcap::Header,
        first_ts_sec: u32,
    },
    /// pcapng: the byte order of the section the seek lands in, and the interfaces it declared
    /// before the seek point (0 = unknown: interface ids are then not checked). A chain that
    /// passes an Interface Description Block counts it on top, so a seek into the file header
    /// itself (before the first packet) checks ids against one interface too many: harmless,
    /// since that region is [`Framing::read`]'s to read.
    Pcapng { endian: Endianness, interfaces: u32 },
}

impl Framing {
    /// Reads the framing from the first bytes of a capture (64 KiB is plenty: the pcap global
    /// header and first record header, or pcapng's Section Header Block and the blocks up to
    /// its first packet). Also returns where the first record or packet block starts, i.e. how
    /// many bytes of file header precede the records. Uses the parser itself, so its errors
    /// are the parser's. Only a pcapng file's first section is looked at: a seek into a later
    /// section of the other byte order, or with more interfaces, resynchronises at the next
    /// Section Header Block (IEX files have one section).
    pub fn read(head: &[u8]) -> Result<(Framing, usize)> {
        let mut buf = Buffer::new(head);
        if !buf.fill(4)? {
            return Err(buf.short_header("capture file header", 4));
        }
        let magic: [u8; 4] = buf.available()[..4].try_into().unwrap_or_default();
        if pcap::Header::is_magic(magic) {
            let header = pcap::read_header(&mut buf)?;
            let first = RecordHeader::parse(buf.available(), header.endian).map_err(|_| {
                Error::Truncated {
                    what: "first pcap record header",
                    at: At {
                        offset: GLOBAL_HEADER_LEN as u64,
                        packet: 1,
                    },
                    needed: RECORD_HEADER_LEN as u64,
                    available: buf.available().len() as u64,
                }
            })?;
            let framing = Framing::Pcap {
                header,
                first_ts_sec: first.1.ts_sec,
            };
            return Ok((framing, GLOBAL_HEADER_LEN));
        }
        if magic != SHB_TYPE {
            return Err(Error::UnknownMagic(super::reader::hex(magic)));
        }
        let mut section = pcapng::Section::default();
        // Blocks up to the first packet; a head that ends inside one is fine: its start is known.
        let first_packet = match pcapng::next(&mut buf, &mut section, 1) {
            Ok(_) => buf.offset(),
            Err(Error::CutShort(tail)) if section.count > 0 => tail.offset,
            Err(e) => return Err(e),
        };
        let endian = section.endian.unwrap_or(Endianness::Little);
        let interfaces = u32::try_from(section.interfaces.len()).unwrap_or(u32::MAX);
        let framing = Framing::Pcapng { endian, interfaces };
        Ok((framing, usize::try_from(first_packet).unwrap_or(usize::MAX)))
    }
}

/// The offset within `bytes` of the first record (pcap) or block (pcapng) that starts at or
/// after `bytes[0]`, or `None` if no offset in `bytes` starts a chain.
///
/// An offset is taken when [`CHAIN`] plausible records follow from it, each where the previous
/// ends, or when that walk reaches the end of `bytes` first, after at least one whole record
/// header (the evidence for the offset): exactly on a record boundary, or inside a record that is
/// plausible as far as it goes. When `at_eof` (`bytes` ends where the file ends), what runs past
/// the end must also be what the parser takes for a capture stopped mid-write, not damage: a pcap
/// record no longer than [`MAX_FRAME`], an Enhanced Packet Block that passes the parser's test for
/// one cut short. A chain need not end exactly at the end of the file, because real files are cut
/// short: IEX's own DEEP sample (`data/DEEP10.pcap.gz`) ends 476 bytes into a record, and the
/// parser reads the records before it (`--lenient`); resync finds them too.
///
/// Pass 1 MiB plus the largest record of bytes where the file has them (1 MiB + [`MAX_FRAME`]
/// covers every frame a capture writer produces), so that the first record after `bytes[0]` is
/// whole and its chain ends on its eight records rather than on the end of `bytes`. `offset` is the file offset of
/// `bytes[0]`: pcapng blocks start at multiples of 4 from the file's start (every block length
/// is one), so only those offsets are tried, which rules out every false single link measured
/// on the real TOPS file (see the module doc); pcap records have no alignment.
///
/// Pure, never panics, and for the same bytes and offset always gives the same answer: two
/// processes that resynchronise at the same offset agree.
pub fn find_boundary(bytes: &[u8], offset: u64, framing: &Framing, at_eof: bool) -> Option<usize> {
    candidates(bytes.len(), offset, framing)
        .find(|&start| chain_holds(bytes, start, framing, at_eof, CHAIN))
}

/// What a probe of the bytes after an offset settles (see [`settled_boundary`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settled {
    /// The first record starts this many bytes in, whatever bytes follow the probe.
    At(usize),
    /// No record starts in the bytes, which end where the file ends.
    NoRecord,
    /// The answer may depend on bytes after the probe's end: read more.
    Widen,
}

/// [`find_boundary`]'s answer when the bytes alone decide it: what it would answer on these
/// bytes *and any bytes after them*, or [`Settled::Widen`]. This lets a caller read a small
/// probe first (a chain of IEX packets is about 12 KB) and the full 1 MiB + [`MAX_FRAME`] only
/// where the small one cannot settle, while every process still agrees on every boundary.
///
/// An offset is settled when its chain of [`CHAIN`] records lies wholly in the bytes and every
/// offset before it was refused on bytes that are there; a chain that runs past the end, or a
/// refusal that rests on a record the bytes end inside (a first block cut short), could turn
/// out otherwise with more bytes. When `at_eof` nothing follows, so the answer is
/// [`find_boundary`]'s.
///
/// `last` is how many bytes from the same offset the caller's final answer reads, when that is
/// [`find_boundary`] on bytes that do not reach the end of the file (`None` otherwise): a first
/// block refused for being cut whose stated length runs past that many is refused there too,
/// so it does not hold the answer back. Inside IEX packets an aligned word that reads as a
/// block type and a length beyond the probe is common enough to widen a third of a day's
/// boundaries without this (docs/BENCHMARKS.md).
pub fn settled_boundary(
    bytes: &[u8],
    offset: u64,
    framing: &Framing,
    at_eof: bool,
    last: Option<usize>,
) -> Settled {
    let mut refused_on_cut = false;
    for start in candidates(bytes.len(), offset, framing) {
        match chain(bytes, start, framing, at_eof, CHAIN) {
            Chain::Whole if !refused_on_cut => return Settled::At(start),
            Chain::Whole | Chain::PastEnd if at_eof => return Settled::At(start),
            Chain::Whole | Chain::PastEnd => return Settled::Widen,
            Chain::Cut(Some(len)) if last.is_some_and(|last| start + len > last) => {}
            Chain::Cut(_) => refused_on_cut = true,
            Chain::Broken => {}
        }
    }
    if at_eof {
        Settled::NoRecord
    } else {
        Settled::Widen
    }
}

/// The offsets of `bytes` that may start a record, in order: pcapng blocks start at multiples
/// of 4 from the file's start, pcap records anywhere.
fn candidates(len: usize, offset: u64, framing: &Framing) -> impl Iterator<Item = usize> {
    let step = match framing {
        Framing::Pcap { .. } => 1,
        Framing::Pcapng { .. } => 4,
    };
    let first = (step - (offset % step as u64) as usize) % step;
    (first..len).step_by(step)
}

/// How a chain from a candidate offset ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Chain {
    /// All the links, each wholly in the bytes.
    Whole,
    /// Plausible up to the end of the bytes, which ends the walk early.
    PastEnd,
    /// Refused on bytes that are all there: more bytes cannot change it.
    Broken,
    /// Refused on a first record the bytes end inside: more bytes might accept it. With the
    /// length its header states, where the header holds one.
    Cut(Option<usize>),
}

/// Whether `links` records chain from `start` (fewer where the bytes end first; see
/// [`find_boundary`]); the tests measure how often shorter chains are faked with it.
fn chain_holds(bytes: &[u8], start: usize, framing: &Framing, at_eof: bool, links: usize) -> bool {
    matches!(
        chain(bytes, start, framing, at_eof, links),
        Chain::Whole | Chain::PastEnd
    )
}

fn chain(bytes: &[u8], start: usize, framing: &Framing, at_eof: bool, links: usize) -> Chain {
    match *framing {
        Framing::Pcap {
            header,
            first_ts_sec,
        } => {
            let rules = PcapRules::new(&header, first_ts_sec);
            walk(bytes, start, links, |rest, first| {
                rules.link(rest, first, at_eof)
            })
        }
        Framing::Pcapng { endian, interfaces } => {
            let mut section = NgSection {
                endian,
                interfaces: (interfaces > 0).then_some(interfaces),
            };
            walk(bytes, start, links, |rest, first| {
                ng_link(rest, &mut section, first, at_eof)
            })
        }
    }
}

/// Walks a chain of up to `links` links from `start`, `link` judging each from the bytes at it
/// (and whether it is the first).
fn walk(
    bytes: &[u8],
    start: usize,
    links: usize,
    mut link: impl FnMut(&[u8], bool) -> Link,
) -> Chain {
    let mut pos = start;
    for n in 0..links {
        let Some(rest) = bytes.get(pos..) else {
            return Chain::Broken;
        };
        if rest.is_empty() {
            return if n > 0 {
                Chain::PastEnd
            } else {
                Chain::Cut(None)
            };
        }
        match link(rest, n == 0) {
            Link::Whole(len) => pos += len,
            Link::PastEnd => return Chain::PastEnd,
            Link::Implausible => return Chain::Broken,
            Link::Cut(len) => return Chain::Cut(len),
        }
    }
    Chain::Whole
}

/// One link of a chain.
enum Link {
    /// A plausible record or block of this length, wholly in the bytes.
    Whole(usize),
    /// A record or block the bytes end inside, plausible as far as it goes.
    PastEnd,
    Implausible,
    /// A record or block the bytes end inside, refused for that (a first link needs more
    /// evidence): more bytes might accept it. With its stated length, where the bytes hold it.
    Cut(Option<usize>),
}

/// A `u32` at `at` in `bytes`, if all four bytes are there.
fn word(bytes: &[u8], at: usize, endian: Endianness) -> Option<u32> {
    let (_, w) = nu32::<_, ()>(endian).parse(bytes.get(at..)?).ok()?;
    Some(w)
}

/// The plausibility rules for a pcap record header. Each keeps every record a capture writer
/// produces (and the generator, and IEX's files) and rejects most byte strings that are not one.
struct PcapRules {
    endian: Endianness,
    /// Seconds of the capture's first record, widened so the difference cannot overflow.
    first_ts_sec: i64,
    /// Fractions are below 10^9 (ns magic) or 10^6 (µs magic): writers carry a whole second
    /// into `ts_sec`; libpcap and Wireshark never write more.
    frac_limit: u32,
    snaplen: u32,
}

impl PcapRules {
    fn new(header: &pcap::Header, first_ts_sec: u32) -> Self {
        PcapRules {
            endian: header.endian,
            first_ts_sec: i64::from(first_ts_sec),
            frac_limit: if header.nanos {
                1_000_000_000
            } else {
                1_000_000
            },
            snaplen: header.snaplen,
        }
    }

    /// Timestamp within [`TS_WINDOW_SECS`] of the first record's.
    fn ts_ok(&self, ts_sec: u32) -> bool {
        (i64::from(ts_sec) - self.first_ts_sec).abs() <= TS_WINDOW_SECS
    }

    fn frac_ok(&self, frac: u32) -> bool {
        frac < self.frac_limit
    }

    /// Captured length: at most what the parser takes ([`MAX_RECORD`]) and, when the header
    /// states one, the snap length (a writer cuts every frame to it). Zero and frames under an
    /// Ethernet header are allowed, as the parser allows them.
    fn incl_ok(&self, incl_len: u32) -> bool {
        incl_len as usize <= MAX_RECORD && (self.snaplen == 0 || incl_len <= self.snaplen)
    }

    /// A whole header: the rules above, and captured ≤ original length (captured is the
    /// original cut to the snap length, never more).
    fn plausible(&self, h: &RecordHeader) -> bool {
        self.ts_ok(h.ts_sec)
            && self.frac_ok(h.ts_frac)
            && self.incl_ok(h.incl_len)
            && h.incl_len <= h.orig_len
    }

    /// A header cut by the end of the bytes: the fields that are there.
    fn plausible_prefix(&self, rest: &[u8]) -> bool {
        let field = |i: usize| word(rest, 4 * i, self.endian);
        field(0).is_none_or(|ts| self.ts_ok(ts))
            && field(1).is_none_or(|frac| self.frac_ok(frac))
            && field(2).is_none_or(|incl| self.incl_ok(incl))
    }

    /// Judges the record at the start of `rest`.
    fn link(&self, rest: &[u8], first: bool, at_eof: bool) -> Link {
        let Ok((_, h)) = RecordHeader::parse(rest, self.endian) else {
            // A header cut by the end: no evidence as a first link, a plausible end otherwise
            // (the prefix's rules are the whole header's, so a refusal here is settled).
            return match (first, self.plausible_prefix(rest)) {
                (true, _) => Link::Cut(None),
                (_, true) => Link::PastEnd,
                (_, false) => Link::Implausible,
            };
        };
        if !self.plausible(&h) {
            return Link::Implausible;
        }
        let len = RECORD_HEADER_LEN + h.incl_len as usize;
        if len <= rest.len() {
            Link::Whole(len)
        } else if !at_eof || h.incl_len as usize <= MAX_FRAME {
            // The parser's rule for a record the file ends inside (pcap.rs, `next`).
            Link::PastEnd
        } else {
            Link::Implausible
        }
    }
}

/// The pcapng section state a chain carries: a Section Header Block in the chain sets a new
/// byte order and an empty interface list, an Interface Description Block adds one.
#[derive(Debug, Clone, Copy)]
struct NgSection {
    endian: Endianness,
    /// `None` when unknown: interface ids are then not checked.
    interfaces: Option<u32>,
}

/// Judges the block at the start of `rest`. The rules, each the parser's or the spec's:
/// a known type ([`known_block_type`]); a total length that is a multiple of 4 and at least the
/// block's fixed part, at most [`MAX_RECORD`] for the blocks the parser reads; the same length
/// again in the block's last four bytes; a Section Header Block's byte-order magic and major
/// version 1; an Enhanced Packet Block's interface id below the interfaces declared and its
/// captured length within the block; no Simple Packet Block before any interface.
fn ng_link(rest: &[u8], section: &mut NgSection, first: bool, at_eof: bool) -> Link {
    // A block cut inside its first 8 (SHB: 12) bytes: no evidence as a first link; otherwise
    // only the type can be checked.
    let cut_header = |block_type: Option<u32>| {
        if block_type.is_some_and(|t| !known_block_type(t)) {
            Link::Implausible
        } else if first {
            Link::Cut(None)
        } else {
            Link::PastEnd
        }
    };
    let is_shb = rest.get(..4) == Some(&SHB_TYPE[..]);
    let endian = if is_shb {
        let Some(magic) = word(rest, 8, Endianness::Little) else {
            return cut_header(None);
        };
        if magic == BYTE_ORDER_MAGIC {
            Endianness::Little
        } else if magic.swap_bytes() == BYTE_ORDER_MAGIC {
            Endianness::Big
        } else {
            return Link::Implausible;
        }
    } else {
        section.endian
    };
    let Some(block_type) = word(rest, 0, endian) else {
        return cut_header(None);
    };
    if !is_shb && !known_block_type(block_type) {
        return Link::Implausible;
    }
    let Some(total_len) = word(rest, 4, endian) else {
        return cut_header(Some(block_type));
    };
    let len = total_len as usize;
    // The fixed part of each block the parser reads, and whether it enforces MAX_RECORD.
    let (min_len, parsed) = match block_type {
        _ if is_shb => (28, true),
        IDB_TYPE => (20, true),
        EPB_TYPE => (32, true),
        SPB_TYPE => (16, true),
        _ => (12, false),
    };
    if len < min_len || !len.is_multiple_of(4) || (parsed && len > MAX_RECORD) {
        return Link::Implausible;
    }
    let mut next = *section;
    if is_shb {
        let major = rest
            .get(12..)
            .and_then(|b| nu16::<_, ()>(endian).parse(b).ok());
        if major.is_some_and(|(_, major)| major != 1) {
            return Link::Implausible;
        }
        next = NgSection {
            endian,
            interfaces: Some(0),
        };
    } else if block_type == IDB_TYPE {
        next.interfaces = section.interfaces.map(|n| n.saturating_add(1));
    } else if block_type == SPB_TYPE && section.interfaces == Some(0) {
        return Link::Implausible;
    }
    let epb = (block_type == EPB_TYPE && !is_shb)
        .then(|| EnhancedPacketHeader::parse(rest.get(8..)?, endian).ok())
        .flatten()
        .map(|(_, epb)| epb);
    if let Some(epb) = &epb {
        let declared = section.interfaces.is_none_or(|n| epb.interface_id < n);
        if !declared || epb.captured_len as usize > len - 32 {
            return Link::Implausible;
        }
    }
    if let Some(trailer) = word(rest, len - 4, endian) {
        return if trailer == total_len {
            *section = next;
            Link::Whole(len)
        } else {
            Link::Implausible
        };
    }
    let epb_cut = block_type == EPB_TYPE && !is_shb;
    cut_block(epb, epb_cut, len, first, at_eof)
}

/// The link of a block of stated length `len` the bytes end inside ([`ng_link`]): `epb` its
/// Enhanced Packet Block header where the bytes hold one, `is_epb` whether its type is one.
fn cut_block(
    epb: Option<EnhancedPacketHeader>,
    is_epb: bool,
    len: usize,
    first: bool,
    at_eof: bool,
) -> Link {
    // The bytes end inside the block. As a first link only an EPB the parser would take for a
    // capture stopped mid-write is evidence enough; at the end of the file an EPB must pass
    // that test too (the parser calls any other cut block cut short).
    // Refusing a block for being cut is settled only at the file's end: before it, more bytes
    // may bring the block's trailer. The refusal carries the block's stated length unless it
    // rests on an EPB header the bytes cut (more bytes could make it one stopped mid-write).
    let refused = |len: Option<usize>| {
        if at_eof {
            Link::Implausible
        } else {
            Link::Cut(len)
        }
    };
    match epb {
        Some(epb) if first || at_eof => {
            if stopped_mid_write(&epb, len) {
                Link::PastEnd
            } else {
                refused(Some(len))
            }
        }
        None if first && is_epb => refused(None),
        _ if first => refused(Some(len)),
        _ => Link::PastEnd,
    }
}

/// The parser's test (`cut_packet_block` in `pcapng/block.rs`) for an EPB the file ends inside:
/// a frame no longer than its original and [`MAX_FRAME`], inside the block, followed by at most
/// 64 KiB of options.
fn stopped_mid_write(epb: &EnhancedPacketHeader, len: usize) -> bool {
    let captured = epb.captured_len as usize;
    let frame_end = captured.div_ceil(4) * 4 + 32;
    captured <= (epb.original_len as usize).min(MAX_FRAME)
        && frame_end <= len
        && len - frame_end <= EPB_MAX_OPTIONS
}

#[cfg(test)]
mod tests {
    use std::ops::RangeInclusive;

    use super::*;

    /// 2017-04-25 15:03:18 UTC, the DEEP sample's first record.
    const TS: u32 = 1_493_132_598;

    fn put(out: &mut Vec<u8>, big: bool, words: &[u32]) {
        for &v in words {
            out.extend_from_slice(&if big {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            });
        }
    }

    /// Frame bytes that look like nothing: an Ethernet-ish ramp, different per frame.
    fn frame(len: usize, seed: u8) -> Vec<u8> {
        (0..len)
            .map(|i| (i as u8).wrapping_mul(37).wrapping_add(seed))
            .collect()
    }

    /// A pcap written from the table in iex-feed.md, not by our writer: the 24-byte global
    /// header (magic, version 2.4, thiszone, sigfigs, snaplen, link type 1), then per record
    /// ts_sec, ts_frac, incl_len, orig_len and the frame. Returns the file and record starts.
    fn golden_pcap(big: bool, nanos: bool, snaplen: u32, lens: &[usize]) -> (Vec<u8>, Vec<usize>) {
        let mut f = Vec::new();
        put(
            &mut f,
            big,
            &[if nanos { 0xa1b2_3c4d } else { 0xa1b2_c3d4 }],
        );
        let version = if big { [0, 2, 0, 4] } else { [2, 0, 4, 0] };
        f.extend_from_slice(&version);
        put(&mut f, big, &[0, 0, snaplen, 1]);
        let mut starts = Vec::new();
        for (i, &len) in lens.iter().enumerate() {
            starts.push(f.len());
            let frac = if nanos { 999_999_999 } else { 999_999 };
            put(
                &mut f,
                big,
                &[TS + i as u32, frac, len as u32, len as u32 + 4],
            );
            f.extend_from_slice(&frame(len, i as u8));
        }
        (f, starts)
    }

    fn block(f: &mut Vec<u8>, big: bool, kind: u32, body: &[u8]) {
        let total = (12 + body.len().div_ceil(4) * 4) as u32;
        put(f, big, &[kind, total]);
        f.extend_from_slice(body);
        f.resize(f.len() + (4 - body.len() % 4) % 4, 0);
        put(f, big, &[total]);
    }

    /// A pcapng from the same doc: SHB (byte-order magic, version 1.0, section length -1), IDB
    /// (link type 1, reserved, snaplen, if_tsresol = 9, end of options), then an EPB per frame
    /// (interface 0, ts high, ts low, captured, original, frame padded to 4).
    fn golden_pcapng(big: bool, lens: &[usize]) -> (Vec<u8>, Vec<usize>) {
        let mut f = Vec::new();
        let mut starts = vec![0];
        let mut body = Vec::new();
        put(&mut body, big, &[BYTE_ORDER_MAGIC]);
        body.extend_from_slice(if big { &[0, 1, 0, 0] } else { &[1, 0, 0, 0] });
        body.extend_from_slice(&[0xff; 8]);
        block(&mut f, big, 0x0a0d_0d0a, &body);
        starts.push(f.len());
        let mut body = Vec::new();
        body.extend_from_slice(if big { &[0, 1, 0, 0] } else { &[1, 0, 0, 0] });
        put(&mut body, big, &[65_535]);
        body.extend_from_slice(if big { &[0, 9, 0, 1] } else { &[9, 0, 1, 0] });
        body.extend_from_slice(&[9, 0, 0, 0, 0, 0, 0, 0]);
        block(&mut f, big, 1, &body);
        for (i, &len) in lens.iter().enumerate() {
            starts.push(f.len());
            let ts = u64::from(TS + i as u32) * 1_000_000_000;
            let mut body = Vec::new();
            let (high, low) = ((ts >> 32) as u32, ts as u32);
            put(&mut body, big, &[0, high, low, len as u32, len as u32]);
            body.extend_from_slice(&frame(len, i as u8));
            block(&mut f, big, 6, &body);
        }
        (f, starts)
    }

    /// [`find_boundary`] on `file` from offset `x`.
    fn from(file: &[u8], x: usize, framing: &Framing, at_eof: bool) -> Option<usize> {
        find_boundary(&file[x..], x as u64, framing, at_eof)
    }

    /// From every offset of `file`, resync gives the next start (relative), or `None` past the
    /// last; with the file's end as the end of the file and as the end of a window.
    fn resyncs_everywhere(file: &[u8], starts: &[usize], framing: &Framing) {
        resyncs_in(file, starts, framing, 0..=file.len());
    }

    /// [`resyncs_everywhere`], from the offsets `xs` only.
    fn resyncs_in(file: &[u8], starts: &[usize], framing: &Framing, xs: RangeInclusive<usize>) {
        for x in xs {
            let want = starts.iter().find(|&&s| s >= x).map(|s| s - x);
            for at_eof in [true, false] {
                let got = from(file, x, framing, at_eof);
                assert_eq!(got, want, "offset {x}, at_eof {at_eof}");
            }
        }
    }

    #[test]
    fn golden_pcap_resyncs_from_every_offset() {
        for (big, nanos) in [(false, false), (true, true), (false, true)] {
            let (file, starts) = golden_pcap(big, nanos, 65_535, &[60, 14, 101]);
            let (framing, header) = Framing::read(&file).unwrap();
            assert_eq!(header, 24);
            let Framing::Pcap {
                header,
                first_ts_sec,
            } = framing
            else {
                panic!("{framing:?}")
            };
            assert_eq!(
                (header.nanos, header.snaplen, first_ts_sec),
                (nanos, 65_535, TS)
            );
            assert_eq!(starts, [24, 100, 130]);
            resyncs_everywhere(&file, &starts, &framing);
        }
    }

    #[test]
    fn golden_pcapng_resyncs_from_every_offset() {
        for big in [false, true] {
            let (file, starts) = golden_pcapng(big, &[60, 61, 14]);
            // SHB 28 bytes, IDB 32, EPBs 12 + 20 + the padded frame.
            assert_eq!(starts, [0, 28, 60, 152, 248]);
            let (framing, first_packet) = Framing::read(&file).unwrap();
            assert_eq!(first_packet, 60);
            let endian = if big {
                Endianness::Big
            } else {
                Endianness::Little
            };
            assert_eq!(
                framing,
                Framing::Pcapng {
                    endian,
                    interfaces: 1
                }
            );
            resyncs_everywhere(&file, &starts, &framing);
            // With the interface count unknown the answers are the same.
            let unknown = Framing::Pcapng {
                endian,
                interfaces: 0,
            };
            resyncs_everywhere(&file, &starts, &unknown);
        }
    }

    fn records_read(file: &[u8]) -> u64 {
        let mut reader = crate::capture::CaptureReader::new(file).unwrap();
        while let Ok(Some(_)) = reader.next_frame() {}
        reader.frames()
    }

    #[test]
    fn a_record_outside_the_rules_is_skipped_not_misread() {
        let (mut file, starts) = golden_pcap(false, false, 65_535, &[60, 14, 101]);
        // Record 1 three days later: the parser reads it, resync's timestamp rule does not.
        let ts = &mut file[starts[1]..starts[1] + 4];
        ts.copy_from_slice(&(TS + 3 * 86_400).to_le_bytes());
        assert_eq!(records_read(&file), 3);
        let (framing, _) = Framing::read(&file).unwrap();
        // Every chain through record 1 fails, so the answer is record 2 (not a false start).
        for x in 0..=starts[2] {
            assert_eq!(
                from(&file, x, &framing, true),
                Some(starts[2] - x),
                "offset {x}"
            );
        }
        // A fraction of a whole second, or captured above original length, is refused the same way.
        for (field, value) in [(4, 1_000_000u32), (12, 13)] {
            let (mut file, starts) = golden_pcap(false, false, 65_535, &[60, 14, 101]);
            let at = starts[1] + field;
            file[at..at + 4].copy_from_slice(&value.to_le_bytes());
            assert_eq!(find_boundary(&file, 0, &framing, true), Some(starts[2]));
        }
    }

    #[test]
    fn a_pcap_cut_short_at_its_end_resyncs_as_the_parser_reads_it() {
        let (file, starts) = golden_pcap(false, true, 0, &[60, 14, 101]);
        let (framing, _) = Framing::read(&file).unwrap();
        // Cut inside the last record's frame: its start is found (its header is whole). Cut
        // inside its header: the records before it are found, it is not (9 bytes are no evidence).
        for (cut, found) in [(file.len() - 50, 3), (starts[2] + 9, 2)] {
            let file = &file[..cut];
            assert_eq!(records_read(file), 2);
            resyncs_everywhere(file, &starts[..found], &framing);
        }
        // A cut record claiming more than any frame (snaplen 0 allows it): damage at the end of
        // the file, but only the end of the window elsewhere.
        let big = MAX_FRAME + 1;
        let (file, starts) = golden_pcap(false, true, 0, &[60, big]);
        let cut = &file[..starts[1] + 100];
        assert_eq!(find_boundary(cut, 0, &framing, false), Some(starts[0]));
        assert_eq!(from(cut, starts[1], &framing, false), Some(0));
        assert_eq!(find_boundary(cut, 0, &framing, true), None);
        let whole_frame = golden_pcap(false, true, 0, &[60, MAX_FRAME]).0;
        assert_eq!(
            find_boundary(&whole_frame[..starts[1] + 100], 0, &framing, true),
            Some(starts[0])
        );
    }

    #[test]
    fn a_pcapng_cut_short_at_its_end_resyncs_unless_the_cut_block_is_damaged() {
        let (file, starts) = golden_pcapng(false, &[60, 61, 14]);
        let (framing, _) = Framing::read(&file).unwrap();
        let cut = &file[..starts[4] + 40];
        assert_eq!(records_read(cut), 2);
        resyncs_everywhere(cut, &starts, &framing);
        // Captured length above the original: the parser calls the cut block damage.
        let mut damaged = cut.to_vec();
        damaged[starts[4] + 24..starts[4] + 28].copy_from_slice(&13u32.to_le_bytes());
        let mut reader = crate::capture::CaptureReader::new(&damaged[..]).unwrap();
        for _ in 0..2 {
            assert!(reader.next_frame().unwrap().is_some());
        }
        assert!(matches!(reader.next_frame(), Err(Error::Malformed { .. })));
        for at_eof in [true, false] {
            assert_eq!(from(&damaged, starts[4], &framing, at_eof), None);
        }
        // ... and every chain ending in it fails at the end of the file, not in a window.
        assert_eq!(find_boundary(&damaged, 0, &framing, true), None);
        assert_eq!(find_boundary(&damaged, 0, &framing, false), Some(0));
    }

    #[test]
    fn pcapng_blocks_outside_the_rules_are_refused() {
        let (file, starts) = golden_pcapng(false, &[60, 61, 14]);
        let (framing, _) = Framing::read(&file).unwrap();
        let patched = |at: usize, value: u32| {
            let mut f = file.clone();
            f[at..at + 4].copy_from_slice(&value.to_le_bytes());
            f
        };
        let last = starts[4];
        // Trailing length unlike the leading one; a local-use block type; interface 1 of 1;
        // captured length past the block.
        for bad in [
            patched(file.len() - 4, 44),
            patched(last, 0x8000_0006),
            patched(last + 8, 1),
            patched(last + 20, 21),
        ] {
            assert_eq!(from(&bad, last, &framing, true), None);
            // No earlier packet block chains through it either.
            assert_eq!(from(&bad, starts[2], &framing, true), None);
        }
        // An unknown interface count lets any interface id through.
        let any_iface = Framing::Pcapng {
            endian: Endianness::Little,
            interfaces: 0,
        };
        let iface1 = patched(last + 8, 1);
        assert_eq!(from(&iface1, 1, &any_iface, true), Some(27));
        assert_eq!(from(&iface1, last, &any_iface, true), Some(0));
    }

    #[test]
    fn a_section_header_in_the_chain_sets_the_byte_order_after_it() {
        let (mut file, mut starts) = golden_pcapng(false, &[60, 61]);
        let (big, big_starts) = golden_pcapng(true, &[14, 15, 16]);
        let second = file.len();
        starts.extend(big_starts.iter().map(|s| s + second));
        file.extend_from_slice(&big);
        assert_eq!(records_read(&file), 5);
        let (little, _) = Framing::read(&file).unwrap();
        // Chains from the little-endian section read on into the big-endian one.
        resyncs_in(&file, &starts, &little, 0..=second);
        // Inside the second section, the first section's byte order finds nothing (documented);
        // the second's finds every block.
        assert_eq!(from(&file, second + 1, &little, true), None);
        let (big_framing, _) = Framing::read(&big).unwrap();
        resyncs_in(&file, &starts, &big_framing, second + 1..=file.len());
    }

    #[test]
    fn framing_read_errors_are_the_parsers() {
        assert!(matches!(Framing::read(&[]), Err(Error::Empty)));
        assert!(matches!(
            Framing::read(b"GIF89a"),
            Err(Error::UnknownMagic(_))
        ));
        let (file, _) = golden_pcap(false, false, 65_535, &[]);
        assert!(matches!(Framing::read(&file), Err(Error::Truncated { .. })));
        let (file, _) = golden_pcapng(false, &[]);
        assert!(matches!(
            Framing::read(&file[..20]),
            Err(Error::CutShort(_))
        ));
        // A head that ends inside the first packet block still gives its start.
        let (file, _) = golden_pcapng(false, &[60]);
        assert_eq!(Framing::read(&file[..70]).unwrap().1, 60);
    }

    /// Every non-boundary offset of `file` where a one-record chain holds (`boundaries` sorted).
    fn single_links(file: &[u8], boundaries: &[u64], framing: &Framing) -> Vec<usize> {
        let mut next = boundaries.iter().peekable();
        (0..file.len())
            .filter(|&x| {
                while next.next_if(|&&b| (b as usize) < x).is_some() {}
                next.peek().is_none_or(|&&b| b as usize != x)
                    && chain_holds(file, x, framing, true, 1)
            })
            .collect()
    }

    fn real_capture(name: &str) -> (Vec<u8>, Vec<u64>) {
        use std::io::Read;
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("data")
            .join(name);
        let mut file = Vec::new();
        flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
            .read_to_end(&mut file)
            .unwrap();
        let mut reader = crate::capture::CaptureReader::new(&file[..]).unwrap();
        let mut starts = Vec::new();
        loop {
            match reader.next_frame() {
                Ok(Some(frame)) => starts.push(frame.offset),
                Ok(None) => break,
                Err(Error::CutShort(tail)) => {
                    starts.push(tail.offset);
                    break;
                }
                Err(e) => panic!("{e}"),
            }
        }
        (file, starts)
    }

    /// The figures the module doc quotes: how often a non-boundary offset of a real IEX capture
    /// passes one link, and two (a chain of two implies one of one).
    #[test]
    fn single_links_that_are_not_boundaries_never_chain() {
        let chains = |file: &[u8], fakes: &[usize], framing: &Framing| {
            fakes
                .iter()
                .filter(|&&x| chain_holds(file, x, framing, true, 2))
                .count()
        };
        let (deep, mut starts) = real_capture("DEEP10.pcap.gz");
        let (framing, header) = Framing::read(&deep).unwrap();
        assert_eq!(starts.len(), 121_315);
        starts.insert(0, header as u64);
        let fakes = single_links(&deep, &starts, &framing);
        assert_eq!(fakes.len(), 3);
        assert_eq!(chains(&deep, &fakes, &framing), 0);

        let (tops, mut starts) = real_capture("20180127_IEXTP1_TOPS1.6.pcap.gz");
        let (framing, _) = Framing::read(&tops).unwrap();
        assert_eq!(starts.len(), 57_719);
        // The SHB and IDB before the first packet.
        let shb_len = u32::from_le_bytes([tops[4], tops[5], tops[6], tops[7]]);
        starts.splice(0..0, [0, u64::from(shb_len)]);
        let fakes = single_links(&tops, &starts, &framing);
        // All of them a block's trailing length read one byte early, none at a multiple of 4.
        assert_eq!(fakes.len(), 28);
        assert!(fakes.iter().all(|x| x % 4 != 0), "{fakes:?}");
        assert_eq!(chains(&tops, &fakes, &framing), 0);
    }

    /// A probe's settled answer is the whole file's: from every offset and many ends of a
    /// probe, `At(k)` is what `find_boundary` answers on the rest of the file, and at the file's
    /// end the two functions agree.
    fn settles_as_the_whole_file(file: &[u8], framing: &Framing) {
        for x in 0..file.len() {
            let whole = find_boundary(&file[x..], x as u64, framing, true);
            // Every ninth end and the file's (every end takes minutes in a debug build).
            let ends = (x + 1..file.len()).step_by(9).chain([file.len()]);
            for end in ends {
                let at_eof = end == file.len();
                match settled_boundary(&file[x..end], x as u64, framing, at_eof, None) {
                    Settled::At(k) => assert_eq!(Some(k), whole, "offset {x}, end {end}"),
                    Settled::NoRecord => assert!(at_eof && whole.is_none(), "offset {x}"),
                    Settled::Widen => assert!(!at_eof, "offset {x}: widen at the file's end"),
                }
                // With the final probe's size known (one that stops short of the file's end),
                // a settled answer is that probe's.
                for last in [end, end + 200].map(|l| l.min(file.len() - 1)) {
                    if last < end || x >= last {
                        continue;
                    }
                    let probe = &file[x..end];
                    if let Settled::At(k) =
                        settled_boundary(probe, x as u64, framing, false, Some(last - x))
                    {
                        let final_answer = find_boundary(&file[x..last], x as u64, framing, false);
                        assert_eq!(Some(k), final_answer, "offset {x}, end {end}, last {last}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_probe_settles_only_what_more_bytes_cannot_change() {
        // Ten records, one longer than most probes: chains run past probe ends, and from inside
        // the long one the next boundary is found only once its end is there.
        let lens = [60, 14, 101, 400, 20, 33, 60, 61, 14, 90];
        let (file, _) = golden_pcap(false, true, 65_535, &lens);
        settles_as_the_whole_file(&file, &Framing::read(&file).unwrap().0);
        let (file, _) = golden_pcapng(true, &lens);
        settles_as_the_whole_file(&file, &Framing::read(&file).unwrap().0);
        // The probe settles where its chain is whole: a 12 KB chain in a 128 KiB probe.
        let (file, starts) = golden_pcap(false, false, 65_535, &[1_500; 12]);
        let framing = Framing::read(&file).unwrap().0;
        let x = starts[2] + 7;
        assert_eq!(
            settled_boundary(
                &file[x..x + (128 << 10).min(file.len() - x)],
                x as u64,
                &framing,
                false,
                None
            ),
            Settled::At(starts[3] - x)
        );
    }

    /// Why a probe may not simply answer `find_boundary` on its bytes: a first block the probe
    /// ends inside is refused for lack of evidence, and a chain inside it can then pass. Here a
    /// Name Resolution Block carries eight packet blocks as its payload; the probe cut inside it
    /// finds them, the whole file finds the block itself, and the settled answer is to widen.
    #[test]
    fn a_first_block_the_probe_cuts_is_not_refused_for_good() {
        let (inner, _) = golden_pcapng(false, &[60; 8]);
        let (file, starts) = golden_pcapng(false, &[60]);
        let mut body = inner[60..].to_vec();
        body.extend_from_slice(&[0; 200]);
        let mut with_nrb = file.clone();
        block(&mut with_nrb, false, 4, &body);
        with_nrb.extend_from_slice(&file[starts[2]..]);
        let nrb = file.len();
        let framing = Framing::read(&with_nrb).unwrap().0;
        let probe = &with_nrb[nrb..nrb + 8 + inner.len() - 60 + 40];
        assert_eq!(find_boundary(probe, nrb as u64, &framing, false), Some(8));
        assert_eq!(from(&with_nrb, nrb, &framing, true), Some(0));
        assert_eq!(
            settled_boundary(probe, nrb as u64, &framing, false, None),
            Settled::Widen
        );
        // A final probe that would cut the block too refuses it there: the small probe's
        // answer stands (the chain inside it), as the final probe's would be.
        let last = probe.len() + 100;
        assert_eq!(
            settled_boundary(probe, nrb as u64, &framing, false, Some(last)),
            Settled::At(8)
        );
        assert_eq!(
            find_boundary(&with_nrb[nrb..nrb + last], nrb as u64, &framing, false),
            Some(8)
        );
    }
}
