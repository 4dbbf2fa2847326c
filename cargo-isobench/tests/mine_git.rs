//! Mined diffs against the `git` command: a history built with `git` itself holds
//! ambiguous hunks for the indent heuristic, empty files, renames on both sides of the
//! 50% threshold, binary and mode changes, a cherry-pick onto a release branch merged
//! back, and a subject naming two pull requests. Every file diff `mine --range` writes
//! must equal the one `git log -p -M --diff-merges=first-parent` writes for the same
//! commit, `index` lines aside; ids must be unique and the pull requests the right ones.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use common::{TestContext, stderr, stdout};

/// `git` with no user or system configuration, a fixed identity and clock.
fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
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
        ])
        .args(args)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A small deterministic generator (no dependency on the test's order or clock).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        usize::try_from((self.0 >> 33) % n as u64).unwrap()
    }
}

/// Python-like lines that repeat, so that many hunks can slide.
const LINES: [&str; 9] = [
    "",
    "",
    "    pass",
    "    return x",
    "def f(x):",
    "@pytest.mark.parametrize(\"x\", [1, 2])",
    "class C:",
    "    # note",
    "}",
];

fn lines(rng: &mut Lcg, n: usize) -> Vec<String> {
    (0..n)
        .map(|_| LINES[rng.next(LINES.len())].to_owned())
        .collect()
}

fn write(dir: &Path, path: &str, content: &[u8]) {
    let path = dir.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

fn text(lines: &[String]) -> String {
    lines.iter().fold(String::new(), |mut out, l| {
        let _ = writeln!(out, "{l}");
        out
    })
}

fn commit(dir: &Path, subject: &str) {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "--allow-empty", "-m", subject]);
}

/// `n` distinct lines of about 40 bytes.
fn distinct(tag: &str, n: usize) -> Vec<String> {
    (0..n)
        .map(|i| format!("value_{tag}_{i:04} = compute({i}, \"{tag}\")"))
        .collect()
}

/// A binary file (a NUL byte) of 20 lines, one more when `longer`.
fn binary(longer: bool) -> Vec<u8> {
    let mut data = b"\x00\x01\x02 binary header\n".to_vec();
    for i in 0..20 + usize::from(longer) {
        data.extend_from_slice(format!("record {i:03} \x00 payload\n").as_bytes());
    }
    data
}

