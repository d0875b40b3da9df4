//! A share of the input: the capture stream cut into chunks of a fixed number of bytes, and the
//! chunks one process measures.
//!
//! Why chunks of bytes: a process that measures part of a day must find its part without
//! reading the rest (a plain capture seeks to it, see `stream::regions`), and the parts must add
//! up to exactly what one process measures. A record belongs to the chunk its first byte lies in,
//! a window never spans two chunks, and everything a run decides per window (which timing, the
//! order the formats take turns in, which windows are compressed) depends only on the chunk and
//! the window's place in it (`measure::window::WindowId`). So a run in one process and the same
//! run split into any number of shares measure the same windows the same way, and their counts,
//! checks, sizes and histogram counts add up exactly.
//!
//! Which chunks a share owns: share `i` of `n` takes every chunk `c` with `c % n == i`, stripes
//! rather than one contiguous block, for two reasons. A gzip'd capture cannot be seeked, so its
//! size is unknown until it has been inflated whole; stripes need no size to be dealt out. And a
//! day is not uniform (the opening and closing auctions are dense): stripes give every share the
//! same mix of the day, so shares finish together.

use std::fmt;

/// Bytes of capture stream per chunk unless `--chunk` says otherwise: about five default
/// windows of DEEP (a 4096-packet window is 0.7 MiB), a few thousand chunks in a day.
pub const DEFAULT_CHUNK: u64 = 4 << 20;

/// The smallest `--chunk`: below a few records per chunk a window would hold a packet or two.
pub const MIN_CHUNK: u64 = 64 << 10;

/// Share `index` (0-based) of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Share {
    pub index: u32,
    pub count: u32,
}

impl Share {
    /// The whole input.
    pub const WHOLE: Share = Share { index: 0, count: 1 };

    /// Whether this share measures chunk `chunk`.
    pub fn owns(self, chunk: u64) -> bool {
        chunk % u64::from(self.count.max(1)) == u64::from(self.index)
    }

    pub fn is_whole(self) -> bool {
        self.count <= 1
    }
}

/// As on the command line: `I/N`, 1-based.
impl fmt::Display for Share {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index + 1, self.count)
    }
}

impl std::str::FromStr for Share {
    type Err = String;

    /// `I/N` with 1 <= I <= N.
    fn from_str(s: &str) -> Result<Share, String> {
        let bad = || format!("--shard {s:?}: expected I/N with 1 <= I <= N, e.g. 2/4");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (i, n): (u32, u32) = (
            i.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if i == 0 || n == 0 || i > n {
            return Err(bad());
        }
        Ok(Share {
            index: i - 1,
            count: n,
        })
    }
}

/// How the stream is cut, and which part of it this process measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Chunking {
    /// Bytes of capture stream per chunk (decompressed bytes, for a gzip'd file).
    pub bytes: u64,
    pub share: Share,
}

impl Default for Chunking {
    fn default() -> Self {
        Chunking {
            bytes: DEFAULT_CHUNK,
            share: Share::WHOLE,
        }
    }
}

impl Chunking {
    /// The chunk a record starting at stream offset `offset` belongs to.
    pub fn chunk_of(&self, offset: u64) -> u64 {
        offset / self.bytes.max(1)
    }
}

/// `--chunk`: bytes, with an optional binary suffix (`K`, `M`, `G`, with or without `iB`).
pub fn parse_chunk(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, suffix) = t.split_at(split);
    let bad = || format!("--chunk {s:?}: expected bytes, e.g. 4M or 4194304");
    let shift = match suffix.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 0,
        "K" | "KB" | "KIB" => 10,
        "M" | "MB" | "MIB" => 20,
        "G" | "GB" | "GIB" => 30,
        _ => return Err(bad()),
    };
    let n: u64 = digits.parse().map_err(|_| bad())?;
    let bytes = n
        .checked_shl(shift)
        .filter(|b| b >> shift == n)
        .ok_or_else(|| format!("--chunk {s:?} is too large"))?;
    if bytes < MIN_CHUNK {
        return Err(format!(
            "--chunk {s:?} is below the smallest chunk, {} KiB: a window would hold a packet or two",
            MIN_CHUNK >> 10
        ));
    }
    Ok(bytes)
}

/// One owned chunk as a process read it: the stream offsets of its first record and of the byte
/// after its last, and its records. The merge chains these: every chunk's `end` must be the next
/// chunk's `first`, so the parts provably read every record once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ChunkSpan {
    pub chunk: u64,
    pub first: u64,
    pub end: u64,
    pub records: u64,
}

/// What part of the stream a process read: its chunks' spans, where the stream's first record
/// starts, and where the stream ended if this process read to its end.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Cover {
    /// Stream offset of the first record (after the file header), when this process read it.
    pub head: Option<u64>,
    /// Stream offset after the last whole record, when this process read to the end.
    pub end: Option<u64>,
    pub spans: Vec<ChunkSpan>,
}

impl Cover {
    /// Records `record` (starting at `offset`, ending at `end`) as read, in chunk `chunk`.
    pub(crate) fn record(&mut self, chunk: u64, offset: u64, end: u64) {
        match self.spans.last_mut() {
            Some(span) if span.chunk == chunk => {
                span.end = end;
                span.records += 1;
            }
            _ => self.spans.push(ChunkSpan {
                chunk,
                first: offset,
                end,
                records: 1,
            }),
        }
    }

