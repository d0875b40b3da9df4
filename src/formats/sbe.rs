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

use super::{DecodeError, Format, Sink, Visitor};
use crate::model::{
    AddOrder, AuctionInformation, ClearBook, Message, OfficialPrice, OperationalHalt,
    OrderDelete, OrderExecuted, OrderModify, Packet, PriceLevelUpdate, QuoteUpdate,
    RetailLiquidity, SecurityDirectory, SecurityEvent, ShortSalePriceTest, Side, Symbol,
    SystemEvent, Trade, TradingStatus,
};

/// The code `build.rs` generated from the schema, made a module (see build.rs).
#[allow(
    clippy::all,
    clippy::pedantic,
    dead_code,
    unused_imports,
    unused_mut,
    non_camel_case_types,
    ambiguous_glob_reexports,
    missing_docs
)]
pub mod generated {
    include!(concat!(env!("OUT_DIR"), "/sbe/mod.rs"));
}

use generated::message_header_codec::{self, MessageHeaderDecoder};
use generated::*;

const HEADER: usize = message_header_codec::ENCODED_LENGTH;

/// The SBE runner.
#[derive(Debug, Default)]
pub struct Sbe;

/// Encoded size of one message: header plus its template's fixed block.
fn encoded_len(m: &Message) -> usize {
    HEADER
        + usize::from(match m {
            Message::SystemEvent(_) => system_event_codec::SBE_BLOCK_LENGTH,
            Message::SecurityDirectory(_) => security_directory_codec::SBE_BLOCK_LENGTH,
            Message::TradingStatus(_) => trading_status_codec::SBE_BLOCK_LENGTH,
            Message::OperationalHalt(_) => operational_halt_codec::SBE_BLOCK_LENGTH,
            Message::ShortSalePriceTest(_) => short_sale_price_test_codec::SBE_BLOCK_LENGTH,
            Message::SecurityEvent(_) => security_event_codec::SBE_BLOCK_LENGTH,
            Message::RetailLiquidity(_) => retail_liquidity_codec::SBE_BLOCK_LENGTH,
            Message::PriceLevelUpdate(_) => price_level_update_codec::SBE_BLOCK_LENGTH,
            Message::TradeReport(_) => trade_report_codec::SBE_BLOCK_LENGTH,
            Message::TradeBreak(_) => trade_break_codec::SBE_BLOCK_LENGTH,
            Message::OfficialPrice(_) => official_price_codec::SBE_BLOCK_LENGTH,
            Message::AuctionInformation(_) => auction_information_codec::SBE_BLOCK_LENGTH,
            Message::QuoteUpdate(_) => quote_update_codec::SBE_BLOCK_LENGTH,
            Message::AddOrder(_) => add_order_codec::SBE_BLOCK_LENGTH,
            Message::OrderModify(_) => order_modify_codec::SBE_BLOCK_LENGTH,
            Message::OrderDelete(_) => order_delete_codec::SBE_BLOCK_LENGTH,
            Message::OrderExecuted(_) => order_executed_codec::SBE_BLOCK_LENGTH,
            Message::ClearBook(_) => clear_book_codec::SBE_BLOCK_LENGTH,
        })
}

/// Writes header + block of one message at `off` of `buf`; evaluates to the message's size.
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

