//! musli-zerocopy: version 2 is the codec's layout with `match_id: i64` appended to the Trade
//! Report variant and `attribution: u32` to the Add Order variant of the message enum, made from
//! the message table as version 1's is. musli-zerocopy has no evolution mechanism: a buffer is
//! the types' memory layout, read in place, so a reader of another version sees the bytes at the
//! offsets of its own layout. Both readers load through `Buf::load` (alignment, bounds,
//! discriminants checked).

use ::musli_zerocopy::{Buf, OwnedBuf, Ref};

use super::harness::{both, by_layout, whole, Read2};
use super::v2;
use crate::capability::finding::Finding;
use crate::formats::musli_zerocopy::{
    err, layout as l1, split, to_zc, zc_messages, MusliZerocopy, FRAME,
};
use crate::formats::wire::WSide;
use crate::formats::DecodeError;
use crate::model::{for_each_message, Symbol};

/// The zero-copy types of version 2: version 1's, the message enum grown.
mod layout {
    pub use crate::formats::musli_zerocopy::layout::{
        Bytes4, Packet, Price, Side, Symbol, Timestamp,
    };
    use crate::formats::musli_zerocopy::zc_messages;
    use crate::model::for_each_message;
    use ::musli_zerocopy::ZeroCopy;

    /// The message enum, each variant version 1's with the field version 2 appends to it.
    macro_rules! zc_define {
        ([$($out:tt)*]) => {
            /// One message of version 2.
            #[derive(ZeroCopy, Debug, Clone, Copy, PartialEq, Eq)]
            #[repr(u8)]
            #[zero_copy(crate = ::musli_zerocopy)]
            pub enum Message {
                $($out)*
            }
        };
        ([$($out:tt)*] TradeReport($S:ident) { $($fields:tt)* } $($rest:tt)*) => {
            zc_define!([$($out)* TradeReport { $($fields)* match_id: i64 },] $($rest)*);
        };
        ([$($out:tt)*] AddOrder($S:ident) { $($fields:tt)* } $($rest:tt)*) => {
            zc_define!([$($out)* AddOrder { $($fields)* attribution: u32 },] $($rest)*);
        };
        ([$($out:tt)*] $V:ident($S:ident) { $($fields:tt)* } $($rest:tt)*) => {
            zc_define!([$($out)* $V { $($fields)* },] $($rest)*);
        };
    }
    for_each_message!(zc_messages);
}

use layout::Message as M2;

impl From<l1::Side> for WSide {
    fn from(s: l1::Side) -> WSide {
        match s {
            l1::Side::Buy => WSide::Buy,
            l1::Side::Sell => WSide::Sell,
        }
    }
}

/// Version 1's variant `$V` (fields `$f`) grown to version 2's, the appended field `$value`.
macro_rules! grow {
    (TradeReport, $value:expr, $($f:ident)*) => {
        M2::TradeReport { $($f,)* match_id: $value }
    };
    (AddOrder, $value:expr, $($f:ident)*) => {
        M2::AddOrder { $($f,)* attribution: $value as u32 }
    };
    ($V:ident, $value:expr, $($f:ident)*) => { M2::$V { $($f),* } };
}

/// Version 2's variant `$V` (fields `$f`, the appended one `$a`) as the version 2 wire
/// vocabulary's message.
macro_rules! wire {
    (TradeReport, $a:ident, $($f:ident)*) => {
        v2::Wire::TradeReport { $($f: $f.into(),)* match_id: $a }
    };
    (AddOrder, $a:ident, $($f:ident)*) => {
        v2::Wire::AddOrder { $($f: $f.into(),)* attribution: $a }
    };
    ($V:ident, $a:ident, $($f:ident)*) => { v2::Wire::$V { $($f: $f.into(),)* } };
}

/// The pattern of version 2's variant `$V` (fields `$f`), its appended field bound to `$a`.
macro_rules! pattern {
    (TradeReport, $a:ident, $($f:ident)*) => { M2::TradeReport { $($f,)* match_id: $a } };
    (AddOrder, $a:ident, $($f:ident)*) => { M2::AddOrder { $($f,)* attribution: $a } };
    ($V:ident, $a:ident, $($f:ident)*) => { M2::$V { $($f),* } };
}

/// The conversions between version 1's messages, version 2's and the v2 wire vocabulary, from
/// the message table as `zc_messages!` hands it over.
macro_rules! zc_define {
    ([] $($V:ident($S:ident) { $($f:ident: $t:ident,)* })*) => {
        /// Version 1's message grown to version 2's, its appended field (if any) `value`.
        fn grown(m: l1::Message, value: i64) -> M2 {
            match m {
                $(l1::Message::$V { $($f),* } => grow!($V, value, $($f)*),)*
            }
        }

        /// Version 2's message in the wire vocabulary.
        fn to_wire(m: M2) -> v2::Wire<[u8; 8]> {
            match m {
                $(pattern!($V, appended, $($f)*) => wire!($V, appended, $($f)*),)*
            }
        }
    };
}
for_each_message!(zc_messages);

