//! The bundled sample is exactly what the README says made it: if the generator changes, the
//! sample must be regenerated (and the README's figures re-measured) in the same commit.

use std::io::Read;

use md_shootout::gen::{self, GenOptions};

#[test]
fn bundled_sample_is_the_documented_gen_output() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/sample-deep.pcapng.gz");
    let mut committed = Vec::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(path).expect("bundled sample"))
        .read_to_end(&mut committed)
        .unwrap();
    let opts = GenOptions {
        packets: 50_000,
        seed: 1,
        symbols: 500,
        ..GenOptions::default()
    };
    let mut fresh = Vec::new();
    let report = gen::generate(&opts, &mut fresh).unwrap();
    assert_eq!(report.messages, 121_655);
    assert_eq!(committed.len(), fresh.len());
    assert!(
        committed == fresh,
        "data/sample-deep.pcapng.gz differs from gen output"
    );
}

#[test]
fn bundled_deep_plus_sample_is_the_documented_gen_output() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/sample-deep-plus.pcapng.gz"
    );
    let mut committed = Vec::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(path).expect("bundled sample"))
        .read_to_end(&mut committed)
        .unwrap();
    let opts = GenOptions {
        feed: md_shootout::model::Feed::DeepPlus,
        packets: 50_000,
        seed: 1,
        symbols: 500,
        ..GenOptions::default()
    };
    let mut fresh = Vec::new();
    let report = gen::generate(&opts, &mut fresh).unwrap();
    assert_eq!(report.messages, 120_553);
    assert!(
        committed == fresh,
        "data/sample-deep-plus.pcapng.gz differs from gen output"
    );
}
