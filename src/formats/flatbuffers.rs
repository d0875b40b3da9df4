//! FlatBuffers (flatbuffers 25.12.19, flatc 25.12.19), schema `schemas/marketdata.fbs`.
//!
//! **As its maintainers use it.** The crate's own benches (`create_canonical_buffer`) and the Rust
//! serialization benchmark build every buffer in one `FlatBufferBuilder` created once with room to
//! spare, `reset()` between buffers (which keeps its memory and re-zeroes only the bytes used),
//! the generated `create` functions for tables and `create_vector` over a slice of finished
//! offsets. Ours does exactly that, with the size prefix (`finish_size_prefixed`) that makes
//! packets appended to one buffer self-delimiting. Where ours goes further: the builder's buffer
//! is sized for a datagram's worst case (256 KiB; a datagram of 5,455 system events needs about
//! 200 KB) and its pages mapped at construction, and the offsets `Vec` holds a datagram's
//! messages, so no packet makes either grow or fault. The finished bytes are copied once into the
//! output buffer (`finished_data()`): the builder writes back to front into its own buffer, so the
//! API offers nothing else.
//!
//! **Cost.** Encoding is the builder's work: per message two tables (the `Message` holding the
//! union and the body; see the schema for why) and their vtables, each written, then looked up
//! among the packet's earlier ones to be shared. That is the library's work, as much as the 2019
//! shootout's encoder does on the same packets (instructions per packet in docs/BENCHMARKS.md,
//! "FlatBuffers encode").
//!
//! Decoding runs the FlatBuffers verifier on every packet (`size_prefixed_root_as_packet_with_opts`)
//! and then reads fields in place: symbols are `&Symbol` structs borrowed from the buffer. The
//! verifier is what makes reading hostile bytes safe; skipping it (`root_unchecked`) is `unsafe`
//! and not what a consumer of untrusted data can do: `VERIFY = false` is `flatbuffers-unverified`
//! (see `formats::unchecked`), which measures what the verifier costs. Neither side allocates
//! once warm.

use crate::formats::languages::{OtherLanguages, WireFormat};
use ::flatbuffers::{FlatBufferBuilder, VerifierOptions, WIPOffset};

use super::codec::{every_kind, reserve_touched, size_prefixed, touch, DecodeError, Documented, Format, MessageRead, Sink, Visitor, MAX_DATAGRAM_MESSAGES};
use crate::model::*;

super::codec::generated!(
    /// The code `flatc` generated from `schemas/marketdata.fbs` (in OUT_DIR).
    generated,
    "/marketdata_generated.rs"
);

use generated::md_shootout::fbs;

/// The FlatBuffers runner: `VERIFY` runs the verifier before reading (`flatbuffers`), or not
/// (`flatbuffers-unverified`, [`super::unchecked`]); nothing else differs.
pub struct FlatBuffersCodec<const VERIFY: bool> {
    fbb: FlatBufferBuilder<'static>,
    offsets: Vec<WIPOffset<fbs::Message<'static>>>,
    verifier: VerifierOptions,
}

/// The builder's buffer: a datagram of the smallest messages (5,455 system events, about 36
/// bytes each as a body table, its `Message` table and its offset in the vector) needs about
/// 200 KB.
const BUILDER_BYTES: usize = 256 * 1024;

/// `flatbuffers`: every packet verified before it is read.
pub type FlatBuffers = FlatBuffersCodec<true>;

impl<const VERIFY: bool> Default for FlatBuffersCodec<VERIFY> {
    fn default() -> Self {
        let mut buffer = vec![0; BUILDER_BYTES];
        touch(&mut buffer, 0);
        let mut offsets = Vec::new();
        reserve_touched(&mut offsets, MAX_DATAGRAM_MESSAGES);
        let mut fb = FlatBuffersCodec {
            fbb: FlatBufferBuilder::from_vec(buffer),
            offsets,
            // Defaults allow 1M tables and depth 64: a 64 KiB datagram's packet has < 11k tables.
            verifier: VerifierOptions::default(),
        };
        // The builder's own small vectors (a table's field locations, the packet's vtables) grow
        // to their largest here, on a message of every kind, rather than on the first auction
        // message of a timed pass.
        fb.encode(&every_kind(), &mut Vec::new());
        fb
    }
}

fn err(e: impl std::fmt::Display) -> DecodeError {
    DecodeError::library("flatbuffers", e)
}