fn put_message(buf: &mut [u8], off: usize, m: &Message) -> usize {
    match m {
        Message::SystemEvent(m) => put!(buf, off, system_event_codec::SystemEventEncoder, |e| {
            e.event_code(m.event);
            e.timestamp(m.timestamp);
        }),
        Message::SecurityDirectory(m) => put!(
            buf,
            off,
            security_directory_codec::SecurityDirectoryEncoder,
            |e| {
                e.flags(m.flags);
                e.timestamp(m.timestamp);
                e.symbol(&m.symbol.0);
                e.round_lot_size(m.round_lot_size);
                e.adjusted_poc_price(m.adjusted_poc_price);
                e.luld_tier(m.luld_tier);
            }
        ),
        Message::TradingStatus(m) => {
            put!(buf, off, trading_status_codec::TradingStatusEncoder, |e| {
                e.status(m.status);
                e.timestamp(m.timestamp);
                e.symbol(&m.symbol.0);
                e.reason(&m.reason);
            })
        }
        Message::OperationalHalt(m) => {
            put!(
                buf,
                off,
                operational_halt_codec::OperationalHaltEncoder,
                |e| {
                    e.status(m.status);
                    e.timestamp(m.timestamp);
                    e.symbol(&m.symbol.0);
                }
            )
        }
        Message::ShortSalePriceTest(m) => put!(
            buf,
            off,
            short_sale_price_test_codec::ShortSalePriceTestEncoder,
            |e| {
                e.status(m.status);
                e.timestamp(m.timestamp);
                e.symbol(&m.symbol.0);
                e.detail(m.detail);
            }
        ),
        Message::SecurityEvent(m) => {
            put!(buf, off, security_event_codec::SecurityEventEncoder, |e| {
                e.event_code(m.event);
                e.timestamp(m.timestamp);
                e.symbol(&m.symbol.0);
            })
        }
        Message::RetailLiquidity(m) => {
            put!(
                buf,
                off,
                retail_liquidity_codec::RetailLiquidityEncoder,
                |e| {
                    e.indicator(m.indicator);
                    e.timestamp(m.timestamp);
                    e.symbol(&m.symbol.0);
                }
            )
        }
        Message::PriceLevelUpdate(m) => {
            put!(
                buf,
                off,
                price_level_update_codec::PriceLevelUpdateEncoder,
                |e| {
                    e.side(match m.side {
                        Side::Buy => side::Side::Buy,
                        Side::Sell => side::Side::Sell,
                    });
                    e.flags(m.flags);
                    e.timestamp(m.timestamp);
                    e.symbol(&m.symbol.0);
                    e.size(m.size);
                    e.price(m.price);
                }
            )
        }
        Message::TradeReport(m) => put!(buf, off, trade_report_codec::TradeReportEncoder, |e| {
            e.flags(m.flags);
            e.timestamp(m.timestamp);
            e.symbol(&m.symbol.0);
            e.size(m.size);
            e.price(m.price);
            e.trade_id(m.trade_id);
        }),
        Message::TradeBreak(m) => put!(buf, off, trade_break_codec::TradeBreakEncoder, |e| {
            e.flags(m.flags);
            e.timestamp(m.timestamp);
            e.symbol(&m.symbol.0);
            e.size(m.size);
            e.price(m.price);
            e.trade_id(m.trade_id);
        }),
        Message::OfficialPrice(m) => {
            put!(buf, off, official_price_codec::OfficialPriceEncoder, |e| {
                e.price_type(m.price_type);
                e.timestamp(m.timestamp);
                e.symbol(&m.symbol.0);
                e.price(m.price);
            })
        }
        Message::AuctionInformation(m) => put!(
            buf,
            off,
            auction_information_codec::AuctionInformationEncoder,
            |e| {
                e.auction_type(m.auction_type);
                e.timestamp(m.timestamp);
                e.symbol(&m.symbol.0);
                e.paired_shares(m.paired_shares);
                e.reference_price(m.reference_price);
                e.indicative_clearing_price(m.indicative_clearing_price);
                e.imbalance_shares(m.imbalance_shares);
                e.imbalance_side(m.imbalance_side);
                e.extension_number(m.extension_number);
                e.scheduled_auction_time(m.scheduled_auction_time);
                e.auction_book_clearing_price(m.auction_book_clearing_price);
                e.collar_reference_price(m.collar_reference_price);
                e.lower_auction_collar(m.lower_auction_collar);
                e.upper_auction_collar(m.upper_auction_collar);
            }
        ),
        Message::QuoteUpdate(m) => put!(buf, off, quote_update_codec::QuoteUpdateEncoder, |e| {
            e.flags(m.flags);
            e.timestamp(m.timestamp);
            e.symbol(&m.symbol.0);
            e.bid_size(m.bid_size);
            e.bid_price(m.bid_price);
            e.ask_price(m.ask_price);
            e.ask_size(m.ask_size);
        }),
        Message::AddOrder(m) => put!(buf, off, add_order_codec::AddOrderEncoder, |e| {
            e.side(m.side);
            e.timestamp(m.timestamp);
            e.symbol(&m.symbol.0);
            e.order_id(m.order_id);
            e.size(m.size);
            e.price(m.price);
        }),
        Message::OrderModify(m) => put!(buf, off, order_modify_codec::OrderModifyEncoder, |e| {
            e.flags(m.flags);
            e.timestamp(m.timestamp);
            e.symbol(&m.symbol.0);
            e.order_id(m.order_id);
            e.size(m.size);
            e.price(m.price);
        }),
        Message::OrderDelete(m) => put!(buf, off, order_delete_codec::OrderDeleteEncoder, |e| {
            e.timestamp(m.timestamp);
            e.symbol(&m.symbol.0);
            e.order_id(m.order_id);
        }),
        Message::OrderExecuted(m) => {
            put!(buf, off, order_executed_codec::OrderExecutedEncoder, |e| {
                e.flags(m.flags);
                e.timestamp(m.timestamp);
                e.symbol(&m.symbol.0);
                e.order_id(m.order_id);
                e.size(m.size);
                e.price(m.price);
                e.trade_id(m.trade_id);
            })
        }
        Message::ClearBook(m) => put!(buf, off, clear_book_codec::ClearBookEncoder, |e| {
            e.timestamp(m.timestamp);
            e.symbol(&m.symbol.0);
        }),
    }
}

