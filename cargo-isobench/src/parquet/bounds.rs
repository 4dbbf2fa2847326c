//! What a Parquet file's own bytes allow it to claim, checked before the `parquet` crate
//! decodes anything: the decoder sizes its allocations by counts and sizes the file states
//! (a list's length, a schema node's children, a page's uncompressed size) and an allocation
//! that fails aborts the process, which no error handling can contain.
//!
//! - **The footer.** Every list, set and map the footer declares has at most as many
//!   elements as the footer has bytes left (each element takes at least one byte, each map
//!   entry two), every string fits in what is left, structs nest at most [`MAX_DEPTH`] deep,
//!   and a schema element's `num_children` is at most the number of schema elements after it.
//!   The footer itself lies inside the file.
//! - **The pages.** Each column chunk lies inside the file before the footer, and each page
//!   header in it is read (the pages are skipped, not read) and checked: the page lies inside
//!   its chunk, its uncompressed size is at most [`Limits::page_bytes`], and at most what its
//!   codec can expand its compressed bytes to ([`expansion`]). Per row group, the largest page
//!   of each column, summed over the columns (the pages a decoder holds at once), is at most
//!   [`Limits::group_page_bytes`].
//!
//! - **The rows.** Each row decoded is at most `--max-record-bytes` ([`check_rows`]), as
//!   a JSON Lines record is.
//!
//! A file that breaks one of these is refused with the place it breaks it; a file that keeps
//! them is handed to the decoder, which may still refuse it for other reasons.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};

use arrow_array::RecordBatch;

/// How deep structs, lists and maps may nest in a footer or page header. Parquet's own
/// structures nest about six deep; a logical type in a schema element adds two.
pub const MAX_DEPTH: u32 = 32;

/// The bytes of a page header read first: a header without statistics takes a few dozen.
/// A longer one (large statistics) is read again with four times more, up to the rest of
/// its column chunk.
const HEADER_READ: usize = 512;

/// What a file read may claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The most bytes one page may decompress to.
    pub page_bytes: u64,
    /// The most bytes the largest pages of a row group's columns may decompress to, summed
    /// over the columns.
    pub group_page_bytes: u64,
}

impl Limits {
    /// The limits for a reader whose record bound is `record_bytes` (`--max-record-bytes`):
    /// a page holds at most that or 64 MiB, whichever is more, and a row group's pages held
    /// at once four times that.
    pub fn for_record_bytes(record_bytes: u64) -> Self {
        let page_bytes = record_bytes.max(64 << 20);
        Self {
            page_bytes,
            group_page_bytes: page_bytes.saturating_mul(4),
        }
    }
}

/// Why a file is refused before it is decoded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BoundsError {
    /// Reading the file failed.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The footer's length, as the file's last eight bytes give it, does not fit the file.
    #[error(
        "the file is malformed: its footer claims {claimed} bytes, more than the {size}-byte file can hold"
    )]
    FooterLength {
        /// The length claimed.
        claimed: u64,
        /// The file's size.
        size: u64,
    },
    /// The footer's bytes break the structure at byte `at` of the footer.
    #[error("the file is malformed: its footer, at its byte {at}: {what}")]
    Footer {
        /// Where, from the footer's first byte.
        at: usize,
        /// What is wrong.
        what: String,
    },
    /// A column chunk or one of its pages does not keep the bounds.
    #[error("the file is malformed at row group {group}, column {column}: {what}")]
    Chunk {
        /// The row group (0-based, as the footer lists them).
        group: usize,
        /// The column (0-based).
        column: usize,
        /// What is wrong, with the page's place in the file.
        what: String,
    },
    /// A row holds more than one record may.
    #[error(
        "row {row} holds {bytes} bytes, more than the {most} one record may take (`--max-record-bytes`)"
    )]
    Row {
        /// The row (1-based).
        row: u64,
        /// Its bytes, measured as the writer measures them.
        bytes: u64,
        /// The bound.
        most: u64,
    },
    /// A row group's pages together decompress to more than the limit.
    #[error(
        "row group {group}: its columns' largest pages decompress to {bytes} bytes together, more than the {limit} a reader holds at once (`--max-record-bytes` raises it)"
    )]
    Group {
        /// The row group (0-based).
        group: usize,
        /// The sum claimed.
        bytes: u64,
        /// The limit.
        limit: u64,
    },
}

