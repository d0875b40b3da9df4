//! DBN version 3 records back to IEX messages, read in place: each record is viewed as the
//! crate's `repr(C)` struct through `dbn::RecordRef`, after our own checks (the crate only
//! debug-asserts them): 8-byte alignment, a length (`RecordHeader.length`, in 4-byte words) at
//! least the header's and the type's size and no more than the bytes left. Every bit pattern is a
//! valid value of these structs (integers and `c_char`s), so nothing else can make a view unsound.

use ::dbn::v3::{
    ImbalanceMsg, InstrumentDefMsg, MboMsg, Mbp1Msg, RecordHeader, StatMsg, StatusMsg,
    SymbolMappingMsg, SystemMsg,
};
use ::dbn::{flags, rtype, HasRType, RecordRef, UNDEF_PRICE};

use super::projection::{NO_REASON, REASONS, SCALE};
use super::codes::{
    action, reason, CHANGE_TRADING_SESSION, CLOSE_PRICE, MARKER_CODE, MAX_INSTRUMENTS, OPENING_PRICE,
};
use crate::formats::codec::{DecodeError, Sink, Visitor, MAX_MESSAGES_PER_PACKET};
use crate::model::*;

const HEADER: usize = std::mem::size_of::<RecordHeader>();

/// No symbol: an instrument id no `SymbolMappingMsg` has named (a mapped symbol is padded with
/// spaces, so never all zeros).
const UNMAPPED: [u8; 8] = [0; 8];

/// The decoder's state: the symbol of each instrument id, from the mapping records read so far.
/// Kept across packets and streams: the encoder never reuses an id, so an entry is never stale.
#[derive(Debug)]
pub(super) struct Decoder {
    symbols: Vec<[u8; 8]>,
}

impl Default for Decoder {
    fn default() -> Self {
        Decoder {
            symbols: Vec::with_capacity(1 << 14),
        }
    }
}

/// Where a packet's records lie and what its marker or records say of it.
struct Frame {
    /// The first record after the marker, if any.
    start: usize,
    end: usize,
    seq: u64,
    send: i64,
}

/// The record at `pos`: its type and its bytes, checked.
#[inline(always)]
fn record(bytes: &[u8], pos: usize) -> Result<(u8, &[u8]), DecodeError> {
    let rest = bytes.get(pos..).unwrap_or_default();
    DecodeError::check_len(rest, HEADER)?;
    if rest.as_ptr().align_offset(8) != 0 {
        return Err(DecodeError::Malformed("a DBN record not 8-byte aligned"));
    }
    let len = usize::from(rest[0]) * RecordHeader::LENGTH_MULTIPLIER;
    if len < HEADER {
        return Err(DecodeError::Malformed("a DBN record shorter than its header"));
    }
    DecodeError::check_len(rest, len)?;
    Ok((rest[1], &rest[..len]))
}

/// `rec` viewed in place as a `T`.
#[inline(always)]
fn view<T: HasRType>(rec: &[u8]) -> Result<&T, DecodeError> {
    if rec.len() < std::mem::size_of::<T>() {
        return Err(DecodeError::Malformed("a DBN record shorter than its type"));
    }
    // Safety: `record` checked that `rec` is 8-byte aligned (every record type's alignment) and
    // starts with a header whose length is `rec.len()`, just checked to hold a `T`; `get` checks
    // the rtype, and any bytes are a valid `T` (integers and `c_char`s only).
    unsafe { RecordRef::new(rec) }
        .get::<T>()
        .ok_or(DecodeError::Malformed("a DBN record of another type than its rtype"))
}

/// An IEX price from DBN's 1e-9 units: `UNDEF_PRICE` is IEX's zero; a price that is not a whole
/// number of 1e-4 was not written by this encoder.
#[inline(always)]
fn price(x: i64) -> Result<i64, DecodeError> {
    if x == UNDEF_PRICE {
        Ok(0)
    } else if x % SCALE != 0 {
        Err(DecodeError::Malformed("a DBN price finer than IEX's 1e-4"))
    } else {
        Ok(x / SCALE)
    }
}

