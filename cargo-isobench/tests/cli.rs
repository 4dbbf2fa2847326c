//! The command line, end to end: exit codes, stdout and stderr, through the real binary.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use common::{BIN, TestContext, json_lines, run_with_stdin, stderr, transcript};

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/data/swe-bench-verified.sample.jsonl")
}

/// The real published records, when the shared data folder is beside the repository.
fn real(relative: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/data/real")
        .join(relative);
    common::real_data_present(&path).then_some(path)
}

#[test]
fn help_is_stable() {
    let context = TestContext::new();
    isobench_snapshot!(context, "help", context.command().arg("--help"));
    isobench_snapshot!(
        context,
        "convert_help",
        context.command().args(["convert", "--help"])
    );
}

#[test]
fn runs_as_cargo_subcommand_and_directly() {
    let context = TestContext::new();
    let via_cargo = context.run(["adapters", "--json"]);
    let direct = context.run_direct(["adapters", "--json"]);
    assert_eq!(via_cargo.status.code(), Some(0));
    assert_eq!(via_cargo.stdout, direct.stdout);
}

#[test]
fn the_binary_run_directly_shows_its_own_help_and_version() {
    let context = TestContext::new();
    let direct = |args: &[&str]| context.run_direct(args);
    let via_cargo = context.run(["--help"]);
    for args in [&["--help"][..], &["-h"], &["help"]] {
        let out = direct(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        let help = String::from_utf8_lossy(&out.stdout);
        assert!(
            help.contains("Usage: cargo isobench [OPTIONS] <COMMAND>") && help.contains("convert"),
            "{args:?}: {help}"
        );
        assert!(!help.contains("argv") && !help.contains("Usage: cargo <COMMAND>"));
    }
    assert_eq!(direct(&["--help"]).stdout, via_cargo.stdout);
    for args in [&["--version"][..], &["-V"], &["isobench", "--version"]] {
        let out = direct(args);
        assert_eq!(out.status.code(), Some(0));
        // The version, then the commit of this checkout and its date.
        let head = std::process::Command::new("git")
            .args(["log", "-1", "--format=%h %cs", "--abbrev=12", "HEAD"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap();
        let head = String::from_utf8(head.stdout).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            format!(
                "cargo-isobench {} ({})\n",
                env!("CARGO_PKG_VERSION"),
                head.trim()
            ),
            "{args:?}"
        );
    }
    // No argument at all: the subcommands, as a usage error.
    let out = direct(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Usage: cargo isobench"));
}

#[test]
fn every_builtin_adapter_is_linked_into_the_binary() {
    let context = TestContext::new();
    let out = context.run(["adapters", "--json"]);
    let list: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = list.iter().map(|a| a["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "canonical",
            "gso",
            "harbor",
            "minisandbox",
            "swe-bench",
            "swe-perf",
            "swe-smith"
        ]
    );
    for adapter in &list {
        assert_eq!(adapter["origin"], "built-in");
        assert!(!adapter["description"].as_str().unwrap().is_empty());
    }
}

#[test]
fn adapters_listing() {
    let context = TestContext::new();
    isobench_snapshot!(context, "adapters", context.command().arg("adapters"));
}

#[test]
fn a_successful_conversion_prints_records_and_a_summary() {
    let context = TestContext::new();
    context.copy(sample(), "sample.jsonl");
    let out = context.run([
        "convert",
        "--from",
        "swe-bench",
        "--to",
        "canonical",
        "-i",
        "sample.jsonl",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let records = json_lines(&out.stdout);
    assert_eq!(records.len(), 3);
    assert_eq!(records[0]["instance_id"], "octo-labs__fastsort-412");
    assert_eq!(records[0]["version"], "0.20", "a version stays a string");
    assert_eq!(
        records[0]["extensions"]["fail_to_pass"][0],
        "tests/test_core.py::test_merge_is_stable"
    );
    let _filters = context.insta_settings().bind_to_scope();
    insta::assert_snapshot!("convert_summary", stderr(&out));
}

/// `--from` may be left out: the format is told from the records, as `--from auto` does.
#[test]
fn convert_without_from_tells_the_format_from_the_records() {
    let context = TestContext::new();
    context.copy(sample(), "sample.jsonl");
    let convert = |from: &[&str]| {
        let out = context.run(["convert"].iter().chain(from).chain(&[
            "--to",
            "canonical",
            "-i",
            "sample.jsonl",
        ]));
        assert_eq!(out.status.code(), Some(0), "{from:?}: {}", stderr(&out));
        out.stdout
    };
    let told = convert(&[]);
    assert_eq!(told, convert(&["--from", "swe-bench"]));
    assert_eq!(json_lines(&told).len(), 3);
}

#[test]
fn strict_names_the_missing_fields_and_the_record() {
    let context = TestContext::new();
    context.copy(sample(), "sample.jsonl");
    let out = context.run([
        "convert",
        "--from",
        "swe-bench",
        "--to",
        "canonical",
        "--profile",
        "strict",
        "-i",
        "sample.jsonl",
        "-o",
        "out.jsonl",
    ]);
    isobench_snapshot!(context, "convert_strict_fails", &out);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        !context.path("out.jsonl").exists(),
        "nothing is written when a record fails"
    );
    let leftovers: Vec<_> = fs::read_dir(context.dir())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        leftovers.len(),
        1,
        "no temporary file is left behind: {leftovers:?}"
    );
}

#[test]
fn lossless_omits_what_the_source_lacks_and_counts_it() {
    let context = TestContext::new();
    context.copy(sample(), "sample.jsonl");
    let out = context.run([
        "convert",
        "--from",
        "swe-bench",
        "--to",
        "canonical",
        "-i",
        "sample.jsonl",
        "-o",
        "out.jsonl",
        "--report",
        "report.json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    let report: Value =
        serde_json::from_str(&fs::read_to_string(context.path("report.json")).unwrap()).unwrap();
    for field in [
        "head_commit",
        "efficiency_test",
        "duration_changes",
        "human_performance",
    ] {
        assert_eq!(report["missing"][field]["records"], 3, "{field}");
    }
    assert_eq!(report["read"], 3);
    assert_eq!(report["written"], 3);
    assert_eq!(report["coverage"]["repo"], 3);
    for record in context.read_json_lines("out.jsonl") {
        for field in [
            "head_commit",
            "efficiency_test",
            "duration_changes",
            "human_performance",
        ] {
            assert!(
                record.get(field).is_none(),
                "{field} must be left out, not invented"
            );
        }
    }
}

#[test]
fn real_swe_bench_files_come_back_byte_for_byte_through_canonical() {
    for file in [
        "swebench-verified/swebench_verified_test.jsonl",
        "swebench-verified/swebench_verified_mini_rev_a9e0332_no_difficulty.jsonl",
        "swebench-lite/swebench_lite_test.jsonl",
        "swebench-full/sweagent_fixture_debug_20240322.jsonl",
        "swebench-full/sweagent_fixture_swe-bench-dev-easy.jsonl",
        "swebench-full/sweagent_fixture_swe-bench-lite-test.jsonl",
    ] {
        let Some(input) = real(file) else { return };
        let context = TestContext::new();
        let input = input.to_str().unwrap();
        let there = context.run([
            "convert",
            "--from",
            "swe-bench",
            "--to",
            "canonical",
            "-i",
            input,
            "-o",
            "c.jsonl",
        ]);
        assert_eq!(
            there.status.code(),
            Some(0),
            "{file}: {}",
            transcript(&there)
        );
        let back = context.run([
            "convert",
            "--from",
            "canonical",
            "--to",
            "swe-bench",
            "-i",
            "c.jsonl",
            "-o",
            "back.jsonl",
        ]);
        assert_eq!(back.status.code(), Some(0), "{file}: {}", transcript(&back));
        let original = fs::read(input).unwrap();
        let result = fs::read(context.path("back.jsonl")).unwrap();
        assert!(original == result, "{file} did not come back byte for byte");
    }
}

/// A JSON array output is the JSON Lines output of the same run, its records joined by
/// a comma and a line end: across batches (over a megabyte of records each) converted
/// by two workers, with rejected lines among them; and `[]` when none is written.
#[test]
fn json_array_output_is_the_json_lines_output_joined() {
    let context = TestContext::new();
    let records = json_lines(&fs::read(sample()).unwrap());
    let mut input = String::new();
    for n in 0..2500 {
        let mut record = records[n % records.len()].clone();
        record["instance_id"] = Value::String(format!("o__r-{n}"));
        input.push_str(&serde_json::to_string(&record).unwrap());
        input.push('\n');
        if n % 397 == 0 {
            input.push_str("{\"not\": \"a record\"}\n");
        }
    }
    assert!(input.len() > 3 << 20, "several batches: {}", input.len());
    fs::write(context.path("in.jsonl"), &input).unwrap();
    fs::write(context.path("bad.jsonl"), "{\"not\": \"a record\"}\n").unwrap();
    let convert = |input: &str, output: &str| {
        let out = context.run([
            "convert",
            "--from",
            "swe-bench",
            "--to",
            "canonical",
            "--jobs",
            "2",
            "--on-error",
            "skip",
            "-i",
            input,
            "-o",
            output,
        ]);
        assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
        context.read_bytes(output)
    };
    let lines = convert("in.jsonl", "out.jsonl");
    let array = convert("in.jsonl", "out.json");
    let mut joined = b"[\n".to_vec();
    joined.extend(
        lines
            .strip_suffix(b"\n")
            .unwrap()
            .split(|&b| b == b'\n')
            .collect::<Vec<_>>()
            .join(&b",\n"[..]),
    );
    joined.extend(b"\n]\n");
    assert!(array == joined, "the array is the lines joined");
    assert_eq!(convert("bad.jsonl", "none.json"), b"[]\n");
}

#[test]
fn json_array_in_and_out() {
    let context = TestContext::new();
    context.copy(sample(), "sample.jsonl");
    let out = context.run([
        "convert",
        "--from",
        "swe-bench",
        "--to",
        "swe-bench",
        "-i",
        "sample.jsonl",
        "-o",
        "all.json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    let array: Vec<Value> =
        serde_json::from_str(&fs::read_to_string(context.path("all.json")).unwrap()).unwrap();
    assert_eq!(array, json_lines(&fs::read(sample()).unwrap()));
    let out = context.run([
        "convert",
        "--from",
        "swe-bench",
        "--to",
        "swe-bench",
        "-i",
        "all.json",
        "-o",
        "again.jsonl",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    let again = fs::read(context.path("again.jsonl")).unwrap();
    assert!(
        again == fs::read(sample()).unwrap(),
        "the array's records come back in their own style"
    );
    // stdin holding an array is recognised by its first byte.
    let out = run_with_stdin(
        context
            .command()
            .args(["convert", "--from", "swe-bench", "--to", "swe-bench"]),
        &context.read_bytes("all.json"),
    );
    assert_eq!(json_lines(&out.stdout).len(), 3);
}

#[test]
fn existing_output_is_kept_without_overwrite() {
    let context = TestContext::new();
    context.copy(sample(), "sample.jsonl");
    fs::write(context.path("out.jsonl"), "keep me\n").unwrap();
    let args = [
        "convert",
        "--from",
        "swe-bench",
        "--to",
        "canonical",
        "-i",
        "sample.jsonl",
        "-o",
        "out.jsonl",
    ];
    let out = context.run(args);
    isobench_snapshot!(context, "output_exists", &out);
    assert_eq!(
        fs::read_to_string(context.path("out.jsonl")).unwrap(),
        "keep me\n"
    );
    let out = context.run([&args[..], &["--overwrite"]].concat());
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(context.read_json_lines("out.jsonl").len(), 3);
}

#[test]
fn output_equal_to_an_input_is_refused() {
    let context = TestContext::new();
    context.copy(sample(), "sample.jsonl");
    let out = context.run([
        "convert",
        "--from",
        "swe-bench",
        "--to",
        "swe-bench",
        "-i",
        "sample.jsonl",
        "-o",
        "./sample.jsonl",
        "--overwrite",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is also an input"));
    assert!(
        fs::read(context.path("sample.jsonl")).unwrap() == fs::read(sample()).unwrap(),
        "the input is untouched"
    );
}

#[test]
fn unknown_format_is_a_usage_error_with_a_hint() {
    let context = TestContext::new();
    isobench_snapshot!(
        context,
        "unknown_format",
        run_with_stdin(
            context
                .command()
                .args(["convert", "--from", "swe-bench-9", "--to", "canonical"]),
            b"",
        )
    );
}

#[test]
fn aliases_name_the_same_adapter() {
    let context = TestContext::new();
    context.copy(sample(), "sample.jsonl");
    let out = context.run([
        "convert",
        "--from",
        "verified",
        "--to",
        "ISO-Bench",
        "-i",
        "sample.jsonl",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
}

#[test]
fn validate_reports_file_line_record_and_pointer() {
    let context = TestContext::new();
    let mut text = fs::read_to_string(sample()).unwrap();
    text = text.replacen(
        "\"FAIL_TO_PASS\": \"[",
        "\"FAIL_TO_PASS\": 7, \"x\": \"[",
        1,
    );
    fs::write(context.path("bad.jsonl"), text).unwrap();
    let out = context.run(["validate", "--format", "swe-bench", "bad.jsonl"]);
    isobench_snapshot!(context, "validate_bad", &out);
    let out = run_with_stdin(
        context
            .command()
            .args(["validate", "--format", "canonical", "--profile", "strict", "-"]),
        br#"{"repo": "o/r", "instance_id": "o__r-1", "efficiency_test": ["a", "b"], "duration_changes": [{"base": [1], "head": [2]}]}"#,
    );
    isobench_snapshot!(context, "validate_canonical_strict", out);
}

#[test]
fn validate_warns_of_a_repeated_instance_id_naming_both_places() {
    let context = TestContext::new();
    let text = fs::read_to_string(sample()).unwrap();
    let first = text.lines().next().unwrap();
    // The first record again, in the same file and in a second one: each record is valid
    // on its own, as `convert` writes them (with the same warning).
    fs::write(context.path("a.jsonl"), format!("{text}{first}\n")).unwrap();
    fs::write(context.path("b.jsonl"), format!("{first}\n")).unwrap();
    let out = context.run(["validate", "--format", "swe-bench", "a.jsonl", "b.jsonl"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let id: Value = serde_json::from_str(first).unwrap();
    let id = id["instance_id"].as_str().unwrap();
    let n = text.lines().count() + 1;
    let err = stderr(&out);
    let keeps = "(a harness keys records by instance_id and keeps one of them)";
    assert!(
        err.contains(&format!(
            "warning: a.jsonl:{n}: instance_id {id:?} repeats line 1 {keeps}"
        )) && err.contains(&format!(
            "warning: b.jsonl:1: instance_id {id:?} repeats a.jsonl:1 {keeps}"
        )) && err.contains("2 record(s) repeat an earlier record's instance_id"),
        "{err}"
    );
    let out = context.run(["validate", "--format", "swe-bench", "b.jsonl"]);
    assert!(!stderr(&out).contains("repeat"), "{}", stderr(&out));
}

#[test]
fn schema_prints_the_profiles() {
    let context = TestContext::new();
    let strict = context.run(["schema", "canonical", "--profile", "strict"]);
    let value: Value = serde_json::from_slice(&strict.stdout).unwrap();
    let seed: Value = serde_json::from_str(isobench_core::schema::CANONICAL_V1).unwrap();
    assert_eq!(value, seed);
    let lossless = context.run(["schema", "canonical"]);
    let value: Value = serde_json::from_slice(&lossless.stdout).unwrap();
    assert!(value["properties"]["extensions"].is_object());
    let gso = context.run(["schema", "gso"]);
    let value: Value = serde_json::from_slice(&gso.stdout).unwrap();
    assert_eq!(value["additionalProperties"], false);
}

#[test]
fn ordinary_mistakes_get_errors_that_say_what_to_do() {
    let context = TestContext::new();
    // A missing file: one wording, whichever command meets it.
    for args in [
        &[
            "convert",
            "--from",
            "swe-bench",
            "--to",
            "canonical",
            "-i",
            "absent.jsonl",
        ][..],
        &[
            "convert",
            "--from",
            "auto",
            "--to",
            "canonical",
            "-i",
            "absent.jsonl",
        ],
        &["validate", "--format", "swe-bench", "absent.jsonl"],
    ] {
        let out = context.run(args);
        assert_eq!(out.status.code(), Some(3), "{args:?}");
        assert_eq!(
            stderr(&out),
            "error: cannot read `absent.jsonl`: no such file\n",
            "{args:?}"
        );
    }
    // CSV to `--from auto` is not JSON, rather than "no record".
    fs::write(context.path("table.csv"), "repo,instance_id\no/r,o__r-1\n").unwrap();
    let out = context.run([
        "convert",
        "--from",
        "auto",
        "--to",
        "canonical",
        "-i",
        "table.csv",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("the input is not JSON records: table.csv:1: malformed JSON")
            && stderr(&out).contains("CSV and other formats are not read"),
        "{}",
        stderr(&out)
    );
    // Inputs given without `-i`.
    let out = context.run([
        "convert",
        "--from",
        "swe-bench",
        "--to",
        "canonical",
        "table.csv",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "error: `convert` takes its inputs with `-i`, not as bare arguments (`table.csv`)\nhint: write `-i table.csv`\n"
    );
    // A file type given as a format.
    let out = context.run([
        "convert",
        "--from",
        "swe-bench",
        "--to",
        "parquet",
        "-i",
        "table.csv",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("`parquet` is a file type, not a record format")
            && stderr(&out).contains("`-o out.parquet`"),
        "{}",
        stderr(&out)
    );
    // A plugin's format without the plugin.
    let out = context.run([
        "convert",
        "--from",
        "multi-swe-bench",
        "--to",
        "swe-bench",
        "-i",
        "table.csv",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("`--plugin PATH`")
            && stderr(&out).contains("`cargo isobench plugin build`")
            && stderr(&out).contains("plugins/multi-swe-bench"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn reading_a_terminal_says_so() {
    // A pseudo-terminal as stdin, made with Python's standard library: a line is typed,
    // then Ctrl-D, until the command ends.
    let script = r#"
import os, pty, subprocess, sys
leader, follower = pty.openpty()
child = subprocess.Popen(sys.argv[1:], stdin=follower, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
os.close(follower)
for typed in [b'{"repo": "sympy/sympy"}\n'] + [b"\x04"] * 20:
    os.write(leader, typed)
    try:
        child.wait(timeout=1)
        break
    except subprocess.TimeoutExpired:
        pass
else:
    child.kill()
sys.stderr.write(child.stderr.read().decode())
"#;
    let context = TestContext::new();
    let out = context
        .program("python3")
        .args([
            "-c",
            script,
            BIN,
            "convert",
            "--from",
            "swe-bench",
            "--to",
            "canonical",
        ])
        .output();
    let Ok(out) = out else {
        eprintln!("skipped: python3 is not available to make a pseudo-terminal");
        return;
    };
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with(
            "reading records from stdin, which is a terminal: paste JSON Lines and end with Ctrl-D, or give files with `-i FILE`\n"
        ),
        "{err}"
    );
    // Not a terminal: nothing said.
    let out = run_with_stdin(
        context
            .command()
            .args(["convert", "--from", "swe-bench", "--to", "canonical"]),
        b"",
    );
    assert!(!String::from_utf8_lossy(&out.stderr).contains("terminal"));
}

/// A SWE-bench row of `acme/widgets`, made up for these tests, in SWE-bench's own spacing.
fn widgets_row(n: u32, edit: impl FnOnce(&mut serde_json::Map<String, Value>)) -> String {
    let Value::Object(mut row) = serde_json::json!({
        "repo": "acme/widgets",
        "instance_id": format!("acme__widgets-{n}"),
        "base_commit": format!("{n}").repeat(40),
        "patch": "diff --git a/w.py b/w.py\n--- a/w.py\n+++ b/w.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n",
        "test_patch": "",
        "problem_statement": format!("x is wrong ({n})"),
        "hints_text": "",
        "created_at": "2024-01-02T03:04:05Z",
        "version": "1.0",
        "FAIL_TO_PASS": "[\"tests/test_w.py::test_x\"]",
        "PASS_TO_PASS": "[]",
        "environment_setup_commit": format!("{n}").repeat(40),
    }) else {
        unreachable!("an object literal")
    };
    edit(&mut row);
    isobench_core::codec::JsonStyle::Spaced.to_string(&row)
}

/// The two files a user reads after `--on-error skip`, as they are: the `--report` JSON
/// and the rejects file, each rejected record with its file, line, `instance_id` (when it
/// has one), JSON pointer, reason, hint, and its line verbatim.
#[test]
fn the_report_and_the_rejects_file_of_a_conversion_that_skips_bad_records() {
    let context = TestContext::new();
    let lines = [
        widgets_row(1, |_| {}),
        // A comma missing: not JSON.
        widgets_row(2, |_| {}).replacen(", \"base_commit\"", " \"base_commit\"", 1),
        // A test list that is a number.
        widgets_row(3, |row| {
            row.insert("FAIL_TO_PASS".into(), 7.into());
        }),
        // No `instance_id`.
        widgets_row(4, |row| {
            row.shift_remove("instance_id");
        }),
        // A SWE-smith row: the hint names the format that reads it.
        r#"{"instance_id": "acme__widgets.1a2b3c4d.func_pm_remove_assign__abcd1234", "patch": "diff --git a/w.py b/w.py\n--- a/w.py\n+++ b/w.py\n@@ -1,2 +1,1 @@\n x = 1\n-y = 2\n", "FAIL_TO_PASS": ["tests/test_w.py::test_y"], "PASS_TO_PASS": [], "image_name": "swebench/swesmith.x86_64.acme_1776_widgets.1a2b3c4d", "repo": "swesmith/acme__widgets.1a2b3c4d", "problem_statement": "y is gone"}"#.to_owned(),
        widgets_row(6, |_| {}),
    ];
    context.write("tasks.jsonl", lines.join("\n") + "\n");
    // The output named by its full path: the report gives it as given.
    let output = context.path("canonical.jsonl");
    let out = isobench_snapshot!(
        context,
        "skip_summary",
        context.command().args([
            "convert",
            "--from",
            "swe-bench",
            "--to",
            "canonical",
            "-i",
            "tasks.jsonl",
            "-o",
            output.to_str().unwrap(),
            "--on-error",
            "skip",
            "--rejects",
            "rejects.jsonl",
            "--report",
            "report.json",
        ])
    );
    assert_eq!(out.status.code(), Some(1));
    let _filters = context.insta_settings().bind_to_scope();
    insta::assert_snapshot!("skip_report", context.read("report.json"));
    insta::assert_snapshot!("skip_rejects", context.read("rejects.jsonl"));
    // Records after a bad one are kept; each rejected line is kept as it was read.
    let written: Vec<Value> = context.read_json_lines(&output);
    let ids: Vec<&str> = written
        .iter()
        .map(|r| r["instance_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["acme__widgets-1", "acme__widgets-6"]);
    let rejects = context.read_json_lines("rejects.jsonl");
    let raws: Vec<&str> = rejects.iter().map(|r| r["raw"].as_str().unwrap()).collect();
    assert_eq!(raws, lines[1..5]);
}

/// The harness's filters: what differs from run to run (the scratch and state
/// directories, durations, rates, a process id) never reaches a snapshot.
#[test]
fn snapshots_hide_the_scratch_directory_timings_and_process_ids() {
    let context = TestContext::new();
    let (dir, state) = (context.dir().display(), context.state_dir().display());
    let text = format!(
        "`{dir}/out.jsonl`, `{state}/trust.json`\n\
         3 records, 5.0 MB in 1.2 s (4 MB/s, 2500 records/s); took 350ms\n\
         {dir}/.out.jsonl.isobench-4242.tmp\n"
    );
    let _filters = context.insta_settings().bind_to_scope();
    insta::assert_snapshot!(text, @r"
    `[TEMP]/out.jsonl`, `[STATE]/trust.json`
    3 records, 5.0 MB in [TIME] ([RATE], [RATE]); took [TIME]
    [TEMP]/.out.jsonl.isobench-[PID].tmp
    ");
}