/// Checks each row of `batch`, whose first row is the file's row `first` (1-based), against
/// `most` bytes (`--max-record-bytes`), measured as the writer measures a row
/// ([`super::row_bytes`]: its strings' and binaries' lengths, 8 bytes a number, its lists'
/// items and its maps' keys and values).
pub fn check_rows(batch: &RecordBatch, first: u64, most: u64) -> Result<(), BoundsError> {
    let limit = usize::try_from(most).unwrap_or(usize::MAX);
    match super::row_bytes::row_bytes(batch)
        .into_iter()
        .enumerate()
        .find(|&(_, bytes)| bytes > limit)
    {
        Some((i, bytes)) => Err(BoundsError::Row {
            row: first + i as u64,
            bytes: bytes as u64,
            most,
        }),
        None => Ok(()),
    }
}

/// The most bytes `compressed` bytes of the codec `codec` (Parquet's `CompressionCodec`
/// number) can decompress to, or `None` when the codec has no such bound (ZSTD, and codecs
/// this build does not decode: the decoder refuses those). A Snappy copy element of three
/// bytes writes at most 64; an LZ4 sequence's length byte adds at most 255; a DEFLATE
/// stream expands at most 1032 to 1; 64 bytes are allowed for framing.
pub fn expansion(codec: i32, compressed: u64) -> Option<u64> {
    let ratio = match codec {
        0 => 1,
        1 => 22,
        2 => 1032,
        5 | 7 => 256,
        _ => return None,
    };
    Some(compressed.saturating_mul(ratio).saturating_add(64))
}

/// Checks the Parquet file `file` against `limits` (see the module's doc). A file whose
/// last four bytes are not `PAR1` is left to the decoder, which refuses it.
pub fn check(file: &File, limits: Limits) -> Result<(), BoundsError> {
    let mut file = file;
    let size = file.metadata()?.len();
    if size < 12 {
        return Ok(());
    }
    let mut trailer = [0; 8];
    file.seek(SeekFrom::Start(size - 8))?;
    file.read_exact(&mut trailer)?;
    if &trailer[4..] != b"PAR1" {
        return Ok(());
    }
    let claimed = u64::from(u32::from_le_bytes([
        trailer[0], trailer[1], trailer[2], trailer[3],
    ]));
    if claimed > size - 12 {
        return Err(BoundsError::FooterLength { claimed, size });
    }
    let footer_start = size - 8 - claimed;
    let mut footer = Vec::new();
    footer
        .try_reserve_exact(usize::try_from(claimed).map_err(|_| io::Error::other("too long"))?)
        .map_err(|_| io::Error::other(format!("no memory for its {claimed}-byte footer")))?;
    file.seek(SeekFrom::Start(footer_start))?;
    file.take(claimed).read_to_end(&mut footer)?;
    let groups = footer_chunks(&footer).map_err(|(at, what)| BoundsError::Footer { at, what })?;
    for (g, chunks) in groups.iter().enumerate() {
        let mut held = 0u64;
        for (c, chunk) in chunks.iter().enumerate() {
            let largest = chunk_pages(file, footer_start, chunk, limits).map_err(|what| {
                BoundsError::Chunk {
                    group: g,
                    column: c,
                    what,
                }
            })?;
            held = held.saturating_add(largest);
        }
        if held > limits.group_page_bytes {
            return Err(BoundsError::Group {
                group: g,
                bytes: held,
                limit: limits.group_page_bytes,
            });
        }
    }
    Ok(())
}

/// A column chunk as the footer places it.
#[derive(Debug, Default, Clone, Copy)]
struct Chunk {
    codec: i32,
    data_page_offset: i64,
    dictionary_page_offset: Option<i64>,
    total_compressed_size: i64,
}

impl Chunk {
    /// Where its first page starts, as the decoder takes it.
    fn start(&self) -> i64 {
        match self.dictionary_page_offset {
            Some(d) if d > 0 && d < self.data_page_offset => d,
            _ => self.data_page_offset,
        }
    }
}

