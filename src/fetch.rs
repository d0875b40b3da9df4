//! `shootout fetch`: download one day of IEX HIST data.
//!
//! IEX publishes an index of its historical captures as JSON (an object keyed by `YYYYMMDD`,
//! each value a list of files with `link`, `feed`, `version`, `protocol` and `size`). [`fetch`]
//! looks the day and feed up, streams the file into `DIR/.NAME.part`, resumes a partial
//! download with an HTTP `Range` request, checks the size against the index and only then
//! renames the part to `DIR/NAME`. A file of the wrong size never appears under the final name.
//!
//! Everything that talks to the network takes its URLs as parameters, so tests serve the index
//! and the capture from 127.0.0.1.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::model::Feed;

/// Where IEX publishes the HIST index.
pub const DEFAULT_HIST_URL: &str = "https://iextrading.com/api/1.0/hist";

/// What to fetch, and where from and to.
#[derive(Debug, Clone)]
pub struct FetchOptions {
    /// `YYYYMMDD` (see [`parse_date`]).
    pub date: String,
    pub feed: Feed,
    pub out_dir: PathBuf,
    pub hist_url: String,
}

/// What [`fetch`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    /// The complete file, under its published name.
    pub path: PathBuf,
    pub bytes: u64,
    /// Bytes already on disk in the `.part` file that the server let us keep (0: from scratch).
    pub resumed_from: u64,
    /// The file was already complete; nothing was downloaded.
    pub already_present: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("bad date {0:?}: expected YYYYMMDD or YYYY-MM-DD")]
    BadDate(String),
    #[error("cannot reach {url}: {detail}")]
    Unreachable { url: String, detail: String },
    #[error("{url}: HTTP {status}")]
    HttpStatus { url: String, status: u16 },
    #[error("{url}: not a HIST index: {detail}")]
    BadIndex { url: String, detail: String },
    #[error("IEX HIST has no file for {date}{}", nearest_note(.nearest))]
    NoDate { date: String, nearest: Vec<String> },
    #[error("IEX HIST has no {feed} file for {date} (that day has: {})", if .available.is_empty() { "nothing".to_string() } else { .available.join(", ") })]
    NoFeed {
        date: String,
        feed: String,
        available: Vec<String>,
    },
    #[error("{}: downloaded {got} bytes but the index says {expected}; the download was discarded and nothing was written under that name", .path.display())]
    SizeMismatch {
        path: PathBuf,
        expected: u64,
        got: u64,
    },
    #[error("{url}: download interrupted after {got} bytes ({detail}); run again to resume from {}", .part.display())]
    Interrupted {
        url: String,
        got: u64,
        part: PathBuf,
        detail: String,
    },
    #[error("{}: {cause}", .path.display())]
    Io { path: PathBuf, cause: io::Error },
}

fn nearest_note(nearest: &[String]) -> String {
    if nearest.is_empty() {
        String::new()
    } else {
        format!(" (nearest dates with files: {})", nearest.join(", "))
    }
}

/// Accepts `YYYYMMDD` or `YYYY-MM-DD` and returns `YYYYMMDD`.
pub fn parse_date(text: &str) -> Result<String, FetchError> {
    let digits: String = match text.len() {
        8 => text.to_string(),
        10 if text.as_bytes()[4] == b'-' && text.as_bytes()[7] == b'-' => {
            format!("{}{}{}", &text[..4], &text[5..7], &text[8..])
        }
        _ => return Err(FetchError::BadDate(text.to_string())),
    };
    let valid = digits.bytes().all(|b| b.is_ascii_digit())
        && chrono::NaiveDate::parse_from_str(&digits, "%Y%m%d").is_ok();
    if valid {
        Ok(digits)
    } else {
        Err(FetchError::BadDate(text.to_string()))
    }
}

/// The feed versions the IEX parser implements (`iex-feed.md`): DEEP 1.0 and TOPS 1.6.
pub const SPEC_VERSIONS: [(Feed, &str); 2] = [(Feed::Deep, "1.0"), (Feed::Tops, "1.6")];

