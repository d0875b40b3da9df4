//! `shootout inspect`: stream a capture once and say what is in it.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::time::Instant;

use rustc_hash::FxHashSet;

use crate::capture::CaptureKind;
use crate::error::{FileError, Result};
use crate::iex::book::BookReport;
use crate::iex::book_thread::BookFeed;
use crate::iex::{decode, MessageError, SeqEvent};
use crate::model::{kind, FeedsSeen};
use crate::profile::{type_name, Profile, ProfileTally};
use crate::source::Compression;
use crate::stream::{self, IexReader, Item, Skipped, TruncatedTail};

/// Counts gathered from the segments, independent of where they came from; the counts by type
/// and the send times are the profile's.
#[derive(Debug, Default)]
pub struct Tally {
    pub packets: u64,
    pub heartbeats: u64,
    pub messages: u64,
    pub anomalies: Anomalies,
    /// Distinct symbols; those of order messages are the book's ([`BookFeed::symbols`]) and
    /// join at the end of [`Tally::from_stream`].
    pub symbols: FxHashSet<u64>,
    /// DEEP+ order messages replayed into a book (other messages pass it by), on a thread of
    /// its own when a second CPU is allowed; [`Tally::from_stream`] waits for it.
    pub book: BookFeed,
    /// The previous message's symbol, already in `symbols`.
    last_symbol: Option<u64>,
    pub feeds: FeedsSeen,
    /// The capture's shape ([`Profile`]).
    pub profile: ProfileTally,
}

impl Tally {
    #[inline]
    pub fn add(&mut self, item: &Item<'_>) {
        let header = &item.segment.header;
        self.packets += 1;
        self.heartbeats += u64::from(header.is_heartbeat());
        self.feeds.add(item.segment.feed);
        match item.seq {
            SeqEvent::Gap { expected, got } => {
                self.anomalies.gaps += 1;
                self.anomalies.missing_messages += got - expected;
            }
            SeqEvent::Duplicate { .. } => self.anomalies.duplicates += 1,
            SeqEvent::Restart { .. } => self.anomalies.restarts += 1,
            SeqEvent::First | SeqEvent::InOrder => {}
        }
        let mut in_packet = 0;
        for block in item.segment.blocks() {
            in_packet += 1;
            // Every message is decoded into its typed value: `inspect` vouches for the file.
            match decode(block) {
                Ok(m) => {
                    self.messages += 1;
                    let k = block[0];
                    self.profile
                        .message(k, block.len(), m.symbol().map(|s| s.as_u64()));
                    if block.len() > kind::wire_len(k).unwrap_or(usize::MAX) {
                        self.anomalies.longer += 1;
                    }
                    // The book takes order messages' symbols over (on its own thread, if any).
                    if self.book.apply(&m) {
                        continue;
                    }
                    if let Some(symbol) = m.symbol() {
                        // Updates come in runs per symbol: skip the hash for a repeat.
                        let key = symbol.as_u64();
                        if self.last_symbol != Some(key) {
                            self.last_symbol = Some(key);
                            self.symbols.insert(key);
                        }
                    }
                }
                // Unknown types (and, in principle, anything else undecodable) are skipped by
                // their length prefix and counted, never fatal.
                Err(MessageError::Unknown(kind)) => {
                    self.anomalies.unknown += 1;
                    self.profile.message(kind, block.len(), None);
                }
                Err(_) => self.anomalies.unknown += 1,
            }
        }
        self.profile.packet(in_packet, header.send_time);
    }

    /// Streams every segment of `src` into a tally.
    pub fn from_reader<R: Read>(src: R, lenient: bool) -> Result<(Tally, IexReader<R>)> {
        let mut reader = IexReader::new(src, lenient)?;
        let tally = Tally::from_stream(&mut reader)?;
        Ok((tally, reader))
    }

