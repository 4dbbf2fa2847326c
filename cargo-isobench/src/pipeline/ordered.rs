//! Ordered writing: converted batches arrive in any order from the workers and are
//! written in input order, with their counts merged, their rejects set aside and their
//! `instance_id`s checked for repeats.

use std::sync::atomic::{AtomicBool, Ordering};

use isobench_core::ConversionReport;
use isobench_core::report::{MAX_LISTED, RecordWarning};

use super::job::{Done, Reject, Tally, rejection_line};
use super::paths::FastPaths;
use super::progress::Progress;
use super::seen_ids::{SeenIds, id_digest};
use super::sink::{Encoder, Sink};
use crate::errors::CliError;
use crate::output::RecordWriter;

/// A converted batch of the records `S`'s encoders encode.
type DoneFor<S> = Done<<<S as Sink>::Encoder as Encoder>::Batch>;

/// The writer: takes converted batches as they come, and writes them in input order.
pub(super) fn write_in_order<S: Sink>(
    done: crossbeam_channel::Receiver<DoneFor<S>>,
    tokens: crossbeam_channel::Sender<()>,
    ordered: &mut Ordered<'_, S>,
) -> Result<(), CliError> {
    let mut waiting = std::collections::BTreeMap::new();
    let mut next = 0u64;
    for batch in done {
        waiting.insert(batch.seq, batch);
        while let Some(batch) = waiting.remove(&next) {
            ordered.take(batch)?;
            next += 1;
            // The reader may be gone (input ended); a token nobody takes is harmless.
            let _ = tokens.send(());
        }
    }
    // Closing the token channel is what stops a reader still waiting for room.
    drop(tokens);
    Ok(())
}

/// Where converted batches go: their records to the output, their counts to the report,
/// their rejects aside.
pub(super) struct Ordered<'a, S> {
    /// `--on-error skip`: bad records are set aside and the run goes on.
    pub(super) skip: bool,
    pub(super) output: &'a mut S,
    pub(super) rejects: Option<&'a mut RecordWriter>,
    pub(super) report: &'a mut ConversionReport,
    pub(super) progress: Progress,
    /// Each `instance_id` written so far.
    pub(super) ids: SeenIds,
    /// The inputs' names, by index.
    pub(super) files: &'a [String],
    /// Set once the report lists as many incomplete records as it keeps
    /// ([`super::job::Shared::incomplete_listed`]).
    pub(super) incomplete_listed: &'a AtomicBool,
    /// Records whose `instance_id` repeats an earlier one.
    pub(super) repeats: u64,
    /// How the records written so far went through.
    pub(super) paths: FastPaths,
}

impl<S: Sink> Ordered<'_, S> {
    /// Writes a converted batch, merges its counts, and sets aside (or stops at) its
    /// rejected records.
    fn take(&mut self, done: DoneFor<S>) -> Result<(), CliError> {
        let Done { tally, encoded, .. } = done;
        if let Some(e) = tally.failed {
            return Err(e);
        }
        let Tally {
            report,
            rejects,
            bytes,
            source,
            ids,
            paths,
            ..
        } = tally;
        self.report.merge(report);
        self.paths.add(paths);
        if self.report.incomplete_records.len() >= MAX_LISTED {
            self.incomplete_listed.store(true, Ordering::Relaxed);
        }
        self.progress.tick(self.report.read, bytes);
        let mut rejects = rejects.into_iter();
        if !self.skip
            && let Some(first) = rejects.next()
        {
            return Err(CliError::Rejected {
                rejection: Box::new(first.rejection),
                hint: first.hint,
            });
        }
        self.output.write(encoded)?;
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
            crate::terminal::say!("warning: {file}:{line}: instance_id {id:?} {message}");
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
