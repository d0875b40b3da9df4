//! `schemas/marketdata.*` (capnp, fbs, proto, xml, bop, ...) are copies, for readers and other
//! languages, of the schemas build.rs generates from the message table (`build/schemas.rs`) and
//! compiles: each file it wrote into `OUT_DIR/schemas/` must be committed, equal. A new emitter's
//! schema is picked up from there. `UPDATE_SCHEMAS=1` writes them from it (after a change to the
//! table or an emitter).

use std::path::Path;

#[test]
fn committed_schemas_are_the_generated_ones() {
    let generated = Path::new(env!("OUT_DIR")).join("schemas");
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas");
    let update = std::env::var_os("UPDATE_SCHEMAS").is_some_and(|v| v == "1");
    let mut names: Vec<String> = std::fs::read_dir(&generated)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    // Those every codec schema has been, at least (a directory read wrong reads as none).
    for known in [
        "marketdata.capnp",
        "marketdata.fbs",
        "marketdata.proto",
        "marketdata.xml",
    ] {
        assert!(names.iter().any(|n| n == known), "{known} in {names:?}");
    }
    for name in &names {
        let want = std::fs::read_to_string(generated.join(name)).unwrap();
        let path = committed.join(name);
        if update {
            std::fs::write(&path, &want).unwrap();
        }
        let got = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            got == want,
            "schemas/{name} is not what build.rs generates from the message table \
             ({}): run `UPDATE_SCHEMAS=1 cargo test --test it schemas_current`",
            generated.join(name).display()
        );
    }
}
