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
//! the header, then each message's [`Wire`] built on the stack, with `to_writer` into the output
//! buffer: no allocation, no copy of the packet, the same bytes as writing the whole packet (a
//! test checks). Decoding reads the header, then each message with `deserialize`: no
//! allocation; the symbol is copied as its 8 bytes; every field is decoded.
//!
//! Hostile bytes give an error, not a panic: borsh refuses input that ends early and a variant
//! index no variant has.

use borsh::{BorshDeserialize, BorshSerialize};

use super::codec::{DecodeError, Documented, Format, Sink, Visitor};
use super::sequential::{self, Sequential};
use crate::model::Packet;

/// The borsh runner (stateless).
#[derive(Debug, Default)]
pub struct Borsh;

fn err(e: borsh::io::Error) -> DecodeError {
    DecodeError::library("borsh", e)
}

impl<M: BorshSerialize + BorshDeserialize> Sequential<M> for Borsh {
    #[inline(always)]
    fn write_header(seq: u64, send_time: i64, count: usize, out: &mut Vec<u8>) {
        let count = u32::try_from(count).expect("a packet holds at most 65,535 messages");
        borsh::to_writer(&mut *out, &(seq, send_time, count)).expect("writing to a Vec cannot fail");
    }

    #[inline(always)]
    fn write_message(m: &M, out: &mut Vec<u8>) {
        borsh::to_writer(&mut *out, m).expect("writing to a Vec cannot fail");
    }

    #[inline(always)]
    fn read_header(rest: &mut &[u8]) -> Result<(u64, i64, usize), DecodeError> {
        let (seq, send_time, count) = <(u64, i64, u32)>::deserialize(rest).map_err(err)?;
        Ok((seq, send_time, count as usize))
    }

    #[inline(always)]
    fn read_message(rest: &mut &[u8]) -> Result<M, DecodeError> {
        M::deserialize(rest).map_err(err)
    }
}

/// The schema of [`Format::DOCUMENTED`]: none, the Rust types are the schema.
const SCHEMA: Option<&str> = None;
/// Where [`Format::DOCUMENTED`] comes from.
const SOURCE: &str = "https://docs.rs/borsh/1.8.1 and https://borsh.io (derive BorshSerialize/\
    BorshDeserialize: the Rust types are the schema; fields are read into values, and invalid \
    input is an error)";

impl Format for Borsh {
    const NAME: &'static str = "borsh";
    const DOCUMENTED: Documented = Documented::new(SCHEMA, false, true, SOURCE);

    fn encode(&mut self, packet: &Packet, out: &mut Vec<u8>) -> usize {
        sequential::encode::<Self>(packet, out)
    }

    fn decode<K: Sink>(&mut self, bytes: &[u8], sink: &mut K) -> Result<usize, DecodeError> {
        sequential::decode::<Self, K>(bytes, sink)
    }

    fn decode_all<V: Visitor>(&mut self, bytes: &[u8], v: &mut V) -> Result<usize, DecodeError> {
        sequential::decode_all::<Self, V>(bytes, v)
    }
}
