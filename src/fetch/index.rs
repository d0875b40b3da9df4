//! The HIST index: which files IEX lists for a day, their published names, and which file of a
//! feed to take when the day lists several versions.

use serde::Deserialize;

use crate::model::Feed;

use super::error::FetchError;

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

/// The feed versions the IEX parser implements (`iex-feed.md`): DEEP 1.0, TOPS 1.6, DEEP+ 1.0.
pub const SPEC_VERSIONS: [(Feed, &str); 3] = [
    (Feed::Deep, "1.0"),
    (Feed::Tops, "1.6"),
    (Feed::DeepPlus, "1.0"),
];

/// The feed's name in the HIST index: `DEEP`, `TOPS`, and `DPLS` for the single-channel DEEP+
/// file (the multi-channel `DPLC` is another feed there, not taken).
pub fn hist_feed(feed: Feed) -> &'static str {
    match feed {
        Feed::Deep => "DEEP",
        Feed::Tops => "TOPS",
        Feed::DeepPlus => "DPLS",
    }
}

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

/// Whether `name` may be written into `--out` as it is: ASCII letters, digits, `.`, `_` and `-`,
/// not empty, no leading dot (so never `.`, `..`, a hidden file or one of our `.part` files). The
/// one rule for every name fetch writes and for every index field that goes into one, since the
/// index arrives over the network.
pub(super) fn safe_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// Larger than any capture IEX publishes (a DEEP day is a few GB gzip'd): a size above it is a
/// broken index, not a file to make room for.
const MAX_SIZE: u64 = 1_000_000_000_000;

/// One file of the HIST index.
#[derive(Debug, Clone, Deserialize)]
pub struct HistFile {
    pub link: String,
    /// When given, the day the entry is listed under (checked by [`HistIndex::files`]).
    #[serde(default)]
    pub date: String,
    pub feed: String,
    #[serde(default)]
    pub version: String,
    #[serde(default)]
    pub protocol: String,
    /// The index gives it as a string or a number; a whole number of bytes up to 1 TB.
    #[serde(default, deserialize_with = "size_in_bytes")]
    pub size: Option<u64>,
}

fn size_in_bytes<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    let value = serde_json::Value::deserialize(d)?;
    let bytes = match &value {
        serde_json::Value::Null => return Ok(None),
        serde_json::Value::Number(n) => n.as_u64(),
        serde_json::Value::String(s) => s.trim().parse().ok(),
        _ => None,
    };
    match bytes {
        Some(n) if n <= MAX_SIZE => Ok(Some(n)),
        Some(_) => Err(serde::de::Error::custom(format!(
            "size {value} is over 1 TB"
        ))),
        None => Err(serde::de::Error::custom(format!(
            "size {value} is not a whole number of bytes"
        ))),
    }
}

impl HistFile {
    /// The published name: the last path segment of `link` (query dropped, `%2F` decoded to
    /// `_`, as on `data_feeds_20190903_20190903_IEXTP1_DEEP1.0.pcap.gz`). When the link gives no
    /// safe name (`safe_name`), one is built from `date`, our own name for `feed`, and the
    /// entry's protocol and version where they are safe themselves (otherwise `IEXTP1` and no
    /// version).
    pub fn file_name(&self, date: &str, feed: Feed) -> String {
        let no_query = self.link.split(['?', '#']).next().unwrap_or("");
        let segment = no_query.rsplit('/').next().unwrap_or("");
        let name = percent_decode(segment).replace('/', "_");
        if safe_name(&name) {
            return name;
        }
        let field = |text: &str| Some(text.trim().to_string()).filter(|t| safe_name(t));
        format!(
            "data_feeds_{date}_{date}_{}_{}{}.pcap.gz",
            field(&self.protocol).unwrap_or_else(|| "IEXTP1".into()),
            hist_feed(feed),
            field(&self.version).unwrap_or_default()
        )
    }

