//! Reading one record's JSON text: checked parsing (repeated keys, non-JSON numbers,
//! nesting), the pass-through of strings the writer would write as they are (see
//! [`isobench_core::passthrough`]), and the style a text shows. Shared by the readers of
//! JSON Lines and JSON arrays and by the pipeline's workers.

use isobench_core::codec::JsonStyle;
use isobench_core::passthrough::Held;
use serde::de::{DeserializeSeed, Deserializer as _};
use serde_json::Value;

use super::bad_input::BadInput;

mod checked;
mod fast;
mod routes;
pub(crate) mod scan;
mod skim;

use checked::RoutedObject;
pub(super) use checked::{CheckedValue, Trail};
pub use routes::Routes;
use skim::Skim;

/// The JSON style a record's text shows, if any.
pub fn style_of(raw: &[u8]) -> Option<JsonStyle> {
    JsonStyle::detect(std::str::from_utf8(raw).ok()?)
}

/// The style of a text that may be cut anywhere (even inside a UTF-8 sequence).
pub(super) fn style_of_prefix(head: &[u8]) -> Option<JsonStyle> {
    let valid = match std::str::from_utf8(head) {
        Ok(text) => text,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).ok()?,
    };
    JsonStyle::detect(valid)
}

/// Parses one JSONL line into a record object, or says why it is not one.
pub fn parse_record(text: &[u8], complete_line: bool) -> Result<Value, BadInput> {
    parse_record_holding(text, complete_line, Routes::NONE, &mut Held::default())
}

/// Checks that one JSONL line is a record object [`parse_record`] would accept, without
/// building it: for an adapter that reads records as text
/// ([`isobench_core::Registered::text_import`]). The error, when there is one,
/// is the one [`parse_record`] gives.
pub fn check_record(text: &[u8], complete_line: bool) -> Result<(), BadInput> {
    let skimmed = std::str::from_utf8(text).is_ok_and(|checked| {
        let mut de = serde_json::Deserializer::from_str(checked);
        de.deserialize_map(Skim).and_then(|()| de.end()).is_ok()
    });
    if skimmed {
        return Ok(());
    }
    // Not a well-formed object, or a key that may repeat: the full reader tells which.
    parse_record(text, complete_line).map(drop)
}

/// Parses like [`parse_record`], but leaves undecoded the top-level values of the keys
/// `routes` names whose text the writer would write as it is (see
/// [`isobench_core::passthrough`]): strings, and for list keys, arrays of strings and
/// strings holding a JSON-encoded list. The record lacks each such key, and `held`
/// gets its value's text, by route, with where the key stood.
pub fn parse_record_holding(
    text: &[u8],
    complete_line: bool,
    routes: Routes<'_>,
    held: &mut Held,
) -> Result<Value, BadInput> {
    parse_holding(text, complete_line, routes, held, &mut None)
}

/// [`parse_record_holding`], also giving whether the text holds a `\uXXXX` escape of a
/// character beyond ASCII ([`isobench_core::codec::escapes_beyond_ascii`]) when the
/// reading told it in passing (the quick reader's does), `None` when it did not.
pub fn parse_record_seeing_escapes(
    text: &[u8],
    complete_line: bool,
    routes: Routes<'_>,
    held: &mut Held,
) -> (Result<Value, BadInput>, Option<bool>) {
    let mut escaped = None;
    let record = parse_holding(text, complete_line, routes, held, &mut escaped);
    (record, escaped)
}

