//! Converting records held in memory, batch by batch, for callers that hold them (the
//! Python bindings).

#[cfg(feature = "parquet")]
use std::sync::Arc;

#[cfg(feature = "parquet")]
use arrow_array::RecordBatch;
use isobench_core::codec::JsonStyle;
use isobench_core::passthrough::{Held, Route};
use isobench_core::{ConversionReport, Notes, Registry};
use serde_json::{Map, Value};

use super::buffers::Buffers;
use super::job::{Job, Shared, Tally, Work, first_style, rejection_line};
use super::plan::ConvertPlan;
#[cfg(feature = "parquet")]
use super::sink::ColumnsEncoder;
use super::sink::{Encoder, ExportedRecord, JsonText, LinesEncoder, RecordsEncoder};
use crate::errors::CliError;
#[cfg(feature = "parquet")]
use crate::input::parquet_file::{ArrowRows, BatchRows};
use crate::input::{self, Batch, Item};
use crate::mine::enrich::Enricher;
#[cfg(feature = "parquet")]
use crate::parquet::ColumnRows;

/// Converts records held in memory, batch by batch, as [`super::run`] converts those of its
/// inputs (the same adapters, `--set`, contract checks and rejects): for callers that hold
/// the records, such as the Python bindings. Batches are numbered on, one line or row
/// after another, as if they were one input named `name`.
pub struct BatchConverter<'r> {
    shared: Shared<'r>,
    notes: Notes,
    enricher: Option<Enricher>,
    style: Option<JsonStyle>,
    /// The last line (or row) numbered.
    line: u64,
}

impl std::fmt::Debug for BatchConverter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BatchConverter")
            .field("from", &self.shared.from.info().name)
            .field("to", &self.shared.to.info().name)
            .field("line", &self.line)
            .finish_non_exhaustive()
    }
}

/// A batch converted by [`BatchConverter`].
#[derive(Debug, Default)]
pub struct ConvertedBatch {
    /// The output records as JSON Lines, as `convert` writes them.
    pub out: Vec<u8>,
    /// Where each record of `out` ends (before its line end).
    pub ends: Vec<usize>,
    /// The batch's counts and notes.
    pub report: ConversionReport,
    /// The rejected records, each as a line of the rejects file (under `--on-error skip`).
    pub rejects: Vec<Map<String, Value>>,
    /// The JSON style the records were written in.
    pub style: JsonStyle,
}

/// A record its caller read with some values held outside it
/// ([`BatchConverter::records_holding`]): the record, lacking the keys `held` names, or
/// why there is none.
#[derive(Debug)]
pub struct HoldingRecord {
    /// The record without the held keys.
    pub record: Result<Value, input::BadInput>,
    /// The held values' texts, by route ([`BatchConverter::routes`]), with where each
    /// key stood and a list's encoding.
    pub held: Held,
}

/// A batch converted by [`BatchConverter::records_holding`].
#[derive(Debug, Default)]
pub struct HoldingBatch {
    /// The batch's report and rejects; its `out` and `ends` are empty: the output
    /// records are `records`.
    pub batch: ConvertedBatch,
    /// The output records, in order, as exported (no JSON text).
    pub records: Vec<ExportedRecord>,
}

impl<'r> BatchConverter<'r> {
    /// A converter for `plan`'s formats, profile, `--set`, enrichment and error policy
    /// (its inputs, output, shard and jobs are not used); `name`: the input's name in
    /// messages.
    pub fn new(registry: &'r Registry, plan: &ConvertPlan, name: &str) -> Result<Self, CliError> {
        let mut shared = Shared::for_plan(registry, plan, vec![name.to_owned()], Buffers::new(2))?;
        let enricher = shared.enrich.take().map(Enricher::new);
        Ok(Self {
            shared,
            notes: Notes::new(),
            enricher,
            style: plan.json_style(),
            line: 0,
        })
    }

