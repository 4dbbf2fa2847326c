//! SWE-Perf (`SWE-Perf/SWE-Perf`): 15 columns, three of them JSON-encoded strings
//! (`docs/formats.md` §1).
//!
//! The view holds only the published columns, in the published column
//! order (`upload_to_huggingface.py`'s selection, `problem_statement_end2end` renamed in
//! place to `problem_statement_realistic`, `human_performance` appended).
//!
//! How the fields map:
//!
//! * `duration_changes` is a JSON-encoded array of *runs*, each `{nodeid: {"base": s,
//!   "head": s}}` (§1.1). Canonical holds it transposed, one `{base: [..], head: [..]}` per
//!   `efficiency_test` entry, in the same order. A run that lacks a test (or one side
//!   of it) gives no sample; nothing is padded, and each gap is reported as a warning.
//! * `human_performance` is SWE-Perf's significance-based fraction (§1.2), not canonical's
//!   speedup. Canonical `human_performance` is derived from the timings (mean(base) /
//!   mean(head), geometric mean over tests); SWE-Perf's own number is kept in
//!   `extensions.source.raw` and written back while the timings are unchanged. For timings
//!   from elsewhere, SWE-Perf's metric is computed ([`timing::sweperf_improvement`]).
//! * `patch_functions` is a JSON-encoded `{file: [qualified names]}` map. Canonical
//!   `patch_functions` flattens it to `"<file>::<name>"` (names under the empty path `""`
//!   stay bare); the map itself is kept in `extensions.patch_functions_by_file`, so file
//!   order, empty lists and duplicates survive; any other shape is rejected, naming the
//!   field. Exporting a list from elsewhere groups the entries by the text before their
//!   first `::` (entries without one go under `""`).
//! * `test_functions` (shape unverified, possibly double-encoded) is decoded as far as it
//!   goes: a list of strings becomes canonical `test_functions`; a `{file: [names]}` map is
//!   flattened the same way and also kept in `extensions.test_functions_raw`; anything
//!   else goes to `extensions.test_functions_raw` only.
//! * `efficiency_test` holds pytest node ids: `extensions.efficiency_test_kind` is
//!   `pytest_nodeid`.
//! * `version` is the repository release (`X.Y`), kept as the string it is.
//!
//! The text of every JSON-encoded string comes back byte for byte: the style (Python's
//! `", "`/`": "` or compact) is remembered, and where encoding the canonical value again
//! would not give the original text (other number spellings, gaps in the runs, a nested
//! encoding), the original is kept in `extensions.source.raw` and written back as long as
//! it still decodes to what the record holds.

use isobench_core::CanonicalRecord;
use isobench_core::codec::{self, Encoding, JsonStyle};
use isobench_core::contract::{Kind, Requirement};
use isobench_core::record::DurationChange;
use isobench_core::registry::AdapterRegistration;
use isobench_core::table::io::{Exporter, Importer};
use isobench_core::table::{
    Field, FieldType, HookResult, Hooks, ListEncoding, Table, TableAdapter,
};
use isobench_core::timing::{self, TestTimings, TimingError};
use isobench_core::vocab;
use isobench_core::{Notes, RecordError};
use serde_json::{Map, Number, Value};

use crate::common::release;

const NAME: &str = "swe-perf";

/// Joins a file path and a function name in the flattened canonical lists.
const PATH_SEP: &str = "::";

/// How many levels of JSON-in-a-JSON-string `test_functions` may have.
const MAX_NESTING: usize = 3;

/// The rule behind canonical `human_performance`.
const SPEEDUP_RULE: &str = "canonical speedup from `duration_changes`: mean(base)/mean(head) per test, geometric mean over the tests; SWE-Perf's own value (a fraction in [0, 1]) is kept in `extensions.source.raw`";

const PUBLISHED: &str = "a column of the published SWE-Perf dataset (`upload_to_huggingface.py`)";
const SPEC: &str = "evaluation/test_spec.py: make_test_spec";

