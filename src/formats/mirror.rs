//! A local mirror of the neutral model for the derive-driven formats (rkyv, bitcode), so
//! `model.rs` stays free of format attributes.
//!
//! The mirror is the model flattened into one enum with struct variants, symbols as their 8 wire
//! bytes. Encoders convert a [`Packet`] into an [`MPacket`] whose `messages` vector they keep and
//! reuse (a field-by-field copy of each message, no allocation once it has grown); that copy is
//! inside the timed encode, and it is part of what using these libraries with an existing model
//! costs.

use crate::model::{
    AuctionInformation, Message, OfficialPrice, OperationalHalt, Packet, PriceLevelUpdate,
    QuoteUpdate, RetailLiquidity, SecurityDirectory, SecurityEvent, ShortSalePriceTest, Side,
    Symbol, SystemEvent, Trade, TradingStatus,
};

/// [`Side`].
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
    bitcode::Encode,
    bitcode::Decode,
)]
pub enum MSide {
    Buy,
    Sell,
}

/// [`Message`], one variant per IEX type, fields as in the model.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
    bitcode::Encode,
    bitcode::Decode,
)]
pub enum MMessage {
    SystemEvent {
        event: u8,
        timestamp: i64,
    },
    SecurityDirectory {
        flags: u8,
        timestamp: i64,
        symbol: [u8; 8],
        round_lot_size: u32,
        adjusted_poc_price: i64,
        luld_tier: u8,
    },
    TradingStatus {
        status: u8,
        timestamp: i64,
        symbol: [u8; 8],
        reason: [u8; 4],
    },
    OperationalHalt {
        status: u8,
        timestamp: i64,
        symbol: [u8; 8],
    },
    ShortSalePriceTest {
        status: u8,
        timestamp: i64,
        symbol: [u8; 8],
        detail: u8,
    },
    SecurityEvent {
        event: u8,
        timestamp: i64,
        symbol: [u8; 8],
    },
    RetailLiquidity {
        indicator: u8,
        timestamp: i64,
        symbol: [u8; 8],
    },
    PriceLevelUpdate {
        side: MSide,
        flags: u8,
        timestamp: i64,
        symbol: [u8; 8],
        size: u32,
        price: i64,
    },
    TradeReport {
        flags: u8,
        timestamp: i64,
        symbol: [u8; 8],
        size: u32,
        price: i64,
        trade_id: i64,
    },
    TradeBreak {
        flags: u8,
        timestamp: i64,
        symbol: [u8; 8],
        size: u32,
        price: i64,
        trade_id: i64,
    },
    OfficialPrice {
        price_type: u8,
        timestamp: i64,
        symbol: [u8; 8],
        price: i64,
    },
    AuctionInformation {
        auction_type: u8,
        timestamp: i64,
        symbol: [u8; 8],
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
        symbol: [u8; 8],
        bid_size: u32,
        bid_price: i64,
        ask_price: i64,
        ask_size: u32,
    },
}

/// [`Packet`].
#[derive(
    Debug,
    Clone,
    Default,
    PartialEq,
    Eq,
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
    bitcode::Encode,
    bitcode::Decode,
)]
pub struct MPacket {
    pub seq: u64,
    pub send_time: i64,
    pub messages: Vec<MMessage>,
}

impl MPacket {
    /// Overwrites `self` with `packet`, reusing the messages vector.
    pub fn fill_from(&mut self, packet: &Packet) {
        self.seq = packet.seq;
        self.send_time = packet.send_time;
        self.messages.clear();
        self.messages
            .extend(packet.messages.iter().map(MMessage::from));
    }

    /// The neutral packet.
    pub fn to_packet(&self) -> Packet {
        Packet {
            seq: self.seq,
            send_time: self.send_time,
            messages: self.messages.iter().map(Message::from).collect(),
        }
    }
}

