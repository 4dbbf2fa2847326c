//! Encodings of list- and JSON-valued fields, and the two JSON text styles found in
//! published datasets.
//!
//! Datasets disagree on how a list is stored: a JSON array (SWE-smith), a JSON-encoded
//! string (SWE-bench's `FAIL_TO_PASS`), sometimes a Python repr (`['a', 'b']`). Inside,
//! lists are always arrays; the encoding is remembered so that export gives back the
//! same bytes.

use std::fmt::Write as _;
use std::io;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::{RecordError, json_type_name};

/// How a list- or JSON-valued field was stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// A JSON array (or object) value.
    Native,
    /// A string holding compact JSON (`["a","b"]`).
    Json,
    /// A string holding JSON with Python's default separators (`["a", "b"]`).
    JsonSpaced,
    /// A string holding a Python literal (`['a', 'b']`).
    PythonRepr,
}

impl Encoding {
    /// The name recorded in `extensions.source.encodings`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Native => "array",
            Self::Json => "json",
            Self::JsonSpaced => "json-spaced",
            Self::PythonRepr => "python-repr",
        }
    }

    /// Parses a name written by [`Encoding::as_str`].
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "array" | "object" => Some(Self::Native),
            "json" => Some(Self::Json),
            "json-spaced" => Some(Self::JsonSpaced),
            "python-repr" => Some(Self::PythonRepr),
            _ => None,
        }
    }
}

/// The JSON text styles mainstream writers produce: the separators, compact (`{"a":1}`, as
/// `serde_json`, orjson, pandas and HF `to_json` write) or Python's `json.dumps` default
/// (`{"a": 1}`), and whether text beyond ASCII is written as `\uXXXX` escapes (Python's
/// `ensure_ascii=True`, its default) or as it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum JsonStyle {
    /// No spaces after `,` and `:`.
    #[default]
    Compact,
    /// `, ` and `: ` as Python's `json.dumps` writes them (without ASCII escaping).
    Spaced,
    /// Compact, every character outside printable ASCII escaped (`json.dumps` with
    /// `separators=(",", ":")`).
    CompactAscii,
    /// Python's `json.dumps` defaults: `, ` and `: `, every character outside printable
    /// ASCII escaped as `\uXXXX` (UTF-16 surrogate pairs beyond the BMP).
    SpacedAscii,
}

impl JsonStyle {
    /// Every style.
    pub const ALL: [Self; 4] = [
        Self::Compact,
        Self::Spaced,
        Self::CompactAscii,
        Self::SpacedAscii,
    ];

    /// Whether items are separated by `, ` and `: `.
    pub fn is_spaced(self) -> bool {
        matches!(self, Self::Spaced | Self::SpacedAscii)
    }

    /// Whether characters outside printable ASCII are escaped.
    pub fn is_ascii(self) -> bool {
        matches!(self, Self::CompactAscii | Self::SpacedAscii)
    }

    /// This style's separators, escaping as `ascii` says.
    #[must_use]
    pub fn with_ascii(self, ascii: bool) -> Self {
        match (self.is_spaced(), ascii) {
            (false, false) => Self::Compact,
            (true, false) => Self::Spaced,
            (false, true) => Self::CompactAscii,
            (true, true) => Self::SpacedAscii,
        }
    }

    /// This style with the escaping a record's text shows: escaped when it holds a
    /// `\uXXXX` escape of a character beyond ASCII and no such character unescaped, not
    /// escaped when it holds one unescaped; as it is when the text holds neither (it then
    /// reads the same either way).
    #[must_use]
    pub fn with_escaping_of(self, text: &[u8]) -> Self {
        self.with_ascii_if(ascii_escaping(text))
    }

    /// This style escaping all beyond ASCII or not as `ascii` says, as it is for `None`.
    fn with_ascii_if(self, ascii: Option<bool>) -> Self {
        ascii.map_or(self, |ascii| self.with_ascii(ascii))
    }

    /// This style refined by what a record's text shows: its separators, when it has
    /// one, and its escaping (see [`JsonStyle::with_escaping_of`]); what the text does
    /// not show stays as it is.
    #[must_use]
    pub fn refined_by(self, text: &[u8]) -> Self {
        self.refined(text, || ascii_escaping(text))
    }

