//! `arrow`: Apache Arrow IPC, a window format ([`WindowFormat`]). A window of packets is one
//! Arrow IPC *stream* (schema message, one record batch, end-of-stream marker) written with
//! arrow-ipc's `StreamWriter` into the reused buffer, and read back with its `StreamDecoder` over
//! that buffer in place.
//!
//! Layout: one column, `message`, a dense union with one child per row kind: `packet` (`seq`,
//! `send_time`) and one struct per entry of the message table (`schemas/iex-messages.txt`,
//! through `model::for_each_message!`), whose columns are exactly the model's fields, by the
//! model's names. A packet is its header row followed by its messages' rows, so the union's
//! type ids keep the order of messages and packets that the complete decode's checksum checks,
//! and each type's rows lie in their own columns (the columnar part). Why a union and not one
//! record batch per message type: an IPC stream carries one schema, so a batch per type would
//! be a stream per type (a schema message each) with a separate `kinds` stream to put them back
//! in order; the union is one stream, one schema, one batch. The two layouts were not measured
//! against each other.
//!
//! Decoding wraps the bytes in an arrow `Buffer` without copying them (they are 8-byte aligned
//! in the runner's buffer; foreign bytes that are not are copied into an aligned buffer first,
//! which no measured run does) and asks the decoder to refuse, not copy, a misaligned column
//! (`with_require_alignment(true)`), so every column is read where the encoder wrote it. The
//! decoder validates every batch (arrow-data's `validate_full` through `ArrayDataBuilder::build`:
//! offsets, type ids, lengths). It has no switch to skip that for record batches in arrow-ipc
//! 60 (`with_skip_validation` only reaches dictionary batches in `StreamDecoder`), so there is no
//! unvalidated ‡ twin. The decoder reads the whole batch whichever columns are then looked at:
//! the selective decode reads only the aggregation's columns (type ids and offsets; symbol,
//! size, price, side, bid and ask of the six kinds the aggregation counts), the complete decode
//! every column, by name (a column added by a later writer is ignored: `capability::evolution`).
//!
//! The encoder accumulates each column in a `Vec` handed to its array whole: one allocation per
//! column per window, none per message; the writer allocates too (the harness counts both).

mod columns;

use crate::formats::languages::{OtherLanguages, WireFormat};
use std::ptr::NonNull;
use std::sync::Arc;

use arrow_array::types::{Int64Type, UInt32Type, UInt64Type, UInt8Type};
use arrow_array::{
    Array, ArrayRef, FixedSizeBinaryArray, PrimitiveArray, RecordBatch, StructArray, UnionArray,
};
use arrow_buffer::Buffer;
use arrow_ipc::reader::StreamDecoder;
use arrow_ipc::writer::{IpcWriteOptions, StreamWriter};
use arrow_ipc::MetadataVersion;
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef, UnionFields, UnionMode};

use self::columns::{of, symbol_at, Column, Ts, U64};
use crate::formats::codec::{DecodeError, Documented, Sink, Visitor};
use crate::formats::window::WindowFormat;
use crate::model::{Message, Packet};

pub use self::columns::{side_byte, UTC};

/// What the `shootout formats` row says of it.
const SOURCE: &str = "arrow-ipc 60 StreamDecoder: validates each record batch (arrow-data \
    validate_full), reads aligned buffers in place; https://arrow.apache.org/docs/format/Columnar.html";

/// The schema travels in every stream: a reader in any language reads it from the bytes.
const SCHEMA: Option<&str> = Some(
    "Arrow schema, carried in every stream's schema message (built in code from \
     schemas/iex-messages.txt)",
);

/// The one column of every batch.
pub const COLUMN: &str = "message";

/// The union child of packet header rows.
pub const PACKET: &str = "packet";

/// The IPC end-of-stream marker: the continuation token, then a zero length.
const END_OF_STREAM: [u8; 8] = [0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0];

/// Bytes the writer pads each buffer to: enough for the widest column (`i64`), which is all the
/// in-place read needs (the default, 64, only adds padding).
const ALIGNMENT: usize = 8;

