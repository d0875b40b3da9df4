//! The few operating-system hints the hot paths use, in one place: safe wrappers that are
//! no-ops where the OS lacks them (and under Miri, which cannot call the OS). A hint that fails
//! changes speed, never results, so failures are ignored.

/// Asks for transparent huge pages behind `buf` (Linux `MADV_HUGEPAGE`; the kernel's default
/// here is to use them only where asked). For a large table read at random, such as the book
/// check's ring of live orders, a 4 KiB page per access misses the TLB on nearly every one.
/// Call it before the memory is first touched.
pub fn advise_huge_pages<T>(buf: &mut Vec<T>) {
    #[cfg(all(target_os = "linux", not(miri)))]
    {
        const PAGE: usize = 4096;
        let start = buf.as_mut_ptr() as usize;
        let end = start + buf.capacity() * std::mem::size_of::<T>();
        let (first, last) = (start.next_multiple_of(PAGE), end / PAGE * PAGE);
        if last > first {
            // SAFETY: [first, last) lies inside `buf`'s allocation, which stays mapped while we
            // hold `&mut buf`; MADV_HUGEPAGE changes how pages are backed, never their contents.
            unsafe {
                libc::madvise(
                    first as *mut libc::c_void,
                    last - first,
                    libc::MADV_HUGEPAGE,
                );
            }
        }
    }
    #[cfg(not(all(target_os = "linux", not(miri))))]
    let _ = buf;
}

/// Starts loading the cache line of `r` without waiting for it: the book check names the slots
/// of the next few order messages this way, so their cache misses overlap instead of queueing.
#[inline]
pub fn prefetch<T>(r: &T) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: SSE is part of x86_64; a prefetch never faults and changes no memory, and
        // the address is that of a live reference anyway.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(r).cast::<i8>()) };
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    let _ = r;
}

/// Starts taking the cache line of `r` for writing without waiting for it: the book's batches
/// are written by the parser and read by the book's thread, so each line the parser comes back
/// to must first be taken from the other core; asked for a few ops ahead, that wait overlaps
/// with parsing instead of stalling the store.
#[inline]
pub fn prefetch_write<T>(r: &T) {
    // `PREFETCHW` itself: `_mm_prefetch` with `_MM_HINT_ET0` becomes a plain read prefetch
    // unless the whole build targets `prfchw`. CPUs without it (Intel before Broadwell) run it
    // as a no-op.
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: a hint that never faults, reads or writes no memory and leaves flags alone.
    unsafe {
        std::arch::asm!(
            "prefetchw [{}]",
            in(reg) std::ptr::from_ref(r),
            options(nostack, preserves_flags, readonly)
        );
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    let _ = r;
}

/// Turns `O_DIRECT` on or off for `file` (Linux `fcntl(F_SETFL)`): writes then go from our
/// buffer straight to the disk, without being copied into the page cache and written back later.
/// Returns whether the flag is now as asked; `false` where the file system or OS does not do
/// direct I/O (tmpfs, pipes, `/dev/null`, not Linux), and the file is then left as it was.
pub fn set_direct(file: &std::fs::File, on: bool) -> bool {
    #[cfg(all(target_os = "linux", not(miri)))]
    {
        use std::os::fd::AsRawFd;
        let fd = file.as_raw_fd();
        // SAFETY: plain fcntl calls on a descriptor that stays open while `file` is borrowed;
        // they read or write no memory of ours.
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFL);
            if flags < 0 {
                return false;
            }
            let want = if on {
                flags | libc::O_DIRECT
            } else {
                flags & !libc::O_DIRECT
            };
            want == flags || libc::fcntl(fd, libc::F_SETFL, want) == 0
        }
    }
    #[cfg(not(all(target_os = "linux", not(miri))))]
    {
        let _ = file;
        !on
    }
}

/// What the kernel has done to the calling thread so far, as `getrusage(RUSAGE_THREAD)` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreadUsage {
    /// Minor page faults: first touches of memory.
    pub minor_faults: u64,
    /// Involuntary context switches: the CPU taken away for another thread or an interrupt's
    /// work (`ru_nivcsw`), not given up by waiting.
    pub involuntary_switches: u64,
}

/// The calling thread's [`ThreadUsage`], or `None` where the OS cannot say. The measuring loop
/// reads it around each timed pass (outside the clock reads) to show that no pass paid for a
/// first touch of memory (a fault costs microseconds, as much as hundreds of packets' work, and
/// lands exactly in the tails) and to see the passes the kernel interrupted.
pub fn thread_usage() -> Option<ThreadUsage> {
    #[cfg(all(target_os = "linux", not(miri)))]
    {
        let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
        // SAFETY: getrusage writes one `rusage` into the memory we hand it and nothing else.
        let ok = unsafe { libc::getrusage(libc::RUSAGE_THREAD, usage.as_mut_ptr()) } == 0;
        // SAFETY: zero-initialised, then filled by the call: every field is a plain integer.
        ok.then(|| {
            let u = unsafe { usage.assume_init() };
            ThreadUsage {
                minor_faults: u.ru_minflt as u64,
                involuntary_switches: u.ru_nivcsw as u64,
            }
        })
    }
    #[cfg(not(all(target_os = "linux", not(miri))))]
    None
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_the_first_touch_of_fresh_pages() {
        let Some(before) = super::thread_usage().map(|u| u.minor_faults) else {
            return;
        };
        // 64 MiB of fresh pages straight from mmap (the allocator might hand back pages some
        // earlier code touched), touched once per 4 KiB page.
        const LEN: usize = 64 << 20;
        // SAFETY: a private anonymous mapping of our own, written only within its length and
        // unmapped before the end of the test.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                LEN,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert_ne!(map, libc::MAP_FAILED);
        let bytes = map.cast::<u8>();
        let touch = |value: u8| {
            for page in (0..LEN).step_by(4096) {
                // SAFETY: inside the mapping.
                unsafe { bytes.add(page).write_volatile(value) };
            }
        };
        touch(1);
        let touched = super::thread_usage().unwrap().minor_faults - before;
        // Transparent huge pages may back some of it with 2 MiB pages (one fault each).
        assert!(touched >= 32, "{touched} faults for 16,384 fresh pages");
        let again = super::thread_usage().unwrap().minor_faults;
        touch(2);
        assert_eq!(
            super::thread_usage().unwrap().minor_faults,
            again,
            "pages touched twice"
        );
        // SAFETY: the mapping made above, no longer used.
        unsafe { libc::munmap(map, LEN) };
    }

    #[test]
    fn counts_a_switch_forced_by_a_busy_sibling_on_one_cpu() {
        // Two threads spinning on one CPU: the scheduler must take it from one to run the
        // other, which the spinning thread sees as involuntary switches. Skipped where the OS
        // cannot say or this thread cannot be pinned.
        let Some(before) = super::thread_usage() else {
            return;
        };
        let cpu = match crate::measure::affinity::allowed_cpus().first() {
            Some(&c) => c,
            None => return,
        };
        if crate::measure::affinity::pin(cpu).is_err() {
            return;
        }
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let spin = {
            let stop = stop.clone();
            std::thread::spawn(move || {
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    std::hint::spin_loop();
                }
            })
        };
        let started = std::time::Instant::now();
        let mut after = before;
        while after.involuntary_switches == before.involuntary_switches
            && started.elapsed() < std::time::Duration::from_secs(5)
        {
            std::hint::spin_loop();
            after = super::thread_usage().unwrap();
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        spin.join().unwrap();
        assert!(after.involuntary_switches > before.involuntary_switches);
        assert!(after.minor_faults >= before.minor_faults);
    }
}