/// [`parse_record_seeing_escapes`], setting `escaped` when the reading tells it.
fn parse_holding(
    text: &[u8],
    complete_line: bool,
    routes: Routes<'_>,
    held: &mut Held,
    escaped: &mut Option<bool>,
) -> Result<Value, BadInput> {
    let bad = |message: String, hint: Option<&str>| BadInput {
        message,
        value: None,
        hint: hint.map(str::to_owned),
        text: None,
    };
    // Every record's text is checked: the vectorised check first, std's (which says
    // where the text goes wrong) only for a text it refuses.
    let checked = match simdutf8::basic::from_utf8(text).or_else(|_| std::str::from_utf8(text)) {
        Ok(checked) => checked,
        Err(e) => {
            return Err(bad(
                format!("invalid UTF-8 at byte {} of the line", e.valid_up_to() + 1),
                Some("JSON text must be UTF-8; re-encode the file (e.g. `iconv -t UTF-8`)"),
            ));
        }
    };
    if !routes.is_empty() {
        if let Some((record, escapes)) = fast::read(checked, routes, held) {
            *escaped = Some(escapes);
            return Ok(Value::Object(record));
        }
        held.clear();
    }
    let parse = |trail: &mut Trail, routes: Routes<'_>, held: &mut Held| {
        // The text is known to be UTF-8: reading it as `str` skips checking each string.
        let mut de = serde_json::Deserializer::from_str(checked);
        if routes.is_empty() || !checked.trim_start().starts_with('{') {
            CheckedValue { trail }.deserialize(&mut de)
        } else {
            de.deserialize_map(RoutedObject {
                trail,
                routes,
                start: checked.as_ptr() as usize,
                held,
            })
        }
        .and_then(|value| de.end().map(|()| value))
    };
    let mut trail = Trail::default();
    let mut result = parse(&mut trail, routes, held);
    if result.is_err() && !routes.is_empty() {
        // Told as the plain reader tells it: a value read apart gives positions in
        // itself, not in the line.
        held.clear();
        trail = Trail::default();
        result = parse(&mut trail, Routes::NONE, held);
    }
    if let (Ok(_), Some(duplicate)) = (&result, trail.take_duplicate()) {
        held.clear();
        return Err(duplicate);
    }
    match result {
        Ok(Value::Object(map)) => Ok(Value::Object(map)),
        Ok(other) => Err(BadInput {
            message: format!("expected a JSON object, found {}", isobench_core::error::json_type_name(&other)),
            hint: other
                .is_array()
                .then(|| "a JSON array is read as records only from a `.json` file; rename it, or write one object per line".to_owned()),
            value: Some(Box::new(other)),
            text: None,
        }),
        Err(_) if checked.starts_with('\u{feff}') => Err(bad(
            "malformed JSON: the line starts with a byte order mark (U+FEFF), which only a file's first line may hold".to_owned(),
            Some("the file looks like files joined, each with its own mark: remove the marks after the first line"),
        )),
        Err(e) if e.is_eof() && !complete_line => Err(bad(
            format!("malformed JSON: the last line ends in the middle of a record ({e})"),
            Some("the file looks truncated; check that it was written completely"),
        )),
        Err(e) if e.is_eof() => Err(bad(
            format!("malformed JSON: the record ends with its line ({e})"),
            Some(
                "JSON Lines hold one record per line; records written over several lines (pretty-printed) are read from a file holding one JSON array of them (`[` first), or written one a line (`jq -c .`)",
            ),
        )),
        Err(e) if is_too_deep(&e) => Err(bad(
            format!("malformed JSON: nesting deeper than {MAX_DEPTH} arrays/objects, the reader's limit ({e})"),
            Some("no benchmark record nests this deep; check how the file was produced"),
        )),
        Err(e) => {
            // The text was checked above.
            let text = checked;
            match isobench_core::codec::non_json_number_at(text, &e) {
                Some((at, token)) => Err(BadInput {
                    message: format!(
                        "{}`{token}` {} ({e})",
                        non_json_number_pointer(text, at, token)
                            .map_or_else(String::new, |p| format!("`{p}`: ")),
                        isobench_core::codec::NON_JSON_NUMBER,
                    ),
                    value: None,
                    hint: Some(isobench_core::codec::NON_JSON_NUMBER_HINT.to_owned()),
                    text: None,
                }),
                None => match lone_surrogate(text, &e) {
                    Some(which) => Err(bad(
                        format!(
                            "malformed JSON at line {} column {}: {which}",
                            e.line(),
                            e.column()
                        ),
                        Some(
                            "JSON text holds Unicode: a surrogate escape stands only in a pair, `\\ud800`-`\\udbff` then `\\udc00`-`\\udfff`; the writer encoded a string that was not Unicode",
                        ),
                    )),
                    None => Err(bad(format!("malformed JSON: {e}"), None)),
                },
            }
        }
    }
}

