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
//! among the packet's earlier ones to be shared. On the bundled DEEP sample that is 3,265
//! instructions per packet; the 2019 shootout's encoder (flatbuffers 0.6, only trades and price
//! levels, symbols as strings) executes 3,297 on the same packets with 0.6 and with 25.12
//! (docs/BENCHMARKS.md, "Each codec at its best").
//!
//! Decoding runs the FlatBuffers verifier on every packet (`size_prefixed_root_as_packet_with_opts`)
//! and then reads fields in place: symbols are `&Symbol` structs borrowed from the buffer. The
//! verifier is what makes reading hostile bytes safe; skipping it (`root_unchecked`) would be
//! `unsafe` and is not what a consumer of untrusted data can do, so its cost is measured. Neither
//! side allocates once warm.

use ::flatbuffers::{FlatBufferBuilder, VerifierOptions, WIPOffset};

use super::{
    every_kind, reserve_touched, touch, DecodeError, Format, Sink, Visitor, MAX_DATAGRAM_MESSAGES,
};
use crate::model::{
    AddOrder, AuctionInformation, ClearBook, Message, OfficialPrice, OperationalHalt,
    OrderDelete, OrderExecuted, OrderModify, Packet, PriceLevelUpdate, QuoteUpdate,
    RetailLiquidity, SecurityDirectory, SecurityEvent, ShortSalePriceTest, Side, Symbol,
    SystemEvent, Trade, TradingStatus,
};

/// The code `flatc` generated from `schemas/marketdata.fbs` (in OUT_DIR).
#[allow(
    clippy::all,
    clippy::pedantic,
    dead_code,
    unused_imports,
    non_camel_case_types,
    deprecated,
    missing_docs,
    unsafe_op_in_unsafe_fn,
    mismatched_lifetime_syntaxes
)]
pub mod generated {
    include!(concat!(env!("OUT_DIR"), "/marketdata_generated.rs"));
}

use generated::md_shootout::fbs;

/// Bytes of the size prefix.
const PREFIX: usize = 4;

/// The FlatBuffers runner.
pub struct FlatBuffers {
    fbb: FlatBufferBuilder<'static>,
    offsets: Vec<WIPOffset<fbs::Message<'static>>>,
    verifier: VerifierOptions,
}

/// The builder's buffer: a datagram of the smallest messages (5,455 system events, about 36
/// bytes each as a body table, its `Message` table and its offset in the vector) needs about
/// 200 KB.
const BUILDER_BYTES: usize = 256 * 1024;

