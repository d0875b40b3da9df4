//! Measuring: the clock, and (with the shootout loop) the per-format histograms.

pub mod clock;
