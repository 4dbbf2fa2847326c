//! Export contracts across the whole pair matrix: every built-in format and the
//! Multi-SWE-bench plugin, as source and as target, on the real records in
//! `../shared/data/real` (when present) and the samples in `examples/data`.
//!
//! Each cell either writes records that `validate --format TARGET` accepts, or exits 1
//! with nothing written and an error that names what is missing and how to supply it;
//! with `--allow-incomplete`, every cell refused for missing fields writes and exits 0.
//! A target that cannot hold what a record is (GSO's scripts against SWE-Perf's pytest
//! ids) refuses with a hint, `--allow-incomplete` or not.

mod common;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Output;

use common::{TestContext, plugin, stderr, stdout};

const REAL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/data/real");
const EXAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/data");

const TARGETS: [&str; 7] = [
    "canonical",
    "swe-bench",
    "swe-smith",
    "minisandbox",
    "swe-perf",
    "gso",
    "multi-swe-bench",
];

/// `(label, format, file)` of every source file there is.
fn sources() -> Vec<(String, &'static str, PathBuf)> {
    let mut found = Vec::new();
    let real = Path::new(REAL);
    if common::real_data_present(real) {
        for (folder, format) in [
            ("swebench-verified", "swe-bench"),
            ("swebench-lite", "swe-bench"),
            ("swebench-full", "swe-bench"),
            ("swesmith", "swe-smith"),
            ("swesmith", "minisandbox"),
            ("multi-swe-bench", "multi-swe-bench"),
        ] {
            let mut files: Vec<PathBuf> = std::fs::read_dir(real.join(folder))
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
                .collect();
            files.sort();
            for file in files {
                let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
                found.push((format!("{format}: {stem}"), format, file));
            }
        }
    }
    for (format, file) in [
        ("swe-bench", "swe-bench-verified.sample.jsonl"),
        ("swe-perf", "swe-perf.sample.jsonl"),
        ("gso", "gso.sample.jsonl"),
    ] {
        found.push((
            format!("{format}: examples/{file}"),
            format,
            Path::new(EXAMPLES).join(file),
        ));
    }
    found
}

/// A scratch directory whose commands load the Multi-SWE-bench plugin.
fn plugin_context() -> TestContext {
    TestContext::new().with_args([
        "--plugin",
        plugin("isobench_multi_swe_bench").to_str().unwrap(),
    ])
}

fn convert(
    context: &TestContext,
    from: &str,
    to: &str,
    input: &Path,
    output: &Path,
    more: &[&str],
) -> Output {
    let mut args = vec!["convert", "--from", from, "--to", to, "-i"];
    args.push(input.to_str().unwrap());
    args.extend(["-o", output.to_str().unwrap()]);
    args.extend(more);
    context.run(&args)
}

/// One cell: what happened, checked against the rules of the module documentation.
fn cell(context: &TestContext, label: &str, from: &str, to: &str, input: &Path) -> String {
    let output = context.path(format!(
        "{}-{to}.jsonl",
        label.replace([':', ' ', '/'], "_")
    ));
    let out = convert(context, from, to, input, &output, &[]);
    let what = format!("{label} -> {to}");
    match out.status.code() {
        Some(0) => {
            let checked = context.run(["validate", "--format", to, "-i", output.to_str().unwrap()]);
            assert!(
                checked.status.success(),
                "{what}: written with exit 0, but `validate --format {to}` rejects it:\n{}{}",
                stdout(&checked),
                stderr(&checked)
            );
            let n = std::fs::read_to_string(&output).unwrap().lines().count();
            format!("ok {n}")
        }
        Some(1) => {
            let said = stderr(&out);
            assert!(
                !output.exists(),
                "{what}: refused, yet an output was written"
            );
            assert!(
                said.contains("hint:"),
                "{what}: refused without a remedy:\n{said}"
            );
            if !said.contains("--allow-incomplete") {
                return "refused: cannot carry".to_owned();
            }
            assert!(
                said.contains("would reject this record: it needs `"),
                "{what}: a refusal must name what is missing:\n{said}"
            );
            let incomplete = convert(context, from, to, input, &output, &["--allow-incomplete"]);
            assert!(
                incomplete.status.success() && output.exists(),
                "{what}: `--allow-incomplete` must write the refused records:\n{}",
                stderr(&incomplete)
            );
            assert!(
                stderr(&incomplete).contains("incomplete: "),
                "{what}: the summary must count the incomplete records"
            );
            "refused (+inc ok)".to_owned()
        }
        code => panic!(
            "{what}: exit {code:?}, neither written nor refused:\n{}",
            stderr(&out)
        ),
    }
}

