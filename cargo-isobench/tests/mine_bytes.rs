//! Mined diffs against the `git` command, byte for byte and hunk headers included, on a
//! history built with `git` itself: Latin-1 and UTF-16 files, a name that is not UTF-8,
//! names with blanks, `.gitattributes` that name drivers (built in and configured), make a
//! text file binary and change from commit to commit, a function line cut at 80 bytes
//! inside a character, a Latin-1 function line, a binary file, renames, an empty commit
//! and a root commit. The repository is mined bare, so that nothing but the commit's own
//! `.gitattributes` can say what git says.
//!
//! Every file diff git writes for a commit (`git --attr-source=COMMIT show -M`) is in the
//! record byte for byte, or the record names it in `extensions.mining.not_utf8`; and every
//! record's `patch` and `test_patch` apply at its base (`git apply --check --cached`).

mod common;

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

use common::{TestContext, stderr};

fn git_command(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new("git");
    command
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "A U Thor")
        .env("GIT_AUTHOR_EMAIL", "author@example.org")
        .env("GIT_COMMITTER_NAME", "C O Mitter")
        .env("GIT_COMMITTER_EMAIL", "committer@example.org")
        .env("GIT_AUTHOR_DATE", "2020-01-01T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2020-01-01T00:00:00Z")
        .args([
            "-c",
            "init.defaultBranch=main",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "core.quotePath=true",
        ])
        .args(args);
    command
}

/// `git` with no user or system configuration, a fixed identity and clock: its stdout.
fn git(dir: &Path, args: &[&str]) -> Vec<u8> {
    let out = git_command(dir, args).output().expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn git_text(dir: &Path, args: &[&str]) -> String {
    String::from_utf8(git(dir, args)).expect("UTF-8 output")
}

fn write(dir: &Path, path: &[u8], content: &[u8]) {
    use std::os::unix::ffi::OsStrExt;
    let path = dir.join(std::ffi::OsStr::from_bytes(path));
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

fn remove(dir: &Path, path: &[u8]) {
    use std::os::unix::ffi::OsStrExt;
    std::fs::remove_file(dir.join(std::ffi::OsStr::from_bytes(path))).unwrap();
}

fn commit(dir: &Path, subject: &str) {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "--allow-empty", "-m", subject]);
}

/// A Python module whose changed lines lie under classes and methods.
fn module(version: usize) -> Vec<u8> {
    use std::fmt::Write as _;
    let mut out = String::from("import os\n\n\nclass Outer:\n    \"\"\"Doc.\"\"\"\n\n");
    for m in 0..4 {
        let _ = writeln!(out, "    async def method_{m}(self, x):");
        for l in 0..8 {
            let value = if l == 5 && (m + version).is_multiple_of(2) {
                version
            } else {
                l
            };
            let _ = writeln!(out, "        v{l} = x + {value}");
        }
        out.push_str("        return v0\n\n");
    }
    out.push_str("\ndef helper():\n    return 1\n");
    out.into_bytes()
}

/// Lines under a function line of 78 `y`s, a blank and `é` (its second byte is the 81st).
fn cut_file(last: &str) -> Vec<u8> {
    let mut out = "y".repeat(78).into_bytes();
    out.extend_from_slice(" \u{e9}tail\n1\n2\n3\n4\n5\n6\n".as_bytes());
    out.extend_from_slice(last.as_bytes());
    out.push(b'\n');
    out
}

/// A Latin-1 function line far above a change, so that only the hunk header holds it.
fn latin1_above(last: &str) -> Vec<u8> {
    let mut out = b"caf\xe9 section\n".to_vec();
    for i in 0..10 {
        out.extend_from_slice(format!("{i}\n").as_bytes());
    }
    out.extend_from_slice(last.as_bytes());
    out.push(b'\n');
    out
}

fn utf16(text: &str) -> Vec<u8> {
    let mut out = vec![0xff, 0xfe];
    for unit in text.encode_utf16() {
        out.extend_from_slice(&unit.to_le_bytes());
    }
    out
}

const NON_UTF8_NAME: &[u8] = b"data/r\xe9sum\xe9.txt";

