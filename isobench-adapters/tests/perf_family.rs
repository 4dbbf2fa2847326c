//! The performance family: SWE-Perf and GSO.
//!
//! No real SWE-Perf or GSO row could be read (`docs/formats.md` §0: "No raw SWE-Perf, GSO
//! or SWE-smith rows could be read"), so the records here are made by hand, following
//! `docs/formats.md` field by field. Each builder says where every field's shape comes
//! from. The JSON-encoded strings are written the way Python's `json.dumps` writes them
//! (`", "` and `": "`), built here by hand rather than with the codec under test.

use isobench_adapters::link;
use isobench_core::adapter::ExportOptions;
use isobench_core::report::NoteKind;
use isobench_core::schema::SchemaValidator;
use isobench_core::timing::{self, TestTimings};
use isobench_core::{CanonicalRecord, Notes, Profile, RecordError, Registry, validate_record};
use serde_json::{Map, Value, json};

// ---------------------------------------------------------------- helpers

fn registry() -> Registry {
    link();
    Registry::builtin()
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

fn import(registry: &Registry, format: &str, record: &Value) -> (CanonicalRecord, Notes) {
    let adapter = registry.get(format).expect("built in");
    let mut notes = Notes::new();
    let canonical = adapter
        .import(object(record.clone()), &mut notes)
        .unwrap_or_else(|e| panic!("{format} import failed: {e} ({:?})", e.hint));
    (canonical, notes)
}

fn export(
    registry: &Registry,
    format: &str,
    record: &CanonicalRecord,
) -> (Result<Map<String, Value>, RecordError>, Notes) {
    let adapter = registry.get(format).expect("built in");
    let mut notes = Notes::new();
    let out = adapter.export(record, &ExportOptions::default(), &mut notes);
    (out, notes)
}

/// The keys of `out` the contract of `format` finds lacking, as `convert` checks them.
fn unmet(registry: &Registry, format: &str, out: &Map<String, Value>) -> Vec<String> {
    let contract = &registry.get(format).expect("built in").info().contract;
    contract
        .check(out, &|_| None)
        .iter()
        .map(|u| u.requirement.key.clone())
        .collect()
}

/// `export(import(r)) == r`: same keys in the same order, same values, same text.
fn assert_round_trip(registry: &Registry, format: &str, record: &Value) -> CanonicalRecord {
    let (canonical, _) = import(registry, format, record);
    let (back, _) = export(registry, format, &canonical);
    let back = Value::Object(back.unwrap_or_else(|e| panic!("{format} export failed: {e}")));
    assert_eq!(&back, record, "{format}: values differ");
    assert_eq!(
        serde_json::to_string(&back).unwrap(),
        serde_json::to_string(record).unwrap(),
        "{format}: key order or encoding differs"
    );
    // Through the canonical file format and back: what a user's pipeline does.
    let text = serde_json::to_string(&canonical.to_value()).unwrap();
    let (reread, _) = import(registry, "canonical", &serde_json::from_str(&text).unwrap());
    assert_eq!(
        reread, canonical,
        "{format}: the canonical record does not survive JSON"
    );
    let (again, _) = export(registry, format, &reread);
    assert_eq!(
        serde_json::to_string(&Value::Object(again.unwrap())).unwrap(),
        serde_json::to_string(record).unwrap(),
        "{format}: round trip through canonical JSON differs"
    );
    canonical
}

fn keys(map: &Map<String, Value>) -> Vec<&str> {
    map.keys().map(String::as_str).collect()
}

fn has_note(notes: &Notes, kind: NoteKind, field: &str) -> bool {
    notes.iter().any(|n| n.kind == kind && n.field == field)
}

fn note_detail<'a>(notes: &'a Notes, kind: NoteKind, field: &str) -> &'a str {
    notes
        .iter()
        .find(|n| n.kind == kind && n.field == field)
        .map_or("", |n| n.detail.as_str())
}

fn schema_problems(registry: &Registry, format: &str, record: &Value) -> Vec<String> {
    let schema = registry
        .get(format)
        .expect("built in")
        .schema(isobench_core::Profile::Lossless);
    SchemaValidator::new(schema)
        .expect("the view schema compiles")
        .problems(record)
        .iter()
        .map(ToString::to_string)
        .collect()
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / f64::from(u32::try_from(xs.len()).unwrap())
}

fn sha40(prefix: &str, fill: char) -> String {
    let sha: String = prefix
        .chars()
        .chain(std::iter::repeat(fill))
        .take(40)
        .collect();
    assert_eq!(sha.len(), 40);
    sha
}

// ---------------------------------------------------------------- SWE-Perf records

/// SWE-Perf's published column order (§1: `upload_to_huggingface.py`'s selection, the
/// end2end statement renamed in place, `human_performance` appended).
const SWE_PERF_COLUMNS: [&str; 15] = [
    "repo",
    "instance_id",
    "patch",
    "test_patch",
    "base_commit",
    "head_commit",
    "created_at",
    "version",
    "duration_changes",
    "efficiency_test",
    "patch_functions",
    "problem_statement_oracle",
    "test_functions",
    "problem_statement_realistic",
    "human_performance",
];

const TEST_A: &str = "astropy/utils/tests/test_diff.py::test_where_not_allclose";
const TEST_B: &str = "astropy/io/fits/tests/test_diff.py::TestDiff::test_identical_tables[1-2]";

/// Durations as Python's `repr(float)` writes them: five significant digits ending in a
/// non-zero digit, so the text is the shortest round-tripping form in Python and Rust.
fn base_a(run: usize) -> String {
    format!("0.41{run:02}3")
}
fn head_a(run: usize) -> String {
    format!("0.12{run:02}7")
}
fn base_b(run: usize) -> String {
    format!("1.20{run:02}1")
}
fn head_b(run: usize) -> String {
    format!("0.61{run:02}9")
}

/// One run as `json.dumps` writes `{nodeid: {"base": s, "head": s}, ...}` (§1.1).
fn python_run(entries: &[(&str, Option<String>, Option<String>)]) -> String {
    let parts: Vec<String> = entries
        .iter()
        .map(|(test, base, head)| {
            let mut sides = Vec::new();
            if let Some(b) = base {
                sides.push(format!("\"base\": {b}"));
            }
            if let Some(h) = head {
                sides.push(format!("\"head\": {h}"));
            }
            format!("\"{test}\": {{{}}}", sides.join(", "))
        })
        .collect();
    format!("{{{}}}", parts.join(", "))
}

