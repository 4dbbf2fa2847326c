//! `cargo isobench convert`: read records of one format, write them in another.

use std::fmt::Write as _;
use std::fs;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use isobench_core::adapter::{ExportOptions, ViewAdapter};
use isobench_core::codec::JsonStyle;
use isobench_core::record::V1_FIELDS;
use isobench_core::report::Rejection;
use isobench_core::{CanonicalRecord, ConversionReport, Notes, Profile, RecordError, Registry};
use serde_json::{Map, Value};

use crate::cli::{ConvertArgs, OnError, StyleArg};
use crate::errors::CliError;
use crate::input::{self, Item, Source};
use crate::output::RecordWriter;
use crate::{exit, find};

/// One `--set FIELD=VALUE`.
#[derive(Debug, Clone)]
struct Assignment {
    field: String,
    value: Value,
}

fn parse_assignments(sets: &[String]) -> Result<Vec<Assignment>, CliError> {
    sets.iter()
        .map(|set| {
            let (field, value) = set.split_once('=').ok_or_else(|| {
                CliError::usage(format!("`--set {set}` has no `=`"), Some("write `--set FIELD=VALUE`"))
            })?;
            let known = V1_FIELDS.contains(&field) && field != "extensions"
                || field.strip_prefix("extensions.").is_some_and(|k| !k.is_empty() && k != "source");
            if !known {
                return Err(CliError::usage(
                    format!("`--set`: `{field}` is not a canonical field"),
                    Some("use a canonical v1 field name (`head_commit`) or `extensions.KEY` (`extensions.image_name`)"),
                ));
            }
            let value = serde_json::from_str(value).unwrap_or_else(|_| Value::String(value.to_owned()));
            Ok(Assignment { field: field.to_owned(), value })
        })
        .collect()
}

fn apply_assignments(
    record: CanonicalRecord,
    sets: &[Assignment],
    notes: &mut Notes,
) -> Result<CanonicalRecord, RecordError> {
    if sets.is_empty() {
        return Ok(record);
    }
    let mut value = record.to_value();
    for set in sets {
        match set.field.strip_prefix("extensions.") {
            Some(key) => {
                if !value["extensions"].is_object() {
                    value["extensions"] = Value::Object(Map::new());
                }
                value["extensions"][key] = set.value.clone();
            }
            None => value[&set.field] = set.value.clone(),
        }
        notes.defaulted(&set.field, "set with `--set`");
    }
    serde_json::from_value(value).map_err(|e| {
        RecordError::invalid("", format!("a `--set` value has the wrong type: {e}")).with_hint(
            "lists and numbers are given as JSON, e.g. `--set efficiency_test='[\"t.py\"]'`",
        )
    })
}

