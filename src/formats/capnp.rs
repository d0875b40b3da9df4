//! Cap'n Proto (capnp 0.27, schema `schemas/marketdata.capnp`): two runners, the standard
//! unpacked stream framing (`capnp-unpacked`) and the packed encoding (`capnp-packed`).
//!
//! **As its maintainers use it.** capnp-rust's `benchmark/` (its `reuse` mode) builds every
//! message with a new `message::Builder` over a reused, zeroed scratch segment
//! (`ScratchSpaceHeapAllocator`), writes it with `serialize::write_message` or
//! `serialize_packed::write_message`, and reads with `serialize::read_message` (owned segments).
//! Ours builds the same way over [`Scratch`]: the same allocator (first segment handed out if
//! free, re-zeroed over the words used on release, the heap for anything more) but owning its
//! words, since a borrowed `ScratchSpaceHeapAllocator` cannot live beside the buffer it borrows,
//! and growing its first segment after a packet outgrew it, so every packet is one segment. The
//! 256 KiB segment (more than twice the 110 KB of the largest datagram's packet) is mapped at
//! construction. Reading differs on purpose: in place, without the benchmark's copy into owned
//! segments. Unpacked messages are read straight from the buffer
//! (`read_message_from_flat_slice_no_alloc`, which needs the packet to start 8-byte aligned:
//! packets are whole words, so a window encoded into one buffer stays aligned); packed ones are
//! unpacked into a reused, pre-mapped word buffer (`serialize_packed::read_message_no_alloc`).
//! Symbols are `UInt64` fields turned back into their 8 bytes with `to_le_bytes`.
//!
//! **The allocation it cannot avoid.** A `message::Builder` keeps its segment table in a `Vec`
//! and cannot be reset, so each packet's builder allocates that 64-byte table and frees it on
//! drop: one small allocation per encoded packet, from the allocator's thread cache (capnp's
//! no-alloc mode avoids it, but is a crate-wide switch that drops multi-segment messages and the
//! heap allocator). Decoding allocates nothing.

use crate::formats::languages::{OtherLanguages, WireFormat};
use std::ptr::NonNull;

use ::capnp::message::{Allocator, HeapAllocator, ReaderOptions};
use ::capnp::Word;

use super::wire::{IntoModel, ToLib};
use super::codec::table_only as schema_adds;
use super::codec::{DecodeError, Documented, Format, MAX_MESSAGES_PER_PACKET, MAX_PACKET_BYTES, MessageRead, PerPacket, Sink, Steady, Visitor, touch};
use crate::model::*;

super::codec::generated!(
    /// The code `capnpc` generated from `schemas/marketdata.capnp` (in OUT_DIR).
    marketdata_capnp,
    "/marketdata_capnp.rs"
);

use marketdata_capnp::{message as msg, packet};

/// Reader limits: several times what the largest UDP datagram's packet needs (~14k words), and
/// the bound that keeps hostile pointers (zero-sized list elements, repeated far pointers) from
/// amplifying a small input into gigabytes of work.
const READER_OPTIONS: ReaderOptions = ReaderOptions {
    traversal_limit_in_words: Some(MAX_PACKET_BYTES / 8),
    nesting_limit: 64,
};

/// The packet's message list, refused if it claims more messages than a datagram can carry.
fn message_list(
    root: packet::Reader<'_>,
) -> Result<::capnp::struct_list::Reader<'_, msg::Owned>, DecodeError> {
    let list = root.get_messages().map_err(err)?;
    if list.len() as usize > MAX_MESSAGES_PER_PACKET {
        return Err(DecodeError::Malformed(
            "more messages than an IEX-TP packet can hold",
        ));
    }
    Ok(list)
}

/// First segment size in words: a 64 KiB UDP payload of 38-byte trades (~1700 messages) needs
/// about 12k words unpacked, one of auction messages about 14k.
const INITIAL_SCRATCH_WORDS: usize = 32 * 1024;

const ZERO: Word = ::capnp::word(0, 0, 0, 0, 0, 0, 0, 0);