/// Builds the history; returns the root commit.
fn build(dir: &Path) -> String {
    std::fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "-q"]);
    let mut rng = Lcg(7);
    let mut files: Vec<Vec<String>> = (0..4).map(|_| lines(&mut rng, 60)).collect();
    let save = |files: &[Vec<String>]| {
        for (i, f) in files.iter().enumerate() {
            write(dir, &format!("src/m{i}.py"), text(f).as_bytes());
        }
    };
    save(&files);
    let base_rename = distinct("r", 100);
    write(dir, "pkg/near_low.py", text(&base_rename).as_bytes());
    write(
        dir,
        "pkg/near_high.py",
        text(&distinct("h", 100)).as_bytes(),
    );
    write(dir, "pkg/exact.py", text(&distinct("e", 20)).as_bytes());
    write(dir, "pkg/gone_empty.py", b"");
    write(dir, "tool.sh", b"#!/bin/sh\necho hi\n");
    write(dir, "data.bin", &binary(false));
    commit(dir, "Initial layout");
    let root = git(dir, &["rev-parse", "HEAD"]).trim().to_owned();

    // Ambiguous insertions and deletions: runs of repeated lines.
    for n in 0..25 {
        for _ in 0..=rng.next(3) {
            let f = &mut files[rng.next(4)];
            let at = rng.next(f.len() + 1);
            if rng.next(3) == 0 && f.len() > 10 {
                let len = 1 + rng.next(4);
                let end = (at + len).min(f.len());
                f.drain(at.min(end)..end);
            } else {
                let len = 1 + rng.next(5);
                let block = lines(&mut rng, len);
                f.splice(at..at, block);
            }
        }
        save(&files);
        commit(dir, &format!("Edit {n} (#{})", 100 + n));
    }
    // A decorator added above a decorated function: git puts it first.
    write(
        dir,
        "tests/test_deco.py",
        b"import pytest\n\n\n@pytest.mark.a\ndef test_one():\n    pass\n\n\n@pytest.mark.a\ndef test_two():\n    pass\n",
    );
    commit(dir, "Add decorator tests (#200)");
    write(
        dir,
        "tests/test_deco.py",
        b"import pytest\n\n\n@pytest.mark.a\ndef test_one():\n    pass\n\n\n@pytest.mark.a\n@pytest.mark.a\ndef test_two():\n    pass\n\n\n@pytest.mark.a\ndef test_three():\n    pass\n",
    );
    commit(dir, "Mark again (#201)");

    // Empty files: two new ones, then one deleted, then one deleted as another is added
    // (git pairs them as a rename).
    write(dir, "pkg/__init__.py", b"");
    write(dir, "pkg/sub/__init__.py", b"");
    commit(dir, "Empty files (#202)");
    std::fs::remove_file(dir.join("pkg/sub/__init__.py")).unwrap();
    commit(dir, "Drop an empty file (#207)");
    std::fs::remove_file(dir.join("pkg/gone_empty.py")).unwrap();
    write(dir, "pkg/new_empty.py", b"");
    commit(dir, "Rename an empty file (#208)");

    // Renames near the threshold: 40 of 100 lines changed (a rename), 60 changed (not).
    let mut low = base_rename.clone();
    for l in low.iter_mut().take(40) {
        l.push_str("  # changed");
    }
    std::fs::remove_file(dir.join("pkg/near_low.py")).unwrap();
    write(dir, "lib/near_low.py", text(&low).as_bytes());
    let mut high = distinct("h", 100);
    for l in high.iter_mut().skip(40) {
        *l = format!("other = {}", l.len());
    }
    std::fs::remove_file(dir.join("pkg/near_high.py")).unwrap();
    write(dir, "lib/near_high_moved.py", text(&high).as_bytes());
    // An exact rename with a mode change, and a binary file renamed and changed.
    std::fs::remove_file(dir.join("tool.sh")).unwrap();
    write(dir, "bin/tool.sh", b"#!/bin/sh\necho hi\n");
    std::fs::remove_file(dir.join("data.bin")).unwrap();
    write(dir, "assets/data.bin", &binary(true));
    commit(dir, "Move modules (#203)");
    git(dir, &["update-index", "--chmod=+x", "bin/tool.sh"]);
    git(dir, &["commit", "-q", "-m", "Executable (#204)"]);
    // Two sources with the blob of one destination: the same file name wins.
    write(dir, "other/exact.py", text(&distinct("e", 20)).as_bytes());
    commit(dir, "Copy exact (#205)");
    std::fs::remove_file(dir.join("pkg/exact.py")).unwrap();
    std::fs::remove_file(dir.join("other/exact.py")).unwrap();
    write(dir, "moved/exact.py", text(&distinct("e", 20)).as_bytes());
    commit(dir, "Move exact (#206)");

    // A release branch gets a cherry-pick of a main-line fix and is merged back.
    git(dir, &["checkout", "-q", "-b", "release-1.x"]);
    write(dir, "CHANGELOG", b"1.0.1\n");
    commit(dir, "Release 1.0.1");
    git(dir, &["checkout", "-q", "main"]);
    write(dir, "src/fix.py", b"def fix():\n    return 1\n");
    commit(dir, "Fix the thing (#300)");
    let fix = git(dir, &["rev-parse", "HEAD"]).trim().to_owned();
    git(dir, &["checkout", "-q", "release-1.x"]);
    git(dir, &["cherry-pick", "-x", &fix]);
    git(dir, &["checkout", "-q", "main"]);
    git(
        dir,
        &[
            "merge",
            "-q",
            "--no-ff",
            "-m",
            "Merge pull request #301 from owner/release-1.x",
            "release-1.x",
        ],
    );
    // A squash commit whose pull request's title was a merge subject.
    write(dir, "src/fix.py", b"def fix():\n    return 2\n");
    commit(
        dir,
        "Merge pull request #6360 from owner/release-4.6.8 (#6361)",
    );
    root
}

/// A diff's file sections keyed by their `diff --git` line, `index` lines dropped.
fn file_diffs(text: &str) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    let mut key: Option<String> = None;
    for line in text.split_inclusive('\n') {
        if let Some(header) = line.strip_prefix("diff --git ") {
            key = Some(header.trim_end().to_owned());
            files.insert(header.trim_end().to_owned(), String::new());
        }
        if line.starts_with("index ") {
            continue;
        }
        if let Some(k) = &key {
            files.get_mut(k).unwrap().push_str(line);
        }
    }
    files
}