/// SWE-Perf's columns in the published order, and what its evaluation reads of a row
/// (`evaluation/utils.py`, `evaluation/test_spec.py`, `check_evaluation.py`) with the
/// other columns of the published dataset (`upload_to_huggingface.py`).
pub fn table() -> Table {
    let f = Field::new;
    let json_text = |key: &str, field: &str, evidence: &str| {
        Requirement::new(key, Kind::JsonText, field, evidence)
    };
    Table::new(
        NAME,
        &["sweperf"],
        "SWE-Perf rows (15 columns; `duration_changes`, `patch_functions` and `test_functions` as JSON-encoded strings)",
    )
    .consumer("SWE-Perf evaluation")
    .fields(vec![
        f("repo", "repo").required().consumer(SPEC).non_empty(),
        f("instance_id", "instance_id")
            .required()
            .consumer("evaluation/run_evaluation.py")
            .non_empty(),
        f("patch", "patch")
            .required()
            .consumer("the expert patch the evaluation applies")
            .non_empty(),
        f("test_patch", "test_patch").required().consumer(SPEC),
        f("base_commit", "base_commit").required().consumer(SPEC).non_empty(),
        f("head_commit", "head_commit")
            .consumer(PUBLISHED)
            .non_empty()
            .remedy("`--repos DIR` (for a SWE-bench record, the merge commit of its pull request)"),
        f("created_at", "created_at").kind(FieldType::Timestamp).hook().consumer(PUBLISHED),
        // A string; a number (a lossy reader's `0.2` for `0.20`) is taken with a warning.
        f("version", "version").required().hook(),
        // JSON-encoded runs, `[{nodeid: {"base": s, "head": s}}, ...]`, transposed.
        f("duration_changes", "duration_changes").kind(FieldType::Json).required().hook(),
        // Checked against the runs and, on export, for pytest node ids.
        f("efficiency_test", "efficiency_test")
            .list(ListEncoding::Array)
            .required()
            .hook()
            .consumer("evaluation/test_spec.py: make_test_command (pytest node ids)")
            .non_empty(),
        // A JSON-encoded `{file: [qualified names]}` map, flattened.
        f("patch_functions", "patch_functions").kind(FieldType::Json).hook(),
        f("problem_statement_oracle", "problem_statement_oracle").kind(FieldType::Json),
        // Shape unverified, possibly double-encoded: decoded as far as it goes.
        f("test_functions", "test_functions").kind(FieldType::Json).hook(),
        f("problem_statement_realistic", "problem_statement_realistic").kind(FieldType::Json),
        // SWE-Perf's own metric; canonical holds the speedup of the timings.
        f("human_performance", "human_performance").kind(FieldType::Number).hook(),
    ])
    .requires(vec![
        Requirement::new(
            "version",
            Kind::String,
            "extensions.upstream_version",
            "make_test_spec: MAP_REPO_VERSION_TO_SPECS[repo][version], a release such as `4.3`, never an environment signature",
        )
        .non_empty(),
        json_text(
            "duration_changes",
            "duration_changes",
            "evaluation/utils.py: load_sweperf_dataset (json.loads), check_evaluation.py",
        )
        .non_empty()
        .remedy("`--timings DIR` (the timing logs of the efficiency tests)"),
        // Any JSON value in canonical; the published column is a string.
        Requirement::new(
            "problem_statement_oracle",
            Kind::String,
            "problem_statement_oracle",
            PUBLISHED,
        ),
        Requirement::new(
            "problem_statement_realistic",
            Kind::String,
            "problem_statement_realistic",
            PUBLISHED,
        ),
        json_text("patch_functions", "patch_functions", PUBLISHED),
        json_text("test_functions", "test_functions", PUBLISHED),
        Requirement::new(
            "human_performance",
            Kind::Number,
            "duration_changes",
            "a column of the published dataset, computed from `duration_changes`",
        )
        .remedy("`--timings DIR` (it is computed from the timings)"),
    ])
    .fills_also(&[
        "extensions.patch_functions_by_file",
        "extensions.test_functions_raw",
        "extensions.efficiency_test_kind",
    ])
    .carries_also(&[
        "extensions.patch_functions_by_file",
        "extensions.test_functions_raw",
        "extensions.efficiency_test_kind",
        "extensions.upstream_version",
    ])
}

/// What SWE-Perf's table cannot say: the timing layout, `human_performance` as a metric
/// of the timings, the `{file: [names]}` maps, and `version` as a release.
#[derive(Debug)]
struct SwePerfHooks;

