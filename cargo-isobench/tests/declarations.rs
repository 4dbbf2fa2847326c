//! Declarations that cannot lose data, at the command line: a value of another type than
//! the target declares is reported, never silently left out; a table's `required` keys
//! are checked on export; Python's default JSON comes back byte for byte; SWE-bench's 5.x
//! fields go together; `--set` refuses a value of the wrong shape; remedies are true for
//! every record; transformations are reported; a table extends a built-in format.

mod common;

use std::path::{Path, PathBuf};

use common::{TestContext, plugin, stderr, stdout};
use serde_json::{Value, json};

const EXAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples");

fn sample_row() -> serde_json::Map<String, Value> {
    let text =
        std::fs::read_to_string(Path::new(EXAMPLES).join("data/swe-bench-verified.sample.jsonl"))
            .unwrap();
    serde_json::from_str(text.lines().next().unwrap()).unwrap()
}

fn write_lines(context: &TestContext, name: &str, records: &[Value]) -> PathBuf {
    let mut text = String::new();
    for record in records {
        text.push_str(&record.to_string());
        text.push('\n');
    }
    context.write(name, text)
}

/// A table file declaring `lines` as `kind` (with `extra` TOML in its entry).
fn lines_table(context: &TestContext, kind: &str) -> PathBuf {
    context.write(
        "t.toml",
        format!(
            "name = \"tt\"\ndescription = \"t\"\n\n[[fields]]\nkey = \"id\"\nto = \"instance_id\"\n\n\
             [[fields]]\nkey = \"lines\"\nto = \"extensions.lines\"\ntype = \"{kind}\"\n"
        ),
    )
}