#[test]
fn every_pair_writes_what_the_target_accepts_or_refuses_with_a_remedy() {
    let context = plugin_context();
    let mut rows = sources();
    // Canonical sources: each file converted to canonical first.
    for (label, from, input) in rows.clone() {
        let output = context.path(format!(
            "canonical-of-{}.jsonl",
            label.replace([':', ' ', '/'], "_")
        ));
        let out = convert(&context, from, "canonical", &input, &output, &[]);
        assert!(out.status.success(), "{label}: {}", stderr(&out));
        rows.push((format!("canonical: of {label}"), "canonical", output));
    }
    let mut table = String::new();
    let mut cells = Vec::new();
    for (label, from, input) in &rows {
        let row: Vec<String> = TARGETS
            .iter()
            .map(|to| cell(&context, label, from, to, input))
            .collect();
        let _ = writeln!(table, "{label:<64} | {}", row.join(" | "));
        cells.push((label.clone(), *from, row));
    }
    println!("{:<64} | {}\n{table}", "source", TARGETS.join(" | "));

    // A few cells whose outcome is known, so that a matrix of refusals cannot pass.
    let at = |from: &str, to: &str| -> Vec<&str> {
        let column = TARGETS.iter().position(|t| *t == to).unwrap();
        let found: Vec<&str> = cells
            .iter()
            .filter(|(_, f, _)| *f == from)
            .map(|(_, _, row)| row[column].as_str())
            .collect();
        assert!(!found.is_empty(), "no {from} source");
        found
    };
    for to in ["canonical", "swe-bench", "minisandbox"] {
        assert!(
            at("swe-bench", to).iter().all(|c| c.starts_with("ok")),
            "swe-bench -> {to}"
        );
    }
    assert!(
        at("swe-bench", "swe-smith")
            .iter()
            .all(|c| *c == "refused (+inc ok)")
    );
    assert!(
        at("swe-perf", "swe-perf")
            .iter()
            .all(|c| c.starts_with("ok"))
    );
    assert!(at("gso", "gso").iter().all(|c| c.starts_with("ok")));
    assert!(
        at("swe-perf", "gso")
            .iter()
            .all(|c| *c == "refused: cannot carry")
    );
    if Path::new(REAL).is_dir() {
        assert!(
            at("multi-swe-bench", "multi-swe-bench")
                .iter()
                .all(|c| c.starts_with("ok"))
        );
        assert!(
            at("swe-smith", "swe-smith")
                .iter()
                .all(|c| c.starts_with("ok"))
        );
        assert!(
            at("multi-swe-bench", "swe-bench")
                .iter()
                .all(|c| *c == "refused (+inc ok)")
        );
    }
}