impl Hooks for SwePerfHooks {
    fn import(&self, r: &mut Importer<'_, '_>, c: &mut CanonicalRecord) -> HookResult {
        c.created_at = r.timestamp("created_at", str::to_owned)?;
        c.version = Some(import_version(r)?);
        let tests = r.required_list("efficiency_test")?;
        if tests.is_empty() {
            return Err(RecordError::invalid(
                "/efficiency_test",
                "is empty: a SWE-Perf instance names at least one efficiency test",
            ));
        }
        c.set_ext(vocab::EFFICIENCY_TEST_KIND, "pytest_nodeid");
        import_timings(r, c, &tests)?;
        c.efficiency_test = Some(tests);
        import_patch_functions(r, c)?;
        import_test_functions(r, c);
        import_human_performance(r, c)
    }

    fn export(&self, c: &CanonicalRecord, w: &mut Exporter<'_, '_, '_>) -> HookResult {
        let tests = export_tests(c, w.same_format())?;
        export_created_at(w);
        export_version(w);
        let per_test = canonical_timings(c);
        if let Some(tests) = &tests {
            export_timings(w, tests, per_test.as_deref())?;
        }
        w.list("efficiency_test", tests, Encoding::Native);
        export_patch_functions(w);
        export_test_functions(w);
        export_human_performance(w, per_test.as_deref());
        Ok(())
    }
}

/// The SWE-Perf adapter.
pub fn adapter() -> TableAdapter {
    TableAdapter::new(table(), SwePerfHooks).expect("SWE-Perf's table is valid")
}

inventory::submit! {
    AdapterRegistration { make: || adapter().into() }
}

// ---------------------------------------------------------------- import

/// `version` is a string in SWE-Perf. A number (a lossy reader turned `0.20` into `0.2`)
/// is taken as its text with a warning, and kept for the round trip.
fn import_version(r: &mut Importer<'_, '_>) -> Result<String, RecordError> {
    match r.value("version") {
        None => Err(r.missing("version")),
        Some(Value::String(version)) => Ok(version),
        Some(Value::Number(number)) => {
            let text = number.to_string();
            r.notes.warn(
                "version",
                format!("`version` is the number {text}, not a string: a release such as `0.20` may have lost its trailing zero"),
            );
            r.keep_raw("version", Value::Number(number));
            Ok(text)
        }
        Some(other) => Err(RecordError::wrong_type(
            "/version",
            "a string (the repository release, `X.Y`)",
            &other,
        )),
    }
}

/// Turns a timing error into a record error (the message without its leading pointer).
fn timing_error(error: &TimingError) -> RecordError {
    let pointer = error.pointer().to_owned();
    let text = error.to_string();
    let message = text
        .strip_prefix(&format!("{pointer}: "))
        .map_or_else(|| text.clone(), str::to_owned);
    RecordError::invalid(pointer, message)
}

/// Decodes `duration_changes` as runs: a JSON-encoded string (or a native array) holding
/// an array.
fn decode_runs(value: &Value) -> Result<(Vec<Value>, Encoding, bool), RecordError> {
    let (decoded, encoding, reproducible) = codec::decode_json(value, "/duration_changes")?;
    match decoded {
        Value::Array(runs) => Ok((runs, encoding, reproducible)),
        other => Err(RecordError::wrong_type(
            "/duration_changes",
            "an array of runs (`[{\"<nodeid>\": {\"base\": s, \"head\": s}}, ...]`), JSON-encoded",
            &other,
        )),
    }
}

/// Runs rebuilt from per-test timings, as a JSON array.
fn runs_value(per_test: &[TestTimings], tests: &[String]) -> Result<Value, TimingError> {
    let runs = timing::untranspose(per_test, tests)?;
    Ok(Value::Array(runs.into_iter().map(Value::Object).collect()))
}

fn import_timings(
    r: &mut Importer<'_, '_>,
    c: &mut CanonicalRecord,
    tests: &[String],
) -> Result<(), RecordError> {
    let Some(original) = r.value("duration_changes") else {
        return Err(r.missing("duration_changes"));
    };
    let (runs, encoding, text_reproducible) = decode_runs(&original)?;
    let transposed = timing::transpose_runs(&runs, tests).map_err(|e| timing_error(&e))?;
    report_gaps(r.notes, &transposed);
    let complete = transposed
        .per_test
        .iter()
        .all(|t| !t.base.is_empty() && !t.head.is_empty());
    // The original text is kept unless the canonical arrays give it back exactly.
    let reproducible = complete
        && text_reproducible
        && runs_value(&transposed.per_test, tests)
            .is_ok_and(|rebuilt| rebuilt == Value::Array(runs));
    r.remember_encoding("duration_changes", encoding, reproducible, original);
    if complete {
        c.duration_changes = Some(
            transposed
                .per_test
                .iter()
                .map(|t| DurationChange::from_f64(&t.base, &t.head))
                .collect(),
        );
    } else {
        let empty: Vec<&str> = tests
            .iter()
            .zip(&transposed.per_test)
            .filter(|(_, t)| t.base.is_empty() || t.head.is_empty())
            .map(|(test, _)| test.as_str())
            .collect();
        r.notes.warn(
            "duration_changes",
            format!(
                "no base or no head sample at all for {}; canonical timings need at least one of each (the original is kept for the round trip)",
                quoted_list(&empty)
            ),
        );
    }
    Ok(())
}