    /// [`JsonStyle::refined_by`] of a record's text whose reader looked for its `\uXXXX`
    /// escapes of characters beyond ASCII ([`escapes_beyond_ascii`]) as it read it:
    /// `escaped` says whether it holds one. The text is then not searched again, and
    /// not read at all for its escaping when that could not change this style's: a text
    /// with no such escape, refining a style that writes characters beyond ASCII as they
    /// are, leaves that as it is whatever its bytes.
    #[must_use]
    pub fn refined_by_read(self, text: &[u8], escaped: bool) -> Self {
        self.refined(text, || {
            if escaped || self.is_ascii() {
                ascii_escaping_with(text, || escaped)
            } else {
                None
            }
        })
    }

    /// [`JsonStyle::refined_by`], with `ascii` giving what `text` tells of the escaping
    /// ([`ascii_escaping`]), or `None` where it tells nothing this style does not say.
    fn refined(self, text: &[u8], ascii: impl FnOnce() -> Option<bool>) -> Self {
        // The text is not validated as UTF-8 again for this: the scan stops at the first
        // separator and looks only at ASCII bytes.
        let spaced = Self::separators_of(text).map_or(self.is_spaced(), Self::is_spaced);
        let base = if spaced { Self::Spaced } else { Self::Compact };
        base.with_ascii(self.is_ascii()).with_ascii_if(ascii())
    }

    /// Guesses the style of a JSON text from its first separator outside strings, and
    /// its escaping from its characters beyond ASCII (see [`JsonStyle::with_escaping_of`]).
    /// A text with no separator (a scalar, `[]`, a one-element array of scalars) is
    /// reported as `None`.
    pub fn detect(text: &str) -> Option<Self> {
        let spaced = Self::detect_separators(text)?;
        Some(spaced.with_escaping_of(text.as_bytes()))
    }

    /// [`JsonStyle::detect`] of the separators alone.
    pub(crate) fn detect_separators(text: &str) -> Option<Self> {
        Self::separators_of(text.as_bytes())
    }

    /// [`JsonStyle::detect_separators`] of a JSON text's bytes.
    fn separators_of(bytes: &[u8]) -> Option<Self> {
        let mut in_string = false;
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if in_string {
                match b {
                    b'\\' => i += 1,
                    b'"' => in_string = false,
                    _ => {}
                }
            } else {
                match b {
                    b'"' => in_string = true,
                    b',' | b':' => {
                        return Some(if bytes.get(i + 1) == Some(&b' ') {
                            Self::Spaced
                        } else {
                            Self::Compact
                        });
                    }
                    _ => {}
                }
            }
            i += 1;
        }
        None
    }

    /// Writes `value` in this style.
    pub fn write<W: io::Write, T: Serialize + ?Sized>(
        self,
        mut writer: W,
        value: &T,
    ) -> io::Result<()> {
        match self {
            Self::Compact => serde_json::to_writer(writer, value).map_err(io::Error::from),
            Self::Spaced => {
                let mut ser = serde_json::Serializer::with_formatter(writer, SpacedFormatter);
                value.serialize(&mut ser).map_err(io::Error::from)
            }
            Self::CompactAscii | Self::SpacedAscii => {
                let value = serde_json::to_value(value).map_err(io::Error::from)?;
                let mut out = Vec::new();
                self.write_value(&mut out, &value);
                writer.write_all(&out)
            }
        }
    }

    /// Appends `value` in this style: the same bytes as [`JsonStyle::write`], written
    /// faster.
    pub fn write_value(self, out: &mut Vec<u8>, value: &Value) {
        crate::jsonwrite::value(out, value, self.writer());
    }

    /// Appends `map` as a JSON object in this style (see [`JsonStyle::write_value`]).
    pub fn write_object(self, out: &mut Vec<u8>, map: &Map<String, Value>) {
        crate::jsonwrite::object(out, map, self.writer());
    }

    /// Appends a canonical record in this style: the same bytes as [`JsonStyle::write`]
    /// gives for it, written without building a [`Value`] first.
    pub fn write_record(self, out: &mut Vec<u8>, record: &crate::CanonicalRecord) {
        crate::jsonwrite::record(out, record, self.writer());
    }

    /// A list of strings as a JSON array in this style: what [`JsonStyle::to_string`]
    /// gives for it, written faster.
    fn list_text(self, items: &[String]) -> String {
        let mut out = Vec::with_capacity(items.iter().map(|s| s.len() + 4).sum::<usize>() + 2);
        crate::jsonwrite::strings(&mut out, items, self.writer());
        String::from_utf8(out).expect("the writer writes UTF-8")
    }

    pub(crate) fn writer(self) -> crate::jsonwrite::Style {
        crate::jsonwrite::Style {
            spaced: self.is_spaced(),
            ascii: self.is_ascii(),
        }
    }

    /// `value` as a string in this style.
    pub fn to_string<T: Serialize + ?Sized>(self, value: &T) -> String {
        let mut out = Vec::with_capacity(128);
        self.write(&mut out, value)
            .expect("serialising a JSON value to memory cannot fail");
        String::from_utf8(out).expect("serde_json writes UTF-8")
    }
}