impl<const VERIFY: bool> FlatBuffersCodec<VERIFY> {
    /// The root of the packet at the start of `bytes` (verified if `VERIFY`), and the bytes it
    /// uses.
    fn root<'a>(&self, bytes: &'a [u8]) -> Result<(fbs::Packet<'a>, usize), DecodeError> {
        let (_, total) = size_prefixed(bytes)?;
        let root = if VERIFY {
            fbs::size_prefixed_root_as_packet_with_opts(&self.verifier, &bytes[..total])
                .map_err(err)?
        } else {
            // SAFETY: only `flatbuffers-unverified` gets here, and it is only ever given bytes
            // its own `encode` wrote, whole (the size prefix was checked just above): a runner
            // decodes its own buffer and refuses foreign bytes (`Runner::load`), and every
            // check that feeds decoders untrusted bytes skips a format whose `DOCUMENTED`
            // says it does not validate (`formats::unchecked`). Such bytes are a valid
            // size-prefixed `Packet`, which is all `root_unchecked` requires.
            unsafe { fbs::size_prefixed_root_as_packet_unchecked(&bytes[..total]) }
        };
        Ok((root, total))
    }
}

const SCHEMA: Option<&str> = Some("schemas/marketdata.fbs, compiled by flatc 25.12.19");
const SOURCE: &str = "https://flatbuffers.dev/tutorial/ (accessors read the buffer in place; the \
    verifier checks an untrusted buffer before it is read)";
const UNVERIFIED_SOURCE: &str = "https://docs.rs/flatbuffers/25.12.19/flatbuffers/fn.root_unchecked.html \
    (no verifier: the caller must trust that the bytes are a valid buffer)";

impl<const VERIFY: bool> Format for FlatBuffersCodec<VERIFY> {
    const NAME: &'static str = if VERIFY {
        "flatbuffers"
    } else {
        "flatbuffers-unverified"
    };
    const DOCUMENTED: Documented = if VERIFY {
        Documented::new(SCHEMA, true, true, SOURCE)
    } else {
        Documented::new(SCHEMA, true, false, UNVERIFIED_SOURCE)
    };
    const OTHER_LANGUAGES: OtherLanguages = OtherLanguages::Read(WireFormat::FlatBuffers);
    /// Without its verifier it writes the checked codec's bytes ([`super::unchecked`]).
    const WRITES_BYTES_OF: Option<&'static str> = if VERIFY {
        None
    } else {
        Some(FlatBuffersCodec::<true>::NAME)
    };

    fn encode(&mut self, packet: &Packet, out: &mut Vec<u8>) -> usize {
        let fbb = &mut self.fbb;
        fbb.reset();
        self.offsets.clear();
        for m in &packet.messages {
            let (body_type, body) = build_body(fbb, m);
            self.offsets.push(fbs::Message::create(
                fbb,
                &fbs::MessageArgs {
                    body_type,
                    body: Some(body),
                },
            ));
        }
        let messages = fbb.create_vector(&self.offsets);
        let root = fbs::Packet::create(
            fbb,
            &fbs::PacketArgs {
                seq: packet.seq,
                send_time: packet.send_time,
                messages: Some(messages),
            },
        );
        fbs::finish_size_prefixed_packet_buffer(fbb, root);
        out.extend_from_slice(fbb.finished_data());
        self.offsets.len()
    }

    fn decode<K: Sink>(&mut self, bytes: &[u8], sink: &mut K) -> Result<usize, DecodeError> {
        let (root, used) = self.root(bytes)?;
        visit(root, sink)?;
        Ok(used)
    }

    fn decode_all<V: Visitor>(&mut self, bytes: &[u8], v: &mut V) -> Result<usize, DecodeError> {
        let (root, used) = self.root(bytes)?;
        v.packet(root.seq(), root.send_time());
        for m in root.messages() {
            v.message(read_message(m)?);
        }
        Ok(used)
    }
}

/// A message whose union says it holds a body of a type, but holds none.
const NO_BODY: DecodeError = DecodeError::Malformed("no body");

/// Reads a packet table into `sink`, verified or not (`flatbuffers-unverified`).
pub fn visit<K: Sink>(root: fbs::Packet<'_>, sink: &mut K) -> Result<(), DecodeError> {
    sink.packet(root.seq());
    for m in root.messages() {
        match m.body_type() {
            fbs::Body::TradeReport => {
                let t = m.body_as_trade_report().ok_or(NO_BODY)?;
                sink.trade(&t.symbol().0, t.size(), t.price());
            }
            fbs::Body::PriceLevelBuy => {
                let p = m.body_as_price_level_buy().ok_or(NO_BODY)?;
                sink.price_level(Side::Buy, &p.symbol().0, p.price());
            }
            fbs::Body::PriceLevelSell => {
                let p = m.body_as_price_level_sell().ok_or(NO_BODY)?;
                sink.price_level(Side::Sell, &p.symbol().0, p.price());
            }
            fbs::Body::QuoteUpdate => {
                let q = m.body_as_quote_update().ok_or(NO_BODY)?;
                sink.quote(&q.symbol().0, q.bid_price(), q.ask_price());
            }
            fbs::Body::OrderExecuted => {
                let e = m.body_as_order_executed().ok_or(NO_BODY)?;
                sink.trade(&e.symbol().0, e.size(), e.price());
            }
            fbs::Body::AddOrder => {
                let a = m.body_as_add_order().ok_or(NO_BODY)?;
                sink.add_order(a.side(), &a.symbol().0, a.price());
            }
            _ => sink.other(),
        }
    }
    Ok(())
}

