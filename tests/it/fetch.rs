//! `shootout fetch` against a tiny HTTP/1.1 server on 127.0.0.1 (no test reaches the internet):
//! a whole download, a resumed one, a server that ignores `Range`, a size that disagrees with the
//! index, a missing date, a missing feed, an HTTP error and a refused connection; and a hostile
//! index, whose names never leave `--out` and whose sizes and dates are checked before downloading.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use md_shootout::fetch::{self, FetchError, FetchOptions, Fetched};
use md_shootout::model::Feed;

const DATE: &str = "20190903";
/// As IEX publishes it: the object path percent-encoded in the last segment, a query after it.
const LINK_PATH: &str = "/download/o/data%2Ffeeds%2F20190903%2F20190903_IEXTP1_DEEP1.0.pcap.gz";
const NAME: &str = "data_feeds_20190903_20190903_IEXTP1_DEEP1.0.pcap.gz";

/// One request the server saw.
#[derive(Debug, Clone)]
struct Seen {
    path: String,
    range: Option<String>,
}

struct Server {
    url: String,
    thread: JoinHandle<Vec<Seen>>,
}

impl Server {
    /// Serves `routes(base_url)` (path without query → body) for at most `requests` requests
    /// or 20 s. With `honour_range`, `Range: bytes=N-` gets a 206 with the rest of the body.
    fn start(
        routes: impl FnOnce(&str) -> HashMap<String, Vec<u8>>,
        requests: usize,
        honour_range: bool,
    ) -> Server {
        Server::start_cut(routes, requests, honour_range, None)
    }

    /// As [`Server::start`], but the first answer other than the index announces its whole
    /// length and then hangs up after `cut` bytes, like a dropped connection.
    fn start_cut(
        routes: impl FnOnce(&str) -> HashMap<String, Vec<u8>>,
        requests: usize,
        honour_range: bool,
        mut cut: Option<usize>,
    ) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let routes = routes(&url);
        let thread = std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(20);
            let mut seen = Vec::new();
            while seen.len() < requests && Instant::now() < deadline {
                match listener.accept() {
                    Ok((stream, _)) => seen.push(answer(stream, &routes, honour_range, &mut cut)),
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        std::thread::sleep(Duration::from_millis(5))
                    }
                    Err(e) => panic!("accept: {e}"),
                }
            }
            seen
        });
        Server { url, thread }
    }

    fn seen(self) -> Vec<Seen> {
        self.thread.join().unwrap()
    }
}

fn answer(
    stream: TcpStream,
    routes: &HashMap<String, Vec<u8>>,
    honour_range: bool,
    cut: &mut Option<usize>,
) -> Seen {
    stream.set_nonblocking(false).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request_line = String::new();
    reader.read_line(&mut request_line).unwrap();
    let target = request_line.split_whitespace().nth(1).unwrap_or("/");
    let path = target.split('?').next().unwrap().to_string();
    let mut range = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap() == 0 || line == "\r\n" {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("range") {
                range = Some(value.trim().to_string());
            }
        }
    }
    let mut out = stream;
    let (status, headers, body): (&str, String, &[u8]) = match routes.get(&path) {
        None => ("404 Not Found", String::new(), b"not found"),
        Some(body) => {
            let start = range
                .as_deref()
                .filter(|_| honour_range)
                .and_then(|r| r.strip_prefix("bytes="))
                .and_then(|r| r.strip_suffix('-'))
                .and_then(|n| n.parse::<usize>().ok());
            match start {
                Some(start) if start >= body.len() => (
                    "416 Range Not Satisfiable",
                    format!("Content-Range: bytes */{}\r\n", body.len()),
                    b"",
                ),
                Some(start) => (
                    "206 Partial Content",
                    format!(
                        "Content-Range: bytes {start}-{}/{}\r\n",
                        body.len() - 1,
                        body.len()
                    ),
                    &body[start..],
                ),
                None => ("200 OK", String::new(), &body[..]),
            }
        }
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n{headers}\r\n",
        body.len()
    );
    // The client may hang up early (e.g. on an error status); that is not the test's concern.
    let _ = out.write_all(head.as_bytes());
    let body = match cut.take_if(|_| path != "/hist") {
        Some(n) => &body[..n.min(body.len())],
        None => body,
    };
    let _ = out.write_all(body);
    let _ = out.flush();
    Seen { path, range }
}

fn capture() -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample-deep.pcapng.gz")).unwrap()
}

