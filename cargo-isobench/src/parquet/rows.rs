//! Records laid out in rows of a format's declared columns, buffered until taken as
//! Arrow record batches: what the Parquet writer writes, and what `convert_arrow` gives.

use std::io;
use std::ops::Range;
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, StringArray};
use arrow_schema::SchemaRef;
use isobench_core::codec::JsonStyle;
use isobench_core::passthrough::{self, EntryHolding, Placed};
use serde::Deserialize as _;
use serde_json::{Map, Value};

use super::layout::RowGroups;
use super::row_bytes::{row_bytes, value_bytes};
use super::schema::{Columns, Shape, build_array, laid_array, written_array};
use super::split;

/// A failure of the Parquet writer, as an I/O error for [`crate::errors::CliError::Write`].
pub(super) fn write_error(e: impl std::fmt::Display) -> io::Error {
    io::Error::other(format!("Parquet: {e}"))
}

/// One buffered row: a cell per declared column, the extra properties, the key order.
#[derive(Debug)]
struct Row {
    cells: Vec<Option<Cell>>,
    extra: Option<Map<String, Value>>,
    keys: Option<Vec<String>>,
}

/// A buffered cell.
#[derive(Debug)]
enum Cell {
    /// A value of a column that is neither a string nor a JSON column, as
    /// [`ColumnRows::push`] takes it.
    Value(Value),
    /// The string of a string column's cell, or the compact JSON text of a JSON
    /// column's: laid by [`ColumnRows::push`] from the value ([`write_cell`]), or by
    /// [`lay_cell`] from the record exported and its held texts
    /// ([`ColumnRows::push_holding`]). Its range of the column's own text in
    /// [`ColumnRows::texts`].
    Text(Range<usize>),
}

/// Records laid out in the columns of a format's schema (see the module's doc), buffered
/// until taken as a record batch of every column.
#[derive(Debug)]
pub struct ColumnRows {
    columns: Arc<Columns>,
    /// Whether some record has a value in each of `columns.all`.
    pub(super) used: Vec<bool>,
    /// The JSON style of the records, once seen.
    style: Option<JsonStyle>,
    rows: Vec<Row>,
    /// The buffered rows' sizes as JSON, as given to [`Self::push`]: when
    /// [`Self::group_full`] says a batch of them is full.
    bytes: usize,
    pub(super) limits: RowGroups,
    /// Where each key of the record being pushed goes (kept between records).
    places: Vec<Place>,
    /// Per declared column, the text of the buffered rows' [`Cell::Text`] cells of that
    /// column, one after another in row order and nothing else: the values buffer of the
    /// column's array ([`laid_array`], which checks it is UTF-8 once). Empty for a
    /// column that is neither a string nor a JSON column.
    pub(super) texts: Vec<Vec<u8>>,
    /// How many of the buffered rows [`Self::push_holding`] laid from the record and
    /// its held texts, and [`Self::push_text`] parsed and pushed.
    direct: usize,
    parsed: usize,
    /// How many cells of the buffered rows [`Self::push_holding`] laid from a string's
    /// own bytes.
    raw: usize,
}

/// Where a record's property goes in [`ColumnRows::push`].
#[derive(Debug, Clone, Copy)]
enum Place {
    /// The declared column of this index.
    Cell(usize),
    /// The declared `Text` column of this index, as JSON text, and `__extra`.
    TextAndExtra(usize),
    /// `__extra` only.
    Extra,
    /// Nowhere: a declared property whose value is `null` (said by `__keys`).
    Null,
}

/// Converted rows as record batches of every column, with what a `ParquetWriter`
/// needs to merge them into its file: see [`ColumnRows::take_rows`].
#[derive(Debug)]
pub struct RowsBatch {
    pub(super) batch: RecordBatch,
    /// Which of the columns the rows have a value in.
    pub(super) used: Vec<bool>,
    /// The JSON style the rows' records show, if one did.
    pub(super) style: Option<JsonStyle>,
    /// Each row's bytes in the batch's arrays ([`row_bytes`]): where row groups end.
    pub(super) sizes: Vec<usize>,
}