/// Builds the history in `dir`; returns the root commit.
fn build(dir: &Path) -> String {
    std::fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "-q"]);
    write(
        dir,
        b".gitattributes",
        b"*.py diff=python\n*.dat binary\nconf/*.ini diff=ini\n\"with quote/*.txt\" diff\n",
    );
    write(dir, b"pkg/mod.py", &module(0));
    write(dir, b"pkg/sub dir/with space.py", &module(0));
    write(dir, b"notes/latin1.txt", b"caf\xe9\nna\xefve\nend\n");
    write(dir, b"notes/utf16.txt", &utf16("hello\nworld\n"));
    write(dir, NON_UTF8_NAME, b"one\ntwo\n");
    write(dir, b"notes/cut.txt", &cut_file("7"));
    write(dir, b"notes/above.txt", &latin1_above("x"));
    write(dir, b"table.dat", b"a,b\n1,2\n");
    write(
        dir,
        b"conf/app.ini",
        b"[server]\nhost=a\nport=1\nx=1\ny=2\nz=3\nw=4\n",
    );
    write(
        dir,
        b"main.go",
        b"package main\n\nfunc run(x int) int {\n\ta := 1\n\tb := 2\n\tc := 3\n\treturn a\n}\n",
    );
    write(dir, b"blob.bin", b"\x00\x01binary\x00\n");
    commit(dir, "Initial layout");
    let root = git_text(dir, &["rev-parse", "HEAD"]).trim().to_owned();

    write(dir, b"pkg/mod.py", &module(1));
    write(dir, b"pkg/sub dir/with space.py", &module(1));
    write(dir, b"notes/latin1.txt", b"caf\xe9\nna\xefve!\nend\n");
    write(dir, b"notes/utf16.txt", &utf16("hello\nthere\n"));
    write(dir, NON_UTF8_NAME, b"one\nthree\n");
    write(dir, b"notes/cut.txt", &cut_file("8"));
    write(dir, b"notes/above.txt", &latin1_above("y"));
    write(dir, b"table.dat", b"a,b\n1,3\n");
    write(
        dir,
        b"conf/app.ini",
        b"[server]\nhost=a\nport=1\nx=1\ny=2\nz=3\nw=5\n",
    );
    write(
        dir,
        b"main.go",
        b"package main\n\nfunc run(x int) int {\n\ta := 1\n\tb := 2\n\tc := 4\n\treturn a\n}\n",
    );
    write(dir, b"blob.bin", b"\x00\x02binary\x00\n");
    commit(dir, "Change every kind of file");

    // The attributes change: `.dat` files are text again, `.py` files lose their driver.
    write(dir, b".gitattributes", b"*.ini diff=ini\n");
    write(dir, b"pkg/mod.py", &module(2));
    write(dir, b"table.dat", b"a,b\n1,4\n");
    commit(dir, "Attributes change");

    commit(dir, "Nothing changes");

    // Renames: a name that is not UTF-8 to another, a name with blanks, a Latin-1 file
    // added and one deleted.
    remove(dir, NON_UTF8_NAME);
    write(dir, b"data/n\xe9w name.txt", b"one\nthree\nfour\n");
    remove(dir, b"pkg/sub dir/with space.py");
    write(dir, b"pkg/other dir/moved.py", &module(1));
    write(dir, b"notes/added-latin1.txt", b"\xe0 la carte\n");
    remove(dir, b"notes/latin1.txt");
    commit(dir, "Renames and Latin-1 files");
    root
}

/// A diff's file sections, keyed by their `diff --git` line.
fn file_diffs(text: &[u8]) -> BTreeMap<Vec<u8>, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut key: Option<Vec<u8>> = None;
    for line in text.split_inclusive(|&b| b == b'\n') {
        if line.starts_with(b"diff --git ") {
            key = Some(line.to_vec());
            files.insert(line.to_vec(), Vec::new());
        }
        if let Some(k) = &key {
            files.get_mut(k).unwrap().extend_from_slice(line);
        }
    }
    files
}

/// Checks that `patch` applies at `base`, its binary files (written without their data,
/// as `git log -p` writes them) aside.
fn applies(dir: &Path, base: &str, patch: &[u8], what: &str) {
    let text: Vec<u8> = file_diffs(patch)
        .into_values()
        .filter(|f| !f.windows(13).any(|w| w == b"\nBinary files"))
        .flatten()
        .collect();
    if text.is_empty() {
        return;
    }
    let index = dir.join("apply-check.index");
    let index_str = index.to_str().unwrap();
    let mut read = git_command(dir, &["read-tree", base]);
    read.env("GIT_INDEX_FILE", index_str);
    assert!(read.status().unwrap().success());
    let mut apply = git_command(dir, &["apply", "--check", "--cached", "-"]);
    let mut child = apply
        .env("GIT_INDEX_FILE", index_str)
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&text).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{what} does not apply at {base}: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&text)
    );
}

