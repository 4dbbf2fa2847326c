//! The list-field decoder (array / JSON string / Python repr) on arbitrary text: it never
//! panics, and what it decodes re-encodes to something that decodes to the same items.
#![no_main]

use isobench_core::codec;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let as_string = Value::String(text.to_owned());
    let as_json = serde_json::from_str::<Value>(text).ok();
    for value in std::iter::once(as_string).chain(as_json) {
        if let Ok(once) = codec::decode_list(&value, "/f") {
            let again = codec::decode_list(&codec::encode_list(&once.items, once.encoding), "/f")
                .expect("a re-encoded list decodes");
            assert_eq!(again.items, once.items);
        }
    }
});