impl ColumnRows {
    /// Rows of records following `json_schema`.
    pub fn new(json_schema: &Value) -> Result<Self, String> {
        Ok(Self::of(Arc::new(Columns::from_schema(json_schema)?)))
    }

    fn of(columns: Arc<Columns>) -> Self {
        Self {
            used: vec![false; columns.all.len()],
            texts: vec![Vec::new(); columns.declared.len()],
            columns,
            style: None,
            rows: Vec::new(),
            bytes: 0,
            limits: RowGroups::default(),
            places: Vec::new(),
            direct: 0,
            parsed: 0,
            raw: 0,
        }
    }

    /// Empty rows of the same columns, whose batches are full at the same size.
    #[must_use]
    pub fn empty_like(&self) -> Self {
        Self {
            limits: self.limits,
            ..Self::of(Arc::clone(&self.columns))
        }
    }

    /// Sets the JSON style the records are in, unless one is set already.
    pub fn note_style(&mut self, style: JsonStyle) {
        self.style.get_or_insert(style);
    }

    /// Adds one record. [`Self::group_full`] counts it by [`value_bytes`] (row groups of
    /// a file are cut by the rows' bytes in their arrays: see
    /// `ParquetWriter::write_batch`).
    pub fn push(&mut self, record: Map<String, Value>) {
        self.bytes += record.values().map(value_bytes).sum::<usize>();
        let columns = &*self.columns;
        let declared = &columns.declared;
        // Where each property goes, and whether the columns tell the key order: declared
        // columns holding a value in their order, then the other extras (an extra
        // standing for a cell's value takes the cell's place).
        self.places.clear();
        let (mut nulls, mut in_order) = (false, true);
        let (mut last_cell, mut past_cells) = (None, false);
        for (key, value) in &record {
            let place = match columns.index.get(key.as_str()) {
                Some(_) if value.is_null() => Place::Null,
                Some(&i) if declared[i].1.fits(value) => Place::Cell(i),
                Some(&i) if declared[i].1 == Shape::Text => Place::TextAndExtra(i),
                _ => Place::Extra,
            };
            match place {
                Place::Cell(i) | Place::TextAndExtra(i) => {
                    in_order &= !past_cells && last_cell.is_none_or(|last| last < i);
                    last_cell = Some(i);
                }
                Place::Extra => past_cells = true,
                Place::Null => nulls = true,
            }
            self.places.push(place);
        }
        let keys = (nulls || !in_order).then(|| record.keys().cloned().collect());
        let mut cells: Vec<Option<Cell>> = (0..declared.len()).map(|_| None).collect();
        let mut extra = Map::new();
        let texts = &mut self.texts;
        for ((key, value), place) in record.into_iter().zip(&self.places) {
            match *place {
                Place::Cell(i) => {
                    let shape = &declared[i].1;
                    cells[i] = Some(if shape.holds_text() {
                        text_cell(&mut texts[i], |out| write_cell(shape, &value, out))
                    } else {
                        Cell::Value(value)
                    });
                }
                Place::TextAndExtra(i) => {
                    cells[i] = Some(text_cell(&mut texts[i], |out| {
                        JsonStyle::Spaced.write_value(out, &value);
                    }));
                    extra.insert(key, value);
                }
                Place::Extra => {
                    extra.insert(key, value);
                }
                Place::Null => {}
            }
        }
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
    }

    /// Adds one record given as its JSON text, as this tool writes it: parsed, and the
    /// same row as [`Self::push`] of the record the text holds. For a record with held
    /// texts that [`Self::push_holding`] does not lay.
    pub fn push_text(&mut self, text: &str) {
        // Without the parser's depth limit: an input record may nest as deep as the
        // reader allows, and the export nests some of its values one level deeper.
        let mut parser = serde_json::Deserializer::from_str(text);
        parser.disable_recursion_limit();
        let record = Map::deserialize(&mut parser).expect("the writer writes JSON objects");
        self.push(record);
        self.parsed += 1;
    }

