//! Parquet: each worker lays its records into rows of the output's columns, and the sink
//! writes the rows of each batch into the file's row groups.

use std::io;

use isobench_core::codec::JsonStyle;
use isobench_core::passthrough::{self, Route};
use serde_json::{Map, Value};

use super::encoder::{Encoder, HeldValues, Sink};
use crate::errors::CliError;
use crate::output::RecordWriter;
use crate::parquet::{ColumnRows, RowsBatch};
use crate::pipeline::paths::FastPaths;

/// Records laid into rows of the Parquet output's columns.
pub(in crate::pipeline) struct ColumnsEncoder {
    /// The rows of the batch being converted.
    pub(in crate::pipeline) rows: ColumnRows,
    /// A record written as text, to be parsed into its row.
    scratch: Vec<u8>,
    /// Records pushed as exported, nothing held, since the rows were last taken.
    pushed: u64,
}

impl ColumnsEncoder {
    /// An encoder laying records into `rows`.
    pub(in crate::pipeline) fn new(rows: ColumnRows) -> Self {
        Self {
            rows,
            scratch: Vec::new(),
            pushed: 0,
        }
    }
}

impl Encoder for ColumnsEncoder {
    type Batch = io::Result<RowsBatch>;

    fn begin(&mut self, _input_bytes: usize) {}

    /// The file's JSON style is that of the first record written that has a key (`{}`
    /// is the same in every style). Its row groups are cut by the rows' bytes in the
    /// arrays built of them.
    fn record(
        &mut self,
        record: Map<String, Value>,
        held: Option<&HeldValues<'_>>,
        style: JsonStyle,
    ) {
        if let Some(held) = held {
            self.lay_holding(&record, held, style);
            return;
        }
        if !record.is_empty() {
            self.rows.note_style(style);
        }
        self.rows.push(record);
        self.pushed += 1;
    }

    fn finish(&mut self) -> io::Result<RowsBatch> {
        self.pushed = 0;
        self.rows.take_rows()
    }

    /// Held texts go into Parquet columns from records written compact (the text JSON
    /// columns hold).
    fn held_style(&self, _style: JsonStyle) -> JsonStyle {
        JsonStyle::Compact
    }

    /// A string a string column takes whole is held as its own bytes and laid as it is.
    fn raw_strings(&self, routes: &[Route<'_>]) -> Option<Vec<bool>> {
        Some(
            routes
                .iter()
                .map(|route| match route.path {
                    [key] => self.rows.lays_string(key),
                    _ => false,
                })
                .collect(),
        )
    }

    fn count_laid(&self, paths: &mut FastPaths) {
        let [direct, parsed, raw] = self.rows.laid();
        paths.laid += direct as u64;
        paths.parsed += parsed as u64;
        paths.pushed += self.pushed;
        paths.raw_cells += raw as u64;
    }
}

impl ColumnsEncoder {
    /// Lays `out`, a record exported with the held texts of `held`, into the rows:
    /// straight into the columns, each held text into its own (a string held as its own
    /// bytes as it is), where each cell can be laid so; else written as JSON Lines would
    /// be, compact, every held text JSON, and parsed from that text.
    fn lay_holding(&mut self, out: &Map<String, Value>, held: &HeldValues<'_>, style: JsonStyle) {
        let values = held.held;
        let as_bytes: Vec<bool> = if values.any_raw() {
            held.holding().map(|i| values.is_raw(i)).collect()
        } else {
            Vec::new()
        };
        let placed = held.placed(out);
        let rows = &mut self.rows;
        if let Some(any) = rows.push_holding(out, &placed, |k| as_bytes.get(k) == Some(&true)) {
            if any {
                rows.note_style(style);
            }
            return;
        }
        let escaped;
        let placed = if as_bytes.contains(&true) {
            let mut json = values.clone();
            json.escape_raw(JsonStyle::Compact);
            escaped = json;
            held.placed_from(out, &escaped)
        } else {
            placed
        };
        let scratch = &mut self.scratch;
        scratch.clear();
        passthrough::write_object_holding(JsonStyle::Compact, scratch, out, &placed);
        if scratch.as_slice() != b"{}" {
            rows.note_style(style);
        }
        rows.push_text(std::str::from_utf8(scratch).expect("the writer writes UTF-8"));
        scratch.clear();
    }
}

/// A Parquet file, written a batch of rows at a time.
pub(in crate::pipeline) struct ColumnsSink {
    writer: RecordWriter,
    /// Empty rows of the output's columns, for each worker's encoder.
    empty: ColumnRows,
}

impl ColumnsSink {
    pub(super) fn new(writer: RecordWriter, empty: ColumnRows) -> Self {
        Self { writer, empty }
    }
}

impl Sink for ColumnsSink {
    type Encoder = ColumnsEncoder;

    fn encoder(&self) -> ColumnsEncoder {
        ColumnsEncoder::new(self.empty.empty_like())
    }

    fn write(&mut self, rows: io::Result<RowsBatch>) -> Result<(), CliError> {
        let rows = rows.map_err(|e| CliError::Write {
            path: self.writer.dest(),
            source: e,
        })?;
        self.writer.write_rows(rows)
    }

    fn finish(self) -> Result<(), CliError> {
        self.writer.finish()
    }
}