/// 20 runs (`REPEAT_TIME = 20`, §1.1) of the two tests, every sample present.
fn runs_two_tests() -> Vec<String> {
    (0..20)
        .map(|run| {
            python_run(&[
                (TEST_A, Some(base_a(run)), Some(head_a(run))),
                (TEST_B, Some(base_b(run)), Some(head_b(run))),
            ])
        })
        .collect()
}

const PATCH: &str = "diff --git a/astropy/utils/diff.py b/astropy/utils/diff.py\n--- a/astropy/utils/diff.py\n+++ b/astropy/utils/diff.py\n@@ -10,3 +10,3 @@ def where_not_allclose(a, b, rtol=1e-5, atol=1e-8):\n     # fast path\n-    return np.where(np.abs(a - b) > (atol + rtol * np.abs(b)))\n+    return np.nonzero(~np.isclose(a, b, rtol=rtol, atol=atol))\n     # end\n";
const TEST_PATCH: &str = "diff --git a/astropy/utils/tests/test_diff.py b/astropy/utils/tests/test_diff.py\n--- a/astropy/utils/tests/test_diff.py\n+++ b/astropy/utils/tests/test_diff.py\n@@ -1,2 +1,3 @@\n import numpy as np\n+import pytest\n from astropy.utils.diff import where_not_allclose\n";

/// A complete SWE-Perf row with 2 efficiency tests and 20 runs.
fn swe_perf_complete() -> Value {
    let patch_functions = "{\"astropy/utils/diff.py\": [\"where_not_allclose\", \"report_diff_values\"], \"astropy/io/fits/diff.py\": [\"TableDataDiff._diff\"]}";
    json!({
        // §1 `repo`: string `owner/name`.
        "repo": "astropy/astropy",
        // §1 `instance_id`: `owner__repo-<PR number>`, no `PR-` prefix.
        "instance_id": "astropy__astropy-16065",
        // §1 `patch`: unified diff without test files.
        "patch": PATCH,
        // §1 `test_patch`: unified diff of the test files.
        "test_patch": TEST_PATCH,
        // §1 `base_commit`, `head_commit`: 40-hex PR base and head SHAs.
        "base_commit": sha40("d16bfe05a7", 'a'),
        "head_commit": sha40("5f7be1e1c2", 'b'),
        // §1 `created_at`: GitHub API time, ISO-8601 UTC with `Z`.
        "created_at": "2024-02-20T14:22:31Z",
        // §1 `version`: repository release `X.Y` as a string.
        "version": "5.3",
        // §1 `duration_changes` + §1.1: JSON-encoded array of 20 runs keyed by node id.
        "duration_changes": format!("[{}]", runs_two_tests().join(", ")),
        // §1 `efficiency_test`: array<string> of pytest node ids.
        "efficiency_test": [TEST_A, TEST_B],
        // §1 `patch_functions`: JSON-encoded `{file_path: [qualified function names]}`.
        "patch_functions": patch_functions,
        // §1 `problem_statement_oracle`: instructions + `str(patch_functions dict)` (a Python repr).
        "problem_statement_oracle": "Please enhance the computational efficiency and execution speed across the entire repository. The following functions are the targets: {'astropy/utils/diff.py': ['where_not_allclose', 'report_diff_values'], 'astropy/io/fits/diff.py': ['TableDataDiff._diff']}\n1. ...",
        // §1 `test_functions`: JSON-encoded string, shape unverified; the third-party reading
        // is `{file: [funcs]}`, used here.
        "test_functions": "{\"astropy/utils/diff.py\": [\"where_not_allclose\"]}",
        // §1 `problem_statement_realistic`: the same template with a `defaultdict` repr (not JSON).
        "problem_statement_realistic": "Please enhance the computational efficiency ... defaultdict(<class 'list'>, {'astropy/utils/diff.py': ['where_not_allclose']})",
        // §1 `human_performance`: float64 fraction in [0, 1] (§1.2).
        "human_performance": 0.1085
    })
}

/// Like [`swe_perf_complete`], with gaps (§1.1 edge cases: a run may lack a test, or a
/// test may have only `base`): run 7 has no entry for test B, run 12 has only `base` for
/// test A, and the last run stayed `{}`.
fn swe_perf_with_gaps() -> Value {
    let mut runs = runs_two_tests();
    runs[7] = python_run(&[(TEST_A, Some(base_a(7)), Some(head_a(7)))]);
    runs[12] = python_run(&[
        (TEST_A, Some(base_a(12)), None),
        (TEST_B, Some(base_b(12)), Some(head_b(12))),
    ]);
    "{}".clone_into(&mut runs[19]);
    let mut record = swe_perf_complete();
    record["instance_id"] = json!("astropy__astropy-16066");
    record["duration_changes"] = json!(format!("[{}]", runs.join(", ")));
    record["human_performance"] = json!(0.0921);
    record
}

/// A PR without tests (§1 `test_patch` "may be `\"\"`"), one efficiency test, a release
/// with a trailing zero (§3.1/§9.2: `0.20` is not `0.2`), and `test_functions` as a
/// double-encoded list (§1: "may be double-JSON-encoded").
fn swe_perf_no_test_patch() -> Value {
    let test = "sklearn/utils/tests/test_extmath.py::test_randomized_svd";
    let runs: Vec<String> = (0..20)
        .map(|run| {
            python_run(&[(
                test,
                Some(format!("2.5{run:02}3")),
                Some(format!("1.1{run:02}9")),
            )])
        })
        .collect();
    json!({
        "repo": "scikit-learn/scikit-learn",
        "instance_id": "scikit-learn__scikit-learn-25986",
        "patch": "diff --git a/sklearn/utils/extmath.py b/sklearn/utils/extmath.py\n--- a/sklearn/utils/extmath.py\n+++ b/sklearn/utils/extmath.py\n@@ -1 +1 @@\n-    Q = safe_sparse_dot(A, Q)\n+    Q = A @ Q\n",
        "test_patch": "",
        "base_commit": sha40("3a4d6f2", 'c'),
        "head_commit": sha40("9e0f1c3", 'd'),
        "created_at": "2023-03-29T08:01:15Z",
        "version": "0.20",
        "duration_changes": format!("[{}]", runs.join(", ")),
        "efficiency_test": [test],
        "patch_functions": "{\"sklearn/utils/extmath.py\": [\"randomized_range_finder\"]}",
        "problem_statement_oracle": "Please enhance the computational efficiency ...",
        // `json.dumps(json.dumps([...]))`: a JSON string holding a JSON string.
        "test_functions": "\"[\\\"sklearn/utils/extmath.py::randomized_range_finder\\\", \\\"sklearn/utils/extmath.py::randomized_svd\\\"]\"",
        "problem_statement_realistic": "Please enhance the computational efficiency ...",
        "human_performance": 0.4312
    })
}

