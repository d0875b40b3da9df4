//! Per-format results, per [`Workload`]: timed per unit, a [`Latency`] (an HdrHistogram, 3
//! significant digits); timed by whole windows, a [`Throughput`].

use std::collections::BTreeMap;

use hdrhistogram::Histogram;

use super::allocations::AllocTally;
use super::instructions::Instructions;
use super::stored::{Estimate, StoredMode, StoredTally};
use super::window_times::WindowTimes;
use super::workload::{PerWorkload, Workload};
use crate::formats::Aggregate;

/// Highest value a histogram tracks: 10 s. A packet taking longer is clamped, not dropped.
const MAX_TRACKABLE_NS: u64 = 10_000_000_000;

/// Latency of one side of one format.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub struct Latency {
    /// V2-deflate encoded, in base64, in a worker's results (see `measure::jobs`).
    #[serde(with = "hist_base64")]
    pub hist: Histogram<u64>,
    /// Sum of the recorded per-packet times.
    pub total_ns: u64,
}

impl Default for Latency {
    fn default() -> Self {
        Latency {
            hist: Histogram::new_with_bounds(1, MAX_TRACKABLE_NS, 3)
                .expect("constant bounds are valid"),
            total_ns: 0,
        }
    }
}

impl Latency {
    #[inline]
    pub fn record(&mut self, ns: u64) {
        self.hist.saturating_record(ns.max(1));
        self.total_ns += ns;
    }

    /// Another histogram's samples (`measure::merge`).
    pub fn absorb(&mut self, other: &Latency) -> Result<(), hdrhistogram::errors::AdditionError> {
        self.hist.add(&other.hist)?;
        self.total_ns += other.total_ns;
        Ok(())
    }

    pub fn summary(&self) -> Percentiles {
        let h = &self.hist;
        Percentiles {
            p50: h.value_at_quantile(0.50),
            p90: h.value_at_quantile(0.90),
            p99: h.value_at_quantile(0.99),
            p999: h.value_at_quantile(0.999),
            p9999: h.value_at_quantile(0.9999),
            max: h.max(),
            mean: h.mean(),
            total: self.total_ns,
            count: h.len(),
        }
    }
}

/// The figures a report shows for one side.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Percentiles {
    pub p50: u64,
    pub p90: u64,
    pub p99: u64,
    pub p999: u64,
    pub p9999: u64,
    pub max: u64,
    pub mean: f64,
    pub total: u64,
    pub count: u64,
}

/// One workload timed window by window (one clock pair around each window's pass): the sum of
/// those times and the units they covered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Throughput {
    pub ns: u64,
    pub packets: u64,
}

impl Throughput {
    pub fn add(&mut self, ns: u64, packets: usize) {
        self.ns += ns;
        self.packets += packets as u64;
    }

    /// Mean nanoseconds per packet; 0 when nothing was timed.
    pub fn ns_per_packet(&self) -> f64 {
        div_or_zero(self.ns as f64, self.packets as f64)
    }
}

/// Another share's windows (`measure::merge`).
impl std::ops::AddAssign for Throughput {
    fn add_assign(&mut self, other: Throughput) {
        self.add(other.ns, other.packets as usize);
    }
}

