//! Hostile ground for a folder per record (`-o DIR/`): names that would leave the output
//! directory, links planted in it, names that differ only in case, an existing folder, a
//! write that fails mid-folder, and rejects or a report aimed inside it. Each test
//! checks what must stay as it was outside the output directory, and that no folder is
//! ever half written.

#![cfg(unix)]

mod common;

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Output;

use common::TestContext;
use serde_json::{Value, json};

const VICTIM: &str = "the user's own file: must stay as it is\n";

/// A format declared by a table whose records are folders named after their
/// `instance_id`, as it is (Harbor's own names are checked before this): `id`, `fix.diff`
/// and the executable `run.sh`.
const FOLDER_TABLE: &str = r#"
name = "folders"
description = "a folder per record"
folder = { name = "/id", executable = ["run.sh"] }

[[fields]]
key = "id"
to = "instance_id"

[[fields]]
key = "fix.diff"
to = "patch"

[[fields]]
key = "run.sh"
to = "extensions.problem_statement"
"#;

fn verified_sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/data/swe-bench-verified.sample.jsonl")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Entries of `dir`, sorted.
fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A directory outside the scratch directory (the checkout) holding one file, [`VICTIM`].
fn victim_dir(context: &TestContext, name: &str) -> PathBuf {
    let dir = context.dir().parent().unwrap().join(name);
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("mine.txt"), VICTIM).unwrap();
    dir
}

fn assert_victim_untouched(dir: &Path) {
    assert_eq!(entries(dir), ["mine.txt"], "{} was written", dir.display());
    assert_eq!(fs::read_to_string(dir.join("mine.txt")).unwrap(), VICTIM);
}

/// Converts canonical `records` to the declared folder format into `out/`.
fn convert_folders(context: &TestContext, records: &[Value], extra: &[&str]) -> Output {
    let table = context.write("folders.toml", FOLDER_TABLE);
    let text: String = records
        .iter()
        .flat_map(|r| [r.to_string(), "\n".into()])
        .collect();
    let input = context.write("records.jsonl", text);
    let mut args = vec![
        "--adapter",
        table.to_str().unwrap(),
        "convert",
        "--from",
        "canonical",
        "--to",
        "folders",
        "-i",
        input.to_str().unwrap(),
        "-o",
        "out/",
    ];
    args.extend_from_slice(extra);
    context.run(args)
}

fn record(id: &str) -> Value {
    json!({"repo": "octo/tasks", "instance_id": id, "patch": "diff\n", "extensions": {"problem_statement": "#!/bin/sh\necho hi\n"}})
}

fn harbor(context: &TestContext, input: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "convert",
        "--from",
        "swe-bench",
        "--to",
        "harbor",
        "-i",
        input.to_str().unwrap(),
        "-o",
        "out/",
    ];
    args.extend_from_slice(extra);
    context.run(args)
}

#[test]
fn a_declared_folder_format_writes_its_files_with_their_run_bits() {
    use std::os::unix::fs::PermissionsExt;
    let context = TestContext::new();
    let out = convert_folders(&context, &[record("task-1")], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        entries(&context.path("out/task-1")),
        ["fix.diff", "id", "run.sh"]
    );
    assert_eq!(context.read("out/task-1/fix.diff"), "diff\n");
    let mode = |p: &str| fs::metadata(context.path(p)).unwrap().permissions().mode();
    assert_eq!(mode("out/task-1/run.sh") & 0o111, 0o111);
    assert_eq!(mode("out/task-1/fix.diff") & 0o111, 0);
}

