//! The Multi-SWE-bench adapter on the published Java records.

use isobench_multi_swe_bench::{adapter as multi_swe_bench, problem_statement};
use isobench_plugin_sdk::core::adapter::{ExportOptions, ViewAdapter};
use isobench_plugin_sdk::core::{Notes, Profile, Registry, validate_record};
use serde_json::{Map, Value, json};

const REAL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/data/real/multi-swe-bench/multi_swe_bench_java.jsonl"
);

fn real_records() -> Option<Vec<Map<String, Value>>> {
    let Ok(text) = std::fs::read_to_string(REAL) else {
        eprintln!("skipped: the real Multi-SWE-bench records are not present");
        return None;
    };
    Some(
        text.lines()
            .map(|l| serde_json::from_str(l).expect("the real records are JSON objects"))
            .collect(),
    )
}

#[test]
fn every_real_record_round_trips_exactly() {
    let Some(records) = real_records() else {
        return;
    };
    assert_eq!(records.len(), 34);
    let adapter = multi_swe_bench();
    for record in records {
        let mut notes = Notes::new();
        let canonical = adapter.import(record.clone(), &mut notes).unwrap();
        let problems = validate_record(&canonical.to_value(), Profile::Lossless);
        assert!(problems.is_empty(), "{problems:?}");
        let back = adapter
            .export(&canonical, &ExportOptions::default(), &mut notes)
            .unwrap();
        // Same value, same key order (at every depth), same text.
        assert_eq!(
            serde_json::to_string(&back).unwrap(),
            serde_json::to_string(&record).unwrap()
        );
    }
}

#[test]
fn real_records_become_harness_rows() {
    let Some(records) = real_records() else {
        return;
    };
    isobench_adapters::link();
    let registry = Registry::builtin();
    let swe_bench = registry.get("swe-bench").unwrap();
    let adapter = multi_swe_bench();
    for record in records {
        let mut notes = Notes::new();
        let canonical = adapter.import(record.clone(), &mut notes).unwrap();
        let row = swe_bench
            .export(&canonical, &ExportOptions::default(), &mut notes)
            .unwrap();
        let org = record["org"].as_str().unwrap();
        let name = record["repo"].as_str().unwrap();
        assert_eq!(row["repo"], format!("{org}/{name}"));
        assert_eq!(row["instance_id"], record["instance_id"]);
        assert_eq!(row["base_commit"], record["base"]["sha"]);
        assert_eq!(row["patch"], record["fix_patch"]);
        assert_eq!(row["test_patch"], record["test_patch"]);
        // SWE-bench keeps test lists as JSON text.
        let f2p: Vec<String> = serde_json::from_str(row["FAIL_TO_PASS"].as_str().unwrap()).unwrap();
        let p2p: Vec<String> = serde_json::from_str(row["PASS_TO_PASS"].as_str().unwrap()).unwrap();
        // Every test the fix makes pass is FAIL_TO_PASS; on these records that is `fixed_tests`
        // less the PASS_TO_PASS ones.
        let mut expected: Vec<&String> = record["fixed_tests"]
            .as_object()
            .unwrap()
            .keys()
            .filter(|t| !record["p2p_tests"].as_object().unwrap().contains_key(*t))
            .collect();
        let mut got: Vec<&String> = f2p.iter().collect();
        expected.sort();
        got.sort();
        assert_eq!(got, expected, "{}", record["instance_id"]);
        assert_eq!(p2p.len(), record["p2p_tests"].as_object().unwrap().len());
        let issue = &record["resolved_issues"][0];
        assert!(
            row["problem_statement"]
                .as_str()
                .unwrap()
                .starts_with(&format!(
                    "{}\n{}",
                    issue["title"].as_str().unwrap(),
                    issue["body"].as_str().unwrap()
                ))
        );
        // What SWE-bench's harness needs and these rows cannot give is left out, never
        // invented, and its contract names it.
        let unmet: Vec<String> = swe_bench
            .info()
            .contract
            .check(&row, &|_| None)
            .iter()
            .map(|u| u.requirement.key.clone())
            .collect();
        assert!(unmet.iter().any(|k| k == "version"), "{unmet:?}");
        assert!(row.get("version").is_none());
    }
}

#[test]
fn problem_statement_joins_issues() {
    let issues = json!([
        {"number": 1, "title": "Crash on empty input", "body": "Steps:\r\n1. run"},
        {"number": 2, "title": "Docs", "body": null}
    ]);
    assert_eq!(
        problem_statement(issues.as_array().unwrap()).unwrap(),
        "Crash on empty input\nSteps:\r\n1. run\n\nDocs"
    );
}

#[test]
fn missing_instance_id_is_derived_and_not_written_back() {
    let record = json!({
        "org": "google", "repo": "guava", "number": 6586, "base": {"label": "google:master", "ref": "master", "sha": "abc"},
        "fix_patch": "", "tag": "x"
    });
    let adapter = multi_swe_bench();
    let mut notes = Notes::new();
    let c = adapter
        .import(record.as_object().unwrap().clone(), &mut notes)
        .unwrap();
    assert_eq!(c.instance_id.as_deref(), Some("google__guava-6586"));
    let back = adapter
        .export(&c, &ExportOptions::default(), &mut notes)
        .unwrap();
    assert_eq!(Value::Object(back), record);
}
