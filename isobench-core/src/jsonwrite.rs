//! Writing JSON values into memory, byte for byte as `serde_json` writes them, but
//! faster on the long strings benchmark records carry (patches, issue texts): the bytes
//! that need no escape are found eight at a time and copied as runs.
//!
//! Output equals `serde_json::to_writer` (compact) or its writer with Python's
//! separators (spaced), which the tests below check on every kind of value.

use std::io::Write as _;

use serde_json::{Map, Number, Value};

use crate::record::{CanonicalRecord, FieldRef, V1_FIELDS};

/// How to write: the separators and the escaping.
#[derive(Clone, Copy)]
pub(crate) struct Style {
    /// `, ` and `: ` between items, as Python writes them.
    pub spaced: bool,
    /// Every character outside printable ASCII as `\uXXXX`, as Python's `ensure_ascii`.
    pub ascii: bool,
}

/// Writes `value` in `style`.
pub(crate) fn value(out: &mut Vec<u8>, value: &Value, style: Style) {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(n) => number(out, n),
        Value::String(s) => text(out, s, style),
        Value::Array(items) => array(out, items, style.spaced, |out, item| {
            self::value(out, item, style);
        }),
        Value::Object(map) => object(out, map, style),
    }
}

/// Writes a canonical record as [`CanonicalRecord::into_value`] makes it: the v1
/// fields present, in schema order, then `extensions` unless empty.
pub(crate) fn record(out: &mut Vec<u8>, record: &CanonicalRecord, style: Style) {
    out.push(b'{');
    let mut first = true;
    let mut key = |out: &mut Vec<u8>, name: &str| {
        if !first {
            separator(out, b',', style.spaced);
        }
        first = false;
        text(out, name, style);
        separator(out, b':', style.spaced);
    };
    for (name, field) in V1_FIELDS.into_iter().zip(record.v1_fields()) {
        let Some(field) = field else { continue };
        key(out, name);
        match field {
            FieldRef::String(s) => text(out, s, style),
            FieldRef::Strings(items) => strings(out, items, style),
            FieldRef::Value(v) => value(out, v, style),
            FieldRef::Number(n) => number(out, n),
            FieldRef::Timings(timings) => array(out, timings, style.spaced, |out, t| {
                out.push(b'{');
                for (j, (name, durations)) in [("base", &t.base), ("head", &t.head)]
                    .into_iter()
                    .enumerate()
                {
                    if j > 0 {
                        separator(out, b',', style.spaced);
                    }
                    string(out, name);
                    separator(out, b':', style.spaced);
                    array(out, durations, style.spaced, number);
                }
                out.push(b'}');
            }),
        }
    }
    if !record.extensions.is_empty() {
        key(out, "extensions");
        object(out, &record.extensions, style);
    }
    out.push(b'}');
}

/// Writes a number as the serializer does (`Number`'s `Display` is its itoa/ryu text).
fn number(out: &mut Vec<u8>, n: &Number) {
    write!(out, "{n}").expect("writing to memory cannot fail");
}

/// Writes `items` as a JSON array of strings.
pub(crate) fn strings(out: &mut Vec<u8>, items: &[String], style: Style) {
    array(out, items, style.spaced, |out, item| text(out, item, style));
}

/// Writes `items` as a JSON array, each by `each`.
fn array<T>(
    out: &mut Vec<u8>,
    items: impl IntoIterator<Item = T>,
    spaced: bool,
    mut each: impl FnMut(&mut Vec<u8>, T),
) {
    out.push(b'[');
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            separator(out, b',', spaced);
        }
        each(out, item);
    }
    out.push(b']');
}

/// Writes `map` as a JSON object.
pub(crate) fn object(out: &mut Vec<u8>, map: &Map<String, Value>, style: Style) {
    out.push(b'{');
    for (i, (key, item)) in map.iter().enumerate() {
        if i > 0 {
            separator(out, b',', style.spaced);
        }
        text(out, key, style);
        separator(out, b':', style.spaced);
        value(out, item, style);
    }
    out.push(b'}');
}