    /// Converts JSON Lines (blank lines skipped, as in a file).
    pub fn lines(&mut self, text: Vec<u8>) -> Result<ConvertedBatch, CliError> {
        let mut items = Vec::new();
        let mut pos = 0;
        while pos < text.len() {
            let end = memchr::memchr(b'\n', &text[pos..]).map_or(text.len(), |i| pos + i);
            let trimmed = text[pos..end].trim_ascii_end();
            self.line += 1;
            if !trimmed.trim_ascii_start().is_empty() {
                items.push(input::RawItem {
                    line: self.line,
                    range: pos..pos + trimmed.len(),
                    complete: true,
                    parsed: None,
                    folder: None,
                });
            }
            pos = end + 1;
        }
        let batch = Batch {
            text,
            items,
            ..Batch::default()
        };
        self.convert(batch)
    }

    /// Converts records read otherwise (rows of a record batch, say), each numbered on.
    pub fn records(
        &mut self,
        records: Vec<Result<Value, input::BadInput>>,
        style: Option<JsonStyle>,
    ) -> Result<ConvertedBatch, CliError> {
        let items = records
            .into_iter()
            .map(|record| {
                self.line += 1;
                input::RawItem {
                    line: self.line,
                    range: 0..0,
                    complete: true,
                    parsed: Some(record),
                    folder: None,
                }
            })
            .collect();
        let batch = Batch {
            items,
            array_style: style,
            ..Batch::default()
        };
        self.convert(batch)
    }

    /// How values pass from input to output in this conversion (see
    /// [`isobench_core::passthrough`]): none under `--set`, enrichment or the strict
    /// profile, as in `convert`.
    pub fn routes(&self) -> &[Route<'r>] {
        &self.shared.routes
    }

    /// Converts records read otherwise, as [`BatchConverter::records`] does, each with
    /// the values of [`BatchConverter::routes`] its caller held outside it, as the JSON
    /// Lines reader holds them. The output records are kept as exported maps, not
    /// written: each says where the output holds the values held (where `convert` writes
    /// their texts), so that the caller can put the values it keeps there. A record
    /// refused with values held is converted again whole, `whole(i)` giving the batch's
    /// `i`-th record with every value in it, so that the refusal, its hint and the
    /// rejects line are those of the record as given.
    pub fn records_holding(
        &mut self,
        records: Vec<HoldingRecord>,
        style: Option<JsonStyle>,
        whole: &mut dyn FnMut(usize) -> Result<Value, input::BadInput>,
    ) -> Result<HoldingBatch, CliError> {
        let style = *self.style.get_or_insert(style.unwrap_or_default());
        let mut job = job(
            &self.shared,
            &mut self.notes,
            &mut self.enricher,
            RecordsEncoder::default(),
        );
        let mut tally = Tally::default();
        let file = self.shared.files[0].as_str();
        let empty = Held::default();
        for (i, HoldingRecord { record, held }) in records.into_iter().enumerate() {
            self.line += 1;
            job.encoder.source = i;
            let rejected = tally.rejects.len();
            let holding = record.is_ok() && !held.is_empty();
            let item = |record| Item {
                line: self.line,
                raw: &[],
                record,
            };
            let mut go = job.item(file, item(record), &held, style, &mut tally);
            if holding && tally.rejects.len() > rejected {
                // Refused: told of the record as given, not of what was left of it.
                tally.rejects.pop();
                tally.report.read -= 1;
                go = job.item(file, item(whole(i)), &empty, style, &mut tally);
            }
            if !go {
                break;
            }
        }
        let records = job.encoder.finish();
        (self.notes, self.enricher) = (job.notes, job.enricher);
        let batch = self.finish(tally, style, JsonText::default())?;
        Ok(HoldingBatch { batch, records })
    }

