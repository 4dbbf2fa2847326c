//! The shared vocabulary of `extensions`: concepts several formats know but canonical v1
//! has no field for. An adapter that imports `FAIL_TO_PASS` writes it to
//! [`FAIL_TO_PASS`] here, and any adapter that can hold it reads it from here, so
//! concepts travel between formats although no adapter names another.
//!
//! The `source` block ([`Source`]) records what is needed to write a record back to the
//! format it came from unchanged: key order, encodings, original values a normalisation
//! cannot give back, and fields the adapter does not know.

use serde_json::{Map, Value};

/// Issue text shown to the agent.
pub const PROBLEM_STATEMENT: &str = "problem_statement";
/// Issue comments made before the fix (GSO: a copy of the commit message).
pub const HINTS_TEXT: &str = "hints_text";
/// Tests that fail before the fix and pass after it.
pub const FAIL_TO_PASS: &str = "fail_to_pass";
/// Tests that pass before and after the fix.
pub const PASS_TO_PASS: &str = "pass_to_pass";
/// Commit used to build the evaluation environment (SWE-bench).
pub const ENVIRONMENT_SETUP_COMMIT: &str = "environment_setup_commit";
/// Human time estimate (SWE-bench Verified).
pub const DIFFICULTY: &str = "difficulty";
/// Container image of the instance (SWE-bench 5.x `image`; SWE-smith's and `MiniSandbox`'s `image_name`).
pub const IMAGE_NAME: &str = "image_name";
/// Evaluation script (SWE-bench 5.x).
pub const EVAL_SCRIPT: &str = "eval_script";
/// Log parser name (SWE-bench 5.x).
pub const LOG_PARSER: &str = "log_parser";
/// Evaluation type (SWE-bench 5.x).
pub const EVAL_TYPE: &str = "eval_type";
/// SWE-smith mirror repository, `swesmith/<owner>__<repo>.<commit8>`.
pub const MIRROR_REPO: &str = "mirror_repo";
/// Commit on the mirror holding the buggy state (not an upstream SHA).
pub const MIRROR_BASE_COMMIT: &str = "mirror_base_commit";
/// Python version (`MiniSandbox`).
pub const PYTHON_VERSION: &str = "python_version";
/// GSO's problem script.
pub const PROB_SCRIPT: &str = "prob_script";
/// GSO's whole commit diff.
pub const GT_DIFF: &str = "gt_diff";
/// Machine architecture (GSO).
pub const ARCH: &str = "arch";
/// Image tag (GSO).
pub const INSTANCE_IMAGE_TAG: &str = "instance_image_tag";
/// A base commit given as `<sha>^`, kept because it could not be resolved without the repository.
pub const BASE_COMMIT_UNRESOLVED: &str = "base_commit_unresolved";
/// The source's release version (`X.Y`) when canonical `version` holds a derived signature.
pub const UPSTREAM_VERSION: &str = "upstream_version";
/// SWE-Perf's `{file: [function]}` map behind `patch_functions`.
pub const PATCH_FUNCTIONS_BY_FILE: &str = "patch_functions_by_file";
/// SWE-Perf's `test_functions` as decoded, when it is not a list of strings.
pub const TEST_FUNCTIONS_RAW: &str = "test_functions_raw";
/// What `efficiency_test` holds: `pytest_nodeid` or `python_script`.
pub const EFFICIENCY_TEST_KIND: &str = "efficiency_test_kind";
/// The `source` block.
pub const SOURCE: &str = "source";
/// The part of the `source` block that keeps the values replaced at the user's request.
pub const REPLACED: &str = "replaced";

/// Every vocabulary key except `source`, for reports of what a target cannot carry.
pub const SHARED_KEYS: [&str; 22] = [
    PROBLEM_STATEMENT,
    HINTS_TEXT,
    FAIL_TO_PASS,
    PASS_TO_PASS,
    ENVIRONMENT_SETUP_COMMIT,
    DIFFICULTY,
    IMAGE_NAME,
    EVAL_SCRIPT,
    LOG_PARSER,
    EVAL_TYPE,
    MIRROR_REPO,
    MIRROR_BASE_COMMIT,
    PYTHON_VERSION,
    PROB_SCRIPT,
    GT_DIFF,
    ARCH,
    INSTANCE_IMAGE_TAG,
    BASE_COMMIT_UNRESOLVED,
    UPSTREAM_VERSION,
    PATCH_FUNCTIONS_BY_FILE,
    TEST_FUNCTIONS_RAW,
    EFFICIENCY_TEST_KIND,
];

