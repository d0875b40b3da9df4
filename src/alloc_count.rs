//! A global allocator that counts each thread's allocations and the bytes they asked for, so a
//! run can say what a format allocates per unit (measured in an untimed pass, see
//! `measure::allocations`) and a unit test can assert that a steady-state loop allocates
//! nothing while other tests run on other threads.
//!
//! Installed by the `shootout` binary (`src/main.rs`) and by the crate's unit tests (one
//! allocator serves every unit test: a binary can have only one). Benches, fuzz targets and the
//! integration test binary do not install it; there [`counting`] is false and a run leaves its
//! allocation columns empty rather than reporting zeros it did not count.
//!
//! Cost: each `alloc`, `alloc_zeroed` and `realloc` adds to one thread-local pair of counters
//! (no atomic, no lock, no branch beyond the thread-local's own) before calling the system
//! allocator, which it otherwise leaves alone; `dealloc` is not counted. Nothing else is done
//! until the counters are read. A timed region therefore sees the cost only in a format that
//! allocates inside it, where the allocator's own work is already many times larger; the
//! formats that allocate nothing once warm (all but capnp's encode and bitcode's decode) see
//! nothing.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// What one thread allocated: the calls and the bytes they asked for. A `realloc` counts as
/// one allocation of its new size (a `Vec` growing from 8 to 16 to 32 bytes counts 56).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Allocated {
    pub count: u64,
    pub bytes: u64,
}

impl std::ops::Sub for Allocated {
    type Output = Allocated;
    fn sub(self, before: Allocated) -> Allocated {
        Allocated {
            count: self.count - before.count,
            bytes: self.bytes - before.bytes,
        }
    }
}

impl std::ops::AddAssign for Allocated {
    fn add_assign(&mut self, other: Allocated) {
        self.count += other.count;
        self.bytes += other.bytes;
    }
}

std::thread_local! {
    static ALLOCATED: Cell<Allocated> = const { Cell::new(Allocated { count: 0, bytes: 0 }) };
}

/// What this thread has allocated so far (zero for ever where [`CountingAlloc`] is not the
/// global allocator).
pub fn allocated() -> Allocated {
    ALLOCATED.with(Cell::get)
}

/// Allocations (`alloc`, `alloc_zeroed` and `realloc`) made by this thread so far.
pub fn allocations() -> u64 {
    allocated().count
}

/// Whether this process's global allocator is [`CountingAlloc`]: one allocation, and whether
/// the counter saw it.
pub fn counting() -> bool {
    let before = allocations();
    drop(std::hint::black_box(Vec::<u8>::with_capacity(1)));
    allocations() > before
}

#[inline(always)]
fn count(bytes: usize) {
    // `try_with`: the thread-local may already be gone while a thread's destructors run.
    let _ = ALLOCATED.try_with(|c| {
        let a = c.get();
        c.set(Allocated {
            count: a.count + 1,
            bytes: a.bytes + bytes as u64,
        })
    });
}

/// The counting allocator: the system allocator, each allocation counted for its thread.
pub struct CountingAlloc;

// SAFETY: defers every call to the system allocator with the caller's arguments; only counts.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: same contract as ours.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size);
        // SAFETY: same contract as ours.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[cfg(test)]
#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_this_threads_allocations_and_their_bytes() {
        assert!(counting());
        let bytes = |count, bytes| Allocated { count, bytes };
        let before = allocated();
        let mut v: Vec<u8> = Vec::with_capacity(100);
        assert_eq!(allocated() - before, bytes(1, 100));
        // A realloc is one more allocation, of its new size (the length is 0: 200 bytes).
        v.reserve_exact(200);
        assert_eq!(allocated() - before, bytes(2, 300));
        drop(v);
        assert_eq!(allocated() - before, bytes(2, 300));
        // Another thread's allocations are its own.
        std::thread::spawn(|| drop(std::hint::black_box(vec![0u8; 4096])))
            .join()
            .unwrap();
        let after = allocated() - before;
        assert!(after.count >= 2 && after.bytes < 4096, "{after:?}");
    }
}
