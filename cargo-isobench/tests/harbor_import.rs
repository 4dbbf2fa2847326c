//! Harbor task folders read back (`--from harbor -i DIR/`):
//!
//! - the SWE-bench samples (4.x and 5.x), and the real SWE-bench Verified rows where they
//!   are present, written as task folders and read back `--to swe-bench`, are the rows
//!   they were written from, byte for byte (in the folders' order, by name);
//! - read `--to canonical`, they are the records the rows give; written again as task
//!   folders, the folders are the same, file for file and run bit for run bit;
//! - one record folder is an input, as a directory of them is;
//! - a folder this tool did not write is a rejected record naming the file it lacks, and a
//!   link out of a folder or a file that is not UTF-8 is refused with its path, the other
//!   folders converted all the same under `--on-error skip`;
//! - a directory is refused for a format whose records are not folders.

#![cfg(unix)]

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::Output;

use common::{TestContext, real, real_data_present, sample, stderr};
use serde_json::Value;

/// The samples written as task folders.
const SAMPLES: [&str; 2] = [
    "swe-bench-verified.sample.jsonl",
    "swe-bench-5.sample.jsonl",
];

/// Runs `convert` with `args`, which must succeed.
fn convert(context: &TestContext, args: &[&str]) {
    let mut all = vec!["convert"];
    all.extend_from_slice(args);
    let out = context.run(&all);
    assert!(out.status.success(), "{all:?}: {}", stderr(&out));
}

/// Writes `input` (rows of SWE-bench) as task folders in `out/`.
fn to_folders(context: &TestContext, input: &Path, out: &str) {
    convert(
        context,
        &[
            "--from",
            "swe-bench",
            "--to",
            "harbor",
            "-i",
            input.to_str().unwrap(),
            "-o",
            &format!("{out}/"),
        ],
    );
}

/// Reads the task folders (or folder) `input` back as SWE-bench rows into `out`.
fn folders_to_rows(context: &TestContext, input: &str, out: &str) {
    convert(
        context,
        &[
            "--from",
            "harbor",
            "--to",
            "swe-bench",
            "-i",
            input,
            "-o",
            out,
            "--json-style",
            "spaced",
        ],
    );
}

/// The lines of `text` (each with its line end), ordered by their `instance_id`: the
/// order of the folders they are written to.
fn lines_by_id(text: &str) -> String {
    let mut lines: Vec<(String, &str)> = text
        .split_inclusive('\n')
        .map(|line| {
            let row: Value = serde_json::from_str(line).unwrap();
            (row["instance_id"].as_str().unwrap().to_owned(), line)
        })
        .collect();
    lines.sort_by(|a, b| a.0.cmp(&b.0));
    lines.into_iter().map(|(_, line)| line).collect()
}

/// Every file under `dir` by its path: its bytes and whether it has the run bit.
fn tree(dir: &Path) -> BTreeMap<PathBuf, (Vec<u8>, bool)> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(at) = stack.pop() {
        for entry in fs::read_dir(&at).unwrap() {
            let path = entry.unwrap().path();
            let meta = fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                stack.push(path);
            } else {
                let run = meta.permissions().mode() & 0o111 != 0;
                let relative = path.strip_prefix(dir).unwrap().to_owned();
                files.insert(relative, (fs::read(&path).unwrap(), run));
            }
        }
    }
    files
}

#[test]
fn samples_come_back_from_task_folders_byte_for_byte() {
    let context = TestContext::new();
    for name in SAMPLES {
        let original = fs::read_to_string(sample(name)).unwrap();
        to_folders(&context, &sample(name), name);
        let back = format!("{name}.back.jsonl");
        folders_to_rows(&context, &format!("{name}/"), &back);
        assert_eq!(context.read(&back), lines_by_id(&original), "{name}");
    }
    // The 5.x sample is in the folders' order already: the very file.
    assert_eq!(
        context.read_bytes("swe-bench-5.sample.jsonl.back.jsonl"),
        fs::read(sample("swe-bench-5.sample.jsonl")).unwrap()
    );
}

