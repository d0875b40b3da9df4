//! Memory a timed pass touches is written before the pass, never in it.
//!
//! A reserved but never written page is mapped by the kernel on its first touch: a minor page
//! fault of a few microseconds, as much as hundreds of packets' work. Taken inside a timed pass,
//! it lands in the tail (0.1% of a sample's ~24,000 timed packets is exactly its p99.9) and
//! measures the harness, not the format. So every buffer a pass writes has each of its pages
//! written once when it grows ([`Written::reserve`]), and each pass is wrapped in
//! [`count_faults`], which reads the thread's fault counter before and after it (outside the
//! clock reads) so that a run shows what is left: `timed_faults`, 0 when all is well.

use crate::model::Packet;

/// A `Vec` whose whole capacity has been written once, so that filling it up to its capacity
/// never faults. Growth happens only in [`Written::reserve`], outside any timed pass.
#[derive(Debug, Default)]
pub struct Written<T> {
    vec: Vec<T>,
    /// The capacity whose pages were written; another capacity means the `Vec` moved or grew.
    written: usize,
}

impl<T> Written<T> {
    /// Makes room for `len` elements in all and writes every page not yet written.
    /// The contents are kept.
    pub fn reserve(&mut self, len: usize) {
        let v = &mut self.vec;
        if v.capacity() >= len && v.capacity() == self.written {
            return;
        }
        crate::formats::reserve_touched(v, len.saturating_sub(v.len()));
        self.written = v.capacity();
    }

    /// The `Vec` itself, for a pass to fill. Growing it past its capacity there would move it
    /// onto fresh pages; [`count_faults`] would show it.
    pub fn vec(&mut self) -> &mut Vec<T> {
        &mut self.vec
    }

    pub fn as_slice(&self) -> &[T] {
        &self.vec
    }
}

/// How much of the calling thread's stack [`touch_stack`] writes: far more than any codec's
/// deepest call needs (a debug build's frames included: fory's derived readers take several
/// pages a frame there, and its decode reached more than 256 KiB below the run), less than half
/// a thread's stack (2 MiB for a spawned thread, 8 MiB for a main thread).
pub const STACK_TOUCHED: usize = 768 * 1024;

/// Writes [`STACK_TOUCHED`] bytes of this thread's stack below the caller's frame, one byte per
/// page, so that the stack's pages are mapped before any pass is timed: a codec whose call chain
/// first reaches a deeper stack page inside a timed pass would take a page fault there that the
/// harness put in its way (a debug build's large frames did so in a test).
#[inline(never)]
pub fn touch_stack() {
    let mut stack = [0u8; STACK_TOUCHED];
    for at in (0..STACK_TOUCHED).step_by(4096) {
        stack[at] = 1;
    }
    std::hint::black_box(&mut stack);
}

/// How much heap [`warm_heap`] writes once before the first pass: more than any codec allocates
/// at once for one packet.
const HEAP_WRITTEN: usize = 16 << 20;

/// Makes a codec's own allocations inside a timed pass land on pages already written.
///
/// A codec that allocates per packet (msgpack's scratch buffer, fory's and bebop's decoded
/// `Vec`s, capnp's segment table) takes its memory from glibc's heap, which gives pages back to
/// the kernel whenever 128 KiB at a heap's top are free, and then maps them afresh on the next
/// touch: a page fault inside the pass, which a long-running process would not see, and which
/// other threads' frees can trigger (the test harness runs tests side by side: one such fault
/// landed in a msgpack decode pass). So glibc is told never to trim and to serve everything
/// below 32 MiB from the heap (which also stops it moving that threshold as it goes), and
/// 16 MiB of heap is written once and freed. Other allocators and platforms are left as
/// they are; `timed_faults` counts whatever is left.
pub fn warm_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu", not(miri)))]
    {
        // SAFETY: mallopt only sets two of glibc's tunables, each within its range (the mmap
        // threshold's maximum is 32 MiB on 64-bit); it allocates nothing.
        unsafe {
            libc::mallopt(libc::M_TRIM_THRESHOLD, i32::MAX);
            libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        }
        let mut heap: Vec<u8> = Vec::new();
        crate::formats::reserve_touched(&mut heap, HEAP_WRITTEN);
        std::hint::black_box(&mut heap);
    }
}

/// Reads every cache line of `packets` (their headers and their messages), so that every
/// format's turn in a window starts from the same state of the caches: its own input read last.
///
/// Without it a format inherits its predecessor's reads. The source's packets are read by every
/// format, so whichever format went before left them warm; a positive control reads a copy of its
/// own (`measure::fed`) that no predecessor touched, and its encode came out 1.1 to 1.4 times its
/// original's where 1.05 was planted (BENCHMARKS, issue 46). Untimed, outside every clock read.
pub fn read_through(packets: &[Packet]) {
    const LINE: usize = 64;
    let mut sum = 0u8;
    for p in packets {
        // SAFETY: each pointer is within a live allocation (the slice of packets, a packet's
        // messages) and `u8` has no invalid values or alignment; volatile so that no read is
        // optimized away.
        sum ^= unsafe { std::ptr::read_volatile((p as *const Packet).cast::<u8>()) };
        let bytes = std::mem::size_of_val(p.messages.as_slice());
        let start = p.messages.as_ptr().cast::<u8>();
        for at in (0..bytes).step_by(LINE) {
            // SAFETY: as above, `at` < the messages' size in bytes.
            sum ^= unsafe { std::ptr::read_volatile(start.add(at)) };
        }
    }
    std::hint::black_box(sum);
}

/// Runs `pass` and adds the minor page faults this thread took meanwhile to `faults`
/// ([`super::interference::observe`]: outside whatever clock reads `pass` makes).
#[inline(always)]
pub fn count_faults<R>(faults: &mut u64, pass: impl FnOnce() -> R) -> R {
    let (out, taken) = super::interference::observe(pass);
    *faults += taken.faults;
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reserved_buffer_fills_without_a_fault_keeps_its_contents_and_grows_only_when_needed() {
        let mut buf = Written::<u64>::default();
        buf.vec().extend_from_slice(&[7, 8]);
        buf.reserve(10);
        let small = buf.vec().capacity();
        buf.reserve(5);
        assert_eq!(buf.vec().capacity(), small);
        buf.reserve(4 << 20);
        assert_eq!(buf.as_slice(), [7, 8]);
        assert!(buf.vec().capacity() >= 4 << 20);
        let mut faults = 0;
        count_faults(&mut faults, || {
            let v = buf.vec();
            v.clear();
            v.extend((0..4 << 20).map(|i| i as u64));
        });
        assert_eq!(faults, 0);
        assert_eq!(buf.as_slice()[12345], 12345);
    }
}