impl Default for FlatBuffers {
    fn default() -> Self {
        let mut buffer = vec![0; BUILDER_BYTES];
        touch(&mut buffer, 0);
        let mut offsets = Vec::new();
        reserve_touched(&mut offsets, MAX_DATAGRAM_MESSAGES);
        let mut fb = FlatBuffers {
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

fn sym(s: &fbs::Symbol) -> Symbol {
    Symbol(s.0)
}

impl FlatBuffers {
    /// The verified root of the packet at the start of `bytes`, and the bytes it uses.
    fn root<'a>(&self, bytes: &'a [u8]) -> Result<(fbs::Packet<'a>, usize), DecodeError> {
        DecodeError::check_len(bytes, PREFIX)?;
        let len = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as usize;
        let total = PREFIX
            .checked_add(len)
            .ok_or(DecodeError::Malformed("size prefix overflows"))?;
        DecodeError::check_len(bytes, total)?;
        let root = fbs::size_prefixed_root_as_packet_with_opts(&self.verifier, &bytes[..total])
            .map_err(err)?;
        Ok((root, total))
    }
}

impl Format for FlatBuffers {
    const NAME: &'static str = "flatbuffers";

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

/// Reads a packet table into `sink`. Public so the benches can feed it a root obtained without
/// the verifier, to measure what verification costs.
pub fn visit<K: Sink>(root: fbs::Packet<'_>, sink: &mut K) -> Result<(), DecodeError> {
    sink.packet(root.seq());
    for m in root.messages() {
        match m.body_type() {
            fbs::Body::TradeReport => {
                let t = m
                    .body_as_trade_report()
                    .ok_or(DecodeError::Malformed("no body"))?;
                sink.trade(&t.symbol().0, t.size(), t.price());
            }
            fbs::Body::PriceLevelBuy => {
                let p = m
                    .body_as_price_level_buy()
                    .ok_or(DecodeError::Malformed("no body"))?;
                sink.price_level(Side::Buy, &p.symbol().0, p.price());
            }
            fbs::Body::PriceLevelSell => {
                let p = m
                    .body_as_price_level_sell()
                    .ok_or(DecodeError::Malformed("no body"))?;
                sink.price_level(Side::Sell, &p.symbol().0, p.price());
            }
            fbs::Body::QuoteUpdate => {
                let q = m
                    .body_as_quote_update()
                    .ok_or(DecodeError::Malformed("no body"))?;
                sink.quote(&q.symbol().0, q.bid_price(), q.ask_price());
            }
            fbs::Body::OrderExecuted => {
                let e = m
                    .body_as_order_executed()
                    .ok_or(DecodeError::Malformed("no body"))?;
                sink.trade(&e.symbol().0, e.size(), e.price());
            }
            fbs::Body::AddOrder => {
                let a = m
                    .body_as_add_order()
                    .ok_or(DecodeError::Malformed("no body"))?;
                sink.add_order(a.side(), &a.symbol().0, a.price());
            }
            _ => sink.other(),
        }
    }
    Ok(())
}

type UnionOffset = WIPOffset<::flatbuffers::UnionWIPOffset>;

fn build_body(fbb: &mut FlatBufferBuilder<'static>, m: &Message) -> (fbs::Body, UnionOffset) {
    match m {
        Message::SystemEvent(m) => (
            fbs::Body::SystemEvent,
            fbs::SystemEvent::create(
                fbb,
                &fbs::SystemEventArgs {
                    timestamp: m.timestamp,
                    event: m.event,
                },
            )
            .as_union_value(),
        ),
        Message::SecurityDirectory(m) => (
            fbs::Body::SecurityDirectory,
            fbs::SecurityDirectory::create(
                fbb,
                &fbs::SecurityDirectoryArgs {
                    timestamp: m.timestamp,
                    symbol: Some(&fbs::Symbol(m.symbol.0)),
                    adjusted_poc_price: m.adjusted_poc_price,
                    round_lot_size: m.round_lot_size,
                    flags: m.flags,
                    luld_tier: m.luld_tier,
                },
            )
            .as_union_value(),
        ),
        Message::TradingStatus(m) => (
            fbs::Body::TradingStatus,
            fbs::TradingStatus::create(
                fbb,
                &fbs::TradingStatusArgs {
                    timestamp: m.timestamp,
                    symbol: Some(&fbs::Symbol(m.symbol.0)),
                    reason: u32::from_le_bytes(m.reason),
                    status: m.status,
                },
            )
            .as_union_value(),
        ),
        Message::OperationalHalt(m) => (
            fbs::Body::OperationalHalt,
            fbs::OperationalHalt::create(
                fbb,
                &fbs::OperationalHaltArgs {
                    timestamp: m.timestamp,
                    symbol: Some(&fbs::Symbol(m.symbol.0)),
                    status: m.status,
                },
            )
            .as_union_value(),
        ),
        Message::ShortSalePriceTest(m) => (
            fbs::Body::ShortSalePriceTest,
            fbs::ShortSalePriceTest::create(
                fbb,
                &fbs::ShortSalePriceTestArgs {
                    timestamp: m.timestamp,
                    symbol: Some(&fbs::Symbol(m.symbol.0)),
                    status: m.status,
                    detail: m.detail,
                },
            )
            .as_union_value(),
        ),
        Message::SecurityEvent(m) => (
            fbs::Body::SecurityEvent,
            fbs::SecurityEvent::create(
                fbb,
                &fbs::SecurityEventArgs {
                    timestamp: m.timestamp,
                    symbol: Some(&fbs::Symbol(m.symbol.0)),
                    event: m.event,
                },
            )
            .as_union_value(),
        ),
        Message::RetailLiquidity(m) => (
            fbs::Body::RetailLiquidity,
            fbs::RetailLiquidity::create(
                fbb,
                &fbs::RetailLiquidityArgs {
                    timestamp: m.timestamp,
                    symbol: Some(&fbs::Symbol(m.symbol.0)),
                    indicator: m.indicator,
                },
            )
            .as_union_value(),
        ),
        Message::PriceLevelUpdate(m) => (
            match m.side {
                Side::Buy => fbs::Body::PriceLevelBuy,
                Side::Sell => fbs::Body::PriceLevelSell,
            },
            fbs::PriceLevelUpdate::create(
                fbb,
                &fbs::PriceLevelUpdateArgs {
                    timestamp: m.timestamp,
                    symbol: Some(&fbs::Symbol(m.symbol.0)),
                    price: m.price,
                    size: m.size,
                    flags: m.flags,
                },
            )
            .as_union_value(),
        ),
        Message::TradeReport(m) => (fbs::Body::TradeReport, build_trade(fbb, m)),
        Message::TradeBreak(m) => (fbs::Body::TradeBreak, build_trade(fbb, m)),
        Message::OfficialPrice(m) => (
            fbs::Body::OfficialPrice,
            fbs::OfficialPrice::create(
                fbb,
                &fbs::OfficialPriceArgs {
                    timestamp: m.timestamp,
                    symbol: Some(&fbs::Symbol(m.symbol.0)),
                    price: m.price,
                    price_type: m.price_type,
                },
            )
            .as_union_value(),
        ),
        Message::AuctionInformation(m) => (
            fbs::Body::AuctionInformation,
            fbs::AuctionInformation::create(
                fbb,
                &fbs::AuctionInformationArgs {
                    timestamp: m.timestamp,
                    symbol: Some(&fbs::Symbol(m.symbol.0)),
                    reference_price: m.reference_price,
                    indicative_clearing_price: m.indicative_clearing_price,
                    auction_book_clearing_price: m.auction_book_clearing_price,
                    collar_reference_price: m.collar_reference_price,
                    lower_auction_collar: m.lower_auction_collar,
                    upper_auction_collar: m.upper_auction_collar,
                    paired_shares: m.paired_shares,
                    imbalance_shares: m.imbalance_shares,
                    scheduled_auction_time: m.scheduled_auction_time,
                    auction_type: m.auction_type,
                    imbalance_side: m.imbalance_side,
                    extension_number: m.extension_number,
                },
            )
            .as_union_value(),
        ),
        Message::QuoteUpdate(m) => (
            fbs::Body::QuoteUpdate,
            fbs::QuoteUpdate::create(
                fbb,
                &fbs::QuoteUpdateArgs {
                    timestamp: m.timestamp,
                    symbol: Some(&fbs::Symbol(m.symbol.0)),
                    bid_price: m.bid_price,
                    ask_price: m.ask_price,
                    bid_size: m.bid_size,
                    ask_size: m.ask_size,
                    flags: m.flags,
                },
            )
            .as_union_value(),
        ),
        Message::AddOrder(m) => (
            fbs::Body::AddOrder,
            fbs::AddOrder::create(
                fbb,
                &fbs::AddOrderArgs {
                    timestamp: m.timestamp,
                    symbol: Some(&fbs::Symbol(m.symbol.0)),
                    order_id: m.order_id,
                    price: m.price,
                    size: m.size,
                    side: m.side,
                },
            )
            .as_union_value(),
        ),
        Message::OrderModify(m) => (
            fbs::Body::OrderModify,
            fbs::OrderModify::create(
                fbb,
                &fbs::OrderModifyArgs {
                    timestamp: m.timestamp,
                    symbol: Some(&fbs::Symbol(m.symbol.0)),
                    order_id: m.order_id,
                    price: m.price,
                    size: m.size,
                    flags: m.flags,
                },
            )
            .as_union_value(),
        ),
        Message::OrderDelete(m) => (
            fbs::Body::OrderDelete,
            fbs::OrderDelete::create(
                fbb,
                &fbs::OrderDeleteArgs {
                    timestamp: m.timestamp,
                    symbol: Some(&fbs::Symbol(m.symbol.0)),
                    order_id: m.order_id,
                },
            )
            .as_union_value(),
        ),
        Message::OrderExecuted(m) => (
            fbs::Body::OrderExecuted,
            fbs::OrderExecuted::create(
                fbb,
                &fbs::OrderExecutedArgs {
                    timestamp: m.timestamp,
                    symbol: Some(&fbs::Symbol(m.symbol.0)),
                    order_id: m.order_id,
                    price: m.price,
                    trade_id: m.trade_id,
                    size: m.size,
                    flags: m.flags,
                },
            )
            .as_union_value(),
        ),
        Message::ClearBook(m) => (
            fbs::Body::ClearBook,
            fbs::ClearBook::create(
                fbb,
                &fbs::ClearBookArgs {
                    timestamp: m.timestamp,
                    symbol: Some(&fbs::Symbol(m.symbol.0)),
                },
            )
            .as_union_value(),
        ),
    }
}

fn build_trade(fbb: &mut FlatBufferBuilder<'static>, m: &Trade) -> UnionOffset {
    fbs::Trade::create(
        fbb,
        &fbs::TradeArgs {
            timestamp: m.timestamp,
            symbol: Some(&fbs::Symbol(m.symbol.0)),
            price: m.price,
            trade_id: m.trade_id,
            size: m.size,
            flags: m.flags,
        },
    )
    .as_union_value()
}

fn get_trade(t: fbs::Trade<'_>) -> Trade {
    Trade {
        flags: t.flags(),
        timestamp: t.timestamp(),
        symbol: sym(t.symbol()),
        size: t.size(),
        price: t.price(),
        trade_id: t.trade_id(),
    }
}

fn read_message(m: fbs::Message<'_>) -> Result<Message, DecodeError> {
    const NO_BODY: DecodeError = DecodeError::Malformed("FlatBuffers message without a body");
    Ok(match m.body_type() {
        fbs::Body::SystemEvent => {
            let x = m.body_as_system_event().ok_or(NO_BODY)?;
            Message::SystemEvent(SystemEvent {
                event: x.event(),
                timestamp: x.timestamp(),
            })
        }
        fbs::Body::SecurityDirectory => {
            let x = m.body_as_security_directory().ok_or(NO_BODY)?;
            Message::SecurityDirectory(SecurityDirectory {
                flags: x.flags(),
                timestamp: x.timestamp(),
                symbol: sym(x.symbol()),
                round_lot_size: x.round_lot_size(),
                adjusted_poc_price: x.adjusted_poc_price(),
                luld_tier: x.luld_tier(),
            })
        }
        fbs::Body::TradingStatus => {
            let x = m.body_as_trading_status().ok_or(NO_BODY)?;
            Message::TradingStatus(TradingStatus {
                status: x.status(),
                timestamp: x.timestamp(),
                symbol: sym(x.symbol()),
                reason: x.reason().to_le_bytes(),
            })
        }
        fbs::Body::OperationalHalt => {
            let x = m.body_as_operational_halt().ok_or(NO_BODY)?;
            Message::OperationalHalt(OperationalHalt {
                status: x.status(),
                timestamp: x.timestamp(),
                symbol: sym(x.symbol()),
            })
        }
        fbs::Body::ShortSalePriceTest => {
            let x = m.body_as_short_sale_price_test().ok_or(NO_BODY)?;
            Message::ShortSalePriceTest(ShortSalePriceTest {
                status: x.status(),
                timestamp: x.timestamp(),
                symbol: sym(x.symbol()),
                detail: x.detail(),
            })
        }
        fbs::Body::SecurityEvent => {
            let x = m.body_as_security_event().ok_or(NO_BODY)?;
            Message::SecurityEvent(SecurityEvent {
                event: x.event(),
                timestamp: x.timestamp(),
                symbol: sym(x.symbol()),
            })
        }
        fbs::Body::RetailLiquidity => {
            let x = m.body_as_retail_liquidity().ok_or(NO_BODY)?;
            Message::RetailLiquidity(RetailLiquidity {
                indicator: x.indicator(),
                timestamp: x.timestamp(),
                symbol: sym(x.symbol()),
            })
        }
        body @ (fbs::Body::PriceLevelBuy | fbs::Body::PriceLevelSell) => {
            let (side, x) = if body == fbs::Body::PriceLevelBuy {
                (Side::Buy, m.body_as_price_level_buy())
            } else {
                (Side::Sell, m.body_as_price_level_sell())
            };
            let x = x.ok_or(NO_BODY)?;
            Message::PriceLevelUpdate(PriceLevelUpdate {
                side,
                flags: x.flags(),
                timestamp: x.timestamp(),
                symbol: sym(x.symbol()),
                size: x.size(),
                price: x.price(),
            })
        }
        fbs::Body::TradeReport => {
            Message::TradeReport(get_trade(m.body_as_trade_report().ok_or(NO_BODY)?))
        }
        fbs::Body::TradeBreak => {
            Message::TradeBreak(get_trade(m.body_as_trade_break().ok_or(NO_BODY)?))
        }
        fbs::Body::OfficialPrice => {
            let x = m.body_as_official_price().ok_or(NO_BODY)?;
            Message::OfficialPrice(OfficialPrice {
                price_type: x.price_type(),
                timestamp: x.timestamp(),
                symbol: sym(x.symbol()),
                price: x.price(),
            })
        }
        fbs::Body::AuctionInformation => {
            let x = m.body_as_auction_information().ok_or(NO_BODY)?;
            Message::AuctionInformation(AuctionInformation {
                auction_type: x.auction_type(),
                timestamp: x.timestamp(),
                symbol: sym(x.symbol()),
                paired_shares: x.paired_shares(),
                reference_price: x.reference_price(),
                indicative_clearing_price: x.indicative_clearing_price(),
                imbalance_shares: x.imbalance_shares(),
                imbalance_side: x.imbalance_side(),
                extension_number: x.extension_number(),
                scheduled_auction_time: x.scheduled_auction_time(),
                auction_book_clearing_price: x.auction_book_clearing_price(),
                collar_reference_price: x.collar_reference_price(),
                lower_auction_collar: x.lower_auction_collar(),
                upper_auction_collar: x.upper_auction_collar(),
            })
        }
        fbs::Body::QuoteUpdate => {
            let x = m.body_as_quote_update().ok_or(NO_BODY)?;
            Message::QuoteUpdate(QuoteUpdate {
                flags: x.flags(),
                timestamp: x.timestamp(),
                symbol: sym(x.symbol()),
                bid_size: x.bid_size(),
                bid_price: x.bid_price(),
                ask_price: x.ask_price(),
                ask_size: x.ask_size(),
            })
        }
        fbs::Body::AddOrder => {
            let x = m.body_as_add_order().ok_or(NO_BODY)?;
            Message::AddOrder(AddOrder {
                side: x.side(),
                timestamp: x.timestamp(),
                symbol: sym(x.symbol()),
                order_id: x.order_id(),
                size: x.size(),
                price: x.price(),
            })
        }
        fbs::Body::OrderModify => {
            let x = m.body_as_order_modify().ok_or(NO_BODY)?;
            Message::OrderModify(OrderModify {
                flags: x.flags(),
                timestamp: x.timestamp(),
                symbol: sym(x.symbol()),
                order_id: x.order_id(),
                size: x.size(),
                price: x.price(),
            })
        }
        fbs::Body::OrderDelete => {
            let x = m.body_as_order_delete().ok_or(NO_BODY)?;
            Message::OrderDelete(OrderDelete {
                timestamp: x.timestamp(),
                symbol: sym(x.symbol()),
                order_id: x.order_id(),
            })
        }
        fbs::Body::OrderExecuted => {
            let x = m.body_as_order_executed().ok_or(NO_BODY)?;
            Message::OrderExecuted(OrderExecuted {
                flags: x.flags(),
                timestamp: x.timestamp(),
                symbol: sym(x.symbol()),
                order_id: x.order_id(),
                size: x.size(),
                price: x.price(),
                trade_id: x.trade_id(),
            })
        }
        fbs::Body::ClearBook => {
            let x = m.body_as_clear_book().ok_or(NO_BODY)?;
            Message::ClearBook(ClearBook {
                timestamp: x.timestamp(),
                symbol: sym(x.symbol()),
            })
        }
        _ => {
            return Err(DecodeError::Malformed(
                "FlatBuffers body type unknown to this schema",
            ))
        }
    })
}
