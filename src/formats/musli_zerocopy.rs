//! musli-zerocopy 0.1.4 (`musli-zerocopy`, issue 48): Müsli's zero-copy primitives, the
//! sibling of `musli` (`super::musli`) by the same author. Not an encoding of values but a
//! memory layout: `#[derive(ZeroCopy)]` on `#[repr(C)]` structs and `#[repr(u8)]` enums, stored
//! into a buffer (`OwnedBuf`, or `SliceMut` over a caller's `&mut [u8]`) and read back in place
//! with `Buf::load`, which checks the alignment and bounds of what a `Ref` points at and the bit
//! pattern of every value it hands out (an enum's discriminant; any bits are valid for integers
//! and byte arrays).
//!
//! **The layout** ([`layout`], made from `for_each_message!`, no per-message code): one
//! `#[repr(u8)]` enum [`layout::Message`] with a struct-like variant per `Message` variant in the
//! table's order (discriminants 0 to 17), its fields the table's (symbols `[u8; 8]`, reason
//! codes `[u8; 4]`, timestamps and prices `i64`, the side a `#[repr(u8)]` enum of its own), at
//! their natural alignment after the one-byte discriminant. Such an enum is as large as its
//! largest variant, Auction Information: **96 bytes per message**, whatever its type (the
//! derive zeroes the padding and the bytes a smaller variant leaves). A packet is
//! [`layout::Packet`] `{ seq: u64, send_time: i64, messages: Ref<[Message]> }` (24 bytes; the
//! `Ref` is a `u32` offset and a `u32` length) at offset 0 of the packet's buffer, its messages
//! right after it at offset 24. Integers are in the host's byte order, the crate's default
//! (`DefaultEndian`, native): this is a memory layout, like `raw`; the crate's `Endian<T, E>`
//! and `OwnedBuf::with_byte_order` would fix an order at a cost on big-endian readers only.
//!
//! **Framing and alignment.** A `Buf` has no length of its own, so each packet is a frame: its
//! buffer's length (`u32`, little-endian), 4 zero bytes, then the buffer. The buffer's offsets
//! count from its own start, its contents need 8-byte alignment (the `i64`s), and every frame
//! is a multiple of 8 bytes long (8 + 24 + 96 per message): in a window's buffer whose start is
//! 8-byte aligned (a `Vec<u8>` from the global allocator, as every buffer of the shootout is),
//! every packet's buffer is 8-byte aligned, so it is loaded where it lies. `Buf::load` refuses a
//! misaligned one (an error, not undefined behaviour); a slice that arrives misaligned (a
//! caller's, at an arbitrary offset) is copied into an aligned scratch `OwnedBuf` the runner
//! keeps, off the measured path. A `Ref` can reach only inside its own packet's buffer.
//!
//! **Encoding** writes straight into the output `Vec`: the frame is grown to the packet's size
//! (`resize`, zeroed), and a `SliceMut` over it (the crate's store buffer over a caller's
//! `&mut [u8]`, with offsets from its start) stores the header and then each message, converted
//! from the model on the way (one field-by-field copy per message, inside the timed region; the
//! price of using the crate with an existing model). No `OwnedBuf` and no copy out of one;
//! nothing allocated once the output buffer has grown. The `resize` zeroes bytes the stores
//! then overwrite: writing into the spare capacity (`SliceMut::new_uninit`, then `set_len`)
//! would save that, with `unsafe` of ours; not done.
//!
//! **Decoding** loads the header (`buf.load(Ref::zero())`) and the message slice
//! (`buf.load(header.messages)`): bounds, alignment and each message's discriminant (and a price
//! level's side) checked over the whole slice, then fields read in place; symbols borrowed for
//! the selective decode. Nothing allocated. Hostile bytes give an error, never a panic: every
//! check is `load`'s or the frame's, and no bit pattern of the integers is invalid.

use ::musli_zerocopy::{Buf, OwnedBuf, Ref, SliceMut};

use super::codec::{DecodeError, Documented, Format, Sink, Visitor};
use super::wire::{visit_wire, IntoModel, ToLib};
use crate::formats::languages::OtherLanguages;
use crate::model::{self, Packet, Side};

use layout::Message;

/// Bytes before a packet's buffer: its length (`u32`, little-endian) and 4 zero bytes.
pub const FRAME: usize = 8;