#[test]
fn task_folders_read_as_the_canonical_records_of_their_rows() {
    let context = TestContext::new();
    for name in SAMPLES {
        to_folders(&context, &sample(name), "first");
        let from_rows = format!("{name}.rows.canonical.jsonl");
        convert(
            &context,
            &[
                "--from",
                "swe-bench",
                "--to",
                "canonical",
                "-i",
                sample(name).to_str().unwrap(),
                "-o",
                &from_rows,
            ],
        );
        let from_folders = format!("{name}.folders.canonical.jsonl");
        convert(
            &context,
            &[
                "--from",
                "harbor",
                "--to",
                "canonical",
                "-i",
                "first/",
                "-o",
                &from_folders,
                "--json-style",
                "spaced",
                "--report",
                "report.json",
                "--overwrite",
            ],
        );
        // Nothing of a folder as it was written is left unread.
        let report = context.read_json("report.json");
        assert_eq!(report["dropped"], serde_json::json!({}), "{name}: {report}");
        assert_eq!(
            context.read(&from_folders),
            lines_by_id(&context.read(&from_rows)),
            "{name}"
        );
        // Written again as folders, the canonical records give the same folders.
        convert(
            &context,
            &[
                "--from",
                "canonical",
                "--to",
                "harbor",
                "-i",
                &from_folders,
                "-o",
                "second/",
            ],
        );
        let (first, second) = (tree(&context.path("first")), tree(&context.path("second")));
        assert!(first.len() > 5, "{name}: {first:?}");
        assert_eq!(first, second, "{name}");
        fs::remove_dir_all(context.path("first")).unwrap();
        fs::remove_dir_all(context.path("second")).unwrap();
    }
}