// ---------------------------------------------------------------- SWE-Perf tests

#[test]
fn swe_perf_is_built_in_under_its_names() {
    let registry = registry();
    assert_eq!(registry.get("swe-perf").unwrap().info().name, "swe-perf");
    assert_eq!(registry.get("sweperf").unwrap().info().name, "swe-perf");
}

#[test]
fn swe_perf_records_match_the_view_schema() {
    let registry = registry();
    for record in [
        swe_perf_complete(),
        swe_perf_with_gaps(),
        swe_perf_no_test_patch(),
    ] {
        assert_eq!(
            schema_problems(&registry, "swe-perf", &record),
            Vec::<String>::new()
        );
        assert_eq!(keys(record.as_object().unwrap()), SWE_PERF_COLUMNS);
    }
}

#[test]
fn swe_perf_round_trips_exactly() {
    let registry = registry();
    for record in [
        swe_perf_complete(),
        swe_perf_with_gaps(),
        swe_perf_no_test_patch(),
    ] {
        assert_round_trip(&registry, "swe-perf", &record);
    }
}

#[test]
fn python_float_spellings_and_unknown_columns_survive() {
    let registry = registry();
    // Python's `repr` writes durations below 1e-4 with an exponent (`9.5e-05`); Rust
    // writes `9.5e-5`. Such a text cannot be re-encoded, so the original is kept.
    let mut record = swe_perf_no_test_patch();
    let test = record["efficiency_test"][0].as_str().unwrap().to_owned();
    let runs: Vec<String> = (0..20)
        .map(|run| {
            python_run(&[(
                test.as_str(),
                Some(format!("0.0{run:02}3")),
                Some(format!("9.{run:02}5e-05")),
            )])
        })
        .collect();
    record["duration_changes"] = json!(format!("[{}]", runs.join(", ")));
    // A column this adapter does not know stays where it was.
    let mut map = object(record);
    map.insert("difficulty".into(), json!("hard"));
    let record = Value::Object(map);
    let c = assert_round_trip(&registry, "swe-perf", &record);
    assert!(
        c.extensions["source"]["raw"]
            .get("duration_changes")
            .is_some()
    );
    // Python's `9.015e-05`: the same number, which serde_json spells otherwise.
    let head = &c.duration_changes.as_ref().unwrap()[0].head;
    assert_eq!(head[1], serde_json::Number::from_f64(9.015e-05).unwrap());
    assert_ne!(head[1].to_string(), "9.015e-05");
    assert_eq!(c.extensions["source"]["extra"]["difficulty"], json!("hard"));
}

#[test]
fn swe_perf_rejects_what_it_cannot_read() {
    let registry = registry();
    let adapter = registry.get("swe-perf").unwrap();
    let mut record = object(swe_perf_complete());
    record.insert("patch_functions".into(), json!("[\"where_not_allclose\"]"));
    let err = adapter.import(record, &mut Notes::new()).unwrap_err();
    assert_eq!(err.pointer, "/patch_functions");
    assert!(err.message.contains("{file: [qualified names]}"), "{err}");

    let mut record = object(swe_perf_complete());
    record.insert(
        "duration_changes".into(),
        json!("[{\"a\": {\"base\": \"slow\"}}]"),
    );
    record.insert("efficiency_test".into(), json!(["a"]));
    let err = adapter.import(record, &mut Notes::new()).unwrap_err();
    assert_eq!(err.pointer, "/duration_changes/0/a/base");

    for key in [
        "repo",
        "instance_id",
        "patch",
        "test_patch",
        "base_commit",
        "version",
        "duration_changes",
        "efficiency_test",
    ] {
        let mut record = object(swe_perf_complete());
        record.shift_remove(key);
        let err = adapter.import(record, &mut Notes::new()).unwrap_err();
        assert_eq!(err.pointer, format!("/{key}"), "{key}: {err}");
    }
}

#[test]
fn swe_perf_timings_are_transposed_per_test() {
    let registry = registry();
    let (c, notes) = import(&registry, "swe-perf", &swe_perf_complete());
    assert_eq!(c.efficiency_test.as_deref().unwrap(), [TEST_A, TEST_B]);
    let timings = c.duration_changes.as_ref().unwrap();
    assert_eq!(timings.len(), 2, "one item per efficiency test");
    for (item, (base, head)) in timings.iter().zip([
        (base_a as fn(usize) -> String, head_a as fn(usize) -> String),
        (base_b, head_b),
    ]) {
        let expected_base: Vec<f64> = (0..20).map(|r| base(r).parse().unwrap()).collect();
        let expected_head: Vec<f64> = (0..20).map(|r| head(r).parse().unwrap()).collect();
        assert_eq!(item.base_f64(), expected_base);
        assert_eq!(item.head_f64(), expected_head);
    }
    // Canonical human_performance is the seed's speedup: the geometric mean over the two
    // tests of mean(base)/mean(head) , computed here independently.
    let ratio = |t: &isobench_core::DurationChange| mean(&t.base_f64()) / mean(&t.head_f64());
    let expected = (ratio(&timings[0]) * ratio(&timings[1])).sqrt();
    let actual = c.human_performance.as_ref().unwrap().as_f64().unwrap();
    assert!(
        (actual - expected).abs() <= 1e-12 * expected,
        "{actual} vs {expected}"
    );
    assert!(
        actual > 1.0,
        "head is faster, so the speedup exceeds 1: {actual}"
    );
    assert!(has_note(&notes, NoteKind::Derived, "human_performance"));
    // SWE-Perf's own fraction is kept for the way back, not passed off as a speedup.
    assert_eq!(
        c.extensions["source"]["raw"]["human_performance"],
        json!(0.1085)
    );
    // The runs text re-encodes exactly, so no copy of it is kept.
    assert!(
        c.extensions["source"]["raw"]
            .get("duration_changes")
            .is_none()
    );
    assert_eq!(
        c.extensions["source"]["encodings"]["duration_changes"],
        json!("json-spaced")
    );
}

