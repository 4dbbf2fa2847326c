//! Plugins through the command line: the Multi-SWE-bench native plugin on the real
//! records, misbehaving native plugins, the Python program plugin, and a scaffolded crate.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

mod common;

use common::{TestContext, WORKSPACE, cargo_build, plugin, plugin_target_dir, stderr};

const REAL_MSWE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../shared/data/real/multi-swe-bench/multi_swe_bench_java.jsonl"
);

// Every command runs through a `TestContext`: its trust records are kept in the
// context's state directory, never the user's own.

#[test]
fn real_multi_swe_bench_records_round_trip_through_the_native_plugin() {
    if !common::real_data_present(Path::new(REAL_MSWE)) {
        return;
    }
    let context = TestContext::new();
    let lib = plugin("isobench_multi_swe_bench").to_str().unwrap();
    let canonical = context.path("canonical.jsonl");
    let back = context.path("back.jsonl");
    let out = context.run([
        "--plugin",
        lib,
        "convert",
        "--from",
        "multi-swe-bench",
        "--to",
        "canonical",
        "-i",
        REAL_MSWE,
        "-o",
        canonical.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = context.run([
        "--plugin",
        lib,
        "convert",
        "--from",
        "canonical",
        "--to",
        "mswebench",
        "-i",
        canonical.to_str().unwrap(),
        "-o",
        back.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    // Byte for byte: same values, same key order, same JSON text style.
    assert_eq!(
        std::fs::read(&back).unwrap(),
        std::fs::read(REAL_MSWE).unwrap()
    );

    let out = context.run([
        "--plugin",
        lib,
        "convert",
        "--from",
        "multi-swe-bench",
        "--to",
        "swe-bench",
        "-i",
        REAL_MSWE,
    ]);
    // SWE-bench's harness needs what Multi-SWE-bench rows do not have: refused, nothing
    // written, with the remedies.
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    let said = stderr(&out);
    for needed in [
        "`created_at`",
        "`version`",
        "`environment_setup_commit`",
        "--allow-incomplete",
    ] {
        assert!(said.contains(needed), "{needed}: {said}");
    }
    let out = context.run([
        "--plugin",
        lib,
        "convert",
        "--from",
        "multi-swe-bench",
        "--to",
        "swe-bench",
        "--allow-incomplete",
        "-i",
        REAL_MSWE,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let originals: Vec<Value> = std::fs::read_to_string(REAL_MSWE)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let rows: Vec<Value> = String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 34);
    for (row, original) in rows.iter().zip(&originals) {
        assert_eq!(row["patch"], original["fix_patch"]);
        assert_eq!(row["base_commit"], original["base"]["sha"]);
        assert_eq!(row["instance_id"], original["instance_id"]);
        let p2p: Vec<String> = serde_json::from_str(row["PASS_TO_PASS"].as_str().unwrap()).unwrap();
        let expected: Vec<&String> = original["p2p_tests"].as_object().unwrap().keys().collect();
        assert_eq!(p2p.iter().collect::<Vec<_>>(), expected);
    }
    // What SWE-bench cannot hold, and what its harness misses, is said in the report.
    let report = stderr(&out);
    assert!(report.contains("incomplete: 34 record(s)"), "{report}");
    // The names of `fixed_tests` are written as FAIL_TO_PASS: only their statuses are
    // dropped.
    assert!(
        report.contains(
            "extensions.source.extra.fixed_tests: 34 record(s); a `multi-swe-bench` field swe-bench has no place for; its test names are written, as `FAIL_TO_PASS`"
        ),
        "{report}"
    );
    assert!(report.contains("version: 34 record(s)"), "{report}");
    assert!(report.contains("run_result"), "{report}");
}

#[test]
fn plugin_adapters_are_listed_with_their_origin() {
    let context = TestContext::new();
    let lib = plugin("isobench_multi_swe_bench");
    let out = context.run(["--plugin", lib.to_str().unwrap(), "adapters"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(&format!(
            "multi-swe-bench (aliases: mswebench, multi-swe)  [plugin {}]",
            lib.display()
        )),
        "{text}"
    );
    assert!(text.contains("swe-bench (aliases"), "{text}");
}

fn one_record(dir: &Path) -> PathBuf {
    let input = dir.join("in.jsonl");
    std::fs::write(
        &input,
        "{\"id\":\"a-1\",\"repo\":\"o/r\",\"x\":1}\n{\"id\":\"a-2\",\"repo\":\"o/r\"}\n",
    )
    .unwrap();
    input
}

fn convert_with_test_plugin(mode: &str, extra: &[&str]) -> (Output, TestContext) {
    let context = TestContext::new();
    let input = one_record(context.dir());
    let env = [("ISOBENCH_TEST_PLUGIN_MODE", mode)];
    let out = convert_file_with_test_plugin(&context, &input, &env, extra);
    (out, context)
}

/// `convert --from test-plugin --to canonical -i input` run in the scratch directory, the
/// plugin told what to do by `env` (`ISOBENCH_TEST_PLUGIN_MODE`, ...).
fn convert_file_with_test_plugin(
    context: &TestContext,
    input: &Path,
    env: &[(&str, &str)],
    extra: &[&str],
) -> Output {
    convert_file_from_test_plugin(context, input, env, "canonical", extra)
}

/// The same, to the format `to`.
fn convert_file_from_test_plugin(
    context: &TestContext,
    input: &Path,
    env: &[(&str, &str)],
    to: &str,
    extra: &[&str],
) -> Output {
    let lib = plugin("isobench_test_plugin").to_str().unwrap().to_owned();
    let mut args = vec![
        "--plugin",
        &lib,
        "convert",
        "--from",
        "test-plugin",
        "--to",
        to,
        "-i",
        input.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    context
        .command()
        .args(&args)
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

#[test]
fn a_well_behaved_test_plugin_converts() {
    let (out, _context) = convert_with_test_plugin("ok", &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "{\"repo\":\"o/r\",\"instance_id\":\"a-1\",\"extensions\":{\"rest\":{\"x\":1}}}\n{\"repo\":\"o/r\",\"instance_id\":\"a-2\",\"extensions\":{\"rest\":{}}}\n"
    );
}

#[test]
fn a_panicking_plugin_is_an_error_and_the_host_goes_on() {
    let (out, context) =
        convert_with_test_plugin("panic", &["--on-error", "skip", "-o", "out.jsonl"]);
    // Both records are set aside with the panic as their reason; the host finishes its run.
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("rejected 2"), "{err}");
    let rejects = std::fs::read_to_string(context.path("out.jsonl.rejects.jsonl")).unwrap();
    assert_eq!(rejects.lines().count(), 2);
    assert!(
        rejects.contains("panicked in `import`: the test plugin panics on purpose"),
        "{rejects}"
    );
}

#[test]
fn records_a_plugin_refuses_are_named_by_their_instance_id() {
    // The host hands a native plugin each line's text without parsing it into a record;
    // the rejects still name each record's `instance_id`, read from its text.
    let context = TestContext::new();
    let input = context.path("ids.jsonl");
    std::fs::write(
        &input,
        "{\"id\":\"a-1\",\"instance_id\":\"o__r-1\"}\n{\"id\":\"a-2\"}\n",
    )
    .unwrap();
    let extra = ["--on-error", "skip", "-o", "out.jsonl"];
    let env = [("ISOBENCH_TEST_PLUGIN_MODE", "panic")];
    let out = convert_file_with_test_plugin(&context, &input, &env, &extra);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let rejects = std::fs::read_to_string(context.path("out.jsonl.rejects.jsonl")).unwrap();
    let ids: Vec<Value> = rejects
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["instance_id"].clone())
        .collect();
    assert_eq!(ids, [Value::from("o__r-1"), Value::Null]);
}

#[test]
fn a_plugin_with_another_abi_version_is_refused_before_use() {
    let (out, _context) = convert_with_test_plugin("wrong-abi", &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("speaks plugin ABI version 999, this cargo-isobench speaks 2"),
        "{}",
        stderr(&out)
    );
}

/// A plugin built against the SDK before tables (ABI 1) is refused with the remedy.
#[test]
fn a_plugin_of_the_abi_before_tables_is_refused_with_the_remedy() {
    let (out, _context) = convert_with_test_plugin("abi-1", &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("speaks plugin ABI version 1, this cargo-isobench speaks 2")
            && err.contains("hint: rebuild the plugin against the isobench-plugin-sdk"),
        "{err}"
    );
}

/// Records `test-plugin -> canonical -> test-plugin` with the plugin in `mode`: the
/// canonical text and the text back.
fn round_trip_with_test_plugin(mode: &str, lines: &[&str]) -> (String, String) {
    let context = TestContext::new();
    let input = context.path("in.jsonl");
    std::fs::write(&input, lines.join("\n") + "\n").unwrap();
    let env = [("ISOBENCH_TEST_PLUGIN_MODE", mode)];
    let out = convert_file_with_test_plugin(&context, &input, &env, &[]);
    assert!(out.status.success(), "{mode}: {}", stderr(&out));
    let canonical = String::from_utf8(out.stdout).unwrap();
    let canonical_file = context.path("canonical.jsonl");
    std::fs::write(&canonical_file, &canonical).unwrap();
    let lib = plugin("isobench_test_plugin").to_str().unwrap().to_owned();
    let args = [
        "--plugin",
        &lib,
        "convert",
        "--from",
        "canonical",
        "--to",
        "test-plugin",
        "-i",
        canonical_file.to_str().unwrap(),
    ];
    let out = context.command().args(args).envs(env).output().unwrap();
    assert!(out.status.success(), "{mode}: {}", stderr(&out));
    (canonical, String::from_utf8(out.stdout).unwrap())
}

/// A plugin declared by a table without hooks is run by the host: every per-record
/// entry point of the `table` mode refuses to work, and records still convert, both
/// ways, byte for byte.
#[test]
fn a_table_plugin_without_hooks_is_never_called_per_record() {
    let lines = [
        r#"{"repo":"o/r","id":"a-1","body":"diff --git a/x b/x\n+\"q\" é","tests":["t::a"],"x":1}"#,
        r#"{"id":"a-2","repo":"o/r","labels":"['p1']"}"#,
    ];
    let (canonical, back) = round_trip_with_test_plugin("table", &lines);
    let first: Value = serde_json::from_str(canonical.lines().next().unwrap()).unwrap();
    assert_eq!(first["patch"], "diff --git a/x b/x\n+\"q\" é");
    assert_eq!(
        first["extensions"]["fail_to_pass"],
        serde_json::json!(["t::a"])
    );
    assert_eq!(back.lines().collect::<Vec<_>>(), lines);
}

/// A table plugin's hooks run in the plugin, on what the host sends them: a list in a
/// Python repr and a date-time without a zone come back in the encoding and text they
/// were read in, the keys in their order, the bulk fields never sent (the hooks panic if
/// they see one), and the hooks' notes reach the report.
#[test]
fn a_table_plugins_hooks_keep_encodings_originals_and_key_order() {
    let lines = [
        r#"{"seen":"2024-01-02 03:04:05","labels":"['bug', \"won't fix\"]","body":"the patch","id":"a-1","repo":"o/r","tests":["t::a"],"zz":{"k":[1]}}"#,
        r#"{"id":"a-2","repo":"o/r","labels":["p1","p2"],"seen":"2024-01-02T03:04:05+02:00"}"#,
    ];
    let (canonical, back) = round_trip_with_test_plugin("table-hooks", &lines);
    let records: Vec<Value> = canonical
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        records[0]["extensions"]["labels"],
        serde_json::json!(["bug", "won't fix"])
    );
    assert_eq!(records[0]["created_at"], "2024-01-02T03:04:05");
    assert_eq!(records[0]["patch"], "the patch");
    assert_eq!(records[1]["created_at"], "2024-01-02T01:04:05Z");
    assert_eq!(back.lines().collect::<Vec<_>>(), lines);

    // The hooks' notes cross; a record the hook refuses is named with its field.
    let context = TestContext::new();
    let input = context.path("bad.jsonl");
    std::fs::write(&input, "{\"id\":\"a-1\",\"repo\":\"o/r\",\"labels\":7}\n").unwrap();
    let env = [("ISOBENCH_TEST_PLUGIN_MODE", "table-hooks")];
    let out = convert_file_with_test_plugin(&context, &input, &env, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("bad.jsonl:1: "), "{}", stderr(&out));
    assert!(stderr(&out).contains("`/labels`"), "{}", stderr(&out));
}

#[test]
fn a_plugin_returning_garbage_is_an_error() {
    let (out, _context) = convert_with_test_plugin("garbage", &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("returned invalid JSON from `import`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_plugin_returning_an_invalid_record_is_an_error() {
    let (out, _context) = convert_with_test_plugin("invalid", &[]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("`/repo`: plugin adapter `test-plugin` returned an invalid canonical record"),
        "{err}"
    );
}

/// A plugin written by hand is sent whole records (the test plugin moves `body` to
/// `patch` and its test list to `fail_to_pass`): the output holds the strings' text as if
/// decoded and encoded again, in both directions, and what the plugin answers is what is
/// written.
#[test]
fn strings_a_plugin_is_sent_whole_come_back_as_written() {
    let context = TestContext::new();
    let input = context.path("in.jsonl");
    // The first body and test list are written as they were read; the second's `\/` is
    // not, and comes back as the writer writes it (`/`), while its `\u00e9` escapes, the
    // style of Python's default `json.dumps`, are kept as the record's style.
    let lines = [
        r#"{"id":"a-1","repo":"o/r","body":"diff --git a/x b/x\n+\"quoted\" é \u0001 \\ tab\t","tests":["t::a","t[\"b\"]"]}"#,
        r#"{"id":"a-2","repo":"o/r","body":"a\/b \u00e9","tests":["\u00e9"]}"#,
    ];
    std::fs::write(&input, lines.join("\n") + "\n").unwrap();
    let lib = plugin("isobench_test_plugin").to_str().unwrap().to_owned();
    let run = |from: &str, to: &str, input: &Path, mode: &str| {
        let args = ["--plugin", &lib, "convert", "--from", from, "--to", to];
        let mut args = args.to_vec();
        args.extend(["-i", input.to_str().unwrap()]);
        context
            .command()
            .args(&args)
            .envs([("ISOBENCH_TEST_PLUGIN_MODE", mode)])
            .output()
            .unwrap()
    };

    let out = run("test-plugin", "canonical", &input, "ok");
    assert!(out.status.success(), "{}", stderr(&out));
    let canonical = String::from_utf8(out.stdout).unwrap();
    let originals: Vec<Value> = lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let expected: Vec<String> = originals
        .iter()
        .zip(lines)
        .map(|(o, line)| {
            let text = serde_json::json!({
                "repo": o["repo"], "instance_id": o["id"], "patch": o["body"],
                "extensions": {"fail_to_pass": o["tests"], "rest": {}}
            })
            .to_string();
            // A record that escapes what is not ASCII is written so again.
            if line.contains(r"\u00e9") {
                text.replace('\u{e9}', r"\u00e9")
            } else {
                text
            }
        })
        .collect();
    assert_eq!(canonical.lines().collect::<Vec<_>>(), expected);

    let canonical_file = context.path("canonical.jsonl");
    std::fs::write(&canonical_file, &canonical).unwrap();
    let out = run("canonical", "test-plugin", &canonical_file, "ok");
    assert!(out.status.success(), "{}", stderr(&out));
    let back = String::from_utf8(out.stdout).unwrap();
    let back: Vec<&str> = back.lines().collect();
    assert_eq!(
        back[0], lines[0],
        "the text of a moved string and list is kept byte for byte"
    );
    let back_values: Vec<Value> = back
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(back_values, originals);

    // A plugin that edits such a string edits the output: it was sent the string itself.
    let out = run("test-plugin", "canonical", &input, "tamper");
    assert!(out.status.success(), "{}", stderr(&out));
    let first: Value = serde_json::from_str(
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        first["patch"],
        format!("edited: {}", originals[0]["body"].as_str().unwrap())
    );
}

/// A plugin written by hand is sent records as text, which the host only checks: the ids
/// it answers with still reach the output as they were, and repeated ones are told.
#[test]
fn repeated_ids_are_told_from_a_plugin_written_by_hand() {
    let context = TestContext::new();
    let input = context.path("ids.jsonl");
    let lines = [
        r#"{"id":"a-1","repo":"o/r","body":"x"}"#,
        r#"{"id":"a-2","repo":"o/r","body":"y"}"#,
        r#"{"id":"a-2","repo":"o/r","body":"z"}"#,
    ];
    std::fs::write(&input, lines.join("\n") + "\n").unwrap();
    let env = [("ISOBENCH_TEST_PLUGIN_MODE", "ok")];
    let out = convert_file_from_test_plugin(&context, &input, &env, "test-plugin", &[]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert_eq!(
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .collect::<Vec<_>>(),
        lines
    );
    assert!(
        err.contains(r#"ids.jsonl:3: instance_id "a-2" repeats line 2"#),
        "{err}"
    );
    assert_eq!(err.matches("warning: ").count(), 1, "{err}");
}

/// SWE-bench's JSON-encoded test lists reach a plugin written by hand as the lists they
/// hold, and the plugin writes them as arrays.
#[test]
fn encoded_lists_reach_a_plugin_export_as_the_arrays_they_hold() {
    let context = TestContext::new();
    let input = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/data/swe-bench-verified.sample.jsonl"
    );
    let lib = plugin("isobench_test_plugin").to_str().unwrap().to_owned();
    let args = [
        "--plugin",
        &lib,
        "convert",
        "--from",
        "swe-bench",
        "--to",
        "test-plugin",
        "-i",
        input,
    ];
    let out = context.run(args);
    assert!(out.status.success(), "{}", stderr(&out));
    let originals: Vec<Value> = std::fs::read_to_string(input)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let written: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(written.len(), originals.len());
    for (out, original) in written.iter().zip(&originals) {
        let list: Value = serde_json::from_str(original["FAIL_TO_PASS"].as_str().unwrap()).unwrap();
        assert_eq!(out["tests"], list, "{}", out["id"]);
    }
}

/// The error `convert` gives when the test plugin's `import` answers `answer`.
fn error_for_import_answer(answer: &str) -> String {
    let context = TestContext::new();
    let input = one_record(context.dir());
    let env = [
        ("ISOBENCH_TEST_PLUGIN_MODE", "answer"),
        ("ISOBENCH_TEST_PLUGIN_ANSWER", answer),
    ];
    let out = convert_file_with_test_plugin(&context, &input, &env, &[]);
    assert_eq!(out.status.code(), Some(1), "{answer}: {}", stderr(&out));
    stderr(&out)
}

#[test]
fn every_invalid_canonical_record_from_a_plugin_is_named_with_its_field() {
    let invalid = "plugin adapter `test-plugin` returned an invalid canonical record: ";
    // (the record's fields after `repo` and `instance_id`, the pointer, the rule broken)
    let cases = [
        (
            r#""created_at": 20240101"#,
            "/created_at",
            "is not of type \"string\"",
        ),
        (
            r#""base_commit": null"#,
            "/base_commit",
            "null is not of type \"string\"",
        ),
        // A NaN, as `serde_json` writes it.
        (
            r#""human_performance": null"#,
            "/human_performance",
            "null is not of type \"number\"",
        ),
        (
            r#""colour": "blue""#,
            "",
            "Additional properties are not allowed",
        ),
        (
            r#""efficiency_test": []"#,
            "/efficiency_test",
            "[] has less than 1 item",
        ),
        (
            r#""extensions": {"efficiency_test_kind": "bogus"}"#,
            "/extensions/efficiency_test_kind",
            "\"bogus\" is not one of",
        ),
        (
            r#""duration_changes": [[1.0], [2.0]]"#,
            "/duration_changes/0",
            "is not of type \"object\"",
        ),
        (
            r#""efficiency_test": ["a", "b"], "duration_changes": [{"base": [1], "head": [1]}]"#,
            "/duration_changes",
            "has 1 entries but `efficiency_test` has 2",
        ),
        (
            r#""human_performance": -2"#,
            "/human_performance",
            "must be a finite, non-negative number",
        ),
    ];
    for (fields, pointer, rule) in cases {
        let answer = format!(r#"{{"record": {{"repo": "o/r", "instance_id": "i", {fields}}}}}"#);
        let err = error_for_import_answer(&answer);
        let at = if pointer.is_empty() {
            String::new()
        } else {
            format!("`{pointer}`: ")
        };
        assert!(err.contains(&format!("{at}{invalid}")), "{answer}: {err}");
        assert!(err.contains(rule), "{answer}: {err}");
    }
    // A literal NaN is not JSON at all.
    let err = error_for_import_answer(
        r#"{"record": {"repo": "o/r", "instance_id": "i", "human_performance": NaN}}"#,
    );
    assert!(err.contains("returned invalid JSON from `import`"), "{err}");
}

#[test]
fn missing_files_libraries_that_are_not_plugins_and_clashes_are_clear_errors() {
    let context = TestContext::new();
    let out = context.run(["--plugin", "nowhere.so", "adapters"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("nowhere.so` does not exist"),
        "{}",
        stderr(&out)
    );

    let text = context.path("text.so");
    std::fs::write(&text, "not a library").unwrap();
    let out = context.run(["--plugin", "text.so", "adapters"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("cannot be loaded as a library"),
        "{}",
        stderr(&out)
    );

    // Two copies of the same plugin: both adapters are called `multi-swe-bench`.
    let lib = plugin("isobench_multi_swe_bench");
    let copy = context.path(format!("copy.{}", std::env::consts::DLL_EXTENSION));
    std::fs::copy(lib, &copy).unwrap();
    let out = context.run([
        "--plugin",
        lib.to_str().unwrap(),
        "--plugin",
        copy.to_str().unwrap(),
        "adapters",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("adapter `multi-swe-bench` from plugin")
            && err.contains("clashes with `multi-swe-bench`"),
        "{err}"
    );
}

/// `cargo isobench trust` on the `isobench.toml` of the scratch directory.
fn trust(context: &TestContext) {
    let out = context.run(["trust"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

/// A context whose trusted `isobench.toml` runs `plugins/python/<script>`; `None` (the
/// test skipped, and saying so) without `python3`.
fn with_python_example(script: &str) -> Option<TestContext> {
    if !python() {
        return None;
    }
    let context = TestContext::new();
    let script = Path::new(WORKSPACE).join("plugins/python").join(script);
    std::fs::write(
        context.path("isobench.toml"),
        format!(
            "[[plugins]]\ncommand = [\"python3\", {:?}]\n",
            script.to_str().unwrap()
        ),
    )
    .unwrap();
    trust(&context);
    Some(context)
}

fn python() -> bool {
    let ok = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipped: python3 is not available");
    }
    ok
}

/// A program declaring a field table (protocol 2) is sent no whole record: the host runs
/// the table, and the program answers only `hook-import` and `hook-export`, here for a
/// `level` written `L<n>`. It logs each method it is asked, and is never asked `import`
/// or `export`, nor sent the patch.
#[test]
fn a_program_declared_by_a_table_answers_only_its_hooks() {
    if !python() {
        return;
    }
    let context = TestContext::new();
    let program = r#"
import json, sys
log = open(sys.argv[1], "a")
table = {"name": "tiny-py", "description": "tiny rows", "fields": [
    {"key": "id", "to": "instance_id", "required": True},
    {"key": "repo", "to": "repo", "required": True},
    {"key": "diff", "to": "patch"},
    {"key": "level", "to": "extensions.level", "hook": True}]}
for line in sys.stdin:
    r = json.loads(line)
    m = r["method"]
    log.write(m + (" with patch" if "patch" in json.dumps(r.get("record", {})) else "") + "\n")
    log.flush()
    if m == "hello":
        ok = {"abi": 2, "info": {"name": "tiny-py", "description": "tiny rows"}, "schema": {},
              "table": table, "hooks": True}
    elif m == "hook-import":
        rec, taken = r["record"], []
        if "level" in r["left"]:
            rec.setdefault("extensions", {})["level"] = int(r["left"]["level"][1:])
            taken = ["level"]
        ok = {"record": rec, "taken": taken, "notes": [{"kind": "derived", "field": "extensions.level", "detail": "from `L<n>`"}]}
    elif m == "hook-export":
        level = r["record"].get("extensions", {}).get("level")
        ok = {"written": {} if level is None else {"level": "L%d" % level}}
    else:
        print(json.dumps({"id": r["id"], "error": {"kind": "invalid", "message": "not for a table"}}), flush=True)
        continue
    print(json.dumps({"id": r["id"], "ok": ok}), flush=True)
"#;
    std::fs::write(context.path("tiny.py"), program).unwrap();
    let log = context.path("calls.log");
    std::fs::write(
        context.path("isobench.toml"),
        format!(
            "[[plugins]]\ncommand = [\"python3\", \"tiny.py\", {:?}]\n",
            log.to_str().unwrap()
        ),
    )
    .unwrap();
    trust(&context);
    let lines = [
        r#"{"level":"L3","id":"a-1","diff":"diff --git a/x b/x\n","repo":"o/r","extra":[1]}"#,
        r#"{"id":"a-2","repo":"o/r"}"#,
    ];
    std::fs::write(context.path("in.jsonl"), lines.join("\n") + "\n").unwrap();
    let convert = |from: &str, to: &str, input: &str, output: &str| {
        let args = [
            "convert", "--from", from, "--to", to, "-i", input, "-o", output,
        ];
        let out = context.run(args);
        assert!(out.status.success(), "{}", stderr(&out));
        std::fs::read_to_string(context.path(output)).unwrap()
    };
    let canonical = convert("tiny-py", "canonical", "in.jsonl", "c.jsonl");
    let first: Value = serde_json::from_str(canonical.lines().next().unwrap()).unwrap();
    assert_eq!(first["extensions"]["level"], 3);
    assert_eq!(first["patch"], "diff --git a/x b/x\n");
    let back = convert("canonical", "tiny-py", "c.jsonl", "back.jsonl");
    assert_eq!(back.lines().collect::<Vec<_>>(), lines);
    let calls = std::fs::read_to_string(&log).unwrap();
    let mut asked: Vec<&str> = calls.lines().filter(|m| *m != "hello").collect();
    asked.sort_unstable();
    asked.dedup();
    assert_eq!(asked, ["hook-export", "hook-import"], "{calls}");
}

/// The Python helper's table form (`plugins/python/example_table.py`): the host runs the
/// table, the program's one hook refuses a task id that names another repository, and
/// records come back exactly.
#[test]
fn the_python_table_example_round_trips_and_its_hook_refuses() {
    let Some(context) = with_python_example("example_table.py") else {
        return;
    };
    let good = [
        r#"{"task_id": "o__r-1", "repository": "o/r", "base_sha": "abc", "gold_patch": "diff --git a/x b/x\n", "issue": "It breaks", "fail_to_pass": ["t::a"], "pass_to_pass": [], "weird": {"k": [1, 2.5, null]}}"#,
        r#"{"repository": "o/r", "task_id": "o__r-2", "gold_patch": "diff\n"}"#,
    ];
    let other = r#"{"task_id": "x__y-3", "repository": "o/r"}"#;
    let input = format!("{}\n{other}\n{}\n", good[0], good[1]);
    std::fs::write(context.path("in.jsonl"), input).unwrap();
    let out = context.run([
        "convert",
        "--from",
        "custom-py-table",
        "--to",
        "canonical",
        "-i",
        "in.jsonl",
        "-o",
        "c.jsonl",
        "--on-error",
        "skip",
        "--rejects",
        "r.jsonl",
    ]);
    // Written, with one record rejected: exit 1.
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let canonical = std::fs::read_to_string(context.path("c.jsonl")).unwrap();
    let first: Value = serde_json::from_str(canonical.lines().next().unwrap()).unwrap();
    assert_eq!(first["repo"], "o/r");
    assert_eq!(first["extensions"]["problem_statement"], "It breaks");
    assert_eq!(canonical.lines().count(), 2);
    let rejects = std::fs::read_to_string(context.path("r.jsonl")).unwrap();
    assert!(
        rejects.contains("`x__y-3` is not a task of `o/r` (expected `o__r-N`)"),
        "{rejects}"
    );
    let out = context.run([
        "convert",
        "--from",
        "canonical",
        "--to",
        "custom-py-table",
        "-i",
        "c.jsonl",
        "-o",
        "back.jsonl",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    // Byte for byte: key order (`repository` first in the second record), separators and
    // the unknown key's nesting included.
    let back = std::fs::read_to_string(context.path("back.jsonl")).unwrap();
    assert_eq!(back.lines().collect::<Vec<_>>(), good);
}

#[test]
fn the_python_program_plugin_round_trips_records() {
    let Some(context) = with_python_example("example_adapter.py") else {
        return;
    };
    let input = "{\"task_id\": \"o__r-1\", \"repository\": \"o/r\", \"base_sha\": \"abc\", \"gold_patch\": \"diff --git a/x b/x\\n\", \"issue\": \"It breaks\", \"fail_to_pass\": [\"t::a\"], \"pass_to_pass\": [], \"weird\": {\"k\": [1, 2.5, null]}}\n\
                 {\"repository\": \"o/r\", \"task_id\": \"o__r-2\", \"gold_patch\": \"diff\\n\"}\n";
    std::fs::write(context.path("in.jsonl"), input).unwrap();
    let out = context.run([
        "convert",
        "--from",
        "custom-py",
        "--to",
        "canonical",
        "-i",
        "in.jsonl",
        "-o",
        "c.jsonl",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let first: Value = serde_json::from_str(
        std::fs::read_to_string(context.path("c.jsonl"))
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(first["repo"], "o/r");
    assert_eq!(first["extensions"]["problem_statement"], "It breaks");
    let out = context.run([
        "convert",
        "--from",
        "canonical",
        "--to",
        "custom-py",
        "-i",
        "c.jsonl",
        "-o",
        "back.jsonl",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(context.path("back.jsonl")).unwrap(),
        input
    );
    // The Python adapter's concepts reach SWE-bench through the shared vocabulary.
    let out = context.run([
        "convert",
        "--from",
        "custom-py",
        "--to",
        "swe-bench",
        "-i",
        "in.jsonl",
        "--limit",
        "1",
        // The Python rows lack most of what SWE-bench's harness needs.
        "--allow-incomplete",
    ]);
    assert!(
        stderr(&out).contains("incomplete: 1 record(s)"),
        "{}",
        stderr(&out)
    );
    let row: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(row["FAIL_TO_PASS"], "[\"t::a\"]");
    assert_eq!(row["problem_statement"], "It breaks");
}

#[test]
fn a_hung_or_crashing_program_plugin_is_reported_and_the_host_does_not_hang() {
    if !python() {
        return;
    }
    let context = TestContext::new();
    // Answers the handshake, then never answers again.
    let hang = "import sys,json,time\nl=json.loads(sys.stdin.readline())\nprint(json.dumps({'id':l['id'],'ok':{'abi':1,'info':{'name':'hangs','description':'d'},'schema':{}}}),flush=True)\ntime.sleep(600)\n";
    std::fs::write(context.path("hang.py"), hang).unwrap();
    std::fs::write(
        context.path("isobench.toml"),
        "[[plugins]]\ncommand = [\"python3\", \"hang.py\"]\ntimeout-secs = 1\n",
    )
    .unwrap();
    trust(&context);
    std::fs::write(context.path("in.jsonl"), "{\"a\": 1}\n").unwrap();
    let out = context.run([
        "convert",
        "--from",
        "hangs",
        "--to",
        "canonical",
        "-i",
        "in.jsonl",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("did not answer request 1 (import) within 1 s and was stopped"),
        "{}",
        stderr(&out)
    );

    // Exits before the handshake.
    std::fs::write(
        context.path("isobench.toml"),
        "[[plugins]]\ncommand = [\"python3\", \"-c\", \"import sys; sys.exit(3)\"]\n",
    )
    .unwrap();
    trust(&context);
    let out = context.run(["adapters"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("failed the handshake") && stderr(&out).contains("exit status: 3"),
        "{}",
        stderr(&out)
    );
}

/// `cargo isobench plugin new NAME` in the scratch directory, against the local SDK; the
/// crate's directory.
fn new_plugin_crate(context: &TestContext, name: &str) -> PathBuf {
    let sdk = Path::new(WORKSPACE).join("plugins/sdk");
    let args = ["plugin", "new", name, "--sdk-path", sdk.to_str().unwrap()];
    let out = context.run(args);
    assert!(out.status.success(), "{}", stderr(&out));
    let krate = context.path(name);
    // The workspace's lock file, so the new crate builds with the same dependency versions.
    std::fs::copy(
        Path::new(WORKSPACE).join("Cargo.lock"),
        krate.join("Cargo.lock"),
    )
    .unwrap();
    krate
}

#[test]
fn a_scaffolded_crate_builds_is_found_in_its_workspace_and_converts() {
    // The plugin builds share the tests' plugin target directory (so dependencies build
    // once).
    let context = TestContext::new().with_env("CARGO_TARGET_DIR", plugin_target_dir());
    let krate = new_plugin_crate(&context, "my-bench");

    let out = context.run_in(&krate, ["plugin", "list"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let listed = String::from_utf8(out.stdout).unwrap();
    // Not recorded by `plugin build` yet (the shared target directory may hold a library
    // a plain `cargo build` of an earlier run left).
    assert!(
        listed.starts_with("my-bench 0.1.0")
            && (listed.contains("not built") || listed.contains("(built by `cargo build`")),
        "{listed}"
    );

    let out = context.run_in(&krate, ["plugin", "build"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("built plugin my-bench: "),
        "{}",
        stderr(&out)
    );
    // A debug library, and said so, with the way to an optimised one.
    assert!(
        stderr(&out).contains("(debug build, unoptimised)")
            && stderr(&out).contains("`cargo isobench plugin build --release`"),
        "{}",
        stderr(&out)
    );
    // The scaffold depends on nothing it does not use.
    let manifest = std::fs::read_to_string(krate.join("Cargo.toml")).unwrap();
    assert!(!manifest.contains("serde_json"), "{manifest}");

    // No flag: the workspace's built plugin is loaded by name.
    let out = context.run_in(
        &krate,
        [
            "convert",
            "--from",
            "my-bench",
            "--to",
            "canonical",
            "-i",
            "sample.jsonl",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let record: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(record["repo"], "octo/widgets");
    assert_eq!(record["instance_id"], "octo__widgets-7");
    assert_eq!(
        record["extensions"]["fail_to_pass"][0],
        "tests/test_w.py::test_empty"
    );
    assert_eq!(record["extensions"]["source"]["format"], "my-bench");

    // Outside the workspace it is unknown.
    let out = context.run([
        "convert",
        "--from",
        "my-bench",
        "--to",
        "canonical",
        "-i",
        "my-bench/sample.jsonl",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

// What runs: only what the user chose. A checkout brings its own `isobench.toml` and
// `target/`; neither runs anything until the user says so.

/// The sha256 of a file, as the trust records hold it.
fn sha256(path: &Path) -> String {
    use sha2::Digest;
    format!("{:x}", sha2::Sha256::digest(std::fs::read(path).unwrap()))
}

/// `convert --from test-plugin` of one record, run in `dir`.
fn convert_test_plugin_records(context: &TestContext, dir: &Path, extra: &[&str]) -> Output {
    let input = one_record(dir);
    let mut args = extra.to_vec();
    args.extend([
        "convert",
        "--from",
        "test-plugin",
        "--to",
        "canonical",
        "-i",
        input.to_str().unwrap(),
    ]);
    context.run_in(dir, &args)
}

/// The case as a user met it: a cloned directory holding a package marked as an isobench
/// plugin and a `target/isobench/plugins.json` naming a library elsewhere on disk. Nothing
/// it names runs, not even the library's entry point.
#[test]
fn a_planted_target_index_loads_nothing() {
    let context = TestContext::new();
    let checkout = context.path("checkout");
    std::fs::create_dir_all(checkout.join("src")).unwrap();
    std::fs::create_dir_all(checkout.join("target/isobench")).unwrap();
    std::fs::write(
        checkout.join("Cargo.toml"),
        "[package]\nname = \"planted\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[package.metadata.isobench]\nplugin = true\n",
    )
    .unwrap();
    std::fs::write(checkout.join("src/lib.rs"), "").unwrap();
    let lib = plugin("isobench_test_plugin");
    let root = checkout.canonicalize().unwrap();
    let index = serde_json::json!({ root.to_str().unwrap(): { "planted": lib } });
    std::fs::write(
        checkout.join("target/isobench/plugins.json"),
        index.to_string(),
    )
    .unwrap();
    let mark = context.path("ran");
    let mark_env = [("ISOBENCH_TEST_PLUGIN_MARK", mark.to_str().unwrap())];

    let out = context
        .command()
        .current_dir(&checkout)
        .args(["adapters"])
        .envs(mark_env)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(!listed.contains("test-plugin"), "{listed}");
    assert!(listed.contains("swe-bench (aliases"), "{listed}");
    assert!(!mark.exists(), "the planted library's code ran");
    // Named once, with the reason and the remedy.
    let err = stderr(&out);
    assert_eq!(err.matches("warning: not loading").count(), 1, "{err}");
    assert!(
        err.contains(&format!("native plugin `{}`", lib.display()))
            && err.contains("an index inside a target directory is not trusted")
            && err.contains("run `cargo isobench plugin build` there"),
        "{err}"
    );

    // A run that needs the format: an unknown format whose hint names the plugin.
    let out = convert_test_plugin_records(&context, &checkout, &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("error: unknown format `test-plugin`")
            && err.contains(&format!(
                "hint: it may come from a plugin this run did not load: native plugin `{}`",
                lib.display()
            )),
        "{err}"
    );

    // The mark does tell when the library runs.
    let flag = ["--plugin", lib.to_str().unwrap(), "adapters"];
    let out = context
        .command()
        .current_dir(&checkout)
        .args(flag)
        .envs(mark_env)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(mark.exists());
}

/// An `isobench.toml` a checkout brings, naming a native plugin and a program that would
/// create a file: neither runs until the file is trusted.
#[cfg(unix)]
#[test]
fn an_untrusted_config_loads_no_library_and_runs_no_command() {
    let context = TestContext::new();
    let lib = plugin("isobench_test_plugin");
    std::fs::write(
        context.path("isobench.toml"),
        format!(
            "[test-files]\nrules = [\"dir:tests\"]\n\n[[plugins]]\npath = {:?}\n\n[[plugins]]\ncommand = [\"sh\", \"-c\", \"touch created\"]\n",
            lib.to_str().unwrap()
        ),
    )
    .unwrap();
    let created = context.path("created");
    let mark = context.path("ran");
    let mark_env = [("ISOBENCH_TEST_PLUGIN_MARK", mark.to_str().unwrap())];
    let config = context.dir().canonicalize().unwrap().join("isobench.toml");

    let out = context
        .command()
        .args(["adapters"])
        .envs(mark_env)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!created.exists(), "the command ran");
    assert!(!mark.exists(), "the library's code ran");
    let err = stderr(&out);
    assert_eq!(err.matches("warning: not loading").count(), 1, "{err}");
    assert!(
        err.contains(&format!(
            "warning: not loading native plugin `{}`, program `sh -c \"touch created\"`: `{}` names them and is not trusted",
            lib.display(),
            config.display()
        )) && err.contains(&format!(
            "hint: if you trust what it would run, `cargo isobench trust {}`",
            config.display()
        )),
        "{err}"
    );

    let out = convert_test_plugin_records(&context, context.dir(), &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("error: unknown format `test-plugin`")
            && err.contains("program `sh -c \"touch created\"`")
            && err.contains("cargo isobench trust"),
        "{err}"
    );
    assert!(!created.exists(), "the command ran");

    // Trusted, both run (the command is no program plugin, so the run then fails).
    trust(&context);
    let out = context
        .command()
        .args(["adapters"])
        .envs(mark_env)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(created.exists() && mark.exists());
}

/// Trust holds for the text trusted: a change to the file untrusts it, until trusted
/// again; `--revoke` takes the trust back; `trust --list` tells which is which.
#[test]
fn trust_then_a_change_to_the_file_untrusts_it() {
    let context = TestContext::new();
    let lib = plugin("isobench_test_plugin");
    let file = context.path("isobench.toml");
    let text = format!("[[plugins]]\npath = {:?}\n", lib.to_str().unwrap());
    std::fs::write(&file, &text).unwrap();
    let config = file.canonicalize().unwrap();
    let list = || {
        let out = context.run(["trust", "--list"]);
        assert!(out.status.success(), "{}", stderr(&out));
        String::from_utf8(out.stdout).unwrap()
    };
    assert!(list().starts_with("nothing is trusted"), "{}", list());

    let out = context.run(["trust"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!(
            "trusted `{}`: from now on it loads native plugin `{}`",
            config.display(),
            lib.display()
        )),
        "{}",
        stderr(&out)
    );
    assert_eq!(list(), format!("{}  trusted\n", config.display()));
    // What is recorded is the sha256 of the file's text.
    let records: Value =
        serde_json::from_slice(&std::fs::read(context.state_dir().join("trust.json")).unwrap())
            .unwrap();
    assert_eq!(
        records["configs"][config.to_str().unwrap()],
        sha256(&config)
    );
    let out = convert_test_plugin_records(&context, context.dir(), &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("warning"), "{}", stderr(&out));

    // A comment is enough: the text is not the one trusted.
    std::fs::write(&file, format!("{text}# edited\n")).unwrap();
    let out = convert_test_plugin_records(&context, context.dir(), &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "`{}` names it and is changed since it was trusted",
            config.display()
        )) && err.contains("error: unknown format `test-plugin`"),
        "{err}"
    );
    assert_eq!(
        list(),
        format!("{}  changed since trusted: not loaded\n", config.display())
    );
    // The user's own choice of file, `--config`, needs no trust.
    let out = convert_test_plugin_records(&context, context.dir(), &["--config", "isobench.toml"]);
    assert!(out.status.success(), "{}", stderr(&out));

    trust(&context);
    let out = convert_test_plugin_records(&context, context.dir(), &[]);
    assert!(out.status.success(), "{}", stderr(&out));

    let out = context.run(["trust", "--revoke"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(list().starts_with("nothing is trusted"), "{}", list());
    let out = convert_test_plugin_records(&context, context.dir(), &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("and is not trusted"),
        "{}",
        stderr(&out)
    );
}

/// A workspace plugin's library rebuilt after `plugin build` (here by a plain `cargo
/// build` of an edited crate) is not the one recorded: it is refused with the remedy,
/// and loads again once `plugin build` recorded it.
#[test]
fn a_rebuilt_workspace_plugin_is_refused_until_plugin_build_records_it() {
    let target = plugin_target_dir();
    let context = TestContext::new().with_env("CARGO_TARGET_DIR", &target);
    let krate = new_plugin_crate(&context, "rebuilt-bench");
    let convert = ["convert", "--from", "rebuilt-bench", "--to", "canonical"];
    let convert = [&convert[..], &["-i", "sample.jsonl"]].concat();

    let out = context.run_in(&krate, ["plugin", "build"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let records: Value =
        serde_json::from_slice(&std::fs::read(context.state_dir().join("trust.json")).unwrap())
            .unwrap();
    let root = krate.canonicalize().unwrap();
    let built = &records["workspaces"][root.to_str().unwrap()]["rebuilt-bench"];
    let library = PathBuf::from(built["library"].as_str().unwrap());
    assert_eq!(built["sha256"], sha256(&library));
    let out = context.run_in(&krate, &convert);
    assert!(out.status.success(), "{}", stderr(&out));

    // Rebuilt behind `plugin build`'s back.
    let lib_rs = krate.join("src/lib.rs");
    let source = std::fs::read_to_string(&lib_rs).unwrap();
    let edited = source.replacen(" rows (", " rows, rebuilt (", 1);
    assert_ne!(edited, source);
    std::fs::write(&lib_rs, edited).unwrap();
    let status = common::cargo(&krate)
        .arg("build")
        .env("CARGO_TARGET_DIR", &target)
        .status()
        .unwrap();
    assert!(status.success());
    assert_ne!(
        built["sha256"],
        sha256(&library),
        "the rebuild changed nothing"
    );

    let out = context.run_in(&krate, &convert);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "warning: not loading workspace plugin `rebuilt-bench` (`{}`): the library changed since `cargo isobench plugin build` recorded it",
            library.display()
        )) && err.contains(&format!(
            "hint: run `cargo isobench plugin build` in `{}` again",
            root.display()
        )) && err.contains("error: unknown format `rebuilt-bench`")
            && err.contains("it may come from a plugin this run did not load: workspace plugin `rebuilt-bench`"),
        "{err}"
    );
    let out = context.run_in(&krate, ["trust", "--list"]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("changed since `plugin build`: not loaded"),
        "{}",
        stderr(&out)
    );

    let out = context.run_in(&krate, ["plugin", "build"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = context.run_in(&krate, &convert);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("warning"), "{}", stderr(&out));

    let out = context.run_in(&krate, ["trust", "--list"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!(
            "{}  (workspace plugins)\n  rebuilt-bench: {}  built\n",
            root.display(),
            library.display()
        )
    );

    // Revoked, the workspace's plugins are forgotten.
    let out = context.run_in(&krate, ["trust", "--revoke", "."]);
    assert!(
        stderr(&out).contains(&format!(
            "revoked the workspace plugins of `{}`",
            root.display()
        )),
        "{}",
        stderr(&out)
    );
    let out = context.run_in(&krate, &convert);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

/// `--plugin PATH` is the user's choice: it loads inside a checkout whose own
/// configuration is not trusted, which still runs nothing.
#[cfg(unix)]
#[test]
fn an_explicit_plugin_still_loads_in_an_untrusted_checkout() {
    let context = TestContext::new();
    std::fs::write(
        context.path("isobench.toml"),
        "[[plugins]]\ncommand = [\"sh\", \"-c\", \"touch created\"]\n",
    )
    .unwrap();
    let lib = plugin("isobench_test_plugin");
    let out = convert_test_plugin_records(
        &context,
        context.dir(),
        &["--plugin", lib.to_str().unwrap()],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).lines().count(),
        2,
        "both records converted"
    );
    assert!(stderr(&out).contains("is not trusted"), "{}", stderr(&out));
    assert!(!context.path("created").exists(), "the command ran");
}

#[test]
fn damaged_trust_records_are_a_clear_error() {
    let context = TestContext::new();
    let state = context.state_dir();
    std::fs::create_dir_all(state).unwrap();
    std::fs::write(state.join("trust.json"), "{\"configs\": [").unwrap();
    let out = context.run(["adapters"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "error: invalid trust records `{}`",
            state.join("trust.json").display()
        )) && err.contains("hint: the file is written by `cargo isobench trust`"),
        "{err}"
    );
}

/// Runs cargo in `dir`; panics with its stderr when it fails.
fn cargo(dir: &Path, args: &[&str]) -> Output {
    let out = common::cargo(dir).args(args).output().expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo {args:?} failed: {}",
        stderr(&out)
    );
    out
}

#[test]
fn a_new_plugin_builds_against_the_sdk_as_cargo_package_ships_it() {
    let version = env!("CARGO_PKG_VERSION");
    let target = plugin_target_dir();
    // The SDK and the core crate it re-exports, packaged as `cargo publish` would upload them.
    cargo(
        Path::new(WORKSPACE),
        &[
            "package",
            "-p",
            "isobench-core",
            "-p",
            "isobench-plugin-sdk",
            "--no-verify",
            "--allow-dirty",
            "--offline",
            "--target-dir",
            target.to_str().unwrap(),
        ],
    );
    let context = TestContext::new();
    let unpacked = context.path("unpacked");
    std::fs::create_dir(&unpacked).unwrap();
    for krate in ["isobench-core", "isobench-plugin-sdk"] {
        let file = target.join(format!("package/{krate}-{version}.crate"));
        let status = Command::new("tar")
            .arg("-xzf")
            .arg(&file)
            .arg("-C")
            .arg(&unpacked)
            .status()
            .expect("tar runs");
        assert!(status.success(), "cannot unpack {}", file.display());
    }

    // Outside any checkout, the new crate depends on the SDK from crates.io by version,
    // and says that it is not published there yet and what to do instead.
    let out = context.run(["plugin", "new", "packaged-bench"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("from crates.io, where it is not published yet")
            && stderr(&out).contains("--sdk-path CLONE/plugins/sdk"),
        "{}",
        stderr(&out)
    );
    let krate = context.path("packaged-bench");
    let manifest = std::fs::read_to_string(krate.join("Cargo.toml")).unwrap();
    assert!(
        manifest.contains(&format!("isobench-plugin-sdk = \"{version}\"")),
        "{manifest}"
    );
    assert!(!manifest.contains("[workspace]"), "{manifest}");
    // `isobench-plugin-sdk` (and the core crate) from the unpacked `.crate` files stand for
    // the published ones.
    let patch = format!(
        "\n[patch.crates-io]\nisobench-core = {{ path = \"{0}/isobench-core-{version}\" }}\nisobench-plugin-sdk = {{ path = \"{0}/isobench-plugin-sdk-{version}\" }}\n",
        unpacked.display()
    );
    std::fs::write(krate.join("Cargo.toml"), manifest + &patch).unwrap();
    std::fs::copy(
        Path::new(WORKSPACE).join("Cargo.lock"),
        krate.join("Cargo.lock"),
    )
    .unwrap();
    let libraries = cargo_build(&krate, &["--offline"]);
    let library = libraries["packaged_bench"].to_str().unwrap();

    let out = context.run_in(
        &krate,
        [
            "--plugin",
            library,
            "convert",
            "--from",
            "packaged-bench",
            "--to",
            "swe-bench",
            "-i",
            "sample.jsonl",
            // The sample has no `created_at`, `version` or `environment_setup_commit`,
            // which SWE-bench's harness needs.
            "--allow-incomplete",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let record: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(record["instance_id"], "octo__widgets-7");
    assert!(
        record["FAIL_TO_PASS"]
            .as_str()
            .unwrap()
            .contains("tests/test_w.py::test_empty")
    );
}

#[test]
fn a_new_plugin_inside_the_checkout_uses_its_sdk_and_is_a_workspace_of_its_own() {
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("plugin-new-inside");
    let workspace = Path::new(WORKSPACE).canonicalize().unwrap();
    if !scratch.starts_with(&workspace) {
        eprintln!(
            "skipped: the target directory is outside the checkout, so no scratch directory inside it"
        );
        return;
    }
    let context = TestContext::new();
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let out = context.run_in(&scratch, ["plugin", "new", "inside-bench"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let krate = scratch.join("inside-bench");
    let manifest = std::fs::read_to_string(krate.join("Cargo.toml")).unwrap();
    let depth = krate.strip_prefix(&workspace).unwrap().components().count();
    let sdk = format!("{}plugins/sdk", "../".repeat(depth));
    assert!(
        manifest.contains(&format!("isobench-plugin-sdk = {{ path = \"{sdk}\" }}")),
        "{manifest}"
    );
    assert!(manifest.contains("\n[workspace]\n"), "{manifest}");
    // The workspace's lock file, so that the dependencies resolve offline.
    std::fs::copy(workspace.join("Cargo.lock"), krate.join("Cargo.lock")).unwrap();
    // Cargo reads it as its own workspace (not as a stray member of the checkout's) and
    // finds the SDK at that path.
    let out = cargo(&krate, &["metadata", "--format-version", "1", "--offline"]);
    let meta: Value = serde_json::from_slice(&out.stdout).unwrap();
    let sdk_manifest = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "isobench-plugin-sdk")
        .map(|p| PathBuf::from(p["manifest_path"].as_str().unwrap()))
        .unwrap();
    assert_eq!(
        sdk_manifest.canonicalize().unwrap(),
        workspace.join("plugins/sdk/Cargo.toml")
    );
    assert_eq!(
        meta["workspace_root"].as_str().map(PathBuf::from),
        Some(krate.clone())
    );

    // Once built with plain cargo, `plugin list` shows the library and how to load it.
    let out = context.run_in(&krate, ["plugin", "list"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("not built"));
    let library = krate.join(format!(
        "target/debug/{}inside_bench{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    ));
    std::fs::create_dir_all(library.parent().unwrap()).unwrap();
    std::fs::write(&library, b"").unwrap();
    let out = context.run_in(&krate, ["plugin", "list"]);
    let listed = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        listed.contains(&format!(
            "library: {} (built by `cargo build`: load it with `--plugin",
            library.display()
        )) && listed.contains("`cargo isobench plugin build`"),
        "{listed}"
    );

    // An existing directory is refused with a hint that names real flags.
    let out = context.run_in(&scratch, ["plugin", "new", "inside-bench"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("already exists")
            && stderr(&out).contains("hint: choose another directory with `--path DIR`")
            && !stderr(&out).contains("--overwrite"),
        "{}",
        stderr(&out)
    );
    std::fs::remove_dir_all(&scratch).unwrap();
}

#[test]
fn a_record_the_plugin_refuses_for_its_values_gets_no_other_format_suggested() {
    // A SWE-bench row with an `id` that is not a string: SWE-bench's import takes it (the
    // `id` goes to the extensions), the test plugin refuses it for the value of `id`. Its
    // keys fit the plugin's schema (which declares none) as well as SWE-bench's: the
    // format was right, and no other `--from` is suggested.
    let context = TestContext::new();
    let sample = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../examples/data/swe-bench-verified.sample.jsonl"),
    )
    .unwrap();
    let mut row: serde_json::Map<String, Value> =
        serde_json::from_str(sample.lines().next().unwrap()).unwrap();
    row.insert("id".into(), Value::from(5));
    let input = context.write("refused.jsonl", format!("{}\n", Value::Object(row)));
    let out = convert_file_with_test_plugin(&context, &input, &[], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("`/id`: a string is required"), "{err}");
    assert!(!err.contains("--from swe-bench"), "{err}");
    assert!(!err.contains("hint:"), "{err}");
}

#[test]
fn the_scaffolds_check_points_at_the_key_its_table_names() {
    // The example crate is the scaffold's template. Its hook refuses a task id of
    // another repository, pointing at the key the table maps to `instance_id`: rename
    // that key and the refusal follows it.
    use isobench_core::table::TableAdapter;
    use isobench_core::{Notes, ViewAdapter};

    let refuse = |adapter: &TableAdapter, id_key: &str| {
        let record: serde_json::Map<String, Value> = serde_json::from_value(serde_json::json!({
            id_key: "x__y-3",
            "repository": "o/r",
        }))
        .unwrap();
        adapter.import(record, &mut Notes::new()).unwrap_err()
    };
    let error = refuse(&custom_adapter::adapter(), "task_id");
    assert_eq!(error.pointer, "/task_id");
    let mut table = custom_adapter::table();
    let id = table
        .fields
        .iter_mut()
        .find(|f| f.key == "task_id")
        .unwrap();
    id.key = "problem/id".into();
    let hooks = custom_adapter::SameRepository::of(&table);
    let renamed = TableAdapter::new(table, hooks).unwrap();
    let error = refuse(&renamed, "problem/id");
    assert_eq!(error.pointer, "/problem~1id");
    assert!(
        error.message.contains("`x__y-3` is not a task of `o/r`"),
        "{}",
        error.message
    );
}
