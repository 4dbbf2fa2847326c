//! The unified-diff parser and reverser on arbitrary text: never a panic, and every diff
//! that reverses reverses back to itself byte for byte.
#![no_main]

use isobench_core::diff;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = diff::parse(text);
    if let Ok(reversed) = diff::reverse(text) {
        let back = diff::reverse(&reversed).expect("a reversed diff reverses again");
        assert_eq!(back, text);
    }
});
