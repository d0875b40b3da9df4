//! The neutral message model: one plain struct per IEX message type.
//!
//! Every stage after parsing speaks this vocabulary. The structs are generic over how the symbol
//! is held (`S`): the IEX decoder hands out `Message<&'a Symbol>` that borrows the symbol from the
//! capture buffer (no copy, no allocation), while windows of packets kept for the formats own it
//! (`Message<Symbol>`, the default). Field names and widths follow the IEX DEEP 1.0 / TOPS 1.6
//! specifications (see `iex-feed.md`): prices are `i64` with 4 implied decimals, timestamps `i64`
//! nanoseconds since the Unix epoch (UTC), sizes `u32`.

use std::fmt;

/// Nanoseconds since the Unix epoch, UTC.
pub type Timestamp = i64;
/// Fixed point price with 4 implied decimals: `1_234_500` is 123.45.
pub type Price = i64;

/// Which IEX feed a segment belongs to, from the IEX-TP message protocol id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Feed {
    /// TOPS 1.6, protocol id `0x8003`.
    Tops,
    /// DEEP 1.0, protocol id `0x8004`.
    Deep,
}

impl Feed {
    pub const TOPS_PROTOCOL_ID: u16 = 0x8003;
    pub const DEEP_PROTOCOL_ID: u16 = 0x8004;

    pub fn from_protocol_id(id: u16) -> Option<Feed> {
        match id {
            Self::TOPS_PROTOCOL_ID => Some(Feed::Tops),
            Self::DEEP_PROTOCOL_ID => Some(Feed::Deep),
            _ => None,
        }
    }

    pub fn protocol_id(self) -> u16 {
        match self {
            Feed::Tops => Self::TOPS_PROTOCOL_ID,
            Feed::Deep => Self::DEEP_PROTOCOL_ID,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Feed::Tops => "tops",
            Feed::Deep => "deep",
        }
    }
}

impl fmt::Display for Feed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which feeds a capture turned out to hold: a file may mix them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FeedsSeen {
    pub deep: bool,
    pub tops: bool,
}

impl FeedsSeen {
    #[inline]
    pub fn add(&mut self, feed: Feed) {
        match feed {
            Feed::Deep => self.deep = true,
            Feed::Tops => self.tops = true,
        }
    }

    /// `deep`, `tops`, `mixed`, or `None` when no IEX-TP segment was seen.
    pub fn name(self) -> Option<&'static str> {
        match (self.deep, self.tops) {
            (true, false) => Some("deep"),
            (false, true) => Some("tops"),
            (true, true) => Some("mixed"),
            (false, false) => None,
        }
    }
}

/// A ticker: 8 ASCII bytes, right-padded with spaces, exactly as on the wire.
///
/// `repr(transparent)` lets the decoder view the 8 wire bytes as `&Symbol` without copying.
#[derive(
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Default,
    bytemuck::TransparentWrapper,
    bytemuck::Pod,
    bytemuck::Zeroable,
)]
#[repr(transparent)]
pub struct Symbol(pub [u8; 8]);

impl Symbol {
    /// Borrow 8 wire bytes as a symbol.
    pub fn from_bytes(bytes: &[u8; 8]) -> &Symbol {
        <Symbol as bytemuck::TransparentWrapper<[u8; 8]>>::wrap_ref(bytes)
    }

    /// Pads `ticker` with spaces; `None` if it is longer than 8 bytes.
    pub fn new(ticker: &str) -> Option<Symbol> {
        let bytes = ticker.as_bytes();
        if bytes.len() > 8 {
            return None;
        }
        let mut out = [b' '; 8];
        out[..bytes.len()].copy_from_slice(bytes);
        Some(Symbol(out))
    }

    /// The ticker without its padding; bytes that are not ASCII are shown as `?` by `Display`.
    pub fn trimmed(&self) -> &[u8] {
        let end = self.0.iter().rposition(|&b| b != b' ').map_or(0, |i| i + 1);
        &self.0[..end]
    }

    /// The 8 bytes as one integer, a cheap hash key.
    pub fn as_u64(&self) -> u64 {
        u64::from_le_bytes(self.0)
    }
}