/// The alignment of a packet's buffer: its header's, and its messages'.
pub const ALIGN: usize = std::mem::align_of::<layout::Packet<Message>>();

/// The header's size, where the messages start.
pub const HEADER: usize = std::mem::size_of::<layout::Packet<Message>>();

/// The message table as `zc_define!([] Variant(Struct) { field: Type, ... } ...)`, for the
/// caller's `zc_define!` to make the message enum from (version 1's in [`layout`], version 2's
/// in `capability::evolution::musli_zerocopy`, which appends fields to some) and the copies
/// between it and the model.
macro_rules! zc_messages {
    ($(
        $V:ident($S:ident) $snake:ident {
            kinds $kinds:tt, len $len:literal, wire $wire:tt, fields [$($f:ident: $t:ident),*],
            $($codecs:tt)*
        },
    )*) => {
        zc_define!([] $($V($S) { $($f: $t,)* })*);
    };
}
pub(crate) use zc_messages;

/// The zero-copy types of version 1: what a packet's buffer holds.
pub mod layout {
    use ::musli_zerocopy::{Ref, ZeroCopy};

    use crate::model::for_each_message;

    /// A symbol's 8 bytes, as on the wire.
    pub type Symbol = [u8; 8];
    /// A reason code's 4 ASCII bytes.
    pub type Bytes4 = [u8; 4];
    /// Nanoseconds since the Unix epoch.
    pub type Timestamp = i64;
    /// 4 implied decimals.
    pub type Price = i64;

    /// The side of a price level update: one byte, 0 or 1 (any other is refused by `load`).
    #[derive(ZeroCopy, Debug, Clone, Copy, PartialEq, Eq)]
    #[repr(u8)]
    #[zero_copy(crate = ::musli_zerocopy)]
    pub enum Side {
        Buy,
        Sell,
    }

    /// The message enum from the table's variants and fields, as they are.
    macro_rules! zc_define {
        ([] $($V:ident($S:ident) { $($fields:tt)* })*) => {
            /// One message: a variant per `Message` variant, the table's fields in its order.
            #[derive(ZeroCopy, Debug, Clone, Copy, PartialEq, Eq)]
            #[repr(u8)]
            #[zero_copy(crate = ::musli_zerocopy)]
            pub enum Message {
                $($V { $($fields)* },)*
            }
        };
    }
    for_each_message!(zc_messages);

    /// A packet's header, at offset 0 of its buffer: its messages `M` are where `messages`
    /// points (right after it).
    #[derive(ZeroCopy, Debug, Clone, Copy, PartialEq, Eq)]
    #[repr(C)]
    #[zero_copy(crate = ::musli_zerocopy)]
    pub struct Packet<M: ZeroCopy> {
        pub seq: u64,
        pub send_time: i64,
        pub messages: Ref<[M]>,
    }
}

/// The price level side in the model.
#[inline(always)]
fn side(d: &layout::Side) -> Side {
    match d {
        layout::Side::Buy => Side::Buy,
        layout::Side::Sell => Side::Sell,
    }
}

super::wire::conversions! {
    Side => layout::Side: |s| if s == Side::Buy { layout::Side::Buy } else { layout::Side::Sell },
        |l| Ok(side(&l));
}

/// The copies from and to the model: `to_zc` and `to_model`.
macro_rules! zc_define {
    ([] $($V:ident($S:ident) { $($f:ident: $t:ident,)* })*) => {
        /// The zero-copy message of a model message.
        #[inline]
        pub fn to_zc(m: &model::Message) -> Message {
            match *m {
                $(model::Message::$V(ref x) => Message::$V { $($f: x.$f.to_lib(),)* },)*
            }
        }

        /// The model's message, every field copied out of the buffer.
        #[inline]
        pub fn to_model(m: &Message) -> Result<model::Message, DecodeError> {
            Ok(match *m {
                $(Message::$V { $($f),* } => {
                    model::Message::$V(model::$S { $($f: $f.into_model()?,)* })
                })*
            })
        }
    };
}
model::for_each_message!(zc_messages);

/// The library's error as ours.
pub fn err(e: ::musli_zerocopy::Error) -> DecodeError {
    DecodeError::library("musli-zerocopy", e)
}

