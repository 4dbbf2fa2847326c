//! Reading records from JSONL or a JSON array, in a file (plain, `.gz` or `.zst`) or on
//! stdin: one at a time ([`for_each_item`]) or in batches of raw lines for the parallel
//! pipeline ([`read_batches`]).
//!
//! Memory stays flat: a JSONL file is read chunk by chunk, and a JSON array element by
//! element, whatever the input size.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::ops::Range;
use std::path::{Path, PathBuf};

use isobench_core::codec::JsonStyle;
use isobench_core::passthrough::{self, Passed};
use serde::de::{DeserializeSeed, Deserializer as _, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::errors::CliError;

mod fast;

/// Where records come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Standard input.
    Stdin,
    /// A file.
    File(PathBuf),
}

impl Source {
    /// `-` is stdin; anything else a path.
    pub fn parse(arg: &Path) -> Self {
        if arg.as_os_str() == "-" {
            Self::Stdin
        } else {
            Self::File(arg.to_owned())
        }
    }

    /// The name used in messages.
    pub fn display(&self) -> String {
        match self {
            Self::Stdin => "-".into(),
            Self::File(p) => p.display().to_string(),
        }
    }
}

/// How a file's records are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// One JSON object per line.
    JsonLines,
    /// One JSON array of objects.
    JsonArray,
}

impl Layout {
    /// The layout a path's extension names: `.json` is an array, `.jsonl`/`.ndjson` lines
    /// (an input named `.json` is still read as lines when it does not start with `[`). A compression extension (`.gz`, `.zst`)
    /// is looked through: `x.jsonl.gz` is JSON Lines.
    pub fn from_extension(path: &Path) -> Option<Self> {
        let path = match Compression::of(path) {
            Compression::None => path,
            _ => Path::new(path.file_stem()?),
        };
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "json" => Some(Self::JsonArray),
            "jsonl" | "ndjson" => Some(Self::JsonLines),
            _ => None,
        }
    }
}

/// How a file is compressed, by its last extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Not compressed.
    None,
    /// `.gz`.
    Gzip,
    /// `.zst`.
    Zstd,
}

impl Compression {
    /// The compression a path's last extension names.
    pub fn of(path: &Path) -> Self {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("gz") => Self::Gzip,
            Some("zst" | "zstd") => Self::Zstd,
            _ => Self::None,
        }
    }
}

/// Opens an input, decompressing it when its extension says so.
pub fn open(source: &Source) -> io::Result<Box<dyn Read + Send>> {
    match source {
        Source::Stdin => Ok(Box::new(io::stdin())),
        Source::File(p) => {
            let file = File::open(p)?;
            Ok(match Compression::of(p) {
                Compression::None => Box::new(file),
                Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(
                    BufReader::with_capacity(BUFFER, file),
                )),
                Compression::Zstd => Box::new(zstd::stream::read::Decoder::new(file)?),
            })
        }
    }
}

/// One item read from an input: a record, or a piece that could not be one.
#[derive(Debug)]
pub struct Item<'a> {
    /// 1-based line (JSON Lines) or element number (JSON array).
    pub line: u64,
    /// The item's text as read (JSON Lines only; empty for array elements).
    pub raw: &'a [u8],
    /// The JSON style the item was written in, when it shows one.
    pub style: Option<JsonStyle>,
    /// The record, or why there is none.
    pub record: Result<Value, BadInput>,
}

/// Input that is not a record.
#[derive(Debug)]
pub struct BadInput {
    /// What is wrong.
    pub message: String,
    /// The value, when it was JSON but not an object.
    pub value: Option<Value>,
    /// What the user can do.
    pub hint: Option<String>,
}

/// The size of the read buffer.
const BUFFER: usize = 1 << 20;