/// The packet's record count written in a marker's text.
fn marker_count(m: &SystemMsg) -> Result<u32, DecodeError> {
    match m.code {
        0 => Ok(0), // SystemCode::Heartbeat: an empty packet
        MARKER_CODE => {
            let mut n: u32 = 0;
            let mut digits = 0;
            for &c in m.msg.iter().take_while(|&&c| c != 0) {
                let d = (c as u8).wrapping_sub(b'0');
                if d > 9 || digits == 5 {
                    return Err(DecodeError::Malformed("a packet marker's count is not a number"));
                }
                n = n * 10 + u32::from(d);
                digits += 1;
            }
            if digits == 0 || n as usize > MAX_MESSAGES_PER_PACKET {
                return Err(DecodeError::Malformed("a packet marker's count is out of range"));
            }
            Ok(n)
        }
        _ => Err(DecodeError::Malformed("a DBN system message that is no packet marker")),
    }
}

/// What framing reads of a data record: `ts_recv`, `sequence` if it has one, and `F_LAST`.
#[inline(always)]
fn framing(rt: u8, rec: &[u8]) -> Result<(u64, Option<u32>, bool), DecodeError> {
    Ok(match rt {
        rtype::MBO => {
            let r: &MboMsg = view(rec)?;
            (r.ts_recv, Some(r.sequence), r.flags.is_last())
        }
        rtype::MBP_1 => {
            let r: &Mbp1Msg = view(rec)?;
            (r.ts_recv, Some(r.sequence), r.flags.is_last())
        }
        rtype::STATISTICS => {
            let r: &StatMsg = view(rec)?;
            (r.ts_recv, Some(r.sequence), false)
        }
        rtype::STATUS => (view::<StatusMsg>(rec)?.ts_recv, None, false),
        rtype::IMBALANCE => (view::<ImbalanceMsg>(rec)?.ts_recv, None, false),
        rtype::INSTRUMENT_DEF => (view::<InstrumentDefMsg>(rec)?.ts_recv, None, false),
        _ => return Err(DecodeError::Malformed("a DBN record type dbn does not write")),
    })
}

/// A symbol from a C string of at most 8 bytes, padded with spaces.
fn c_symbol(s: &[std::ffi::c_char]) -> Result<[u8; 8], DecodeError> {
    let len = s.iter().position(|&c| c == 0).unwrap_or(s.len());
    if len > 8 {
        return Err(DecodeError::Malformed("a DBN symbol longer than 8 bytes"));
    }
    let mut out = [b' '; 8];
    for (o, &c) in out.iter_mut().zip(&s[..len]) {
        *o = c as u8;
    }
    Ok(out)
}

impl Decoder {
    fn map(&mut self, m: &SymbolMappingMsg) -> Result<(), DecodeError> {
        let id = m.hd.instrument_id as usize;
        if id == 0 || id > MAX_INSTRUMENTS as usize {
            return Err(DecodeError::Malformed("a DBN instrument id out of range"));
        }
        let symbol = c_symbol(&m.stype_out_symbol)?;
        if id >= self.symbols.len() {
            self.symbols.resize(id + 1, UNMAPPED);
        }
        self.symbols[id] = symbol;
        Ok(())
    }

    #[inline(always)]
    fn symbol(&self, hd: &RecordHeader) -> Result<&[u8; 8], DecodeError> {
        match self.symbols.get(hd.instrument_id as usize) {
            Some(s) if *s != UNMAPPED => Ok(s),
            _ => Err(DecodeError::Malformed(
                "a DBN instrument id no symbol mapping named",
            )),
        }
    }