/// How much a file of `feed` in `version` is wanted: the implemented version first, then by
/// version number (`1.10` above `1.6`; an unparsable or missing version lowest).
fn preference(feed: Feed, version: &str) -> (bool, Vec<u32>) {
    let version = version.trim();
    let implemented = SPEC_VERSIONS
        .iter()
        .any(|(f, v)| *f == feed && *v == version);
    let number = version
        .split('.')
        .map(str::parse::<u32>)
        .collect::<Result<Vec<_>, _>>()
        .unwrap_or_default();
    (implemented, number)
}

/// One file of the HIST index.
#[derive(Debug, Clone, Deserialize)]
pub struct HistFile {
    pub link: String,
    #[serde(default)]
    pub date: String,
    pub feed: String,
    #[serde(default)]
    pub version: String,
    #[serde(default)]
    pub protocol: String,
    /// The index gives it as a string or a number.
    #[serde(default, deserialize_with = "size_from_string_or_number")]
    pub size: Option<u64>,
}

fn size_from_string_or_number<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<u64>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Size {
        Number(u64),
        Text(String),
        Null(()),
    }
    match Size::deserialize(d)? {
        Size::Number(n) => Ok(Some(n)),
        Size::Text(s) => s
            .trim()
            .parse()
            .map(Some)
            .map_err(|_| serde::de::Error::custom(format!("size {s:?} is not a number"))),
        Size::Null(()) => Ok(None),
    }
}

