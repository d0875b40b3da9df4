//! arrow: Arrow IPC evolves by schema. Every stream carries its schema, and `formats::arrow`'s
//! decoder finds each message type's child and each column by name and type. Version 2 appends
//! a column to the `trade_report` and `add_order` children (`schemas/evolution-v2.txt`), as a
//! team that adds a field to its arrow-rs writer would:
//!
//! - **forward**: the window of the source packets with the appended columns (every row the
//!   value schemas/evolution-v2.txt gives), written by arrow-ipc's `StreamWriter`, read by the
//!   codec under test.
//! - **backward**: the codec's own window read by a version 2 reader: the codec's reader for
//!   version 1's columns, and each appended column looked up by name in the stream's schema, its
//!   default where the stream lacks it (Arrow has no defaults of its own: the reader supplies
//!   them).
//!
//! A window format has no bytes per packet: both directions carry all the source packets in one
//! window, and a finding names the packet where the first field came out wrong.

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, Int64Array, RecordBatch, StructArray, UInt32Array, UnionArray};
use arrow_ipc::reader::StreamReader;
use arrow_ipc::writer::StreamWriter;
use arrow_schema::{DataType, Field, FieldRef, Fields, Schema, UnionFields};

use super::harness::{self, finding, read_backward, read_forward, source, Outcome};
use super::v2::{self, Appended};
use crate::capability::cross_language::compare::snake;
use crate::capability::finding::Finding;
use crate::formats::arrow::{Arrow, COLUMN};
use crate::formats::window::WindowFormat;
use crate::model::Packet;

const CHECK: &str = "capability::evolution::arrow";

const FORWARD: &str = " (Arrow IPC: the stream carries its schema and the reader finds each \
     column by name and type, so a column it does not know is read past)";

const BACKWARD: &str = " (Arrow IPC: the stream's schema says which columns it holds; the \
     version 2 reader gives a column the stream lacks its default, as Arrow has no defaults of \
     its own)";

/// A change a version 2 writer makes to one child's fields and columns (`child` is its name).
pub(super) type Edit<'a> = &'a dyn Fn(&str, &mut Vec<FieldRef>, &mut Vec<ArrayRef>);

/// The union column of the one record batch in `bytes`.
fn union_of(bytes: &[u8]) -> Result<UnionArray, String> {
    let mut reader = StreamReader::try_new(bytes, None).map_err(|e| e.to_string())?;
    let batch = reader
        .next()
        .ok_or("the stream holds no record batch")?
        .map_err(|e| e.to_string())?;
    batch
        .column_by_name(COLUMN)
        .and_then(|c| c.as_any().downcast_ref::<UnionArray>())
        .cloned()
        .ok_or_else(|| format!("the batch has no union column {COLUMN:?}"))
}

/// `a`'s column of `rows` rows, every one `a.value`, typed as the schema types the field.
fn appended(a: &Appended, rows: usize) -> (FieldRef, ArrayRef) {
    let (ty, array): (DataType, ArrayRef) = match a.ty {
        "u32" => {
            let value = u32::try_from(a.value).expect("evolution-v2.txt: a u32's value");
            (
                DataType::UInt32,
                Arc::new(UInt32Array::from(vec![value; rows])),
            )
        }
        "i64" => (
            DataType::Int64,
            Arc::new(Int64Array::from(vec![a.value; rows])),
        ),
        other => unreachable!("evolution-v2.txt appends a {other}: give it an Arrow type here"),
    };
    (Arc::new(Field::new(a.field, ty, false)), array)
}

/// Appends each of version 2's columns to its message's child.
pub(super) fn append(child: &str, fields: &mut Vec<FieldRef>, columns: &mut Vec<ArrayRef>) {
    let rows = columns.first().map_or(0, |c| c.len());
    for a in v2::APPENDED.iter().filter(|a| snake(a.message) == child) {
        let (field, column) = appended(a, rows);
        fields.push(field);
        columns.push(column);
    }
}

