//! gen → inspect: what the parser counts in a generated file equals what the generator says it
//! wrote, for both feeds and both capture formats, gzip'd or not.

use std::process::Command;

fn shootout(args: &[&str]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_shootout"))
        .args(args)
        .output()
        .expect("run shootout");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

#[test]
fn inspect_counts_what_gen_wrote() {
    let dir = tempfile::tempdir().unwrap();
    for (feed, capture, name) in [
        ("deep", "pcapng", "deep.pcapng.gz"),
        ("deep", "pcap", "deep.pcap"),
        ("tops", "pcapng", "tops.pcapng"),
    ] {
        let path = dir.path().join(name);
        let path = path.to_str().unwrap();
        let gen = shootout(&[
            "gen",
            "--out",
            path,
            "--feed",
            feed,
            "--capture",
            capture,
            "--packets",
            "20000",
            "--seed",
            "7",
            "--json",
        ]);
        let seen = shootout(&["inspect", "--json", path]);
        for key in [
            "packets",
            "heartbeats",
            "messages",
            "first_send_time",
            "last_send_time",
        ] {
            assert_eq!(seen[key], gen[key], "{name}: {key}");
        }
        assert_eq!(seen["by_type"], gen["by_type"], "{name}");
        assert_eq!(seen["symbols"], gen["symbols"], "{name}");
        assert_eq!(seen["feed"], feed);
        assert_eq!(seen["capture"], capture);
        assert_eq!(seen["gaps"], 0);
        assert_eq!(seen["duplicates"], 0);
        assert_eq!(seen["unknown"], 0);
        assert_eq!(seen["packets"], 20000);
        assert_eq!(seen["frames"], 20000);
        let messages = seen["messages"].as_u64().unwrap();
        assert!(
            messages > 40_000,
            "{name}: several messages per packet, got {messages}"
        );
    }
}