/// The minimum block length a template needs, `None` for a template this schema does not know.
fn min_block(template: u16) -> Option<u16> {
    Some(match template {
        system_event_codec::SBE_TEMPLATE_ID => system_event_codec::SBE_BLOCK_LENGTH,
        security_directory_codec::SBE_TEMPLATE_ID => security_directory_codec::SBE_BLOCK_LENGTH,
        trading_status_codec::SBE_TEMPLATE_ID => trading_status_codec::SBE_BLOCK_LENGTH,
        operational_halt_codec::SBE_TEMPLATE_ID => operational_halt_codec::SBE_BLOCK_LENGTH,
        short_sale_price_test_codec::SBE_TEMPLATE_ID => {
            short_sale_price_test_codec::SBE_BLOCK_LENGTH
        }
        security_event_codec::SBE_TEMPLATE_ID => security_event_codec::SBE_BLOCK_LENGTH,
        retail_liquidity_codec::SBE_TEMPLATE_ID => retail_liquidity_codec::SBE_BLOCK_LENGTH,
        price_level_update_codec::SBE_TEMPLATE_ID => price_level_update_codec::SBE_BLOCK_LENGTH,
        trade_report_codec::SBE_TEMPLATE_ID => trade_report_codec::SBE_BLOCK_LENGTH,
        trade_break_codec::SBE_TEMPLATE_ID => trade_break_codec::SBE_BLOCK_LENGTH,
        official_price_codec::SBE_TEMPLATE_ID => official_price_codec::SBE_BLOCK_LENGTH,
        auction_information_codec::SBE_TEMPLATE_ID => auction_information_codec::SBE_BLOCK_LENGTH,
        quote_update_codec::SBE_TEMPLATE_ID => quote_update_codec::SBE_BLOCK_LENGTH,
        add_order_codec::SBE_TEMPLATE_ID => add_order_codec::SBE_BLOCK_LENGTH,
        order_modify_codec::SBE_TEMPLATE_ID => order_modify_codec::SBE_BLOCK_LENGTH,
        order_delete_codec::SBE_TEMPLATE_ID => order_delete_codec::SBE_BLOCK_LENGTH,
        order_executed_codec::SBE_TEMPLATE_ID => order_executed_codec::SBE_BLOCK_LENGTH,
        clear_book_codec::SBE_TEMPLATE_ID => clear_book_codec::SBE_BLOCK_LENGTH,
        _ => return None,
    })
}

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

