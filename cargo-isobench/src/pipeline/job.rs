//! One worker's job: converting a batch of read items into output lines, rejects and
//! counts, record by record (import, fixed `--set` values, enrichment, `--set` templates,
//! export, the target's contract).

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

use isobench_core::adapter::ExportOptions;
use isobench_core::codec::JsonStyle;
use isobench_core::contract::Problem;
use isobench_core::passthrough::{self, Held, Placed, Route};
use isobench_core::registry::HeldOrder;
use isobench_core::report::{CoverageCounts, Covered, NoteKind, Rejection};
use isobench_core::schema::Profile;
use isobench_core::{Contract, ConversionReport, Notes, RecordError, Registered, Registry};
use serde_json::{Map, Value};

use super::buffers::Buffers;
use super::converter::{ExportedRecord, HeldAt};
use super::plan::ConvertPlan;
use crate::assign::{self, Assignment, Phase};
use crate::cli::OnError;
use crate::errors::CliError;
use crate::formats::{find, formats_accepting};
#[cfg(feature = "parquet")]
use crate::input::parquet_file::ArrowRows;
use crate::input::{self, Batch, Item, Routes};
use crate::mine::enrich::{EnrichConfig, Enricher};
use crate::parquet::{ColumnRows, RowsBatch};

/// What every worker shares.
pub(super) struct Shared<'a> {
    pub(super) registry: &'a Registry,
    pub(super) from: &'a Registered,
    pub(super) to: &'a Registered,
    pub(super) options: ExportOptions,
    pub(super) assignments: Vec<Assignment>,
    /// `--allow-incomplete`: records the target's contract finds lacking are written.
    pub(super) allow_incomplete: bool,
    pub(super) on_error: OnError,
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
    /// Empty rows of the output's columns when it is Parquet: each worker converts its
    /// records into rows of its own, not into JSON text.
    pub(super) columns: Option<ColumnRows>,
    /// Set once the batches written so far list as many incomplete records as the
    /// run's report keeps: the batches converted after it list none (they are counted).
    pub(super) incomplete_listed: AtomicBool,
    /// The output's path, under which the tests count the rows laid and parsed.
    #[cfg(test)]
    pub(super) output: Option<std::path::PathBuf>,
}

/// For each batch of a Parquet output written in a test: the output, how many rows were
/// laid into its columns from the exported record and its held texts
/// ([`ColumnRows::push_holding`]), parsed from their text ([`ColumnRows::push_text`]),
/// and pushed as the values exported (nothing held); and how many cells were laid from
/// a string held as its own bytes (read from Parquet).
#[cfg(test)]
pub(crate) static LAID: std::sync::Mutex<Vec<(std::path::PathBuf, [usize; 4])>> =
    std::sync::Mutex::new(Vec::new());

/// For each batch converted in a test: the output, and how many of the batch's records
/// were read with values held (by the JSON Lines or the Parquet reader).
#[cfg(test)]
pub(crate) static HELD: std::sync::Mutex<Vec<(std::path::PathBuf, usize)>> =
    std::sync::Mutex::new(Vec::new());

/// The outputs a test converts into with nothing held: every value read as it is
/// without routes, the reference the output with values held must equal.
#[cfg(test)]
pub(crate) static WHOLE: std::sync::Mutex<Vec<std::path::PathBuf>> =
    std::sync::Mutex::new(Vec::new());

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
        let routes = if plan.assignments.is_empty()
            && plan.enrich.is_none()
            && plan.profile() != Profile::Strict
        {
            let same_format = from.info().name == to.info().name;
            passthrough::routes(from.places(), to.places(), same_format)
        } else {
            Vec::new()
        };
        #[cfg(test)]
        let routes = if plan.output.as_ref().is_some_and(|output| {
            WHOLE
                .lock()
                .expect("no test panicked holding it")
                .contains(output)
        }) {
            Vec::new()
        } else {
            routes
        };
        Ok(Self {
            registry,
            from,
            to,
            options: ExportOptions::with_profile(plan.profile()),
            assignments: plan.assignments.clone(),
            allow_incomplete: plan.options.allow_incomplete,
            on_error: plan.errors.on_error(),
            files,
            enrich: plan.enrich.clone(),
            routes,
            buffers,
            auto_style: plan.json_style().is_none(),
            columns: None,
            incomplete_listed: AtomicBool::new(false),
            #[cfg(test)]
            output: plan.output.clone(),
        })
    }
}