impl HistFile {
    /// The published name: the last path segment of `link` (query dropped, `%2F` decoded to
    /// `_`, as on `data_feeds_20190903_20190903_IEXTP1_DEEP1.0.pcap.gz`), or one built from the
    /// entry's fields when the link does not give a safe file name.
    pub fn file_name(&self, date: &str) -> String {
        let no_query = self.link.split(['?', '#']).next().unwrap_or("");
        let segment = no_query.rsplit('/').next().unwrap_or("");
        let name = percent_decode(segment).replace('/', "_");
        let safe = !name.is_empty()
            && !name.starts_with('.')
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
        if safe {
            name
        } else {
            let protocol = if self.protocol.is_empty() {
                "IEXTP1"
            } else {
                &self.protocol
            };
            format!(
                "data_feeds_{date}_{date}_{protocol}_{}{}.pcap.gz",
                self.feed.to_ascii_uppercase(),
                self.version
            )
        }
    }
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let hex = |b: u8| (b as char).to_digit(16);
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(hi), Some(lo)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((hi * 16 + lo) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The HIST index: date → files, each date parsed only when asked for.
pub struct HistIndex {
    days: std::collections::BTreeMap<String, serde_json::Value>,
    url: String,
}

impl HistIndex {
    pub fn parse(url: &str, json: &[u8]) -> Result<HistIndex, FetchError> {
        let bad = |detail: String| FetchError::BadIndex {
            url: url.to_string(),
            detail,
        };
        let days = serde_json::from_slice(json)
            .map_err(|e| bad(format!("expected a JSON object keyed by YYYYMMDD ({e})")))?;
        Ok(HistIndex {
            days,
            url: url.to_string(),
        })
    }

    /// Dates with at least one file, oldest first.
    pub fn dates(&self) -> impl Iterator<Item = &str> {
        self.days
            .iter()
            .filter(|(_, v)| v.as_array().is_some_and(|a| !a.is_empty()))
            .map(|(k, _)| k.as_str())
    }

    /// The files listed for `date` (`YYYYMMDD`).
    pub fn files(&self, date: &str) -> Result<Vec<HistFile>, FetchError> {
        let Some(value) = self.days.get(date) else {
            return Ok(Vec::new());
        };
        if value.is_null() {
            return Ok(Vec::new());
        }
        Vec::<HistFile>::deserialize(value).map_err(|e| FetchError::BadIndex {
            url: self.url.clone(),
            detail: format!("entry for {date}: {e}"),
        })
    }

    /// The file for `date` and `feed`, or an error naming what is there instead. When the day
    /// lists the feed in several versions (TOPS 1.5 and 1.6 overlap for a while), the version
    /// the parser implements wins ([`SPEC_VERSIONS`]), then the newest, then the first listed.
    pub fn find(&self, date: &str, feed: Feed) -> Result<HistFile, FetchError> {
        let files = self.files(date)?;
        if files.is_empty() {
            return Err(FetchError::NoDate {
                date: date.to_string(),
                nearest: self.nearest(date, 2),
            });
        }
        files
            .iter()
            .filter(|f| f.feed.eq_ignore_ascii_case(feed.name()))
            // Reversed: on a tie `max_by_key` keeps the last, which is then the first listed.
            .rev()
            .max_by_key(|f| preference(feed, &f.version))
            .cloned()
            .ok_or_else(|| FetchError::NoFeed {
                date: date.to_string(),
                feed: feed.name().to_ascii_uppercase(),
                available: files
                    .iter()
                    .map(|f| format!("{} {}", f.feed, f.version).trim().to_string())
                    .collect(),
            })
    }

    /// Up to `n` dates with files before `date` and `n` after, in order.
    pub fn nearest(&self, date: &str, n: usize) -> Vec<String> {
        let dates: Vec<&str> = self.dates().collect();
        let at = dates.partition_point(|d| *d < date);
        dates[at.saturating_sub(n)..(at + n).min(dates.len())]
            .iter()
            .map(|d| d.to_string())
            .collect()
    }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_connect(Some(Duration::from_secs(30)))
        .timeout_per_read(Some(Duration::from_secs(120)))
        .build()
        .into()
}

fn unreachable(url: &str, e: ureq::Error) -> FetchError {
    let detail = match e {
        ureq::Error::Io(e) => e.to_string(),
        other => other.to_string(),
    };
    FetchError::Unreachable {
        url: url.to_string(),
        detail,
    }
}

/// Downloads and parses the HIST index.
pub fn load_index(agent: &ureq::Agent, url: &str) -> Result<HistIndex, FetchError> {
    let mut response = agent.get(url).call().map_err(|e| unreachable(url, e))?;
    let status = response.status().as_u16();
    if status != 200 {
        return Err(FetchError::HttpStatus {
            url: url.to_string(),
            status,
        });
    }
    let mut json = Vec::new();
    response
        .body_mut()
        .as_reader()
        .read_to_end(&mut json)
        .map_err(|e| FetchError::Unreachable {
            url: url.to_string(),
            detail: format!("reading the index: {e}"),
        })?;
    HistIndex::parse(url, &json)
}

/// Finds the file for `opts.date` and `opts.feed` and downloads it into `opts.out_dir`.
/// `progress(bytes_on_disk, total)` is called as the download advances.
pub fn fetch(
    opts: &FetchOptions,
    mut progress: impl FnMut(u64, Option<u64>),
) -> Result<Fetched, FetchError> {
    let agent = agent();
    let index = load_index(&agent, &opts.hist_url)?;
    let file = index.find(&opts.date, opts.feed)?;
    let name = file.file_name(&opts.date);
    let io_err = |path: &Path| {
        let path = path.to_path_buf();
        move |cause| FetchError::Io { path, cause }
    };
    std::fs::create_dir_all(&opts.out_dir).map_err(io_err(&opts.out_dir))?;
    let path = opts.out_dir.join(&name);
    let part = opts.out_dir.join(format!(".{name}.part"));

    if let (Some(size), Ok(meta)) = (file.size, std::fs::metadata(&path)) {
        if meta.is_file() && meta.len() == size {
            return Ok(Fetched {
                path,
                bytes: size,
                resumed_from: 0,
                already_present: true,
            });
        }
    }

    let mut have = match std::fs::metadata(&part) {
        Ok(meta) => meta.len(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => 0,
        Err(e) => return Err(io_err(&part)(e)),
    };
    if file.size.is_some_and(|size| have > size) {
        // Longer than the whole file: not a prefix of it.
        std::fs::remove_file(&part).map_err(io_err(&part))?;
        have = 0;
    }
    // A part as long as the whole file only lacks its rename (an interrupted finish).
    let resumed_from = if have > 0 && file.size == Some(have) {
        have
    } else {
        download(&agent, &file.link, &part, have, file.size, &mut progress)?
    };

    let got = std::fs::metadata(&part).map_err(io_err(&part))?.len();
    if let Some(expected) = file.size {
        if got != expected {
            let _ = std::fs::remove_file(&part);
            return Err(FetchError::SizeMismatch {
                path,
                expected,
                got,
            });
        }
    }
    std::fs::rename(&part, &path).map_err(io_err(&path))?;
    Ok(Fetched {
        path,
        bytes: got,
        resumed_from,
        already_present: false,
    })
}

/// Streams `url` into `part`, asking for the bytes after the `have` already there. Returns the
/// offset the server resumed from (0 when it sent the whole file). A response that ends early
/// leaves the part in place for the next attempt.
fn download(
    agent: &ureq::Agent,
    url: &str,
    part: &Path,
    mut have: u64,
    size: Option<u64>,
    progress: &mut impl FnMut(u64, Option<u64>),
) -> Result<u64, FetchError> {
    let io_err = |cause| FetchError::Io {
        path: part.to_path_buf(),
        cause,
    };
    let mut attempts = 0;
    let (response, resumed_from) = loop {
        attempts += 1;
        let mut request = agent.get(url);
        if have > 0 {
            request = request.header("Range", format!("bytes={have}-"));
        }
        let response = request.call().map_err(|e| unreachable(url, e))?;
        match response.status().as_u16() {
            206 if have > 0 && content_range_start(&response) == Some(have) => {
                break (response, have)
            }
            // The server ignored the range (or answered with another one): start again.
            200 | 206 => break (response, 0),
            // Our part is not a prefix the server recognises: discard it once.
            416 if have > 0 && attempts == 1 => {
                have = 0;
                continue;
            }
            status => {
                return Err(FetchError::HttpStatus {
                    url: url.to_string(),
                    status,
                })
            }
        }
    };
    if resumed_from == 0 && response.status().as_u16() == 206 {
        // A partial answer we did not ask for cannot be placed in the file.
        return Err(FetchError::HttpStatus {
            url: url.to_string(),
            status: 206,
        });
    }

    let mut out = if resumed_from > 0 {
        OpenOptions::new().append(true).open(part)
    } else {
        File::create(part)
    }
    .map_err(io_err)?;
    let mut got = resumed_from;
    progress(got, size);
    let mut body = response.into_body().into_reader();
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        let n = match body.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                let _ = out.sync_all();
                return Err(FetchError::Interrupted {
                    url: url.to_string(),
                    got,
                    part: part.to_path_buf(),
                    detail: e.to_string(),
                });
            }
        };
        out.write_all(&buf[..n]).map_err(io_err)?;
        got += n as u64;
        progress(got, size);
    }
    out.sync_all().map_err(io_err)?;
    Ok(resumed_from)
}

