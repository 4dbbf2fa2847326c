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
//!
//! The format is declared by its field table ([`table`]); what a table cannot say (the
//! repository split in two keys, `base.sha`, the id rule, issues and test maps) is done
//! by [`MultiSweBenchHooks`]. Exported with `export_table!`, the host runs the table and
//! moves the patches itself; only the hook keys cross to this library.

use isobench_plugin_sdk::core::contract::{Kind, Requirement};
use isobench_plugin_sdk::core::table::io::{Exporter, Importer};
use isobench_plugin_sdk::core::table::{Field, FieldType, HookResult, Hooks, Table, TableAdapter};
use isobench_plugin_sdk::core::vocab;
use isobench_plugin_sdk::core::{CanonicalRecord, RecordError};
use isobench_plugin_sdk::export_table;
use serde_json::{Map, Value, json};

/// The adapter's name.
pub const NAME: &str = "multi-swe-bench";

const PR: &str = "multi_swe_bench.harness.pull_request.PullRequest";
const DATASET: &str = "multi_swe_bench.harness.dataset.Dataset.__post_init__";

/// Multi-SWE-bench's keys, in the order a record from another format is written in, and
/// what its harness requires of a row: `Dataset.from_dict` builds its dataclasses from
/// the row (no default for the pull request's fields; the three run results are checked
/// in `Dataset.__post_init__`), and `gen_report` grades the gold run from `fixed_tests`.
pub fn table() -> Table {
    let f = Field::new;
    let json = |key: &str| Field::new(key, "").kind(FieldType::Json);
    let req = Requirement::new;
    let mut table = Table::new(
        NAME,
        &["mswebench", "multi-swe"],
        "Multi-SWE-bench instances (org/repo/number, base, resolved_issues, fix_patch, test maps, run results)",
    )
    .consumer("multi-swe-bench harness")
    .fields(vec![
        f("org", "").required().hook(),
        f("repo", "repo").required().hook().consumer("Repository").non_empty(),
        f("number", "").kind(FieldType::Integer).hook(),
        f("state", ""),
        f("title", ""),
        json("body"),
        json("base").required().hook(),
        json("resolved_issues").hook(),
        f("fix_patch", "patch").required().consumer(PR).non_empty(),
        f("test_patch", "test_patch").consumer(PR),
        json("fixed_tests"),
        f("p2p_tests", "extensions.pass_to_pass").kind(FieldType::Json).hook(),
        f("f2p_tests", "extensions.fail_to_pass").kind(FieldType::Json).hook(),
        json("s2p_tests").hook(),
        json("n2p_tests").hook(),
        json("run_result"),
        json("test_patch_result"),
        json("fix_patch_result"),
        f("instance_id", "instance_id").hook(),
        f("hints", "extensions.hints_text"),
    ])
    .fills_also(&["base_commit", "extensions.problem_statement"])
    // The problem statement is carried as the issues it was made from, when it still is.
    .carries_also(&["base_commit", "extensions.problem_statement"]);
    // Keys whose canonical field is not their own, and nested keys: the hooks write them.
    table.requires = vec![
        req("org", Kind::String, "repo", "Repository").non_empty(),
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
    ];
    table
}

