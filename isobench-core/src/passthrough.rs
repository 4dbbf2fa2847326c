//! Strings passed from an input record to the output as the JSON text they were read
//! as, without being decoded and encoded again.
//!
//! Patches and issue texts make up most of a benchmark record, and most adapters only
//! move them from one key to another. When the source adapter moves an input field
//! untouched ([`ViewAdapter::verbatim_imports`]) and the target writes that canonical
//! field untouched ([`ViewAdapter::verbatim_exports`]), a reader may leave the field's
//! JSON string undecoded: the record holds a [marker](Passed::marker) instead, and the
//! writer ([`JsonStyle::write_object_passing`]) puts the original text where the marker
//! lands. This is only done for a string whose text is exactly what the writer would
//! write for it ([`is_written_as_is`]), so the output is the same, byte for byte, as
//! with the string decoded and encoded again.
//!
//! Lists of strings pass too, when the canonical field is a list
//! ([`is_list_field`]): an array written as the writer would write it in the output's
//! style ([`is_list_written_as_is`]), or a string holding a JSON-encoded list, which the
//! reader rewrites as the array the writer would write ([`transcode_list`]) without
//! decoding its items. The record then holds the array `[marker]`, one item, which
//! the writer replaces by the whole list's text. A JSON-encoded list reaches the
//! adapter as an [`encoded_list`](Passed::encoded_list) marker, which
//! [`crate::codec::decode_list`] reads as that one-item array and the encoding the text
//! was in.
//!
//! A marker holds a NUL byte and a number drawn at random once per process, so no
//! string of the input can be taken for one; then the serial number of its record
//! (one per [`Passed::clear`]) and its index, both fixed-width, so that a marker kept
//! from another record, or with a digit added or lost, is not one of this record's.
//!
//! [`ViewAdapter::verbatim_imports`]: crate::ViewAdapter::verbatim_imports
//! [`ViewAdapter::verbatim_exports`]: crate::ViewAdapter::verbatim_exports
//! [`JsonStyle::write_object_passing`]: crate::codec::JsonStyle::write_object_passing

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::ops::Range;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::codec::{Encoding, JsonStyle};

/// What every marker of this process starts with.
fn prefix() -> &'static str {
    static PREFIX: OnceLock<String> = OnceLock::new();
    PREFIX.get_or_init(|| {
        let nonce = RandomState::new().hash_one("isobench passthrough");
        format!("\0isobench-passthrough-{nonce:016x}-")
    })
}

/// The length of what follows the [`prefix`] in a marker: the record's serial number
/// (16 hex digits), `-`, the marker's index (8 hex digits).
const ID_LENGTH: usize = 25;

/// A marker's text after the [`prefix`]: [`ID_LENGTH`] bytes.
struct Id {
    serial: u64,
    index: u32,
}

impl std::fmt::Display for Id {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:016x}-{:08x}", self.serial, self.index)
    }
}

/// The serial number and index a marker's text after the [`prefix`] starts with.
fn parse_id(rest: &[u8]) -> Option<(u64, usize)> {
    let id = rest.get(..ID_LENGTH)?;
    if id[16] != b'-' {
        return None;
    }
    Some((hex(&id[..16])?, usize::try_from(hex(&id[17..])?).ok()?))
}

/// The number `digits` writes in lower-case hexadecimal, leading zeros allowed.
fn hex(digits: &[u8]) -> Option<u64> {
    digits.iter().try_fold(0_u64, |n, &b| {
        let digit = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            _ => return None,
        };
        n.checked_mul(16)?.checked_add(u64::from(digit))
    })
}

/// The index of the passed string `s` stands for, when it is a marker (of any record:
/// the serial number tells a record's markers from another's).
pub fn index_of(s: &str) -> Option<usize> {
    if s.as_bytes().first() != Some(&0) {
        return None;
    }
    let rest = s.strip_prefix(prefix())?.as_bytes();
    let (_, index) = parse_id(rest).filter(|_| rest.len() == ID_LENGTH)?;
    Some(index)
}

/// The marker and encoding of an [`encoded_list`](Passed::encoded_list) marker.
pub(crate) fn encoded_list_of(s: &str) -> Option<(String, Encoding)> {
    if s.as_bytes().first() != Some(&0) {
        return None;
    }
    let rest = s.strip_prefix(prefix())?;
    parse_id(rest.as_bytes())?;
    let encoding = rest.get(ID_LENGTH..)?.strip_prefix(':')?;
    let marker = &s[..s.len() - rest.len() + ID_LENGTH];
    Some((marker.to_owned(), Encoding::parse(encoding)?))
}

