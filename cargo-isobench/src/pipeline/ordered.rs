//! Ordered writing: converted batches arrive in any order from the workers and are
//! written in input order, with their counts merged, their rejects set aside and their
//! `instance_id`s checked for repeats.

use std::sync::atomic::{AtomicBool, Ordering};

use isobench_core::ConversionReport;
use isobench_core::report::{MAX_LISTED, RecordWarning};

use super::buffers::Buffers;
use super::job::{Done, Reject, rejection_line};
use super::progress::Progress;
use super::seen_ids::{SeenIds, id_digest};
use crate::cli::OnError;
use crate::errors::CliError;
use crate::output::RecordWriter;

/// The writer: takes converted batches as they come, and writes them in input order.
pub(super) fn write_in_order(
    done: crossbeam_channel::Receiver<Done>,
    tokens: crossbeam_channel::Sender<()>,
    sink: &mut Sink<'_>,
) -> Result<(), CliError> {
    let mut waiting = std::collections::BTreeMap::new();
    let mut next = 0u64;
    for batch in done {
        waiting.insert(batch.seq, batch);
        while let Some(batch) = waiting.remove(&next) {
            sink.take(batch)?;
            next += 1;
            // The reader may be gone (input ended); a token nobody takes is harmless.
            let _ = tokens.send(());
        }
    }
    // Closing the token channel is what stops a reader still waiting for room.
    drop(tokens);
    Ok(())
}

/// Where converted batches go.
pub(super) struct Sink<'a> {
    pub(super) on_error: OnError,
    pub(super) writer: &'a mut RecordWriter,
    pub(super) rejects: Option<&'a mut RecordWriter>,
    pub(super) report: &'a mut ConversionReport,
    pub(super) progress: Progress,
    /// Each `instance_id` written so far.
    pub(super) ids: SeenIds,
    /// The inputs' names, by index.
    pub(super) files: &'a [String],
    /// Where written batches' buffers go back.
    pub(super) buffers: &'a Buffers,
    /// Set once the report lists as many incomplete records as it keeps
    /// ([`super::job::Shared::incomplete_listed`]).
    pub(super) incomplete_listed: &'a AtomicBool,
    /// Records whose `instance_id` repeats an earlier one.
    pub(super) repeats: u64,
}

impl Sink<'_> {
    /// Writes a converted batch, merges its counts, and sets aside (or stops at) its
    /// rejected records.
    fn take(&mut self, done: Done) -> Result<(), CliError> {
        if let Some(e) = done.failed {
            return Err(e);
        }
        let Done {
            out,
            ends,
            report,
            rejects,
            bytes,
            source,
            ids,
            rows,
            ..
        } = done;
        self.report.merge(report);
        if self.report.incomplete_records.len() >= MAX_LISTED {
            self.incomplete_listed.store(true, Ordering::Relaxed);
        }
        self.progress.tick(self.report.read, bytes);
        let mut rejects = rejects.into_iter();
        if self.on_error == OnError::Fail
            && let Some(first) = rejects.next()
        {
            return Err(CliError::Rejected {
                rejection: Box::new(first.rejection),
                hint: first.hint,
            });
        }
        match rows {
            Some(rows) => {
                let rows = rows.map_err(|e| CliError::Write {
                    path: self.writer.dest(),
                    source: e,
                })?;
                self.writer.write_rows(rows)?;
            }
            None => self.writer.write_lines(&out, &ends)?,
        }
        self.buffers.give(out);
        for (id, line) in ids {
            self.note_id(id, source, line);
        }
        for Reject {
            rejection,
            hint,
            verbatim,
        } in rejects
        {
            if let Some(rejects) = self.rejects.as_deref_mut() {
                rejects.write(&rejection_line(&rejection, hint, verbatim))?;
            }
            // Without a rejects writer (--dry-run with skip): count, write nothing.
            self.report.record_rejected(rejection);
        }
        Ok(())
    }

    /// Remembers a written record's `instance_id`; a repeat is written all the same, with
    /// a warning naming both lines (in input order, so the same whatever `--jobs`).
    fn note_id(&mut self, id: String, source: usize, line: u64) {
        let Some((first_source, first_line)) =
            self.ids.first_or_insert(id_digest(&id), (source, line))
        else {
            return;
        };
        self.repeats += 1;
        let first = if first_source == source {
            format!("line {first_line}")
        } else {
            format!("{}:{first_line}", self.files[first_source])
        };
        let message = format!("repeats {first} (both records are written)");
        let file = &self.files[source];
        if self.repeats <= MAX_LISTED as u64 {
            self.progress.clear();
            eprintln!(
                "{}",
                crate::terminal::shown(&format!(
                    "warning: {file}:{line}: instance_id {id:?} {message}"
                ))
            );
        }
        self.report.warning_count += 1;
        if self.report.warnings.len() < MAX_LISTED {
            self.report.warnings.push(RecordWarning {
                file: file.clone(),
                line,
                instance_id: Some(id),
                field: "instance_id".to_owned(),
                message,
            });
        }
    }
}
