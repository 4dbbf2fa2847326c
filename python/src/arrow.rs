//! Arrow in and out through the Arrow C stream interface (`__arrow_c_stream__` capsules):
//! record batches cross without a copy or a JSON round trip through Python objects.
//!
//! The only unsafe code of the package is here: taking a stream out of a capsule, and
//! handing one over in a capsule.
#![allow(unsafe_code)]

use std::collections::VecDeque;
use std::ffi::CStr;
use std::sync::Arc;

use arrow_array::ffi_stream::{ArrowArrayStreamReader, FFI_ArrowArrayStream};
use arrow_array::{RecordBatch, RecordBatchIterator, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};
use cargo_isobench::errors::CliError;
use cargo_isobench::input::InputError;
use cargo_isobench::input::parquet_file::BatchRows;
use cargo_isobench::parquet::ColumnRows;
use cargo_isobench::pipeline::BatchConverter;
use isobench_core::ConversionReport;
use isobench_core::codec::JsonStyle;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyDict};
use serde_json::Value;

use crate::errors::to_py;

const STREAM: &CStr = c"arrow_array_stream";

/// The name of a converted stream in messages and rejects, where a file's would be.
const ARROW: &str = "<arrow>";

/// Takes the stream out of an `arrow_array_stream` capsule (what `__arrow_c_stream__`
/// returns).
pub fn import_stream(capsule: &Bound<'_, PyAny>) -> PyResult<ArrowArrayStreamReader> {
    let capsule = capsule
        .cast::<PyCapsule>()
        .map_err(|_| PyTypeError::new_err("expected an `arrow_array_stream` capsule"))?;
    let pointer = capsule.pointer_checked(Some(STREAM))?;
    // SAFETY: a capsule named `arrow_array_stream` holds an `FFI_ArrowArrayStream` (the
    // Arrow PyCapsule interface). `from_raw` moves the stream out and leaves a released
    // one behind, which the capsule's destructor then finds released and leaves alone.
    let stream = unsafe { FFI_ArrowArrayStream::from_raw(pointer.as_ptr().cast()) };
    ArrowArrayStreamReader::try_new(stream).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The stream of a capsule, moved to the thread that drops the capsule.
#[repr(transparent)]
struct SendStream(FFI_ArrowArrayStream);

// SAFETY: the C stream interface lets a stream be used from any thread, one at a time;
// the capsule owns it and hands it to one consumer.
unsafe impl Send for SendStream {}

/// Record batches for Python: `pyarrow.table(stream)` (or any reader of the Arrow
/// `PyCapsule` interface) takes them, once.
#[pyclass(module = "isobench._isobench")]
#[derive(Debug)]
pub struct ArrowStream {
    batches: Option<(SchemaRef, Vec<RecordBatch>)>,
}

#[pymethods]
impl ArrowStream {
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &mut self,
        py: Python<'py>,
        requested_schema: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema; // the schema is the format's; no other is offered
        let (schema, batches) = self
            .batches
            .take()
            .ok_or_else(|| PyValueError::new_err("the stream was read already"))?;
        let reader: Box<dyn RecordBatchReader + Send> = Box::new(RecordBatchIterator::new(
            batches.into_iter().map(Ok::<_, ArrowError>),
            schema,
        ));
        PyCapsule::new_with_value(py, SendStream(FFI_ArrowArrayStream::new(reader)), STREAM)
    }
}

/// Reads every batch as records (`read`), handing each batch's rows to `each`.
fn for_each_batch(
    reader: ArrowArrayStreamReader,
    mut each: impl FnMut(
        Vec<Result<Value, cargo_isobench::input::BadInput>>,
        &BatchRows,
    ) -> Result<(), CliError>,
) -> Result<(), CliError> {
    let plan = BatchRows::new(&reader.schema())
        .map_err(|(column, kind)| unreadable_column(&column, &kind))?;
    for batch in reader {
        let batch = batch.map_err(|e| CliError::from(InputError::Stream(e.to_string())))?;
        let rows = (0..batch.num_rows())
            .map(|i| plan.row_at(&batch, i).map(Value::Object))
            .collect();
        each(rows, &plan)?;
    }
    Ok(())
}

