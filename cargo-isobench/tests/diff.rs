//! `cargo isobench diff A B`: datasets compared by `instance_id`, field by field, after
//! import to canonical. The expected differences are worked out here from the edits each
//! test makes (or, on real data, from the raw rows), never from the command's output.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Output;

use proptest::prelude::*;
use serde_json::{Map, Value, json};

mod common;

use common::{TestContext, stderr, stdout};

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/data/swe-bench-verified.sample.jsonl")
}

/// The sample's SWE-bench rows.
fn rows() -> Vec<Map<String, Value>> {
    std::fs::read_to_string(sample())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn id(row: &Map<String, Value>) -> String {
    row["instance_id"].as_str().unwrap().to_owned()
}

fn jsonl(rows: &[Map<String, Value>]) -> String {
    let mut text = String::new();
    for row in rows {
        text.push_str(&Value::Object(row.clone()).to_string());
        text.push('\n');
    }
    text
}

fn diff(context: &TestContext, args: &[&str]) -> Output {
    let mut all = vec!["diff"];
    all.extend_from_slice(args);
    context.run(all)
}

fn diff_json(context: &TestContext, args: &[&str]) -> (Output, Value) {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let out = diff(context, &all);
    let value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", stdout(&out), stderr(&out)));
    (out, value)
}

#[test]
fn the_same_records_in_other_file_types_formats_and_orders_are_the_same() {
    let context = TestContext::new();
    context.copy(sample(), "a.jsonl");
    // Written by the tool: gzip, Parquet, canonical; written here: a JSON array, reversed.
    for (to, output) in [
        ("swe-bench", "b.jsonl.gz"),
        ("swe-bench", "b.parquet"),
        ("canonical", "b.canonical.jsonl"),
    ] {
        let out = context.run([
            "convert",
            "--from",
            "swe-bench",
            "--to",
            to,
            "-i",
            "a.jsonl",
            "-o",
            output,
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let mut reversed = rows();
    reversed.reverse();
    context.write(
        "b.json",
        serde_json::to_string_pretty(&Value::Array(
            reversed.into_iter().map(Value::Object).collect(),
        ))
        .unwrap(),
    );
    for b in ["b.jsonl.gz", "b.parquet", "b.canonical.jsonl", "b.json"] {
        let out = diff(&context, &["a.jsonl", b]);
        assert_eq!(out.status.code(), Some(0), "{b}: {}", stderr(&out));
        assert!(
            stdout(&out).contains("same: 3 record(s), no difference"),
            "{b}: {}",
            stdout(&out)
        );
        let (out, value) = diff_json(&context, &["a.jsonl", b]);
        assert_eq!(out.status.code(), Some(0), "{b}");
        assert_eq!(value["differ"], json!(false));
        assert_eq!(value["same"], json!(3));
    }
    // The formats were told from the records, one per side.
    let (_, value) = diff_json(&context, &["a.jsonl", "b.canonical.jsonl"]);
    assert_eq!(value["a"]["format"], json!("swe-bench"));
    assert_eq!(value["b"]["format"], json!("canonical"));
}

#[test]
fn added_removed_and_changed_records_are_named_field_by_field() {
    let context = TestContext::new();
    let a = rows();
    context.write("a.jsonl", jsonl(&a));
    let mut b = a.clone();
    // Record 1: its patch changes. Record 2: a test list changes, and it loses its
    // `difficulty`. Record 3 goes; a new one comes.
    b[0].insert("patch".into(), json!("diff --git a/x b/x\n"));
    b[1].insert(
        "FAIL_TO_PASS".into(),
        json!("[\"tests/test_new.py::test_it\"]"),
    );
    assert!(b[1].shift_remove("difficulty").is_some());
    let gone = b.remove(2);
    let mut new = a[0].clone();
    new.insert("instance_id".into(), json!("octo-labs__newcomer-1"));
    b.push(new);
    context.write("b.jsonl", jsonl(&b));
    let (out, value) = diff_json(&context, &["a.jsonl", "b.jsonl"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let expected = json!({
        "a": {"format": "swe-bench", "inputs": ["a.jsonl"], "records": 3},
        "b": {"format": "swe-bench", "inputs": ["b.jsonl"], "records": 3},
        "differ": true,
        "same": 0,
        "added": [{"instance_id": "octo-labs__newcomer-1", "file": "b.jsonl", "line": 3}],
        "removed": [{"instance_id": id(&gone), "file": "a.jsonl", "line": 3}],
        "changed": [
            {
                "instance_id": id(&a[0]),
                "a": {"file": "a.jsonl", "line": 1},
                "b": {"file": "b.jsonl", "line": 1},
                "fields": [{"field": "patch", "change": "value"}]
            },
            {
                "instance_id": id(&a[1]),
                "a": {"file": "a.jsonl", "line": 2},
                "b": {"file": "b.jsonl", "line": 2},
                "fields": [
                    {"field": "extensions.difficulty", "change": "removed"},
                    {"field": "extensions.fail_to_pass", "change": "value"},
                    // The row's list of keys, which the source block keeps, changes.
                    {"field": "extensions.source", "change": "value"}
                ]
            }
        ],
        "fields": {
            "extensions.difficulty": {"records": 1, "value": 0, "added": 0, "removed": 1},
            "extensions.fail_to_pass": {"records": 1, "value": 1, "added": 0, "removed": 0},
            "extensions.source": {"records": 1, "value": 1, "added": 0, "removed": 0},
            "patch": {"records": 1, "value": 1, "added": 0, "removed": 0}
        },
        "ignored": []
    });
    assert_eq!(value, expected);
    // The table says the same in short.
    let out = diff(&context, &["a.jsonl", "b.jsonl"]);
    assert_eq!(out.status.code(), Some(1));
    let table = stdout(&out);
    assert!(
        table.contains("same 0, changed 2, removed 1 (only in A), added 1 (only in B)"),
        "{table}"
    );
    assert!(
        table.contains(&format!("  {}  a.jsonl:3\n", id(&gone))),
        "{table}"
    );
    assert!(
        table.contains("  octo-labs__newcomer-1  b.jsonl:3\n"),
        "{table}"
    );
    assert!(
        table.contains(&format!(
            "  {}  a.jsonl:2 -> b.jsonl:2  -extensions.difficulty, extensions.fail_to_pass, extensions.source\n",
            id(&a[1])
        )),
        "{table}"
    );
    // Left out of the comparison, the changed fields make no difference.
    let out = diff(
        &context,
        &[
            "a.jsonl",
            "b.jsonl",
            "--ignore",
            "patch",
            "--ignore",
            "extensions",
        ],
    );
    let table = stdout(&out);
    assert!(
        table.contains("same 2, changed 0, removed 1 (only in A), added 1 (only in B)"),
        "{table}"
    );
    assert!(table.contains("not compared: patch, extensions"), "{table}");
}

#[test]
fn ignoring_the_changed_fields_leaves_the_same_records() {
    let context = TestContext::new();
    let a = rows();
    context.write("a.jsonl", jsonl(&a));
    let mut b = a.clone();
    b[2].insert("version".into(), json!("9.9"));
    context.write("b.jsonl", jsonl(&b));
    assert_eq!(
        diff(&context, &["a.jsonl", "b.jsonl"]).status.code(),
        Some(1)
    );
    let out = diff(&context, &["a.jsonl", "b.jsonl", "--ignore", "version"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}

#[test]
fn formats_are_given_per_side_or_for_both() {
    let context = TestContext::new();
    context.copy(sample(), "a.jsonl");
    let out = context.run([
        "convert",
        "--from",
        "swe-bench",
        "--to",
        "canonical",
        "-i",
        "a.jsonl",
        "-o",
        "c.jsonl",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = diff(
        &context,
        &[
            "a.jsonl",
            "c.jsonl",
            "--from-a",
            "swe-bench",
            "--from-b",
            "canonical",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // `--from` names both; the canonical file is not SWE-bench rows.
    let out = diff(&context, &["a.jsonl", "c.jsonl", "--from", "swe-bench"]);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("error: c.jsonl:1: record `"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_repeated_instance_id_is_an_error_naming_both_places() {
    let context = TestContext::new();
    let a = rows();
    context.write("a.jsonl", jsonl(&a));
    let mut b = a.clone();
    b.push(a[1].clone());
    context.write("b.jsonl", jsonl(&b));
    for (args, file) in [
        (["a.jsonl", "b.jsonl"], "b.jsonl"),
        (["b.jsonl", "a.jsonl"], "b.jsonl"),
    ] {
        let out = diff(&context, &args);
        assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!(
                "error: {file}:4: `instance_id` `{}` repeats the record at {file}:2",
                id(&a[1])
            )),
            "{}",
            stderr(&out)
        );
        assert!(stdout(&out).is_empty(), "no verdict is printed");
    }
}

#[test]
fn records_that_cannot_be_compared_stop_the_diff_with_their_place() {
    let context = TestContext::new();
    let a = rows();
    context.write("a.jsonl", jsonl(&a));
    let mut text = jsonl(&a[..2]);
    text.push_str("{\"instance_id\": \"x\",\n");
    context.write("broken.jsonl", text);
    let out = diff(
        &context,
        &["a.jsonl", "broken.jsonl", "--from", "swe-bench"],
    );
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("error: broken.jsonl:3: "),
        "{}",
        stderr(&out)
    );

    let mut bad = a.clone();
    bad[1].insert("FAIL_TO_PASS".into(), json!(7));
    context.write("bad.jsonl", jsonl(&bad));
    let out = diff(&context, &["a.jsonl", "bad.jsonl", "--from", "swe-bench"]);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!(
            "error: bad.jsonl:2: record `{}`: `/FAIL_TO_PASS`:",
            id(&a[1])
        )),
        "{}",
        stderr(&out)
    );
}

#[test]
fn usage_and_read_errors_have_their_own_exit_codes() {
    let context = TestContext::new();
    context.copy(sample(), "a.jsonl");
    let out = diff(
        &context,
        &["a.jsonl", "a.jsonl", "--from", "no-such-format"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let out = diff(&context, &["a.jsonl", "a.jsonl", "--ignore", "patches"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("`--ignore patches`: not a canonical field"));
    let out = diff(&context, &["-", "-", "--from", "swe-bench"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let out = diff(
        &context,
        &["a.jsonl", "missing.jsonl", "--from", "swe-bench"],
    );
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("missing.jsonl"), "{}", stderr(&out));
}

/// What is done to one record of A to make B.
#[derive(Debug, Clone, Copy)]
enum Edit {
    Keep,
    Remove,
    /// Changes `patch`.
    Patch,
    /// Changes `problem_statement` (`extensions.problem_statement`) and `version`.
    StatementAndVersion,
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        Just(Edit::Keep),
        Just(Edit::Remove),
        Just(Edit::Patch),
        Just(Edit::StatementAndVersion),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Any edit script over a dataset is found back: the records removed (in A's order),
    /// added and changed (in B's order, whatever it is), and the fields of each change.
    #[test]
    fn diff_finds_back_any_edit_script(
        edits in prop::collection::vec(edit(), 1..9),
        added in 0usize..3,
        order in any::<prop::sample::Index>(),
    ) {
        let context = TestContext::new();
        let base = rows();
        // A: copies of the sample rows under ids of their own.
        let a: Vec<Map<String, Value>> = edits
            .iter()
            .enumerate()
            .map(|(i, _)| {
                let mut row = base[i % base.len()].clone();
                row.insert("instance_id".into(), json!(format!("owner__repo-{i}")));
                row
            })
            .collect();
        let mut b = Vec::new();
        let mut expected_changes: BTreeMap<String, Vec<Value>> = BTreeMap::new();
        let mut removed = Vec::new();
        for (row, edit) in a.iter().zip(&edits) {
            let mut row = row.clone();
            match edit {
                Edit::Keep => {}
                Edit::Remove => {
                    removed.push(id(&row));
                    continue;
                }
                Edit::Patch => {
                    row.insert("patch".into(), json!(format!("{}\n", row["patch"].as_str().unwrap())));
                    expected_changes.insert(id(&row), vec![json!({"field": "patch", "change": "value"})]);
                }
                Edit::StatementAndVersion => {
                    row.insert("problem_statement".into(), json!("another statement"));
                    row.insert("version".into(), json!("0.0"));
                    expected_changes.insert(id(&row), vec![
                        json!({"field": "version", "change": "value"}),
                        json!({"field": "extensions.problem_statement", "change": "value"}),
                    ]);
                }
            }
            b.push(row);
        }
        let mut added_ids = Vec::new();
        for n in 0..added {
            let mut row = base[n % base.len()].clone();
            row.insert("instance_id".into(), json!(format!("other__repo-{n}")));
            added_ids.push(id(&row));
            b.push(row);
        }
        // B in another order: a rotation.
        if !b.is_empty() {
            let k = order.index(b.len());
            b.rotate_left(k);
        }
        context.write("a.jsonl", jsonl(&a));
        context.write("b.jsonl", jsonl(&b));
        let (out, value) = diff_json(&context, &["a.jsonl", "b.jsonl", "--from", "swe-bench"]);
        let b_order: Vec<String> = b.iter().map(id).collect();
        let listed = |key: &str| -> Vec<String> {
            value[key].as_array().unwrap().iter()
                .map(|r| r["instance_id"].as_str().unwrap().to_owned())
                .collect()
        };
        prop_assert_eq!(listed("removed"), removed.clone());
        let added_in_b_order: Vec<String> =
            b_order.iter().filter(|i| added_ids.contains(i)).cloned().collect();
        prop_assert_eq!(listed("added"), added_in_b_order);
        let changed_in_b_order: Vec<String> =
            b_order.iter().filter(|i| expected_changes.contains_key(*i)).cloned().collect();
        prop_assert_eq!(listed("changed"), changed_in_b_order);
        for record in value["changed"].as_array().unwrap() {
            let id = record["instance_id"].as_str().unwrap();
            prop_assert_eq!(record["fields"].as_array().unwrap(), &expected_changes[id]);
            // The places are where each side has the record.
            let line_in_b = b_order.iter().position(|i| i == id).unwrap() + 1;
            prop_assert_eq!(&record["b"]["line"], &json!(line_in_b));
        }
        let same = a.len() - removed.len() - expected_changes.len();
        prop_assert_eq!(&value["same"], &json!(same));
        let differ = !(removed.is_empty() && added == 0 && expected_changes.is_empty());
        prop_assert_eq!(out.status.code(), Some(i32::from(differ)));
    }
}

/// Two published revisions of SWE-bench Verified, compared with what the raw rows say:
/// ids only on one side are added or removed, and a record is changed exactly when its
/// raw rows differ (the import keeps every key, value and encoding).
#[test]
fn two_real_revisions_differ_where_their_rows_do() {
    let (Some(old), Some(new)) = (
        isobench_tests::read_jsonl("swebench-verified/swebench_verified_test.jsonl"),
        isobench_tests::read_jsonl(
            "swebench-verified/swebench_verified_mini_rev_a9e0332_no_difficulty.jsonl",
        ),
    ) else {
        return;
    };
    let real = isobench_tests::real_data().unwrap();
    let context = TestContext::new();
    let (out, value) = diff_json(
        &context,
        &[
            real.join("swebench-verified/swebench_verified_test.jsonl")
                .to_str()
                .unwrap(),
            real.join("swebench-verified/swebench_verified_mini_rev_a9e0332_no_difficulty.jsonl")
                .to_str()
                .unwrap(),
            "--from",
            "swe-bench",
        ],
    );
    let by_id = |rows: &[(String, Map<String, Value>)]| -> BTreeMap<String, Map<String, Value>> {
        rows.iter().map(|(_, r)| (id(r), r.clone())).collect()
    };
    let (old, new) = (by_id(&old), by_id(&new));
    let ids = |key: &str| -> BTreeSet<String> {
        value[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["instance_id"].as_str().unwrap().to_owned())
            .collect()
    };
    let removed: BTreeSet<String> = old
        .keys()
        .filter(|i| !new.contains_key(*i))
        .cloned()
        .collect();
    let added: BTreeSet<String> = new
        .keys()
        .filter(|i| !old.contains_key(*i))
        .cloned()
        .collect();
    let changed: BTreeSet<String> = new
        .iter()
        .filter(|(i, row)| {
            old.get(*i)
                .is_some_and(|o| o != *row || o.keys().ne(row.keys()))
        })
        .map(|(i, _)| i.clone())
        .collect();
    assert_eq!(ids("removed"), removed);
    assert_eq!(ids("added"), added);
    assert_eq!(ids("changed"), changed);
    let differ = !(removed.is_empty() && added.is_empty() && changed.is_empty());
    assert_eq!(out.status.code(), Some(i32::from(differ)));
    // The mini revision has no `difficulty`: every changed record lost it.
    for record in value["changed"].as_array().unwrap() {
        let had = old[record["instance_id"].as_str().unwrap()].contains_key("difficulty");
        let lost = record["fields"]
            .as_array()
            .unwrap()
            .contains(&json!({"field": "extensions.difficulty", "change": "removed"}));
        assert_eq!(had, lost, "{record}");
    }
}

/// The text of `docs/diff.md` after `marker`, up to the end of its code block.
fn doc_block(marker: &str) -> String {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/diff.md"))
            .unwrap();
    let start = doc
        .find(marker)
        .unwrap_or_else(|| panic!("`{marker}` is not in docs/diff.md"));
    let rest = &doc[start + marker.len()..];
    rest[..rest.find("```").unwrap()].to_owned()
}

#[test]
fn the_examples_of_the_diff_page_are_what_the_command_prints() {
    let context = TestContext::new();
    let a = rows();
    // The table's example: the edits of `added_removed_and_changed_records_are_named_field_by_field`.
    context.write("verified-old.jsonl", jsonl(&a));
    let mut b = a.clone();
    b[0].insert("patch".into(), json!("diff --git a/x b/x\n"));
    b[1].insert(
        "FAIL_TO_PASS".into(),
        json!("[\"tests/test_new.py::test_it\"]"),
    );
    b[1].shift_remove("difficulty");
    b.remove(2);
    let mut new = a[0].clone();
    new.insert("instance_id".into(), json!("octo-labs__newcomer-1"));
    b.push(new.clone());
    context.write("new.jsonl", jsonl(&b));
    let out = context.run([
        "convert",
        "--from",
        "swe-bench",
        "--to",
        "swe-bench",
        "-i",
        "new.jsonl",
        "-o",
        "verified-new.jsonl.gz",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let command = "$ cargo isobench diff verified-old.jsonl verified-new.jsonl.gz\n";
    let expected = doc_block(command);
    let out = diff(&context, &["verified-old.jsonl", "verified-new.jsonl.gz"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), expected);

    // The JSON example: one record changed (its patch), one the same, one removed, one added.
    context.write("old.jsonl", jsonl(&a));
    let mut b = a.clone();
    b[0].insert("patch".into(), json!("diff --git a/x b/x\n"));
    b.remove(2);
    b.push(new);
    context.write("new.jsonl", jsonl(&b));
    let expected: Value = serde_json::from_str(&doc_block("```json\n")).unwrap();
    let (_, value) = diff_json(&context, &["old.jsonl", "new.jsonl"]);
    assert_eq!(value, expected);
}

#[test]
fn a_record_without_an_instance_id_cannot_be_matched() {
    // A format declared by a table that maps no key to `instance_id` imports records
    // without one: `diff` matches by it, so it stops there, naming the place.
    let context = TestContext::new();
    context.write(
        "bare.toml",
        "name = \"bare\"\ndescription = \"rows with a repository only\"\n\n[[fields]]\nkey = \"repository\"\nto = \"repo\"\n",
    );
    context.write("bare.jsonl", "{\"repository\": \"o/r\"}\n");
    let out = context.run([
        "--adapter",
        "bare.toml",
        "diff",
        "--from",
        "bare",
        "bare.jsonl",
        "bare.jsonl",
    ]);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("error: bare.jsonl:1: the record has no `instance_id`"),
        "{}",
        stderr(&out)
    );
}
