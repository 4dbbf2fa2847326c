//! `cargo isobench convert`: read records of one format, write them in another.

use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::fmt::Write as _;
use std::fs;
use std::hash::{Hash, Hasher};
use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use isobench_core::adapter::{ExportOptions, ViewAdapter};
use isobench_core::codec::JsonStyle;
use isobench_core::contract::Problem;
use isobench_core::passthrough::{self, Passed};
use isobench_core::report::{Covered, MAX_LISTED, NoteKind, RecordWarning, Rejection};
use isobench_core::{Contract, ConversionReport, Notes, RecordError, Registry};
use serde_json::{Map, Value};

use crate::assign::{self, Assignment};
use crate::cli::OnError;
use crate::errors::CliError;
use crate::input::{self, Batch, Item, PassKey, Passing, Source, Window};
use crate::output::RecordWriter;
use crate::plan::{ConvertPlan, Shard};
use crate::{exit, find};

/// The formats whose import accepts `record`, for the hint after a failed import.
pub fn formats_accepting(registry: &Registry, record: &Map<String, Value>) -> Vec<String> {
    registry
        .iter()
        .filter(|a| a.import(record.clone(), &mut Notes::new()).is_ok())
        .map(|a| a.info().name.clone())
        .collect()
}

/// What a finished conversion gives: its exit code and its report.
#[derive(Debug)]
pub struct Finished {
    /// [`exit::OK`], or [`exit::RECORDS`] when some record was rejected or incomplete.
    pub code: i32,
    /// The conversion report.
    pub report: ConversionReport,
}

/// Runs `convert` as planned; the exit code.
pub fn run(registry: &Registry, plan: &ConvertPlan) -> Result<i32, CliError> {
    execute(registry, plan).map(|finished| finished.code)
}

/// Runs a planned conversion.
pub fn execute(registry: &Registry, plan: &ConvertPlan) -> Result<Finished, CliError> {
    let from = find(registry, &plan.from)?;
    let to = find(registry, &plan.to)?;
    let profile = plan.profile;
    let sources = &plan.inputs;
    if sources.contains(&Source::Stdin) && std::io::stdin().is_terminal() {
        eprintln!(
            "reading records from stdin, which is a terminal: paste JSON Lines and end with Ctrl-D, or give files with `-i FILE`"
        );
    }
    let output = plan.output.as_deref();
    let rejects = plan.errors.rejects();
    let on_error = plan.errors.on_error();
    let fixed_style = plan.json_style;
    let mut window = match plan.shard {
        Some(shard) => shard_window(shard, sources)?,
        None => Window::default(),
    };
    if let Some(limit) = plan.limit {
        window.take = Some(window.take.map_or(limit, |n| n.min(limit)));
    }
    let mut writer = if plan.dry_run {
        RecordWriter::discard()
    } else {
        RecordWriter::create_with_schema(
            output,
            plan.overwrite,
            fixed_style.unwrap_or_default(),
            Some(to.schema()),
        )?
    };
    let mut rejects_writer = match (rejects, plan.dry_run) {
        (Some(path), false) => Some(RecordWriter::create(
            Some(path),
            plan.overwrite,
            JsonStyle::Compact,
        )?),
        _ => None,
    };
    let mut report = ConversionReport::new(&from.info().name, &to.info().name, profile.as_str());
    report.inputs = sources.iter().map(Source::display).collect();
    report.output = output.map_or_else(|| "-".to_owned(), |p| p.display().to_string());

    let jobs = plan.jobs;
    // `--set` and enrichment may change any field, passed strings included.
    let passing = if plan.assignments.is_empty() && plan.enrich.is_none() {
        passing_keys(from, to)
    } else {
        Vec::new()
    };
    let shared = Shared {
        registry,
        from,
        to,
        options: ExportOptions::with_profile(profile),
        assignments: plan.assignments.clone(),
        allow_incomplete: plan.allow_incomplete,
        on_error,
        files: report.inputs.clone(),
        enrich: plan.enrich.clone(),
        passing,
        // Those in flight, and those just given back.
        buffers: Buffers::new(2 * IN_FLIGHT_PER_JOB * jobs + 2),
    };
    let mut sink = Sink {
        on_error,
        writer: &mut writer,
        rejects: rejects_writer.as_mut(),
        report: &mut report,
        progress: Progress::new(total_bytes(sources)),
        ids: SeenIds::default(),
        files: &shared.files,
        buffers: &shared.buffers,
        repeats: 0,
    };
    let settings = Settings {
        jobs,
        window,
        fixed_style,
    };
    let outcome = pipeline(&shared, sources, settings, &mut sink);
    sink.progress.finish(sink.report.read);
    if sink.repeats > MAX_LISTED as u64 {
        eprintln!(
            "warning: {} more records repeat an earlier instance_id (not listed)",
            sink.repeats - MAX_LISTED as u64
        );
    }
    if let Err(e) = outcome {
        eprint!("{}", report.summary());
        eprintln!("stopped: nothing was written");
        return Err(e);
    }
    // An empty part of a `--shard` split is a part all the same.
    if report.read == 0 && plan.shard.is_none() {
        return Err(CliError::Record(
            format!("no records in {}", report.inputs.join(", ")),
            Some("the input is empty (or only blank lines)".into()),
        ));
    }
    writer.finish()?;
    if let Some(w) = rejects_writer {
        w.finish()?;
    }
    if let Some(path) = &plan.report {
        let text = serde_json::to_string_pretty(&report).expect("the report serialises");
        fs::write(path, text + "\n").map_err(|e| CliError::Write {
            path: path.clone(),
            source: e,
        })?;
    }
    if !plan.quiet {
        eprint!("{}", report.summary());
        if let Some(path) = rejects {
            eprintln!(
                "read = written + rejected: {} = {} + {}; rejects in `{}`",
                report.read,
                report.written,
                report.rejected,
                path.display()
            );
        }
    }
    let code = if report.all_written() {
        exit::OK
    } else {
        exit::RECORDS
    };
    Ok(Finished { code, report })
}