/// The `extensions.source` block: what a record needs to go back to its own format
/// unchanged.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Source {
    /// Name of the adapter that imported the record.
    pub format: String,
    /// The source record's keys, in their original order.
    pub keys: Vec<String>,
    /// How each list- or JSON-valued field was encoded (`array`, `json`, `json-spaced`, `python-repr`).
    pub encodings: Map<String, Value>,
    /// Original values that a normalisation cannot give back exactly.
    pub raw: Map<String, Value>,
    /// Fields the adapter does not know, verbatim.
    pub extra: Map<String, Value>,
    /// The values a conversion replaced at the user's request (`--replace`), by field
    /// (`version`, `extensions.KEY`), as they were.
    pub replaced: Map<String, Value>,
}

impl Source {
    /// A block for a record read by the adapter `format`, with the record's key order.
    pub fn new(format: &str, record: &Map<String, Value>) -> Self {
        Self {
            format: format.to_owned(),
            keys: record.keys().cloned().collect(),
            ..Self::default()
        }
    }

    /// Reads the block from a record's extensions, if the record came from `format`.
    pub fn of_format(extensions: &Map<String, Value>, format: &str) -> Option<Self> {
        let block = extensions.get(SOURCE)?.as_object()?;
        if block.get("format")?.as_str()? != format {
            return None;
        }
        let object = |key: &str| {
            block
                .get(key)
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default()
        };
        let keys = block
            .get("keys")
            .and_then(Value::as_array)
            .map(|keys| {
                keys.iter()
                    .filter_map(|k| k.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        Some(Self {
            format: format.to_owned(),
            keys,
            encodings: object("encodings"),
            raw: object("raw"),
            extra: object("extra"),
            replaced: object(REPLACED),
        })
    }

    /// The name of the adapter a record came from, if it says.
    pub fn format_of(extensions: &Map<String, Value>) -> Option<&str> {
        extensions.get(SOURCE)?.get("format")?.as_str()
    }

    /// The encoding recorded for `field`.
    pub fn encoding(&self, field: &str) -> Option<&str> {
        self.encodings.get(field).and_then(Value::as_str)
    }

    /// The block as a JSON value (empty parts left out), of a copy of it
    /// ([`Source::into_value`]).
    pub fn to_value(&self) -> Value {
        self.clone().into_value()
    }

    /// The block as a JSON value, empty parts left out, built from the block's own
    /// strings and maps rather than copies of them: an import hands over the block of
    /// every record it reads.
    pub fn into_value(self) -> Value {
        let Self {
            format,
            keys,
            encodings,
            raw,
            extra,
            replaced,
        } = self;
        let mut block = Map::with_capacity(6);
        block.insert("format".into(), format.into());
        block.insert("keys".into(), keys.into());
        let parts = [
            ("encodings", encodings),
            ("raw", raw),
            ("extra", extra),
            (REPLACED, replaced),
        ];
        for (name, part) in parts {
            if !part.is_empty() {
                block.insert(name.into(), Value::Object(part));
            }
        }
        Value::Object(block)
    }

    /// Puts `fields` in the source's key order: known keys first, in their original
    /// order, then any others in the order given.
    pub fn order(&self, mut fields: Map<String, Value>) -> Map<String, Value> {
        if self.keys.is_empty() {
            return fields;
        }
        let mut ordered = Map::with_capacity(fields.len());
        for key in &self.keys {
            if let Some((k, v)) = fields.shift_remove_entry(key) {
                ordered.insert(k, v);
            }
        }
        ordered.extend(fields);
        ordered
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_is_written_in_its_order_without_empty_parts_and_read_back() {
        let record: Map<String, Value> = serde_json::from_str(r#"{"b": 1, "a": 2}"#).expect("json");
        let empty = Source::new("f", &record);
        let mut full = empty.clone();
        full.encodings.insert("a".into(), "json".into());
        full.raw.insert("b".into(), "1.0".into());
        full.extra.insert("c".into(), serde_json::json!({"d": [1]}));
        let mut partly = empty.clone();
        partly.raw.insert("b".into(), Value::Null);
        for (source, text) in [
            (&empty, r#"{"format":"f","keys":["b","a"]}"#),
            (
                &full,
                r#"{"format":"f","keys":["b","a"],"encodings":{"a":"json"},"raw":{"b":"1.0"},"extra":{"c":{"d":[1]}}}"#,
            ),
            (
                &partly,
                r#"{"format":"f","keys":["b","a"],"raw":{"b":null}}"#,
            ),
        ] {
            let block = source.clone().into_value();
            assert_eq!(serde_json::to_string(&block).expect("in memory"), text);
            assert_eq!(source.to_value(), block);
            let extensions = Map::from_iter([(SOURCE.to_owned(), block)]);
            assert_eq!(Source::of_format(&extensions, "f").as_ref(), Some(source));
        }
    }
}
