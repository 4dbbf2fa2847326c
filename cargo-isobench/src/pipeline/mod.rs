//! The conversion pipeline: `cargo isobench convert` and every front end that converts
//! (`enrich`, the Python bindings) run a [`ConvertPlan`] here.
//!
//! One module per concern:
//!
//! - [`plan`]: the validated plan a front end builds;
//! - `job`: a worker's conversion of a batch, record by record;
//! - `ordered`: writing converted batches in input order;
//! - `sink`: where records go, one sink and encoder per output, chosen once;
//! - `seen_ids`: the table of `instance_id`s written, for repeats;
//! - `buffers`: the pool of batch buffers;
//! - `progress`: the progress line on a terminal;
//! - [`summary`]: the summary on stderr;
//! - `converter`: [`BatchConverter`], for records held in memory.
//!
//! Reading is the [`crate::input`] module's.

mod buffers;
mod converter;
mod job;
mod ordered;
#[cfg(all(test, feature = "parquet"))]
mod parquet_input;
#[cfg(all(test, feature = "parquet"))]
mod parquet_output;
mod paths;
pub mod plan;
mod progress;
mod seen_ids;
mod sink;
pub mod summary;

use std::fs;
use std::io::{IsTerminal, Write};

use isobench_core::codec::JsonStyle;
use isobench_core::report::MAX_LISTED;
use isobench_core::{ConversionReport, Registry};

pub use converter::{BatchConverter, ConvertedBatch, HoldingBatch, HoldingRecord};
pub use paths::FastPaths;
pub use plan::{ConvertPlan, ConvertRequest};
pub use sink::{ExportedRecord, FolderError, HeldAt};

use buffers::{BATCH_BYTES, Buffers};
use job::{Done, Job, Shared, Work, first_style};
use ordered::{Ordered, write_in_order};
use plan::Shard;
use progress::Progress;
use seen_ids::SeenIds;
use sink::{Encoder, IntoSink, Sink};

use crate::errors::CliError;
use crate::exit;
use crate::input::{self, Input, InputError, Window};
use crate::output::RecordWriter;
use crate::output_file::OutputFile;

/// Batches in flight (read, being converted, or waiting to be written) per worker.
const IN_FLIGHT_PER_JOB: usize = 3;

/// What a finished conversion gives: its exit code, its report, and how its records
/// went through.
#[derive(Debug)]
pub struct Finished {
    /// [`exit::OK`], or [`exit::RECORDS`] when some record was rejected or incomplete.
    pub code: i32,
    /// The conversion report.
    pub report: ConversionReport,
    /// Which ways the records took.
    pub paths: FastPaths,
}

/// Runs `convert` as planned; the exit code.
pub fn run(registry: &Registry, plan: &ConvertPlan) -> Result<i32, CliError> {
    execute(registry, plan).map(|finished| finished.code)
}

/// Runs a planned conversion.
pub fn execute(registry: &Registry, plan: &ConvertPlan) -> Result<Finished, CliError> {
    let sources = &plan.inputs;
    if sources.contains(&Input::Stdin) && std::io::stdin().is_terminal() {
        crate::terminal::say!(
            "reading records from stdin, which is a terminal: paste JSON Lines and end with Ctrl-D, or give files with `-i FILE`"
        );
    }
    let files: Vec<String> = sources.iter().map(Input::display).collect();
    // Those in flight, and those just given back.
    let buffers = Buffers::new(2 * IN_FLIGHT_PER_JOB * plan.jobs() + 2);
    let shared = Shared::for_plan(registry, plan, files, buffers)?;
    let settings = Settings {
        jobs: plan.jobs(),
        window: window_of(plan)?,
        fixed_style: plan.json_style(),
    };
    // Columnar output takes its columns from the lossless profile's schema, whose fields
    // hold the strict profile's too: the columns do not depend on `--profile`.
    let schema = shared.to.schema(isobench_core::Profile::Lossless);
    let folder = shared.to.info().folder.as_ref();
    sink::open(plan, schema, folder, &shared.buffers)?.run(Conversion {
        plan,
        shared: &shared,
        settings,
    })
}