/// Opens an input and calls `each` for every item, in order, until `each` returns
/// `false` or the input ends.
pub fn for_each_item(
    source: &Source,
    mut each: impl FnMut(Item<'_>) -> Result<bool, CliError>,
) -> Result<(), CliError> {
    let path = match source {
        Source::Stdin => PathBuf::from("-"),
        Source::File(p) => p.clone(),
    };
    let read_err = |e: io::Error| read_error(&path, e);
    if let Source::File(p) = source
        && crate::parquet::is_parquet(p)
    {
        return parquet_items(p, &mut each);
    }
    let reader = open(source).map_err(read_err)?;
    let mut reader = BufReader::with_capacity(BUFFER, reader);
    refuse_parquet(&mut reader, source)?;
    let layout = input_layout(source, &mut reader).map_err(read_err)?;
    match layout {
        Layout::JsonLines => read_lines(&mut reader, &mut each),
        Layout::JsonArray => {
            // The style of an array's records shows in its first bytes.
            let style = reader.fill_buf().ok().and_then(|head| {
                let head = &head[..head.len().min(64 * 1024)];
                let start = head.iter().position(|&b| b == b'[')? + 1;
                style_of_prefix(&head[start..])
            });
            read_array(reader, style, &mut each)
        }
    }
    .map_err(|e| e.with_path(&path))
}

/// Calls `each` for every row of a Parquet file.
fn parquet_items(
    path: &Path,
    each: &mut impl FnMut(Item<'_>) -> Result<bool, CliError>,
) -> Result<(), CliError> {
    let mut rows = crate::parquet::ParquetRows::open(path)?;
    while let Some(read) = rows.next_rows()? {
        for (line, record) in read {
            if !each(Item {
                line,
                raw: b"",
                style: None,
                record,
            })? {
                return Ok(());
            }
        }
    }
    Ok(())
}

/// Stops at Parquet bytes in an input read as JSON.
fn refuse_parquet(reader: &mut impl BufRead, source: &Source) -> Result<(), CliError> {
    // A read error shows again on the next read, with the path.
    match reader.fill_buf() {
        Ok(head) if head.starts_with(crate::parquet::MAGIC) => {
            Err(crate::parquet::looks_like_parquet(&source.display()))
        }
        _ => Ok(()),
    }
}

/// The JSON style a record's text shows, if any.
pub fn style_of(raw: &[u8]) -> Option<JsonStyle> {
    JsonStyle::detect(std::str::from_utf8(raw).ok()?)
}

/// The style of a text that may be cut anywhere (even inside a UTF-8 sequence).
fn style_of_prefix(head: &[u8]) -> Option<JsonStyle> {
    let valid = match std::str::from_utf8(head) {
        Ok(text) => text,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).ok()?,
    };
    JsonStyle::detect(valid)
}

/// An input that cannot be read; for a compressed file, a decoding error says the data
/// is damaged or cut short.
fn read_error(path: &Path, e: io::Error) -> CliError {
    let damaged = matches!(
        e.kind(),
        io::ErrorKind::UnexpectedEof | io::ErrorKind::InvalidData | io::ErrorKind::InvalidInput
    );
    let source = match Compression::of(path) {
        Compression::Gzip if damaged => io::Error::new(
            e.kind(),
            format!("{e}: the gzip data ends early or is damaged (a truncated download?)"),
        ),
        Compression::Zstd if damaged => io::Error::new(
            e.kind(),
            format!("{e}: the zstd data ends early or is damaged (a truncated download?)"),
        ),
        _ => e,
    };
    CliError::Read {
        path: path.to_owned(),
        source,
    }
}

/// The `NaN`/`Infinity` token a JSON array's parse error stops at, read back from the
/// file (on the error path only; not for stdin).
fn non_json_number_in_file(path: &Path, error: &serde_json::Error) -> Option<&'static str> {
    if !error.is_syntax() || error.line() == 0 || error.column() == 0 || path == Path::new("-") {
        return None;
    }
    let reader = BufReader::new(open(&Source::File(path.to_owned())).ok()?);
    let mut line = reader.split(b'\n').nth(error.line() - 1)?.ok()?;
    // The parser does not see a byte-order mark.
    if error.line() == 1 && line.starts_with(b"\xEF\xBB\xBF") {
        line.drain(..3);
    }
    isobench_core::codec::non_json_number_in(&line, error.column() - 1).map(|(_, token)| token)
}

