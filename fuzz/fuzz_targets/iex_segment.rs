//! IEX-TP segment validation and message decoding from an arbitrary UDP payload.
#![no_main]

use libfuzzer_sys::fuzz_target;
use md_shootout::iex::{decode, Segment};

fuzz_target!(|data: &[u8]| {
    if let Ok(Some(segment)) = Segment::parse(data) {
        // A segment that validated yields exactly the announced number of messages.
        let blocks = segment.blocks().count();
        assert_eq!(blocks, usize::from(segment.header.message_count));
        for message in segment.messages() {
            let _ = message;
        }
    }
    let _ = decode(data);
});
