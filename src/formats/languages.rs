//! Which implementations outside Rust read a format's bytes, as each format states it
//! ([`Format::OTHER_LANGUAGES`](super::Format::OTHER_LANGUAGES)): data, so that the check
//! (`capability::cross_language`) finds its reader by wire format, never by a format's name.

/// A wire format whose bytes another language's implementation reads: the key of that reader
/// (`capability::cross_language` has one per wire format, with its tool, script and pin). Several
/// formats under test write one wire format (json, json-sonic and json-simd write JSON lines).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireFormat {
    /// Cap'n Proto messages, unpacked (read by the `capnp` tool, C++).
    CapnpUnpacked,
    /// Cap'n Proto messages, packed.
    CapnpPacked,
    /// FlatBuffers buffers (read by `flatc`, C++).
    FlatBuffers,
    /// Protocol Buffers messages (read by `protoc --decode`, C++).
    Protobuf,
    /// SBE messages (read by real-logic's Java decoder).
    Sbe,
    /// JSON objects, one a line (Python's `json`).
    Json,
    /// Avro datums (Python's `fastavro`).
    Avro,
    /// MessagePack (Python's `msgpack`).
    Msgpack,
    /// CBOR (Python's `cbor2`).
    Cbor,
    /// Borsh (the JavaScript `borsh` package).
    Borsh,
    /// Arrow IPC streams (Python's `pyarrow`).
    Arrow,
    /// DBN records (Python's `databento-dbn`).
    Dbn,
    /// Fory xlang objects (Python's `pyfory`).
    Fory,
    /// Bebop records (Bebop's TypeScript runtime, npm `bebop`).
    Bebop,
}

/// Which implementations outside Rust read a format's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OtherLanguages {
    /// Another language's implementation of the wire format: the run's check feeds it the
    /// sample and compares every field it reads.
    Read(WireFormat),
    /// None exists: why, and the document that says so (the capability cell's source).
    RustOnly {
        detail: &'static str,
        source: &'static str,
    },
}