impl fmt::Display for Symbol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for &b in self.trimmed() {
            let c = if b.is_ascii_graphic() { b as char } else { '?' };
            fmt::Write::write_char(f, c)?;
        }
        Ok(())
    }
}

impl fmt::Debug for Symbol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Symbol({:?})", String::from_utf8_lossy(&self.0))
    }
}

/// `S` System Event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SystemEvent {
    /// `O` start of messages, `S` start of system hours, `R` start of regular market,
    /// `M` end of regular market, `E` end of system hours, `C` end of messages.
    pub event: u8,
    pub timestamp: Timestamp,
}

/// `D` Security Directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SecurityDirectory<S = Symbol> {
    /// Bit flags: 0x80 test security, 0x40 when-issued, 0x20 ETP.
    pub flags: u8,
    pub timestamp: Timestamp,
    pub symbol: S,
    pub round_lot_size: u32,
    pub adjusted_poc_price: Price,
    pub luld_tier: u8,
}

/// `H` Trading Status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TradingStatus<S = Symbol> {
    /// `H` halted, `O` order acceptance period, `P` paused, `T` trading.
    pub status: u8,
    pub timestamp: Timestamp,
    pub symbol: S,
    /// 4 ASCII bytes, e.g. `T1  `, space-padded.
    pub reason: [u8; 4],
}

/// `O` Operational Halt Status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OperationalHalt<S = Symbol> {
    /// `O` operationally halted, `N` not halted.
    pub status: u8,
    pub timestamp: Timestamp,
    pub symbol: S,
}

/// `P` Short Sale Price Test Status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShortSalePriceTest<S = Symbol> {
    /// 0 not in effect, 1 in effect.
    pub status: u8,
    pub timestamp: Timestamp,
    pub symbol: S,
    /// ASCII detail: ` ` none, `A` activated, `C` continued, `D` deactivated, `N` not available.
    pub detail: u8,
}

/// `E` Security Event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SecurityEvent<S = Symbol> {
    /// `O` opening process complete, `C` closing process complete.
    pub event: u8,
    pub timestamp: Timestamp,
    pub symbol: S,
}

/// `I` Retail Liquidity Indicator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetailLiquidity<S = Symbol> {
    /// ` ` none, `A` buy interest, `B` sell interest, `C` both.
    pub indicator: u8,
    pub timestamp: Timestamp,
    pub symbol: S,
}

/// Which side of the book a price level update belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// `8`: buy side.
    Buy,
    /// `5`: sell side.
    Sell,
}

/// `8` / `5` Price Level Update (DEEP only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PriceLevelUpdate<S = Symbol> {
    pub side: Side,
    /// 1 = event processing complete.
    pub flags: u8,
    pub timestamp: Timestamp,
    pub symbol: S,
    pub size: u32,
    pub price: Price,
}

/// `T` Trade Report and `B` Trade Break share this layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Trade<S = Symbol> {
    /// Sale condition flags: 0x80 ISO, 0x40 extended hours, 0x20 odd lot,
    /// 0x10 trade-through exempt, 0x08 single-price cross.
    pub flags: u8,
    pub timestamp: Timestamp,
    pub symbol: S,
    pub size: u32,
    pub price: Price,
    pub trade_id: i64,
}

/// `X` Official Price.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OfficialPrice<S = Symbol> {
    /// `Q` opening price, `M` closing price.
    pub price_type: u8,
    pub timestamp: Timestamp,
    pub symbol: S,
    pub price: Price,
}

/// `A` Auction Information.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuctionInformation<S = Symbol> {
    /// `O` opening, `C` closing, `I` IPO, `H` halt, `V` volatility auction.
    pub auction_type: u8,
    pub timestamp: Timestamp,
    pub symbol: S,
    pub paired_shares: u32,
    pub reference_price: Price,
    pub indicative_clearing_price: Price,
    pub imbalance_shares: u32,
    /// `B` buy-side, `S` sell-side, `N` no imbalance.
    pub imbalance_side: u8,
    pub extension_number: u8,
    /// Seconds since the Unix epoch.
    pub scheduled_auction_time: u32,
    pub auction_book_clearing_price: Price,
    pub collar_reference_price: Price,
    pub lower_auction_collar: Price,
    pub upper_auction_collar: Price,
}