/// A batch to convert.
pub(super) struct Work {
    pub(super) seq: u64,
    pub(super) batch: Batch,
    pub(super) style: JsonStyle,
}

/// A converted batch: the output records, in order, the tallies of their notes, and the
/// rejected records.
#[derive(Debug, Default)]
pub(super) struct Done {
    pub(super) seq: u64,
    /// The output records, serialised back to back, each followed by a line end.
    pub(super) out: Vec<u8>,
    /// Where each record of `out` ends (before its line end).
    pub(super) ends: Vec<usize>,
    /// This batch's counts, merged into the run's report in order.
    pub(super) report: ConversionReport,
    /// The coverage of the records converted, not yet added to `report` (see
    /// [`Done::count_coverage`]).
    pub(super) coverage: CoverageCounts,
    pub(super) rejects: Vec<Reject>,
    pub(super) bytes: u64,
    /// The input the batch comes from (its index).
    pub(super) source: usize,
    /// The `instance_id` and line of each written record that has one, in order.
    pub(super) ids: Vec<(String, u64)>,
    /// The output records as rows of the Parquet output's columns, instead of `out`.
    pub(super) rows: Option<io::Result<RowsBatch>>,
    /// When given, the exported records are kept here, as maps, instead of written to
    /// `out` (see [`super::BatchConverter::records_holding`]).
    pub(super) exported: Option<Vec<ExportedRecord>>,
    /// The error that stopped reading the batch's input (a Parquet file's rows, read
    /// here): the run ends with it once the batches before this one are written.
    pub(super) failed: Option<CliError>,
    /// How many of the batch's records were read with values held.
    #[cfg(test)]
    pub(super) holding: usize,
}

impl Done {
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
pub(super) struct Job<'a> {
    pub(super) shared: &'a Shared<'a>,
    pub(super) enricher: Option<Enricher>,
    pub(super) notes: Notes,
    /// The rows of the batch being converted, for a Parquet output.
    pub(super) rows: Option<ColumnRows>,
}

impl<'a> Job<'a> {
    /// Converts a batch, in order; under `--on-error fail` it stops at the first bad
    /// record.
    pub(super) fn batch(&mut self, work: Work) -> Done {
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
        let routes = self.routes(style);
        let mut held = Held::default();
        // Rows of a Parquet file, read here with the values that pass held; nothing is
        // left for the loop below.
        #[cfg(feature = "parquet")]
        let items = if let Some(arrow) = &arrow {
            self.arrow_items(arrow, &items, style, &mut done, &mut |_| true);
            Vec::new()
        } else {
            items
        };
        for item in items {
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
            #[cfg(test)]
            {
                done.holding += usize::from(record.is_ok() && !held.is_empty());
            }
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
            if !self.item(file, item, &held, style, &mut done) {
                break;
            }
        }
        shared.buffers.give(text);
        #[cfg(test)]
        if let Some(output) = &shared.output {
            HELD.lock()
                .expect("no test panicked holding it")
                .push((output.clone(), done.holding));
        }
        #[cfg(test)]
        if let (Some(rows), Some(output)) = (&self.rows, &shared.output) {
            let [direct, parsed, raw] = rows.laid();
            let written = usize::try_from(done.report.written).expect("a batch's records");
            let pushed = written - direct - parsed;
            LAID.lock()
                .expect("no test panicked holding it")
                .push((output.clone(), [direct, parsed, pushed, raw]));
        }
        done.rows = self.rows.as_mut().map(ColumnRows::take_rows);
        done.count_coverage();
        done
    }

