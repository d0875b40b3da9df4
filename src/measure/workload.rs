//! What a format is timed doing ([`Workload`]) and how a pass is timed ([`Timing`]), with a
//! container holding one value per workload ([`PerWorkload`]), so that results, passes, CSV
//! columns and checks loop over the workloads instead of spelling each out.

use std::ops::{Index, IndexMut};

/// One of the things every format is timed doing to every window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Workload {
    /// Builds the format's representation of each packet (`ser` in the CSV).
    Encode,
    /// Reads only the fields the aggregation needs (`de`).
    Selective,
    /// Reads every field of every message and folds it into a checksum (`de_all`).
    Complete,
}

impl Workload {
    /// Every workload, in column order.
    pub const ALL: [Workload; 3] = [Workload::Encode, Workload::Selective, Workload::Complete];

    /// The stem of its CSV columns, `.hgrm` files and table headings (`ser`, `de`, `de_all`):
    /// public names, kept from before the workloads had names of their own.
    pub const fn column(self) -> &'static str {
        match self {
            Workload::Encode => "ser",
            Workload::Selective => "de",
            Workload::Complete => "de_all",
        }
    }

    /// Its name in messages (`encode`, `selective decode`, `complete decode`).
    pub const fn name(self) -> &'static str {
        match self {
            Workload::Encode => "encode",
            Workload::Selective => "selective decode",
            Workload::Complete => "complete decode",
        }
    }
}

/// How a pass is timed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Timing {
    /// The clock read right before and after each unit: the latency distribution.
    PerUnit,
    /// One clock pair around the whole window: the throughput, neither quantized by the clock's
    /// steps nor carrying its cost per read.
    Window,
}

impl Timing {
    /// Both timings, per unit first (the order a window timed both ways takes them in).
    pub const ALL: [Timing; 2] = [Timing::PerUnit, Timing::Window];
}

/// One `T` per [`Workload`], indexed by it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PerWorkload<T>(pub [T; Workload::ALL.len()]);

impl<T> PerWorkload<T> {
    /// Each workload with its value, in [`Workload::ALL`] order.
    pub fn iter(&self) -> impl Iterator<Item = (Workload, &T)> {
        Workload::ALL.into_iter().zip(&self.0)
    }

    /// The values, in [`Workload::ALL`] order.
    pub fn values(&self) -> std::slice::Iter<'_, T> {
        self.0.iter()
    }

    /// `f` of each value.
    pub fn map<U>(&self, f: impl FnMut(&T) -> U) -> PerWorkload<U> {
        PerWorkload(self.0.each_ref().map(f))
    }
}

impl<T> Index<Workload> for PerWorkload<T> {
    type Output = T;
    #[inline(always)]
    fn index(&self, w: Workload) -> &T {
        &self.0[w as usize]
    }
}

impl<T> IndexMut<Workload> for PerWorkload<T> {
    #[inline(always)]
    fn index_mut(&mut self, w: Workload) -> &mut T {
        &mut self.0[w as usize]
    }
}

/// Summing the passes of several `--jobs` workers.
impl<T: std::ops::AddAssign + Copy> std::ops::AddAssign for PerWorkload<T> {
    fn add_assign(&mut self, other: PerWorkload<T>) {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a += b;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workloads_index_their_own_slot_in_column_order() {
        let mut p = PerWorkload([0u64; 3]);
        p[Workload::Complete] = 7;
        p[Workload::Encode] = 1;
        assert_eq!(p.0, [1, 0, 7]);
        let columns: Vec<&str> = p.iter().map(|(w, _)| w.column()).collect();
        assert_eq!(columns, ["ser", "de", "de_all"]);
        p += PerWorkload([1, 2, 3]);
        assert_eq!(p.0, [2, 2, 10]);
    }
}