/// The summed size of the file inputs, when every input is a file (for the progress ETA).
fn total_bytes(sources: &[Source]) -> Option<u64> {
    sources.iter().try_fold(0u64, |sum, source| match source {
        Source::File(p) if input::Compression::of(p) == input::Compression::None => {
            Some(sum + fs::metadata(p).ok()?.len())
        }
        _ => None,
    })
}

/// Converts records held in memory, batch by batch, as [`run`] converts those of its
/// inputs (the same adapters, `--set`, contract checks and rejects): for callers that hold
/// the records, such as the Python bindings. Batches are numbered on, one line or row
/// after another, as if they were one input named `name`.
pub struct BatchConverter<'r> {
    shared: Shared<'r>,
    notes: Notes,
    enricher: Option<crate::mine::Enricher>,
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
        let from = find(registry, &plan.from)?;
        let to = find(registry, &plan.to)?;
        let passing = if plan.assignments.is_empty() && plan.enrich.is_none() {
            passing_keys(from, to)
        } else {
            Vec::new()
        };
        let enricher = plan.enrich.clone().map(crate::mine::Enricher::new);
        Ok(Self {
            shared: Shared {
                registry,
                from,
                to,
                options: ExportOptions::with_profile(plan.profile),
                assignments: plan.assignments.clone(),
                allow_incomplete: plan.allow_incomplete,
                on_error: plan.errors.on_error(),
                files: vec![name.to_owned()],
                enrich: None,
                passing,
                buffers: Buffers::new(2),
            },
            notes: Notes::new(),
            enricher,
            style: plan.json_style,
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

/// `--shard K/N`: the window of items (across all inputs, in order) that shard K of N
/// converts: the K-th of N contiguous, near-equal ranges.
fn shard_window(Shard { k, n }: Shard, sources: &[Source]) -> Result<Window, CliError> {
    let mut total = 0u64;
    for source in sources {
        total += input::count_items(source)?;
    }
    let bound = |i: u64| {
        u64::try_from(u128::from(total) * u128::from(i) / u128::from(n))
            .expect("a part of a u64 count fits a u64")
    };
    let (skip, end) = (bound(k - 1), bound(k));
    Ok(Window {
        skip,
        take: Some(end - skip),
    })
}

/// What every worker shares.
struct Shared<'a> {
    registry: &'a Registry,
    from: &'a dyn ViewAdapter,
    to: &'a dyn ViewAdapter,
    options: ExportOptions,
    assignments: Vec<Assignment>,
    /// `--allow-incomplete`: records the target's contract finds lacking are written.
    allow_incomplete: bool,
    on_error: OnError,
    /// The inputs' names, by index.
    files: Vec<String>,
    /// `--repos` / `enrich` enrichment; each worker builds its own enricher from it.
    enrich: Option<crate::mine::EnrichConfig>,
    /// The input keys whose values go to the output as they were read.
    passing: Vec<PassKey<'a>>,
    /// Batch buffers, given back once used.
    buffers: Buffers,
}

/// Byte buffers of about a batch's size, given back once used (a batch's input by its
/// worker, its output by the writer) and taken for the next batches. Each batch is
/// allocated on one thread and freed on another: fresh buffers for each made glibc's
/// free lists, and so the peak memory, grow with the length of the input. At most `n`
/// buffers wait; `take` never blocks.
struct Buffers {
    give: crossbeam_channel::Sender<Vec<u8>>,
    take: crossbeam_channel::Receiver<Vec<u8>>,
}

impl Buffers {
    fn new(n: usize) -> Self {
        let (give, take) = crossbeam_channel::bounded(n);
        Self { give, take }
    }

    /// An empty buffer, used before when there is one.
    fn take(&self) -> Vec<u8> {
        let mut buffer = self.take.try_recv().unwrap_or_default();
        buffer.clear();
        buffer
    }

    /// Gives `buffer` back: dropped when enough wait already, or when an outsized record
    /// made it much larger than a batch.
    fn give(&self, buffer: Vec<u8>) {
        if buffer.capacity() <= 4 * BATCH_BYTES {
            let _ = self.give.try_send(buffer);
        }
    }
}

/// The input keys whose values can go from input to output as they were read: `from`
/// moves them unread into canonical fields that `to` writes unread. Never the
/// `instance_id`, which the conversion reads (repeated ids, rejected records), whatever
/// the adapters declare.
pub fn passing_keys<'a>(from: &'a dyn ViewAdapter, to: &dyn ViewAdapter) -> Vec<PassKey<'a>> {
    from.verbatim_imports()
        .iter()
        .filter(|(key, field)| key != "instance_id" && field != "instance_id")
        .filter(|(_, field)| to.verbatim_exports().contains(field))
        .map(|(key, field)| PassKey {
            key,
            list: passthrough::is_list_field(field),
        })
        .collect()
}