/// Everything measured and checked for one format.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub struct FormatResult {
    /// Carried beside the results between processes (a `&'static str` cannot be read back).
    #[serde(skip)]
    pub name: &'static str,
    /// Each workload timed per unit ([`super::workload::Timing::PerUnit`]).
    pub latency: PerWorkload<Latency>,
    /// Each workload timed by whole windows ([`super::workload::Timing::Window`]).
    pub throughput: PerWorkload<Throughput>,
    /// The same passes window by window (`measure::window_times`): what the report compares two
    /// formats on, window by window.
    #[serde(default)]
    pub windows: PerWorkload<WindowTimes>,
    /// Bytes written for every packet (warm-up included).
    pub encoded_bytes: u64,
    /// Messages the encoder reported writing (warm-up included).
    pub messages_encoded: u64,
    /// Messages in the packets timed in whole windows (after warm-up): what `msgs_per_sec`
    /// rests on.
    pub messages_batch: u64,
    /// What the per-packet selective decode produced (the packets of the windows timed per
    /// packet). Checked against the source's where it was measured, so a `--jobs` worker does
    /// not send it (nor the next): on a real day it is ten thousand symbols per format.
    #[serde(skip)]
    pub aggregate: Aggregate,
    /// What the batch selective decode produced (the packets after the warm-up of the windows
    /// timed whole).
    #[serde(skip)]
    pub batch_aggregate: Aggregate,
    /// Windows compressed with zstd level 3 and zlib level 6, one frame per window: the size as
    /// stored, exact or estimated (see `measure::stored`).
    pub stored: StoredTally,
    /// The CPU the `--jobs` worker that measured this format was pinned to.
    #[serde(skip)]
    pub worker_cpu: Option<usize>,
    /// Minor page faults taken inside this format's timed passes, the warm-up included (see
    /// `measure::memory`): 0 when every buffer was written before it was timed.
    pub timed_faults: u64,
    /// What the format allocated in the untimed counting pass over each window's units after
    /// the warm-up (see `measure::allocations`); `None` where the counting allocator is not
    /// installed.
    #[serde(default)]
    pub allocations: Option<AllocTally>,
    /// Involuntary context switches inside this format's timed passes (the kernel gave the CPU
    /// to another thread mid-pass), counted around each pass like `timed_faults`.
    #[serde(default)]
    pub preempted: u64,
    /// Whole-window passes timed again because a switch landed inside them (see
    /// `measure::interference`).
    #[serde(default)]
    pub retimed: u64,
    /// The instructions of the batch passes, where the run counted them (`--instructions`,
    /// see `measure::instructions`).
    #[serde(default)]
    pub instructions: Option<Instructions>,
    /// With `--unit message`, the units timed one by one after the warm-up, by IEX message type
    /// (its type byte): what a feed of another mix re-weights (`report --mix`). Empty per packet,
    /// where a unit mixes types.
    #[serde(default)]
    pub by_type: BTreeMap<u8, TypeResult>,
}

/// One IEX message type's messages timed one by one (`--unit message`).
#[derive(Default, Clone, serde::Serialize, serde::Deserialize)]
pub struct TypeResult {
    /// Each workload's times of this type's messages.
    pub latency: PerWorkload<Latency>,
    /// The bytes the timed encodes of this type wrote.
    pub encoded_bytes: u64,
    /// This type's messages timed (each workload times the same ones).
    pub messages: u64,
}

impl TypeResult {
    pub fn bytes_per_message(&self) -> f64 {
        div_or_zero(self.encoded_bytes as f64, self.messages as f64)
    }

    /// Another share's messages of this type (`measure::merge`).
    pub fn absorb(
        &mut self,
        other: &TypeResult,
    ) -> Result<(), hdrhistogram::errors::AdditionError> {
        for (w, l) in other.latency.iter() {
            self.latency[w].absorb(l)?;
        }
        self.encoded_bytes += other.encoded_bytes;
        self.messages += other.messages;
        Ok(())
    }
}

/// Records a per-unit pass of `workload` by message type: `units` are the pass's units after the
/// warm-up, one message each, and `stats` their times (and, for an encode, where each one's
/// bytes end; `start` is where the first one's begin).
pub fn record_by_type(
    by_type: &mut BTreeMap<u8, TypeResult>,
    workload: Workload,
    units: &[crate::model::Packet],
    stats: &[super::runner::PacketStat],
    mut start: usize,
) {
    for (unit, s) in units.iter().zip(stats) {
        let Some(m) = unit.messages.first() else {
            continue;
        };
        let t = by_type.entry(m.kind()).or_default();
        t.latency[workload].record(s.ns);
        if workload == Workload::Encode {
            t.encoded_bytes += (s.end - start) as u64;
            t.messages += 1;
            start = s.end;
        }
    }
}

