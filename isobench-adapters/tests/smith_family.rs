//! The SWE-smith family: the `swe-smith` and `minisandbox` adapters, on real SWE-smith and
//! SWE-bench Verified records and on hand-written SWE-MiniSandbox records.

use std::path::Path;

use isobench_core::adapter::ExportOptions;
use isobench_core::error::ErrorKind;
use isobench_core::report::NoteKind;
use isobench_core::{
    CanonicalRecord, Notes, Profile, RecordError, Registry, ViewAdapter, diff, vocab,
};
use serde_json::{Map, Value, json};

const SWESMITH_FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../shared/data/real/swesmith/swesmith_repo_test_fixture.jsonl"
);
const VERIFIED: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../shared/data/real/swebench-verified/swebench_verified_test.jsonl"
);

fn registry() -> Registry {
    isobench_adapters::link();
    Registry::builtin()
}

fn adapter<'r>(registry: &'r Registry, name: &str) -> &'r dyn ViewAdapter {
    registry
        .get(name)
        .unwrap_or_else(|| panic!("adapter `{name}` is built in"))
        .adapter()
}

/// The records of a real-data file, or `None` (with a message) when the shared data is
/// not checked out next to the workspace.
fn real_records(path: &str) -> Option<Vec<Map<String, Value>>> {
    if !Path::new(path).exists() {
        // CI sets it: there, a test that needs the records fails without them.
        let required = "ISOBENCH_REQUIRE_REAL_DATA";
        assert!(
            std::env::var_os(required).is_none(),
            "{path} not present, and {required} says the real-data tests must run"
        );
        eprintln!("skipped: ../shared/data/real not present");
        return None;
    }
    let text = std::fs::read_to_string(path).unwrap();
    let records = text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str::<Map<String, Value>>(line).unwrap())
        .collect();
    Some(records)
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

fn keys(map: &Map<String, Value>) -> Vec<&str> {
    map.keys().map(String::as_str).collect()
}

fn has_note(notes: &Notes, kind: NoteKind, field: &str) -> bool {
    notes.iter().any(|n| n.kind == kind && n.field == field)
}

fn note_detail<'n>(notes: &'n Notes, kind: NoteKind, field: &str) -> Option<&'n str> {
    notes
        .iter()
        .find(|n| n.kind == kind && n.field == field)
        .map(|n| n.detail.as_str())
}

fn round_trip(
    adapter: &dyn ViewAdapter,
    record: &Map<String, Value>,
) -> (CanonicalRecord, Map<String, Value>, Notes) {
    let mut notes = Notes::new();
    let canonical = adapter.import(record.clone(), &mut notes).unwrap();
    let back = adapter
        .export(&canonical, &ExportOptions::default(), &mut notes)
        .unwrap();
    (canonical, back, notes)
}

fn import_err(adapter: &dyn ViewAdapter, record: Value) -> RecordError {
    adapter
        .import(object(record), &mut Notes::new())
        .unwrap_err()
}

/// A JSON-encoded list (SWE-bench's F2P/P2P) decoded.
fn decoded_list(value: &Value) -> Vec<String> {
    serde_json::from_str(value.as_str().expect("SWE-bench stores F2P/P2P as strings")).unwrap()
}

// ---------------------------------------------------------------------------------------
// The real SWE-smith record
// ---------------------------------------------------------------------------------------

#[test]
fn real_swesmith_record_round_trips_exactly() {
    let Some(records) = real_records(SWESMITH_FIXTURE) else {
        return;
    };
    let registry = registry();
    let smith = adapter(&registry, "swe-smith");
    for record in &records {
        let (_, back, _) = round_trip(smith, record);
        assert_eq!(Value::Object(back.clone()), Value::Object(record.clone()));
        assert_eq!(keys(&back), keys(record));
    }
}