/// `Q` Quote Update (TOPS only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuoteUpdate<S = Symbol> {
    /// 0x80 symbol halted, 0x40 pre/post-market session.
    pub flags: u8,
    pub timestamp: Timestamp,
    pub symbol: S,
    pub bid_size: u32,
    pub bid_price: Price,
    pub ask_price: Price,
    pub ask_size: u32,
}

/// One IEX message of any known type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Message<S = Symbol> {
    SystemEvent(SystemEvent),
    SecurityDirectory(SecurityDirectory<S>),
    TradingStatus(TradingStatus<S>),
    OperationalHalt(OperationalHalt<S>),
    ShortSalePriceTest(ShortSalePriceTest<S>),
    SecurityEvent(SecurityEvent<S>),
    RetailLiquidity(RetailLiquidity<S>),
    PriceLevelUpdate(PriceLevelUpdate<S>),
    TradeReport(Trade<S>),
    TradeBreak(Trade<S>),
    OfficialPrice(OfficialPrice<S>),
    AuctionInformation(AuctionInformation<S>),
    QuoteUpdate(QuoteUpdate<S>),
}

/// The message type bytes, as on the wire.
pub mod kind {
    pub const SYSTEM_EVENT: u8 = b'S';
    pub const SECURITY_DIRECTORY: u8 = b'D';
    pub const TRADING_STATUS: u8 = b'H';
    pub const OPERATIONAL_HALT: u8 = b'O';
    pub const SHORT_SALE_PRICE_TEST: u8 = b'P';
    pub const SECURITY_EVENT: u8 = b'E';
    pub const RETAIL_LIQUIDITY: u8 = b'I';
    pub const PRICE_LEVEL_BUY: u8 = b'8';
    pub const PRICE_LEVEL_SELL: u8 = b'5';
    pub const TRADE_REPORT: u8 = b'T';
    pub const TRADE_BREAK: u8 = b'B';
    pub const OFFICIAL_PRICE: u8 = b'X';
    pub const AUCTION_INFORMATION: u8 = b'A';
    pub const QUOTE_UPDATE: u8 = b'Q';

    /// Every known type byte, in the order of the spec table.
    pub const ALL: [u8; 14] = [
        SYSTEM_EVENT,
        SECURITY_DIRECTORY,
        TRADING_STATUS,
        OPERATIONAL_HALT,
        SHORT_SALE_PRICE_TEST,
        SECURITY_EVENT,
        RETAIL_LIQUIDITY,
        PRICE_LEVEL_BUY,
        PRICE_LEVEL_SELL,
        TRADE_REPORT,
        TRADE_BREAK,
        OFFICIAL_PRICE,
        AUCTION_INFORMATION,
        QUOTE_UPDATE,
    ];

    /// Wire length of a message of this type, `None` for an unknown type.
    pub const fn wire_len(kind: u8) -> Option<usize> {
        Some(match kind {
            SYSTEM_EVENT => 10,
            SECURITY_DIRECTORY => 31,
            TRADING_STATUS => 22,
            OPERATIONAL_HALT | SECURITY_EVENT | RETAIL_LIQUIDITY => 18,
            SHORT_SALE_PRICE_TEST => 19,
            PRICE_LEVEL_BUY | PRICE_LEVEL_SELL => 30,
            TRADE_REPORT | TRADE_BREAK => 38,
            OFFICIAL_PRICE => 26,
            AUCTION_INFORMATION => 80,
            QUOTE_UPDATE => 42,
            _ => return None,
        })
    }
}

