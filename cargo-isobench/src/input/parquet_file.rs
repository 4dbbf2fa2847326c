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

use std::cell::Cell;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Date64Type, Float16Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type,
    Int64Type, TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, GenericStringArray, OffsetSizeTrait, RecordBatch, StringViewArray};
use arrow_buffer::ArrowNativeType;
use arrow_schema::{DataType, FieldRef, Schema, SchemaRef, TimeUnit};
use isobench_core::codec::JsonStyle;
use isobench_core::passthrough::Held;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReader,
    ParquetRecordBatchReaderBuilder,
};
use serde_json::{Map, Number, Value};

use super::items::{BadInput, Batch, Batching, Item, RawItem, RecordReader, Window};
use super::json::Routes;
use crate::errors::CliError;
use crate::parquet::{
    ENCODING_KEY, EXTRA_COLUMN, KEYS_COLUMN, LAYOUT_KEY, READ_ROWS, STYLE_KEY, bounds,
};

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

/// How a column is read.
#[derive(Debug)]
struct ColumnPlan {
    name: String,
    json: bool,
}

/// How the columns of record batches are read back into records.
#[derive(Debug)]
pub struct BatchRows {
    columns: Vec<ColumnPlan>,
    /// Written by this module: apply `__extra` and `__keys`, nulls are absent properties.
    ours: bool,
    /// The JSON style the records were in when written (this module's files only).
    style: Option<JsonStyle>,
}

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

fn read_error(path: &Path, message: impl std::fmt::Display) -> CliError {
    CliError::Read {
        path: path.to_owned(),
        source: io::Error::other(format!("Parquet: {message}")),
    }
}

std::thread_local! {
    /// Whether this thread is inside [`contain`]: a panic there becomes a read error.
    static CONTAINED: Cell<bool> = const { Cell::new(false) };
}

/// Runs `read`, a step of reading the file at `path`, turning a panic below it into that
/// file's read error. The decoders this reader stands on assert on malformed bytes
/// (damaged run lengths, schema metadata that does not decode) instead of returning an
/// error; whatever the bytes, a file read here gives records or a read error.
///
/// Such a panic is not printed; one located in this project's own code still is (it is a
/// bug here, not damaged input), though it ends as the same error.
fn contain<T>(path: &Path, read: impl FnOnce() -> Result<T, CliError>) -> Result<T, CliError> {
    quiet_contained_panics();
    let outer = CONTAINED.replace(true);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(read));
    CONTAINED.set(outer);
    result.unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(read_error(
            path,
            format!("the file is malformed (its decoder failed: {what})"),
        ))
    })
}

/// Once per process: a panic hook that stays silent for panics [`contain`] turns into
/// errors, and hands every other panic to the hook that was there before.
fn quiet_contained_panics() {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        let before = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let ours = info
                .location()
                .is_some_and(|at| at.file().contains("isobench"));
            if ours || !CONTAINED.get() {
                before(info);
            }
        }));
    });
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
            CliError::Record(
                format!(
                    "{}: column `{column}` has type {kind}, which has no JSON equivalent",
                    path.display(),
                ),
                Some("convert that column to a string or number type, or drop it, before reading the file".into()),
            )
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

impl BatchRows {
    /// How to read batches of `schema`; the column (name, type) that has no JSON
    /// equivalent, if one has none.
    pub fn new(schema: &Schema) -> Result<Self, (String, String)> {
        let ours = schema.metadata().get(LAYOUT_KEY).is_some_and(|v| v == "1");
        let style = match schema.metadata().get(STYLE_KEY).map(String::as_str) {
            Some("spaced") => Some(JsonStyle::Spaced),
            Some("compact") => Some(JsonStyle::Compact),
            Some("spaced-ascii") => Some(JsonStyle::SpacedAscii),
            Some("compact-ascii") => Some(JsonStyle::CompactAscii),
            _ => None,
        };
        let mut columns = Vec::with_capacity(schema.fields().len());
        for field in schema.fields() {
            supported(field.data_type()).map_err(|kind| (field.name().clone(), kind))?;
            let json = field
                .metadata()
                .get(ENCODING_KEY)
                .is_some_and(|v| v == "json")
                && matches!(
                    field.data_type(),
                    DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
                );
            columns.push(ColumnPlan {
                name: field.name().clone(),
                json,
            });
        }
        Ok(Self {
            columns,
            ours,
            style,
        })
    }

