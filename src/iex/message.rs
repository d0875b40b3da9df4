//! DEEP 1.0, TOPS 1.6 and DEEP+ 1.0 messages: one nom parser per type, all borrowing the symbol.
//!
//! Byte 0 is the type, byte 1 a flag or status byte, bytes 2..10 the timestamp; most types then
//! carry the 8-byte symbol. Messages longer than the spec are accepted (the extra bytes ignored)
//! so that a future appended field does not break parsing; shorter ones are errors.

use nom::combinator::map;

use crate::bytes::{array, le_i64, le_u32, u8 as le_u8};
use nom::{IResult, Parser};

use crate::model::*;

/// Why a message block could not be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum MessageError {
    #[error("empty message")]
    Empty,
    /// Not in the spec table: skipped by its length and counted, never fatal.
    #[error("unknown message type {0:#04x}")]
    Unknown(u8),
    #[error("message type '{}' is {len} bytes, the spec says {needed}", char::from(*.kind))]
    Short { kind: u8, len: usize, needed: usize },
}

type Decoded<'a> = Message<&'a Symbol>;

/// Decodes one message (type byte first).
#[inline]
pub fn decode(bytes: &[u8]) -> Result<Decoded<'_>, MessageError> {
    let Some((&kind, body)) = bytes.split_first() else {
        return Err(MessageError::Empty);
    };
    let Some(needed) = kind::wire_len(kind) else {
        return Err(MessageError::Unknown(kind));
    };
    let short = MessageError::Short {
        kind,
        len: bytes.len(),
        needed,
    };
    if bytes.len() < needed {
        return Err(short);
    }
    let parsed = match kind {
        kind::SYSTEM_EVENT => system_event(body),
        kind::SECURITY_DIRECTORY => security_directory(body),
        kind::TRADING_STATUS => trading_status(body),
        kind::OPERATIONAL_HALT => operational_halt(body),
        kind::SHORT_SALE_PRICE_TEST => short_sale_price_test(body),
        kind::SECURITY_EVENT => security_event(body),
        kind::RETAIL_LIQUIDITY => retail_liquidity(body),
        kind::PRICE_LEVEL_BUY => price_level(Side::Buy, body),
        kind::PRICE_LEVEL_SELL => price_level(Side::Sell, body),
        kind::TRADE_REPORT => trade(body).map(|(r, t)| (r, Message::TradeReport(t))),
        kind::TRADE_BREAK => trade(body).map(|(r, t)| (r, Message::TradeBreak(t))),
        kind::OFFICIAL_PRICE => official_price(body),
        kind::AUCTION_INFORMATION => auction_information(body),
        kind::QUOTE_UPDATE => quote_update(body),
        kind::ADD_ORDER => add_order(body),
        kind::ORDER_MODIFY => order_modify(body),
        kind::ORDER_DELETE => order_delete(body),
        kind::ORDER_EXECUTED => order_executed(body),
        _ => clear_book(body),
    };
    parsed.map(|(_, m)| m).map_err(|_| short)
}

#[inline]
fn symbol(i: &[u8]) -> IResult<&[u8], &Symbol> {
    map(array::<8, _>, Symbol::from_bytes).parse(i)
}

/// The flag/status byte, timestamp and symbol that most messages start with.
#[inline]
fn head(i: &[u8]) -> IResult<&[u8], (u8, Timestamp, &Symbol)> {
    (le_u8, le_i64, symbol).parse(i)
}

#[inline]
fn system_event(i: &[u8]) -> IResult<&[u8], Decoded<'_>> {
    let (i, (event, timestamp)) = (le_u8, le_i64).parse(i)?;
    Ok((i, Message::SystemEvent(SystemEvent { event, timestamp })))
}

#[inline]
fn security_directory(i: &[u8]) -> IResult<&[u8], Decoded<'_>> {
    let (i, ((flags, timestamp, symbol), round_lot_size, adjusted_poc_price, luld_tier)) =
        (head, le_u32, le_i64, le_u8).parse(i)?;
    Ok((
        i,
        Message::SecurityDirectory(SecurityDirectory {
            flags,
            timestamp,
            symbol,
            round_lot_size,
            adjusted_poc_price,
            luld_tier,
        }),
    ))
}

#[inline]
fn trading_status(i: &[u8]) -> IResult<&[u8], Decoded<'_>> {
    let (i, ((status, timestamp, symbol), reason)) = (head, array::<4, _>).parse(i)?;
    let reason = *reason;
    Ok((
        i,
        Message::TradingStatus(TradingStatus {
            status,
            timestamp,
            symbol,
            reason,
        }),
    ))
}

#[inline]
fn operational_halt(i: &[u8]) -> IResult<&[u8], Decoded<'_>> {
    let (i, (status, timestamp, symbol)) = head(i)?;
    Ok((
        i,
        Message::OperationalHalt(OperationalHalt {
            status,
            timestamp,
            symbol,
        }),
    ))
}

#[inline]
fn short_sale_price_test(i: &[u8]) -> IResult<&[u8], Decoded<'_>> {
    let (i, ((status, timestamp, symbol), detail)) = (head, le_u8).parse(i)?;
    Ok((
        i,
        Message::ShortSalePriceTest(ShortSalePriceTest {
            status,
            timestamp,
            symbol,
            detail,
        }),
    ))
}

#[inline]
fn security_event(i: &[u8]) -> IResult<&[u8], Decoded<'_>> {
    let (i, (event, timestamp, symbol)) = head(i)?;
    Ok((
        i,
        Message::SecurityEvent(SecurityEvent {
            event,
            timestamp,
            symbol,
        }),
    ))
}

