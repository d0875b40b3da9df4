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
//!
//! [`Wire`]: super::wire::Wire

use crate::formats::languages::OtherLanguages;
use wincode::config::DefaultConfig;
use wincode::{DeserializeOwned, SchemaReadOwned, SchemaWrite};

use super::codec::{DecodeError, Documented};
use super::sequential::{sequential_format, Sequential};

#[derive(Debug, Default)]
pub struct Wincode;

impl<T> Sequential<T> for Wincode
where
    T: SchemaWrite<DefaultConfig, Src = T> + SchemaReadOwned<DefaultConfig, Dst = T>,
{
    fn put(value: &T, out: &mut Vec<u8>) {
        wincode::serialize_into(out, value).expect("writing to a Vec cannot fail");
    }

    fn take(rest: &mut &[u8]) -> Result<T, DecodeError> {
        T::deserialize_from(rest).map_err(|e| DecodeError::library("wincode", e))
    }
}

const SOURCE: &str = "https://docs.rs/wincode/0.6.3 (derive SchemaWrite/SchemaRead: the Rust types \
    are the schema, bincode-compatible; fields are read into values, and invalid input is an error)";

/// Why no other language reads it (the `other languages` cell).
const OTHER_LANGUAGES: OtherLanguages = OtherLanguages::RustOnly {
    detail: "no implementation outside Rust: wincode writes bincode 1's format, which the Rust \
             bincode crate defines (no specification or reference implementation in another \
             language); the npm packages that port it (bincode-ts, ts-binary) are community \
             ports, not the format's",
    source: "https://docs.rs/wincode/0.6.3 (\"bincode-compatible\"); \
             https://docs.rs/bincode/1.3.3 (the format is the crate's)",
};

sequential_format!(
    Wincode,
    u64,
    "wincode",
    Documented::new(None, false, true, SOURCE),
    OTHER_LANGUAGES
);