pub(crate) fn separator(out: &mut Vec<u8>, byte: u8, spaced: bool) {
    out.push(byte);
    if spaced {
        out.push(b' ');
    }
}

/// Writes `s` as a JSON string in `style`'s escaping.
pub(crate) fn text(out: &mut Vec<u8>, s: &str, style: Style) {
    if style.ascii && has_ascii_escapes(s.as_bytes()) {
        ascii_string(out, s);
    } else {
        string(out, s);
    }
}

/// Whether `bytes` hold a character the ASCII style writes as `\uXXXX` (DEL, or any
/// beyond ASCII).
pub(crate) fn has_ascii_escapes(bytes: &[u8]) -> bool {
    bytes.iter().any(|&b| b >= 0x7f)
}

/// Writes `s` as Python's `json.dumps` does with `ensure_ascii=True`: as [`string`], and
/// every character outside `' '..='~'` that has no short escape as `\uXXXX` (lower-case
/// hex, a surrogate pair beyond the BMP).
fn ascii_string(out: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push(b'"');
    let mut units = [0u16; 2];
    for ch in s.chars() {
        if ch.is_ascii() && ch != '\u{7f}' {
            let byte = u8::try_from(ch).expect("an ASCII character is one byte");
            if needs_escape(byte) {
                escape(out, byte);
            } else {
                out.push(byte);
            }
            continue;
        }
        for &unit in ch.encode_utf16(&mut units).iter() {
            out.extend_from_slice(b"\\u");
            for shift in [12, 8, 4, 0] {
                out.push(HEX[usize::from((unit >> shift) & 0xf)]);
            }
        }
    }
    out.push(b'"');
}

/// Writes `s` as a JSON string: `"` and `\` escaped, `\b \f \n \r \t` by name, other
/// control characters as `\u00XX`, everything else (DEL and non-ASCII too) as it is.
pub(crate) fn string(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut start = 0;
    while let Some(offset) = next_escape(&bytes[start..]) {
        let at = start + offset;
        out.extend_from_slice(&bytes[start..at]);
        escape(out, bytes[at]);
        start = at + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

fn escape(out: &mut Vec<u8>, byte: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let named = match byte {
        b'"' => b'"',
        b'\\' => b'\\',
        0x08 => b'b',
        0x0c => b'f',
        b'\n' => b'n',
        b'\r' => b'r',
        b'\t' => b't',
        _ => {
            out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(byte >> 4)],
                HEX[usize::from(byte & 0xf)],
            ]);
            return;
        }
    };
    out.extend_from_slice(&[b'\\', named]);
}

fn needs_escape(byte: u8) -> bool {
    byte < 0x20 || byte == b'"' || byte == b'\\'
}

/// The offset of the first byte of `bytes` that needs an escape.
///
/// Sixteen bytes a step with SSE2 (part of every x86-64 processor): one compare for
/// `\`, one for `"` and the control characters together, one branch for the block.
/// Where the runs between escapes are some thirty bytes long (a patch, an issue text),
/// that is two steps an escape. A tail shorter than a block is searched as the last
/// sixteen bytes, overlapping bytes already searched (which flag nothing), or, in a text
/// shorter than a block, padded with spaces. Inlined into its callers: it is called once
/// per escape found; `#[inline]` alone left it out of line (measured: 5% fewer
/// instructions in the searches inlined).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[allow(clippy::inline_always)]
#[inline(always)]
pub(crate) fn next_escape(bytes: &[u8]) -> Option<usize> {
    let mut blocks = bytes.chunks_exact(16);
    let mut base = 0;
    for block in &mut blocks {
        let flags = escape_flags(block.try_into().expect("sixteen bytes"));
        if flags != 0 {
            return Some(base + flags.trailing_zeros() as usize);
        }
        base += 16;
    }
    let rest = blocks.remainder();
    if rest.is_empty() {
        return None;
    }
    let (last, start) = if let Some(start) = bytes.len().checked_sub(16) {
        (bytes[start..].try_into().expect("sixteen bytes"), start)
    } else {
        let mut padded = [b' '; 16];
        padded[..rest.len()].copy_from_slice(rest);
        (padded, 0)
    };
    let flags = escape_flags(&last);
    (flags != 0).then(|| start + flags.trailing_zeros() as usize)
}