/// A version 2 writer: the window of `packets` with `edit` applied to each child, written by
/// arrow-ipc's `StreamWriter` (its default options: the alignment our decoder requires, and
/// more).
pub(super) fn write(packets: &[Packet], edit: Edit) -> Result<Vec<u8>, String> {
    let mut v1 = Vec::new();
    Arrow::default().encode_window(packets, &mut v1);
    let union = union_of(&v1)?;
    let (fields, type_ids, offsets, children) = union.into_parts();
    let mut grown_fields = Vec::new();
    let mut grown_children = Vec::new();
    for ((id, field), child) in fields.iter().zip(children) {
        let child = child
            .as_any()
            .downcast_ref::<StructArray>()
            .ok_or_else(|| format!("child {} is not a struct", field.name()))?;
        let (mut names, mut columns) = (child.fields().to_vec(), child.columns().to_vec());
        edit(field.name(), &mut names, &mut columns);
        let names = Fields::from(names);
        let child =
            StructArray::try_new(names.clone(), columns, None).map_err(|e| e.to_string())?;
        grown_children.push(Arc::new(child) as ArrayRef);
        let field = Field::new(field.name(), DataType::Struct(names), false);
        grown_fields.push((id, Arc::new(field)));
    }
    let fields: UnionFields = grown_fields.into_iter().collect();
    let union = UnionArray::try_new(fields.clone(), type_ids, offsets, grown_children)
        .map_err(|e| e.to_string())?;
    let mode = match union.data_type() {
        DataType::Union(_, mode) => *mode,
        _ => unreachable!("a union array's type is a union"),
    };
    let schema = Arc::new(Schema::new(vec![Field::new(
        COLUMN,
        DataType::Union(fields, mode),
        false,
    )]));
    let batch =
        RecordBatch::try_new(schema.clone(), vec![Arc::new(union)]).map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    let mut writer = StreamWriter::try_new(&mut bytes, &schema).map_err(|e| e.to_string())?;
    writer.write(&batch).map_err(|e| e.to_string())?;
    writer.finish().map_err(|e| e.to_string())?;
    drop(writer);
    Ok(bytes)
}

/// What the version 2 reader read: the packets (version 1's fields, by the codec's reader) and
/// each appended field's values in row order (`v2::APPENDED`'s order).
pub(super) type Read2 = (Vec<Packet>, Vec<Vec<i64>>);

/// The version 2 reader.
pub(super) fn read(bytes: &[u8]) -> Result<Read2, String> {
    let mut packets = Vec::new();
    Arrow::default()
        .decode_packets(bytes, &mut packets)
        .map_err(|e| format!("refused the window: {e}"))?;
    let union = union_of(bytes)?;
    let values = v2::APPENDED
        .iter()
        .map(|a| appended_values(&union, a))
        .collect::<Result<_, _>>()?;
    Ok((packets, values))
}

/// `a`'s column in its child, by name: its values, or `a.default` for every row where the
/// stream's schema lacks it.
fn appended_values(union: &UnionArray, a: &Appended) -> Result<Vec<i64>, String> {
    let name = snake(a.message);
    let DataType::Union(fields, _) = union.data_type() else {
        unreachable!("a union array's type is a union")
    };
    let (id, _) = fields
        .iter()
        .find(|(_, f)| *f.name() == name)
        .ok_or_else(|| format!("the union has no child {name}"))?;
    let child = union
        .child(id)
        .as_any()
        .downcast_ref::<StructArray>()
        .ok_or_else(|| format!("child {name} is not a struct"))?;
    let Some(column) = child.column_by_name(a.field) else {
        return Ok(vec![a.default; child.len()]);
    };
    let any = column.as_any();
    if let Some(c) = any.downcast_ref::<Int64Array>() {
        Ok(c.values().to_vec())
    } else if let Some(c) = any.downcast_ref::<UInt32Array>() {
        Ok(c.values().iter().map(|&v| i64::from(v)).collect())
    } else {
        Err(format!(
            "{name}.{} is a {} column",
            a.field,
            column.data_type()
        ))
    }
}

/// Where the packets read first differ from the source's.
fn judge(source: &[Packet], got: &[Packet]) -> Result<(), String> {
    for (i, pair) in source.iter().zip(got).enumerate() {
        harness::judge(i, pair, None, None, (0, 0))?;
    }
    if got.len() != source.len() {
        return Err(format!(
            "{} packets where the source has {}",
            got.len(),
            source.len()
        ));
    }
    Ok(())
}

/// **forward**: the codec under test reads `v2` (the source's window as a version 2 writer
/// wrote it); every version 1 field must equal the source's.
pub(super) fn forward(source: &[Packet], v2: Result<Vec<u8>, String>) -> Outcome {
    let on = |e: String| format!("the v1 reader on v2 bytes: {e}");
    let bytes = v2.map_err(|e| on(format!("the v2 writer failed: {e}")))?;
    let mut got = Vec::new();
    Arrow::default()
        .decode_packets(&bytes, &mut got)
        .map_err(|e| on(format!("refused the window: {e}")))?;
    judge(source, &got).map_err(on)?;
    Ok(read_forward(source))
}