/// How the pipeline runs.
#[derive(Debug, Clone, Copy)]
struct Settings {
    jobs: usize,
    window: Window,
    fixed_style: Option<JsonStyle>,
}

/// Bytes of JSON Lines read per batch.
const BATCH_BYTES: usize = 1 << 20;
/// Batches in flight (read, being converted, or waiting to be written) per worker.
const IN_FLIGHT_PER_JOB: usize = 3;

/// A batch to convert.
struct Work {
    seq: u64,
    batch: Batch,
    style: JsonStyle,
}

/// A converted batch: the output records, in order, the tallies of their notes, and the
/// rejected records.
#[derive(Debug, Default)]
struct Done {
    seq: u64,
    /// The output records, serialised back to back, each followed by a line end.
    out: Vec<u8>,
    /// Where each record of `out` ends (before its line end).
    ends: Vec<usize>,
    /// This batch's counts, merged into the run's report in order.
    report: ConversionReport,
    rejects: Vec<Reject>,
    bytes: u64,
    /// The input the batch comes from (its index).
    source: usize,
    /// The `instance_id` and line of each written record that has one, in order.
    ids: Vec<(String, u64)>,
}

/// A rejected record, with what the rejects file says of it.
#[derive(Debug)]
struct Reject {
    rejection: Rejection,
    hint: Option<String>,
    verbatim: (&'static str, Value),
}

/// Reads the inputs on one thread, converts batches on `jobs` threads, and writes the
/// results in input order on this one. Channels are bounded and a fixed number of batches
/// is in flight at any time, so memory does not grow with the input.
fn pipeline(
    shared: &Shared<'_>,
    sources: &[Source],
    settings: Settings,
    sink: &mut Sink<'_>,
) -> Result<(), CliError> {
    let in_flight = settings.jobs * IN_FLIGHT_PER_JOB;
    let (work_tx, work_rx) = crossbeam_channel::bounded::<Work>(in_flight);
    let (done_tx, done_rx) = crossbeam_channel::bounded::<Done>(in_flight);
    let (token_tx, token_rx) = crossbeam_channel::bounded::<()>(in_flight);
    for _ in 0..in_flight {
        token_tx
            .send(())
            .expect("the token channel has room for every token");
    }
    std::thread::scope(|scope| {
        let buffers = &shared.buffers;
        let reader = scope.spawn(move || read_all(sources, settings, buffers, &token_rx, &work_tx));
        for _ in 0..settings.jobs {
            let (work_rx, done_tx) = (work_rx.clone(), done_tx.clone());
            scope.spawn(move || {
                let mut job = Job {
                    shared,
                    notes: Notes::new(),
                    enricher: shared.enrich.clone().map(crate::mine::Enricher::new),
                };
                for work in work_rx {
                    if done_tx.send(job.batch(work)).is_err() {
                        break;
                    }
                }
            });
        }
        drop((work_rx, done_tx));
        let written = write_in_order(done_rx, token_tx, sink);
        // On an error the channels are closed by now, so the reader and workers stop.
        let read = reader
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        written.and(read)
    })
}

/// The reader thread: every input in order, in batches, each sent once a token says there
/// is room.
fn read_all(
    sources: &[Source],
    settings: Settings,
    buffers: &Buffers,
    tokens: &crossbeam_channel::Receiver<()>,
    work: &crossbeam_channel::Sender<Work>,
) -> Result<(), CliError> {
    let mut window = settings.window;
    let mut style = settings.fixed_style;
    let mut seq = 0u64;
    for (index, source) in sources.iter().enumerate() {
        let mut open = true;
        let fresh = || buffers.take();
        input::read_batches(source, index, BATCH_BYTES, &mut window, &fresh, |batch| {
            let style = *style.get_or_insert_with(|| first_style(&batch));
            open = tokens.recv().is_ok() && work.send(Work { seq, batch, style }).is_ok();
            seq += 1;
            open
        })?;
        if !open || window.done() {
            break;
        }
    }
    Ok(())
}

/// The style of the output when none is given: that of the first record, when the first
/// item is one; compact otherwise.
fn first_style(batch: &Batch) -> JsonStyle {
    let Some(item) = batch.items.first() else {
        return JsonStyle::default();
    };
    match &item.parsed {
        Some(Ok(_)) => batch.array_style.unwrap_or_default(),
        Some(Err(_)) => JsonStyle::default(),
        None => {
            let raw = batch.raw(item);
            if input::parse_record(raw, item.complete).is_ok() {
                input::style_of(raw).unwrap_or_default()
            } else {
                JsonStyle::default()
            }
        }
    }
}

/// The writer: takes converted batches as they come, and writes them in input order.
fn write_in_order(
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

/// What [`Sink`] keeps of an `instance_id`: a 128-bit digest, so that each id costs a
/// small fixed size and no string outlives its batch (long-lived small strings scattered
/// through the heap keep the allocator from giving freed batches back). Two of n ids
/// share a digest with odds of about n² / 2¹²⁹.
fn id_digest(id: &str) -> u128 {
    let half = |salt: u8| {
        let mut hasher = DefaultHasher::new();
        salt.hash(&mut hasher);
        id.hash(&mut hasher);
        hasher.finish()
    };
    u128::from(half(0)) << 64 | u128::from(half(1))
}

/// The `instance_id`s written so far, by [`id_digest`], each with where it was first
/// seen (input, line).
///
/// A hash table of every id would cost about 50 bytes an id at its peak (buckets kept
/// half empty, and the old table alongside the new while it grows): most of the memory
/// that grows with the input. Instead, the ids live in a sorted array (24 bytes each),
/// looked up by binary search, and only the latest ones in a small hash table, merged
/// into the array when they reach an eighth of it.
#[derive(Default)]
struct SeenIds {
    /// Sorted by digest, each digest once.
    sorted: Vec<SeenId>,
    /// The latest ids, none of them in `sorted`.
    recent: HashMap<u128, (usize, u64)>,
}

/// One entry of [`SeenIds::sorted`]: a digest and where it was first seen, packed into
/// three words (a `u128` would align the entry to 32 bytes).
#[derive(Clone, Copy)]
struct SeenId {
    digest: [u64; 2],
    /// The input's index in the top 24 bits, the line in the other 40.
    at: u64,
}

impl SeenId {
    const LINE_BITS: u32 = 40;

    fn new(digest: u128, (source, line): (usize, u64)) -> Self {
        let source = source as u64;
        debug_assert!(source < 1 << (64 - Self::LINE_BITS) && line < 1 << Self::LINE_BITS);
        Self {
            digest: Self::halves(digest),
            at: source << Self::LINE_BITS | line,
        }
    }

    // Truncation is deliberate: the halves of the digest.
    #[allow(clippy::cast_possible_truncation)]
    fn halves(digest: u128) -> [u64; 2] {
        [(digest >> 64) as u64, digest as u64]
    }

    fn at(self) -> (usize, u64) {
        let source = usize::try_from(self.at >> Self::LINE_BITS).expect("24 bits fit a usize");
        (source, self.at & ((1 << Self::LINE_BITS) - 1))
    }
}

impl SeenIds {
    /// The smallest number of recent ids worth a merge.
    const MIN_MERGE: usize = 4096;

    /// Where `digest` was first seen, if it was; else remembers it as seen at `at`.
    fn first_or_insert(&mut self, digest: u128, at: (usize, u64)) -> Option<(usize, u64)> {
        if let Some(first) = self.recent.get(&digest) {
            return Some(*first);
        }
        let key = SeenId::halves(digest);
        if let Ok(i) = self.sorted.binary_search_by_key(&key, |s| s.digest) {
            return Some(self.sorted[i].at());
        }
        self.recent.insert(digest, at);
        if self.recent.len() >= Self::MIN_MERGE.max(self.sorted.len() / 8) {
            self.sorted
                .extend(self.recent.drain().map(|(d, at)| SeenId::new(d, at)));
            self.sorted.sort_unstable_by_key(|s| s.digest);
        }
        None
    }
}

/// A record's `instance_id`, when it has a string one.
fn instance_id_of(record: &Map<String, Value>) -> Option<String> {
    record
        .get("instance_id")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// Where converted batches go.
struct Sink<'a> {
    on_error: OnError,
    writer: &'a mut RecordWriter,
    rejects: Option<&'a mut RecordWriter>,
    report: &'a mut ConversionReport,
    progress: Progress,
    /// Each `instance_id` written so far.
    ids: SeenIds,
    /// The inputs' names, by index.
    files: &'a [String],
    /// Where written batches' buffers go back.
    buffers: &'a Buffers,
    /// Records whose `instance_id` repeats an earlier one.
    repeats: u64,
}

impl Sink<'_> {
    /// Writes a converted batch, merges its counts, and sets aside (or stops at) its
    /// rejected records.
    fn take(&mut self, done: Done) -> Result<(), CliError> {
        let Done {
            out,
            ends,
            report,
            rejects,
            bytes,
            source,
            ids,
            ..
        } = done;
        self.report.merge(report);
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
        self.writer.write_lines(&out, &ends)?;
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
            eprintln!("warning: {file}:{line}: instance_id {id:?} {message}");
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

/// A line of the rejects file.
fn rejection_line(
    rejection: &Rejection,
    hint: Option<String>,
    verbatim: (&str, Value),
) -> Map<String, Value> {
    let mut line = Map::new();
    line.insert("file".into(), rejection.file.clone().into());
    line.insert("line".into(), rejection.line.into());
    if let Some(id) = &rejection.instance_id {
        line.insert("instance_id".into(), id.clone().into());
    }
    line.insert("pointer".into(), rejection.pointer.clone().into());
    line.insert("error".into(), rejection.message.clone().into());
    if let Some(hint) = hint {
        line.insert("hint".into(), hint.into());
    }
    line.insert(verbatim.0.into(), verbatim.1);
    line
}

/// One worker's conversion state.
struct Job<'a> {
    shared: &'a Shared<'a>,
    enricher: Option<crate::mine::Enricher>,
    notes: Notes,
}

impl Job<'_> {
    /// Converts a batch, in order; under `--on-error fail` it stops at the first bad
    /// record.
    fn batch(&mut self, work: Work) -> Done {
        let Work { seq, batch, style } = work;
        let Batch {
            source,
            text,
            items,
            bytes,
            ..
        } = batch;
        let shared = self.shared;
        let mut out = shared.buffers.take();
        out.reserve(text.len() + text.len() / 4);
        let mut done = Done {
            seq,
            out,
            bytes,
            source,
            ..Done::default()
        };
        let file = shared.files[source].as_str();
        let passing = Passing {
            keys: &shared.passing,
            style,
        };
        let mut passed = Passed::default();
        for item in items {
            let raw = &text[item.range.clone()];
            passed.clear();
            let record = item.parsed.unwrap_or_else(|| {
                if shared.from.imports_from_text() {
                    // The adapter reads the text: check it, build nothing.
                    input::check_record_passing(raw, item.complete, passing, &mut passed)
                        .map(|()| Value::Object(Map::new()))
                } else {
                    input::parse_record_passing(raw, item.complete, passing, &mut passed)
                }
            });
            let item = Item {
                line: item.line,
                raw,
                style: None,
                record,
            };
            if !self.item(file, item, &passed, style, &mut done) {
                break;
            }
        }
        shared.buffers.give(text);
        done
    }

    /// Converts one item into `done`; `false` stops the batch (a bad record under
    /// `--on-error fail`).
    /// `passed`: the texts its record's markers stand for.
    fn item(
        &mut self,
        file: &str,
        item: Item<'_>,
        passed: &Passed,
        style: JsonStyle,
        done: &mut Done,
    ) -> bool {
        let shared = self.shared;
        done.report.read += 1;
        let Item {
            line, raw, record, ..
        } = item;
        let map = match record {
            Ok(Value::Object(map)) => map,
            Ok(_) => unreachable!("the reader yields objects or errors"),
            Err(bad) => {
                let rejection = Rejection {
                    file: file.to_owned(),
                    line,
                    instance_id: None,
                    pointer: String::new(),
                    message: bad.message,
                };
                let verbatim = bad.value.map_or_else(|| raw_value(raw), |v| ("record", v));
                return self.reject(done, rejection, bad.hint, verbatim);
            }
        };
        let instance_id = instance_id_of(&map);
        // Arrays give no raw text: keep the record for the rejects file.
        let kept = (shared.on_error == OnError::Skip && raw.is_empty()).then(|| map.clone());
        self.notes.clear();
        // JSON Lines give the record's text too, which a plugin takes as it is, with
        // markers for the strings it moves unread.
        let imported = if raw.is_empty() {
            shared.from.import(map, &mut self.notes)
        } else if passed.is_empty() {
            shared.from.import_text(map, raw, &mut self.notes)
        } else if shared.from.imports_from_text() {
            let text = input::with_markers(raw, passed);
            shared.from.import_text(map, &text, &mut self.notes)
        } else {
            shared.from.import(map, &mut self.notes)
        };
        let converted = imported
            .and_then(|c| assign::apply(c, &shared.assignments, &mut self.notes))
            .and_then(|mut c| match &mut self.enricher {
                Some(e) => e.apply(&mut c, &mut self.notes).map(|()| c),
                None => Ok(c),
            })
            .and_then(|c| {
                let covered = Covered::of(&c);
                shared
                    .to
                    .export_owned(c, &shared.options, &mut self.notes)
                    .map(|out| (covered, out))
            })
            .and_then(|(covered, mut out)| {
                self.meet_contract(&mut out, passed, raw)
                    .map(|()| (covered, out))
            });
        match converted {
            Ok((covered, out)) => {
                if passed.is_empty() {
                    style.write_object(&mut done.out, &out);
                } else {
                    style.write_object_passing(&mut done.out, &out, &passed.texts(raw));
                }
                done.ends.push(done.out.len());
                done.out.push(b'\n');
                done.report.written += 1;
                done.report
                    .record_covered(&covered, &self.notes, file, line);
                if let Some(id) = covered.instance_id {
                    done.ids.push((id, line));
                }
                true
            }
            Err(e) => {
                let original = kept.map(Value::Object);
                let hint = e
                    .hint
                    .clone()
                    .or_else(|| self.format_hint(raw, original.as_ref()));
                // A record only checked (`imports_from_text`) came as an empty map: its
                // id is read from its text, now that it is wanted.
                let instance_id = instance_id.or_else(|| {
                    let checked_only = shared.from.imports_from_text() && !raw.is_empty();
                    checked_only
                        .then(|| serde_json::from_slice(raw).ok())
                        .flatten()
                        .and_then(|map| instance_id_of(&map))
                });
                let rejection = Rejection {
                    file: file.to_owned(),
                    line,
                    instance_id,
                    pointer: e.pointer,
                    message: e.message,
                };
                let verbatim = original.map_or_else(|| raw_value(raw), |v| ("record", v));
                self.reject(done, rejection, hint, verbatim)
            }
        }
    }

    /// Holds an exported record to what the target's consumer requires: writes the
    /// target's own "none" where the source has no such field, then refuses a record that
    /// still lacks an item, or, with `--allow-incomplete`, counts it as incomplete.
    /// `passed` and `raw`: the texts the record's markers stand for.
    fn meet_contract(
        &mut self,
        out: &mut Map<String, Value>,
        passed: &Passed,
        raw: &[u8],
    ) -> Result<(), RecordError> {
        let target = self.shared.to.info();
        let contract = &target.contract;
        if contract.is_empty() {
            return Ok(());
        }
        // A format's own "none" stands in only for a concept the source format lacks: a
        // record of the target's own format without the key is incomplete, not empty.
        let same_format = self.shared.from.info().name == target.name;
        let filled = if same_format {
            Vec::new()
        } else {
            contract.fill_none_values(out)
        };
        for filled in filled {
            self.notes.defaulted(
                &filled.key,
                format!(
                    "written as {}, the value {} itself uses for none: the source has no such field",
                    filled.none_value.as_ref().map_or_else(String::new, Value::to_string),
                    target.name
                ),
            );
        }
        let text_of = |s: &str| passthrough::index_of(s).and_then(|index| passed.text(raw, index));
        let unmet = contract.check(out, &text_of);
        let Some(first) = unmet.first() else {
            return Ok(());
        };
        if self.shared.allow_incomplete {
            for u in &unmet {
                let r = u.requirement;
                // Pushed as it is: the target's key is missing from what is written even
                // where a canonical field of the same name was derived (a GSO `version`
                // signature is no SWE-bench release).
                let written = if u.problem == Problem::Unknown {
                    "written with a value it does not know"
                } else {
                    "written without it"
                };
                self.notes.push(
                    NoteKind::Missing,
                    &r.key,
                    format!(
                        "{} needs it ({}); {written} (`--allow-incomplete`): supply it with {}",
                        target.name,
                        r.evidence,
                        r.how_to_supply()
                    ),
                );
            }
            return Ok(());
        }
        Err(RecordError::missing(
            first.requirement.pointer(),
            contract.refusal(&target.name, &unmet),
        )
        .with_hint(Contract::remedy(&unmet)))
    }

    /// When another format would accept the record, says so.
    fn format_hint(&self, raw: &[u8], original: Option<&Value>) -> Option<String> {
        let parsed;
        let record = if let Some(Value::Object(map)) = original {
            map
        } else {
            parsed = serde_json::from_slice::<Map<String, Value>>(raw).ok()?;
            &parsed
        };
        let accepting = formats_accepting(self.shared.registry, record);
        let from = &self.shared.from.info().name;
        if accepting.is_empty() || accepting.contains(from) {
            return None;
        }
        Some(format!(
            "the record reads as {}: give that format to `--from`",
            accepting
                .iter()
                .map(|f| format!("`--from {f}`"))
                .collect::<Vec<_>>()
                .join(" or "),
        ))
    }

    /// Sets a bad record aside; `false` when the run stops at it (`--on-error fail`).
    fn reject(
        &mut self,
        done: &mut Done,
        rejection: Rejection,
        hint: Option<String>,
        verbatim: (&'static str, Value),
    ) -> bool {
        done.rejects.push(Reject {
            rejection,
            hint,
            verbatim,
        });
        self.shared.on_error == OnError::Skip
    }
}

/// The raw text of a rejected line, as a JSON string (hex when it is not UTF-8).
fn raw_value(raw: &[u8]) -> (&'static str, Value) {
    match std::str::from_utf8(raw) {
        Ok(text) => ("raw", Value::String(text.to_owned())),
        Err(_) => ("raw_hex", Value::String(isobench_core::codec::hex(raw))),
    }
}

/// `file:line: record `id`: `pointer`: message`.
pub fn describe(r: &Rejection) -> String {
    let mut text = format!("{}:{}", r.file, r.line);
    if let Some(id) = &r.instance_id {
        let _ = write!(text, ": record `{id}`");
    }
    if !r.pointer.is_empty() {
        let _ = write!(text, ": `{}`", r.pointer);
    }
    text.push_str(": ");
    text.push_str(&r.message);
    text
}

/// A one-line progress count on stderr, only when stderr is a terminal.
struct Progress {
    enabled: bool,
    total: Option<u64>,
    bytes: u64,
    started: Instant,
    last: Instant,
    shown: bool,
}

impl Progress {
    fn new(total: Option<u64>) -> Self {
        let now = Instant::now();
        Self {
            enabled: std::io::stderr().is_terminal(),
            total,
            bytes: 0,
            started: now,
            last: now,
            shown: false,
        }
    }

    fn tick(&mut self, read: u64, bytes: u64) {
        self.bytes += bytes;
        if !self.enabled || self.last.elapsed() < Duration::from_millis(500) {
            return;
        }
        self.last = Instant::now();
        let (_, mb, speed, rate) = self.rates(read);
        let eta = match self.total {
            #[allow(clippy::cast_precision_loss)] // an estimate for display
            Some(total) if speed > 0.0 => {
                format!(
                    ", ETA {:.0} s",
                    (total.saturating_sub(self.bytes) as f64 / 1e6) / speed
                )
            }
            _ => String::new(),
        };
        eprint!("\r\x1b[K{read} records, {mb:.0} MB ({speed:.0} MB/s, {rate:.0} records/s{eta})");
        let _ = std::io::stderr().flush();
        self.shown = true;
    }

    /// Replaces the progress line with a final one: records, megabytes and throughput.
    fn finish(&mut self, read: u64) {
        if !self.enabled {
            return;
        }
        self.clear();
        let (secs, mb, speed, rate) = self.rates(read);
        eprintln!(
            "{read} records, {mb:.1} MB in {secs:.1} s ({speed:.0} MB/s, {rate:.0} records/s)"
        );
    }

    /// Seconds so far, megabytes read, MB/s and records/s.
    fn rates(&self, read: u64) -> (f64, f64, f64, f64) {
        let secs = self.started.elapsed().as_secs_f64().max(1e-3);
        #[allow(clippy::cast_precision_loss)] // rates for display
        let (mb, rate) = (self.bytes as f64 / 1e6, read as f64 / secs);
        (secs, mb, mb / secs, rate)
    }

    fn clear(&mut self) {
        if self.shown {
            eprint!("\r\x1b[K");
            self.shown = false;
        }
    }
}