/// The canonical fields that may pass at all: the bulk of a record (patches, texts,
/// test lists), which nothing between import and export reads. A [`crate::table::Table`]
/// passes such a field when it maps it straight across; an identifier or a commit, which
/// the pipeline and hooks read, never passes.
pub const BULK_FIELDS: [&str; 7] = [
    "patch",
    "test_patch",
    "gt_commit_message",
    "extensions.problem_statement",
    "extensions.hints_text",
    "extensions.fail_to_pass",
    "extensions.pass_to_pass",
];

/// The canonical fields holding a list of strings that may pass as a whole: nothing
/// between import and export counts their items (`efficiency_test`'s length is checked
/// against `duration_changes`', so it does not pass).
const LIST_FIELDS: [&str; 2] = ["extensions.fail_to_pass", "extensions.pass_to_pass"];

/// Whether the canonical `field` holds a list of strings: a passed value of it is a
/// list's text, not a string's.
pub fn is_list_field(field: &str) -> bool {
    LIST_FIELDS.contains(&field)
}

/// The texts a record's markers stand for, by marker index: ranges of the record's
/// JSON text, or texts the reader made from it (a JSON-encoded list rewritten as an
/// array).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Passed {
    /// Per marker: whether its text is in `made` (else in the record's text), and where.
    spans: Vec<(bool, Range<usize>)>,
    made: Vec<u8>,
    /// The record's serial number, which its markers hold.
    serial: u64,
}

impl Passed {
    /// Forgets every text, keeping the memory, for the next record: its markers get a
    /// serial number of their own, unique in the process.
    pub fn clear(&mut self) {
        static SERIALS: AtomicU64 = AtomicU64::new(1);
        self.spans.clear();
        self.made.clear();
        self.serial = SERIALS.fetch_add(1, Ordering::Relaxed);
    }

    /// The string a record holds in place of the `index`-th passed text.
    pub fn marker(&self, index: usize) -> String {
        format!("{}{}", prefix(), self.id(index))
    }

    /// What follows the prefix in the `index`-th marker.
    fn id(&self, index: usize) -> Id {
        Id {
            serial: self.serial,
            index: u32::try_from(index).expect("a record passes fewer than 2^32 texts"),
        }
    }

    /// The string a record holds in place of the `index`-th passed text when that text
    /// is a list the input held as a string in `encoding` (a JSON-encoded list):
    /// [`crate::codec::decode_list`] reads it as the list `[marker(index)]`.
    pub fn encoded_list(&self, index: usize, encoding: Encoding) -> String {
        format!("{}:{}", self.marker(index), encoding.as_str())
    }

    /// Whether no text is passed.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Passes the value at `range` of the record's text; its marker index.
    pub fn push_input(&mut self, range: Range<usize>) -> usize {
        self.spans.push((false, range));
        self.spans.len() - 1
    }

    /// Passes the array [`transcode_list`] makes of `token`, a string holding a
    /// JSON-encoded list, for an output in `style`: its marker index and the
    /// encoding, when the list can pass.
    pub fn push_encoded_list(
        &mut self,
        token: &[u8],
        style: JsonStyle,
    ) -> Option<(usize, Encoding)> {
        let start = self.made.len();
        let Some(encoding) = transcode_list(token, style, &mut self.made) else {
            self.made.truncate(start);
            return None;
        };
        self.spans.push((true, start..self.made.len()));
        Some((self.spans.len() - 1, encoding))
    }

    /// Whether the reader made any of the texts (a JSON-encoded list rewritten as the
    /// array the writer writes), rather than each being a range of the record's text.
    pub fn any_made(&self) -> bool {
        self.spans.iter().any(|(made, _)| *made)
    }

    /// The `index`-th marker's text, for `text`, the record's JSON text.
    pub fn text<'a>(&'a self, text: &'a [u8], index: usize) -> Option<&'a [u8]> {
        let (made, range) = self.spans.get(index)?;
        Some(if *made {
            &self.made[range.clone()]
        } else {
            &text[range.clone()]
        })
    }