#[test]
fn real_swesmith_record_maps_to_canonical() {
    let Some(records) = real_records(SWESMITH_FIXTURE) else {
        return;
    };
    let registry = registry();
    let mut notes = Notes::new();
    let c = adapter(&registry, "smith")
        .import(records[0].clone(), &mut notes)
        .unwrap();

    // The canonical patch is the fix: SWE-smith's removed line comes back as an added one.
    let fix = c.patch.as_deref().unwrap();
    assert!(
        fix.contains("\n+        if lib.is_np_dtype(keyarr.dtype, \"mM\") or isinstance(\n"),
        "{fix}"
    );
    assert!(
        fix.contains("\n-        if keyarr.dtype.kind in \"mM\":\n"),
        "{fix}"
    );
    assert!(fix.contains("@@ -6069,7 +6069,9 @@"), "{fix}");
    assert_eq!(
        diff::reverse(fix).unwrap(),
        records[0]["patch"].as_str().unwrap()
    );

    assert_eq!(c.repo.as_deref(), Some("pandas-dev/pandas"));
    assert_eq!(
        c.ext_str(vocab::MIRROR_REPO),
        Some("swesmith/pandas-dev__pandas.95280573")
    );
    assert!(has_note(&notes, NoteKind::Derived, "repo"));
    assert_eq!(
        c.ext_str(vocab::MIRROR_BASE_COMMIT),
        Some("d1c5199b6a9d7ae9382d26ee2859b837107165e7")
    );
    assert_eq!(c.base_commit, None);
    assert!(
        note_detail(&notes, NoteKind::Warning, "base_commit")
            .unwrap()
            .contains("mirror")
    );
    // Gather time, naive local time: the wall clock is kept and no zone is invented.
    assert_eq!(c.created_at.as_deref(), Some("2025-03-21T08:23:31.701599"));
    assert_eq!(
        c.ext_str(vocab::IMAGE_NAME),
        Some("swesmith.x86_64.pandas-dev__pandas.95280573")
    );
    assert_eq!(c.ext_list(vocab::FAIL_TO_PASS).unwrap().len(), 2);
    assert!(
        c.ext_str(vocab::PROBLEM_STATEMENT)
            .unwrap()
            .starts_with("# PyArrow timestamp indexes")
    );
    assert_eq!(c.test_patch, None);
    assert!(
        note_detail(&notes, NoteKind::Warning, "test_patch")
            .unwrap()
            .contains("git history")
    );
    // What is missing depends on the target: an import notes none.
    assert!(!notes.iter().any(|n| n.kind == NoteKind::Missing));
}

#[test]
fn real_swesmith_record_exports_to_minisandbox() {
    let Some(records) = real_records(SWESMITH_FIXTURE) else {
        return;
    };
    let registry = registry();
    let original = &records[0];
    let mut notes = Notes::new();
    let c = adapter(&registry, "swe-smith")
        .import(original.clone(), &mut notes)
        .unwrap();
    let mut notes = Notes::new();
    let row = adapter(&registry, "minisandbox")
        .export(&c, &ExportOptions::default(), &mut notes)
        .unwrap();

    assert_eq!(row["FAIL_TO_PASS"], original["FAIL_TO_PASS"]);
    assert_eq!(row["PASS_TO_PASS"], original["PASS_TO_PASS"]);
    assert!(row["FAIL_TO_PASS"].is_array() && row["PASS_TO_PASS"].is_array());
    assert_eq!(
        row["patch"].as_str().unwrap().as_bytes(),
        original["patch"].as_str().unwrap().as_bytes()
    );
    assert_eq!(row["image_name"], original["image_name"]);
    assert_eq!(row["instance_id"], original["instance_id"]);
    assert_eq!(row["problem_statement"], original["problem_statement"]);
    // The mirror, and the buggy commit of the mirror: the state the reversed patch applies to.
    assert_eq!(row["repo"], original["repo"]);
    assert_eq!(row["base_commit"], original["base_commit"]);
    assert!(!row.contains_key("test_patch") && !row.contains_key("created_at"));
    assert!(has_note(&notes, NoteKind::Dropped, "created_at"));
    assert_eq!(
        keys(&row),
        [
            "instance_id",
            "patch",
            "FAIL_TO_PASS",
            "PASS_TO_PASS",
            "image_name",
            "repo",
            "problem_statement",
            "base_commit"
        ]
    );

    // ... and MiniSandbox reads the same canonical record back (but `created_at`).
    let again = adapter(&registry, "minisandbox")
        .import(row, &mut Notes::new())
        .unwrap();
    assert_eq!(
        (
            &again.instance_id,
            &again.repo,
            &again.patch,
            &again.base_commit
        ),
        (&c.instance_id, &c.repo, &c.patch, &c.base_commit)
    );
    for key in [
        vocab::MIRROR_REPO,
        vocab::MIRROR_BASE_COMMIT,
        vocab::IMAGE_NAME,
        vocab::FAIL_TO_PASS,
        vocab::PASS_TO_PASS,
    ] {
        assert_eq!(again.ext(key), c.ext(key), "{key}");
    }
}

