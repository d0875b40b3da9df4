//! Each format's whole-window passes kept window by window, so that two formats can be compared
//! on the windows they shared (`report::windows`): a burst of interference lands in one format's
//! pass of one window, and a run's figure summed over all windows inherits it, where a comparison
//! window by window can see it for what it is.
//!
//! Memory stays bounded on any input: past [`MAX_BLOCKS`] blocks, neighbouring windows are joined
//! into blocks of two, then four, and so on; once every chunk is one block (a day of more than
//! [`MAX_BLOCKS`] chunks), neighbouring chunks are joined the same way ([`CHUNK_SHIFT`]). The rule
//! depends only on where a window lies in the input ([`WindowId`]) and the block width, so two
//! formats' blocks of one run (or of two shares of it) always line up once brought to the same
//! width ([`WindowTimes::at_shift`]).

use super::window::WindowId;

/// The most blocks one workload of one format keeps (a day at the default window has about
/// 12,000 windows; the bundled sample about 20).
pub const MAX_BLOCKS: usize = 2048;

/// The width from which a block is whole chunks: at `shift` below it a block is `1 << shift`
/// windows of one chunk; at `CHUNK_SHIFT + c`, `1 << c` whole chunks (`first` 0). No chunk holds
/// `1 << 32` windows (a window is at least one packet of a chunk of at most 1 GiB), so every
/// chunk is one block before chunks are joined.
pub const CHUNK_SHIFT: u32 = 32;

/// Where the window at `local` of `chunk` lies at width `shift`: its block's (chunk, first).
fn place(chunk: u64, local: u64, shift: u32) -> (u64, u64) {
    match shift.checked_sub(CHUNK_SHIFT) {
        None => (chunk, local >> shift << shift),
        Some(c) => (chunk >> c << c, 0),
    }
}

/// Consecutive windows of one chunk (or, past [`CHUNK_SHIFT`], consecutive whole chunks) timed whole, summed: `1 << shift` windows wide, starting at
/// window `first` of chunk `chunk` (a multiple of the width).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Block {
    pub chunk: u64,
    pub first: u64,
    /// Units timed (packets or messages, as the run's unit).
    pub units: u64,
    pub ns: u64,
}

impl Block {
    /// Where the block lies, for ordering and matching.
    pub fn key(&self) -> (u64, u64) {
        (self.chunk, self.first)
    }
}

/// One workload of one format: its whole-window passes, in blocks of `1 << shift` windows, in
/// input order.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct WindowTimes {
    /// Windows per block, as a power of two: 0 until the input has more than [`MAX_BLOCKS`].
    pub shift: u32,
    pub blocks: Vec<Block>,
}

impl WindowTimes {
    /// Adds a pass over window `id` that timed `units` in `ns`. Windows come in input order
    /// within a process.
    pub fn add(&mut self, id: WindowId, units: u64, ns: u64) {
        let (chunk, first) = place(id.chunk, id.local, self.shift);
        match self.blocks.last_mut() {
            Some(b) if b.key() == (chunk, first) => {
                b.units += units;
                b.ns += ns;
            }
            _ => self.blocks.push(Block {
                chunk,
                first,
                units,
                ns,
            }),
        }
        while self.blocks.len() > MAX_BLOCKS {
            self.widen(self.shift + 1);
        }
    }

    /// The blocks at width `1 << shift` (at least this one's own).
    pub fn at_shift(&self, shift: u32) -> Vec<Block> {
        let mut out = self.clone();
        out.widen(shift);
        out.blocks
    }

    /// Another share's windows of the same run (`measure::merge`): both at the wider width, in
    /// input order, blocks of the same place summed.
    pub fn absorb(&mut self, other: &WindowTimes) {
        self.widen(other.shift);
        self.blocks.extend(other.at_shift(self.shift));
        self.blocks.sort_by_key(Block::key);
        self.join_neighbours();
        while self.blocks.len() > MAX_BLOCKS {
            self.widen(self.shift + 1);
        }
    }

    /// Brings the blocks to width `1 << shift` (never narrower than they are).
    fn widen(&mut self, shift: u32) {
        if shift <= self.shift {
            return;
        }
        self.shift = shift;
        for b in &mut self.blocks {
            (b.chunk, b.first) = place(b.chunk, b.first, shift);
        }
        self.join_neighbours();
    }