macro_rules! arrow_table {
    ($($V:ident($S:ident) $snake:ident {
        kinds $kinds:tt, len $len:tt, wire $wire:tt, fields [$($f:ident: $t:ident),* $(,)?],
        $($rest:tt)*
    },)*) => {
        /// The union's type ids: the packet header, then the message table's entries in order.
        #[derive(Clone, Copy)]
        #[repr(i8)]
        #[allow(clippy::enum_variant_names)]
        enum Row {
            Packet,
            $($V,)*
        }

        /// Every type id, in order, and its child's name.
        const CHILDREN: &[(i8, &str)] = &[
            (Row::Packet as i8, PACKET),
            $((Row::$V as i8, stringify!($snake)),)*
        ];

        /// The struct fields of the child named `child`.
        fn child_fields(child: &str) -> Fields {
            match child {
                $(stringify!($snake) => Fields::from(vec![
                    $(Field::new(stringify!($f), <of::$t as Column>::data_type(), false),)*
                ]),)*
                _ => Fields::from(vec![
                    Field::new("seq", U64::data_type(), false),
                    Field::new("send_time", Ts::data_type(), false),
                ]),
            }
        }

        /// Each child's columns as the encoder accumulates them.
        #[allow(non_snake_case)]
        mod acc {
            use crate::formats::arrow::columns::{of, Column};
            $(
                #[derive(Default)]
                pub struct $V {
                    pub rows: i32,
                    $(pub $f: <of::$t as Column>::Acc,)*
                }
            )*
        }

        /// The encoder's accumulators.
        #[derive(Default)]
        #[allow(non_snake_case)]
        struct Columns {
            type_ids: Vec<i8>,
            offsets: Vec<i32>,
            seq: Vec<u64>,
            send_time: Vec<i64>,
            $($V: acc::$V,)*
        }

        impl Columns {
            /// Appends one packet's rows; returns its messages.
            fn push(&mut self, packet: &Packet) -> usize {
                self.type_ids.push(Row::Packet as i8);
                self.offsets.push(self.seq.len() as i32);
                self.seq.push(packet.seq);
                self.send_time.push(packet.send_time);
                for message in &packet.messages {
                    match message {
                        $(Message::$V(m) => {
                            let child = &mut self.$V;
                            self.type_ids.push(Row::$V as i8);
                            self.offsets.push(child.rows);
                            child.rows += 1;
                            $(<of::$t as Column>::push(&mut child.$f, m.$f);)*
                        })*
                    }
                }
                packet.messages.len()
            }

            /// The union's children, in type id order; the accumulators are left empty.
            fn children(&mut self, fields: &UnionFields) -> Vec<ArrayRef> {
                let mut structs = fields.iter().map(|(_, f)| match f.data_type() {
                    DataType::Struct(fields) => fields.clone(),
                    _ => unreachable!("every child of the union is a struct"),
                });
                let mut child = |columns: Vec<ArrayRef>| -> ArrayRef {
                    let fields = structs.next().expect("a field per child");
                    Arc::new(StructArray::new(fields, columns, None))
                };
                vec![
                    child(vec![
                        U64::finish(&mut self.seq),
                        Ts::finish(&mut self.send_time),
                    ]),
                    $({
                        let c = &mut self.$V;
                        c.rows = 0;
                        child(vec![$(<of::$t as Column>::finish(&mut c.$f)),*])
                    },)*
                ]
            }
        }

        /// Every child's columns, downcast once per window, found by name.
        #[allow(non_snake_case)]
        mod view {
            use crate::formats::arrow::columns::{of, Column};
            use arrow_array::{Array, StructArray};
            $(
                pub struct $V<'a> {
                    pub len: usize,
                    $(pub $f: &'a <of::$t as Column>::Array,)*
                }

                impl<'a> $V<'a> {
                    pub fn of(child: &'a StructArray) -> Option<$V<'a>> {
                        Some($V {
                            len: child.len(),
                            $($f: crate::formats::arrow::column(child, stringify!($f))?,)*
                        })
                    }
                }
            )*
        }

        /// What the complete decode reads: every child's every column.
        #[allow(non_snake_case)]
        struct Complete<'a> {
            packets: Packets<'a>,
            $($V: view::$V<'a>,)*
        }

        impl<'a> Complete<'a> {
            fn of(union: &'a UnionArray) -> Result<Complete<'a>, DecodeError> {
                Ok(Complete {
                    packets: Packets::of(union)?,
                    $($V: view::$V::of(child(union, Row::$V)?)
                        .ok_or(DecodeError::Malformed(concat!(
                            "arrow: the ", stringify!($snake), " child lacks a column"
                        )))?,)*
                })
            }

            /// The message in row `at` of the child of type id `id`.
            #[inline(always)]
            fn message(&self, id: i8, at: usize) -> Result<Message, DecodeError> {
                let bad = DecodeError::Malformed("arrow: a row past its child's end, or a bad value");
                $(if id == Row::$V as i8 {
                    let v = &self.$V;
                    if at >= v.len {
                        return Err(bad);
                    }
                    return Ok(Message::$V(crate::model::$S {
                        $($f: <of::$t as Column>::get(v.$f, at).ok_or(bad.clone())?,)*
                    }));
                })*
                Err(DecodeError::Malformed("arrow: a type id no child has"))
            }
        }
    };
}
crate::model::for_each_message!(arrow_table);

/// The child of type id `row` as a struct array.
fn child(union: &UnionArray, row: Row) -> Result<&StructArray, DecodeError> {
    let id = row as i8;
    // `UnionArray::child` panics on a type id its fields lack: the schema was checked to be
    // ours, which has them all, but check again rather than trust it.
    let has = match union.data_type() {
        DataType::Union(fields, _) => fields.iter().any(|(t, _)| t == id),
        _ => false,
    };
    if !has {
        return Err(DecodeError::Malformed("arrow: the union lacks a child"));
    }
    union
        .child(id)
        .as_any()
        .downcast_ref::<StructArray>()
        .ok_or(DecodeError::Malformed("arrow: a union child is not a struct"))
}

/// The packet header rows' columns.
struct Packets<'a> {
    seq: &'a PrimitiveArray<UInt64Type>,
    send_time: &'a <Ts as Column>::Array,
}

impl<'a> Packets<'a> {
    fn of(union: &'a UnionArray) -> Result<Packets<'a>, DecodeError> {
        let c = child(union, Row::Packet)?;
        let missing = DecodeError::Malformed("arrow: the packet child lacks a column");
        Ok(Packets {
            seq: column(c, "seq").ok_or(missing.clone())?,
            send_time: column(c, "send_time").ok_or(missing)?,
        })
    }
}

/// Column `name` of `child` as an `A`.
fn column<'a, A: Array + 'static>(child: &'a StructArray, name: &str) -> Option<&'a A> {
    child.column_by_name(name)?.as_any().downcast_ref()
}

/// The `Sym`/`U32`/`I64` columns of a child, by name.
fn columns3<'a, A: Array + 'static, B: Array + 'static, C: Array + 'static>(
    union: &'a UnionArray,
    row: Row,
    names: [&str; 3],
) -> Result<(usize, &'a A, &'a B, &'a C), DecodeError> {
    let c = child(union, row)?;
    let missing = DecodeError::Malformed("arrow: a child lacks a column the aggregation reads");
    Ok((
        c.len(),
        column(c, names[0]).ok_or(missing.clone())?,
        column(c, names[1]).ok_or(missing.clone())?,
        column(c, names[2]).ok_or(missing)?,
    ))
}

type Symbols = FixedSizeBinaryArray;
type U32s = PrimitiveArray<UInt32Type>;
type I64s = PrimitiveArray<Int64Type>;
type U8s = PrimitiveArray<UInt8Type>;

/// What the selective decode reads: the aggregation's columns only.
struct Selective<'a> {
    seq: &'a PrimitiveArray<UInt64Type>,
    trades: (usize, &'a Symbols, &'a U32s, &'a I64s),
    executions: (usize, &'a Symbols, &'a U32s, &'a I64s),
    levels: (usize, &'a U8s, &'a Symbols, &'a I64s),
    adds: (usize, &'a U8s, &'a Symbols, &'a I64s),
    quotes: (usize, &'a Symbols, &'a I64s, &'a I64s),
}

impl<'a> Selective<'a> {
    fn of(union: &'a UnionArray) -> Result<Selective<'a>, DecodeError> {
        let traded = ["symbol", "size", "price"];
        let sided = ["side", "symbol", "price"];
        Ok(Selective {
            seq: Packets::of(union)?.seq,
            trades: columns3(union, Row::TradeReport, traded)?,
            executions: columns3(union, Row::OrderExecuted, traded)?,
            levels: columns3(union, Row::PriceLevelUpdate, sided)?,
            adds: columns3(union, Row::AddOrder, sided)?,
            quotes: columns3(union, Row::QuoteUpdate, ["symbol", "bid_price", "ask_price"])?,
        })
    }
}

/// The Arrow IPC format of a window.
pub struct Arrow {
    schema: SchemaRef,
    fields: UnionFields,
    options: IpcWriteOptions,
    columns: Columns,
    /// What every in-place `Buffer` names as its owner: nothing (the bytes are borrowed, see
    /// [`Arrow::batch`]); one `Arc`, cloned, so that wrapping the bytes allocates only the
    /// buffer's own header.
    owner: Arc<()>,
}

impl Default for Arrow {
    fn default() -> Self {
        let fields = union_fields();
        let schema = Arc::new(Schema::new(vec![Field::new(
            COLUMN,
            DataType::Union(fields.clone(), UnionMode::Dense),
            false,
        )]));
        Arrow {
            schema,
            fields,
            options: IpcWriteOptions::try_new(ALIGNMENT, false, MetadataVersion::V5)
                .expect("8 is a valid IPC alignment"),
            columns: Columns::default(),
            owner: Arc::new(()),
        }
    }
}

/// The union's fields: one struct child per type id.
fn union_fields() -> UnionFields {
    UnionFields::try_new(
        CHILDREN.iter().map(|&(id, _)| id),
        CHILDREN.iter().map(|&(_, name)| {
            Field::new(name, DataType::Struct(child_fields(name)), false)
        }),
    )
    .expect("distinct type ids")
}

impl Arrow {
    /// The schema every stream carries.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// Reads the one record batch of the stream in `bytes` (all of it) and hands its union
    /// column to `read`.
    fn batch<R>(
        &mut self,
        bytes: &[u8],
        read: impl FnOnce(&UnionArray) -> Result<R, DecodeError>,
    ) -> Result<R, DecodeError> {
        let lib = |e| DecodeError::library("arrow", e);
        let mut buffer = if (bytes.as_ptr() as usize).is_multiple_of(ALIGNMENT) {
            let owner: Arc<dyn arrow_buffer::alloc::Allocation> = self.owner.clone();
            // SAFETY: `bytes` is valid for `bytes.len()` bytes while this function runs, and the
            // buffer, every array built over it and the decoder that might keep a slice of it
            // are locals of this function, all dropped before it returns: nothing reads the
            // bytes after the borrow ends.
            unsafe { Buffer::from_custom_allocation(NonNull::from(bytes).cast(), bytes.len(), owner) }
        } else {
            Buffer::from_slice_ref(bytes)
        };
        let mut decoder = StreamDecoder::new().with_require_alignment(true);
        // arrow-ipc 60.1 panics on some corrupt batches instead of returning an error (a union
        // whose node length exceeds its type ids buffer: `Buffer::slice_with_length` in
        // `RecordBatchDecoder::create_array`, reader.rs:210; `corrupt_union_length_panics_in_
        // arrow_ipc` reproduces it). The library's calls run under `catch_unwind` so that such
        // bytes are refused like any other, with the panic hook quiet for them (`quietly`).
        let read_one = |decoder: &mut StreamDecoder, buffer: &mut Buffer| {
            quietly(|| decoder.decode(buffer))
                .map_err(|_| DecodeError::Malformed("arrow: arrow-ipc panicked on the bytes"))?
                .map_err(lib)
        };
        let batch = loop {
            if buffer.is_empty() {
                return Err(DecodeError::Malformed("arrow: the stream holds no record batch"));
            }
            if let Some(batch) = read_one(&mut decoder, &mut buffer)? {
                break batch;
            }
        };
        // The end-of-stream marker, and nothing after it: a window cut short, even by just its
        // marker, is refused rather than read as a shorter one.
        if buffer.as_slice() != END_OF_STREAM {
            return Err(DecodeError::Malformed(
                "arrow: the window does not end with one batch and the end-of-stream marker",
            ));
        }
        let union = union_of(&batch)?;
        if !ours(union) {
            return Err(DecodeError::Malformed("arrow: the stream's schema is not this format's"));
        }
        read(union)
    }
}

/// The batch's one column as the dense union.
fn union_of(batch: &RecordBatch) -> Result<&UnionArray, DecodeError> {
    batch
        .column_by_name(COLUMN)
        .and_then(|c| c.as_any().downcast_ref::<UnionArray>())
        .ok_or(DecodeError::Malformed("arrow: the stream's schema has no message union"))
}

/// Whether `union` is this format's: a dense union with a child of our name at each of our
/// type ids. Not the whole schema's equality: the decoders find every column by name and type
/// (a missing or mistyped one is refused there), so a later writer's added column, or added
/// child after ours, is read past (`capability::evolution`'s forward case).
fn ours(union: &UnionArray) -> bool {
    let DataType::Union(fields, UnionMode::Dense) = union.data_type() else {
        return false;
    };
    CHILDREN.iter().all(|&(id, name)| {
        fields
            .iter()
            .any(|(t, f)| t == id && f.name() == name && matches!(f.data_type(), DataType::Struct(_)))
    })
}

/// Walks the union's rows in order: `packet(ctx, at)` for a packet header row (`at` its row in
/// the packet child of `packets` rows), `message(ctx, id, offset)` for each message row after
/// one; returns how many packets it read.
#[inline(always)]
fn each_row<C>(
    union: &UnionArray,
    packets: usize,
    ctx: &mut C,
    mut packet: impl FnMut(&mut C, usize),
    mut message: impl FnMut(&mut C, i8, i32) -> Result<(), DecodeError>,
) -> Result<usize, DecodeError> {
    let offsets = union
        .offsets()
        .ok_or(DecodeError::Malformed("arrow: a sparse union"))?;
    let mut read = 0;
    for (&id, &offset) in union.type_ids().iter().zip(offsets) {
        if id == Row::Packet as i8 {
            packet(ctx, row(offset, packets)?);
            read += 1;
        } else if read == 0 {
            return Err(DecodeError::Malformed("arrow: a message before any packet"));
        } else {
            message(ctx, id, offset)?;
        }
    }
    Ok(read)
}

/// Row `at` of a child of `len` rows, refused past its end.
#[inline(always)]
fn row(offset: i32, len: usize) -> Result<usize, DecodeError> {
    usize::try_from(offset)
        .ok()
        .filter(|&at| at < len)
        .ok_or(DecodeError::Malformed("arrow: a row past its child's end"))
}

impl WindowFormat for Arrow {
    const NAME: &'static str = "arrow";
    const DOCUMENTED: Documented = Documented::new(SCHEMA, true, true, SOURCE);
    const OTHER_LANGUAGES: OtherLanguages = OtherLanguages::Read(WireFormat::Arrow);

    fn encode_window(&mut self, packets: &[Packet], out: &mut Vec<u8>) -> usize {
        let messages = packets.iter().map(|p| self.columns.push(p)).sum();
        let type_ids = std::mem::take(&mut self.columns.type_ids);
        let offsets = std::mem::take(&mut self.columns.offsets);
        let children = self.columns.children(&self.fields);
        let union = UnionArray::try_new(
            self.fields.clone(),
            type_ids.into(),
            Some(offsets.into()),
            children,
        )
        .expect("the encoder's union is well formed");
        let batch = RecordBatch::try_new(self.schema.clone(), vec![Arc::new(union)])
            .expect("the batch has the schema's one column");
        let mut writer =
            StreamWriter::try_new_with_options(&mut *out, &self.schema, self.options.clone())
                .expect("writing to a Vec does not fail");
        writer.write(&batch).expect("writing to a Vec does not fail");
        writer.finish().expect("writing to a Vec does not fail");
        messages
    }

    fn decode_window<K: Sink>(&mut self, bytes: &[u8], sink: &mut K) -> Result<usize, DecodeError> {
        self.batch(bytes, |union| {
            let s = Selective::of(union)?;
            let packet = |sink: &mut K, at: usize| sink.packet(s.seq.values()[at]);
            each_row(union, s.seq.len(), sink, packet, |sink, id, offset| {
                let short = DecodeError::Malformed("arrow: a symbol of the wrong width");
                match id {
                    x if x == Row::TradeReport as i8 || x == Row::OrderExecuted as i8 => {
                        let (len, symbol, size, price) = if x == Row::TradeReport as i8 {
                            s.trades
                        } else {
                            s.executions
                        };
                        let at = row(offset, len)?;
                        let symbol = symbol_at(symbol, at).ok_or(short)?;
                        sink.trade(symbol, size.values()[at], price.values()[at]);
                    }
                    x if x == Row::PriceLevelUpdate as i8 => {
                        let (len, side, symbol, price) = s.levels;
                        let at = row(offset, len)?;
                        let side = columns::side_of(side.values()[at])
                            .ok_or(DecodeError::Malformed("arrow: a side that is neither"))?;
                        sink.price_level(side, symbol_at(symbol, at).ok_or(short)?, price.values()[at]);
                    }
                    x if x == Row::AddOrder as i8 => {
                        let (len, side, symbol, price) = s.adds;
                        let at = row(offset, len)?;
                        let symbol = symbol_at(symbol, at).ok_or(short)?;
                        sink.add_order(side.values()[at], symbol, price.values()[at]);
                    }
                    x if x == Row::QuoteUpdate as i8 => {
                        let (len, symbol, bid, ask) = s.quotes;
                        let at = row(offset, len)?;
                        let symbol = symbol_at(symbol, at).ok_or(short)?;
                        sink.quote(symbol, bid.values()[at], ask.values()[at]);
                    }
                    x if x > 0 && (x as usize) < CHILDREN.len() => sink.other(),
                    _ => return Err(DecodeError::Malformed("arrow: a type id no child has")),
                }
                Ok(())
            })
        })
    }

    fn decode_window_all<V: Visitor>(
        &mut self,
        bytes: &[u8],
        v: &mut V,
    ) -> Result<usize, DecodeError> {
        self.batch(bytes, |union| {
            let c = Complete::of(union)?;
            let (seq, send_time) = (c.packets.seq.values(), c.packets.send_time.values());
            let packet = |v: &mut V, at: usize| v.packet(seq[at], send_time[at]);
            each_row(union, seq.len(), v, packet, |v, id, offset| {
                let at = usize::try_from(offset)
                    .map_err(|_| DecodeError::Malformed("arrow: a negative offset"))?;
                v.message(c.message(id, at)?);
                Ok(())
            })
        })
    }
}

#[cfg(test)]
mod tests;

std::thread_local! {
    /// This thread is inside [`quietly`]: a panic here is arrow-ipc's on bad bytes, caught and
    /// refused, not a bug to report.
    static CATCHING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// `work` under `catch_unwind`, without the panic hook's message and backtrace for a panic it
/// catches: the validation check and a fuzzer feed arrow-ipc thousands of corrupt windows, and a
/// caught panic is an error of the bytes, said once by the decoder. Installed once, the hook
/// passes every other panic (another thread's, or outside `work`) to the one before it.
fn quietly<R>(work: impl FnOnce() -> R) -> std::thread::Result<R> {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !CATCHING.with(|c| c.get()) {
                previous(info);
            }
        }));
    });
    CATCHING.with(|c| c.set(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
    CATCHING.with(|c| c.set(false));
    result
}