/// `words` zeroed words, every page of them mapped (see [`touch`]).
fn mapped_words(words: usize) -> Vec<Word> {
    let mut v = Word::allocate_zeroed_vec(words);
    touch(&mut v, ZERO);
    v
}

/// A message allocator that hands out one reusable, zeroed first segment and falls back to the
/// heap for anything more; when that happens it remembers to grow the first segment before the
/// next packet, so big packets too end up single-segment and allocation-free.
pub struct Scratch {
    words: Vec<Word>,
    in_use: bool,
    grow_to: usize,
    heap: HeapAllocator,
}

impl Default for Scratch {
    fn default() -> Self {
        Scratch {
            words: mapped_words(INITIAL_SCRATCH_WORDS),
            in_use: false,
            grow_to: 0,
            heap: HeapAllocator::new(),
        }
    }
}

impl Scratch {
    /// Called between packets: applies a growth a previous packet asked for.
    fn prepare(&mut self) {
        if self.grow_to > self.words.len() {
            self.words = mapped_words(self.grow_to);
        }
    }
}

// SAFETY: the first segment is `words` (8-byte aligned `Word`s), handed out only while not in use,
// zero on hand-out (zeroed at creation and re-zeroed over the words used on deallocation), and it
// is never reallocated while in use (`prepare` runs only between messages, when the builder that
// borrowed `self` is gone). Everything else is delegated to `HeapAllocator`.
unsafe impl Allocator for Scratch {
    fn allocate_segment(&mut self, minimum_size: u32) -> (NonNull<u8>, u32) {
        let min = minimum_size as usize;
        if !self.in_use && min <= self.words.len() {
            self.in_use = true;
            let len = u32::try_from(self.words.len()).unwrap_or(u32::MAX);
            let ptr = NonNull::new(self.words.as_mut_ptr().cast::<u8>()).expect("Vec is non-null");
            return (ptr, len);
        }
        self.grow_to = self.grow_to.max(self.words.len() * 2).max(min);
        self.heap.allocate_segment(minimum_size)
    }

    unsafe fn deallocate_segment(&mut self, ptr: NonNull<u8>, word_size: u32, words_used: u32) {
        if ptr.as_ptr() == self.words.as_mut_ptr().cast::<u8>() {
            let used = (words_used as usize).min(self.words.len());
            self.words[..used].fill(ZERO);
            self.in_use = false;
        } else {
            // SAFETY: forwarded unchanged from the caller, for a segment the heap allocated.
            unsafe { self.heap.deallocate_segment(ptr, word_size, words_used) }
        }
    }
}

/// Cap'n Proto with standard (unpacked) or packed framing, chosen by `PACKED`.
pub struct Capnp<const PACKED: bool> {
    scratch: Scratch,
    /// Packed only: where a packet is unpacked to for reading, reused (grown on demand).
    unpacked: Vec<Word>,
}

impl<const PACKED: bool> Default for Capnp<PACKED> {
    fn default() -> Self {
        Capnp {
            scratch: Scratch::default(),
            unpacked: if PACKED {
                mapped_words(INITIAL_SCRATCH_WORDS)
            } else {
                Vec::new()
            },
        }
    }
}

/// `capnp-unpacked`: the standard stream framing, read in place.
pub type CapnpUnpacked = Capnp<false>;
/// `capnp-packed`: the packed encoding (zero bytes run-length squeezed).
pub type CapnpPacked = Capnp<true>;

fn err(e: impl std::fmt::Display) -> DecodeError {
    DecodeError::library("capnp", e)
}

