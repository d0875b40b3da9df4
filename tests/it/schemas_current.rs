//! `schemas/marketdata.{capnp,fbs,proto,xml,bop}` are copies, for readers and other languages, of
//! the schemas build.rs generates from the message table (`build/schemas.rs`) and compiles: they
//! must equal what it wrote into `OUT_DIR/schemas/`. `UPDATE_SCHEMAS=1` rewrites them from it
//! (after a change to the table or the emitter).

use std::path::Path;

const SCHEMAS: [&str; 5] = [
    "marketdata.capnp",
    "marketdata.fbs",
    "marketdata.proto",
    "marketdata.xml",
    "marketdata.bop",
];

#[test]
fn committed_schemas_are_the_generated_ones() {
    let generated = Path::new(env!("OUT_DIR")).join("schemas");
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas");
    let update = std::env::var_os("UPDATE_SCHEMAS").is_some_and(|v| v == "1");
    for name in SCHEMAS {
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