/// **backward**: the version 2 reader reads the codec's own window of `source`; every version 1
/// field must equal the source's, and every appended field be its default.
pub(super) fn backward(source: &[Packet]) -> Outcome {
    let on = |e: String| format!("the v2 reader on v1 bytes: {e}");
    let mut bytes = Vec::new();
    Arrow::default().encode_window(source, &mut bytes);
    let (packets, values) = read(&bytes).map_err(on)?;
    judge(source, &packets).map_err(on)?;
    for (a, values) in v2::APPENDED.iter().zip(&values) {
        if values.len() != harness::count(source, a.message) {
            return Err(on(format!(
                "{} rows of {}.{}",
                values.len(),
                a.message,
                a.field
            )));
        }
        if let Some((row, value)) = values.iter().enumerate().find(|(_, v)| **v != a.default) {
            return Err(on(format!(
                "row {row} of {}.{} came out as {value}, not the default {}",
                a.message, a.field, a.default
            )));
        }
    }
    Ok(read_backward(source))
}

/// arrow's evolution: the codec `formats::arrow` against a version 2 writer and reader.
impl super::Evolves for Arrow {
    fn evolution() -> (Finding, Finding) {
        let source = source();
        let v1 = "formats::arrow";
        (
            finding(
                forward(&source, write(&source, &append)),
                FORWARD,
                &format!(
                    "{CHECK} (v2 writer: arrow-ipc 60.1 StreamWriter, the appended columns \
                     added; v1 reader: {v1})"
                ),
            ),
            finding(
                backward(&source),
                BACKWARD,
                &format!(
                    "{CHECK} (v1 writer: {v1}; v2 reader: {v1}'s, and each appended column by \
                     name, its default where the schema lacks it)"
                ),
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::Evolves;
    use super::*;

    /// The version 2 writer and reader agree: on version 2 bytes the reader sees every
    /// appended value, so the backward `yes` (defaults) is the bytes' lack of the columns. The
    /// reader finds each child by `snake` of its message's name, as the format names them.
    #[test]
    fn the_v2_writer_and_reader_round_trip() {
        let source = source();
        let bytes = write(&source, &append).unwrap();
        let (packets, values) = read(&bytes).unwrap();
        assert_eq!(packets, source);
        // Three Trade Reports and three Add Orders (`harness::source`), each with its value.
        assert_eq!(
            values,
            [vec![81_985_529_216_486_895; 3], vec![1_196_967_241; 3]]
        );
    }

    #[test]
    fn arrow_evolves_both_ways() {
        let read = "read every v1 field of 27 messages in 2 packets, 3 Trade Reports and 3 Add \
                    Orders among them exactly";
        super::super::harness::assert_answers(
            Arrow::evolution(),
            "",
            (
                &format!("yes: the v1 reader {read}{FORWARD}"),
                &format!(
                    "yes: the v2 reader {read}, and the defaults (match_id 0, attribution \
                     0){BACKWARD}"
                ),
            ),
        );
    }

    /// By name, not by position: a column a writer puts first is read past too.
    #[test]
    fn a_column_put_first_is_read_past() {
        let source = source();
        let first = |child: &str, fields: &mut Vec<FieldRef>, columns: &mut Vec<ArrayRef>| {
            append(child, fields, columns);
            if child == "trade_report" {
                fields.rotate_right(1);
                columns.rotate_right(1);
            }
        };
        assert!(forward(&source, write(&source, &first)).is_ok());
    }

    /// The check can say no: a writer that renames a version 1 column is refused, and one
    /// that changes its values is caught at the packet and field.
    #[test]
    fn a_renamed_or_changed_column_makes_forward_no() {
        let source = source();
        let renamed = |child: &str, fields: &mut Vec<FieldRef>, _: &mut Vec<ArrayRef>| {
            if child == "trade_report" {
                for f in fields.iter_mut().filter(|f| f.name() == "price") {
                    *f = Arc::new(Field::new("px", f.data_type().clone(), false));
                }
            }
        };
        let refused = forward(&source, write(&source, &renamed)).unwrap_err();
        assert!(
            refused.starts_with("the v1 reader on v2 bytes: refused the window: "),
            "{refused}"
        );
        let doubled = |child: &str, fields: &mut Vec<FieldRef>, columns: &mut Vec<ArrayRef>| {
            if child == "trade_report" {
                let at = fields.iter().position(|f| f.name() == "price").unwrap();
                let prices = columns[at].as_any().downcast_ref::<Int64Array>().unwrap();
                let doubled: Int64Array = prices.values().iter().map(|p| p * 2).collect();
                columns[at] = Arc::new(doubled);
            }
        };
        assert_eq!(
            forward(&source, write(&source, &doubled)),
            Err(
                "the v1 reader on v2 bytes: packet 0 (seq 1001): messages[1].TradeReport.price \
                 came out as 3785000 where the source has 1892500"
                    .to_owned()
            )
        );
    }
}