#[inline]
fn retail_liquidity(i: &[u8]) -> IResult<&[u8], Decoded<'_>> {
    let (i, (indicator, timestamp, symbol)) = head(i)?;
    Ok((
        i,
        Message::RetailLiquidity(RetailLiquidity {
            indicator,
            timestamp,
            symbol,
        }),
    ))
}

#[inline]
fn price_level(side: Side, i: &[u8]) -> IResult<&[u8], Decoded<'_>> {
    let (i, ((flags, timestamp, symbol), size, price)) = (head, le_u32, le_i64).parse(i)?;
    Ok((
        i,
        Message::PriceLevelUpdate(PriceLevelUpdate {
            side,
            flags,
            timestamp,
            symbol,
            size,
            price,
        }),
    ))
}

#[inline]
fn trade(i: &[u8]) -> IResult<&[u8], Trade<&Symbol>> {
    let (i, ((flags, timestamp, symbol), size, price, trade_id)) =
        (head, le_u32, le_i64, le_i64).parse(i)?;
    Ok((
        i,
        Trade {
            flags,
            timestamp,
            symbol,
            size,
            price,
            trade_id,
        },
    ))
}

#[inline]
fn official_price(i: &[u8]) -> IResult<&[u8], Decoded<'_>> {
    let (i, ((price_type, timestamp, symbol), price)) = (head, le_i64).parse(i)?;
    Ok((
        i,
        Message::OfficialPrice(OfficialPrice {
            price_type,
            timestamp,
            symbol,
            price,
        }),
    ))
}

#[inline]
fn auction_information(i: &[u8]) -> IResult<&[u8], Decoded<'_>> {
    let (i, ((auction_type, timestamp, symbol), paired_shares, reference_price, indicative)) =
        (head, le_u32, le_i64, le_i64).parse(i)?;
    let (i, (imbalance_shares, imbalance_side, extension_number, scheduled_auction_time)) =
        (le_u32, le_u8, le_u8, le_u32).parse(i)?;
    let (i, (book_clearing, collar_reference, lower_collar, upper_collar)) =
        (le_i64, le_i64, le_i64, le_i64).parse(i)?;
    Ok((
        i,
        Message::AuctionInformation(AuctionInformation {
            auction_type,
            timestamp,
            symbol,
            paired_shares,
            reference_price,
            indicative_clearing_price: indicative,
            imbalance_shares,
            imbalance_side,
            extension_number,
            scheduled_auction_time,
            auction_book_clearing_price: book_clearing,
            collar_reference_price: collar_reference,
            lower_auction_collar: lower_collar,
            upper_auction_collar: upper_collar,
        }),
    ))
}

#[inline]
fn quote_update(i: &[u8]) -> IResult<&[u8], Decoded<'_>> {
    let (i, ((flags, timestamp, symbol), bid_size, bid_price, ask_price, ask_size)) =
        (head, le_u32, le_i64, le_i64, le_u32).parse(i)?;
    Ok((
        i,
        Message::QuoteUpdate(QuoteUpdate {
            flags,
            timestamp,
            symbol,
            bid_size,
            bid_price,
            ask_price,
            ask_size,
        }),
    ))
}

/// Add Order's and Order Modify's shared layout: head, order id, size, price.
type Order<'a> = ((u8, Timestamp, &'a Symbol), i64, u32, Price);

/// The layout Add Order and Order Modify share.
#[inline]
fn order(i: &[u8]) -> IResult<&[u8], Order<'_>> {
    (head, le_i64, le_u32, le_i64).parse(i)
}

#[inline]
fn add_order(i: &[u8]) -> IResult<&[u8], Decoded<'_>> {
    let (i, ((side, timestamp, symbol), order_id, size, price)) = order(i)?;
    Ok((
        i,
        Message::AddOrder(AddOrder {
            side,
            timestamp,
            symbol,
            order_id,
            size,
            price,
        }),
    ))
}

#[inline]
fn order_modify(i: &[u8]) -> IResult<&[u8], Decoded<'_>> {
    let (i, ((flags, timestamp, symbol), order_id, size, price)) = order(i)?;
    Ok((
        i,
        Message::OrderModify(OrderModify {
            flags,
            timestamp,
            symbol,
            order_id,
            size,
            price,
        }),
    ))
}

#[inline]
fn order_delete(i: &[u8]) -> IResult<&[u8], Decoded<'_>> {
    let (i, ((_reserved, timestamp, symbol), order_id)) = (head, le_i64).parse(i)?;
    Ok((
        i,
        Message::OrderDelete(OrderDelete {
            timestamp,
            symbol,
            order_id,
        }),
    ))
}

#[inline]
fn order_executed(i: &[u8]) -> IResult<&[u8], Decoded<'_>> {
    let (i, ((flags, timestamp, symbol), order_id, size, price, trade_id)) =
        (head, le_i64, le_u32, le_i64, le_i64).parse(i)?;
    Ok((
        i,
        Message::OrderExecuted(OrderExecuted {
            flags,
            timestamp,
            symbol,
            order_id,
            size,
            price,
            trade_id,
        }),
    ))
}

#[inline]
fn clear_book(i: &[u8]) -> IResult<&[u8], Decoded<'_>> {
    let (i, (_reserved, timestamp, symbol)) = head(i)?;
    Ok((i, Message::ClearBook(ClearBook { timestamp, symbol })))
}
