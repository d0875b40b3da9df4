//! The wire vocabulary of the derive-driven formats (rkyv, bitcode, postcard, JSON): the model
//! flattened into one enum with struct variants, generic over how the symbol is carried (its 8
//! bytes for rkyv and bitcode, borrowed bytes for postcard, a trimmed string for JSON). The
//! derives live here, so `model.rs` stays free of format attributes, and every one of those
//! formats converts through the same two functions. Conversions copy fields; none allocates.

use serde::{Deserialize, Serialize};

use super::{DecodeError, Sink};
use crate::model::{
    AuctionInformation, Message, OfficialPrice, OperationalHalt, PriceLevelUpdate, QuoteUpdate,
    RetailLiquidity, SecurityDirectory, SecurityEvent, ShortSalePriceTest, Side, Symbol,
    SystemEvent, Trade, TradingStatus,
};

/// [`Side`].
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
    bitcode::Encode,
    bitcode::Decode,
)]
#[serde(rename_all = "snake_case")]
pub enum WSide {
    Buy,
    Sell,
}

/// One message; variant and field names are the model's (snake_case in JSON).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
    bitcode::Encode,
    bitcode::Decode,
)]
#[serde(rename_all = "snake_case")]
pub enum Wire<S> {
    SystemEvent {
        event: u8,
        timestamp: i64,
    },
    SecurityDirectory {
        flags: u8,
        timestamp: i64,
        symbol: S,
        round_lot_size: u32,
        adjusted_poc_price: i64,
        luld_tier: u8,
    },
    TradingStatus {
        status: u8,
        timestamp: i64,
        symbol: S,
        reason: [u8; 4],
    },
    OperationalHalt {
        status: u8,
        timestamp: i64,
        symbol: S,
    },
    ShortSalePriceTest {
        status: u8,
        timestamp: i64,
        symbol: S,
        detail: u8,
    },
    SecurityEvent {
        event: u8,
        timestamp: i64,
        symbol: S,
    },
    RetailLiquidity {
        indicator: u8,
        timestamp: i64,
        symbol: S,
    },
    PriceLevelUpdate {
        side: WSide,
        flags: u8,
        timestamp: i64,
        symbol: S,
        size: u32,
        price: i64,
    },
    TradeReport {
        flags: u8,
        timestamp: i64,
        symbol: S,
        size: u32,
        price: i64,
        trade_id: i64,
    },
    TradeBreak {
        flags: u8,
        timestamp: i64,
        symbol: S,
        size: u32,
        price: i64,
        trade_id: i64,
    },
    OfficialPrice {
        price_type: u8,
        timestamp: i64,
        symbol: S,
        price: i64,
    },
    AuctionInformation {
        auction_type: u8,
        timestamp: i64,
        symbol: S,
        paired_shares: u32,
        reference_price: i64,
        indicative_clearing_price: i64,
        imbalance_shares: u32,
        imbalance_side: u8,
        extension_number: u8,
        scheduled_auction_time: u32,
        auction_book_clearing_price: i64,
        collar_reference_price: i64,
        lower_auction_collar: i64,
        upper_auction_collar: i64,
    },
    QuoteUpdate {
        flags: u8,
        timestamp: i64,
        symbol: S,
        bid_size: u32,
        bid_price: i64,
        ask_price: i64,
        ask_size: u32,
    },
}

impl From<Side> for WSide {
    fn from(side: Side) -> WSide {
        match side {
            Side::Buy => WSide::Buy,
            Side::Sell => WSide::Sell,
        }
    }
}

impl From<WSide> for Side {
    fn from(side: WSide) -> Side {
        match side {
            WSide::Buy => Side::Buy,
            WSide::Sell => Side::Sell,
        }
    }
}