#[test]
fn swe_perf_function_maps_are_flattened_and_kept() {
    let registry = registry();
    let (c, _) = import(&registry, "swe-perf", &swe_perf_complete());
    assert_eq!(
        c.patch_functions.as_deref().unwrap(),
        [
            "astropy/utils/diff.py::where_not_allclose",
            "astropy/utils/diff.py::report_diff_values",
            "astropy/io/fits/diff.py::TableDataDiff._diff"
        ]
    );
    assert_eq!(
        c.ext("patch_functions_by_file").unwrap(),
        &json!({"astropy/utils/diff.py": ["where_not_allclose", "report_diff_values"], "astropy/io/fits/diff.py": ["TableDataDiff._diff"]})
    );
    assert_eq!(
        c.test_functions.as_deref().unwrap(),
        ["astropy/utils/diff.py::where_not_allclose"]
    );
    assert_eq!(
        c.ext("test_functions_raw").unwrap(),
        &json!({"astropy/utils/diff.py": ["where_not_allclose"]})
    );
    assert_eq!(c.ext_str("efficiency_test_kind"), Some("pytest_nodeid"));
    assert_eq!(c.version.as_deref(), Some("5.3"));
    assert_eq!(c.created_at.as_deref(), Some("2024-02-20T14:22:31Z"));

    let (c, _) = import(&registry, "swe-perf", &swe_perf_no_test_patch());
    assert_eq!(c.test_patch.as_deref(), Some(""));
    assert_eq!(c.version.as_deref(), Some("0.20"));
    assert_eq!(
        c.test_functions.as_deref().unwrap(),
        [
            "sklearn/utils/extmath.py::randomized_range_finder",
            "sklearn/utils/extmath.py::randomized_svd"
        ],
        "a double-encoded list is decoded to the end"
    );
    assert!(c.ext("test_functions_raw").is_none());
}

#[test]
fn swe_perf_gaps_are_reported_not_padded() {
    let registry = registry();
    let (c, notes) = import(&registry, "swe-perf", &swe_perf_with_gaps());
    let timings = c.duration_changes.as_ref().unwrap();
    // Test A: a base in every run but the empty last one; a head missing in runs 12 and 19.
    assert_eq!((timings[0].base.len(), timings[0].head.len()), (19, 18));
    // Test B: missing from runs 7 and 19.
    assert_eq!((timings[1].base.len(), timings[1].head.len()), (18, 18));
    let expected_b: Vec<f64> = (0..19)
        .filter(|r| *r != 7)
        .map(|r| base_b(r).parse().unwrap())
        .collect();
    assert_eq!(timings[1].base_f64(), expected_b);
    let warning = note_detail(&notes, NoteKind::Warning, "duration_changes");
    assert!(
        warning.contains("run 7") && warning.contains(TEST_B),
        "{warning}"
    );
    // The original text cannot be rebuilt from per-test arrays: it is kept.
    assert!(
        c.extensions["source"]["raw"]
            .get("duration_changes")
            .is_some()
    );
    assert!(validate_record(&c.to_strict_value(), Profile::Strict).is_empty());
}

#[test]
fn complete_swe_perf_records_are_strict_valid_canonical() {
    let registry = registry();
    for record in [swe_perf_complete(), swe_perf_no_test_patch()] {
        let (c, notes) = import(&registry, "swe-perf", &record);
        let problems = validate_record(&c.to_strict_value(), Profile::Strict);
        assert!(problems.is_empty(), "{problems:?}");
        assert!(c.missing_required().is_empty());
        assert!(
            !notes.iter().any(|n| n.kind == NoteKind::Missing),
            "{:?}",
            notes.iter().collect::<Vec<_>>()
        );
        let lossless = validate_record(&c.to_value(), Profile::Lossless);
        assert!(lossless.is_empty(), "{lossless:?}");
    }
}

/// A canonical record whose timings come from elsewhere (mined, per-test arrays).
fn mined_canonical() -> CanonicalRecord {
    let base: Vec<f64> = (0..10).map(|i| 2.0 + f64::from(i) * 0.01).collect();
    let head: Vec<f64> = (0..10).map(|i| 1.0 + f64::from(i) * 0.005).collect();
    let other_base: Vec<f64> = (0..10).map(|i| 0.5 + f64::from(i) * 0.002).collect();
    let other_head: Vec<f64> = (0..10).map(|i| 0.45 + f64::from(i) * 0.002).collect();
    let per_test = [
        TestTimings {
            base: base.clone(),
            head: head.clone(),
        },
        TestTimings {
            base: other_base.clone(),
            head: other_head.clone(),
        },
    ];
    let speedup = timing::speedup(&per_test).unwrap();
    serde_json::from_value(json!({
        "repo": "octo/widgets",
        "instance_id": "octo__widgets-PR-7",
        "created_at": "2024-05-01T10:00:00Z",
        "base_commit": sha40("1", '1'),
        "head_commit": sha40("2", '2'),
        "patch": "diff --git a/src/widgets/sort.py b/src/widgets/sort.py\n--- a/src/widgets/sort.py\n+++ b/src/widgets/sort.py\n@@ -1 +1 @@\n-x\n+y\n",
        "test_patch": "",
        "patch_functions": ["src/widgets/sort.py::sort_all", "src/widgets/sort.py::Sorter.run", "helper"],
        "efficiency_test": ["tests/test_speed.py::test_sort", "tests/test_speed.py::test_merge"],
        "duration_changes": [{"base": base, "head": head}, {"base": other_base, "head": other_head}],
        "human_performance": speedup,
        "version": "1.4"
    }))
    .unwrap()
}

