//! wincode 0.6 (derive `SchemaWrite`/`SchemaRead` on the wire vocabulary, [`Wire`]) in its
//! default configuration, which is bincode 1's default format: integers fixed-width
//! little-endian, an enum's variant index a `u32`, a sequence's length a `u64`, an array its
//! elements.
//!
//! A packet is what wincode writes for `(u64, i64, Vec<Wire<[u8; 8]>>)`: `seq`, `send_time`, the
//! message count, then each message (its variant index and its fields; the symbol as its 8
//! bytes). wincode reads from a `&[u8]` by advancing it, so a packet is self-delimiting without a
//! length prefix ([`super::sequential`]).
//!
//! **As its maintainers use it.** wincode's docs derive `SchemaWrite` and `SchemaRead` on the
//! types and write with `serialize_into` any `Writer` (a `Vec<u8>` is one that appends); its
//! benches time `serialize_into` a reused buffer. For reading with the caller's own reader the
//! docs give `deserialize_from`, which with a `&mut &[u8]` leaves the slice at the unread rest.
//! Ours writes the header, then each message's [`Wire`] built on the stack, with
//! `serialize_into` the output buffer: no allocation, no copy of the packet, the same bytes as
//! serializing the whole packet (a test checks). Decoding reads the header with
//! `deserialize_from`, then each message: no allocation; the symbol is copied as its 8 bytes.
//! Every field is decoded: the fields are fixed-width, but the messages before one are of
//! different widths, so a reader that wants one message reads them all.
//!
//! Hostile bytes give an error, not a panic: wincode checks the input's length before each read
//! and refuses a variant index no variant has.

use wincode::config::DefaultConfig;
use wincode::{DeserializeOwned, SchemaReadOwned, SchemaWrite};

use super::codec::{DecodeError, Documented, Format, Sink, Visitor};
use super::sequential::{self, Sequential};
use crate::model::Packet;

/// The wincode runner (stateless).
#[derive(Debug, Default)]
pub struct Wincode;

fn err(e: wincode::ReadError) -> DecodeError {
    DecodeError::library("wincode", e)
}

impl<M> Sequential<M> for Wincode
where
    M: SchemaWrite<DefaultConfig, Src = M> + SchemaReadOwned<DefaultConfig, Dst = M>,
{
    #[inline(always)]
    fn write_header(seq: u64, send_time: i64, count: usize, out: &mut Vec<u8>) {
        wincode::serialize_into(&mut *out, &(seq, send_time, count as u64))
            .expect("writing to a Vec cannot fail");
    }

    #[inline(always)]
    fn write_message(m: &M, out: &mut Vec<u8>) {
        wincode::serialize_into(&mut *out, m).expect("writing to a Vec cannot fail");
    }

    #[inline(always)]
    fn read_header(rest: &mut &[u8]) -> Result<(u64, i64, usize), DecodeError> {
        let (seq, send_time, count) = <(u64, i64, u64)>::deserialize_from(rest).map_err(err)?;
        Ok((seq, send_time, usize::try_from(count).unwrap_or(usize::MAX)))
    }

    #[inline(always)]
    fn read_message(rest: &mut &[u8]) -> Result<M, DecodeError> {
        M::deserialize_from(rest).map_err(err)
    }
}

/// The schema of [`Format::DOCUMENTED`]: none, the Rust types are the schema.
const SCHEMA: Option<&str> = None;
/// Where [`Format::DOCUMENTED`] comes from.
const SOURCE: &str = "https://docs.rs/wincode/0.6.3 (derive SchemaWrite/SchemaRead: the Rust types \
    are the schema, bincode-compatible; fields are read into values, and invalid input is an error)";

impl Format for Wincode {
    const NAME: &'static str = "wincode";
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
