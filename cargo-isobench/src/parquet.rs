//! Parquet input and output.
//!
//! **Reading.** A file is read in record batches of [`READ_ROWS`] rows, row group by row
//! group, never whole. Each row becomes a JSON object with the columns in file order:
//! strings, integers, floats, booleans, lists (arrays), structs and maps (objects), nulls;
//! timestamps and dates become ISO 8601 strings and dictionary-encoded columns their values.
//! A column whose field metadata says `isobench.encoding = json` holds JSON text, parsed
//! back into the value it encodes.
//!
//! **Writing.** The columns are declared from the target format's JSON Schema, not inferred
//! from the data: `string` is `Utf8`, `integer` `Int64`, `number` `Float64`, `boolean`
//! `Boolean`, an array of such items a list of them (an all-empty list column is still
//! typed), an object with a closed set of such properties a struct; a union that admits
//! strings (SWE-bench's "string or array" test lists) is a `Utf8` column of the strings,
//! as Hugging Face publishes SWE-bench; anything else (open objects, other unions, `{}`) is a
//! `Utf8` column of compact JSON text, marked as such. A declared column that no record of
//! the file has is not written. Two more columns make the file carry every record exactly,
//! each written only when some record needs it:
//!
//! - `__extra` (JSON text): the properties a record has that the schema does not declare,
//!   and any declared property whose value does not fit its column's type (a string where
//!   the schema says integer, an integer where it says number, ...), verbatim. Nothing is
//!   dropped and no record is rejected for its shape. A value of a union admitting strings
//!   that is not a string (a test list given as an array) is there too, and its column
//!   holds its JSON text, so that readers of the column see what Hugging Face's would.
//! - `__keys` (list of strings): the record's keys in order, written only when they cannot
//!   be told from the columns: a key order other than the schema's, or a property whose
//!   value is `null` (a null cell otherwise means the property is absent).
//!
//! The file's schema metadata holds `isobench.layout = 1`, which tells the reader to apply
//! these two columns (a file without it is read column for column, nulls as `null`),
//! `isobench.json_style`, the JSON style of the records written (so that converting the
//! file back to JSON writes them in that style), and `huggingface`, the columns as Hugging
//! Face `datasets` features.
//!
//! The columns to write are known only once every record is: a file of one row group
//! (up to [`GROUP_ROWS`] rows) is written at the end from memory; a longer one is written
//! row group by row group, with every column, to a spool file, and then copied, row group
//! by row group, without the columns no record had.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Date64Type, Float16Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type,
    Int64Type, TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{
    Array, ArrayRef, BooleanArray, Float64Array, Int64Array, ListArray, OffsetSizeTrait,
    RecordBatch, StringArray, StructArray,
};
use arrow_buffer::{ArrowNativeType, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef, TimeUnit};
use isobench_core::codec::JsonStyle;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReader,
    ParquetRecordBatchReaderBuilder,
};
use parquet::arrow::{ArrowWriter, ProjectionMask};
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use serde_json::{Map, Number, Value};

use crate::errors::CliError;
use crate::input::{BadInput, Batch, RawItem, Window};

/// The four bytes every Parquet file starts (and ends) with.
pub const MAGIC: &[u8; 4] = b"PAR1";
/// Field metadata key marking a column of JSON text.
pub const ENCODING_KEY: &str = "isobench.encoding";
/// Schema metadata key marking a file laid out by this writer.
pub const LAYOUT_KEY: &str = "isobench.layout";
/// Schema metadata key of the JSON style of the records written (`compact`, `spaced`).
pub const STYLE_KEY: &str = "isobench.json_style";
/// Schema metadata key of the columns as Hugging Face `datasets` features.
pub const HF_KEY: &str = "huggingface";
/// The column of undeclared (or ill-typed) properties.
pub const EXTRA_COLUMN: &str = "__extra";
/// The column of key orders, when the columns cannot tell them.
pub const KEYS_COLUMN: &str = "__keys";
/// Rows per record batch read.
pub const READ_ROWS: usize = 256;
/// Rows per row group written.
pub const GROUP_ROWS: usize = 1024;
/// Bytes of JSON input after which a row group is written even if it has fewer rows.
pub const GROUP_BYTES: usize = 32 << 20;
/// Rows per batch handed to the conversion pipeline.
const PIPELINE_ROWS: usize = 64;