/// One bit for each byte of `block` that needs an escape, the lowest for its first.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[allow(clippy::inline_always)]
#[inline(always)]
fn escape_flags(block: &[u8; 16]) -> u32 {
    use safe_arch::{
        bitor_m128i, bitxor_m128i, cmp_eq_mask_i8_m128i, load_unaligned_m128i, m128i, min_u8_m128i,
        move_mask_i8_m128i,
    };
    let bytes = load_unaligned_m128i(block);
    let backslashes = cmp_eq_mask_i8_m128i(bytes, m128i::from([b'\\'; 16]));
    // With bit 1 flipped, `"` (0x22) is 0x20 and the bytes below 0x20 stay below it,
    // the only bytes at most 0x20: their own unsigned minimum with 0x20. One compare
    // finds both.
    let flipped = bitxor_m128i(bytes, m128i::from([0x02_u8; 16]));
    let quotes_and_controls =
        cmp_eq_mask_i8_m128i(min_u8_m128i(flipped, m128i::from([0x20_u8; 16])), flipped);
    move_mask_i8_m128i(bitor_m128i(quotes_and_controls, backslashes)).cast_unsigned()
}

/// The bytes of a text that need an escape (`"`, `\`, control characters), found 64 at a
/// time: one block's flags are kept as the bits of a `u64` and walked bit by bit, so
/// that a text with an escape every few dozen bytes (a patch's line breaks) is not
/// searched again from scratch after each one.
pub(crate) struct Escapes<'a> {
    /// The text searched.
    bytes: &'a [u8],
    /// Where the block whose flags are held starts.
    start: usize,
    /// Where that block ends (`start + 64`; may lie past the text's end, whose bytes
    /// flag nothing); `0` before the first block.
    end: usize,
    /// One bit for each byte of the block at or past the last position asked for that
    /// needs an escape, the lowest for the block's first byte.
    flags: u64,
}

impl<'a> Escapes<'a> {
    /// A search over `bytes`, no block read yet.
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Self {
            bytes,
            start: 0,
            end: 0,
            flags: 0,
        }
    }

    /// The offset of the first byte at `from` or past it that needs an escape, as
    /// [`next_escape`] finds it in `bytes[from..]` (plus `from`); `None` when there is
    /// none. The block already read answers while `from` lies in it (a search that goes
    /// back before it reads again).
    #[allow(clippy::inline_always)]
    #[inline(always)]
    pub(crate) fn next(&mut self, from: usize) -> Option<usize> {
        if (self.start..self.end).contains(&from) {
            // `from - start` is below 64: the bits of the bytes before `from` go.
            self.flags &= u64::MAX << (from - self.start);
        } else {
            self.read(from)?;
        }
        loop {
            if self.flags != 0 {
                return Some(self.start + self.flags.trailing_zeros() as usize);
            }
            self.read(self.end)?;
        }
    }

    /// Reads the flags of the 64 bytes from `from` on; `None` when `from` is at or past
    /// the text's end. Inlined into [`Self::next`], so that the search's state stays in
    /// registers; the rarer tail of a text is read by [`last_block_flags`].
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn read(&mut self, from: usize) -> Option<()> {
        let (start, flags) = match self.bytes.get(from..from + 64) {
            Some(block) => (from, block_flags(block.try_into().expect("64 bytes"))),
            None => last_block_flags(self.bytes, from)?,
        };
        self.start = start;
        self.end = start + 64;
        self.flags = flags;
        Some(())
    }
}

/// Where the block read for a search from `from` starts, when fewer than 64 bytes of
/// `bytes` are left there, and the flags of its bytes at `from` or past it: the last 64
/// bytes of the text (flags of the bytes before `from` cleared), or the whole text
/// padded with spaces when it is shorter than a block. `None` when `from` is at or
/// past the text's end.
#[inline(never)]
fn last_block_flags(bytes: &[u8], from: usize) -> Option<(usize, u64)> {
    let len = bytes.len();
    if from >= len {
        return None;
    }
    let (start, flags) = if let Some(start) = len.checked_sub(64) {
        (
            start,
            block_flags(bytes[start..].try_into().expect("64 bytes")),
        )
    } else {
        let mut padded = [b' '; 64];
        padded[..len].copy_from_slice(bytes);
        (0, block_flags(&padded))
    };
    // `from` lies in the block: `from - start` is below 64.
    Some((start, flags & (u64::MAX << (from - start))))
}