/// Whether a JSON text escapes the characters beyond ASCII (`Some(true)`: it holds a
/// `\uXXXX` escape of one and none unescaped), writes them as they are (`Some(false)`),
/// or shows neither (`None`).
fn ascii_escaping(text: &[u8]) -> Option<bool> {
    ascii_escaping_with(text, || escapes_beyond_ascii(text))
}

/// [`ascii_escaping`], with `escaped` telling whether `text` holds a `\uXXXX` escape of
/// a character beyond ASCII (asked only of a text all ASCII).
fn ascii_escaping_with(text: &[u8], escaped: impl FnOnce() -> bool) -> Option<bool> {
    // Both scans run over every record of a conversion in the `auto` style: `is_ascii`
    // goes a word at a time.
    if !text.is_ascii() {
        return Some(false);
    }
    escaped().then_some(true)
}

/// Whether a JSON text (or a part of one made of whole values) holds a `\uXXXX` escape
/// of a character beyond ASCII (DEL and up), its backslash not itself escaped.
pub fn escapes_beyond_ascii(text: &[u8]) -> bool {
    // Only `\u` pairs are looked at, not every backslash (a patch escapes each of its
    // line breaks).
    for at in memchr::memmem::find_iter(text, b"\\u") {
        // An escape when the backslash is not itself escaped: the run of backslashes
        // ending at it is odd. Runs are disjoint, so the look-back is linear in all.
        let run = text[..=at]
            .iter()
            .rev()
            .take_while(|&&b| b == b'\\')
            .count();
        if run % 2 == 0 {
            continue;
        }
        let escaped = text
            .get(at + 2..at + 6)
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u16::from_str_radix(hex, 16).ok());
        if escaped.is_some_and(|unit| unit >= 0x7f) {
            return true;
        }
    }
    false
}

/// A JSON object read into a [`Map`] sized for a record's keys from the start, instead
/// of one grown (and rehashed) key by key as `Map`'s own `Deserialize` does. A key
/// given twice keeps its first place and its last value, as with `Map`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RecordMap(pub Map<String, Value>);

impl<'de> serde::Deserialize<'de> for RecordMap {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Entries;
        impl<'de> serde::de::Visitor<'de> for Entries {
            type Value = Map<String, Value>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut entries: A,
            ) -> Result<Self::Value, A::Error> {
                let mut map = Map::with_capacity(entries.size_hint().unwrap_or(16));
                while let Some((key, value)) = entries.next_entry()? {
                    map.insert(key, value);
                }
                Ok(map)
            }
        }
        d.deserialize_map(Entries).map(RecordMap)
    }
}

/// A formatter with Python's default separators.
#[derive(Debug, Clone, Copy)]
struct SpacedFormatter;

impl serde_json::ser::Formatter for SpacedFormatter {
    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        if first {
            Ok(())
        } else {
            writer.write_all(b", ")
        }
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        if first {
            Ok(())
        } else {
            writer.write_all(b", ")
        }
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        writer.write_all(b": ")
    }
}

/// A list of strings as it was decoded, with the encoding it came in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodedList {
    /// The items.
    pub items: Vec<String>,
    /// How they were stored.
    pub encoding: Encoding,
    /// Whether encoding `items` again with `encoding` gives back the original value
    /// exactly. When it does not, the caller keeps the original.
    pub reproducible: bool,
}

/// How deep a JSON string holding a JSON string may go before we give up.
const MAX_NESTED_ENCODING: usize = 3;

