//! The Parquet reader. A file is read in record batches of [`READ_ROWS`] rows, row group
//! by row group, never whole. Each row becomes a JSON object with the columns in file
//! order: strings, integers, floats, booleans, lists (arrays), structs and maps (objects),
//! nulls; timestamps and dates become ISO 8601 strings and dictionary-encoded columns their
//! values. A column whose field metadata says `isobench.encoding = json` holds JSON text,
//! parsed back into the value it encodes. A file written by this tool (see
//! [`crate::parquet`]) gets its `__extra` and `__keys` columns applied.
//!
//! Decompressing and decoding run on a thread of their own, one record batch ahead of the
//! thread that turns rows into records: at most two decoded batches are held at a time.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, FieldRef, Schema, SchemaRef};
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReader,
    ParquetRecordBatchReaderBuilder,
};
use serde_json::Value;

use super::bad_input::BadInput;
use super::error::InputError;
use super::items::{Batch, Batching, Item, RawItem, RecordReader, Window};
use crate::errors::CliError;
use crate::parquet::{READ_ROWS, bounds};

pub use super::arrow_rows::{ArrowReading, ArrowRows, BatchRows};
use super::arrow_rows::{contain, read_error, row_text};

/// Rows per batch handed to the conversion pipeline.
const PIPELINE_ROWS: usize = 64;

/// The records of a Parquet file, a row each.
#[derive(Debug)]
pub struct ParquetFile {
    path: PathBuf,
}

impl ParquetFile {
    /// The file at `path` (opened when read).
    pub fn new(path: &Path) -> Self {
        Self {
            path: path.to_owned(),
        }
    }
}

