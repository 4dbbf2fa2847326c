//! The JSON Lines reader: one record per line, read chunk by chunk so that memory stays
//! flat whatever the input's size.

use std::io::{self, BufRead, Read};
use std::path::{Path, PathBuf};

use super::items::{Batch, Batching, Item, RawItem, RecordReader, Window};
use super::json::parse_record;
use super::source::read_error;
use crate::errors::CliError;

/// The records of a byte stream (decompressed already) of JSON Lines.
#[derive(Debug)]
pub struct JsonLines<R> {
    /// The input's name in messages (`-` for stdin).
    path: PathBuf,
    reader: R,
}

impl<R: BufRead> JsonLines<R> {
    /// Reads `reader`, named `path` in messages.
    pub fn new(path: PathBuf, reader: R) -> Self {
        Self { path, reader }
    }
}

impl<R: BufRead> RecordReader for JsonLines<R> {
    fn for_each_item(
        &mut self,
        each: &mut dyn FnMut(Item<'_>) -> Result<bool, CliError>,
    ) -> Result<(), CliError> {
        read_lines(&self.path, &mut self.reader, each)
    }

    fn read_batches(
        &mut self,
        batching: Batching<'_>,
        window: &mut Window,
        emit: &mut dyn FnMut(Batch) -> bool,
    ) -> Result<(), CliError> {
        line_batches(&mut self.reader, batching, window, emit)
            .map_err(|e| read_error(&self.path, e))
    }
}

/// Calls `each` for every non-blank line; an error of `each` stops the reading as it is,
/// a read error is told with `path`.
fn read_lines(
    path: &Path,
    reader: &mut impl BufRead,
    each: &mut dyn FnMut(Item<'_>) -> Result<bool, CliError>,
) -> Result<(), CliError> {
    let mut buf = Vec::with_capacity(64 * 1024);
    let mut line = 0u64;
    loop {
        buf.clear();
        let n = reader
            .read_until(b'\n', &mut buf)
            .map_err(|e| read_error(path, e))?;
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
        if !each(Item {
            line,
            raw: text,
            record,
        })? {
            return Ok(());
        }
    }
}

/// Splits JSON Lines into batches without copying each line: a chunk of at least
/// `target` bytes is read, cut after its last line break, and the rest carried over.
fn line_batches(
    reader: &mut impl Read,
    Batching {
        index,
        target,
        fresh,
    }: Batching<'_>,
    window: &mut Window,
    emit: &mut dyn FnMut(Batch) -> bool,
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