    /// Each marker's text, by index, for `text`, the record's JSON text.
    pub fn texts<'a>(&'a self, text: &'a [u8]) -> Vec<&'a [u8]> {
        self.spans
            .iter()
            .map(|(made, range)| {
                if *made {
                    &self.made[range.clone()]
                } else {
                    &text[range.clone()]
                }
            })
            .collect()
    }
}

/// Rewrites `token`, the text of a JSON string (valid JSON) holding a JSON-encoded
/// list of strings, as the array the writer writes for that list in `style`, onto
/// `out`, without decoding the items; gives the list's [`Encoding`] as
/// [`crate::codec::decode_list`] tells it. Only a list that decoding would call
/// reproducible (the same separator throughout, no other spaces) and whose items hold
/// no escape at either level passes; for any other, `None`, and `out` may hold a part
/// of the array.
pub fn transcode_list(token: &[u8], style: JsonStyle, out: &mut Vec<u8>) -> Option<Encoding> {
    let inner = token.strip_prefix(b"\"[")?.strip_suffix(b"]\"")?;
    out.push(b'[');
    let mut separator: Option<&[u8]> = None;
    let mut rest = inner;
    let mut first = true;
    while !rest.is_empty() {
        if !first {
            let found: &[u8] = if rest.starts_with(b", ") { b", " } else { b"," };
            rest = rest.strip_prefix(found)?;
            if *separator.get_or_insert(found) != found {
                return None;
            }
            out.extend_from_slice(item_separator(style));
        }
        first = false;
        // An item: `\"`, text without a backslash, `\"`. In a valid JSON string that
        // text holds no quote and no control character either, so the writer writes it
        // as it is.
        let item = rest.strip_prefix(b"\\\"")?;
        let end = memchr::memchr(b'\\', item)?;
        if item.get(end + 1) != Some(&b'"') {
            return None;
        }
        out.push(b'"');
        out.extend_from_slice(&item[..end]);
        out.push(b'"');
        rest = &item[end + 2..];
    }
    out.push(b']');
    Some(if separator == Some(b", ") {
        Encoding::JsonSpaced
    } else {
        Encoding::Json
    })
}

/// Whether `token`, the text of a JSON array, is an array of strings exactly as the
/// writer writes it in `style`: no spaces but the style's separators, every string
/// [`is_written_as_is`]. Of UTF-8 text not known to be valid JSON, `true` still says it
/// is valid.
pub fn is_list_written_as_is(token: &[u8], style: JsonStyle) -> bool {
    let separator = item_separator(style);
    let Some(mut rest) = token.strip_prefix(b"[").and_then(|t| t.strip_suffix(b"]")) else {
        return false;
    };
    let mut first = true;
    while !rest.is_empty() {
        if !first {
            let Some(after) = rest.strip_prefix(separator) else {
                return false;
            };
            rest = after;
        }
        first = false;
        // One pass: the string's end, found only when it is written as it is.
        let Some(length) = written_string_length(rest) else {
            return false;
        };
        rest = &rest[length..];
    }
    true
}

/// What the writer puts between the items of an array in `style`.
fn item_separator(style: JsonStyle) -> &'static [u8] {
    if style == JsonStyle::Spaced {
        b", "
    } else {
        b","
    }
}

/// The length of the JSON string `text` starts with, quotes included, found without
/// checking the string; `None` when `text` does not start with one or it is cut short.
pub fn string_length(text: &[u8]) -> Option<usize> {
    if text.first() != Some(&b'"') {
        return None;
    }
    let mut at = 1;
    loop {
        at += memchr::memchr2(b'"', b'\\', text.get(at..)?)?;
        if text[at] == b'"' {
            return Some(at + 1);
        }
        at += 2;
    }
}

/// Whether `token`, the text of a JSON string with its quotes, valid JSON and UTF-8,
/// is exactly what the writer writes for the string it decodes to: every escape is
/// one the writer would make (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, or `\u00xx` in
/// lower case for another control character), and nothing is escaped that the writer
/// writes as it is (`\/`, `\u` escapes of other characters).
///
/// Of a UTF-8 token not known to be valid JSON, `true` still says it is valid: a
/// control character, a bare quote or an escape the writer does not make inside
/// give `false`.
pub fn is_written_as_is(token: &[u8]) -> bool {
    written_string_length(token) == Some(token.len())
}

