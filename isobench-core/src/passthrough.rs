//! Strings passed from an input record to the output as the JSON text they were read
//! as, without being decoded and encoded again.
//!
//! Patches and issue texts make up most of a benchmark record, and most adapters only
//! move them from one key to another. When the source adapter moves an input field
//! untouched ([`ViewAdapter::verbatim_imports`]) and the target writes that canonical
//! field untouched ([`ViewAdapter::verbatim_exports`]), a reader may leave the field's
//! JSON string undecoded: the record holds a [`marker`] instead, and the writer
//! ([`JsonStyle::write_object_passing`]) puts the original text where the marker
//! lands. This is only done for a string whose text is exactly what the writer would
//! write for it ([`is_written_as_is`]), so the output is the same, byte for byte, as
//! with the string decoded and encoded again.
//!
//! A marker holds a NUL byte and a number drawn at random once per process, so no
//! string of the input can be taken for one.
//!
//! [`ViewAdapter::verbatim_imports`]: crate::ViewAdapter::verbatim_imports
//! [`ViewAdapter::verbatim_exports`]: crate::ViewAdapter::verbatim_exports
//! [`JsonStyle::write_object_passing`]: crate::codec::JsonStyle::write_object_passing

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::sync::OnceLock;

use memchr::memmem;

/// What every marker of this process starts with.
fn prefix() -> &'static str {
    static PREFIX: OnceLock<String> = OnceLock::new();
    PREFIX.get_or_init(|| {
        let nonce = RandomState::new().hash_one("isobench passthrough");
        format!("\0isobench-passthrough-{nonce:016x}-")
    })
}

/// The string a record holds in place of the `index`-th passed string.
pub fn marker(index: usize) -> String {
    format!("{}{index}", prefix())
}

/// The index of the passed string `s` stands for, when it is a marker.
pub(crate) fn index_of(s: &str) -> Option<usize> {
    if s.as_bytes().first() != Some(&0) {
        return None;
    }
    number(s.strip_prefix(prefix())?)
}

/// The number `digits` writes as [`marker`] writes it (no sign, no leading zero).
fn number(digits: &str) -> Option<usize> {
    if (digits.len() > 1 && digits.starts_with('0')) || digits.starts_with('+') {
        return None;
    }
    digits.parse().ok()
}

/// Checks the JSON text `answer` that a plugin gave back for the JSON text `request`:
/// when `request` held markers, every marker in `answer` must be a whole string value,
/// and one `request` held. A plugin may move or copy the strings it declares it moves unread
/// ([`ViewAdapter::verbatim_imports`], [`ViewAdapter::verbatim_exports`]), never edit,
/// split, invent or use them as keys; the writer would otherwise put a marker's text in
/// the output instead of the string it stands for. Says what is wrong and where.
///
/// [`ViewAdapter::verbatim_imports`]: crate::ViewAdapter::verbatim_imports
/// [`ViewAdapter::verbatim_exports`]: crate::ViewAdapter::verbatim_exports
pub fn check_moved(request: &[u8], answer: &[u8]) -> Result<(), String> {
    let sent: Vec<usize> = markers_in(request).into_iter().flatten().collect();
    if sent.is_empty() {
        // Nothing to check: only the host knows what markers look like.
        return Ok(());
    }
    for found in markers_in(answer) {
        match found {
            Ok(index) if sent.contains(&index) => {}
            Ok(index) => {
                return Err(format!(
                    "it gave back a moved string it was not sent (number {index})"
                ));
            }
            Err(at) => {
                return Err(format!(
                    "a string it declares it moves unread was edited or used as a key (byte {at} of its answer)"
                ));
            }
        }
    }
    Ok(())
}

/// Each marker found in the JSON text `text`: its index when it is a whole string value,
/// else the byte offset where it was found.
fn markers_in(text: &[u8]) -> Vec<Result<usize, usize>> {
    // After its NUL, which JSON can only write as `\u0000`, a marker is ASCII text.
    static FINDER: OnceLock<memmem::Finder<'static>> = OnceLock::new();
    let finder = FINDER.get_or_init(|| memmem::Finder::new(&prefix().as_bytes()[1..]).into_owned());
    let length = finder.needle().len();
    finder
        .find_iter(text)
        .map(|at| whole_marker(text, at, at + length).ok_or(at))
        .collect()
}

