//! The window a runner is fed when it is not the source's: made from the source's window outside
//! the timed regions, and checked against references of its own (`measure::shootout`). Two
//! runners are fed otherwise:
//!
//! - a lossy format ([`Format::LOSSY`]): each packet projected onto what the format carries, one
//!   for one;
//! - a positive control (`measure::twins`): every [`PLANTED_EVERY`]th unit of a chunk repeated
//!   right after itself, so that every unit of work appears `1 + 1/PLANTED_EVERY` times as often
//!   as in its original's window while the control runs exactly its original's code. The unit
//!   counted is the unit's place in its chunk, not in its window, so the repeats fall every
//!   [`PLANTED_EVERY`] units across windows of any size (exactly one in [`PLANTED_EVERY`] over a
//!   chunk, give or take the last few units) and on the same units however the input is split
//!   into shares (a share holds whole chunks).
//!
//! [`Format::LOSSY`]: crate::formats::Format::LOSSY

use crate::model::Packet;

use super::twins::PLANTED_EVERY;

/// How a runner's window is made from the source's.
#[derive(Debug, Clone, Copy)]
pub struct Feed {
    /// Each packet as the format carries it (a lossy format's projection).
    project: Option<fn(&Packet) -> Packet>,
    /// Every [`PLANTED_EVERY`]th unit repeated (a positive control).
    repeat: bool,
}

impl Feed {
    /// The feed of a runner that projects each packet with `project` and repeats every
    /// [`PLANTED_EVERY`]th unit if `repeat`; `None` for one fed the source's window as it is.
    pub fn of(project: Option<fn(&Packet) -> Packet>, repeat: bool) -> Option<Feed> {
        (project.is_some() || repeat).then_some(Feed { project, repeat })
    }

    /// Whether the unit at `place` in its chunk (from 0) is repeated.
    fn repeats(self, place: u64) -> bool {
        self.repeat && (place + 1).is_multiple_of(u64::from(PLANTED_EVERY))
    }

    /// How many of the `n` units from place `before` of their chunk are repeated.
    pub fn repeats_in(self, before: u64, n: usize) -> usize {
        if !self.repeat {
            return 0;
        }
        let every = u64::from(PLANTED_EVERY);
        ((before + n as u64) / every - before / every) as usize
    }

    /// Where the source window's unit `i` lands in the window fed, the window starting at place
    /// `before` of its chunk: after the units before it and their repeats. The first `skip`
    /// units of a window (its warm-up) are the first `position(before, skip)` of the window fed.
    pub fn position(self, before: u64, i: usize) -> usize {
        i + self.repeats_in(before, i)
    }

    /// The window fed for `packets`, the units from place `before` of their chunk, into `out`,
    /// and the packets repeated in it, once each, into `repeats` (what the repeats added to the
    /// window's bytes is counted from them). Each packet is cloned afresh, in order, as
    /// [`super::window::Window`] allocates its own each window, so that a control's packets lie in
    /// memory as its original's do (with each slot's storage reused instead, a control's encode
    /// per unit came out 0.86 to 1.4 times its original's where 1.05 was planted, depending on
    /// which of the two had the more compact window: BENCHMARKS, issue 46 "part four").
    pub fn window(
        self,
        packets: &[Packet],
        before: u64,
        out: &mut Vec<Packet>,
        repeats: &mut Vec<Packet>,
    ) {
        let (mut len, mut repeated) = (0, 0);
        for (i, p) in packets.iter().enumerate() {
            let projected = self.project.map(|project| project(p));
            let fed = projected.as_ref().unwrap_or(p);
            put(out, &mut len, fed);
            if self.repeats(before + i as u64) {
                put(out, &mut len, fed);
                put(repeats, &mut repeated, fed);
            }
        }
        out.truncate(len);
        repeats.truncate(repeated);
    }
}