#[test]
fn one_task_folder_is_an_input() {
    let context = TestContext::new();
    let name = "swe-bench-verified.sample.jsonl";
    to_folders(&context, &sample(name), "tasks");
    folders_to_rows(&context, "tasks/octo-labs__tinyhttp-88", "one.jsonl");
    let original = fs::read_to_string(sample(name)).unwrap();
    let row = original
        .lines()
        .find(|line| line.contains(r#""instance_id": "octo-labs__tinyhttp-88""#))
        .unwrap();
    assert_eq!(context.read("one.jsonl"), format!("{row}\n"));
}

/// Writes the Verified sample as task folders in `tasks/` and breaks the second folder
/// (by name) with `damage`; the folder's path.
fn damaged(context: &TestContext, damage: impl FnOnce(&Path)) -> PathBuf {
    to_folders(context, &sample("swe-bench-verified.sample.jsonl"), "tasks");
    let folder = context.path("tasks/octo-labs__fastsort-412");
    damage(&folder);
    folder
}

/// Reads `tasks/` back with `--on-error skip`, after the global flags `before`: the run's
/// output, the rows written, and the one reject.
fn read_skipping(context: &TestContext, before: &[&str]) -> (Output, Vec<Value>, Value) {
    let out = context.run(before.iter().copied().chain([
        "convert",
        "--from",
        "harbor",
        "--to",
        "swe-bench",
        "-i",
        "tasks/",
        "-o",
        "rows.jsonl",
        "--on-error",
        "skip",
        "--overwrite",
    ]));
    let rows = context.read_json_lines("rows.jsonl");
    let mut rejects = context.read_json_lines("rows.jsonl.rejects.jsonl");
    assert_eq!(rejects.len(), 1, "{rejects:?}");
    (out, rows, rejects.remove(0))
}

/// The `instance_id`s of `rows`.
fn ids(rows: &[Value]) -> Vec<&str> {
    rows.iter()
        .map(|row| row["instance_id"].as_str().unwrap())
        .collect()
}

#[test]
fn a_folder_without_its_source_row_is_a_rejected_record() {
    let context = TestContext::new();
    damaged(&context, |folder| {
        fs::remove_file(folder.join("tests/config.json")).unwrap();
    });
    let (out, rows, reject) = read_skipping(&context, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    // The others are written, in the folders' order.
    assert_eq!(
        ids(&rows),
        ["octo-labs__dateparse-1207", "octo-labs__tinyhttp-88"]
    );
    // The second folder by name, the file it lacks, and a remedy.
    assert_eq!(reject["file"], "tasks/octo-labs__fastsort-412");
    assert_eq!(reject["line"], 2);
    assert_eq!(reject["pointer"], "/tests~1config.json");
    let error = reject["error"].as_str().unwrap();
    assert!(error.contains("no `tests/config.json`"), "{error}");
    assert!(
        reject["hint"]
            .as_str()
            .unwrap()
            .contains("--from swe-bench"),
        "{reject}"
    );
    // Without `--on-error skip`, the run stops at it, naming it.
    let out = context.run([
        "convert",
        "--from",
        "harbor",
        "--to",
        "swe-bench",
        "-i",
        "tasks/",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let said = stderr(&out);
    assert!(said.contains("tasks/octo-labs__fastsort-412:2"), "{said}");
    assert!(said.contains("tests/config.json"), "{said}");
}

#[test]
fn a_folder_another_tool_wrote_is_refused_with_the_reason() {
    let context = TestContext::new();
    damaged(&context, |folder| {
        let path = folder.join("task.toml");
        let text = fs::read_to_string(&path).unwrap();
        let mut task: toml::Table = toml::from_str(&text).unwrap();
        task.remove("metadata");
        fs::write(&path, toml::to_string(&task).unwrap()).unwrap();
    });
    let (_, rows, reject) = read_skipping(&context, &[]);
    assert_eq!(rows.len(), 2);
    let error = reject["error"].as_str().unwrap();
    assert!(error.contains("no `[metadata.isobench]`"), "{error}");
    assert!(error.contains("not written by cargo-isobench"), "{error}");
}

#[test]
fn a_link_out_of_a_folder_is_not_followed() {
    let context = TestContext::new();
    let outside = context.write("outside/secret.txt", "not part of any task\n");
    let folder = damaged(&context, |folder| {
        let link = folder.join("instruction.md");
        fs::remove_file(&link).unwrap();
        symlink(&outside, &link).unwrap();
    });
    let (_, rows, reject) = read_skipping(&context, &[]);
    assert_eq!(rows.len(), 2);
    let error = reject["error"].as_str().unwrap();
    assert!(
        error.contains(&format!("`{}`", folder.join("instruction.md").display()))
            || error.contains("tasks/octo-labs__fastsort-412/instruction.md"),
        "{error}"
    );
    assert!(error.contains("symbolic link"), "{error}");
    assert!(!context.read("rows.jsonl").contains("not part of any task"));
    assert!(
        !context
            .read("rows.jsonl.rejects.jsonl")
            .contains("not part of any task")
    );
    // A record folder that is itself a link is not followed either.
    let elsewhere = context.path("elsewhere");
    fs::rename(&folder, &elsewhere).unwrap();
    symlink(&elsewhere, &folder).unwrap();
    let (_, rows, reject) = read_skipping(&context, &[]);
    assert_eq!(rows.len(), 2);
    let error = reject["error"].as_str().unwrap();
    assert!(error.contains("octo-labs__fastsort-412`"), "{error}");
    assert!(error.contains("symbolic link"), "{error}");
}

#[test]
fn a_file_that_is_not_utf8_is_refused_with_its_path() {
    let context = TestContext::new();
    damaged(&context, |folder| {
        fs::write(folder.join("solution/gold.patch"), b"diff \xff\xfe\n").unwrap();
    });
    let (_, rows, reject) = read_skipping(&context, &[]);
    assert_eq!(rows.len(), 2);
    let error = reject["error"].as_str().unwrap();
    assert!(
        error.contains("tasks/octo-labs__fastsort-412/solution/gold.patch`"),
        "{error}"
    );
    assert!(error.contains("is not UTF-8 text"), "{error}");
}

#[test]
fn a_file_past_the_record_bound_is_refused() {
    let context = TestContext::new();
    damaged(&context, |folder| {
        fs::write(folder.join("big.txt"), "x".repeat(64 * 1024)).unwrap();
    });
    let (out, _, reject) = read_skipping(&context, &["--max-record-bytes", "32768"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let error = reject["error"].as_str().unwrap();
    assert!(error.contains("big.txt`"), "{error}");
    assert!(error.contains("32768 bytes"), "{error}");
}

#[test]
fn a_directory_is_read_only_for_a_format_of_folders() {
    let context = TestContext::new();
    to_folders(
        &context,
        &sample("swe-bench-verified.sample.jsonl"),
        "tasks",
    );
    for (from, said) in [
        ("swe-bench", "reads records from files, not folders"),
        ("auto", "is not told from them"),
    ] {
        let out = context.run([
            "convert",
            "--from",
            from,
            "--to",
            "canonical",
            "-i",
            "tasks/",
        ]);
        assert_eq!(out.status.code(), Some(2), "{from}");
        let stderr = stderr(&out);
        assert!(stderr.contains("`tasks/` is a directory"), "{stderr}");
        assert!(stderr.contains(said), "{stderr}");
        assert!(stderr.contains("`--from harbor`"), "{stderr}");
    }
    // Nothing is written inside a directory read as record folders: a later run would
    // read it as one.
    for (flag, path) in [("-o", "tasks/rows.jsonl"), ("-o", "tasks/more/")] {
        let out = context.run([
            "convert", "--from", "harbor", "--to", "harbor", "-i", "tasks/", flag, path,
        ]);
        assert_eq!(out.status.code(), Some(2), "{path}");
        let stderr = stderr(&out);
        assert!(
            stderr.contains("which is read as record folders"),
            "{stderr}"
        );
    }
    assert!(!context.path("tasks/rows.jsonl").exists());
    assert!(!context.path("tasks/more").exists());
}

#[test]
fn real_verified_rows_come_back_from_task_folders() {
    let verified = real("swebench-verified/swebench_verified_test.jsonl");
    if !real_data_present(&verified) {
        return;
    }
    let context = TestContext::new();
    to_folders(&context, &verified, "verified");
    folders_to_rows(&context, "verified/", "back.jsonl");
    let original = fs::read_to_string(&verified).unwrap();
    assert_eq!(context.read("back.jsonl"), lines_by_id(&original));
}

#[test]
fn a_file_changed_since_it_was_written_is_said_to_be_lost() {
    let context = TestContext::new();
    damaged(&context, |folder| {
        fs::write(folder.join("instruction.md"), "an edited instruction\n").unwrap();
        fs::write(folder.join("NOTES.txt"), "a file added\n").unwrap();
    });
    let out = context.run([
        "convert",
        "--from",
        "harbor",
        "--to",
        "swe-bench",
        "-i",
        "tasks/",
        "-o",
        "rows.jsonl",
        "--report",
        "report.json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    // The row is what is read: the edit is not in it, and the report says so.
    assert!(!context.read("rows.jsonl").contains("an edited instruction"));
    let report = context.read_json("report.json");
    let dropped = &report["dropped"];
    let detail = dropped["instruction.md"]["detail"].as_str().unwrap();
    assert!(detail.contains("the change is not kept"), "{report}");
    let detail = dropped["NOTES.txt"]["detail"].as_str().unwrap();
    assert!(
        detail.contains("is not a file of the task folder"),
        "{report}"
    );
    assert_eq!(dropped.as_object().unwrap().len(), 2, "{report}");
}

#[test]
fn a_task_named_with_another_org_is_said_to_be_lost() {
    let context = TestContext::new();
    convert(
        &context,
        &[
            "--from",
            "swe-bench",
            "--to",
            "harbor",
            "-i",
            sample("swe-bench-5.sample.jsonl").to_str().unwrap(),
            "-o",
            "tasks/",
            "--task-org",
            "my-lab",
        ],
    );
    convert(
        &context,
        &[
            "--from",
            "harbor",
            "--to",
            "canonical",
            "-i",
            "tasks/",
            "-o",
            "records.jsonl",
            "--report",
            "report.json",
        ],
    );
    let report = context.read_json("report.json");
    assert_eq!(report["dropped"]["task.toml"]["records"], 2, "{report}");
    assert_eq!(report["dropped"].as_object().unwrap().len(), 1, "{report}");
}