impl<S> Message<S> {
    /// The type byte this message has on the wire (`b'8'` / `b'5'` by side for price levels).
    pub fn kind(&self) -> u8 {
        match self {
            Message::SystemEvent(_) => kind::SYSTEM_EVENT,
            Message::SecurityDirectory(_) => kind::SECURITY_DIRECTORY,
            Message::TradingStatus(_) => kind::TRADING_STATUS,
            Message::OperationalHalt(_) => kind::OPERATIONAL_HALT,
            Message::ShortSalePriceTest(_) => kind::SHORT_SALE_PRICE_TEST,
            Message::SecurityEvent(_) => kind::SECURITY_EVENT,
            Message::RetailLiquidity(_) => kind::RETAIL_LIQUIDITY,
            Message::PriceLevelUpdate(m) => match m.side {
                Side::Buy => kind::PRICE_LEVEL_BUY,
                Side::Sell => kind::PRICE_LEVEL_SELL,
            },
            Message::TradeReport(_) => kind::TRADE_REPORT,
            Message::TradeBreak(_) => kind::TRADE_BREAK,
            Message::OfficialPrice(_) => kind::OFFICIAL_PRICE,
            Message::AuctionInformation(_) => kind::AUCTION_INFORMATION,
            Message::QuoteUpdate(_) => kind::QUOTE_UPDATE,
        }
    }

    /// The message's own timestamp.
    pub fn timestamp(&self) -> Timestamp {
        match self {
            Message::SystemEvent(m) => m.timestamp,
            Message::SecurityDirectory(m) => m.timestamp,
            Message::TradingStatus(m) => m.timestamp,
            Message::OperationalHalt(m) => m.timestamp,
            Message::ShortSalePriceTest(m) => m.timestamp,
            Message::SecurityEvent(m) => m.timestamp,
            Message::RetailLiquidity(m) => m.timestamp,
            Message::PriceLevelUpdate(m) => m.timestamp,
            Message::TradeReport(m) | Message::TradeBreak(m) => m.timestamp,
            Message::OfficialPrice(m) => m.timestamp,
            Message::AuctionInformation(m) => m.timestamp,
            Message::QuoteUpdate(m) => m.timestamp,
        }
    }

    /// The symbol, for every type but the system event.
    pub fn symbol(&self) -> Option<&S> {
        match self {
            Message::SystemEvent(_) => None,
            Message::SecurityDirectory(m) => Some(&m.symbol),
            Message::TradingStatus(m) => Some(&m.symbol),
            Message::OperationalHalt(m) => Some(&m.symbol),
            Message::ShortSalePriceTest(m) => Some(&m.symbol),
            Message::SecurityEvent(m) => Some(&m.symbol),
            Message::RetailLiquidity(m) => Some(&m.symbol),
            Message::PriceLevelUpdate(m) => Some(&m.symbol),
            Message::TradeReport(m) | Message::TradeBreak(m) => Some(&m.symbol),
            Message::OfficialPrice(m) => Some(&m.symbol),
            Message::AuctionInformation(m) => Some(&m.symbol),
            Message::QuoteUpdate(m) => Some(&m.symbol),
        }
    }