/// An index with DEEP and TOPS on DATE (TOPS's size as a number, DEEP's as a string, as IEX
/// mixes them) and DEEP alone on two neighbouring days.
fn index_json(base: &str, deep_size: u64) -> Vec<u8> {
    let entry = |date: &str, feed: &str, link: &str, size: serde_json::Value| {
        serde_json::json!({
            "link": format!("{base}{link}?generation=1&alt=media"),
            "date": date, "feed": feed, "version": "1.0", "protocol": "IEXTP1", "size": size,
        })
    };
    serde_json::to_vec(&serde_json::json!({
        "20190829": [entry("20190829", "DEEP", "/other1", "10".into())],
        "20190830": [entry("20190830", "DEEP", "/other2", "10".into())],
        DATE: [
            entry(DATE, "TOPS", "/tops", 5.into()),
            entry(DATE, "DEEP", LINK_PATH, deep_size.to_string().into()),
        ],
        "20190904": [entry("20190904", "DEEP", "/other3", 10.into())],
        "20190905": [entry("20190905", "DEEP", "/other4", 10.into())],
        "20190906": [entry("20190906", "DEEP", "/other5", 10.into())],
    }))
    .unwrap()
}

/// A server for the index (announcing `deep_size`) and the capture.
fn serve_day(data: &[u8], deep_size: u64, requests: usize, honour_range: bool) -> Server {
    Server::start(
        |base| {
            HashMap::from([
                ("/hist".to_string(), index_json(base, deep_size)),
                (LINK_PATH.to_string(), data.to_vec()),
            ])
        },
        requests,
        honour_range,
    )
}

fn options(server_url: &str, out: &Path) -> FetchOptions {
    FetchOptions {
        date: DATE.to_string(),
        feed: Feed::Deep,
        out_dir: out.to_path_buf(),
        hist_url: format!("{server_url}/hist"),
    }
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn downloads_the_file_under_its_published_name() {
    let data = capture();
    let server = serve_day(&data, data.len() as u64, 2, true);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("data");
    let mut last = (0, None);
    let fetched = fetch::fetch(&options(&server.url, &out), |pos, total| {
        last = (pos, total)
    })
    .unwrap();
    assert_eq!(
        fetched,
        Fetched {
            path: out.join(NAME),
            bytes: data.len() as u64,
            resumed_from: 0,
            already_present: false,
        }
    );
    assert_eq!(last, (data.len() as u64, Some(data.len() as u64)));
    assert!(std::fs::read(out.join(NAME)).unwrap() == data, "identical");
    assert_eq!(files_in(&out), [NAME], "no .part left behind");
    let seen = server.seen();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0].path, "/hist");
    assert_eq!(seen[1].path, LINK_PATH);
    assert_eq!(seen[1].range, None);
}

#[test]
fn the_command_line_accepts_dashed_dates_and_prints_the_path() {
    let data = capture();
    let server = serve_day(&data, data.len() as u64, 2, true);
    let dir = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_shootout"))
        .args(["fetch", "2019-09-03", "--feed", "deep", "--out"])
        .arg(dir.path())
        .args(["--hist-url", &format!("{}/hist", server.url)])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let path = dir.path().join(NAME);
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        format!("{} ({} bytes)", path.display(), data.len())
    );
    assert!(std::fs::read(&path).unwrap() == data);
    assert_eq!(server.seen().len(), 2);
}

#[test]
fn resumes_a_partial_download_with_a_range_request() {
    let data = capture();
    let half = data.len() / 2;
    let server = serve_day(&data, data.len() as u64, 2, true);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(format!(".{NAME}.part")), &data[..half]).unwrap();
    let fetched = fetch::fetch(&options(&server.url, dir.path()), |_, _| {}).unwrap();
    assert_eq!(fetched.resumed_from, half as u64);
    assert_eq!(fetched.bytes, data.len() as u64);
    assert!(
        std::fs::read(dir.path().join(NAME)).unwrap() == data,
        "identical"
    );
    assert_eq!(files_in(dir.path()), [NAME]);
    let seen = server.seen();
    assert_eq!(seen[1].path, LINK_PATH);
    assert_eq!(
        seen[1].range.as_deref(),
        Some(format!("bytes={half}-").as_str())
    );
}

#[test]
fn restarts_from_zero_when_the_server_ignores_range() {
    let data = capture();
    let half = data.len() / 2;
    let server = serve_day(&data, data.len() as u64, 2, false);
    let dir = tempfile::tempdir().unwrap();
    // A part whose bytes are wrong: had they been kept, the file would differ.
    std::fs::write(dir.path().join(format!(".{NAME}.part")), vec![0xAA; half]).unwrap();
    let fetched = fetch::fetch(&options(&server.url, dir.path()), |_, _| {}).unwrap();
    assert_eq!(fetched.resumed_from, 0);
    assert!(
        std::fs::read(dir.path().join(NAME)).unwrap() == data,
        "identical"
    );
    assert_eq!(files_in(dir.path()), [NAME]);
    let seen = server.seen();
    assert_eq!(
        seen[1].range.as_deref(),
        Some(format!("bytes={half}-").as_str())
    );
}