    /// Tallies every remaining segment of `reader`, the book's last orders included.
    pub fn from_stream<R: Read>(reader: &mut IexReader<R>) -> Result<Tally> {
        let mut tally = Tally::default();
        while let Some(item) = reader.next_segment()? {
            tally.add(&item);
        }
        tally.book.finish();
        tally.symbols.extend(tally.book.symbols());
        Ok(tally)
    }
}

/// What the stream held that a clean capture does not: counted by [`Tally`], reported by
/// [`Inspection`].
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct Anomalies {
    /// Messages of an unknown type, skipped by their length prefix.
    pub unknown: u64,
    /// Messages of a known type longer than its layout (IEX may append fields): known prefix
    /// parsed.
    pub longer: u64,
    pub gaps: u64,
    pub missing_messages: u64,
    pub duplicates: u64,
    /// Times a (channel, session) sequence started again at 1 with new content (a capture
    /// stitched from several recordings); a copy of a segment seen before is a duplicate.
    pub restarts: u64,
}

/// What `inspect` reports; the JSON output is this struct.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Inspection {
    pub file: String,
    pub compression: Compression,
    pub capture: CaptureKind,
    /// Size of the file on disk.
    pub bytes: u64,
    /// Capture bytes parsed (decompressed size for gzip).
    pub capture_bytes: u64,
    pub frames: u64,
    /// IEX-TP segments, heartbeats included.
    pub packets: u64,
    pub heartbeats: u64,
    pub messages: u64,
    /// Messages by type character (unknown types included, also counted in `unknown`).
    pub by_type: BTreeMap<String, u64>,
    /// Its fields stand in the JSON as this struct's own, where they always stood.
    #[serde(flatten)]
    pub anomalies: Anomalies,
    /// Distinct symbols.
    pub symbols: u64,
    /// DEEP+ book consistency; null when the capture holds no order messages (and is not DEEP+).
    pub book: Option<BookReport>,
    /// `deep`, `tops`, `deep-plus`, `mixed`, or null when no IEX-TP segment was found.
    pub feed: Option<&'static str>,
    pub first_send_time: Option<i64>,
    pub last_send_time: Option<i64>,
    pub first_send_time_utc: Option<String>,
    pub last_send_time_utc: Option<String>,
    pub skipped: Skipped,
    /// The record a capture cut short at its end lost (read with `--lenient`); null otherwise.
    pub truncated_tail: Option<TruncatedTail>,
    /// The capture's shape: what `gen --like` reproduces, and what to compare two captures by.
    pub profile: Profile,
    pub seconds: f64,
    /// Capture bytes per second, in MB (10^6).
    pub mb_per_s: f64,
    pub msgs_per_s: f64,
}

/// Streams `path` and reports what is in it.
pub fn inspect(path: &Path, lenient: bool) -> std::result::Result<Inspection, FileError> {
    let started = Instant::now();
    let mut opened = stream::open(path, lenient)?;
    let mut tally = Tally::from_stream(&mut opened.reader).map_err(|e| opened.error(path, e))?;
    let reader = &opened.reader;
    let seconds = started.elapsed().as_secs_f64();
    let capture_bytes = reader.position();
    let (first_send_time, last_send_time) = (tally.profile.first_send, tally.profile.last_send);
    let profile = std::mem::take(&mut tally.profile).finish();
    let by_type = (profile.type_counts.iter())
        .map(|&(k, n)| (type_name(k), n))
        .collect();
    let per_s = |x: f64| if seconds > 0.0 { x / seconds } else { 0.0 };
    Ok(Inspection {
        file: path.display().to_string(),
        compression: opened.compression,
        capture: reader.capture_kind(),
        bytes: opened.file_bytes,
        capture_bytes,
        frames: reader.frames(),
        packets: tally.packets,
        heartbeats: tally.heartbeats,
        messages: tally.messages,
        by_type,
        anomalies: tally.anomalies,
        book: (tally.book.saw_orders() || tally.feeds.deep_plus).then(|| tally.book.finish()),
        symbols: tally.symbols.len() as u64,
        feed: tally.feeds.name(),
        first_send_time,
        last_send_time,
        first_send_time_utc: first_send_time.map(utc),
        last_send_time_utc: last_send_time.map(utc),
        skipped: reader.skipped(),
        truncated_tail: reader.truncated_tail(),
        profile,
        seconds,
        mb_per_s: per_s(capture_bytes as f64) / 1e6,
        msgs_per_s: per_s(tally.messages as f64),
    })
}