impl Format for Sbe {
    const NAME: &'static str = "sbe";

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
            match template {
                Some(trade_report_codec::SBE_TEMPLATE_ID) => {
                    let d = trade_report_codec::TradeReportDecoder::default().header(header, pos);
                    sink.trade(&d.symbol(), d.size(), d.price());
                }
                Some(price_level_update_codec::SBE_TEMPLATE_ID) => {
                    let d = price_level_update_codec::PriceLevelUpdateDecoder::default()
                        .header(header, pos);
                    let side = match d.side() {
                        side::Side::Buy => Side::Buy,
                        side::Side::Sell => Side::Sell,
                        side::Side::NullVal => {
                            return Err(DecodeError::Malformed("SBE price level side"))
                        }
                    };
                    sink.price_level(side, &d.symbol(), d.price());
                }
                Some(quote_update_codec::SBE_TEMPLATE_ID) => {
                    let d = quote_update_codec::QuoteUpdateDecoder::default().header(header, pos);
                    sink.quote(&d.symbol(), d.bid_price(), d.ask_price());
                }
                Some(order_executed_codec::SBE_TEMPLATE_ID) => {
                    let d = order_executed_codec::OrderExecutedDecoder::default()
                        .header(header, pos);
                    sink.trade(&d.symbol(), d.size(), d.price());
                }
                Some(add_order_codec::SBE_TEMPLATE_ID) => {
                    let d = add_order_codec::AddOrderDecoder::default().header(header, pos);
                    sink.add_order(d.side(), &d.symbol(), d.price());
                }
                _ => sink.other(),
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

fn read_message(
    template: u16,
    header: MessageHeaderDecoder<ReadBuf<'_>>,
    pos: usize,
) -> Result<Message, DecodeError> {
    Ok(match template {
        system_event_codec::SBE_TEMPLATE_ID => {
            let d = system_event_codec::SystemEventDecoder::default().header(header, pos);
            Message::SystemEvent(SystemEvent {
                event: d.event_code(),
                timestamp: d.timestamp(),
            })
        }
        security_directory_codec::SBE_TEMPLATE_ID => {
            let d =
                security_directory_codec::SecurityDirectoryDecoder::default().header(header, pos);
            Message::SecurityDirectory(SecurityDirectory {
                flags: d.flags(),
                timestamp: d.timestamp(),
                symbol: Symbol(d.symbol()),
                round_lot_size: d.round_lot_size(),
                adjusted_poc_price: d.adjusted_poc_price(),
                luld_tier: d.luld_tier(),
            })
        }
        trading_status_codec::SBE_TEMPLATE_ID => {
            let d = trading_status_codec::TradingStatusDecoder::default().header(header, pos);
            Message::TradingStatus(TradingStatus {
                status: d.status(),
                timestamp: d.timestamp(),
                symbol: Symbol(d.symbol()),
                reason: d.reason(),
            })
        }
        operational_halt_codec::SBE_TEMPLATE_ID => {
            let d = operational_halt_codec::OperationalHaltDecoder::default().header(header, pos);
            Message::OperationalHalt(OperationalHalt {
                status: d.status(),
                timestamp: d.timestamp(),
                symbol: Symbol(d.symbol()),
            })
        }
        short_sale_price_test_codec::SBE_TEMPLATE_ID => {
            let d = short_sale_price_test_codec::ShortSalePriceTestDecoder::default()
                .header(header, pos);
            Message::ShortSalePriceTest(ShortSalePriceTest {
                status: d.status(),
                timestamp: d.timestamp(),
                symbol: Symbol(d.symbol()),
                detail: d.detail(),
            })
        }
        security_event_codec::SBE_TEMPLATE_ID => {
            let d = security_event_codec::SecurityEventDecoder::default().header(header, pos);
            Message::SecurityEvent(SecurityEvent {
                event: d.event_code(),
                timestamp: d.timestamp(),
                symbol: Symbol(d.symbol()),
            })
        }
        retail_liquidity_codec::SBE_TEMPLATE_ID => {
            let d = retail_liquidity_codec::RetailLiquidityDecoder::default().header(header, pos);
            Message::RetailLiquidity(RetailLiquidity {
                indicator: d.indicator(),
                timestamp: d.timestamp(),
                symbol: Symbol(d.symbol()),
            })
        }
        price_level_update_codec::SBE_TEMPLATE_ID => {
            let d =
                price_level_update_codec::PriceLevelUpdateDecoder::default().header(header, pos);
            Message::PriceLevelUpdate(PriceLevelUpdate {
                side: match d.side() {
                    side::Side::Buy => Side::Buy,
                    side::Side::Sell => Side::Sell,
                    side::Side::NullVal => {
                        return Err(DecodeError::Malformed("SBE price level side"))
                    }
                },
                flags: d.flags(),
                timestamp: d.timestamp(),
                symbol: Symbol(d.symbol()),
                size: d.size(),
                price: d.price(),
            })
        }
        trade_report_codec::SBE_TEMPLATE_ID => {
            let d = trade_report_codec::TradeReportDecoder::default().header(header, pos);
            Message::TradeReport(Trade {
                flags: d.flags(),
                timestamp: d.timestamp(),
                symbol: Symbol(d.symbol()),
                size: d.size(),
                price: d.price(),
                trade_id: d.trade_id(),
            })
        }
        trade_break_codec::SBE_TEMPLATE_ID => {
            let d = trade_break_codec::TradeBreakDecoder::default().header(header, pos);
            Message::TradeBreak(Trade {
                flags: d.flags(),
                timestamp: d.timestamp(),
                symbol: Symbol(d.symbol()),
                size: d.size(),
                price: d.price(),
                trade_id: d.trade_id(),
            })
        }
        official_price_codec::SBE_TEMPLATE_ID => {
            let d = official_price_codec::OfficialPriceDecoder::default().header(header, pos);
            Message::OfficialPrice(OfficialPrice {
                price_type: d.price_type(),
                timestamp: d.timestamp(),
                symbol: Symbol(d.symbol()),
                price: d.price(),
            })
        }
        auction_information_codec::SBE_TEMPLATE_ID => {
            let d =
                auction_information_codec::AuctionInformationDecoder::default().header(header, pos);
            Message::AuctionInformation(AuctionInformation {
                auction_type: d.auction_type(),
                timestamp: d.timestamp(),
                symbol: Symbol(d.symbol()),
                paired_shares: d.paired_shares(),
                reference_price: d.reference_price(),
                indicative_clearing_price: d.indicative_clearing_price(),
                imbalance_shares: d.imbalance_shares(),
                imbalance_side: d.imbalance_side(),
                extension_number: d.extension_number(),
                scheduled_auction_time: d.scheduled_auction_time(),
                auction_book_clearing_price: d.auction_book_clearing_price(),
                collar_reference_price: d.collar_reference_price(),
                lower_auction_collar: d.lower_auction_collar(),
                upper_auction_collar: d.upper_auction_collar(),
            })
        }
        quote_update_codec::SBE_TEMPLATE_ID => {
            let d = quote_update_codec::QuoteUpdateDecoder::default().header(header, pos);
            Message::QuoteUpdate(QuoteUpdate {
                flags: d.flags(),
                timestamp: d.timestamp(),
                symbol: Symbol(d.symbol()),
                bid_size: d.bid_size(),
                bid_price: d.bid_price(),
                ask_price: d.ask_price(),
                ask_size: d.ask_size(),
            })
        }
        add_order_codec::SBE_TEMPLATE_ID => {
            let d = add_order_codec::AddOrderDecoder::default().header(header, pos);
            Message::AddOrder(AddOrder {
                side: d.side(),
                timestamp: d.timestamp(),
                symbol: Symbol(d.symbol()),
                order_id: d.order_id(),
                size: d.size(),
                price: d.price(),
            })
        }
        order_modify_codec::SBE_TEMPLATE_ID => {
            let d = order_modify_codec::OrderModifyDecoder::default().header(header, pos);
            Message::OrderModify(OrderModify {
                flags: d.flags(),
                timestamp: d.timestamp(),
                symbol: Symbol(d.symbol()),
                order_id: d.order_id(),
                size: d.size(),
                price: d.price(),
            })
        }
        order_delete_codec::SBE_TEMPLATE_ID => {
            let d = order_delete_codec::OrderDeleteDecoder::default().header(header, pos);
            Message::OrderDelete(OrderDelete {
                timestamp: d.timestamp(),
                symbol: Symbol(d.symbol()),
                order_id: d.order_id(),
            })
        }
        order_executed_codec::SBE_TEMPLATE_ID => {
            let d = order_executed_codec::OrderExecutedDecoder::default().header(header, pos);
            Message::OrderExecuted(OrderExecuted {
                flags: d.flags(),
                timestamp: d.timestamp(),
                symbol: Symbol(d.symbol()),
                order_id: d.order_id(),
                size: d.size(),
                price: d.price(),
                trade_id: d.trade_id(),
            })
        }
        clear_book_codec::SBE_TEMPLATE_ID => {
            let d = clear_book_codec::ClearBookDecoder::default().header(header, pos);
            Message::ClearBook(ClearBook {
                timestamp: d.timestamp(),
                symbol: Symbol(d.symbol()),
            })
        }
        _ => {
            return Err(DecodeError::Malformed(
                "SBE template unknown to this schema",
            ))
        }
    })
}