    /// Finds the packet at the start of `bytes`: after a marker, the count of records it says;
    /// else up to the record marked `F_LAST`. Reads the symbol mappings on the way.
    fn frame(&mut self, bytes: &[u8]) -> Result<Frame, DecodeError> {
        let (rt, first) = record(bytes, 0)?;
        let (mut seq, mut count, mut pos) = (None, None, 0);
        let send = if rt == rtype::SYSTEM {
            let m: &SystemMsg = view(first)?;
            (seq, count, pos) = (
                Some(u64::from(m.hd.instrument_id)),
                Some(marker_count(m)?),
                first.len(),
            );
            m.hd.ts_event
        } else if rt == rtype::SYMBOL_MAPPING {
            view::<SymbolMappingMsg>(first)?.hd.ts_event
        } else {
            framing(rt, first)?.0
        };
        let start = pos;
        let mut index: u32 = 0;
        while count != Some(index) {
            let (rt, rec) = record(bytes, pos)?;
            pos += rec.len();
            if rt == rtype::SYMBOL_MAPPING {
                let m: &SymbolMappingMsg = view(rec)?;
                if m.hd.ts_event != send {
                    return Err(DecodeError::Malformed("a DBN record of another packet's time"));
                }
                self.map(m)?;
                continue;
            }
            if rt == rtype::SYSTEM {
                return Err(DecodeError::Malformed("a packet marker inside a packet"));
            }
            let (ts_recv, sequence, last) = framing(rt, rec)?;
            if ts_recv != send {
                return Err(DecodeError::Malformed("a DBN record of another packet's time"));
            }
            if let (None, Some(s)) = (seq, sequence) {
                seq = Some(u64::from(s.wrapping_sub(index)));
            }
            index += 1;
            if index as usize > MAX_MESSAGES_PER_PACKET {
                return Err(DecodeError::Malformed("more DBN records than a packet holds"));
            }
            if count.is_none() && last {
                break;
            }
        }
        Ok(Frame {
            start,
            end: pos,
            seq: seq.ok_or(DecodeError::Malformed(
                "a packet with neither a marker nor a sequence number",
            ))?,
            send: send as i64,
        })
    }

    /// Reads the packet at the start of `bytes`: `header(ctx, frame)`, then `each(ctx, self, rtype,
    /// record)` for every data record (`frame` read the symbol mappings); returns the bytes used.
    #[inline(always)]
    fn read<C>(
        &mut self,
        bytes: &[u8],
        ctx: &mut C,
        header: impl FnOnce(&mut C, &Frame),
        mut each: impl FnMut(&mut C, &Self, u8, &[u8]) -> Result<(), DecodeError>,
    ) -> Result<usize, DecodeError> {
        let frame = self.frame(bytes)?;
        header(ctx, &frame);
        let mut pos = frame.start;
        while pos < frame.end {
            let (rt, rec) = record(bytes, pos)?;
            pos += rec.len();
            if rt != rtype::SYMBOL_MAPPING {
                each(ctx, self, rt, rec)?;
            }
        }
        Ok(frame.end)
    }

    /// The selective decode.
    pub fn decode<K: Sink>(&mut self, bytes: &[u8], sink: &mut K) -> Result<usize, DecodeError> {
        let header = |sink: &mut K, f: &Frame| sink.packet(f.seq);
        self.read(bytes, sink, header, |sink, d, rt, rec| d.select(rt, rec, sink))
    }

    #[inline(always)]
    fn select<K: Sink>(&self, rt: u8, rec: &[u8], sink: &mut K) -> Result<(), DecodeError> {
        match rt {
            rtype::MBO => {
                let r: &MboMsg = view(rec)?;
                match r.action as u8 {
                    b'T' | b'F' => sink.trade(self.symbol(&r.hd)?, r.size, price(r.price)?),
                    b'A' => sink.add_order(side_byte(r.side), self.symbol(&r.hd)?, price(r.price)?),
                    _ => sink.other(),
                }
            }
            rtype::MBP_1 => {
                let r: &Mbp1Msg = view(rec)?;
                match r.side as u8 {
                    b'B' => sink.price_level(Side::Buy, self.symbol(&r.hd)?, price(r.price)?),
                    b'A' => sink.price_level(Side::Sell, self.symbol(&r.hd)?, price(r.price)?),
                    _ => {
                        let l = &r.levels[0];
                        let (bid, ask) = (price(l.bid_px)?, price(l.ask_px)?);
                        sink.quote(self.symbol(&r.hd)?, bid, ask);
                    }
                }
            }
            _ => sink.other(),
        }
        Ok(())
    }

