//! Converting records held in memory, batch by batch, for callers that hold them (the
//! Python bindings).

use isobench_core::codec::JsonStyle;
use isobench_core::{ConversionReport, Notes, Registry};
use serde_json::{Map, Value};

use super::buffers::Buffers;
use super::job::{Job, Shared, Work, first_style, rejection_line};
use super::plan::ConvertPlan;
use crate::cli::OnError;
use crate::errors::CliError;
use crate::input::{self, Batch};
use crate::mine::enrich::Enricher;

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

    fn convert(&mut self, batch: Batch) -> Result<ConvertedBatch, CliError> {
        let style = *self.style.get_or_insert_with(|| first_style(&batch));
        let mut job = Job {
            shared: &self.shared,
            notes: std::mem::take(&mut self.notes),
            enricher: self.enricher.take(),
            rows: None,
        };
        let done = job.batch(Work {
            seq: 0,
            batch,
            style,
        });
        (self.notes, self.enricher) = (job.notes, job.enricher);
        let mut rejects = Vec::with_capacity(done.rejects.len());
        let mut report = done.report;
        for reject in done.rejects {
            if self.shared.on_error == OnError::Fail {
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
            out: done.out,
            ends: done.ends,
            report,
            rejects,
            style,
        })
    }
}