// ---------------------------------------------------------------------------------------
// Real SWE-bench Verified records
// ---------------------------------------------------------------------------------------

#[test]
fn verified_records_export_to_swe_smith() {
    let Some(records) = real_records(VERIFIED) else {
        return;
    };
    assert_eq!(records.len(), 350);
    let registry = registry();
    let (bench, smith) = (
        adapter(&registry, "swe-bench"),
        adapter(&registry, "swe-smith"),
    );
    for original in &records {
        let id = original["instance_id"].as_str().unwrap();
        let mut notes = Notes::new();
        let c = bench.import(original.clone(), &mut notes).unwrap();
        let mut notes = Notes::new();
        let row = smith
            .export(&c, &ExportOptions::default(), &mut notes)
            .unwrap();

        assert_eq!(row["instance_id"], original["instance_id"]);
        for key in ["FAIL_TO_PASS", "PASS_TO_PASS"] {
            let items: Vec<String> = serde_json::from_value(row[key].clone())
                .unwrap_or_else(|_| panic!("{id}: {key} is a real array"));
            assert_eq!(items, decoded_list(&original[key]), "{id}: {key}");
        }
        let fix = original["patch"].as_str().unwrap();
        let bug = row["patch"].as_str().unwrap();
        assert_eq!(bug, diff::reverse(fix).unwrap(), "{id}");
        assert_ne!(bug, fix, "{id}");
        assert_eq!(
            diff::reverse(bug).unwrap().as_bytes(),
            fix.as_bytes(),
            "{id}"
        );
        assert_eq!(row["problem_statement"], original["problem_statement"]);
        // No mirror known: the upstream repository is no mirror, so `repo` is left out
        // (and dropped), and the contract asks for the mirror and the image.
        assert!(!row.contains_key("repo"), "{id}");
        assert!(has_note(&notes, NoteKind::Dropped, "repo"), "{id}");
        let unmet: Vec<_> = smith
            .info()
            .contract
            .check(&row, &|_| None)
            .iter()
            .map(|u| (u.requirement.key.clone(), u.requirement.field.clone()))
            .collect();
        assert_eq!(
            unmet,
            [
                ("image_name".to_owned(), "extensions.image_name".to_owned()),
                ("repo".to_owned(), "extensions.mirror_repo".to_owned())
            ],
            "{id}"
        );
        for dropped in [
            "test_patch",
            "base_commit",
            "version",
            "created_at",
            "extensions.hints_text",
        ] {
            assert!(
                has_note(&notes, NoteKind::Dropped, dropped),
                "{id}: {dropped}"
            );
        }
        assert_eq!(
            keys(&row),
            [
                "instance_id",
                "patch",
                "FAIL_TO_PASS",
                "PASS_TO_PASS",
                "problem_statement"
            ]
        );
    }
}

