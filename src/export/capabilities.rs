//! What `shootout formats` prints and bench writes beside its runs (`formats.json`): one
//! [`Row`] per format, as a table with what decided each cell below it, or as JSON.

use std::fmt::Write as _;
use std::io;
use std::path::Path;

use super::caveat::{Caveat, Caveats};
use crate::capability::row::CELLS;
use crate::capability::Row;
use crate::output::atomic::write_atomically;
use crate::output::Table;

/// The file name bench gives the rows in its results folder, where `report` looks for them.
pub const FILE: &str = "formats.json";

/// The table's column headings, for [`CELLS`] then `read_by`.
pub const HEADINGS: [&str; 6] = [
    "schema",
    "zero-copy",
    "validates",
    "evolves v2→v1",
    "evolves v1→v2",
    "read by",
];

/// The table: a line per format with each cell's `yes` or `no` and the languages that read its
/// bytes, then per format every cell's whole answer and what decided it (`measured` or
/// `documented`).
pub fn render(rows: &[Row]) -> String {
    let caveats = |r: &Row| Caveats::of_format(&r.name, None, None);
    let shown = |r: &Row| caveats(r).shown(&r.name);
    let mut t = table(rows, shown, "").text();
    let _ = writeln!(t, "\nevolves v2→v1: a v1 reader reads v2 bytes exactly; v1→v2: a v2 reader reads v1 bytes with the new fields' defaults");
    if rows.iter().any(|r| r.evolution_format.is_some()) {
        let _ = writeln!(
            t,
            "(format yes): the crate under test says no, the format's reference implementation \
             yes, on the same bytes (below: both answers)"
        );
    }
    if rows.iter().any(|r| caveats(r).has(Caveat::TrustsProducer)) {
        let _ = writeln!(
            t,
            "{}; its evolution and other-language cells are its checked twin's (the same bytes)",
            Caveat::TrustsProducer.note()
        );
    }
    for r in rows {
        if let Some(reason) = &r.lossy {
            let _ = writeln!(t, "{}. {}: {reason}", Caveat::Lossy.note(), r.name);
        }
    }
    for r in rows {
        let _ = writeln!(t, "\n{}", shown(r));
        for cell in CELLS.iter().copied().chain(["read_by"]) {
            let answer = match r.answer(cell) {
                Some(a) => a.to_string(),
                None => format!("{:?}", r.read_by),
            };
            let how = how(r.measured.get(cell).copied().unwrap_or(false));
            let by = r.decided_by.get(cell).map_or("", String::as_str);
            let _ = writeln!(t, "  {cell}: {answer}\n    {how}: {by}");
        }
        format_lines(&mut t, r);
        if let Some(path) = &r.code_path {
            let _ = writeln!(t, "  code path: {path}");
        }
    }
    t
}

/// The table's cells, a row per format named by `name`: each cell's word, `documented` after
/// those a document decided rather than a measurement (the report's `*`; `shootout formats`
/// says how each cell was decided under its table instead), and the languages that read it.
pub fn table(rows: &[Row], name: impl Fn(&Row) -> String, documented: &str) -> Table {
    let header = [&["format"], &HEADINGS[..]].concat();
    let mut table = Table::new("", HEADINGS.len() + 1, &header);
    for r in rows {
        let mut row = vec![name(r)];
        for cell in CELLS {
            let measured = r.measured.get(cell).copied().unwrap_or(false);
            row.push(format!(
                "{}{}",
                r.word(cell),
                if measured { "" } else { documented }
            ));
        }
        row.push(match r.read_by.is_empty() {
            true => "-".to_owned(),
            false => r.read_by.join(", "),
        });
        table.rows.push(row);
    }
    table
}

/// A row's format-level evolution, where it has one: each direction's finding by the format's
/// reference implementation, then both answers side by side.
fn format_lines(t: &mut String, r: &Row) {
    let Some(f) = &r.evolution_format else {
        return;
    };
    for (cell, found) in [
        ("evolution_forward", &f.forward),
        ("evolution_backward", &f.backward),
    ] {
        let _ = writeln!(
            t,
            "  {cell} of the format ({}): {}\n    {}: {}",
            f.reference,
            found.answer,
            how(found.measured),
            found.decided_by
        );
    }
    for (cell, h) in CELLS.iter().zip(HEADINGS) {
        if let Some(both) = r.format_and_crate(cell) {
            let _ = writeln!(t, "  {h}: {both}");
        }
    }
}

fn how(measured: bool) -> &'static str {
    ["documented", "measured"][measured as usize]
}

/// The rows as a JSON array, one object per format.
pub fn json(rows: &[Row]) -> String {
    serde_json::to_string_pretty(rows).expect("rows are plain strings, lists and maps")
}

/// Writes the rows as JSON to `path`, whole or not at all.
pub fn write(rows: &[Row], path: &Path) -> io::Result<()> {
    let text = json(rows);
    write_atomically(path, |w| w.write_all(text.as_bytes()))
}