/// Decodes a list of strings stored as an array, a JSON-encoded string, or a Python repr.
pub fn decode_list(value: &Value, pointer: &str) -> Result<DecodedList, RecordError> {
    match value {
        Value::Array(items) => Ok(DecodedList {
            items: strings(items, pointer)?,
            encoding: Encoding::Native,
            reproducible: true,
        }),
        Value::String(text) => decode_list_text(text, pointer),
        other => Err(RecordError::wrong_type(
            pointer,
            "an array of strings (or a string holding one)",
            other,
        )),
    }
}

fn decode_list_text(text: &str, pointer: &str) -> Result<DecodedList, RecordError> {
    // The common case, read without a `Value` in between: a JSON array of strings.
    if let Ok(items) = serde_json::from_str::<Vec<String>>(text) {
        let encoding = match JsonStyle::detect_separators(text) {
            Some(style) if style.is_spaced() => Encoding::JsonSpaced,
            _ => Encoding::Json,
        };
        return Ok(DecodedList {
            reproducible: encode_list_text(&items, encoding) == text,
            items,
            encoding,
        });
    }
    let mut current = text.to_owned();
    for _ in 0..MAX_NESTED_ENCODING {
        match serde_json::from_str::<Value>(&current) {
            Ok(Value::Array(items)) => {
                let items = strings(&items, pointer)?;
                let encoding = match JsonStyle::detect_separators(&current) {
                    Some(style) if style.is_spaced() => Encoding::JsonSpaced,
                    _ => Encoding::Json,
                };
                let again = encode_list_text(&items, encoding);
                return Ok(DecodedList {
                    reproducible: current == text && again == text,
                    items,
                    encoding,
                });
            }
            Ok(Value::String(inner)) => current = inner,
            Ok(other) => {
                return Err(RecordError::invalid(
                    pointer,
                    format!(
                        "expected a JSON-encoded list of strings, found a string holding {}",
                        json_type_name(&other)
                    ),
                ));
            }
            Err(_) => break,
        }
    }
    if current != text {
        return Err(RecordError::invalid(
            pointer,
            "a JSON string nested too deeply",
        ));
    }
    match parse_python_list(text) {
        Some(items) => {
            let reproducible = python_repr_list(&items) == text;
            Ok(DecodedList {
                items,
                encoding: Encoding::PythonRepr,
                reproducible,
            })
        }
        None => Err(RecordError::invalid(
            pointer,
            format!(
                "expected a list of strings (a JSON array, a JSON-encoded string or a Python list), found the string `{}`",
                shorten(text, 60)
            ),
        )),
    }
}

fn strings(items: &[Value], pointer: &str) -> Result<Vec<String>, RecordError> {
    items
        .iter()
        .enumerate()
        .map(|(i, item)| match item {
            Value::String(s) => Ok(s.clone()),
            other => Err(RecordError::wrong_type(
                format!("{pointer}/{i}"),
                "a string",
                other,
            )),
        })
        .collect()
}

/// Encodes a list of strings the way `encoding` stores it.
pub fn encode_list(items: &[String], encoding: Encoding) -> Value {
    match encoding {
        Encoding::Native => Value::Array(items.iter().cloned().map(Value::String).collect()),
        other => Value::String(encode_list_text(items, other)),
    }
}

fn encode_list_text(items: &[String], encoding: Encoding) -> String {
    match encoding {
        Encoding::PythonRepr => python_repr_list(items),
        Encoding::JsonSpaced => JsonStyle::Spaced.list_text(items),
        Encoding::Json | Encoding::Native => JsonStyle::Compact.list_text(items),
    }
}

/// Encodes any JSON value as a JSON string in the given encoding (`Native` gives the value).
pub fn encode_json(value: &Value, encoding: Encoding) -> Value {
    match encoding {
        Encoding::Native => value.clone(),
        Encoding::JsonSpaced | Encoding::PythonRepr => {
            Value::String(JsonStyle::Spaced.to_string(value))
        }
        Encoding::Json => Value::String(JsonStyle::Compact.to_string(value)),
    }
}

