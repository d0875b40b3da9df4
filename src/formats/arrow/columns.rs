//! How each type of the message table (`schemas/iex-messages.txt`) is one Arrow column: its
//! data type, what the encoder accumulates it in, and how the decoder reads one row of it back.
//!
//! The accumulators are plain `Vec`s of Arrow's native types, handed to the arrays whole
//! (`ScalarBuffer::from(Vec)`, `Buffer::from_vec`: no copy), so an encode allocates one buffer per
//! column per window and nothing per message. Symbols are `FixedSizeBinary(8)`, not `Utf8`: the
//! model's symbol is 8 bytes, space-padded, that need not be UTF-8, and a fixed width needs no
//! offsets buffer (the decoder borrows the 8 bytes in place).

use std::sync::Arc;

use arrow_array::types::{Int64Type, TimestampNanosecondType, UInt32Type, UInt64Type, UInt8Type};
use arrow_array::{Array, ArrayRef, FixedSizeBinaryArray, PrimitiveArray};
use arrow_buffer::{Buffer, ScalarBuffer};
use arrow_schema::{DataType, TimeUnit};

use crate::model::{Side, Symbol};

/// The time zone of every timestamp column: IEX times are nanoseconds since the epoch, UTC.
pub const UTC: &str = "UTC";

/// One column type of the message table.
pub trait Column {
    /// The model's value of a field of this type.
    type Value: Copy;
    /// The Arrow array the column is read from.
    type Array: Array + 'static;
    /// What the encoder appends rows to.
    type Acc: Default;

    fn data_type() -> DataType;
    fn push(acc: &mut Self::Acc, value: Self::Value);
    /// The column so far as an array; the accumulator is left empty.
    fn finish(acc: &mut Self::Acc) -> ArrayRef;
    /// Row `i`, which the caller checked is below the array's length; `None` for a value the
    /// model cannot hold (a side byte that is neither side).
    fn get(array: &Self::Array, i: usize) -> Option<Self::Value>;
}

/// Marker types, one per type name of the message table, so that `Timestamp` and `Price` (both
/// `i64` in Rust) get their own Arrow types.
pub struct U8;
pub struct U32;
pub struct U64;
pub struct I64;
pub struct Ts;
pub struct Sym;
pub struct Bytes4;
pub struct SideCol;

macro_rules! primitive {
    ($M:ident, $native:ty, $arrow:ty, $dt:expr) => {
        impl Column for $M {
            type Value = $native;
            type Array = PrimitiveArray<$arrow>;
            type Acc = Vec<$native>;

            fn data_type() -> DataType {
                $dt
            }
            #[inline(always)]
            fn push(acc: &mut Self::Acc, value: $native) {
                acc.push(value);
            }
            fn finish(acc: &mut Self::Acc) -> ArrayRef {
                let values = ScalarBuffer::from(std::mem::take(acc));
                Arc::new(PrimitiveArray::<$arrow>::new(values, None).with_data_type($dt))
            }
            #[inline(always)]
            fn get(array: &Self::Array, i: usize) -> Option<$native> {
                Some(array.values()[i])
            }
        }
    };
}

primitive!(U8, u8, UInt8Type, DataType::UInt8);
primitive!(U32, u32, UInt32Type, DataType::UInt32);
primitive!(U64, u64, UInt64Type, DataType::UInt64);
primitive!(I64, i64, Int64Type, DataType::Int64);
primitive!(
    Ts,
    i64,
    TimestampNanosecondType,
    DataType::Timestamp(TimeUnit::Nanosecond, Some(UTC.into()))
);

impl Column for SideCol {
    type Value = Side;
    type Array = PrimitiveArray<UInt8Type>;
    type Acc = Vec<u8>;

    fn data_type() -> DataType {
        DataType::UInt8
    }
    #[inline(always)]
    fn push(acc: &mut Vec<u8>, value: Side) {
        acc.push(side_byte(value));
    }
    fn finish(acc: &mut Vec<u8>) -> ArrayRef {
        U8::finish(acc)
    }
    #[inline(always)]
    fn get(array: &Self::Array, i: usize) -> Option<Side> {
        side_of(array.values()[i])
    }
}

/// A price level's side as its column stores it: the wire's type byte (`8` buy, `5` sell).
pub fn side_byte(side: Side) -> u8 {
    match side {
        Side::Buy => b'8',
        Side::Sell => b'5',
    }
}

/// The side a stored byte names; `None` for any other byte.
#[inline(always)]
pub fn side_of(byte: u8) -> Option<Side> {
    match byte {
        b'8' => Some(Side::Buy),
        b'5' => Some(Side::Sell),
        _ => None,
    }
}

/// `FixedSizeBinary(N)` columns: symbols (8) and reason codes (4).
macro_rules! fixed {
    ($M:ident, $n:literal, $value:ty, $to:expr, $from:expr) => {
        impl Column for $M {
            type Value = $value;
            type Array = FixedSizeBinaryArray;
            type Acc = Vec<u8>;

            fn data_type() -> DataType {
                DataType::FixedSizeBinary($n)
            }
            #[inline(always)]
            fn push(acc: &mut Vec<u8>, value: $value) {
                let bytes: [u8; $n] = $to(value);
                acc.extend_from_slice(&bytes);
            }
            fn finish(acc: &mut Vec<u8>) -> ArrayRef {
                let values = Buffer::from_vec(std::mem::take(acc));
                Arc::new(FixedSizeBinaryArray::new($n, values, None))
            }
            #[inline(always)]
            fn get(array: &FixedSizeBinaryArray, i: usize) -> Option<$value> {
                let bytes: [u8; $n] = array.value(i).try_into().ok()?;
                Some($from(bytes))
            }
        }
    };
}

fixed!(Sym, 8, Symbol, |s: Symbol| s.0, Symbol);
fixed!(Bytes4, 4, [u8; 4], |b| b, |b| b);

/// The marker type of each type name of the message table, under that name (`of::Price`).
#[allow(non_camel_case_types)]
pub mod of {
    pub type u8 = super::U8;
    pub type u32 = super::U32;
    pub type i64 = super::I64;
    pub type Price = super::I64;
    pub type Timestamp = super::Ts;
    pub type Symbol = super::Sym;
    pub type Bytes4 = super::Bytes4;
    pub type Side = super::SideCol;
}

/// The symbol in row `i` of a symbol column, borrowed in place.
#[inline(always)]
pub fn symbol_at(array: &FixedSizeBinaryArray, i: usize) -> Option<&[u8; 8]> {
    array.value(i).try_into().ok()
}
