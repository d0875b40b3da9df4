//! `report --bmf FILE`: the summary in Bencher Metric Format (BMF) JSON, so results can go into
//! bencher.dev or any tracker that reads it: one benchmark per (input, label, format), named
//! `input/label/format`, each measure with its median as `value` and the min and max across
//! runs as `lower_value` and `upper_value`.

use std::path::Path;

use serde_json::{json, Map, Value};

use super::error::ReportError;
use super::stats::{Group, Stat, Summary};
use crate::measure::Workload;
use crate::output::write_atomically;

/// The measures of one group, by BMF measure name; those not measured are left out.
pub fn measures(g: &Group) -> Vec<(String, Stat)> {
    let mut m: Vec<(String, Option<Stat>)> = Vec::new();
    let side = |w: Workload| w.column().replace('_', "-");
    for w in Workload::ALL {
        // The columns of SideStats::p50, p99 and p999.
        let at = |i: usize| g.latency(w).map(|s| s.0[i]);
        m.extend(
            [("p50", 0), ("p99", 2), ("p999", 3)]
                .map(|(p, i)| (format!("{}-{p}-ns", side(w)), at(i))),
        );
    }
    m.extend(Workload::ALL.map(|w| (format!("{}-batch-ns", side(w)), g.throughput[w])));
    let sizes = [
        ("bytes-per-msg", Some(g.bytes_per_message)),
        ("zstd-bytes-per-msg", g.zstd_bytes_per_message),
        ("zlib-bytes-per-msg", g.zlib_bytes_per_message),
        ("msgs-per-sec", Some(g.msgs_per_sec)),
    ];
    m.extend(sizes.map(|(name, s)| (name.to_owned(), s)));
    m.into_iter()
        .filter_map(|(name, s)| Some((name, s?)))
        .collect()
}

pub fn to_json(summary: &Summary) -> Value {
    let mut out = Map::new();
    for g in &summary.groups {
        let mut m = Map::new();
        for (name, s) in measures(g) {
            m.insert(
                name,
                json!({ "value": s.median, "lower_value": s.min, "upper_value": s.max }),
            );
        }
        out.insert(format!("{}/{}/{}", g.input, g.label, g.format), m.into());
    }
    Value::Object(out)
}

/// Writes [`to_json`] to `path`, whole or not at all.
pub fn write(summary: &Summary, path: &Path) -> Result<(), ReportError> {
    let text = serde_json::to_string_pretty(&to_json(summary))
        .map_err(|e| ReportError::new(path, format!("cannot encode: {e}")))?;
    write_atomically(path, |w| {
        w.write_all(text.as_bytes())?;
        w.write_all(b"\n")
    })
    .map_err(|e| ReportError::new(path, format!("cannot write: {e}")))
}
