//! Reading one record's JSON text: checked parsing (repeated keys, non-JSON numbers,
//! nesting), the pass-through of strings the writer would write as they are (see
//! [`isobench_core::passthrough`]), and the style a text shows. Shared by the readers of
//! JSON Lines and JSON arrays and by the pipeline's workers.

use isobench_core::codec::JsonStyle;
use isobench_core::passthrough::{self, Passed};
use serde::de::{DeserializeSeed, Deserializer as _, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use super::items::BadInput;

mod fast;

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

/// An input key whose value may pass from input to output unparsed (see
/// [`isobench_core::passthrough`]): a string, or, for a `list` key, a list of strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PassKey<'k> {
    /// The input key.
    pub key: &'k str,
    /// Whether the canonical field it lands in holds a list of strings.
    pub list: bool,
}

/// The keys whose values pass, and the style of the output they pass into.
#[derive(Debug, Clone, Copy)]
pub struct Passing<'k> {
    /// The keys.
    pub keys: &'k [PassKey<'k>],
    /// The output's style, which a passed list's text must be in.
    pub style: JsonStyle,
}

impl<'k> Passing<'k> {
    /// Nothing passes.
    pub const NONE: Passing<'static> = Passing {
        keys: &[],
        style: JsonStyle::Compact,
    };

    fn get(&self, key: &str) -> Option<PassKey<'k>> {
        self.keys.iter().find(|k| k.key == key).copied()
    }
}

/// Parses one JSONL line into a record object, or says why it is not one.
pub fn parse_record(text: &[u8], complete_line: bool) -> Result<Value, BadInput> {
    parse_record_passing(text, complete_line, Passing::NONE, &mut Passed::default())
}

/// Checks that one JSONL line is a record object [`parse_record`] would accept, without
/// building it: for an adapter that reads records as text
/// ([`isobench_core::ViewAdapter::imports_from_text`]). The error, when there is one,
/// is the one [`parse_record`] gives.
pub fn check_record(text: &[u8], complete_line: bool) -> Result<(), BadInput> {
    check_record_passing(text, complete_line, Passing::NONE, &mut Passed::default())
}

/// Checks like [`check_record`], and finds the top-level values of the keys in
/// `passing` that [`parse_record_passing`] would leave undecoded: `passed` gets their
/// byte ranges in `text`, in order. [`with_markers`] then makes the text a plugin is
/// sent. A JSON-encoded list is not passed here: a plugin could not tell its marker.
pub fn check_record_passing(
    text: &[u8],
    complete_line: bool,
    passing: Passing<'_>,
    passed: &mut Passed,
) -> Result<(), BadInput> {
    let skimmed = std::str::from_utf8(text).is_ok_and(|checked| {
        if !passing.keys.is_empty() {
            if fast::check(checked, passing, passed).is_some() {
                return true;
            }
            passed.clear();
        }
        let mut de = serde_json::Deserializer::from_str(checked);
        let skim = if passing.keys.is_empty() {
            de.deserialize_map(Skim)
        } else {
            de.deserialize_map(SkimPassing {
                passing,
                start: checked.as_ptr() as usize,
                passed: &mut *passed,
            })
        };
        skim.and_then(|()| de.end()).is_ok()
    });
    if skimmed {
        return Ok(());
    }
    // Not a well-formed object, or a key that may repeat: the full reader tells which.
    passed.clear();
    parse_record(text, complete_line).map(drop)
}

/// `text` with each value of `passed` (from [`check_record_passing`]) replaced by the
/// JSON text of its [`Passed::marker`], in order: a string by the marker, a list
/// by an array holding the marker alone.
pub fn with_markers(text: &[u8], passed: &Passed) -> Vec<u8> {
    let ranges = passed
        .input_ranges()
        .expect("a record checked for a plugin passes only ranges of its text");
    let mut out = Vec::with_capacity(text.len().min(4096));
    let mut from = 0;
    for (i, range) in ranges.into_iter().enumerate() {
        out.extend_from_slice(&text[from..range.start]);
        let list = text[range.start] == b'[';
        if list {
            out.push(b'[');
        }
        passed.write_marker(&mut out, i);
        if list {
            out.push(b']');
        }
        from = range.end;
    }
    out.extend_from_slice(&text[from..]);
    out
}

