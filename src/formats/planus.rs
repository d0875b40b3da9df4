//! FlatBuffers through planus (planus 1.3.0), from the same `schemas/marketdata.fbs` as
//! [`flatbuffers`](super::flatbuffers): a second implementation of one format, so the two rows
//! tell the format's cost from the crate's.
//!
//! **As its maintainers use it.** planus's README and docs build with one `Builder` reused across
//! buffers (`clear()` between them), the generated `create` functions (here from the owned table
//! types, whose named fields the message table fills), `Body::create_*` for a union member,
//! `create_vector` over a slice of finished offsets, and `finish(root, None)` into the builder;
//! they read with the generated `*Ref` types (`PacketRef::read_as_root`), which check each offset,
//! vtable and union tag as a field is read and return `planus::Result`, so hostile bytes give an
//! error, never a panic. That is what this runner does.
//!
//! **Framing.** planus writes no size prefix (its issue #381), so the runner frames the finished
//! buffer as flatbuffers' `finish_size_prefixed` does: the 4-byte size, the root offset, 4 bytes of
//! padding that keep the 8-byte fields 8-aligned from the prefix (what both FlatBuffers verifiers
//! check), then the rest of planus's buffer (its offsets are relative, so it moves as a whole).
//! So each implementation reads the other's packets through its own codec, and `flatc` reads
//! planus's. The schema planus reads spells `Symbol`'s `[ubyte:8]` as eight `ubyte` fields (planus
//! has no fixed-length arrays; see build.rs): the same 8 bytes in the buffer.
//!
//! **Cost.** Encoding allocates once per packet with messages: `create_vector` over a slice
//! collects the prepared offsets into a temporary `Vec` (planus 1.3.0, `impls/slice.rs`); nothing
//! else allocates once warm. Symbols are read as a `SymbolRef` and copied into 8 bytes (its bytes
//! are private to the generated type).

use crate::formats::languages::{OtherLanguages, WireFormat};
use crate::formats::wire::{IntoModel, ToLib};
use ::planus::{Builder, Offset, ReadAsRoot, UnionOffset};

use super::codec::{DecodeError, Documented, Format, MAX_DATAGRAM_MESSAGES, PerPacket, SHORTEST_KIND, Sink, Steady, Visitor, every_kind, full_datagram, reserve_touched};
use crate::model::*;

/// `pub mod generated`, planus's code from the schema whose code is `$code` in OUT_DIR, then the
/// union creators beside it (`$body`): here for `schemas/marketdata.fbs`, in
/// `capability::evolution::planus` for version 2.
macro_rules! planus_code {
    ($code:literal, $body:literal) => {
        /// The code planus generated (in OUT_DIR).
        #[allow(clippy::all, clippy::pedantic, dead_code, unused_imports, missing_docs)]
        pub mod generated {
            include!(concat!(env!("OUT_DIR"), $code));
        }
        use generated::md_shootout::fbs;
        include!(concat!(env!("OUT_DIR"), $body));
    };
}
pub(crate) use planus_code;
planus_code!("/marketdata_planus.rs", "/marketdata_planus_body.rs");

/// Bytes of the size prefix, and of the root offset after it.
const PREFIX: usize = 4;

/// The builder's buffer: as flatbuffers' (a datagram of 5,455 system events needs about 200 KB).
const BUILDER_BYTES: usize = 256 * 1024;

pub struct Planus {
    builder: Builder,
    offsets: Vec<Offset<fbs::Message>>,
}

impl Default for Planus {
    fn default() -> Self {
        let mut offsets = Vec::new();
        reserve_touched(&mut offsets, MAX_DATAGRAM_MESSAGES);
        let mut p = Planus {
            builder: Builder::with_capacity(BUILDER_BYTES),
            offsets,
        };
        // The builder's memory is not ours to touch: the largest datagram maps its pages, and a
        // message of every kind grows its vtable cache, here rather than in a timed pass.
        let mut out = Vec::new();
        p.encode(&full_datagram(SHORTEST_KIND), &mut out);
        p.encode(&every_kind(), &mut out);
        p
    }
}

/// A planus error as the codec reports it.
pub(crate) fn err(e: ::planus::Error) -> DecodeError {
    DecodeError::library("planus", e)
}