/// A read error before the path is known.
enum ReadFailure {
    Io(io::Error),
    Stop(CliError),
    /// A JSON array that is not well formed, after `count` complete elements.
    Array {
        error: serde_json::Error,
        count: u64,
    },
}

impl ReadFailure {
    fn with_path(self, path: &Path) -> CliError {
        match self {
            Self::Io(e) => read_error(path, e),
            Self::Stop(e) => e,
            Self::Array { error, count } => {
                let text = error.to_string();
                // serde_json ends its message with the position, given here up front.
                let what = text
                    .rsplit_once(" at line ")
                    .map_or(text.as_str(), |(what, _)| what);
                let non_json = non_json_number_in_file(path, &error);
                let what = if is_too_deep(&error) {
                    format!("nesting deeper than {MAX_DEPTH} arrays/objects, the reader's limit")
                } else if let Some(token) = non_json {
                    format!("`{token}` {}", isobench_core::codec::NON_JSON_NUMBER)
                } else {
                    what.to_owned()
                };
                let hint = if non_json.is_some() {
                    isobench_core::codec::NON_JSON_NUMBER_HINT
                } else if error.is_eof() {
                    "the file ends inside the array: it looks truncated; check that it was written completely"
                } else {
                    "a broken JSON array cannot be read past the break, even with `--on-error skip`; fix the file and run again"
                };
                CliError::Record(
                    format!(
                        "{}:{}:{}: malformed JSON array, after {count} complete record(s): {what}",
                        path.display(),
                        error.line(),
                        error.column(),
                    ),
                    Some(hint.to_owned()),
                )
            }
        }
    }
}

/// The layout of an input: JSON Lines when its extension says so, otherwise told by the
/// first byte that is not blank (`[`: an array), so that a `.json` file holding JSON Lines,
/// as some published datasets are, is read as what it holds.
fn input_layout(source: &Source, reader: &mut impl BufRead) -> io::Result<Layout> {
    match source {
        Source::File(p) if Layout::from_extension(p) == Some(Layout::JsonLines) => {
            Ok(Layout::JsonLines)
        }
        _ => sniff(reader),
    }
}

fn sniff(reader: &mut impl BufRead) -> io::Result<Layout> {
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(Layout::JsonLines);
        }
        let whole = buf.len();
        let buf = buf.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(buf);
        if let Some(i) = buf.iter().position(|b| !b.is_ascii_whitespace()) {
            return Ok(if buf[i] == b'[' {
                Layout::JsonArray
            } else {
                Layout::JsonLines
            });
        }
        reader.consume(whole);
    }
}