/// A table builder's arg for field `$f` of model message `$m`, by the field's name (the message
/// table's `symbol` is always a `Symbol`, `reason` a `Bytes4`): the symbol as a reference to the
/// schema's 8-byte struct (a temporary that lives until the table is built), the reason as its
/// integer (`to_le_bytes` back), every other field as it is.
macro_rules! fb_arg {
    ($m:ident, symbol) => {
        Some(&fbs::Symbol($m.symbol.0))
    };
    ($m:ident, reason) => {
        u32::from_le_bytes($m.reason)
    };
    ($m:ident, $f:ident) => {
        $m.$f
    };
}
pub(crate) use fb_arg;

/// A symbol back in the model from one schema's generated struct (`fbs` in scope; the verifier
/// has checked the buffer, and the other fields' conversions are `wire`'s): expanded here and in
/// `capability::evolution::flatbuffers` for version 2, whose `fbs::Symbol` is another type.
macro_rules! conversions {
    () => {
        impl $crate::formats::wire::IntoModel<Symbol> for &fbs::Symbol {
            #[inline(always)]
            fn into_model(self) -> Result<Symbol, DecodeError> {
                Ok(Symbol(self.0))
            }
        }
    };
}
pub(crate) use conversions;
conversions!();

/// One type byte's table read back: the fields its union tag implies (the price level's side),
/// then the table's, each through its accessor (planus's too).
macro_rules! read_table {
    ($x:ident, $V:ident($S:ident) { $($implied:ident: $value:expr),* } [$($f:ident @ $at:literal),*]) => {
        Message::$V($S {
            $($implied: $value,)*
            $($f: $crate::formats::wire::IntoModel::into_model($x.$f())?,)*
        })
    };
}
pub(crate) use read_table;

/// The field-by-field copies between the model and one schema's generated tables (`XArgs`, one
/// union tag per type byte with its `body_as_tag`; the table holds the fields on the IEX wire, a
/// side the type byte implies is the tag), from the message table, over the names in scope where
/// it expands: the schema's `fbs`, `MessageRead` and `schema_adds!`, what the schema adds to
/// the table's fields (`args m, $V $Args [wire]` a table's args, `read $V x, message` what a
/// read returns). Expanded here for this schema and in `capability::evolution::flatbuffers` for
/// version 2.
macro_rules! copies {
    ($($V:ident($S:ident) $snake:ident {
        kinds [$($K:ident $implied:tt),+], len $len:literal, wire $wire:tt, fields $fields:tt,
        capnp $init:ident $capnp:tt, flatbuffers $Args:ident [$($Tag:ident $as:ident),+],
        sbe $($sbe:ident)*,
    },)*) => {
        // Version 2's args end in `..Default::default()`, needless for the types it leaves alone.
        #[allow(clippy::needless_update)]
        fn build_body(
            fbb: &mut FlatBufferBuilder<'static>,
            m: &Message,
        ) -> (fbs::Body, ::flatbuffers::WIPOffset<::flatbuffers::UnionWIPOffset>) {
            let kind = m.kind();
            match m {
                $(Message::$V(m) => (
                    match kind {
                        $(kind::$K => fbs::Body::$Tag,)+
                        _ => fbs::Body::NONE,
                    },
                    fbs::$S::create(fbb, &schema_adds!(args m, $V $Args $wire))
                        .as_union_value(),
                ),)*
            }
        }

        fn read_message(m: fbs::Message<'_>) -> Result<MessageRead, DecodeError> {
            const NO_BODY: DecodeError = DecodeError::Malformed("FlatBuffers message without a body");
            Ok(match m.body_type() {
                $($(fbs::Body::$Tag => {
                    let x = m.$as().ok_or(NO_BODY)?;
                    schema_adds!(read $V x, $crate::formats::flatbuffers::read_table!(x, $V($S) $implied $wire))
                })+)*
                _ => {
                    return Err(DecodeError::Malformed(
                        "FlatBuffers body type unknown to this schema",
                    ))
                }
            })
        }
    };
}
pub(crate) use copies;

/// What this schema adds to the table's fields: nothing.
macro_rules! schema_adds {
    (args $m:ident, $V:ident $Args:ident [$($f:ident @ $at:literal),*]) => {
        fbs::$Args { $($f: fb_arg!($m, $f),)* }
    };
    (read $V:ident $x:ident, $message:expr) => {
        $message
    };
}
for_each_message!(copies);
