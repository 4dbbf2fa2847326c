//! Multi-SWE-bench (`ByteDance-Seed/Multi-SWE-bench`) as a `cargo isobench` native plugin.
//!
//! Build it (`cargo build -p isobench-multi-swe-bench`, or `cargo isobench plugin build`
//! inside this workspace) and load the `cdylib` with `--plugin`.
//!
//! # Mapping
//!
//! | Multi-SWE-bench | canonical |
//! | --- | --- |
//! | `org`, `repo` (name only) | `repo` = `org/repo` |
//! | `instance_id` (`org__repo-number`) | `instance_id` (derived from `org`, `repo`, `number` when absent) |
//! | `base.sha` | `base_commit` |
//! | `fix_patch` | `patch` |
//! | `test_patch` | `test_patch` |
//! | `resolved_issues` | `extensions.problem_statement`: each issue as its title, a newline and its body (title alone when the body is null), issues separated by a blank line |
//! | `f2p_tests`, `s2p_tests`, `n2p_tests` (keys, in that order) | `extensions.fail_to_pass`: tests that did not pass with the test patch alone (failed, skipped, or did not run) and pass with the fix, as a SWE-bench harness expects |
//! | `p2p_tests` (keys) | `extensions.pass_to_pass` |
//! | `hints` | `extensions.hints_text` |
//!
//! Everything else (`number`, `state`, `title`, `body`, `base` itself, `resolved_issues`,
//! the five test maps, the three results, unknown keys) stays verbatim in
//! `extensions.source`, with the key order, so `multi-swe-bench -> canonical ->
//! multi-swe-bench` gives back the same JSON value with its keys in the same order.

use std::sync::OnceLock;

use isobench_plugin_sdk::core::adapter::{AdapterInfo, ExportOptions, ViewAdapter};
use isobench_plugin_sdk::core::contract::{Contract, Kind, Requirement};
use isobench_plugin_sdk::core::vocab::{self, Source};
use isobench_plugin_sdk::core::{CanonicalRecord, Notes, RecordError};
use isobench_plugin_sdk::export_plugin;
use serde_json::{Map, Value, json};

/// The adapter's name.
pub const NAME: &str = "multi-swe-bench";

/// The Multi-SWE-bench adapter.
#[derive(Debug)]
pub struct MultiSweBench {
    info: AdapterInfo,
}

const CARRIES: [&str; 8] = [
    "repo",
    "instance_id",
    "base_commit",
    "patch",
    "test_patch",
    "extensions.fail_to_pass",
    "extensions.pass_to_pass",
    "extensions.hints_text",
];

impl Default for MultiSweBench {
    fn default() -> Self {
        let mut fills = CARRIES.to_vec();
        fills.push("extensions.problem_statement");
        Self {
            info: AdapterInfo::new(
                NAME,
                &["mswebench", "multi-swe"],
                "Multi-SWE-bench instances (org/repo/number, base, resolved_issues, fix_patch, test maps, run results)",
            )
            .fills(&fills)
            .carries(&CARRIES)
            .contract(contract()),
        }
    }
}

/// What Multi-SWE-bench's harness requires of a row: `Dataset.from_dict` builds its
/// dataclasses from the row (no default for the pull request's fields; the three run
/// results are checked in `Dataset.__post_init__`), and `gen_report` grades the gold run
/// from `fixed_tests`.
fn contract() -> Contract {
    const PR: &str = "multi_swe_bench.harness.pull_request.PullRequest";
    const DATASET: &str = "multi_swe_bench.harness.dataset.Dataset.__post_init__";
    let req = Requirement::new;
    Contract::new(
        "multi-swe-bench harness",
        vec![
            req("org", Kind::String, "repo", "Repository").non_empty(),
            req("repo", Kind::String, "repo", "Repository").non_empty(),
            req(
                "number",
                Kind::Integer,
                "instance_id",
                "PullRequestBase.__post_init__",
            ),
            req("state", Kind::String, "", PR),
            req("title", Kind::String, "", PR),
            req("body", Kind::StringOrNull, "", PR),
            req("base/label", Kind::String, "", "pull_request.Base"),
            req("base/ref", Kind::String, "", "pull_request.Base"),
            req("base/sha", Kind::String, "base_commit", "pull_request.Base").non_empty(),
            req("resolved_issues", Kind::Array, "", PR),
            req("fix_patch", Kind::String, "patch", PR).non_empty(),
            req("test_patch", Kind::String, "test_patch", PR),
            req(
                "fixed_tests",
                Kind::Object,
                "extensions.fail_to_pass",
                "gen_report: the gold run must fix some test",
            )
            .non_empty(),
            req("run_result", Kind::Object, "", DATASET),
            req("test_patch_result", Kind::Object, "", DATASET),
            req("fix_patch_result", Kind::Object, "", DATASET),
        ],
    )
}

fn pointer(key: &str) -> String {
    format!("/{key}")
}

