//! The bad-input corpus (`tests/bad-input/`), run through the binary: one table,
//! `tests/bad-input/cases.toml`, gives for each input the exit code, the error (file, line,
//! record, field), and what `--on-error skip` writes and rejects. Every case checks that
//! read = written + rejected, in the summary, in the report and in the files.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde::Deserialize;
use serde_json::Value;

use common::TestContext;

/// One row of `cases.toml` (see the comment at its top).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    /// The input's name: a file of the corpus, or the name a generated input gets.
    file: String,
    /// Generates the input at test time instead (too big to keep in the repository).
    generate: Option<String>,
    from: String,
    #[serde(default = "canonical")]
    to: String,
    #[serde(default)]
    args: Vec<String>,
    /// The exit code of the run as given (`--on-error fail`).
    exit: i32,
    /// Texts stderr must hold.
    #[serde(default)]
    errors: Vec<String>,
    /// Text the `hint:` line must hold.
    hint: Option<String>,
    /// Texts `warning:` lines must hold.
    #[serde(default)]
    warnings: Vec<String>,
    /// Warnings the `--report` JSON must count.
    report_warnings: Option<u64>,
    /// The run stops at the fault even with `--on-error skip`.
    #[serde(default)]
    stops: bool,
    /// With `--on-error skip`: records read, written, and the lines rejected.
    read: Option<u64>,
    written: Option<u64>,
    rejected: Option<Vec<u64>>,
    /// The `instance_id`s of the written records, in order.
    written_ids: Option<Vec<String>>,
    /// A file (of the corpus, else the input folder) the output must equal byte for byte.
    output: Option<String>,
}

fn canonical() -> String {
    "canonical".to_owned()
}

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad-input")
}

fn cases() -> Vec<Case> {
    #[derive(Deserialize)]
    struct Table {
        case: Vec<Case>,
    }
    let text = fs::read_to_string(corpus().join("cases.toml")).expect("the table is readable");
    toml::from_str::<Table>(&text)
        .expect("the table parses")
        .case
}

/// A SWE-bench record, made up for these tests.
fn swe_bench_record(n: u32) -> serde_json::Map<String, Value> {
    let Value::Object(map) = serde_json::json!({
        "repo": "sympy/sympy",
        "instance_id": format!("acme__widgets-{n}"),
        "base_commit": "1".repeat(40),
        "patch": "diff --git a/w.py b/w.py\n--- a/w.py\n+++ b/w.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n",
        "test_patch": "",
        "problem_statement": "x is wrong",
        "hints_text": "",
        "created_at": "2024-01-02T03:04:05Z",
        "version": "1.0",
        "FAIL_TO_PASS": "[\"tests/test_w.py::test_x\"]",
        "PASS_TO_PASS": "[]",
        "environment_setup_commit": "1".repeat(40),
    }) else {
        unreachable!("an object literal")
    };
    map
}

/// Writes a generated input into `dir`; returns a text the output must hold, if any.
fn generate(kind: &str, path: &Path) -> Option<String> {
    let line = |map: &serde_json::Map<String, Value>| {
        // SWE-bench's own spacing, so that the output is the input byte for byte.
        let mut text = isobench_core::codec::JsonStyle::Spaced.to_string(map);
        text.push('\n');
        text
    };
    match kind {
        "fifty-mb-line" => {
            // 50,000 test ids of 1,000 bytes: PASS_TO_PASS is a JSON-encoded list of 50 MB.
            let tests: Vec<String> = (0..50_000)
                .map(|i| format!("tests/test_widgets.py::test_case[{i:0>960}-{i:>08}]"))
                .collect();
            let mut big = swe_bench_record(1);
            big["PASS_TO_PASS"] = serde_json::to_string(&tests).unwrap().into();
            let text = line(&big) + &line(&swe_bench_record(2));
            assert!(text.len() > 50_000_000, "the line is 50 MB");
            fs::write(path, text).unwrap();
            None
        }
        "thirty-mb-string" => {
            // Escapes, multi-byte characters and plain text, 30 MB in all.
            let unit = "a line of text, \"quoted\" \\ and tabbed\t, caf\u{e9} \u{1f980}\n";
            let big: String = unit.repeat(30_000_000 / unit.len() + 1);
            let mut record = swe_bench_record(1);
            record["problem_statement"] = big.clone().into();
            fs::write(path, line(&record) + &line(&swe_bench_record(2))).unwrap();
            Some(serde_json::to_string(&big).unwrap())
        }
        other => panic!("no generator `{other}`"),
    }
}

