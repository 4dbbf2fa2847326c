//! Writing records as Parquet: rows buffered into row groups of declared columns.

use std::fs::File;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, StringArray};
use arrow_schema::SchemaRef;
use isobench_core::codec::JsonStyle;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
};
use parquet::arrow::{ArrowWriter, ProjectionMask};
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use serde_json::{Map, Value};

use super::layout::{GROUP_BYTES, GROUP_ROWS};
use super::schema::{Columns, Shape, build_array};

/// One buffered row: a cell per declared column, the extra properties, the key order.
#[derive(Debug)]
struct Row {
    cells: Vec<Option<Value>>,
    extra: Option<Map<String, Value>>,
    keys: Option<Vec<String>>,
}

/// Records laid out in the columns of a format's schema (see the module's doc), buffered
/// until taken as a record batch of every column.
#[derive(Debug)]
pub struct ColumnRows {
    columns: Columns,
    /// Whether some record has a value in each of `columns.all`.
    used: Vec<bool>,
    /// The JSON style of the records, once seen.
    style: Option<JsonStyle>,
    rows: Vec<Row>,
    bytes: usize,
}

/// Writes records to a Parquet file, a row group at a time (see the module's doc).
#[derive(Debug)]
pub struct ParquetWriter {
    out: File,
    /// The directory a spool file is made in when the records do not fit one row group.
    spool_dir: PathBuf,
    spool: Option<ArrowWriter<File>>,
    rows: ColumnRows,
}

/// A failure of the Parquet writer, as an I/O error for [`CliError::Write`].
fn write_error(e: impl std::fmt::Display) -> io::Error {
    io::Error::other(format!("Parquet: {e}"))
}

fn writer_properties() -> io::Result<WriterProperties> {
    let level = ZstdLevel::try_new(3).map_err(write_error)?;
    Ok(WriterProperties::builder()
        .set_compression(Compression::ZSTD(level))
        .set_max_row_group_row_count(Some(GROUP_ROWS))
        .build())
}

impl ColumnRows {
    /// Rows of records following `json_schema`.
    pub fn new(json_schema: &Value) -> Result<Self, String> {
        let columns = Columns::from_schema(json_schema)?;
        Ok(Self {
            used: vec![false; columns.all.len()],
            columns,
            style: None,
            rows: Vec::with_capacity(GROUP_ROWS),
            bytes: 0,
        })
    }

    /// Sets the JSON style the records are in, unless one is set already.
    pub fn note_style(&mut self, style: JsonStyle) {
        self.style.get_or_insert(style);
    }

    /// Adds one record; `size` is about how many bytes it takes as JSON.
    pub fn push(&mut self, record: Map<String, Value>, size: usize) {
        let declared = &self.columns.declared;
        let order: Vec<String> = record.keys().cloned().collect();
        let mut cells: Vec<Option<Value>> = vec![None; declared.len()];
        let mut extra = Map::new();
        let mut nulls = false;
        for (key, value) in record {
            match declared.iter().position(|(name, _)| *name == key) {
                Some(_) if value.is_null() => nulls = true,
                Some(i) if declared[i].1.fits(&value) => cells[i] = Some(value),
                Some(i) if declared[i].1 == Shape::Text => {
                    cells[i] = Some(Value::String(JsonStyle::Spaced.to_string(&value)));
                    extra.insert(key, value);
                }
                _ => {
                    extra.insert(key, value);
                }
            }
        }
        // The order the columns give: declared columns holding a value, then the other
        // extras (an extra standing for a cell's value takes the cell's place).
        let in_cells = |key: &String| {
            declared
                .iter()
                .zip(&cells)
                .any(|((name, _), cell)| name == key && cell.is_some())
        };
        let implied = declared
            .iter()
            .zip(&cells)
            .filter(|(_, cell)| cell.is_some())
            .map(|((name, _), _)| name)
            .chain(extra.keys().filter(|k| !in_cells(k)));
        let keys = (nulls || !implied.eq(order.iter())).then_some(order);
        let n = declared.len();
        for (used, cell) in self.used.iter_mut().zip(&cells) {
            *used |= cell.is_some();
        }
        self.used[n] |= !extra.is_empty();
        self.used[n + 1] |= keys.is_some();
        self.rows.push(Row {
            cells,
            extra: (!extra.is_empty()).then_some(extra),
            keys,
        });
        self.bytes += size;
    }