/// Parses like [`parse_record`], but leaves undecoded the top-level values of the keys
/// in `passing` whose text the writer would write as it is (see
/// [`isobench_core::passthrough`]): strings, and for list keys, arrays of strings and
/// strings holding a JSON-encoded list. The record holds a marker for each, and
/// `passed` gets its text, in marker order.
pub fn parse_record_passing(
    text: &[u8],
    complete_line: bool,
    passing: Passing<'_>,
    passed: &mut Passed,
) -> Result<Value, BadInput> {
    let bad = |message: String, hint: Option<&str>| BadInput {
        message,
        value: None,
        hint: hint.map(str::to_owned),
    };
    let checked = match std::str::from_utf8(text) {
        Ok(checked) => checked,
        Err(e) => {
            return Err(bad(
                format!("invalid UTF-8 at byte {} of the line", e.valid_up_to() + 1),
                Some("JSON text must be UTF-8; re-encode the file (e.g. `iconv -t UTF-8`)"),
            ));
        }
    };
    if !passing.keys.is_empty() {
        if let Some(record) = fast::read(checked, passing, passed) {
            return Ok(Value::Object(record));
        }
        passed.clear();
    }
    let parse = |trail: &mut Trail, passing: Passing<'_>, passed: &mut Passed| {
        // The text is known to be UTF-8: reading it as `str` skips checking each string.
        let mut de = serde_json::Deserializer::from_str(checked);
        if passing.keys.is_empty() || !checked.trim_start().starts_with('{') {
            CheckedValue { trail }.deserialize(&mut de)
        } else {
            de.deserialize_map(PassingObject {
                trail,
                passing,
                start: checked.as_ptr() as usize,
                passed,
            })
        }
        .and_then(|value| de.end().map(|()| value))
    };
    let mut trail = Trail::default();
    let mut result = parse(&mut trail, passing, passed);
    if result.is_err() && !passing.keys.is_empty() {
        // Told as the plain reader tells it: a value read apart gives positions in
        // itself, not in the line.
        passed.clear();
        trail = Trail::default();
        result = parse(&mut trail, Passing::NONE, passed);
    }
    if let (Ok(_), Some(duplicate)) = (&result, trail.take_duplicate()) {
        return Err(duplicate);
    }
    match result {
        Ok(Value::Object(map)) => Ok(Value::Object(map)),
        Ok(other) => Err(BadInput {
            message: format!("expected a JSON object, found {}", isobench_core::error::json_type_name(&other)),
            hint: other
                .is_array()
                .then(|| "a JSON array is read as records only from a `.json` file; rename it, or write one object per line".to_owned()),
            value: Some(other),
        }),
        Err(e) if e.is_eof() && !complete_line => Err(bad(
            format!("malformed JSON: the last line ends in the middle of a record ({e})"),
            Some("the file looks truncated; check that it was written completely"),
        )),
        Err(e) if is_too_deep(&e) => Err(bad(
            format!("malformed JSON: nesting deeper than {MAX_DEPTH} arrays/objects, the reader's limit ({e})"),
            Some("no benchmark record nests this deep; check how the file was produced"),
        )),
        Err(e) => {
            // `from_utf8` succeeded above.
            let text = std::str::from_utf8(text).unwrap_or_default();
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
                }),
                None => Err(bad(format!("malformed JSON: {e}"), None)),
            }
        }
    }
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

/// Reads a JSON value and keeps nothing: fails on malformed JSON and on an object
/// holding two keys of the same hash (the same key, or by rare chance two keys; the
/// caller then reads the value fully to tell).
struct Skim;