/// The first byte of a `Content-Range: bytes FIRST-LAST/TOTAL` header.
fn content_range_start(response: &ureq::http::Response<ureq::Body>) -> Option<u64> {
    let value = response.headers().get("content-range")?.to_str().ok()?;
    let range = value.trim().strip_prefix("bytes")?.trim_start();
    range.split('-').next()?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_in_both_spellings() {
        assert_eq!(parse_date("20190903").unwrap(), "20190903");
        assert_eq!(parse_date("2019-09-03").unwrap(), "20190903");
        for bad in [
            "2019093",
            "2019-9-03",
            "20191303",
            "2019/09/03",
            "abcdefgh",
            "",
        ] {
            assert!(parse_date(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn names_from_links() {
        let mut f = HistFile {
            link: "https://www.googleapis.com/download/storage/v1/b/iex/o/data%2Ffeeds%2F20190903%2F20190903_IEXTP1_DEEP1.0.pcap.gz?generation=1&alt=media".into(),
            date: "20190903".into(),
            feed: "DEEP".into(),
            version: "1.0".into(),
            protocol: "IEXTP1".into(),
            size: Some(1),
        };
        assert_eq!(
            f.file_name("20190903"),
            "data_feeds_20190903_20190903_IEXTP1_DEEP1.0.pcap.gz"
        );
        f.link = "http://127.0.0.1:1/files/x.pcap.gz?a=b".into();
        assert_eq!(f.file_name("20190903"), "x.pcap.gz");
        f.link = "http://127.0.0.1:1/files/".into();
        assert_eq!(
            f.file_name("20190903"),
            "data_feeds_20190903_20190903_IEXTP1_DEEP1.0.pcap.gz"
        );
        f.link = "http://127.0.0.1:1/..%2F..%2Fetc".into();
        assert_eq!(
            f.file_name("20190903"),
            "data_feeds_20190903_20190903_IEXTP1_DEEP1.0.pcap.gz"
        );
    }

    #[test]
    fn index_sizes_as_strings_or_numbers_and_nearest_dates() {
        let json = br#"{
            "20190830": [{"link": "a", "feed": "DEEP", "size": "10"}],
            "20190903": [{"link": "b", "feed": "TOPS", "size": 20},
                         {"link": "c", "feed": "DEEP", "version": "1.0", "size": "30"}],
            "20190904": []
        }"#;
        let index = HistIndex::parse("u", json).unwrap();
        assert_eq!(index.find("20190903", Feed::Deep).unwrap().size, Some(30));
        assert_eq!(index.find("20190903", Feed::Tops).unwrap().size, Some(20));
        assert_eq!(index.find("20190903", Feed::Tops).unwrap().link, "b");
        let err = index.find("20190830", Feed::Tops).unwrap_err().to_string();
        assert_eq!(
            err,
            "IEX HIST has no TOPS file for 20190830 (that day has: DEEP)"
        );
        let err = index.find("20190901", Feed::Deep).unwrap_err().to_string();
        assert_eq!(
            err,
            "IEX HIST has no file for 20190901 (nearest dates with files: 20190830, 20190903)"
        );
        let err = index.find("20190904", Feed::Deep).unwrap_err().to_string();
        assert!(err.contains("no file for 20190904"), "{err}");
    }

    #[test]
    fn several_versions_of_a_feed_prefer_the_implemented_one_then_the_newest() {
        let json = br#"{
            "20170830": [{"link": "t15", "feed": "TOPS", "version": "1.5", "size": 1},
                         {"link": "t16", "feed": "TOPS", "version": "1.6", "size": 2},
                         {"link": "t17", "feed": "TOPS", "version": "1.7", "size": 3},
                         {"link": "d", "feed": "DEEP", "version": "1.0", "size": 4},
                         {"link": "d-again", "feed": "DEEP", "version": "1.0", "size": 4}],
            "20170831": [{"link": "x", "feed": "TOPS", "size": 1},
                         {"link": "t19", "feed": "TOPS", "version": "1.9", "size": 2},
                         {"link": "t110", "feed": "TOPS", "version": "1.10", "size": 3},
                         {"link": "d2", "feed": "DEEP", "version": "2.0", "size": 4},
                         {"link": "d1", "feed": "deep", "version": "1.0", "size": 5}]
        }"#;
        let index = HistIndex::parse("u", json).unwrap();
        let link = |date, feed| index.find(date, feed).unwrap().link;
        // 1.6 is what the parser implements, though 1.7 is newer.
        assert_eq!(link("20170830", Feed::Tops), "t16");
        // A tie: the first listed.
        assert_eq!(link("20170830", Feed::Deep), "d");
        // No 1.6: the newest, compared as numbers (1.10 > 1.9), not as text.
        assert_eq!(link("20170831", Feed::Tops), "t110");
        // DEEP 1.0 over 2.0; the feed name's case does not matter.
        assert_eq!(link("20170831", Feed::Deep), "d1");
    }
}