impl<S> Wire<S> {
    /// Hands the message to `sink`: the three types the aggregation reads, with the symbol's 8
    /// bytes from `sym` (which may refuse it), every other type as [`Sink::other`].
    #[inline(always)]
    pub fn visit<K: Sink>(
        &self,
        sink: &mut K,
        sym: impl FnOnce(&S) -> Result<[u8; 8], DecodeError>,
    ) -> Result<(), DecodeError> {
        match self {
            Wire::TradeReport {
                symbol,
                size,
                price,
                ..
            } => sink.trade(&sym(symbol)?, *size, *price),
            Wire::PriceLevelUpdate {
                side,
                symbol,
                price,
                ..
            } => sink.price_level((*side).into(), &sym(symbol)?, *price),
            Wire::QuoteUpdate {
                symbol,
                bid_price,
                ask_price,
                ..
            } => sink.quote(&sym(symbol)?, *bid_price, *ask_price),
            _ => sink.other(),
        }
        Ok(())
    }

    /// The wire form of `m`, its symbol converted by `sym`.
    #[inline]
    pub fn from_model<'a>(m: &'a Message, sym: impl FnOnce(&'a Symbol) -> S) -> Wire<S> {
        match m {
            Message::SystemEvent(m) => Wire::SystemEvent {
                event: m.event,
                timestamp: m.timestamp,
            },
            Message::SecurityDirectory(m) => Wire::SecurityDirectory {
                flags: m.flags,
                timestamp: m.timestamp,
                symbol: sym(&m.symbol),
                round_lot_size: m.round_lot_size,
                adjusted_poc_price: m.adjusted_poc_price,
                luld_tier: m.luld_tier,
            },
            Message::TradingStatus(m) => Wire::TradingStatus {
                status: m.status,
                timestamp: m.timestamp,
                symbol: sym(&m.symbol),
                reason: m.reason,
            },
            Message::OperationalHalt(m) => Wire::OperationalHalt {
                status: m.status,
                timestamp: m.timestamp,
                symbol: sym(&m.symbol),
            },
            Message::ShortSalePriceTest(m) => Wire::ShortSalePriceTest {
                status: m.status,
                timestamp: m.timestamp,
                symbol: sym(&m.symbol),
                detail: m.detail,
            },
            Message::SecurityEvent(m) => Wire::SecurityEvent {
                event: m.event,
                timestamp: m.timestamp,
                symbol: sym(&m.symbol),
            },
            Message::RetailLiquidity(m) => Wire::RetailLiquidity {
                indicator: m.indicator,
                timestamp: m.timestamp,
                symbol: sym(&m.symbol),
            },
            Message::PriceLevelUpdate(m) => Wire::PriceLevelUpdate {
                side: m.side.into(),
                flags: m.flags,
                timestamp: m.timestamp,
                symbol: sym(&m.symbol),
                size: m.size,
                price: m.price,
            },
            Message::TradeReport(m) => Wire::TradeReport {
                flags: m.flags,
                timestamp: m.timestamp,
                symbol: sym(&m.symbol),
                size: m.size,
                price: m.price,
                trade_id: m.trade_id,
            },
            Message::TradeBreak(m) => Wire::TradeBreak {
                flags: m.flags,
                timestamp: m.timestamp,
                symbol: sym(&m.symbol),
                size: m.size,
                price: m.price,
                trade_id: m.trade_id,
            },
            Message::OfficialPrice(m) => Wire::OfficialPrice {
                price_type: m.price_type,
                timestamp: m.timestamp,
                symbol: sym(&m.symbol),
                price: m.price,
            },
            Message::AuctionInformation(m) => Wire::AuctionInformation {
                auction_type: m.auction_type,
                timestamp: m.timestamp,
                symbol: sym(&m.symbol),
                paired_shares: m.paired_shares,
                reference_price: m.reference_price,
                indicative_clearing_price: m.indicative_clearing_price,
                imbalance_shares: m.imbalance_shares,
                imbalance_side: m.imbalance_side,
                extension_number: m.extension_number,
                scheduled_auction_time: m.scheduled_auction_time,
                auction_book_clearing_price: m.auction_book_clearing_price,
                collar_reference_price: m.collar_reference_price,
                lower_auction_collar: m.lower_auction_collar,
                upper_auction_collar: m.upper_auction_collar,
            },
            Message::QuoteUpdate(m) => Wire::QuoteUpdate {
                flags: m.flags,
                timestamp: m.timestamp,
                symbol: sym(&m.symbol),
                bid_size: m.bid_size,
                bid_price: m.bid_price,
                ask_price: m.ask_price,
                ask_size: m.ask_size,
            },
        }
    }
    /// The model message, the symbol converted by `sym` (which may refuse it).
    pub fn into_model(
        self,
        sym: impl FnOnce(S) -> Result<Symbol, DecodeError>,
    ) -> Result<Message, DecodeError> {
        Ok(match self {
            Wire::SystemEvent { event, timestamp } => {
                Message::SystemEvent(SystemEvent { event, timestamp })
            }
            Wire::SecurityDirectory {
                flags,
                timestamp,
                symbol,
                round_lot_size,
                adjusted_poc_price,
                luld_tier,
            } => Message::SecurityDirectory(SecurityDirectory {
                flags,
                timestamp,
                symbol: sym(symbol)?,
                round_lot_size,
                adjusted_poc_price,
                luld_tier,
            }),
            Wire::TradingStatus {
                status,
                timestamp,
                symbol,
                reason,
            } => Message::TradingStatus(TradingStatus {
                status,
                timestamp,
                symbol: sym(symbol)?,
                reason,
            }),
            Wire::OperationalHalt {
                status,
                timestamp,
                symbol,
            } => Message::OperationalHalt(OperationalHalt {
                status,
                timestamp,
                symbol: sym(symbol)?,
            }),
            Wire::ShortSalePriceTest {
                status,
                timestamp,
                symbol,
                detail,
            } => Message::ShortSalePriceTest(ShortSalePriceTest {
                status,
                timestamp,
                symbol: sym(symbol)?,
                detail,
            }),
            Wire::SecurityEvent {
                event,
                timestamp,
                symbol,
            } => Message::SecurityEvent(SecurityEvent {
                event,
                timestamp,
                symbol: sym(symbol)?,
            }),
            Wire::RetailLiquidity {
                indicator,
                timestamp,
                symbol,
            } => Message::RetailLiquidity(RetailLiquidity {
                indicator,
                timestamp,
                symbol: sym(symbol)?,
            }),
            Wire::PriceLevelUpdate {
                side,
                flags,
                timestamp,
                symbol,
                size,
                price,
            } => Message::PriceLevelUpdate(PriceLevelUpdate {
                side: side.into(),
                flags,
                timestamp,
                symbol: sym(symbol)?,
                size,
                price,
            }),
            Wire::TradeReport {
                flags,
                timestamp,
                symbol,
                size,
                price,
                trade_id,
            } => Message::TradeReport(Trade {
                flags,
                timestamp,
                symbol: sym(symbol)?,
                size,
                price,
                trade_id,
            }),
            Wire::TradeBreak {
                flags,
                timestamp,
                symbol,
                size,
                price,
                trade_id,
            } => Message::TradeBreak(Trade {
                flags,
                timestamp,
                symbol: sym(symbol)?,
                size,
                price,
                trade_id,
            }),
            Wire::OfficialPrice {
                price_type,
                timestamp,
                symbol,
                price,
            } => Message::OfficialPrice(OfficialPrice {
                price_type,
                timestamp,
                symbol: sym(symbol)?,
                price,
            }),
            Wire::AuctionInformation {
                auction_type,
                timestamp,
                symbol,
                paired_shares,
                reference_price,
                indicative_clearing_price,
                imbalance_shares,
                imbalance_side,
                extension_number,
                scheduled_auction_time,
                auction_book_clearing_price,
                collar_reference_price,
                lower_auction_collar,
                upper_auction_collar,
            } => Message::AuctionInformation(AuctionInformation {
                auction_type,
                timestamp,
                symbol: sym(symbol)?,
                paired_shares,
                reference_price,
                indicative_clearing_price,
                imbalance_shares,
                imbalance_side,
                extension_number,
                scheduled_auction_time,
                auction_book_clearing_price,
                collar_reference_price,
                lower_auction_collar,
                upper_auction_collar,
            }),
            Wire::QuoteUpdate {
                flags,
                timestamp,
                symbol,
                bid_size,
                bid_price,
                ask_price,
                ask_size,
            } => Message::QuoteUpdate(QuoteUpdate {
                flags,
                timestamp,
                symbol: sym(symbol)?,
                bid_size,
                bid_price,
                ask_price,
                ask_size,
            }),
        })
    }
}