/// The version 2 header's size, where its messages start.
const HEADER: usize = std::mem::size_of::<layout::Packet<M2>>();

/// musli-zerocopy's version 2 writer: the v2 header and messages stored into an `OwnedBuf` (the
/// header first, as the crate's "writing data at offset zero" does), in `formats::musli_zerocopy`'s
/// frame.
pub(super) fn write(p: &v2::MPacket, out: &mut Vec<u8>) {
    let messages: Vec<M2> = p
        .messages
        .iter()
        .map(|m| {
            let (v1, appended) = m.into_v1();
            let model = v1
                .into_model(|s| Ok::<_, DecodeError>(Symbol(s)))
                .expect("a v2 writer's message is an IEX message");
            grown(to_zc(&model), appended.first().map_or(0, |&(_, v)| v))
        })
        .collect();
    let mut buf = OwnedBuf::with_alignment::<layout::Packet<M2>>();
    let header = buf
        .store_uninit::<layout::Packet<M2>>()
        .expect("an OwnedBuf grows");
    let stored = buf.store_slice(&messages).expect("an OwnedBuf grows");
    assert_eq!(stored.offset(), HEADER);
    let header_bytes = layout::Packet {
        seq: p.seq,
        send_time: p.send_time,
        messages: stored,
    };
    buf.load_uninit_mut(header)
        .expect("the header's place")
        .write(&header_bytes);
    let len = u32::try_from(buf.len()).expect("a packet under 4 GiB");
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&[0; FRAME - 4]);
    out.extend_from_slice(buf.as_slice());
}

/// musli-zerocopy's version 2 reader: the frame's buffer, aligned, its header and messages
/// loaded as version 2's (all or nothing: the slice's load checks every message).
pub(super) fn read(bytes: &[u8]) -> Read2 {
    whole((|| {
        let (body, used) = split(bytes).map_err(|e| e.to_string())?;
        let aligned = Buf::new(body)
            .to_aligned::<layout::Packet<M2>>()
            .map_err(|e| e.to_string())?;
        let load = || {
            let header = aligned.load(Ref::<layout::Packet<M2>>::zero())?;
            Ok((header, aligned.load(header.messages)?))
        };
        let (header, messages) = load().map_err(|e| err(e).to_string())?;
        let p = v2::MPacket {
            seq: header.seq,
            send_time: header.send_time,
            messages: messages.iter().map(|&m| to_wire(m)).collect(),
        };
        Ok::<_, String>((p, used))
    })())
}

// The v2 message enum is as large as v1's: what the note below says.
const _: () = assert!(std::mem::size_of::<l1::Message>() == 96 && std::mem::size_of::<M2>() == 96);

/// Why musli-zerocopy's answer is what it is.
const LAYOUT: &str = " (musli-zerocopy has no evolution mechanism: this holds by layout. A \
    message is its enum, 96 bytes in both versions (the size of Auction Information, the largest \
    variant), so every v1 field keeps its offset and the appended fields sit in bytes v1 leaves \
    as padding, which the derive writes as zeros and `Buf::load` does not look at; a field that \
    made a message outgrow 96 bytes, or one appended to the header, would move the offsets)";

/// The v1 codec `formats::musli_zerocopy` against the v2 layout.
impl super::Evolves for MusliZerocopy {
    fn evolution() -> (Finding, Finding) {
        let (forward, backward) = both::<MusliZerocopy>(
            "capability::evolution::musli_zerocopy",
            (
                "OwnedBuf::store of the v2 types",
                "Buf::load of the v2 types",
            ),
            write,
            read,
            (LAYOUT, LAYOUT),
        );
        (by_layout(forward), by_layout(backward))
    }
}

#[cfg(test)]
mod tests {
    use super::super::harness::assert_round_trip;
    use super::super::Evolves;
    use super::*;

    #[test]
    fn version_2_reads_its_own_bytes() {
        assert_round_trip(write, read);
    }

    /// Read right both ways, by layout: the message is as large in v2 as in v1 (Auction
    /// Information, its largest variant, did not grow; a const assertion above); both cells
    /// still say `no`, with what was measured and why.
    #[test]
    fn it_reads_both_ways_only_because_the_message_did_not_grow() {
        let (forward, backward) = MusliZerocopy::evolution();
        let by_layout = "no: no evolution mechanism; this v2 read right only by layout: the v";
        for f in [&forward, &backward] {
            let a = &f.answer;
            assert!(f.measured && !f.yes(), "{f:?}");
            assert!(a.starts_with(by_layout) && a.ends_with(LAYOUT), "{a}");
        }
        forward.assert_says("the v1 reader read every v1 field");
        backward.assert_says("the defaults (match_id 0, attribution 0)");
    }
}