fn read_lines(
    reader: &mut impl BufRead,
    each: &mut impl FnMut(Item<'_>) -> Result<bool, CliError>,
) -> Result<(), ReadFailure> {
    let mut buf = Vec::with_capacity(64 * 1024);
    let mut line = 0u64;
    loop {
        buf.clear();
        let n = reader
            .read_until(b'\n', &mut buf)
            .map_err(ReadFailure::Io)?;
        if n == 0 {
            return Ok(());
        }
        line += 1;
        let complete = buf.last() == Some(&b'\n');
        let mut text: &[u8] = &buf;
        if line == 1 {
            text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
        }
        let text = text.trim_ascii_end();
        if text.trim_ascii_start().is_empty() {
            continue;
        }
        let record = parse_record(text, complete);
        let style = style_of(text);
        if !each(Item {
            line,
            raw: text,
            style,
            record,
        })
        .map_err(ReadFailure::Stop)?
        {
            return Ok(());
        }
    }
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

fn is_too_deep(e: &serde_json::Error) -> bool {
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

fn read_array(
    reader: impl Read,
    style: Option<JsonStyle>,
    each: &mut impl FnMut(Item<'_>) -> Result<bool, CliError>,
) -> Result<(), ReadFailure> {
    let mut de = serde_json::Deserializer::from_reader(SkipBom::new(reader));
    let mut stop = None;
    let mut count = 0;
    let seed = ArraySeed {
        each,
        stop: &mut stop,
        count: &mut count,
        style,
    };
    let result = seed.deserialize(&mut de).and_then(|()| de.end());
    if let Some(e) = stop {
        return Err(ReadFailure::Stop(e));
    }
    match result {
        Ok(()) => Ok(()),
        Err(e) if e.is_io() => Err(ReadFailure::Io(io::Error::new(
            e.io_error_kind().unwrap_or(io::ErrorKind::Other),
            e.to_string(),
        ))),
        Err(e) => Err(ReadFailure::Array { error: e, count }),
    }
}

/// Streams the elements of a JSON array to the callback.
struct ArraySeed<'a, F> {
    each: &'a mut F,
    stop: &'a mut Option<CliError>,
    /// Elements read so far.
    count: &'a mut u64,
    style: Option<JsonStyle>,
}

impl<'de, F: FnMut(Item<'_>) -> Result<bool, CliError>> DeserializeSeed<'de> for ArraySeed<'_, F> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, F: FnMut(Item<'_>) -> Result<bool, CliError>> Visitor<'de> for ArraySeed<'_, F> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON array of records")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut trail = Trail::default();
        while let Some(value) = seq.next_element_seed(CheckedValue { trail: &mut trail })? {
            *self.count += 1;
            let record = match value {
                _ if trail.duplicate.is_some() => {
                    // An element has no raw text: the rejects file keeps it as parsed
                    // (with the first of the repeated key's values).
                    let mut bad = trail.take_duplicate().expect("a duplicate was found");
                    bad.value = Some(value);
                    Err(bad)
                }
                Value::Object(_) => Ok(value),
                other => Err(BadInput {
                    message: format!(
                        "expected a JSON object, found {}",
                        isobench_core::error::json_type_name(&other)
                    ),
                    value: Some(other),
                    hint: None,
                }),
            };
            match (self.each)(Item {
                line: *self.count,
                raw: b"",
                style: self.style,
                record,
            }) {
                Ok(true) => {}
                Ok(false) => break,
                Err(e) => {
                    *self.stop = Some(e);
                    break;
                }
            }
        }
        // Whatever follows is not read once the caller has stopped.
        if self.stop.is_some() {
            return Ok(());
        }
        while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
        Ok(())
    }
}

/// A reader that drops a UTF-8 byte-order mark at the start.
struct SkipBom<R> {
    inner: R,
    checked: bool,
    pending: Vec<u8>,
}

impl<R: Read> SkipBom<R> {
    fn new(inner: R) -> Self {
        Self {
            inner,
            checked: false,
            pending: Vec::new(),
        }
    }
}

impl<R: Read> Read for SkipBom<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if !self.checked {
            self.checked = true;
            let mut head = [0u8; 3];
            let mut got = 0;
            while got < 3 {
                let n = self.inner.read(&mut head[got..])?;
                if n == 0 {
                    break;
                }
                got += n;
            }
            if head[..got] != *b"\xEF\xBB\xBF" {
                self.pending.extend_from_slice(&head[..got]);
            }
        }
        if !self.pending.is_empty() {
            let n = self.pending.len().min(buf.len());
            buf[..n].copy_from_slice(&self.pending[..n]);
            self.pending.drain(..n);
            return Ok(n);
        }
        self.inner.read(buf)
    }
}

