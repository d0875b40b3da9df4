//! IEX message and IEX-TP segment encoder (the inverse of the decoder): little-endian, lengths and
//! offsets from the message table (`schemas/iex-messages.txt`, after the DEEP 1.0 / TOPS 1.6 /
//! DEEP+ 1.0 specs).
//!
//! Each message is written in place at the end of the output ([`crate::bytes::append`]), so
//! encoding never allocates once the output buffer has grown to its working size.

use crate::bytes::append;
use crate::iex::message::WireField;
use crate::model::{for_each_message, kind, Message};

/// Size of the IEX-TP v1 segment header.
pub use crate::iex::segment::HEADER_LEN as SEGMENT_HEADER_LEN;

pub use crate::iex::SegmentHeader;

/// Bytes a message of type `kind` takes in a segment: its wire length plus its u16 length
/// prefix.
pub fn prefixed_len(kind: u8) -> usize {
    // Every type the model can hold has a known length; 0 can not happen.
    2 + kind::wire_len(kind).unwrap_or(0)
}

/// Payload length of a segment carrying `messages`: each message plus its u16 length prefix.
pub fn payload_len(messages: &[Message]) -> usize {
    messages.iter().map(|m| prefixed_len(m.kind())).sum()
}

/// Appends `msg` as on the wire, preceded by its u16 length prefix (as inside a segment): each
/// field stored at its offset in the message table (`model::for_each_message!`), reserved bytes
/// zero.
pub fn encode_prefixed(msg: &Message, out: &mut Vec<u8>) {
    macro_rules! encode_variants {
        ($($V:ident($S:ident) $snake:ident {
            kinds $kinds:tt, len $len:literal, wire [$($f:ident @ $at:literal),*], $($codecs:tt)*
        },)*) => {
            match msg {
                $(Message::$V(m) => {
                    out.extend_from_slice(&($len as u16).to_le_bytes());
                    let b = append::<$len>(out);
                    b[0] = msg.kind();
                    $(m.$f.write(b, $at);)*
                })*
            }
        };
    }
    for_each_message!(encode_variants)
}

/// Appends `msg` without its length prefix: exactly `kind::wire_len` bytes.
pub fn encode(msg: &Message, out: &mut Vec<u8>) {
    let start = out.len();
    encode_prefixed(msg, out);
    out.drain(start..start + 2);
}

/// Appends a whole IEX-TP segment: header then length-prefixed messages.
///
/// `header.payload_len` and `header.message_count` are overwritten from `messages`, so a caller
/// can never write a header that disagrees with its body. Returns the payload length.
pub fn encode_segment(header: &SegmentHeader, messages: &[Message], out: &mut Vec<u8>) -> usize {
    let payload = payload_len(messages);
    encode_segment_of(header, messages, payload, out);
    payload
}