/// `packet` cloned into `out[*len]` (pushed when `out` is that short), and `len` moved on.
fn put(out: &mut Vec<Packet>, len: &mut usize, packet: &Packet) {
    match out.get_mut(*len) {
        Some(slot) => *slot = packet.clone(),
        None => out.push(packet.clone()),
    }
    *len += 1;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{every_kind, full_datagram};
    use crate::model::kind;

    /// `n` distinct packets: sequence numbers 1..=n, two kinds of content in turn.
    fn packets(n: usize) -> Vec<Packet> {
        (0..n)
            .map(|i| {
                let mut p = match i % 2 {
                    0 => every_kind(),
                    _ => full_datagram(kind::QUOTE_UPDATE),
                };
                p.seq = i as u64 + 1;
                p
            })
            .collect()
    }

    #[test]
    fn a_controls_window_repeats_every_twentieth_unit_of_its_chunk_right_after_itself() {
        let control = Feed::of(None, true).unwrap();
        let source = packets(105);
        let (mut fed, mut repeats) = (Vec::new(), Vec::new());
        control.window(&source, 0, &mut fed, &mut repeats);
        // n + floor(n / 20): units 20, 40, 60, 80 and 100 (places 19, 39, ...) twice.
        assert_eq!(fed.len(), 105 + 105 / 20);
        assert_eq!(repeats.len(), 5);
        let mut at = 0;
        for (i, p) in source.iter().enumerate() {
            assert_eq!(control.position(0, i), at, "unit {i}");
            assert_eq!(&fed[at], p);
            at += 1;
            if (i + 1) % 20 == 0 {
                assert_eq!(&fed[at], p, "the repeat of unit {i}");
                assert_eq!(&repeats[(i + 1) / 20 - 1], p);
                at += 1;
            }
        }
        assert_eq!(at, fed.len());
        // A window starting at place 15 of its chunk: its units 4, 24, ... are the repeated.
        control.window(&source[..30], 15, &mut fed, &mut repeats);
        assert_eq!(fed.len(), 32);
        assert_eq!(
            (&fed[4], &fed[5], &fed[6]),
            (&source[4], &source[4], &source[5])
        );
        assert_eq!((&fed[25], &fed[26]), (&source[24], &source[24]));
        assert_eq!(repeats, [source[4].clone(), source[24].clone()]);
        assert_eq!(control.repeats_in(15, 30), 2);
        // The warm-up maps to the units before the first recorded one, repeats included: a
        // warm-up of 5 units from place 15 ends after unit 4's repeat.
        assert_eq!(control.position(15, 5), 6);
        assert_eq!(control.position(15, 4), 4);
        // Over a chunk, one unit in 20 exactly, whatever the windows' sizes.
        let repeated: usize = [(0, 7), (7, 512), (519, 4096), (4615, 385)]
            .iter()
            .map(|&(before, n)| control.repeats_in(before, n))
            .sum();
        assert_eq!(repeated, 5000 / 20);
    }

    #[test]
    fn a_lossy_formats_window_is_projected_one_for_one_and_the_source_is_fed_as_it_is() {
        assert!(Feed::of(None, false).is_none());
        fn drop_messages(p: &Packet) -> Packet {
            Packet {
                messages: Vec::new(),
                ..p.clone()
            }
        }
        let lossy = Feed::of(Some(drop_messages), false).unwrap();
        let source = packets(45);
        let (mut fed, mut repeats) = (Vec::new(), Vec::new());
        lossy.window(&source, 0, &mut fed, &mut repeats);
        assert_eq!(fed, source.iter().map(drop_messages).collect::<Vec<_>>());
        assert!(repeats.is_empty());
        assert_eq!((lossy.position(0, 44), lossy.repeats_in(0, 45)), (44, 0));
        // A lossy control: projected, then repeated.
        let both = Feed::of(Some(drop_messages), true).unwrap();
        both.window(&source, 0, &mut fed, &mut repeats);
        assert_eq!(fed.len(), 47);
        assert_eq!(fed[20], drop_messages(&source[19]));
    }
}