#[test]
fn swe_bench_to_swe_smith_names_the_mirror_or_asks_for_it() {
    let Some(records) = real_records(VERIFIED) else {
        return;
    };
    let registry = registry();
    let (bench, smith) = (
        adapter(&registry, "swe-bench"),
        adapter(&registry, "swe-smith"),
    );
    let mut c = bench.import(records[0].clone(), &mut Notes::new()).unwrap();
    c.set_ext(
        vocab::IMAGE_NAME,
        "swebench/swesmith.x86_64.astropy_1776_astropy.d16bfe05",
    );
    let unmet = |row: &Map<String, Value>| -> Vec<String> {
        smith
            .info()
            .contract
            .check(row, &|_| None)
            .iter()
            .map(|u| u.requirement.key.clone())
            .collect()
    };

    let row = smith
        .export(&c, &ExportOptions::default(), &mut Notes::new())
        .unwrap();
    assert_eq!(unmet(&row), ["repo"]);
    let repo = smith.info().contract.get("repo").unwrap();
    let how = repo.how_to_supply();
    assert!(
        how.contains("`--set extensions.mirror_repo=VALUE`")
            && how.contains("`swesmith/<owner>__<repo>.<commit8>`")
            && how.contains("such as `swe-bench`"),
        "{}",
        how
    );

    // With the fixed upstream state known, the mirror is named by SWE-smith's convention;
    // SWE-smith has no profile for astropy at that commit, so its harness cannot find one
    // and the contract says so.
    c.head_commit = Some("0123abcd0123abcd0123abcd0123abcd0123abcd".to_owned());
    let mut notes = Notes::new();
    let row = smith
        .export(&c, &ExportOptions::default(), &mut notes)
        .unwrap();
    assert_eq!(row["repo"], "swesmith/astropy__astropy.0123abcd");
    assert!(has_note(&notes, NoteKind::Derived, "repo"));
    let found: Vec<Option<String>> = smith
        .info()
        .contract
        .check(&row, &|_| None)
        .into_iter()
        .map(|u| u.found)
        .collect();
    assert_eq!(
        found,
        [Some("swesmith/astropy__astropy.0123abcd".to_owned())]
    );

    // A mirror the record carries wins; one of a registered profile meets the contract.
    c.set_ext(vocab::MIRROR_REPO, "swesmith/pylint-dev__astroid.b114f6b5");
    let row = smith
        .export(&c, &ExportOptions::default(), &mut Notes::new())
        .unwrap();
    assert_eq!(row["repo"], "swesmith/pylint-dev__astroid.b114f6b5");
    assert!(unmet(&row).is_empty());
    // The record's own image is kept, even where the profile names another.
    assert_eq!(
        row["image_name"],
        "swebench/swesmith.x86_64.astropy_1776_astropy.d16bfe05"
    );

    // Without an image, the profile's is written, and said.
    c.extensions.shift_remove(vocab::IMAGE_NAME);
    let mut notes = Notes::new();
    let row = smith
        .export(&c, &ExportOptions::default(), &mut notes)
        .unwrap();
    assert_eq!(
        row["image_name"],
        "swebench/swesmith.x86_64.pylint-dev_1776_astroid.b114f6b5"
    );
    assert!(has_note(&notes, NoteKind::Derived, "image_name"));
    assert!(unmet(&row).is_empty());

    // Without an image or a registered mirror, the contract asks for both.
    c.set_ext(vocab::MIRROR_REPO, "swesmith/astropy__astropy.d16bfe05");
    let row = smith
        .export(&c, &ExportOptions::default(), &mut Notes::new())
        .unwrap();
    assert_eq!(unmet(&row), ["image_name", "repo"]);
}

