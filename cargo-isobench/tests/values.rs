//! A value is never changed unless the user asked: `--set` fills only where a record has
//! no value and `--replace` keeps and counts what it replaces.

mod common;

use common::{TestContext, stderr};
use serde_json::{Value, json};

/// A SWE-bench row with `environment_setup_commit` when `setup` is given.
fn swe_bench_row(id: &str, setup: Option<&str>) -> Value {
    let mut row = json!({
        "repo": "astropy/astropy",
        "instance_id": id,
        "base_commit": "abc",
        "patch": "diff --git a/x b/x\n",
        "test_patch": "",
        "problem_statement": "p",
        "hints_text": "",
        "created_at": "2020-01-01T00:00:00Z",
        "version": "4.3",
        "FAIL_TO_PASS": "[\"t\"]",
        "PASS_TO_PASS": "[]",
    });
    if let Some(setup) = setup {
        row["environment_setup_commit"] = json!(setup);
    }
    row
}

fn lines(records: &[Value]) -> String {
    let mut text = String::new();
    for record in records {
        text.push_str(&record.to_string());
        text.push('\n');
    }
    text
}

/// Runs `convert ARGS --report r.json` and gives the report.
fn convert(context: &TestContext, args: &[&str]) -> Value {
    let report = context.path("r.json");
    let out = context.run(
        [
            "convert",
            "--overwrite",
            "--report",
            report.to_str().unwrap(),
        ]
        .iter()
        .chain(args),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    context.read_json("r.json")
}

#[test]
fn set_fills_only_the_records_without_a_value_and_a_round_trip_keeps_the_others() {
    let context = TestContext::new();
    let rows = [
        swe_bench_row("a-1", Some("realvalue")),
        swe_bench_row("a-2", None),
    ];
    context.write("in.jsonl", lines(&rows));
    let set = "extensions.environment_setup_commit=given";
    let report = convert(
        &context,
        &[
            "--from",
            "swe-bench",
            "--to",
            "canonical",
            "-i",
            "in.jsonl",
            "-o",
            "c.jsonl",
            "--set",
            set,
        ],
    );
    let written = context.read_json_lines("c.jsonl");
    let setup = |r: &Value| r["extensions"]["environment_setup_commit"].clone();
    assert_eq!(setup(&written[0]), "realvalue");
    assert_eq!(setup(&written[1]), "given");
    assert_eq!(
        report["defaulted"]["extensions.environment_setup_commit"]["records"],
        1
    );
    assert_eq!(report["replaced"], json!({}));
    // Back to SWE-bench: the record's own value, not the one given.
    convert(
        &context,
        &[
            "--from",
            "canonical",
            "--to",
            "swe-bench",
            "-i",
            "c.jsonl",
            "-o",
            "back.jsonl",
        ],
    );
    let back = context.read_json_lines("back.jsonl");
    assert_eq!(back[0]["environment_setup_commit"], "realvalue");
    assert_eq!(back[1]["environment_setup_commit"], "given");
}

#[test]
fn replace_writes_over_every_value_counts_it_and_keeps_the_old_one() {
    let context = TestContext::new();
    let rows = [
        swe_bench_row("a-1", Some("realvalue")),
        swe_bench_row("a-2", None),
        swe_bench_row("a-3", Some("given")),
    ];
    context.write("in.jsonl", lines(&rows));
    let report = convert(
        &context,
        &[
            "--from",
            "swe-bench",
            "--to",
            "canonical",
            "-i",
            "in.jsonl",
            "-o",
            "c.jsonl",
            "--replace",
            "extensions.environment_setup_commit=given",
        ],
    );
    let written = context.read_json_lines("c.jsonl");
    for record in &written {
        assert_eq!(record["extensions"]["environment_setup_commit"], "given");
    }
    let replaced = |r: &Value| r["extensions"]["source"]["replaced"].clone();
    assert_eq!(
        replaced(&written[0]),
        json!({"extensions.environment_setup_commit": "realvalue"})
    );
    // Filled, or already the value given: nothing replaced.
    assert_eq!(replaced(&written[1]), Value::Null);
    assert_eq!(replaced(&written[2]), Value::Null);
    let field = "extensions.environment_setup_commit";
    assert_eq!(report["replaced"][field]["records"], 1);
    assert_eq!(report["defaulted"][field]["records"], 1);
    assert_eq!(
        report["replaced"][field]["detail"],
        "replaced with `--replace`"
    );
}

#[test]
fn a_field_given_twice_is_refused() {
    let context = TestContext::new();
    context.write("in.jsonl", lines(&[swe_bench_row("a-1", None)]));
    let out = context.run([
        "convert",
        "--from",
        "swe-bench",
        "--to",
        "canonical",
        "-i",
        "in.jsonl",
        "--set",
        "version=1",
        "--replace",
        "version=2",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("`version` is given twice, with `--set` and `--replace`"),
        "{}",
        stderr(&out)
    );
}

/// `--set extensions.KEY` where `KEY` is the target's name for another field would
/// carry the value nowhere the target reads: refused before anything is read, naming the
/// field to set, which then works.
#[test]
fn a_value_set_under_the_target_s_key_names_the_field_that_fills_it() {
    let context = TestContext::new();
    context.write("in.jsonl", lines(&[swe_bench_row("a-1", None)]));
    for (to, set, field) in [
        ("gso", "extensions.tests=[\"t.py\"]", "efficiency_test"),
        ("gso", "extensions.opt_commit=abc", "head_commit"),
        ("swe-bench", "extensions.image=img", "extensions.image_name"),
        (
            "swe-smith",
            "extensions.repo=swesmith/o__r.01234567",
            "extensions.mirror_repo",
        ),
    ] {
        let out = context.run([
            "convert",
            "--from",
            "swe-bench",
            "--to",
            to,
            "-i",
            "in.jsonl",
            "--set",
            set,
        ]);
        assert_eq!(out.status.code(), Some(2), "{set}: {}", stderr(&out));
        let said = stderr(&out);
        assert!(
            said.contains(&format!("is written from `{field}`"))
                && said.contains(&format!("hint: `--set {field}=VALUE`")),
            "{set}: {said}"
        );
    }
    // The target's own field name for it is taken, and lands in the key.
    let report = convert(
        &context,
        &[
            "--from",
            "swe-bench",
            "--to",
            "swe-bench",
            "-i",
            "in.jsonl",
            "-o",
            "out.jsonl",
            "--set",
            "extensions.environment_setup_commit=abc",
        ],
    );
    assert_eq!(report["written"], 1, "{report}");
    let written: Value = serde_json::from_str(&context.read("out.jsonl")).unwrap();
    assert_eq!(written["environment_setup_commit"], "abc");
}

#[test]
fn the_rejects_file_keeps_a_malformed_line_as_it_was() {
    let context = TestContext::new();
    let good = lines(&[swe_bench_row("a-1", None)]);
    let bad = ["{\"repo\": \"a/b\",  \t ", "not json  ", "{\"x\": 1}} "];
    let mut input = String::new();
    for (k, line) in bad.iter().enumerate() {
        input.push_str(line);
        input.push_str(if k == 1 { "\r\n" } else { "\n" });
        input.push_str(&good);
    }
    // The last line has no line break.
    input.push_str("{\"a\":   ");
    context.write("in.jsonl", input);
    let out = context.run([
        "convert",
        "--from",
        "swe-bench",
        "--to",
        "canonical",
        "-i",
        "in.jsonl",
        "-o",
        "c.jsonl",
        "--on-error",
        "skip",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let rejects = context.read_json_lines("c.jsonl.rejects.jsonl");
    let raws: Vec<&str> = rejects
        .iter()
        .map(|r| r["raw"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(raws, [bad[0], bad[1], bad[2], "{\"a\":   "]);
}

#[test]
fn swe_bench_5x_values_are_those_swebench_5_accepts() {
    let context = TestContext::new();
    let script =
        "#!/bin/bash\necho '>>>>> Start Test Output'\npytest\necho '>>>>> End Test Output'\n";
    let row = |eval_type: &str, log_parser: &str, script: &str| {
        let mut row = swe_bench_row("a-1", Some("abc"));
        row["repo"] = json!("octo/unknown");
        row["image"] = json!("swebench/x:latest");
        row["eval_type"] = json!(eval_type);
        row["log_parser"] = json!(log_parser);
        row["eval_script"] = json!(script);
        row
    };
    for (name, record, said, hint) in [
        (
            "eval_type",
            row("pytest", "parse_log_pytest", script),
            "`/eval_type`: `eval_type` `pytest` is not one SWE-bench 5.x knows",
            "swebench 5 takes `pass_and_fail`, `fail_only`",
        ),
        (
            "log_parser",
            row("pass_and_fail", "pytest", script),
            "`/log_parser`: `log_parser` `pytest` is not a parser SWE-bench 5.x has",
            "`parse_log_pytest`",
        ),
        (
            "eval_script",
            row("pass_and_fail", "parse_log_pytest", "#!/bin/bash\npytest\n"),
            "never prints `>>>>> Start Test Output` or `>>>>> End Test Output`",
            "an `eval_script` echoes `>>>>> Start Test Output`",
        ),
    ] {
        context.write(format!("{name}.jsonl"), lines(&[record]));
        for from in ["swe-bench", "canonical"] {
            let input = if from == "canonical" {
                // The same row, through canonical.
                convert(
                    &context,
                    &[
                        "--from",
                        "swe-bench",
                        "--to",
                        "canonical",
                        "-i",
                        &format!("{name}.jsonl"),
                        "-o",
                        "c.jsonl",
                    ],
                );
                "c.jsonl".to_owned()
            } else {
                format!("{name}.jsonl")
            };
            let out = context.run([
                "convert",
                "--from",
                from,
                "--to",
                "swe-bench",
                "-i",
                &input,
                "--allow-incomplete",
            ]);
            assert_eq!(
                out.status.code(),
                Some(1),
                "{name} from {from}: {}",
                stderr(&out)
            );
            let err = stderr(&out);
            assert!(
                err.contains(said) && err.contains(hint),
                "{name} from {from}: {err}"
            );
        }
    }
    context.write(
        "good.jsonl",
        lines(&[row("fail_only", "parse_log_jest", script)]),
    );
    let out = context.run([
        "convert",
        "--from",
        "swe-bench",
        "--to",
        "swe-bench",
        "-i",
        "good.jsonl",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn validate_tells_the_format_with_auto_as_convert_does() {
    let context = TestContext::new();
    context.write("in.jsonl", lines(&[swe_bench_row("a-1", Some("abc"))]));
    let out = context.run(["validate", "--format", "auto", "-i", "in.jsonl"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut bad = swe_bench_row("a-1", Some("abc"));
    bad["FAIL_TO_PASS"] = json!(3);
    context.write("bad.jsonl", lines(&[bad]));
    let out = context.run(["validate", "--format", "auto", "-i", "bad.jsonl"]);
    assert_ne!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = context.run(["validate", "--format", "auto", "-i", "-"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("`--from auto` cannot read stdin"),
        "{}",
        stderr(&out)
    );
}

/// A JSON number's text, of every kind: integers beyond 64 bits, many decimals, trailing
/// zeros, exponents (written `e` with a sign, the one spelling numbers are written in),
/// negative zero.
fn number_text() -> impl proptest::strategy::Strategy<Value = String> {
    proptest::string::string_regex("-?(0|[1-9][0-9]{0,40})(\\.[0-9]{1,25})?(e[+-][0-9]{1,3})?")
        .expect("a valid pattern")
}

/// A value holding numbers: one, a list of them, or an object of them.
fn value_with_numbers() -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    let number = || number_text().prop_map(|text| Value::Number(text.parse().expect("JSON")));
    prop_oneof![
        number(),
        proptest::collection::vec(number(), 0..5).prop_map(Value::Array),
        proptest::collection::vec(("[a-z]{1,6}", number()), 0..4)
            .prop_map(|entries| Value::Object(entries.into_iter().collect())),
    ]
}

/// `value` as JSON text, with `, `/`: ` separators when `spaced` and every character
/// beyond ASCII escaped when `ascii`: the four styles mainstream writers use.
fn styled(value: &Value, spaced: bool, ascii: bool, out: &mut String) {
    use std::fmt::Write as _;
    let (comma, colon) = if spaced { (", ", ": ") } else { (",", ":") };
    let string = |s: &str, out: &mut String| {
        let text = serde_json::to_string(s).expect("a string");
        if ascii {
            for unit in text.chars() {
                if unit.is_ascii() {
                    out.push(unit);
                } else {
                    let mut units = [0u16; 2];
                    for u in unit.encode_utf16(&mut units) {
                        let _ = write!(out, "\\u{u:04x}");
                    }
                }
            }
        } else {
            out.push_str(&text);
        }
    };
    match value {
        Value::String(s) => string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(comma);
                }
                styled(item, spaced, ascii, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(comma);
                }
                string(key, out);
                out.push_str(colon);
                styled(item, spaced, ascii, out);
            }
            out.push('}');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

    /// Records whose extra fields hold numbers of every kind, in every JSON style,
    /// convert SWE-bench -> SWE-bench, SWE-bench -> canonical -> SWE-bench and through
    /// Parquet back to the same bytes, with nothing reported changed or lost.
    #[test]
    fn numbers_pass_through_every_conversion_as_they_were_written(
        extras in proptest::collection::vec(
            proptest::collection::vec(value_with_numbers(), 1..4), 1..4),
        spaced in proptest::bool::ANY,
        ascii in proptest::bool::ANY,
    ) {
        let context = TestContext::new();
        let mut text = String::new();
        for (i, values) in extras.iter().enumerate() {
            let mut row = swe_bench_row(&format!("numbers-{i}"), Some("abc"));
            row["problem_statement"] = json!("Ünïcode ✓ 😀");
            for (j, value) in values.iter().enumerate() {
                row[format!("x_{j}")] = value.clone();
            }
            styled(&row, spaced, ascii, &mut text);
            text.push('\n');
        }
        let input = context.write("in.jsonl", &text);
        let input = input.to_str().unwrap();
        let steps: [(&str, &str, &str, &str); 5] = [
            ("swe-bench", "swe-bench", input, "same.jsonl"),
            ("swe-bench", "canonical", input, "canonical.jsonl"),
            ("canonical", "swe-bench", "canonical.jsonl", "back.jsonl"),
            ("swe-bench", "swe-bench", input, "rows.parquet"),
            ("swe-bench", "swe-bench", "rows.parquet", "from-parquet.jsonl"),
        ];
        for (from, to, input, output) in steps {
            let input = context.path(input);
            let output = context.path(output);
            let report = convert(&context, &[
                "--from", from, "--to", to,
                "-i", input.to_str().unwrap(), "-o", output.to_str().unwrap(),
            ]);
            for changed in ["dropped", "defaulted", "replaced"] {
                proptest::prop_assert_eq!(&report[changed], &json!({}), "{} -> {}: {}", from, to, changed);
            }
            proptest::prop_assert_eq!(&report["rejected"], &json!(0));
        }
        for output in ["same.jsonl", "back.jsonl", "from-parquet.jsonl"] {
            let written = context.read(output);
            proptest::prop_assert!(written == text, "{output}:\n{written}\ninstead of\n{text}");
        }
    }
}