    /// The JSON style the records were in when written, when the schema says.
    pub fn style(&self) -> Option<JsonStyle> {
        self.style
    }

    /// Row `i` of `batch` as a record.
    pub fn row_at(&self, batch: &RecordBatch, i: usize) -> Result<Map<String, Value>, BadInput> {
        self.row_of(&Self::cells(batch), i)
    }

    /// The readers of `batch`'s columns, chosen once for all its rows.
    fn cells(batch: &RecordBatch) -> Vec<Cells<'_>> {
        batch
            .columns()
            .iter()
            .map(|array| Cells::of(array.as_ref()))
            .collect()
    }

    /// Row `i` of the batch whose column readers are `cells`, as a record.
    fn row_of(&self, cells: &[Cells<'_>], i: usize) -> Result<Map<String, Value>, BadInput> {
        let bad = |column: &str, message: String| BadInput {
            message: format!("column `{column}`: {message}"),
            value: None,
            hint: None,
            text: None,
        };
        let mut map = Map::with_capacity(self.columns.len());
        let mut extra = None;
        let mut keys = None;
        for (plan, cells) in self.columns.iter().zip(cells) {
            let value = plan.value(cells, i)?;
            if self.ours {
                match plan.name.as_str() {
                    EXTRA_COLUMN => {
                        extra = match value {
                            Value::Null => None,
                            Value::Object(m) => Some(m),
                            other => {
                                return Err(bad(
                                    &plan.name,
                                    format!(
                                        "expected a JSON object, found {}",
                                        isobench_core::error::json_type_name(&other)
                                    ),
                                ));
                            }
                        };
                        continue;
                    }
                    KEYS_COLUMN => {
                        keys = match value {
                            Value::Null => None,
                            Value::Array(items) => Some(
                                items
                                    .into_iter()
                                    .map(|k| match k {
                                        Value::String(s) => Ok(s),
                                        _ => Err(bad(&plan.name, "a key is not a string".into())),
                                    })
                                    .collect::<Result<Vec<_>, _>>()?,
                            ),
                            _ => return Err(bad(&plan.name, "expected a list of keys".into())),
                        };
                        continue;
                    }
                    _ if value.is_null() => continue,
                    _ => {}
                }
            }
            map.insert(plan.name.clone(), value);
        }
        if let Some(extra) = extra {
            // An extra standing for a cell's value replaces it where it is.
            map.extend(extra);
        }
        if let Some(keys) = keys {
            let mut ordered = Map::with_capacity(map.len().max(keys.len()));
            for key in keys {
                let value = map.remove(&key).unwrap_or(Value::Null);
                ordered.insert(key, value);
            }
            ordered.extend(map);
            map = ordered;
        }
        Ok(map)
    }
}

impl ColumnPlan {
    /// The value of row `i` of the column whose reader is `cells`.
    fn value(&self, cells: &Cells<'_>, i: usize) -> Result<Value, BadInput> {
        let bad = |message: String| BadInput {
            message: format!("column `{}`: {message}", self.name),
            value: None,
            hint: None,
            text: None,
        };
        if self.json
            && let Some(text) = cells.text(i)
        {
            serde_json::from_str(text)
                .map_err(|e| bad(format!("the JSON text does not parse: {e}")))
        } else {
            cells.value(i).map_err(bad)
        }
    }
}

impl BatchRows {
    /// For each column, the index of the route (of `routes`) whose values it holds, or
    /// `None` when no column's values can be held: a file written by this tool (its
    /// `__extra` and `__keys` may stand for a cell and move the keys), or a column name
    /// given twice (the record keeps one value of the two, at the first one's place).
    /// A column of JSON text is read whole.
    fn holding(&self, routes: Routes<'_>) -> Option<Vec<Option<usize>>> {
        if self.ours || routes.routes.is_empty() {
            return None;
        }
        let repeated = self
            .columns
            .iter()
            .enumerate()
            .any(|(k, c)| self.columns[..k].iter().any(|d| d.name == c.name));
        if repeated {
            return None;
        }
        let holding: Vec<Option<usize>> = self
            .columns
            .iter()
            .map(|c| {
                let index = routes.routes.iter().position(|r| r.key == c.name);
                index.filter(|_| !c.json)
            })
            .collect();
        holding.iter().any(Option::is_some).then_some(holding)
    }

