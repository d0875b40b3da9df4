//! Bounded memory whatever the window: a capture whose first windows hold only heartbeats (bytes,
//! no message), then a busy stretch, run at the window sizes issue 46 found exhausting the
//! machine (a heartbeat window taught the harness kilobytes per message, and the next busy window
//! reserved gigabytes per buffer). The run must complete under a data limit, and its peak
//! resident memory, as the kernel accounts it for that child alone, stay under 1 GiB.

use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};

use crate::common::{pcap, price_level, segment, udp_frame, Order, TS};

/// `heartbeats` empty DEEP segments, then `busy` segments of `per_packet` price level updates.
fn heartbeats_then_busy(heartbeats: u64, busy: u64, per_packet: u64) -> Vec<u8> {
    let symbols = ["ZIEXT", "AAPL", "MSFT", "IBM", "SPY"];
    let mut frames = Vec::new();
    let mut seq = 1;
    for i in 0..heartbeats {
        frames.push(udp_frame(&segment(0x8004, seq, TS + i as i64, &[]), 0));
    }
    for i in 0..busy {
        let messages: Vec<Vec<u8>> = (0..per_packet)
            .map(|m| {
                let symbol = symbols[((i + m) % symbols.len() as u64) as usize];
                price_level(
                    b'8',
                    symbol,
                    100 + m as u32,
                    990_000 + (i * per_packet + m) as i64,
                )
            })
            .collect();
        let send = TS + (heartbeats + i) as i64;
        frames.push(udp_frame(&segment(0x8004, seq, send, &messages), 0));
        seq += per_packet;
    }
    pcap(Order::Little, true, &frames)
}

/// Runs the shootout binary with `args` under a limit on its data segment (heap and private
/// mappings) of `limit` bytes; returns whether it succeeded, its stderr, and its peak resident
/// set in bytes (`wait4`'s rusage: this child's alone).
// The child is reaped by `wait4` (for its own rusage), which `Child::wait` cannot give.
#[allow(clippy::zombie_processes)]
fn run_limited(args: &[&str], limit: u64, stderr: &std::path::Path) -> (bool, String, u64) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_shootout"));
    command
        .args(args)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(stderr).unwrap());
    // SAFETY: setrlimit is async-signal-safe, and nothing else runs between fork and exec.
    unsafe {
        command.pre_exec(move || {
            let rl = libc::rlimit {
                rlim_cur: limit,
                rlim_max: limit,
            };
            if libc::setrlimit(libc::RLIMIT_DATA, &rl) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let child = command.spawn().expect("run shootout");
    let (mut status, mut usage) = (0, unsafe { std::mem::zeroed::<libc::rusage>() });
    // SAFETY: the pid is this test's own child, waited for once (never through `Child`).
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as i32, "wait4");
    let ok = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
    let err = std::fs::read_to_string(stderr).unwrap_or_default();
    (ok, err, usage.ru_maxrss as u64 * 1024)
}

#[test]
fn heartbeat_windows_then_a_busy_one_run_in_bounded_memory_at_every_window_size() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("heartbeats-then-busy.pcap");
    // 2,048 heartbeats fill the first window at every size tried; 1,024 packets of 40 messages
    // follow (41,000 messages).
    std::fs::write(&input, heartbeats_then_busy(2_048, 1_024, 40)).unwrap();
    const GIB: u64 = 1 << 30;
    for window in ["512", "1024", "2048"] {
        let csv = dir.path().join(format!("w{window}.csv"));
        let args = [
            "run",
            input.to_str().unwrap(),
            "--window",
            window,
            "--formats",
            "raw,sbe",
            "--no-stored-size",
            "--csv",
            csv.to_str().unwrap(),
        ];
        let (ok, err, peak) = run_limited(&args, 2 * GIB, &dir.path().join("stderr"));
        assert!(
            ok,
            "--window {window} failed under a 2 GiB data limit: {err}"
        );
        assert!(
            peak < GIB,
            "--window {window}: peak resident set {} MiB",
            peak >> 20
        );
        // Every message of the busy stretch was measured, by every row (twins included).
        let rows = crate::common::csv_rows(&csv);
        assert!(rows.len() >= 2, "{rows:?}");
        assert!(rows.iter().all(|r| r["messages"] == "40960"), "{rows:?}");
    }
}
