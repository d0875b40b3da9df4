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

/// Tick values 1, 2, 5 × 10^k within `lo..=hi` (only powers of ten when there would be many).
pub(super) fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let all = multiples(lo, hi, &[1.0, 2.0, 5.0]);
    if all.len() > 12 {
        multiples(lo, hi, &[1.0])
    } else if all.len() < 3 {
        // A range under a decade: every integer multiple, so the axis has enough labels.
        let more = multiples(lo, hi, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
        if more.len() > 10 {
            more.into_iter().step_by(2).collect()
        } else {
            more
        }
    } else {
        all
    }
}

/// Each `m` × 10^k of `of` within `lo..=hi`, ascending.
fn multiples(lo: f64, hi: f64, of: &[f64]) -> Vec<f64> {
    let (mut out, within) = (Vec::new(), |v: &f64| *v >= lo && *v <= hi);
    let mut decade = 10f64.powf(lo.log10().floor());
    while decade <= hi {
        out.extend(of.iter().map(|m| decade * m).filter(within));
        decade *= 10.0;
    }
    out
}

/// The largest 1, 2 or 5 × 10^k at or below `x` (positive).
pub(super) fn nice_below(x: f64) -> f64 {
    let decade = 10f64.powf(x.log10().floor());
    [5.0, 2.0, 1.0]
        .iter()
        .map(|m| m * decade)
        .find(|v| *v <= x * (1.0 + 1e-9))
        .unwrap_or(decade)
}

/// The smallest `m` × 10^k at or above `x` (positive), `m` of `of` (ascending, up to 10), `x`
/// less its `slack` (relative) counting as reached.
fn at_or_above(x: f64, of: &[f64], slack: f64) -> f64 {
    let decade = 10f64.powf(x.log10().floor());
    of.iter()
        .map(|m| m * decade)
        .find(|v| *v >= x * (1.0 - slack))
        .unwrap_or(10.0 * decade)
}

/// 1, 2, 2.5 or 5 × 10^k: a tick step people read at a glance.
const ROUND_STEPS: [f64; 5] = [1.0, 2.0, 2.5, 5.0, 10.0];

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
    /// A log axis from the 1-2-5 value at or under `lo` to the one at or over `hi`: fitted to
    /// the data, without the empty decades of rounding to powers of ten.
    pub(super) fn fitted_log(lo: f64, hi: f64) -> Axis {
        let lo = nice_below(lo.max(f64::MIN_POSITIVE));
        let hi = at_or_above(hi.max(lo * 1.01), &[1.0, 2.0, 5.0, 10.0], 1e-9);
        Axis::log(lo, hi)
    }
    /// A linear axis over `lo..=hi` widened to round steps (about `n` ticks), not to zero.
    pub(super) fn fitted_linear(lo: f64, hi: f64, n: usize) -> Axis {
        let span = (hi - lo).max(hi.abs() * 0.02).max(1e-9);
        let step = at_or_above(span / n as f64, &ROUND_STEPS, 0.0);
        let a = (lo / step).floor() * step;
        let b = (hi / step).ceil() * step;
        let b = if b <= a { a + step } else { b };
        let ticks = (0..)
            .map(|i| a + i as f64 * step)
            .take_while(|v| *v <= b + step * 1e-6)
            .collect();
        Axis::linear(a, b, ticks)
    }
    /// `(lo, hi)` of the axis.
    pub(super) fn bounds(&self) -> (f64, f64) {
        (self.lo, self.hi)
    }
    pub(super) fn is_log(&self) -> bool {
        self.log
    }
    /// Linear ticks at round steps, about `n` of them.
    pub(super) fn round_ticks(hi: f64, n: usize) -> Vec<f64> {
        let step = at_or_above(hi / n as f64, &ROUND_STEPS, 0.0);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tables::count;

    #[test]
    fn labels_and_ticks() {
        assert_eq!(nines_label(0.0), "0%");
        assert_eq!(nines_label(1.0), "90%");
        assert_eq!(nines_label(2.0), "99%");
        assert_eq!(nines_label(4.0), "99.99%");
        assert_eq!(count(1234567.0), "1,234,567");
        assert_eq!(count(999.0), "999");
        assert_eq!(count(-1234.0), "-1,234");
        assert_eq!(
            log_ticks(10.0, 1000.0),
            vec![10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0]
        );
    }
}