/// The Multi-SWE-bench adapter, as the host builds it from the plugin.
pub fn adapter() -> TableAdapter {
    TableAdapter::new(table(), MultiSweBenchHooks).expect("Multi-SWE-bench's table is valid")
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
fn test_names(from: &Importer<'_, '_>, key: &str) -> Result<Vec<String>, RecordError> {
    match from.peek(key) {
        None => Ok(Vec::new()),
        Some(Value::Object(tests)) => Ok(tests.keys().cloned().collect()),
        Some(other) => Err(RecordError::wrong_type(
            format!("/{key}"),
            "an object of test name to statuses",
            other,
        )),
    }
}

/// `base.sha`, the base commit.
fn base_commit(from: &Importer<'_, '_>) -> Result<String, RecordError> {
    match from.peek("base") {
        Some(Value::Object(base)) => match base.get("sha") {
            Some(Value::String(sha)) => Ok(sha.clone()),
            Some(other) => Err(RecordError::wrong_type("/base/sha", "a string", other)),
            None => Err(RecordError::missing(
                "/base/sha",
                "the base commit is `base.sha`",
            )),
        },
        Some(other) => Err(RecordError::wrong_type(
            "/base",
            "an object {label, ref, sha}",
            other,
        )),
        None => Err(from.missing("base")),
    }
}

/// What Multi-SWE-bench's table cannot say: `org` + `repo`, `base.sha`, the id rule,
/// the problem statement from the issues, and the test lists from the test maps.
#[derive(Debug)]
pub struct MultiSweBenchHooks;

impl Hooks for MultiSweBenchHooks {
    fn import(&self, from: &mut Importer<'_, '_>, c: &mut CanonicalRecord) -> HookResult {
        let org = from.required_string("org")?;
        let name = from.required_string("repo")?;
        c.base_commit = Some(base_commit(from)?);
        c.instance_id = Some(if let Some(id) = from.string("instance_id")? {
            id
        } else {
            let number = match from.peek("number") {
                Some(Value::Number(n)) if n.is_u64() => n.to_string(),
                Some(other) => return Err(RecordError::wrong_type("/number", "an integer", other)),
                None => {
                    return Err(RecordError::missing(
                        "/number",
                        "needed for `instance_id` when it is absent",
                    ));
                }
            };
            from.notes.derived(
                "instance_id",
                "`org__repo-number`, Multi-SWE-bench's own rule",
            );
            format!("{org}__{name}-{number}")
        });
        c.repo = Some(format!("{org}/{name}"));
        if let Some(issues) = from.peek("resolved_issues") {
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
            for test in test_names(from, key)? {
                if !f2p.contains(&test) {
                    f2p.push(test);
                }
            }
        }
        c.set_ext(vocab::FAIL_TO_PASS, f2p);
        c.set_ext(vocab::PASS_TO_PASS, test_names(from, "p2p_tests")?);
        Ok(())
    }

    fn export(&self, c: &CanonicalRecord, to: &mut Exporter<'_, '_, '_>) -> HookResult {
        let needed = |field: &str, value: Option<&String>| {
            value.cloned().ok_or_else(|| {
                RecordError::cannot_carry(format!("/{field}"), format!("{NAME} requires `{field}`"))
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
        if let Some(statement) = c.ext_str(vocab::PROBLEM_STATEMENT) {
            let issues = to
                .source
                .as_ref()
                .and_then(|source| source.extra.get("resolved_issues"))
                .and_then(Value::as_array);
            let written = issues.and_then(|issues| problem_statement(issues).ok());
            if written.as_deref() != Some(statement) {
                to.notes.dropped(
                    "extensions.problem_statement",
                    "Multi-SWE-bench holds the resolved issues (`resolved_issues`), and the record's are not the text it has",
                );
            }
        }
        to.put("org", org);
        to.put("repo", name);
        if let Some(source) = &to.source {
            let base = match source.extra.get("base") {
                Some(Value::Object(base)) => {
                    let mut base = base.clone();
                    base.insert(
                        "sha".into(),
                        c.base_commit.clone().unwrap_or_default().into(),
                    );
                    Some(base)
                }
                _ => None,
            };
            let had_id = source.keys.iter().any(|k| k == "instance_id");
            to.put_some("base", base.map(Value::Object));
            if had_id {
                to.put("instance_id", instance_id);
            }
            return Ok(());
        }
        // From another format: write what can be written, derive what has a rule, and
        // say what is missing rather than invent it.
        match instance_id
            .rsplit_once('-')
            .and_then(|(_, n)| n.parse::<u64>().ok())
        {
            Some(n) => {
                to.put("number", n);
                to.notes
                    .derived("number", "the digits after the last `-` of `instance_id`");
            }
            None => to
                .notes
                .warn("number", "`instance_id` does not end in `-<PR number>`"),
        }
        if let Some(sha) = &c.base_commit {
            to.put("base", json!({ "sha": sha }));
        }
        let statuses = |names: &[String], run: &str| -> Value {
            Value::Object(
                names
                    .iter()
                    .map(|n| (n.clone(), json!({"run": run, "test": run, "fix": "PASS"})))
                    .collect::<Map<String, Value>>(),
            )
        };
        let f2p = c.ext_list(vocab::FAIL_TO_PASS).unwrap_or_default();
        let p2p = c.ext_list(vocab::PASS_TO_PASS).unwrap_or_default();
        to.put("fixed_tests", statuses(&f2p, "FAIL"));
        to.put("p2p_tests", statuses(&p2p, "PASS"));
        to.put("f2p_tests", statuses(&f2p, "FAIL"));
        to.put("s2p_tests", json!({}));
        to.put("n2p_tests", json!({}));
        to.notes.derived(
            "f2p_tests",
            "FAIL_TO_PASS tests with statuses run=FAIL, test=FAIL, fix=PASS (the bucket's definition); `fixed_tests` the same",
        );
        to.notes.derived(
            "p2p_tests",
            "PASS_TO_PASS tests with statuses PASS, PASS, PASS",
        );
        to.put("instance_id", instance_id);
        Ok(())
    }
}

export_table!(table(), MultiSweBenchHooks);
