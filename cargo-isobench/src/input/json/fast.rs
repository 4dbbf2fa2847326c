//! A quicker reader for the common record: a JSON Lines object whose passed strings
//! (see [`isobench_core::passthrough`]) are written as the writer writes them.
//!
//! [`super::checked::RoutedObject`] lets `serde_json` find where each passed string ends, then
//! checks its escapes in a second pass. This reader does both in one pass, and hands
//! every other value to the same checked parser as the full reader. It gives up
//! (`None`) at anything out of the ordinary: an escaped key, a key given twice, a value
//! the parser refuses or nests deeply, a string with an escape the writer would not
//! make. The full reader then reads the line again and gives the record, or the error,
//! it always gives; so a record read here is the record the full reader would read.

use isobench_core::codec;
use isobench_core::passthrough::{self, Held, Route};
use serde::de::DeserializeSeed;
use serde_json::{Map, Value};

use super::checked::{CheckedValue, Trail};
use super::routes::Routes;
use super::scan::{object, value_end};

/// The record `text` (UTF-8, one line) holds, read as [`super::parse_record_holding`]
/// reads it, without the keys whose values `held` is given, and whether `text` holds a
/// `\uXXXX` escape of a character beyond ASCII ([`codec::escapes_beyond_ascii`]); `None`
/// when this reader cannot tell (see the module's documentation), with `held` in any
/// state.
///
/// Only the values read here are searched for such escapes: a held value has none (a
/// string is held only when its escapes are those [`passthrough::written_string_length`]
/// accepts, of no character beyond ASCII; a list's items likewise), and no key holds a
/// backslash (an escaped key is left to the full reader).
pub(super) fn read(
    text: &str,
    routes: Routes<'_>,
    held: &mut Held,
) -> Option<(Map<String, Value>, bool)> {
    // Room for the keys of a benchmark record that are not held: grown one by one, the
    // map's entries and index were allocated again three or four times per record.
    // Nine entries (104 bytes each) stay under 1,032 bytes, the largest block glibc's
    // per-thread cache serves: twelve were served by the allocator's slow path, whose
    // sorting of the blocks freed by the record before made it the costliest malloc.
    let mut map = Map::with_capacity(9);
    let mut position = 0;
    let mut escaped = false;
    object(text, |key, at| {
        let route = routes.get(key);
        // A key given twice: the full reader tells it.
        if route.is_some_and(|(index, _)| held.holds(index)) {
            return None;
        }
        let (value, end) = value(text, at, route, routes, held, position)?;
        position += 1;
        match value {
            Some(value) => {
                let read = &text.as_bytes()[at..end];
                escaped = escaped
                    || memchr::memchr(b'\\', read).is_some() && codec::escapes_beyond_ascii(read);
                map.insert(key.to_owned(), value).is_none().then_some(end)
            }
            // A held key read before as a value: looked for among the few keys read so
            // far, not hashed (a record's held keys were each hashed for this alone).
            None => codec::get_small(&map, key).is_none().then_some(end),
        }
    })?;
    Some((map, escaped))
}