impl From<&Message> for MMessage {
    #[inline]
    fn from(m: &Message) -> MMessage {
        match *m {
            Message::SystemEvent(m) => MMessage::SystemEvent {
                event: m.event,
                timestamp: m.timestamp,
            },
            Message::SecurityDirectory(m) => MMessage::SecurityDirectory {
                flags: m.flags,
                timestamp: m.timestamp,
                symbol: m.symbol.0,
                round_lot_size: m.round_lot_size,
                adjusted_poc_price: m.adjusted_poc_price,
                luld_tier: m.luld_tier,
            },
            Message::TradingStatus(m) => MMessage::TradingStatus {
                status: m.status,
                timestamp: m.timestamp,
                symbol: m.symbol.0,
                reason: m.reason,
            },
            Message::OperationalHalt(m) => MMessage::OperationalHalt {
                status: m.status,
                timestamp: m.timestamp,
                symbol: m.symbol.0,
            },
            Message::ShortSalePriceTest(m) => MMessage::ShortSalePriceTest {
                status: m.status,
                timestamp: m.timestamp,
                symbol: m.symbol.0,
                detail: m.detail,
            },
            Message::SecurityEvent(m) => MMessage::SecurityEvent {
                event: m.event,
                timestamp: m.timestamp,
                symbol: m.symbol.0,
            },
            Message::RetailLiquidity(m) => MMessage::RetailLiquidity {
                indicator: m.indicator,
                timestamp: m.timestamp,
                symbol: m.symbol.0,
            },
            Message::PriceLevelUpdate(m) => MMessage::PriceLevelUpdate {
                side: match m.side {
                    Side::Buy => MSide::Buy,
                    Side::Sell => MSide::Sell,
                },
                flags: m.flags,
                timestamp: m.timestamp,
                symbol: m.symbol.0,
                size: m.size,
                price: m.price,
            },
            Message::TradeReport(m) => MMessage::TradeReport {
                flags: m.flags,
                timestamp: m.timestamp,
                symbol: m.symbol.0,
                size: m.size,
                price: m.price,
                trade_id: m.trade_id,
            },
            Message::TradeBreak(m) => MMessage::TradeBreak {
                flags: m.flags,
                timestamp: m.timestamp,
                symbol: m.symbol.0,
                size: m.size,
                price: m.price,
                trade_id: m.trade_id,
            },
            Message::OfficialPrice(m) => MMessage::OfficialPrice {
                price_type: m.price_type,
                timestamp: m.timestamp,
                symbol: m.symbol.0,
                price: m.price,
            },
            Message::AuctionInformation(m) => MMessage::AuctionInformation {
                auction_type: m.auction_type,
                timestamp: m.timestamp,
                symbol: m.symbol.0,
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
            Message::QuoteUpdate(m) => MMessage::QuoteUpdate {
                flags: m.flags,
                timestamp: m.timestamp,
                symbol: m.symbol.0,
                bid_size: m.bid_size,
                bid_price: m.bid_price,
                ask_price: m.ask_price,
                ask_size: m.ask_size,
            },
        }
    }
}

impl From<&MMessage> for Message {
    fn from(m: &MMessage) -> Message {
        match *m {
            MMessage::SystemEvent { event, timestamp } => {
                Message::SystemEvent(SystemEvent { event, timestamp })
            }
            MMessage::SecurityDirectory {
                flags,
                timestamp,
                symbol,
                round_lot_size,
                adjusted_poc_price,
                luld_tier,
            } => Message::SecurityDirectory(SecurityDirectory {
                flags,
                timestamp,
                symbol: Symbol(symbol),
                round_lot_size,
                adjusted_poc_price,
                luld_tier,
            }),
            MMessage::TradingStatus {
                status,
                timestamp,
                symbol,
                reason,
            } => Message::TradingStatus(TradingStatus {
                status,
                timestamp,
                symbol: Symbol(symbol),
                reason,
            }),
            MMessage::OperationalHalt {
                status,
                timestamp,
                symbol,
            } => Message::OperationalHalt(OperationalHalt {
                status,
                timestamp,
                symbol: Symbol(symbol),
            }),
            MMessage::ShortSalePriceTest {
                status,
                timestamp,
                symbol,
                detail,
            } => Message::ShortSalePriceTest(ShortSalePriceTest {
                status,
                timestamp,
                symbol: Symbol(symbol),
                detail,
            }),
            MMessage::SecurityEvent {
                event,
                timestamp,
                symbol,
            } => Message::SecurityEvent(SecurityEvent {
                event,
                timestamp,
                symbol: Symbol(symbol),
            }),
            MMessage::RetailLiquidity {
                indicator,
                timestamp,
                symbol,
            } => Message::RetailLiquidity(RetailLiquidity {
                indicator,
                timestamp,
                symbol: Symbol(symbol),
            }),
            MMessage::PriceLevelUpdate {
                side,
                flags,
                timestamp,
                symbol,
                size,
                price,
            } => Message::PriceLevelUpdate(PriceLevelUpdate {
                side: match side {
                    MSide::Buy => Side::Buy,
                    MSide::Sell => Side::Sell,
                },
                flags,
                timestamp,
                symbol: Symbol(symbol),
                size,
                price,
            }),
            MMessage::TradeReport {
                flags,
                timestamp,
                symbol,
                size,
                price,
                trade_id,
            } => Message::TradeReport(Trade {
                flags,
                timestamp,
                symbol: Symbol(symbol),
                size,
                price,
                trade_id,
            }),
            MMessage::TradeBreak {
                flags,
                timestamp,
                symbol,
                size,
                price,
                trade_id,
            } => Message::TradeBreak(Trade {
                flags,
                timestamp,
                symbol: Symbol(symbol),
                size,
                price,
                trade_id,
            }),
            MMessage::OfficialPrice {
                price_type,
                timestamp,
                symbol,
                price,
            } => Message::OfficialPrice(OfficialPrice {
                price_type,
                timestamp,
                symbol: Symbol(symbol),
                price,
            }),
            MMessage::AuctionInformation {
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
                symbol: Symbol(symbol),
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
            MMessage::QuoteUpdate {
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
                symbol: Symbol(symbol),
                bid_size,
                bid_price,
                ask_price,
                ask_size,
            }),
        }
    }
}
