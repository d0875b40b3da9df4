//! The README and docs/ link to each other by file and section: every relative link must name a
//! file that exists and, where it names a section (`file.md#anchor`), a heading whose GitHub
//! anchor is that one. A renamed heading or a moved file fails here rather than on a reader.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The Markdown files a reader moves between: README.md, docs/, data/ and deploy/.
pub(crate) fn documents() -> Vec<PathBuf> {
    let mut files = vec![root().join("README.md"), root().join("CHANGELOG.md")];
    let mut dirs = vec![
        root().join("docs"),
        root().join("data"),
        root().join("deploy"),
    ];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|ext| ext == "md") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The text outside fenced code blocks, line by line (a `#` in a shell block is not a heading).
fn prose(text: &str) -> Vec<&str> {
    let mut fenced = false;
    text.lines()
        .filter(|line| {
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
                return false;
            }
            !fenced
        })
        .collect()
}

/// GitHub's anchor for a heading: lower case; letters, digits, `-` and `_` kept, spaces become
/// `-`, everything else dropped; a repeated anchor gets `-1`, `-2`, ...
fn anchors(text: &str) -> HashSet<String> {
    let mut seen = HashSet::new();
    for line in prose(text) {
        let Some(heading) = line.trim_start_matches('#').strip_prefix(' ') else {
            continue;
        };
        if !line.starts_with('#') {
            continue;
        }
        let slug: String = heading
            .trim()
            .to_lowercase()
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                _ => None,
            })
            .collect();
        let mut anchor = slug.clone();
        let mut n = 0;
        while !seen.insert(anchor.clone()) {
            n += 1;
            anchor = format!("{slug}-{n}");
        }
    }
    seen
}

/// Every link target `](target)` in the prose, with the line it is on.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (number, line) in prose(text).into_iter().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            if let Some(end) = rest.find(')') {
                found.push((number + 1, rest[..end].to_string()));
                rest = &rest[end..];
            }
        }
    }
    found
}

#[test]
fn every_relative_link_names_a_file_and_heading_that_exist() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for document in documents() {
        let text = std::fs::read_to_string(&document).unwrap();
        let dir = document.parent().unwrap();
        for (line, target) in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let path = if file.is_empty() {
                document.clone()
            } else {
                dir.join(file)
            };
            let name = document.strip_prefix(root()).unwrap().display();
            checked += 1;
            if !path.exists() {
                broken.push(format!("{name} (prose line {line}): no file {target}"));
                continue;
            }
            if anchor.is_empty() || path.extension().is_none_or(|ext| ext != "md") {
                continue;
            }
            let headings = anchors(&std::fs::read_to_string(&path).unwrap());
            if !headings.contains(anchor) {
                broken.push(format!(
                    "{name} (prose line {line}): no heading #{anchor} in {file}"
                ));
            }
        }
    }
    assert!(checked >= 10, "only {checked} relative links found");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn anchors_follow_githubs_rule() {
    // Anchors by github-slugger's rule (the one GitHub renders with), worked by hand.
    let text = "# A/A twins: the method's resolution (issue 39)\n## Per message\n## Per message\n\
                ```sh\n# not a heading\n```\n### `--jobs N` and CSV_columns\n";
    let found = anchors(text);
    for anchor in [
        "aa-twins-the-methods-resolution-issue-39",
        "per-message",
        "per-message-1",
        "--jobs-n-and-csv_columns",
    ] {
        assert!(found.contains(anchor), "{anchor} not in {found:?}");
    }
    assert_eq!(found.len(), 4, "{found:?}");
}