#[test]
fn record_names_that_would_leave_the_output_directory_are_refused() {
    let context = TestContext::new();
    let victim = victim_dir(&context, "victim-names");
    let escape = format!("../../{}", victim.file_name().unwrap().to_string_lossy());
    let absolute = victim.join("planted").to_string_lossy().into_owned();
    for id in [
        escape.as_str(),
        absolute.as_str(),
        "..",
        ".",
        "a/b",
        "a\\b",
        "nul\0name",
        "line\nbreak",
    ] {
        let out = convert_folders(&context, &[record(id)], &[]);
        assert_eq!(out.status.code(), Some(1), "{id:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("folder name"),
            "{id:?}: {}",
            stderr(&out)
        );
        assert_eq!(
            entries(&context.path("out")),
            Vec::<String>::new(),
            "{id:?}"
        );
        assert_victim_untouched(&victim);
    }
    // Harbor's export refuses such a name as a record, before the output sees it.
    let input = context.write(
        "escape.jsonl",
        fs::read_to_string(verified_sample()).unwrap().replacen(
            "octo-labs__fastsort-412",
            &escape,
            1,
        ),
    );
    let out = harbor(&context, &input, &["--on-error", "skip"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let rejects = context.read_json_lines("out.rejects.jsonl");
    assert_eq!(rejects.len(), 1);
    assert_eq!(rejects[0]["pointer"], "/instance_id");
    assert_eq!(entries(&context.path("out")).len(), 2);
    assert_victim_untouched(&victim);
}

#[test]
fn links_planted_in_the_output_directory_are_never_written_through() {
    let context = TestContext::new();
    let victim = victim_dir(&context, "victim-links");
    fs::create_dir(context.path("out")).unwrap();
    // The folder a record will be written to, as a link to a directory outside.
    symlink(&victim, context.path("out/octo-labs__fastsort-412")).unwrap();
    let out = harbor(&context, &verified_sample(), &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("already exists"), "{}", stderr(&out));
    assert_victim_untouched(&victim);
    // With `--overwrite` the link is replaced by the folder, not followed.
    let out = harbor(&context, &verified_sample(), &["--overwrite"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let kind = fs::symlink_metadata(context.path("out/octo-labs__fastsort-412")).unwrap();
    assert!(kind.is_dir());
    assert_victim_untouched(&victim);
    // The output directory itself, a link, is refused.
    symlink(&victim, context.path("linked")).unwrap();
    let out = context.run([
        "convert",
        "--from",
        "swe-bench",
        "--to",
        "harbor",
        "-i",
        verified_sample().to_str().unwrap(),
        "-o",
        "linked/",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("is a symbolic link"),
        "{}",
        stderr(&out)
    );
    assert_victim_untouched(&victim);
}

#[test]
fn names_that_differ_only_in_case_collide() {
    let context = TestContext::new();
    let out = convert_folders(&context, &[record("Task-1"), record("task-1")], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the folder `task-1` collides with `Task-1`"),
        "{}",
        stderr(&out)
    );
    assert_eq!(entries(&context.path("out")), ["Task-1"]);
    // With an entry the directory held before.
    let out = convert_folders(&context, &[record("TASK-1")], &["--overwrite"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("which the output directory holds"),
        "{}",
        stderr(&out)
    );
    assert_eq!(entries(&context.path("out")), ["Task-1"]);
    // The same name twice is one folder written twice: refused as well.
    let out = convert_folders(
        &context,
        &[record("twice"), record("twice")],
        &["--overwrite"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

#[test]
fn an_existing_folder_is_kept_unless_overwrite_and_then_replaced_whole() {
    let context = TestContext::new();
    let out = harbor(&context, &verified_sample(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let folder = context.path("out/octo-labs__fastsort-412");
    fs::write(folder.join("instruction.md"), VICTIM).unwrap();
    fs::write(folder.join("extra.txt"), VICTIM).unwrap();
    let out = harbor(&context, &verified_sample(), &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("hint: pass `--overwrite`"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        fs::read_to_string(folder.join("instruction.md")).unwrap(),
        VICTIM
    );
    let out = harbor(&context, &verified_sample(), &["--overwrite"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_ne!(
        fs::read_to_string(folder.join("instruction.md")).unwrap(),
        VICTIM
    );
    assert!(
        !folder.join("extra.txt").exists(),
        "the old folder was merged, not replaced"
    );
    // Nothing temporary is left beside the folders.
    assert_eq!(entries(&context.path("out")).len(), 3);
}

#[test]
fn rejects_and_the_report_never_go_inside_the_output_directory() {
    let context = TestContext::new();
    for flags in [
        vec!["--on-error", "skip", "--rejects", "out/rejects.jsonl"],
        vec!["--report", "out/report.json"],
        vec!["--report", "./x/../out/deep/report.json"],
    ] {
        let out = harbor(&context, &verified_sample(), &flags);
        assert_eq!(out.status.code(), Some(2), "{flags:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("is inside the output directory"),
            "{}",
            stderr(&out)
        );
        assert!(!context.path("out").exists(), "{flags:?}");
    }
    // By default the rejects file goes beside the directory.
    let out = harbor(&context, &verified_sample(), &["--on-error", "skip"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("rejects in `out.rejects.jsonl`"),
        "{}",
        stderr(&out)
    );
    assert_eq!(entries(&context.path("out")).len(), 3);
}

/// A full disk, as near as an unprivileged test gets: a file-size limit (`ulimit -f`)
/// makes a write fail part way through a task folder, with `EFBIG` as a full disk gives
/// `ENOSPC`. The folder being written is removed; no folder is left half written.
#[test]
fn a_write_failing_mid_folder_leaves_no_half_written_folder() {
    let context = TestContext::new();
    let binary = env!("CARGO_BIN_EXE_cargo-isobench");
    // One block of 512 bytes: `task.toml` and `instruction.md` fit, `tests/config.json`
    // of the first record does not.
    let script = format!(
        "ulimit -f 1; trap '' XFSZ; exec '{binary}' convert --from swe-bench --to harbor -i '{}' -o out/",
        verified_sample().display()
    );
    let mut command = context.program("sh");
    let out = command.args(["-c", &script]).output().unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("cannot write"), "{}", stderr(&out));
    assert_eq!(entries(&context.path("out")), Vec::<String>::new());
}

/// What a killed run leaves (its temporary folder, hidden, named after its process) is
/// removed by the next run into the directory; a live process's, or anything else, is
/// kept.
#[test]
fn a_killed_runs_temporary_folder_is_removed_by_the_next_run() {
    let context = TestContext::new();
    let gone = (1..u32::MAX)
        .map(|n| u32::MAX - n)
        .find(|pid| !Path::new(&format!("/proc/{pid}")).exists())
        .unwrap();
    let stale = format!(".octo-labs__fastsort-412.isobench-{gone}-a1B2c3D4e5F6.tmp");
    let live = ".octo-labs__fastsort-412.isobench-1-a1B2c3D4e5F6.tmp".to_owned();
    for name in [&stale, &live, &".hidden-of-the-user".to_owned()] {
        fs::create_dir_all(context.path("out").join(name).join("tests")).unwrap();
        fs::write(context.path("out").join(name).join("tests/test.sh"), "half").unwrap();
    }
    let out = harbor(&context, &verified_sample(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let left = entries(&context.path("out"));
    assert!(!left.contains(&stale), "{left:?}");
    assert!(left.contains(&live) && left.contains(&".hidden-of-the-user".to_owned()));
    assert_eq!(left.len(), 5, "{left:?}");
}

#[test]
fn shards_write_disjoint_folders_into_one_directory() {
    let context = TestContext::new();
    for shard in ["1/2", "2/2"] {
        let out = harbor(&context, &verified_sample(), &["--shard", shard]);
        assert_eq!(out.status.code(), Some(0), "{shard}: {}", stderr(&out));
    }
    assert_eq!(
        entries(&context.path("out")),
        [
            "octo-labs__dateparse-1207",
            "octo-labs__fastsort-412",
            "octo-labs__tinyhttp-88"
        ]
    );
}
