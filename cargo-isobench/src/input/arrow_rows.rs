//! Rows of Arrow record batches read into records: how each column's cells become
//! values (strings, numbers, lists, structs, maps, timestamps; JSON text columns parsed
//! back), a file written by this tool's `__extra` and `__keys` applied, and the values a
//! conversion only moves held as their text ([`ArrowRows::reading`]). A panic in the
//! decoders below is the file's read error ([`contain`]).

use std::cell::Cell;
use std::io;
use std::path::Path;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Date64Type, Float16Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type,
    Int64Type, TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, GenericStringArray, OffsetSizeTrait, RecordBatch, StringViewArray};
use arrow_buffer::ArrowNativeType;
use arrow_schema::{DataType, Schema, TimeUnit};
use isobench_core::codec::JsonStyle;
use isobench_core::passthrough::Held;
use serde_json::{Map, Number, Value};

use super::bad_input::BadInput;
use super::json::Routes;
use crate::errors::CliError;
use crate::parquet::{ENCODING_KEY, EXTRA_COLUMN, KEYS_COLUMN, LAYOUT_KEY, STYLE_KEY};

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
    pub(super) style: Option<JsonStyle>,
}

pub(super) fn read_error(path: &Path, message: impl std::fmt::Display) -> CliError {
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
pub(super) fn contain<T>(
    path: &Path,
    read: impl FnOnce() -> Result<T, CliError>,
) -> Result<T, CliError> {
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
    pub(super) fn cells(batch: &RecordBatch) -> Vec<Cells<'_>> {
        batch
            .columns()
            .iter()
            .map(|array| Cells::of(array.as_ref()))
            .collect()
    }

    /// Row `i` of the batch whose column readers are `cells`, as a record.
    pub(super) fn row_of(
        &self,
        cells: &[Cells<'_>],
        i: usize,
    ) -> Result<Map<String, Value>, BadInput> {
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
    pub(super) path: Arc<Path>,
    pub(super) plan: Arc<BatchRows>,
    /// The record batches the rows are in (one, or two when the batch spans their edge).
    pub(super) parts: Vec<RecordBatch>,
    /// Each item's record batch (in `parts`) and row in it, in the batch's order.
    pub(super) rows: Vec<(usize, usize)>,
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
pub(super) enum Cells<'a> {
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
pub(super) fn value_at(array: &dyn Array, i: usize) -> Result<Value, String> {
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
pub(super) fn row_text(batch: &RecordBatch, i: usize) -> String {
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
