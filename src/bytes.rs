//! Fixed-width integer parsers for byte slices, usable in any nom combinator.
//!
//! nom 8's `le_u32` and friends are generic over the input type and assemble integers one byte
//! at a time through an iterator; on the hot path (several per packet, several per message) that
//! was the largest single cost of parsing. These do one bounds check and one unaligned load.
//!
//! The writing side ([`append`]) is here too: the generator's encoders fill fixed-size records.

use nom::error::{ErrorKind, ParseError};
use nom::{Err, IResult};

/// The next `N` bytes as an array reference.
#[inline(always)]
pub fn array<'a, const N: usize, E: ParseError<&'a [u8]>>(
    i: &'a [u8],
) -> IResult<&'a [u8], &'a [u8; N], E> {
    match i.split_first_chunk::<N>() {
        Some((head, rest)) => Ok((rest, head)),
        None => Err(Err::Error(E::from_error_kind(i, ErrorKind::Eof))),
    }
}

macro_rules! int_parsers {
    ($($name:ident: $ty:ty = $from:ident;)*) => {$(
        #[doc = concat!("A `", stringify!($ty), "` via `", stringify!($from), "`.")]
        #[inline(always)]
        pub fn $name<'a, E: ParseError<&'a [u8]>>(i: &'a [u8]) -> IResult<&'a [u8], $ty, E> {
            let (rest, bytes) = array::<{ std::mem::size_of::<$ty>() }, E>(i)?;
            Ok((rest, <$ty>::$from(*bytes)))
        }
    )*};
}

int_parsers! {
    u8: u8 = from_le_bytes;
    le_u16: u16 = from_le_bytes;
    le_u32: u32 = from_le_bytes;
    le_u64: u64 = from_le_bytes;
    le_i64: i64 = from_le_bytes;
    be_u16: u16 = from_be_bytes;
    be_u32: u32 = from_be_bytes;
    be_i64: i64 = from_be_bytes;
}

/// `$parse`, an expression reading `u32`s with the parser named `$u32`, compiled once per byte
/// order: one branch on `$endian` (a [`nom::number::Endianness`]), then a parser monomorphized
/// for it, not a branch per field (capture headers are read per packet).
macro_rules! by_endian {
    ($endian:expr, |$u32:ident| $parse:expr) => {
        match $endian {
            nom::number::Endianness::Big => {
                let $u32 = $crate::bytes::be_u32;
                $parse
            }
            _ => {
                let $u32 = $crate::bytes::le_u32;
                $parse
            }
        }
    };
}
pub(crate) use by_endian;

/// Appends `N` zero bytes to `out` and returns them, to be filled in place.
///
/// The encoders store each field once, straight into the output. Filling a stack array and
/// appending it after cost more than the copy: the copy's wide loads of fields just stored one
/// by one wait for those stores to reach the cache (store forwarding cannot serve them).
#[inline(always)]
pub fn append<const N: usize>(out: &mut Vec<u8>) -> &mut [u8; N] {
    let start = out.len();
    out.extend_from_slice(&[0; N]);
    (&mut out[start..])
        .try_into()
        .expect("exactly N bytes were just appended")
}

#[cfg(test)]
mod tests {
    use super::*;

    type R<'a, T> = IResult<&'a [u8], T, ()>;

    #[test]
    fn reads_and_advances() {
        let data = [1, 2, 3, 4, 5, 6, 7, 8, 9];
        let r: R<u32> = le_u32(&data);
        assert_eq!(r, Ok((&data[4..], 0x0403_0201)));
        let r: R<u32> = be_u32(&data);
        assert_eq!(r, Ok((&data[4..], 0x0102_0304)));
        let r: R<i64> = le_i64(&data);
        assert_eq!(r, Ok((&data[8..], 0x0807_0605_0403_0201)));
        let r: R<u16> = be_u16(&data[7..]);
        assert_eq!(r, Ok((&data[9..], 0x0809)));
        let r: R<&[u8; 3]> = array(&data[6..]);
        assert_eq!(r, Ok((&data[9..], &[7, 8, 9])));
    }

    #[test]
    fn too_short_is_an_error_not_a_panic() {
        let r: R<u64> = le_u64(&[1, 2, 3]);
        assert!(r.is_err());
        let r: R<u8> = u8(&[]);
        assert!(r.is_err());
    }

    #[test]
    fn append_fills_in_place_after_what_is_there() {
        let mut out = vec![9, 9];
        let b = append::<4>(&mut out);
        assert_eq!(b, &[0, 0, 0, 0]);
        b[1] = 7;
        assert_eq!(out, [9, 9, 0, 7, 0, 0]);
    }
}
