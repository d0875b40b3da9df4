//! borsh 1.x (derive `BorshSerialize`/`BorshDeserialize` on the wire vocabulary, [`Wire`]): the
//! Binary Object Representation Serializer for Hashing, whose specification (borsh.io) gives
//! every value one encoding, so equal values hash and sign alike. Integers are fixed-width
//! little-endian, an enum's variant index one byte, a sequence's length a `u32`, an array its
//! elements.
//!
//! A packet is what borsh writes for `(u64, i64, Vec<Wire<[u8; 8]>>)`: `seq`, `send_time`, the
//! message count, then each message (its variant index and its fields; the symbol as its 8
//! bytes). borsh reads from a `&mut &[u8]` by advancing it, so a packet is self-delimiting
//! without a length prefix ([`super::sequential`]).
//!
//! **As its maintainers use it.** borsh's docs derive the two traits and write with
//! `BorshSerialize::serialize` into any `io::Write` (`borsh::to_writer`; a `Vec<u8>` appends), and
//! read with `BorshDeserialize::deserialize(&mut &[u8])`, which "updates the buffer to point at
//! the remaining bytes" (`from_slice` is the same plus a check that nothing is left). Ours writes
//! the header, then each message's [`Wire`] built on the stack, with `serialize` into the output
//! buffer: no allocation, no copy of the packet, the same bytes as writing the whole packet (a
//! test checks). Decoding reads the header, then each message with `deserialize`: no
//! allocation; the symbol is copied as its 8 bytes; every field is decoded.
//!
//! Hostile bytes give an error, not a panic: borsh refuses input that ends early and a variant
//! index no variant has.
//!
//! [`Wire`]: super::wire::Wire

use crate::formats::languages::{OtherLanguages, WireFormat};
use borsh::{BorshDeserialize, BorshSerialize};

use super::codec::{DecodeError, Documented};
use super::sequential::{sequential_format, Sequential};

#[derive(Debug, Default)]
pub struct Borsh;

impl<T: BorshSerialize + BorshDeserialize> Sequential<T> for Borsh {
    fn put(value: &T, out: &mut Vec<u8>) {
        value.serialize(out).expect("writing to a Vec cannot fail");
    }

    fn take(rest: &mut &[u8]) -> Result<T, DecodeError> {
        T::deserialize(rest).map_err(|e| DecodeError::library("borsh", e))
    }
}

const SOURCE: &str = "https://docs.rs/borsh/1.8.1 and https://borsh.io (derive BorshSerialize/\
    BorshDeserialize: the Rust types are the schema; fields are read into values, and invalid \
    input is an error)";

sequential_format!(
    Borsh,
    u32,
    "borsh",
    Documented::new(None, false, true, SOURCE),
    OtherLanguages::Read(WireFormat::Borsh)
);