#[test]
fn canonical_timings_from_elsewhere_get_swe_perf_metric() {
    let registry = registry();
    let c = mined_canonical();
    let (out, notes) = export(&registry, "swe-perf", &c);
    let out = out.unwrap();
    // Published column order; the fields the record lacks are left out, and the contract
    // names them.
    assert_eq!(
        keys(&out),
        [
            "repo",
            "instance_id",
            "patch",
            "test_patch",
            "base_commit",
            "head_commit",
            "created_at",
            "version",
            "duration_changes",
            "efficiency_test",
            "patch_functions",
            "human_performance"
        ]
    );
    assert_eq!(
        unmet(&registry, "swe-perf", &out),
        [
            "problem_statement_oracle",
            "test_functions",
            "problem_statement_realistic"
        ]
    );

    // Runs by test, JSON-encoded in Python's style.
    let text = out["duration_changes"].as_str().unwrap();
    assert!(
        text.starts_with("[{\"tests/test_speed.py::test_sort\": {\"base\": 2.0, \"head\": 1.0}, "),
        "{text}"
    );
    let runs: Vec<Value> = serde_json::from_str(text).unwrap();
    assert_eq!(runs.len(), 10);
    let merge = &c.duration_changes.as_ref().unwrap()[1];
    assert_eq!(
        runs[3]["tests/test_speed.py::test_merge"],
        json!({"base": merge.base[3], "head": merge.head[3]})
    );

    // human_performance is SWE-Perf's metric, not the canonical speedup.
    let per_test: Vec<TestTimings> = c
        .duration_changes
        .as_ref()
        .unwrap()
        .iter()
        .map(|d| TestTimings {
            base: d.base_f64(),
            head: d.head_f64(),
        })
        .collect();
    let expected = timing::sweperf_improvement(&per_test).unwrap();
    let written = out["human_performance"].as_f64().unwrap();
    assert!((written - expected).abs() < f64::EPSILON);
    assert!((0.0..=1.0).contains(&written), "a fraction: {written}");
    assert!(
        written > 0.2,
        "a twofold speedup on one test is significant: {written}"
    );
    assert!(note_detail(&notes, NoteKind::Derived, "human_performance").contains("Mann-Whitney"));

    // `path::name` entries grouped back into SWE-Perf's map; a bare name goes under "".
    assert_eq!(
        out["patch_functions"],
        json!("{\"src/widgets/sort.py\": [\"sort_all\", \"Sorter.run\"], \"\": [\"helper\"]}")
    );
    assert!(has_note(&notes, NoteKind::Derived, "patch_functions"));
    assert_eq!(
        out["efficiency_test"],
        json!([
            "tests/test_speed.py::test_sort",
            "tests/test_speed.py::test_merge"
        ])
    );
    // The published schema says what the contract says: nothing more is wrong.
    assert_eq!(
        schema_problems(&registry, "swe-perf", &Value::Object(out.clone())),
        [
            "`/problem_statement_oracle`: \"problem_statement_oracle\" is a required property",
            "`/test_functions`: \"test_functions\" is a required property",
            "`/problem_statement_realistic`: \"problem_statement_realistic\" is a required property"
        ]
    );

    // And back: the same per-test arrays and the same canonical speedup.
    let (back, _) = import(&registry, "swe-perf", &Value::Object(out));
    assert_eq!(back.duration_changes, c.duration_changes);
    assert_eq!(back.human_performance, c.human_performance);
    assert_eq!(back.patch_functions, c.patch_functions);
}

#[test]
fn swe_perf_export_leaves_out_what_is_missing_and_its_contract_names_it() {
    let registry = registry();
    let mut c = mined_canonical();
    c.duration_changes = None;
    let out = export(&registry, "swe-perf", &c).0.unwrap();
    assert!(!out.contains_key("duration_changes"));
    // Without timings there is no SWE-Perf metric either.
    assert_eq!(
        unmet(&registry, "swe-perf", &out),
        [
            "duration_changes",
            "problem_statement_oracle",
            "test_functions",
            "problem_statement_realistic",
            "human_performance"
        ]
    );
    let contract = &registry.get("swe-perf").unwrap().info().contract;
    let timings = contract.get("duration_changes").unwrap();
    assert!(timings.how_to_supply().contains("--timings DIR"));

    let mut c = mined_canonical();
    c.test_patch = None;
    let out = export(&registry, "swe-perf", &c).0.unwrap();
    assert_eq!(unmet(&registry, "swe-perf", &out)[0], "test_patch");

    // A derived environment signature is no release for SWE-Perf's spec table.
    let mut c = mined_canonical();
    c.version = Some("python==3.9;arch=x86_64;image=latest;install_sha=deadc0de".into());
    let out = export(&registry, "swe-perf", &c).0.unwrap();
    assert_eq!(unmet(&registry, "swe-perf", &out)[0], "version");
    assert_eq!(
        contract.get("version").unwrap().field,
        "extensions.upstream_version"
    );

    // GSO-style scripts are no pytest node ids: not a missing field, a value SWE-Perf
    // cannot hold.
    let mut c = mined_canonical();
    c.set_ext("efficiency_test_kind", "python_script");
    let err = export(&registry, "swe-perf", &c).0.unwrap_err();
    assert!(err.message.contains("pytest node ids"), "{err}");
}

#[test]
fn edited_swe_perf_timings_are_not_restored_from_the_original() {
    let registry = registry();
    let (mut c, _) = import(&registry, "swe-perf", &swe_perf_complete());
    // Drop the last run's samples: the record no longer has the original timings.
    for item in c.duration_changes.as_mut().unwrap() {
        item.base.pop();
        item.head.pop();
    }
    let (out, notes) = export(&registry, "swe-perf", &c);
    let out = out.unwrap();
    let runs: Vec<Value> = serde_json::from_str(out["duration_changes"].as_str().unwrap()).unwrap();
    assert_eq!(runs.len(), 19);
    assert_ne!(
        out["human_performance"],
        json!(0.1085),
        "the timings changed, so SWE-Perf's number is recomputed"
    );
    assert!(has_note(&notes, NoteKind::Derived, "human_performance"));
}

// ---------------------------------------------------------------- GSO records

/// GSO's dataclass keys, in order (§2: HF card features / `GSOInstance`).
const GSO_KEYS: [&str; 15] = [
    "instance_id",
    "repo",
    "base_commit",
    "opt_commit",
    "api",
    "prob_script",
    "tests",
    "hints_text",
    "setup_commands",
    "install_commands",
    "created_at",
    "gt_commit_message",
    "gt_diff",
    "arch",
    "instance_image_tag",
];