    /// Row `i` of the batch whose column readers are `cells`, as [`Self::row_of`] reads
    /// it, without the values `held` is given: the non-null cells of the string columns
    /// `holding` routes (see [`Self::holding`]), written as JSON text straight from the
    /// column's array, in `routes`'s style. A column routed to a list is held only as
    /// a string holding a JSON-encoded list that passes ([`Held::hold_list_value`]). A
    /// string of a route `raw` names (by index) is held as its own bytes instead
    /// ([`Held::hold_string_raw`]).
    /// `None` when a cell is not read: the row is read whole then, as without holding,
    /// with `held` in any state.
    fn row_holding(
        &self,
        cells: &[Cells<'_>],
        i: usize,
        holding: &[Option<usize>],
        (routes, raw): (Routes<'_>, &[bool]),
        held: &mut Held,
    ) -> Option<Map<String, Value>> {
        let mut map = Map::with_capacity(self.columns.len());
        // Every column of a file not written by this tool is a key of the record, in
        // file order.
        for (position, ((plan, cells), route)) in
            self.columns.iter().zip(cells).zip(holding).enumerate()
        {
            if let Some(index) = *route
                && let Some(text) = cells.text(i)
            {
                let route = routes.routes[index];
                if raw.get(index) == Some(&true) {
                    held.hold_string_raw(index, text, position);
                    continue;
                }
                if !route.list {
                    held.hold_string_value(index, text, routes.style, position);
                    continue;
                }
                if route.encoded && held.hold_list_value(index, text, routes.style, position) {
                    continue;
                }
            }
            map.insert(plan.name.clone(), plan.value(cells, i).ok()?);
        }
        Some(map)
    }
}

/// The rows of decoded record batches a pipeline batch takes, read into records by the
/// worker that converts them rather than by the reading thread: with the values a
/// conversion only moves held as JSON text ([`Self::reading`]), never made into values.
#[derive(Debug, Clone)]
pub struct ArrowRows {
    /// The file the rows are read from: a panic reading them is its read error.
    path: Arc<Path>,
    plan: Arc<BatchRows>,
    /// The record batches the rows are in (one, or two when the batch spans their edge).
    parts: Vec<RecordBatch>,
    /// Each item's record batch (in `parts`) and row in it, in the batch's order.
    rows: Vec<(usize, usize)>,
}

impl ArrowRows {
    /// Every row of `batch` (one of a stream, say), read as `plan` says; `name` is the
    /// input's name in the error a malformed batch gives.
    pub fn of_batch(name: &str, plan: Arc<BatchRows>, batch: RecordBatch) -> Self {
        Self {
            path: Arc::from(Path::new(name)),
            plan,
            rows: (0..batch.num_rows()).map(|i| (0, i)).collect(),
            parts: vec![batch],
        }
    }

    /// Reads the rows of these record batches, for `routes`.
    pub fn reading<'a>(&'a self, routes: Routes<'a>) -> ArrowReading<'a> {
        let cells = self.parts.iter().map(BatchRows::cells).collect();
        ArrowReading {
            rows: self,
            cells,
            holding: self.plan.holding(routes),
            routes,
            raw: Vec::new(),
        }
    }
}

/// The rows of an [`ArrowRows`] being read into records.
pub struct ArrowReading<'a> {
    rows: &'a ArrowRows,
    cells: Vec<Vec<Cells<'a>>>,
    holding: Option<Vec<Option<usize>>>,
    routes: Routes<'a>,
    /// The routes (by index) whose strings are held as their own bytes.
    raw: Vec<bool>,
}

impl std::fmt::Debug for ArrowReading<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArrowReading")
            .field("rows", &self.rows)
            .field("holding", &self.holding)
            .finish_non_exhaustive()
    }
}

