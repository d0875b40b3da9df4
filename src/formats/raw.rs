//! `raw`: the baseline no general-purpose format can beat. Each message is copied into the buffer
//! as a fixed-size plain-old-data record and read back in place.
//!
//! The records are the IEX wire layouts themselves: `#[repr(C, packed)]` structs, type byte first,
//! the same field order and widths as the spec, so a record's size is the message's wire length
//! (`model::kind::wire_len`, checked at compile time). A packet is a 20-byte header
//! (`u32` body length, `u64` seq, `i64` send time) followed by the records back to back; the type
//! byte gives each record's size, so there is no per-message length. Integers are in the host's
//! byte order (little-endian on x86-64 and aarch64, like the IEX wire): this is a memory layout,
//! not an interchange format, and makes no claim to portability or to schema evolution.
//!
//! Encoding fills one record per message field by field and appends its bytes. Decoding views each
//! record in the buffer as its struct with `bytemuck::from_bytes` (packed structs have alignment
//! 1, so any offset is fine) and reads the fields the sink needs in place: unaligned loads, no
//! copy, no allocation, symbols borrowed. Hostile bytes are bounds-checked and an unknown type
//! byte is an error; any bit pattern is a valid record otherwise.

use bytemuck::{Pod, Zeroable};

use super::{DecodeError, Format, Sink, Visitor};
use crate::model::{
    kind, AuctionInformation, Message, OfficialPrice, OperationalHalt, Packet, PriceLevelUpdate,
    QuoteUpdate, RetailLiquidity, SecurityDirectory, SecurityEvent, ShortSalePriceTest, Side,
    Symbol, SystemEvent, Trade, TradingStatus,
};

/// The packet header.
#[derive(Clone, Copy, Pod, Zeroable)]
#[repr(C, packed)]
pub struct RawHeader {
    /// Bytes of records after the header.
    pub body_len: u32,
    pub seq: u64,
    pub send_time: i64,
}

/// Header size in bytes.
pub const HEADER: usize = std::mem::size_of::<RawHeader>();

