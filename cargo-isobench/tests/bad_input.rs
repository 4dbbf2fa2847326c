//! Bad input: each case gives a precise error (file, line, record, field) with
//! `--on-error fail`, and with `--on-error skip` the output plus the rejects file
//! account for every record read.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_cargo-isobench");

fn sample_lines() -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/data/swe-bench-verified.sample.jsonl");
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// A SWE-smith row (7 current fields), written for this test.
const SWE_SMITH_ROW: &str = r#"{"instance_id": "octo__lib.1a2b3c4d.func_pm_remove_assign__abcd1234", "patch": "diff --git a/lib/a.py b/lib/a.py\n--- a/lib/a.py\n+++ b/lib/a.py\n@@ -1,2 +1,1 @@\n x = 1\n-y = 2\n", "FAIL_TO_PASS": ["tests/test_a.py::test_y"], "PASS_TO_PASS": [], "image_name": "swebench/swesmith.x86_64.octo_1776_lib.1a2b3c4d", "repo": "swesmith/octo__lib.1a2b3c4d", "problem_statement": "y is gone"}"#;

struct Case {
    name: &'static str,
    file: &'static str,
    content: Vec<u8>,
    /// Records the file holds (what `read` must count).
    records: u64,
    /// Text the error must contain with `--on-error fail`.
    error: &'static str,
    /// Text the hint must contain, if any.
    hint: Option<&'static str>,
}

fn cases() -> Vec<Case> {
    let lines = sample_lines();
    let join = |ls: &[String]| {
        let mut text = ls.join("\n");
        text.push('\n');
        text.into_bytes()
    };
    let mut malformed = lines.clone();
    malformed[1] = malformed[1].replacen("\"repo\": ", "\"repo\" ", 1);
    let mut truncated = join(&lines);
    truncated.truncate(truncated.len() - 200);
    let mut wrong_type = lines.clone();
    wrong_type[2] = {
        let mut v: serde_json::Map<String, Value> = serde_json::from_str(&lines[2]).unwrap();
        v["FAIL_TO_PASS"] = Value::from(3);
        serde_json::to_string(&v).unwrap()
    };
    let mut missing = lines.clone();
    missing[0] = {
        let mut v: serde_json::Map<String, Value> = serde_json::from_str(&lines[0]).unwrap();
        v.shift_remove("base_commit");
        serde_json::to_string(&v).unwrap()
    };
    let mut bad_utf8 = join(&lines[..1]);
    let mut second = lines[1].clone().into_bytes();
    let at = second.windows(5).position(|w| w == b"merge").unwrap_or(40);
    second[at] = 0xFF;
    bad_utf8.extend(second);
    bad_utf8.push(b'\n');
    bad_utf8.extend(join(&lines[2..]));
    let trailing_comma = format!("[{},\n{},\n]", lines[0], lines[1]).into_bytes();
    let mut other_format = lines.clone();
    SWE_SMITH_ROW.clone_into(&mut other_format[1]);
    vec![
        Case {
            name: "malformed",
            file: "in.jsonl",
            content: join(&malformed),
            records: 3,
            error: "in.jsonl:2: malformed JSON: expected `:`",
            hint: None,
        },
        Case {
            name: "truncated",
            file: "in.jsonl",
            content: truncated,
            records: 3,
            error: "in.jsonl:3: malformed JSON: the last line ends in the middle of a record",
            hint: Some("truncated"),
        },
        Case {
            name: "wrong-type",
            file: "in.jsonl",
            content: join(&wrong_type),
            records: 3,
            error: "in.jsonl:3: record `octo-labs__dateparse-1207`: `/FAIL_TO_PASS`: expected an array of strings (or a string holding one), found a number",
            hint: None,
        },
        Case {
            name: "missing-field",
            file: "in.jsonl",
            content: join(&missing),
            records: 3,
            error: "in.jsonl:1: record `octo-labs__fastsort-412`: `/base_commit`: required field `base_commit` is missing",
            hint: None,
        },
        Case {
            name: "invalid-utf8",
            file: "in.jsonl",
            content: bad_utf8,
            records: 3,
            error: "in.jsonl:2: invalid UTF-8 at byte",
            hint: Some("UTF-8"),
        },
        Case {
            name: "empty",
            file: "in.jsonl",
            content: Vec::new(),
            records: 0,
            error: "no records in in.jsonl",
            hint: None,
        },
        Case {
            name: "trailing-comma",
            file: "in.json",
            content: trailing_comma,
            records: 2,
            error: "malformed JSON array: trailing comma at line 3 column 1",
            hint: None,
        },
        Case {
            name: "other-format",
            file: "in.jsonl",
            content: join(&other_format),
            records: 3,
            error: "in.jsonl:2: record `octo__lib.1a2b3c4d.func_pm_remove_assign__abcd1234`: `/base_commit`: required field `base_commit` is missing",
            hint: Some("`--from swe-smith`"),
        },
    ]
}