    /// The complete decode.
    pub fn decode_all<V: Visitor>(
        &mut self,
        bytes: &[u8],
        v: &mut V,
    ) -> Result<usize, DecodeError> {
        let header = |v: &mut V, f: &Frame| v.packet(f.seq, f.send);
        self.read(bytes, v, header, |v, d, rt, rec| {
            v.message(d.message(rt, rec)?);
            Ok(())
        })
    }

    #[inline(always)]
    fn message(&self, rt: u8, rec: &[u8]) -> Result<Message, DecodeError> {
        match rt {
            rtype::MBO => self.mbo(view(rec)?),
            rtype::MBP_1 => self.mbp1(view(rec)?),
            rtype::STATUS => self.status(view(rec)?),
            rtype::STATISTICS => {
                let r: &StatMsg = view(rec)?;
                let price_type = match r.stat_type {
                    OPENING_PRICE => b'Q',
                    CLOSE_PRICE => b'M',
                    _ => return Err(DecodeError::Malformed("a DBN statistic dbn does not write")),
                };
                Ok(Message::OfficialPrice(OfficialPrice {
                    price_type,
                    timestamp: r.hd.ts_event as i64,
                    symbol: Symbol(*self.symbol(&r.hd)?),
                    price: price(r.price)?,
                }))
            }
            rtype::IMBALANCE => self.imbalance(view(rec)?),
            rtype::INSTRUMENT_DEF => {
                let r: &InstrumentDefMsg = view(rec)?;
                let round_lot_size = u32::try_from(r.min_lot_size_round_lot)
                    .map_err(|_| DecodeError::Malformed("a negative DBN round lot"))?;
                Ok(Message::SecurityDirectory(SecurityDirectory {
                    flags: 0,
                    timestamp: r.hd.ts_event as i64,
                    symbol: Symbol(*self.symbol(&r.hd)?),
                    round_lot_size,
                    adjusted_poc_price: 0,
                    luld_tier: 0,
                }))
            }
            _ => Err(DecodeError::Malformed("a DBN record type dbn does not write")),
        }
    }

    fn mbo(&self, r: &MboMsg) -> Result<Message, DecodeError> {
        let (timestamp, symbol) = (r.hd.ts_event as i64, Symbol(*self.symbol(&r.hd)?));
        let order_id = r.order_id as i64;
        let trade = |r: &MboMsg| -> Result<Trade, DecodeError> {
            Ok(Trade {
                flags: 0,
                timestamp,
                symbol,
                size: r.size,
                price: price(r.price)?,
                trade_id: order_id,
            })
        };
        // The message `$V` of the record's order, size and price, with `$rest`.
        macro_rules! order {
            ($V:ident; $($rest:tt)*) => {
                Message::$V($V {
                    timestamp,
                    symbol,
                    order_id,
                    size: r.size,
                    price: price(r.price)?,
                    $($rest)*
                })
            };
        }
        Ok(match r.action as u8 {
            b'A' => order!(AddOrder; side: side_byte(r.side)),
            b'M' => order!(OrderModify; flags: 0),
            b'C' => Message::OrderDelete(OrderDelete {
                timestamp,
                symbol,
                order_id,
            }),
            b'F' => order!(OrderExecuted; flags: 0, trade_id: 0),
            b'R' => Message::ClearBook(ClearBook { timestamp, symbol }),
            b'T' => Message::TradeReport(trade(r)?),
            b'N' => Message::TradeBreak(trade(r)?),
            _ => return Err(DecodeError::Malformed("a DBN MBO action dbn does not write")),
        })
    }

    fn mbp1(&self, r: &Mbp1Msg) -> Result<Message, DecodeError> {
        let (timestamp, symbol) = (r.hd.ts_event as i64, Symbol(*self.symbol(&r.hd)?));
        let level = |side| -> Result<Message, DecodeError> {
            Ok(Message::PriceLevelUpdate(PriceLevelUpdate {
                side,
                flags: u8::from(r.flags.raw() & flags::PUBLISHER_SPECIFIC != 0),
                timestamp,
                symbol,
                size: r.size,
                price: price(r.price)?,
            }))
        };
        match r.side as u8 {
            b'B' => level(Side::Buy),
            b'A' => level(Side::Sell),
            b'N' => {
                let l = &r.levels[0];
                Ok(Message::QuoteUpdate(QuoteUpdate {
                    flags: 0,
                    timestamp,
                    symbol,
                    bid_size: l.bid_sz,
                    bid_price: price(l.bid_px)?,
                    ask_price: price(l.ask_px)?,
                    ask_size: l.ask_sz,
                }))
            }
            _ => Err(DecodeError::Malformed("a DBN MBP-1 side dbn does not write")),
        }
    }