    /// Converts the rows of a record batch, read as `plan` reads them, into `rows` (the
    /// output's columns), as `convert` converts a Parquet file's rows into a Parquet
    /// output: the values that only pass are held and laid into their columns, not made
    /// into values. Rows are numbered on. `full` is called with the rows each time they
    /// make a row group, to take them. The batch returned has the report and the
    /// rejects (no `out`).
    #[cfg(feature = "parquet")]
    pub fn arrow_into_rows(
        &mut self,
        plan: &Arc<BatchRows>,
        batch: RecordBatch,
        rows: &mut ColumnRows,
        full: &mut dyn FnMut(&mut ColumnRows) -> Result<(), CliError>,
    ) -> Result<ConvertedBatch, CliError> {
        let items = (0..batch.num_rows())
            .map(|_| {
                self.line += 1;
                input::RawItem {
                    line: self.line,
                    range: 0..0,
                    complete: true,
                    parsed: None,
                    folder: None,
                }
            })
            .collect();
        let arrow = ArrowRows::of_batch(&self.shared.files[0], Arc::clone(plan), batch);
        let batch = Batch {
            items,
            array_style: plan.style(),
            arrow: Some(arrow),
            ..Batch::default()
        };
        let style = *self.style.get_or_insert_with(|| first_style(&batch));
        let mut job = job(
            &self.shared,
            &mut self.notes,
            &mut self.enricher,
            ColumnsEncoder::new(std::mem::replace(rows, rows.empty_like())),
        );
        let mut tally = Tally::default();
        let mut taken = Ok(());
        let arrow = batch.arrow.as_ref().expect("given above");
        job.arrow_items(arrow, &batch.items, style, &mut tally, &mut |job| {
            let rows = &mut job.encoder.rows;
            if rows.group_full() {
                taken = full(rows);
            }
            taken.is_ok()
        });
        *rows = job.encoder.rows;
        (self.notes, self.enricher) = (job.notes, job.enricher);
        taken?;
        if let Some(failed) = tally.failed.take() {
            return Err(failed);
        }
        self.finish(tally, style, JsonText::default())
    }

    fn convert(&mut self, batch: Batch) -> Result<ConvertedBatch, CliError> {
        let style = *self.style.get_or_insert_with(|| first_style(&batch));
        let mut job = job(
            &self.shared,
            &mut self.notes,
            &mut self.enricher,
            LinesEncoder::new(&self.shared.buffers),
        );
        let done = job.batch(Work {
            seq: 0,
            batch,
            style,
        });
        (self.notes, self.enricher) = (job.notes, job.enricher);
        self.finish(done.tally, style, done.encoded)
    }

    /// A converted batch of `tally` and the records' JSON text: under `--on-error fail`,
    /// the first refusal.
    fn finish(
        &self,
        mut tally: Tally,
        style: JsonStyle,
        JsonText { out, ends }: JsonText,
    ) -> Result<ConvertedBatch, CliError> {
        tally.count_coverage();
        let mut rejects = Vec::with_capacity(tally.rejects.len());
        let mut report = tally.report;
        for reject in tally.rejects {
            if !self.shared.skip {
                return Err(CliError::Rejected {
                    rejection: Box::new(reject.rejection),
                    hint: reject.hint,
                });
            }
            rejects.push(rejection_line(
                &reject.rejection,
                reject.hint,
                reject.verbatim,
            ));
            report.record_rejected(reject.rejection);
        }
        Ok(ConvertedBatch {
            out,
            ends,
            report,
            rejects,
            style,
        })
    }
}

/// A worker of `shared`'s conversion, with the converter's `notes` and `enricher` (to
/// give back once it is done), its records going to `encoder`.
fn job<'s, E: Encoder>(
    shared: &'s Shared<'s>,
    notes: &mut Notes,
    enricher: &mut Option<Enricher>,
    encoder: E,
) -> Job<'s, E> {
    Job {
        shared,
        notes: std::mem::take(notes),
        enricher: enricher.take(),
        encoder,
    }
}