#[test]
fn every_mined_file_diff_equals_git_and_ids_are_unique() {
    let context = TestContext::new();
    let dir = context.path("history");
    let root = build(&dir);
    let range = format!("{root}..main");
    let out = context.run_direct([
        "mine",
        "--repo",
        dir.to_str().unwrap(),
        "--repo-name",
        "octo/hist",
        "--range",
        &range,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let records: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();

    let log = git(
        &dir,
        &[
            "log",
            "-p",
            "-M",
            "--diff-merges=first-parent",
            "--no-color",
            "--format=\u{1}%H",
            &range,
        ],
    );
    let mut theirs: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for chunk in log.split('\u{1}').skip(1) {
        let (sha, rest) = chunk.split_once('\n').unwrap();
        theirs.insert(sha.to_owned(), file_diffs(rest.trim_start_matches('\n')));
    }
    let commits = git(&dir, &["rev-list", "--count", &range]);
    assert_eq!(records.len(), commits.trim().parse::<usize>().unwrap());

    let mut compared = 0;
    let mut renames = 0;
    for record in &records {
        let sha = record["head_commit"].as_str().unwrap();
        let ours = file_diffs(&format!(
            "{}{}",
            record["patch"].as_str().unwrap(),
            record["test_patch"].as_str().unwrap()
        ));
        let git_files = theirs.get(sha).cloned().unwrap_or_default();
        assert_eq!(
            ours.keys().collect::<Vec<_>>(),
            git_files.keys().collect::<Vec<_>>(),
            "files of {sha}"
        );
        for (key, diff) in &ours {
            assert_eq!(diff, &git_files[key], "{sha} {key}");
            compared += 1;
            renames += usize::from(diff.contains("\nrename from "));
        }
    }
    // The history holds what it is meant to: many file diffs, renames among them, and
    // the pair past the threshold git leaves as a deletion and an addition.
    assert!(compared > 40, "{compared} file diffs");
    assert_eq!(renames, 5, "empty, near_low, tool.sh, data.bin, exact.py");
    let all: String = records
        .iter()
        .map(|r| r["patch"].as_str().unwrap())
        .collect();
    let near = all
        .split("diff --git ")
        .find(|f| f.contains("rename from pkg/near_low.py"))
        .unwrap_or_else(|| {
            panic!(
                "the 45%-changed file is a rename: {}",
                all.lines()
                    .filter(|l| l.starts_with("rename") || l.starts_with("similarity"))
                    .collect::<Vec<_>>()
                    .join(" | ")
            )
        });
    let percent: u32 = near
        .split_once("similarity index ")
        .and_then(|(_, rest)| rest.split_once('%'))
        .and_then(|(n, _)| n.parse().ok())
        .unwrap();
    assert!(
        (50..70).contains(&percent),
        "{percent}% is near the threshold"
    );
    // Of two sources with the same blob and file name, the first by path.
    assert!(all.contains("rename from other/exact.py\nrename to moved/exact.py"));
    assert!(
        all.contains("diff --git a/pkg/__init__.py b/pkg/__init__.py\nnew file mode 100644\nindex")
    );
    assert!(
        all.contains("diff --git a/lib/near_high_moved.py b/lib/near_high_moved.py\nnew file mode")
    );

    // Ids: unique; the main-line fix keeps its id, the cherry-pick says what it is.
    let ids: Vec<&str> = records
        .iter()
        .map(|r| r["instance_id"].as_str().unwrap())
        .collect();
    let unique: BTreeSet<&str> = ids.iter().copied().collect();
    assert_eq!(unique.len(), ids.len(), "{ids:?}");
    let fix: Vec<&Value> = records
        .iter()
        .filter(|r| {
            r["gt_commit_message"]
                .as_str()
                .unwrap()
                .starts_with("Fix the thing (#300)")
        })
        .collect();
    assert_eq!(fix.len(), 2);
    let mut fix_ids: Vec<&str> = fix
        .iter()
        .map(|r| r["instance_id"].as_str().unwrap())
        .collect();
    fix_ids.sort_unstable();
    assert_eq!(fix_ids[0], "octo__hist-PR-300");
    assert!(
        fix_ids[1].starts_with("octo__hist-PR-300-backport-"),
        "{fix_ids:?}"
    );
    assert!(
        stderr(&out).contains("PR-300"),
        "the renamed id is announced: {}",
        stderr(&out)
    );
    assert!(ids.contains(&"octo__hist-PR-6361"), "{ids:?}");
    assert!(!ids.contains(&"octo__hist-PR-6360"), "{ids:?}");
}
