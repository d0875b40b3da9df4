//! The counts and defaults README.md, docs/, data/ and deploy/ state, checked against the code
//! (issue 49): a doc that says "ten formats" when the registry has more, or "by default
//! (`--timing both`)" when the default is `alternate`, fails here rather than on a reader.
//!
//! A count of formats or message types is either the code's (every format, the packet formats,
//! the formats a verdict may rank, the message types) or a past one that says so: its paragraph
//! gives a date, cites a docs/BENCHMARKS.md entry or says "of the time". docs/BENCHMARKS.md,
//! docs/results.md and CHANGELOG.md are dated records and are not read here.

use md_shootout::bench::plan::{DEFAULT_PREFIXES, JOBS_PREFIXES};
use md_shootout::bench::{DEFAULT_INPUTS, DEFAULT_RUNS};
use md_shootout::formats::descriptors;
use md_shootout::model::kind;

use super::cli_doc::{help, MARKER};
use super::doc_links::{documents, has_date, root};

/// The documents stating current facts, each as (name, text before docs/cli.md's generated help).
fn current_documents() -> Vec<(String, String)> {
    documents()
        .into_iter()
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            !matches!(
                name.as_ref(),
                "BENCHMARKS.md" | "results.md" | "CHANGELOG.md"
            )
        })
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let text = text.split(MARKER).next().unwrap().to_owned();
            (p.strip_prefix(root()).unwrap().display().to_string(), text)
        })
        .collect()
}

/// Each paragraph of `text` with the heading it stands under (a date there dates it too).
fn under_headings(text: &str) -> Vec<(usize, String, String)> {
    let headings: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.starts_with('#'))
        .map(|(i, l)| (i + 1, l))
        .collect();
    paragraphs(text)
        .into_iter()
        .map(|(line, p)| {
            let heading = headings
                .iter()
                .rev()
                .find(|(at, _)| *at < line)
                .map_or("", |h| h.1);
            (line, p, heading.to_owned())
        })
        .collect()
}

/// The prose of a Markdown text as paragraphs (a table row is one), each with its first line;
/// code blocks left out.
fn paragraphs(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let (mut block, mut current) = (false, (0, String::new()));
    for (i, line) in text.lines().enumerate() {
        let fence = line.trim_start().starts_with("```");
        if fence {
            block = !block;
        }
        let row = line.trim_start().starts_with('|');
        if fence || block || line.trim().is_empty() || row || line.starts_with('#') {
            if !current.1.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            if row {
                out.push((i + 1, line.to_owned()));
            }
            continue;
        }
        if current.1.is_empty() {
            current.0 = i + 1;
        }
        current.1.push_str(line);
        current.1.push(' ');
    }
    if !current.1.is_empty() {
        out.push(current);
    }
    out
}

const WORDS: [&str; 31] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
    "twenty-one",
    "twenty-two",
    "twenty-three",
    "twenty-four",
    "twenty-five",
    "twenty-six",
    "twenty-seven",
    "twenty-eight",
    "twenty-nine",
    "thirty",
];

/// A number as a doc writes it: `19`, `nineteen`, `Twenty-nine`.
fn number(word: &str) -> Option<usize> {
    let word = word.to_lowercase();
    word.parse()
        .ok()
        .or_else(|| WORDS.iter().position(|w| *w == word))
}

/// Every `<number> <noun>` in `text`, the noun one of `nouns` (a word or two).
fn counts(text: &str, nouns: &[&str]) -> Vec<(usize, String)> {
    let words: Vec<&str> = text
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '-'))
        .collect();
    let mut found = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let Some(n) = number(w) else { continue };
        for noun in nouns {
            let want: Vec<&str> = noun.split(' ').collect();
            if words.get(i + 1..i + 1 + want.len()) == Some(&want[..]) {
                found.push((n, format!("{w} {noun}")));
            }
        }
    }
    found
}

/// A paragraph that places its figure in the past: a date, a BENCHMARKS entry, "of the time".
fn dated(paragraph: &str) -> bool {
    has_date(paragraph)
        || paragraph.contains("BENCHMARKS")
        || paragraph.contains("of the time")
        || paragraph.contains("at the time")
}