/// The formats whose import accepts `record`, for the hint after a failed import.
pub fn formats_accepting(registry: &Registry, record: &Map<String, Value>) -> Vec<String> {
    registry
        .iter()
        .filter(|a| a.import(record.clone(), &mut Notes::new()).is_ok())
        .map(|a| a.info().name.clone())
        .collect()
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (fs::canonicalize(a), fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// Runs `convert`.
pub fn run(registry: &Registry, args: &ConvertArgs) -> Result<i32, CliError> {
    let from = find(registry, &args.from)?;
    let to = find(registry, &args.to)?;
    let profile = Profile::from(args.profile);
    let assignments = parse_assignments(&args.set)?;
    let sources: Vec<Source> = if args.inputs.is_empty() {
        vec![Source::Stdin]
    } else {
        args.inputs.iter().map(|p| Source::parse(p)).collect()
    };
    if sources.iter().filter(|s| **s == Source::Stdin).count() > 1 {
        return Err(CliError::usage(
            "stdin (`-`) is given as an input more than once",
            None,
        ));
    }
    let output = args.output.as_deref().filter(|p| p.as_os_str() != "-");
    let rejects = match (args.on_error, &args.rejects, output) {
        (OnError::Skip, Some(path), _) => Some(path.clone()),
        (OnError::Skip, None, Some(out)) => {
            Some(PathBuf::from(format!("{}.rejects.jsonl", out.display())))
        }
        (OnError::Skip, None, None) => {
            return Err(CliError::usage(
                "`--on-error skip` needs a rejects file when the output is stdout",
                Some("add `--rejects PATH`"),
            ));
        }
        (OnError::Fail, Some(_), _) => {
            return Err(CliError::usage(
                "`--rejects` is only used with `--on-error skip`",
                Some("add `--on-error skip`, or drop `--rejects`"),
            ));
        }
        (OnError::Fail, None, _) => None,
    };
    for written in output.iter().copied().chain(rejects.as_deref()) {
        for source in &sources {
            if let Source::File(input) = source
                && same_file(input, written)
            {
                return Err(CliError::OutputIsInput(written.to_owned()));
            }
        }
    }
    for source in &sources {
        if let Source::File(p) = source
            && !p.is_file()
        {
            return Err(CliError::Read {
                path: p.clone(),
                source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
            });
        }
    }
    let fixed_style = match args.json_style {
        StyleArg::Auto => None,
        StyleArg::Compact => Some(JsonStyle::Compact),
        StyleArg::Spaced => Some(JsonStyle::Spaced),
    };
    let mut writer = if args.dry_run {
        RecordWriter::discard()
    } else {
        RecordWriter::create(output, args.overwrite, fixed_style.unwrap_or_default())?
    };
    let mut rejects_writer = match (&rejects, args.dry_run) {
        (Some(path), false) => Some(RecordWriter::create(
            Some(path),
            args.overwrite,
            JsonStyle::Compact,
        )?),
        _ => None,
    };
    let mut report = ConversionReport::new(&from.info().name, &to.info().name, profile.as_str());
    report.inputs = sources.iter().map(Source::display).collect();
    report.output = output.map_or_else(|| "-".to_owned(), |p| p.display().to_string());

    let mut job = Job {
        registry,
        from,
        to,
        options: ExportOptions::with_profile(profile),
        assignments,
        on_error: args.on_error,
        limit: args.limit,
        style_fixed: fixed_style.is_some(),
        writer: &mut writer,
        rejects: rejects_writer.as_mut(),
        report: &mut report,
        notes: Notes::new(),
        progress: Progress::new(),
    };
    for source in &sources {
        let file = source.display();
        let stop = input::for_each_item(source, |item| job.item(&file, item));
        job.progress.clear();
        if let Err(e) = stop {
            eprint!("{}", report.summary());
            eprintln!("stopped: nothing was written");
            return Err(e);
        }
        if job.limit_reached() {
            break;
        }
    }
    if report.read == 0 {
        return Err(CliError::Record(
            format!("no records in {}", report.inputs.join(", ")),
            Some("the input is empty (or only blank lines)".into()),
        ));
    }
    writer.finish()?;
    if let Some(w) = rejects_writer {
        w.finish()?;
    }
    if let Some(path) = &args.report {
        let text = serde_json::to_string_pretty(&report).expect("the report serialises");
        fs::write(path, text + "\n").map_err(|e| CliError::Write {
            path: path.clone(),
            source: e,
        })?;
    }
    eprint!("{}", report.summary());
    if let Some(path) = &rejects {
        eprintln!(
            "read = written + rejected: {} = {} + {}; rejects in `{}`",
            report.read,
            report.written,
            report.rejected,
            path.display()
        );
    }
    Ok(if report.all_written() {
        exit::OK
    } else {
        exit::RECORDS
    })
}

/// The state of one conversion.
struct Job<'a> {
    registry: &'a Registry,
    from: &'a dyn ViewAdapter,
    to: &'a dyn ViewAdapter,
    options: ExportOptions,
    assignments: Vec<Assignment>,
    on_error: OnError,
    limit: Option<u64>,
    style_fixed: bool,
    writer: &'a mut RecordWriter,
    rejects: Option<&'a mut RecordWriter>,
    report: &'a mut ConversionReport,
    notes: Notes,
    progress: Progress,
}

impl Job<'_> {
    fn limit_reached(&self) -> bool {
        self.limit.is_some_and(|n| self.report.read >= n)
    }

    /// Converts one item; `Ok(false)` stops reading.
    fn item(&mut self, file: &str, item: Item<'_>) -> Result<bool, CliError> {
        if self.limit_reached() {
            return Ok(false);
        }
        self.report.read += 1;
        self.progress.tick(self.report.read);
        let Item {
            line,
            raw,
            style,
            record,
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
                return self.reject(rejection, bad.hint, verbatim);
            }
        };
        if !self.style_fixed && self.report.written == 0 && self.report.rejected == 0 {
            self.writer.set_style(style.unwrap_or_default());
        }
        let instance_id = map
            .get("instance_id")
            .and_then(Value::as_str)
            .map(str::to_owned);
        // Arrays give no raw text: keep the record for the rejects file.
        let kept = (self.on_error == OnError::Skip && raw.is_empty()).then(|| map.clone());
        self.notes.clear();
        let converted = self
            .from
            .import(map, &mut self.notes)
            .and_then(|c| apply_assignments(c, &self.assignments, &mut self.notes))
            .and_then(|c| {
                self.to
                    .export(&c, &self.options, &mut self.notes)
                    .map(|out| (c, out))
            });
        match converted {
            Ok((canonical, out)) => {
                self.writer.write(&out)?;
                self.report.written += 1;
                self.report
                    .record_converted(&canonical, &self.notes, file, line);
                Ok(true)
            }
            Err(e) => {
                let original = kept.map(Value::Object);
                let hint = e
                    .hint
                    .clone()
                    .or_else(|| self.format_hint(raw, original.as_ref()));
                let rejection = Rejection {
                    file: file.to_owned(),
                    line,
                    instance_id,
                    pointer: e.pointer,
                    message: e.message,
                };
                let verbatim = original.map_or_else(|| raw_value(raw), |v| ("record", v));
                self.reject(rejection, hint, verbatim)
            }
        }
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
        let accepting = formats_accepting(self.registry, record);
        let from = &self.from.info().name;
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

    fn reject(
        &mut self,
        rejection: Rejection,
        hint: Option<String>,
        verbatim: (&str, Value),
    ) -> Result<bool, CliError> {
        let Some(rejects) = self
            .rejects
            .as_deref_mut()
            .filter(|_| self.on_error == OnError::Skip)
        else {
            if self.on_error == OnError::Skip {
                // --dry-run with skip: count, write nothing.
                self.report.record_rejected(rejection);
                return Ok(true);
            }
            return Err(CliError::Record(describe(&rejection), hint));
        };
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
        rejects.write(&line)?;
        self.report.record_rejected(rejection);
        Ok(true)
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
    started: Instant,
    last: Instant,
    shown: bool,
}

impl Progress {
    fn new() -> Self {
        let now = Instant::now();
        Self {
            enabled: std::io::stderr().is_terminal(),
            started: now,
            last: now,
            shown: false,
        }
    }

    fn tick(&mut self, read: u64) {
        if !self.enabled || read % 256 != 0 || self.last.elapsed() < Duration::from_millis(500) {
            return;
        }
        self.last = Instant::now();
        let secs = self.started.elapsed().as_secs_f64().max(1e-3);
        #[allow(clippy::cast_precision_loss)] // a rate for display
        let rate = read as f64 / secs;
        eprint!("\r{read} records ({rate:.0}/s)");
        let _ = std::io::stderr().flush();
        self.shown = true;
    }

    fn clear(&mut self) {
        if self.shown {
            eprint!("\r\x1b[K");
            self.shown = false;
        }
    }
}