impl<'de> DeserializeSeed<'de> for Skim {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Skim {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(Skim)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut keys = Vec::new();
        while let Some(key) = map.next_key_seed(KeyHash)? {
            keys.push(key);
            map.next_value_seed(Skim)?;
        }
        if any_repeated(keys) {
            return Err(A::Error::custom("a key may repeat"));
        }
        Ok(())
    }
}

/// [`Skim`] for a record whose top-level values of the keys `passing` names are passed:
/// their ranges go to `passed` (see [`PassingObject`]).
struct SkimPassing<'t> {
    passing: Passing<'t>,
    /// The address of the record's first byte, to turn values into ranges.
    start: usize,
    passed: &'t mut Passed,
}

impl<'de> Visitor<'de> for SkimPassing<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut keys = Vec::new();
        while let Some((key, pass)) = map.next_key_seed(KeyHashIn(self.passing))? {
            keys.push(key);
            let Some(pass) = pass else {
                map.next_value_seed(Skim)?;
                continue;
            };
            let text = map.next_value::<&'de RawValue>()?.get();
            let bytes = text.as_bytes();
            let passes = if pass.list {
                passthrough::is_list_written_as_is(bytes, self.passing.style)
            } else {
                passthrough::is_written_as_is(bytes)
            };
            if passes {
                let at = text.as_ptr() as usize - self.start;
                self.passed.push_input(at..at + text.len());
            } else {
                // Valid JSON, but it may hold a repeated key.
                let mut de = serde_json::Deserializer::from_str(text);
                Skim.deserialize(&mut de).map_err(A::Error::custom)?;
            }
        }
        if any_repeated(keys) {
            return Err(A::Error::custom("a key may repeat"));
        }
        Ok(())
    }
}

/// An object key, read as its hash and, when it passes, how.
struct KeyHashIn<'k>(Passing<'k>);

impl<'de, 'k> DeserializeSeed<'de> for KeyHashIn<'k> {
    type Value = (u64, Option<PassKey<'k>>);

    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'k> Visitor<'_> for KeyHashIn<'k> {
    type Value = (u64, Option<PassKey<'k>>);

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object key")
    }

    fn visit_str<E>(self, key: &str) -> Result<Self::Value, E> {
        Ok((key_hash(key), self.0.get(key)))
    }
}

/// Whether an object's key hashes hold one twice.
fn any_repeated(mut hashes: Vec<u64>) -> bool {
    hashes.sort_unstable();
    hashes.windows(2).any(|pair| pair[0] == pair[1])
}

/// An object key, read as its hash.
struct KeyHash;

impl<'de> DeserializeSeed<'de> for KeyHash {
    type Value = u64;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<u64, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for KeyHash {
    type Value = u64;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object key")
    }

    fn visit_str<E>(self, key: &str) -> Result<u64, E> {
        Ok(key_hash(key))
    }
}

fn key_hash(key: &str) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault};
    BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default().hash_one(key)
}

/// What [`CheckedValue`] found: the first key an object holds twice, with the path to it
/// (built innermost first as the parse returns through the enclosing values).
#[derive(Debug, Default)]
pub(super) struct Trail {
    /// The repeated key and the path to it, reversed.
    pub(super) duplicate: Option<(String, Vec<String>)>,
    /// The path is still being built: the enclosing value adds its key or index.
    climbing: bool,
}

impl Trail {
    /// The duplicate found, as bad input; the trail is reset.
    pub(super) fn take_duplicate(&mut self) -> Option<BadInput> {
        let (key, path) = self.duplicate.take()?;
        self.climbing = false;
        let mut pointer = String::new();
        for token in path.iter().rev() {
            pointer.push('/');
            pointer.push_str(&isobench_core::error::pointer_token(token));
        }
        Some(BadInput {
            message: format!(
                "`{pointer}`: duplicate key `{key}`: the object holds it twice, and reading it would keep only one of the values"
            ),
            value: None,
            hint: Some("remove one of the two; JSON readers disagree on which one wins".to_owned()),
        })
    }