/// Whether a path names a Parquet file (`.parquet`, any case).
pub fn is_parquet(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("parquet"))
}

/// The error for Parquet bytes read as JSON.
pub fn looks_like_parquet(source: &str) -> CliError {
    let hint = if source == "-" {
        "Parquet is not read from stdin: save it to a file named `NAME.parquet` and give that to `-i`"
    } else {
        "name the file (or a link to it) `NAME.parquet` so that it is read as Parquet"
    };
    CliError::usage(
        format!("`{source}` looks like a Parquet file (it starts with `PAR1`), not JSON"),
        Some(hint),
    )
}

// ---------------------------------------------------------------------------------------
// Column shapes, from JSON Schema.

/// What a column holds, as the schema declares it.
#[derive(Debug, Clone, PartialEq)]
enum Shape {
    Str,
    Int,
    Float,
    Bool,
    /// A union admitting strings: a string as it is, another value as its JSON text
    /// (`json.dumps` style), the value itself then also kept in `__extra`.
    Text,
    List(Box<Shape>),
    Struct(Vec<(String, Shape)>),
    /// Compact JSON text.
    Json,
}

/// The shape a property's schema declares; `root` resolves local `$ref`s.
fn shape_of(schema: &Value, root: &Value, depth: u32) -> Shape {
    let Some(obj) = schema.as_object() else {
        return Shape::Json;
    };
    if depth > 16 {
        return Shape::Json;
    }
    if let Some(target) = obj.get("$ref").and_then(Value::as_str) {
        return target
            .strip_prefix('#')
            .and_then(|pointer| root.pointer(pointer))
            .map_or(Shape::Json, |t| shape_of(t, root, depth + 1));
    }
    if ["oneOf", "anyOf", "allOf", "not", "if"]
        .iter()
        .any(|k| obj.contains_key(*k))
    {
        return Shape::Json;
    }
    let constants: Option<Vec<&Value>> = match (obj.get("enum"), obj.get("const")) {
        (Some(Value::Array(values)), _) => Some(values.iter().collect()),
        (None, Some(value)) => Some(vec![value]),
        _ => None,
    };
    if let Some(values) = constants {
        let all = |f: fn(&Value) -> bool| !values.is_empty() && values.iter().all(|v| f(v));
        return if all(Value::is_string) {
            Shape::Str
        } else if all(Value::is_i64) {
            Shape::Int
        } else if all(Value::is_boolean) {
            Shape::Bool
        } else {
            Shape::Json
        };
    }
    let types: Vec<&str> = match obj.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .filter(|t| *t != "null")
            .collect(),
        _ => return Shape::Json,
    };
    let kind = match types.as_slice() {
        [kind] => *kind,
        kinds if kinds.contains(&"string") => return Shape::Text,
        _ => return Shape::Json,
    };
    match kind {
        "string" => Shape::Str,
        "integer" => Shape::Int,
        "number" => Shape::Float,
        "boolean" => Shape::Bool,
        "array" if !obj.contains_key("prefixItems") => match obj.get("items") {
            Some(items @ Value::Object(_)) => match shape_of(items, root, depth + 1) {
                Shape::Json => Shape::Json,
                inner => Shape::List(Box::new(inner)),
            },
            _ => Shape::Json,
        },
        "object" => {
            let closed = obj.get("additionalProperties") == Some(&Value::Bool(false))
                && !obj.contains_key("patternProperties");
            let Some(Value::Object(props)) = obj.get("properties") else {
                return Shape::Json;
            };
            if !closed || props.is_empty() {
                return Shape::Json;
            }
            let mut fields = Vec::with_capacity(props.len());
            for (name, prop) in props {
                match shape_of(prop, root, depth + 1) {
                    Shape::Json => return Shape::Json,
                    shape => fields.push((name.clone(), shape)),
                }
            }
            Shape::Struct(fields)
        }
        _ => Shape::Json,
    }
}

impl Shape {
    fn data_type(&self) -> DataType {
        match self {
            Self::Str | Self::Text | Self::Json => DataType::Utf8,
            Self::Int => DataType::Int64,
            Self::Float => DataType::Float64,
            Self::Bool => DataType::Boolean,
            Self::List(inner) => DataType::List(Arc::new(inner.field("item"))),
            Self::Struct(fields) => DataType::Struct(
                fields
                    .iter()
                    .map(|(name, shape)| shape.field(name))
                    .collect(),
            ),
        }
    }

