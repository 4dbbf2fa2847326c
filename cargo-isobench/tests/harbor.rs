//! Harbor task folders (`--to harbor -o DIR/`), held to Harbor's own checks and to
//! SWE-bench's own grading:
//!
//! - every sample of `examples/data/` that is exported (SWE-bench 4.x and 5.x), and the
//!   real SWE-bench Verified rows, pass `harbor lint` with no finding and load with
//!   Harbor's task loader (`harbor.models.task.task.Task`), run from the virtualenv
//!   `ISOBENCH_HARBOR_VENV` names (`harbor==0.26.0`; `.ci/run` makes it);
//! - the grading step of each exported verifier (`tests/grade.py grade`), run with the
//!   swebench each benchmark pins (`ISOBENCH_SWEBENCH4_VENV`, `ISOBENCH_SWEBENCH5_VENV`)
//!   on recorded test logs, writes reward 1 for a passing log, 0 with swebench's
//!   fractions for a failing one, and 0 (not nothing) for a log with no test output;
//! - the other samples are refused, each with the reason.
//!
//! A test whose virtualenv is not named says so on stderr and passes, unless
//! `ISOBENCH_REQUIRE_REAL_DATA` is set, when it fails.

#![cfg(unix)]

mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{REQUIRE_REAL_DATA, TestContext, real, real_data_present, sample};
use serde_json::{Value, json};

/// The samples exported as task folders, with the swebench release that grades them.
const EXPORTED: [(&str, &str); 2] = [
    ("swe-bench-verified.sample.jsonl", "4.1.0"),
    ("swe-bench-5.sample.jsonl", "5.0.2"),
];

/// The virtualenv `var` names, or `None` (said on stderr) when it names none; a failure
/// under `ISOBENCH_REQUIRE_REAL_DATA`.
fn venv(var: &str, what: &str) -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os(var) {
        return Some(PathBuf::from(dir));
    }
    assert!(
        std::env::var_os(REQUIRE_REAL_DATA).is_none(),
        "{var} is not set, and {REQUIRE_REAL_DATA} says the tests that need {what} must run"
    );
    eprintln!(
        "skipped: {var} names no virtualenv with {what} (set {REQUIRE_REAL_DATA} to fail instead)"
    );
    None
}

/// Exports `input` (records of `from`) to task folders in `out/`; the folders' paths.
fn export(context: &TestContext, from: &str, input: &Path, out: &str) -> Vec<PathBuf> {
    let result = context.run([
        "convert",
        "--from",
        from,
        "--to",
        "harbor",
        "-i",
        input.to_str().unwrap(),
        "-o",
        &format!("{out}/"),
    ]);
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let mut folders: Vec<PathBuf> = fs::read_dir(context.path(out))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    folders.sort();
    folders
}

