//! The command line, end to end: exit codes, stdout and stderr, through the real binary.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_cargo-isobench");

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/data/swe-bench-verified.sample.jsonl")
}

/// The real published records, when the shared data folder is beside the repository.
fn real(relative: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/data/real")
        .join(relative);
    if path.exists() {
        Some(path)
    } else {
        eprintln!(
            "skipped: {} not present (the real data lives in ../shared)",
            path.display()
        );
        None
    }
}

fn run_in(dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.arg("isobench")
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1");
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("the binary starts");
    if let Some(data) = stdin {
        use std::io::Write;
        child
            .stdin
            .take()
            .expect("piped")
            .write_all(data)
            .expect("stdin accepts the input");
    }
    child.wait_with_output().expect("the binary runs")
}

/// Exit code, stdout and stderr together, for snapshots.
fn transcript(out: &Output) -> String {
    format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn lines(bytes: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(bytes)
        .lines()
        .map(|l| serde_json::from_str(l).expect("each output line is JSON"))
        .collect()
}

#[test]
fn help_is_stable() {
    let dir = tempfile::tempdir().unwrap();
    insta::assert_snapshot!("help", transcript(&run_in(dir.path(), &["--help"], None)));
    insta::assert_snapshot!(
        "convert_help",
        transcript(&run_in(dir.path(), &["convert", "--help"], None))
    );
}

#[test]
fn runs_as_cargo_subcommand_and_directly() {
    let dir = tempfile::tempdir().unwrap();
    let via_cargo = run_in(dir.path(), &["adapters", "--json"], None);
    let direct = Command::new(BIN)
        .args(["adapters", "--json"])
        .output()
        .unwrap();
    assert_eq!(via_cargo.status.code(), Some(0));
    assert_eq!(via_cargo.stdout, direct.stdout);
}

#[test]
fn the_binary_run_directly_shows_its_own_help_and_version() {
    let direct = |args: &[&str]| Command::new(BIN).args(args).output().unwrap();
    let via_cargo = run_in(Path::new("."), &["--help"], None);
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
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            format!("cargo-isobench {}\n", env!("CARGO_PKG_VERSION")),
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
    let dir = tempfile::tempdir().unwrap();
    let out = run_in(dir.path(), &["adapters", "--json"], None);
    let list: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = list.iter().map(|a| a["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "canonical",
            "gso",
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
    let dir = tempfile::tempdir().unwrap();
    insta::assert_snapshot!(
        "adapters",
        transcript(&run_in(dir.path(), &["adapters"], None))
    );
}

#[test]
fn a_successful_conversion_prints_records_and_a_summary() {
    let dir = tempfile::tempdir().unwrap();
    fs::copy(sample(), dir.path().join("sample.jsonl")).unwrap();
    let out = run_in(
        dir.path(),
        &[
            "convert",
            "--from",
            "swe-bench",
            "--to",
            "canonical",
            "-i",
            "sample.jsonl",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0));
    let records = lines(&out.stdout);
    assert_eq!(records.len(), 3);
    assert_eq!(records[0]["instance_id"], "octo-labs__fastsort-412");
    assert_eq!(records[0]["version"], "0.20", "a version stays a string");
    assert_eq!(
        records[0]["extensions"]["fail_to_pass"][0],
        "tests/test_core.py::test_merge_is_stable"
    );
    insta::assert_snapshot!("convert_summary", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn strict_names_the_missing_fields_and_the_record() {
    let dir = tempfile::tempdir().unwrap();
    fs::copy(sample(), dir.path().join("sample.jsonl")).unwrap();
    let out = run_in(
        dir.path(),
        &[
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
        ],
        None,
    );
    insta::assert_snapshot!("convert_strict_fails", transcript(&out));
    assert_eq!(out.status.code(), Some(1));
    assert!(
        !dir.path().join("out.jsonl").exists(),
        "nothing is written when a record fails"
    );
    let leftovers: Vec<_> = fs::read_dir(dir.path())
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
    let dir = tempfile::tempdir().unwrap();
    fs::copy(sample(), dir.path().join("sample.jsonl")).unwrap();
    let out = run_in(
        dir.path(),
        &[
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
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    let report: Value =
        serde_json::from_str(&fs::read_to_string(dir.path().join("report.json")).unwrap()).unwrap();
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
    for record in lines(&fs::read(dir.path().join("out.jsonl")).unwrap()) {
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
        let dir = tempfile::tempdir().unwrap();
        let input = input.to_str().unwrap();
        let there = run_in(
            dir.path(),
            &[
                "convert",
                "--from",
                "swe-bench",
                "--to",
                "canonical",
                "-i",
                input,
                "-o",
                "c.jsonl",
            ],
            None,
        );
        assert_eq!(
            there.status.code(),
            Some(0),
            "{file}: {}",
            transcript(&there)
        );
        let back = run_in(
            dir.path(),
            &[
                "convert",
                "--from",
                "canonical",
                "--to",
                "swe-bench",
                "-i",
                "c.jsonl",
                "-o",
                "back.jsonl",
            ],
            None,
        );
        assert_eq!(back.status.code(), Some(0), "{file}: {}", transcript(&back));
        let original = fs::read(input).unwrap();
        let result = fs::read(dir.path().join("back.jsonl")).unwrap();
        assert!(original == result, "{file} did not come back byte for byte");
    }
}

#[test]
fn json_array_in_and_out() {
    let dir = tempfile::tempdir().unwrap();
    fs::copy(sample(), dir.path().join("sample.jsonl")).unwrap();
    let out = run_in(
        dir.path(),
        &[
            "convert",
            "--from",
            "swe-bench",
            "--to",
            "swe-bench",
            "-i",
            "sample.jsonl",
            "-o",
            "all.json",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    let array: Vec<Value> =
        serde_json::from_str(&fs::read_to_string(dir.path().join("all.json")).unwrap()).unwrap();
    assert_eq!(array, lines(&fs::read(sample()).unwrap()));
    let out = run_in(
        dir.path(),
        &[
            "convert",
            "--from",
            "swe-bench",
            "--to",
            "swe-bench",
            "-i",
            "all.json",
            "-o",
            "again.jsonl",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    let again = fs::read(dir.path().join("again.jsonl")).unwrap();
    assert!(
        again == fs::read(sample()).unwrap(),
        "the array's records come back in their own style"
    );
    // stdin holding an array is recognised by its first byte.
    let out = run_in(
        dir.path(),
        &["convert", "--from", "swe-bench", "--to", "swe-bench"],
        Some(&fs::read(dir.path().join("all.json")).unwrap()),
    );
    assert_eq!(lines(&out.stdout).len(), 3);
}

#[test]
fn existing_output_is_kept_without_overwrite() {
    let dir = tempfile::tempdir().unwrap();
    fs::copy(sample(), dir.path().join("sample.jsonl")).unwrap();
    fs::write(dir.path().join("out.jsonl"), "keep me\n").unwrap();
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
    let out = run_in(dir.path(), &args, None);
    insta::assert_snapshot!("output_exists", transcript(&out));
    assert_eq!(
        fs::read_to_string(dir.path().join("out.jsonl")).unwrap(),
        "keep me\n"
    );
    let out = run_in(dir.path(), &[&args[..], &["--overwrite"]].concat(), None);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        lines(&fs::read(dir.path().join("out.jsonl")).unwrap()).len(),
        3
    );
}

#[test]
fn output_equal_to_an_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    fs::copy(sample(), dir.path().join("sample.jsonl")).unwrap();
    let out = run_in(
        dir.path(),
        &[
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
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is also an input"));
    assert!(
        fs::read(dir.path().join("sample.jsonl")).unwrap() == fs::read(sample()).unwrap(),
        "the input is untouched"
    );
}

#[test]
fn unknown_format_is_a_usage_error_with_a_hint() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_in(
        dir.path(),
        &["convert", "--from", "swe-bench-9", "--to", "canonical"],
        Some(b""),
    );
    insta::assert_snapshot!("unknown_format", transcript(&out));
}

#[test]
fn aliases_name_the_same_adapter() {
    let dir = tempfile::tempdir().unwrap();
    fs::copy(sample(), dir.path().join("sample.jsonl")).unwrap();
    let out = run_in(
        dir.path(),
        &[
            "convert",
            "--from",
            "verified",
            "--to",
            "ISO-Bench",
            "-i",
            "sample.jsonl",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
}

#[test]
fn validate_reports_file_line_record_and_pointer() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = fs::read_to_string(sample()).unwrap();
    text = text.replacen(
        "\"FAIL_TO_PASS\": \"[",
        "\"FAIL_TO_PASS\": 7, \"x\": \"[",
        1,
    );
    fs::write(dir.path().join("bad.jsonl"), text).unwrap();
    let out = run_in(
        dir.path(),
        &["validate", "--format", "swe-bench", "bad.jsonl"],
        None,
    );
    insta::assert_snapshot!("validate_bad", transcript(&out));
    let out = run_in(dir.path(), &["validate", "--format", "canonical", "--profile", "strict", "-"], Some(br#"{"repo": "sympy/sympy", "instance_id": "o__r-1", "efficiency_test": ["a", "b"], "duration_changes": [{"base": [1], "head": [2]}]}"#));
    insta::assert_snapshot!("validate_canonical_strict", transcript(&out));
}

#[test]
fn schema_prints_the_profiles() {
    let dir = tempfile::tempdir().unwrap();
    let strict = run_in(
        dir.path(),
        &["schema", "canonical", "--profile", "strict"],
        None,
    );
    let value: Value = serde_json::from_slice(&strict.stdout).unwrap();
    let seed: Value = serde_json::from_str(isobench_core::schema::CANONICAL_V1).unwrap();
    assert_eq!(value, seed);
    let lossless = run_in(dir.path(), &["schema", "canonical"], None);
    let value: Value = serde_json::from_slice(&lossless.stdout).unwrap();
    assert!(value["properties"]["extensions"].is_object());
    let gso = run_in(dir.path(), &["schema", "gso"], None);
    let value: Value = serde_json::from_slice(&gso.stdout).unwrap();
    assert_eq!(value["additionalProperties"], false);
}

#[test]
fn ordinary_mistakes_get_errors_that_say_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let stderr = |out: &Output| String::from_utf8_lossy(&out.stderr).into_owned();
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
        let out = run_in(dir.path(), args, None);
        assert_eq!(out.status.code(), Some(3), "{args:?}");
        assert_eq!(
            stderr(&out),
            "error: cannot read `absent.jsonl`: no such file\n",
            "{args:?}"
        );
    }
    // CSV to `--from auto` is not JSON, rather than "no record".
    fs::write(
        dir.path().join("table.csv"),
        "repo,instance_id\no/r,o__r-1\n",
    )
    .unwrap();
    let out = run_in(
        dir.path(),
        &[
            "convert",
            "--from",
            "auto",
            "--to",
            "canonical",
            "-i",
            "table.csv",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("the input is not JSON records: table.csv:1: malformed JSON")
            && stderr(&out).contains("CSV and other formats are not read"),
        "{}",
        stderr(&out)
    );
    // Inputs given without `-i`.
    let out = run_in(
        dir.path(),
        &[
            "convert",
            "--from",
            "swe-bench",
            "--to",
            "canonical",
            "table.csv",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "error: `convert` takes its inputs with `-i`, not as bare arguments (`table.csv`)\nhint: write `-i table.csv`\n"
    );
    // A file type given as a format.
    let out = run_in(
        dir.path(),
        &[
            "convert",
            "--from",
            "swe-bench",
            "--to",
            "parquet",
            "-i",
            "table.csv",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("`parquet` is a file type, not a record format")
            && stderr(&out).contains("`-o out.parquet`"),
        "{}",
        stderr(&out)
    );
    // A plugin's format without the plugin.
    let out = run_in(
        dir.path(),
        &[
            "convert",
            "--from",
            "multi-swe-bench",
            "--to",
            "swe-bench",
            "-i",
            "table.csv",
        ],
        None,
    );
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
    let out = Command::new("python3")
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
    let out = run_in(
        Path::new("."),
        &["convert", "--from", "swe-bench", "--to", "canonical"],
        Some(b""),
    );
    assert!(!String::from_utf8_lossy(&out.stderr).contains("terminal"));
}