    /// How the reader holds the values that pass: held texts go into Parquet columns
    /// from records written compact (the text JSON columns hold); into JSON Lines, in
    /// the output's style.
    fn routes(&self, style: JsonStyle) -> Routes<'a> {
        Routes {
            routes: &self.shared.routes,
            style: if self.rows.is_some() {
                JsonStyle::Compact
            } else {
                style
            },
        }
    }

    /// Converts the rows `arrow` holds, the items of a Parquet batch (`items` numbers
    /// them), into `done`: each read with the values that pass held, and read again
    /// whole when it is refused so, to be told of as it is. `after` is called after each
    /// row (to take the rows of a full row group, say). The rows stop at a bad record
    /// under `--on-error fail`, where `after` says so, and at a row that cannot be read
    /// (`done.failed`).
    #[cfg(feature = "parquet")]
    pub(super) fn arrow_items(
        &mut self,
        arrow: &ArrowRows,
        items: &[input::RawItem],
        style: JsonStyle,
        done: &mut Done,
        after: &mut dyn FnMut(&mut Self) -> bool,
    ) {
        let shared = self.shared;
        let file = shared.files[done.source].as_str();
        let reading = arrow.reading(self.routes(style));
        // Into a Parquet output, a string a string column takes whole is held as its
        // own bytes and laid as it is.
        let reading = match &self.rows {
            Some(rows) => {
                let raw = (shared.routes.iter())
                    .map(|route| match route.path {
                        [key] => rows.lays_string(key),
                        _ => false,
                    })
                    .collect();
                reading.holding_raw_strings(raw)
            }
            None => reading,
        };
        let mut held = Held::default();
        for (k, item) in items.iter().enumerate() {
            let record = match reading.holding(k, &mut held) {
                Ok(record) => record,
                Err(e) => {
                    done.failed = Some(e);
                    break;
                }
            };
            let holds = record.is_ok() && !held.is_empty();
            #[cfg(test)]
            {
                done.holding += usize::from(holds);
            }
            let rejected = done.rejects.len();
            let item = |record| Item {
                line: item.line,
                raw: &[],
                record,
            };
            let mut go = self.item(file, item(record), &held, style, done);
            if holds && done.rejects.len() > rejected {
                // Refused: told of the row as it is, not of what was left of it.
                done.rejects.pop();
                done.report.read -= 1;
                let record = match reading.whole(k) {
                    Ok(record) => record,
                    Err(e) => {
                        done.failed = Some(e);
                        break;
                    }
                };
                go = self.item(file, item(record), &Held::default(), style, done);
            }
            if !after(self) || !go {
                break;
            }
        }
    }

    /// Converts one item into `done`; `false` stops the batch (a bad record under
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
                let verbatim = match (bad.value, bad.text) {
                    (Some(v), _) => ("record", *v),
                    (None, Some(text)) => ("raw", Value::String(text)),
                    (None, None) => raw_value(raw),
                };
                return self.reject(done, rejection, bad.hint, verbatim);
            }
        };
        let instance_id = instance_id_of(&map);
        // Arrays give no raw text: keep the record for the rejects file.
        let kept = (shared.on_error == OnError::Skip && raw.is_empty()).then(|| map.clone());
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
                // The routes that hold a text, in order, when the reader held some.
                let holding = || (0..shared.routes.len()).filter(|&i| held.holds(i));
                // Where the held texts go in the output.
                let placed = order.as_ref().map(|order| {
                    shared
                        .to
                        .place_held(order, &out, &held_texts(&shared.routes, held, raw))
                });
                if let Some(rows) = &mut self.rows {
                    // The file's JSON style is that of the first record written that
                    // has a key (`{}` is the same in every style). Its row groups are
                    // cut by the rows' bytes in the arrays built of them.
                    if let Some(placed) = placed {
                        let order = order.as_ref().expect("held texts have an order");
                        let record = (&out, order, placed);
                        lay_holding(shared, rows, record, (held, raw), style, &mut done.out);
                    } else {
                        if !out.is_empty() {
                            rows.note_style(style);
                        }
                        rows.push(out);
                    }
                } else if let Some(exported) = &mut done.exported {
                    let held = placed.map_or_else(Vec::new, |placed| {
                        (holding().zip(placed))
                            .map(|(route, placed)| HeldAt {
                                route,
                                at: placed.at,
                            })
                            .collect()
                    });
                    exported.push(ExportedRecord {
                        record: out,
                        held,
                        source: 0,
                    });
                } else if let Some(placed) = placed {
                    passthrough::write_object_holding(style, &mut done.out, &out, &placed);
                } else {
                    style.write_object(&mut done.out, &out);
                }
                if self.rows.is_none() && done.exported.is_none() {
                    done.ends.push(done.out.len());
                    done.out.push(b'\n');
                }
                done.report.written += 1;
                // A batch is written after every batch before it: once those list
                // enough incomplete records, this one's would be dropped unread.
                let list = !shared.incomplete_listed.load(Ordering::Relaxed);
                // Counted per field here, added to the report's coverage per batch.
                done.coverage.count(&covered);
                done.report
                    .record_notes_listing(&covered, &self.notes, file, line, list);
                if let Some(id) = covered.instance_id {
                    done.ids.push((id, line));
                }
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
                self.reject(done, rejection, hint, verbatim)
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
                        "{} needs it ({}); {written} (`--allow-incomplete`): supply it with {}",
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

