//! Finding the parts of a JSON object's text without reading its values: its keys, and
//! where each value ends. For readers that take the common case quickly and leave any
//! other to a full parser: they give up (`None`) at an escaped key, a value nested deeper
//! than [`MAX_NESTING`], or text cut short; none of them checks the values it skips.

use isobench_core::passthrough;

/// How deep a value may nest before these readers leave it to the full reader, whose
/// limit counts from the record (see [`super::MAX_DEPTH`]).
pub(crate) const MAX_NESTING: usize = 64;

/// Walks the object `text` holds: `entry` reads the value of each key, given where it
/// starts, and says where it ends. `None` when `text` is not one object, or `entry`
/// gives up.
pub(crate) fn object<'t>(
    text: &'t str,
    mut entry: impl FnMut(&'t str, usize) -> Option<usize>,
) -> Option<()> {
    let bytes = text.as_bytes();
    let mut at = skip_spaces(bytes, 0);
    if bytes.get(at) != Some(&b'{') {
        return None;
    }
    at = skip_spaces(bytes, at + 1);
    if bytes.get(at) != Some(&b'}') {
        loop {
            let (key, after) = plain_key(text, at)?;
            at = skip_spaces(bytes, after);
            if bytes.get(at) != Some(&b':') {
                return None;
            }
            let end = entry(key, skip_spaces(bytes, at + 1))?;
            at = skip_spaces(bytes, end);
            match bytes.get(at) {
                Some(b',') => at = skip_spaces(bytes, at + 1),
                Some(b'}') => break,
                _ => return None,
            }
        }
    }
    (skip_spaces(bytes, at + 1) == bytes.len()).then_some(())
}

/// The key starting at `at` and the offset after it, when it holds no escape.
fn plain_key(text: &str, at: usize) -> Option<(&str, usize)> {
    let bytes = text.as_bytes();
    if bytes.get(at) != Some(&b'"') {
        return None;
    }
    let length = memchr::memchr2(b'"', b'\\', &bytes[at + 1..])?;
    let end = at + 1 + length;
    let key = &text[at + 1..end];
    (bytes[end] == b'"' && !key.bytes().any(|b| b < 0x20)).then_some((key, end + 1))
}

fn skip_spaces(bytes: &[u8], mut at: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(at) {
        at += 1;
    }
    at
}

/// Where the value starting at `at` ends, found without checking it; `None` when it
/// nests past [`MAX_NESTING`], is cut short or is missing.
pub(crate) fn value_end(bytes: &[u8], at: usize) -> Option<usize> {
    match *bytes.get(at)? {
        b'"' => passthrough::string_length(&bytes[at..]).map(|length| at + length),
        b'[' | b'{' => {
            let mut depth = 0;
            let mut i = at;
            loop {
                match *bytes.get(i)? {
                    b'"' => {
                        i += passthrough::string_length(&bytes[i..])?;
                        continue;
                    }
                    b'[' | b'{' => {
                        depth += 1;
                        if depth > MAX_NESTING {
                            return None;
                        }
                    }
                    b']' | b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        _ => Some(
            bytes[at..]
                .iter()
                .position(|b| matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
                .map_or(bytes.len(), |length| at + length),
        )
        .filter(|&end| end > at),
    }
}
