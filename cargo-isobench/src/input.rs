//! Reading records, one at a time, from JSONL or a JSON array, in a file or on stdin.
//!
//! Memory stays flat: a JSONL file is read line by line, and a JSON array element by
//! element, whatever the input size.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use isobench_core::codec::JsonStyle;
use serde::de::{DeserializeSeed, SeqAccess, Visitor};
use serde_json::Value;

use crate::errors::CliError;

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
    /// The layout a path's extension names: `.json` is an array, `.jsonl`/`.ndjson` lines;
    /// anything else is decided by the first byte.
    pub fn from_extension(path: &Path) -> Option<Self> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "json" => Some(Self::JsonArray),
            "jsonl" | "ndjson" => Some(Self::JsonLines),
            _ => None,
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
    let read_err = |e: io::Error| CliError::Read {
        path: path.clone(),
        source: e,
    };
    let reader: Box<dyn Read> = match source {
        Source::Stdin => Box::new(io::stdin().lock()),
        Source::File(p) => Box::new(File::open(p).map_err(read_err)?),
    };
    let mut reader = BufReader::with_capacity(BUFFER, reader);
    let layout = match source {
        Source::File(p) => Layout::from_extension(p),
        Source::Stdin => None,
    };
    let layout = match layout {
        Some(l) => l,
        None => sniff(&mut reader).map_err(read_err)?,
    };
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

/// A read error before the path is known.
enum ReadFailure {
    Io(io::Error),
    Stop(CliError),
}

impl ReadFailure {
    fn with_path(self, path: &Path) -> CliError {
        match self {
            Self::Io(e) => CliError::Read {
                path: path.to_owned(),
                source: e,
            },
            Self::Stop(e) => e,
        }
    }
}

fn sniff(reader: &mut BufReader<Box<dyn Read>>) -> io::Result<Layout> {
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(Layout::JsonLines);
        }
        let buf = buf.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(buf);
        if let Some(i) = buf.iter().position(|b| !b.is_ascii_whitespace()) {
            return Ok(if buf[i] == b'[' {
                Layout::JsonArray
            } else {
                Layout::JsonLines
            });
        }
        let n = reader.buffer().len();
        reader.consume(n);
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

fn parse_record(text: &[u8], complete_line: bool) -> Result<Value, BadInput> {
    let bad = |message: String, hint: Option<&str>| BadInput {
        message,
        value: None,
        hint: hint.map(str::to_owned),
    };
    if let Err(e) = std::str::from_utf8(text) {
        return Err(bad(
            format!("invalid UTF-8 at byte {} of the line", e.valid_up_to() + 1),
            Some("JSON text must be UTF-8; re-encode the file (e.g. `iconv -t UTF-8`)"),
        ));
    }
    match serde_json::from_slice::<Value>(text) {
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
        Err(e) => Err(bad(format!("malformed JSON: {e}"), None)),
    }
}

fn read_array(
    reader: impl Read,
    style: Option<JsonStyle>,
    each: &mut impl FnMut(Item<'_>) -> Result<bool, CliError>,
) -> Result<(), ReadFailure> {
    let mut de = serde_json::Deserializer::from_reader(SkipBom::new(reader));
    let mut stop = None;
    let seed = ArraySeed {
        each,
        stop: &mut stop,
        count: 0,
        style,
    };
    let result = seed.deserialize(&mut de).and_then(|()| de.end());
    if let Some(e) = stop {
        return Err(ReadFailure::Stop(e));
    }
    match result {
        Ok(()) => Ok(()),
        Err(e) if e.is_io() => Err(ReadFailure::Io(io::Error::other(e.to_string()))),
        Err(e) => Err(ReadFailure::Stop(CliError::Record(
            format!("malformed JSON array: {e}"),
            Some("every record before this point was read; fix the file and run again".into()),
        ))),
    }
}

/// Streams the elements of a JSON array to the callback.
struct ArraySeed<'a, F> {
    each: &'a mut F,
    stop: &'a mut Option<CliError>,
    count: u64,
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

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        while let Some(value) = seq.next_element::<Value>()? {
            self.count += 1;
            let record = match value {
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
                line: self.count,
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
