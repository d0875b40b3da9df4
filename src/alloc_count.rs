//! Unit tests only: the crate's test binary runs on a global allocator that counts the calling
//! thread's allocations, so a test can assert that a steady-state loop allocates nothing while
//! other tests run in parallel on other threads. One allocator serves every unit test (a binary
//! can have only one).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

std::thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

/// Allocations (`alloc`, `alloc_zeroed` and `realloc`) made by this thread so far.
pub fn allocations() -> u64 {
    ALLOCATIONS.with(|c| c.get())
}

fn count() {
    // `try_with`: the thread-local may already be gone while a thread's destructors run.
    let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
}

struct CountingAlloc;

// SAFETY: defers every call to the system allocator with the caller's arguments; only counts.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: same contract as ours.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: same contract as ours.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;
