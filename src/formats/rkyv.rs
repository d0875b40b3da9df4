//! rkyv 0.8: zero-copy archives of the model in the wire vocabulary
//! ([`super::mirror::MPacket`]), validated with bytecheck on every decode.
//!
//! **Framing.** Each packet is one record: a `u32` little-endian archive length `L`, 12 zero
//! bytes, the `L` archive bytes, then zero padding to a multiple of 16. The archive is written
//! through a writer whose positions count from the archive's first byte, so the bytes do not
//! depend on where in the output buffer the record lands, and every record is a multiple of 16
//! bytes: a window's records, back to back in a buffer whose start is 16-byte aligned, all have
//! their archive 16-byte aligned, as rkyv's in-place access needs (the archived types contain
//! 8-byte integers).
//!
//! **As its maintainers use it.** rkyv's docs and the Rust serialization benchmark (by rkyv's
//! author) serialize with the high-level API into a reused writer (`to_bytes_in` with a cleared
//! `AlignedVec`), keeping the scratch arena across calls with `to_bytes_in_with_alloc(value,
//! writer, arena.acquire())`, and read with `access` (validated) or `access_unchecked`. Ours
//! serializes with `to_bytes_in_with_alloc` and one arena kept for the runner's life (`acquire`
//! frees all but its largest block, which it keeps; the runner, when built, serializes a datagram
//! of the most messages one can hold, so that block is already as large as any packet needs),
//! into a writer that appends to the output buffer itself, so there is no copy; nothing is
//! allocated per packet. The conversion from the model into the mirror is one field-by-field copy
//! per message (rkyv archives its own types), inside the timed region; the mirror's vector holds
//! a datagram's messages from the start.
//!
//! **Alignment on read.** If the archive in the slice given to `decode` is not 16-byte aligned
//! (a caller's slice at an arbitrary offset), it is first copied into an aligned scratch buffer
//! owned by the runner. The shootout's own buffers are `Vec<u8>`s from the global allocator,
//! which on the platforms we run hands out 16-byte aligned blocks of this size, so the measured
//! path reads in place; the copy is the fallback that keeps any slice correct.
//!
//! **Validation.** `decode` and `decode_packet` use `rkyv::access`, which runs bytecheck over the
//! whole archive (every enum tag, every relative pointer and length in bounds and aligned) before
//! a field is read. That is the price of a safe `decode(&[u8])`: the trait takes any bytes, and
//! `rkyv::access_unchecked` on corrupt or hostile bytes is undefined behaviour (a bad relative
//! pointer or vector length reads out of bounds; an invalid enum tag is an invalid value), not
//! an error. The window runner could skip validation soundly only for bytes it provably wrote
//! itself in the same process: `CHECK = false` is `rkyv-unchecked` (see `formats::unchecked`),
//! `access_unchecked` on the runner's own bytes only, which measures what bytecheck costs.

use crate::formats::languages::OtherLanguages;
use ::rkyv::rancor::{self, Strategy};
use ::rkyv::ser::allocator::Arena;
use ::rkyv::ser::{Positional, Writer};
use ::rkyv::util::AlignedVec;

use super::mirror::{ArchivedMPacket, MMessage, MPacket};
use super::wire::{visit_wire, ArchivedWSide, ArchivedWire};
use super::codec::{full_datagram, DecodeError, Documented, Format, Sink, Visitor, SHORTEST_KIND};
use crate::model::{Packet, Side, Symbol};

/// Bytes before the archive: the length and padding to the archive's alignment.
pub const HEADER: usize = 16;
/// Alignment of each archive and of each record's length.
pub const ALIGN: usize = 16;

/// The rkyv runner: the mirror it fills, the serializer's arena, and an aligned scratch buffer
/// for slices that arrive misaligned. `CHECK` validates with bytecheck before reading (`rkyv`),
/// or not (`rkyv-unchecked`, [`super::unchecked`]); nothing else differs.
pub struct RkyvCodec<const CHECK: bool> {
    mirror: MPacket,
    arena: Arena,
    scratch: AlignedVec<ALIGN>,
}

/// `rkyv`: every archive validated before it is read.
pub type Rkyv = RkyvCodec<true>;

impl<const CHECK: bool> Default for RkyvCodec<CHECK> {
    fn default() -> Self {
        let mut rkyv = RkyvCodec {
            mirror: MPacket::with_datagram_room(),
            arena: Arena::new(),
            scratch: AlignedVec::new(),
        };
        // The arena's scratch for a packet grows with its message count: serializing the most
        // messages a datagram holds leaves it a block it keeps (`acquire` frees only the others).
        rkyv.encode(&full_datagram(SHORTEST_KIND), &mut Vec::new());
        rkyv
    }
}

/// Appends to a `Vec` with positions counted from `start`.
struct Tail<'a> {
    out: &'a mut Vec<u8>,
    start: usize,
}

impl Positional for Tail<'_> {
    fn pos(&self) -> usize {
        self.out.len() - self.start
    }
}

impl<E> Writer<E> for Tail<'_> {
    fn write(&mut self, bytes: &[u8]) -> Result<(), E> {
        self.out.extend_from_slice(bytes);
        Ok(())
    }
}

fn err(e: rancor::Error) -> DecodeError {
    DecodeError::library("rkyv", e)
}