    /// Adds one record exported with held texts, the same row as [`Self::push_text`] of
    /// the text [`passthrough::write_object_holding`] writes of `record` and `held` in
    /// the compact style, without writing it: each entry, in the order that text has them, is laid
    /// straight into its column by [`lay_cell`], a held string unescaped from its text
    /// and a value of the record (with the held texts inside it, for a JSON column)
    /// written into the column. `raw` tells which texts of `held` (by index) are a
    /// string's own bytes rather than its JSON text ([`Held::hold_string_raw`]): each
    /// such one goes as it is into a string column ([`Self::lays_string`]). `None`, with
    /// nothing changed, where a cell would not be laid so (a key undeclared or out of
    /// column order, a `null`, a value of another type than its column's) or a string's
    /// own bytes are for another column: push the text then, with every held text JSON.
    /// Else whether the record written has an entry.
    ///
    /// [`Held::hold_string_raw`]: isobench_core::passthrough::Held::hold_string_raw
    pub fn push_holding(
        &mut self,
        record: &Map<String, Value>,
        held: &[Placed<'_>],
        raw: impl Fn(usize) -> bool,
    ) -> Option<bool> {
        let (mut entries, mut raws) = (0, 0);
        let bytes = self.lay(|each| {
            passthrough::each_entry_holding(record, held, |key, entry| {
                entries += 1;
                match entry {
                    EntryHolding::Held(i, text) if raw(i) => {
                        raws += 1;
                        each(key, Laid::Raw(text))
                    }
                    EntryHolding::Held(_, text) => each(key, Laid::Token(text)),
                    EntryHolding::Value(value, inner) => each(key, Laid::Value(value, &inner)),
                }
            })
        })?;
        self.bytes += bytes;
        self.direct += 1;
        self.raw += raws;
        Some(entries > 0)
    }

    /// Whether the record key `key` has a string column, into which [`Self::push_holding`]
    /// lays a string given as its own bytes.
    pub fn lays_string(&self, key: &str) -> bool {
        let columns = &*self.columns;
        columns
            .index
            .get(key)
            .is_some_and(|&i| matches!(columns.declared[i].1, Shape::Str | Shape::Text))
    }

    /// Lays a row whose entries `walk` gives to the closure it is handed, in order, each
    /// cell by [`lay_cell`] into its column's text; the bytes of the cells laid. `None`,
    /// with nothing changed, when `walk` gives `None` or a key is undeclared or out of
    /// column order, or [`lay_cell`] does not lay a cell.
    fn lay(
        &mut self,
        walk: impl FnOnce(&mut dyn FnMut(&str, Laid<'_>) -> Option<()>) -> Option<()>,
    ) -> Option<usize> {
        let (columns, texts) = (&*self.columns, &mut self.texts);
        let declared = &columns.declared;
        let mut cells: Vec<Option<Cell>> = (0..declared.len()).map(|_| None).collect();
        let mut last = None;
        let laid = walk(&mut |key, laid| {
            let &i = columns.index.get(key)?;
            if last.is_some_and(|last| last >= i) {
                return None;
            }
            last = Some(i);
            let text = &mut texts[i];
            let start = text.len();
            if lay_cell(&declared[i].1, laid, text).is_none() {
                text.truncate(start);
                return None;
            }
            cells[i] = Some(Cell::Text(start..text.len()));
            Some(())
        });
        let mut bytes = 0;
        for (text, cell) in texts.iter_mut().zip(&cells) {
            if let Some(Cell::Text(range)) = cell {
                bytes += range.len();
                if laid.is_none() {
                    text.truncate(range.start);
                }
            }
        }
        laid?;
        for (used, cell) in self.used.iter_mut().zip(&cells) {
            *used |= cell.is_some();
        }
        self.rows.push(Row {
            cells,
            extra: None,
            keys: None,
        });
        Some(bytes)
    }

    /// How many of the rows buffered since the last [`Self::take_rows`] were laid from
    /// their record and held texts ([`Self::push_holding`]), and parsed from their text
    /// and pushed ([`Self::push_text`]); and how many of their cells
    /// [`Self::push_holding`] laid from a string's own bytes.
    pub fn laid(&self) -> [usize; 3] {
        [self.direct, self.parsed, self.raw]
    }

    /// The buffered rows as a record batch of every column, with the columns they use,
    /// their JSON style and their bytes in the batch, for `ParquetWriter::write_batch`;
    /// the rows start afresh (no column used, no style).
    pub fn take_rows(&mut self) -> io::Result<RowsBatch> {
        (self.direct, self.parsed, self.raw) = (0, 0, 0);
        let batch = self.take_batch()?;
        let sizes = row_bytes(&batch);
        Ok(RowsBatch {
            batch,
            used: std::mem::replace(&mut self.used, vec![false; self.columns.all.len()]),
            style: self.style.take(),
            sizes,
        })
    }

    /// Whether the rows buffered make a batch: a row group's rows, or its bytes by the
    /// sizes given to [`Self::push`] ([`RowGroups`]).
    pub fn group_full(&self) -> bool {
        self.limits.full(self.rows.len(), self.bytes)
    }

    /// Whether no row is buffered.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// How many rows are buffered.
    pub(super) fn len(&self) -> usize {
        self.rows.len()
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
        self.rows.reserve(rows.len());
        self.bytes = 0;
        let mut arrays: Vec<ArrayRef> = Vec::with_capacity(self.columns.all.len());
        for (i, (_, shape)) in self.columns.declared.iter().enumerate() {
            if shape.holds_text() {
                let text = std::mem::take(&mut self.texts[i]);
                // The next batch's text starts with room for this one's: grown from
                // nothing, it would be copied at every doubling (its pages are touched
                // only as it fills).
                self.texts[i].reserve(text.len());
                arrays.push(Arc::new(laid_column(&rows, i, text).map_err(write_error)?));
                continue;
            }
            let cells: Vec<Option<&Value>> = rows
                .iter()
                .map(|r| match &r.cells[i] {
                    Some(Cell::Value(value)) => Some(value),
                    _ => None,
                })
                .collect();
            arrays.push(build_array(shape, &cells).map_err(write_error)?);
        }
        let extra = written_array(rows.iter().map(|r| r.extra.as_ref()), |out, map| {
            JsonStyle::Compact.write_object(out, map);
        })
        .map_err(write_error)?;
        arrays.push(Arc::new(extra));
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
/// `ParquetWriter` writes, without the file.
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

    /// Adds a record.
    pub fn push(&mut self, record: Map<String, Value>) -> io::Result<()> {
        self.rows.push(record);
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

/// What a cell is laid from ([`lay_cell`]).
#[derive(Clone, Copy)]
enum Laid<'a> {
    /// The compact JSON text of the value (a held text is the text the writer writes),
    /// UTF-8.
    Token(&'a [u8]),
    /// The value, with held texts to place inside it (their paths from it down).
    Value(&'a Value, &'a [Placed<'a>]),
    /// A string's own bytes (UTF-8), for a string column only.
    Raw(&'a [u8]),
}

/// Appends the cell of a column of `shape` for a value given as `laid` to `out`, the
/// column's text: a string column's string, unescaped from its token; a JSON column's
/// compact JSON text (the text the record's compact text holds, held texts placed in
/// it); a string given as its own bytes, as they are into a string column. `None`, with
/// `out` then holding a part of it, for a value the column does not take so (not a
/// string for a string column, `null` for a JSON column, any column of another shape).
/// The one writer of the cells of [`ColumnRows::push_holding`].
fn lay_cell(shape: &Shape, laid: Laid<'_>, out: &mut Vec<u8>) -> Option<()> {
    match (shape, laid) {
        (Shape::Str | Shape::Text, Laid::Token(token)) => split::unescape_into(token, out),
        (Shape::Str | Shape::Text, Laid::Value(Value::String(text), _)) => {
            out.extend_from_slice(text.as_bytes());
            Some(())
        }
        (Shape::Str | Shape::Text, Laid::Raw(text)) => {
            out.extend_from_slice(text);
            Some(())
        }
        (Shape::Json, Laid::Token(token)) if token != b"null" => {
            out.extend_from_slice(token);
            Some(())
        }
        (Shape::Json, Laid::Value(value, inner)) if !value.is_null() => {
            passthrough::write_value_holding(JsonStyle::Compact, out, value, inner);
            Some(())
        }
        _ => None,
    }
}

/// The array of the `i`-th column of `rows`, a string or JSON column, whose cells are
/// all laid ([`Cell::Text`]) in `text`, the column's text: `text` is its values buffer.
fn laid_column(rows: &[Row], i: usize, text: Vec<u8>) -> Result<StringArray, String> {
    let ends = rows.iter().map(|row| match &row.cells[i] {
        Some(Cell::Text(range)) => Some(range.end),
        _ => None,
    });
    laid_array(text, ends)
}

/// A [`Cell::Text`] of the text `write` appends to `text`, a column's text.
fn text_cell(text: &mut Vec<u8>, write: impl FnOnce(&mut Vec<u8>)) -> Cell {
    let start = text.len();
    write(text);
    Cell::Text(start..text.len())
}

/// Appends the cell of a string or JSON column of `shape` holding `value`, which fits
/// the column and is not `null`, to `out`: a string column's string as it is, a JSON
/// column's value as its compact JSON text. What [`build_array`] makes of the value.
fn write_cell(shape: &Shape, value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::String(text) if *shape != Shape::Json => out.extend_from_slice(text.as_bytes()),
        value => JsonStyle::Compact.write_value(out, value),
    }
}

#[cfg(test)]
mod laid_columns {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    /// A string, a number, a union admitting strings, a JSON column and another
    /// string, in this column order.
    fn schema() -> Value {
        json!({"type": "object", "properties": {
            "s": {"type": "string"},
            "n": {"type": "integer"},
            "t": {"type": ["string", "integer"]},
            "j": {"type": "object"},
            "u": {"type": "string"}
        }})
    }

    /// Strings rich in what JSON escapes, empty ones, and characters beyond ASCII
    /// and beyond the BMP.
    fn text() -> impl Strategy<Value = String> {
        "[a \"\\\\/\n\t\u{1}\u{1f}\u{7f}\u{80}é中\u{1F600}]{0,10}"
    }

    /// JSON values of every kind but floats, nested.
    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            Just(json!(0.25)),
            text().prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::vec((text(), inner), 0..4)
                    .prop_map(|entries| Value::Object(entries.into_iter().collect())),
            ]
        })
    }

    /// A string or `null`.
    fn string_or_null() -> impl Strategy<Value = Value> {
        prop_oneof![4 => text().prop_map(Value::String), 1 => Just(Value::Null)]
    }

    /// How an entry of a string or JSON column is given to `push_holding`: in the
    /// record; held as its JSON text (`json.dumps`'s, escaping all beyond ASCII, for
    /// a string); held as a string's own bytes.
    #[derive(Debug, Clone, Copy)]
    enum Given {
        InRecord,
        Token,
        AsciiToken,
        Raw,
    }

    fn given() -> impl Strategy<Value = Given> {
        prop_oneof![
            Just(Given::InRecord),
            Just(Given::Token),
            Just(Given::AsciiToken),
            Just(Given::Raw),
        ]
    }

    /// A record of [`schema`]'s columns (each may be absent), sometimes with an
    /// undeclared key last, and how each entry is given.
    fn record() -> impl Strategy<Value = (Map<String, Value>, Vec<Given>)> {
        let entries = (
            prop::option::of(string_or_null()),
            prop::option::of(any::<i64>().prop_map(Value::from)),
            prop::option::of(prop_oneof![text().prop_map(Value::String), value()]),
            prop::option::of(value()),
            prop::option::of(string_or_null()),
            prop::option::of(value()),
        );
        let given = prop::collection::vec(given(), 6);
        (entries, given).prop_map(|((s, n, t, j, u, x), given)| {
            let keys = ["s", "n", "t", "j", "u", "x"];
            let record = keys
                .into_iter()
                .zip([s, n, t, j, u, x])
                .filter_map(|(key, value)| Some((key.to_owned(), value?)))
                .collect();
            (record, given)
        })
    }

    /// `record` pushed as the pipeline pushes a record with held texts: its entries
    /// of string and JSON columns given as `given` says, by `push_holding`, or its
    /// whole text when that does not lay it.
    fn push_held(rows: &mut ColumnRows, record: &Map<String, Value>, given: &[Given]) {
        let mut kept = Map::new();
        let mut held: Vec<(Vec<String>, usize, Vec<u8>, bool)> = Vec::new();
        for (at, ((key, value), given)) in record.iter().zip(given).enumerate() {
            let text_column = ["s", "t", "j", "u"].contains(&key.as_str());
            let held_text = match (*given, value) {
                _ if !text_column => None,
                (Given::InRecord, _) => None,
                (Given::Raw, Value::String(text)) if key != "j" => {
                    Some((text.as_bytes().to_vec(), true))
                }
                (Given::AsciiToken, Value::String(_)) if key != "j" => {
                    Some((JsonStyle::CompactAscii.to_string(value).into_bytes(), false))
                }
                _ => Some((serde_json::to_vec(value).unwrap(), false)),
            };
            match held_text {
                Some((text, raw)) => held.push((vec![key.clone()], at, text, raw)),
                None => {
                    kept.insert(key.clone(), value.clone());
                }
            }
        }
        let placed: Vec<Placed<'_>> = held
            .iter()
            .map(|(path, at, text, _)| Placed {
                path,
                at: *at,
                text,
            })
            .collect();
        if rows.push_holding(&kept, &placed, |i| held[i].3).is_none() {
            rows.push_text(&serde_json::to_string(record).unwrap());
        }
    }

    /// The value of a column's cell as the values are built into arrays: for a
    /// union admitting strings, a value of another type as its `json.dumps` text.
    fn built_value(shape: &Shape, value: Option<&Value>) -> Option<Value> {
        match (shape, value?) {
            (Shape::Text, value) if !value.is_string() && !value.is_null() => {
                Some(Value::String(JsonStyle::Spaced.to_string(value)))
            }
            (_, value) => Some(value.clone()),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Cells laid in each column's own text, from the record, from held texts
        /// (JSON tokens, escaped or not, and strings' own bytes) or from the record's
        /// text, make the arrays `build_array` makes of the values; and the batch is
        /// the one of the records pushed as values.
        #[test]
        fn laid_cells_make_the_arrays_of_the_values(
            records in prop::collection::vec(record(), 0..12),
        ) {
            let schema = schema();
            let mut laid = ColumnRows::new(&schema).unwrap();
            let mut pushed = ColumnRows::new(&schema).unwrap();
            for (record, given) in &records {
                push_held(&mut laid, record, given);
                pushed.push(record.clone());
            }
            let [direct, parsed, _] = laid.laid();
            prop_assert_eq!(direct + parsed, records.len());
            let batch = laid.take_batch().unwrap();
            let columns = Columns::from_schema(&schema).unwrap();
            for (i, (name, shape)) in columns.declared.iter().enumerate() {
                if !shape.holds_text() {
                    continue;
                }
                let values: Vec<Option<Value>> = records
                    .iter()
                    .map(|(record, _)| built_value(shape, record.get(name)))
                    .collect();
                let cells: Vec<Option<&Value>> = values.iter().map(Option::as_ref).collect();
                let built = build_array(shape, &cells).unwrap();
                prop_assert_eq!(batch.column(i).to_data(), built.to_data(), "{}", name);
            }
            prop_assert_eq!(&batch, &pushed.take_batch().unwrap());
            // The texts went into the arrays: the next batch starts empty.
            prop_assert!(laid.texts.iter().all(Vec::is_empty));
        }
    }
}
