//! The HIST index: which files IEX lists for a day, their published names, and which file of a
//! feed to take when the day lists several versions.

use serde::Deserialize;

use crate::model::Feed;

use super::FetchError;

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

    #[test]
    fn deep_plus_is_the_dpls_file_version_1_0_first_never_dplc() {
        let json = br#"{
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