fn take_string(record: &mut Map<String, Value>, key: &str) -> Result<Option<String>, RecordError> {
    match record.shift_remove(key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(RecordError::wrong_type(pointer(key), "a string", &other)),
    }
}

fn require_string(record: &mut Map<String, Value>, key: &str) -> Result<String, RecordError> {
    take_string(record, key)?
        .ok_or_else(|| RecordError::missing(pointer(key), format!("{NAME} requires `{key}`")))
}

/// The problem statement composed from `resolved_issues`: each issue's title, a newline
/// and its body (the title alone when the body is null or empty), separated by a blank line.
pub fn problem_statement(issues: &[Value]) -> Result<String, RecordError> {
    let mut parts = Vec::with_capacity(issues.len());
    for (i, issue) in issues.iter().enumerate() {
        let at = format!("/resolved_issues/{i}");
        let Some(issue) = issue.as_object() else {
            return Err(RecordError::wrong_type(at, "an object", issue));
        };
        let text = |key: &str| match issue.get(key) {
            None | Some(Value::Null) => Ok(""),
            Some(Value::String(s)) => Ok(s.as_str()),
            Some(other) => Err(RecordError::wrong_type(
                format!("{at}/{key}"),
                "a string or null",
                other,
            )),
        };
        let (title, body) = (text("title")?, text("body")?);
        parts.push(if body.is_empty() {
            title.to_owned()
        } else {
            format!("{title}\n{body}")
        });
    }
    Ok(parts.join("\n\n"))
}

/// The test names of a `*_tests` map, in their order.
fn test_names(record: &Map<String, Value>, key: &str) -> Result<Vec<String>, RecordError> {
    match record.get(key) {
        None => Ok(Vec::new()),
        Some(Value::Object(tests)) => Ok(tests.keys().cloned().collect()),
        Some(other) => Err(RecordError::wrong_type(
            pointer(key),
            "an object of test name to statuses",
            other,
        )),
    }
}

impl ViewAdapter for MultiSweBench {
    fn info(&self) -> &AdapterInfo {
        &self.info
    }

    fn schema(&self) -> &Value {
        static SCHEMA: OnceLock<Value> = OnceLock::new();
        SCHEMA.get_or_init(|| {
            serde_json::from_str(include_str!("schema.json"))
                .expect("the embedded schema is valid JSON")
        })
    }

    // The patches are moved, never read: a host may send them as markers.
    fn verbatim_imports(&self) -> &[(String, String)] {
        static PAIRS: OnceLock<Vec<(String, String)>> = OnceLock::new();
        PAIRS.get_or_init(|| {
            [("fix_patch", "patch"), ("test_patch", "test_patch")]
                .map(|(k, f)| (k.to_owned(), f.to_owned()))
                .to_vec()
        })
    }

    fn verbatim_exports(&self) -> &[String] {
        static FIELDS: OnceLock<Vec<String>> = OnceLock::new();
        FIELDS.get_or_init(|| vec!["patch".to_owned(), "test_patch".to_owned()])
    }

