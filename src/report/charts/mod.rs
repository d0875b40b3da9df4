//! The report's SVG charts, drawn with plotters' SVG backend (text stays `<text>` elements, so no
//! font files are needed to write them; the viewer's sans-serif font draws the text).
//!
//! - `dist-<input>-<side>.svg`: the latency distribution per format, from the `.hgrm` files. The
//!   x axis is HdrHistogram's "number of nines" scale: x = 1/(1−p) on a log axis, labelled 0%,
//!   90%, 99%, 99.9%, ...; the y axis is ns per packet on a log axis, so both the body and the
//!   preemption tail stay readable.
//!
//!   **Which run.** Every run found is drawn as a thin, faint line in its format's colour, and
//!   the run whose p50 is the median of the runs' p50s is drawn bold and named in the legend.
//!   The bold line is a run that happened: a pointwise median of several curves is not a
//!   distribution any run had, and the faint lines show how much the runs disagree (mostly in
//!   the tail), which one chosen run alone would hide.
//!   Sides: `ser`, `de` (selective decode) and, where the runs wrote `<format>.de_all.hgrm`,
//!   `de_all` (complete decode: every field read and checksummed).
//! - `pct-<input>-<label>-<side>.svg`: grouped bars of the median p50, p99 and p99.9 per format,
//!   with a whisker for the min–max across runs and the median written above each bar; `de_all`
//!   too when every format of the input and label measured it.
//! - `bytes-<input>-<label>.svg`: bytes per message per format. When the runs measured the size
//!   as stored, three bars per format: encoded, zstd and zlib (each window compressed whole),
//!   coloured by kind with a legend; otherwise one bar per format, in the format's colour.
//!
//! A format has the same colour in every chart.

mod axis;
mod bytes;
mod canvas;
mod distribution;
pub mod files;
mod percentiles;
pub mod scatter;
mod style;

pub use axis::nines_label;
pub use files::{write_all, ChartFile, ChartKind};
