//! Simple Binary Encoding (real-logic SBE 1.34 Rust generator), `schemas/marketdata.xml`.
//!
//! A packet is a `PacketHeader` SBE message followed by `messageCount` SBE messages, one per IEX
//! message, each with the standard 8-byte message header (see the schema for why). Encoding writes
//! straight into the caller's buffer: it grows the buffer by the packet's exact size (computed
//! from the fixed block lengths) and the generated encoders fill it in place, so the hot path
//! allocates nothing once the buffer has grown. Decoding reads fields in place; the generated
//! `symbol()` returns the 8 bytes by value (an 8-byte load, not an allocation).
//!
//! **As its maintainers use it.** The SBE Rust generator's benchmark and examples encode into a
//! reused, zeroed buffer: `XEncoder::default().wrap(WriteBuf::new(buf), offset)`, then `header`,
//! then the field setters, and decode with `XDecoder::default().header(..)` over a `ReadBuf`.
//! Ours does the same, message by message, over the new tail of the output buffer, which it first
//! grows by the packet's size (`resize`, zero-filled: a `WriteBuf` needs initialized bytes, and
//! skipping the fill would take `unsafe`; a hundred-odd bytes a packet). Nothing else is
//! allocated or copied.
//!
//! The generated `ReadBuf` indexes slices and calls `expect`, so it panics on short input: every
//! message's header and whole block are bounds-checked here before a generated decoder touches
//! them, and schema id, template id and block length are validated.

use crate::formats::languages::{OtherLanguages, WireFormat};
use super::wire::{IntoModel, ToLib};
use super::codec::table_only as schema_adds;
use super::codec::{DecodeError, Documented, Format, MessageRead, Sink, Visitor};
use crate::model::*;

super::codec::generated!(
    /// The code `build.rs` generated from the schema, made a module (see build.rs).
    generated,
    "/sbe/mod.rs"
);

use generated::message_header_codec::{self, MessageHeaderDecoder};
use generated::*;

const HEADER: usize = message_header_codec::ENCODED_LENGTH;

#[derive(Debug, Default)]
pub struct Sbe;

/// Writes header + block of one message at `off` of `buf`; evaluates to the message's size.
/// Shared with the v2 writer of `capability::evolution::sbe`, whose encoders have the same names.
macro_rules! put {
    ($buf:expr, $off:expr, $codec:ident :: $Enc:ident, |$e:ident| $body:block) => {{
        let mut header = $codec::$Enc::default()
            .wrap(WriteBuf::new($buf), $off + HEADER)
            .header($off);
        #[allow(unused_mut)]
        let mut $e = header.parent().expect("the header's parent was just set");
        $body
        HEADER + usize::from($codec::SBE_BLOCK_LENGTH)
    }};
}
pub(crate) use put;

/// The conversions between the model and one schema's generated code (`side::Side` in scope):
/// expanded here for this schema and in `capability::evolution::sbe` for version 2, whose
/// generated types are others of the same names. The setters take the other fields as `wire`'s
/// conversions of a field's reference make them (the symbol and reason by reference).
macro_rules! conversions {
    () => {
        impl $crate::formats::wire::ToLib<side::Side> for &Side {
            #[inline(always)]
            fn to_lib(self) -> side::Side {
                match self {
                    Side::Buy => side::Side::Buy,
                    Side::Sell => side::Side::Sell,
                }
            }
        }

        impl IntoModel<Side> for side::Side {
            #[inline(always)]
            fn into_model(self) -> Result<Side, DecodeError> {
                match self {
                    side::Side::Buy => Ok(Side::Buy),
                    side::Side::Sell => Ok(Side::Sell),
                    side::Side::NullVal => Err(DecodeError::Malformed("SBE price level side")),
                }
            }
        }
    };
}
pub(crate) use conversions;
conversions!();

impl IntoModel<Symbol> for [u8; 8] {
    #[inline(always)]
    fn into_model(self) -> Result<Symbol, DecodeError> {
        Ok(Symbol(self))
    }
}

/// The symbol as the setters take it: a reference to its bytes.
impl<'a> ToLib<&'a [u8; 8]> for &'a Symbol {
    #[inline(always)]
    fn to_lib(self) -> &'a [u8; 8] {
        &self.0
    }
}

