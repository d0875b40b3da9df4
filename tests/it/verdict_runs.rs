//! The runs behind README's verdict are in the repository (docs/verdict/: the default run's
//! `runs.csv`, its windows file and the formats' capabilities, as `./run_shootout.sh` left them),
//! and `shootout report` on them gives the README's table, row for row (issue 49: "every figure
//! comes with the runs behind it" while the runs were git-ignored).

use std::path::Path;

#[test]
fn the_readmes_verdict_is_what_report_makes_of_the_runs_kept_beside_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let out = crate::common::shootout(&[
        "report",
        root.join("docs/verdict/runs.csv").to_str().unwrap(),
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary = std::fs::read_to_string(dir.path().join("summary.md")).unwrap();
    // The first input's verdict table (DEEP10's, the real sample): its rows after the header.
    let rows: Vec<&str> = summary
        .lines()
        .skip_while(|l| !l.starts_with("| need |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .collect();
    assert_eq!(rows.len(), 8, "eight needs: {rows:?}");
    assert!(summary.contains("DEEP10.pcap.gz [normal + taskset]: median of 12 runs"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    for row in rows {
        assert!(
            readme.lines().any(|l| l == row),
            "README's verdict lacks the row report makes of docs/verdict/runs.csv:\n{row}"
        );
    }
}