/// `convert` of the case's input to `out.jsonl`, with the case's arguments and `extra`.
fn convert(context: &TestContext, case: &Case, extra: &[&str]) -> Output {
    context
        .command()
        .args(["convert", "--from", &case.from, "--to", &case.to])
        .args(["-i", &case.file, "-o", "out.jsonl"])
        .args(&case.args)
        .args(extra)
        .output()
        .expect("the binary runs")
}

/// The fault as given: exit code, error, hint, warnings; no output after a failure.
fn check_as_given(case: &Case, context: &TestContext) {
    let out = convert(context, case, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let name = &case.name;
    assert_eq!(out.status.code(), Some(case.exit), "{name}:\n{stderr}");
    for error in &case.errors {
        assert!(
            stderr.contains(&format!("error: {error}")),
            "{name}: expected `{error}` in:\n{stderr}"
        );
    }
    if let Some(hint) = &case.hint {
        let line = stderr
            .lines()
            .find(|l| l.starts_with("hint: "))
            .unwrap_or_default();
        assert!(
            line.contains(hint),
            "{name}: expected hint `{hint}` in:\n{stderr}"
        );
    }
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("warning: "))
        .collect();
    assert_eq!(warnings.len(), case.warnings.len(), "{name}:\n{stderr}");
    for (line, want) in warnings.iter().zip(&case.warnings) {
        assert!(line.contains(want), "{name}: expected `{want}` in `{line}`");
    }
    if case.exit != 0 {
        assert!(
            !context.path("out.jsonl").exists(),
            "{name}: a failed run leaves no output"
        );
    }
    assert!(!stderr.contains("panicked"), "{name}: {stderr}");
}