impl<const PACKED: bool> Capnp<PACKED> {
    const NAME_: &'static str = if PACKED {
        "capnp-packed"
    } else {
        "capnp-unpacked"
    };

    /// Runs `f` on the root of the packet at the start of `bytes`; returns its result and the
    /// bytes the packet used.
    fn with_root<T>(
        &mut self,
        bytes: &[u8],
        f: impl FnOnce(packet::Reader<'_>) -> Result<T, DecodeError>,
    ) -> Result<(T, usize), DecodeError> {
        let mut rest = bytes;
        if PACKED {
            loop {
                let attempt = ::capnp::serialize_packed::read_message_no_alloc(
                    &mut rest,
                    Word::words_to_bytes_mut(&mut self.unpacked),
                    READER_OPTIONS,
                );
                match attempt {
                    Ok(reader) => {
                        let root = reader.get_root::<packet::Reader>().map_err(err)?;
                        let out = f(root)?;
                        return Ok((out, bytes.len() - rest.len()));
                    }
                    Err(e) if e.kind == ::capnp::ErrorKind::BufferNotLargeEnough => {
                        // Packed data expands at most ~1024x (a 2-byte tag stands for up to 256
                        // zero words), and no real packet needs more than MAX_PACKET_BYTES;
                        // beyond that the header lies.
                        let cap = (bytes.len() * 1024 / 8 + 64).min(MAX_PACKET_BYTES / 8);
                        if self.unpacked.len() >= cap {
                            return Err(err(e));
                        }
                        let want = (self.unpacked.len() * 2).max(4096).min(cap);
                        self.unpacked = mapped_words(want);
                        rest = bytes;
                    }
                    Err(e) => return Err(err(e)),
                }
            }
        } else {
            let reader = ::capnp::serialize::read_message_from_flat_slice_no_alloc(
                &mut rest,
                READER_OPTIONS,
            )
            .map_err(err)?;
            let root = reader.get_root::<packet::Reader>().map_err(err)?;
            let out = f(root)?;
            Ok((out, bytes.len() - rest.len()))
        }
    }
}

impl<const PACKED: bool> Format for Capnp<PACKED> {
    const NAME: &'static str = Self::NAME_;
    /// capnp's `message::Builder` cannot be reset, so it is built anew per packet, and with it
    /// its segment table (a 64-byte `Vec`): one allocation per packet encoded.
    const STEADY: Steady = Steady {
        encode: PerPacket { packet: 1, ..PerPacket::NONE },
        decode: PerPacket::NONE,
    };
    const DOCUMENTED: Documented = Documented {
        schema: Some("schemas/marketdata.capnp, compiled by capnp 0.9 with capnpc-rust 0.27"),
        // Packed bytes are unpacked into a word buffer before anything is read: a copy.
        reads_in_place: !PACKED,
        validates: true,
        source: if PACKED {
            "https://capnproto.org/encoding.html#packing (packed messages are unpacked into \
             words before they are read; every pointer is bounds-checked on read)"
        } else {
            "https://capnproto.org/encoding.html (messages are read in place; every pointer \
             is bounds-checked on read)"
        },
    };
    const OTHER_LANGUAGES: OtherLanguages = OtherLanguages::Read(if PACKED {
        WireFormat::CapnpPacked
    } else {
        WireFormat::CapnpUnpacked
    });

    fn encode(&mut self, packet: &Packet, out: &mut Vec<u8>) -> usize {
        self.scratch.prepare();
        let mut message = ::capnp::message::Builder::new(&mut self.scratch);
        let len = u32::try_from(packet.messages.len()).expect("fewer than 2^32 messages");
        {
            let mut root = message.init_root::<packet::Builder>();
            root.set_seq(packet.seq);
            root.set_send_time(packet.send_time);
            let mut list = root.init_messages(len);
            for (i, m) in packet.messages.iter().enumerate() {
                build_message(list.reborrow().get(i as u32), m);
            }
        }
        let written = if PACKED {
            ::capnp::serialize_packed::write_message(&mut *out, &message)
        } else {
            ::capnp::serialize::write_message(&mut *out, &message)
        };
        written.expect("writing to a Vec cannot fail");
        len as usize
    }

