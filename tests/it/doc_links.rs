//! The README and docs/ link to each other by file and section: every relative link must name a
//! file that exists and, where it names a section (`file.md#anchor`), a heading whose GitHub
//! anchor is that one. A renamed heading or a moved file fails here rather than on a reader.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

pub(crate) fn root() -> &'static Path {
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

/// GitHub's anchor for one heading's text, before a repeat gets its `-1`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// GitHub's anchors for the headings of a text, in order: each heading's [`slug`], a repeated
/// one followed by `-1`, `-2`, ... (a `#` inside a code block is no heading).
fn anchor_names(text: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    sections(text)
        .iter()
        .map(|s| {
            let slug = slug(&s.heading);
            let mut anchor = slug.clone();
            let mut n = 0;
            while !seen.insert(anchor.clone()) {
                n += 1;
                anchor = format!("{slug}-{n}");
            }
            anchor
        })
        .collect()
}

/// GitHub's anchor for a heading: lower case; letters, digits, `-` and `_` kept, spaces become
/// `-`, everything else dropped; a repeated anchor gets `-1`, `-2`, ...
fn anchors(text: &str) -> HashSet<String> {
    anchor_names(text).into_iter().collect()
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

/// A heading and what follows it up to the next heading: (level, heading, line, body).
struct Section {
    level: usize,
    heading: String,
    line: usize,
    body: String,
    /// The body without its code blocks.
    prose: String,
}

/// The sections of a Markdown text in order (a `#` inside a code block is not a heading).
fn sections(text: &str) -> Vec<Section> {
    let mut out: Vec<Section> = Vec::new();
    let mut fenced = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        let hashes = line.len() - line.trim_start_matches('#').len();
        if !fenced && hashes > 0 && line[hashes..].starts_with(' ') {
            out.push(Section {
                level: hashes,
                heading: line[hashes + 1..].trim().to_owned(),
                line: i + 1,
                body: String::new(),
                prose: String::new(),
            });
            continue;
        }
        if let Some(s) = out.last_mut() {
            s.body.push_str(line);
            s.body.push('\n');
            if !fenced && !line.trim_start().starts_with("```") {
                s.prose.push_str(line);
                s.prose.push('\n');
            }
        }
    }
    out
}

/// A measured figure: a number with a unit of time, size or rate, or a ratio (`1.14x`).
fn has_figure(prose: &str) -> bool {
    const UNITS: [&str; 14] = [
        "ns", "µs", "ms", "s", "min", "B/msg", "MB", "GB", "MiB", "GiB", "M/s", "x", "×", "%",
    ];
    let words: Vec<&str> = prose.split_whitespace().collect();
    words.iter().enumerate().any(|(i, w)| {
        let w = w.trim_start_matches(['(', '*', '|']);
        let digits = w.trim_end_matches(|c: char| !c.is_ascii_digit());
        let number = !digits.is_empty()
            && digits
                .chars()
                .all(|c| c.is_ascii_digit() || c == '.' || c == ',')
            && w.starts_with(|c: char| c.is_ascii_digit());
        if !number {
            return false;
        }
        let glued = w[digits.len()..].trim_end_matches([',', ';', ')', '.', ':', '*']);
        let next = words
            .get(i + 1)
            .map_or("", |n| n.trim_end_matches([',', ';', ')', '.', ':', '*']));
        UNITS.contains(&glued) || (glued.is_empty() && UNITS.contains(&next) && next != "x")
    })
}

/// Whether `text` gives a date, `2026-11-30`.
pub(crate) fn has_date(text: &str) -> bool {
    text.as_bytes().windows(10).any(|w| {
        w[..4].iter().all(u8::is_ascii_digit)
            && w[4] == b'-'
            && w[5..7].iter().all(u8::is_ascii_digit)
            && w[7] == b'-'
            && w[8..].iter().all(u8::is_ascii_digit)
    })
}