#[test]
fn a_value_the_target_type_cannot_hold_is_reported_dropped_with_its_reason() {
    let context = TestContext::new();
    let table = lines_table(&context, "list");
    let input = write_lines(
        &context,
        "c.jsonl",
        &[json!({"repo": "a/b", "instance_id": "x", "extensions": {"lines": [1, 2]}})],
    );
    let report = context.path("r.json");
    let out = context.run([
        "--adapter",
        table.to_str().unwrap(),
        "convert",
        "--from",
        "canonical",
        "--to",
        "tt",
        "-i",
        input.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "{\"id\":\"x\"}\n");
    let said = context.read_json("r.json");
    assert_eq!(
        said["dropped"]["extensions.lines"]["detail"],
        "it holds an array of numbers, and tt declares `lines` as a list of strings"
    );
    // A list of integers has a type of its own.
    let table = lines_table(&context, "integer-list");
    let out = context.run([
        "--adapter",
        table.to_str().unwrap(),
        "convert",
        "--from",
        "canonical",
        "--to",
        "tt",
        "-i",
        input.to_str().unwrap(),
    ]);
    assert_eq!(stdout(&out), "{\"id\":\"x\",\"lines\":[1,2]}\n");
    // A string given through `--set` to an integer key is refused before anything is
    // read, naming the value given.
    let table = lines_table(&context, "integer");
    let out = context.run([
        "--adapter",
        table.to_str().unwrap(),
        "convert",
        "--from",
        "canonical",
        "--to",
        "tt",
        "-i",
        input.to_str().unwrap(),
        "--set",
        "extensions.lines=foo",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "`--set extensions.lines=foo`: `foo` is not a JSON integer, which `extensions.lines` holds"
        ),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_table_s_required_key_is_checked_on_export() {
    let context = TestContext::new();
    let swee = Path::new(EXAMPLES).join("adapters/swee-bench.toml");
    // A SWE-bench row without its problem statement: SWEE-Bench requires one.
    let mut row = sample_row();
    row.remove("problem_statement");
    let input = write_lines(&context, "sb.jsonl", &[Value::Object(row)]);
    let canonical = context.path("c.jsonl");
    let out = context.run([
        "convert",
        "--from",
        "swe-bench",
        "--to",
        "canonical",
        "-i",
        input.to_str().unwrap(),
        "-o",
        canonical.to_str().unwrap(),
    ]);
    // SWE-bench's own import requires it too: go through canonical by hand.
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let mut record = sample_row();
    record.remove("problem_statement");
    let mut c = json!({
        "repo": record["repo"], "instance_id": record["instance_id"],
        "base_commit": record["base_commit"], "patch": record["patch"],
        "test_patch": record["test_patch"],
        "extensions": {"fail_to_pass": ["t::a"], "pass_to_pass": []},
    });
    c["version"] = record["version"].clone();
    let input = write_lines(&context, "c.jsonl", &[c]);
    let output = context.path("swee.jsonl");
    let out = context.run([
        "--adapter",
        swee.to_str().unwrap(),
        "convert",
        "--from",
        "canonical",
        "--to",
        "swee-bench",
        "-i",
        input.to_str().unwrap(),
        "-o",
        output.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("it needs `problem_statement`"),
        "{}",
        stderr(&out)
    );
    assert!(!output.exists());
    // And `validate` says the same of a row without it.
    let mut row = sample_row();
    row.remove("problem_statement");
    let file = write_lines(&context, "swee-row.jsonl", &[Value::Object(row)]);
    let out = context.run([
        "--adapter",
        swee.to_str().unwrap(),
        "validate",
        "--format",
        "swee-bench",
        "-i",
        file.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
}

#[test]
fn python_default_json_comes_back_byte_for_byte() {
    let Some(real) = isobench_tests::real_data() else {
        return;
    };
    let verified = real.join("swebench-verified/swebench_verified_test.jsonl");
    let context = TestContext::new();
    let dumped = context.path("py.jsonl");
    // Python's `json.dumps` with its defaults (`ensure_ascii=True`, `", "`/`": "`).
    let python = std::process::Command::new("python3")
        .args([
            "-c",
            "import json,sys\nwith open(sys.argv[1]) as f, open(sys.argv[2], 'w') as o:\n    for line in f:\n        o.write(json.dumps(json.loads(line)) + '\\n')\n",
            verified.to_str().unwrap(),
            dumped.to_str().unwrap(),
        ])
        .status();
    if !python.is_ok_and(|s| s.success()) {
        eprintln!("skipped: no python3 to re-dump the records with");
        return;
    }
    let original = std::fs::read(&dumped).unwrap();
    assert!(
        original.windows(2).any(|w| w == b"\\u"),
        "the re-dumped records escape characters beyond ASCII"
    );
    let canonical = context.path("c.jsonl");
    let back = context.path("back.jsonl");
    for (from, to, input, output) in [
        ("swe-bench", "canonical", &dumped, &canonical),
        ("canonical", "swe-bench", &canonical, &back),
    ] {
        let out = context.run([
            "convert",
            "--from",
            from,
            "--to",
            to,
            "-i",
            input.to_str().unwrap(),
            "-o",
            output.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    let back = std::fs::read(&back).unwrap();
    let differ = original
        .split(|&b| b == b'\n')
        .zip(back.split(|&b| b == b'\n'))
        .filter(|(a, b)| a != b)
        .count();
    assert_eq!(differ, 0, "lines that differ after canonical and back");
    assert_eq!(back, original);
}

#[test]
fn swe_bench_5x_fields_go_together() {
    let context = TestContext::new();
    // A repository the 4.x harness has no specs for, with only part of the 5.x group.
    let mut row = sample_row();
    row.insert("repo".into(), "octo/unknown".into());
    row.insert("eval_script".into(), "#!/bin/bash\npytest".into());
    let input = write_lines(&context, "partial.jsonl", &[Value::Object(row.clone())]);
    let output = context.path("out.jsonl");
    let out = context.run([
        "convert",
        "--from",
        "swe-bench",
        "--to",
        "swe-bench",
        "-i",
        input.to_str().unwrap(),
        "-o",
        output.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(said.contains("`repo` (one it knows"), "{said}");
    assert!(
        said.contains("all four of `image`, `eval_script`, `log_parser` and `eval_type`"),
        "{said}"
    );
    let out = context.run([
        "validate",
        "--format",
        "swe-bench",
        "-i",
        input.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    // With the whole group the row carries its own environment.
    for (key, value) in [
        ("image", "swebench/x:latest"),
        ("log_parser", "parse_log_pytest"),
        ("eval_type", "pass_and_fail"),
        (
            "eval_script",
            "#!/bin/bash\necho '>>>>> Start Test Output'\npytest\necho '>>>>> End Test Output'",
        ),
    ] {
        row.insert(key.into(), value.into());
    }
    let input = write_lines(&context, "whole.jsonl", &[Value::Object(row)]);
    let out = context.run([
        "validate",
        "--format",
        "swe-bench",
        "-i",
        input.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}

#[test]
fn a_set_value_of_the_wrong_shape_is_a_usage_error() {
    let context = TestContext::new();
    let input = write_lines(&context, "sb.jsonl", &[Value::Object(sample_row())]);
    let out = context.run([
        "convert",
        "--from",
        "swe-bench",
        "--to",
        "swe-smith",
        "-i",
        input.to_str().unwrap(),
        "--set",
        "extensions.fail_to_pass=foo",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(
        said.contains("`--set extensions.fail_to_pass=foo`: `foo` is not a JSON list of strings"),
        "{said}"
    );
    assert!(!said.contains("it needs"), "{said}");
    for (set, wanted) in [
        ("efficiency_test=t.py", "a JSON list of strings"),
        ("human_performance=fast", "a JSON number"),
        ("repo=[1]", "a string"),
    ] {
        let out = context.run([
            "convert",
            "--from",
            "swe-bench",
            "--to",
            "canonical",
            "-i",
            input.to_str().unwrap(),
            "--set",
            set,
        ]);
        assert_eq!(out.status.code(), Some(2), "{set}: {}", stderr(&out));
        assert!(stderr(&out).contains(wanted), "{set}: {}", stderr(&out));
    }
}

#[test]
fn remedies_say_which_records_they_are_true_for() {
    let context = TestContext::new();
    let mut row = sample_row();
    row.insert("repo".into(), "octo/unknown".into());
    let input = write_lines(&context, "sb.jsonl", &[Value::Object(row)]);
    let mut hints = String::new();
    for (from, to, file) in [
        ("swe-bench", "swe-bench", input.clone()),
        ("swe-bench", "swe-perf", input.clone()),
        (
            "swe-perf",
            "swe-bench",
            Path::new(EXAMPLES).join("data/swe-perf.sample.jsonl"),
        ),
    ] {
        let out = context.run([
            "convert",
            "--from",
            from,
            "--to",
            to,
            "-i",
            file.to_str().unwrap(),
        ]);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{from} -> {to}: {}",
            stderr(&out)
        );
        hints.push_str(&stderr(&out));
    }
    // What is computed from measurements, and a value the harness cannot know here, is
    // never offered to `--set`.
    for corrupting in [
        "--set repo=",
        "--set duration_changes=",
        "--set human_performance=",
        "--set version=",
    ] {
        assert!(
            !hints.contains(corrupting),
            "offers `{corrupting}`:\n{hints}"
        );
    }
    // A fact of each record is offered to `--set` only for records that share it.
    for fact in [
        "--set extensions.fail_to_pass=",
        "--set patch_functions=",
        "--set efficiency_test=",
    ] {
        for offer in hints.split(fact).skip(1) {
            assert!(
                offer.starts_with("VALUE` where the records lacking it share one value"),
                "offers `{fact}` for every record:\n{hints}"
            );
        }
    }
    assert!(hints.contains("--timings DIR"), "{hints}");
}

#[test]
fn a_reversed_patch_and_a_mirror_repo_are_reported() {
    let context = TestContext::new();
    let input = write_lines(&context, "sb.jsonl", &[Value::Object(sample_row())]);
    let report = context.path("r.json");
    let out = context.run([
        "convert",
        "--from",
        "swe-bench",
        "--to",
        "minisandbox",
        "-i",
        input.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let said = context.read_json("r.json");
    assert!(
        said["derived"]["patch"]["detail"]
            .as_str()
            .is_some_and(|d| d.starts_with("written reversed")),
        "{said}"
    );
    // A SWE-smith mirror written as `repo`.
    let c = json!({
        "repo": "octo/lib", "instance_id": "octo__lib.1a2b3c4d.func_pm__x", "patch": "",
        "extensions": {"mirror_repo": "swesmith/octo__lib.1a2b3c4d", "fail_to_pass": ["t"], "pass_to_pass": [],
                        "image_name": "img"},
    });
    let input = write_lines(&context, "c.jsonl", &[c]);
    let out = context.run([
        "convert",
        "--from",
        "canonical",
        "--to",
        "swe-smith",
        "-i",
        input.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
        "--allow-incomplete",
        // The report of the run above is replaced.
        "--overwrite",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = context.read_json("r.json");
    assert!(
        report["derived"]["repo"]["detail"]
            .as_str()
            .is_some_and(|d| d.contains("mirror")),
        "{report}"
    );
}

#[test]
fn a_byte_identical_multi_swe_bench_round_trip_reports_nothing_dropped() {
    let Some(real) = isobench_tests::real_data() else {
        return;
    };
    let Some(file) = std::fs::read_dir(real.join("multi-swe-bench"))
        .ok()
        .and_then(|dir| {
            dir.filter_map(Result::ok)
                .map(|e| e.path())
                .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
        })
    else {
        eprintln!("skipped: no Multi-SWE-bench records");
        return;
    };
    let context = TestContext::new().with_args([
        "--plugin",
        plugin("isobench_multi_swe_bench").to_str().unwrap(),
    ]);
    let canonical = context.path("c.jsonl");
    let back = context.path("back.jsonl");
    let report = context.path("r.json");
    for (from, to, input, output) in [
        ("multi-swe-bench", "canonical", &file, &canonical),
        ("canonical", "multi-swe-bench", &canonical, &back),
    ] {
        let out = context.run([
            "convert",
            "--from",
            from,
            "--to",
            to,
            "-i",
            input.to_str().unwrap(),
            "-o",
            output.to_str().unwrap(),
            "--report",
            report.to_str().unwrap(),
            // Each run's report replaces the last: the way back's is the one read.
            "--overwrite",
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    assert_eq!(std::fs::read(&back).unwrap(), std::fs::read(&file).unwrap());
    let report = context.read_json("r.json");
    assert_eq!(report["dropped"], json!({}), "{report}");
}

#[test]
fn a_table_extends_a_built_in_format() {
    let context = TestContext::new();
    let table = context.write(
        "plus.toml",
        "name = \"swe-bench-plus\"\nextends = \"swe-bench\"\ndescription = \"SWE-bench rows with two more columns\"\n\n\
         [[fields]]\nkey = \"lines\"\nto = \"extensions.lines\"\ntype = \"integer-list\"\n\n\
         [[fields]]\nkey = \"difficulty\"\nto = \"extensions.difficulty\"\nrequired = true\n",
    );
    let mut row = sample_row();
    row.insert("lines".into(), json!([3, 14]));
    row.entry("difficulty").or_insert(json!("<15 min fix"));
    let input = write_lines(&context, "plus.jsonl", &[Value::Object(row.clone())]);
    let output = context.path("back.jsonl");
    let out = context.run([
        "--adapter",
        table.to_str().unwrap(),
        "convert",
        "--from",
        "swe-bench-plus",
        "--to",
        "swe-bench-plus",
        "-i",
        input.to_str().unwrap(),
        "-o",
        output.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        std::fs::read(&output).unwrap(),
        std::fs::read(&input).unwrap()
    );
    // Its SWE-bench hooks run (`version` is still a release the harness looks up) and its
    // own `required` key is checked on export.
    let c = context.path("c.jsonl");
    let out = context.run([
        "--adapter",
        table.to_str().unwrap(),
        "convert",
        "--from",
        "swe-bench-plus",
        "--to",
        "canonical",
        "-i",
        input.to_str().unwrap(),
        "-o",
        c.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let from_swe_bench = write_lines(&context, "sb.jsonl", &[Value::Object(sample_row())]);
    let out = context.run([
        "--adapter",
        table.to_str().unwrap(),
        "convert",
        "--from",
        "swe-bench",
        "--to",
        "swe-bench-plus",
        "-i",
        from_swe_bench.to_str().unwrap(),
    ]);
    let said = stderr(&out);
    if sample_row().contains_key("difficulty") {
        assert_eq!(out.status.code(), Some(0), "{said}");
    } else {
        assert_eq!(out.status.code(), Some(1), "{said}");
        assert!(said.contains("`difficulty`"), "{said}");
    }
    // A key the hooks read cannot be redeclared.
    let bad = context.write(
        "bad.toml",
        "name = \"bad\"\nextends = \"swe-bench\"\n\n[[fields]]\nkey = \"version\"\nto = \"version\"\n",
    );
    let out = context.run(["--adapter", bad.to_str().unwrap(), "adapters"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("`swe-bench` reads and writes this key in code"),
        "{}",
        stderr(&out)
    );
}
