//! DEEP 1.0, TOPS 1.6 and DEEP+ 1.0 messages, decoded from the message table
//! (`model::for_each_message!`): each type's fields are read at their spec offsets, the symbol
//! borrowed from the buffer.
//!
//! Messages longer than the spec are accepted (the extra bytes ignored) so that a future appended
//! field does not break parsing; shorter ones are errors. The length is checked once per message;
//! every field then sits at a constant offset inside a fixed-size array, so each type decodes to
//! straight-line loads without further bounds checks.

use crate::model::*;

/// Why a message block could not be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum MessageError {
    #[error("empty message")]
    Empty,
    /// Not in the spec table: skipped by its length and counted, never fatal.
    #[error("unknown message type {0:#04x}")]
    Unknown(u8),
    #[error("message type '{}' is {len} bytes, the spec says {needed}", char::from(*.kind))]
    Short { kind: u8, len: usize, needed: usize },
}

type Decoded<'a> = Message<&'a Symbol>;

/// A field as it sits on the wire (little-endian), read from or written to a message's bytes at
/// its table offset. Shared by the decoder here and the generator's encoder.
pub trait WireField<'a>: Sized {
    /// Reads the field at `at` of a message's `N` bytes.
    fn read<const N: usize>(b: &'a [u8; N], at: usize) -> Self;
    /// Writes the field at `at` of a message's `N` bytes.
    fn write<const N: usize>(self, b: &mut [u8; N], at: usize);
}

macro_rules! le_fields {
    ($($t:ty),*) => {$(
        impl WireField<'_> for $t {
            #[inline(always)]
            fn read<const N: usize>(b: &[u8; N], at: usize) -> Self {
                const W: usize = std::mem::size_of::<$t>();
                let bytes: &[u8; W] = b[at..at + W].try_into().expect("W bytes");
                <$t>::from_le_bytes(*bytes)
            }
            #[inline(always)]
            fn write<const N: usize>(self, b: &mut [u8; N], at: usize) {
                b[at..at + std::mem::size_of::<$t>()].copy_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}
le_fields!(u8, u32, i64);

impl WireField<'_> for [u8; 4] {
    #[inline(always)]
    fn read<const N: usize>(b: &[u8; N], at: usize) -> Self {
        b[at..at + 4].try_into().expect("4 bytes")
    }
    #[inline(always)]
    fn write<const N: usize>(self, b: &mut [u8; N], at: usize) {
        b[at..at + 4].copy_from_slice(&self);
    }
}

impl<'a> WireField<'a> for &'a Symbol {
    #[inline(always)]
    fn read<const N: usize>(b: &'a [u8; N], at: usize) -> Self {
        Symbol::from_bytes(b[at..at + 8].try_into().expect("8 bytes"))
    }
    #[inline(always)]
    fn write<const N: usize>(self, b: &mut [u8; N], at: usize) {
        b[at..at + 8].copy_from_slice(&self.0);
    }
}

impl WireField<'_> for Symbol {
    #[inline(always)]
    fn read<const N: usize>(b: &[u8; N], at: usize) -> Self {
        *<&Symbol>::read(b, at)
    }
    #[inline(always)]
    fn write<const N: usize>(self, b: &mut [u8; N], at: usize) {
        (&self).write(b, at)
    }
}

/// Decodes one message (type byte first).
#[inline]
pub fn decode(bytes: &[u8]) -> Result<Decoded<'_>, MessageError> {
    let Some(&kind) = bytes.first() else {
        return Err(MessageError::Empty);
    };
    macro_rules! decode_kinds {
        ($($V:ident($S:ident) $snake:ident {
            kinds [$($K:ident $implied:tt),+], len $len:literal, wire $wire:tt, $($codecs:tt)*
        },)*) => {
            match kind {
                $($(kind::$K => decode_one!(bytes, $len, $V($S) $implied $wire),)+)*
                _ => Err(MessageError::Unknown(kind)),
            }
        };
    }
    macro_rules! decode_one {
        ($bytes:ident, $len:literal, $V:ident($S:ident)
         { $($implied:ident: $value:expr),* } [$($f:ident @ $at:literal),*]) => {
            match $bytes.first_chunk::<$len>() {
                Some(b) => Ok(Message::$V($S {
                    $($implied: $value,)*
                    $($f: WireField::read(b, $at),)*
                })),
                None => Err(MessageError::Short {
                    kind,
                    len: $bytes.len(),
                    needed: $len,
                }),
            }
        };
    }
    for_each_message!(decode_kinds)
}
