//! Strings passed from an input record to the output as the JSON text they were read
//! as, without being decoded and encoded again.
//!
//! Patches and issue texts make up most of a benchmark record, and most adapters only
//! move them from one key to another. When the source adapter moves an input field
//! untouched ([`ViewAdapter::verbatim_imports`]) and the target writes that canonical
//! field untouched ([`ViewAdapter::verbatim_exports`]), a reader may leave the field's
//! JSON string undecoded: the record holds a [`placeholder`] instead, and the writer
//! ([`JsonStyle::write_object_passing`]) puts the original text where the placeholder
//! lands. This is only done for a string whose text is exactly what the writer would
//! write for it ([`is_written_as_is`]), so the output is the same, byte for byte, as
//! with the string decoded and encoded again.
//!
//! A placeholder holds a NUL byte and a number drawn at random once per process, so no
//! string of the input can be taken for one.
//!
//! [`ViewAdapter::verbatim_imports`]: crate::ViewAdapter::verbatim_imports
//! [`ViewAdapter::verbatim_exports`]: crate::ViewAdapter::verbatim_exports
//! [`JsonStyle::write_object_passing`]: crate::codec::JsonStyle::write_object_passing

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::sync::OnceLock;

/// What every placeholder of this process starts with.
fn prefix() -> &'static str {
    static PREFIX: OnceLock<String> = OnceLock::new();
    PREFIX.get_or_init(|| {
        let nonce = RandomState::new().hash_one("isobench passthrough");
        format!("\0isobench-passthrough-{nonce:016x}-")
    })
}

/// The string a record holds in place of the `index`-th passed string.
pub fn placeholder(index: usize) -> String {
    format!("{}{index}", prefix())
}

/// The index of the passed string `s` stands for, when it is a placeholder.
pub(crate) fn index_of(s: &str) -> Option<usize> {
    if s.as_bytes().first() != Some(&0) {
        return None;
    }
    s.strip_prefix(prefix())?.parse().ok()
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
    fn placeholders_are_written_as_the_texts_they_stand_for() {
        use crate::codec::JsonStyle;
        use serde_json::{Value, json};
        let texts: [&[u8]; 2] = [br#""line\n\"quoted\"""#, "\"é\"".as_bytes()];
        let decoded = json!({
            "patch": "line\n\"quoted\"",
            "extensions": {"texts": ["é", "line\n\"quoted\""], "n": 1},
            "placeholder-like": "\u{0}isobench-passthrough-",
        });
        let mut holding = decoded.clone();
        holding["patch"] = Value::String(placeholder(0));
        holding["extensions"]["texts"] = json!([placeholder(1), placeholder(0)]);
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
    fn placeholders_are_told_from_input_strings() {
        let p = placeholder(7);
        assert_eq!(index_of(&p), Some(7));
        assert_eq!(index_of(&placeholder(0)), Some(0));
        assert_eq!(index_of("\0isobench-passthrough-0000000000000000-7"), None);
        assert_eq!(index_of("7"), None);
        assert_eq!(index_of(""), None);
        assert_eq!(index_of(&format!("{p}x")), None);
    }
}