impl ArrowReading<'_> {
    /// The same reading, holding the strings of the routes `raw` names (by index) as
    /// their own bytes, not as JSON text ([`Held::hold_string_raw`]): for a writer that
    /// lays them as they are. A route of a list holds no string so.
    #[must_use]
    pub fn holding_raw_strings(mut self, raw: Vec<bool>) -> Self {
        let routes = self.routes.routes;
        self.raw = raw
            .into_iter()
            .zip(routes)
            .map(|(raw, route)| raw && !route.list)
            .collect();
        self
    }

    /// The record of the `k`-th item, with every value in it, or why there is none (the
    /// row's text kept for the rejects file); a panic below is the file's read error, as
    /// on the reading thread ([`contain`]).
    pub fn whole(&self, k: usize) -> Result<Result<Value, BadInput>, CliError> {
        contain(&self.rows.path, || Ok(self.whole_row(k)))
    }

    fn whole_row(&self, k: usize) -> Result<Value, BadInput> {
        let (part, i) = self.rows.rows[k];
        self.rows
            .plan
            .row_of(&self.cells[part], i)
            .map(Value::Object)
            .map_err(|mut bad| {
                bad.text = Some(row_text(&self.rows.parts[part], i));
                bad
            })
    }

    /// The record of the `k`-th item without the values `held` (cleared first) is given,
    /// as [`BatchRows::row_holding`] reads it; read whole when that reads nothing. A
    /// panic below is the file's read error.
    pub fn holding(&self, k: usize, held: &mut Held) -> Result<Result<Value, BadInput>, CliError> {
        held.clear();
        contain(&self.rows.path, || {
            if let Some(holding) = &self.holding {
                let (part, i) = self.rows.rows[k];
                let plan = &self.rows.plan;
                let cells = &self.cells[part];
                let routes = (self.routes, self.raw.as_slice());
                if let Some(map) = plan.row_holding(cells, i, holding, routes, held) {
                    return Ok(Ok(Value::Object(map)));
                }
                held.clear();
            }
            Ok(self.whole_row(k))
        })
    }
}