/// Reads rows written by [`write()`].
pub fn read(path: &Path) -> Result<Vec<Row>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| {
        format!(
            "{}: not a formats.json of this version: {e}",
            path.display()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capability::finding::Finding;

    fn row(name: &str, yes: bool) -> Row {
        let f = |d: &str| Finding::measured(yes, d, format!("check {d}"));
        Row::new(
            name,
            [f("s"), f("z"), f("v"), f("f"), f("b")],
            if yes {
                vec!["C++".into(), "Java".into()]
            } else {
                vec![]
            },
            &[("C++".into(), Finding::documented(yes, "", "docs"))],
        )
    }

    #[test]
    fn the_table_has_a_line_per_format_and_what_decided_each_cell() {
        let t = render(&[row("capnp-packed", true), row("raw", false)]);
        let lines: Vec<&str> = t.lines().collect();
        assert!(lines[0].starts_with("format        schema"), "{}", lines[0]);
        let fields = |l: &str| l.split_whitespace().collect::<Vec<_>>().join(" ");
        assert_eq!(
            fields(lines[1]),
            "capnp-packed yes yes yes yes yes C++, Java"
        );
        assert_eq!(fields(lines[2]), "raw no no no no no -");
        assert!(
            t.contains("\nraw\n  schema: no: s\n    measured: check s\n"),
            "{t}"
        );
        assert!(
            t.contains("  read_by: [\"C++\", \"Java\"]\n    documented: C++: docs (yes)\n"),
            "{t}"
        );
    }

    /// A format that trusts its producer is marked in the table and its details, and the
    /// mark is explained once; a table without one has neither.
    #[test]
    fn formats_that_trust_their_producer_are_labelled() {
        let t = render(&[row("rkyv", true), row("rkyv-unchecked", false)]);
        let lines: Vec<&str> = t.lines().collect();
        assert!(lines[1].starts_with("rkyv  "), "{}", lines[1]);
        assert!(lines[2].starts_with("rkyv-unchecked ‡  no"), "{}", lines[2]);
        assert!(t.contains("\n‡ trusts its producer: "), "{t}");
        assert!(t.contains("\nrkyv-unchecked ‡\n  schema: "), "{t}");
        assert!(!render(&[row("rkyv", true)]).contains('‡'));
    }

    /// Where the crate says no and the format's reference implementation yes, the table shows
    /// both, and the details each finding and the two answers side by side.
    #[test]
    fn the_format_s_evolution_shows_beside_the_crate_s() {
        use crate::capability::evolution::FormatEvolution;
        let avro = row("avro", false).with_evolution_format(Some(FormatEvolution {
            reference: "Python avro 1.12.2".into(),
            crate_under_test: "apache-avro 0.22".into(),
            crate_defect: "by shape".into(),
            forward: Finding::measured(true, "read", "python"),
            backward: Finding::measured(true, "read", "python"),
        }));
        let t = render(&[row("capnp-packed", true), avro]);
        let lines: Vec<&str> = t.lines().collect();
        assert!(
            lines[0].starts_with("format        schema  zero-copy  validates  evolves v2→v1    evolves v1→v2    read by"),
            "{}",
            lines[0]
        );
        assert!(
            lines[2].starts_with(
                "avro          no      no         no         no (format yes)  no (format yes)  -"
            ),
            "{}",
            lines[2]
        );
        assert!(
            t.contains("\n(format yes): the crate under test says no"),
            "{t}"
        );
        assert!(
            t.contains(
                "  evolution_forward of the format (Python avro 1.12.2): yes: read\n    measured: python\n"
            ),
            "{t}"
        );
        assert!(
            t.contains(
                "  evolves v1→v2: format yes (Python avro 1.12.2), apache-avro 0.22 no: by shape\n"
            ),
            "{t}"
        );
        assert!(!render(&[row("raw", false)]).contains("format yes"));
    }

    /// A row whose library picks its code path says which in the details and in the JSON; a
    /// row without one has no such key (formats.json from before it reads as before).
    #[test]
    fn a_code_path_is_printed_and_written_only_where_there_is_one() {
        let mut sonic = row("json-sonic", true);
        sonic.code_path = Some("sonic-rs's fallback".into());
        let t = render(&[sonic.clone(), row("raw", false)]);
        assert!(
            t.contains("  code path: sonic-rs's fallback\n\nraw\n"),
            "{t}"
        );
        assert_eq!(t.matches("code path").count(), 1, "{t}");
        let value: serde_json::Value =
            serde_json::from_str(&json(&[sonic, row("raw", false)])).unwrap();
        assert_eq!(value[0]["code_path"], "sonic-rs's fallback");
        assert!(value[1].get("code_path").is_none(), "{value}");
        let back: Vec<Row> = serde_json::from_value(value).unwrap();
        assert_eq!(back[1].code_path, None);
    }

    #[test]
    fn rows_written_are_read_back_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        let rows = vec![row("a", true), row("b", false)];
        write(&rows, &path).unwrap();
        assert_eq!(read(&path).unwrap(), rows);
        let value: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(value[1]["evolution_backward"], "no: b");
        std::fs::write(&path, "{").unwrap();
        assert!(read(&path).unwrap_err().contains("formats.json"));
    }
}