/// [`encode_segment`] for a caller that has the payload length already (the generator's framer
/// counts the messages in the same pass); `payload` must be [`payload_len`] of `messages`.
pub(crate) fn encode_segment_of(
    header: &SegmentHeader,
    messages: &[Message],
    payload: usize,
    out: &mut Vec<u8>,
) {
    debug_assert_eq!(payload, payload_len(messages));
    let h = SegmentHeader {
        payload_len: payload as u16,
        message_count: messages.len() as u16,
        ..*header
    };
    h.encode(out);
    for m in messages {
        encode_prefixed(m, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::*;

    fn sym(s: &str) -> Symbol {
        Symbol::new(s).unwrap()
    }

    fn enc(m: &Message) -> Vec<u8> {
        let mut v = Vec::new();
        encode(m, &mut v);
        v
    }

    #[test]
    fn golden_system_event() {
        // S, event 'O', timestamp 0x0102030405060708 little-endian.
        let m = Message::SystemEvent(SystemEvent {
            event: b'O',
            timestamp: 0x0102_0304_0506_0708,
        });
        let expected: [u8; 10] = [0x53, 0x4f, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01];
        assert_eq!(enc(&m), expected);
    }

    #[test]
    fn golden_price_level_update_sell() {
        // 5, flags 1, ts 1, "ZIEXT   ", size 100, price 99.05 = 990500 = 0x000F_1D24.
        let m = Message::PriceLevelUpdate(PriceLevelUpdate {
            side: Side::Sell,
            flags: 1,
            timestamp: 1,
            symbol: sym("ZIEXT"),
            size: 100,
            price: 990_500,
        });
        let expected: [u8; 30] = [
            0x35, 0x01, // type '5', flags
            0x01, 0, 0, 0, 0, 0, 0, 0, // timestamp
            b'Z', b'I', b'E', b'X', b'T', b' ', b' ', b' ', // symbol
            100, 0, 0, 0, // size
            0x24, 0x1D, 0x0F, 0, 0, 0, 0, 0, // price
        ];
        assert_eq!(enc(&m), expected);
    }

    #[test]
    fn golden_trade_report() {
        let m = Message::TradeReport(Trade {
            flags: 0x20 | 0x40,
            timestamp: 0x1122,
            symbol: sym("AB"),
            size: 0x0102_0304,
            price: -2,
            trade_id: 0x0A0B,
        });
        let expected: [u8; 38] = [
            0x54, 0x60, // type 'T', odd lot | extended hours
            0x22, 0x11, 0, 0, 0, 0, 0, 0, // timestamp
            b'A', b'B', b' ', b' ', b' ', b' ', b' ', b' ', // symbol
            0x04, 0x03, 0x02, 0x01, // size
            0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, // price -2
            0x0B, 0x0A, 0, 0, 0, 0, 0, 0, // trade id
        ];
        assert_eq!(enc(&m), expected);
    }

    #[test]
    fn golden_quote_update_field_order() {
        let m = Message::QuoteUpdate(QuoteUpdate {
            flags: 0x40,
            timestamp: 2,
            symbol: sym("Q"),
            bid_size: 3,
            bid_price: 4,
            ask_price: 5,
            ask_size: 6,
        });
        let v = enc(&m);
        assert_eq!(v.len(), 42);
        assert_eq!(&v[..2], &[b'Q', 0x40]);
        assert_eq!(&v[18..22], &[3, 0, 0, 0]);
        assert_eq!(&v[22..30], &[4, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(&v[30..38], &[5, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(&v[38..42], &[6, 0, 0, 0]);
    }

    #[test]
    fn every_type_encodes_to_its_wire_length_with_prefix() {
        // One message of every type, as the parser reads it from filler bytes.
        let mut bytes = [b'7'; 128];
        for &k in &kind::ALL {
            bytes[0] = k;
            let m = crate::iex::message::decode(&bytes).unwrap().to_owned();
            let mut v = Vec::new();
            encode_prefixed(&m, &mut v);
            let len = kind::wire_len(k).unwrap();
            assert_eq!(v.len(), len + 2, "type {}", k as char);
            assert_eq!(u16::from_le_bytes([v[0], v[1]]) as usize, len);
            assert_eq!(v[2], k);
        }
        let auction = Message::AuctionInformation(AuctionInformation {
            auction_type: b'O',
            timestamp: 1,
            symbol: sym("IBM"),
            paired_shares: 1,
            reference_price: 2,
            indicative_clearing_price: 3,
            imbalance_shares: 4,
            imbalance_side: b'B',
            extension_number: 5,
            scheduled_auction_time: 6,
            auction_book_clearing_price: 7,
            collar_reference_price: 8,
            lower_auction_collar: 9,
            upper_auction_collar: 10,
        });
        // Auction tail: upper collar is the last 8 bytes.
        let v = enc(&auction);
        assert_eq!(&v[72..80], &10i64.to_le_bytes());
        assert_eq!(&v[38..42], &[4, 0, 0, 0]);
        assert_eq!(v[42], b'B');
        assert_eq!(v[43], 5);
        assert_eq!(&v[44..48], &[6, 0, 0, 0]);
        assert_eq!(&v[48..56], &7i64.to_le_bytes());
    }

    #[test]
    fn segment_header_fields_at_spec_offsets() {
        let h = SegmentHeader {
            version: crate::iex::segment::VERSION,
            protocol_id: crate::iex::DEEP_PROTOCOL_ID,
            channel_id: 1,
            session_id: 0x0102_0304,
            payload_len: 999, // overwritten
            message_count: 999,
            stream_offset: 0x55,
            first_seq: 7,
            send_time: 0x66,
        };
        let msgs = [Message::SystemEvent(SystemEvent {
            event: b'S',
            timestamp: 3,
        })];
        let mut v = Vec::new();
        assert_eq!(encode_segment(&h, &msgs, &mut v), 12);
        assert_eq!(v.len(), 52);
        assert_eq!(
            &v[..16],
            &[1, 0, 0x04, 0x80, 1, 0, 0, 0, 4, 3, 2, 1, 12, 0, 1, 0]
        );
        assert_eq!(&v[16..24], &0x55u64.to_le_bytes());
        assert_eq!(&v[24..32], &7u64.to_le_bytes());
        assert_eq!(&v[32..40], &0x66i64.to_le_bytes());
        assert_eq!(&v[40..44], &[10, 0, b'S', b'S']);
    }
}