    /// Whether the rows buffered make a row group.
    pub fn group_full(&self) -> bool {
        self.rows.len() >= GROUP_ROWS || self.bytes >= GROUP_BYTES
    }

    /// Whether no row is buffered.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The schema of every column (see [`Self::take_batch`]).
    pub fn full_schema(&self) -> SchemaRef {
        Arc::clone(&self.columns.schema)
    }

    /// The buffered rows as a record batch of every column, declared or not used.
    pub fn take_batch(&mut self) -> io::Result<RecordBatch> {
        let arrays = self.take_arrays()?;
        RecordBatch::try_new(Arc::clone(&self.columns.schema), arrays).map_err(write_error)
    }

    /// The buffered rows as arrays of every column.
    fn take_arrays(&mut self) -> io::Result<Vec<ArrayRef>> {
        let rows = std::mem::take(&mut self.rows);
        self.bytes = 0;
        let mut arrays: Vec<ArrayRef> = Vec::with_capacity(self.columns.all.len());
        for (i, (_, shape)) in self.columns.declared.iter().enumerate() {
            let cells: Vec<Option<&Value>> = rows.iter().map(|r| r.cells[i].as_ref()).collect();
            arrays.push(build_array(shape, &cells).map_err(write_error)?);
        }
        let extra: Vec<Option<String>> = rows
            .iter()
            .map(|r| r.extra.as_ref().map(json_text))
            .collect();
        arrays.push(Arc::new(StringArray::from(extra)));
        let keys: Vec<Option<Value>> = rows
            .iter()
            .map(|r| {
                r.keys
                    .as_ref()
                    .map(|k| Value::Array(k.iter().cloned().map(Value::String).collect()))
            })
            .collect();
        let keys: Vec<Option<&Value>> = keys.iter().map(Option::as_ref).collect();
        arrays.push(build_array(&Shape::List(Box::new(Shape::Str)), &keys).map_err(write_error)?);
        Ok(arrays)
    }

    /// The schema of the records pushed so far, as written: the columns some record has
    /// (a table of empty records still needs one), with the file's metadata; and the
    /// indices of those columns in [`Self::full_schema`]. `all`: every declared column,
    /// used or not (record batches converted apart then share one schema).
    pub fn written_schema(&mut self, any_rows: bool, all: bool) -> (SchemaRef, Vec<usize>) {
        if all {
            self.used.fill(true);
        }
        if any_rows && !self.used.contains(&true) {
            let keys = self.used.len() - 1;
            self.used[keys] = true;
        }
        let schema = self
            .columns
            .written_schema(&self.used, self.style.unwrap_or_default());
        let kept = (0..self.used.len()).filter(|&i| self.used[i]).collect();
        (schema, kept)
    }
}

/// Record batches of a format's records, typed as the Parquet output types them: what
/// [`ParquetWriter`] writes, without the file.
#[derive(Debug)]
pub struct ArrowTable {
    rows: ColumnRows,
    batches: Vec<RecordBatch>,
}

impl ArrowTable {
    /// An empty table of records following `json_schema`.
    pub fn new(json_schema: &Value) -> Result<Self, String> {
        Ok(Self {
            rows: ColumnRows::new(json_schema)?,
            batches: Vec::new(),
        })
    }

    /// Sets the JSON style the records are in, unless one is set already.
    pub fn note_style(&mut self, style: JsonStyle) {
        self.rows.note_style(style);
    }

    /// Adds a record; `size`: about its length as JSON.
    pub fn push(&mut self, record: Map<String, Value>, size: usize) -> io::Result<()> {
        self.rows.push(record, size);
        if self.rows.group_full() {
            let batch = self.rows.take_batch()?;
            self.batches.push(batch);
        }
        Ok(())
    }

    /// The schema and record batches: the columns some record has, or with `all`, every
    /// column, `__extra` and `__keys` included.
    pub fn finish(mut self, all: bool) -> io::Result<(SchemaRef, Vec<RecordBatch>)> {
        if !self.rows.is_empty() {
            let batch = self.rows.take_batch()?;
            self.batches.push(batch);
        }
        let any_rows = !self.batches.is_empty();
        let (schema, kept) = self.rows.written_schema(any_rows, all);
        let batches = self
            .batches
            .into_iter()
            .map(|batch| {
                let columns = kept.iter().map(|&i| Arc::clone(batch.column(i))).collect();
                RecordBatch::try_new(Arc::clone(&schema), columns).map_err(write_error)
            })
            .collect::<io::Result<_>>()?;
        Ok((schema, batches))
    }
}

