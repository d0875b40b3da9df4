//! Capture framing alone: pcap and pcapng headers, blocks and records from arbitrary bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use md_shootout::capture::CaptureReader;

fuzz_target!(|data: &[u8]| {
    if let Ok(mut reader) = CaptureReader::new(data) {
        // Every frame handed out must lie inside the input.
        while let Ok(Some(frame)) = reader.next_frame() {
            assert!(frame.data.len() <= data.len());
        }
    }
});