#[test]
fn a_size_that_disagrees_with_the_index_leaves_no_file() {
    let data = capture();
    let claimed = data.len() as u64 + 1000;
    let server = serve_day(&data, claimed, 2, true);
    let dir = tempfile::tempdir().unwrap();
    let err = fetch::fetch(&options(&server.url, dir.path()), |_, _| {}).unwrap_err();
    assert!(
        matches!(err, FetchError::SizeMismatch { expected, got, .. }
            if expected == claimed && got == data.len() as u64),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(message.contains(NAME), "{message}");
    assert!(
        message.contains(&format!(
            "downloaded {} bytes but the index says {claimed}",
            data.len()
        )),
        "{message}"
    );
    assert!(
        files_in(dir.path()).is_empty(),
        "{:?}",
        files_in(dir.path())
    );
    server.seen();
}

#[test]
fn a_date_without_files_is_named_with_its_neighbours() {
    let data = capture();
    let server = serve_day(&data, data.len() as u64, 1, true);
    let dir = tempfile::tempdir().unwrap();
    let mut opts = options(&server.url, dir.path());
    opts.date = "20190901".into();
    let err = fetch::fetch(&opts, |_, _| {}).unwrap_err();
    assert_eq!(
        err.to_string(),
        "IEX HIST has no file for 20190901 \
         (nearest dates with files: 20190829, 20190830, 20190903, 20190904)"
    );
    assert!(files_in(dir.path()).is_empty());
    server.seen();
}

#[test]
fn the_command_line_reports_a_missing_date_in_one_line() {
    let data = capture();
    let server = serve_day(&data, data.len() as u64, 1, true);
    let dir = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_shootout"))
        .args(["fetch", "2016-01-04", "--out"])
        .arg(dir.path())
        .args(["--hist-url", &format!("{}/hist", server.url)])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        stderr,
        "error: IEX HIST has no file for 20160104 (nearest dates with files: 20190829, 20190830)\n"
    );
    server.seen();
}

#[test]
fn a_feed_missing_that_day_lists_what_is_there() {
    let index = br#"{"20190903": [{"link": "http://127.0.0.1:1/x", "feed": "DEEP", "version": "1.0", "size": 3}]}"#;
    let server = Server::start(
        |_| HashMap::from([("/hist".to_string(), index.to_vec())]),
        1,
        true,
    );
    let dir = tempfile::tempdir().unwrap();
    let mut opts = options(&server.url, dir.path());
    opts.feed = Feed::Tops;
    let err = fetch::fetch(&opts, |_, _| {}).unwrap_err();
    assert_eq!(
        err.to_string(),
        "IEX HIST has no TOPS file for 20190903 (that day has: DEEP 1.0)"
    );
    server.seen();
}

#[test]
fn an_http_error_names_the_url_and_status() {
    let server = Server::start(|_| HashMap::new(), 1, true);
    let dir = tempfile::tempdir().unwrap();
    let opts = options(&server.url, dir.path());
    let err = fetch::fetch(&opts, |_, _| {}).unwrap_err();
    assert_eq!(err.to_string(), format!("{}: HTTP 404", opts.hist_url));
    server.seen();
}

#[test]
fn a_refused_connection_names_the_url() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hist", listener.local_addr().unwrap());
    drop(listener);
    let dir = tempfile::tempdir().unwrap();
    let opts = FetchOptions {
        hist_url: url.clone(),
        ..options("unused", dir.path())
    };
    let err = fetch::fetch(&opts, |_, _| {}).unwrap_err();
    assert!(matches!(err, FetchError::Unreachable { .. }), "{err:?}");
    let message = err.to_string();
    assert!(
        message.starts_with(&format!("cannot reach {url}: ")),
        "{message}"
    );
    assert!(message.to_lowercase().contains("refused"), "{message}");
}