/// A planned conversion, its output open: run into whichever sink the output is.
struct Conversion<'c, 'r> {
    plan: &'c ConvertPlan,
    shared: &'c Shared<'r>,
    settings: Settings,
}

impl IntoSink for Conversion<'_, '_> {
    type Output = Result<Finished, CliError>;

    fn run<S: Sink>(self, mut output: S) -> Result<Finished, CliError> {
        let Self {
            plan,
            shared,
            settings,
        } = self;
        let sources = &plan.inputs;
        let mut rejects_writer = open_rejects(plan)?;
        let report_file = plan
            .report
            .as_deref()
            .map(|path| OutputFile::create(path, plan.overwrite))
            .transpose()?;
        let mut report = ConversionReport::new(
            &shared.from.info().name,
            &shared.to.info().name,
            plan.profile().as_str(),
        );
        report.inputs.clone_from(&shared.files);
        if let Some(table) = shared.to.table() {
            report.written_as = table
                .fields
                .iter()
                .filter_map(|f| Some((f.to.clone()?, f.key.clone())))
                .collect();
        }
        report.output = plan
            .output
            .as_deref()
            .map_or_else(|| "-".to_owned(), |p| p.display().to_string());
        let streams = output.streams();
        let mut ordered = Ordered {
            skip: shared.skip,
            output: &mut output,
            rejects: rejects_writer.as_mut(),
            report: &mut report,
            progress: Progress::new(total_bytes(sources)),
            ids: SeenIds::default(),
            files: &shared.files,
            incomplete_listed: &shared.incomplete_listed,
            repeats: 0,
            paths: FastPaths::default(),
        };
        let outcome = pipeline(shared, sources, settings, &mut ordered);
        ordered.progress.finish(ordered.report.read);
        if ordered.repeats > MAX_LISTED as u64 {
            crate::terminal::say!(
                "warning: {} more records repeat an earlier instance_id (not listed)",
                ordered.repeats - MAX_LISTED as u64
            );
        }
        if let Err(e) = outcome {
            eprint!(
                "{}",
                crate::terminal::shown(&summary::stopped(&report, streams))
            );
            return Err(e);
        }
        let context = summary::Context {
            source_fills: &shared.from.info().fills,
        };
        let paths = ordered.paths;
        let outputs = (output, rejects_writer, report_file);
        finish(plan, (report, paths), context, outputs)
    }
}

/// The items to convert: those of `--shard`, at most `--limit` of them.
fn window_of(plan: &ConvertPlan) -> Result<Window, CliError> {
    let mut window = match plan.shard {
        Some(shard) => shard_window(shard, &plan.inputs)?,
        None => Window::default(),
    };
    if let Some(limit) = plan.limit {
        window.take = Some(window.take.map_or(limit, |n| n.min(limit)));
    }
    Ok(window)
}

/// The rejects file's writer, if any (none under `--dry-run`).
fn open_rejects(plan: &ConvertPlan) -> Result<Option<RecordWriter>, CliError> {
    let rejects = match (plan.errors.rejects(), plan.dry_run) {
        (Some(path), false) => Some(RecordWriter::create(
            Some(path),
            plan.overwrite,
            JsonStyle::Compact,
        )?),
        _ => None,
    };
    Ok(rejects)
}