    fn decode<K: Sink>(&mut self, bytes: &[u8], sink: &mut K) -> Result<usize, DecodeError> {
        use msg::Which;
        let ((), used) = self.with_root(bytes, |root| {
            sink.packet(root.get_seq());
            for m in message_list(root)?.iter() {
                match m.which() {
                    Ok(Which::TradeReport(t)) => {
                        let t = t.map_err(err)?;
                        sink.trade(&t.get_symbol().to_le_bytes(), t.get_size(), t.get_price());
                    }
                    Ok(Which::PriceLevelUpdate(p)) => {
                        let p = p.map_err(err)?;
                        let side = p.get_side().into_model()?;
                        sink.price_level(side, &p.get_symbol().to_le_bytes(), p.get_price());
                    }
                    Ok(Which::QuoteUpdate(q)) => {
                        let q = q.map_err(err)?;
                        let symbol = q.get_symbol().to_le_bytes();
                        sink.quote(&symbol, q.get_bid_price(), q.get_ask_price());
                    }
                    Ok(Which::OrderExecuted(e)) => {
                        let e = e.map_err(err)?;
                        sink.trade(&e.get_symbol().to_le_bytes(), e.get_size(), e.get_price());
                    }
                    Ok(Which::AddOrder(a)) => {
                        let a = a.map_err(err)?;
                        sink.add_order(a.get_side(), &a.get_symbol().to_le_bytes(), a.get_price());
                    }
                    // Other known types, and union members from a newer schema: counted.
                    Ok(_) | Err(_) => sink.other(),
                }
            }
            Ok(())
        })?;
        Ok(used)
    }

    fn decode_all<V: Visitor>(&mut self, bytes: &[u8], v: &mut V) -> Result<usize, DecodeError> {
        let ((), used) = self.with_root(bytes, |root| {
            v.packet(root.get_seq(), root.get_send_time());
            for m in message_list(root)?.iter() {
                v.message(read_message(m)?);
            }
            Ok(())
        })?;
        Ok(used)
    }
}

/// The side's conversions to and from one schema's generated enum (`marketdata_capnp` in scope):
/// expanded here for this schema and in `capability::evolution::capnp` for version 2, whose
/// generated enum is another of the same name.
macro_rules! side_conversions {
    () => {
        $crate::formats::wire::conversions! {
            /// The side as the schema's enum.
            Side => marketdata_capnp::Side:
                |s| match s {
                    Side::Buy => marketdata_capnp::Side::Buy,
                    Side::Sell => marketdata_capnp::Side::Sell,
                },
                |l| Ok(match l {
                    marketdata_capnp::Side::Buy => Side::Buy,
                    marketdata_capnp::Side::Sell => Side::Sell,
                });
        }
    };
}
pub(crate) use side_conversions;
side_conversions!();

/// An enum field as its getter returns it, refused if the schema's enum does not know its value.
impl<L: IntoModel<Side>> IntoModel<Side> for Result<L, ::capnp::NotInSchema> {
    #[inline(always)]
    fn into_model(self) -> Result<Side, DecodeError> {
        self.map_err(err)?.into_model()
    }
}

/// The field-by-field copies between the model and one schema's builders and readers
/// (`init_variant`, `set_field`, `get_field`: capnpc's names), from the message table, over the
/// names in scope where it expands: the schema's `msg`, `err`, `MessageRead` and
/// `schema_adds!`, what the schema adds to the table's fields (`write $V x` after them, `read
/// $V x, message` what a read returns). Expanded here for this schema and in
/// `capability::evolution::capnp` for version 2.
macro_rules! copies {
    ($($V:ident($S:ident) $snake:ident {
        kinds $kinds:tt, len $len:literal, wire $wire:tt, fields [$($f:ident: $t:ident),*],
        capnp $init:ident [$($set:ident $get:ident),*], $($other:tt)*
    },)*) => {
        fn build_message(b: msg::Builder<'_>, m: &Message) {
            match m {
                $(Message::$V(m) => {
                    let mut x = b.$init();
                    $(x.$set(m.$f.to_lib());)*
                    schema_adds!(write $V x);
                })*
            }
        }

        fn read_message(m: msg::Reader<'_>) -> Result<MessageRead, DecodeError> {
            use msg::Which;
            Ok(match m.which().map_err(err)? {
                $(Which::$V(x) => {
                    let x = x.map_err(err)?;
                    schema_adds!(read $V x, Message::$V($S { $($f: x.$get().into_model()?,)* }))
                })*
            })
        }
    };
}
pub(crate) use copies;

for_each_message!(copies);