/// The length, quotes included, of the JSON string `text` starts with, when the writer
/// writes it as it is ([`is_written_as_is`]); `None` when it would not, or when `text`
/// does not start with a string. One pass, eight bytes at a time between escapes. Of
/// UTF-8 text not known to be valid JSON, a length still says the string is valid.
pub fn written_string_length(text: &[u8]) -> Option<usize> {
    if text.first() != Some(&b'"') {
        return None;
    }
    let mut at = 1;
    loop {
        at += crate::jsonwrite::next_escape(&text[at..])?;
        match text[at..] {
            [b'"', ..] => return Some(at + 1),
            [b'\\', b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't', ..] => at += 2,
            [b'\\', b'u', b'0', b'0', high @ (b'0' | b'1'), low, ..]
                if matches!(low, b'0'..=b'9' | b'a'..=b'f')
                    && !(high == b'0' && matches!(low, b'8' | b'9' | b'a' | b'c' | b'd')) =>
            {
                at += 6;
            }
            // A control character, or an escape the writer does not make.
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The markers of one record (a `Passed` never cleared: serial number 0).
    fn marker(index: usize) -> String {
        Passed::default().marker(index)
    }

    fn encoded_list(index: usize, encoding: Encoding) -> String {
        Passed::default().encoded_list(index, encoding)
    }

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
    fn the_check_refuses_what_is_not_a_json_string() {
        for token in [
            "\"a\"b\"",
            "\"a\u{1}b\"",
            "\"a\nb\"",
            "\"\\\"",
            "\"",
            "\"\\x\"",
            "\"\\u00zz\"",
            "a\"",
            "\"a",
        ] {
            assert!(!is_written_as_is(token.as_bytes()), "{token:?}");
            assert!(
                written_string_length(token.as_bytes()).is_none_or(|l| l < token.len()),
                "{token:?}"
            );
        }
        for list in [
            "[\"a\" \"b\"]",
            "[\"a\u{1}\"]",
            "[\"a\",]",
            "[,\"a\"]",
            "[\"a\"]]",
            "[\"a\\\"]",
            "[\"a\",\"b\"",
            "[1]",
        ] {
            for style in [JsonStyle::Compact, JsonStyle::Spaced] {
                assert!(!is_list_written_as_is(list.as_bytes(), style), "{list:?}");
            }
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

    /// JSON-encoded lists at the transcoder's edges, as the texts of the strings that
    /// hold them.
    fn encoded_lists() -> Vec<String> {
        let lists = [
            r#"["a", "b"]"#,
            r#"["a","b"]"#,
            r#"["a"]"#,
            "[]",
            r#"[""]"#,
            r#"["", ""]"#,
            r#"["a, b", "c,d"]"#,
            r#"["a,b", "c"]"#,
            r#"["test_x[1, 2]", "t::u"]"#,
            r#"["é 中", "\u00e9"]"#,
            r#"["tab\there", "q\"uote", "back\\slash"]"#,
            r#"["a\/b"]"#,
            r#"["a", "b","c"]"#,
            r#"["a" , "b"]"#,
            r#"[ "a"]"#,
            r#"["a"] "#,
            r#"["a",  "b"]"#,
            r#"["a",]"#,
            "['a', 'b']",
            "[1, 2]",
            r#"["a", 2]"#,
            r#"["a", null]"#,
            r#"{"a": "b"}"#,
            r#""[\"nested\"]""#,
            "",
            "plain text",
        ];
        lists
            .iter()
            .map(|l| serde_json::to_string(l).expect("in memory"))
            .chain([
                r#""[\"a\"\u002c \"b\"]""#.to_owned(),
                r#""[\u0022a\u0022]""#.to_owned(),
            ])
            .collect()
    }

    #[test]
    fn a_transcoded_list_is_the_decoded_list_written_again() {
        use crate::codec::decode_list;
        let mut transcoded = 0;
        for token in encoded_lists() {
            let value: serde_json::Value = serde_json::from_str(&token).expect("a JSON string");
            let decoded = decode_list(&value, "/l");
            for style in [JsonStyle::Compact, JsonStyle::Spaced] {
                let mut out = b"kept".to_vec();
                let Some(encoding) = transcode_list(token.as_bytes(), style, &mut out) else {
                    continue;
                };
                transcoded += 1;
                // Only what decoding reads back exactly may pass, in the same encoding.
                let decoded = decoded.as_ref().expect("a list that passes decodes");
                assert!(decoded.reproducible, "{token}");
                assert_eq!(encoding, decoded.encoding, "{token}");
                let mut expected = b"kept".to_vec();
                crate::jsonwrite::strings(
                    &mut expected,
                    &decoded.items,
                    crate::jsonwrite::Style {
                        spaced: style == JsonStyle::Spaced,
                        passed: &[],
                    },
                );
                assert_eq!(
                    String::from_utf8_lossy(&out),
                    String::from_utf8_lossy(&expected),
                    "{token}"
                );
            }
        }
        assert!(transcoded >= 16, "{transcoded}");
    }

    #[test]
    fn the_list_check_agrees_with_decoding_and_writing_again() {
        let mut arrays: Vec<String> = encoded_lists()
            .iter()
            .filter_map(|token| serde_json::from_str::<String>(token).ok())
            .filter(|text| {
                serde_json::from_str::<serde_json::Value>(text).is_ok_and(|v| v.is_array())
            })
            .collect();
        arrays.extend([r#"["\u00e9"]"#, r#"["a\u001fb"]"#, r#"["x\u001Fy"]"#].map(str::to_owned));
        let mut passed = 0;
        for text in &arrays {
            let value: serde_json::Value = serde_json::from_str(text).expect("an array");
            for style in [JsonStyle::Compact, JsonStyle::Spaced] {
                let written = style.to_string(&value);
                let expected = value
                    .as_array()
                    .is_some_and(|items| items.iter().all(serde_json::Value::is_string))
                    && written == *text;
                assert_eq!(
                    is_list_written_as_is(text.as_bytes(), style),
                    expected,
                    "{text} {style:?}"
                );
                passed += usize::from(expected);
            }
        }
        assert!(passed >= 6, "{passed}");
    }

    #[test]
    fn encoded_list_markers_carry_their_encoding() {
        use crate::codec::{DecodedList, decode_list};
        let holding = serde_json::Value::String(encoded_list(3, Encoding::JsonSpaced));
        assert_eq!(
            decode_list(&holding, "/l").expect("a marker decodes"),
            DecodedList {
                items: vec![marker(3)],
                encoding: Encoding::JsonSpaced,
                reproducible: true,
            }
        );
        assert_eq!(index_of(&encoded_list(3, Encoding::Json)), None);
        assert_eq!(encoded_list_of(&marker(3)), None);
        assert_eq!(
            encoded_list_of(&encoded_list(0, Encoding::Json)),
            Some((marker(0), Encoding::Json))
        );
    }

    #[test]
    fn a_marker_alone_in_an_array_stands_for_a_passed_list() {
        let texts: [&[u8]; 2] = [br#"["a", "b"]"#, br#""s""#];
        let holding = serde_json::json!({
            "l": [marker(0)],
            "two": [marker(0), marker(1)],
            "s": [marker(1)],
        });
        let mut out = Vec::new();
        JsonStyle::Spaced.write_object_passing(
            &mut out,
            holding.as_object().expect("object"),
            &texts,
        );
        assert_eq!(
            String::from_utf8_lossy(&out),
            format!(
                r#"{{"l": ["a", "b"], "two": ["{}", "s"], "s": ["s"]}}"#,
                marker(0).replace('\0', "\\u0000")
            )
        );
    }

    #[test]
    fn markers_are_told_from_input_strings() {
        let p = marker(7);
        assert_eq!(index_of(&p), Some(7));
        assert_eq!(index_of(&marker(0)), Some(0));
        let last = usize::try_from(u32::MAX).expect("a usize holds a u32");
        assert_eq!(index_of(&marker(last)), Some(last));
        assert_eq!(index_of("\0isobench-passthrough-0000000000000000-7"), None);
        assert_eq!(index_of("7"), None);
        assert_eq!(index_of(""), None);
        assert_eq!(index_of(&format!("{p}x")), None);
        // A digit added or lost is not another marker.
        assert_eq!(index_of(&format!("{p}0")), None);
        assert_eq!(index_of(&p[..p.len() - 1]), None);
        assert_eq!(index_of(&p.to_uppercase()), None);
        // Another record's marker is one too: only its serial number tells them apart.
        let mut other = Passed::default();
        other.clear();
        assert_ne!(other.marker(7), p);
        assert_eq!(index_of(&other.marker(7)), Some(7));
        assert_eq!(
            encoded_list_of(&other.encoded_list(7, Encoding::Json)),
            Some((other.marker(7), Encoding::Json))
        );
    }
}