/// The rows of a stream as JSON Lines, as `convert` reads Parquet rows.
pub fn lines(reader: ArrowArrayStreamReader) -> Result<Vec<String>, CliError> {
    let mut lines = Vec::new();
    for_each_batch(reader, |rows, _| {
        for row in rows {
            match row {
                Ok(value) => lines.push(value.to_string()),
                Err(bad) => {
                    return Err(InputError::Row {
                        message: bad.message,
                        hint: bad.hint,
                    }
                    .into());
                }
            }
        }
        Ok(())
    })?;
    Ok(lines)
}

/// Converts an Arrow stream of records batch by batch (`convert_arrow`): each input
/// batch is read, converted and laid out in the columns of the target's Parquet output
/// (`-o out.parquet`) before the next is read, so that at most an input batch and its
/// output are held. The output's schema is the target's declaration: every column it
/// lays out, `__extra` and `__keys` included, typed as the declaration types it, so that
/// it is known before any output batch; the JSON style in its metadata is that of the
/// records, known once the first batch is converted (see [`ArrowConverter::schema`]).
/// [`ArrowConverter::kept_schema`] gives, once the stream is read, the columns some
/// record had: the schema of the Parquet file the command line writes of the same rows.
#[pyclass(module = "isobench._isobench", unsendable)]
#[derive(Debug)]
pub struct ArrowConverter {
    state: Box<Converting>,
}

#[derive(Debug)]
struct Converting {
    reader: ArrowArrayStreamReader,
    rows_plan: Arc<BatchRows>,
    converter: BatchConverter<'static>,
    /// The rows converted and not yet taken as a batch; which columns they used.
    rows: ColumnRows,
    /// The target's declaration, for the schema of every column.
    json_schema: &'static Value,
    /// The JSON style of the records, once a batch was converted.
    style: Option<JsonStyle>,
    schema: Option<SchemaRef>,
    /// Output batches made and not yet taken (with every column).
    pending: VecDeque<RecordBatch>,
    rejects: Vec<String>,
    report: Option<ConversionReport>,
    any_rows: bool,
    ended: bool,
}

impl Converting {
    /// Reads and converts the next input batch; `false` at the end of the input.
    fn step(&mut self) -> Result<bool, CliError> {
        let Some(batch) = self.reader.next() else {
            self.ended = true;
            return Ok(false);
        };
        let batch = batch.map_err(|e| CliError::from(InputError::Stream(e.to_string())))?;
        // The rows go from the converter into the output's columns as `convert` lays a
        // Parquet file's rows (the values that only pass held, not made into values),
        // cut into batches where a row group is full.
        let (pending, any_rows) = (&mut self.pending, &mut self.any_rows);
        let converted = self.converter.arrow_into_rows(
            &self.rows_plan,
            batch,
            &mut self.rows,
            &mut |rows| {
                *any_rows = true;
                pending.push_back(rows.take_batch().map_err(write_error)?);
                Ok(())
            },
        )?;
        self.style.get_or_insert(converted.style);
        self.rows.note_style(converted.style);
        if !self.rows.is_empty() {
            self.any_rows = true;
            let taken = self.rows.take_batch().map_err(write_error)?;
            self.pending.push_back(taken);
        }
        self.rejects.extend(
            converted
                .rejects
                .iter()
                .map(|r| serde_json::to_string(r).expect("a JSON map serialises")),
        );
        match &mut self.report {
            Some(report) => report.merge(converted.report),
            None => self.report = Some(converted.report),
        }
        Ok(true)
    }

    /// The schema of every column; converts the first batch first when none was, for
    /// the records' JSON style.
    fn schema(&mut self) -> Result<SchemaRef, CliError> {
        if let Some(schema) = &self.schema {
            return Ok(Arc::clone(schema));
        }
        if self.style.is_none() && !self.ended {
            self.step()?;
        }
        let mut every = ColumnRows::new(self.json_schema).map_err(|e| CliError::Write {
            path: ARROW.into(),
            source: std::io::Error::other(e),
        })?;
        every.note_style(self.style.unwrap_or_default());
        let (schema, _) = every.written_schema(true, true);
        self.schema = Some(Arc::clone(&schema));
        Ok(schema)
    }

