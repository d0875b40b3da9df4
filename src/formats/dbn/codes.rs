//! The DBN enum codes and conventions the encoder and the decoder share.

/// The `SystemMsg` code of a packet marker that is not a heartbeat: `SystemCode::Unset`.
pub(super) const MARKER_CODE: u8 = 255;

/// Ids above this are refused by the decoder, which keeps a table indexed by id (IEX lists
/// about 12,000 symbols).
pub(super) const MAX_INSTRUMENTS: u32 = 1 << 20;

/// `StatType` codes.
pub(super) const OPENING_PRICE: u16 = 1;
pub(super) const CLOSE_PRICE: u16 = 11;

/// `TradingEvent::ChangeTradingSession`.
pub(super) const CHANGE_TRADING_SESSION: u16 = 2;

/// `StatusAction` codes.
pub(super) mod action {
    pub const NONE: u16 = 0;
    pub const QUOTING: u16 = 3;
    pub const TRADING: u16 = 7;
    pub const HALT: u16 = 8;
    pub const PAUSE: u16 = 9;
    pub const CLOSE: u16 = 12;
    pub const SSR_CHANGE: u16 = 14;
}

/// `StatusReason` codes.
pub(super) mod reason {
    pub const NONE: u16 = 0;
    pub const OPERATIONAL: u16 = 60;
}
