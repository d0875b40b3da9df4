//! No code outside a format's own files matches its name (issue 47): what the house needs to know
//! of a format is in its descriptor (`formats::descriptor`), found through the registries. A
//! format's quoted name may appear in at most one shared file of `src/` and `build/` outside its
//! own (three for `raw` and `sbe`, the A/A twins' defaults), counting code, not comments or
//! tests.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use md_shootout::formats::descriptors;

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `text` without comments and without its `#[cfg(test)] mod tests { … }` (to the end of the
/// file, where the house keeps it).
fn code<'a>(text: &'a str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests {") {
        Some(at) => &text[..at],
        None => text,
    };
    // A comment starts at `//` after a space or at the line's start (`https://` is not one).
    let uncommented = |l: &'a str| -> &'a str {
        let cut = l
            .match_indices("//")
            .find(|&(at, _)| at == 0 || l[..at].ends_with(char::is_whitespace));
        cut.map_or(l, |(at, _)| &l[..at])
    };
    text.lines().map(uncommented).collect::<Vec<_>>().join("\n")
}

/// The files declared `#[cfg(test)] mod x;`: test code, whatever their names.
fn test_only(files: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(f).unwrap();
        let dir = f.parent().unwrap();
        let mut rest = text.as_str();
        while let Some(at) = rest.find("#[cfg(test)]\nmod ") {
            rest = &rest[at + "#[cfg(test)]\nmod ".len()..];
            if let Some((name, _)) = rest.split_once(";\n") {
                if name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                    out.push(dir.join(format!("{name}.rs")));
                }
            }
        }
    }
    out
}

/// Whether `path` is one of the format `name`'s own files: a path component (file stem or
/// folder) that is its name in snake case, or its family's (the part before the first `-`:
/// `capnp` for `capnp-packed`), or `unchecked` for a format that trusts its producer.
fn own(path: &Path, name: &str, trusts: bool) -> bool {
    let snake = name.replace('-', "_");
    let family = name.split('-').next().unwrap();
    path.iter().any(|c| {
        let c = c.to_string_lossy();
        let stem = c.strip_suffix(".rs").unwrap_or(&c);
        stem == snake || stem == family || (trusts && stem == "unchecked")
    })
}

#[test]
fn a_formats_name_appears_in_at_most_one_shared_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    rust_files(&root.join("build"), &mut files);
    let tests = test_only(&files);
    assert!(!tests.is_empty(), "src/formats/steady.rs is test code");
    let texts: Vec<(PathBuf, String)> = files
        .into_iter()
        .filter(|f| !tests.contains(f))
        .map(|f| {
            let text = code(&std::fs::read_to_string(&f).unwrap());
            (f.strip_prefix(root).unwrap().to_path_buf(), text)
        })
        .collect();
    let mut shared: BTreeMap<&str, Vec<&Path>> = BTreeMap::new();
    for d in descriptors() {
        let quoted = format!("\"{}\"", d.name);
        let own_file = |p: &Path| own(p, d.name, d.trusts_producer());
        let named = texts
            .iter()
            .filter(|(p, text)| !own_file(p) && text.contains(&quoted))
            .map(|(p, _)| p.as_path())
            .collect();
        shared.insert(d.name, named);
    }
    for (name, files) in &shared {
        let allowed = if ["raw", "sbe"].contains(name) { 3 } else { 1 };
        assert!(
            files.len() <= allowed,
            "{name} is named in {} shared files: {files:?}",
            files.len()
        );
    }
    // The check sees names where they are: the twins' defaults are named by measure::twins.
    assert!(
        shared["sbe"].contains(&Path::new("src/measure/twins.rs")),
        "{shared:?}"
    );
}

#[test]
fn code_is_what_is_left_without_comments_and_tests() {
    let text = "use x; // \"raw\"\n/// \"sbe\"\nlet a = \"json\";\n#[cfg(test)]\nmod tests {\n\"cbor\"\n}\n";
    let c = code(text);
    assert!(c.contains("\"json\"") && c.contains("use x;"));
    assert!(!c.contains("\"raw\"") && !c.contains("\"sbe\"") && !c.contains("\"cbor\""));
    assert!(own(
        Path::new("src/capability/evolution/capnp.rs"),
        "capnp-packed",
        false
    ));
    assert!(own(
        Path::new("src/formats/unchecked.rs"),
        "rkyv-unchecked",
        true
    ));
    assert!(!own(Path::new("src/measure/twins.rs"), "sbe", false));
}