/// A batch of items read ahead of conversion: raw JSONL lines (parsed by the worker that
/// converts them) or, for a JSON array, elements already parsed.
#[derive(Debug, Default)]
pub struct Batch {
    /// The index of the input the items come from.
    pub source: usize,
    /// The bytes the JSONL items point into.
    pub text: Vec<u8>,
    /// The items, in input order.
    pub items: Vec<RawItem>,
    /// Input bytes (decompressed) this batch covers.
    pub bytes: u64,
    /// For a JSON array, the style its first bytes show.
    pub array_style: Option<JsonStyle>,
}

/// One item of a [`Batch`].
#[derive(Debug)]
pub struct RawItem {
    /// 1-based line (JSON Lines) or element number (JSON array).
    pub line: u64,
    /// The line's text in [`Batch::text`], without its line end (empty for array elements).
    pub range: Range<usize>,
    /// Whether the line ended with a line break.
    pub complete: bool,
    /// An array element, parsed while reading the array.
    pub parsed: Option<Result<Value, BadInput>>,
}

impl Batch {
    /// The raw text of an item.
    pub fn raw(&self, item: &RawItem) -> &[u8] {
        &self.text[item.range.clone()]
    }
}

/// Which items of the inputs to convert: a number to skip, then at most a number to take.
#[derive(Debug, Clone, Copy, Default)]
pub struct Window {
    /// Items (across all inputs) skipped before the first taken.
    pub skip: u64,
    /// The most items taken; `None` for all.
    pub take: Option<u64>,
}

impl Window {
    /// Counts one item: whether it is taken, or `None` when the window is past.
    pub(crate) fn admit(&mut self) -> Option<bool> {
        if self.skip > 0 {
            self.skip -= 1;
            return Some(false);
        }
        match &mut self.take {
            Some(0) => None,
            Some(n) => {
                *n -= 1;
                Some(true)
            }
            None => Some(true),
        }
    }

    /// Whether no further item can be taken.
    pub fn done(&self) -> bool {
        self.take == Some(0)
    }
}

/// Reads an input in batches of about `target` bytes (JSONL) and hands each to `emit`, in
/// order, until the input ends, the window is past, or `emit` returns `false`. JSONL
/// batches are read into buffers from `fresh` (empty; they may have room already).
pub fn read_batches(
    source: &Source,
    index: usize,
    target: usize,
    window: &mut Window,
    fresh: &dyn Fn() -> Vec<u8>,
    mut emit: impl FnMut(Batch) -> bool,
) -> Result<(), CliError> {
    if let Source::File(p) = source
        && crate::parquet::is_parquet(p)
    {
        return crate::parquet::read_batches(p, index, window, &mut emit);
    }
    let path = PathBuf::from(source.display());
    let read_err = |e: io::Error| read_error(&path, e);
    let reader = open(source).map_err(read_err)?;
    let mut reader = BufReader::with_capacity(BUFFER, reader);
    refuse_parquet(&mut reader, source)?;
    let layout = input_layout(source, &mut reader).map_err(read_err)?;
    match layout {
        Layout::JsonLines => {
            line_batches(&mut reader, index, target, window, fresh, &mut emit).map_err(read_err)
        }
        Layout::JsonArray => {
            let style = reader.fill_buf().ok().and_then(|head| {
                let head = &head[..head.len().min(64 * 1024)];
                let start = head.iter().position(|&b| b == b'[')? + 1;
                style_of_prefix(&head[start..])
            });
            let mut batch = Batch {
                source: index,
                array_style: style,
                ..Batch::default()
            };
            let mut open = true;
            let result = read_array(reader, style, &mut |item: Item<'_>| {
                match window.admit() {
                    None => return Ok(false),
                    Some(false) => return Ok(true),
                    Some(true) => {}
                }
                batch.items.push(RawItem {
                    line: item.line,
                    range: 0..0,
                    complete: true,
                    parsed: Some(item.record),
                });
                if batch.items.len() >= ARRAY_BATCH {
                    let full = std::mem::replace(
                        &mut batch,
                        Batch {
                            source: index,
                            array_style: style,
                            ..Batch::default()
                        },
                    );
                    open = emit(full);
                }
                Ok(open)
            });
            if open && !batch.items.is_empty() {
                emit(batch);
            }
            result.map_err(|e| e.with_path(&path))
        }
    }
}

