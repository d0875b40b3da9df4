//! A window format (`arrow`, `formats::WindowFormat`) in a whole run: timed only per window,
//! checked per window (every field through the complete decode's checksum, `--verify`'s field
//! by field comparison, the aggregation), and a broken one fails the run.

use md_shootout::formats::{
    Aggregate, Checksum, DecodeError, Documented, Sink, Visitor, WindowFormat,
};
use md_shootout::gen::{self, GenOptions};
use md_shootout::measure::shootout::run_with;
use md_shootout::measure::stored::StoredMode;
use md_shootout::measure::window_runner::{runner, PER_UNIT_REFUSED};
use md_shootout::measure::{self, Config, Schedule, Timing, Workload};
use md_shootout::model::{Message, Packet, Timestamp};
use md_shootout::stream::IexReader;

use crate::common::{csv_rows, shootout, shootout_ok};

fn capture(packets: u64) -> Vec<u8> {
    let mut bytes = Vec::new();
    let opts = GenOptions {
        packets,
        ..GenOptions::default()
    };
    gen::generate(&opts, &mut bytes).unwrap();
    bytes
}

/// `shootout run --verify` lists arrow beside raw and json, every check passing, its batch figures
/// measured in every window (under `--timing alternate` too) and no per-packet latency.
#[test]
fn a_run_lists_arrow_with_every_check_passing_and_no_latency() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("day.pcap");
    std::fs::write(&input, capture(6_000)).unwrap();
    let csv = dir.path().join("r.csv");
    let out = shootout_ok(&[
        "run",
        input.to_str().unwrap(),
        "--verify",
        "--formats",
        "arrow,raw,json",
        "--warmup",
        "700",
        "--window",
        "1000",
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert!(
        out.contains("checked: every field of every message of all 3 formats"),
        "{out}"
    );
    let rows = csv_rows(&csv);
    let arrow = rows.iter().find(|r| r["format"] == "arrow").unwrap();
    let raw = rows.iter().find(|r| r["format"] == "raw").unwrap();
    assert_eq!(arrow["messages"], raw["messages"]);
    // Every packet after the warm-up timed whole, where raw's whole windows are about half.
    assert_eq!(arrow["batch_units"], "5300");
    assert!(raw["batch_units"].parse::<u64>().unwrap() < 5_300);
    for c in ["ser_batch_ns", "de_batch_ns", "de_all_batch_ns"] {
        assert!(arrow[c].parse::<f64>().unwrap() > 0.0, "{c}");
    }
    // No per-packet figure, and the row says why.
    assert_eq!(arrow["units"], "0");
    for c in ["ser_p50_ns", "de_p99_ns", "de_all_p999_ns", "ser_mean_ns"] {
        assert_eq!(arrow[c], "", "{c}");
        assert!(raw[c].parse::<f64>().unwrap() > 0.0, "{c}");
    }
    assert_eq!(
        arrow["latency_note"],
        "arrow: a window format, timed only per window: no per-packet latency"
    );
    assert_eq!(raw["latency_note"], "");
    assert!(!out.contains("arrow (A/A)"), "{out}");

    // The report ranks it on the batch needs only, and says why it has no tail.
    let report = dir.path().join("report");
    shootout_ok(&[
        "report",
        csv.to_str().unwrap(),
        "--out",
        report.to_str().unwrap(),
    ]);
    let md = std::fs::read_to_string(report.join("summary.md")).unwrap();
    assert!(
        md.contains(
            "arrow: a window format, timed only per window: no per-packet latency; ranked on \
             the batch figures and sizes only, not on the tails"
        ),
        "{md}"
    );
    let row = |need: &str| {
        md.lines()
            .find(|l| l.starts_with(&format!("| {need} |")))
            .unwrap_or_else(|| panic!("no {need} row: {md}"))
            .to_owned()
    };
    // The tail rows are there (json is timed per packet), arrow nowhere in them.
    for tail in ["best encode tail", "best decode tail"] {
        assert!(!row(tail).contains("arrow"), "{}", row(tail));
    }
    assert!(row("fastest complete decode").contains("arrow"));
}

/// A pass of a window format timed per unit is an error, whichever the workload; asking for its
/// A/A twin is refused too.
#[test]
fn a_per_unit_pass_of_a_window_format_is_refused() {
    let mut arrow = measure::registry()
        .into_iter()
        .find(|r| r.name() == "arrow")
        .unwrap();
    let packets = vec![Packet::default()];
    let (mut agg, mut sum) = (Aggregate::new(), Checksum::default());
    let mut io = measure::runner::PassIo::new(&packets, &mut agg, &mut sum);
    let timer = measure::clock::Timer::calibrate();
    for w in Workload::ALL {
        let e = arrow
            .pass(w, Timing::PerUnit, &mut io, &timer, &mut Vec::new())
            .unwrap_err();
        assert_eq!(e, DecodeError::Refused(PER_UNIT_REFUSED));
    }
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("day.pcap");
    std::fs::write(&input, capture(300)).unwrap();
    let out = shootout(&[
        "run",
        input.to_str().unwrap(),
        "--formats",
        "arrow",
        "--twins",
        "arrow",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("arrow is a window format, which has no A/A twin"),
        "{err}"
    );
}

/// arrow's codec with one fault in its complete decode: the price of every trade report one
/// tick higher.
#[derive(Default)]
struct Broken(md_shootout::formats::arrow::Arrow);

struct Tick<'v, V>(&'v mut V);

impl<V: Visitor> Visitor for Tick<'_, V> {
    fn packet(&mut self, seq: u64, send_time: Timestamp) {
        self.0.packet(seq, send_time);
    }
    fn message(&mut self, mut message: Message) {
        if let Message::TradeReport(t) = &mut message {
            t.price += 1;
        }
        self.0.message(message);
    }
}

impl WindowFormat for Broken {
    const NAME: &'static str = "broken";
    const DOCUMENTED: Documented = <md_shootout::formats::arrow::Arrow as WindowFormat>::DOCUMENTED;
    const OTHER_LANGUAGES: md_shootout::formats::OtherLanguages =
        <md_shootout::formats::arrow::Arrow as WindowFormat>::OTHER_LANGUAGES;

    fn encode_window(&mut self, packets: &[Packet], out: &mut Vec<u8>) -> usize {
        self.0.encode_window(packets, out)
    }
    fn decode_window<K: Sink>(&mut self, bytes: &[u8], sink: &mut K) -> Result<usize, DecodeError> {
        self.0.decode_window(bytes, sink)
    }
    fn decode_window_all<V: Visitor>(
        &mut self,
        bytes: &[u8],
        visitor: &mut V,
    ) -> Result<usize, DecodeError> {
        self.0.decode_window_all(bytes, &mut Tick(visitor))
    }
}

/// The per-window checks can fail: a window format whose complete decode changes one field
/// fails the run, under `--timing alternate` (where it is still checked in every window).
#[test]
fn a_broken_window_format_fails_the_run() {
    let bytes = capture(3_000);
    let config = Config {
        stored: StoredMode::None,
        window: 512,
        timing: Schedule::Alternate,
        ..Config::default()
    };
    let reader = IexReader::new(&bytes[..], false).unwrap();
    let e = run_with(reader, &config, vec![runner::<Broken>()], |_| {})
        .err()
        .expect("a broken decoder fails the run")
        .to_string();
    assert!(
        e.starts_with("broken: window starting at packet 1: the batch complete decode read "),
        "{e}"
    );
}