/// The value starting at `at` of `text` under the key of `route` (when it has one,
/// with its index), the `position`-th key of the record, and the offset after it;
/// `None` for the value when `held` holds it.
fn value(
    text: &str,
    at: usize,
    route: Option<(usize, Route<'_>)>,
    routes: Routes<'_>,
    held: &mut Held,
    position: usize,
) -> Option<(Option<Value>, usize)> {
    let bytes = text.as_bytes();
    // A JSON-encoded list that passes, measured and rewritten in one pass.
    if let Some((index, route)) = route
        && route.list
        && route.encoded
        && let Some(length) = held.hold_encoded_list_at(index, &bytes[at..], routes.style, position)
    {
        return Some((None, at + length));
    }
    // A string the writer writes as it is, measured in one pass: valid, and held as it
    // is or, for a list, rewritten as the array it holds.
    if let Some((index, route)) = route
        && let Some(length) = passthrough::written_string_length(&bytes[at..])
    {
        let (range, token) = (at..at + length, &bytes[at..at + length]);
        if !route.list {
            held.hold_string(index, range, position);
            return Some((None, at + length));
        }
        if route.encoded && held.hold_encoded_list(index, token, routes.style, position) {
            return Some((None, at + length));
        }
    }
    // A string of no escape nor control character: the parser would copy its text as
    // it is.
    if let Some(length) = passthrough::plain_string_length(&bytes[at..]) {
        let string = text[at + 1..at + length - 1].to_owned();
        return Some((Some(Value::String(string)), at + length));
    }
    let end = value_end(bytes, at)?;
    // An array of strings the writer writes as it is: valid, as the check accepts no
    // string that is not, so held without the parser.
    if let Some((index, route)) = route
        && route.list
        && passthrough::is_list_written_as_is(&bytes[at..end], routes.style)
    {
        held.hold_array(index, at..end, position);
        return Some((None, end));
    }
    // No other string can be transcoded: a valid string the transcoder takes holds no
    // escape but its items' `\"`, so the writer writes it as it is (tried above).
    Some((Some(parse(&text[at..end])?), end))
}

/// `text`, one JSON value, read by the full reader's checked parser: `None` when it
/// refuses it or it holds a repeated key.
fn parse(text: &str) -> Option<Value> {
    let mut trail = Trail::default();
    let mut de = serde_json::Deserializer::from_str(text);
    let value = CheckedValue { trail: &mut trail }
        .deserialize(&mut de)
        .ok()?;
    de.end().ok()?;
    trail.take_duplicate().is_none().then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use isobench_core::codec::JsonStyle;
    use serde::Deserializer as _;

    /// The full reader's record and passed texts for `text`, or its error.
    fn full(text: &str, routes: Routes<'_>) -> Result<(Value, Held), String> {
        let mut texts = Held::default();
        let mut trail = Trail::default();
        let mut de = serde_json::Deserializer::from_str(text);
        let value = de
            .deserialize_map(super::super::checked::RoutedObject {
                trail: &mut trail,
                routes,
                start: text.as_ptr() as usize,
                held: &mut texts,
            })
            .and_then(|value| de.end().map(|()| value))
            .map_err(|e| e.to_string())?;
        match trail.take_duplicate() {
            Some(bad) => Err(bad.message),
            None => Ok((value, texts)),
        }
    }

    /// Where every route leads: the reader does not look.
    static OUT: [String; 0] = [];

    /// Two string keys, two list keys (one taking JSON-encoded lists, one not).
    fn keys(out: &[String]) -> [Route<'_>; 4] {
        let string = |key| Route {
            key,
            field: "",
            list: false,
            encoded: false,
            path: out,
        };
        let list = |key, encoded| Route {
            key,
            field: "",
            list: true,
            encoded,
            path: out,
        };
        [
            string("patch"),
            string("text"),
            list("tests", true),
            list("more", false),
        ]
    }

    #[test]
    fn what_it_reads_is_what_the_full_reader_reads() {
        let keys = keys(&OUT);
        let deep = format!(
            r#"{{"patch": "p", "n": {}1{}}}"#,
            "[".repeat(70),
            "]".repeat(70)
        );
        let lines = [
            r#"{"patch": "diff\n+\"x\" \\ \t\u0001", "text": "é 中", "tests": "[\"a\", \"b\"]", "more": ["c", "d"], "n": 1}"#,
            r#"{"patch":"p","tests":"[\"a\",\"b\"]","more":["c","d"],"n":-0.5e3,"t":true,"f":false,"z":null}"#,
            r#"  { "patch" :  "p" , "o" : {"k": [1, {"j": "v"}], "e": {}} , "a": [] }  "#,
            "{}",
            " { } ",
            r#"{"patch": "a\/b", "text": "\u00e9", "tests": "[\"a\\\"q\"]", "more": ["\u00e9"]}"#,
            r#"{"tests": "['a', 'b']", "more": "[\"x\"]", "text": 7, "patch": null}"#,
            r#"{"tests": "[1, 2]", "more": [1, 2], "patch": ["p"], "text": {"a": 1}}"#,
            r#"{"id": 12345678901234567890, "x": 1.0, "y": 1e400, "w": 0.1}"#,
            r#"{"a": 1, "a": 2}"#,
            r#"{"a": {"b": 1, "b": 2}}"#,
            r#"{"\u0061": 1}"#,
            r#"{"a": 1,}"#,
            r#"{"a" 1}"#,
            r#"{"a": [1, 2}"#,
            r#"{"a": "unterminated}"#,
            r#"{"a": NaN}"#,
            r#"{"a": 1} x"#,
            r#"{"a": tru}"#,
            r#"{"a": "x\qy"}"#,
            "{\"a\": \"raw\tcontrol\"}",
            "{\"patch\": \"raw\ncontrol\"}",
            r#"["not", "an", "object"]"#,
            r#""text""#,
            &deep,
        ];
        let mut fast = 0;
        for line in lines {
            for style in [JsonStyle::Compact, JsonStyle::Spaced] {
                let routes = Routes {
                    routes: &keys,
                    style,
                };
                let mut texts = Held::default();
                let Some((record, escaped)) = read(line, routes, &mut texts) else {
                    continue;
                };
                assert_eq!(
                    escaped,
                    codec::escapes_beyond_ascii(line.as_bytes()),
                    "{line}"
                );
                fast += 1;
                let (value, full_texts) = full(line, routes).expect("the full reader reads it too");
                assert_eq!(Value::Object(record), value, "{line}");
                assert_eq!(texts, full_texts, "{line}");
            }
        }
        // The plain records are read here, not left to the full reader.
        assert!(fast >= 16, "{fast}");
    }

    /// A routed key given twice, held once and read as a value once (either way round)
    /// or held twice, among other keys or not: left to the full reader, which refuses it.
    #[test]
    fn a_held_key_given_twice_is_left_to_the_full_reader() {
        let keys = keys(&OUT);
        let routes = Routes {
            routes: &keys,
            style: JsonStyle::Compact,
        };
        for line in [
            r#"{"patch": 7, "patch": "p"}"#,
            r#"{"patch": "p", "patch": 7}"#,
            r#"{"a": 1, "b": 2, "patch": "p", "c": 3, "patch": "q"}"#,
            r#"{"tests": ["a"], "n": null, "tests": "[\"a\"]"}"#,
        ] {
            assert!(read(line, routes, &mut Held::default()).is_none(), "{line}");
            assert!(full(line, routes).is_err(), "{line}");
        }
    }

    /// A record with every kind of value, passed and not, and a `\u` escape of a character
    /// beyond ASCII in one not passed.
    const BASE: &str = r#"{"patch": "diff\n+\"x\" \\ \t\u0001 é", "text": "t", "tests": "[\"a\", \"b::c\"]", "more": ["c", "d"], "n": -1.5e3, "o": {"k": [true, null, {"j": "v"}]}, "s": "plain", "e": "caf\u00e9 \\u00e9"}"#;

    proptest::proptest! {
        /// Whatever a line becomes once bytes of it are replaced, inserted or removed,
        /// what this reader reads is what the full reader reads.
        #[test]
        fn mutated_lines_read_as_the_full_reader_reads_them(
            edits in proptest::collection::vec((0..BASE.len(), 0..3u8, proptest::sample::select(
                br#"{}[]",:\ u0a1n/tfe."#.to_vec()
            )), 1..4),
            spaced in proptest::bool::ANY,
        ) {
            let mut line = BASE.as_bytes().to_vec();
            for (at, how, byte) in edits {
                let at = at.min(line.len() - 1);
                match how {
                    0 => line[at] = byte,
                    1 => line.insert(at, byte),
                    _ => { line.remove(at); }
                }
            }
            let Ok(line) = std::str::from_utf8(&line) else { return Ok(()) };
            let keys = keys(&OUT);
            let style = if spaced { JsonStyle::Spaced } else { JsonStyle::Compact };
            let routes = Routes { routes: &keys, style };
            let mut texts = Held::default();
            if let Some((record, escaped)) = read(line, routes, &mut texts) {
                proptest::prop_assert_eq!(escaped, codec::escapes_beyond_ascii(line.as_bytes()));
                let (value, full_texts) = full(line, routes).expect("the full reader reads it too");
                proptest::prop_assert_eq!(Value::Object(record), value);
                proptest::prop_assert_eq!(texts, full_texts);
            }
        }
    }
}
