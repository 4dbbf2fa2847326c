//! One worker's job: converting a batch of read items into output lines, rejects and
//! counts, record by record (import, fixed `--set` values, enrichment, `--set` templates,
//! export, the target's contract).

use std::sync::atomic::{AtomicBool, Ordering};

use isobench_core::adapter::ExportOptions;
use isobench_core::codec::JsonStyle;
use isobench_core::contract::Problem;
use isobench_core::passthrough::{self, Held, Route};
use isobench_core::report::{CoverageCounts, Covered, NoteKind, Rejection};
use isobench_core::schema::Profile;
use isobench_core::{Contract, ConversionReport, Notes, RecordError, Registered, Registry};
use serde_json::{Map, Value};

use super::buffers::Buffers;
use super::paths::FastPaths;
use super::plan::ConvertPlan;
use super::sink::{Encoder, HeldValues};
use crate::assign::{self, Assignment, Phase};
use crate::errors::CliError;
use crate::formats::{find, formats_accepting};
#[cfg(feature = "parquet")]
use crate::input::parquet_file::ArrowRows;
use crate::input::{self, Batch, Item, Routes};
use crate::mine::enrich::{EnrichConfig, Enricher};

/// What every worker shares.
pub(super) struct Shared<'a> {
    pub(super) registry: &'a Registry,
    pub(super) from: &'a Registered,
    pub(super) to: &'a Registered,
    pub(super) options: ExportOptions,
    pub(super) assignments: Vec<Assignment>,
    /// `--allow-incomplete`: records the target's contract finds lacking are written.
    pub(super) allow_incomplete: bool,
    /// `--on-error skip`: bad records are set aside and the run goes on.
    pub(super) skip: bool,
    /// The inputs' names, by index.
    pub(super) files: Vec<String>,
    /// `--repos` / `enrich` enrichment; each worker builds its own enricher from it.
    pub(super) enrich: Option<EnrichConfig>,
    /// How values go from input to output as they were read.
    pub(super) routes: Vec<Route<'a>>,
    /// Batch buffers, given back once used.
    pub(super) buffers: Buffers,
    /// `--json-style auto`: each JSON Lines record is written with the separators and the
    /// escaping its own text shows (Python's `\uXXXX` for characters beyond ASCII, or
    /// none), those of the input's first record where it shows none.
    pub(super) auto_style: bool,
    /// Set once the batches written so far list as many incomplete records as the
    /// run's report keeps: the batches converted after it list none (they are counted).
    pub(super) incomplete_listed: AtomicBool,
}

impl<'a> Shared<'a> {
    /// What the workers of `plan`'s conversion share; `files`: the inputs' names.
    pub(super) fn for_plan(
        registry: &'a Registry,
        plan: &ConvertPlan,
        files: Vec<String>,
        buffers: Buffers,
    ) -> Result<Self, CliError> {
        let from = find(registry, &plan.from)?;
        let to = find(registry, &plan.to)?;
        // `--set` and enrichment may change any field, held values included; the strict
        // profile's export checks every required field's value. A Parquet output holds
        // them too: a record with held values is laid into the columns from the record
        // and those values (see `Job::item`).
        let routes = if plan.pass_through
            && plan.assignments.is_empty()
            && plan.enrich.is_none()
            && plan.profile() != Profile::Strict
        {
            let same_format = from.info().name == to.info().name;
            passthrough::routes(from.places(), to.places(), same_format)
        } else {
            Vec::new()
        };
        Ok(Self {
            registry,
            from,
            to,
            options: ExportOptions::with_profile(plan.profile())
                .with_task_org(plan.task_org.clone()),
            assignments: plan.assignments.clone(),
            allow_incomplete: plan.allow_incomplete,
            skip: plan.errors.skips(),
            files,
            enrich: plan.enrich.clone(),
            routes,
            buffers,
            auto_style: plan.json_style().is_none(),
            incomplete_listed: AtomicBool::new(false),
        })
    }
}

/// A batch to convert.
pub(super) struct Work {
    pub(super) seq: u64,
    pub(super) batch: Batch,
    pub(super) style: JsonStyle,
}

/// A converted batch: its records, encoded, and what was counted of them.
#[derive(Debug)]
pub(super) struct Done<B> {
    pub(super) seq: u64,
    pub(super) tally: Tally,
    /// The output records, as the output's encoder made them.
    pub(super) encoded: B,
}