impl ParquetWriter {
    /// A writer of records following `json_schema` into `file`; a file of more than one
    /// row group is first written to a spool file in `spool_dir` (created exclusively
    /// under an unpredictable name, and removed at once where the system allows it, else
    /// when the writer is dropped).
    pub fn new(file: File, spool_dir: PathBuf, json_schema: &Value) -> io::Result<Self> {
        Ok(Self {
            out: file,
            spool_dir,
            spool: None,
            rows: ColumnRows::new(json_schema).map_err(io::Error::other)?,
        })
    }

    /// Sets the JSON style the records are in, unless one is set already.
    pub fn note_style(&mut self, style: JsonStyle) {
        self.rows.note_style(style);
    }

    /// Writes one record; `size` is about how many bytes it takes as JSON.
    pub fn write(&mut self, record: Map<String, Value>, size: usize) -> io::Result<()> {
        self.rows.push(record, size);
        if self.rows.group_full() {
            self.spool_rows()?;
        }
        Ok(())
    }

    /// Writes the buffered rows, with every column, as one row group of the spool file.
    fn spool_rows(&mut self) -> io::Result<()> {
        if self.rows.is_empty() {
            return Ok(());
        }
        if self.spool.is_none() {
            let file = tempfile::tempfile_in(&self.spool_dir)?;
            let writer =
                ArrowWriter::try_new(file, self.rows.full_schema(), Some(writer_properties()?))
                    .map_err(write_error)?;
            self.spool = Some(writer);
        }
        let batch = self.rows.take_batch()?;
        let spool = self.spool.as_mut().expect("opened above");
        spool.write(&batch).map_err(write_error)?;
        spool.flush().map_err(write_error)
    }

    /// Writes the file, without the columns no record had; the file, to sync.
    pub fn finish(mut self) -> io::Result<File> {
        let any_rows = self.spool.is_some() || !self.rows.is_empty();
        let (schema, kept) = self.rows.written_schema(any_rows, false);
        let out = self.out.try_clone()?;
        let mut writer = ArrowWriter::try_new(out, Arc::clone(&schema), Some(writer_properties()?))
            .map_err(write_error)?;
        match self.spool.take() {
            None if self.rows.is_empty() => {}
            None => {
                let batch = self.rows.take_batch()?;
                let arrays: Vec<ArrayRef> =
                    kept.iter().map(|&i| Arc::clone(batch.column(i))).collect();
                let batch =
                    RecordBatch::try_new(Arc::clone(&schema), arrays).map_err(write_error)?;
                writer.write(&batch).map_err(write_error)?;
            }
            Some(mut spool) => {
                if !self.rows.is_empty() {
                    let batch = self.rows.take_batch()?;
                    spool.write(&batch).map_err(write_error)?;
                }
                let spooled = spool.into_inner().map_err(write_error)?;
                copy_columns(&spooled, &kept, &schema, &mut writer)?;
            }
        }
        writer.into_inner().map_err(write_error)
    }
}

/// Copies the columns `kept` of every row group of the spool file into `writer`, a row
/// group for a row group.
fn copy_columns(
    spool: &File,
    kept: &[usize],
    schema: &SchemaRef,
    writer: &mut ArrowWriter<File>,
) -> io::Result<()> {
    let metadata =
        ArrowReaderMetadata::load(spool, ArrowReaderOptions::default()).map_err(write_error)?;
    let mask = ProjectionMask::roots(metadata.parquet_schema(), kept.iter().copied());
    for group in 0..metadata.metadata().num_row_groups() {
        let reader = ParquetRecordBatchReaderBuilder::new_with_metadata(
            spool.try_clone()?,
            metadata.clone(),
        )
        .with_projection(mask.clone())
        .with_row_groups(vec![group])
        .with_batch_size(GROUP_ROWS)
        .build()
        .map_err(write_error)?;
        for batch in reader {
            let batch = batch.map_err(write_error)?;
            let batch = RecordBatch::try_new(Arc::clone(schema), batch.columns().to_vec())
                .map_err(write_error)?;
            writer.write(&batch).map_err(write_error)?;
        }
        writer.flush().map_err(write_error)?;
    }
    Ok(())
}

fn json_text(map: &Map<String, Value>) -> String {
    serde_json::to_string(map).expect("a JSON map serialises")
}