/// One bit for each byte of `block` that needs an escape, the lowest for its first:
/// four sixteen-byte steps of [`escape_flags`].
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[allow(clippy::inline_always)]
#[inline(always)]
fn block_flags(block: &[u8; 64]) -> u64 {
    let mut flags = 0;
    for (i, sixteen) in block.chunks_exact(16).enumerate() {
        flags |= u64::from(escape_flags(sixteen.try_into().expect("sixteen bytes"))) << (16 * i);
    }
    flags
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
use block_flags_by_words as block_flags;

/// [`block_flags`] eight bytes at a time, without vector instructions: every flag
/// exact (no borrow crosses a byte), the high bits of a word gathered into eight bits
/// by one multiplication.
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "sse2"))))]
fn block_flags_by_words(block: &[u8; 64]) -> u64 {
    const LOWS: u64 = u64::from_ne_bytes([0x7f; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    // Times this, bit 8k of a word lands on bit 56 + k: no two on one bit, no carry.
    const GATHER: u64 = 0x0102_0408_1020_4080;
    // The high bit of each byte of `word` at least `bound` (below 0x80) or at least
    // 0x80: adding `0x80 - bound` to the low seven bits carries into the eighth only
    // from within the byte.
    let at_least = |word: u64, bound: u8| {
        ((word & LOWS).wrapping_add(u64::from_ne_bytes([0x80 - bound; 8])) | word) & HIGHS
    };
    // The high bit of each zero byte of `word`.
    let zeros = |word: u64| !at_least(word, 1) & HIGHS;
    let mut flags = 0;
    for (i, eight) in block.chunks_exact(8).enumerate() {
        let word = u64::from_le_bytes(eight.try_into().expect("eight bytes"));
        let found = (!at_least(word, 0x20) & HIGHS)
            | zeros(word ^ u64::from_ne_bytes([b'"'; 8]))
            | zeros(word ^ u64::from_ne_bytes([b'\\'; 8]));
        flags |= ((found >> 7).wrapping_mul(GATHER) >> 56) << (8 * i);
    }
    flags
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
pub(crate) use next_escape_by_words as next_escape;

/// [`next_escape`] eight bytes at a time, without vector instructions: a word's bytes
/// below 0x20, equal to `"` or equal to `\` are flagged with the usual carry tricks. A
/// borrow can flag a byte above a genuine match but never below one, so the lowest flag
/// is exact. Two words are tested per step, each flagged on its own (a borrow does not
/// cross from one into the other): one branch for sixteen bytes.
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "sse2"))))]
#[allow(clippy::inline_always)]
#[inline(always)]
pub(crate) fn next_escape_by_words(bytes: &[u8]) -> Option<usize> {
    let word = |eight: &[u8]| u64::from_le_bytes(eight.try_into().expect("eight bytes"));
    let mut pairs = bytes.chunks_exact(16);
    let mut base = 0;
    for pair in &mut pairs {
        let (low, high) = (flags(word(&pair[..8])), flags(word(&pair[8..])));
        if low | high != 0 {
            let at = if low == 0 {
                8 + high.trailing_zeros() / 8
            } else {
                low.trailing_zeros() / 8
            };
            return Some(base + at as usize);
        }
        base += 16;
    }
    let mut rest = pairs.remainder();
    if let Some((eight, after)) = rest.split_first_chunk::<8>() {
        let found = flags(u64::from_le_bytes(*eight));
        if found != 0 {
            return Some(base + (found.trailing_zeros() / 8) as usize);
        }
        base += 8;
        rest = after;
    }
    rest.iter().position(|&b| needs_escape(b)).map(|i| base + i)
}

