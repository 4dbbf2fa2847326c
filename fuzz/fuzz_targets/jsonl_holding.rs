//! One JSON Lines record read as `convert` reads it when values pass through unread (a
//! string and a test list held outside the record, for an output of every style), on
//! arbitrary bytes: never a panic; the record is accepted exactly when it is read whole;
//! the keys not held are the whole record's, with its values; a held string is the
//! string read whole, a held list the whole record's list (as it is, or decoded from the
//! JSON text of a string); and whether the line holds a `\uXXXX` escape of a character
//! beyond ASCII, when the reader tells it in passing, is what a search of the whole
//! line finds.
#![no_main]

mod routes;

use cargo_isobench::input::{self, Routes};
use isobench_core::codec::{self, JsonStyle};
use isobench_core::passthrough::Held;
use libfuzzer_sys::fuzz_target;
use routes::ROUTES;
use serde_json::Value;

/// The value a held text stands for: the string or the list of strings it is the JSON
/// text of.
fn held_value(text: &[u8]) -> Value {
    serde_json::from_slice(text).expect("a held text is JSON")
}

fuzz_target!(|line: &[u8]| {
    let whole = input::parse_record(line, true);
    for style in JsonStyle::ALL {
        let routes = Routes {
            routes: &ROUTES,
            style,
        };
        let mut held = Held::default();
        let (record, escaped) = input::parse_record_seeing_escapes(line, true, routes, &mut held);
        if let Some(escaped) = escaped {
            assert_eq!(escaped, codec::escapes_beyond_ascii(line), "{style:?}");
        }
        let (whole, record) = match (&whole, &record) {
            (Ok(Value::Object(whole)), Ok(Value::Object(record))) => (whole, record),
            (Err(_), Err(_)) => continue,
            _ => panic!("read whole: {whole:?}; read holding ({style:?}): {record:?}"),
        };
        for (key, value) in record {
            assert_eq!(whole.get(key), Some(value), "{key} ({style:?})");
        }
        for (i, route) in ROUTES.iter().enumerate() {
            let Some(text) = held.text(line, i) else {
                assert_eq!(record.get(route.key), whole.get(route.key), "{style:?}");
                continue;
            };
            assert!(
                !record.contains_key(route.key),
                "{} held and kept",
                route.key
            );
            let value = held_value(text);
            let given = whole.get(route.key).expect("a held key is the record's");
            match given {
                Value::String(list) if route.list => {
                    let decoded: Value = serde_json::from_str(list).expect("an encoded list");
                    assert_eq!(decoded, value, "{style:?}");
                }
                given => assert_eq!(*given, value, "{style:?}"),
            }
        }
        assert_eq!(record.len() + held.len(), whole.len(), "{style:?}");
    }
});