/// Walks the page headers of `chunk`, the column chunk of a file whose footer starts at
/// `footer_start`; gives the largest page's uncompressed size, or what is wrong.
fn chunk_pages(
    mut file: &File,
    footer_start: u64,
    chunk: &Chunk,
    limits: Limits,
) -> Result<u64, String> {
    let start = u64::try_from(chunk.start()).map_err(|_| "a negative page offset".to_owned())?;
    let length = u64::try_from(chunk.total_compressed_size)
        .map_err(|_| "a negative compressed size".to_owned())?;
    let end = start
        .checked_add(length)
        .filter(|&end| start >= 4 && end <= footer_start)
        .ok_or_else(|| {
            format!(
                "the column chunk at byte {start} ({length} bytes) is not inside the file's data (bytes 4 to {footer_start})"
            )
        })?;
    let mut at = start;
    let mut largest = 0u64;
    let mut buffer = Vec::new();
    while at < end {
        let left = end - at;
        let mut want = usize::try_from(left).unwrap_or(usize::MAX).min(HEADER_READ);
        let (header, header_len) = loop {
            buffer.clear();
            file.seek(SeekFrom::Start(at)).map_err(|e| e.to_string())?;
            file.take(want as u64)
                .read_to_end(&mut buffer)
                .map_err(|e| e.to_string())?;
            let mut cursor = Cursor::new(&buffer);
            match page_header(&mut cursor) {
                Ok(header) => break (header, cursor.at as u64),
                Err(Malformed::Truncated)
                    if (want as u64) < left && (want as u64) < limits.page_bytes =>
                {
                    want = want
                        .saturating_mul(4)
                        .min(usize::try_from(left).unwrap_or(usize::MAX));
                }
                Err(e) => {
                    return Err(format!("the page header at byte {at} is malformed: {e}"));
                }
            }
        };
        let place = format!("the page at byte {at}");
        let (Ok(compressed), Ok(uncompressed)) = (
            u64::try_from(header.compressed),
            u64::try_from(header.uncompressed),
        ) else {
            return Err(format!("{place} has a negative size"));
        };
        let next = at
            .checked_add(header_len)
            .and_then(|a| a.checked_add(compressed))
            .filter(|&next| next <= end)
            .ok_or_else(|| {
                format!("{place} ({compressed} bytes after its header) runs past its column chunk, which ends at byte {end}")
            })?;
        if uncompressed > limits.page_bytes {
            return Err(format!(
                "{place} claims to decompress to {uncompressed} bytes, more than the {} a page may (`--max-record-bytes` raises it)",
                limits.page_bytes
            ));
        }
        if let Some(most) = expansion(chunk.codec, compressed)
            && uncompressed > most
        {
            return Err(format!(
                "{place} claims to decompress to {uncompressed} bytes, more than its {compressed} compressed bytes can (at most {most})"
            ));
        }
        largest = largest.max(uncompressed);
        at = next;
    }
    Ok(largest)
}

/// The sizes of a page header.
#[derive(Debug, Default)]
struct PageHeader {
    uncompressed: i64,
    compressed: i64,
}

/// Reads a `PageHeader`: `uncompressed_page_size` is field 2, `compressed_page_size` 3.
fn page_header(cursor: &mut Cursor<'_>) -> Result<PageHeader, Malformed> {
    let mut header = PageHeader {
        uncompressed: -1,
        compressed: -1,
    };
    walk_struct(
        cursor,
        0,
        &mut |cursor, field, kind, depth| match (field, kind) {
            (2, I32) => {
                header.uncompressed = cursor.zigzag()?;
                Ok(())
            }
            (3, I32) => {
                header.compressed = cursor.zigzag()?;
                Ok(())
            }
            _ => skip(cursor, kind, depth),
        },
    )?;
    Ok(header)
}