/// Mines `args` from the bare clone and holds every record against git.
fn hold_against_git(
    context: &TestContext,
    bare: &Path,
    args: &[&str],
    attributes_file: Option<&Path>,
) -> Vec<Value> {
    let mut command = vec![
        "mine",
        "--repo",
        bare.to_str().unwrap(),
        "--repo-name",
        "octo/bytes",
    ];
    command.extend_from_slice(args);
    let out = context.run_direct(&command);
    assert!(out.status.success(), "{}", stderr(&out));
    let records: Vec<Value> = out
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    let mut compared = 0;
    for record in &records {
        let sha = record["head_commit"].as_str().unwrap();
        let base_commit = record["base_commit"].as_str().unwrap();
        let attr_source = format!("--attr-source={sha}");
        let mut show = vec![
            attr_source.as_str(),
            "-c",
            "diff.ini.xfuncname=^\\[(.*)\\]$",
        ];
        let attributes = attributes_file.map(|p| format!("core.attributesFile={}", p.display()));
        if let Some(a) = &attributes {
            show.extend(["-c", a.as_str()]);
        }
        show.extend(["diff", "-M", "--no-color", base_commit, sha]);
        let theirs = file_diffs(&git(bare, &show));
        let patch = record["patch"].as_str().unwrap();
        let test_patch = record["test_patch"].as_str().unwrap();
        let mined = file_diffs(format!("{patch}{test_patch}").as_bytes());
        let left_out: Vec<&str> = record["extensions"]["mining"]["not_utf8"]
            .as_array()
            .map(|a| a.iter().map(|f| f["path"].as_str().unwrap()).collect())
            .unwrap_or_default();
        for (key, diff) in &theirs {
            if let Some(mine) = mined.get(key) {
                assert_eq!(
                    String::from_utf8_lossy(mine),
                    String::from_utf8_lossy(diff),
                    "{sha} {}",
                    String::from_utf8_lossy(key)
                );
                assert_eq!(mine, diff);
                compared += 1;
            } else {
                assert!(
                    std::str::from_utf8(diff).is_err(),
                    "{sha}: git's diff of {} is UTF-8 and missing from the record",
                    String::from_utf8_lossy(key)
                );
                let named = left_out
                    .iter()
                    .any(|p| String::from_utf8_lossy(key).contains(p));
                assert!(named, "{sha}: {left_out:?} names {key:?}");
            }
        }
        assert!(
            mined.keys().all(|k| theirs.contains_key(k)),
            "{sha}: the record has a file git does not write"
        );
        applies(
            bare,
            base_commit,
            format!("{patch}{test_patch}").as_bytes(),
            sha,
        );
    }
    assert!(compared >= 1, "{compared} file diffs compared");
    records
}

fn bare_clone(context: &TestContext) -> (std::path::PathBuf, String) {
    let dir = context.path("history");
    let root = build(&dir);
    let bare = context.path("history.git");
    git(
        context.path("").as_path(),
        &[
            "clone",
            "-q",
            "--bare",
            dir.to_str().unwrap(),
            bare.to_str().unwrap(),
        ],
    );
    git(&bare, &["config", "diff.ini.xfuncname", "^\\[(.*)\\]$"]);
    (bare, root)
}