/// Decodes a value stored either natively or as a JSON-encoded string (repeatedly, up to
/// a small depth), returning the value, its encoding, and whether re-encoding gives back
/// the original text.
pub fn decode_json(value: &Value, pointer: &str) -> Result<(Value, Encoding, bool), RecordError> {
    let Value::String(text) = value else {
        return Ok((value.clone(), Encoding::Native, true));
    };
    let decoded: Value =
        serde_json::from_str(text).map_err(|e| match non_json_number_at(text, &e) {
            Some((_, token)) => RecordError::invalid(
                pointer,
                format!("expected a JSON-encoded value: `{token}` {NON_JSON_NUMBER} ({e})"),
            )
            .with_hint(NON_JSON_NUMBER_HINT),
            None => RecordError::invalid(pointer, format!("expected a JSON-encoded value: {e}")),
        })?;
    let encoding = match JsonStyle::detect_separators(text) {
        Some(style) if style.is_spaced() => Encoding::JsonSpaced,
        _ => Encoding::Json,
    };
    let reproducible = encode_json(&decoded, encoding).as_str() == Some(text.as_str());
    Ok((decoded, encoding, reproducible))
}

/// Python's `repr()` of a list of strings.
pub fn python_repr_list(items: &[String]) -> String {
    let mut out = String::from("[");
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        python_repr_str(item, &mut out);
    }
    out.push(']');
    out
}

/// Python's `repr()` of a string: single quotes unless the text holds a single quote and
/// no double quote.
fn python_repr_str(text: &str, out: &mut String) {
    let quote = if text.contains('\'') && !text.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
}

/// Parses a Python list literal of string literals (`['a', "b"]`, `[]`).
pub fn parse_python_list(text: &str) -> Option<Vec<String>> {
    let mut chars = text.trim().chars().peekable();
    if chars.next()? != '[' {
        return None;
    }
    let mut items = Vec::new();
    loop {
        skip_spaces(&mut chars);
        match chars.peek()? {
            ']' => {
                chars.next();
                break;
            }
            '\'' | '"' => {
                let quote = chars.next()?;
                let mut item = String::new();
                loop {
                    match chars.next()? {
                        '\\' => item.push(python_escape(&mut chars)?),
                        c if c == quote => break,
                        c => item.push(c),
                    }
                }
                items.push(item);
                skip_spaces(&mut chars);
                match chars.next()? {
                    ',' => {}
                    ']' => break,
                    _ => return None,
                }
            }
            _ => return None,
        }
    }
    chars.all(char::is_whitespace).then_some(items)
}

fn skip_spaces(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while chars.peek().is_some_and(|c| c.is_whitespace()) {
        chars.next();
    }
}

fn python_escape(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Option<char> {
    let hex = |chars: &mut std::iter::Peekable<std::str::Chars<'_>>, n: usize| {
        let digits: String = (0..n).filter_map(|_| chars.next()).collect();
        u32::from_str_radix(&digits, 16)
            .ok()
            .and_then(char::from_u32)
    };
    Some(match chars.next()? {
        'n' => '\n',
        'r' => '\r',
        't' => '\t',
        '0' => '\0',
        'x' => hex(chars, 2)?,
        'u' => hex(chars, 4)?,
        'U' => hex(chars, 8)?,
        c => c, // \\, \', \" and anything else stand for themselves
    })
}

/// Lower-case hexadecimal digits of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut out, b| {
            let _ = write!(out, "{b:02x}");
            out
        })
}

/// What is wrong with `NaN` or `Infinity` in JSON text, after the token.
pub const NON_JSON_NUMBER: &str = "is not a JSON value: JSON has no NaN or Infinity (Python's `json.dumps` writes them unless `allow_nan=False`)";

/// What to do about `NaN` or `Infinity` in JSON text.
pub const NON_JSON_NUMBER_HINT: &str = "write the value as `null` (or leave the measurement out), \
     or regenerate the file with `json.dumps(..., allow_nan=False)` to find where it comes from";

/// The `NaN`, `Infinity` or `-Infinity` token a JSON parse error of `text` stops at, with
/// its byte offset: `serde_json` rejects these tokens, as JSON has no such numbers.
pub fn non_json_number_at(text: &str, error: &serde_json::Error) -> Option<(usize, &'static str)> {
    if !error.is_syntax() || error.line() == 0 || error.column() == 0 {
        return None;
    }
    // The error's line and column (1-based, in bytes) point at the offending byte.
    let line_start = if error.line() == 1 {
        0
    } else {
        text.match_indices('\n').nth(error.line() - 2)?.0 + 1
    };
    non_json_number_in(text.as_bytes(), line_start + error.column() - 1)
}

