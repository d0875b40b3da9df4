//! JSON through sonic-rs (CloudWeGo's SIMD JSON library), both ways: the bytes of
//! [`json`](super::json), serde_json's JSON Lines, so this row says what the same JSON costs
//! through another library. A team that adopts sonic-rs writes with it too (its README's examples
//! do): `sonic_rs::to_writer` into the reused output `Vec`, which on our types (integers and ASCII
//! strings) writes exactly serde_json's bytes (a test compares them), so only the timings differ.
//! Decoding is `json`'s through sonic-rs's serde `Deserializer` over the line: serde's streaming
//! pattern, symbols borrowed unless they have escapes, nothing allocated (its scratch `Vec` grows
//! only for an escaped string; ours have none).
//!
//! **Which code path runs.** sonic-rs picks its parser at compile time, not at run time: its
//! x86-64 SIMD path needs `avx2` and `pclmulqdq` enabled for the build (`-C target-cpu=native`,
//! as its README asks), else it compiles a fallback (sonic-rs 0.5.10, `src/util/arch/mod.rs`).
//! We do not enable AVX2 for the build: it would change every other format's code too and stop
//! the binary running on x86-64 machines without it. So on x86-64 this row measures the
//! fallback unless the build was given those target features; [`simd_path`] says which, and
//! the run's table and `shootout formats` print it.

use crate::formats::languages::{OtherLanguages, WireFormat};
use super::codec::{DecodeError, Documented, Format, Sink, Visitor};
use super::json::{json_format, line_end, read_line, SymIn, SymOut};
use super::serde_packet::{self, Handler, PacketOut};
use crate::model::Packet;

#[derive(Debug, Default)]
pub struct JsonSonic;

#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx2",
    target_feature = "pclmulqdq"
))]
macro_rules! path {
    () => {
        "sonic-rs's x86-64 SIMD path (avx2 and pclmulqdq enabled at compile time)"
    };
}
#[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
macro_rules! path {
    () => {
        "sonic-rs's aarch64 NEON path"
    };
}
#[cfg(not(any(
    all(
        target_arch = "x86_64",
        target_feature = "avx2",
        target_feature = "pclmulqdq"
    ),
    all(target_arch = "aarch64", target_feature = "neon")
)))]
macro_rules! path {
    () => {
        "sonic-rs's fallback, not its SIMD path: this build lacks avx2/pclmulqdq (not enabled \
         at compile time), so whitespace skipping and quote masks are scalar and strings are \
         scanned 16 bytes at a time (SSE2 on x86-64)"
    };
}

/// Which of sonic-rs's parsers this build compiled in (decided at compile time by the target
/// features, the same for sonic-rs as for this crate).
pub const fn simd_path() -> &'static str {
    path!()
}

/// Where [`Format::DOCUMENTED`] comes from, with the path this build compiled in.
const SOURCE: &str = concat!(
    "https://docs.rs/sonic-rs/0.5.10 (serde types are the schema; the parser refuses what is not \
     JSON of those types; numbers are parsed into values; the SIMD path is chosen at compile \
     time, src/util/arch/mod.rs); this build: ",
    path!()
);

read_line!(JsonSonic, sonic_rs);

json_format!(JsonSonic, sonic_rs, "json-sonic", SOURCE, code path simd_path(), {
    serde_packet::decode_through_read!();
});

#[cfg(test)]
mod tests {
    use super::*;

    /// The path named is the one the target features select: on x86-64 without avx2 (this
    /// repository's default build) it says plainly that the fallback ran.
    #[test]
    fn the_path_named_is_the_compiled_one() {
        let simd = cfg!(all(
            target_arch = "x86_64",
            target_feature = "avx2",
            target_feature = "pclmulqdq"
        )) || cfg!(all(target_arch = "aarch64", target_feature = "neon"));
        assert_eq!(!simd_path().contains("fallback"), simd, "{}", simd_path());
        assert!(JsonSonic::DOCUMENTED.source.ends_with(simd_path()));
    }
}