/// What the surrogate escape `serde_json` stopped at is, when it stopped at one: its
/// own words call any unpaired one a "leading surrogate" or "the end of a hex escape".
/// The last surrogate escape before the error's column is the one left unpaired.
fn lone_surrogate(text: &str, e: &serde_json::Error) -> Option<String> {
    let said = e.to_string();
    if !(said.starts_with("lone leading surrogate")
        || said.starts_with("unexpected end of hex escape"))
    {
        return None;
    }
    let line = text.lines().nth(e.line().checked_sub(1)?)?;
    let before = line.get(..e.column().min(line.len()))?;
    let (escape, unit) = before
        .match_indices("\\u")
        .filter_map(|(at, _)| {
            let hex = before.get(at + 2..at + 6)?;
            let unit = u16::from_str_radix(hex, 16).ok()?;
            (0xD800..=0xDFFF)
                .contains(&unit)
                .then(|| (&before[at..at + 6], unit))
        })
        .last()?;
    Some(if unit >= 0xDC00 {
        format!(
            "a lone trailing surrogate `{escape}` (the second half of a UTF-16 pair, with no first half before it)"
        )
    } else {
        format!(
            "a lone leading surrogate `{escape}` (the first half of a UTF-16 pair, with no second half after it)"
        )
    })
}

/// How deep arrays and objects may nest: `serde_json`'s recursion limit.
pub const MAX_DEPTH: usize = 128;

pub(super) fn is_too_deep(e: &serde_json::Error) -> bool {
    e.is_syntax() && e.to_string().starts_with("recursion limit exceeded")
}

/// The JSON pointer of the `NaN`/`Infinity` token at byte `at` of `text`: the token is
/// replaced by a marker string (and later such tokens by `null`) until the text parses,
/// and the marker is looked up. Runs only on the error path.
fn non_json_number_pointer(text: &str, at: usize, token: &str) -> Option<String> {
    const MARKER: &str = "\"isobench: a non-JSON number was here\"";
    let mut text = format!("{}{MARKER}{}", &text[..at], &text[at + token.len()..]);
    let value = loop {
        match serde_json::from_str::<Value>(&text) {
            Ok(value) => break value,
            Err(e) => {
                let (at, token) = isobench_core::codec::non_json_number_at(&text, &e)?;
                text.replace_range(at..at + token.len(), "null");
            }
        }
    };
    let marker = &MARKER[1..MARKER.len() - 1];
    pointer_of(&value, &|v| v.as_str() == Some(marker))
}

