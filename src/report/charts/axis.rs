//! The axes the charts share: HdrHistogram's "number of nines" percentile axis, log ticks that
//! fit the data, and number labels.

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};

pub fn nines_label(nines: f64) -> String {
    let n = nines.round() as usize;
    match n {
        0 => "0%".into(),
        1 => "90%".into(),
        n => format!("99.{}%", "9".repeat(n - 2)).replace(".%", "%"),
    }
}

/// `1,234,567`.
pub(super) fn thousands(x: f64) -> String {
    let digits = format!("{:.0}", x.abs());
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if x < 0.0 {
        format!("-{out}")
    } else {
        out
    }
}

/// Tick values 1, 2, 5 × 10^k within `lo..=hi` (only powers of ten when there would be many).
pub(super) fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let mut all = Vec::new();
    let mut only_decades = Vec::new();
    let mut decade = 10f64.powf(lo.log10().floor());
    while decade <= hi {
        for m in [1.0, 2.0, 5.0] {
            let v = decade * m;
            if v >= lo && v <= hi {
                all.push(v);
                if m == 1.0 {
                    only_decades.push(v);
                }
            }
        }
        decade *= 10.0;
    }
    if all.len() > 12 {
        only_decades
    } else {
        all
    }
}

/// An f64 axis, linear or logarithmic, with ticks exactly where asked (plotters' own
/// `with_key_points` on an f64 range loses the label formatter).
#[derive(Clone)]
pub(super) struct Axis {
    lo: f64,
    hi: f64,
    log: bool,
    ticks: Vec<f64>,
}

impl Axis {
    pub(super) fn linear(lo: f64, hi: f64, ticks: Vec<f64>) -> Axis {
        Axis {
            lo,
            hi,
            log: false,
            ticks,
        }
    }
    pub(super) fn log(lo: f64, hi: f64) -> Axis {
        Axis {
            lo,
            hi,
            log: true,
            ticks: log_ticks(lo, hi),
        }
    }
    /// Linear ticks at round steps, about `n` of them.
    pub(super) fn round_ticks(hi: f64, n: usize) -> Vec<f64> {
        let raw = hi / n as f64;
        let mag = 10f64.powf(raw.log10().floor());
        let step = [1.0, 2.0, 2.5, 5.0, 10.0]
            .iter()
            .map(|m| m * mag)
            .find(|s| *s >= raw)
            .unwrap_or(10.0 * mag);
        (0..)
            .map(|i| i as f64 * step)
            .take_while(|v| *v <= hi)
            .collect()
    }
    fn t(&self, v: f64) -> f64 {
        if self.log {
            v.max(f64::MIN_POSITIVE).log10()
        } else {
            v
        }
    }
}

impl Ranged for Axis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let (lo, hi) = (self.t(self.lo), self.t(self.hi));
        let frac = if hi > lo {
            (self.t(*value) - lo) / (hi - lo)
        } else {
            0.0
        };
        limit.0 + (frac * (limit.1 - limit.0) as f64).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.lo..self.hi
    }
}

pub(super) type DrawResult<T> = Result<T, String>;

pub(super) fn err<E: std::fmt::Debug>(e: E) -> String {
    format!("{e:?}")
}