    fn import(
        &self,
        mut record: Map<String, Value>,
        notes: &mut Notes,
    ) -> Result<CanonicalRecord, RecordError> {
        let mut source = Source::new(NAME, &record);
        let org = require_string(&mut record, "org")?;
        let name = require_string(&mut record, "repo")?;
        let base_commit = match record.get("base") {
            Some(Value::Object(base)) => match base.get("sha") {
                Some(Value::String(sha)) => sha.clone(),
                Some(other) => return Err(RecordError::wrong_type("/base/sha", "a string", other)),
                None => {
                    return Err(RecordError::missing(
                        "/base/sha",
                        "the base commit is `base.sha`",
                    ));
                }
            },
            Some(other) => {
                return Err(RecordError::wrong_type(
                    "/base",
                    "an object {label, ref, sha}",
                    other,
                ));
            }
            None => {
                return Err(RecordError::missing(
                    "/base",
                    format!("{NAME} requires `base`"),
                ));
            }
        };
        let instance_id = if let Some(id) = take_string(&mut record, "instance_id")? {
            id
        } else {
            let number = match record.get("number") {
                Some(Value::Number(n)) if n.is_u64() => n.to_string(),
                Some(other) => {
                    return Err(RecordError::wrong_type("/number", "an integer", other));
                }
                None => {
                    return Err(RecordError::missing(
                        "/number",
                        "needed for `instance_id` when it is absent",
                    ));
                }
            };
            notes.derived(
                "instance_id",
                "`org__repo-number`, Multi-SWE-bench's own rule",
            );
            format!("{org}__{name}-{number}")
        };
        let mut c = CanonicalRecord {
            repo: Some(format!("{org}/{name}")),
            instance_id: Some(instance_id),
            base_commit: Some(base_commit),
            patch: Some(require_string(&mut record, "fix_patch")?),
            test_patch: take_string(&mut record, "test_patch")?,
            ..CanonicalRecord::default()
        };
        if let Some(issues) = record.get("resolved_issues") {
            let Some(issues) = issues.as_array() else {
                return Err(RecordError::wrong_type(
                    "/resolved_issues",
                    "an array",
                    issues,
                ));
            };
            c.set_ext(vocab::PROBLEM_STATEMENT, problem_statement(issues)?);
        }
        let mut f2p = Vec::new();
        for key in ["f2p_tests", "s2p_tests", "n2p_tests"] {
            for test in test_names(&record, key)? {
                if !f2p.contains(&test) {
                    f2p.push(test);
                }
            }
        }
        c.set_ext(vocab::FAIL_TO_PASS, f2p);
        c.set_ext(vocab::PASS_TO_PASS, test_names(&record, "p2p_tests")?);
        if let Some(hints) = take_string(&mut record, "hints")? {
            c.set_ext(vocab::HINTS_TEXT, hints);
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
        for field in self.info.dropped_from(c) {
            notes.dropped(field, format!("{NAME} has no field for it"));
        }
        let needed = |field: &str, value: Option<&String>| {
            value.cloned().ok_or_else(|| {
                RecordError::cannot_carry(pointer(field), format!("{NAME} requires `{field}`"))
            })
        };
        let repo = needed("repo", c.repo.as_ref())?;
        let Some((org, name)) = repo.split_once('/') else {
            return Err(RecordError::invalid(
                "/repo",
                format!("`{repo}` is not `org/repo`"),
            ));
        };
        let instance_id = needed("instance_id", c.instance_id.as_ref())?;
        let base_commit = c.base_commit.clone().unwrap_or_default();
        let patch = c.patch.clone().unwrap_or_default();
        let source = Source::of_format(&c.extensions, NAME);
        let mut out = Map::new();
        out.insert("org".into(), org.into());
        out.insert("repo".into(), name.into());
        if let Some(source) = source {
            let mut extra = source.extra.clone();
            if let Some(Value::Object(base)) = extra.get_mut("base") {
                base.insert("sha".into(), base_commit.into());
            }
            if source.keys.iter().any(|k| k == "instance_id") {
                out.insert("instance_id".into(), instance_id.into());
            }
            out.insert("fix_patch".into(), patch.into());
            if let Some(t) = &c.test_patch {
                out.insert("test_patch".into(), t.clone().into());
            }
            if let Some(h) = c.ext_str(vocab::HINTS_TEXT) {
                out.insert("hints".into(), h.into());
            }
            out.extend(extra);
            return Ok(source.order(out));
        }
        // From another format: write what can be written, derive what has a rule, and
        // say what is missing rather than invent it.
        let number = instance_id
            .rsplit_once('-')
            .and_then(|(_, n)| n.parse::<u64>().ok());
        match number {
            Some(n) => {
                out.insert("number".into(), n.into());
                notes.derived("number", "the digits after the last `-` of `instance_id`");
            }
            None => notes.warn("number", "`instance_id` does not end in `-<PR number>`"),
        }
        if c.base_commit.is_some() {
            out.insert("base".into(), json!({ "sha": base_commit }));
        }
        if c.ext(vocab::PROBLEM_STATEMENT).is_some() {
            notes.dropped(
                "extensions.problem_statement",
                "Multi-SWE-bench keeps issues as `resolved_issues` {number, title, body}; a flat text cannot be split back",
            );
        }
        if c.patch.is_some() {
            out.insert("fix_patch".into(), patch.into());
        }
        if let Some(t) = &c.test_patch {
            out.insert("test_patch".into(), t.clone().into());
        }
        let statuses = |names: &[String], run: &str| -> Value {
            Value::Object(
                names
                    .iter()
                    .map(|n| (n.clone(), json!({"run": run, "test": run, "fix": "PASS"})))
                    .collect(),
            )
        };
        let f2p = c.ext_list(vocab::FAIL_TO_PASS).unwrap_or_default();
        let p2p = c.ext_list(vocab::PASS_TO_PASS).unwrap_or_default();
        out.insert("fixed_tests".into(), statuses(&f2p, "FAIL"));
        out.insert("p2p_tests".into(), statuses(&p2p, "PASS"));
        out.insert("f2p_tests".into(), statuses(&f2p, "FAIL"));
        out.insert("s2p_tests".into(), json!({}));
        out.insert("n2p_tests".into(), json!({}));
        notes.derived(
            "f2p_tests",
            "FAIL_TO_PASS tests with statuses run=FAIL, test=FAIL, fix=PASS (the bucket's definition); `fixed_tests` the same",
        );
        notes.derived(
            "p2p_tests",
            "PASS_TO_PASS tests with statuses PASS, PASS, PASS",
        );
        out.insert("instance_id".into(), instance_id.into());
        if let Some(h) = c.ext_str(vocab::HINTS_TEXT) {
            out.insert("hints".into(), h.into());
        }
        Ok(out)
    }
}

export_plugin!(MultiSweBench);