/// Lays `out`, a record exported with the held texts `placed` (placed by `order`), into
/// the Parquet output's `rows`: straight into the columns, each held text into its own
/// (a string held as its own bytes as it is), where each cell can be laid so; else
/// written as JSON Lines would be, compact, every held text JSON, and parsed from that
/// text (written in `scratch`, left empty).
/// `held` and `raw`: the values the reader held, and the record's text. The file's JSON
/// style is that of the first record written that has a key (`{}` is the same in every
/// style).
fn lay_holding(
    shared: &Shared<'_>,
    rows: &mut ColumnRows,
    (out, order, placed): (&Map<String, Value>, &HeldOrder, Vec<Placed<'_>>),
    (held, raw): (&Held, &[u8]),
    style: JsonStyle,
    scratch: &mut Vec<u8>,
) {
    let as_bytes: Vec<bool> = if held.any_raw() {
        (0..shared.routes.len())
            .filter(|&i| held.holds(i))
            .map(|i| held.is_raw(i))
            .collect()
    } else {
        Vec::new()
    };
    if let Some(any) = rows.push_holding(out, &placed, |k| as_bytes.get(k) == Some(&true)) {
        if any {
            rows.note_style(style);
        }
        return;
    }
    let json;
    let placed = if as_bytes.contains(&true) {
        let mut escaped = held.clone();
        escaped.escape_raw(JsonStyle::Compact);
        json = escaped;
        let texts = held_texts(&shared.routes, &json, raw);
        shared.to.place_held(order, out, &texts)
    } else {
        placed
    };
    scratch.clear();
    passthrough::write_object_holding(JsonStyle::Compact, scratch, out, &placed);
    if scratch.as_slice() != b"{}" {
        rows.note_style(style);
    }
    rows.push_text(std::str::from_utf8(scratch).expect("the writer writes UTF-8"));
    scratch.clear();
}

/// The texts `held` holds for a record of text `raw`, with their routes of `routes`, in
/// route order.
fn held_texts<'t>(
    routes: &[Route<'t>],
    held: &'t Held,
    raw: &'t [u8],
) -> Vec<(Route<'t>, &'t [u8])> {
    // Sized at once: collected from a filter, the vector was grown once more.
    let mut texts = Vec::with_capacity(routes.len());
    texts.extend((0..routes.len()).filter_map(|i| Some((routes[i], held.text(raw, i)?))));
    texts
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