/// What an entry must state for its figures to be reproduced: a date, a revision, the machine
/// and a command (in the entry, or in the introductions of the sections above it).
fn entry_lacks(entry: &str) -> Vec<&'static str> {
    let date = has_date(entry);
    let revision = entry.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| {
        (7..=40).contains(&w.len())
            && w.chars()
                .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
            && w.chars().any(|c| c.is_ascii_digit())
            && w.chars().any(|c| c.is_ascii_alphabetic())
    });
    let machine = ["VM", "vCPU", "EPYC", "machine"]
        .iter()
        .any(|m| entry.contains(m));
    let command = ["shootout ", "run_shootout", "cargo ", "scripts/"]
        .iter()
        .any(|c| entry.contains(c));
    [
        ("a date", date),
        ("a revision", revision),
        ("the machine", machine),
        ("a command", command),
    ]
    .into_iter()
    .filter(|(_, has)| !has)
    .map(|(what, _)| what)
    .collect()
}

/// Each BENCHMARKS.md anchor with the text its entry stands on: the section with its
/// subsections, and the heading and introduction of each section above it.
fn entries(text: &str) -> std::collections::HashMap<String, String> {
    let all = sections(text);
    let names = anchor_names(text);
    let mut out = std::collections::HashMap::new();
    for (i, s) in all.iter().enumerate() {
        let mut text = format!("{}\n{}", s.heading, s.body);
        for sub in all[i + 1..].iter().take_while(|x| x.level > s.level) {
            text.push_str(&format!("{}\n{}", sub.heading, sub.body));
        }
        let mut level = s.level;
        for up in all[..i].iter().rev() {
            if up.level < level {
                text.push_str(&format!("{}\n{}", up.heading, up.body));
                level = up.level;
            }
        }
        out.insert(names[i].clone(), text);
    }
    out
}

/// Every section of README.md and docs/results.md that states a measured figure links the
/// docs/BENCHMARKS.md entry it comes from, and that entry gives a date, a revision, the machine
/// and a command (issue 49: figures with no source, one given two ways with nothing said).
#[test]
fn every_figure_names_its_benchmarks_entry() {
    let bench = std::fs::read_to_string(root().join("docs/BENCHMARKS.md")).unwrap();
    let entries = entries(&bench);
    let mut failures = Vec::new();
    let mut sourced = 0;
    for doc in ["README.md", "docs/results.md"] {
        let text = std::fs::read_to_string(root().join(doc)).unwrap();
        for s in sections(&text) {
            if !has_figure(&s.prose) {
                continue;
            }
            let cited: Vec<&str> = s
                .prose
                .split("BENCHMARKS.md#")
                .skip(1)
                .map(|rest| rest.split(')').next().unwrap())
                .collect();
            if cited.is_empty() {
                failures.push(format!(
                    "{doc}:{} \"{}\" states figures and links no docs/BENCHMARKS.md entry",
                    s.line, s.heading
                ));
            }
            for anchor in cited {
                sourced += 1;
                match entries.get(anchor) {
                    None => failures.push(format!("{doc}:{}: no entry #{anchor}", s.line)),
                    Some(entry) => {
                        let lacks = entry_lacks(entry);
                        if !lacks.is_empty() {
                            failures.push(format!(
                                "{doc}:{}: entry #{anchor} lacks {}",
                                s.line,
                                lacks.join(", ")
                            ));
                        }
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(sourced >= 10, "only {sourced} sources found");
}

#[test]
fn figures_and_entries_are_read_as_meant() {
    assert!(has_figure("took 7 min 5 s") && has_figure("1.14x (1.09–1.20x)"));
    assert!(has_figure("24.3 B/msg") && has_figure("| 55.8 ns |"));
    assert!(!has_figure("issue 49, the 2 commands, 6 runs of 2 labels"));
    assert_eq!(
        entry_lacks("2026-11-30, `6d722fe`, this VM: `shootout run x`"),
        Vec::<&str>::new()
    );
    assert_eq!(
        entry_lacks("some text"),
        ["a date", "a revision", "the machine", "a command"]
    );
    let text = "# A\nintro 2026-11-30\n## B\nb body\n### C\nc body\n## D\nd\n";
    let e = entries(text);
    assert!(e["b"].contains("c body") && e["b"].contains("intro 2026-11-30"));
    assert!(!e["b"].contains("d\n") || e["b"].contains("b body"));
    assert!(!e["c"].contains("\nd\n"));
}
