//! apache-avro 0.22.0: a record in a union, read with a reader schema, comes back as the first
//! branch whose fields it has, not as the branch of its name.
//!
//! Run: `cargo new repro && cd repro && cargo add apache-avro@=0.22.0`, this file as
//! `src/main.rs`, `cargo run`.

use apache_avro::reader::datum::GenericDatumReader;
use apache_avro::types::Value;
use apache_avro::writer::datum::GenericDatumWriter;
use apache_avro::Schema;

/// A union of two records; `B` has `A`'s field and one more.
pub const SCHEMA: &str = r#"{
  "type": "record",
  "name": "Holder",
  "fields": [{"name": "item", "type": [
    {"type": "record", "name": "A", "fields": [{"name": "x", "type": "long"}]},
    {"type": "record", "name": "B", "fields": [{"name": "x", "type": "long"},
                                               {"name": "y", "type": "long"}]}
  ]}]
}"#;

/// Writes a `B` (union branch 1) and reads it back with the same schema as the writer's and
/// the reader's: the branch and the value the reader returns.
pub fn read_back() -> (u32, Value) {
    let schema = Schema::parse_str(SCHEMA).unwrap();
    let b = Value::Record(vec![
        ("x".into(), Value::Long(1)),
        ("y".into(), Value::Long(2)),
    ]);
    let datum = Value::Record(vec![("item".into(), Value::Union(1, Box::new(b)))]);
    let bytes = GenericDatumWriter::builder(&schema)
        .build()
        .unwrap()
        .write_value_to_vec(datum)
        .unwrap();
    let read = GenericDatumReader::builder(&schema)
        .reader_schema(&schema)
        .build()
        .unwrap()
        .read_value(&mut &bytes[..])
        .unwrap();
    match read {
        Value::Record(mut fields) => match fields.remove(0).1 {
            Value::Union(branch, value) => (branch, *value),
            other => panic!("not a union: {other:?}"),
        },
        other => panic!("not a record: {other:?}"),
    }
}

// md-shootout compiles this file as a test module, where `main` is not called.
#[allow(dead_code)]
fn main() {
    let (branch, value) = read_back();
    println!("written: branch 1 (B) {{x: 1, y: 2}}; read: branch {branch} {value:?}");
    assert_eq!(branch, 1, "the reader resolved a B into the A before it");
}