/// The flags of [`next_escape_by_words`] for one word: the high bit of each byte that
/// needs an escape, and maybe of bytes above the lowest such byte (never below it).
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "sse2"))))]
#[inline]
fn flags(word: u64) -> u64 {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    const SPACES: u64 = u64::from_ne_bytes([0x20; 8]);
    const QUOTES: u64 = u64::from_ne_bytes([b'"'; 8]);
    const BACKSLASHES: u64 = u64::from_ne_bytes([b'\\'; 8]);
    let zero_bytes = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    (word.wrapping_sub(SPACES) & !word & HIGHS)
        | zero_bytes(word ^ QUOTES)
        | zero_bytes(word ^ BACKSLASHES)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Python's separators, `, ` and `: `, for `serde_json`'s own writer.
    struct Spaced;

    impl serde_json::ser::Formatter for Spaced {
        fn begin_array_value<W: ?Sized + std::io::Write>(
            &mut self,
            writer: &mut W,
            first: bool,
        ) -> std::io::Result<()> {
            if first {
                Ok(())
            } else {
                writer.write_all(b", ")
            }
        }

        fn begin_object_key<W: ?Sized + std::io::Write>(
            &mut self,
            writer: &mut W,
            first: bool,
        ) -> std::io::Result<()> {
            if first {
                Ok(())
            } else {
                writer.write_all(b", ")
            }
        }

        fn begin_object_value<W: ?Sized + std::io::Write>(
            &mut self,
            writer: &mut W,
        ) -> std::io::Result<()> {
            writer.write_all(b": ")
        }
    }

    /// What `serde_json` writes for `v`, compact or with Python's separators.
    fn reference(v: &Value, spaced: bool) -> String {
        use serde::Serialize as _;
        if !spaced {
            return serde_json::to_string(v).expect("in memory");
        }
        let mut out = Vec::new();
        v.serialize(&mut serde_json::Serializer::with_formatter(
            &mut out, Spaced,
        ))
        .expect("in memory");
        String::from_utf8(out).expect("serde_json writes UTF-8")
    }

    fn both(v: &Value) {
        for spaced in [false, true] {
            let mut ours = Vec::new();
            value(
                &mut ours,
                v,
                Style {
                    spaced,
                    ascii: false,
                },
            );
            assert_eq!(
                String::from_utf8_lossy(&ours),
                reference(v, spaced),
                "spaced: {spaced}"
            );
        }
    }

    #[test]
    fn every_byte_is_written_as_serde_json_writes_it() {
        for b in 0..=0x7f_u8 {
            let s = char::from(b).to_string();
            // The byte alone, and at every offset of a word and past one.
            for pad in 0..17 {
                let text = format!("{}{s}{}", "a".repeat(pad), "z".repeat(pad % 3));
                both(&Value::String(text));
            }
        }
    }

    #[test]
    fn escapes_are_found_past_high_bytes_and_next_to_each_other() {
        // Bytes >= 0x80 (UTF-8) must not be taken for control characters.
        for text in [
            "é\"ü\\ñ\n\u{7f}\u{1f}",
            "\u{80}\u{ff}\u{100}abcdefgh\u{1}",
            "\"\"\\\\\n\n\t\t\r\r\u{8}\u{c}",
            "中文字符串中文字符串\u{0}",
            "\u{10ffff}\u{2028}\u{2029}",
            "",
        ] {
            both(&json!(text));
        }
    }

    #[test]
    fn every_kind_of_value_is_written_as_serde_json_writes_it() {
        both(&json!({
            "null": null, "t": true, "f": false,
            "ints": [0, -1, 1, u64::MAX, i64::MIN],
            "floats": [0.0, -0.0, 1.5, 1e300, 1e-300, 0.1, 123_456_789.123_456_79, 5e-324],
            "nested": {"a": [], "b": {}, "c": [[{}], {"k": [1, "x\n"]}]},
            "ké\"y": "v",
        }));
    }

    #[test]
    fn lists_of_strings_are_written_as_serde_json_writes_them() {
        for items in [vec![], vec!["a"], vec!["t::x[\"p\"]", "é\n", ""]] {
            let items: Vec<String> = items.into_iter().map(str::to_owned).collect();
            both(&json!(items));
            for spaced in [false, true] {
                let mut ours = Vec::new();
                strings(
                    &mut ours,
                    &items,
                    Style {
                        spaced,
                        ascii: false,
                    },
                );
                assert_eq!(
                    String::from_utf8_lossy(&ours),
                    reference(&json!(items), spaced)
                );
            }
        }
    }

    #[test]
    fn long_texts_with_scattered_escapes_match() {
        let mut text = String::new();
        for i in 0..2000_u32 {
            text.push_str(&"x".repeat((i % 23) as usize));
            text.push(char::from_u32(i % 0x60).expect("ASCII"));
            text.push('é');
        }
        both(&Value::String(text));
    }

    /// Texts for the searches, shorter than `longest`: plain bytes `plain` times in
    /// `plain + 1`, else bytes that need an escape, their neighbours (`!`, `#`, `[`,
    /// `]`, the space, 0x1f's 0x20 and 0x9f) and high bytes.
    fn search_text(
        plain: u32,
        longest: usize,
    ) -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        proptest::collection::vec(
            proptest::prop_oneof![
                plain => proptest::sample::select(b"abc xyz".to_vec()),
                1 => proptest::sample::select(
                    b"\"\\!#[]] \x00\x01\x1f\x7f\x80\x9f\xa2\xdc\xff".to_vec()
                ),
            ],
            0..longest,
        )
    }

    proptest::proptest! {
        /// The block-at-a-time and word-at-a-time searches find what a byte-at-a-time
        /// search finds, at every length and offset (several blocks, a tail, a text
        /// shorter than a block): bytes drawn mostly from those that need an escape,
        /// their neighbours (`!`, `#`, `[`, `]`, the space, 0x1f's 0x20 and 0x9f) and
        /// high bytes.
        #[test]
        fn the_escape_search_agrees_with_a_byte_at_a_time_search(
            bytes in search_text(4, 100),
            start in 0..20usize,
        ) {
            let bytes = &bytes[start.min(bytes.len())..];
            let expected = bytes.iter().position(|&b| needs_escape(b));
            proptest::prop_assert_eq!(next_escape(bytes), expected, "{:?}", bytes);
            proptest::prop_assert_eq!(next_escape_by_words(bytes), expected, "{:?}", bytes);
        }

        /// The 64-byte search, asked from a rising sequence of positions (each step
        /// within a block, past it, or past the text's end), finds what a byte-at-a-time
        /// search from each position finds, in texts shorter than a block, of several
        /// blocks and with a tail.
        #[test]
        fn the_block_search_agrees_with_a_byte_at_a_time_search(
            bytes in search_text(6, 300),
            steps in proptest::collection::vec(0..90usize, 1..12),
        ) {
            let mut escapes = Escapes::new(&bytes);
            let mut from = 0;
            for step in steps {
                let expected = bytes
                    .get(from..)
                    .and_then(|rest| rest.iter().position(|&b| needs_escape(b)))
                    .map(|i| from + i);
                proptest::prop_assert_eq!(escapes.next(from), expected, "{} {:?}", from, bytes);
                from += step;
            }
        }

        /// Both ways of flagging a block flag exactly the bytes that need an escape.
        #[test]
        fn block_flags_are_exact(
            block in proptest::array::uniform32(proptest::num::u8::ANY),
            other in proptest::array::uniform32(proptest::sample::select(
                b"\"\\ !#[]]\x00\x01\x1f\x20\x7f\x80\x9f\xa2\xdc\xff".to_vec()
            )),
        ) {
            let mut bytes = [0u8; 64];
            bytes[..32].copy_from_slice(&block);
            bytes[32..].copy_from_slice(&other);
            let expected = bytes
                .iter()
                .enumerate()
                .filter(|&(_, &b)| needs_escape(b))
                .fold(0u64, |flags, (i, _)| flags | 1 << i);
            proptest::prop_assert_eq!(block_flags(&bytes), expected);
            proptest::prop_assert_eq!(block_flags_by_words(&bytes), expected);
        }
    }
}
