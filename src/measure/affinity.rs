//! Which CPUs this process may run on, and pinning it to one: `run --jobs N` gives each worker
//! process a core of its own, so two workers never time-share one (which would put the other's
//! work inside every timed region).

use std::io;

/// The CPUs this process may run on (its affinity mask: `taskset` and cgroups narrow it), in
/// ascending order. Falls back to `0..available_parallelism` where the mask cannot be read.
pub fn allowed_cpus() -> Vec<usize> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: a zeroed cpu_set_t is a valid empty set; the call writes at most its size.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        let ok = unsafe { libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) } == 0;
        if ok {
            return (0..libc::CPU_SETSIZE as usize)
                // SAFETY: the index is below CPU_SETSIZE.
                .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
                .collect();
        }
    }
    let n = std::thread::available_parallelism().map_or(1, |n| n.get());
    (0..n).collect()
}

/// Pins the calling process (all its threads created after this) to `cpu`.
pub fn pin(cpu: usize) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        if cpu >= libc::CPU_SETSIZE as usize {
            return Err(io::Error::other(format!("CPU {cpu} is out of range")));
        }
        // SAFETY: as above; CPU_SET's index is checked against CPU_SETSIZE.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        unsafe { libc::CPU_SET(cpu, &mut set) };
        if unsafe { libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = cpu;
        Err(io::Error::other("pinning to a CPU is only done on Linux"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_allowed_set_is_sorted_and_non_empty_and_pinning_to_one_of_it_works() {
        let cpus = allowed_cpus();
        assert!(!cpus.is_empty());
        assert!(cpus.windows(2).all(|w| w[0] < w[1]));
        // Pin a thread of our own (the mask is per thread on Linux), then read it back.
        let last = *cpus.last().unwrap();
        let seen = std::thread::spawn(move || {
            pin(last).unwrap();
            allowed_cpus()
        })
        .join()
        .unwrap();
        assert_eq!(seen, vec![last]);
        assert!(pin(usize::MAX).is_err());
    }
}