impl FormatResult {
    /// Instructions per unit of `workload`'s batch passes, where they were counted.
    pub fn instructions_per_unit(&self, workload: Workload) -> Option<f64> {
        let counted = self.instructions?;
        let units = self.throughput[workload].packets;
        (units > 0).then(|| counted.count[workload] as f64 / units as f64)
    }

    pub fn new(name: &'static str) -> Self {
        FormatResult {
            name,
            ..FormatResult::default()
        }
    }

    /// The size as stored under `mode` (exact, estimated from a sample, or not measured). An
    /// A/A twin's windows are not compressed (its bytes are its original's): `None`.
    pub fn stored(&self, mode: StoredMode) -> Option<Estimate> {
        match self.twin_of() {
            Some(_) => None,
            None => self.stored.estimate(mode),
        }
    }

    /// For an A/A twin or a positive control, the format it measures again (see
    /// `measure::twins`).
    pub fn twin_of(&self) -> Option<&'static str> {
        super::twins::original(self.name)
    }

    /// For an A/A twin (0) or a positive control, the extra work planted in it, as a fraction of
    /// its original's (see `measure::twins`).
    pub fn planted(&self) -> Option<f64> {
        super::twins::planted(self.name)
    }

    pub fn bytes_per_message(&self) -> f64 {
        div_or_zero(self.encoded_bytes as f64, self.messages_encoded as f64)
    }

    /// Messages per second of serialize plus complete decode, from the batch figures
    /// (whole windows timed, so neither the clock's steps nor its own cost per read are in it).
    pub fn msgs_per_sec(&self) -> f64 {
        let t = &self.throughput;
        let ns = (t[Workload::Encode].ns + t[Workload::Complete].ns) as f64;
        div_or_zero(self.messages_batch as f64 * 1e9, ns)
    }

    /// Batch serialize + complete decode, ns per packet: what formats are ranked by (the same
    /// work for every format; a selective decode can skip more in one format than another).
    pub fn batch_ns(&self) -> f64 {
        let t = &self.throughput;
        t[Workload::Encode].ns_per_packet() + t[Workload::Complete].ns_per_packet()
    }
}

/// A histogram as V2-deflate bytes in base64: how a worker process hands it to the parent.
mod hist_base64 {
    use base64::Engine;
    use hdrhistogram::serialization::{
        Deserializer as HistReader, Serializer as _, V2DeflateSerializer,
    };
    use hdrhistogram::Histogram;
    use serde::{de::Error as _, ser::Error as _, Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(h: &Histogram<u64>, s: S) -> Result<S::Ok, S::Error> {
        let mut bytes = Vec::new();
        V2DeflateSerializer::new()
            .serialize(h, &mut bytes)
            .map_err(|e| S::Error::custom(format!("cannot encode a histogram: {e:?}")))?;
        s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(bytes))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Histogram<u64>, D::Error> {
        let text = String::deserialize(d)?;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(text)
            .map_err(D::Error::custom)?;
        HistReader::new()
            .deserialize(&mut &bytes[..])
            .map_err(|e| D::Error::custom(format!("cannot decode a histogram: {e:?}")))
    }
}

/// `a / b`, or 0 when `b` is 0 (an average over nothing).
pub fn div_or_zero(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        a / b
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_ordered_and_within_three_digits() {
        let mut s = Latency::default();
        for v in 1..=10_000u64 {
            s.record(v * 10);
        }
        let p = s.summary();
        assert!(p.p50 <= p.p90 && p.p90 <= p.p99 && p.p99 <= p.p999 && p.p999 <= p.max);
        assert!((49_950..=50_050).contains(&p.p50), "{}", p.p50);
        assert!((99_900..=100_100).contains(&p.max), "{}", p.max);
        assert_eq!(p.count, 10_000);
        assert_eq!(p.total, 10 * 10_000 * 10_001 / 2);
        // Zero and huge values are clamped into range instead of failing.
        s.record(0);
        s.record(u64::MAX / 2);
        assert_eq!(s.hist.len(), 10_002);
    }
}