/// A performance-test script as GSO's `TEST_HARNESS` writes them (§2 `tests`): `run_test`,
/// a `main()` taking `output_file [--eqcheck] [--reference] [--file_prefix P]`, appending
/// `Execution time: <float, 6 decimals>s` lines. (`[::2]` on purpose: a script is not a
/// node id although it holds `::`.)
fn gso_script(call: &str) -> String {
    format!(
        "import argparse\nimport timeit\nimport numpy as np\n\n\ndef setup():\n    rng = np.random.default_rng(42)\n    return rng.random(1_000_000)[::2]\n\n\ndef experiment(data):\n    return {call}(data)\n\n\ndef run_test(eqcheck: bool = False, reference: bool = False, file_prefix: str = \"\") -> float:\n    data = setup()\n    execution_time, _ = timeit.timeit(lambda: experiment(data), number=1)\n    return execution_time\n\n\ndef main():\n    parser = argparse.ArgumentParser()\n    parser.add_argument(\"output_file\")\n    parser.add_argument(\"--eqcheck\", action=\"store_true\")\n    parser.add_argument(\"--reference\", action=\"store_true\")\n    parser.add_argument(\"--file_prefix\", default=\"\")\n    args = parser.parse_args()\n    t = run_test(args.eqcheck, args.reference, args.file_prefix)\n    with open(args.output_file, \"a\") as f:\n        f.write(f\"Execution time: {{t:.6f}}s\\n\")\n\n\nif __name__ == \"__main__\":\n    main()\n"
    )
}

/// `prob_script`: `tests[0]` with comments, `main()` and `if __name__` stripped by
/// `ast.unparse` (§2 `prob_script`).
fn gso_prob_script(call: &str) -> String {
    format!(
        "import argparse\nimport timeit\nimport numpy as np\n\ndef setup():\n    rng = np.random.default_rng(42)\n    return rng.random(1000000)[::2]\n\ndef experiment(data):\n    return {call}(data)"
    )
}

const DOC_SECTION: &str = "diff --git a/doc/release/upcoming_changes/24201.performance.rst b/doc/release/upcoming_changes/24201.performance.rst\nnew file mode 100644\nindex 0000000..3f5e1a2\n--- /dev/null\n+++ b/doc/release/upcoming_changes/24201.performance.rst\n@@ -0,0 +1 @@\n+``np.sort`` is faster for float arrays.\n";
const SOURCE_SECTION: &str = "diff --git a/numpy/core/_methods.py b/numpy/core/_methods.py\nindex 1a2b3c4..5d6e7f8 100644\n--- a/numpy/core/_methods.py\n+++ b/numpy/core/_methods.py\n@@ -10,3 +10,3 @@ def _sort(a, axis=-1):\n     a = asanyarray(a)\n-    return _slow_sort(a, axis)\n+    return _simd_sort(a, axis)\n     # end of _sort\n";
const TEST_SECTION: &str = "diff --git a/numpy/core/tests/test_multiarray.py b/numpy/core/tests/test_multiarray.py\nindex 9a8b7c6..6c5d4e3 100644\n--- a/numpy/core/tests/test_multiarray.py\n+++ b/numpy/core/tests/test_multiarray.py\n@@ -1,2 +1,3 @@\n import numpy as np\n+from numpy.testing import assert_equal\n from numpy.core import _methods\n";

const COMMIT_MESSAGE: &str = "ENH: Vectorize np.sort for float arrays with SIMD (#24201)\n\nUses the AVX-512 quicksort for float32/float64.\n";

/// A GSO row whose problem has no explicit base (§2 `base_commit`: stored as
/// `<opt_commit>^`).
fn gso_parent_base() -> Value {
    let opt = sha40("7853cbc", 'e');
    json!({
        // §2 `instance_id`: `owner__repo-<first 7 hex of opt_commit>`.
        "instance_id": "numpy__numpy-7853cbc",
        // §2 `repo`: `owner/name`.
        "repo": "numpy/numpy",
        // §2 `base_commit`: the literal `<opt_commit>^`.
        "base_commit": format!("{opt}^"),
        // §2 `opt_commit`: 40 hex.
        "opt_commit": opt,
        // §2 `api`: the high-level API the task targets.
        "api": "numpy.sort",
        // §2 `prob_script`: tests[0] stripped by ast.unparse.
        "prob_script": gso_prob_script("np.sort"),
        // §2 `tests`: array of whole Python scripts.
        "tests": [gso_script("np.sort"), gso_script("np.argsort")],
        // §2 `hints_text`: identical to `gt_commit_message`.
        "hints_text": COMMIT_MESSAGE,
        // §2 `setup_commands`: array<string> for the host.
        "setup_commands": ["apt-get update -y", "apt-get install -y build-essential"],
        // §2 `install_commands`: the example config of `collect/README.md`.
        "install_commands": ["uv venv --python 3.9", "source .venv/bin/activate", "uv pip install -e ."],
        // §2 `created_at`: `%Y-%m-%d %H:%M:%S`, no zone.
        "created_at": "2023-11-02 14:05:09",
        // §2 `gt_commit_message`: the full commit message (`git show --format=%B`).
        "gt_commit_message": COMMIT_MESSAGE,
        // §2 `gt_diff`: `git diff -p <opt>^ <opt>`, the whole diff (docs, source, tests), files in path order.
        "gt_diff": format!("{DOC_SECTION}{SOURCE_SECTION}{TEST_SECTION}")
        // §2 `arch`, `instance_image_tag`: optional, left out (GSO's defaults apply).
    })
}

/// A GSO row with an explicit base, `arch`/`instance_image_tag` given (§2: `arm64` is one
/// of the two arches), a diff without test files (§9.1: `test_patch` "often empty"), and a
/// `hints_text` that differs from the commit message (not what GSO's producer writes; it
/// exercises the branch that keeps it).
fn gso_explicit_base() -> Value {
    json!({
        "instance_id": "huggingface__datasets-5994036",
        "repo": "huggingface/datasets",
        "base_commit": sha40("0a1b2c3", 'f'),
        "opt_commit": sha40("5994036", '0'),
        "api": "datasets.Dataset.map",
        "prob_script": gso_prob_script("ds.map"),
        "tests": [gso_script("ds.map")],
        "hints_text": "Speed up Dataset.map",
        "setup_commands": [],
        "install_commands": ["uv venv --python 3.11", "source .venv/bin/activate", "uv pip install numpy==1.26.4", "uv pip install -e . --no-build-isolation"],
        "created_at": "2024-01-15 23:59:59",
        "gt_commit_message": "Speed up Dataset.map (#6512)\n\nAvoid copying Arrow tables.\n",
        "gt_diff": "diff --git a/src/datasets/arrow_dataset.py b/src/datasets/arrow_dataset.py\nindex 1111111..2222222 100644\n--- a/src/datasets/arrow_dataset.py\n+++ b/src/datasets/arrow_dataset.py\n@@ -1 +1 @@\n-table = table.copy()\n+table = table\n",
        "arch": "arm64",
        "instance_image_tag": "v2"
    })
}

