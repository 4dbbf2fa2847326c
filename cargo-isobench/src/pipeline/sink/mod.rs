//! Where converted records go, as types: a [`Sink`] is chosen once from the destination
//! ([`open`]), and gives each worker an [`Encoder`] of its own. A worker hands its encoder
//! every record it exports, with the values the reader held outside it
//! ([`HeldValues`]), and the encoder makes of a batch's records one encoded value
//! ([`Encoder::Batch`]) that the sink writes, in input order. Neither the worker nor the
//! ordered writer asks which output they feed.
//!
//! The outputs, one module each:
//!
//! - `json`: JSON Lines and one JSON array (plain, `.gz`, `.zst`; stdout; `--dry-run`);
//! - `columns`: Parquet, rows laid into the output's columns by the workers;
//! - `records`: exported maps kept in memory, for the Python bindings
//!   ([`super::BatchConverter::records_holding`]);
//! - `folders`: a folder per record, for a format whose records are folders of files
//!   (Harbor's task folders), into an output directory.

#[cfg(feature = "parquet")]
mod columns;
mod encoder;
mod folders;
mod json;
mod records;

use isobench_core::adapter::FolderLayout;
use serde_json::Value;

use super::buffers::Buffers;
use super::plan::{ConvertPlan, names_directory};
use crate::errors::CliError;
use crate::input::Layout;
use crate::output::RecordWriter;

#[cfg(feature = "parquet")]
pub(super) use columns::ColumnsEncoder;
pub(super) use encoder::{Encoder, HeldValues, Sink};
pub use folders::FolderError;
pub(super) use json::{JsonText, LinesEncoder};
pub(super) use records::RecordsEncoder;
pub use records::{ExportedRecord, HeldAt};

/// What runs a conversion into a sink, whichever [`open`] chose.
pub(super) trait IntoSink {
    /// What the run gives.
    type Output;

    /// Runs the conversion into `sink`.
    fn run<S: Sink>(self, sink: S) -> Self::Output;
}

/// The destination's sink, chosen once.
pub(super) enum Destination<'b> {
    Lines(json::LinesSink<'b>),
    Array(json::ArraySink<'b>),
    #[cfg(feature = "parquet")]
    Columns(columns::ColumnsSink),
    Folders(folders::FoldersSink<'b>),
}

impl Destination<'_> {
    /// Runs `conversion` into this sink.
    pub(super) fn run<C: IntoSink>(self, conversion: C) -> C::Output {
        match self {
            Self::Lines(sink) => conversion.run(sink),
            Self::Array(sink) => conversion.run(sink),
            #[cfg(feature = "parquet")]
            Self::Columns(sink) => conversion.run(sink),
            Self::Folders(sink) => conversion.run(sink),
        }
    }
}

/// The output of `plan`, opened, as its sink: a folder per record for a target whose
/// records are folders (`folder`: its layout), rows of columns for Parquet, one JSON
/// array for a `.json` file, JSON Lines otherwise (stdout, or nothing under
/// `--dry-run`). `schema`: the JSON Schema of the records written (a Parquet output's
/// columns); `buffers`: where JSON text buffers go back.
pub(super) fn open<'b>(
    plan: &ConvertPlan,
    schema: &Value,
    folder: Option<&'b FolderLayout>,
    buffers: &'b Buffers,
) -> Result<Destination<'b>, CliError> {
    if let Some(layout) = folder {
        let root = match (&plan.output, plan.dry_run) {
            (_, true) => None,
            (Some(root), false) => Some(root.as_path()),
            (None, false) => return Err(FolderError::NoDirectory(plan.to.clone()).into()),
        };
        return Ok(Destination::Folders(folders::FoldersSink::new(
            layout,
            root,
            plan.overwrite,
        )?));
    }
    if let Some(output) = plan.output.as_deref().filter(|o| names_directory(o)) {
        return Err(FolderError::NotAFolderFormat {
            path: output.to_owned(),
            format: plan.to.clone(),
        }
        .into());
    }
    let writer = if plan.dry_run {
        RecordWriter::discard()
    } else {
        RecordWriter::create_with_schema(
            plan.output.as_deref(),
            plan.overwrite,
            plan.json_style().unwrap_or_default(),
            Some(schema),
            plan.parquet,
        )?
    };
    #[cfg(feature = "parquet")]
    if let Some(rows) = writer.column_rows() {
        return Ok(Destination::Columns(columns::ColumnsSink::new(
            writer, rows,
        )));
    }
    Ok(match writer.layout() {
        Layout::JsonArray => Destination::Array(json::ArraySink::new(writer, buffers)),
        Layout::JsonLines => Destination::Lines(json::LinesSink::new(writer, buffers)),
    })
}