/// The archive bytes of the record at the start of `bytes` and the record's whole length.
pub fn split(bytes: &[u8]) -> Result<(&[u8], usize), DecodeError> {
    DecodeError::check_len(bytes, HEADER)?;
    let len = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as usize;
    if bytes[4..HEADER].iter().any(|&b| b != 0) {
        return Err(DecodeError::Malformed(
            "rkyv: record header padding is not zero",
        ));
    }
    let used = HEADER + len.next_multiple_of(ALIGN);
    DecodeError::check_len(bytes, used)?;
    Ok((&bytes[HEADER..HEADER + len], used))
}

/// Feeds an archived packet to `sink`, fields read in place, symbols borrowed.
#[inline]
pub fn visit<K: Sink>(p: &ArchivedMPacket, sink: &mut K) {
    sink.packet(p.seq.to_native());
    for m in p.messages.iter() {
        let side = |d: &ArchivedWSide| match d {
            ArchivedWSide::Buy => Side::Buy,
            ArchivedWSide::Sell => Side::Sell,
        };
        visit_wire!(*m, ArchivedWire, sink, |s| s, to_native, |d| side(d));
    }
}

impl<const CHECK: bool> RkyvCodec<CHECK> {
    /// The archive of the record at the start of `bytes` (copied into the aligned scratch
    /// buffer first if misaligned), validated if `CHECK`, and the record's length.
    fn access<'a>(
        &'a mut self,
        bytes: &'a [u8],
    ) -> Result<(&'a ArchivedMPacket, usize), DecodeError> {
        let (archive, used) = split(bytes)?;
        let archive = if (archive.as_ptr() as usize).is_multiple_of(ALIGN) {
            archive
        } else {
            self.scratch.clear();
            self.scratch.extend_from_slice(archive);
            &self.scratch[..]
        };
        let packet = if CHECK {
            ::rkyv::access::<ArchivedMPacket, rancor::Error>(archive).map_err(err)?
        } else {
            // SAFETY: only `rkyv-unchecked` gets here, and it is only ever given records its
            // own `encode` wrote, whole (`split` checked the length): a runner decodes its own
            // buffer and refuses foreign bytes (`Runner::load`), and every check that feeds
            // decoders untrusted bytes skips a format whose `DOCUMENTED` says it does not
            // validate (`formats::unchecked`). Such an archive is a valid `ArchivedMPacket`
            // whose root sits at its end, and `archive` is 16-byte aligned (checked or copied
            // just above): what `access_unchecked` requires.
            unsafe { ::rkyv::access_unchecked::<ArchivedMPacket>(archive) }
        };
        Ok((packet, used))
    }
}

const SOURCE: &str = "https://rkyv.org/validation.html (the Rust types are the schema; `access` \
    validates with bytecheck, then reads the archive in place)";
const UNCHECKED_SOURCE: &str = "https://docs.rs/rkyv/0.8/rkyv/fn.access_unchecked.html (no \
    validation: the bytes must be a valid archive, or behaviour is undefined)";

impl<const CHECK: bool> Format for RkyvCodec<CHECK> {
    const NAME: &'static str = if CHECK { "rkyv" } else { "rkyv-unchecked" };
    const DOCUMENTED: Documented = if CHECK {
        Documented::new(None, true, true, SOURCE)
    } else {
        Documented::new(None, true, false, UNCHECKED_SOURCE)
    };
    const OTHER_LANGUAGES: OtherLanguages = OtherLanguages::RustOnly {
        detail: "no implementation outside Rust: the archive is the layout of Rust types as the \
                 crate's derive lays them out, and the project describes itself as a framework for Rust",
        source: "https://docs.rs/crate/rkyv/0.8.16/source/README.md (\"a zero-copy deserialization \
                 framework for Rust\")",
    };
    /// Without bytecheck it writes the checked codec's bytes ([`super::unchecked`]).
    const WRITES_BYTES_OF: Option<&'static str> = if CHECK {
        None
    } else {
        Some(RkyvCodec::<true>::NAME)
    };

    fn encode(&mut self, packet: &Packet, out: &mut Vec<u8>) -> usize {
        self.mirror.fill_from(packet);
        let start = out.len();
        out.extend_from_slice(&[0; HEADER]);
        let tail = Tail {
            out,
            start: start + HEADER,
        };
        let tail = ::rkyv::api::high::to_bytes_in_with_alloc::<_, _, rancor::Error>(
            &self.mirror,
            tail,
            self.arena.acquire(),
        )
        .expect("serializing into a Vec cannot fail");
        let out = tail.out;
        let len = out.len() - start - HEADER;
        let len32 = u32::try_from(len).expect("an archive of one packet is under 4 GiB");
        out[start..start + 4].copy_from_slice(&len32.to_le_bytes());
        out.resize(start + HEADER + len.next_multiple_of(ALIGN), 0);
        self.mirror.messages.len()
    }

    fn decode<K: Sink>(&mut self, bytes: &[u8], sink: &mut K) -> Result<usize, DecodeError> {
        let (packet, used) = self.access(bytes)?;
        visit(packet, sink);
        Ok(used)
    }

    fn decode_all<V: Visitor>(&mut self, bytes: &[u8], v: &mut V) -> Result<usize, DecodeError> {
        let (packet, used) = self.access(bytes)?;
        v.packet(packet.seq.to_native(), packet.send_time.to_native());
        for m in packet.messages.iter() {
            // rkyv's own field-by-field deserializer, message by message: no shared pointers
            // here, so no pool and no allocation.
            let m: MMessage =
                ::rkyv::Deserialize::deserialize(m, Strategy::<(), rancor::Error>::wrap(&mut ()))
                    .map_err(err)?;
            v.message(m.into_model(|s| Ok(Symbol(s)))?);
        }
        Ok(used)
    }
}