#[test]
fn a_refusal_names_every_missing_field_and_its_remedy() {
    let context = plugin_context();
    let input = Path::new(EXAMPLES).join("swe-bench-verified.sample.jsonl");
    let output = context.path("smith.jsonl");
    let out = convert(&context, "swe-bench", "swe-smith", &input, &output, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(!output.exists());
    let said = stderr(&out);
    assert!(
        said.contains(
            "swe-smith (swesmith harness) would reject this record: it needs `image_name`, `repo`"
        ),
        "{said}"
    );
    for remedy in [
        "`--set extensions.image_name=VALUE`",
        "{owner:lower}_1776_{name:lower}.{head_commit:8}",
        "`--set extensions.mirror_repo=VALUE`",
        "`--allow-incomplete`",
    ] {
        assert!(said.contains(remedy), "{remedy}: {said}");
    }

    // Supplied per record with templates, the records are written, and the values are
    // filled from each record.
    let out = convert(
        &context,
        "swe-bench",
        "swe-smith",
        &input,
        &output,
        &[
            "--set",
            "extensions.image_name=swebench/swesmith.x86_64.{owner:lower}_1776_{name:lower}.{base_commit:8}",
            "--set",
            "extensions.mirror_repo=swesmith/{owner}__{name}.{base_commit:8}",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let originals = std::fs::read_to_string(&input).unwrap();
    let written = std::fs::read_to_string(&output).unwrap();
    for (original, row) in originals.lines().zip(written.lines()) {
        let original: serde_json::Value = serde_json::from_str(original).unwrap();
        let row: serde_json::Value = serde_json::from_str(row).unwrap();
        let (owner, name) = original["repo"].as_str().unwrap().split_once('/').unwrap();
        let commit = &original["base_commit"].as_str().unwrap()[..8];
        assert_eq!(row["repo"], format!("swesmith/{owner}__{name}.{commit}"));
        assert_eq!(
            row["image_name"],
            format!(
                "swebench/swesmith.x86_64.{}_1776_{}.{commit}",
                owner.to_lowercase(),
                name.to_lowercase()
            )
        );
    }

    // An unknown template field is a usage error, before anything is read.
    let out = convert(
        &context,
        "swe-bench",
        "swe-smith",
        &input,
        &context.path("never.jsonl"),
        &["--set", "extensions.image_name=x.{commit}"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("unknown template field `{commit}`"));
}

#[test]
fn allow_incomplete_reports_what_each_record_lacks() {
    let context = plugin_context();
    let input = Path::new(EXAMPLES).join("gso.sample.jsonl");
    let output = context.path("bench.jsonl");
    let report = context.path("report.json");
    let out = convert(
        &context,
        "gso",
        "swe-bench",
        &input,
        &output,
        &["--allow-incomplete", "--report", report.to_str().unwrap()],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let n = std::fs::read_to_string(&input).unwrap().lines().count() as u64;
    assert_eq!(report["incomplete"], n);
    let lacks = &report["incomplete_records"][0]["lacks"];
    for key in [
        "problem_statement",
        "version",
        "FAIL_TO_PASS",
        "PASS_TO_PASS",
    ] {
        assert!(
            lacks.as_array().unwrap().iter().any(|k| k == key),
            "{key}: {lacks}"
        );
        assert_eq!(report["missing"][key]["records"], n, "{key}");
    }
    // SWE-bench's own "none" for hints is written, and said to be a default.
    assert!(report["defaulted"]["hints_text"]["records"] == n);
    // What was written is what `validate` then finds lacking, and nothing else.
    let checked = context.run([
        "validate",
        "--format",
        "swe-bench",
        "-i",
        output.to_str().unwrap(),
    ]);
    assert_eq!(checked.status.code(), Some(1));
    let said = stdout(&checked);
    assert!(
        said.contains("\"FAIL_TO_PASS\" is a required property"),
        "{said}"
    );
}

#[test]
fn validate_shows_the_first_problems_and_names_the_format_the_records_match() {
    let context = plugin_context();
    let input = Path::new(EXAMPLES).join("swe-bench-verified.sample.jsonl");
    let canonical = context.path("canonical.jsonl");
    let out = convert(&context, "swe-bench", "canonical", &input, &canonical, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    // Canonical records checked as SWE-bench rows (the file given twice, as an argument
    // and with `-i`): every record lacks five of SWE-bench's keys, 30 problems in all.
    let path = canonical.to_str().unwrap();
    let out = context.run(["validate", "--format", "swe-bench", path, "-i", path]);
    assert_eq!(out.status.code(), Some(1));
    let shown = stdout(&out);
    assert_eq!(shown.lines().count(), 20, "{shown}");
    let said = stderr(&out);
    assert!(
        said.contains("... and 10 more problem(s), not shown"),
        "{said}"
    );
    assert!(
        said.contains(
            "6 record(s) checked against `swe-bench`: 0 valid, 6 invalid (30 problem(s))"
        ),
        "{said}"
    );
    assert!(
        said.contains(
            "hint: the records read as `canonical`: check them with `--format canonical`"
        ),
        "{said}"
    );
}

#[test]
fn a_record_of_the_target_format_lacking_a_key_is_not_given_the_none_value() {
    let context = plugin_context();
    let sample =
        std::fs::read_to_string(Path::new(EXAMPLES).join("swe-bench-verified.sample.jsonl"))
            .unwrap();
    let mut row: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(sample.lines().next().unwrap()).unwrap();
    row.shift_remove("hints_text");
    let input = context.path("no-hints.jsonl");
    std::fs::write(&input, serde_json::Value::Object(row).to_string() + "\n").unwrap();
    // SWE-bench itself has hints: a SWE-bench row without them is incomplete, not empty.
    let out = convert(
        &context,
        "swe-bench",
        "swe-bench",
        &input,
        &context.path("out.jsonl"),
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("it needs `hints_text`"),
        "{}",
        stderr(&out)
    );
    // From a format without the concept, SWE-bench's own "none" is written, and said.
    let canonical = context.path("canonical.jsonl");
    let out = convert(
        &context,
        "swe-bench",
        "canonical",
        &input,
        &canonical,
        &["--allow-incomplete"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let back = context.path("back.jsonl");
    let out = convert(&context, "canonical", "swe-bench", &canonical, &back, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("hints_text: 1 record(s); written as \"\""));
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&back).unwrap()).unwrap();
    assert_eq!(written["hints_text"], "");
}

/// A conversion of many batches, each of incomplete records, reports every record as
/// incomplete and lists the first ones of the input, in order, whatever the number of
/// workers: the batches converted after the report lists enough list none, and no
/// batch's list is taken out of order.
#[test]
fn incomplete_records_listed_are_the_first_of_the_input_over_many_batches() {
    let context = TestContext::new();
    let sample =
        std::fs::read_to_string(Path::new(EXAMPLES).join("swe-bench-verified.sample.jsonl"))
            .unwrap();
    let record: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(sample.lines().next().unwrap()).unwrap();
    // About 4 MB: several batches of 1 MB, with more records than a report lists.
    let n = 400;
    let mut input = String::new();
    for i in 0..n {
        let mut r = record.clone();
        r.insert("instance_id".into(), format!("o__r-{i}").into());
        r.insert("hints_text".into(), "h".repeat(10_000).into());
        writeln!(input, "{}", serde_json::Value::Object(r)).unwrap();
    }
    let path = context.path("many.jsonl");
    std::fs::write(&path, input).unwrap();
    for jobs in ["1", "2", "3"] {
        let output = context.path(format!("out-{jobs}.jsonl"));
        let report = context.path(format!("report-{jobs}.json"));
        let out = convert(
            &context,
            "swe-bench",
            "canonical",
            &path,
            &output,
            &["--jobs", jobs, "--report", report.to_str().unwrap()],
        );
        assert!(out.status.success(), "{}", stderr(&out));
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
        assert_eq!(report["incomplete"], n, "--jobs {jobs}");
        let listed: Vec<u64> = report["incomplete_records"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["line"].as_u64().unwrap())
            .collect();
        assert_eq!(listed, (1..=100).collect::<Vec<u64>>(), "--jobs {jobs}");
        assert_eq!(
            report["incomplete_records"][99]["instance_id"], "o__r-99",
            "--jobs {jobs}"
        );
    }
}