/// With `--on-error skip`: every record read is written or rejected with its reason.
fn check_skip(case: &Case, context: &TestContext, must_hold: Option<&str>) {
    let out = convert(
        context,
        case,
        &[
            "--on-error",
            "skip",
            "--rejects",
            "rejects.jsonl",
            "--report",
            "report.json",
            "--overwrite",
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    let name = &case.name;
    if case.stops {
        assert_eq!(out.status.code(), Some(case.exit), "{name}:\n{stderr}");
        assert!(
            stderr.contains(&format!("error: {}", case.errors[0])),
            "{name}:\n{stderr}"
        );
        assert!(!context.path("out.jsonl").exists(), "{name}: no output");
        assert!(
            !context.path("rejects.jsonl").exists(),
            "{name}: no rejects"
        );
        return;
    }
    let (read, written, rejected) = (
        case.read.expect("a case that does not stop gives `read`"),
        case.written.expect("... and `written`"),
        case.rejected.as_deref().expect("... and `rejected`"),
    );
    let expected_exit = i32::from(!rejected.is_empty());
    assert_eq!(out.status.code(), Some(expected_exit), "{name}:\n{stderr}");

    // The files.
    let output = context.read_json_lines("out.jsonl");
    let rejects = context.read_json_lines("rejects.jsonl");
    assert_eq!(output.len() as u64, written, "{name}: records written");
    assert_eq!(
        rejects
            .iter()
            .map(|r| r["line"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        rejected,
        "{name}: lines rejected"
    );
    assert_eq!(
        read,
        written + rejected.len() as u64,
        "{name}: the table itself says read = written + rejected"
    );
    // The summary and the report say the same (a run that converted every record and
    // lost nothing says so instead of counting no rejection).
    let summary = format!(
        "read {read}, written {written}, rejected {}",
        rejected.len()
    );
    let clean = format!("read {read}, written {written}: every record converted, nothing lost");
    assert!(
        stderr.contains(&summary) || (rejected.is_empty() && stderr.contains(&clean)),
        "{name}: `{summary}` in:\n{stderr}"
    );
    let balance = format!(
        "read = written + rejected: {read} = {written} + {}",
        rejected.len()
    );
    assert!(
        stderr.contains(&balance),
        "{name}: `{balance}` in:\n{stderr}"
    );
    let report = context.read_json("report.json");
    assert_eq!(report["read"], read, "{name}");
    assert_eq!(report["written"], written, "{name}");
    assert_eq!(report["rejected"], rejected.len() as u64, "{name}");
    if let Some(n) = case.report_warnings {
        assert_eq!(report["warning_count"], n, "{name}");
        assert_eq!(report["warnings"][0]["field"], "instance_id", "{name}");
    }

    // Each rejected record has its reason and is kept verbatim.
    let input = context.read_bytes(&case.file);
    for reject in &rejects {
        assert_eq!(reject["file"], case.file.as_str(), "{name}");
        assert!(
            reject["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{name}: a reason"
        );
        let bytes = if let Some(raw) = reject["raw"].as_str() {
            raw.as_bytes().to_vec()
        } else if let Some(hex) = reject["raw_hex"].as_str() {
            (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                .collect()
        } else {
            // A JSON array element, or a line that was JSON but not an object.
            assert!(reject.get("record").is_some(), "{name}: {reject}");
            continue;
        };
        assert!(
            input.windows(bytes.len()).any(|w| w == bytes),
            "{name}: the rejected text is not verbatim"
        );
    }

    if let Some(ids) = &case.written_ids {
        let got: Vec<&str> = output
            .iter()
            .map(|r| r["instance_id"].as_str().unwrap())
            .collect();
        assert_eq!(got, *ids, "{name}: the records written");
    }
    if let Some(file) = &case.output {
        let expected = if corpus().join(file).is_file() {
            corpus().join(file)
        } else {
            context.path(file)
        };
        let (got, want) = (context.read_bytes("out.jsonl"), fs::read(expected).unwrap());
        assert!(
            got == want,
            "{name}: the output is not `{file}` byte for byte"
        );
    }
    if let Some(text) = must_hold {
        let got = context.read("out.jsonl");
        assert!(got.contains(text), "{name}: the big value is written whole");
    }
}

#[test]
fn every_bad_input_gives_its_error_and_loses_no_record() {
    let cases = cases();
    assert!(cases.len() >= 20, "the table is read whole");
    for case in &cases {
        let context = TestContext::new();
        let input = context.path(&case.file);
        let must_hold = if let Some(kind) = &case.generate {
            generate(kind, &input)
        } else {
            fs::copy(corpus().join(&case.file), &input)
                .unwrap_or_else(|e| panic!("{}: {}: {e}", case.name, case.file));
            None
        };
        // A generated input is valid: one run (it is big) shows it converts.
        if case.generate.is_none() {
            check_as_given(case, &context);
        }
        check_skip(case, &context, must_hold.as_deref());
    }
}

#[test]
fn every_corpus_file_is_in_the_table() {
    let named: Vec<String> = cases()
        .into_iter()
        .flat_map(|c| [Some(c.file), c.output])
        .flatten()
        .collect();
    for entry in fs::read_dir(corpus()).unwrap() {
        let file = entry.unwrap().file_name().to_string_lossy().into_owned();
        if file != "cases.toml" {
            assert!(
                named.contains(&file),
                "`{file}` is in no case of cases.toml"
            );
        }
    }
}

#[test]
fn skip_to_stdout_needs_a_rejects_file() {
    let context = TestContext::new();
    let out = context.run([
        "convert",
        "--from",
        "swe-bench",
        "--to",
        "canonical",
        "--on-error",
        "skip",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("hint: add `--rejects PATH`"));
}