/// Nanoseconds since the epoch as an RFC 3339 UTC time.
pub fn utc(ns: i64) -> String {
    chrono::DateTime::from_timestamp_nanos(ns).to_rfc3339_opts(chrono::SecondsFormat::Nanos, true)
}

impl Inspection {
    /// The human-readable report.
    pub fn to_text(&self) -> String {
        let s = &self.skipped;
        let by_type: Vec<String> = self
            .by_type
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        let skipped = s.unsupported_link
            + s.non_ipv4
            + s.non_udp
            + s.fragments
            + s.non_iex
            + s.malformed_frames;
        let compression = match self.compression {
            Compression::Gzip => "gzip",
            Compression::None => "plain",
        };
        let capture = match self.capture {
            CaptureKind::Pcap => "pcap",
            CaptureKind::Pcapng => "pcapng",
        };
        let mut lines = vec![
            format!("file        {} ({compression} {capture})", self.file),
            format!(
                "bytes       {} on disk, {} of capture",
                self.bytes, self.capture_bytes
            ),
            format!(
                "packets     {} IEX-TP segments ({} heartbeats) in {} frames",
                self.packets, self.heartbeats, self.frames
            ),
            format!(
                "messages    {} ({} of unknown type, {} longer than the spec)",
                self.messages, self.anomalies.unknown, self.anomalies.longer
            ),
            format!("feed        {}", self.feed.unwrap_or("none found")),
            format!("symbols     {}", self.symbols),
        ];
        if let (Some(first), Some(last)) = (&self.first_send_time_utc, &self.last_send_time_utc) {
            lines.push(format!("send time   {first} .. {last}"));
        }
        let a = &self.anomalies;
        let restarts = match a.restarts {
            0 => String::new(),
            1 => "restarted once, ".to_owned(),
            n => format!("restarted {n} times, "),
        };
        lines.push(format!(
            "sequence    {restarts}{} gaps ({} messages missing), {} duplicates",
            a.gaps, a.missing_messages, a.duplicates
        ));
        lines.push(format!(
            "skipped     {skipped} frames (link {}, non-IPv4 {}, non-UDP {}, fragments {}, \
             non-IEX {}, malformed {}), {} malformed segments",
            s.unsupported_link,
            s.non_ipv4,
            s.non_udp,
            s.fragments,
            s.non_iex,
            s.malformed_frames,
            s.malformed_segments
        ));
        if let Some(tail) = &self.truncated_tail {
            lines.push(format!("cut short   {}", stream::lenient_note(tail)));
        }
        lines.push(format!("by type     {}", by_type.join(", ")));
        if let Some(b) = &self.book {
            lines.push(format!(
                "book        {} adds, {} live at the end (peak {}), {} cleared; {} references to \
                 orders not live, {} executions above the remaining size, {} adds of a live id",
                b.adds,
                b.live_orders,
                b.peak_live_orders,
                b.cleared_orders,
                b.unknown_references,
                b.overfills,
                b.duplicate_adds
            ));
            if b.untracked_adds > 0 {
                lines.push(format!(
                    "            {} adds past the {}-order bound went untracked; {} references \
                     to unknown orders after that are unchecked",
                    b.untracked_adds,
                    crate::iex::book::MAX_LIVE_ORDERS,
                    b.unchecked_references
                ));
            }
        }
        lines.extend(self.profile.to_lines());
        lines.push(format!(
            "throughput  {:.3} s, {:.0} MB/s of capture, {:.2} M messages/s",
            self.seconds,
            self.mb_per_s,
            self.msgs_per_s / 1e6
        ));
        lines.join("\n")
    }
}
