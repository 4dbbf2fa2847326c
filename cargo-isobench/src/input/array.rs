//! The JSON array reader: one array of records, streamed element by element so that
//! memory stays flat whatever the input's size.

use std::cell::Cell;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use isobench_core::codec::JsonStyle;
use serde::de::{DeserializeSeed, SeqAccess, Visitor};
use serde_json::Value;

use super::bad_input::BadInput;
use super::error::InputError;
use super::items::{Batch, Batching, Item, RawItem, RecordReader, Window};
use super::json::{CheckedValue, MAX_DEPTH, Trail, is_too_deep, style_of_prefix};
use super::source::{Input, open, read_error};
use crate::errors::CliError;

/// The records of a byte stream (decompressed already) holding one JSON array.
#[derive(Debug)]
pub struct JsonArray<R> {
    /// The input's name in messages (`-` for stdin).
    path: PathBuf,
    reader: R,
    /// The style of the array's records, as its first bytes show it.
    style: Option<JsonStyle>,
}

impl<R: BufRead> JsonArray<R> {
    /// Reads `reader`, named `path` in messages.
    pub fn new(path: PathBuf, mut reader: R) -> Self {
        // The style of an array's records shows in its first bytes.
        let style = reader.fill_buf().ok().and_then(|head| {
            let head = &head[..head.len().min(64 * 1024)];
            let start = head.iter().position(|&b| b == b'[')? + 1;
            style_of_prefix(&head[start..])
        });
        Self {
            path,
            reader,
            style,
        }
    }
}

impl<R: BufRead> RecordReader for JsonArray<R> {
    fn for_each_item(
        &mut self,
        mut each: &mut dyn FnMut(Item<'_>) -> Result<bool, CliError>,
    ) -> Result<(), CliError> {
        read_array(&mut self.reader, &mut each).map_err(|e| e.with_path(&self.path))
    }

    fn read_batches(
        &mut self,
        Batching { index, .. }: Batching<'_>,
        window: &mut Window,
        emit: &mut dyn FnMut(Batch) -> bool,
    ) -> Result<(), CliError> {
        let style = self.style;
        let new_batch = || Batch {
            source: index,
            array_style: style,
            ..Batch::default()
        };
        let mut batch = new_batch();
        let mut open = true;
        let result = read_array(&mut self.reader, &mut |item: Item<'_>| {
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
                folder: None,
            });
            if batch.items.len() >= ARRAY_BATCH {
                open = emit(std::mem::replace(&mut batch, new_batch()));
            }
            Ok(open)
        });
        if open && !batch.items.is_empty() {
            emit(batch);
        }
        result.map_err(|e| e.with_path(&self.path))
    }
}

/// The `NaN`/`Infinity` token a JSON array's parse error stops at, read back from the
/// file (on the error path only; not for stdin).
fn non_json_number_in_file(path: &Path, error: &serde_json::Error) -> Option<&'static str> {
    if !error.is_syntax() || error.line() == 0 || error.column() == 0 || path == Path::new("-") {
        return None;
    }
    let reader = BufReader::new(open(&Input::File(path.to_owned())).ok()?);
    let mut line = reader.split(b'\n').nth(error.line() - 1)?.ok()?;
    // The parser does not see a byte-order mark.
    if error.line() == 1 && line.starts_with(b"\xEF\xBB\xBF") {
        line.drain(..3);
    }
    isobench_core::codec::non_json_number_in(&line, error.column() - 1).map(|(_, token)| token)
}

/// A failure of the array reader, told with the input's path.
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
                InputError::BrokenArray {
                    path: path.to_owned(),
                    line: error.line(),
                    column: error.column(),
                    after: count,
                    what,
                    hint,
                }
                .into()
            }
        }
    }
}

fn read_array(
    reader: impl Read,
    each: &mut impl FnMut(Item<'_>) -> Result<bool, CliError>,
) -> Result<(), ReadFailure> {
    let bound = Rc::new(ElementBound::new(super::lines::max_record_bytes()));
    let reader = Bounded {
        inner: SkipBom::new(reader),
        bound: Rc::clone(&bound),
    };
    let mut de = serde_json::Deserializer::from_reader(reader);
    let mut stop = None;
    let mut count = 0;
    let seed = ArraySeed {
        each,
        stop: &mut stop,
        count: &mut count,
        bound: &bound,
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
    /// Where the element being read starts, for the bound on its size.
    bound: &'a ElementBound,
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
        loop {
            self.bound.start_element(*self.count + 1);
            let Some(value) = seq.next_element_seed(CheckedValue { trail: &mut trail })? else {
                break;
            };
            *self.count += 1;
            let record = match value {
                _ if trail.duplicate.is_some() => {
                    // An element has no raw text: the rejects file keeps it as parsed
                    // (with the first of the repeated key's values).
                    let mut bad = trail.take_duplicate().expect("a duplicate was found");
                    bad.value = Some(Box::new(value));
                    Err(bad)
                }
                Value::Object(_) => Ok(value),
                other => Err(BadInput {
                    message: format!(
                        "expected a JSON object, found {}",
                        isobench_core::error::json_type_name(&other)
                    ),
                    value: Some(Box::new(other)),
                    hint: None,
                    text: None,
                }),
            };
            match (self.each)(Item {
                line: *self.count,
                raw: b"",
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

/// The bound on one array element's size (`--max-record-bytes`), as JSON Lines have on a
/// line: the bytes read since the element began are counted, and reading past the bound
/// fails before more is held.
struct ElementBound {
    max: u64,
    read: Cell<u64>,
    start: Cell<u64>,
    element: Cell<u64>,
}

impl ElementBound {
    fn new(max: u64) -> Self {
        Self {
            max,
            read: Cell::new(0),
            start: Cell::new(0),
            element: Cell::new(1),
        }
    }

    /// Element `number` (1-based) begins at the next byte read.
    fn start_element(&self, number: u64) {
        self.start.set(self.read.get());
        self.element.set(number);
    }
}

/// A reader that stops an array element longer than its [`ElementBound`].
struct Bounded<R> {
    inner: R,
    bound: Rc<ElementBound>,
}

impl<R: Read> Read for Bounded<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let bound = &self.bound;
        let used = bound.read.get() - bound.start.get();
        let left = bound.max.saturating_sub(used);
        if left == 0 {
            return Err(io::Error::other(format!(
                "element {} of the array is longer than {} bytes, the most one record may take (`--max-record-bytes`)",
                bound.element.get(),
                bound.max
            )));
        }
        let room = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..room])?;
        bound.read.set(bound.read.get() + n as u64);
        Ok(n)
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

/// Array elements per batch.
const ARRAY_BATCH: usize = 64;