/// The JSON pointer of the first value (depth first) that `is` picks.
fn pointer_of(value: &Value, is: &dyn Fn(&Value) -> bool) -> Option<String> {
    if is(value) {
        return Some(String::new());
    }
    match value {
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, v)| pointer_of(v, is).map(|rest| format!("/{i}{rest}"))),
        Value::Object(map) => map.iter().find_map(|(k, v)| {
            pointer_of(v, is)
                .map(|rest| format!("/{}{rest}", isobench_core::error::pointer_token(k)))
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `check_record` says what `parse_record` says, errors word for word.
    #[test]
    fn checking_a_record_agrees_with_parsing_it() {
        let deep = format!("{{\"a\": {}1{}}}", "[".repeat(200), "]".repeat(200));
        let lines: Vec<Vec<u8>> = [
            r#"{"instance_id": "a", "patch": "x\ny", "n": [1, 2.5, null, true], "o": {"k": {}}}"#,
            "{}",
            r#"  {"a": 1}  "#,
            r#"{"a": 1, "a": 2}"#,
            r#"{"a": 1, "\u0061": 2}"#,
            r#"{"a": {"b": [{"c": 1, "c": 1}]}}"#,
            r#"{"a": {"b": 1}, "c": {"b": 1}}"#,
            r#"["not", "an", "object"]"#,
            r#""text""#,
            r#"{"a": NaN}"#,
            r#"{"a": 1e999}"#,
            r#"{"a": "unterminated"#,
            r#"{"a": 1} trailing"#,
            r#"{"a": "bad \x escape"}"#,
            r#"{"a": "\udc00"}"#,
            r#"{"a": "\ud800x"}"#,
            "\u{feff}{\"a\": 1}",
            "{",
            &deep,
        ]
        .iter()
        .map(|l| l.as_bytes().to_vec())
        .chain([b"{\"a\": \"\xff\"}".to_vec()])
        .collect();
        for line in &lines {
            for complete in [true, false] {
                let parsed = parse_record(line, complete).map(drop);
                let checked = check_record(line, complete);
                assert_eq!(
                    checked.map_err(|bad| bad.message),
                    parsed.map_err(|bad| bad.message),
                    "{}",
                    String::from_utf8_lossy(line)
                );
            }
        }
    }

    /// An unpaired surrogate escape is named as what it is, wherever it stands.
    #[test]
    fn a_lone_surrogate_is_named_leading_or_trailing() {
        for (line, said) in [
            (r#"{"a": "\udc00"}"#, "a lone trailing surrogate `\\udc00`"),
            (
                r#"{"a": "x\udfff\udfff"}"#,
                "a lone trailing surrogate `\\udfff`",
            ),
            (r#"{"a": "\ud800"}"#, "a lone leading surrogate `\\ud800`"),
            (r#"{"a": "\uD800x"}"#, "a lone leading surrogate `\\uD800`"),
            (
                r#"{"a": "\ud800\u0041"}"#,
                "a lone leading surrogate `\\ud800`",
            ),
            (
                r#"{"b": "\ud83d\ude00", "a": "\udc00"}"#,
                "a lone trailing surrogate `\\udc00`",
            ),
        ] {
            let bad = parse_record(line.as_bytes(), true).unwrap_err();
            assert!(bad.message.contains(said), "{line}: {}", bad.message);
        }
        let paired = parse_record(r#"{"a": "\ud83d\ude00"}"#.as_bytes(), true);
        assert!(paired.is_ok());
    }

    proptest::proptest! {
        /// A line's text is refused exactly when it is not UTF-8, at the byte std's check
        /// names: long runs of ASCII (the vectorised check's fast path) around characters
        /// of every length, and bytes no UTF-8 text holds (a lone continuation, a
        /// truncated sequence, an overlong form, a surrogate, beyond U+10FFFF).
        #[test]
        fn a_line_is_refused_where_it_stops_being_utf8(
            parts in proptest::collection::vec(
                proptest::prop_oneof![
                    4 => proptest::sample::select(vec![
                        "a".repeat(40).into_bytes(),
                        b"x y\\n".to_vec(),
                        "é".as_bytes().to_vec(),
                        "中".as_bytes().to_vec(),
                        "\u{1F600}".as_bytes().to_vec(),
                    ]),
                    1 => proptest::sample::select(vec![
                        vec![0x80],
                        vec![0xff],
                        vec![0xe4, 0xb8],
                        vec![0xc0, 0x80],
                        vec![0xed, 0xa0, 0x80],
                        vec![0xf4, 0x90, 0x80, 0x80],
                    ]),
                ],
                0..12,
            ),
        ) {
            let mut line = b"{\"patch\": \"".to_vec();
            line.extend(parts.concat());
            line.extend_from_slice(b"\"}");
            let read = parse_record_holding(&line, true, Routes::NONE, &mut Held::default());
            match std::str::from_utf8(&line) {
                Ok(_) => proptest::prop_assert!(read.is_ok(), "{:?}", read.err().map(|b| b.message)),
                Err(e) => proptest::prop_assert_eq!(
                    read.map(drop).map_err(|bad| bad.message),
                    Err(format!("invalid UTF-8 at byte {} of the line", e.valid_up_to() + 1))
                ),
            }
        }
    }
}
