//! The encodings under test: one file per format, one shared trait, one registry.
//!
//! A [`Format`] turns a neutral [`Packet`](crate::model::Packet) into bytes appended to a reused buffer and reads such
//! bytes back in one of two measured workloads:
//!
//! - **selective** ([`Format::decode`] into a [`Sink`]): only the fields the aggregation needs, as
//!   a consumer that reads a few fields would; no copies of symbols, no allocation where the
//!   library allows.
//! - **complete** ([`Format::decode_all`] into a [`Visitor`]): every field of every message read
//!   through the format's own accessors or decoder and handed over as a neutral [`Message`](crate::model::Message). The
//!   shootout folds them into a [`Checksum`] that must equal the source's, so every run checks
//!   every field of every format. `--verify` collects the same into a [`Packet`](crate::model::Packet)
//!   ([`Format::decode_packet`]) to name the field that differs.
//!
//! Every format encodes one packet as a self-delimiting unit, so a window of packets is just
//! their encodings back to back and decoding returns how many bytes the packet used.
//!
//! Nothing here knows about clocks or windows: the timed loop around a format lives in
//! `measure::runner`, which boxes one generic runner per entry of `for_each_format!`.

pub mod aggregate;
pub mod checksum;
mod codec;
pub mod mirror;
pub mod sequential;
mod serde_packet;
#[cfg(test)]
mod steady;
pub mod wire;

/// Every format under test, once, in the registry's order: `module: [Type, ...]`, one line per
/// codec file. The module declarations below, `measure::registry()`, the conformance tests
/// (`tests/it/formats.rs`), the benches and the fuzz target all come from this list, so adding a
/// format is its schema, its file and one line here. Append new formats at the end: the fuzz
/// target picks a format by its position, and colours in the report follow it too.
///
/// It hands the list to `$callback` (a `macro_rules!` of the caller's) as
/// `module: [snake_name: path::Type, ...], ...`; the snake name is the format's for Rust
/// identifiers (test modules), `Format::NAME` its name everywhere else.
#[macro_export]
macro_rules! for_each_format {
    ($callback:ident) => {
        $callback! {
            capnp: [
                capnp_unpacked: $crate::formats::capnp::CapnpUnpacked,
                capnp_packed: $crate::formats::capnp::CapnpPacked,
            ],
            flatbuffers: [flatbuffers: $crate::formats::flatbuffers::FlatBuffers],
            sbe: [sbe: $crate::formats::sbe::Sbe],
            protobuf: [protobuf: $crate::formats::protobuf::Protobuf],
            rkyv: [rkyv: $crate::formats::rkyv::Rkyv],
            bitcode: [bitcode: $crate::formats::bitcode::Bitcode],
            postcard: [postcard: $crate::formats::postcard::Postcard],
            json: [json: $crate::formats::json::Json],
            raw: [raw: $crate::formats::raw::Raw],
            avro: [avro: $crate::formats::avro::Avro],
            msgpack: [msgpack: $crate::formats::msgpack::Msgpack],
            cbor: [cbor: $crate::formats::cbor::Cbor],
            protobuf_google: [protobuf_google: $crate::formats::protobuf_google::ProtobufGoogle],
            planus: [planus: $crate::formats::planus::Planus],
            wincode: [wincode: $crate::formats::wincode::Wincode],
            borsh: [borsh: $crate::formats::borsh::Borsh],
            unchecked: [
                flatbuffers_unverified: $crate::formats::unchecked::FlatBuffersUnverified,
                rkyv_unchecked: $crate::formats::unchecked::RkyvUnchecked,
            ],
            json_sonic: [json_sonic: $crate::formats::json_sonic::JsonSonic],
            json_simd: [json_simd: $crate::formats::json_simd::JsonSimd],
            dbn: [dbn: $crate::formats::dbn::Dbn],
            musli: [musli: $crate::formats::musli::Musli, musli_wire: $crate::formats::musli::MusliWire],
            buffa: [buffa: $crate::formats::buffa::Buffa],
            fory: [fory: $crate::formats::fory::ForyFormat],
            bebop: [bebop: $crate::formats::bebop::Bebop],
            musli_zerocopy: [musli_zerocopy: $crate::formats::musli_zerocopy::MusliZerocopy],
        }
    };
}

/// The formats whose unit is a whole window ([`WindowFormat`]), in the same shape as
/// [`for_each_format!`]: a registry of their own, after the packet formats wherever the two are
/// listed together ([`names`], the report's colours), so appending to either list moves no
/// format of the other. Append new window formats at the end.
#[macro_export]
macro_rules! for_each_window_format {
    ($callback:ident) => {
        $callback! {
            arrow: [arrow: $crate::formats::arrow::Arrow],
        }
    };
}

macro_rules! declare_modules {
    ($($module:ident: [$($name:ident: $F:ty),+ $(,)?]),* $(,)?) => {$(
        pub mod $module;
    )*};
}
for_each_format!(declare_modules);
for_each_window_format!(declare_modules);
pub mod descriptor;
pub mod languages;
pub mod window;
pub use descriptor::{descriptor, descriptors, Descriptor, Unit};
pub use languages::{OtherLanguages, WireFormat};
pub use window::WindowFormat;

pub use aggregate::{Aggregate, SymbolStats};
pub use checksum::Checksum;
pub use codec::*;

/// Every format's name: `for_each_format!`'s in order, then `for_each_window_format!`'s.
pub fn names() -> Vec<&'static str> {
    descriptors().iter().map(|d| d.name).collect()
}

/// The names of the formats whose unit is a whole window ([`WindowFormat`]), in
/// `for_each_window_format!`'s order.
pub fn window_names() -> Vec<&'static str> {
    descriptors()
        .iter()
        .filter(|d| d.per_window_only())
        .map(|d| d.name)
        .collect()
}