/// The `NaN`, `Infinity` or `-Infinity` token at byte `at` of `text` (for `-Infinity`,
/// `at` may point at its `I`, where a JSON parser stops), with its start.
pub fn non_json_number_in(text: &[u8], at: usize) -> Option<(usize, &'static str)> {
    let rest = text.get(at..)?;
    if rest.starts_with(b"NaN") {
        Some((at, "NaN"))
    } else if rest.starts_with(b"Infinity") {
        Some(if at > 0 && text[at - 1] == b'-' {
            (at - 1, "-Infinity")
        } else {
            (at, "Infinity")
        })
    } else {
        None
    }
}

/// The first `max` characters of `text`, with `...` when cut.
pub fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text.to_owned(),
    }
}

/// The most entries of a map looked through key by key, rather than by the key's hash
/// (`SipHash`, for `serde_json`'s maps): a record's keys left to import are a handful,
/// and most keys an import asks for are absent or among the first.
const SCANNED: usize = 16;

/// `key`'s value in `map`; a small map is looked through, not hashed into.
pub fn get_small<'m>(map: &'m Map<String, Value>, key: &str) -> Option<&'m Value> {
    if map.len() <= SCANNED {
        map.iter().find_map(|(k, v)| (k == key).then_some(v))
    } else {
        map.get(key)
    }
}

/// Takes `key`'s value out of `map`, keeping the order of the others; an absent key of
/// a small map is found absent without hashing it.
pub fn take_small(map: &mut Map<String, Value>, key: &str) -> Option<Value> {
    if map.len() <= SCANNED && !map.keys().any(|k| k == key) {
        return None;
    }
    map.shift_remove(key)
}

/// Takes a string field out of a record: `Ok(None)` when absent, an error naming the
/// field when it is not a string.
pub fn take_string(
    record: &mut Map<String, Value>,
    key: &str,
) -> Result<Option<String>, RecordError> {
    take_small(record, key)
        .map(|value| string_of(key, value))
        .transpose()
}

/// The text of `value`, the value of the string field `key` taken out of a record: an
/// error naming the field when it is not a string.
pub fn string_of(key: &str, value: Value) -> Result<String, RecordError> {
    match value {
        Value::String(s) => Ok(s),
        other => Err(RecordError::wrong_type(
            format!("/{}", crate::error::pointer_token(key)),
            "a string",
            &other,
        )),
    }
}

/// Takes a string field the format requires.
pub fn require_string(
    record: &mut Map<String, Value>,
    key: &str,
    format: &str,
) -> Result<String, RecordError> {
    take_string(record, key)?.ok_or_else(|| missing_string(key, format))
}