/// Ends a conversion that ran through: closes the outputs, writes the `--report` file and
/// the summary, and gives the exit code.
fn finish(
    plan: &ConvertPlan,
    (report, paths): (ConversionReport, FastPaths),
    context: summary::Context<'_>,
    (output, rejects_writer, report_file): (impl Sink, Option<RecordWriter>, Option<OutputFile>),
) -> Result<Finished, CliError> {
    // An empty part of a `--shard` split is a part all the same.
    if report.read == 0 && plan.shard.is_none() {
        return Err(InputError::Empty {
            inputs: report.inputs.clone(),
        }
        .into());
    }
    // The report is written first and put in place last: a report that cannot be
    // written (a full disk, `/dev/full`) leaves no output renamed into place.
    if let Some(file) = &report_file {
        let text = serde_json::to_string_pretty(&report).expect("the report serialises") + "\n";
        let mut out = file.file();
        out.write_all(text.as_bytes())
            .and_then(|()| out.flush())
            .map_err(|e| CliError::Write {
                path: file.dest().to_owned(),
                source: e,
            })?;
    }
    output.finish()?;
    if let Some(w) = rejects_writer {
        w.finish()?;
    }
    if let Some(file) = report_file {
        file.commit()?;
    }
    if !plan.quiet {
        eprint!(
            "{}",
            crate::terminal::shown(&summary::finished(&report, context))
        );
        if let Some(path) = plan.errors.rejects() {
            crate::terminal::say!(
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
    Ok(Finished {
        code,
        report,
        paths,
    })
}

/// Runs `cargo isobench convert ARGS` as the command line does, its plan changed by
/// `adjust` (settings no flag gives): the exit code, and which ways the records took.
#[cfg(all(test, feature = "parquet"))]
fn convert_with(args: &[&str], adjust: impl FnOnce(&mut ConvertPlan)) -> (i32, FastPaths) {
    use clap::Parser;
    let words = ["cargo", "isobench", "convert"].iter().chain(args);
    let crate::cli::Cargo::Isobench(cli) = crate::cli::Cargo::try_parse_from(words)
        .unwrap_or_else(|e| panic!("the flags {args:?}: {e}"));
    let crate::cli::Command::Convert(convert) = &cli.command else {
        unreachable!("parsed from `convert`")
    };
    crate::input::set_max_record_bytes(cli.max_record_bytes);
    isobench_adapters::link();
    let registry = Registry::builtin();
    let finished = ConvertRequest::from_args(convert, None)
        .plan(&registry)
        .and_then(|mut plan| {
            adjust(&mut plan);
            execute(&registry, &plan)
        });
    match finished {
        Ok(finished) => (finished.code, finished.paths),
        Err(e) => (e.exit_code(), FastPaths::default()),
    }
}

/// The summed size of the file inputs, when every input is a file (for the progress ETA).
fn total_bytes(sources: &[Input]) -> Option<u64> {
    sources.iter().try_fold(0u64, |sum, source| match source {
        Input::File(p) if input::Compression::of(p) == input::Compression::None => {
            Some(sum + fs::metadata(p).ok()?.len())
        }
        _ => None,
    })
}

/// `--shard K/N`: the window of items (across all inputs, in order) that shard K of N
/// converts: the K-th of N contiguous, near-equal ranges.
fn shard_window(Shard { k, n }: Shard, sources: &[Input]) -> Result<Window, CliError> {
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

/// How the pipeline runs.
#[derive(Debug, Clone, Copy)]
struct Settings {
    jobs: usize,
    window: Window,
    fixed_style: Option<JsonStyle>,
}

/// Reads the inputs on one thread, converts batches on `jobs` threads, and writes the
/// results in input order on this one. Channels are bounded and a fixed number of batches
/// is in flight at any time, so memory does not grow with the input.
fn pipeline<S: Sink>(
    shared: &Shared<'_>,
    sources: &[Input],
    settings: Settings,
    ordered: &mut Ordered<'_, S>,
) -> Result<(), CliError> {
    let in_flight = settings.jobs * IN_FLIGHT_PER_JOB;
    let (work_tx, work_rx) = crossbeam_channel::bounded::<Work>(in_flight);
    let (done_tx, done_rx) =
        crossbeam_channel::bounded::<Done<<S::Encoder as Encoder>::Batch>>(in_flight);
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
            let encoder = ordered.output.encoder();
            scope.spawn(move || {
                let mut job = Job::new(shared, encoder);
                for work in work_rx {
                    if done_tx.send(job.batch(work)).is_err() {
                        break;
                    }
                }
            });
        }
        drop((work_rx, done_tx));
        let written = write_in_order(done_rx, token_tx, ordered);
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
    sources: &[Input],
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