    /// Several processes' covers as one, checked: the spans chain from the first record to the
    /// end with no gap and no overlap. The error says what is missing or read twice.
    pub fn join(covers: &[Cover]) -> Result<Cover, String> {
        let head = agree(
            covers.iter().map(|c| c.head),
            "where the first record starts",
        )?;
        let end = agree(covers.iter().map(|c| c.end), "where the stream ends")?;
        let mut spans: Vec<ChunkSpan> = covers.iter().flat_map(|c| c.spans.clone()).collect();
        spans.sort_by_key(|s| (s.first, s.chunk));
        let (Some(head), Some(end)) = (head, end) else {
            return Err(match head {
                None => "no part read the start of the capture (its first chunk)".into(),
                Some(_) => "no part read to the end of the capture (its last chunk)".into(),
            });
        };
        let mut at = head;
        for s in &spans {
            if s.first < at {
                return Err(format!(
                    "chunk {} (records from byte {}) is read twice",
                    s.chunk, s.first
                ));
            }
            if s.first > at {
                return Err(format!(
                    "no part read the records from byte {at} to byte {}",
                    s.first
                ));
            }
            at = s.end;
        }
        if at != end {
            return Err(format!(
                "no part read the records from byte {at} to the end, byte {end}"
            ));
        }
        Ok(Cover {
            head: Some(head),
            end: Some(end),
            spans,
        })
    }
}

/// The one value the parts that know it agree on.
fn agree(values: impl Iterator<Item = Option<u64>>, what: &str) -> Result<Option<u64>, String> {
    let mut seen = None;
    for v in values.flatten() {
        match seen {
            Some(s) if s != v => {
                return Err(format!(
                    "the parts disagree on {what}: byte {s} and byte {v}"
                ))
            }
            _ => seen = Some(v),
        }
    }
    Ok(seen)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_parse_one_based_and_stripe_the_chunks() {
        let s: Share = "2/4".parse().unwrap();
        assert_eq!(s, Share { index: 1, count: 4 });
        assert_eq!(s.to_string(), "2/4");
        let owned: Vec<u64> = (0..10).filter(|&c| s.owns(c)).collect();
        assert_eq!(owned, [1, 5, 9]);
        for bad in ["0/4", "5/4", "1/0", "1", "a/b", "1/4/2", ""] {
            let e = bad.parse::<Share>().unwrap_err();
            assert!(e.starts_with("--shard "), "{bad}: {e}");
        }
        // Every chunk has exactly one owner among 1/n..n/n.
        for n in 1..6u32 {
            for c in 0..50 {
                let owners = (0..n)
                    .filter(|&i| Share { index: i, count: n }.owns(c))
                    .count();
                assert_eq!(owners, 1);
            }
        }
    }

    #[test]
    fn chunk_sizes_take_binary_suffixes_and_refuse_nonsense() {
        assert_eq!(parse_chunk("4M"), Ok(4 << 20));
        assert_eq!(parse_chunk("4MiB"), Ok(4 << 20));
        assert_eq!(parse_chunk("512k"), Ok(512 << 10));
        assert_eq!(parse_chunk("1G"), Ok(1 << 30));
        assert_eq!(parse_chunk("65536"), Ok(65536));
        assert!(parse_chunk("1K")
            .unwrap_err()
            .contains("smallest chunk, 64 KiB"));
        assert!(parse_chunk("4X").unwrap_err().contains("expected bytes"));
        assert!(parse_chunk("-4M").unwrap_err().contains("expected bytes"));
        assert!(parse_chunk("99999999999999G")
            .unwrap_err()
            .contains("too large"));
    }

    fn span(chunk: u64, first: u64, end: u64) -> ChunkSpan {
        ChunkSpan {
            chunk,
            first,
            end,
            records: 1,
        }
    }

    #[test]
    fn covers_join_only_when_they_chain_from_head_to_end() {
        let a = Cover {
            head: Some(24),
            end: None,
            spans: vec![span(0, 24, 110), span(2, 205, 300)],
        };
        let b = Cover {
            head: Some(24),
            end: Some(340),
            spans: vec![span(1, 110, 205), span(3, 300, 340)],
        };
        let joined = Cover::join(&[a.clone(), b.clone()]).unwrap();
        assert_eq!(joined.spans.len(), 4);
        assert_eq!((joined.head, joined.end), (Some(24), Some(340)));

        // A share missing: its records are named.
        let e = Cover::join(std::slice::from_ref(&a)).unwrap_err();
        assert_eq!(e, "no part read to the end of the capture (its last chunk)");
        let c = Cover {
            end: Some(340),
            ..a.clone()
        };
        let e = Cover::join(&[c]).unwrap_err();
        assert!(
            e.starts_with("no part read the records from byte 110 to byte 205"),
            "{e}"
        );
        // The same share twice.
        let e = Cover::join(&[a.clone(), b.clone(), b.clone()]).unwrap_err();
        assert!(e.contains("is read twice"), "{e}");
        // Parts of two different files.
        let other = Cover {
            head: Some(32),
            ..b
        };
        let e = Cover::join(&[a, other]).unwrap_err();
        assert!(
            e.contains("disagree on where the first record starts"),
            "{e}"
        );
    }

    #[test]
    fn records_fill_one_span_per_chunk() {
        let mut c = Cover::default();
        c.record(0, 24, 100);
        c.record(0, 100, 180);
        c.record(2, 300, 390);
        let two = ChunkSpan {
            records: 2,
            ..span(0, 24, 180)
        };
        assert_eq!(c.spans, vec![two, span(2, 300, 390)]);
    }
}