/// Declares a packed record; its size must be the IEX wire length of `$kind`.
macro_rules! record {
    ($(#[$doc:meta])* $name:ident, $kind:expr, { $($field:ident : $ty:ty),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Pod, Zeroable)]
        #[repr(C, packed)]
        pub struct $name {
            pub kind: u8,
            $(pub $field: $ty),*
        }
        const _: () = assert!(
            matches!(kind::wire_len($kind), Some(n) if n == std::mem::size_of::<$name>())
        );
    };
}

record!(
    /// `S`.
    RawSystemEvent, kind::SYSTEM_EVENT, { event: u8, timestamp: i64 });
record!(
    /// `D`.
    RawSecurityDirectory, kind::SECURITY_DIRECTORY, {
    flags: u8, timestamp: i64, symbol: [u8; 8], round_lot_size: u32, adjusted_poc_price: i64,
    luld_tier: u8,
});
record!(
    /// `H`.
    RawTradingStatus, kind::TRADING_STATUS, {
    status: u8, timestamp: i64, symbol: [u8; 8], reason: [u8; 4],
});
record!(
    /// `O`, `E` and `I`: a code, a timestamp, a symbol.
    RawSymbolEvent, kind::OPERATIONAL_HALT, { code: u8, timestamp: i64, symbol: [u8; 8] });
record!(
    /// `P`.
    RawShortSalePriceTest, kind::SHORT_SALE_PRICE_TEST, {
    status: u8, timestamp: i64, symbol: [u8; 8], detail: u8,
});
record!(
    /// `8` and `5`.
    RawPriceLevel, kind::PRICE_LEVEL_BUY, {
    flags: u8, timestamp: i64, symbol: [u8; 8], size: u32, price: i64,
});
record!(
    /// `T` and `B`.
    RawTrade, kind::TRADE_REPORT, {
    flags: u8, timestamp: i64, symbol: [u8; 8], size: u32, price: i64, trade_id: i64,
});
record!(
    /// `X`.
    RawOfficialPrice, kind::OFFICIAL_PRICE, {
    price_type: u8, timestamp: i64, symbol: [u8; 8], price: i64,
});
record!(
    /// `A`.
    RawAuction, kind::AUCTION_INFORMATION, {
    auction_type: u8, timestamp: i64, symbol: [u8; 8], paired_shares: u32,
    reference_price: i64, indicative_clearing_price: i64, imbalance_shares: u32,
    imbalance_side: u8, extension_number: u8, scheduled_auction_time: u32,
    auction_book_clearing_price: i64, collar_reference_price: i64, lower_auction_collar: i64,
    upper_auction_collar: i64,
});
record!(
    /// `Q`.
    RawQuote, kind::QUOTE_UPDATE, {
    flags: u8, timestamp: i64, symbol: [u8; 8], bid_size: u32, bid_price: i64, ask_price: i64,
    ask_size: u32,
});

/// The raw runner (stateless).
#[derive(Debug, Default)]
pub struct Raw;

#[inline(always)]
fn put<T: Pod>(out: &mut Vec<u8>, record: T) {
    out.extend_from_slice(bytemuck::bytes_of(&record));
}

#[inline]
fn put_message(out: &mut Vec<u8>, m: &Message) {
    let k = m.kind();
    match *m {
        Message::SystemEvent(m) => put(
            out,
            RawSystemEvent {
                kind: k,
                event: m.event,
                timestamp: m.timestamp,
            },
        ),
        Message::SecurityDirectory(m) => put(
            out,
            RawSecurityDirectory {
                kind: k,
                flags: m.flags,
                timestamp: m.timestamp,
                symbol: m.symbol.0,
                round_lot_size: m.round_lot_size,
                adjusted_poc_price: m.adjusted_poc_price,
                luld_tier: m.luld_tier,
            },
        ),
        Message::TradingStatus(m) => put(
            out,
            RawTradingStatus {
                kind: k,
                status: m.status,
                timestamp: m.timestamp,
                symbol: m.symbol.0,
                reason: m.reason,
            },
        ),
        Message::OperationalHalt(OperationalHalt {
            status: code,
            timestamp,
            symbol,
        })
        | Message::SecurityEvent(SecurityEvent {
            event: code,
            timestamp,
            symbol,
        })
        | Message::RetailLiquidity(RetailLiquidity {
            indicator: code,
            timestamp,
            symbol,
        }) => put(
            out,
            RawSymbolEvent {
                kind: k,
                code,
                timestamp,
                symbol: symbol.0,
            },
        ),
        Message::ShortSalePriceTest(m) => put(
            out,
            RawShortSalePriceTest {
                kind: k,
                status: m.status,
                timestamp: m.timestamp,
                symbol: m.symbol.0,
                detail: m.detail,
            },
        ),
        Message::PriceLevelUpdate(m) => put(
            out,
            RawPriceLevel {
                kind: k,
                flags: m.flags,
                timestamp: m.timestamp,
                symbol: m.symbol.0,
                size: m.size,
                price: m.price,
            },
        ),
        Message::TradeReport(m) | Message::TradeBreak(m) => put(
            out,
            RawTrade {
                kind: k,
                flags: m.flags,
                timestamp: m.timestamp,
                symbol: m.symbol.0,
                size: m.size,
                price: m.price,
                trade_id: m.trade_id,
            },
        ),
        Message::OfficialPrice(m) => put(
            out,
            RawOfficialPrice {
                kind: k,
                price_type: m.price_type,
                timestamp: m.timestamp,
                symbol: m.symbol.0,
                price: m.price,
            },
        ),
        Message::AuctionInformation(m) => put(
            out,
            RawAuction {
                kind: k,
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
        ),
        Message::QuoteUpdate(m) => put(
            out,
            RawQuote {
                kind: k,
                flags: m.flags,
                timestamp: m.timestamp,
                symbol: m.symbol.0,
                bid_size: m.bid_size,
                bid_price: m.bid_price,
                ask_price: m.ask_price,
                ask_size: m.ask_size,
            },
        ),
    }
}

/// The header and body of the packet at the start of `bytes`, bounds-checked, and the bytes used.
#[inline(always)]
fn split(bytes: &[u8]) -> Result<(&RawHeader, &[u8], usize), DecodeError> {
    DecodeError::check_len(bytes, HEADER)?;
    let header: &RawHeader = bytemuck::from_bytes(&bytes[..HEADER]);
    let used = HEADER + header.body_len as usize;
    DecodeError::check_len(bytes, used)?;
    Ok((header, &bytes[HEADER..used], used))
}

/// Walks the records of `body`, calling `f(kind, record bytes)` for each.
#[inline(always)]
fn walk<'a>(
    body: &'a [u8],
    mut f: impl FnMut(u8, &'a [u8]) -> Result<(), DecodeError>,
) -> Result<(), DecodeError> {
    let mut pos = 0;
    while pos < body.len() {
        let k = body[pos];
        let len = kind::wire_len(k).ok_or(DecodeError::Malformed("raw: unknown record type"))?;
        let Some(record) = body.get(pos..pos + len) else {
            return Err(DecodeError::Malformed("raw: record runs past the packet"));
        };
        f(k, record)?;
        pos += len;
    }
    Ok(())
}

fn view<T: Pod>(record: &[u8]) -> &T {
    bytemuck::from_bytes(record)
}

fn to_message(k: u8, r: &[u8]) -> Message {
    match k {
        kind::SYSTEM_EVENT => {
            let r: &RawSystemEvent = view(r);
            Message::SystemEvent(SystemEvent {
                event: r.event,
                timestamp: r.timestamp,
            })
        }
        kind::SECURITY_DIRECTORY => {
            let r: &RawSecurityDirectory = view(r);
            Message::SecurityDirectory(SecurityDirectory {
                flags: r.flags,
                timestamp: r.timestamp,
                symbol: Symbol(r.symbol),
                round_lot_size: r.round_lot_size,
                adjusted_poc_price: r.adjusted_poc_price,
                luld_tier: r.luld_tier,
            })
        }
        kind::TRADING_STATUS => {
            let r: &RawTradingStatus = view(r);
            Message::TradingStatus(TradingStatus {
                status: r.status,
                timestamp: r.timestamp,
                symbol: Symbol(r.symbol),
                reason: r.reason,
            })
        }
        kind::OPERATIONAL_HALT | kind::SECURITY_EVENT | kind::RETAIL_LIQUIDITY => {
            let r: &RawSymbolEvent = view(r);
            let (code, timestamp, symbol) = (r.code, r.timestamp, Symbol(r.symbol));
            match k {
                kind::OPERATIONAL_HALT => Message::OperationalHalt(OperationalHalt {
                    status: code,
                    timestamp,
                    symbol,
                }),
                kind::SECURITY_EVENT => Message::SecurityEvent(SecurityEvent {
                    event: code,
                    timestamp,
                    symbol,
                }),
                _ => Message::RetailLiquidity(RetailLiquidity {
                    indicator: code,
                    timestamp,
                    symbol,
                }),
            }
        }
        kind::SHORT_SALE_PRICE_TEST => {
            let r: &RawShortSalePriceTest = view(r);
            Message::ShortSalePriceTest(ShortSalePriceTest {
                status: r.status,
                timestamp: r.timestamp,
                symbol: Symbol(r.symbol),
                detail: r.detail,
            })
        }
        kind::PRICE_LEVEL_BUY | kind::PRICE_LEVEL_SELL => {
            let r: &RawPriceLevel = view(r);
            Message::PriceLevelUpdate(PriceLevelUpdate {
                side: if k == kind::PRICE_LEVEL_BUY {
                    Side::Buy
                } else {
                    Side::Sell
                },
                flags: r.flags,
                timestamp: r.timestamp,
                symbol: Symbol(r.symbol),
                size: r.size,
                price: r.price,
            })
        }
        kind::TRADE_REPORT | kind::TRADE_BREAK => {
            let r: &RawTrade = view(r);
            let t = Trade {
                flags: r.flags,
                timestamp: r.timestamp,
                symbol: Symbol(r.symbol),
                size: r.size,
                price: r.price,
                trade_id: r.trade_id,
            };
            if k == kind::TRADE_REPORT {
                Message::TradeReport(t)
            } else {
                Message::TradeBreak(t)
            }
        }
        kind::OFFICIAL_PRICE => {
            let r: &RawOfficialPrice = view(r);
            Message::OfficialPrice(OfficialPrice {
                price_type: r.price_type,
                timestamp: r.timestamp,
                symbol: Symbol(r.symbol),
                price: r.price,
            })
        }
        kind::AUCTION_INFORMATION => {
            let r: &RawAuction = view(r);
            Message::AuctionInformation(AuctionInformation {
                auction_type: r.auction_type,
                timestamp: r.timestamp,
                symbol: Symbol(r.symbol),
                paired_shares: r.paired_shares,
                reference_price: r.reference_price,
                indicative_clearing_price: r.indicative_clearing_price,
                imbalance_shares: r.imbalance_shares,
                imbalance_side: r.imbalance_side,
                extension_number: r.extension_number,
                scheduled_auction_time: r.scheduled_auction_time,
                auction_book_clearing_price: r.auction_book_clearing_price,
                collar_reference_price: r.collar_reference_price,
                lower_auction_collar: r.lower_auction_collar,
                upper_auction_collar: r.upper_auction_collar,
            })
        }
        _ => {
            // `walk` only passes known types, and every known type is matched above.
            debug_assert_eq!(k, kind::QUOTE_UPDATE);
            let r: &RawQuote = view(r);
            Message::QuoteUpdate(QuoteUpdate {
                flags: r.flags,
                timestamp: r.timestamp,
                symbol: Symbol(r.symbol),
                bid_size: r.bid_size,
                bid_price: r.bid_price,
                ask_price: r.ask_price,
                ask_size: r.ask_size,
            })
        }
    }
}

impl Format for Raw {
    const NAME: &'static str = "raw";

    fn encode(&mut self, packet: &Packet, out: &mut Vec<u8>) -> usize {
        let start = out.len();
        put(
            out,
            RawHeader {
                body_len: 0,
                seq: packet.seq,
                send_time: packet.send_time,
            },
        );
        let mut written = 0;
        for m in &packet.messages {
            put_message(out, m);
            written += 1;
        }
        let body = u32::try_from(out.len() - start - HEADER).expect("a packet under 4 GiB");
        out[start..start + 4].copy_from_slice(&body.to_ne_bytes());
        written
    }

    fn decode<K: Sink>(&mut self, bytes: &[u8], sink: &mut K) -> Result<usize, DecodeError> {
        let (header, body, used) = split(bytes)?;
        sink.packet(header.seq);
        walk(body, |k, r| {
            match k {
                kind::TRADE_REPORT => {
                    let r: &RawTrade = view(r);
                    sink.trade(&r.symbol, r.size, r.price)
                }
                kind::PRICE_LEVEL_BUY | kind::PRICE_LEVEL_SELL => {
                    let r: &RawPriceLevel = view(r);
                    let side = if k == kind::PRICE_LEVEL_BUY {
                        Side::Buy
                    } else {
                        Side::Sell
                    };
                    sink.price_level(side, &r.symbol, r.price)
                }
                kind::QUOTE_UPDATE => {
                    let r: &RawQuote = view(r);
                    sink.quote(&r.symbol, r.bid_price, r.ask_price)
                }
                _ => sink.other(),
            }
            Ok(())
        })?;
        Ok(used)
    }

    fn decode_all<V: Visitor>(
        &mut self,
        bytes: &[u8],
        visitor: &mut V,
    ) -> Result<usize, DecodeError> {
        let (header, body, used) = split(bytes)?;
        visitor.packet(header.seq, header.send_time);
        walk(body, |k, r| {
            visitor.message(to_message(k, r));
            Ok(())
        })?;
        Ok(used)
    }
}
