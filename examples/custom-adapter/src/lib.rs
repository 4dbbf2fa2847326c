//! A `cargo isobench` adapter for a new benchmark format, `custom-adapter`, built as a
//! native plugin. Copy this crate (or run `cargo isobench plugin new NAME`), then change
//! the field mapping below to your format's.
//!
//! One record of the format:
//!
//! ```json
//! {"task_id": "octo__widgets-7", "repository": "octo/widgets", "base_sha": "1111...",
//!  "gold_patch": "diff ...", "test_patch": "diff ...", "issue": "Widgets crash ...",
//!  "fail_to_pass": ["tests/test_w.py::test_empty"], "pass_to_pass": ["..."]}
//! ```
//!
//! Build with `cargo build --release` and load the library with
//! `cargo isobench --plugin target/release/libcustom_adapter.so convert --from custom-adapter ...`
//! (`.dylib` on macOS, `custom_adapter.dll` on Windows).

use std::sync::OnceLock;

use isobench_plugin_sdk::core::adapter::{AdapterInfo, ExportOptions, ViewAdapter};
use isobench_plugin_sdk::core::vocab::{self, Source};
use isobench_plugin_sdk::core::{CanonicalRecord, Notes, RecordError};
use isobench_plugin_sdk::export_plugin;
use serde_json::{Map, Value, json};

/// The format's name on the command line.
pub const NAME: &str = "custom-adapter";

/// Foreign field, canonical field, for the string fields that map one to one.
const STRINGS: [(&str, &str); 5] = [
    ("task_id", "instance_id"),
    ("repository", "repo"),
    ("base_sha", "base_commit"),
    ("gold_patch", "patch"),
    ("test_patch", "test_patch"),
];

/// Foreign field, shared-vocabulary key (`extensions.<key>`), so the concept travels to
/// every format that knows it (SWE-bench's `problem_statement`, `FAIL_TO_PASS`, ...).
const SHARED: [(&str, &str); 3] = [
    ("issue", vocab::PROBLEM_STATEMENT),
    ("fail_to_pass", vocab::FAIL_TO_PASS),
    ("pass_to_pass", vocab::PASS_TO_PASS),
];

/// The adapter.
#[derive(Debug)]
pub struct CustomAdapter {
    info: AdapterInfo,
}

impl Default for CustomAdapter {
    fn default() -> Self {
        let fields = [
            "repo",
            "instance_id",
            "base_commit",
            "patch",
            "test_patch",
            "extensions.problem_statement",
            "extensions.fail_to_pass",
            "extensions.pass_to_pass",
        ];
        Self {
            info: AdapterInfo::new(NAME, &[], "custom-adapter rows (task_id, repository, base_sha, gold_patch, issue, test lists)")
                .fills(&fields)
                .carries(&fields),
        }
    }
}

fn canonical_field<'c>(c: &'c mut CanonicalRecord, field: &str) -> &'c mut Option<String> {
    match field {
        "instance_id" => &mut c.instance_id,
        "repo" => &mut c.repo,
        "base_commit" => &mut c.base_commit,
        "patch" => &mut c.patch,
        _ => &mut c.test_patch,
    }
}

fn canonical_value<'c>(c: &'c CanonicalRecord, field: &str) -> Option<&'c String> {
    match field {
        "instance_id" => c.instance_id.as_ref(),
        "repo" => c.repo.as_ref(),
        "base_commit" => c.base_commit.as_ref(),
        "patch" => c.patch.as_ref(),
        _ => c.test_patch.as_ref(),
    }
}

impl ViewAdapter for CustomAdapter {
    fn info(&self) -> &AdapterInfo {
        &self.info
    }

    fn schema(&self) -> &Value {
        static SCHEMA: OnceLock<Value> = OnceLock::new();
        SCHEMA.get_or_init(|| {
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "required": ["task_id", "repository"],
                "properties": {
                    "task_id": {"type": "string"},
                    "repository": {"type": "string"},
                    "base_sha": {"type": "string"},
                    "gold_patch": {"type": "string"},
                    "test_patch": {"type": "string"},
                    "issue": {"type": "string"},
                    "fail_to_pass": {"type": "array", "items": {"type": "string"}},
                    "pass_to_pass": {"type": "array", "items": {"type": "string"}}
                }
            })
        })
    }

    // The long strings and the test lists `import` and `export` only move, never read: a
    // host may then hand them over as short markers (a list as an array holding its
    // marker alone) and write their original text where the markers land, instead of
    // decoding and encoding the bulk of each record. Declare a field here only if the
    // adapter never looks inside its value.
    fn verbatim_imports(&self) -> &[(&'static str, &'static str)] {
        &[
            ("gold_patch", "patch"),
            ("test_patch", "test_patch"),
            ("issue", "extensions.problem_statement"),
            ("fail_to_pass", "extensions.fail_to_pass"),
            ("pass_to_pass", "extensions.pass_to_pass"),
        ]
    }

    fn verbatim_exports(&self) -> &[&'static str] {
        &[
            "patch",
            "test_patch",
            "extensions.problem_statement",
            "extensions.fail_to_pass",
            "extensions.pass_to_pass",
        ]
    }

    fn import(
        &self,
        mut record: Map<String, Value>,
        _notes: &mut Notes,
    ) -> Result<CanonicalRecord, RecordError> {
        // The source block remembers the key order and keeps unknown fields verbatim, so
        // `custom-adapter -> canonical -> custom-adapter` gives back the same record.
        let mut source = Source::new(NAME, &record);
        let mut c = CanonicalRecord::default();
        for (key, field) in STRINGS {
            match record.shift_remove(key) {
                Some(Value::String(s)) => *canonical_field(&mut c, field) = Some(s),
                Some(other) => {
                    return Err(RecordError::wrong_type(
                        format!("/{key}"),
                        "a string",
                        &other,
                    ));
                }
                None => {}
            }
        }
        for (key, ext) in SHARED {
            if let Some(value) = record.shift_remove(key) {
                c.set_ext(ext, value);
            }
        }
        if c.instance_id.is_none() || c.repo.is_none() {
            return Err(RecordError::missing(
                "/task_id",
                format!("{NAME} requires `task_id` and `repository`"),
            ));
        }
        source.extra = record;
        c.set_ext(vocab::SOURCE, source.to_value());
        Ok(c)
    }

    fn export(
        &self,
        c: &CanonicalRecord,
        _options: &ExportOptions,
        notes: &mut Notes,
    ) -> Result<Map<String, Value>, RecordError> {
        // Report what this format cannot hold instead of losing it silently.
        for field in self.info.dropped_from(c) {
            notes.dropped(field, format!("{NAME} has no field for it"));
        }
        let mut out = Map::new();
        for (key, field) in STRINGS {
            match canonical_value(c, field) {
                Some(s) => {
                    out.insert(key.into(), s.clone().into());
                }
                None if field == "instance_id" || field == "repo" => {
                    return Err(RecordError::cannot_carry(
                        format!("/{field}"),
                        format!("{NAME} requires it"),
                    ));
                }
                None => notes.missing(key, "absent from the record"),
            }
        }
        for (key, ext) in SHARED {
            match c.ext(ext) {
                Some(value) => {
                    out.insert(key.into(), value.clone());
                }
                None => notes.missing(key, "absent from the record"),
            }
        }
        match Source::of_format(&c.extensions, NAME) {
            Some(source) => {
                out.extend(source.extra.clone());
                Ok(source.order(out))
            }
            None => Ok(out),
        }
    }
}

export_plugin!(CustomAdapter);