/// How the cells of one column of a record batch are read: a string column through its
/// concrete array (a string's bytes copied once into the record, no type dispatch and no
/// second UTF-8 check per cell), any other through [`value_at`].
enum Cells<'a> {
    Utf8(&'a GenericStringArray<i32>),
    LargeUtf8(&'a GenericStringArray<i64>),
    Utf8View(&'a StringViewArray),
    Other(&'a dyn Array),
}

impl<'a> Cells<'a> {
    fn of(array: &'a dyn Array) -> Self {
        match array.data_type() {
            DataType::Utf8 => Self::Utf8(array.as_string::<i32>()),
            DataType::LargeUtf8 => Self::LargeUtf8(array.as_string::<i64>()),
            DataType::Utf8View => Self::Utf8View(array.as_string_view()),
            _ => Self::Other(array),
        }
    }

    /// The text of row `i` of a string column; `None` for a null or another type.
    fn text(&self, i: usize) -> Option<&'a str> {
        match self {
            Self::Utf8(a) => a.is_valid(i).then(|| a.value(i)),
            Self::LargeUtf8(a) => a.is_valid(i).then(|| a.value(i)),
            Self::Utf8View(a) => a.is_valid(i).then(|| a.value(i)),
            Self::Other(_) => None,
        }
    }

    /// The JSON value of row `i`.
    fn value(&self, i: usize) -> Result<Value, String> {
        match self {
            Self::Other(array) => value_at(*array, i),
            _ => Ok(self
                .text(i)
                .map_or(Value::Null, |t| Value::String(t.to_owned()))),
        }
    }
}

/// Whether a column type can be read as JSON; its name when not.
fn supported(data_type: &DataType) -> Result<(), String> {
    match data_type {
        DataType::Null
        | DataType::Boolean
        | DataType::Int8
        | DataType::Int16
        | DataType::Int32
        | DataType::Int64
        | DataType::UInt8
        | DataType::UInt16
        | DataType::UInt32
        | DataType::UInt64
        | DataType::Float16
        | DataType::Float32
        | DataType::Float64
        | DataType::Utf8
        | DataType::LargeUtf8
        | DataType::Utf8View
        | DataType::Date32
        | DataType::Date64
        | DataType::Timestamp(..) => Ok(()),
        DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _) => {
            supported(f.data_type())
        }
        DataType::Struct(fields) => fields.iter().try_for_each(|f| supported(f.data_type())),
        DataType::Map(entries, _) => supported(entries.data_type()),
        DataType::Dictionary(_, values) => supported(values),
        other => Err(other.to_string()),
    }
}

/// The JSON value of row `i` of an array (of a type [`supported`] accepts).
fn value_at(array: &dyn Array, i: usize) -> Result<Value, String> {
    if array.is_null(i) {
        return Ok(Value::Null);
    }
    Ok(match array.data_type() {
        DataType::Null => Value::Null,
        DataType::Boolean => Value::Bool(array.as_boolean().value(i)),
        DataType::Int8 => array.as_primitive::<Int8Type>().value(i).into(),
        DataType::Int16 => array.as_primitive::<Int16Type>().value(i).into(),
        DataType::Int32 => array.as_primitive::<Int32Type>().value(i).into(),
        DataType::Int64 => array.as_primitive::<Int64Type>().value(i).into(),
        DataType::UInt8 => array.as_primitive::<UInt8Type>().value(i).into(),
        DataType::UInt16 => array.as_primitive::<UInt16Type>().value(i).into(),
        DataType::UInt32 => array.as_primitive::<UInt32Type>().value(i).into(),
        DataType::UInt64 => array.as_primitive::<UInt64Type>().value(i).into(),
        DataType::Float16 => float(array.as_primitive::<Float16Type>().value(i).to_f64())?,
        // The shortest text of the 32-bit value, not its widened binary value (0.1, not
        // 0.10000000149011612).
        DataType::Float32 => {
            let text = array.as_primitive::<Float32Type>().value(i).to_string();
            float(text.parse::<f64>().map_err(|e| e.to_string())?)?
        }
        DataType::Float64 => float(array.as_primitive::<Float64Type>().value(i))?,
        DataType::Utf8 => Value::String(array.as_string::<i32>().value(i).to_owned()),
        DataType::LargeUtf8 => Value::String(array.as_string::<i64>().value(i).to_owned()),
        DataType::Utf8View => Value::String(array.as_string_view().value(i).to_owned()),
        DataType::Date32 => {
            let days = i64::from(array.as_primitive::<Date32Type>().value(i));
            arrow_array::temporal_conversions::as_datetime::<Date32Type>(days)
                .map(|d| Value::String(d.format("%Y-%m-%d").to_string()))
                .ok_or("a date out of range")?
        }
        DataType::Date64 => {
            let millis = array.as_primitive::<Date64Type>().value(i);
            arrow_array::temporal_conversions::as_datetime::<Date64Type>(millis)
                .map(|d| Value::String(d.format("%Y-%m-%d").to_string()))
                .ok_or("a date out of range")?
        }
        DataType::Timestamp(unit, tz) => {
            use arrow_array::temporal_conversions::as_datetime;
            let at = match unit {
                TimeUnit::Second => as_datetime::<TimestampSecondType>(
                    array.as_primitive::<TimestampSecondType>().value(i),
                ),
                TimeUnit::Millisecond => as_datetime::<TimestampMillisecondType>(
                    array.as_primitive::<TimestampMillisecondType>().value(i),
                ),
                TimeUnit::Microsecond => as_datetime::<TimestampMicrosecondType>(
                    array.as_primitive::<TimestampMicrosecondType>().value(i),
                ),
                TimeUnit::Nanosecond => as_datetime::<TimestampNanosecondType>(
                    array.as_primitive::<TimestampNanosecondType>().value(i),
                ),
            };
            let at = at.ok_or("a timestamp out of range")?;
            // A zoned timestamp is stored in UTC.
            let zone = if tz.is_some() { "Z" } else { "" };
            Value::String(format!("{}{zone}", at.format("%Y-%m-%dT%H:%M:%S%.f")))
        }
        DataType::List(_) => list(array.as_list::<i32>(), i)?,
        DataType::LargeList(_) => list(array.as_list::<i64>(), i)?,
        DataType::FixedSizeList(_, _) => {
            let list = array.as_fixed_size_list();
            let values = list.values();
            let start = list.value_offset(i);
            let len = usize::try_from(list.value_length()).map_err(|e| e.to_string())?;
            let start = usize::try_from(start).map_err(|e| e.to_string())?;
            Value::Array(
                (start..start + len)
                    .map(|j| value_at(values.as_ref(), j))
                    .collect::<Result<_, _>>()?,
            )
        }
        DataType::Struct(fields) => {
            let st = array.as_struct();
            let mut map = Map::with_capacity(fields.len());
            for (field, column) in fields.iter().zip(st.columns()) {
                map.insert(field.name().clone(), value_at(column.as_ref(), i)?);
            }
            Value::Object(map)
        }
        DataType::Map(_, _) => {
            let m = array.as_map();
            let offsets = m.value_offsets();
            let (start, end) = (offsets[i].as_usize(), offsets[i + 1].as_usize());
            let mut map = Map::with_capacity(end - start);
            for j in start..end {
                let key = map_key(m.keys().as_ref(), j)?;
                let value = value_at(m.values().as_ref(), j)?;
                if map.contains_key(&key) {
                    return Err(format!(
                        "the map holds the key `{key}` twice, and reading it would keep only one of the values"
                    ));
                }
                map.insert(key, value);
            }
            Value::Object(map)
        }
        DataType::Dictionary(_, _) => {
            let dict = array.as_any_dictionary();
            let key = value_at(dict.keys(), i)?;
            let index = key
                .as_u64()
                .and_then(|k| usize::try_from(k).ok())
                .filter(|&k| k < dict.values().len())
                .ok_or("a dictionary key is out of range")?;
            value_at(dict.values().as_ref(), index)?
        }
        other => return Err(format!("type {other} has no JSON equivalent")),
    })
}

/// The key of entry `j` of a map's keys, as an object key.
fn map_key(keys: &dyn Array, j: usize) -> Result<String, String> {
    Ok(match value_at(keys, j)? {
        Value::String(s) => s,
        other => other.to_string(),
    })
}

/// Row `i` of `batch` as JSON text, whatever is wrong with it: what the rejects file keeps
/// of a row that is not a record. A map keeps every entry, repeated keys included (as a
/// JSON Lines line with a repeated key is kept as it is); a value with no JSON equivalent
/// is `null`.
fn row_text(batch: &RecordBatch, i: usize) -> String {
    let mut out = String::from("{");
    for (n, (field, column)) in batch
        .schema()
        .fields()
        .iter()
        .zip(batch.columns())
        .enumerate()
    {
        if n > 0 {
            out.push(',');
        }
        out.push_str(&Value::String(field.name().clone()).to_string());
        out.push(':');
        value_text(column.as_ref(), i, &mut out);
    }
    out.push('}');
    out
}

/// Appends the JSON text of row `i` of `array` to `out` (see [`row_text`]).
fn value_text(array: &dyn Array, i: usize, out: &mut String) {
    let items = |values: &dyn Array, range: std::ops::Range<usize>, out: &mut String| {
        out.push('[');
        for (n, j) in range.enumerate() {
            if n > 0 {
                out.push(',');
            }
            value_text(values, j, out);
        }
        out.push(']');
    };
    if array.is_null(i) {
        out.push_str("null");
        return;
    }
    match array.data_type() {
        DataType::List(_) => {
            let list = array.as_list::<i32>();
            let offsets = list.value_offsets();
            let range = offsets[i].as_usize()..offsets[i + 1].as_usize();
            items(list.values().as_ref(), range, out);
        }
        DataType::LargeList(_) => {
            let list = array.as_list::<i64>();
            let offsets = list.value_offsets();
            let range = offsets[i].as_usize()..offsets[i + 1].as_usize();
            items(list.values().as_ref(), range, out);
        }
        DataType::Struct(fields) => {
            let st = array.as_struct();
            out.push('{');
            for (n, (field, column)) in fields.iter().zip(st.columns()).enumerate() {
                if n > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(field.name().clone()).to_string());
                out.push(':');
                value_text(column.as_ref(), i, out);
            }
            out.push('}');
        }
        DataType::Map(_, _) => {
            let m = array.as_map();
            let offsets = m.value_offsets();
            out.push('{');
            for (n, j) in (offsets[i].as_usize()..offsets[i + 1].as_usize()).enumerate() {
                if n > 0 {
                    out.push(',');
                }
                let key = map_key(m.keys().as_ref(), j).unwrap_or_default();
                out.push_str(&Value::String(key).to_string());
                out.push(':');
                value_text(m.values().as_ref(), j, out);
            }
            out.push('}');
        }
        _ => out.push_str(&value_at(array, i).unwrap_or(Value::Null).to_string()),
    }
}

fn float(f: f64) -> Result<Value, String> {
    Number::from_f64(f)
        .map(Value::Number)
        .ok_or_else(|| format!("{f} is not a JSON number"))
}

fn list<O: OffsetSizeTrait>(
    list: &arrow_array::GenericListArray<O>,
    i: usize,
) -> Result<Value, String> {
    let offsets = list.value_offsets();
    let (start, end) = (offsets[i].as_usize(), offsets[i + 1].as_usize());
    let values = list.values();
    Ok(Value::Array(
        (start..end)
            .map(|j| value_at(values.as_ref(), j))
            .collect::<Result<_, _>>()?,
    ))
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
        let compression = crate::parquet::ParquetCompression::default();
        let mut writer =
            ParquetWriter::new(File::create(&path).unwrap(), spool, schema, compression).unwrap();
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

        use super::super::*;

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