/// Every per-template list, from the message table: block lengths, the field-by-field copies
/// through one schema's generated encoders and decoders (`x_codec::XEncoder`, setters and getters
/// named as the model's fields), over the names in scope where it expands: the schema's
/// generated code, `MessageRead` and `schema_adds!`, what the schema adds to the table's fields
/// (`write $V e` after them, `read $V d, message` what a read returns). Expanded here for this
/// schema and in `capability::evolution::sbe` for version 2.
macro_rules! templates {
    ($($V:ident($S:ident) $snake:ident {
        kinds $kinds:tt, len $len:literal, wire $wire:tt, fields [$($f:ident: $t:ident),*],
        capnp $init:ident $capnp:tt, flatbuffers $Args:ident $tags:tt,
        sbe $codec:ident $Enc:ident $Dec:ident,
    },)*) => {
        /// Encoded size of one message: header plus its template's fixed block.
        fn encoded_len(m: &Message) -> usize {
            HEADER + usize::from(match m {
                $(Message::$V(_) => $codec::SBE_BLOCK_LENGTH,)*
            })
        }

        fn put_message(buf: &mut [u8], off: usize, m: &Message) -> usize {
            match m {
                $(Message::$V(m) => $crate::formats::sbe::put!(buf, off, $codec::$Enc, |e| {
                    $(e.$f($crate::formats::wire::ToLib::to_lib(&m.$f));)*
                    schema_adds!(write $V e);
                }),)*
            }
        }

        /// The minimum block length a template needs (the schema's block length), `None` for a
        /// template this schema does not know.
        fn min_block(template: u16) -> Option<u16> {
            Some(match template {
                $($codec::SBE_TEMPLATE_ID => $codec::SBE_BLOCK_LENGTH,)*
                _ => return None,
            })
        }

        fn read_message(
            template: u16,
            header: MessageHeaderDecoder<ReadBuf<'_>>,
            pos: usize,
        ) -> Result<MessageRead, DecodeError> {
            Ok(match template {
                $($codec::SBE_TEMPLATE_ID => {
                    let d = $codec::$Dec::default().header(header, pos);
                    schema_adds!(read $V d, Message::$V($S { $($f: d.$f().into_model()?,)* }))
                })*
                _ => {
                    return Err(DecodeError::Malformed(
                        "SBE template unknown to this schema",
                    ))
                }
            })
        }
    };
}
pub(crate) use templates;

for_each_message!(templates);

/// A message header at `pos`, checked: whole header and block inside `bytes`, our schema, and a
/// block at least as long as the template's (longer is allowed: a newer schema version's block).
/// Returns the header decoder, template id (None if unknown) and the message's total length.
fn checked_header<'a>(
    bytes: &'a [u8],
    pos: usize,
) -> Result<(MessageHeaderDecoder<ReadBuf<'a>>, Option<u16>, usize), DecodeError> {
    DecodeError::check_len(bytes, pos + HEADER)?;
    let header = MessageHeaderDecoder::default().wrap(ReadBuf::new(bytes), pos);
    if header.schema_id() != SBE_SCHEMA_ID {
        return Err(DecodeError::Malformed("SBE schema id is not this schema's"));
    }
    let template = header.template_id();
    let block = header.block_length();
    let known = match min_block(template) {
        Some(min) if block < min => {
            return Err(DecodeError::Malformed(
                "SBE block shorter than its template",
            ))
        }
        Some(_) => Some(template),
        None => None,
    };
    let len = HEADER + usize::from(block);
    DecodeError::check_len(bytes, pos + len)?;
    Ok((header, known, len))
}

/// The checked packet header: (seq, send time, message count, bytes used).
fn packet_header(bytes: &[u8]) -> Result<(u64, i64, u32, usize), DecodeError> {
    let (header, _, len) = checked_header(bytes, 0)?;
    if header.template_id() != packet_header_codec::SBE_TEMPLATE_ID {
        return Err(DecodeError::Malformed(
            "SBE packet does not start with PacketHeader",
        ));
    }
    if header.block_length() < packet_header_codec::SBE_BLOCK_LENGTH {
        return Err(DecodeError::Malformed("SBE PacketHeader block too short"));
    }
    let d = packet_header_codec::PacketHeaderDecoder::default().header(header, 0);
    Ok((d.seq(), d.send_time(), d.message_count(), len))
}