#[test]
fn verified_records_survive_minisandbox_and_back() {
    let Some(records) = real_records(VERIFIED) else {
        return;
    };
    let registry = registry();
    let (bench, mini) = (
        adapter(&registry, "swe-bench"),
        adapter(&registry, "mini-sandbox"),
    );
    for original in &records {
        let id = original["instance_id"].as_str().unwrap();
        let c = bench.import(original.clone(), &mut Notes::new()).unwrap();
        let mut first_leg = Notes::new();
        let row = mini
            .export(&c, &ExportOptions::default(), &mut first_leg)
            .unwrap();
        assert!(
            row["FAIL_TO_PASS"].is_array() && row["PASS_TO_PASS"].is_array(),
            "{id}"
        );
        assert_eq!(row["base_commit"], original["base_commit"], "{id}");
        assert_eq!(row["test_patch"], original["test_patch"], "{id}");
        for dropped in [
            "created_at",
            "extensions.hints_text",
            "extensions.environment_setup_commit",
            "extensions.difficulty",
        ] {
            assert!(
                has_note(&first_leg, NoteKind::Dropped, dropped),
                "{id}: {dropped}"
            );
        }
        // MiniSandbox keys its environment on the image: a SWE-bench record gets SWE-bench's
        // own image of the instance, derived and said so.
        assert!(
            has_note(&first_leg, NoteKind::Derived, "extensions.image_name"),
            "{id}"
        );
        let expected_image = format!(
            "swebench/sweb.eval.x86_64.{}:latest",
            id.to_lowercase().replace("__", "_1776_")
        );
        assert_eq!(row["image_name"], expected_image.as_str(), "{id}");

        let mut notes = Notes::new();
        let c2 = mini.import(row, &mut notes).unwrap();
        assert!(
            notes.iter().all(|n| n.kind != NoteKind::Warning),
            "{id}: {:?}",
            notes.iter().collect::<Vec<_>>()
        );
        let back = bench
            .export(&c2, &ExportOptions::default(), &mut Notes::new())
            .unwrap();
        for key in [
            "instance_id",
            "repo",
            "patch",
            "problem_statement",
            "test_patch",
            "base_commit",
            "version",
        ] {
            assert_eq!(back[key], original[key], "{id}: {key}");
        }
        for key in ["FAIL_TO_PASS", "PASS_TO_PASS"] {
            assert_eq!(
                decoded_list(&back[key]),
                decoded_list(&original[key]),
                "{id}: {key}"
            );
        }
        for lost in [
            "hints_text",
            "created_at",
            "environment_setup_commit",
            "difficulty",
        ] {
            assert!(
                !back.contains_key(lost) || back[lost] != original[lost],
                "{id}: {lost} came back?"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// Hand-written records
// ---------------------------------------------------------------------------------------

/// A bug-introducing diff (`git diff` shape: `diff --git`, `index`, `---`/`+++`, one hunk
/// whose counts match its lines).
const BUG_PATCH: &str = "diff --git a/src/widgets/sort.py b/src/widgets/sort.py\n\
index 3b18e51..a9c1f0d 100644\n\
--- a/src/widgets/sort.py\n\
+++ b/src/widgets/sort.py\n\
@@ -1,3 +1,3 @@\n \
def sort_widgets(items):\n\
-    return sorted(items, key=len)\n\
+    return sorted(items, key=len, reverse=True)\n \
# end of module\n";

/// A forward test patch adding a new test file.
const TEST_PATCH: &str = "diff --git a/tests/test_sort.py b/tests/test_sort.py\n\
new file mode 100644\n\
index 0000000..5c8b2e1\n\
--- /dev/null\n\
+++ b/tests/test_sort.py\n\
@@ -0,0 +1,2 @@\n\
+def test_sort():\n\
+    assert sort_widgets([\"bb\", \"a\"]) == [\"a\", \"bb\"]\n";

/// SWE-MiniSandbox records, written for these tests. Field shapes, from seed 002 (the
/// custom-dataset page) and formats.md §8: `instance_id` str; `patch` str, the reversed
/// golden patch; `FAIL_TO_PASS`/`PASS_TO_PASS` list[str] (pytest node ids); `image_name`
/// str (the SWE-smith image form `swebench/swesmith.x86_64.<owner>_1776_<repo>.<commit8>`,
/// formats.md §4); `repo` str (a mirror name or a plain `owner/name`, §8 and §9.1);
/// `problem_statement` str; `test_patch` str (forward); `base_commit` str;
/// `python_version` str (`"3.11"` is the documented default); `version` str (`X.Y`).
fn minisandbox_records() -> Vec<(&'static str, Map<String, Value>)> {
    vec![
        (
            "mirror repo, mirror base commit, hidden tests",
            object(json!({
                "instance_id": "octo__widgets.0123abcd.func_pm_remove_assign__k3j9x0aa",
                "patch": BUG_PATCH,
                "FAIL_TO_PASS": ["tests/test_sort.py::test_sort"],
                "PASS_TO_PASS": ["tests/test_misc.py::test_a", "tests/test_misc.py::test_b[x-1]"],
                "image_name": "swebench/swesmith.x86_64.octo_1776_widgets.0123abcd",
                "repo": "swesmith/octo__widgets.0123abcd",
                "problem_statement": "Widgets come out in the wrong order.",
                "test_patch": TEST_PATCH,
                "base_commit": "9f8e7d6c5b4a39281706f5e4d3c2b1a098765432",
            })),
        ),
        (
            "plain owner/name repo, upstream base commit, version",
            object(json!({
                "instance_id": "octo__widgets-42",
                "patch": BUG_PATCH,
                "FAIL_TO_PASS": ["tests/test_sort.py::test_sort"],
                "PASS_TO_PASS": [],
                "image_name": "octo/widgets:1.10",
                "repo": "octo/widgets",
                "problem_statement": "",
                "test_patch": TEST_PATCH,
                "base_commit": "0123abcd0123abcd0123abcd0123abcd0123abcd",
                "version": "1.10",
            })),
        ),
        (
            "python_version, mirror without organisation, no base commit",
            object(json!({
                "instance_id": "octo__widgets.0123abcd.lm_rewrite__p0q1r2s3",
                "patch": BUG_PATCH,
                "FAIL_TO_PASS": ["tests/test_sort.py::test_sort"],
                "PASS_TO_PASS": ["tests/test_misc.py::test_a"],
                "image_name": "swebench/swesmith.x86_64.octo_1776_widgets.0123abcd",
                "repo": "octo__widgets.0123abcd",
                "problem_statement": "Sorting is reversed.",
                "python_version": "3.9",
            })),
        ),
        (
            "minimal: only the required keys",
            object(json!({
                "instance_id": "octo__widgets-43",
                "patch": BUG_PATCH,
                "FAIL_TO_PASS": ["tests/test_sort.py::test_sort"],
                "PASS_TO_PASS": [],
                "repo": "octo/widgets",
            })),
        ),
    ]
}

#[test]
fn hand_written_minisandbox_records_round_trip_exactly() {
    let registry = registry();
    let mini = adapter(&registry, "minisandbox");
    for (what, record) in minisandbox_records() {
        let (c, back, notes) = round_trip(mini, &record);
        assert_eq!(
            Value::Object(back.clone()),
            Value::Object(record.clone()),
            "{what}"
        );
        assert_eq!(keys(&back), keys(&record), "{what}");
        assert!(notes.iter().all(|n| n.kind != NoteKind::Warning), "{what}");
        assert_eq!(c.repo.as_deref(), Some("octo/widgets"), "{what}");
        assert_eq!(
            c.patch.as_deref(),
            Some(diff::reverse(BUG_PATCH).unwrap().as_str()),
            "{what}"
        );
    }
}

#[test]
fn minisandbox_base_commit_belongs_to_the_repo_it_names() {
    let registry = registry();
    let mini = adapter(&registry, "minisandbox");
    let records = minisandbox_records();

    let (mirror, _, _) = round_trip(mini, &records[0].1);
    assert_eq!(
        mirror.ext_str(vocab::MIRROR_REPO),
        Some("swesmith/octo__widgets.0123abcd")
    );
    assert_eq!(
        mirror.ext_str(vocab::MIRROR_BASE_COMMIT),
        Some("9f8e7d6c5b4a39281706f5e4d3c2b1a098765432")
    );
    assert_eq!(mirror.base_commit, None);
    assert_eq!(mirror.test_patch.as_deref(), Some(TEST_PATCH));

    let (plain, _, notes) = round_trip(mini, &records[1].1);
    assert_eq!(plain.ext(vocab::MIRROR_REPO), None);
    assert_eq!(
        plain.base_commit.as_deref(),
        Some("0123abcd0123abcd0123abcd0123abcd0123abcd")
    );
    assert_eq!(plain.version.as_deref(), Some("1.10"));
    assert!(!has_note(&notes, NoteKind::Derived, "repo"));

    let (python, _, _) = round_trip(mini, &records[2].1);
    assert_eq!(python.ext_str(vocab::PYTHON_VERSION), Some("3.9"));
    assert_eq!(
        python.ext_str(vocab::MIRROR_REPO),
        Some("octo__widgets.0123abcd")
    );

    // A MiniSandbox record from a SWE-smith mirror goes to SWE-smith with its mirror.
    let row = adapter(&registry, "swe-smith")
        .export(&mirror, &ExportOptions::default(), &mut Notes::new())
        .unwrap();
    assert_eq!(row["repo"], "swesmith/octo__widgets.0123abcd");
    assert_eq!(
        row["base_commit"],
        "9f8e7d6c5b4a39281706f5e4d3c2b1a098765432"
    );
    assert_eq!(row["patch"], BUG_PATCH);
}

#[test]
fn minisandbox_export_without_image_leaves_it_out_and_its_contract_names_it() {
    let registry = registry();
    let mini = adapter(&registry, "minisandbox");
    let c = mini
        .import(minisandbox_records()[3].1.clone(), &mut Notes::new())
        .unwrap();
    for profile in [Profile::Lossless, Profile::Strict] {
        let row = mini
            .export(&c, &ExportOptions::with_profile(profile), &mut Notes::new())
            .unwrap();
        assert!(!row.contains_key("image_name"));
        let unmet = mini.info().contract.check(&row, &|_| None);
        assert_eq!(unmet.len(), 1);
        assert_eq!(unmet[0].requirement.key, "image_name");
        assert!(
            unmet[0]
                .requirement
                .how_to_supply()
                .contains("{head_commit:8}")
        );
    }
}

#[test]
fn swe_smith_rows_of_both_generations_round_trip() {
    let registry = registry();
    let smith = adapter(&registry, "swe-smith");
    // The current 7-field row (formats.md §4, key order of the HF datasets), the task-docs
    // form of seed 003 (mirror without organisation, only five keys), and lists stored as
    // JSON strings (accepted, and given back as strings).
    let rows = [
        json!({
            "instance_id": "octo__widgets.0123abcd.func_pm_ctrl_shuffle__d3x1djk0",
            "patch": BUG_PATCH,
            "FAIL_TO_PASS": ["tests/test_sort.py::test_sort"],
            "PASS_TO_PASS": ["tests/test_misc.py::test_a"],
            "image_name": "swebench/swesmith.x86_64.octo_1776_widgets.0123abcd",
            "repo": "swesmith/octo__widgets.0123abcd",
            "problem_statement": "Widgets come out in the wrong order.",
        }),
        json!({
            "instance_id": "octo__widgets.0123abcd.2496",
            "repo": "octo__widgets.0123abcd",
            "patch": BUG_PATCH,
            "FAIL_TO_PASS": ["tests/test_sort.py::test_sort"],
            "PASS_TO_PASS": ["tests/test_misc.py::test_a"],
        }),
        json!({
            "instance_id": "octo__widgets.0123abcd.pr_7",
            "patch": BUG_PATCH,
            "FAIL_TO_PASS": "[\"tests/test_sort.py::test_sort\"]",
            "PASS_TO_PASS": "['tests/test_misc.py::test_a', 'tests/test_misc.py::test_b']",
            "image_name": "swebench/swesmith.x86_64.octo_1776_widgets.0123abcd",
            "repo": "swesmith/octo__widgets.0123abcd",
            "problem_statement": "",
            "extra_field": {"kept": true},
        }),
    ];
    for row in rows {
        let row = object(row);
        let (c, back, notes) = round_trip(smith, &row);
        assert_eq!(Value::Object(back.clone()), Value::Object(row.clone()));
        assert_eq!(keys(&back), keys(&row));
        assert_eq!(c.repo.as_deref(), Some("octo/widgets"));
        assert!(has_note(&notes, NoteKind::Warning, "test_patch"));
    }
}

#[test]
fn swe_smith_repo_without_mirror_shape_is_kept_with_a_warning() {
    let registry = registry();
    let smith = adapter(&registry, "swe-smith");
    let row = object(json!({
        "instance_id": "octo__widgets-1",
        "patch": BUG_PATCH,
        "FAIL_TO_PASS": [],
        "PASS_TO_PASS": [],
        "repo": "octo/widgets",
    }));
    let (c, back, notes) = round_trip(smith, &row);
    assert_eq!(back, row);
    assert_eq!(c.repo.as_deref(), Some("octo/widgets"));
    assert_eq!(c.ext(vocab::MIRROR_REPO), None);
    assert!(has_note(&notes, NoteKind::Warning, "repo"));
}

// ---------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------

/// A row of a repository snapshot SWE-smith registers a profile for.
fn valid_row() -> Value {
    json!({
        "instance_id": "pylint-dev__astroid.b114f6b5.2496",
        "patch": BUG_PATCH,
        "FAIL_TO_PASS": ["tests/test_sort.py::test_sort"],
        "PASS_TO_PASS": [],
        "image_name": "swebench/swesmith.x86_64.pylint-dev_1776_astroid.b114f6b5",
        "repo": "swesmith/pylint-dev__astroid.b114f6b5",
        "problem_statement": "",
    })
}

#[test]
fn bad_records_fail_at_the_field() {
    let registry = registry();
    for name in ["swe-smith", "minisandbox"] {
        let adapter = adapter(&registry, name);

        let mut row = valid_row();
        row["FAIL_TO_PASS"] = json!(3);
        let err = import_err(adapter, row);
        assert_eq!(
            (err.pointer.as_str(), err.kind),
            ("/FAIL_TO_PASS", ErrorKind::WrongType),
            "{name}: {err}"
        );

        let mut row = valid_row();
        row.as_object_mut().unwrap().remove("patch");
        let err = import_err(adapter, row);
        assert_eq!(
            (err.pointer.as_str(), err.kind),
            ("/patch", ErrorKind::Missing),
            "{name}: {err}"
        );

        // The hunk says 3 old and 3 new lines; the patch stops after two.
        let truncated = BUG_PATCH.rsplit_once(" # end of module\n").unwrap().0;
        let reason = diff::reverse(truncated).unwrap_err().to_string();
        let mut row = valid_row();
        row["patch"] = json!(truncated);
        let err = import_err(adapter, row);
        assert_eq!(
            (err.pointer.as_str(), err.kind),
            ("/patch", ErrorKind::Invalid),
            "{name}: {err}"
        );
        assert!(err.message.contains(&reason), "{name}: {err}");
    }
}

#[test]
fn exporting_without_a_patch_leaves_it_for_the_contract_to_name() {
    let registry = registry();
    let record = CanonicalRecord {
        repo: Some("octo/widgets".to_owned()),
        instance_id: Some("octo__widgets-1".to_owned()),
        ..CanonicalRecord::default()
    };
    for name in ["swe-smith", "minisandbox"] {
        let smith_like = adapter(&registry, name);
        let row = smith_like
            .export(&record, &ExportOptions::default(), &mut Notes::new())
            .unwrap();
        let unmet = smith_like.info().contract.check(&row, &|_| None);
        assert!(
            unmet.iter().any(|u| u.requirement.key == "patch"),
            "{name}: {row:?}"
        );
    }
    // A fix the reverser rejects is an error at `/patch` too.
    let record = CanonicalRecord {
        patch: Some("diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-x\n".to_owned()),
        ..record
    };
    let err = adapter(&registry, "swe-smith")
        .export(&record, &ExportOptions::default(), &mut Notes::new())
        .unwrap_err();
    assert_eq!(
        (err.pointer.as_str(), err.kind),
        ("/patch", ErrorKind::Invalid),
        "{err}"
    );
}

// ---------------------------------------------------------------------------------------
// View schemas
// ---------------------------------------------------------------------------------------

#[test]
fn records_match_the_view_schemas() {
    use isobench_core::schema::SchemaValidator;

    let registry = registry();
    let (smith, mini) = (
        adapter(&registry, "swe-smith"),
        adapter(&registry, "minisandbox"),
    );
    let smith_schema =
        SchemaValidator::new(smith.schema(isobench_core::Profile::Lossless)).unwrap();
    let mini_schema = SchemaValidator::new(mini.schema(isobench_core::Profile::Lossless)).unwrap();
    for (what, record) in minisandbox_records() {
        let value = Value::Object(record);
        let problems: Vec<String> = mini_schema
            .problems(&value)
            .into_iter()
            .map(|p| p.pointer)
            .collect();
        // The schema requires what MiniSandbox's loader needs (its contract): a record
        // the import takes without an image is one the sandbox cannot start.
        let expected: &[&str] = if value.get("image_name").is_some() {
            &[]
        } else {
            &["/image_name"]
        };
        assert_eq!(problems, expected, "{what}");
    }
    // MiniSandbox iterates a string F2P character by character: its schema says array.
    let mut stringly = Value::Object(minisandbox_records()[3].1.clone());
    stringly["FAIL_TO_PASS"] = json!("[\"tests/test_sort.py::test_sort\"]");
    assert!(!mini_schema.is_valid(&stringly));
    let mut no_patch = valid_row();
    no_patch.as_object_mut().unwrap().remove("patch");
    assert!(!smith_schema.is_valid(&no_patch));
    assert!(smith_schema.is_valid(&valid_row()));

    if let Some(records) = real_records(SWESMITH_FIXTURE) {
        for record in records {
            let value = Value::Object(record.clone());
            assert!(
                smith_schema.is_valid(&value),
                "{:?}",
                smith_schema.problems(&value)
            );
            let c = smith.import(record, &mut Notes::new()).unwrap();
            let row = Value::Object(
                mini.export(&c, &ExportOptions::default(), &mut Notes::new())
                    .unwrap(),
            );
            assert!(
                mini_schema.is_valid(&row),
                "{:?}",
                mini_schema.problems(&row)
            );
        }
    }
}
