//! The network side: the HTTP agent, loading the index, and downloading one file into
//! `DIR/.NAME.part` (resumed with a `Range` request), checked against the index's size and only
//! then renamed to `DIR/NAME`. Nothing is created before `DIR/NAME` is known to be a safe name
//! directly inside `DIR`.

use std::ffi::OsStr;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::error::FetchError;
use super::index::{safe_name, HistFile, HistIndex};

/// What [`fetch`](super::fetch) did.
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

pub(super) fn agent() -> ureq::Agent {
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

fn http_status(url: &str, status: u16) -> FetchError {
    FetchError::HttpStatus {
        url: url.to_string(),
        status,
    }
}

/// Downloads and parses the HIST index.
pub fn load_index(agent: &ureq::Agent, url: &str) -> Result<HistIndex, FetchError> {
    let mut response = agent.get(url).call().map_err(|e| unreachable(url, e))?;
    let status = response.status().as_u16();
    if status != 200 {
        return Err(http_status(url, status));
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

/// Downloads `file` into `out_dir` as `name`: already there at the index's size, nothing is
/// downloaded; a `.NAME.part` left by an earlier attempt is resumed; the size is checked against
/// the index before the part is renamed. A `name` that is not a [safe name](safe_name) directly
/// inside `out_dir` is refused before anything (even `out_dir`) is created.
pub(super) fn fetch_file(
    agent: &ureq::Agent,
    file: &HistFile,
    name: &str,
    out_dir: &Path,
    mut progress: impl FnMut(u64, Option<u64>),
) -> Result<Fetched, FetchError> {
    let io_err = |path: &Path| {
        let path = path.to_path_buf();
        move |cause| FetchError::Io { path, cause }
    };
    let path = out_dir.join(name);
    let inside = path.parent() == Some(out_dir) && path.file_name() == Some(OsStr::new(name));
    if !(safe_name(name) && inside) {
        return Err(FetchError::UnsafeName {
            entry: file.describe(),
            name: name.to_string(),
            dir: out_dir.to_path_buf(),
        });
    }
    let part = out_dir.join(format!(".{name}.part"));
    std::fs::create_dir_all(out_dir).map_err(io_err(out_dir))?;

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
        download(agent, &file.link, &part, have, file.size, &mut progress)?
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
            status => return Err(http_status(url, status)),
        }
    };
    if resumed_from == 0 && response.status().as_u16() == 206 {
        // A partial answer we did not ask for cannot be placed in the file.
        return Err(http_status(url, 206));
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
    fn a_name_outside_the_folder_is_refused_before_anything_is_created() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let file = HistFile {
            link: "http://127.0.0.1:1/x\ny".into(),
            date: String::new(),
            feed: "DEEP".into(),
            version: "1.0".into(),
            protocol: String::new(),
            size: Some(1),
        };
        for name in ["../x", "a/b", "..", ".", "", "/tmp/x", ".x", "x\0"] {
            let err = fetch_file(&agent(), &file, name, &out, |_, _| {}).unwrap_err();
            assert!(matches!(err, FetchError::UnsafeName { .. }), "{err:?}");
            assert_eq!(
                err.to_string(),
                format!(
                    "the HIST index entry DEEP 1.0 at http://127.0.0.1:1/x\\ny would be saved \
                     as {name:?}, which is not a plain file name inside {}; nothing was written",
                    out.display()
                )
            );
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
