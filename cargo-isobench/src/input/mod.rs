//! Reading records: one [`RecordReader`] per layout, and the functions that open the right
//! one for an input.
//!
//! - `lines`: JSON Lines, one record per line ([`JsonLines`]);
//! - `array`: one JSON array of records ([`JsonArray`]);
//! - [`parquet_file`]: Parquet files ([`ParquetFile`]);
//! - `source`: where the bytes come from, stdin or a file, decompressed (`.gz`, `.zst`)
//!   as a stream under the JSON readers;
//! - [`hf`]: `hf:` inputs, resolved to the files of a dataset in the Hugging Face cache;
//! - `folders`: records that are folders of files, from a directory ([`RecordFolders`]);
//! - `layout`: JSON Lines or an array, by the name or the first byte;
//! - `json`: one record's JSON text, checked, with the values passed through unread;
//! - `items`: what every reader yields ([`Item`], [`Batch`]) and the trait itself.
//!
//! The readers import none of each other, only `items`, `json` and `source`. Memory stays
//! flat: a JSON Lines file is read chunk by chunk, a JSON array element by element, and
//! Parquet a record batch at a time, whatever the input size.

mod array;
#[cfg(feature = "parquet")]
mod arrow_rows;
mod bad_input;
mod error;
mod folders;
pub mod hf;
mod items;
mod json;
mod layout;
mod lines;
#[cfg(feature = "parquet")]
pub mod parquet_file;
mod source;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;

pub use array::JsonArray;
pub use bad_input::BadInput;
pub use error::InputError;
pub use folders::{FolderInputError, RecordFolders, folder_input};
pub use items::{Batch, Batching, Item, RawItem, RecordReader, Window};
pub use json::{
    MAX_DEPTH, Routes, check_record, parse_record, parse_record_holding,
    parse_record_seeing_escapes, style_of,
};
pub use layout::Layout;
pub use lines::{DEFAULT_MAX_RECORD_BYTES, JsonLines, max_record_bytes, set_max_record_bytes};
#[cfg(feature = "parquet")]
pub use parquet_file::ParquetFile;
pub use source::{Compression, Input, open};

use crate::errors::{AreaError, CliError};

/// The reader of an input: record folders for a directory, Parquet by its name, otherwise
/// JSON Lines or a JSON array (by the name, or the first byte), decompressed as the name
/// says.
pub fn reader_for(source: &Input) -> Result<Box<dyn RecordReader>, CliError> {
    if let Input::Folders { path, name_file } = source {
        return Ok(Box::new(RecordFolders::new(
            path.clone(),
            name_file.clone(),
        )));
    }
    if let Input::File(p) = source
        && crate::parquet::is_parquet(p)
    {
        #[cfg(feature = "parquet")]
        return Ok(Box::new(ParquetFile::new(p)));
        #[cfg(not(feature = "parquet"))]
        return Err(crate::parquet::not_built(p));
    }
    let path = PathBuf::from(source.display());
    let read_err = |e| source::read_error(&path, e);
    let reader = open(source).map_err(read_err)?;
    let mut reader = BufReader::with_capacity(source::BUFFER, reader);
    refuse_parquet(&mut reader, source)?;
    let layout = layout::input_layout(source, &mut reader).map_err(read_err)?;
    Ok(match layout {
        Layout::JsonLines => Box::new(JsonLines::new(path, reader)),
        Layout::JsonArray => Box::new(JsonArray::new(path, reader)),
    })
}

/// Opens an input and calls `each` for every item, in order, until `each` returns
/// `false` or the input ends.
pub fn for_each_item(
    source: &Input,
    mut each: impl FnMut(Item<'_>) -> Result<bool, CliError>,
) -> Result<(), CliError> {
    reader_for(source)?.for_each_item(&mut each)
}

/// Reads an input in batches of about `target` bytes (JSONL) and hands each to `emit`, in
/// order, until the input ends, the window is past, or `emit` returns `false`. JSONL
/// batches are read into buffers from `fresh` (empty; they may have room already).
pub fn read_batches(
    source: &Input,
    index: usize,
    target: usize,
    window: &mut Window,
    fresh: &dyn Fn() -> Vec<u8>,
    mut emit: impl FnMut(Batch) -> bool,
) -> Result<(), CliError> {
    let batching = Batching {
        index,
        target,
        fresh,
    };
    reader_for(source)?.read_batches(batching, window, &mut emit)
}

/// Counts the items of an input (non-blank JSONL lines, array elements or Parquet rows)
/// without converting them, for `--shard`.
pub fn count_items(source: &Input) -> Result<u64, CliError> {
    reader_for(source)?.count_items()
}

/// Refuses an input that is not a regular file (after links), naming what it is.
pub fn check_input_file(path: &std::path::Path) -> Result<(), CliError> {
    use std::io::{Error, ErrorKind};
    let what = match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() => return Ok(()),
        Ok(meta) if meta.is_dir() => "is a directory, not a file",
        Ok(_) => {
            "is not a regular file (a named pipe, socket or device): give a file, or pipe the records to `-i -`"
        }
        Err(e) if e.kind() == ErrorKind::NotFound => "no such file",
        Err(source) => {
            return Err(CliError::Read {
                path: path.to_owned(),
                source,
            });
        }
    };
    Err(CliError::Read {
        path: path.to_owned(),
        source: Error::new(ErrorKind::InvalidInput, what),
    })
}

/// Stops at Parquet bytes in an input read as JSON.
fn refuse_parquet(reader: &mut impl BufRead, source: &Input) -> Result<(), CliError> {
    // A read error shows again on the next read, with the path.
    match reader.fill_buf() {
        Ok(head) if head.starts_with(crate::parquet::MAGIC) => {
            Err(ParquetInputError::ReadAsJson(source.display()).into())
        }
        _ => Ok(()),
    }
}

/// A Parquet input read as something it is not.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParquetInputError {
    /// Parquet bytes in an input read as JSON: the input as named (`-` for stdin).
    #[error("`{0}` looks like a Parquet file (it starts with `PAR1`), not JSON")]
    ReadAsJson(String),
}

impl AreaError for ParquetInputError {
    fn hint(&self) -> Option<String> {
        Some(match self {
            Self::ReadAsJson(input) if input == "-" => {
                "Parquet is not read from stdin: save it to a file named `NAME.parquet` and give that to `-i`"
            }
            Self::ReadAsJson(_) => {
                "name the file (or a link to it) `NAME.parquet` so that it is read as Parquet"
            }
        }.to_owned())
    }
}

#[cfg(test)]
mod error_messages {
    use super::*;
    use crate::errors::{CliError, said};

    #[test]
    fn parquet_input_errors_say_what_they_always_said() {
        let errors = vec![
            CliError::from(ParquetInputError::ReadAsJson("-".into())),
            CliError::from(ParquetInputError::ReadAsJson("d.jsonl".into())),
        ];
        insta::assert_snapshot!(said(errors));
    }
}