    /// Called by an array or object once a child value is read: adds the child's place to
    /// the path when the duplicate lies inside it. `true` when it did.
    fn climb(&mut self, token: impl FnOnce() -> String) -> bool {
        if !self.climbing {
            return false;
        }
        if let Some((_, path)) = &mut self.duplicate {
            path.push(token());
        }
        self.climbing = false;
        true
    }
}

/// Reads any JSON value, as `serde_json::Value` does, but notes the first key an object
/// holds twice (`serde_json` silently keeps the last one). The check costs one map lookup
/// per key, the one inserting it.
pub(super) struct CheckedValue<'t> {
    pub(super) trail: &'t mut Trail,
}

impl<'de> DeserializeSeed<'de> for CheckedValue<'_> {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for CheckedValue<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        let mut inside = false;
        while let Some(item) = seq.next_element_seed(CheckedValue {
            trail: &mut *self.trail,
        })? {
            let index = items.len();
            inside |= self.trail.climb(|| index.to_string());
            items.push(item);
        }
        self.trail.climbing |= inside;
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Value, A::Error> {
        read_object(self.trail, map, |_, map, trail| {
            map.next_value_seed(CheckedValue { trail })
        })
    }
}

/// Reads an object's entries, each value with `read`, noting the first key it holds
/// twice in `trail`.
fn read_object<'de, A: MapAccess<'de>>(
    trail: &mut Trail,
    mut map: A,
    mut read: impl FnMut(&str, &mut A, &mut Trail) -> Result<Value, A::Error>,
) -> Result<Value, A::Error> {
    let mut object = serde_json::Map::new();
    let mut inside = false;
    while let Some(key) = map.next_key::<String>()? {
        let value = read(&key, &mut map, trail)?;
        match object.entry(key) {
            serde_json::map::Entry::Vacant(slot) => {
                inside |= trail.climb(|| slot.key().clone());
                slot.insert(value);
            }
            serde_json::map::Entry::Occupied(slot) => {
                inside |= trail.climb(|| slot.key().clone());
                if trail.duplicate.is_none() {
                    trail.duplicate = Some((slot.key().clone(), vec![slot.key().clone()]));
                    inside = true;
                }
            }
        }
    }
    trail.climbing |= inside;
    Ok(Value::Object(object))
}

/// Reads a record object as [`CheckedValue`] does, except the values of the keys
/// `passing` names that the writer would write back as they are: those are left as
/// text (see [`parse_record_passing`]).
struct PassingObject<'t> {
    trail: &'t mut Trail,
    passing: Passing<'t>,
    /// The address of the record's first byte, to turn values into ranges.
    start: usize,
    passed: &'t mut Passed,
}

impl<'de> Visitor<'de> for PassingObject<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Value, A::Error> {
        let Self {
            trail,
            passing,
            start,
            passed,
        } = self;
        read_object(trail, map, |key, map, trail| {
            let Some(pass) = passing.get(key) else {
                return map.next_value_seed(CheckedValue { trail });
            };
            let text = map.next_value::<&'de RawValue>()?.get();
            let bytes = text.as_bytes();
            let at = text.as_ptr() as usize - start;
            let input = at..at + text.len();
            if !pass.list && passthrough::is_written_as_is(bytes) {
                let index = passed.push_input(input);
                return Ok(Value::String(passed.marker(index)));
            }
            if pass.list && bytes.first() == Some(&b'"') {
                if let Some((index, encoding)) = passed.push_encoded_list(bytes, passing.style) {
                    return Ok(Value::String(passed.encoded_list(index, encoding)));
                }
            } else if pass.list && passthrough::is_list_written_as_is(bytes, passing.style) {
                let index = passed.push_input(input);
                let marker = Value::String(passed.marker(index));
                return Ok(Value::Array(vec![marker]));
            }
            let mut de = serde_json::Deserializer::from_str(text);
            CheckedValue { trail }
                .deserialize(&mut de)
                .map_err(A::Error::custom)
        })
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
}