#[test]
fn a_complete_part_or_file_needs_no_download() {
    let data = capture();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(format!(".{NAME}.part")), &data).unwrap();
    // Only the index is served: a request for the capture would not be answered.
    let server = serve_day(&data, data.len() as u64, 1, true);
    let fetched = fetch::fetch(&options(&server.url, dir.path()), |_, _| {}).unwrap();
    assert_eq!(fetched.resumed_from, data.len() as u64);
    assert!(!fetched.already_present);
    assert!(std::fs::read(dir.path().join(NAME)).unwrap() == data);
    assert_eq!(files_in(dir.path()), [NAME]);
    assert_eq!(server.seen().len(), 1);

    let server = serve_day(&data, data.len() as u64, 1, true);
    let fetched = fetch::fetch(&options(&server.url, dir.path()), |_, _| {}).unwrap();
    assert!(fetched.already_present);
    assert_eq!(fetched.bytes, data.len() as u64);
    assert_eq!(files_in(dir.path()), [NAME]);
    let seen = server.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].path, "/hist");
}

#[test]
fn a_dropped_connection_keeps_the_part_and_the_next_fetch_resumes_it() {
    let data = capture();
    let cut = data.len() / 3;
    let dir = tempfile::tempdir().unwrap();
    let routes = |base: &str| {
        HashMap::from([
            ("/hist".to_string(), index_json(base, data.len() as u64)),
            (LINK_PATH.to_string(), data.clone()),
        ])
    };
    let server = Server::start_cut(routes, 2, true, Some(cut));
    let opts = options(&server.url, dir.path());
    let err = fetch::fetch(&opts, |_, _| {}).unwrap_err();
    assert!(
        matches!(&err, FetchError::Interrupted { got, .. } if *got == cut as u64),
        "{err:?}"
    );
    let part = dir.path().join(format!(".{NAME}.part"));
    assert!(
        err.to_string().contains(&part.display().to_string()),
        "{err}"
    );
    assert!(
        std::fs::read(&part).unwrap() == data[..cut],
        "the part holds what arrived"
    );
    assert_eq!(files_in(dir.path()), [format!(".{NAME}.part")]);
    server.seen();

    let server = serve_day(&data, data.len() as u64, 2, true);
    let fetched = fetch::fetch(&options(&server.url, dir.path()), |_, _| {}).unwrap();
    assert_eq!(fetched.resumed_from, cut as u64);
    assert!(std::fs::read(dir.path().join(NAME)).unwrap() == data);
    assert_eq!(files_in(dir.path()), [NAME]);
    assert_eq!(
        server.seen()[1].range.as_deref(),
        Some(format!("bytes={cut}-").as_str())
    );
}

/// Every path under `root`, relative to it, sorted.
fn tree(root: &Path) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path.clone());
            }
            paths.push(path.strip_prefix(root).unwrap().to_path_buf());
        }
    }
    paths.sort();
    paths
}

/// An index whose only file on DATE is a DEEP `entry`, its `link` a path on the server.
fn hostile_index(base: &str, mut entry: serde_json::Value) -> Vec<u8> {
    entry["link"] = format!("{base}{}", entry["link"].as_str().unwrap()).into();
    serde_json::to_vec(&serde_json::json!({ DATE: [entry] })).unwrap()
}