    fn field(&self, name: &str) -> Field {
        let field = Field::new(name, self.data_type(), true);
        if *self == Self::Json {
            field.with_metadata([(ENCODING_KEY.to_owned(), "json".to_owned())].into())
        } else {
            field
        }
    }

    /// Whether `value` (not null) can be stored in this shape and read back unchanged.
    fn fits(&self, value: &Value) -> bool {
        match (self, value) {
            (Self::Json, _)
            | (Self::Str | Self::Text, Value::String(_))
            | (Self::Bool, Value::Bool(_)) => true,
            (Self::Int, Value::Number(n)) => n.is_i64(),
            (Self::Float, Value::Number(n)) => n.is_f64(),
            (Self::List(inner), Value::Array(items)) => {
                items.iter().all(|v| v.is_null() || inner.fits(v))
            }
            (Self::Struct(fields), Value::Object(map)) => {
                map.len() == fields.len()
                    && map
                        .iter()
                        .zip(fields)
                        .all(|((k, v), (name, shape))| k == name && (v.is_null() || shape.fits(v)))
            }
            _ => false,
        }
    }
}

/// The columns a format's records may be written in: the declared ones, then `__extra`
/// and `__keys`.
#[derive(Debug)]
struct Columns {
    declared: Vec<(String, Shape)>,
    /// Every column, written or not.
    all: Vec<(String, Shape)>,
    schema: SchemaRef,
}

impl Columns {
    fn from_schema(json_schema: &Value) -> Result<Self, String> {
        let mut declared = Vec::new();
        if let Some(Value::Object(props)) = json_schema.get("properties") {
            for (name, prop) in props {
                if name == EXTRA_COLUMN || name == KEYS_COLUMN {
                    return Err(format!(
                        "the format declares a property `{name}`, a name the Parquet layout uses for its own column"
                    ));
                }
                declared.push((name.clone(), shape_of(prop, json_schema, 0)));
            }
        }
        let mut all = declared.clone();
        all.push((EXTRA_COLUMN.to_owned(), Shape::Json));
        all.push((KEYS_COLUMN.to_owned(), Shape::List(Box::new(Shape::Str))));
        let schema = Arc::new(Schema::new(
            all.iter()
                .map(|(name, shape)| shape.field(name))
                .collect::<Vec<_>>(),
        ));
        Ok(Self {
            declared,
            all,
            schema,
        })
    }

    /// The schema of the file: the columns `used`, and the file's metadata.
    fn written_schema(&self, used: &[bool], style: JsonStyle) -> SchemaRef {
        let kept = || {
            self.all
                .iter()
                .zip(used)
                .filter(|(_, u)| **u)
                .map(|(c, _)| c)
        };
        let features: Map<String, Value> = kept()
            .map(|(name, shape)| (name.clone(), shape.hf_feature()))
            .collect();
        let huggingface = serde_json::json!({ "info": { "features": features } });
        let style = match style {
            JsonStyle::Compact => "compact",
            JsonStyle::Spaced => "spaced",
        };
        let metadata = [
            (LAYOUT_KEY.to_owned(), "1".to_owned()),
            (STYLE_KEY.to_owned(), style.to_owned()),
            (HF_KEY.to_owned(), huggingface.to_string()),
        ];
        Arc::new(
            Schema::new(
                kept()
                    .map(|(name, shape)| shape.field(name))
                    .collect::<Vec<_>>(),
            )
            .with_metadata(metadata.into()),
        )
    }
}