/// Appends planus's finished buffer `data` (root offset first) to `out`, size-prefixed as
/// flatbuffers lays it out (see the module docs).
pub(crate) fn frame(data: &[u8], out: &mut Vec<u8>) {
    let (root, rest) = data.split_at(PREFIX);
    let root = u32::from_le_bytes([root[0], root[1], root[2], root[3]]) + 4;
    let size = (data.len() + 4) as u32;
    out.extend_from_slice(&size.to_le_bytes());
    out.extend_from_slice(&root.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(rest);
}

/// The packet at the start of `bytes` (after its size prefix), and the bytes it uses.
pub(crate) use super::codec::size_prefixed as unframe;

/// The symbol a `SymbolRef` reads.
#[inline(always)]
fn symbol(s: ::planus::Result<fbs::SymbolRef<'_>>) -> Result<[u8; 8], DecodeError> {
    let s = fbs::Symbol::from(s.map_err(err)?);
    Ok([s.b0, s.b1, s.b2, s.b3, s.b4, s.b5, s.b6, s.b7])
}

const SOURCE: &str = "https://docs.rs/planus/1.3.0/planus/ (the generated `Ref` types read the \
    buffer in place; every accessor checks what it reads and returns `planus::Result`)";

impl Format for Planus {
    const NAME: &'static str = "planus";
    /// planus's `create_vector` collects a slice's prepared offsets into a temporary `Vec`: one
    /// per packet with messages encoded.
    const STEADY: Steady = Steady {
        encode: PerPacket { with_messages: 1, ..PerPacket::NONE },
        decode: PerPacket::NONE,
    };
    const DOCUMENTED: Documented = Documented::new(
        Some("schemas/marketdata.fbs, compiled by planus 1.3.0"),
        true,
        true,
        SOURCE,
    );
    const OTHER_LANGUAGES: OtherLanguages = OtherLanguages::Read(WireFormat::FlatBuffers);

    fn encode(&mut self, packet: &Packet, out: &mut Vec<u8>) -> usize {
        let b = &mut self.builder;
        b.clear();
        self.offsets.clear();
        for m in &packet.messages {
            let body = build_body(b, m);
            self.offsets.push(fbs::Message::create(b, body));
        }
        let messages = b.create_vector(self.offsets.as_slice());
        let root = fbs::Packet::create(b, packet.seq, packet.send_time, messages);
        frame(b.finish(root, None), out);
        self.offsets.len()
    }

    fn decode<K: Sink>(&mut self, bytes: &[u8], sink: &mut K) -> Result<usize, DecodeError> {
        let (data, used) = unframe(bytes)?;
        visit(fbs::PacketRef::read_as_root(data).map_err(err)?, sink)?;
        Ok(used)
    }

    fn decode_all<V: Visitor>(&mut self, bytes: &[u8], v: &mut V) -> Result<usize, DecodeError> {
        let (data, used) = unframe(bytes)?;
        let root = fbs::PacketRef::read_as_root(data).map_err(err)?;
        v.packet(root.seq().map_err(err)?, root.send_time().map_err(err)?);
        for m in root.messages().map_err(err)? {
            v.message(read_message(m.map_err(err)?)?);
        }
        Ok(used)
    }
}

/// A message whose union holds nothing.
pub(crate) const NO_BODY: DecodeError = DecodeError::Malformed("FlatBuffers message without a body");

/// Reads a packet's fields the aggregation needs into `sink`.
fn visit<K: Sink>(root: fbs::PacketRef<'_>, sink: &mut K) -> Result<(), DecodeError> {
    use fbs::BodyRef as B;
    sink.packet(root.seq().map_err(err)?);
    for m in root.messages().map_err(err)? {
        match m.map_err(err)?.body().map_err(err)?.ok_or(NO_BODY)? {
            B::TradeReport(t) => sink.trade(
                &symbol(t.symbol())?,
                t.size().map_err(err)?,
                t.price().map_err(err)?,
            ),
            B::PriceLevelBuy(p) => {
                sink.price_level(Side::Buy, &symbol(p.symbol())?, p.price().map_err(err)?)
            }
            B::PriceLevelSell(p) => {
                sink.price_level(Side::Sell, &symbol(p.symbol())?, p.price().map_err(err)?)
            }
            B::QuoteUpdate(q) => sink.quote(
                &symbol(q.symbol())?,
                q.bid_price().map_err(err)?,
                q.ask_price().map_err(err)?,
            ),
            B::OrderExecuted(e) => sink.trade(
                &symbol(e.symbol())?,
                e.size().map_err(err)?,
                e.price().map_err(err)?,
            ),
            B::AddOrder(a) => sink.add_order(
                a.side().map_err(err)?,
                &symbol(a.symbol())?,
                a.price().map_err(err)?,
            ),
            _ => sink.other(),
        }
    }
    Ok(())
}

/// The conversions between the model and one schema's planus code (`fbs` in scope): expanded here
/// and in `capability::evolution::planus` for version 2, whose generated types are others.
macro_rules! conversions {
    () => {
        /// The symbol as the schema's 8-byte struct (the other fields' conversions are `wire`'s).
        impl $crate::formats::wire::ToLib<fbs::Symbol> for Symbol {
            #[inline(always)]
            fn to_lib(self) -> fbs::Symbol {
                let [b0, b1, b2, b3, b4, b5, b6, b7] = self.0;
                fbs::Symbol { b0, b1, b2, b3, b4, b5, b6, b7 }
            }
        }

        /// A symbol read through its accessor, back in the model.
        impl $crate::formats::wire::IntoModel<Symbol> for ::planus::Result<fbs::SymbolRef<'_>> {
            #[inline(always)]
            fn into_model(self) -> Result<Symbol, DecodeError> {
                let s = fbs::Symbol::from(self.map_err(err)?);
                Ok(Symbol([s.b0, s.b1, s.b2, s.b3, s.b4, s.b5, s.b6, s.b7]))
            }
        }
    };
}
pub(crate) use conversions;
conversions!();