/// Warns about samples the runs did not provide, tests timed but not listed, and fields
/// other than `base`/`head`.
fn report_gaps(notes: &mut Notes, transposed: &timing::Transposed) {
    const SHOWN: usize = 5;
    if !transposed.gaps.is_empty() {
        let shown: Vec<String> = transposed
            .gaps
            .iter()
            .take(SHOWN)
            .map(|g| format!("run {} `{}` ({})", g.run, g.test, g.side))
            .collect();
        let more = transposed.gaps.len().saturating_sub(SHOWN);
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        notes.warn(
            "duration_changes",
            format!(
                "{} sample(s) missing from SWE-Perf's runs: {}{more}; no sample is invented, those tests have fewer samples",
                transposed.gaps.len(),
                shown.join(", ")
            ),
        );
    }
    if !transposed.extra_tests.is_empty() {
        notes.warn(
            "duration_changes",
            format!(
                "runs time {} which `efficiency_test` does not list: canonical timings cannot hold them (the original is kept for the round trip)",
                quoted_list(&transposed.extra_tests)
            ),
        );
    }
    if !transposed.ignored_fields.is_empty() {
        notes.warn(
            "duration_changes",
            format!(
                "{} timing field(s) other than `base`/`head` (first: `{}`) are not carried by canonical timings (the original is kept for the round trip)",
                transposed.ignored_fields.len(),
                transposed.ignored_fields[0]
            ),
        );
    }
}

