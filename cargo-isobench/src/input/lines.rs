//! The JSON Lines reader: one record per line, read chunk by chunk so that memory stays
//! flat whatever the input's size.

use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::items::{Batch, Batching, Item, RawItem, RecordReader, Window};
use super::json::parse_record;
use super::source::read_error;
use crate::errors::CliError;

/// The most bytes one JSON Lines record may take by default (`--max-record-bytes`): far
/// above any benchmark record, and a bound on the memory one line can claim.
pub const DEFAULT_MAX_RECORD_BYTES: u64 = 256 << 20;

static MAX_RECORD_BYTES: AtomicU64 = AtomicU64::new(DEFAULT_MAX_RECORD_BYTES);

/// The most bytes one JSON Lines record may take in this process.
pub fn max_record_bytes() -> u64 {
    MAX_RECORD_BYTES.load(Ordering::Relaxed)
}

/// Sets the most bytes one JSON Lines record may take (`--max-record-bytes`), for every
/// input read after it.
pub fn set_max_record_bytes(bytes: u64) {
    MAX_RECORD_BYTES.store(bytes.max(1), Ordering::Relaxed);
}

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

impl<R: Read> RecordReader for JsonLines<BufReader<R>> {
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

/// The error for a line longer than [`max_record_bytes`] (line `line`, 1-based).
fn too_long(line: u64) -> io::Error {
    io::Error::other(format!(
        "line {line} is longer than {} bytes, the most one record may take (`--max-record-bytes`)",
        max_record_bytes()
    ))
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
    let max = max_record_bytes();
    loop {
        buf.clear();
        // One byte past the limit tells a line too long from one just long enough.
        let n = reader
            .by_ref()
            .take(max.saturating_add(2))
            .read_until(b'\n', &mut buf)
            .map_err(|e| read_error(path, e))?;
        if n == 0 {
            return Ok(());
        }
        line += 1;
        if buf.strip_suffix(b"\n").unwrap_or(&buf).len() as u64 > max {
            return Err(read_error(path, too_long(line)));
        }
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
/// `target` bytes is read (past what `reader` holds already, straight from its source,
/// see [`fill`]), cut after its last line break, and the rest carried over.
///
/// Linear in the input, however long a line: a chunk with no line break is read on into
/// the same buffer (never copied again), and only the bytes not yet looked at are
/// searched for one. A line longer than [`max_record_bytes`] stops the reading.
fn line_batches(
    reader: &mut BufReader<impl Read>,
    Batching {
        index,
        target,
        fresh,
    }: Batching<'_>,
    window: &mut Window,
    emit: &mut dyn FnMut(Batch) -> bool,
) -> io::Result<()> {
    let max = usize::try_from(max_record_bytes()).unwrap_or(usize::MAX);
    let mut carry = fresh();
    // The bytes at the start of `carry` known to hold no line break.
    let mut searched = 0;
    let mut line = 0u64;
    loop {
        let mut text = std::mem::take(&mut carry);
        let eof = fill(reader, &mut text, target)?;
        let cut = if eof {
            text.len()
        } else {
            memchr::memrchr(b'\n', &text[searched..]).map_or(0, |i| searched + i + 1)
        };
        if cut == 0 && !eof {
            // One unfinished line: read on into the same buffer.
            if text.len() > max {
                return Err(too_long(line + 1));
            }
            searched = text.len();
            carry = text;
            continue;
        }
        let mut items = Vec::new();
        let mut pos = 0;
        let mut past = false;
        while pos < cut {
            let end = memchr::memchr(b'\n', &text[pos..cut]).map_or(cut, |i| pos + i);
            let complete = end < text.len();
            line += 1;
            if end - pos > max {
                return Err(too_long(line));
            }
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
                folder: None,
            });
        }
        // The unfinished line starts the next batch.
        carry = fresh();
        carry.extend_from_slice(&text[cut..]);
        searched = carry.len();
        text.truncate(cut);
        if !items.is_empty() {
            let batch = Batch {
                source: index,
                text,
                items,
                bytes: cut as u64,
                ..Batch::default()
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
///
/// The bytes `reader` holds already (those read when the input's layout was looked at)
/// are taken first; the rest is read from its source straight into the vector's spare
/// room (`read_to_end` through a `take`). Read through the buffer, the bytes were
/// copied once more, out of it in pieces of 8 KiB growing to its size: 7 % of a
/// conversion's instructions. Nor are they read into zeros written first: zeroing each
/// chunk before reading into it took about 4 % of a conversion's CPU.
fn fill<R: Read>(reader: &mut BufReader<R>, text: &mut Vec<u8>, target: usize) -> io::Result<bool> {
    text.reserve(target);
    let held = reader.buffer();
    let taken = held.len().min(target);
    text.extend_from_slice(&held[..taken]);
    reader.consume(taken);
    if taken == target {
        return Ok(false);
    }
    let limit = u64::try_from(target - taken).unwrap_or(u64::MAX);
    let read = Read::take(reader.get_mut(), limit).read_to_end(text)?;
    Ok((read as u64) < limit)
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    /// Reads `text` in batches of `target` bytes: the items' texts, and how many buffers
    /// the reader asked for.
    fn batches(text: &[u8], target: usize) -> (Vec<Vec<u8>>, usize) {
        batches_of(&mut BufReader::new(text), target)
    }

    /// Reads `reader` in batches of `target` bytes, as [`batches`].
    fn batches_of(reader: &mut BufReader<impl Read>, target: usize) -> (Vec<Vec<u8>>, usize) {
        let asked = Cell::new(0);
        let fresh = || {
            asked.set(asked.get() + 1);
            Vec::new()
        };
        let mut items = Vec::new();
        let batching = Batching {
            index: 0,
            target,
            fresh: &fresh,
        };
        line_batches(reader, batching, &mut Window::default(), &mut |batch| {
            items.extend(batch.items.iter().map(|i| batch.raw(i).to_vec()));
            true
        })
        .unwrap();
        (items, asked.get())
    }

    #[test]
    fn a_long_line_is_read_on_into_one_buffer_not_copied_per_chunk() {
        let long = format!("{{\"k\": \"{}\"}}", "x".repeat(1 << 20));
        let text = format!("{{}}\n{long}\n{{}}\n");
        let (items, asked) = batches(text.as_bytes(), 4096);
        assert_eq!(items, [b"{}".to_vec(), long.into_bytes(), b"{}".to_vec()]);
        // One buffer to start, one per cut: copying the unfinished line at every 4 KiB
        // chunk would ask for one per chunk (256 of them).
        assert!(asked <= 4, "{asked} buffers");
    }

    #[test]
    fn lines_cut_anywhere_come_back_whole() {
        let text = b"{\"a\": 1}\n\n{\"b\": 2}\r\n{\"c\"";
        for target in 1..text.len() + 2 {
            // The reader holding none of the text yet, or its first bytes (as once the
            // layout was looked at), fewer or more than a batch takes.
            for held in [0, 1, 5, 64] {
                let mut reader = BufReader::with_capacity(held.max(1), &text[..]);
                if held > 0 {
                    reader.fill_buf().unwrap();
                }
                let (items, _) = batches_of(&mut reader, target);
                assert_eq!(
                    items,
                    [
                        b"{\"a\": 1}".to_vec(),
                        b"{\"b\": 2}".to_vec(),
                        b"{\"c\"".to_vec()
                    ],
                    "target {target}, held {held}"
                );
            }
        }
    }

    /// A source that notes the size of each read asked of it.
    struct Noting<'a> {
        text: &'a [u8],
        asked: Vec<usize>,
    }

    impl Read for Noting<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.asked.push(buf.len());
            self.text.read(buf)
        }
    }

    #[test]
    fn batches_are_read_from_the_source_not_through_the_buffer() {
        let text = "{\"k\": \"v\"}\n".repeat(20_000);
        let target = 4096;
        let mut reader = BufReader::with_capacity(
            1 << 16,
            Noting {
                text: text.as_bytes(),
                asked: Vec::new(),
            },
        );
        // The layout is looked at: the buffer fills.
        reader.fill_buf().unwrap();
        reader.get_mut().asked.clear();
        let (items, _) = batches_of(&mut reader, target);
        assert_eq!(items.len(), 20_000);
        // Once the bytes held at the start are taken, the source is asked for no more
        // than a batch's room: read through the buffer, it was asked to fill the
        // buffer again, and each batch was copied out of it.
        let asked = &reader.get_ref().asked;
        assert!(!asked.is_empty());
        assert!(asked.iter().all(|&n| n <= target), "{asked:?}");
    }
}