/// The error for a string field `key` that a record of `format` lacks, though the format
/// requires it.
pub fn missing_string(key: &str, format: &str) -> RecordError {
    RecordError::missing(
        format!("/{}", crate::error::pointer_token(key)),
        format!("required field `{key}` is missing (a {format} record has it)"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    /// The escaping scan as first written, a backslash at a time: the reference the
    /// faster scan must agree with.
    fn ascii_escaping_reference(text: &[u8]) -> Option<bool> {
        if text.iter().any(|&b| b >= 0x80) {
            return Some(false);
        }
        let mut rest = text;
        while let Some(at) = rest.iter().position(|&b| b == b'\\') {
            match rest.get(at + 1) {
                Some(b'u') => {
                    let escaped = rest
                        .get(at + 2..at + 6)
                        .and_then(|hex| std::str::from_utf8(hex).ok())
                        .and_then(|hex| u16::from_str_radix(hex, 16).ok());
                    if escaped.is_some_and(|unit| unit >= 0x7f) {
                        return Some(true);
                    }
                    rest = &rest[(at + 2).min(rest.len())..];
                }
                Some(_) => rest = &rest[at + 2..],
                None => break,
            }
        }
        None
    }

    proptest! {
        /// On JSON texts of strings rich in backslashes, `u`s, hex digits and characters
        /// beyond ASCII, written as they are and escaped, and on raw runs of those bytes.
        #[test]
        fn the_escaping_scan_agrees_with_the_reference(
            parts in prop::collection::vec(
                prop::sample::select(vec![
                    "\\", "u", "u00e9", "u007f", "u0041", "uZZ", "\\u00e9", "00ff", "\"", "x", "\n",
                    "\u{7f}", "é", "\u{1F600}",
                ]),
                0..24,
            )
        ) {
            let string: String = parts.concat();
            let value = json!({ "k": string });
            let raw = serde_json::to_string(&value).unwrap();
            let escaped = JsonStyle::Compact.with_ascii(true).to_string(&value);
            for text in [raw.as_bytes(), escaped.as_bytes(), string.as_bytes()] {
                prop_assert_eq!(ascii_escaping(text), ascii_escaping_reference(text), "{:?}", String::from_utf8_lossy(text));
            }
        }

        /// The small-map lookups agree with the map's own on maps of either side of
        /// [`SCANNED`] entries, for keys present and absent: the same value found, the
        /// same value taken, and the others left in their order.
        #[test]
        fn small_map_lookups_agree_with_the_map(
            keys in prop::collection::vec("[a-d]{0,2}", 0..(2 * SCANNED)),
            asked in prop::collection::vec("[a-d]{0,2}", 1..8),
        ) {
            let map: Map<String, Value> = keys
                .iter()
                .enumerate()
                .map(|(i, k)| (k.clone(), Value::from(i)))
                .collect();
            let (mut small, mut hashed) = (map.clone(), map.clone());
            for key in &asked {
                prop_assert_eq!(get_small(&map, key), map.get(key), "{}", key);
                prop_assert_eq!(take_small(&mut small, key), hashed.shift_remove(key), "{}", key);
                prop_assert!(small.iter().eq(hashed.iter()), "{:?} after {}", small, key);
            }
        }
    }

    #[test]
    fn lists_decode_from_each_encoding() {
        let array = decode_list(&json!(["a", "b"]), "/x").unwrap();
        assert_eq!(
            (array.items.clone(), array.encoding),
            (vec!["a".to_owned(), "b".to_owned()], Encoding::Native)
        );
        let spaced = decode_list(&json!("[\"a\", \"b\"]"), "/x").unwrap();
        assert_eq!(spaced.encoding, Encoding::JsonSpaced);
        assert!(spaced.reproducible);
        let compact = decode_list(&json!("[\"a\",\"b\"]"), "/x").unwrap();
        assert_eq!(compact.encoding, Encoding::Json);
        assert!(compact.reproducible);
        let repr = decode_list(&json!("['a', \"it's\"]"), "/x").unwrap();
        assert_eq!(repr.items, vec!["a".to_owned(), "it's".to_owned()]);
        assert_eq!(repr.encoding, Encoding::PythonRepr);
        assert!(repr.reproducible);
        // A JSON string holding a JSON string holding a list: decoded, but not reproducible.
        let double = decode_list(&json!("\"[\\\"a\\\"]\""), "/x").unwrap();
        assert_eq!(double.items, vec!["a".to_owned()]);
        assert!(!double.reproducible);
    }

    #[test]
    fn a_single_item_list_has_no_separator_and_defaults_to_compact() {
        let one = decode_list(&json!("[\"a\"]"), "/x").unwrap();
        assert_eq!(one.encoding, Encoding::Json);
        assert!(one.reproducible);
        let empty = decode_list(&json!("[]"), "/x").unwrap();
        assert!(empty.items.is_empty() && empty.reproducible);
    }

    #[test]
    fn bad_lists_name_the_field() {
        let err = decode_list(&json!(3), "/FAIL_TO_PASS").unwrap_err();
        assert_eq!(
            err.to_string(),
            "`/FAIL_TO_PASS`: expected an array of strings (or a string holding one), found a number"
        );
        let err = decode_list(&json!(["a", 1]), "/FAIL_TO_PASS").unwrap_err();
        assert_eq!(err.pointer, "/FAIL_TO_PASS/1");
        let err = decode_list(&json!("not a list"), "/P").unwrap_err();
        assert!(err.message.contains("`not a list`"), "{err}");
        let err = decode_list(&json!("{\"a\": 1}"), "/P").unwrap_err();
        assert!(err.message.contains("holding an object"), "{err}");
    }

    #[test]
    fn decoding_is_idempotent() {
        for input in [
            json!(["x", "y"]),
            json!("[\"x\", \"y\"]"),
            json!("['x', 'y']"),
        ] {
            let once = decode_list(&input, "").unwrap();
            let twice = decode_list(&encode_list(&once.items, Encoding::Native), "").unwrap();
            assert_eq!(once.items, twice.items);
            assert_eq!(encode_list(&once.items, once.encoding), input);
        }
    }

    #[test]
    fn python_repr_quotes_like_python() {
        let items = vec![
            "plain".to_owned(),
            "it's".to_owned(),
            "both ' and \"".to_owned(),
            "new\nline".to_owned(),
        ];
        assert_eq!(
            python_repr_list(&items),
            r#"['plain', "it's", 'both \' and "', 'new\nline']"#
        );
        assert_eq!(parse_python_list(&python_repr_list(&items)).unwrap(), items);
    }

    #[test]
    fn styles_are_detected_and_written() {
        let value = json!({"a": [1, 2], "b": "x, y: z"});
        assert_eq!(
            JsonStyle::Spaced.to_string(&value),
            r#"{"a": [1, 2], "b": "x, y: z"}"#
        );
        assert_eq!(
            JsonStyle::Compact.to_string(&value),
            r#"{"a":[1,2],"b":"x, y: z"}"#
        );
        assert_eq!(JsonStyle::detect(r#"{"k\",": 1}"#), Some(JsonStyle::Spaced));
        assert_eq!(JsonStyle::detect(r#"{"k":1}"#), Some(JsonStyle::Compact));
        assert_eq!(JsonStyle::detect("[]"), None);
    }

    #[test]
    fn non_json_numbers_are_found_where_the_parser_stops() {
        let find = |text: &str| {
            let e = serde_json::from_str::<Value>(text).unwrap_err();
            non_json_number_at(text, &e)
        };
        assert_eq!(find(r#"{"a": NaN}"#), Some((6, "NaN")));
        assert_eq!(find(r#"{"a": [1, Infinity]}"#), Some((10, "Infinity")));
        assert_eq!(find(r#"{"a": -Infinity}"#), Some((6, "-Infinity")));
        assert_eq!(find("[\n1,\n  NaN]"), Some((7, "NaN")));
        assert_eq!(find(r#"{"a": Nope}"#), None);
        assert_eq!(find(r#"{"a" 1}"#), None);
        let err = decode_json(&json!("[1, NaN]"), "/d").unwrap_err();
        assert_eq!(err.pointer, "/d");
        assert!(
            err.message.contains("`NaN` is not a JSON value"),
            "{}",
            err.message
        );
    }

    #[test]
    fn into_value_and_write_record_give_what_serde_writes() {
        let every_field: crate::CanonicalRecord = serde_json::from_value(json!({
            "repo": "o/r", "instance_id": "o__r-1", "created_at": "2024-01-01T00:00:00Z",
            "base_commit": "a", "head_commit": "b", "patch": "p", "test_patch": "t",
            "patch_functions": ["f"], "test_functions": ["g", "h"], "efficiency_test": ["t1"],
            "problem_statement_oracle": {"text": "x"}, "problem_statement_realistic": "y",
            "duration_changes": [{"base": [1, 2.5], "head": [0.5]}, {"base": [], "head": [3]}], "human_performance": 2,
            "version": "1.0", "setup_commands": ["s"], "install_commands": [], "api": "a()",
            "gt_commit_message": "m", "notes": "n", "extensions": {"k": [1, null]}
        }))
        .unwrap();
        let mut with_null = crate::CanonicalRecord {
            repo: Some("o/r".into()),
            ..crate::CanonicalRecord::default()
        };
        with_null.problem_statement_oracle = Some(Value::Null);
        for record in [every_field, crate::CanonicalRecord::default(), with_null] {
            let expected = serde_json::to_string(&record).unwrap();
            let mut written = Vec::new();
            JsonStyle::Compact.write_record(&mut written, &record);
            assert_eq!(String::from_utf8(written).unwrap(), expected);
            let mut spaced = Vec::new();
            JsonStyle::Spaced.write_record(&mut spaced, &record);
            assert_eq!(
                String::from_utf8(spaced).unwrap(),
                JsonStyle::Spaced.to_string(&record)
            );
            assert_eq!(
                serde_json::to_string(&record.into_value()).unwrap(),
                expected
            );
        }
    }
}
