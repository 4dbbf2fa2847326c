//! Arrow in and out through the Arrow C stream interface (`__arrow_c_stream__` capsules):
//! record batches cross without a copy or a JSON round trip through Python objects.
//!
//! The only unsafe code of the package is here: taking a stream out of a capsule, and
//! handing one over in a capsule.
#![allow(unsafe_code)]

use std::ffi::CStr;

use arrow_array::ffi_stream::{ArrowArrayStreamReader, FFI_ArrowArrayStream};
use arrow_array::{RecordBatch, RecordBatchIterator, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};
use cargo_isobench::errors::CliError;
use cargo_isobench::input::parquet_file::BatchRows;
use cargo_isobench::output_file::OutputError;
use cargo_isobench::parquet::ArrowTable;
use cargo_isobench::pipeline::BatchConverter;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyDict};
use serde_json::{Map, Value};

use crate::errors::to_py;

const STREAM: &CStr = c"arrow_array_stream";

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
    let plan = BatchRows::new(&reader.schema()).map_err(|(column, kind)| {
        CliError::Record(
            format!("column `{column}` has type {kind}, which has no JSON equivalent"),
            Some("cast that column to a string or number type, or drop it, first".into()),
        )
    })?;
    for batch in reader {
        let batch =
            batch.map_err(|e| CliError::Record(format!("reading the Arrow stream: {e}"), None))?;
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
                Err(bad) => return Err(CliError::Record(bad.message, bad.hint)),
            }
        }
        Ok(())
    })?;
    Ok(lines)
}

/// `convert_arrow`: `(stream of the converted table, rejects file lines as JSON text,
/// report as JSON text)`. `all_columns`: every column of the target's Parquet layout,
/// used or not, so that tables converted apart share one schema.
#[pyfunction]
#[pyo3(signature = (stream, from_, to, options, all_columns=false))]
pub fn convert_arrow(
    py: Python<'_>,
    stream: &Bound<'_, PyAny>,
    from_: &str,
    to: &str,
    options: &Bound<'_, PyDict>,
    all_columns: bool,
) -> PyResult<(ArrowStream, Vec<String>, String)> {
    let registry = crate::registry();
    let plan = crate::request(from_, to, options)?
        .plan_records(registry)
        .map_err(to_py)?;
    let reader = import_stream(stream)?;
    let (schema, batches, rejects, report) = py
        .detach(|| {
            let mut converter = BatchConverter::new(registry, &plan, "<arrow>")?;
            let to = cargo_isobench::find(registry, &plan.to)?;
            let mut table = ArrowTable::new(to.schema(isobench_core::Profile::Lossless))
                .map_err(OutputError::Columns)?;
            let mut rejects = Vec::new();
            let mut report: Option<isobench_core::ConversionReport> = None;
            for_each_batch(reader, |rows, batch_rows| {
                let batch = converter.records(rows, batch_rows.style())?;
                table.note_style(batch.style);
                let mut start = 0;
                for &end in &batch.ends {
                    let line = &batch.out[start..end];
                    let record: Map<String, Value> =
                        serde_json::from_slice(line).expect("the converter writes JSON objects");
                    table
                        .push(record, line.len())
                        .map_err(|e| CliError::Write {
                            path: "<arrow>".into(),
                            source: e,
                        })?;
                    start = end + 1;
                }
                rejects.extend(
                    batch
                        .rejects
                        .iter()
                        .map(|r| serde_json::to_string(r).expect("a JSON map serialises")),
                );
                match &mut report {
                    Some(report) => report.merge(batch.report),
                    None => report = Some(batch.report),
                }
                Ok(())
            })?;
            let (schema, batches) = table.finish(all_columns).map_err(|e| CliError::Write {
                path: "<arrow>".into(),
                source: e,
            })?;
            Ok::<_, CliError>((schema, batches, rejects, report))
        })
        .map_err(to_py)?;
    let report = report.map_or_else(
        || "null".to_owned(),
        |r| serde_json::to_string(&r).expect("the report serialises"),
    );
    Ok((
        ArrowStream {
            batches: Some((schema, batches)),
        },
        rejects,
        report,
    ))
}