fn lines(path: &Path) -> Vec<Value> {
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn swe_bench_samples_export_to_a_folder_per_record() {
    let context = TestContext::new();
    for (name, swebench) in EXPORTED {
        let rows = lines(&sample(name));
        let folders = export(&context, "swe-bench", &sample(name), name);
        assert_eq!(folders.len(), rows.len(), "{name}");
        for (folder, row) in folders.iter().zip(sorted_by_id(rows)) {
            let id = row["instance_id"].as_str().unwrap();
            assert_eq!(folder.file_name().unwrap(), id);
            // The source row, as it was.
            let config: Value =
                serde_json::from_slice(&fs::read(folder.join("tests/config.json")).unwrap())
                    .unwrap();
            assert_eq!(config, row, "{id}");
            assert_eq!(
                fs::read_to_string(folder.join("instruction.md")).unwrap(),
                row["problem_statement"].as_str().unwrap()
            );
            assert_eq!(
                fs::read_to_string(folder.join("solution/gold.patch")).unwrap(),
                row["patch"].as_str().unwrap()
            );
            let task: toml::Table =
                toml::from_str(&fs::read_to_string(folder.join("task.toml")).unwrap()).unwrap();
            assert_eq!(
                task["task"]["name"].as_str(),
                Some(&*format!("isobench/{id}"))
            );
            assert_eq!(
                task["metadata"]["isobench"]["instance_id"].as_str(),
                Some(id)
            );
            assert_eq!(
                task["metadata"]["isobench"]["grader"].as_str(),
                Some(&*format!("swebench=={swebench}"))
            );
            assert_eq!(
                task["verifier"]["environment_mode"].as_str(),
                Some("separate")
            );
            let test_sh = fs::read_to_string(folder.join("tests/test.sh")).unwrap();
            assert!(test_sh.contains(&format!("swebench=={swebench}")));
            assert!(test_sh.contains("/logs/verifier/reward.json"));
            for script in ["tests/test.sh", "solution/solve.sh"] {
                let mode = fs::metadata(folder.join(script))
                    .unwrap()
                    .permissions()
                    .mode();
                assert_eq!(mode & 0o111, 0o111, "{script} of {id} is not executable");
            }
            let mode = fs::metadata(folder.join("tests/config.json"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o111, 0, "config.json of {id} is executable");
        }
    }
    // The 4.x image follows swebench's key rule; a 5.x row's own image is kept.
    let task = fs::read_to_string(
        context.path("swe-bench-verified.sample.jsonl/octo-labs__fastsort-412/task.toml"),
    )
    .unwrap();
    assert!(task.contains("swebench/sweb.eval.x86_64.octo-labs_1776_fastsort-412:latest"));
    let task = fs::read_to_string(
        context.path("swe-bench-5.sample.jsonl/octo-five__fastsort-412/task.toml"),
    )
    .unwrap();
    assert!(task.contains("ghcr.io/octo-five/sweb5.eval.octo-five__fastsort-412:v1"));
}

#[test]
fn the_task_org_is_chosen_with_a_flag() {
    let context = TestContext::new();
    let input = sample("swe-bench-verified.sample.jsonl");
    let run = |org: &str| {
        context.run([
            "convert",
            "--from",
            "swe-bench",
            "--to",
            "harbor",
            "-i",
            input.to_str().unwrap(),
            "-o",
            "out/",
            "--overwrite",
            "--task-org",
            org,
        ])
    };
    let out = run("my-lab.eval");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let task: toml::Table =
        toml::from_str(&context.read("out/octo-labs__fastsort-412/task.toml")).unwrap();
    assert_eq!(
        task["task"]["name"].as_str(),
        Some("my-lab.eval/octo-labs__fastsort-412")
    );
    for bad in ["", "_lab", ".lab", "a/b", "a..b", "lab org"] {
        let out = run(bad);
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("is not a name Harbor takes"));
    }
}

#[test]
fn a_folder_output_needs_a_folder_format_and_a_directory() {
    let context = TestContext::new();
    let input = sample("swe-bench-verified.sample.jsonl");
    let input = input.to_str().unwrap();
    let said = |args: &[&str]| {
        let out = context.run(args);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, stderr) = said(&[
        "convert",
        "--from",
        "swe-bench",
        "--to",
        "harbor",
        "-i",
        input,
    ]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("no output directory is given"), "{stderr}");
    let (code, stderr) = said(&[
        "convert",
        "--from",
        "swe-bench",
        "--to",
        "swe-bench",
        "-i",
        input,
        "-o",
        "x/",
    ]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("writes records, not folders"), "{stderr}");
    assert!(!context.path("x").exists());
    // `--dry-run` lays every folder out and checks it, and writes none.
    let (code, stderr) = said(&[
        "convert",
        "--from",
        "swe-bench",
        "--to",
        "harbor",
        "-i",
        input,
        "-o",
        "d/",
        "--dry-run",
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!context.path("d").exists());
}

fn sorted_by_id(mut rows: Vec<Value>) -> Vec<Value> {
    rows.sort_by(|a, b| a["instance_id"].as_str().cmp(&b["instance_id"].as_str()));
    rows
}

#[test]
fn the_other_samples_are_refused_with_the_reason() {
    let context = TestContext::new();
    let refused = [
        ("gso.sample.jsonl", "GSO's performance harness"),
        ("swe-perf.sample.jsonl", "SWE-Perf's repeated timing runs"),
        ("swee-bench.sample.jsonl", "swesmith's own harness"),
        // Rows of repositories swebench 4 has no specs for: its own harness refuses them.
        (
            "swe-bench-extra.sample.jsonl",
            "swebench 4.x harness) would reject",
        ),
    ];
    for (name, reason) in refused {
        let out = context.run([
            "convert",
            "--from",
            "auto",
            "--to",
            "harbor",
            "-i",
            sample(name).to_str().unwrap(),
            "-o",
            &format!("{name}/"),
            "--on-error",
            "skip",
        ]);
        assert_eq!(out.status.code(), Some(1), "{name}");
        // Beside the output directory, never in it.
        let rejects = context.read_json_lines(format!("{name}.rejects.jsonl"));
        assert!(!rejects.is_empty(), "{name}");
        for reject in rejects {
            let error = reject["error"].as_str().unwrap();
            assert!(error.contains(reason), "{name}: {error}");
        }
        assert_eq!(
            fs::read_dir(context.path(name)).unwrap().count(),
            0,
            "{name}"
        );
    }
}

#[test]
fn harbor_lints_and_loads_every_exported_folder() {
    let Some(venv) = venv("ISOBENCH_HARBOR_VENV", "harbor==0.26.0") else {
        return;
    };
    let context = TestContext::new();
    let mut folders = Vec::new();
    for (name, _) in EXPORTED {
        folders.extend(export(&context, "swe-bench", &sample(name), name));
    }
    let verified = real("swebench-verified/swebench_verified_test.jsonl");
    if real_data_present(&verified) {
        let exported = export(&context, "swe-bench", &verified, "verified");
        assert_eq!(exported.len(), lines(&verified).len());
        folders.extend(exported);
    }
    let lint = Command::new(venv.join("bin/harbor"))
        .args(["lint", "--json"])
        .args(&folders)
        .output()
        .expect("harbor runs");
    let findings: Value = serde_json::from_slice(&lint.stdout).unwrap_or_else(|_| {
        panic!(
            "harbor lint: {}{}",
            String::from_utf8_lossy(&lint.stdout),
            String::from_utf8_lossy(&lint.stderr)
        )
    });
    assert_eq!(findings, json!([]), "harbor lint found something");
    assert!(lint.status.success());
    let load = Command::new(venv.join("bin/python"))
        .args([
            "-c",
            "import sys\nfrom harbor.models.task.task import Task\nfor d in sys.argv[1:]:\n    t = Task(d)\n    assert t.instruction.strip(), d\nprint(len(sys.argv) - 1)",
        ])
        .args(&folders)
        .output()
        .expect("python runs");
    assert!(
        load.status.success(),
        "{}",
        String::from_utf8_lossy(&load.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&load.stdout).trim(),
        folders.len().to_string()
    );
}

/// A test log as swebench's pytest parsers read it: the lines between the markers, a
/// status then a test; `statuses` gives each `FAIL_TO_PASS` test's status.
fn pytest_log(row: &Value, statuses: &dyn Fn(usize) -> &'static str) -> String {
    let list = |key: &str| -> Vec<String> {
        match &row[key] {
            Value::String(text) => serde_json::from_str(text).unwrap(),
            other => serde_json::from_value(other.clone()).unwrap(),
        }
    };
    let mut log = String::from("+ pytest -rA\n>>>>> Start Test Output\n");
    for (i, test) in list("FAIL_TO_PASS").iter().enumerate() {
        log.push_str(statuses(i));
        log.push(' ');
        log.push_str(test);
        log.push('\n');
    }
    for test in list("PASS_TO_PASS") {
        log.push_str("PASSED ");
        log.push_str(&test);
        log.push('\n');
    }
    log.push_str(">>>>> End Test Output\n");
    log
}

/// Runs `folder`'s grading step on `log` with `python`; the reward file it writes.
fn grade(context: &TestContext, python: &Path, folder: &Path, log: &str) -> Value {
    let log_path = context.write("test_output.log", log);
    let reward = context.path("reward.json");
    let _ = fs::remove_file(&reward);
    let out = Command::new(python)
        .arg(folder.join("tests/grade.py"))
        .arg("grade")
        .arg(folder.join("tests/config.json"))
        .arg(&log_path)
        .arg(&reward)
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&fs::read(&reward).expect("a reward file")).unwrap()
}

/// Grades a recorded passing log, one with the second `FAIL_TO_PASS` test failing (or
/// the only one), and one with no test output.
fn grades_recorded_logs(python: &Path, folder: &Path) {
    let context = TestContext::new();
    let row: Value =
        serde_json::from_slice(&fs::read(folder.join("tests/config.json")).unwrap()).unwrap();
    let f2p = match &row["FAIL_TO_PASS"] {
        Value::String(text) => serde_json::from_str::<Vec<String>>(text).unwrap().len(),
        other => other.as_array().unwrap().len(),
    };
    let passing = pytest_log(&row, &|_| "PASSED");
    assert_eq!(
        grade(&context, python, folder, &passing),
        json!({"reward": 1, "fail_to_pass": 1.0, "pass_to_pass": 1.0})
    );
    let failing = pytest_log(&row, &|i| if i == f2p - 1 { "FAILED" } else { "PASSED" });
    let count = |n: usize| f64::from(u32::try_from(n).expect("a handful of tests"));
    let fraction = count(f2p - 1) / count(f2p);
    assert_eq!(
        grade(&context, python, folder, &failing),
        json!({"reward": 0, "fail_to_pass": fraction, "pass_to_pass": 1.0})
    );
    assert_eq!(
        grade(
            &context,
            python,
            folder,
            "+ pytest -rA\nERROR: cannot import\n"
        ),
        json!({"reward": 0, "fail_to_pass": 0.0, "pass_to_pass": 0.0})
    );
}

#[test]
fn a_swe_bench_4_verifier_grades_recorded_logs_with_swebench_4() {
    let Some(venv) = venv("ISOBENCH_SWEBENCH4_VENV", "swebench==4.1.0") else {
        return;
    };
    let verified = real("swebench-verified/swebench_verified_test.jsonl");
    if !real_data_present(&verified) {
        return;
    }
    let context = TestContext::new();
    let folders = export(&context, "swe-bench", &verified, "verified");
    // Real rows whose repositories swebench 4 parses with its pytest-style parsers, one
    // with two `FAIL_TO_PASS` tests for a fraction between 0 and 1.
    for id in ["astropy__astropy-13236", "pytest-dev__pytest-10051"] {
        let folder = folders
            .iter()
            .find(|f| f.file_name().unwrap() == id)
            .unwrap_or_else(|| panic!("{id} exported"));
        grades_recorded_logs(&venv.join("bin/python"), folder);
    }
}

#[test]
fn a_swe_bench_5_verifier_grades_recorded_logs_with_swebench_5() {
    let Some(venv) = venv("ISOBENCH_SWEBENCH5_VENV", "swebench==5.0.2") else {
        return;
    };
    let context = TestContext::new();
    let sample = sample("swe-bench-5.sample.jsonl");
    for folder in export(&context, "swe-bench", &sample, "five") {
        grades_recorded_logs(&venv.join("bin/python"), &folder);
    }
}
