//! What every chart looks alike in: the canvas size, the font, and the colours (one per format,
//! the same in every chart and every report).

use plotters::style::{Color, HSLColor, RGBColor};

use crate::report::stats::Summary;

/// Canvas of every chart but the scatter (see [`super::scatter`]), in pixels.
pub(super) const SIZE: (u32, u32) = (960, 540);
/// The viewer's sans-serif draws the text: no font file is needed.
pub(super) const FONT: &str = "sans-serif";

/// Paul Tol's "muted" scheme, distinguishable with every common colour-vision deficiency, then a
/// dark grey: one colour per format for the first ten. Beyond ten, [`Colours::of`] generates
/// hues and [`Colours::tier`] gives those formats dashed lines and other marker shapes, so no
/// two formats ever look alike however many there are.
pub(super) const PALETTE: [RGBColor; 10] = [
    RGBColor(0x33, 0x22, 0x88),
    RGBColor(0xcc, 0x66, 0x77),
    RGBColor(0x11, 0x77, 0x33),
    RGBColor(0x88, 0xcc, 0xee),
    RGBColor(0x88, 0x22, 0x55),
    RGBColor(0x44, 0xaa, 0x99),
    RGBColor(0x99, 0x99, 0x33),
    RGBColor(0xaa, 0x44, 0x99),
    RGBColor(0xdd, 0xcc, 0x77),
    RGBColor(0x55, 0x55, 0x55),
];

/// Encoded, zstd and zlib in the bytes chart with the size as stored: coloured by kind, not by
/// format (the x axis names the format); slate for the encoding itself, then teal and coral.
pub(super) const SIZE_COLOURS: [RGBColor; 3] = [
    RGBColor(0x5b, 0x67, 0x70),
    RGBColor(0x2a, 0x9d, 0x8f),
    RGBColor(0xe7, 0x6f, 0x51),
];

/// p50, p99, p99.9 in the grouped bars: light to dark, so higher percentiles read darker.
pub(super) const PCT_COLOURS: [RGBColor; 3] = [
    RGBColor(0x9e, 0xca, 0xe1),
    RGBColor(0x42, 0x92, 0xc6),
    RGBColor(0x08, 0x3d, 0x7f),
];

/// A format's colour and line or marker style, fixed by its place in one order for every chart.
pub(super) struct Colours(Vec<String>);

impl Colours {
    /// The registry's order (`for_each_format!`), then any other format of the summary by name:
    /// a format keeps its colour in every chart and every report, and a format appended to the
    /// registry recolours none of the others.
    pub(super) fn new(summary: &Summary) -> Colours {
        let mut order: Vec<String> = crate::formats::names()
            .into_iter()
            .map(String::from)
            .collect();
        for f in summary.formats() {
            if !order.iter().any(|o| o == f) {
                order.push(f.to_owned());
            }
        }
        Colours(order)
    }
    fn index(&self, format: &str) -> usize {
        self.0.iter().position(|f| f == format).unwrap_or(0)
    }
    pub(super) fn of(&self, format: &str) -> RGBColor {
        let i = self.index(format);
        match PALETTE.get(i) {
            Some(c) => *c,
            None => {
                // Golden-angle hues at two lightnesses: neighbours in the order differ most.
                let k = i - PALETTE.len();
                let hue = (k as f64 * 0.381_966).fract();
                let light = if k.is_multiple_of(2) { 0.38 } else { 0.55 };
                let (r, g, b) = HSLColor(hue, 0.65, light).rgb();
                RGBColor(r, g, b)
            }
        }
    }
    /// 0 for the palette's formats (solid lines, round markers); 1, 2, ... for the generated
    /// ones (dashed lines; triangles, squares, crosses).
    pub(super) fn tier(&self, format: &str) -> usize {
        let i = self.index(format);
        if i < PALETTE.len() {
            0
        } else {
            1 + (i - PALETTE.len()) % 3
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_looks_different_however_many() {
        let names: Vec<String> = (0..40).map(|i| format!("f{i}")).collect();
        let c = Colours(names.clone());
        let looks: Vec<((u8, u8, u8), usize)> = names
            .iter()
            .map(|n| {
                let RGBColor(r, g, b) = c.of(n);
                ((r, g, b), c.tier(n))
            })
            .collect();
        let mut distinct = looks.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), names.len(), "{looks:?}");
        // The first ten are the palette, solid; the rest are drawn dashed, with other markers.
        assert!(looks[..10].iter().all(|(_, t)| *t == 0));
        assert!(looks[10..].iter().all(|(_, t)| *t > 0));
        // Generated colours are not the palette's.
        for (rgb, _) in &looks[10..] {
            assert!(!PALETTE.iter().any(|p| (p.0, p.1, p.2) == *rgb));
        }
    }
}
