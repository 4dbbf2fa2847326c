//! Properties that must hold for every input, not only the examples we thought of:
//! list-field decoding is idempotent, every record an adapter imports exports back
//! unchanged, and a reversed diff applied with git undoes the diff.

use std::path::Path;
use std::process::Command;

use isobench_core::adapter::ExportOptions;
use isobench_core::codec::{self, Encoding};
use isobench_core::{Notes, Registry, diff};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

fn registry() -> Registry {
    isobench_adapters::link();
    Registry::builtin()
}

/// Text with the characters that make encodings hard: quotes, backslashes, newlines,
/// separators, non-ASCII.
fn tricky_text() -> impl Strategy<Value = String> {
    proptest::string::string_regex("[a-zA-Z0-9_:/\\[\\]\\.\\-'\" ,\\\\\n\té中😀]{0,24}")
        .expect("a valid regex")
}

fn encodings() -> impl Strategy<Value = Encoding> {
    prop_oneof![
        Just(Encoding::Native),
        Just(Encoding::Json),
        Just(Encoding::JsonSpaced),
        Just(Encoding::PythonRepr),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn list_decoding_is_idempotent(items in proptest::collection::vec(tricky_text(), 0..6), encoding in encodings()) {
        let encoded = codec::encode_list(&items, encoding);
        let once = codec::decode_list(&encoded, "/x").expect("an encoded list decodes");
        prop_assert_eq!(&once.items, &items);
        prop_assert!(once.reproducible, "encoding {:?} of {:?} is not reproduced", encoding, items);
        prop_assert_eq!(codec::encode_list(&once.items, once.encoding), encoded);
        let twice = codec::decode_list(&codec::encode_list(&once.items, Encoding::Native), "/x").expect("decodes");
        prop_assert_eq!(twice.items, once.items);
    }

    #[test]
    fn decoding_any_string_never_panics_and_is_stable(text in "\\PC{0,40}") {
        if let Ok(once) = codec::decode_list(&Value::String(text), "/x") {
            let again = codec::decode_list(&codec::encode_list(&once.items, once.encoding), "/x").expect("re-encoded lists decode");
            prop_assert_eq!(again.items, once.items);
        }
    }
}

/// A SWE-bench row with generated values (shapes from docs/formats.md §3.1).
fn swe_bench_row() -> impl Strategy<Value = Map<String, Value>> {
    (
        tricky_text(),
        proptest::collection::vec(tricky_text(), 0..4),
        proptest::collection::vec(tricky_text(), 0..4),
        encodings(),
        prop_oneof![Just(None), Just(Some("2022-03-03T15:14:54Z")), Just(Some("2021-01-01T10:00:00+02:00")), Just(Some("2023-11-02 14:05:09"))],
        proptest::option::of(tricky_text()),
    )
        .prop_map(|(text, f2p, p2p, encoding, created, extra)| {
            let mut row = json!({
                "repo": "octo/widgets", "instance_id": "octo__widgets-12",
                "base_commit": "0123456789abcdef0123456789abcdef01234567",
                "patch": "", "test_patch": "", "problem_statement": text.clone(), "hints_text": text,
                "version": "0.20",
                "FAIL_TO_PASS": codec::encode_list(&f2p, encoding), "PASS_TO_PASS": codec::encode_list(&p2p, encoding),
                "environment_setup_commit": "89abcdef0123456789abcdef0123456789abcdef",
            });
            if let Some(created) = created {
                row["created_at"] = created.into();
            }
            if let Some(extra) = extra {
                row["query"] = extra.into();
            }
            match row {
                Value::Object(map) => map,
                _ => unreachable!(),
            }
        })
}

/// A canonical record with generated values.
fn canonical_record() -> impl Strategy<Value = Map<String, Value>> {
    (
        tricky_text(),
        proptest::collection::vec(tricky_text(), 1..4),
        proptest::collection::vec((0.001f64..100.0, 0.001f64..100.0), 1..5),
        proptest::option::of(tricky_text()),
    )
        .prop_map(|(text, tests, samples, notes)| {
            let timings: Vec<Value> = tests
                .iter()
                .map(|_| json!({"base": samples.iter().map(|s| s.0).collect::<Vec<_>>(), "head": samples.iter().map(|s| s.1).collect::<Vec<_>>()}))
                .collect();
            // Keys in schema order, as the canonical format writes them.
            let mut record = json!({
                "repo": "octo/widgets", "instance_id": "octo__widgets-PR-3", "created_at": "2024-01-01T00:00:00Z",
                "base_commit": "a", "head_commit": "b", "patch": text.clone(), "test_patch": "",
                "efficiency_test": tests, "duration_changes": timings, "human_performance": 1.5, "version": "1.0",
            });
            if let Some(notes) = notes {
                record["notes"] = notes.into();
            }
            record["extensions"] = json!({"problem_statement": text});
            match record {
                Value::Object(map) => map,
                _ => unreachable!(),
            }
        })
}

fn round_trips(
    registry: &Registry,
    format: &str,
    record: &Map<String, Value>,
) -> Result<(), TestCaseError> {
    let adapter = registry.get(format).expect("built in");
    let mut notes = Notes::new();
    let canonical = adapter
        .import(record.clone(), &mut notes)
        .map_err(|e| TestCaseError::fail(format!("{format} import: {e}")))?;
    let back = adapter
        .export(&canonical, &ExportOptions::default(), &mut notes)
        .map_err(|e| TestCaseError::fail(format!("{format} export: {e}")))?;
    prop_assert_eq!(&back, record);
    let keys = |m: &Map<String, Value>| m.keys().cloned().collect::<Vec<_>>();
    prop_assert_eq!(keys(&back), keys(record));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn swe_bench_rows_round_trip(row in swe_bench_row()) {
        round_trips(&registry(), "swe-bench", &row)?;
    }

    #[test]
    fn canonical_records_round_trip(record in canonical_record()) {
        round_trips(&registry(), "canonical", &record)?;
    }

    #[test]
    fn swe_bench_rows_survive_minisandbox_field_for_field(row in swe_bench_row()) {
        // What MiniSandbox can hold comes back equal through it.
        let registry = registry();
        let (swe_bench, mini) = (registry.get("swe-bench").unwrap(), registry.get("minisandbox").unwrap());
        let options = ExportOptions::default();
        let mut notes = Notes::new();
        let c = swe_bench.import(row.clone(), &mut notes).unwrap();
        let out = mini.export(&c, &options, &mut notes).unwrap();
        let c2 = mini.import(out, &mut notes).unwrap();
        prop_assert_eq!(c2.ext_list("fail_to_pass"), c.ext_list("fail_to_pass"));
        prop_assert_eq!(c2.ext_list("pass_to_pass"), c.ext_list("pass_to_pass"));
        prop_assert_eq!(c2.ext_str("problem_statement"), c.ext_str("problem_statement"));
        prop_assert_eq!(&c2.base_commit, &c.base_commit);
        prop_assert_eq!(&c2.version, &c.version);
    }

    #[test]
    fn import_of_arbitrary_json_never_panics(value in arbitrary_json()) {
        let registry = registry();
        if let Value::Object(map) = value {
            for adapter in registry.iter() {
                let _ = adapter.import(map.clone(), &mut Notes::new());
            }
        }
    }
}

fn arbitrary_json() -> impl Strategy<Value = Value> {
    let keys = prop_oneof![
        Just("repo".to_owned()),
        Just("instance_id".to_owned()),
        Just("patch".to_owned()),
        Just("FAIL_TO_PASS".to_owned()),
        Just("duration_changes".to_owned()),
        Just("efficiency_test".to_owned()),
        Just("tests".to_owned()),
        Just("base_commit".to_owned()),
        Just("created_at".to_owned()),
        Just("extensions".to_owned()),
        "[a-z_]{1,8}",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-1e9f64..1e9).prop_map(Value::from),
        "\\PC{0,12}".prop_map(Value::from),
        Just(Value::from("[\"a\", \"b\"]")),
        Just(Value::from("diff --git a/x b/x\n@@ -1 +1 @@\n-a\n+b\n")),
    ];
    leaf.prop_recursive(3, 24, 6, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::vec((keys.clone(), inner), 0..8)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// Runs git in `dir`, returning stdout.
fn git(dir: &Path, args: &[&str]) -> Vec<u8> {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "core.autocrlf=false",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn lines_of(words: &[u8]) -> String {
    words.iter().fold(String::new(), |mut text, w| {
        text.push_str("line ");
        text.push_str(&w.to_string());
        text.push('\n');
        text
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn a_reversed_diff_applied_with_git_undoes_the_diff(
        before in proptest::collection::vec(0u8..8, 0..30),
        after in proptest::collection::vec(0u8..8, 0..30),
        other in proptest::collection::vec(0u8..8, 1..10),
    ) {
        if Command::new("git").arg("--version").output().is_err() {
            eprintln!("skipped: git not found");
            return Ok(());
        }
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git(root, &["init", "-q"]);
        std::fs::write(root.join("a.txt"), lines_of(&before)).unwrap();
        std::fs::write(root.join("gone.txt"), lines_of(&other)).unwrap();
        git(root, &["add", "-A"]);
        git(root, &["commit", "-qm", "before"]);
        std::fs::write(root.join("a.txt"), lines_of(&after)).unwrap();
        std::fs::remove_file(root.join("gone.txt")).unwrap();
        std::fs::write(root.join("new.txt"), lines_of(&other)).unwrap();
        git(root, &["add", "-A"]);
        let forward = String::from_utf8(git(root, &["diff", "--cached"])).unwrap();
        let reversed = diff::reverse(&forward).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(diff::reverse(&reversed).unwrap(), forward.clone());
        // The working tree holds `after`; applying the reversal must give `before` back.
        std::fs::write(root.join("reverse.patch"), &reversed).unwrap();
        git(root, &["apply", "--index", "reverse.patch"]);
        prop_assert_eq!(std::fs::read_to_string(root.join("a.txt")).unwrap(), lines_of(&before));
        prop_assert_eq!(std::fs::read_to_string(root.join("gone.txt")).unwrap(), lines_of(&other));
        prop_assert!(!root.join("new.txt").exists());
    }
}