/// What converting a batch counted: the tallies of its records' notes, the rejected
/// records, and where it comes from.
#[derive(Debug, Default)]
pub(super) struct Tally {
    /// This batch's counts, merged into the run's report in order.
    pub(super) report: ConversionReport,
    /// The coverage of the records converted, not yet added to `report` (see
    /// [`Tally::count_coverage`]).
    pub(super) coverage: CoverageCounts,
    pub(super) rejects: Vec<Reject>,
    pub(super) bytes: u64,
    /// The input the batch comes from (its index).
    pub(super) source: usize,
    /// The `instance_id` and line of each written record that has one, in order.
    pub(super) ids: Vec<(String, u64)>,
    /// The error that stopped reading the batch's input (a Parquet file's rows, read
    /// here): the run ends with it once the batches before this one are written.
    pub(super) failed: Option<CliError>,
    /// How the batch's records went through ([`FastPaths`]).
    pub(super) paths: FastPaths,
}

impl Tally {
    /// Adds the coverage counted of the records converted to the report: once the
    /// batch is converted, before its report is read.
    pub(super) fn count_coverage(&mut self) {
        self.report.add_coverage(&mut self.coverage);
    }
}

/// A rejected record, with what the rejects file says of it.
#[derive(Debug)]
pub(super) struct Reject {
    pub(super) rejection: Rejection,
    pub(super) hint: Option<String>,
    pub(super) verbatim: (&'static str, Value),
}

/// A record's `instance_id`, when it has a string one (looked for, not hashed, among
/// the few keys a record read with values held keeps).
fn instance_id_of(record: &Map<String, Value>) -> Option<String> {
    isobench_core::codec::get_small(record, "instance_id")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// A line of the rejects file.
pub(super) fn rejection_line(
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

/// The style of the output when none is given: that of the first record, when the first
/// item is one; compact otherwise.
pub(super) fn first_style(batch: &Batch) -> JsonStyle {
    let Some(item) = batch.items.first() else {
        return JsonStyle::default();
    };
    #[cfg(feature = "parquet")]
    if let Some(arrow) = &batch.arrow {
        let first = arrow.reading(input::Routes::NONE).whole(0);
        return match first {
            Ok(Ok(_)) => batch.array_style.unwrap_or_default(),
            Ok(Err(_)) | Err(_) => JsonStyle::default(),
        };
    }
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

/// One worker's conversion state.
pub(super) struct Job<'a, E> {
    pub(super) shared: &'a Shared<'a>,
    pub(super) enricher: Option<Enricher>,
    pub(super) notes: Notes,
    /// Where the worker's records go.
    pub(super) encoder: E,
}

impl<'a, E: Encoder> Job<'a, E> {
    /// A worker of `shared`'s conversion, its records going to `encoder`.
    pub(super) fn new(shared: &'a Shared<'a>, encoder: E) -> Self {
        Self {
            shared,
            enricher: shared.enrich.clone().map(Enricher::new),
            notes: Notes::new(),
            encoder,
        }
    }

    /// Converts a batch, in order; under `--on-error fail` it stops at the first bad
    /// record.
    pub(super) fn batch(&mut self, work: Work) -> Done<E::Batch> {
        let Work { seq, batch, style } = work;
        let Batch {
            source,
            text,
            items,
            bytes,
            #[cfg(feature = "parquet")]
            arrow,
            ..
        } = batch;
        let shared = self.shared;
        self.encoder.begin(text.len());
        let mut tally = Tally {
            bytes,
            source,
            ..Tally::default()
        };
        let file = shared.files[source].as_str();
        let routes = self.routes(style);
        let mut held = Held::default();
        // Rows of a Parquet file, read here with the values that pass held; nothing is
        // left for the loop below.
        #[cfg(feature = "parquet")]
        let items = if let Some(arrow) = &arrow {
            self.arrow_items(arrow, &items, style, &mut tally, &mut |_| true);
            Vec::new()
        } else {
            items
        };
        for item in items {
            // A record folder is named in place of the directory it is read from.
            let folder = item.folder;
            let raw = &text[item.range.clone()];
            held.clear();
            let (record, escaped) = match item.parsed {
                Some(parsed) => (parsed, None),
                // The adapter reads the text (a plugin written by hand, sent whole
                // records: nothing passes): check it, build nothing.
                None if shared.from.text_import().is_some() => (
                    input::check_record(raw, item.complete).map(|()| Value::Object(Map::new())),
                    None,
                ),
                None => input::parse_record_seeing_escapes(raw, item.complete, routes, &mut held),
            };
            // The `auto` style: the record's own, as its text shows it (the reader may
            // have seen its escapes already).
            let style = match (shared.auto_style, escaped) {
                (false, _) => style,
                (true, Some(escaped)) => style.refined_by_read(raw, escaped),
                (true, None) => style.refined_by(raw),
            };
            tally.paths.held += u64::from(record.is_ok() && !held.is_empty());
            // A line that is no record goes to the rejects file as it is, with the
            // blanks after it that reading it skipped.
            let raw = if record.is_err() {
                whole_line(&text, item.range.clone())
            } else {
                raw
            };
            let item = Item {
                line: item.line,
                raw,
                record,
            };
            if !self.item(
                folder.as_deref().unwrap_or(file),
                item,
                &held,
                style,
                &mut tally,
            ) {
                break;
            }
        }
        shared.buffers.give(text);
        self.encoder.count_laid(&mut tally.paths);
        tally.count_coverage();
        Done {
            seq,
            tally,
            encoded: self.encoder.finish(),
        }
    }

    /// How the reader holds the values that pass: in the style the encoder asks for.
    fn routes(&self, style: JsonStyle) -> Routes<'a> {
        Routes {
            routes: &self.shared.routes,
            style: self.encoder.held_style(style),
        }
    }

    /// Converts the rows `arrow` holds, the items of a Parquet batch (`items` numbers
    /// them), into `tally`: each read with the values that pass held, and read again
    /// whole when it is refused so, to be told of as it is. `after` is called after each
    /// row (to take the rows of a full row group, say). The rows stop at a bad record
    /// under `--on-error fail`, where `after` says so, and at a row that cannot be read
    /// (`tally.failed`).
    #[cfg(feature = "parquet")]
    pub(super) fn arrow_items(
        &mut self,
        arrow: &ArrowRows,
        items: &[input::RawItem],
        style: JsonStyle,
        tally: &mut Tally,
        after: &mut dyn FnMut(&mut Self) -> bool,
    ) {
        let shared = self.shared;
        let file = shared.files[tally.source].as_str();
        let reading = arrow.reading(self.routes(style));
        let reading = match self.encoder.raw_strings(&shared.routes) {
            Some(raw) => reading.holding_raw_strings(raw),
            None => reading,
        };
        let mut held = Held::default();
        for (k, item) in items.iter().enumerate() {
            let record = match reading.holding(k, &mut held) {
                Ok(record) => record,
                Err(e) => {
                    tally.failed = Some(e);
                    break;
                }
            };
            let holds = record.is_ok() && !held.is_empty();
            tally.paths.held += u64::from(holds);
            let rejected = tally.rejects.len();
            let item = |record| Item {
                line: item.line,
                raw: &[],
                record,
            };
            let mut go = self.item(file, item(record), &held, style, tally);
            if holds && tally.rejects.len() > rejected {
                // Refused: told of the row as it is, not of what was left of it.
                tally.rejects.pop();
                tally.report.read -= 1;
                let record = match reading.whole(k) {
                    Ok(record) => record,
                    Err(e) => {
                        tally.failed = Some(e);
                        break;
                    }
                };
                go = self.item(file, item(record), &Held::default(), style, tally);
            }
            if !after(self) || !go {
                break;
            }
        }
    }

    /// Converts one item into `tally`; `false` stops the batch (a bad record under
    /// `--on-error fail`).
    /// `held`: the values the reader held outside its record. `style`: the record's
    /// style, refined by its text in the `auto` style (an item read from no text has
    /// the batch's).
    pub(super) fn item(
        &mut self,
        file: &str,
        item: Item<'_>,
        held: &Held,
        style: JsonStyle,
        tally: &mut Tally,
    ) -> bool {
        let shared = self.shared;
        tally.report.read += 1;
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
                let verbatim = match (bad.value, bad.text) {
                    (Some(v), _) => ("record", *v),
                    (None, Some(text)) => ("raw", Value::String(text)),
                    (None, None) => raw_value(raw),
                };
                return self.reject(tally, rejection, bad.hint, verbatim);
            }
        };
        let instance_id = instance_id_of(&map);
        // Arrays give no raw text: keep the record for the rejects file.
        let kept = (shared.skip && raw.is_empty()).then(|| map.clone());
        self.notes.clear();
        // JSON Lines give the record's text too, which a plugin takes as it is (its
        // records are only checked, and hold nothing).
        let imported = match shared.from.text_import() {
            Some(import) if !raw.is_empty() => import(raw, &mut self.notes),
            _ => shared
                .from
                .import_holding(map, &held.keys(&shared.routes), &mut self.notes),
        };
        // Past the import, the format was right: a later refusal points at no other one.
        let import_failed = imported.is_err();
        // Fixed `--set` values, then what `--repos`/`--timings` derive, then `--set`
        // templates, so that a template can use a derived value (`{head_commit:8}` for a
        // record whose merge commit git finds).
        let sets = &shared.assignments;
        let from = &shared.from.info().name;
        let converted = imported
            .and_then(|c| assign::apply(c, sets, Phase::Fixed, from, &mut self.notes))
            .and_then(|mut c| match &mut self.enricher {
                Some(e) => e.apply(&mut c, &mut self.notes).map(|()| c),
                None => Ok(c),
            })
            .and_then(|c| assign::apply(c, sets, Phase::Templates, from, &mut self.notes))
            .and_then(|c| {
                let covered = Covered::of(&c);
                let order = (!held.is_empty()).then(|| shared.to.held_order(&c));
                shared
                    .to
                    .export_owned(c, &shared.options, &mut self.notes)
                    .map(|out| (covered, order, out))
            })
            .and_then(|(covered, order, mut out)| {
                self.meet_contract(&mut out, held, raw)
                    .map(|()| (covered, order, out))
            });
        match converted {
            Ok((covered, order, out)) => {
                tally.report.written += 1;
                // A batch is written after every batch before it: once those list
                // enough incomplete records, this one's would be dropped unread.
                let list = !shared.incomplete_listed.load(Ordering::Relaxed);
                // Counted per field here, added to the report's coverage per batch.
                tally.coverage.count(&covered);
                tally
                    .report
                    .record_notes_listing(&covered, &self.notes, file, line, list);
                if let Some(id) = covered.instance_id {
                    tally.ids.push((id, line));
                }
                // The output's encoder takes the record, with its held values.
                let held = order.as_ref().map(|order| HeldValues {
                    to: shared.to,
                    routes: &shared.routes,
                    order,
                    held,
                    raw,
                });
                self.encoder.record(out, held.as_ref(), style);
                true
            }
            Err(e) => {
                let original = kept.map(Value::Object);
                let hint = e.hint.clone().or_else(|| {
                    import_failed
                        .then(|| self.format_hint(raw, original.as_ref()))
                        .flatten()
                });
                // A record only checked (imported from its text) came as an empty map:
                // its id is read from its text, now that it is wanted.
                let instance_id = instance_id.or_else(|| {
                    let checked_only = shared.from.text_import().is_some() && !raw.is_empty();
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
                self.reject(tally, rejection, hint, verbatim)
            }
        }
    }

    /// Holds an exported record to what the target's consumer requires: writes the
    /// target's own "none" where the source has no such field, then refuses a record that
    /// still lacks an item, or, with `--allow-incomplete`, counts it as incomplete.
    /// `held` and `raw`: the values the reader held outside the record, and the
    /// record's text.
    fn meet_contract(
        &mut self,
        out: &mut Map<String, Value>,
        held: &Held,
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
        let routes = &self.shared.routes;
        let text_of = |key: &str| held.at_key(routes, raw, key);
        let filled = if same_format {
            Vec::new()
        } else {
            contract.fill_none_values(out, &|key| text_of(key).is_some())
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
        let unmet = contract.check_held(out, &|key| held.value_at_key(routes, raw, key));
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
                        "{} needs it ({}); {written} (`--allow-incomplete`); to supply it: {}",
                        target.name,
                        r.evidence,
                        u.how_to_supply()
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

    /// When the `--from` format refused the record and another format accepts it and
    /// fits its keys better (see [`crate::detect::fits_better`]), says so. A record whose
    /// keys fit the `--from` format as well was refused for its values: the format was
    /// right, and no other is suggested.
    fn format_hint(&self, raw: &[u8], original: Option<&Value>) -> Option<String> {
        let parsed;
        let record = if let Some(Value::Object(map)) = original {
            map
        } else {
            parsed = serde_json::from_slice::<Map<String, Value>>(raw).ok()?;
            &parsed
        };
        let from = self.shared.from;
        let registry = self.shared.registry;
        let accepting: Vec<String> = formats_accepting(registry, record)
            .into_iter()
            .filter(|name| {
                registry.get(name).is_some_and(|other| {
                    crate::detect::fits_better(other.adapter(), from.adapter(), record)
                })
            })
            .collect();
        if accepting.is_empty() || accepting.contains(&from.info().name) {
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
        tally: &mut Tally,
        rejection: Rejection,
        hint: Option<String>,
        verbatim: (&'static str, Value),
    ) -> bool {
        tally.rejects.push(Reject {
            rejection,
            hint,
            verbatim,
        });
        self.shared.skip
    }
}

/// The raw text of a rejected line, as a JSON string (hex when it is not UTF-8).
/// The line whose text without the blanks at its end is `text[range]`: up to its line
/// break (`\n` or `\r\n`), or the end of `text`.
fn whole_line(text: &[u8], range: std::ops::Range<usize>) -> &[u8] {
    let rest = &text[range.end..];
    let end = memchr::memchr(b'\n', rest).map_or(rest.len(), |at| {
        at - usize::from(at > 0 && rest[at - 1] == b'\r')
    });
    &text[range.start..range.end + end]
}

fn raw_value(raw: &[u8]) -> (&'static str, Value) {
    match std::str::from_utf8(raw) {
        Ok(text) => ("raw", Value::String(text.to_owned())),
        Err(_) => ("raw_hex", Value::String(isobench_core::codec::hex(raw))),
    }
}