// ---------------------------------------------------------------- GSO tests

#[test]
fn gso_is_built_in_under_its_names() {
    let registry = registry();
    assert_eq!(registry.get("gso").unwrap().info().name, "gso");
    assert_eq!(registry.get("gso-bench").unwrap().info().name, "gso");
}

#[test]
fn gso_records_match_the_view_schema() {
    let registry = registry();
    assert_eq!(
        schema_problems(&registry, "gso", &gso_parent_base()),
        Vec::<String>::new()
    );
    assert_eq!(keys(gso_parent_base().as_object().unwrap()), GSO_KEYS[..13]);
    assert_eq!(
        schema_problems(&registry, "gso", &gso_explicit_base()),
        Vec::<String>::new()
    );
    assert_eq!(keys(gso_explicit_base().as_object().unwrap()), GSO_KEYS);
    let mut extra = gso_parent_base();
    extra["head_commit"] = json!("x");
    assert!(
        !schema_problems(&registry, "gso", &extra).is_empty(),
        "GSO's loader rejects unknown keys"
    );
}

#[test]
fn gso_round_trips_exactly() {
    let registry = registry();
    for record in [gso_parent_base(), gso_explicit_base()] {
        assert_round_trip(&registry, "gso", &record);
    }
}

#[test]
fn gso_parent_base_is_kept_unresolved() {
    let registry = registry();
    let record = gso_parent_base();
    let (c, notes) = import(&registry, "gso", &record);
    assert_eq!(c.base_commit, None, "`<sha>^` is no commit id");
    assert_eq!(
        c.ext_str("base_commit_unresolved"),
        record["base_commit"].as_str()
    );
    assert!(
        note_detail(&notes, NoteKind::Warning, "base_commit")
            .contains("resolve it with the repository")
    );
    assert_eq!(c.head_commit.as_deref(), record["opt_commit"].as_str());
    assert_eq!(c.api.as_deref(), Some("numpy.sort"));
    assert_eq!(c.ext_str("prob_script"), record["prob_script"].as_str());
    assert_eq!(c.efficiency_test.as_ref().unwrap().len(), 2);
    assert!(
        c.efficiency_test
            .as_ref()
            .unwrap()
            .iter()
            .all(|t| t.contains("Execution time"))
    );
    assert_eq!(c.ext_str("efficiency_test_kind"), Some("python_script"));
    // hints_text equals the commit message: only the commit message is kept.
    assert_eq!(c.gt_commit_message.as_deref(), Some(COMMIT_MESSAGE));
    assert!(c.ext("hints_text").is_none());
    // Naive time: wall clock kept, no zone invented.
    assert_eq!(c.created_at.as_deref(), Some("2023-11-02T14:05:09"));
    // gt_diff split by the seed's rules, and kept whole.
    assert_eq!(
        c.patch.as_deref(),
        Some(format!("{DOC_SECTION}{SOURCE_SECTION}").as_str())
    );
    assert_eq!(c.test_patch.as_deref(), Some(TEST_SECTION));
    assert_eq!(c.ext_str("gt_diff"), record["gt_diff"].as_str());
    assert!(
        note_detail(&notes, NoteKind::Derived, "test_patch")
            .contains("`numpy/core/tests/test_multiarray.py` (dir:tests)"),
        "the note says which rule made a test file"
    );
    // Environment signature; install_sha = first 8 hex of
    // `printf '%s' $'uv venv --python 3.9\nsource .venv/bin/activate\nuv pip install -e .' | sha256sum`.
    assert_eq!(
        c.version.as_deref(),
        Some("python==3.9;arch=x86_64;image=latest;install_sha=3e676d14")
    );
    assert!(note_detail(&notes, NoteKind::Derived, "version").contains("uv venv --python 3.9"));
    assert!(!c.has("duration_changes"));
    assert!(validate_record(&c.to_value(), Profile::Lossless).is_empty());
}

#[test]
fn gso_explicit_base_and_runtime_metadata_map_to_canonical() {
    let registry = registry();
    let record = gso_explicit_base();
    let (c, notes) = import(&registry, "gso", &record);
    assert_eq!(c.base_commit.as_deref(), record["base_commit"].as_str());
    assert!(c.ext("base_commit_unresolved").is_none());
    assert!(!has_note(&notes, NoteKind::Warning, "base_commit"));
    assert_eq!(c.ext_str("hints_text"), Some("Speed up Dataset.map"));
    assert_eq!(c.ext_str("arch"), Some("arm64"));
    assert_eq!(c.ext_str("instance_image_tag"), Some("v2"));
    assert_eq!(c.test_patch.as_deref(), Some(""));
    assert_eq!(c.patch.as_deref(), record["gt_diff"].as_str());
    assert_eq!(c.setup_commands.as_deref(), Some(&[][..]));
    // install_sha: `printf '%s' "<the 4 commands joined by \n>" | sha256sum` = 5658a6a8...
    assert_eq!(
        c.version.as_deref(),
        Some("python==3.11;arch=arm64;image=v2;install_sha=5658a6a8")
    );
}

/// A strict-valid canonical record from elsewhere, holding what GSO needs.
fn canonical_for_gso() -> CanonicalRecord {
    let record: CanonicalRecord = serde_json::from_value(json!({
        "repo": "pandas-dev/pandas",
        "instance_id": "pandas-dev__pandas-PR-51234",
        "created_at": "2024-03-01T09:30:00Z",
        "base_commit": sha40("aaaa111", '1'),
        "head_commit": sha40("bbbb222", '2'),
        "patch": SOURCE_SECTION,
        "test_patch": TEST_SECTION,
        "efficiency_test": [gso_script("pd.DataFrame.groupby")],
        "duration_changes": [{"base": [2.1, 2.0, 2.2], "head": [1.1, 1.0, 1.05]}],
        "human_performance": 1.95,
        "version": "python==3.10;arch=x86_64;image=latest;install_sha=deadc0de",
        "setup_commands": [],
        "install_commands": ["uv venv --python 3.10", "uv pip install -e ."],
        "api": "pandas.DataFrame.groupby",
        "gt_commit_message": "PERF: faster groupby (#51234)\n",
        "extensions": {
            "prob_script": gso_prob_script("pd.DataFrame.groupby"),
            "efficiency_test_kind": "python_script"
        }
    }))
    .unwrap();
    assert!(validate_record(&record.to_strict_value(), Profile::Strict).is_empty());
    record
}