fn quoted_list<S: AsRef<str>>(items: &[S]) -> String {
    items
        .iter()
        .map(|s| format!("`{}`", s.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// SWE-Perf's number is kept verbatim; canonical gets the speedup of the timings.
fn import_human_performance(
    r: &mut Importer<'_, '_>,
    c: &mut CanonicalRecord,
) -> Result<(), RecordError> {
    match r.value("human_performance") {
        None => {}
        Some(value @ (Value::Number(_) | Value::Null)) => r.keep_raw("human_performance", value),
        Some(other) => {
            return Err(RecordError::wrong_type(
                "/human_performance",
                "a number (SWE-Perf's fraction of significant runtime reduction)",
                &other,
            ));
        }
    }
    let speedup = canonical_timings(c)
        .as_deref()
        .and_then(timing::speedup)
        .and_then(Number::from_f64);
    match speedup {
        Some(speedup) => {
            c.human_performance = Some(speedup);
            r.notes.derived("human_performance", SPEEDUP_RULE);
        }
        None => r.notes.warn(
            "human_performance",
            "no speedup can be computed from the timings (a test without samples, or a mean of zero); SWE-Perf's own value is not a speedup",
        ),
    }
    Ok(())
}

/// A `{file: [names]}` or list-of-names value, as canonical holds it.
#[derive(Debug, Clone, PartialEq)]
struct Functions {
    /// Canonical `patch_functions` / `test_functions`.
    list: Option<Vec<String>>,
    /// The value canonical keeps beside the list (`patch_functions_by_file`,
    /// `test_functions_raw`).
    kept: Option<Value>,
}

/// Flattens `{file: [names]}` to `file::name` entries (bare names under `""`); `None`
/// when the map has another shape.
fn flatten(map: &Map<String, Value>) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for (file, names) in map {
        for name in names.as_array()? {
            let name = name.as_str()?;
            out.push(if file.is_empty() {
                name.to_owned()
            } else {
                format!("{file}{PATH_SEP}{name}")
            });
        }
    }
    Some(out)
}

/// Groups `file::name` entries into `{file: [names]}`, files in order of first appearance;
/// an entry without `::` goes under `""`.
fn group_by_file(entries: &[String]) -> Map<String, Value> {
    let mut map = Map::new();
    for entry in entries {
        let (file, name) = entry.split_once(PATH_SEP).unwrap_or(("", entry));
        if let Value::Array(names) = map
            .entry(file.to_owned())
            .or_insert_with(|| Value::Array(Vec::new()))
        {
            names.push(Value::String(name.to_owned()));
        }
    }
    map
}

fn string_list(items: &[Value]) -> Option<Vec<String>> {
    items
        .iter()
        .map(|v| v.as_str().map(str::to_owned))
        .collect()
}

/// `patch_functions` as decoded: a `{file: [names]}` map, flattened and kept.
fn patch_functions_of(decoded: &Value) -> Functions {
    let list = decoded.as_object().and_then(flatten);
    Functions {
        kept: list.as_ref().map(|_| decoded.clone()),
        list,
    }
}

/// `test_functions` as decoded: a list of strings is canonical; a map is flattened into
/// canonical and also kept raw; anything else is kept raw only.
fn test_functions_of(decoded: &Value) -> Functions {
    match decoded {
        Value::Array(items) if string_list(items).is_some() => Functions {
            list: string_list(items),
            kept: None,
        },
        Value::Object(map) if flatten(map).is_some() => Functions {
            list: flatten(map),
            kept: Some(decoded.clone()),
        },
        other => Functions {
            list: None,
            kept: Some(other.clone()),
        },
    }
}

/// A JSON-valued field decoded as far as it goes.
enum Decoded {
    /// Not a string: the value itself.
    Native(Value),
    /// A JSON-encoded string (possibly nested), with the outer text's style.
    Json(Value, Encoding),
    /// A string that is not JSON.
    Text(String),
}

impl Decoded {
    /// Decodes `value`, following JSON strings that hold JSON up to [`MAX_NESTING`] levels.
    fn of(value: &Value) -> Self {
        let Value::String(text) = value else {
            return Self::Native(value.clone());
        };
        let Ok(mut inner) = serde_json::from_str::<Value>(text) else {
            return Self::Text(text.clone());
        };
        for _ in 1..MAX_NESTING {
            let Value::String(nested) = &inner else { break };
            match serde_json::from_str::<Value>(nested) {
                Ok(next) => inner = next,
                Err(_) => break,
            }
        }
        Self::Json(inner, style_of(text))
    }

    /// The decoded value (a non-JSON text as a string).
    fn value(&self) -> Value {
        match self {
            Self::Native(v) | Self::Json(v, _) => v.clone(),
            Self::Text(text) => Value::String(text.clone()),
        }
    }

    fn encoding(&self) -> Option<Encoding> {
        match self {
            Self::Native(_) => Some(Encoding::Native),
            Self::Json(_, encoding) => Some(*encoding),
            Self::Text(_) => None,
        }
    }
}

fn style_of(text: &str) -> Encoding {
    match JsonStyle::detect(text) {
        Some(JsonStyle::Spaced) => Encoding::JsonSpaced,
        _ => Encoding::Json,
    }
}

/// What SWE-Perf's `patch_functions` is for canonical `Functions`: the kept map when it
/// still flattens to the list, else a map rebuilt from the list (`true` = rebuilt).
fn patch_functions_value(f: &Functions) -> Option<(Value, bool)> {
    match (&f.list, &f.kept) {
        (Some(list), Some(Value::Object(map))) if flatten(map).as_ref() == Some(list) => {
            Some((Value::Object(map.clone()), false))
        }
        (Some(list), _) => Some((Value::Object(group_by_file(list)), true)),
        (None, Some(kept)) => Some((kept.clone(), false)),
        (None, None) => None,
    }
}

/// What SWE-Perf's `test_functions` is for canonical `Functions`; `Err` holds a text to
/// write verbatim (what was not JSON).
fn test_functions_value(f: &Functions) -> Option<(Result<Value, String>, bool)> {
    match (&f.list, &f.kept) {
        (Some(list), Some(Value::Object(map))) if flatten(map).as_ref() == Some(list) => {
            Some((Ok(Value::Object(map.clone())), false))
        }
        (Some(list), _) => Some((Ok(Value::Object(group_by_file(list))), true)),
        (None, Some(Value::String(text))) => Some((Err(text.clone()), false)),
        (None, Some(kept)) => Some((Ok(kept.clone()), false)),
        (None, None) => None,
    }
}

/// `patch_functions` is `json.dumps` of a `{file: [qualified names]}` dict (§1): flattened
/// into canonical, the map kept beside it. `Importer::json` remembers the text's style and
/// keeps the text when encoding the map again would not give it back.
fn import_patch_functions(
    r: &mut Importer<'_, '_>,
    c: &mut CanonicalRecord,
) -> Result<(), RecordError> {
    let Some(decoded) = r.json("patch_functions")? else {
        return Ok(());
    };
    let Some(list) = decoded.as_object().and_then(flatten) else {
        return Err(RecordError::invalid(
            "/patch_functions",
            format!(
                "expected a JSON-encoded `{{file: [qualified names]}}` map, found {}",
                codec::shorten(&decoded.to_string(), 60)
            ),
        ));
    };
    c.patch_functions = Some(list);
    c.set_ext(vocab::PATCH_FUNCTIONS_BY_FILE, decoded);
    Ok(())
}

fn import_test_functions(r: &mut Importer<'_, '_>, c: &mut CanonicalRecord) {
    let Some(original) = r.value("test_functions") else {
        return;
    };
    let decoded = Decoded::of(&original);
    let functions = test_functions_of(&decoded.value());
    if functions.list.is_none() {
        r.notes.warn(
            "test_functions",
            "SWE-Perf's `test_functions` is neither a list of names nor a `{file: [names]}` map; kept in `extensions.test_functions_raw`",
        );
    }
    let encoding = decoded.encoding().unwrap_or(Encoding::JsonSpaced);
    let again = test_functions_value(&functions).map(|(v, _)| match v {
        Ok(v) => codec::encode_json(&v, encoding),
        Err(text) => Value::String(text),
    });
    let reproducible = again.as_ref() == Some(&original);
    r.remember_encoding("test_functions", encoding, reproducible, original);
    c.test_functions = functions.list;
    if let Some(kept) = functions.kept {
        c.set_ext(vocab::TEST_FUNCTIONS_RAW, kept);
    }
}

// ---------------------------------------------------------------- export

/// The canonical timings as floats.
fn canonical_timings(c: &CanonicalRecord) -> Option<Vec<TestTimings>> {
    let timings = c.duration_changes.as_ref()?;
    Some(
        timings
            .iter()
            .map(|d| TestTimings {
                base: d.base_f64(),
                head: d.head_f64(),
            })
            .collect(),
    )
}

/// `efficiency_test`, which SWE-Perf needs as pytest node ids; `None` when the record has
/// none. A record that came from SWE-Perf keeps its tests whatever they hold.
fn export_tests(
    c: &CanonicalRecord,
    from_swe_perf: bool,
) -> Result<Option<Vec<String>>, RecordError> {
    let Some(tests) = c.efficiency_test.clone() else {
        return Ok(None);
    };
    let scripts = c.ext_str(vocab::EFFICIENCY_TEST_KIND) == Some("python_script")
        || (!from_swe_perf && tests.iter().any(|t| t.contains('\n')));
    if scripts {
        return Err(RecordError::cannot_carry(
            "/efficiency_test",
            "SWE-Perf's `efficiency_test` are pytest node ids, the record holds Python scripts",
        )
        .with_hint("SWE-Perf runs `pytest <node ids> --json-report`; convert from a source whose efficiency tests are pytest node ids"));
    }
    Ok(Some(tests))
}

fn export_created_at(w: &mut Exporter<'_, '_, '_>) {
    let Some(created_at) = w.record.created_at.as_deref() else {
        return;
    };
    w.timestamp("created_at", Some(created_at), str::to_owned);
    if !created_at.ends_with('Z') && !w.same_format() {
        w.notes.warn(
            "created_at",
            "written without a time zone: the source had none, and SWE-Perf's own rows are UTC (`...Z`)",
        );
    }
}

/// SWE-Perf's `version` is the repository release, a key of the harness's spec table
/// (left out when the record has none: the contract asks for it).
fn export_version(w: &mut Exporter<'_, '_, '_>) {
    let Some(version) = release(w) else {
        return;
    };
    if let Some(Value::Number(number)) = w.raw("version")
        && number.to_string() == version
    {
        let number = number.clone();
        w.put("version", number);
    } else {
        w.put("version", version);
    }
}

fn export_timings(
    w: &mut Exporter<'_, '_, '_>,
    tests: &[String],
    per_test: Option<&[TestTimings]>,
) -> Result<(), RecordError> {
    // The original text, while it still transposes to the record's timings.
    if let Some(raw) = w.raw("duration_changes") {
        let unchanged = decode_runs(raw)
            .ok()
            .and_then(|(runs, _, _)| timing::transpose_runs(&runs, tests).ok())
            .is_some_and(|t| match per_test {
                Some(per_test) => t.per_test == per_test,
                // Canonical could not hold these timings (a test without samples).
                None => true,
            });
        if unchanged {
            let raw = raw.clone();
            w.put("duration_changes", raw);
            return Ok(());
        }
    }
    let Some(per_test) = per_test else {
        return Ok(());
    };
    let runs = runs_value(per_test, tests).map_err(|e| timing_error(&e))?;
    let encoding = w.encoding("duration_changes", Encoding::JsonSpaced);
    w.put("duration_changes", codec::encode_json(&runs, encoding));
    if !w.same_format() {
        w.notes.derived(
            "duration_changes",
            "SWE-Perf's runs-by-test layout: run i holds sample i of every test, `{\"<test>\": {\"base\": s, \"head\": s}}`, JSON-encoded",
        );
    }
    Ok(())
}

/// Writes a JSON-valued field from canonical `Functions`: the original text while it still
/// decodes to them, else the value in the source's style (Python's by default).
fn put_functions(
    w: &mut Exporter<'_, '_, '_>,
    key: &str,
    functions: &Functions,
    of: fn(&Value) -> Functions,
    value: Option<(Result<Value, String>, bool)>,
) {
    if let Some(raw) = w.raw(key)
        && of(&Decoded::of(raw).value()) == *functions
    {
        let raw = raw.clone();
        w.put(key, raw);
        return;
    }
    let Some((value, rebuilt)) = value else {
        return;
    };
    let encoding = w.encoding(key, Encoding::JsonSpaced);
    match value {
        Ok(value) => w.put(key, codec::encode_json(&value, encoding)),
        Err(text) => w.put(key, text),
    }
    if rebuilt {
        w.notes.derived(
            key,
            format!("`{{file: [names]}}` map grouped from the `file::name` entries of canonical `{key}` (entries without `::` under `\"\"`), JSON-encoded"),
        );
    }
}

fn export_patch_functions(w: &mut Exporter<'_, '_, '_>) {
    let c = w.record;
    let functions = Functions {
        list: c.patch_functions.clone(),
        kept: c.ext(vocab::PATCH_FUNCTIONS_BY_FILE).cloned(),
    };
    let value = patch_functions_value(&functions).map(|(v, rebuilt)| (Ok(v), rebuilt));
    put_functions(w, "patch_functions", &functions, patch_functions_of, value);
}

fn export_test_functions(w: &mut Exporter<'_, '_, '_>) {
    let c = w.record;
    let functions = Functions {
        list: c.test_functions.clone(),
        kept: c.ext(vocab::TEST_FUNCTIONS_RAW).cloned(),
    };
    let value = test_functions_value(&functions);
    put_functions(w, "test_functions", &functions, test_functions_of, value);
}

/// SWE-Perf's own number while the timings are the ones it came with; otherwise SWE-Perf's
/// metric computed from the timings.
fn export_human_performance(w: &mut Exporter<'_, '_, '_>, per_test: Option<&[TestTimings]>) {
    let c = w.record;
    let speedup = per_test.and_then(timing::speedup);
    let unchanged = c.human_performance.as_ref().and_then(Number::as_f64) == speedup;
    if let Some(source) = &w.source
        && unchanged
    {
        if let Some(raw) = source.raw.get("human_performance") {
            let raw = raw.clone();
            w.put("human_performance", raw);
            return;
        }
        if !source.keys.iter().any(|k| k == "human_performance") {
            return;
        }
    }
    if let Some(metric) = per_test
        .and_then(timing::sweperf_improvement)
        .and_then(Number::from_f64)
    {
        w.put("human_performance", metric);
        w.notes.derived(
            "human_performance",
            "SWE-Perf's metric from `duration_changes`: per test, IQR-filtered samples, the largest x (step 0.001) with base*(1-x) > head by a one-sided Mann-Whitney U test at p < 0.1; mean over the tests",
        );
    }
}