impl RecordReader for ParquetFile {
    fn for_each_item(
        &mut self,
        each: &mut dyn FnMut(Item<'_>) -> Result<bool, CliError>,
    ) -> Result<(), CliError> {
        let mut rows = ParquetRows::open(&self.path)?;
        while let Some(read) = rows.next_rows()? {
            for (line, record) in read {
                if !each(Item {
                    line,
                    raw: b"",
                    record,
                })? {
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    fn read_batches(
        &mut self,
        batching: Batching<'_>,
        window: &mut Window,
        emit: &mut dyn FnMut(Batch) -> bool,
    ) -> Result<(), CliError> {
        read_batches(&self.path, batching.index, window, emit)
    }

    /// From the file's footer.
    fn count_items(&mut self) -> Result<u64, CliError> {
        row_count(&self.path)
    }
}

/// A row read: its 1-based number in the file, and the record or why there is none.
pub type ReadRow = (u64, Result<Value, BadInput>);

/// The rows of a Parquet file, a record batch at a time.
#[derive(Debug)]
pub struct ParquetRows {
    path: PathBuf,
    decoder: Decoder,
    plan: Arc<BatchRows>,
    /// Rows read so far.
    row: u64,
    /// The file's size over its rows: what a row counts for in the progress line.
    bytes_per_row: u64,
}

/// The Parquet file at `path` and its footer, read (with the Arrow schema the file gives).
fn open_footer(path: &Path) -> Result<(File, ArrowReaderMetadata), CliError> {
    let file = File::open(path).map_err(|e| CliError::Read {
        path: path.to_owned(),
        source: e,
    })?;
    let limits = bounds::Limits::for_record_bytes(super::max_record_bytes());
    bounds::check(&file, limits).map_err(|e| read_error(path, e))?;
    let footer = contain(path, || {
        ArrowReaderMetadata::load(&file, ArrowReaderOptions::new()).map_err(|e| read_error(path, e))
    })?;
    Ok((file, footer))
}

/// The footer `footer` with the file's string columns (`Utf8`, `LargeUtf8`) read as
/// string views (`Utf8View`): the decoder then points each string at the decompressed
/// page it is in instead of copying it into the array. Every other column is read as
/// the file gives it. The footer as it is when no column is a string column, or when
/// the decoder does not take the views.
fn reading_views(path: &Path, footer: ArrowReaderMetadata) -> ArrowReaderMetadata {
    let Some(schema) = viewed(footer.schema()) else {
        return footer;
    };
    let options = ArrowReaderOptions::new().with_schema(schema);
    let metadata = Arc::clone(footer.metadata());
    contain(path, || {
        ArrowReaderMetadata::try_new(metadata, options).map_err(|e| read_error(path, e))
    })
    .unwrap_or(footer)
}

/// `schema` with its top-level `Utf8` and `LargeUtf8` columns made `Utf8View` (names,
/// nullability and metadata kept), or `None` when it has none.
fn viewed(schema: &Schema) -> Option<SchemaRef> {
    let strings =
        |field: &FieldRef| matches!(field.data_type(), DataType::Utf8 | DataType::LargeUtf8);
    if !schema.fields().iter().any(strings) {
        return None;
    }
    let fields: Vec<FieldRef> = schema
        .fields()
        .iter()
        .map(|field| {
            if strings(field) {
                Arc::new(field.as_ref().clone().with_data_type(DataType::Utf8View))
            } else {
                Arc::clone(field)
            }
        })
        .collect();
    Some(Arc::new(Schema::new_with_metadata(
        fields,
        schema.metadata().clone(),
    )))
}

/// The number of rows of a Parquet file, from its footer.
pub fn row_count(path: &Path) -> Result<u64, CliError> {
    let (_, footer) = open_footer(path)?;
    u64::try_from(footer.metadata().file_metadata().num_rows())
        .map_err(|_| read_error(path, "negative row count"))
}

impl ParquetRows {
    /// Opens a Parquet file; its columns' types are checked here.
    pub fn open(path: &Path) -> Result<Self, CliError> {
        let (file, footer) = open_footer(path)?;
        let rows = u64::try_from(footer.metadata().file_metadata().num_rows()).unwrap_or(0);
        let size = std::fs::metadata(path).map_or(0, |m| m.len());
        let bytes_per_row = size.checked_div(rows).unwrap_or(0);
        // The columns are judged by the types the file gives them, whatever they are
        // decoded as.
        let plan = BatchRows::new(footer.schema()).map_err(|(column, kind)| {
            InputError::UnreadableColumn {
                path: Some(path.to_owned()),
                column,
                kind,
            }
        })?;
        let footer = reading_views(path, footer);
        let reader = contain(path, || {
            ParquetRecordBatchReaderBuilder::new_with_metadata(file, footer)
                .with_batch_size(READ_ROWS)
                .build()
                .map_err(|e| read_error(path, e))
        })?;
        Ok(Self {
            path: path.to_owned(),
            decoder: Decoder::start(path, reader)?,
            plan: Arc::new(plan),
            row: 0,
            bytes_per_row,
        })
    }

    /// The next record batch's rows (1-based row number, record or why not), or `None` at
    /// the end of the file.
    pub fn next_rows(&mut self) -> Result<Option<Vec<ReadRow>>, CliError> {
        let Some(batch) = self.next_batch()? else {
            return Ok(None);
        };
        let first = self.row - batch.num_rows() as u64 + 1;
        let at: Vec<(u64, usize)> = (0..batch.num_rows())
            .map(|i| (first + i as u64, i))
            .collect();
        self.records(&batch, &at).map(Some)
    }

    /// The next record batch, or `None` at the end of the file; its rows are counted read.
    fn next_batch(&mut self) -> Result<Option<RecordBatch>, CliError> {
        let batch = self.decoder.next(&self.path)?;
        if let Some(batch) = &batch {
            self.row += batch.num_rows() as u64;
        }
        Ok(batch)
    }

    /// The records of the rows `at` (row number, index in `batch`) of `batch`.
    fn records(&self, batch: &RecordBatch, at: &[(u64, usize)]) -> Result<Vec<ReadRow>, CliError> {
        contain(&self.path, || {
            let cells = BatchRows::cells(batch);
            Ok(at
                .iter()
                .map(|&(line, i)| {
                    let record = self.plan.row_of(&cells, i).map_err(|mut bad| {
                        bad.text = Some(row_text(batch, i));
                        bad
                    });
                    (line, record.map(Value::Object))
                })
                .collect())
        })
    }
}

/// What the decoding thread hands on: a record batch, why reading stopped, or the end.
type Decoded = Option<Result<RecordBatch, CliError>>;

/// The thread that decompresses and decodes a file's record batches, one ahead of the
/// reader. Dropping it stops the thread (at its next batch) and waits for it.
#[derive(Debug)]
struct Decoder {
    batches: Option<Receiver<Decoded>>,
    thread: Option<JoinHandle<()>>,
    /// The end or an error was received: nothing more comes.
    over: bool,
}

impl Decoder {
    fn start(path: &Path, reader: ParquetRecordBatchReader) -> Result<Self, CliError> {
        // No slot: the thread decodes the next batch, then waits for the reader to take
        // it, so that one batch is read into records while the next is decoded.
        let (send, batches) = sync_channel(0);
        let owned = path.to_owned();
        let thread = std::thread::Builder::new()
            .name("parquet-decode".into())
            .spawn(move || decode(&owned, reader, &send))
            .map_err(|e| CliError::Read {
                path: path.to_owned(),
                source: e,
            })?;
        Ok(Self {
            batches: Some(batches),
            thread: Some(thread),
            over: false,
        })
    }

    fn next(&mut self, path: &Path) -> Result<Option<RecordBatch>, CliError> {
        if self.over {
            return Ok(None);
        }
        let received = self.batches.as_ref().and_then(|b| b.recv().ok());
        match received {
            Some(Some(Ok(batch))) => Ok(Some(batch)),
            Some(Some(Err(e))) => {
                self.over = true;
                Err(e)
            }
            Some(None) => {
                self.over = true;
                Ok(None)
            }
            None => {
                self.over = true;
                Err(read_error(
                    path,
                    "the decoding thread stopped before the end",
                ))
            }
        }
    }
}

impl Drop for Decoder {
    fn drop(&mut self) {
        // The thread's next send fails once the receiver is gone, and it returns.
        self.batches = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The decoding thread: sends the file's record batches in order, then the end or the
/// error that stopped it (a decoder's panic contained as the file's read error), and
/// returns early when the reader is gone.
fn decode(path: &Path, mut reader: ParquetRecordBatchReader, send: &SyncSender<Decoded>) {
    let mut row = 0u64;
    loop {
        let next = contain(path, || {
            reader
                .next()
                .transpose()
                .map_err(|e| read_error(path, format!("rows from {} on: {e}", row + 1)))
        });
        let message = match next {
            Ok(Some(batch)) => {
                let first = row + 1;
                row += batch.num_rows() as u64;
                match bounds::check_rows(&batch, first, super::max_record_bytes()) {
                    Ok(()) => Some(Ok(batch)),
                    Err(e) => Some(Err(read_error(path, e))),
                }
            }
            Ok(None) => None,
            Err(e) => Some(Err(e)),
        };
        let last = !matches!(message, Some(Ok(_)));
        if send.send(message).is_err() || last {
            return;
        }
    }
}

/// Reads a Parquet input in batches for the conversion pipeline: the rows a batch takes
/// are read into records together, and only the rows the window admits.
fn read_batches(
    path: &Path,
    index: usize,
    window: &mut Window,
    emit: &mut dyn FnMut(Batch) -> bool,
) -> Result<(), CliError> {
    let mut rows = ParquetRows::open(path)?;
    // The style the records had when written, for `--json-style auto`.
    let style = rows.plan.style;
    let new_batch = || Batch {
        source: index,
        array_style: style,
        ..Batch::default()
    };
    let mut batch = new_batch();
    // The rows (number, index in the record batch) the next records are read from.
    let mut at = Vec::with_capacity(PIPELINE_ROWS);
    while let Some(read) = rows.next_batch()? {
        let first = rows.row - read.num_rows() as u64 + 1;
        let mut stop = false;
        for i in 0..read.num_rows() {
            match window.admit() {
                None => {
                    stop = true;
                    break;
                }
                Some(false) => continue,
                Some(true) => at.push((first + i as u64, i)),
            }
            if batch.items.len() + at.len() >= PIPELINE_ROWS {
                take_rows(&rows, &read, &mut at, &mut batch);
                if !emit(std::mem::replace(&mut batch, new_batch())) {
                    return Ok(());
                }
            }
        }
        take_rows(&rows, &read, &mut at, &mut batch);
        if stop {
            flush_last(batch, emit);
            return Ok(());
        }
        if window.done() {
            break;
        }
    }
    flush_last(batch, emit);
    Ok(())
}

/// Adds the rows `at` of `read` to the end of `batch`, as rows its worker reads into
/// records ([`ArrowRows`]), and empties `at`.
fn take_rows(
    rows: &ParquetRows,
    read: &RecordBatch,
    at: &mut Vec<(u64, usize)>,
    batch: &mut Batch,
) {
    if at.is_empty() {
        return;
    }
    let arrow = batch.arrow.get_or_insert_with(|| ArrowRows {
        path: Arc::from(rows.path.as_path()),
        plan: Arc::clone(&rows.plan),
        parts: Vec::with_capacity(1),
        rows: Vec::with_capacity(PIPELINE_ROWS),
    });
    let part = arrow.parts.len();
    arrow.parts.push(read.clone());
    for &(line, i) in at.iter() {
        batch.items.push(RawItem {
            line,
            range: 0..0,
            complete: true,
            parsed: None,
            folder: None,
        });
        arrow.rows.push((part, i));
        batch.bytes += rows.bytes_per_row;
    }
    at.clear();
}

fn flush_last(batch: Batch, emit: &mut dyn FnMut(Batch) -> bool) {
    if !batch.items.is_empty() {
        emit(batch);
    }
}

#[cfg(test)]
mod tests {
    use std::fs::File;

    use serde_json::json;

    use super::*;
    use crate::parquet::ParquetWriter;

    /// Writes the records with the schema, reads them back.
    fn round_trip(schema: &Value, records: &[Value]) -> Vec<Value> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.parquet");
        let spool = dir.path().to_owned();
        let options = crate::parquet::ParquetOptions::default();
        let mut writer =
            ParquetWriter::new(File::create(&path).unwrap(), spool, schema, options).unwrap();
        for r in records {
            writer.write(r.as_object().unwrap().clone()).unwrap();
        }
        writer.finish().unwrap();
        let mut rows = ParquetRows::open(&path).unwrap();
        let mut out = Vec::new();
        while let Some(read) = rows.next_rows().unwrap() {
            out.extend(read.into_iter().map(|(_, r)| r.unwrap()));
        }
        out
    }

    fn keys(v: &Value) -> Vec<&str> {
        v.as_object().unwrap().keys().map(String::as_str).collect()
    }

    #[test]
    fn records_of_any_shape_come_back_exactly() {
        let schema = json!({
            "type": "object",
            "properties": {
                "id": {"type": "string"},
                "n": {"type": "integer"},
                "x": {"type": "number"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "runs": {"type": "array", "items": {
                    "type": "object",
                    "properties": {"base": {"type": "array", "items": {"type": "number"}}},
                    "additionalProperties": false
                }},
                "any": {},
                "tests": {"type": ["string", "array"], "items": {"type": "string"}}
            }
        });
        let records = vec![
            // The plain case: declared keys in the schema's order.
            json!({"id": "a", "n": 1, "x": 0.5, "tags": [], "runs": [{"base": [1.5, null]}]}),
            // Another order, an explicit null, an undeclared key.
            json!({"n": 2, "id": "b", "tags": null, "extra": {"k": [1, "2"]}}),
            // Values that do not fit their columns: a string for an integer, an integer
            // for a number, a list with a number among strings, a struct with another key.
            json!({"id": "c", "n": "3", "x": 2, "tags": ["t", 4], "runs": [{"base": [1.0], "more": 1}]}),
            // A number too large for Int64; nested nulls and JSON text of any shape.
            json!({"id": "d", "n": 18_446_744_073_709_551_615_u64, "tags": ["u", null], "any": [{"b": null, "a": 1}]}),
            json!({}),
            // A union admitting strings, given a string and given a list (before another key).
            json!({"tests": "[\"a\"]", "id": "e"}),
            json!({"id": "f", "tests": ["a", "b"], "n": 6}),
        ];
        let back = round_trip(&schema, &records);
        assert_eq!(back, records);
        // Key order too, nested included.
        for (b, r) in back.iter().zip(&records) {
            assert_eq!(keys(b), keys(r));
            assert_eq!(b.to_string(), r.to_string());
        }
        // The integer stays an integer, the float a float.
        assert!(back[2]["x"].is_u64());
        assert!(back[0]["x"].is_f64());
    }

    /// Generated tables of every kind of column the reader handles by itself or through
    /// [`value_at`], read back through both readers and compared with a plain reading.
    mod generated {
        use std::collections::HashMap;
        use std::sync::Arc;

        use arrow_array::builder::{
            BooleanBuilder, Float64Builder, Int64Builder, LargeStringBuilder, ListBuilder,
            MapBuilder, StringBuilder,
        };
        use arrow_array::{ArrayRef, Int32Array, StringArray, StructArray};
        use arrow_buffer::NullBuffer;
        use arrow_schema::{Field, Fields};
        use parquet::arrow::ArrowWriter;
        use parquet::file::properties::WriterProperties;
        use proptest::prelude::*;
        use serde_json::Map;

        use super::super::*;
        use crate::input::arrow_rows::value_at;
        use crate::input::json::Routes;
        use crate::parquet::ENCODING_KEY;

        #[derive(Debug, Clone)]
        struct Row {
            text: Option<String>,
            large: Option<String>,
            int: Option<i64>,
            float: Option<f64>,
            flag: Option<bool>,
            tags: Option<Vec<Option<String>>>,
            pair: Option<(Option<i32>, Option<String>)>,
            map: Option<Vec<(String, Option<i64>)>>,
            json: Option<String>,
        }

        fn text() -> impl Strategy<Value = String> {
            // Empty, ASCII, accented, astral and escaped characters; strings short enough
            // to sit inside a string view (12 bytes) and longer ones kept in its buffers.
            prop_oneof![
                proptest::string::string_regex("[a-z\u{e9}\u{4e2d}\u{1f600}\"\\\\\n ]{0,6}")
                    .unwrap(),
                proptest::string::string_regex("[a-z\u{e9}\u{1f600}\n ]{10,40}").unwrap(),
            ]
        }

        fn row() -> impl Strategy<Value = Row> {
            let json = prop_oneof![
                Just(r#"{"b":[1,"\u00e9"],"a":null}"#.to_owned()),
                Just("\"x\"".to_owned()),
                Just("12.5".to_owned()),
                Just("not JSON".to_owned()),
            ];
            let float = prop_oneof![4 => any::<f64>().prop_filter("finite", |f| f.is_finite()), 1 => Just(f64::NAN)];
            let key = prop_oneof![
                Just("a".to_owned()),
                Just("b".to_owned()),
                Just("c".to_owned())
            ];
            (
                (
                    proptest::option::of(text()),
                    proptest::option::of(text()),
                    proptest::option::of(any::<i64>()),
                    proptest::option::of(float),
                    proptest::option::of(any::<bool>()),
                ),
                (
                    proptest::option::of(proptest::collection::vec(
                        proptest::option::of(text()),
                        0..3,
                    )),
                    proptest::option::of((
                        proptest::option::of(any::<i32>()),
                        proptest::option::of(text()),
                    )),
                    proptest::option::of(proptest::collection::vec(
                        (key, proptest::option::of(any::<i64>())),
                        0..3,
                    )),
                    proptest::option::of(json),
                ),
            )
                .prop_map(
                    |((text, large, int, float, flag), (tags, pair, map, json))| Row {
                        text,
                        large,
                        int,
                        float,
                        flag,
                        tags,
                        pair,
                        map,
                        json,
                    },
                )
        }

        fn table(rows: &[Row]) -> RecordBatch {
            let mut text = StringBuilder::new();
            let mut large = LargeStringBuilder::new();
            let mut int = Int64Builder::new();
            let mut float = Float64Builder::new();
            let mut flag = BooleanBuilder::new();
            let mut tags = ListBuilder::new(StringBuilder::new());
            let mut map = MapBuilder::new(None, StringBuilder::new(), Int64Builder::new());
            let mut json = StringBuilder::new();
            for r in rows {
                text.append_option(r.text.as_deref());
                large.append_option(r.large.as_deref());
                int.append_option(r.int);
                float.append_option(r.float);
                flag.append_option(r.flag);
                tags.append_option(r.tags.clone());
                match &r.map {
                    Some(entries) => {
                        for (k, v) in entries {
                            map.keys().append_value(k);
                            map.values().append_option(*v);
                        }
                        map.append(true).unwrap();
                    }
                    None => map.append(false).unwrap(),
                }
                json.append_option(r.json.as_deref());
            }
            let pair_fields = Fields::from(vec![
                Field::new("n", DataType::Int32, true),
                Field::new("s", DataType::Utf8, true),
            ]);
            let pair = StructArray::try_new(
                pair_fields.clone(),
                vec![
                    Arc::new(
                        rows.iter()
                            .map(|r| r.pair.as_ref().and_then(|p| p.0))
                            .collect::<Int32Array>(),
                    ) as ArrayRef,
                    Arc::new(
                        rows.iter()
                            .map(|r| r.pair.as_ref().and_then(|p| p.1.clone()))
                            .collect::<StringArray>(),
                    ),
                ],
                Some(
                    rows.iter()
                        .map(|r| r.pair.is_some())
                        .collect::<NullBuffer>(),
                ),
            )
            .unwrap();
            let columns: Vec<ArrayRef> = vec![
                Arc::new(text.finish()),
                Arc::new(large.finish()),
                Arc::new(int.finish()),
                Arc::new(float.finish()),
                Arc::new(flag.finish()),
                Arc::new(tags.finish()),
                Arc::new(pair),
                Arc::new(map.finish()),
                Arc::new(json.finish()),
            ];
            let names = [
                "text", "large", "int", "float", "flag", "tags", "pair", "map", "json",
            ];
            let fields: Vec<Field> = names
                .iter()
                .zip(&columns)
                .map(|(name, c)| {
                    let field = Field::new(*name, c.data_type().clone(), true);
                    if *name == "json" {
                        field.with_metadata(HashMap::from([(
                            ENCODING_KEY.to_owned(),
                            "json".to_owned(),
                        )]))
                    } else {
                        field
                    }
                })
                .collect();
            RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap()
        }

        /// What was read of a row: its number, its record or its error and the row's text.
        type Seen = (u64, Result<Value, (String, Option<String>)>);

        fn seen(line: u64, record: Result<Value, BadInput>) -> Seen {
            (line, record.map_err(|bad| (bad.message, bad.text)))
        }

        /// The rows as a plain reading gives them: a record batch of another size, each
        /// cell through [`value_at`], JSON text parsed from the value read.
        fn reference(path: &Path) -> Vec<Seen> {
            let reader = ParquetRecordBatchReaderBuilder::try_new(File::open(path).unwrap())
                .unwrap()
                .with_batch_size(7)
                .build()
                .unwrap();
            let mut out = Vec::new();
            for batch in reader {
                let batch = batch.unwrap();
                let schema = batch.schema();
                for i in 0..batch.num_rows() {
                    let mut map = Map::new();
                    let mut error = None;
                    for (field, column) in schema.fields().iter().zip(batch.columns()) {
                        let cell = value_at(column.as_ref(), i).and_then(|v| match v {
                            Value::String(t) if field.metadata().contains_key(ENCODING_KEY) => {
                                serde_json::from_str(&t)
                                    .map_err(|e| format!("the JSON text does not parse: {e}"))
                            }
                            v => Ok(v),
                        });
                        match cell {
                            Ok(v) => {
                                map.insert(field.name().clone(), v);
                            }
                            Err(m) => {
                                error = Some(format!("column `{}`: {m}", field.name()));
                                break;
                            }
                        }
                    }
                    let line = out.len() as u64 + 1;
                    out.push((
                        line,
                        match error {
                            None => Ok(Value::Object(map)),
                            Some(m) => Err((m, Some(row_text(&batch, i)))),
                        },
                    ));
                }
            }
            out
        }

        fn streamed(path: &Path) -> Vec<Seen> {
            let mut out = Vec::new();
            ParquetFile::new(path)
                .for_each_item(&mut |item| {
                    out.push(seen(item.line, item.record));
                    Ok(true)
                })
                .unwrap();
            out
        }

        fn batched(path: &Path, mut window: Window) -> Vec<Seen> {
            let mut out = Vec::new();
            let mut sizes = Vec::new();
            read_batches(path, 0, &mut window, &mut |batch| {
                sizes.push(batch.items.len());
                let arrow = batch.arrow.expect("rows of a Parquet file");
                let reading = arrow.reading(Routes::NONE);
                out.extend(
                    batch
                        .items
                        .into_iter()
                        .enumerate()
                        .map(|(k, i)| seen(i.line, reading.whole(k).unwrap())),
                );
                true
            })
            .unwrap();
            // Full batches but the last.
            if let Some((_, full)) = sizes.split_last() {
                assert!(full.iter().all(|&n| n == PIPELINE_ROWS), "{sizes:?}");
            }
            out
        }

        /// The types of the columns of the first record batch [`ParquetRows`] decodes.
        fn decoded_types(path: &Path) -> Vec<DataType> {
            let mut rows = ParquetRows::open(path).unwrap();
            let batch = rows.next_batch().unwrap().expect("a record batch");
            batch
                .columns()
                .iter()
                .map(|c| c.data_type().clone())
                .collect()
        }

        /// The types of `batch`'s columns, its top-level strings as string views.
        fn viewed_types(batch: &RecordBatch) -> Vec<DataType> {
            batch
                .columns()
                .iter()
                .map(|c| match c.data_type() {
                    DataType::Utf8 | DataType::LargeUtf8 => DataType::Utf8View,
                    other => other.clone(),
                })
                .collect()
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(24))]
            #[test]
            fn both_readers_give_the_rows_of_a_plain_reading(
                rows in proptest::collection::vec(row(), 0..700),
                group in 1..400usize,
                page_rows in 1..100usize,
                dictionary in any::<bool>(),
                dictionary_bytes in prop_oneof![Just(64usize), Just(1 << 20)],
                skip in 0..800u64,
                take in proptest::option::of(0..800u64),
            ) {
                let dir = tempfile::tempdir().unwrap();
                let path = dir.path().join("t.parquet");
                // Several row groups and pages; dictionary pages, plain pages, and a
                // dictionary too small for a column's values (its later pages plain).
                let props = WriterProperties::builder()
                    .set_max_row_group_row_count(Some(group))
                    .set_data_page_row_count_limit(page_rows)
                    .set_write_batch_size(page_rows)
                    .set_dictionary_enabled(dictionary)
                    .set_dictionary_page_size_limit(dictionary_bytes)
                    .build();
                let batch = table(&rows);
                let mut writer = ArrowWriter::try_new(File::create(&path).unwrap(), batch.schema(), Some(props)).unwrap();
                writer.write(&batch).unwrap();
                writer.close().unwrap();
                let expected = reference(&path);
                prop_assert_eq!(expected.len(), rows.len());
                if !rows.is_empty() {
                    prop_assert_eq!(decoded_types(&path), viewed_types(&batch));
                }
                prop_assert_eq!(&streamed(&path), &expected);
                prop_assert_eq!(&batched(&path, Window::default()), &expected);
                let skipped = usize::try_from(skip).unwrap().min(expected.len());
                let end = take.map_or(expected.len(), |t| (skipped + usize::try_from(t).unwrap()).min(expected.len()));
                prop_assert_eq!(&batched(&path, Window { skip, take }), &expected[skipped..end]);
            }
        }
    }
}
