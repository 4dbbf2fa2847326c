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
//!   ([`super::BatchConverter::records_holding`]).

#[cfg(feature = "parquet")]
mod columns;
mod json;
mod records;

use isobench_core::Registered;
use isobench_core::codec::JsonStyle;
use isobench_core::passthrough::{Held, Placed, Route};
use isobench_core::registry::HeldOrder;
use serde_json::{Map, Value};

use super::buffers::Buffers;
use super::plan::ConvertPlan;
use crate::errors::CliError;
use crate::input::Layout;
use crate::output::RecordWriter;

#[cfg(feature = "parquet")]
pub(super) use columns::ColumnsEncoder;
pub(super) use json::{JsonText, LinesEncoder};
pub(super) use records::RecordsEncoder;
pub use records::{ExportedRecord, HeldAt};

/// A worker's end of the output: takes the records of a batch, one at a time, and gives
/// them encoded once the batch is done.
pub(super) trait Encoder: Send {
    /// A batch's records, encoded.
    type Batch: Send;

    /// Starts a batch read from `input_bytes` bytes of text (room for its records).
    fn begin(&mut self, input_bytes: usize);

    /// Adds one exported record, the target's contract met, with the values the reader
    /// held outside it, if any; `style`: the record's JSON style.
    fn record(
        &mut self,
        record: Map<String, Value>,
        held: Option<&HeldValues<'_>>,
        style: JsonStyle,
    );

    /// The records added since [`Encoder::begin`], encoded.
    fn finish(&mut self) -> Self::Batch;

    /// The style in which the reader holds the texts of values that pass, given the
    /// output's style.
    fn held_style(&self, style: JsonStyle) -> JsonStyle {
        style
    }

    /// For each of `routes`, whether a string it holds is best held as its own bytes
    /// rather than its JSON text (it goes as it is into a string column); `None` when
    /// none is. (Strings are held so only by the Parquet reader.)
    #[cfg(feature = "parquet")]
    fn raw_strings(&self, routes: &[Route<'_>]) -> Option<Vec<bool>> {
        let _ = routes;
        None
    }

    /// For the tests: how many of the batch's records were laid into columns from
    /// their record and held texts, parsed from their text, and pushed as exported, and
    /// how many cells were laid from a string's own bytes; `None` for an output of no
    /// columns.
    #[cfg(test)]
    fn laid(&self) -> Option<[usize; 4]> {
        None
    }
}

/// Where encoded batches are written, in input order.
pub(super) trait Sink {
    /// What each worker encodes its records with.
    type Encoder: Encoder;

    /// A fresh encoder, for one worker.
    fn encoder(&self) -> Self::Encoder;

    /// Writes a batch's records.
    fn write(&mut self, batch: <Self::Encoder as Encoder>::Batch) -> Result<(), CliError>;

    /// Completes the output (see [`RecordWriter::finish`]).
    fn finish(self) -> Result<(), CliError>;
}

/// A record's held values, as its encoder sees them: the texts the reader held
/// (`held`, some in the record's text `raw`), by the conversion's `routes`, and what
/// the target format `to` kept of the record to place them (`order`).
pub(super) struct HeldValues<'r> {
    pub(super) to: &'r Registered,
    pub(super) routes: &'r [Route<'r>],
    pub(super) order: &'r HeldOrder,
    pub(super) held: &'r Held,
    pub(super) raw: &'r [u8],
}

impl<'r> HeldValues<'r> {
    /// Where the held texts go in `out`, the record exported.
    pub(super) fn placed(&self, out: &Map<String, Value>) -> Vec<Placed<'r>> {
        self.placed_from(out, self.held)
    }

    /// Where the texts of `held` (the record's, or a copy of them) go in `out`.
    fn placed_from<'h>(&self, out: &Map<String, Value>, held: &'h Held) -> Vec<Placed<'h>>
    where
        'r: 'h,
    {
        let routes = self.routes;
        // Sized at once: collected from a filter, the vector was grown once more.
        let mut texts = Vec::with_capacity(routes.len());
        texts.extend((0..routes.len()).filter_map(|i| Some((routes[i], held.text(self.raw, i)?))));
        self.to.place_held(self.order, out, &texts)
    }

    /// The routes that hold a text, in order (those [`Self::placed`] places, in its
    /// order).
    pub(super) fn holding(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.routes.len()).filter(|&i| self.held.holds(i))
    }
}

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
}

impl Destination<'_> {
    /// Runs `conversion` into this sink.
    pub(super) fn run<C: IntoSink>(self, conversion: C) -> C::Output {
        match self {
            Self::Lines(sink) => conversion.run(sink),
            Self::Array(sink) => conversion.run(sink),
            #[cfg(feature = "parquet")]
            Self::Columns(sink) => conversion.run(sink),
        }
    }
}

/// The output of `plan`, opened, as its sink: rows of columns for Parquet, one JSON
/// array for a `.json` file, JSON Lines otherwise (stdout, or nothing under
/// `--dry-run`). `schema`: the JSON Schema of the records written (a Parquet output's
/// columns); `buffers`: where JSON text buffers go back.
pub(super) fn open<'b>(
    plan: &ConvertPlan,
    schema: &Value,
    buffers: &'b Buffers,
) -> Result<Destination<'b>, CliError> {
    let writer = if plan.dry_run {
        RecordWriter::discard()
    } else {
        RecordWriter::create_with_schema(
            plan.output.as_deref(),
            plan.overwrite,
            plan.json_style().unwrap_or_default(),
            Some(schema),
            plan.parquet_compression,
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