/// The column chunks of each row group of the footer `footer` (a `FileMetaData`), its
/// counts checked; or where (byte of the footer) and what is wrong.
fn footer_chunks(footer: &[u8]) -> Result<Vec<Vec<Chunk>>, (usize, String)> {
    let mut cursor = Cursor::new(footer);
    let mut groups: Vec<Vec<Chunk>> = Vec::new();
    let walked = walk_struct(&mut cursor, 0, &mut |cursor, field, kind, depth| {
        match (field, kind) {
            // schema: list<SchemaElement>
            (2, LIST) => schema(cursor, depth),
            // row_groups: list<RowGroup>
            (4, LIST) => {
                let (n, element) = list_header(cursor)?;
                for _ in 0..n {
                    if element != STRUCT {
                        skip(cursor, element, depth)?;
                        continue;
                    }
                    groups.push(row_group(cursor, depth + 1)?);
                }
                Ok(())
            }
            _ => skip(cursor, kind, depth),
        }
    });
    match walked {
        Ok(()) => Ok(groups),
        Err(e) => Err((cursor.at, e.to_string())),
    }
}

/// Reads the schema list, checking each element's `num_children` (field 5) against the
/// elements after it.
fn schema(cursor: &mut Cursor<'_>, depth: u32) -> Result<(), Malformed> {
    let (n, element) = list_header(cursor)?;
    for i in 0..n {
        if element != STRUCT {
            skip(cursor, element, depth)?;
            continue;
        }
        walk_struct(cursor, depth + 1, &mut |cursor, field, kind, depth| {
            if (field, kind) != (5, I32) {
                return skip(cursor, kind, depth);
            }
            let children = cursor.zigzag()?;
            let after = n - i - 1;
            if u64::try_from(children).map_or(true, |c| c > after) {
                return Err(Malformed::Bad(format!(
                    "schema element {i} claims {children} children, and only {after} elements follow it"
                )));
            }
            Ok(())
        })?;
    }
    Ok(())
}

/// Reads a `RowGroup`: its `columns` (field 1, list<ColumnChunk>).
fn row_group(cursor: &mut Cursor<'_>, depth: u32) -> Result<Vec<Chunk>, Malformed> {
    let mut chunks = Vec::new();
    walk_struct(cursor, depth, &mut |cursor, field, kind, depth| {
        if (field, kind) != (1, LIST) {
            return skip(cursor, kind, depth);
        }
        let (n, element) = list_header(cursor)?;
        for _ in 0..n {
            if element != STRUCT {
                skip(cursor, element, depth)?;
                continue;
            }
            let mut chunk = Chunk::default();
            // ColumnChunk: meta_data is field 3.
            walk_struct(cursor, depth + 1, &mut |cursor, field, kind, depth| {
                if (field, kind) != (3, STRUCT) {
                    return skip(cursor, kind, depth);
                }
                walk_struct(cursor, depth + 1, &mut |cursor, field, kind, depth| {
                    match (field, kind) {
                        (4, I32) => chunk.codec = i32::try_from(cursor.zigzag()?).unwrap_or(-1),
                        (7, I64) => chunk.total_compressed_size = cursor.zigzag()?,
                        (9, I64) => chunk.data_page_offset = cursor.zigzag()?,
                        (11, I64) => chunk.dictionary_page_offset = Some(cursor.zigzag()?),
                        _ => skip(cursor, kind, depth)?,
                    }
                    Ok(())
                })?;
                Ok(())
            })?;
            chunks.push(chunk);
        }
        Ok(())
    })?;
    Ok(chunks)
}

// Thrift compact protocol types.
const BOOL_TRUE: u8 = 1;
const BOOL_FALSE: u8 = 2;
const BYTE: u8 = 3;
const I16: u8 = 4;
const I32: u8 = 5;
const I64: u8 = 6;
const DOUBLE: u8 = 7;
const BINARY: u8 = 8;
const LIST: u8 = 9;
const SET: u8 = 10;
const MAP: u8 = 11;
const STRUCT: u8 = 12;

/// Why bytes are not a well-bounded Thrift value.
#[derive(Debug, thiserror::Error)]
enum Malformed {
    #[error("it ends before its structure does")]
    Truncated,
    #[error("{0}")]
    Bad(String),
}