    fn status(&self, r: &StatusMsg) -> Result<Message, DecodeError> {
        let timestamp = r.hd.ts_event as i64;
        if r.hd.instrument_id == 0 {
            return Ok(Message::SystemEvent(SystemEvent {
                event: 0,
                timestamp,
            }));
        }
        let symbol = Symbol(*self.symbol(&r.hd)?);
        Ok(if r.action == action::SSR_CHANGE {
            Message::ShortSalePriceTest(ShortSalePriceTest {
                status: u8::from(r.is_short_sell_restricted as u8 == b'Y'),
                timestamp,
                symbol,
                detail: 0,
            })
        } else if r.reason == reason::OPERATIONAL {
            Message::OperationalHalt(OperationalHalt {
                status: if r.action == action::HALT { b'O' } else { b'N' },
                timestamp,
                symbol,
            })
        } else if r.trading_event == CHANGE_TRADING_SESSION {
            Message::SecurityEvent(SecurityEvent {
                event: if r.action == action::TRADING { b'O' } else { b'C' },
                timestamp,
                symbol,
            })
        } else if r.action == action::NONE {
            Message::RetailLiquidity(RetailLiquidity {
                indicator: 0,
                timestamp,
                symbol,
            })
        } else {
            let status = match r.action {
                action::HALT => b'H',
                action::QUOTING => b'O',
                action::PAUSE => b'P',
                action::TRADING => b'T',
                _ => return Err(DecodeError::Malformed("a DBN status action dbn does not write")),
            };
            let reason = match r.reason {
                reason::NONE => NO_REASON,
                code => match REASONS.iter().find(|&&(_, c)| c == code) {
                    Some(&(text, _)) => text,
                    None => {
                        return Err(DecodeError::Malformed(
                            "a DBN status reason dbn does not write",
                        ))
                    }
                },
            };
            Message::TradingStatus(TradingStatus {
                status,
                timestamp,
                symbol,
                reason,
            })
        })
    }

    fn imbalance(&self, r: &ImbalanceMsg) -> Result<Message, DecodeError> {
        let seconds = r.auction_time / 1_000_000_000;
        if !r.auction_time.is_multiple_of(1_000_000_000) || seconds > u64::from(u32::MAX) {
            return Err(DecodeError::Malformed("a DBN auction time dbn does not write"));
        }
        let imbalance_side = match r.side as u8 {
            b'B' => b'B',
            b'A' => b'S',
            b'N' => b'N',
            _ => return Err(DecodeError::Malformed("a DBN side dbn does not write")),
        };
        Ok(Message::AuctionInformation(AuctionInformation {
            auction_type: r.auction_type as u8,
            timestamp: r.hd.ts_event as i64,
            symbol: Symbol(*self.symbol(&r.hd)?),
            paired_shares: r.paired_qty,
            reference_price: price(r.ref_price)?,
            indicative_clearing_price: price(r.ind_match_price)?,
            imbalance_shares: r.total_imbalance_qty,
            imbalance_side,
            extension_number: r.num_extensions,
            scheduled_auction_time: seconds as u32,
            auction_book_clearing_price: price(r.auct_interest_clr_price)?,
            collar_reference_price: 0,
            lower_auction_collar: price(r.lower_collar)?,
            upper_auction_collar: price(r.upper_collar)?,
        }))
    }
}

/// An add order's IEX side byte from DBN's side: `B` buy (`8`), `A` sell (`5`), else none (0).
#[inline(always)]
fn side_byte(side: std::ffi::c_char) -> u8 {
    match side as u8 {
        b'B' => b'8',
        b'A' => b'5',
        _ => 0,
    }
}