impl Shape {
    /// The column as a Hugging Face `datasets` feature.
    fn hf_feature(&self) -> Value {
        let value = |dtype: &str| serde_json::json!({"dtype": dtype, "_type": "Value"});
        match self {
            Self::Str | Self::Text | Self::Json => value("string"),
            Self::Int => value("int64"),
            Self::Float => value("float64"),
            Self::Bool => value("bool"),
            // A list of structs is written `[{...}]`: a `Sequence` of a dict would be read
            // as a dict of lists.
            Self::List(inner) if matches!(**inner, Self::Struct(_)) => {
                Value::Array(vec![inner.hf_feature()])
            }
            Self::List(inner) => {
                serde_json::json!({"feature": inner.hf_feature(), "_type": "Sequence"})
            }
            Self::Struct(fields) => Value::Object(
                fields
                    .iter()
                    .map(|(name, shape)| (name.clone(), shape.hf_feature()))
                    .collect(),
            ),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Writing.

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
    /// Where a spool file is made when the records do not fit one row group.
    spool_path: PathBuf,
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
    /// A writer of records following `json_schema` into `file`; `spool_path` is where a
    /// file of more than one row group is first written (a file removed again at once
    /// where the system allows it, else at the end).
    pub fn new(file: File, spool_path: PathBuf, json_schema: &Value) -> io::Result<Self> {
        Ok(Self {
            out: file,
            spool_path,
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
            let file = File::options()
                .read(true)
                .write(true)
                .create_new(true)
                .open(&self.spool_path)?;
            // Open files stay readable once removed (Unix): nothing is left behind, even
            // by a killed run. Elsewhere the file is removed when the writer is dropped.
            #[cfg(unix)]
            std::fs::remove_file(&self.spool_path)?;
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

impl Drop for ParquetWriter {
    fn drop(&mut self) {
        #[cfg(not(unix))]
        if self.spool.is_some() {
            let _ = std::fs::remove_file(&self.spool_path);
        }
    }
}

fn json_text(map: &Map<String, Value>) -> String {
    serde_json::to_string(map).expect("a JSON map serialises")
}

/// The nulls of a column: `None` when there are none.
fn null_buffer(valid: Vec<bool>) -> Option<NullBuffer> {
    valid.iter().any(|v| !v).then(|| NullBuffer::from(valid))
}

/// The arrow array of a column's cells (each fits `shape`, or is absent/null).
fn build_array(shape: &Shape, cells: &[Option<&Value>]) -> Result<ArrayRef, String> {
    let cells = cells.iter().map(|c| c.filter(|v| !v.is_null()));
    Ok(match shape {
        Shape::Str | Shape::Text => Arc::new(
            cells
                .map(|c| c.and_then(Value::as_str))
                .collect::<StringArray>(),
        ),
        Shape::Json => Arc::new(
            cells
                .map(|c| c.map(|v| serde_json::to_string(v).expect("a JSON value serialises")))
                .collect::<StringArray>(),
        ),
        Shape::Int => Arc::new(
            cells
                .map(|c| c.and_then(Value::as_i64))
                .collect::<Int64Array>(),
        ),
        Shape::Float => Arc::new(
            cells
                .map(|c| c.and_then(Value::as_f64))
                .collect::<Float64Array>(),
        ),
        Shape::Bool => Arc::new(
            cells
                .map(|c| c.and_then(Value::as_bool))
                .collect::<BooleanArray>(),
        ),
        Shape::List(inner) => {
            let mut offsets = Vec::with_capacity(cells.len() + 1);
            offsets.push(0i32);
            let mut children: Vec<Option<&Value>> = Vec::new();
            let mut valid = Vec::with_capacity(cells.len());
            for cell in cells {
                if let Some(Value::Array(items)) = cell {
                    children.extend(items.iter().map(Some));
                }
                valid.push(cell.is_some());
                let end = i32::try_from(children.len())
                    .map_err(|_| "a list column holds more than 2^31 items".to_owned())?;
                offsets.push(end);
            }
            let values = build_array(inner, &children)?;
            Arc::new(
                ListArray::try_new(
                    Arc::new(inner.field("item")),
                    OffsetBuffer::new(ScalarBuffer::from(offsets)),
                    values,
                    null_buffer(valid),
                )
                .map_err(|e| e.to_string())?,
            )
        }
        Shape::Struct(fields) => {
            let cells: Vec<Option<&Value>> = cells.collect();
            let mut children = Vec::with_capacity(fields.len());
            for (name, shape) in fields {
                let column: Vec<Option<&Value>> =
                    cells.iter().map(|c| c.and_then(|v| v.get(name))).collect();
                children.push(build_array(shape, &column)?);
            }
            let arrow_fields: Fields = fields.iter().map(|(n, s)| s.field(n)).collect();
            let valid = cells.iter().map(Option::is_some).collect();
            Arc::new(
                StructArray::try_new(arrow_fields, children, null_buffer(valid))
                    .map_err(|e| e.to_string())?,
            )
        }
    })
}

// ---------------------------------------------------------------------------------------
// Reading.

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
    reader: ParquetRecordBatchReader,
    plan: BatchRows,
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

/// The number of rows of a Parquet file, from its footer.
pub fn row_count(path: &Path) -> Result<u64, CliError> {
    let file = File::open(path).map_err(|e| CliError::Read {
        path: path.to_owned(),
        source: e,
    })?;
    let builder =
        ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| read_error(path, e))?;
    u64::try_from(builder.metadata().file_metadata().num_rows())
        .map_err(|_| read_error(path, "negative row count"))
}

impl ParquetRows {
    /// Opens a Parquet file; its columns' types are checked here.
    pub fn open(path: &Path) -> Result<Self, CliError> {
        let file = File::open(path).map_err(|e| CliError::Read {
            path: path.to_owned(),
            source: e,
        })?;
        let builder =
            ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| read_error(path, e))?;
        let rows = u64::try_from(builder.metadata().file_metadata().num_rows()).unwrap_or(0);
        let size = std::fs::metadata(path).map_or(0, |m| m.len());
        let bytes_per_row = size.checked_div(rows).unwrap_or(0);
        let plan = BatchRows::new(builder.schema()).map_err(|(column, kind)| {
            CliError::Record(
                format!(
                    "{}: column `{column}` has type {kind}, which has no JSON equivalent",
                    path.display(),
                ),
                Some("convert that column to a string or number type, or drop it, before reading the file".into()),
            )
        })?;
        let reader = builder
            .with_batch_size(READ_ROWS)
            .build()
            .map_err(|e| read_error(path, e))?;
        Ok(Self {
            path: path.to_owned(),
            reader,
            plan,
            row: 0,
            bytes_per_row,
        })
    }

    /// The next record batch's rows (1-based row number, record or why not), or `None` at
    /// the end of the file.
    pub fn next_rows(&mut self) -> Result<Option<Vec<ReadRow>>, CliError> {
        let Some(batch) = self.reader.next() else {
            return Ok(None);
        };
        let batch = batch
            .map_err(|e| read_error(&self.path, format!("rows from {} on: {e}", self.row + 1)))?;
        let mut rows = Vec::with_capacity(batch.num_rows());
        for i in 0..batch.num_rows() {
            self.row += 1;
            rows.push((self.row, self.plan.row_at(&batch, i).map(Value::Object)));
        }
        Ok(Some(rows))
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
        let bad = |column: &str, message: String| BadInput {
            message: format!("column `{column}`: {message}"),
            value: None,
            hint: None,
        };
        let mut map = Map::new();
        let mut extra = None;
        let mut keys = None;
        for (plan, array) in self.columns.iter().zip(batch.columns()) {
            let mut value = value_at(array.as_ref(), i).map_err(|m| bad(&plan.name, m))?;
            if plan.json
                && let Value::String(text) = &value
            {
                value = serde_json::from_str(text)
                    .map_err(|e| bad(&plan.name, format!("the JSON text does not parse: {e}")))?;
            }
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
                let key = match value_at(m.keys().as_ref(), j)? {
                    Value::String(s) => s,
                    other => other.to_string(),
                };
                map.insert(key, value_at(m.values().as_ref(), j)?);
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

/// Reads a Parquet input in batches for the conversion pipeline, as
/// [`crate::input::read_batches`] does for JSON.
pub fn read_batches(
    path: &Path,
    index: usize,
    window: &mut Window,
    emit: &mut impl FnMut(Batch) -> bool,
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
    while let Some(read) = rows.next_rows()? {
        for (line, record) in read {
            match window.admit() {
                None => {
                    flush_last(batch, emit);
                    return Ok(());
                }
                Some(false) => continue,
                Some(true) => {}
            }
            batch.items.push(RawItem {
                line,
                range: 0..0,
                complete: true,
                parsed: Some(record),
            });
            batch.bytes += rows.bytes_per_row;
            if batch.items.len() >= PIPELINE_ROWS
                && !emit(std::mem::replace(&mut batch, new_batch()))
            {
                return Ok(());
            }
        }
        if window.done() {
            break;
        }
    }
    flush_last(batch, emit);
    Ok(())
}

fn flush_last(batch: Batch, emit: &mut impl FnMut(Batch) -> bool) {
    if !batch.items.is_empty() {
        emit(batch);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn shape(schema: &Value) -> Shape {
        shape_of(schema, schema, 0)
    }

    #[test]
    fn schema_types_become_column_types() {
        assert_eq!(shape(&json!({"type": "string"})), Shape::Str);
        assert_eq!(shape(&json!({"type": ["number", "null"]})), Shape::Float);
        assert_eq!(shape(&json!({"type": "integer"})), Shape::Int);
        assert_eq!(shape(&json!({"type": "boolean"})), Shape::Bool);
        assert_eq!(shape(&json!({"enum": ["a", "b"]})), Shape::Str);
        assert_eq!(
            shape(&json!({"type": "array", "items": {"type": "string"}})),
            Shape::List(Box::new(Shape::Str))
        );
        // A union admitting strings is text, as Hugging Face stores SWE-bench's test lists.
        assert_eq!(
            shape(&json!({"type": ["string", "array"], "items": {"type": "string"}})),
            Shape::Text
        );
        // Other unions, open objects, arrays of anything and `{}` are JSON text.
        for json_text in [
            json!({"type": ["integer", "array"], "items": {"type": "string"}}),
            json!({"oneOf": [{"type": "string"}, {"type": "array"}]}),
            json!({"type": "object"}),
            json!({"type": "object", "properties": {"a": {"type": "string"}}}),
            json!({"type": "array"}),
            json!({}),
        ] {
            assert_eq!(shape(&json_text), Shape::Json, "{json_text}");
        }
    }

    #[test]
    fn canonical_columns_are_typed() {
        let columns = Columns::from_schema(isobench_core::Profile::Lossless.schema()).unwrap();
        let field = |name: &str| columns.schema.field_with_name(name).unwrap().clone();
        let floats = DataType::List(Arc::new(Field::new("item", DataType::Float64, true)));
        assert_eq!(
            field("duration_changes").data_type(),
            &DataType::List(Arc::new(Field::new(
                "item",
                DataType::Struct(
                    vec![
                        Field::new("base", floats.clone(), true),
                        Field::new("head", floats, true),
                    ]
                    .into()
                ),
                true
            )))
        );
        assert_eq!(
            field("efficiency_test").data_type(),
            &DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)))
        );
        assert_eq!(field("human_performance").data_type(), &DataType::Float64);
        let extensions = field("extensions");
        assert_eq!(extensions.data_type(), &DataType::Utf8);
        assert_eq!(
            extensions.metadata().get(ENCODING_KEY).map(String::as_str),
            Some("json")
        );
        assert!(field("repo").metadata().is_empty());
        let names: Vec<&str> = columns
            .schema
            .fields()
            .iter()
            .map(|f| f.name().as_str())
            .collect();
        assert_eq!(names[..2], ["repo", "instance_id"]);
        assert_eq!(names[names.len() - 2..], [EXTRA_COLUMN, KEYS_COLUMN]);
    }

    /// Writes the records with the schema, reads them back.
    fn round_trip(schema: &Value, records: &[Value]) -> Vec<Value> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.parquet");
        let spool = dir.path().join("t.spool");
        let mut writer = ParquetWriter::new(File::create(&path).unwrap(), spool, schema).unwrap();
        for r in records {
            writer.write(r.as_object().unwrap().clone(), 100).unwrap();
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

    #[test]
    fn every_file_of_a_format_has_the_same_schema() {
        let schema = json!({"properties": {"a": {"type": "integer"}, "b": {"type": "array", "items": {"type": "string"}}}});
        let one = Columns::from_schema(&schema).unwrap();
        let other = Columns::from_schema(&schema).unwrap();
        assert_eq!(one.schema, other.schema);
        assert!(
            Columns::from_schema(&json!({"properties": {"__extra": {"type": "string"}}}))
                .unwrap_err()
                .contains("__extra")
        );
    }

    #[test]
    fn parquet_names_are_told_by_extension() {
        assert!(is_parquet(Path::new("a/b.parquet")));
        assert!(is_parquet(Path::new("B.PARQUET")));
        assert!(!is_parquet(Path::new("b.jsonl")));
        assert!(!is_parquet(Path::new("parquet")));
    }
}