/// Array elements per batch.
const ARRAY_BATCH: usize = 64;

/// Splits JSON Lines into batches without copying each line: a chunk of at least
/// `target` bytes is read, cut after its last line break, and the rest carried over.
fn line_batches(
    reader: &mut impl Read,
    index: usize,
    target: usize,
    window: &mut Window,
    fresh: &dyn Fn() -> Vec<u8>,
    emit: &mut impl FnMut(Batch) -> bool,
) -> io::Result<()> {
    let mut carry = fresh();
    let mut line = 0u64;
    loop {
        let mut text = std::mem::take(&mut carry);
        let eof = fill(reader, &mut text, target)?;
        let cut = if eof {
            text.len()
        } else {
            memchr::memrchr(b'\n', &text).map_or(0, |i| i + 1)
        };
        let mut items = Vec::new();
        let mut pos = 0;
        let mut past = false;
        while pos < cut {
            let end = memchr::memchr(b'\n', &text[pos..cut]).map_or(cut, |i| pos + i);
            let complete = end < text.len();
            line += 1;
            let mut start = pos;
            pos = end + 1;
            if line == 1 && text[start..end].starts_with(b"\xEF\xBB\xBF") {
                start += 3;
            }
            let trimmed = text[start..end].trim_ascii_end();
            if trimmed.trim_ascii_start().is_empty() {
                continue;
            }
            match window.admit() {
                None => {
                    past = true;
                    break;
                }
                Some(false) => continue,
                Some(true) => {}
            }
            items.push(RawItem {
                line,
                range: start..start + trimmed.len(),
                complete,
                parsed: None,
            });
        }
        // The unfinished line starts the next batch.
        carry = fresh();
        carry.extend_from_slice(&text[cut..]);
        text.truncate(cut);
        if !items.is_empty() {
            let batch = Batch {
                source: index,
                text,
                items,
                bytes: cut as u64,
                array_style: None,
            };
            if !emit(batch) {
                return Ok(());
            }
        }
        if eof || past || window.done() {
            return Ok(());
        }
    }
}

/// Reads into `text` until it holds `target` more bytes or the input ends; `true` at
/// the end of the input.
fn fill(reader: &mut impl Read, text: &mut Vec<u8>, target: usize) -> io::Result<bool> {
    let want = text.len() + target;
    text.reserve(target);
    while text.len() < want {
        let old = text.len();
        text.resize(want, 0);
        match reader.read(&mut text[old..]) {
            Ok(0) => {
                text.truncate(old);
                return Ok(true);
            }
            Ok(n) => text.truncate(old + n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => text.truncate(old),
            Err(e) => {
                text.truncate(old);
                return Err(e);
            }
        }
    }
    Ok(false)
}

/// Counts the items of an input (non-blank JSONL lines or array elements) without
/// converting them, for `--shard`.
pub fn count_items(source: &Source) -> Result<u64, CliError> {
    if let Source::File(p) = source
        && crate::parquet::is_parquet(p)
    {
        return crate::parquet::row_count(p);
    }
    let mut count = 0u64;
    read_batches(
        source,
        0,
        BUFFER,
        &mut Window::default(),
        &Vec::new,
        |batch| {
            count += batch.items.len() as u64;
            true
        },
    )?;
    Ok(count)
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
struct Trail {
    /// The repeated key and the path to it, reversed.
    duplicate: Option<(String, Vec<String>)>,
    /// The path is still being built: the enclosing value adds its key or index.
    climbing: bool,
}

impl Trail {
    /// The duplicate found, as bad input; the trail is reset.
    fn take_duplicate(&mut self) -> Option<BadInput> {
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
struct CheckedValue<'t> {
    trail: &'t mut Trail,
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