/// The index of the marker whose text after its NUL spans `text[at..digits]` and
/// beyond, when it is a whole string value: an opening quote and `\u0000` before it,
/// digits and a closing quote after, and no `:` next (which would make it a key).
fn whole_marker(text: &[u8], at: usize, digits: usize) -> Option<usize> {
    let quote = at.checked_sub(7)?;
    if &text[quote..at] != b"\"\\u0000" {
        return None;
    }
    // The quote opens a string when no backslash escapes it.
    let backslashes = text[..quote]
        .iter()
        .rev()
        .take_while(|&&b| b == b'\\')
        .count();
    if backslashes % 2 == 1 {
        return None;
    }
    let length = text[digits..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    let end = digits + length;
    if length == 0 || text.get(end) != Some(&b'"') {
        return None;
    }
    let next = text[end + 1..].iter().find(|b| !b.is_ascii_whitespace());
    if next == Some(&b':') {
        return None;
    }
    number(std::str::from_utf8(&text[digits..end]).ok()?)
}

/// Whether `token`, the text of a JSON string with its quotes, valid JSON and UTF-8,
/// is exactly what the writer writes for the string it decodes to: every escape is
/// one the writer would make (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, or `\u00xx` in
/// lower case for another control character), and nothing is escaped that the writer
/// writes as it is (`\/`, `\u` escapes of other characters).
pub fn is_written_as_is(token: &[u8]) -> bool {
    let Some(inner) = token
        .strip_prefix(b"\"")
        .and_then(|t| t.strip_suffix(b"\""))
    else {
        return false;
    };
    let mut rest = inner;
    while let Some(at) = crate::jsonwrite::next_escape(rest) {
        // In valid JSON text, the only byte inside a string that needs an escape is
        // the backslash starting one.
        let escape = &rest[at..];
        let length = match escape {
            [b'\\', b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't', ..] => 2,
            [b'\\', b'u', b'0', b'0', high @ (b'0' | b'1'), low, ..]
                if matches!(low, b'0'..=b'9' | b'a'..=b'f')
                    && !(*high == b'0' && matches!(low, b'8' | b'9' | b'a' | b'c' | b'd')) =>
            {
                6
            }
            _ => return false,
        };
        rest = &escape[length..];
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rule the fast check must agree with: decode, encode, compare.
    fn round_trips(token: &[u8]) -> bool {
        let decoded: String = serde_json::from_slice(token).expect("valid token");
        serde_json::to_vec(&decoded).expect("in memory") == token
    }

    #[test]
    fn the_check_agrees_with_decoding_and_encoding_again() {
        let mut tokens: Vec<String> = vec![
            r#""""#.into(),
            r#""plain text""#.into(),
            r#""a\/b""#.into(),
            r#""\u00e9""#.into(),
            "\"é 中 \u{7f}\"".into(),
            r#""\ud83d\ude00""#.into(),
            r#""\u001F""#.into(),
            r#""\u001f""#.into(),
            r#""\u0000\u0001\u000b\u000e\u0010\u001f""#.into(),
            r#""\"\\\b\f\n\r\t""#.into(),
            r#""\u0022""#.into(),
            r#""\u005c""#.into(),
            r#""\u0020""#.into(),
            r#""\u007f""#.into(),
        ];
        // Every control character, as `\u00xx` and as its short form where it has one.
        for byte in 0..0x20_u8 {
            tokens.push(format!("\"x\\u{byte:04x}y\""));
            tokens.push(format!("\"\\u{byte:04X}\""));
        }
        for short in ['b', 'f', 'n', 'r', 't', '"', '\\', '/'] {
            tokens.push(format!("\"{}\\{short}\"", "a".repeat(9)));
        }
        for token in &tokens {
            assert_eq!(
                is_written_as_is(token.as_bytes()),
                round_trips(token.as_bytes()),
                "{token}"
            );
        }
    }

    #[test]
    fn markers_are_written_as_the_texts_they_stand_for() {
        use crate::codec::JsonStyle;
        use serde_json::{Value, json};
        let texts: [&[u8]; 2] = [br#""line\n\"quoted\"""#, "\"é\"".as_bytes()];
        let decoded = json!({
            "patch": "line\n\"quoted\"",
            "extensions": {"texts": ["é", "line\n\"quoted\""], "n": 1},
            "marker-like": "\u{0}isobench-passthrough-",
        });
        let mut holding = decoded.clone();
        holding["patch"] = Value::String(marker(0));
        holding["extensions"]["texts"] = json!([marker(1), marker(0)]);
        for style in [JsonStyle::Compact, JsonStyle::Spaced] {
            let (mut expected, mut passing) = (Vec::new(), Vec::new());
            style.write_object(&mut expected, decoded.as_object().expect("object"));
            style.write_object_passing(&mut passing, holding.as_object().expect("object"), &texts);
            assert_eq!(
                String::from_utf8_lossy(&passing),
                String::from_utf8_lossy(&expected)
            );
        }
    }

    #[test]
    fn markers_are_told_from_input_strings() {
        let p = marker(7);
        assert_eq!(index_of(&p), Some(7));
        assert_eq!(index_of(&marker(0)), Some(0));
        assert_eq!(index_of("\0isobench-passthrough-0000000000000000-7"), None);
        assert_eq!(index_of("7"), None);
        assert_eq!(index_of(""), None);
        assert_eq!(index_of(&format!("{p}x")), None);
        assert_eq!(index_of(&format!("{p}0").replace("-70", "-07")), None);
        assert_eq!(index_of(&p.replace("-7", "-+7")), None);
    }

    #[test]
    fn only_markers_moved_whole_pass_the_check() {
        let text = |value: &serde_json::Value| serde_json::to_vec(value).expect("in memory");
        let (m0, m1) = (marker(0), marker(1));
        let request = text(&serde_json::json!({"a": m0, "b": m1, "c": "\\\"x"}));
        let good = [
            serde_json::json!({"x": m0, "y": [m1, m0], "z": {"w": m1}, "n": "\u{0}text"}),
            serde_json::json!({"nothing": "moved"}),
            serde_json::json!([m1]),
        ];
        for answer in &good {
            assert_eq!(check_moved(&request, &text(answer)), Ok(()), "{answer}");
        }
        let bad = [
            serde_json::json!({"x": format!("edited {m0}")}),
            serde_json::json!({"x": format!("{m0} edited")}),
            serde_json::json!({"x": format!("{m0}0")}),
            serde_json::json!({"x": marker(2)}),
            serde_json::json!({"x": {m0.clone(): 1}}),
            serde_json::json!({"x": format!("\"{m1}")}),
            serde_json::json!({"x": m0[1..].to_owned()}),
        ];
        for answer in &bad {
            assert!(check_moved(&request, &text(answer)).is_err(), "{answer}");
        }
        // A request without markers has nothing to check: markers are the host's own.
        assert_eq!(check_moved(b"{}", &text(&good[0])), Ok(()));
    }
}
