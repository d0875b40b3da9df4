//! The one table type: a run's results on stdout, `shootout formats`, and the report's tables
//! (`summary.md`, `index.html`, the verdicts a terminal shows) are all text cells in a
//! [`Table`], laid out as plain text here so that every table aligns the same way.

/// A table as text cells: [`Table::left`] text columns, then numbers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Table {
    /// What the table shows, said above it.
    pub caption: String,
    /// How many leading columns are text, aligned left (the rest are numbers, aligned right).
    pub left: usize,
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// A table without rows yet.
    pub fn new(caption: impl Into<String>, left: usize, header: &[&str]) -> Self {
        Table {
            caption: caption.into(),
            left,
            header: header.iter().map(|&h| h.to_owned()).collect(),
            rows: Vec::new(),
        }
    }

    /// The caption (when there is one) on a line of its own, then the columns two spaces
    /// apart, each as wide as its widest cell.
    pub fn text(&self) -> String {
        self.lay_out(&[], false)
    }

    /// As [`Table::text`], with a dashed rule under the header and each cell cut to at most
    /// `widths[i]` characters (unbounded past the widths given): for a terminal's width.
    pub fn ruled(&self, widths: &[usize]) -> String {
        self.lay_out(widths, true)
    }

    fn lay_out(&self, widths: &[usize], rule: bool) -> String {
        let cut =
            |i: usize, cell: &str| shorten(cell, widths.get(i).copied().unwrap_or(usize::MAX));
        let rows: Vec<Vec<String>> = std::iter::once(&self.header)
            .chain(&self.rows)
            .map(|r| r.iter().enumerate().map(|(i, c)| cut(i, c)).collect())
            .collect();
        let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
        let width: Vec<usize> = (0..columns)
            .map(|i| {
                (rows.iter().filter_map(|r| r.get(i)))
                    .map(|c| c.chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let line = |cells: &[String]| {
            let padded: Vec<String> = (cells.iter().enumerate())
                .map(|(i, c)| match i < self.left {
                    true => format!("{c:<w$}", w = width[i]),
                    false => format!("{c:>w$}", w = width[i]),
                })
                .collect();
            format!("{}\n", padded.join("  ").trim_end())
        };
        let mut out = String::new();
        if !self.caption.is_empty() {
            out.push_str(&self.caption);
            out.push('\n');
        }
        for (k, r) in rows.iter().enumerate() {
            out.push_str(&line(r));
            if k == 0 && rule {
                out.push_str(&line(
                    &width.iter().map(|&w| "-".repeat(w)).collect::<Vec<_>>(),
                ));
            }
        }
        out
    }
}

/// `text` cut to `max` characters, the last one `…` when anything was cut.
fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let kept: String = text.chars().take(max.saturating_sub(1)).collect();
    format!("{}…", kept.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Table {
        let mut t = Table::new("sizes:", 1, &["format", "bytes/msg", "runner-up"]);
        t.rows.push(vec!["raw".into(), "30.5".into(), "sbe".into()]);
        t.rows
            .push(vec!["rkyv-unchecked ‡".into(), "120.9".into(), "-".into()]);
        t
    }

    /// Text to the left, numbers to the right, each column as wide as its widest cell
    /// (counted in characters, a mark too), no spaces at the ends of lines.
    #[test]
    fn columns_align_by_their_widest_cell() {
        assert_eq!(
            table().text(),
            "sizes:\n\
             format            bytes/msg  runner-up\n\
             raw                    30.5        sbe\n\
             rkyv-unchecked ‡      120.9          -\n"
        );
    }

    /// A rule under the header; a cell longer than its column's width is cut and ends in `…`,
    /// one as long is kept whole.
    #[test]
    fn a_ruled_table_cuts_long_cells() {
        let mut t = table();
        (t.caption, t.left) = (String::new(), 3);
        assert_eq!(
            t.ruled(&[6]),
            "format  bytes/msg  runner-up\n\
             ------  ---------  ---------\n\
             raw     30.5       sbe\n\
             rkyv-…  120.9      -\n"
        );
    }
}
