//! A string column's cell from the string's JSON token, as this tool's writer writes
//! it, without building the string's value: [`super::ColumnRows::push_holding`] lays a
//! held string's text into its column with [`unescape_into`].

/// Appends the string the JSON string token `token` (quotes included, from valid JSON
/// text) stands for to `out`; `None` when `token` is not one string token or holds an
/// escape JSON does not have (a lone surrogate included), with `out` then holding a part
/// of it. The characters between escapes are copied unchecked: valid JSON has no raw
/// control character in a string.
pub(super) fn unescape_into(token: &[u8], out: &mut Vec<u8>) -> Option<()> {
    let bytes = token.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
    let mut at = 0;
    while let Some(offset) = memchr::memchr2(b'\\', b'"', &bytes[at..]) {
        let escape = at + offset;
        if bytes[escape] == b'"' {
            return None;
        }
        out.extend_from_slice(&bytes[at..escape]);
        let (ch, length) = match *bytes.get(escape + 1)? {
            b'"' => ('"', 2),
            b'\\' => ('\\', 2),
            b'/' => ('/', 2),
            b'b' => ('\u{8}', 2),
            b'f' => ('\u{c}', 2),
            b'n' => ('\n', 2),
            b'r' => ('\r', 2),
            b't' => ('\t', 2),
            b'u' => {
                let high = hex4(bytes.get(escape + 2..escape + 6)?)?;
                if (0xD800..0xDC00).contains(&high) {
                    if bytes.get(escape + 6..escape + 8)? != b"\\u" {
                        return None;
                    }
                    let low = hex4(bytes.get(escape + 8..escape + 12)?)?;
                    if !(0xDC00..0xE000).contains(&low) {
                        return None;
                    }
                    let code = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
                    (char::from_u32(code)?, 12)
                } else {
                    (char::from_u32(high)?, 6)
                }
            }
            _ => return None,
        };
        out.extend_from_slice(ch.encode_utf8(&mut [0; 4]).as_bytes());
        at = escape + length;
    }
    out.extend_from_slice(&bytes[at..]);
    Some(())
}

/// The value of four hex digits.
fn hex4(digits: &[u8]) -> Option<u32> {
    digits.iter().try_fold(0, |value, &d| {
        let digit = char::from(d).to_digit(16)?;
        Some(value * 16 + digit)
    })
}

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;

    use proptest::prelude::*;

    use super::*;

    /// Text rich in what JSON escapes: quotes, backslashes, controls, DEL, characters
    /// beyond ASCII and beyond the BMP (a surrogate pair in `\u` form).
    fn text() -> impl Strategy<Value = String> {
        "[a-z \"\\\\/\n\t\r\u{0}\u{1}\u{8}\u{c}\u{1f}\u{7f}é中\u{1F600}\u{2028}]{0,24}"
    }

    /// `s` as a JSON string token with every character picked at random to be written
    /// as it is (escaped where JSON requires), as a short escape, or as `\u` escapes
    /// (a pair of surrogates beyond the BMP), upper or lower case.
    fn any_token(s: &str, picks: &[u8]) -> String {
        let mut token = String::from("\"");
        for (ch, &pick) in s.chars().zip(picks.iter().cycle()) {
            let short = match ch {
                '"' => Some("\\\""),
                '\\' => Some("\\\\"),
                '/' => Some("\\/"),
                '\n' => Some("\\n"),
                '\t' => Some("\\t"),
                '\r' => Some("\\r"),
                '\u{8}' => Some("\\b"),
                '\u{c}' => Some("\\f"),
                _ => None,
            };
            let must = ch == '"' || ch == '\\' || u32::from(ch) < 0x20;
            match (pick % 3, short) {
                (0, _) if !must => token.push(ch),
                (1, Some(short)) => token.push_str(short),
                _ => {
                    let mut units = [0u16; 2];
                    for unit in ch.encode_utf16(&mut units) {
                        if pick % 2 == 0 {
                            write!(token, "\\u{unit:04x}").expect("writing to a string");
                        } else {
                            write!(token, "\\u{unit:04X}").expect("writing to a string");
                        }
                    }
                }
            }
        }
        token.push('"');
        token
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn strings_unescape_as_serde_json_decodes_them(s in text(), picks in prop::collection::vec(any::<u8>(), 1..8)) {
            for token in [serde_json::to_string(&s).unwrap(), any_token(&s, &picks)] {
                let decoded: String = serde_json::from_str(&token).unwrap();
                let mut out = b"before".to_vec();
                prop_assert_eq!(unescape_into(token.as_bytes(), &mut out), Some(()), "{}", token);
                prop_assert_eq!(&out[b"before".len()..], decoded.as_bytes());
            }
        }

        #[test]
        fn tokens_serde_json_refuses_are_refused(s in text(), cut in any::<prop::sample::Index>(), junk in "[\\\\\"ux0-9a-fA-F]{1,3}") {
            // A valid token with a few bytes put inside it.
            let token = serde_json::to_string(&s).unwrap();
            let at = 1 + cut.index(token.len() - 1);
            if !token.is_char_boundary(at) {
                return Ok(());
            }
            let token = format!("{}{junk}{}", &token[..at], &token[at..]);
            let decoded = serde_json::from_str::<String>(&token).ok();
            let mut out = Vec::new();
            match unescape_into(token.as_bytes(), &mut out) {
                Some(()) => prop_assert_eq!(Some(out), decoded.map(String::into_bytes), "{}", token),
                None => prop_assert!(decoded.is_none(), "{} decodes", token),
            }
        }
    }

    #[test]
    fn lone_surrogates_and_bad_escapes_are_refused() {
        for token in [
            r#""\ud800""#,
            r#""\udc00x""#,
            r#""\ud800\u0041""#,
            r#""\x""#,
            r#""\u12""#,
            r#""a"b""#,
            r#""a\"#,
        ] {
            assert_eq!(
                unescape_into(token.as_bytes(), &mut Vec::new()),
                None,
                "{token}"
            );
        }
    }
}