/// The buffer of the frame at the start of `bytes` (length and zero padding checked) and the
/// bytes the frame uses.
pub fn split(bytes: &[u8]) -> Result<(&[u8], usize), DecodeError> {
    let Some((&len, pad)) = bytes.first_chunk::<4>().zip(bytes.get(4..FRAME)) else {
        return Err(DecodeError::Truncated {
            needed: FRAME,
            available: bytes.len(),
        });
    };
    if pad.iter().any(|&b| b != 0) {
        return Err(DecodeError::Malformed(
            "musli-zerocopy: frame padding is not zero",
        ));
    }
    let used = FRAME + u32::from_le_bytes(len) as usize;
    DecodeError::check_len(bytes, used)?;
    Ok((&bytes[FRAME..used], used))
}

/// The musli-zerocopy runner: an aligned scratch buffer for packets that arrive misaligned.
pub struct MusliZerocopy {
    scratch: OwnedBuf,
}

impl Default for MusliZerocopy {
    fn default() -> Self {
        MusliZerocopy {
            scratch: OwnedBuf::with_alignment::<layout::Packet<Message>>(),
        }
    }
}

impl MusliZerocopy {
    /// The packet at the start of `bytes`: its header and messages, loaded (and so checked) in
    /// place (or in the scratch buffer, if misaligned), and the bytes it used.
    #[inline]
    fn load<'a>(
        &'a mut self,
        bytes: &'a [u8],
    ) -> Result<(&'a layout::Packet<Message>, &'a [Message], usize), DecodeError> {
        let (body, used) = split(bytes)?;
        let buf: &Buf = if (body.as_ptr() as usize).is_multiple_of(ALIGN) {
            Buf::new(body)
        } else {
            self.scratch.clear();
            let grown = self.scratch.extend_from_slice(body);
            grown.map_err(|e| DecodeError::library("musli-zerocopy", e))?;
            self.scratch.as_ref()
        };
        let header = buf
            .load(Ref::<layout::Packet<Message>>::zero())
            .map_err(err)?;
        let messages = buf.load(header.messages).map_err(err)?;
        Ok((header, messages, used))
    }
}

const SOURCE: &str = "https://docs.rs/musli-zerocopy/0.1.4 (derive ZeroCopy: the Rust types are \
    the schema; `Buf::load` reads a `Ref` in place after checking its alignment, bounds and bit \
    patterns, errors never undefined behaviour through the safe API; the frame's length is \
    ours, src/formats/musli_zerocopy.rs)";

impl Format for MusliZerocopy {
    const NAME: &'static str = "musli-zerocopy";
    const DOCUMENTED: Documented = Documented::new(None, true, true, SOURCE);
    const OTHER_LANGUAGES: OtherLanguages = OtherLanguages::RustOnly {
        detail: "no implementation outside Rust: the bytes are the memory layout of Rust \
                 `#[repr(C)]`/`#[repr(u8)]` types in the host's byte order, as the crate's derive \
                 lays them out; another language would write its reader from the Rust types",
        source: "https://docs.rs/musli-zerocopy/0.1.4 (\"Refreshingly simple zero copy primitives \
                 by Müsli\"; \"Portability\": native byte order unless chosen); \
                 https://github.com/udoprog/musli",
    };

    fn encode(&mut self, packet: &Packet, out: &mut Vec<u8>) -> usize {
        let n = packet.messages.len();
        let body = HEADER + n * std::mem::size_of::<Message>();
        let len = u32::try_from(body).expect("a packet under 4 GiB");
        let start = out.len();
        out.resize(start + FRAME + body, 0);
        out[start..start + 4].copy_from_slice(&len.to_le_bytes());
        let mut buf =
            SliceMut::with_alignment::<layout::Packet<Message>>(&mut out[start + FRAME..]);
        let header = layout::Packet {
            seq: packet.seq,
            send_time: packet.send_time,
            messages: Ref::<[Message]>::with_metadata(HEADER, n),
        };
        buf.store(&header)
            .expect("the frame is sized for the packet");
        for m in &packet.messages {
            buf.store(&to_zc(m))
                .expect("the frame is sized for the packet");
        }
        debug_assert_eq!(buf.len(), body);
        n
    }

    fn decode<K: Sink>(&mut self, bytes: &[u8], sink: &mut K) -> Result<usize, DecodeError> {
        let (header, messages, used) = self.load(bytes)?;
        sink.packet(header.seq);
        for m in messages {
            visit_wire!(*m, Message, sink, |s| s, into, |d| side(d));
        }
        Ok(used)
    }

