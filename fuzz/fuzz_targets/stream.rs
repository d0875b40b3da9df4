//! The whole parsing path: capture → Ethernet/IPv4/UDP → IEX-TP → every message decoded, in
//! strict and lenient mode. The first byte chooses the mode so both share one corpus.
#![no_main]

use libfuzzer_sys::fuzz_target;
use md_shootout::inspect::Tally;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, file)) = data.split_first() else {
        return;
    };
    let _ = Tally::from_reader(file, mode & 1 == 1);
});