/// Walks the packet's messages, bounds-checked, calling `f(template, header, offset)` for each
/// known template (unknown ones are skipped by their block length and passed as `None`).
#[inline(always)]
fn walk<'a>(
    bytes: &'a [u8],
    mut pos: usize,
    count: u32,
    mut f: impl FnMut(Option<u16>, MessageHeaderDecoder<ReadBuf<'a>>, usize) -> Result<(), DecodeError>,
) -> Result<usize, DecodeError> {
    for _ in 0..count {
        let (header, template, len) = checked_header(bytes, pos)?;
        f(template, header, pos)?;
        pos += len;
    }
    Ok(pos)
}

const SCHEMA: Option<&str> = Some("schemas/marketdata.xml, compiled by sbe-tool 1.34.0 (Rust generator)");
const SOURCE: &str = "https://github.com/real-logic/simple-binary-encoding/wiki (flyweights read in \
    place); the generated decoders panic on short input, so src/formats/sbe.rs \
    bounds-checks every header and block and validates ids and block lengths first";

impl Format for Sbe {
    const NAME: &'static str = "sbe";
    const DOCUMENTED: Documented = Documented::new(SCHEMA, true, true, SOURCE);
    const OTHER_LANGUAGES: OtherLanguages = OtherLanguages::Read(WireFormat::Sbe);

    fn encode(&mut self, packet: &Packet, out: &mut Vec<u8>) -> usize {
        let size = HEADER
            + usize::from(packet_header_codec::SBE_BLOCK_LENGTH)
            + packet.messages.iter().map(encoded_len).sum::<usize>();
        let start = out.len();
        out.resize(start + size, 0);
        let buf = &mut out[start..];
        let mut off = put!(
            &mut *buf,
            0,
            packet_header_codec::PacketHeaderEncoder,
            |e| {
                e.seq(packet.seq);
                e.send_time(packet.send_time);
                e.message_count(
                    u32::try_from(packet.messages.len()).expect("fewer than 2^32 messages"),
                );
            }
        );
        let mut written = 0;
        for m in &packet.messages {
            off += put_message(&mut *buf, off, m);
            written += 1;
        }
        debug_assert_eq!(off, size);
        written
    }

    fn decode<K: Sink>(&mut self, bytes: &[u8], sink: &mut K) -> Result<usize, DecodeError> {
        let (seq, _, count, pos) = packet_header(bytes)?;
        sink.packet(seq);
        walk(bytes, pos, count, |template, header, pos| {
            // Each template the aggregation reads, through its generated decoder `d`.
            macro_rules! select {
                ($($codec:ident::$Dec:ident => |$d:ident| $read:expr;)*) => {
                    match template {
                        $(Some($codec::SBE_TEMPLATE_ID) => {
                            let $d = $codec::$Dec::default().header(header, pos);
                            $read
                        })*
                        _ => sink.other(),
                    }
                };
            }
            select! {
                trade_report_codec::TradeReportDecoder =>
                    |d| sink.trade(&d.symbol(), d.size(), d.price());
                price_level_update_codec::PriceLevelUpdateDecoder =>
                    |d| sink.price_level(d.side().into_model()?, &d.symbol(), d.price());
                quote_update_codec::QuoteUpdateDecoder =>
                    |d| sink.quote(&d.symbol(), d.bid_price(), d.ask_price());
                order_executed_codec::OrderExecutedDecoder =>
                    |d| sink.trade(&d.symbol(), d.size(), d.price());
                add_order_codec::AddOrderDecoder =>
                    |d| sink.add_order(d.side(), &d.symbol(), d.price());
            }
            Ok(())
        })
    }

    fn decode_all<V: Visitor>(&mut self, bytes: &[u8], v: &mut V) -> Result<usize, DecodeError> {
        let (seq, send_time, count, pos) = packet_header(bytes)?;
        v.packet(seq, send_time);
        walk(bytes, pos, count, |template, header, pos| {
            let Some(template) = template else {
                return Err(DecodeError::Malformed(
                    "SBE template unknown to this schema",
                ));
            };
            v.message(read_message(template, header, pos)?);
            Ok(())
        })
    }
}