#[test]
fn hostile_names_in_the_index_give_a_safe_name_inside_out() {
    let data = capture();
    let size = data.len();
    const WITH_VERSION: &str = "data_feeds_20190903_20190903_IEXTP1_DEEP1.0.pcap.gz";
    const NO_VERSION: &str = "data_feeds_20190903_20190903_IEXTP1_DEEP.pcap.gz";
    // (link path, protocol, version, the name expected, folders made in --out beforehand)
    let cases: [(&str, &str, &str, &str, &[&str]); 14] = [
        // The issue's index. With these folders there, a name joined as it came would have
        // written ROOT/a/escaped.pcap.gz(.part).
        (
            "/files/",
            "IEXTP1",
            "1.0/../../escaped",
            NO_VERSION,
            &[
                "data_feeds_20190903_20190903_IEXTP1_DEEP1.0",
                ".data_feeds_20190903_20190903_IEXTP1_DEEP1.0",
            ],
        ),
        (
            "/files/",
            "IEXTP1",
            "1.0%2F..%2F..%2Fescaped",
            NO_VERSION,
            &[],
        ),
        ("/files/", "IEXTP1", "..", NO_VERSION, &[]),
        ("/files/", "IEXTP1", ".1.0", NO_VERSION, &[]),
        ("/files/", "IEXTP1", "1.0\0", NO_VERSION, &[]),
        ("/files/", "IEXTP1", "1.0é", NO_VERSION, &[]),
        ("/files/", "../../escaped", "1.0", WITH_VERSION, &[]),
        ("/files/", "IEX%2FTP1", "1.0", WITH_VERSION, &[]),
        ("/files/", ".IEXTP1", "1.0", WITH_VERSION, &[]),
        ("/files/", "IEX\0", "1.0", WITH_VERSION, &[]),
        ("/files/", "IEXTPé", "1.0", WITH_VERSION, &[]),
        ("/files/..", "IEXTP1", "1.0", WITH_VERSION, &[]),
        ("/files/%2E%2E", "IEXTP1", "1.0", WITH_VERSION, &[]),
        (
            "/files/%2E%2E%2F%2E%2E%2Fescaped",
            "IEXTP1",
            "1.0",
            WITH_VERSION,
            &[],
        ),
    ];
    for (link, protocol, version, expected, premade) in cases {
        let entry = serde_json::json!({
            "link": link, "date": DATE, "feed": "DEEP", "protocol": protocol,
            "version": version, "size": size,
        });
        let server = Server::start(
            |base| {
                HashMap::from([
                    ("/hist".to_string(), hostile_index(base, entry.clone())),
                    (link.to_string(), data.clone()),
                ])
            },
            2,
            true,
        );
        let root = tempfile::tempdir().unwrap();
        let out = root.path().join("a/out");
        for dir in premade {
            std::fs::create_dir_all(out.join(dir)).unwrap();
        }
        let case = format!("{link} {protocol:?} {version:?}");
        let fetched = fetch::fetch(&options(&server.url, &out), |_, _| {})
            .unwrap_or_else(|e| panic!("{case}: {e}"));
        assert_eq!(fetched.path, out.join(expected), "{case}");
        assert!(std::fs::read(&fetched.path).unwrap() == data, "{case}");
        let mut only: Vec<PathBuf> = ["a".into(), "a/out".into(), format!("a/out/{expected}")]
            .into_iter()
            .chain(premade.iter().map(|d| format!("a/out/{d}")))
            .map(PathBuf::from)
            .collect();
        only.sort();
        assert_eq!(
            tree(root.path()),
            only,
            "{case}: nothing else, nothing outside --out"
        );
        assert_eq!(server.seen()[1].path, link, "{case}");
    }
}

#[test]
fn bad_sizes_and_dates_in_the_index_are_refused_before_downloading() {
    let cases = [
        (
            serde_json::json!({"size": "abc"}),
            r#"size "abc" is not a whole number of bytes"#,
        ),
        (
            serde_json::json!({"size": "-5"}),
            r#"size "-5" is not a whole number of bytes"#,
        ),
        (
            serde_json::json!({"size": -5}),
            "size -5 is not a whole number of bytes",
        ),
        (
            serde_json::json!({"size": 2_000_000_000_000_u64}),
            "size 2000000000000 is over 1 TB",
        ),
        (
            serde_json::json!({"size": 10, "date": "20190904"}),
            r#"dated "20190904""#,
        ),
    ];
    for (fields, detail) in cases {
        let mut entry = serde_json::json!({"link": "/files/x.pcap.gz", "feed": "DEEP"});
        entry
            .as_object_mut()
            .unwrap()
            .extend(fields.as_object().unwrap().clone());
        let server = Server::start(
            |base| {
                HashMap::from([
                    ("/hist".to_string(), hostile_index(base, entry.clone())),
                    ("/files/x.pcap.gz".to_string(), vec![0; 10]),
                ])
            },
            1,
            true,
        );
        let root = tempfile::tempdir().unwrap();
        let out = root.path().join("out");
        let opts = options(&server.url, &out);
        let err = fetch::fetch(&opts, |_, _| {}).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "{}: not a HIST index: entry 1 for {DATE}: {detail}",
                opts.hist_url
            )
        );
        assert!(
            tree(root.path()).is_empty(),
            "{detail}: {:?}",
            tree(root.path())
        );
        let seen = server.seen();
        assert_eq!(seen.len(), 1, "{detail}: only the index was asked for");
    }
}

#[test]
fn the_command_line_refuses_an_absurd_size_in_one_line() {
    let entry = serde_json::json!({"link": "/x", "feed": "DEEP", "size": "5000000000000"});
    let server = Server::start(
        |base| HashMap::from([("/hist".to_string(), hostile_index(base, entry))]),
        1,
        true,
    );
    let dir = tempfile::tempdir().unwrap();
    let hist = format!("{}/hist", server.url);
    let output = Command::new(env!("CARGO_BIN_EXE_shootout"))
        .args(["fetch", DATE, "--out"])
        .arg(dir.path().join("out"))
        .args(["--hist-url", &hist])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        format!(
            "error: {hist}: not a HIST index: entry 1 for {DATE}: size \"5000000000000\" is over 1 TB\n"
        )
    );
    assert!(tree(dir.path()).is_empty());
    server.seen();
}