#[test]
fn every_count_of_formats_and_message_types_is_the_codes_or_dated() {
    let all = descriptors().len();
    let packet = descriptors()
        .iter()
        .filter(|d| !d.per_window_only())
        .count();
    let ranked = descriptors()
        .iter()
        .filter(|d| !d.trusts_producer())
        .count();
    let types = kind::ALL.len();
    let rules: [(&[&str], Vec<usize>); 2] = [
        (&["formats", "packet formats"], vec![all, packet, ranked]),
        (&["message types", "types"], vec![types]),
    ];
    let (mut checked, mut failures) = (0, Vec::new());
    for (doc, text) in current_documents() {
        for (line, paragraph, heading) in under_headings(&text) {
            for (nouns, current) in &rules {
                for (n, said) in counts(&paragraph, nouns) {
                    // "one format", "two formats": a case, not a count of the registry.
                    if n < 5 {
                        continue;
                    }
                    checked += 1;
                    if !current.contains(&n) && !dated(&paragraph) && !dated(&heading) {
                        failures.push(format!(
                            "{doc}:{line}: \"{said}\": the code has {current:?}; give the \
                             current count, or say when it was so"
                        ));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 10, "only {checked} counts found");
}

/// The README's first screen names the count of formats, and docs/formats.md's capability
/// table has a row for each format.
#[test]
fn the_readme_counts_every_format_and_the_capability_table_lists_each() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let head: String = readme.lines().take(40).collect::<Vec<_>>().join(" ");
    let all = descriptors().len();
    assert!(
        counts(&head, &["formats"]).iter().any(|(n, _)| *n == all),
        "README's first 40 lines do not say {all} formats"
    );
    let formats = std::fs::read_to_string(root().join("docs/formats.md")).unwrap();
    let table: Vec<&str> = formats
        .split("<!-- capability table -->")
        .nth(1)
        .expect("docs/formats.md marks its capability table with <!-- capability table -->")
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .map(|row| row.split('|').nth(1).unwrap().trim().trim_matches('`'))
        .collect();
    let mut missing: Vec<&str> = descriptors()
        .iter()
        .map(|d| d.name)
        .filter(|name| {
            !table
                .iter()
                .any(|cell| cell.split([' ', '†', '‡', '§']).next() == Some(name))
        })
        .collect();
    missing.sort_unstable();
    assert!(
        missing.is_empty(),
        "docs/formats.md's capability table lacks {missing:?}"
    );
}

/// What the docs say of the default run and of each option's default is what the code runs.
#[test]
fn the_defaults_the_docs_state_are_the_codes() {
    let runs = DEFAULT_RUNS as usize;
    let labels = DEFAULT_PREFIXES.len();
    let total = runs * labels * DEFAULT_INPUTS.len();
    let helps = [help("run"), help("bench"), help("report")];
    let (mut checked, mut failures) = (0, Vec::new());
    for (doc, text) in current_documents() {
        for (line, p) in paragraphs(&text) {
            let mut fail = |what: String| failures.push(format!("{doc}:{line}: {what}"));
            // "6 runs × 2 labels", "6 runs under 2 labels", "6 runs under each of 2 ...".
            for (n, said) in counts(
                &p,
                &[
                    "runs × 2 labels",
                    "runs under 2 labels",
                    "runs under each of 2",
                ],
            ) {
                checked += 1;
                if n != runs && !dated(&p) {
                    fail(format!("\"{said}\": the default is {runs} runs"));
                }
            }
            for pattern in ["runs × ", "runs under ", "runs under each of "] {
                for (at, _) in p.match_indices(pattern) {
                    let n = p[at + pattern.len()..]
                        .split_whitespace()
                        .next()
                        .and_then(number);
                    let before = p[..at].split_whitespace().last().and_then(number);
                    if let (Some(n), Some(r)) = (n, before) {
                        if r == runs && n != labels && !dated(&p) {
                            fail(format!("{r} runs × {n}: the default has {labels} labels"));
                        }
                    }
                }
            }
            for (n, said) in counts(&p, &["runs in all", "runs of the default run"]) {
                checked += 1;
                if n != total && !dated(&p) {
                    fail(format!("\"{said}\": the default run is {total} runs"));
                }
            }
            if p.contains("default run's") {
                for (n, said) in counts(&p, &["runs"]) {
                    if p.contains(&format!("default run's {said}")) {
                        checked += 1;
                        if n != total && !dated(&p) {
                            fail(format!("\"default run's {said}\": it is {total} runs"));
                        }
                    }
                }
            }
            // "by default (`--timing alternate`)", "`--timing alternate` (the default)".
            for (option, value) in stated_defaults(&p) {
                checked += 1;
                let defaults: Vec<String> = helps
                    .iter()
                    .filter_map(|h| default_of(h, &option))
                    .collect();
                if !defaults.is_empty() && !defaults.contains(&value) {
                    fail(format!(
                        "`{option} {value}` is said to be the default; the code's is {defaults:?}"
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // README's and docs/cli.md's runs × labels, the two `--timing alternate`: 4 when written.
    assert!(checked >= 4, "only {checked} defaults found");
    // The jobs prefixes are bench's help's (bench::help), which cli_doc keeps in docs/cli.md.
    assert!(help("bench").contains(JOBS_PREFIXES[1]));
}

/// The options a paragraph calls the default: `` by default (`--o v`) ``, `` `--o v` (the
/// default) ``, `` `--o v` by default ``, `` the default `--o v` ``.
fn stated_defaults(p: &str) -> Vec<(String, String)> {
    let spans: Vec<(usize, &str)> = p
        .match_indices('`')
        .collect::<Vec<_>>()
        .chunks(2)
        .filter(|c| c.len() == 2)
        .map(|c| (c[0].0, &p[c[0].0 + 1..c[1].0]))
        .collect();
    let mut out = Vec::new();
    for (at, span) in spans {
        let mut words = span.split_whitespace();
        let (Some(option), Some(value), None) = (words.next(), words.next(), words.next()) else {
            continue;
        };
        if !option.starts_with("--") {
            continue;
        }
        let before = p[..at].trim_end();
        let after = p[at + span.len() + 2..].trim_start();
        let said = before.ends_with("by default (")
            || before.ends_with("the default")
            || before.ends_with("default:")
            || after.starts_with("(the default")
            || after.starts_with("by default")
            || after.starts_with("is the default");
        if said {
            out.push((option.to_owned(), value.to_owned()));
        }
    }
    out
}

/// `[default: x]` of `option` in a `--help`.
fn default_of(help: &str, option: &str) -> Option<String> {
    let mut lines = help.lines().skip_while(|l| {
        !l.trim_start().starts_with(&format!("{option} ")) && l.trim_start() != option
    });
    let mut entry = lines.next()?.to_owned();
    entry.extend(lines.take_while(|l| !l.trim_start().starts_with('-')));
    let d = entry.split("[default: ").nth(1)?;
    Some(d[..d.find(']')?].to_owned())
}

#[test]
fn the_fact_readers_read_what_they_should() {
    assert_eq!(number("Twenty-nine"), Some(29));
    assert_eq!(
        counts(
            "all nineteen formats, 19 message types and 3 runs",
            &["formats", "message types"]
        ),
        [
            (19, "nineteen formats".to_owned()),
            (19, "19 message types".to_owned())
        ]
    );
    assert!(dated("measured on 2026-11-25") && dated("the ten formats of the time"));
    assert!(!dated("all ten formats take 6.5 s"));
    assert_eq!(
        stated_defaults("by default (`--timing both`): x; `--unit packet` (the default); `--a b`"),
        [
            ("--timing".into(), "both".into()),
            ("--unit".into(), "packet".into())
        ]
    );
    let help = "      --timing <T>\n          How [default: alternate]\n      --x\n";
    assert_eq!(default_of(help, "--timing").as_deref(), Some("alternate"));
    let text = "a\nb\n\n| r |\n```sh\nx\n```\nc\n";
    assert_eq!(
        paragraphs(text),
        [
            (1, "a b ".to_owned()),
            (4, "| r |".to_owned()),
            (8, "c ".to_owned())
        ]
    );
}