/// The fields read through their accessors, the schema's others as the model has them.
impl<T> IntoModel<T> for ::planus::Result<T> {
    #[inline(always)]
    fn into_model(self) -> Result<T, DecodeError> {
        self.map_err(err)
    }
}

impl IntoModel<[u8; 4]> for ::planus::Result<u32> {
    #[inline(always)]
    fn into_model(self) -> Result<[u8; 4], DecodeError> {
        Ok(self.map_err(err)?.to_le_bytes())
    }
}

pub(crate) use super::flatbuffers::read_table;

/// The field-by-field copies between the model and the generated tables (the owned table type
/// filled by name, one union member per type byte; a side the type byte implies is the tag),
/// from the message table.
macro_rules! copies {
    ($($V:ident($S:ident) $snake:ident {
        kinds [$K0:ident $i0:tt $(, $K:ident $implied:tt)*], len $len:literal, wire $wire:tt,
        fields $fields:tt, capnp $init:ident $capnp:tt,
        flatbuffers $Args:ident [$Tag0:ident $as0:ident $(, $Tag:ident $as:ident)*],
        sbe $($sbe:ident)*,
    },)*) => {
        fn build_body(b: &mut Builder, m: &Message) -> UnionOffset<fbs::Body> {
            let kind = m.kind();
            match m {
                $(Message::$V(m) => {
                    let table = table!(m, $S, $wire);
                    match kind {
                        $(kind::$K => create_body!($Tag, b, &table),)*
                        _ => create_body!($Tag0, b, &table),
                    }
                })*
            }
        }

        fn read_message(m: fbs::MessageRef<'_>) -> Result<Message, DecodeError> {
            Ok(match m.body().map_err(err)?.ok_or(NO_BODY)? {
                $(fbs::BodyRef::$Tag0(x) => read_table!(x, $V($S) $i0 $wire),
                $(fbs::BodyRef::$Tag(x) => read_table!(x, $V($S) $implied $wire),)*)*
            })
        }
    };
}

/// A table, the owned type of the generated code, from a model message.
macro_rules! table {
    ($m:ident, $S:ident, [$($f:ident @ $at:literal),*]) => {
        fbs::$S { $($f: $m.$f.to_lib(),)* }
    };
}
for_each_message!(copies);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capability::cross_language::shared_sample;
    use crate::formats::codec::each_reads_the_others;
    use crate::formats::flatbuffers::FlatBuffers;

    /// The cross-read: each implementation reads the other's bytes, every field.
    #[test]
    fn flatbuffers_and_planus_read_each_others_bytes() {
        each_reads_the_others::<Planus, FlatBuffers>(shared_sample().unwrap());
    }

}