/// Thrift compact bytes being read.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, at: 0 }
    }

    fn left(&self) -> u64 {
        (self.bytes.len() - self.at) as u64
    }

    fn byte(&mut self) -> Result<u8, Malformed> {
        let b = *self.bytes.get(self.at).ok_or(Malformed::Truncated)?;
        self.at += 1;
        Ok(b)
    }

    fn skip(&mut self, n: u64) -> Result<(), Malformed> {
        if n > self.left() {
            return Err(Malformed::Truncated);
        }
        self.at += usize::try_from(n).map_err(|_| Malformed::Truncated)?;
        Ok(())
    }

    fn varint(&mut self) -> Result<u64, Malformed> {
        let mut value = 0u64;
        for shift in (0..70).step_by(7) {
            let b = self.byte()?;
            value |= u64::from(b & 0x7f).checked_shl(shift).unwrap_or(0);
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(Malformed::Bad("a varint longer than ten bytes".into()))
    }

    fn zigzag(&mut self) -> Result<i64, Malformed> {
        let v = self.varint()?;
        Ok((v >> 1).cast_signed() ^ -(v & 1).cast_signed())
    }
}

/// A field of a struct being walked, given the cursor at its value, its id, its type and the
/// depth it is at; it reads (or skips) the value.
type OnField<'f, 'a> = dyn FnMut(&mut Cursor<'a>, i64, u8, u32) -> Result<(), Malformed> + 'f;

/// Walks a struct's fields, handing each to `on_field`.
fn walk_struct<'a>(
    cursor: &mut Cursor<'a>,
    depth: u32,
    on_field: &mut OnField<'_, 'a>,
) -> Result<(), Malformed> {
    if depth > MAX_DEPTH {
        return Err(Malformed::Bad(format!(
            "structures nested more than {MAX_DEPTH} deep"
        )));
    }
    let mut field = 0i64;
    loop {
        let head = cursor.byte()?;
        if head == 0 {
            return Ok(());
        }
        let kind = head & 0x0f;
        let delta = head >> 4;
        field = if delta == 0 {
            cursor.zigzag()?
        } else {
            field + i64::from(delta)
        };
        if matches!(kind, BOOL_TRUE | BOOL_FALSE) {
            // A boolean field's value is its type.
            continue;
        }
        on_field(cursor, field, kind, depth)?;
    }
}

/// A list's or set's length and element type; the length is at most the bytes left.
fn list_header(cursor: &mut Cursor<'_>) -> Result<(u64, u8), Malformed> {
    let head = cursor.byte()?;
    let mut n = u64::from(head >> 4);
    if n == 15 {
        n = cursor.varint()?;
    }
    if n > cursor.left() {
        return Err(Malformed::Bad(format!(
            "a list of {n} elements in the {} bytes left",
            cursor.left()
        )));
    }
    Ok((n, head & 0x0f))
}

/// Skips a value of type `kind` (a list element's type, where a boolean is one byte).
fn skip(cursor: &mut Cursor<'_>, kind: u8, depth: u32) -> Result<(), Malformed> {
    match kind {
        BOOL_TRUE | BOOL_FALSE | BYTE => cursor.skip(1),
        I16 | I32 | I64 => cursor.varint().map(drop),
        DOUBLE => cursor.skip(8),
        BINARY => {
            let n = cursor.varint()?;
            cursor.skip(n)
        }
        LIST | SET => {
            let (n, element) = list_header(cursor)?;
            nested(depth)?;
            (0..n).try_for_each(|_| skip(cursor, element, depth + 1))
        }
        MAP => {
            let n = cursor.varint()?;
            if n == 0 {
                return Ok(());
            }
            if n.saturating_mul(2) > cursor.left() {
                return Err(Malformed::Bad(format!(
                    "a map of {n} entries in the {} bytes left",
                    cursor.left()
                )));
            }
            let kinds = cursor.byte()?;
            nested(depth)?;
            (0..n).try_for_each(|_| {
                skip(cursor, kinds >> 4, depth + 1)?;
                skip(cursor, kinds & 0x0f, depth + 1)
            })
        }
        STRUCT => walk_struct(cursor, depth + 1, &mut |cursor, _, kind, depth| {
            skip(cursor, kind, depth)
        }),
        other => Err(Malformed::Bad(format!("an unknown value type {other}"))),
    }
}

fn nested(depth: u32) -> Result<(), Malformed> {
    if depth >= MAX_DEPTH {
        return Err(Malformed::Bad(format!(
            "structures nested more than {MAX_DEPTH} deep"
        )));
    }
    Ok(())
}
