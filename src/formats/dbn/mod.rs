//! `dbn`: Databento Binary Encoding version 3 through the `dbn` crate (0.73, default features
//! off: its default `zstd` would pull zstd 0.14 beside our 0.13, and records need no
//! compression). Fixed `repr(C)` records, 8-byte aligned, one per IEX message, written as the
//! crate's structs' bytes and read in place (`decode`). What Databento's own Python package
//! (`databento-dbn`) reads, behind a metadata header (`xlang/dbn_read.py`).
//!
//! **Lossy.** DBN's records are normalized market data: an IEX field with no slot is not
//! carried ([`projection::NOT_CARRIED`]); [`projection::project`] is what a decode gives back,
//! and the run checks the complete decode against it (the row is marked lossy, and left out of
//! the report's rankings unless asked). Every message has a record, so counts and the selective
//! decode's aggregation are the source's.
//!
//! | IEX | DBN v3 record | fields |
//! |---|---|---|
//! | `a` add order | `MboMsg` action `A` | side `8`→`B`, `5`→`A`; order id, size, price |
//! | `M` modify | `MboMsg` action `M`, side `N` | order id, size, price |
//! | `R` delete | `MboMsg` action `C`, side `N` | order id |
//! | `L` executed | `MboMsg` action `F`, side `N` | order id, size, price |
//! | `C` clear book | `MboMsg` action `R`, side `N` | |
//! | `T` trade | `MboMsg` action `T`, side `N` | trade id as `order_id`, size, price (Databento's MBO normalization of IEX trades; `TradeMsg` has no trade id) |
//! | `B` trade break | `MboMsg` action `N` (no book effect), side `N` | trade id as `order_id`, size, price |
//! | `8`/`5` price level | `Mbp1Msg`, side `B`/`A`, action `M` (`C` at size 0), `F_MBP` | price, size; the event-complete bit as `F_PUBLISHER_SPECIFIC`; `levels[0]` undefined (no book is kept) |
//! | `Q` quote | `Mbp1Msg`, side `N`, `F_TOB` | `levels[0]`: bid/ask price and size |
//! | `H` trading status | `StatusMsg` | `H`→Halt, `O`→Quoting, `P`→Pause, `T`→Trading; reasons T1, T2, IPO1, MCB1-3 → NewsPending, NewsReleased, NewIssue, MarketWideHaltLevel1-3 |
//! | `O` operational halt | `StatusMsg`, reason Operational | `O`→Halt, `N`→None |
//! | `P` short-sale test | `StatusMsg`, action SsrChange | `is_short_sell_restricted` Y/N |
//! | `E` security event | `StatusMsg`, trading event ChangeTradingSession | opening complete→Trading, closing complete→Close |
//! | `I` retail liquidity | `StatusMsg`, action None | (time and symbol only) |
//! | `S` system event | `StatusMsg`, instrument id 0, action None | (time only) |
//! | `X` official price | `StatMsg` | `Q`→OpeningPrice, `M`→ClosePrice; price |
//! | `A` auction | `ImbalanceMsg` | paired→`paired_qty`, imbalance→`total_imbalance_qty`, side `B`/`S`→`B`/`A`, reference→`ref_price`, indicative→`ind_match_price`, auction book→`auct_interest_clr_price`, collars, extensions, type, scheduled time (s→ns) |
//! | `D` directory | `InstrumentDefMsg`, class Stock | round lot→`min_lot_size_round_lot`, symbol→`raw_symbol` |
//!
//! Every record: `ts_event` the message's IEX timestamp; `ts_recv` the packet's IEX-TP send time
//! (the model has no receive time) and `ts_in_delta` 0; `sequence` (where the record has one)
//! the packet's sequence number plus the message's index, as a `u32` (wrapping); prices ×1e5
//! (IEX's 1e-4 to DBN's 1e-9), IEX's zero and an overflowing product as `UNDEF_PRICE`.
//!
//! **Symbols** are instrument ids assigned by the encoder on a symbol's first sight, never
//! reused in the run; a `SymbolMappingMsg` is written before the first record of a symbol in
//! each *stream*, and a stream begins when the encoder is handed an empty buffer (the runner
//! clears it at each encode pass): so a packet's bytes depend on the packets before it in its
//! stream ([`Format::STREAM`]). The decoder keeps the id → symbol map across packets; an id no
//! mapping named is an error.
//!
//! **Packets.** DBN has no packet framing and needs none of ours inside a record: a packet is its
//! records, the last marked `F_LAST`. `ts_recv` cannot frame them: IEX splits a burst of status
//! messages over datagrams sent at the same nanosecond (9 times in DEEP10). A packet that cannot
//! end in a record with `flags` or has no record with a `sequence` (a heartbeat; one of status,
//! auction or directory messages, 18% of TOPS's packets) starts with a `SystemMsg` instead: a
//! heartbeat for an empty packet (as Databento's live gateway sends), else the count of its
//! records in the text; its `instrument_id` holds the sequence number. The decoder checks that
//! every record of a packet has its send time, so a wrong split fails the run's checks.

mod codes;
mod decode;
mod encode;
pub mod projection;

use crate::formats::languages::{OtherLanguages, WireFormat};
use super::codec::{DecodeError, Documented, Format, Lossy, Sink, Visitor};
use crate::model::Packet;

/// The `dbn` runner: the encoder's and the decoder's symbol maps.
#[derive(Debug, Default)]
pub struct Dbn {
    encoder: encode::Encoder,
    decoder: decode::Decoder,
}

const SOURCE: &str = "dbn crate docs (records repr(C), read in place via RecordRef); \
    src/formats/dbn (alignment and record lengths checked before each view, which the crate \
    only debug-asserts)";

impl Format for Dbn {
    const NAME: &'static str = "dbn";
    const DOCUMENTED: Documented = Documented::new(None, true, true, SOURCE);
    const OTHER_LANGUAGES: OtherLanguages = OtherLanguages::Read(WireFormat::Dbn);
    const LOSSY: Option<Lossy> = Some(Lossy {
        reason: projection::NOT_CARRIED,
        project: projection::project,
    });
    const STREAM: bool = true;

    fn encode(&mut self, packet: &Packet, out: &mut Vec<u8>) -> usize {
        self.encoder.packet(packet, out)
    }

    fn decode<K: Sink>(&mut self, bytes: &[u8], sink: &mut K) -> Result<usize, DecodeError> {
        self.decoder.decode(bytes, sink)
    }

    fn decode_all<V: Visitor>(&mut self, bytes: &[u8], v: &mut V) -> Result<usize, DecodeError> {
        self.decoder.decode_all(bytes, v)
    }
}

#[cfg(test)]
mod tests;