    /// Sums neighbouring blocks of the same place (the blocks are in input order).
    fn join_neighbours(&mut self) {
        let mut joined: Vec<Block> = Vec::with_capacity(self.blocks.len());
        for b in self.blocks.drain(..) {
            match joined.last_mut() {
                Some(last) if last.key() == b.key() => {
                    last.units += b.units;
                    last.ns += b.ns;
                }
                _ => joined.push(b),
            }
        }
        self.blocks = joined;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(chunk: u64, local: u64) -> WindowId {
        WindowId { chunk, local }
    }

    /// A day of more chunks than blocks (issue 49: it spun for ever, each chunk one block that
    /// no width of windows could join): past every chunk's windows, whole chunks are joined,
    /// nothing is lost, and two shares of the run line up with one process's blocks.
    #[test]
    fn more_chunks_than_blocks_joins_whole_chunks() {
        let chunks = 3 * MAX_BLOCKS as u64;
        let mut whole = WindowTimes::default();
        let (mut first, mut second) = (WindowTimes::default(), WindowTimes::default());
        for chunk in 0..chunks {
            for local in 0..3 {
                whole.add(id(chunk, local), 2, 5);
                let share = if chunk < chunks / 3 {
                    &mut first
                } else {
                    &mut second
                };
                share.add(id(chunk, local), 2, 5);
            }
        }
        assert!(whole.blocks.len() <= MAX_BLOCKS);
        assert_eq!(whole.shift, CHUNK_SHIFT + 2);
        assert_eq!(
            whole.blocks[1],
            Block {
                chunk: 4,
                first: 0,
                units: 24,
                ns: 60
            }
        );
        let units: u64 = whole.blocks.iter().map(|b| b.units).sum();
        assert_eq!(units, chunks * 3 * 2);
        first.absorb(&second);
        assert_eq!(first, whole);
    }

    #[test]
    fn keeps_each_window_until_there_are_too_many_then_joins_neighbours() {
        let mut t = WindowTimes::default();
        for local in 0..MAX_BLOCKS as u64 {
            t.add(id(0, local), 10, 100 + local);
        }
        assert_eq!((t.shift, t.blocks.len()), (0, MAX_BLOCKS));
        // One more window: pairs of windows, and nothing lost.
        t.add(id(0, MAX_BLOCKS as u64), 10, 7);
        assert_eq!(t.shift, 1);
        assert_eq!(t.blocks.len(), MAX_BLOCKS / 2 + 1);
        assert_eq!(
            t.blocks[0],
            Block {
                chunk: 0,
                first: 0,
                units: 20,
                ns: 201
            }
        );
        assert_eq!(t.blocks[1].first, 2);
        let units: u64 = t.blocks.iter().map(|b| b.units).sum();
        assert_eq!(units, 10 * (MAX_BLOCKS as u64 + 1));
        // Later windows land in the block of their pair.
        t.add(id(0, MAX_BLOCKS as u64 + 1), 10, 3);
        assert_eq!(
            *t.blocks.last().unwrap(),
            Block {
                chunk: 0,
                first: MAX_BLOCKS as u64,
                units: 20,
                ns: 10
            }
        );
    }

    #[test]
    fn blocks_of_two_formats_or_of_two_shares_line_up_at_the_wider_width() {
        // One format timed in every window, another in every other one (as `--timing
        // alternate` does): at the same width their blocks cover the same windows.
        let (mut every, mut half) = (WindowTimes::default(), WindowTimes::default());
        for local in 0..3000 {
            every.add(id(1, local), 1, 1);
            if local % 2 == 0 {
                half.add(id(1, local), 1, 1);
            }
        }
        assert_eq!((every.shift, half.shift), (1, 0));
        let keys = |b: Vec<Block>| b.iter().map(Block::key).collect::<Vec<_>>();
        assert_eq!(keys(every.at_shift(1)), keys(half.at_shift(1)));
        // Shares absorb into the whole run's blocks.
        let (mut whole, mut a, mut b) = (
            WindowTimes::default(),
            WindowTimes::default(),
            WindowTimes::default(),
        );
        for chunk in 0..4 {
            for local in 0..700 {
                let t = chunk * 1000 + local;
                whole.add(id(chunk, local), 2, t);
                if chunk % 2 == 0 { &mut a } else { &mut b }.add(id(chunk, local), 2, t);
            }
        }
        // Shares in either order give what one process gave.
        let mut ab = a.clone();
        ab.absorb(&b);
        let mut ba = b.clone();
        ba.absorb(&a);
        assert_eq!(ab, whole);
        assert_eq!(ba, whole);
        assert_eq!(whole.shift, 1);
    }
}