#[test]
fn every_mined_file_diff_equals_git_byte_for_byte_or_says_why_not() {
    let context = TestContext::new();
    let (bare, root) = bare_clone(&context);
    let range = format!("{root}..main");
    let records = hold_against_git(&context, &bare, &["--range", &range], None);
    // The empty commit is skipped; the other three are records.
    assert_eq!(records.len(), 3);
    let all: String = records
        .iter()
        .flat_map(|r| {
            [
                r["patch"].as_str().unwrap(),
                r["test_patch"].as_str().unwrap(),
            ]
        })
        .collect();
    assert!(all.matches("diff --git ").count() >= 15, "{all}");
    // What the history is meant to hold, as git writes it.
    let cut = format!(" @@ {} \n", "y".repeat(78));
    assert!(all.contains(&cut), "the blank before a cut character stays");
    assert!(all.contains(" @@ caf\n"), "a Latin-1 context is cut");
    assert!(
        all.contains("@@ -4,4 +4,4 @@ server\n"),
        "a configured driver"
    );
    assert!(
        all.contains(" async def method_0(self, x):\n"),
        "python's driver"
    );
    assert!(all.contains("Binary files a/table.dat and b/table.dat differ\n"));
    assert!(all.contains("+++ b/pkg/sub dir/with space.py\t\n"));
    assert!(all.contains("rename from \"data/r\\351sum\\351.txt\"\n"));
    let not_utf8: Vec<&str> = records
        .iter()
        .flat_map(|r| {
            r["extensions"]["mining"]["not_utf8"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .map(|f| {
            if f["path"] == "notes/latin1.txt" {
                "latin1"
            } else {
                "other"
            }
        })
        .collect();
    assert_eq!(not_utf8.iter().filter(|p| **p == "latin1").count(), 2);
}

#[test]
fn language_drivers_equal_git_with_the_same_attributes() {
    let context = TestContext::new();
    let (bare, root) = bare_clone(&context);
    let attributes = context.path("language.attributes");
    std::fs::write(&attributes, "*.py diff=python\n*.go diff=golang\n").unwrap();
    let range = format!("{root}..main");
    let records = hold_against_git(
        &context,
        &bare,
        &["--range", &range, "--language-drivers"],
        Some(&attributes),
    );
    let changed = records[1]["patch"].as_str().unwrap();
    // The commit's attributes dropped `*.py diff=python`: the language's driver stands in.
    assert!(changed.contains(" async def method_"), "{changed}");
}

#[test]
fn a_root_commit_is_mined_against_the_empty_tree() {
    let context = TestContext::new();
    let (bare, root) = bare_clone(&context);
    let out = context.run_direct([
        "mine",
        "--repo",
        bare.to_str().unwrap(),
        "--repo-name",
        "octo/bytes",
        "--head",
        &root,
    ]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("--base 4b825dc642cb6eb9a060e54bf8d69288fbee4904"),
        "{}",
        stderr(&out)
    );
    let records = hold_against_git(
        &context,
        &bare,
        &[
            "--head",
            &root,
            "--base",
            "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
        ],
        None,
    );
    assert_eq!(records[0]["extensions"]["mining"]["base"], "empty tree");
}

#[test]
fn an_empty_commit_is_skipped_with_its_reason() {
    let context = TestContext::new();
    let (bare, _) = bare_clone(&context);
    let out = context.run_direct([
        "mine",
        "--repo",
        bare.to_str().unwrap(),
        "--repo-name",
        "octo/bytes",
        "--head",
        "main~1",
    ]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("an empty commit"), "{}", stderr(&out));
}

/// A SWE-bench record of `octo/tags` with `instance_id` and `base_commit`.
fn swe_bench_row(instance_id: &str, base: &str) -> String {
    let sample = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../examples/data/swe-bench-verified.sample.jsonl"),
    )
    .unwrap();
    let mut row: serde_json::Map<String, Value> =
        serde_json::from_str(sample.lines().next().unwrap()).unwrap();
    row.insert("repo".into(), "octo/tags".into());
    row.insert("instance_id".into(), instance_id.into());
    row.insert("base_commit".into(), base.into());
    Value::Object(row).to_string()
}

#[test]
fn a_head_reachable_only_from_a_tag_is_found_and_an_id_without_a_number_is_warned_about() {
    let context = TestContext::new();
    let dir = context.path("repos/octo/tags");
    std::fs::create_dir_all(&dir).unwrap();
    git(&dir, &["init", "-q"]);
    write(&dir, b"a.py", b"x = 1\n");
    commit(&dir, "Start");
    let base = git_text(&dir, &["rev-parse", "HEAD"]).trim().to_owned();
    git(&dir, &["checkout", "-q", "-b", "release"]);
    write(&dir, b"a.py", b"x = 2\n");
    commit(&dir, "Fix x (#7)");
    let fix = git_text(&dir, &["rev-parse", "HEAD"]).trim().to_owned();
    git(&dir, &["tag", "-a", "-m", "1.0.1", "v1.0.1"]);
    git(&dir, &["checkout", "-q", "main"]);
    git(&dir, &["branch", "-q", "-D", "release"]);
    let input = context.path("sb.jsonl");
    std::fs::write(
        &input,
        format!(
            "{}\n{}\n",
            swe_bench_row("octo__tags-7", &base),
            swe_bench_row("octo__tags-fix", &base)
        ),
    )
    .unwrap();
    let report = context.path("report.json");
    let out = context.run_direct([
        "convert",
        "--from",
        "swe-bench",
        "--to",
        "canonical",
        "-i",
        input.to_str().unwrap(),
        "--repos",
        context.path("repos").to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let records: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records[0]["head_commit"], fix.as_str());
    assert!(records[1].get("head_commit").is_none());
    let report = std::fs::read_to_string(report).unwrap();
    assert!(
        report.contains("the instance_id `octo__tags-fix` does not end in a pull-request number"),
        "{report}"
    );
}

/// Lines that make function contexts: definitions at several depths, lines that start an
/// identifier, long lines with a character across the 80th byte, blanks and CRLF ends.
const VOCABULARY: [&str; 12] = [
    "def f(x):",
    "    def inner(self):",
    "class K(Base):  ",
    "async def run():",
    "        return x",
    "x = 1",
    "",
    "    # comment",
    "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy \u{e9}\u{e9}",
    "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\u{20ac} tail",
    "def crlf():\r",
    "$var",
];

fn lines_text(picks: &[usize]) -> Vec<u8> {
    picks
        .iter()
        .flat_map(|&i| format!("{}\n", VOCABULARY[i]).into_bytes())
        .collect()
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(12))]

    /// Generated edits of a Python file and a text file: every hunk header equals git's,
    /// with the python driver from `.gitattributes` and with the default one.
    #[test]
    fn generated_edits_give_git_s_hunk_headers(
        old in proptest::collection::vec(0..VOCABULARY.len(), 20..60),
        edits in proptest::collection::vec((0usize..60, 0..VOCABULARY.len()), 1..6),
    ) {
        let context = TestContext::new();
        let dir = context.path("gen");
        std::fs::create_dir_all(&dir).unwrap();
        git(&dir, &["init", "-q"]);
        write(&dir, b".gitattributes", b"*.py diff=python\n");
        write(&dir, b"m.py", &lines_text(&old));
        write(&dir, b"m.txt", &lines_text(&old));
        commit(&dir, "Base");
        let mut new = old.clone();
        for (at, pick) in edits {
            let at = at % new.len();
            new[at] = pick;
        }
        new.push(5);
        write(&dir, b"m.py", &lines_text(&new));
        write(&dir, b"m.txt", &lines_text(&new));
        commit(&dir, "Edit");
        let bare = context.path("gen.git");
        git(
            context.path("").as_path(),
            &["clone", "-q", "--bare", dir.to_str().unwrap(), bare.to_str().unwrap()],
        );
        let records = hold_against_git(&context, &bare, &["--head", "main"], None);
        proptest::prop_assert_eq!(records.len(), 1);
    }
}

/// `n` numbered lines.
fn numbered(n: usize, changed: Option<usize>) -> Vec<u8> {
    (0..n)
        .map(|i| match changed {
            Some(c) if c == i => format!("line {i} changed\n"),
            _ => format!("line {i}\n"),
        })
        .collect::<String>()
        .into_bytes()
}

/// `n` lines `WORD I`.
fn counted(word: &str, n: usize) -> Vec<u8> {
    use std::fmt::Write as _;
    let mut out = String::new();
    for i in 0..n {
        let _ = writeln!(out, "{word} {i}");
    }
    out.into_bytes()
}

#[test]
fn a_blob_over_the_big_file_threshold_is_binary_as_git_makes_it_and_the_record_says_so() {
    let context = TestContext::new();
    let dir = context.path("big");
    std::fs::create_dir_all(&dir).unwrap();
    git(&dir, &["init", "-q"]);
    // `diff` set by the attributes keeps a file text whatever its size, as in git.
    write(&dir, b".gitattributes", b"kept.txt diff\n");
    write(&dir, b"big.txt", &numbered(40, None));
    write(&dir, b"kept.txt", &numbered(40, None));
    write(&dir, b"small.txt", &numbered(5, None));
    write(&dir, b"gone.txt", &numbered(40, None));
    commit(&dir, "Files");
    write(&dir, b"big.txt", &numbered(40, Some(3)));
    write(&dir, b"kept.txt", &numbered(40, Some(3)));
    write(&dir, b"small.txt", &numbered(5, Some(3)));
    write(&dir, b"added.txt", &counted("other", 40));
    commit(&dir, "Change them");
    // A file deleted and one added are compared for a rename: git reads both whole, and
    // the size rule no longer makes them binary.
    remove(&dir, b"gone.txt");
    write(&dir, b"third.txt", &counted("third", 40));
    commit(&dir, "Delete one, add one");
    let bare = context.path("big.git");
    git(
        &context.path(""),
        &[
            "clone",
            "-q",
            "--bare",
            dir.to_str().unwrap(),
            bare.to_str().unwrap(),
        ],
    );
    // Each 40-line file is over 200 bytes; the 5-line one is under.
    git(&bare, &["config", "core.bigFileThreshold", "200"]);
    let records = hold_against_git(&context, &bare, &["--range", "main~2..main"], None);
    let patch = records[0]["patch"].as_str().unwrap();
    for binary in [
        "Binary files a/big.txt and b/big.txt differ\n",
        "Binary files /dev/null and b/added.txt differ\n",
    ] {
        assert!(patch.contains(binary), "{binary} in\n{patch}");
    }
    assert!(patch.contains("+line 3 changed\n"), "{patch}");
    let read_for_renames = records[1]["patch"].as_str().unwrap();
    assert!(
        read_for_renames.contains("+third 0\n"),
        "{read_for_renames}"
    );
    assert!(read_for_renames.contains("-line 0\n"), "{read_for_renames}");
    assert!(records[1]["extensions"]["mining"]["big_files"].is_null());
    let big: Vec<(&str, u64)> = records[0]["extensions"]["mining"]["big_files"]
        .as_array()
        .expect("the record lists the files made binary by their size")
        .iter()
        .map(|f| {
            assert!(f["reason"].as_str().unwrap().contains("200 bytes"));
            (f["path"].as_str().unwrap(), f["bytes"].as_u64().unwrap())
        })
        .collect();
    assert_eq!(big, [("added.txt", 350), ("big.txt", 318)]);
}

/// Whether `prlimit` (util-linux) is there to limit the binary's memory.
fn prlimit_found() -> bool {
    Command::new("prlimit")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn a_text_file_the_diff_could_not_allocate_for_is_the_record_s_error_not_an_empty_diff() {
    assert!(
        prlimit_found(),
        "this test needs `prlimit` (util-linux) to limit the binary's memory"
    );
    let context = TestContext::new();
    let dir = context.path("oom");
    std::fs::create_dir_all(&dir).unwrap();
    git(&dir, &["init", "-q"]);
    commit(&dir, "Root");
    // 16 MB of two-byte lines: read in well under the limit, while libgit2's diff of its
    // eight million lines needs more than a gigabyte and fails to allocate.
    write(&dir, b"data.txt", &b"x\n".repeat(8_000_000));
    commit(&dir, "Add data");
    let out = context
        .program("prlimit")
        .arg("--as=500000000")
        .arg("--")
        .arg(common::BIN)
        .args(["isobench", "mine", "--repo"])
        .arg(&dir)
        .args(["--repo-name", "octo/oom", "--head", "HEAD"])
        .output()
        .expect("prlimit runs");
    let err = stderr(&out);
    assert!(!out.status.success(), "{err}");
    assert!(out.stdout.is_empty(), "a record was written: {err}");
    assert!(err.contains("`data.txt`"), "{err}");
    assert!(err.contains("nothing was written"), "{err}");
}

#[test]
fn the_file_core_attributes_file_names_gives_drivers_as_in_git() {
    let context = TestContext::new();
    let dir = context.path("global");
    std::fs::create_dir_all(&dir).unwrap();
    git(&dir, &["init", "-q"]);
    write(
        &dir,
        b"app.cfg",
        b"[server]\nhost=a\nport=1\nx=1\ny=2\nz=3\nw=4\n",
    );
    commit(&dir, "Configuration");
    write(
        &dir,
        b"app.cfg",
        b"[server]\nhost=a\nport=1\nx=1\ny=2\nz=3\nw=5\n",
    );
    commit(&dir, "Change it");
    let bare = context.path("global.git");
    git(
        &context.path(""),
        &[
            "clone",
            "-q",
            "--bare",
            dir.to_str().unwrap(),
            bare.to_str().unwrap(),
        ],
    );
    let attributes = context.write("user.attributes", "*.cfg diff=ini\n");
    git(
        &bare,
        &[
            "config",
            "core.attributesFile",
            attributes.to_str().unwrap(),
        ],
    );
    git(&bare, &["config", "diff.ini.xfuncname", "^\\[(.*)\\]$"]);
    let records = hold_against_git(&context, &bare, &["--head", "main"], None);
    let patch = records[0]["patch"].as_str().unwrap();
    assert!(patch.contains("@@ -4,4 +4,4 @@ server\n"), "{patch}");
}