    fn decode_all<V: Visitor>(&mut self, bytes: &[u8], v: &mut V) -> Result<usize, DecodeError> {
        let (header, messages, used) = self.load(bytes)?;
        v.packet(header.seq, header.send_time);
        for m in messages {
            v.message(to_model(m)?);
        }
        Ok(used)
    }
}

#[cfg(test)]
mod tests {
    use super::super::codec::{every_kind, library_error};
    use super::super::sequential::tests::two;
    use super::*;

    /// A window's buffer as the shootout's are: a `Vec<u8>` whose start is 8-byte aligned.
    fn encoded(p: &Packet) -> Vec<u8> {
        let mut out = Vec::new();
        MusliZerocopy::default().encode(p, &mut out);
        assert!((out.as_ptr() as usize).is_multiple_of(ALIGN));
        out
    }

    /// The bytes of [`two`] (a system event and a sell-side price level update) written out
    /// by hand from the `repr` rules (a `#[repr(u8)]` enum with fields is a union of
    /// `#[repr(C)]` structs each led by the `u8` discriminant; fields at their natural
    /// alignment) and the crate's `Ref<[T]>` (a `u32` offset, then a `u32` length), on a
    /// little-endian host: every padding byte and the bytes a smaller variant leaves are zero.
    /// `PriceLevelUpdate` is the eighth variant (discriminant 7), `Sell` the second (1).
    #[test]
    fn the_bytes_are_the_layout_of_the_types() {
        let le8 = |x: i64| x.to_le_bytes();
        let mut system = [0u8; 96];
        system[0] = 0; // SystemEvent
        system[1] = b'S';
        system[8..16].copy_from_slice(&le8(5));
        let mut level = [0u8; 96];
        level[..3].copy_from_slice(&[7, 1, 1]); // PriceLevelUpdate, Sell, flags 1
        level[8..16].copy_from_slice(&le8(6));
        level[16..24].copy_from_slice(b"AB      ");
        level[24..28].copy_from_slice(&100u32.to_le_bytes());
        level[32..40].copy_from_slice(&le8(3));
        let bytes = [
            &(24u32 + 2 * 96).to_le_bytes()[..],
            &[0; 4],
            &le8(7),
            &le8(-2),
            &24u32.to_le_bytes(),
            &2u32.to_le_bytes(),
            &system,
            &level,
        ]
        .concat();
        assert_eq!(encoded(&two()), bytes);
        assert_eq!(
            MusliZerocopy::default().decode_packet(&bytes),
            Ok((two(), bytes.len()))
        );
    }

    /// A packet handed over at an odd address is read from the aligned scratch buffer.
    #[test]
    fn a_misaligned_packet_is_copied_and_read() {
        let p = every_kind();
        let shifted = [&[0][..], &encoded(&p)].concat();
        let odd = &shifted[1..];
        assert!(!(odd.as_ptr() as usize + FRAME).is_multiple_of(ALIGN));
        let used = odd.len();
        assert_eq!(MusliZerocopy::default().decode_packet(odd), Ok((p, used)));
    }

    /// `Buf::load` refuses a discriminant no variant has, a side that is neither, a slice that
    /// runs past the packet's buffer and a misaligned offset; the frame refuses padding that is
    /// not zero.
    #[test]
    fn bad_bytes_are_refused() {
        let bytes = encoded(&two());
        let with = |at: usize, byte: u8| {
            let mut bad = bytes.clone();
            bad[at] = byte;
            bad
        };
        let message = FRAME + HEADER;
        assert!(library_error::<MusliZerocopy>(&with(message, 18)).contains("discriminant"));
        let side = message + 96 + 1;
        assert!(library_error::<MusliZerocopy>(&with(side, 2)).contains("discriminant"));
        let length = FRAME + 20;
        library_error::<MusliZerocopy>(&with(length, 3));
        let offset = FRAME + 16;
        library_error::<MusliZerocopy>(&with(offset, 25));
        assert_eq!(
            MusliZerocopy::default().decode_packet(&with(5, 1)),
            Err(DecodeError::Malformed(
                "musli-zerocopy: frame padding is not zero"
            ))
        );
    }
}