    /// The next output batch, with every column; `None` at the end.
    fn next_batch(&mut self) -> Result<Option<RecordBatch>, CliError> {
        let schema = self.schema()?;
        while self.pending.is_empty() && !self.ended {
            self.step()?;
        }
        self.pending
            .pop_front()
            .map(|batch| {
                RecordBatch::try_new(schema, batch.columns().to_vec()).map_err(|e| {
                    CliError::Write {
                        path: ARROW.into(),
                        source: std::io::Error::other(format!("Arrow: {e}")),
                    }
                })
            })
            .transpose()
    }
}

fn write_error(e: std::io::Error) -> CliError {
    CliError::Write {
        path: ARROW.into(),
        source: e,
    }
}

/// One record batch, or none: a stream with a schema for Python to import.
fn stream_of(schema: SchemaRef, batches: Vec<RecordBatch>) -> ArrowStream {
    ArrowStream {
        batches: Some((schema, batches)),
    }
}

#[pymethods]
impl ArrowConverter {
    /// A converter of `stream` (an `arrow_array_stream` capsule) from `from_` to `to`
    /// with `options` (`convert`'s, by name).
    #[new]
    fn new(
        stream: &Bound<'_, PyAny>,
        from_: &str,
        to: &str,
        options: &Bound<'_, PyDict>,
    ) -> PyResult<Self> {
        let registry = crate::registry();
        let plan = crate::request(from_, to, options)?
            .plan_records(registry)
            .map_err(to_py)?;
        let reader = import_stream(stream)?;
        let rows_plan = BatchRows::new(&reader.schema())
            .map_err(|(column, kind)| to_py(unreadable_column(&column, &kind)))?;
        let converter = BatchConverter::new(registry, &plan, ARROW).map_err(to_py)?;
        let target = cargo_isobench::find(registry, &plan.to).map_err(to_py)?;
        let json_schema = target.schema(isobench_core::Profile::Lossless);
        let rows = ColumnRows::new(json_schema)
            .map_err(|e| to_py(write_error(std::io::Error::other(e))))?;
        Ok(Self {
            state: Box::new(Converting {
                reader,
                rows_plan: Arc::new(rows_plan),
                converter,
                rows,
                json_schema,
                style: None,
                schema: None,
                pending: VecDeque::new(),
                rejects: Vec::new(),
                report: None,
                any_rows: false,
                ended: false,
            }),
        })
    }

    /// The output's schema, every column (no batch).
    fn schema(&mut self, py: Python<'_>) -> PyResult<ArrowStream> {
        let state = &mut self.state;
        let schema = py.detach(|| state.schema()).map_err(to_py)?;
        Ok(stream_of(schema, Vec::new()))
    }

    /// `(the next converted batch, the rejects file lines of the records read for it, as
    /// JSON text)`, or `None` at the end. A bad record under `on_error="fail"` raises
    /// `RecordError`.
    fn next_batch(&mut self, py: Python<'_>) -> PyResult<Option<(ArrowStream, Vec<String>)>> {
        let state = &mut self.state;
        let Some(batch) = py.detach(|| state.next_batch()).map_err(to_py)? else {
            return Ok(None);
        };
        let rejects = std::mem::take(&mut self.state.rejects);
        Ok(Some((stream_of(batch.schema(), vec![batch]), rejects)))
    }

    /// Rejects file lines not yet taken (those of the last input batches, which gave no
    /// output batch).
    fn take_rejects(&mut self) -> Vec<String> {
        std::mem::take(&mut self.state.rejects)
    }

    /// Once the stream is read: the schema of the columns some record had, with the
    /// metadata of the Parquet file `convert` writes of the same records (no batch).
    fn kept_schema(&mut self) -> ArrowStream {
        let state = &mut self.state;
        let (schema, _) = state.rows.written_schema(state.any_rows, false);
        stream_of(schema, Vec::new())
    }

    /// The conversion's report as JSON text (`null` when no batch was read).
    fn report(&self) -> String {
        self.state.report.as_ref().map_or_else(
            || "null".to_owned(),
            |r| serde_json::to_string(r).expect("the report serialises"),
        )
    }
}

fn unreadable_column(column: &str, kind: &str) -> CliError {
    InputError::UnreadableColumn {
        path: None,
        column: column.to_owned(),
        kind: kind.to_owned(),
    }
    .into()
}