    /// The entry as an error names it, escaped to stay on one line.
    pub(super) fn describe(&self) -> String {
        format!(
            "{} {} at {}",
            self.feed.escape_debug(),
            self.version.escape_debug(),
            self.link.escape_debug()
        )
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

    /// Dates with at least one file, oldest first (keys that are not `YYYYMMDD` left out).
    pub fn dates(&self) -> impl Iterator<Item = &str> {
        self.days
            .iter()
            .filter(|(k, v)| {
                parse_date(k).is_ok_and(|d| d == **k) && v.as_array().is_some_and(|a| !a.is_empty())
            })
            .map(|(k, _)| k.as_str())
    }

    /// The files listed for `date` (`YYYYMMDD`). An entry that cannot be read, or is dated
    /// another day, refuses the whole day: that listing cannot be trusted for sizes or names.
    pub fn files(&self, date: &str) -> Result<Vec<HistFile>, FetchError> {
        let bad = |detail: String| FetchError::BadIndex {
            url: self.url.clone(),
            detail,
        };
        let entries = match self.days.get(date) {
            None | Some(serde_json::Value::Null) => return Ok(Vec::new()),
            Some(serde_json::Value::Array(entries)) => entries,
            Some(_) => return Err(bad(format!("entry for {date}: not a list of files"))),
        };
        let read = |(i, entry): (usize, &serde_json::Value)| {
            let at = format!("entry {} for {date}", i + 1);
            let file = HistFile::deserialize(entry).map_err(|e| bad(format!("{at}: {e}")))?;
            if !file.date.is_empty() && parse_date(&file.date).ok().as_deref() != Some(date) {
                return Err(bad(format!("{at}: dated {:?}", file.date)));
            }
            Ok(file)
        };
        entries.iter().enumerate().map(read).collect()
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
            .filter(|f| f.feed.eq_ignore_ascii_case(hist_feed(feed)))
            // Reversed: on a tie `max_by_key` keeps the last, which is then the first listed.
            .rev()
            .max_by_key(|f| preference(feed, &f.version))
            .cloned()
            .ok_or_else(|| FetchError::NoFeed {
                date: date.to_string(),
                feed: hist_feed(feed).to_string(),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The name a DEEP 1.0 file of 2019-09-03 falls back to.
    const DEEP_NAME: &str = "data_feeds_20190903_20190903_IEXTP1_DEEP1.0.pcap.gz";

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
        assert_eq!(f.file_name("20190903", Feed::Deep), DEEP_NAME);
        f.link = "http://127.0.0.1:1/files/x.pcap.gz?a=b".into();
        assert_eq!(f.file_name("20190903", Feed::Deep), "x.pcap.gz");
        for link in [
            "http://127.0.0.1:1/files/",
            "http://127.0.0.1:1/..%2F..%2Fetc",
        ] {
            f.link = link.into();
            assert_eq!(f.file_name("20190903", Feed::Deep), DEEP_NAME, "{link}");
        }
    }

    #[test]
    fn safe_names_are_plain_ascii_without_a_leading_dot() {
        for good in ["x.pcap.gz", "IEXTP1", "1.0", "a-b_c", "x..y"] {
            assert!(safe_name(good), "{good}");
        }
        for bad in [
            "", ".", "..", ".x", "a/b", "../x", "/x", "a\\b", "a%2Fb", "a\0b", "1.0é", "a b",
            "a\nb",
        ] {
            assert!(!safe_name(bad), "{bad:?}");
        }
    }

    #[test]
    fn hostile_fields_never_reach_the_fallback_name() {
        let entry = |protocol: &str, version: &str| HistFile {
            link: "http://127.0.0.1:1/files/".into(),
            date: String::new(),
            feed: "deep".into(),
            version: version.into(),
            protocol: protocol.into(),
            size: None,
        };
        let name = |protocol, version| entry(protocol, version).file_name("20190903", Feed::Deep);
        // Beyond the cases of tests/it's `hostile_names_in_the_index_give_a_safe_name_inside_out`:
        assert_eq!(
            name("IEXTP1", "/etc/passwd"),
            "data_feeds_20190903_20190903_IEXTP1_DEEP.pcap.gz"
        );
        assert_eq!(name("", "1.0"), DEEP_NAME);
        // Safe fields are kept (trimmed); the feed is ours, not the index's spelling.
        assert_eq!(
            name(" IEXTP2 ", " 1.6 "),
            "data_feeds_20190903_20190903_IEXTP2_DEEP1.6.pcap.gz"
        );
        // A hidden file's name is no name either.
        let mut f = entry("IEXTP1", "1.0");
        f.link = "http://h/.x.gz".into();
        assert_eq!(f.file_name("20190903", Feed::Deep), DEEP_NAME);
    }

    #[test]
    fn sizes_that_are_not_whole_bytes_up_to_a_terabyte_refuse_the_day() {
        let index = |size: &str| {
            let json = format!(
                r#"{{"20190903": [{{"link": "a", "feed": "TOPS", "size": 1}},
                                  {{"link": "b", "feed": "DEEP", "size": {size}}}]}}"#
            );
            HistIndex::parse("u", json.as_bytes()).unwrap()
        };
        for (size, detail) in [
            (r#""abc""#, r#"size "abc" is not a whole number of bytes"#),
            (r#""-5""#, r#"size "-5" is not a whole number of bytes"#),
            ("-5", "size -5 is not a whole number of bytes"),
            ("1.5", "size 1.5 is not a whole number of bytes"),
            ("true", "size true is not a whole number of bytes"),
            ("1000000000001", "size 1000000000001 is over 1 TB"),
            (r#""1000000000001""#, r#"size "1000000000001" is over 1 TB"#),
        ] {
            let err = index(size).find("20190903", Feed::Deep).unwrap_err();
            assert_eq!(
                err.to_string(),
                format!("u: not a HIST index: entry 2 for 20190903: {detail}"),
                "{size}"
            );
        }
        let size = |s| index(s).find("20190903", Feed::Deep).unwrap().size;
        assert_eq!(size("1000000000000"), Some(1_000_000_000_000));
        assert_eq!(size(r#"" 42 ""#), Some(42));
        assert_eq!(size("null"), None);
    }

    #[test]
    fn an_entry_dated_another_day_refuses_the_day_and_odd_keys_are_not_dates() {
        let json = br#"{
            "20190903": [{"link": "a", "feed": "DEEP", "date": "20190904", "size": 1}],
            "20190904": [{"link": "b", "feed": "DEEP", "date": "2019-09-04", "size": 1}],
            "../x": [{"link": "c", "feed": "DEEP", "size": 1}],
            "2019\n0905": [{"link": "d", "feed": "DEEP", "size": 1}]
        }"#;
        let index = HistIndex::parse("u", json).unwrap();
        assert_eq!(
            index.find("20190903", Feed::Deep).unwrap_err().to_string(),
            r#"u: not a HIST index: entry 1 for 20190903: dated "20190904""#
        );
        assert_eq!(index.find("20190904", Feed::Deep).unwrap().link, "b");
        assert_eq!(index.dates().collect::<Vec<_>>(), ["20190903", "20190904"]);
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
    fn several_versions_of_a_feed_prefer_the_implemented_one_then_the_newest_dpls_for_deep_plus() {
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
                         {"link": "d1", "feed": "deep", "version": "1.0", "size": 5}],
            "20241105": [{"link": "dplc", "feed": "DPLC", "version": "1.0", "size": 9},
                         {"link": "dpls11", "feed": "DPLS", "version": "1.1", "size": 2},
                         {"link": "dpls10", "feed": "DPLS", "version": "1.0", "size": 1},
                         {"link": "deep", "feed": "DEEP", "version": "1.0", "size": 3}],
            "20241106": [{"link": "dpls12", "feed": "DPLS", "version": "1.2", "size": 2},
                         {"link": "dpls11", "feed": "DPLS", "version": "1.1", "size": 1}],
            "20241107": [{"link": "dplc", "feed": "DPLC", "version": "1.0", "size": 9}]
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
        // DEEP+ is the DPLS file, version 1.0 first, never DPLC.
        assert_eq!(link("20241105", Feed::DeepPlus), "dpls10");
        assert_eq!(link("20241105", Feed::Deep), "deep");
        assert_eq!(link("20241106", Feed::DeepPlus), "dpls12");
        let err = index
            .find("20241107", Feed::DeepPlus)
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "IEX HIST has no DPLS file for 20241107 (that day has: DPLC 1.0)"
        );
    }
}