#[test]
fn canonical_to_gso_writes_exactly_gsos_keys() {
    let registry = registry();
    let c = canonical_for_gso();
    let (out, notes) = export(&registry, "gso", &c);
    let out = out.unwrap();
    assert_eq!(
        keys(&out),
        GSO_KEYS[..13],
        "no arch/instance_image_tag: GSO's defaults apply"
    );
    assert_eq!(out["opt_commit"], json!(c.head_commit.as_deref().unwrap()));
    assert_eq!(out["tests"], json!(c.efficiency_test.as_ref().unwrap()));
    assert_eq!(out["hints_text"], json!("PERF: faster groupby (#51234)\n"));
    assert!(has_note(&notes, NoteKind::Derived, "hints_text"));
    assert_eq!(out["created_at"], json!("2024-03-01 09:30:00"));
    assert!(note_detail(&notes, NoteKind::Warning, "created_at").contains("UTC wall clock"));
    assert_eq!(
        out["gt_diff"],
        json!(format!("{SOURCE_SECTION}{TEST_SECTION}"))
    );
    assert!(has_note(&notes, NoteKind::Derived, "gt_diff"));
    assert!(
        !notes.iter().any(|n| n.kind == NoteKind::Defaulted),
        "nothing written by default"
    );
    for dropped in ["duration_changes", "human_performance", "version"] {
        assert!(has_note(&notes, NoteKind::Dropped, dropped), "{dropped}");
    }
    assert_eq!(
        schema_problems(&registry, "gso", &Value::Object(out.clone())),
        Vec::<String>::new()
    );

    // Runtime metadata, when the record has it, makes 14 and 15 keys.
    let mut c = canonical_for_gso();
    c.set_ext("arch", "arm64");
    assert_eq!(
        keys(&export(&registry, "gso", &c).0.unwrap()),
        GSO_KEYS[..14]
    );
    c.set_ext("instance_image_tag", "v1");
    let out = export(&registry, "gso", &c).0.unwrap();
    assert_eq!(keys(&out), GSO_KEYS);
    assert_eq!(
        schema_problems(&registry, "gso", &Value::Object(out.clone())),
        Vec::<String>::new()
    );

    // GSO -> canonical -> GSO from this output is stable.
    assert_round_trip(&registry, "gso", &Value::Object(out));
}

#[test]
fn gso_export_leaves_out_what_is_missing_and_refuses_node_ids() {
    let registry = registry();
    let mut c = canonical_for_gso();
    c.api = None;
    let out = export(&registry, "gso", &c).0.unwrap();
    assert_eq!(unmet(&registry, "gso", &out), ["api"]);

    // Node ids are refused whatever else the record has: GSO runs scripts.
    c.efficiency_test = Some(vec!["tests/test_groupby.py::test_groupby_sum".into()]);
    c.extensions.shift_remove("efficiency_test_kind");
    let err = export(&registry, "gso", &c).0.unwrap_err();
    assert_eq!(err.pointer, "/efficiency_test");
    assert_eq!(
        err.message,
        "GSO `tests` are Python scripts, the record holds pytest node ids"
    );
    assert!(err.hint.is_some_and(|h| h.contains("Execution time")));

    // The kind alone is enough to refuse.
    let mut c = canonical_for_gso();
    c.set_ext("efficiency_test_kind", "pytest_nodeid");
    let err = export(&registry, "gso", &c).0.unwrap_err();
    assert_eq!(err.pointer, "/efficiency_test");

    // prob_script is never made up: the contract says why.
    let mut c = canonical_for_gso();
    c.extensions.shift_remove("prob_script");
    let out = export(&registry, "gso", &c).0.unwrap();
    assert_eq!(unmet(&registry, "gso", &out), ["prob_script"]);
    let contract = &registry.get("gso").unwrap().info().contract;
    assert!(
        contract
            .get("prob_script")
            .unwrap()
            .evidence
            .contains("ast.unparse")
    );

    // A SWE-Perf record lacks what GSO needs, and holds node ids.
    let (mut from_swe_perf, _) = import(&registry, "swe-perf", &swe_perf_complete());
    assert!(export(&registry, "gso", &from_swe_perf).0.is_err());
    from_swe_perf
        .extensions
        .shift_remove("efficiency_test_kind");
    from_swe_perf.efficiency_test = Some(vec!["print('Execution time: 1.0s')\n".into()]);
    let out = export(&registry, "gso", &from_swe_perf).0.unwrap();
    let lacking = unmet(&registry, "gso", &out);
    for needed in ["api", "prob_script", "setup_commands", "install_commands"] {
        assert!(lacking.iter().any(|k| k == needed), "{needed}: {lacking:?}");
    }
}

#[test]
fn gso_keeps_a_changed_diff_consistent() {
    let registry = registry();
    let (mut c, _) = import(&registry, "gso", &gso_parent_base());
    // The record's fix changes: the kept gt_diff no longer splits into it.
    c.patch = Some(SOURCE_SECTION.to_owned());
    let (out, notes) = export(&registry, "gso", &c);
    let out = out.unwrap();
    assert_eq!(
        out["gt_diff"],
        json!(format!("{SOURCE_SECTION}{TEST_SECTION}"))
    );
    assert!(has_note(&notes, NoteKind::Derived, "gt_diff"));
    // A resolved base replaces the parent reference.
    c.base_commit = Some(sha40("1234567", '9'));
    let out = export(&registry, "gso", &c).0.unwrap();
    assert_eq!(out["base_commit"], json!(sha40("1234567", '9')));
}

#[test]
fn gso_import_requires_every_dataclass_field() {
    let registry = registry();
    let adapter = registry.get("gso").unwrap();
    for key in &GSO_KEYS[..13] {
        let mut record = object(gso_parent_base());
        record.shift_remove(*key);
        let err = adapter.import(record, &mut Notes::new()).unwrap_err();
        assert_eq!(err.pointer, format!("/{key}"), "{key}: {err}");
    }
}