    /// The same message with its symbol converted by `f` (e.g. borrowed to owned).
    pub fn map_symbol<T>(self, f: impl FnOnce(S) -> T) -> Message<T> {
        match self {
            Message::SystemEvent(m) => Message::SystemEvent(m),
            Message::SecurityDirectory(m) => Message::SecurityDirectory(SecurityDirectory {
                flags: m.flags,
                timestamp: m.timestamp,
                symbol: f(m.symbol),
                round_lot_size: m.round_lot_size,
                adjusted_poc_price: m.adjusted_poc_price,
                luld_tier: m.luld_tier,
            }),
            Message::TradingStatus(m) => Message::TradingStatus(TradingStatus {
                status: m.status,
                timestamp: m.timestamp,
                symbol: f(m.symbol),
                reason: m.reason,
            }),
            Message::OperationalHalt(m) => Message::OperationalHalt(OperationalHalt {
                status: m.status,
                timestamp: m.timestamp,
                symbol: f(m.symbol),
            }),
            Message::ShortSalePriceTest(m) => Message::ShortSalePriceTest(ShortSalePriceTest {
                status: m.status,
                timestamp: m.timestamp,
                symbol: f(m.symbol),
                detail: m.detail,
            }),
            Message::SecurityEvent(m) => Message::SecurityEvent(SecurityEvent {
                event: m.event,
                timestamp: m.timestamp,
                symbol: f(m.symbol),
            }),
            Message::RetailLiquidity(m) => Message::RetailLiquidity(RetailLiquidity {
                indicator: m.indicator,
                timestamp: m.timestamp,
                symbol: f(m.symbol),
            }),
            Message::PriceLevelUpdate(m) => Message::PriceLevelUpdate(PriceLevelUpdate {
                side: m.side,
                flags: m.flags,
                timestamp: m.timestamp,
                symbol: f(m.symbol),
                size: m.size,
                price: m.price,
            }),
            Message::TradeReport(m) => Message::TradeReport(m.map_symbol(f)),
            Message::TradeBreak(m) => Message::TradeBreak(m.map_symbol(f)),
            Message::OfficialPrice(m) => Message::OfficialPrice(OfficialPrice {
                price_type: m.price_type,
                timestamp: m.timestamp,
                symbol: f(m.symbol),
                price: m.price,
            }),
            Message::AuctionInformation(m) => Message::AuctionInformation(AuctionInformation {
                auction_type: m.auction_type,
                timestamp: m.timestamp,
                symbol: f(m.symbol),
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
            }),
            Message::QuoteUpdate(m) => Message::QuoteUpdate(QuoteUpdate {
                flags: m.flags,
                timestamp: m.timestamp,
                symbol: f(m.symbol),
                bid_size: m.bid_size,
                bid_price: m.bid_price,
                ask_price: m.ask_price,
                ask_size: m.ask_size,
            }),
        }
    }
}

impl<S> Trade<S> {
    fn map_symbol<T>(self, f: impl FnOnce(S) -> T) -> Trade<T> {
        Trade {
            flags: self.flags,
            timestamp: self.timestamp,
            symbol: f(self.symbol),
            size: self.size,
            price: self.price,
            trade_id: self.trade_id,
        }
    }
}

impl Message<&Symbol> {
    /// Copy the borrowed symbol out, e.g. to keep the message past its capture buffer.
    pub fn to_owned(&self) -> Message<Symbol> {
        self.map_symbol(|s| *s)
    }
}

/// One IEX-TP segment's worth of messages: the unit every format serializes and the unit every
/// latency figure is measured on.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Packet {
    /// Sequence number of the first message (for a heartbeat: of the next message to come).
    pub seq: u64,
    /// IEX-TP send time.
    pub send_time: Timestamp,
    pub messages: Vec<Message>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbol_pads_trims_and_displays() {
        let s = Symbol::new("ZIEXT").unwrap();
        assert_eq!(&s.0, b"ZIEXT   ");
        assert_eq!(s.trimmed(), b"ZIEXT");
        assert_eq!(s.to_string(), "ZIEXT");
        assert!(Symbol::new("TOOLONGSYM").is_none());
        assert_eq!(
            Symbol::from_bytes(b"AAPL    "),
            &Symbol::new("AAPL").unwrap()
        );
    }

    #[test]
    fn wire_lengths_match_the_spec_table() {
        let expected = [10, 31, 22, 18, 19, 18, 18, 30, 30, 38, 38, 26, 80, 42];
        for (k, len) in kind::ALL.iter().zip(expected) {
            assert_eq!(kind::wire_len(*k), Some(len), "type {}", *k as char);
        }
        assert_eq!(kind::wire_len(b'Z'), None);
    }

    #[test]
    fn map_symbol_keeps_every_field() {
        let sym = Symbol::new("SPY").unwrap();
        let m: Message<&Symbol> = Message::TradeBreak(Trade {
            flags: 0x40,
            timestamp: 7,
            symbol: &sym,
            size: 100,
            price: 1_234_500,
            trade_id: 99,
        });
        let owned = m.to_owned();
        assert_eq!(owned.kind(), b'B');
        assert_eq!(owned.symbol(), Some(&sym));
        assert_eq!(owned.timestamp(), 7);
        match owned {
            Message::TradeBreak(t) => {
                assert_eq!(
                    (t.flags, t.size, t.price, t.trade_id),
                    (0x40, 100, 1_234_500, 99)
                )
            }
            other => panic!("wrong variant {other:?}"),
        }
    }
}
