//! What every reader yields, and the [`RecordReader`] trait each layout implements.

use std::ops::Range;

use isobench_core::codec::JsonStyle;
use serde_json::Value;

use super::bad_input::BadInput;
use crate::errors::CliError;

/// One item read from an input: a record, or a piece that could not be one.
#[derive(Debug)]
pub struct Item<'a> {
    /// 1-based line (JSON Lines) or element number (JSON array).
    pub line: u64,
    /// The item's text as read (JSON Lines only; empty for array elements).
    pub raw: &'a [u8],
    /// The record, or why there is none.
    pub record: Result<Value, BadInput>,
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
    /// For a JSON array, the style its first bytes show; for Parquet, the style the
    /// file says its records were written in.
    pub array_style: Option<JsonStyle>,
    /// For Parquet, the rows the items are, read into records by the worker that
    /// converts them: every item is one, in order, and none is parsed.
    #[cfg(feature = "parquet")]
    pub arrow: Option<super::arrow_rows::ArrowRows>,
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
    /// The record folder the item was read from (a directory of record folders): named
    /// in its messages and its rejects line in place of the input.
    pub folder: Option<String>,
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

/// How a reader cuts its input into [`Batch`]es for the pipeline.
#[derive(Clone, Copy)]
pub struct Batching<'a> {
    /// The index of the input, for [`Batch::source`].
    pub index: usize,
    /// Bytes of JSON Lines per batch, about.
    pub target: usize,
    /// Empty buffers (that may have room already) for batches of JSON Lines.
    pub fresh: &'a dyn Fn() -> Vec<u8>,
}

impl std::fmt::Debug for Batching<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Batching")
            .field("index", &self.index)
            .field("target", &self.target)
            .finish_non_exhaustive()
    }
}

/// Reads the records of one input laid out one way (JSON Lines, a JSON array, Parquet):
/// item by item, for the commands that look at records one at a time, or in batches, for
/// the conversion pipeline. Items are numbered from 1 by line, element or row.
pub trait RecordReader {
    /// Calls `each` for every item, in order, until `each` returns `false` or the input
    /// ends.
    fn for_each_item(
        &mut self,
        each: &mut dyn FnMut(Item<'_>) -> Result<bool, CliError>,
    ) -> Result<(), CliError>;

    /// Hands the items the window admits to `emit` in batches, in order, until the input
    /// ends, the window is past, or `emit` returns `false`.
    fn read_batches(
        &mut self,
        batching: Batching<'_>,
        window: &mut Window,
        emit: &mut dyn FnMut(Batch) -> bool,
    ) -> Result<(), CliError>;

    /// The number of items, without converting them (for `--shard`).
    fn count_items(&mut self) -> Result<u64, CliError> {
        let mut count = 0u64;
        let batching = Batching {
            index: 0,
            target: super::source::BUFFER,
            fresh: &Vec::new,
        };
        self.read_batches(batching, &mut Window::default(), &mut |batch| {
            count += batch.items.len() as u64;
            true
        })?;
        Ok(count)
    }
}
