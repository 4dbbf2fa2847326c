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

use std::collections::BTreeMap;
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

/// `validate --format FORMAT -i FILE`.
fn validate(context: &TestContext, format: &str, file: &Path) -> Output {
    context.run(["validate", "--format", format, "-i", file.to_str().unwrap()])
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
            let checked = validate(context, to, &output);
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
        "`--set extensions.mirror_repo=VALUE`",
        "a repository snapshot SWE-smith has no profile for",
        "such as `swe-bench`",
        "`--allow-incomplete`",
    ] {
        assert!(said.contains(remedy), "{remedy}: {said}");
    }

    // A mirror named after each record's own commit is one SWE-smith has no profile for:
    // its harness could not find one, and the records are refused, naming the value.
    let templates = [
        "--set",
        "extensions.image_name=swebench/swesmith.x86_64.{owner:lower}_1776_{name:lower}.{base_commit:8}",
        "--set",
        "extensions.mirror_repo=swesmith/{owner}__{name}.{base_commit:8}",
    ];
    let out = convert(
        &context,
        "swe-bench",
        "swe-smith",
        &input,
        &output,
        &templates,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(!output.exists());
    assert!(
        stderr(&out).contains("it needs `repo` (one it knows, not `swesmith/"),
        "{}",
        stderr(&out)
    );

    // Written anyway, the templates are filled from each record.
    let mut anyway = templates.to_vec();
    anyway.push("--allow-incomplete");
    let out = convert(&context, "swe-bench", "swe-smith", &input, &output, &anyway);
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

    // The mirror of a registered snapshot is accepted, and its profile names the image.
    std::fs::remove_file(&output).unwrap();
    let out = convert(
        &context,
        "swe-bench",
        "swe-smith",
        &input,
        &output,
        &[
            "--set",
            "extensions.mirror_repo=swesmith/pylint-dev__astroid.b114f6b5",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let checked = validate(&context, "swe-smith", &output);
    assert!(checked.status.success(), "{}", stderr(&checked));
    let written = std::fs::read_to_string(&output).unwrap();
    for row in written.lines() {
        let row: serde_json::Value = serde_json::from_str(row).unwrap();
        assert_eq!(
            row["image_name"],
            "swebench/swesmith.x86_64.pylint-dev_1776_astroid.b114f6b5"
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
    let checked = validate(&context, "swe-bench", &output);
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

/// What a remedy line of a refusal offers, as the walk below follows it.
#[derive(Debug, PartialEq, Eq)]
enum Offer {
    /// `--set FIELD=VALUE`: followed with a value of the requirement's kind.
    Set(String),
    /// Git finds it: `--repos DIR` (followed in `mining.rs` on generated repositories).
    Repos,
    /// The timing logs give it: `--timings DIR` (followed in `timings.rs`).
    Timings,
    /// Honestly nothing this conversion can do.
    Nothing,
}

/// Reads what the remedy `line` of a refusal offers; panics on a remedy the walk does
/// not know how to follow, so that no remedy is printed that no test has run.
fn offers(line: &str) -> Vec<Offer> {
    let mut found = Vec::new();
    for part in line.split("`--set ").skip(1) {
        let field = part.split_once("=VALUE`").map(|(field, _)| field);
        if let Some(field) = field.filter(|f| !f.contains(' ')) {
            found.push(Offer::Set(field.to_owned()));
        }
    }
    if line.contains("`--repos DIR`") {
        found.push(Offer::Repos);
    }
    if line.contains("`--timings DIR`") {
        found.push(Offer::Timings);
    }
    if [
        "convert from a source that has it",
        "nothing, for a task",
        "harness that adds theirs",
        "written without being asked once",
    ]
    .iter()
    .any(|honest| line.contains(honest))
    {
        found.push(Offer::Nothing);
    }
    assert!(
        !found.is_empty(),
        "a remedy no test follows: {line}\n(teach `offers` how to follow it, and follow it)"
    );
    found
}

/// A value of the kind `requirement` declares, one its consumer knows when it knows only
/// some (for the record's `repo` when the values depend on it).
fn value_for(requirement: &serde_json::Value, record: &serde_json::Value) -> String {
    if let Some(known) = requirement.get("known") {
        if let Some(value) = known["values"].as_array().and_then(|v| v.first()) {
            return value.as_str().unwrap().to_owned();
        }
        if let Some(under) = known.get("under") {
            let key = under["key"].as_str().unwrap();
            let of = record[key].as_str().unwrap_or_default();
            if let Some(value) = under["values"][of].as_array().and_then(|v| v.first()) {
                return value.as_str().unwrap().to_owned();
            }
        }
    }
    match requirement["kind"].as_str().unwrap() {
        // One item every list of the formats can hold: a test name, a command, a GSO
        // script.
        "list" | "list_or_encoded" | "list_or_python_repr" => {
            r#"["print('Execution time: 0.5s')"]"#.to_owned()
        }
        "json_text" => r#"[{"base": [1.0], "head": [0.5]}]"#.to_owned(),
        "number" => "1.5".to_owned(),
        "integer" => "7".to_owned(),
        "object" => r#"{"key": 1}"#.to_owned(),
        _ => "a value given with --set".to_owned(),
    }
}

/// What the records lack for `to`, by key, with the remedy printed for it, from a
/// `--allow-incomplete` run's report; `None` when the target refuses the records anyway
/// (it cannot carry them). A `--set` value of the wrong type is given again as the usage
/// error's hint says, and `more` holds what was run in the end.
fn lacking(
    context: &TestContext,
    (from, to): (&str, &str),
    input: &Path,
    more: &mut [String],
) -> Option<BTreeMap<String, String>> {
    let output = context.path("walk-incomplete.jsonl");
    let report = context.path("walk-report.json");
    for _ in 0..=more.len() {
        let mut args: Vec<&str> = vec!["--allow-incomplete", "--overwrite", "--report"];
        args.push(report.to_str().unwrap());
        args.extend(more.iter().map(String::as_str));
        let out = convert(context, from, to, input, &output, &args);
        let said = stderr(&out);
        if out.status.code() == Some(2)
            && let Some(hint) = said.split("quoted for the shell: `--set ").nth(1)
        {
            // `FIELD='VALUE'`: the value the hint gives, in place of the one that did not fit.
            let (field, value) = hint.split_once("='").unwrap();
            let value = value.split_once("'`").unwrap().0;
            let at = more
                .iter()
                .position(|m| m.starts_with(&format!("{field}=")))
                .unwrap();
            more[at] = format!("{field}={value}");
            continue;
        }
        if out.status.code() == Some(1) && !said.contains("would reject this record") {
            return None;
        }
        assert!(out.status.success(), "{from} -> {to}: {said}");
        let report = context.read_json(&report);
        // The target's contract's items; canonical's lossless profile notes fields it
        // leaves out as missing too, which are no refusal.
        let missing = report["missing"].as_object().cloned().unwrap_or_default();
        return Some(
            missing
                .into_iter()
                .filter_map(|(key, entry)| {
                    let detail = entry["detail"].as_str().unwrap();
                    let remedy = detail.split_once("to supply it: ")?.1;
                    Some((key, remedy.to_owned()))
                })
                .collect(),
        );
    }
    panic!("{from} -> {to}: the `--set` hints do not converge: {more:?}");
}

/// Every remedy a refusal of the pair matrix prints is one this walk can follow: it takes
/// each `--set` remedy as printed, with a value of the requirement's kind, and checks that
/// the records no longer lack that key; when every key had one, the records then convert
/// and `validate --format TARGET` accepts them. A remedy that needs a repository or
/// timing logs is followed where those are made (`mining.rs`, `timings.rs`); any other
/// must say honestly that nothing here supplies the value.
#[test]
fn every_printed_remedy_works_when_followed() {
    let tables = Path::new(EXAMPLES).join("../adapters");
    let context = TestContext::new().with_args([
        "--plugin",
        plugin("isobench_multi_swe_bench").to_str().unwrap(),
        "--adapter",
        tables.join("swe-bench-extra.toml").to_str().unwrap(),
        "--adapter",
        tables.join("swee-bench.toml").to_str().unwrap(),
    ]);
    let adapters: serde_json::Value =
        serde_json::from_str(&stdout(&context.run(["adapters", "--json"]))).unwrap();
    let requirement = |to: &str, key: &str| -> serde_json::Value {
        let format = adapters
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["name"] == to)
            .unwrap_or_else(|| panic!("{to} is listed"));
        format["contract"]["requires"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["key"] == key)
            .unwrap_or_else(|| panic!("{to} requires {key}"))
            .clone()
    };
    // One file of each format: the remedies a refusal prints are the format's, not the
    // file's (the real records when they are there, else the samples).
    let mut rows = sources();
    let mut formats = std::collections::BTreeSet::new();
    rows.retain(|(_, format, _)| formats.insert(*format));
    for (format, file) in [
        ("swe-bench-extra", "swe-bench-extra.sample.jsonl"),
        ("swee-bench", "swee-bench.sample.jsonl"),
    ] {
        rows.push((
            format!("{format}: examples/{file}"),
            format,
            Path::new(EXAMPLES).join(file),
        ));
    }
    for (label, from, input) in rows.clone() {
        let output = context.path(format!(
            "walk-canonical-of-{}.jsonl",
            label.replace([':', ' ', '/'], "_")
        ));
        let out = convert(&context, from, "canonical", &input, &output, &[]);
        assert!(out.status.success(), "{label}: {}", stderr(&out));
        rows.push((format!("canonical: of {label}"), "canonical", output));
    }
    let (mut followed, mut written) = (0, 0);
    for (label, from, input) in &rows {
        let first: serde_json::Value = serde_json::from_str(
            std::fs::read_to_string(input)
                .unwrap()
                .lines()
                .next()
                .unwrap(),
        )
        .unwrap();
        for to in TARGETS.iter().chain(&["swe-bench-extra", "swee-bench"]) {
            let what = format!("{label} -> {to}");
            let output = context.path("walk.jsonl");
            let Some(missing) = lacking(&context, (from, to), input, &mut []) else {
                continue;
            };
            let mut sets = Vec::new();
            let mut unfollowed = Vec::new();
            for (key, remedy) in &missing {
                let set = offers(remedy).into_iter().find_map(|o| match o {
                    Offer::Set(field) => Some(field),
                    _ => None,
                });
                match set {
                    Some(field) => {
                        let value = value_for(&requirement(to, key), &first);
                        sets.push(("--set".to_owned(), format!("{field}={value}"), key.clone()));
                    }
                    None => unfollowed.push(key.clone()),
                }
            }
            if sets.is_empty() {
                continue;
            }
            let mut more: Vec<String> = sets
                .iter()
                .flat_map(|(flag, arg, _)| [flag.clone(), arg.clone()])
                .collect();
            let still = lacking(&context, (from, to), input, &mut more)
                .unwrap_or_else(|| panic!("{what}: refused once the remedies were followed"));
            for (_, arg, key) in &sets {
                assert!(
                    !still.contains_key(key),
                    "{what}: the printed remedy `--set {arg}` was followed, and the records still lack `{key}`"
                );
            }
            followed += sets.len();
            if still.is_empty() {
                let mut args: Vec<&str> = vec!["--overwrite"];
                args.extend(more.iter().map(String::as_str));
                let out = convert(&context, from, to, input, &output, &args);
                assert!(out.status.success(), "{what}: {}", stderr(&out));
                let checked = validate(&context, to, &output);
                assert!(
                    checked.status.success(),
                    "{what}: remedies followed, written, and `validate` rejects it: {}{}",
                    stdout(&checked),
                    stderr(&checked)
                );
                written += 1;
                println!("{what}: written after {}", more.join(" "));
            } else {
                assert!(
                    still
                        .keys()
                        .all(|k| unfollowed.contains(k) || !missing.contains_key(k)),
                    "{what}: after the `--set` remedies, still lacking {still:?}"
                );
            }
        }
    }
    println!("{followed} remedies followed; {written} pairs written after them");
    assert!(followed > 10, "only {followed} remedies followed");
    assert!(
        written > 5,
        "only {written} pairs written after their remedies"
    );
}

/// SWE-Perf's refusal for records without timings offers `--timings DIR`, and `convert`
/// takes it: the logs give `duration_changes` and `human_performance`, the records are
/// written, and `validate --format swe-perf` accepts them.
#[test]
fn the_timings_remedy_is_a_convert_flag_that_works() {
    let context = TestContext::new();
    let canonical = context.path("perf.canonical.jsonl");
    let out = convert(
        &context,
        "swe-perf",
        "canonical",
        &Path::new(EXAMPLES).join("swe-perf.sample.jsonl"),
        &canonical,
        &[],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let logs = context.path("timings");
    let mut untimed = String::new();
    for mut record in context.read_json_lines("perf.canonical.jsonl") {
        let object = record.as_object_mut().unwrap();
        object.remove("duration_changes");
        object.remove("human_performance");
        let id = object["instance_id"].as_str().unwrap().to_owned();
        let tests: Vec<String> = object["efficiency_test"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap().to_owned())
            .collect();
        std::fs::create_dir_all(logs.join(&id)).unwrap();
        for (run, seconds) in [("base", 2.0), ("head", 1.0)] {
            let report: Vec<serde_json::Value> = tests
                .iter()
                .map(|t| serde_json::json!({"nodeid": t, "outcome": "passed", "call": {"duration": seconds}}))
                .collect();
            std::fs::write(
                logs.join(&id).join(format!("{run}.json")),
                serde_json::json!({"created": 1.0, "duration": 1.0, "tests": report}).to_string(),
            )
            .unwrap();
        }
        untimed.push_str(&record.to_string());
        untimed.push('\n');
    }
    let input = context.write("untimed.jsonl", untimed);
    let output = context.path("perf.jsonl");

    let out = convert(&context, "canonical", "swe-perf", &input, &output, &[]);
    assert_eq!(out.status.code(), Some(1));
    let said = stderr(&out);
    assert!(
        said.contains("  `duration_changes`: `--timings DIR`"),
        "{said}"
    );

    let out = convert(
        &context,
        "canonical",
        "swe-perf",
        &input,
        &output,
        &["--timings", logs.to_str().unwrap()],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let checked = validate(&context, "swe-perf", &output);
    assert!(checked.status.success(), "{}", stderr(&checked));
    for row in context.read_json_lines("perf.jsonl") {
        assert!(
            row["duration_changes"]
                .as_str()
                .unwrap()
                .contains("\"head\"")
        );
        // SWE-Perf's metric of these timings, not the one the source had for its own.
        assert!(row["human_performance"].is_number(), "{row}");
        assert_ne!(row["human_performance"], serde_json::json!(0.416), "{row}");
    }
}

/// GSO's loader (`GSOInstance(**row)`) refuses keys it does not declare: a GSO record
/// carrying one is written back without it, the report says so, and `validate` accepts
/// what was written.
#[test]
fn a_closed_target_leaves_out_the_keys_it_does_not_declare() {
    let context = TestContext::new();
    let sample = std::fs::read_to_string(Path::new(EXAMPLES).join("gso.sample.jsonl")).unwrap();
    let mut extra = String::new();
    for line in sample.lines() {
        let mut record: serde_json::Value = serde_json::from_str(line).unwrap();
        record["notes_of_a_curator"] = serde_json::json!("checked by hand");
        extra.push_str(&record.to_string());
        extra.push('\n');
    }
    let input = context.write("extra.jsonl", extra);
    let not_gso = validate(&context, "gso", &input);
    assert_eq!(not_gso.status.code(), Some(1), "{}", stderr(&not_gso));
    for from in ["gso", "canonical"] {
        let source = if from == "gso" {
            input.clone()
        } else {
            let canonical = context.path("extra.canonical.jsonl");
            let out = convert(
                &context,
                "gso",
                "canonical",
                &input,
                &canonical,
                &["--overwrite"],
            );
            assert!(out.status.success(), "{}", stderr(&out));
            canonical
        };
        let output = context.path("out.jsonl");
        let out = convert(&context, from, "gso", &source, &output, &["--overwrite"]);
        assert!(out.status.success(), "{from}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("notes_of_a_curator: ")
                && stderr(&out).contains("gso's loader refuses keys its table does not declare"),
            "{from}: {}",
            stderr(&out)
        );
        let checked = validate(&context, "gso", &output);
        assert!(checked.status.success(), "{from}: {}", stdout(&checked));
        assert!(!context.read("out.jsonl").contains("notes_of_a_curator"));
    }
}