fn convert(dir: &Path, file: &str, extra: &[&str]) -> Output {
    Command::new(BIN)
        .args([
            "isobench",
            "convert",
            "--from",
            "swe-bench",
            "--to",
            "canonical",
            "-i",
            file,
            "-o",
            "out.jsonl",
        ])
        .args(extra)
        .current_dir(dir)
        .output()
        .unwrap()
}

#[test]
fn each_bad_input_fails_with_a_precise_error_and_writes_nothing() {
    for case in cases() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(case.file), &case.content).unwrap();
        let out = convert(dir.path(), case.file, &[]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{}: {stderr}", case.name);
        assert!(
            stderr.contains(case.error),
            "{}: expected `{}` in:\n{stderr}",
            case.name,
            case.error
        );
        if let Some(hint) = case.hint {
            let hint_line = stderr
                .lines()
                .find(|l| l.starts_with("hint: "))
                .unwrap_or_default();
            assert!(
                hint_line.contains(hint),
                "{}: expected hint `{hint}` in:\n{stderr}",
                case.name
            );
        }
        assert!(
            !dir.path().join("out.jsonl").exists(),
            "{}: a failed run leaves no output",
            case.name
        );
    }
}

#[test]
fn with_skip_every_record_is_written_or_rejected_with_its_reason() {
    for case in cases() {
        if case.records == 0 || case.name == "trailing-comma" {
            continue; // nothing to account for / the array itself is broken (the run stops)
        }
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(case.file), &case.content).unwrap();
        let out = convert(
            dir.path(),
            case.file,
            &["--on-error", "skip", "--report", "report.json"],
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{}: {stderr}", case.name);
        let written = fs::read_to_string(dir.path().join("out.jsonl"))
            .unwrap()
            .lines()
            .count() as u64;
        let rejects: Vec<Value> = fs::read_to_string(dir.path().join("out.jsonl.rejects.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(
            written + rejects.len() as u64,
            case.records,
            "{}: read = written + rejected",
            case.name
        );
        assert_eq!(rejects.len(), 1, "{}", case.name);
        let reject = &rejects[0];
        assert!(
            reject["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{}",
            case.name
        );
        assert!(reject["line"].as_u64().is_some(), "{}", case.name);
        // The rejected record is kept verbatim: its raw text (or hex bytes) is in the input.
        let input = fs::read(dir.path().join(case.file)).unwrap();
        if let Some(raw) = reject["raw"].as_str() {
            assert!(
                input.windows(raw.len()).any(|w| w == raw.as_bytes()),
                "{}: raw text not verbatim",
                case.name
            );
        } else {
            let hex = reject["raw_hex"].as_str().expect("raw or raw_hex");
            let bytes: Vec<u8> = (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                .collect();
            assert!(
                input.windows(bytes.len()).any(|w| w == bytes),
                "{}: raw bytes not verbatim",
                case.name
            );
        }
        assert!(
            stderr.contains(&format!(
                "read = written + rejected: {} = {} + 1",
                case.records,
                case.records - 1
            )),
            "{}: {stderr}",
            case.name
        );
        let report: Value =
            serde_json::from_str(&fs::read_to_string(dir.path().join("report.json")).unwrap())
                .unwrap();
        assert_eq!(report["read"], case.records);
        assert_eq!(report["rejected"], 1);
        assert_eq!(report["rejections"][0]["line"], reject["line"]);
    }
}

#[test]
fn skip_to_stdout_needs_a_rejects_file() {
    let out = Command::new(BIN)
        .args([
            "isobench",
            "convert",
            "--from",
            "swe-bench",
            "--to",
            "canonical",
            "--on-error",
            "skip",
        ])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("hint: add `--rejects PATH`"));
}
