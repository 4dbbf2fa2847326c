//! Mining and enrichment against real git repositories built with git2 in temporary
//! directories: the split and the functions of a performance commit, renames, binary and
//! deleted files, merge commits, SWE-smith mirrors, GSO's `<sha>^`, timing logs, the full
//! pipeline to a strict record and its SWE-Perf and GSO views, and the errors.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use git2::{Oid, Repository, Signature, Time};
use serde_json::{Value, json};

use common::{TestContext, stderr, stdout};

// The binary is run by its own name here (`cargo-isobench mine ...`), in the context's
// scratch directory (so that no `isobench.toml` of the source tree is found).

/// Runs `enrich -i INPUT --timings DIR/TIMINGS -o DIR/OUTPUT` in the scratch directory and
/// returns the first record written.
fn enrich_with_timings(context: &TestContext, input: &Path, timings: &str, output: &str) -> Value {
    let written = context.path(output);
    let out = context.run_direct([
        "enrich",
        "-i",
        input.to_str().unwrap(),
        "--timings",
        context.path(timings).to_str().unwrap(),
        "-o",
        written.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = fs::read_to_string(&written).unwrap();
    serde_json::from_str(text.lines().next().unwrap()).unwrap()
}

fn records(out: &Output) -> Vec<Value> {
    assert!(out.status.success(), "stderr: {}", stderr(out));
    stdout(out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// A repository whose trees are written from full file lists.
struct Fixture {
    repo: Repository,
    path: PathBuf,
}

impl Fixture {
    fn new(path: &Path) -> Self {
        fs::create_dir_all(path).unwrap();
        let repo = Repository::init(path).unwrap();
        Self {
            repo,
            path: path.to_owned(),
        }
    }

    /// The tree holding exactly `files`.
    fn tree(&self, files: &[(&str, &[u8])]) -> Oid {
        for entry in fs::read_dir(&self.path).unwrap() {
            let entry = entry.unwrap().path();
            if entry.file_name().unwrap() == ".git" {
                continue;
            }
            if entry.is_dir() {
                fs::remove_dir_all(&entry).unwrap();
            } else {
                fs::remove_file(&entry).unwrap();
            }
        }
        for (name, content) in files {
            let path = self.path.join(name);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, content).unwrap();
        }
        let mut index = self.repo.index().unwrap();
        index.clear().unwrap();
        index
            .add_all(["*"], git2::IndexAddOption::DEFAULT, None)
            .unwrap();
        index.write().unwrap();
        index.write_tree().unwrap()
    }

    /// A commit of `files` with `parents`, at `seconds` in the zone `offset` (minutes).
    fn commit(
        &self,
        files: &[(&str, &[u8])],
        parents: &[Oid],
        message: &str,
        seconds: i64,
        offset: i32,
    ) -> Oid {
        let tree = self.repo.find_tree(self.tree(files)).unwrap();
        let sig = Signature::new("Ada", "ada@example.org", &Time::new(seconds, offset)).unwrap();
        let parents: Vec<git2::Commit<'_>> = parents
            .iter()
            .map(|p| self.repo.find_commit(*p).unwrap())
            .collect();
        let refs: Vec<&git2::Commit<'_>> = parents.iter().collect();
        self.repo
            .commit(None, &sig, &sig, message, &tree, &refs)
            .unwrap()
    }

    fn branch(&self, name: &str, oid: Oid) {
        self.repo
            .reference(&format!("refs/heads/{name}"), oid, true, "test")
            .unwrap();
    }

    fn tree_of(&self, commit: Oid) -> Oid {
        self.repo.find_commit(commit).unwrap().tree_id()
    }
}

const SORT_BASE: &str = "class Sorter:\n    def name(self):\n        return \"sorter\"\n\n    def sort(self, items):\n        out = list(items)\n        out.sort()\n        return out\n\n\ndef helper(x):\n    return x\n";
const SORT_HEAD: &str = "class Sorter:\n    def name(self):\n        return \"sorter\"\n\n    def sort(self, items):\n        if len(items) < 2:\n            return list(items)\n        return sorted(items)\n\n\ndef helper(x):\n    return x\n\n\ndef fast_path(items):\n    return items\n";
const TEST_BASE: &str = "from pkg.sort import Sorter\n\n\ndef test_small():\n    assert Sorter().sort([2, 1]) == [1, 2]\n";
const TEST_HEAD: &str = "from pkg.sort import Sorter\n\n\ndef test_small():\n    assert Sorter().sort([2, 1]) == [1, 2]\n\n\ndef test_large():\n    assert Sorter().sort(range(5)) == list(range(5))\n";
const C_BASE: &str = "#include <stdlib.h>\n\nint sort_ints(int *a, int n)\n{\n    int i;\n    int j;\n    int k;\n    int swaps = 0;\n    for (i = 0; i < n; i++) {\n        swaps += i;\n    }\n    return swaps;\n}\n";
const C_HEAD: &str = "#include <stdlib.h>\n\nint sort_ints(int *a, int n)\n{\n    int i;\n    int j;\n    int k;\n    int swaps = 0;\n    for (i = 1; i < n; i++) {\n        swaps += i;\n    }\n    return swaps;\n}\n";

/// The performance repository: a base commit and a squash-merged performance commit made
/// in India (+05:30). Returns (fixture, base, head).
fn perf_repo(dir: &Path) -> (Fixture, Oid, Oid) {
    let fx = Fixture::new(&dir.join("sorter"));
    let base = fx.commit(
        &[
            ("README.md", b"Sorter\n"),
            ("pkg/sort.py", SORT_BASE.as_bytes()),
            ("native/sort.c", C_BASE.as_bytes()),
            ("tests/test_sort.py", TEST_BASE.as_bytes()),
        ],
        &[],
        "Initial import\n",
        1_699_000_000,
        0,
    );
    let head = fx.commit(
        &[
            ("README.md", b"Sorter\n"),
            ("pkg/sort.py", SORT_HEAD.as_bytes()),
            ("native/sort.c", C_HEAD.as_bytes()),
            ("tests/test_sort.py", TEST_HEAD.as_bytes()),
            ("bench_sort.py", b"print('bench')\n"),
        ],
        &[base],
        "PERF: faster Sorter.sort (#42)\n\nShort inputs skip the copy.\n",
        1_700_000_000,
        330,
    );
    fx.branch("main", head);
    fx.repo.set_head("refs/heads/main").unwrap();
    (fx, base, head)
}

#[test]
fn a_performance_commit_is_split_with_functions_pr_and_utc_time() {
    let context = TestContext::new();
    let (fx, base, head) = perf_repo(context.dir());
    // A configured rule set: the seed's plus `name:bench_*.py`.
    fs::write(
        context.path("isobench.toml"),
        "[test-files]\nrules = [\"dir:tests\", \"name:test_*.py\", \"name:*_test.py\", \"name:bench_*.py\"]\n",
    )
    .unwrap();
    let repo = fx.path.to_str().unwrap();
    let out = context.run_direct([
        "mine",
        "--repo",
        repo,
        "--repo-name",
        "octo/sorter",
        "--head",
        "main",
        "--python",
        "3.11",
        "--install",
        "pip install -e .",
    ]);
    let recs = records(&out);
    assert_eq!(recs.len(), 1);
    let r = &recs[0];
    assert_eq!(r["repo"], "octo/sorter");
    assert_eq!(r["instance_id"], "octo__sorter-PR-42");
    assert_eq!(r["head_commit"], head.to_string());
    assert_eq!(r["base_commit"], base.to_string());
    assert_eq!(r["head_commit"].as_str().unwrap().len(), 40);
    // 1_700_000_000 is 2023-11-14T22:13:20Z; the commit was made at 03:43:20 on the 15th in +05:30.
    assert_eq!(r["created_at"], "2023-11-14T22:13:20Z");
    assert_eq!(
        r["extensions"]["mining"]["created_at_local"],
        "2023-11-15T03:43:20+05:30"
    );
    assert_eq!(
        r["gt_commit_message"],
        "PERF: faster Sorter.sort (#42)\n\nShort inputs skip the copy.\n"
    );
    let patch = r["patch"].as_str().unwrap();
    let test_patch = r["test_patch"].as_str().unwrap();
    assert!(
        patch.contains("diff --git a/pkg/sort.py b/pkg/sort.py\n"),
        "{patch}"
    );
    assert!(patch.contains("diff --git a/native/sort.c b/native/sort.c\n"));
    assert!(!patch.contains("tests/test_sort.py") && !patch.contains("bench_sort.py"));
    assert!(test_patch.contains("diff --git a/tests/test_sort.py b/tests/test_sort.py\n"));
    assert!(
        test_patch.contains("diff --git a/bench_sort.py b/bench_sort.py\nnew file mode 100644\n")
    );
    // The rule of every file.
    assert_eq!(
        r["extensions"]["mining"]["test_files"],
        json!({"bench_sort.py": "name:bench_*.py", "native/sort.c": null, "pkg/sort.py": null, "tests/test_sort.py": "dir:tests"})
    );
    assert_eq!(
        r["patch_functions"],
        json!([
            "native/sort.c::sort_ints",
            "pkg/sort.py::Sorter.sort",
            "pkg/sort.py::fast_path"
        ])
    );
    assert_eq!(
        r["test_functions"],
        json!(["tests/test_sort.py::test_large"])
    );
    assert_eq!(
        r["extensions"]["mining"]["functions"],
        json!({
            "native/sort.c::sort_ints": "hunk-header",
            "pkg/sort.py::Sorter.sort": "python-ast",
            "pkg/sort.py::fast_path": "python-ast",
            "tests/test_sort.py::test_large": "python-ast"
        })
    );
    assert_eq!(
        r["version"],
        format!(
            "python==3.11;arch=x86_64;image=latest;install_sha={}",
            isobench_core::envsig::install_sha(&["pip install -e .".to_owned()])
        )
    );
    assert_eq!(r["install_commands"], json!(["pip install -e ."]));
    // The report says which rule classified each file and how each function was found.
    let err = stderr(&out);
    assert!(
        err.contains("tests/test_sort.py  (rule `dir:tests`)"),
        "{err}"
    );
    assert!(
        err.contains("pkg/sort.py::Sorter.sort  (python-ast)"),
        "{err}"
    );
    // The two parts hold the files `git diff` lists, each once.
    if let Ok(check) = Command::new("git")
        .current_dir(&fx.path)
        .args(["diff", "--name-only", &base.to_string(), &head.to_string()])
        .output()
    {
        let listed = String::from_utf8_lossy(&check.stdout).into_owned();
        assert_eq!(listed.lines().count(), 4, "{listed}");
        for file in listed.lines() {
            let header = format!("diff --git a/{file} b/{file}\n");
            let count = patch.matches(&header).count() + test_patch.matches(&header).count();
            assert_eq!(count, 1, "{file}");
        }
    }
}

#[test]
fn rename_binary_and_deleted_files() {
    let context = TestContext::new();
    let fx = Fixture::new(&context.path("r"));
    let util = "def util(x):\n    return x + 1\n\n\ndef other():\n    return 0\n".repeat(3);
    let base = fx.commit(
        &[("pkg/util.py", util.as_bytes()), ("old.txt", b"gone\n")],
        &[],
        "one\n",
        1_600_000_000,
        -420,
    );
    let head = fx.commit(
        &[
            (
                "pkg/helpers.py",
                util.replacen("x + 1", "x + 2", 1).as_bytes(),
            ),
            ("data/blob.bin", &[0u8, 1, 2, 0, 255, 0, 7][..]),
        ],
        &[base],
        "Reorganise\n",
        1_600_000_100,
        -420,
    );
    let out = context.run_direct([
        "mine",
        "--repo",
        fx.path.to_str().unwrap(),
        "--repo-name",
        "octo/r",
        "--head",
        &head.to_string(),
    ]);
    let r = &records(&out)[0];
    let patch = r["patch"].as_str().unwrap();
    assert!(
        patch.contains("rename from pkg/util.py\nrename to pkg/helpers.py\n"),
        "{patch}"
    );
    assert!(
        patch.contains("Binary files /dev/null and b/data/blob.bin differ\n"),
        "{patch}"
    );
    assert!(
        patch.contains("diff --git a/old.txt b/old.txt\ndeleted file mode 100644\n"),
        "{patch}"
    );
    assert!(
        patch.contains("--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n"),
        "{patch}"
    );
    assert_eq!(r["test_patch"], "");
    // No pull request: `owner__repo-<commit7>`.
    assert_eq!(
        r["instance_id"],
        format!("octo__r-{}", &head.to_string()[..7])
    );
    // -07:00: 1_600_000_100 is 2020-09-13T12:28:20Z.
    assert_eq!(r["created_at"], "2020-09-13T12:28:20Z");
    assert_eq!(r["patch_functions"], json!(["pkg/helpers.py::util"]));
    // The patch applies to the base with git, and gives the head.
    let git = Command::new("git").arg("--version").output();
    if git.is_ok() {
        let work = context.path("apply");
        let status = Command::new("git")
            .args([
                "clone",
                "-q",
                fx.path.to_str().unwrap(),
                work.to_str().unwrap(),
            ])
            .status()
            .unwrap();
        assert!(status.success());
        Command::new("git")
            .current_dir(&work)
            .args(["checkout", "-q", &base.to_string()])
            .status()
            .unwrap();
        fs::write(context.path("p.diff"), patch).unwrap();
        let check = Command::new("git")
            .current_dir(&work)
            .args(["apply", "--check", context.path("p.diff").to_str().unwrap()])
            .output()
            .unwrap();
        // A binary file's diff without `--binary` cannot be applied: git says so, and
        // nothing else is wrong.
        let text = String::from_utf8_lossy(&check.stderr);
        assert!(
            check.status.success() || text.contains("data/blob.bin"),
            "{text}"
        );
    }
}

#[test]
fn a_merge_commit_is_mined_against_its_first_parent() {
    let context = TestContext::new();
    let fx = Fixture::new(&context.path("m"));
    let a = "def f():\n    return 1\n";
    let a2 = "def f():\n    return 2\n";
    let root = fx.commit(
        &[("pkg/a.py", a.as_bytes()), ("b.txt", b"1\n")],
        &[],
        "root\n",
        1_500_000_000,
        60,
    );
    let feature = fx.commit(
        &[("pkg/a.py", a2.as_bytes()), ("b.txt", b"1\n")],
        &[root],
        "faster f\n",
        1_500_000_100,
        60,
    );
    let main = fx.commit(
        &[("pkg/a.py", a.as_bytes()), ("b.txt", b"2\n")],
        &[root],
        "docs\n",
        1_500_000_200,
        60,
    );
    let merge = fx.commit(
        &[("pkg/a.py", a2.as_bytes()), ("b.txt", b"2\n")],
        &[main, feature],
        "Merge pull request #7 from alice/faster-f\n\nfaster f\n",
        1_500_000_300,
        60,
    );
    let out = context.run_direct([
        "mine",
        "--repo",
        fx.path.to_str().unwrap(),
        "--repo-name",
        "octo/m",
        "--head",
        &merge.to_string(),
    ]);
    let r = &records(&out)[0];
    assert_eq!(r["instance_id"], "octo__m-PR-7");
    assert_eq!(r["base_commit"], main.to_string());
    let patch = r["patch"].as_str().unwrap();
    assert!(
        patch.contains("pkg/a.py") && !patch.contains("b.txt"),
        "{patch}"
    );
    assert_eq!(r["patch_functions"], json!(["pkg/a.py::f"]));
    assert_eq!(r["extensions"]["mining"]["merge"], true);
}

#[test]
fn a_range_is_mined_in_order_with_filters() {
    let context = TestContext::new();
    let fx = Fixture::new(&context.path("g"));
    let mut parent = fx.commit(&[("src/a.py", b"x = 0\n")], &[], "root\n", 1_000, 0);
    let root = parent;
    let mut heads = Vec::new();
    for i in 1..=6 {
        let files: Vec<(String, Vec<u8>)> = if i % 2 == 0 {
            vec![
                ("src/a.py".into(), format!("x = {i}\n").into_bytes()),
                ("tests/test_a.py".into(), format!("# {i}\n").into_bytes()),
            ]
        } else {
            vec![
                ("src/a.py".into(), format!("x = {}\n", i - 1).into_bytes()),
                ("tests/test_a.py".into(), format!("# {i}\n").into_bytes()),
            ]
        };
        let refs: Vec<(&str, &[u8])> = files
            .iter()
            .map(|(p, c)| (p.as_str(), c.as_slice()))
            .collect();
        parent = fx.commit(
            &refs,
            &[parent],
            &format!("change {i} (#{i})\n"),
            1_000 + i64::from(i),
            0,
        );
        heads.push(parent);
    }
    let range = format!("{root}..{parent}");
    let out = context.run_direct([
        "mine",
        "--repo",
        fx.path.to_str().unwrap(),
        "--repo-name",
        "octo/g",
        "--range",
        &range,
        "--only-source",
        "--jobs",
        "2",
    ]);
    let recs = records(&out);
    // Odd commits write the value src/a.py already has, so they change only the test file.
    let ids: Vec<&str> = recs
        .iter()
        .map(|r| r["instance_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["octo__g-PR-2", "octo__g-PR-4", "octo__g-PR-6"]);
    assert!(
        stderr(&out).contains("skipped 3: touches only test files"),
        "{}",
        stderr(&out)
    );
    let out = context.run_direct([
        "mine",
        "--repo",
        fx.path.to_str().unwrap(),
        "--repo-name",
        "octo/g",
        "--range",
        &range,
        "--path",
        "tests",
        "--max-files",
        "1",
    ]);
    let recs = records(&out);
    let heads_kept: Vec<&str> = recs
        .iter()
        .map(|r| r["head_commit"].as_str().unwrap())
        .collect();
    let odd: Vec<String> = [0, 2, 4].iter().map(|&i| heads[i].to_string()).collect();
    assert_eq!(
        heads_kept, odd,
        "the odd commits change one file, under tests/"
    );

    // Filters that leave nothing: exit 1 with the reasons, as `convert` does with an input
    // that holds no record, and no empty output file left behind.
    let empty = context.path("empty.jsonl");
    let out = context.run_direct([
        "mine",
        "--repo",
        fx.path.to_str().unwrap(),
        "--repo-name",
        "octo/g",
        "--range",
        &range,
        "--path",
        "docs/",
        "-o",
        empty.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("mined 6 commit(s) and every one was skipped: nothing was written")
            && err.contains("skipped 6: touches none of the `--path` prefixes")
            && err.contains("hint: loosen the filters"),
        "{err}"
    );
    assert!(
        !empty.exists(),
        "no output file is left for an empty result"
    );
}

/// A SWE-smith mirror: branch `<instance_id>` with "Initial commit", "Bug Patch",
/// "Remove F2P Tests". Returns (mirror, initial, bug, removal).
fn smith_mirror(root: &Path, instance: &str) -> (Fixture, Oid, Oid, Oid) {
    let fx = Fixture::new(&root.join("swesmith/octo__lib.1a2b3c4d"));
    let test = "from lib.a import y\n\n\ndef test_y():\n    assert y == 2\n";
    let initial = fx.commit(
        &[
            ("lib/a.py", b"x = 1\ny = 2\n"),
            ("tests/test_a.py", test.as_bytes()),
            ("tests/test_b.py", b"def test_b():\n    pass\n"),
        ],
        &[],
        "Initial commit",
        1_700_000_000,
        0,
    );
    let bug = fx.commit(
        &[
            ("lib/a.py", b"x = 1\n"),
            ("tests/test_a.py", test.as_bytes()),
            ("tests/test_b.py", b"def test_b():\n    pass\n"),
        ],
        &[initial],
        "Bug Patch",
        1_700_000_001,
        0,
    );
    let removal = fx.commit(
        &[
            ("lib/a.py", b"x = 1\n"),
            ("tests/test_b.py", b"def test_b():\n    pass\n"),
        ],
        &[bug],
        "Remove F2P Tests",
        1_700_000_002,
        0,
    );
    fx.branch(instance, removal);
    (fx, initial, bug, removal)
}

const SMITH_ID: &str = "octo__lib.1a2b3c4d.func_pm_remove_assign__abcd1234";

fn smith_row(patch: &str) -> String {
    json!({
        "instance_id": SMITH_ID,
        "patch": patch,
        "FAIL_TO_PASS": ["tests/test_a.py::test_y"],
        "PASS_TO_PASS": [],
        "image_name": "swebench/swesmith.x86_64.octo_1776_lib.1a2b3c4d",
        "repo": "swesmith/octo__lib.1a2b3c4d",
        "problem_statement": "y is gone"
    })
    .to_string()
}

const BUG_PATCH: &str = "diff --git a/lib/a.py b/lib/a.py\n--- a/lib/a.py\n+++ b/lib/a.py\n@@ -1,2 +1,1 @@\n x = 1\n-y = 2\n";

#[test]
fn swe_smith_test_patch_is_rebuilt_from_the_mirror_and_applies() {
    let context = TestContext::new();
    let repos = context.path("repos");
    let (fx, _initial, bug, removal) = smith_mirror(&repos, SMITH_ID);
    let input = context.path("in.jsonl");
    fs::write(&input, smith_row(BUG_PATCH) + "\n").unwrap();
    let out = context.run_direct([
        "convert",
        "--from",
        "swe-smith",
        "--to",
        "canonical",
        "-i",
        input.to_str().unwrap(),
        "--repos",
        repos.to_str().unwrap(),
    ]);
    let r = &records(&out)[0];
    let test_patch = r["test_patch"].as_str().unwrap();
    assert!(
        test_patch
            .starts_with("diff --git a/tests/test_a.py b/tests/test_a.py\nnew file mode 100644\n"),
        "{test_patch}"
    );
    assert_eq!(r["extensions"]["mirror_base_commit"], bug.to_string());
    assert!(
        !stderr(&out).contains("does not give the tree"),
        "{}",
        stderr(&out)
    );
    // Proof: the test patch applied to the agent's state ("Remove F2P Tests") gives the
    // "Bug Patch" tree, with the F2P tests back.
    let diff = git2::Diff::from_buffer(test_patch.as_bytes()).unwrap();
    let removal_tree = fx.repo.find_commit(removal).unwrap().tree().unwrap();
    let mut index = fx.repo.apply_to_tree(&removal_tree, &diff, None).unwrap();
    let rebuilt = index.write_tree_to(&fx.repo).unwrap();
    assert_eq!(rebuilt, fx.tree_of(bug));

    // A fix patch that does not give the clean tree is reported, never hidden.
    let wrong = BUG_PATCH.replace("-y = 2", "-y = 3");
    fs::write(&input, smith_row(&wrong) + "\n").unwrap();
    let report = context.path("report.json");
    let out = context.run_direct([
        "convert",
        "--from",
        "swe-smith",
        "--to",
        "canonical",
        "-i",
        input.to_str().unwrap(),
        "--repos",
        repos.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report = fs::read_to_string(report).unwrap();
    assert!(
        report.contains("does not give the tree of its parent"),
        "{report}"
    );
}

#[test]
fn a_missing_mirror_branch_or_repository_names_the_record() {
    let context = TestContext::new();
    let repos = context.path("repos");
    smith_mirror(&repos, "some-other-branch");
    let input = context.path("in.jsonl");
    fs::write(&input, smith_row(BUG_PATCH) + "\n").unwrap();
    let out = context.run_direct([
        "convert",
        "--from",
        "swe-smith",
        "--to",
        "canonical",
        "-i",
        input.to_str().unwrap(),
        "--repos",
        repos.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains(&format!("record `{SMITH_ID}`")) && err.contains("has no branch"),
        "{err}"
    );
    let out = context.run_direct([
        "convert",
        "--from",
        "swe-smith",
        "--to",
        "canonical",
        "-i",
        input.to_str().unwrap(),
        "--repos",
        context.path("nowhere").to_str().unwrap(),
    ]);
    let err = stderr(&out);
    assert!(
        err.contains("no local repository for `swesmith/octo__lib.1a2b3c4d`"),
        "{err}"
    );
}

#[test]
fn gso_base_with_caret_is_resolved() {
    let context = TestContext::new();
    let repos = context.path("repos");
    let (_fx, base, head) = perf_repo(&repos.join("octo"));
    fs::rename(repos.join("octo/sorter"), repos.join("octo/sorter.git")).unwrap();
    let row = json!({
        "instance_id": format!("octo__sorter-{}", &head.to_string()[..7]),
        "repo": "octo/sorter",
        "base_commit": format!("{head}^"),
        "opt_commit": head.to_string(),
        "api": "pkg.sort.Sorter.sort",
        "prob_script": "print(1)\n",
        "tests": ["print('Execution time: 1.0s')\n"],
        "hints_text": "PERF: faster Sorter.sort (#42)\n",
        "setup_commands": [],
        "install_commands": ["pip install -e ."],
        "created_at": "2023-11-15 03:43:20",
        "gt_commit_message": "PERF: faster Sorter.sort (#42)\n",
        "gt_diff": "",
        "arch": "x86_64",
        "instance_image_tag": "latest"
    });
    let input = context.path("gso.jsonl");
    fs::write(&input, row.to_string() + "\n").unwrap();
    let out = context.run_direct([
        "convert",
        "--from",
        "gso",
        "--to",
        "canonical",
        "-i",
        input.to_str().unwrap(),
        "--repos",
        repos.to_str().unwrap(),
    ]);
    let r = &records(&out)[0];
    assert_eq!(r["base_commit"], base.to_string());
    assert!(r["extensions"].get("base_commit_unresolved").is_none());
    // Back to GSO: a full SHA now.
    let canon = context.path("c.jsonl");
    fs::write(&canon, stdout(&out)).unwrap();
    let out = context.run_direct([
        "convert",
        "--from",
        "canonical",
        "--to",
        "gso",
        "-i",
        canon.to_str().unwrap(),
        // The row's `gt_diff` is empty, which GSO's harness would refuse.
        "--allow-incomplete",
    ]);
    assert_eq!(records(&out)[0]["base_commit"], base.to_string());
}

#[test]
fn swe_bench_head_commit_from_the_pr_number() {
    let context = TestContext::new();
    let repos = context.path("repos");
    let (_fx, base, head) = perf_repo(&repos.join("octo"));
    let mut row: serde_json::Map<String, Value> = serde_json::from_str(
        fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../examples/data/swe-bench-verified.sample.jsonl"),
        )
        .unwrap()
        .lines()
        .next()
        .unwrap(),
    )
    .unwrap();
    row.insert("repo".into(), "octo/sorter".into());
    row.insert("instance_id".into(), "octo__sorter-42".into());
    row.insert("base_commit".into(), base.to_string().into());
    let input = context.path("sb.jsonl");
    let mut missing = row.clone();
    missing.insert("instance_id".into(), "octo__sorter-43".into());
    fs::write(
        &input,
        format!("{}\n{}\n", Value::Object(row), Value::Object(missing)),
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
        repos.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]);
    let recs = records(&out);
    assert_eq!(recs[0]["head_commit"], head.to_string());
    assert!(recs[1].get("head_commit").is_none());
    let report = fs::read_to_string(report).unwrap();
    assert!(
        report.contains("pull request #43 has no merge or squash commit"),
        "{report}"
    );
}

fn write_json_report(path: &Path, tests: &[(&str, f64)]) {
    let tests: Vec<Value> = tests
        .iter()
        .map(|(id, d)| json!({"nodeid": id, "outcome": "passed", "setup": {"duration": 0.01}, "call": {"duration": d}}))
        .collect();
    fs::write(
        path,
        json!({"created": 1.0, "duration": 1.0, "tests": tests}).to_string(),
    )
    .unwrap();
}

/// Mines the performance commit of [`perf_repo`] with an environment, to `mined.jsonl`.
fn mine_perf_commit(context: &TestContext) -> PathBuf {
    let (fx, _base, _head) = perf_repo(context.dir());
    let mined = context.path("mined.jsonl");
    let out = context.run_direct([
        "mine",
        "--repo",
        fx.path.to_str().unwrap(),
        "--repo-name",
        "octo/sorter",
        "--head",
        "HEAD",
        "--python",
        "3.11",
        "--install",
        "pip install -e .",
        "-o",
        mined.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    mined
}

/// The two tests of [`perf_repo`], as the timing logs name them.
const LARGE: &str = "tests/test_sort.py::test_large";
const SMALL: &str = "tests/test_sort.py::test_small";

/// Timing logs under `timings/`: two runs per side as pytest-json-report files, one as
/// `--durations` text.
fn write_pytest_logs(context: &TestContext) {
    let logs = context.path("timings/octo__sorter-PR-42");
    fs::create_dir_all(logs.join("base")).unwrap();
    fs::create_dir_all(logs.join("head")).unwrap();
    write_json_report(&logs.join("base/run1.json"), &[(LARGE, 2.0), (SMALL, 1.0)]);
    write_json_report(&logs.join("base/run2.json"), &[(LARGE, 2.2), (SMALL, 1.2)]);
    write_json_report(&logs.join("head/run1.json"), &[(LARGE, 1.0), (SMALL, 1.0)]);
    fs::write(
        logs.join("head/run2.txt"),
        format!("==== slowest durations ====\n1.10s call     {LARGE}\n1.20s call     {SMALL}\n0.01s setup    {SMALL}\n"),
    )
    .unwrap();
}

/// The enriched record converts to a strict canonical record, which `validate` accepts.
fn assert_strict_and_valid(context: &TestContext, enriched: &Path) {
    let strict = context.path("strict.jsonl");
    let out = context.run_direct([
        "convert",
        "--from",
        "canonical",
        "--to",
        "canonical",
        "--profile",
        "strict",
        "-i",
        enriched.to_str().unwrap(),
        "-o",
        strict.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = context.run_direct([
        "validate",
        "--format",
        "canonical",
        "--profile",
        "strict",
        strict.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
}

/// The enriched record's SWE-Perf view.
fn assert_swe_perf_view(context: &TestContext, enriched: &Path) {
    let out = context.run_direct([
        "convert",
        "--from",
        "canonical",
        "--to",
        "swe-perf",
        "-i",
        enriched.to_str().unwrap(),
        // SWE-Perf's `version` is the release its harness keys on, which git cannot tell.
        "--set",
        "extensions.upstream_version=\"1.0\"",
        // Nor can it tell the two problem statements of the published columns.
        "--allow-incomplete",
    ]);
    let perf = &records(&out)[0];
    let said = stderr(&out);
    assert!(said.contains("incomplete: 1 record(s)"), "{said}");
    assert!(
        said.contains("problem_statement_oracle: 1 record(s)"),
        "{said}"
    );
    assert_eq!(perf["instance_id"], "octo__sorter-PR-42");
    let changes: Value = serde_json::from_str(perf["duration_changes"].as_str().unwrap()).unwrap();
    assert_eq!(changes[0][LARGE], json!({"base": 2.0, "head": 1.0}));
}

/// The GSO view: GSO's tests are scripts printing `Execution time: <s>s`, so the same
/// mined record gets a script as its efficiency test and GSO-style logs (one per run),
/// plus what GSO needs and git cannot tell (`api`, `prob_script`, `setup_commands`).
/// `r` is the record enriched with the pytest timings.
fn assert_gso_view(context: &TestContext, mined: &Path, r: &Value) {
    let script = "import timeit\nprint(f'Execution time: {timeit.timeit(number=1):.6f}s')\n";
    let with_script = context.path("script.jsonl");
    let tests_json = json!([script]).to_string();
    let set_tests = format!("efficiency_test={tests_json}");
    let out = context.run_direct([
        "convert",
        "--from",
        "canonical",
        "--to",
        "canonical",
        "-i",
        mined.to_str().unwrap(),
        "-o",
        with_script.to_str().unwrap(),
        "--set",
        &set_tests,
        "--set",
        "extensions.efficiency_test_kind=python_script",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let gso_logs = context.path("gso-timings/octo__sorter-PR-42");
    fs::create_dir_all(&gso_logs).unwrap();
    fs::write(
        gso_logs.join("base.test0.txt"),
        "Execution time: 0.900000s\nExecution time: 1.100000s\n",
    )
    .unwrap();
    fs::write(
        gso_logs.join("head.test0.txt"),
        "Execution time: 0.250000s\nExecution time: 0.250000s\n",
    )
    .unwrap();
    let g = enrich_with_timings(context, &with_script, "gso-timings", "gso-enriched.jsonl");
    let gso_enriched = context.path("gso-enriched.jsonl");
    // mean(0.9, 1.1) / mean(0.25, 0.25) = 4.
    assert_eq!(g["human_performance"], json!(4.0));
    let out = context.run_direct([
        "convert",
        "--from",
        "canonical",
        "--to",
        "canonical",
        "--profile",
        "strict",
        "-i",
        gso_enriched.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = context.run_direct([
        "convert",
        "--from",
        "canonical",
        "--to",
        "gso",
        "-i",
        gso_enriched.to_str().unwrap(),
        "--set",
        "api=pkg.sort.Sorter.sort",
        "--set",
        "extensions.prob_script=print(1)",
        "--set",
        "setup_commands=[]",
    ]);
    let gso = &records(&out)[0];
    assert_eq!(gso["opt_commit"], r["head_commit"]);
    assert_eq!(gso["base_commit"], r["base_commit"]);
    assert_eq!(gso["tests"], json!([script]));
    assert_eq!(gso["install_commands"], json!(["pip install -e ."]));
    assert_eq!(gso["hints_text"], r["gt_commit_message"]);
}

#[test]
fn full_pipeline_mine_timings_strict_and_views() {
    let context = TestContext::new();
    let mined = mine_perf_commit(&context);
    write_pytest_logs(&context);
    let r = enrich_with_timings(&context, &mined, "timings", "enriched.jsonl");
    let enriched = context.path("enriched.jsonl");
    assert_eq!(r["efficiency_test"], json!([LARGE, SMALL]));
    assert_eq!(
        r["duration_changes"],
        json!([{"base": [2.0, 2.2], "head": [1.0, 1.1]}, {"base": [1.0, 1.2], "head": [1.0, 1.2]}])
    );
    // large: 2.1 / 1.05 = 2; small: 1.1 / 1.1 = 1; geometric mean sqrt(2).
    let hp = r["human_performance"].as_f64().unwrap();
    assert!((hp - 2f64.sqrt()).abs() < 1e-12, "{hp}");
    assert_strict_and_valid(&context, &enriched);
    assert_swe_perf_view(&context, &enriched);
    assert_gso_view(&context, &mined, &r);
}

#[test]
fn timing_log_errors() {
    let context = TestContext::new();
    let empty = context.path("empty.log");
    fs::write(&empty, "collected 2 items\n2 passed\n").unwrap();
    let good = context.path("good.log");
    fs::write(
        &good,
        "Execution time: 1.500000s\nExecution time: 1.000000s\n",
    )
    .unwrap();
    let out = context.run_direct([
        "timings",
        "--base",
        empty.to_str().unwrap(),
        "--head",
        good.to_str().unwrap(),
        "--test",
        "perf.py",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("empty.log`: no timings found"),
        "{}",
        stderr(&out)
    );
    // GSO-style logs for one script: speedup 1.25 / 0.5 = 2.5.
    let head = context.path("head.log");
    fs::write(&head, "Execution time: 0.500000s\n").unwrap();
    let out = context.run_direct([
        "timings",
        "--base",
        good.to_str().unwrap(),
        "--head",
        head.to_str().unwrap(),
        "--test",
        "perf.py",
    ]);
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["human_performance"], json!(2.5));
    assert_eq!(
        v["duration_changes"],
        json!([{"base": [1.5, 1.0], "head": [0.5]}])
    );
    // Logs naming tests the record does not list.
    let record =
        json!({"repo": "octo/x", "instance_id": "octo__x-1", "efficiency_test": ["t.py::a"]});
    let input = context.path("r.jsonl");
    fs::write(&input, record.to_string() + "\n").unwrap();
    let logs = context.path("t/octo__x-1");
    fs::create_dir_all(&logs).unwrap();
    write_json_report(&logs.join("base.json"), &[("t.py::b", 1.0)]);
    write_json_report(&logs.join("head.json"), &[("t.py::b", 1.0)]);
    let out = context.run_direct([
        "enrich",
        "-i",
        input.to_str().unwrap(),
        "--timings",
        context.path("t").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("record `octo__x-1`") && err.contains("does not list: t.py::b"),
        "{err}"
    );
}

#[test]
fn repository_errors() {
    let context = TestContext::new();
    let plain = context.path("plain");
    fs::create_dir_all(&plain).unwrap();
    let out = context.run_direct([
        "mine",
        "--repo",
        plain.to_str().unwrap(),
        "--repo-name",
        "o/r",
        "--head",
        "HEAD",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("is not a git repository"),
        "{}",
        stderr(&out)
    );

    let (fx, _base, _head) = perf_repo(context.dir());
    let repo = fx.path.to_str().unwrap();
    let out = context.run_direct([
        "mine",
        "--repo",
        repo,
        "--repo-name",
        "o/r",
        "--head",
        "no-such-branch",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("unknown revision `no-such-branch`"),
        "{}",
        stderr(&out)
    );

    // A shallow clone made by git: the head's parent is cut off.
    let shallow = context.path("shallow");
    let url = format!("file://{}", fx.path.display());
    let cloned = Command::new("git")
        .args([
            "clone",
            "-q",
            "--depth",
            "1",
            &url,
            shallow.to_str().unwrap(),
        ])
        .status();
    match cloned {
        Ok(status) if status.success() => {
            let out = context.run_direct([
                "mine",
                "--repo",
                shallow.to_str().unwrap(),
                "--repo-name",
                "o/r",
                "--head",
                "HEAD",
            ]);
            assert_eq!(out.status.code(), Some(2));
            let err = stderr(&out);
            assert!(
                err.contains("shallow history") && err.contains("--unshallow"),
                "{err}"
            );
        }
        _ => eprintln!("skipped: the shallow case needs the git command"),
    }
}

#[test]
fn enrich_gives_a_d6_version_to_records_without_one() {
    let context = TestContext::new();
    let input = context.path("in.jsonl");
    fs::write(&input, smith_row(BUG_PATCH) + "\n").unwrap();
    let out = context.run_direct([
        "enrich",
        "--from",
        "swe-smith",
        "-i",
        input.to_str().unwrap(),
        "--python",
        "3.10",
    ]);
    let r = &records(&out)[0];
    // No install commands: the hash of the empty text, sha256("") = e3b0c442...
    assert_eq!(
        r["version"],
        "python==3.10;arch=x86_64;image=latest;install_sha=e3b0c442"
    );
}

#[test]
fn an_origin_on_a_local_path_names_the_repository_with_a_warning() {
    let context = TestContext::new();
    let (fx, _base, _head) = perf_repo(context.dir());
    let repo = fx.path.to_str().unwrap();
    let mine = || context.run_direct(["mine", "--repo", repo, "--head", "HEAD"]);
    // A clone's `origin` on this machine: named after its last two directories, with a
    // warning saying so and how to name it.
    let local = context.path("mirrors/acme/sorter");
    fx.repo.remote("origin", local.to_str().unwrap()).unwrap();
    let out = mine();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(records(&out)[0]["repo"], "acme/sorter");
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "warning: the `origin` of `{repo}` is the local path `{}`: the records name the repository `acme/sorter` after its last two directories",
            local.display()
        )) && err.contains("hint: give the repository's real name with `--repo-name OWNER/NAME`"),
        "{err}"
    );
    // A hosted `origin`: no warning.
    fx.repo
        .remote_set_url("origin", "https://github.com/acme/sorter.git")
        .unwrap();
    let out = mine();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(records(&out)[0]["repo"], "acme/sorter");
    assert!(!stderr(&out).contains("warning"), "{}", stderr(&out));
}

/// A SWE-bench row of the shipped sample, renamed to `instance` of `repo` at `base`.
fn swe_bench_row(repo: &str, instance: &str, base: Oid) -> Value {
    let mut row: serde_json::Map<String, Value> = serde_json::from_str(
        fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../examples/data/swe-bench-verified.sample.jsonl"),
        )
        .unwrap()
        .lines()
        .next()
        .unwrap(),
    )
    .unwrap();
    row.insert("repo".into(), repo.into());
    row.insert("instance_id".into(), instance.into());
    row.insert("base_commit".into(), base.to_string().into());
    Value::Object(row)
}

#[test]
fn the_head_commit_descends_from_the_base_and_prefers_the_mainline_over_a_backport() {
    let context = TestContext::new();
    let repos = context.path("repos");
    let fx = Fixture::new(&repos.join("octo/lib"));
    let v = |n: u32| format!("def f():\n    return {n}\n");
    let root = fx.commit(&[("lib/a.py", v(0).as_bytes())], &[], "root\n", 1_000, 0);
    let base = fx.commit(&[("lib/a.py", v(1).as_bytes())], &[root], "one\n", 2_000, 0);
    // Pull request #5, merged on main.
    let fix = fx.commit(
        &[("lib/a.py", v(5).as_bytes())],
        &[base],
        "Fix f\n",
        3_000,
        0,
    );
    let merge = fx.commit(
        &[("lib/a.py", v(5).as_bytes())],
        &[base, fix],
        "Merge pull request #5 from alice/fix\n",
        4_000,
        0,
    );
    // Pull request #6, squashed twice on main (landed, reverted, landed again).
    let six = fx.commit(
        &[("lib/a.py", v(6).as_bytes())],
        &[merge],
        "Six (#6)\n",
        5_000,
        0,
    );
    let revert = fx.commit(
        &[("lib/a.py", v(5).as_bytes())],
        &[six],
        "Revert \"Six (#6)\"\n",
        6_000,
        0,
    );
    let six_again = fx.commit(
        &[("lib/a.py", v(6).as_bytes())],
        &[revert],
        "Six again (#6)\n",
        7_000,
        0,
    );
    fx.branch("main", six_again);
    // Backports of #5, newer than the merge: `1.x` forked before the base, `2.x` at it.
    let old_backport = fx.commit(
        &[("lib/a.py", v(5).as_bytes())],
        &[root],
        "Fix f (#5)\n",
        8_000,
        0,
    );
    fx.branch("1.x", old_backport);
    let new_backport = fx.commit(
        &[("lib/a.py", v(5).as_bytes()), ("NEWS", b"5\n")],
        &[base],
        "Fix f (#5)\n",
        9_000,
        0,
    );
    fx.branch("2.x", new_backport);
    // Pull request #7 exists only on `1.x`, which does not descend from the base.
    let seven = fx.commit(
        &[("lib/a.py", v(7).as_bytes())],
        &[old_backport],
        "Seven (#7)\n",
        10_000,
        0,
    );
    fx.branch("1.x", seven);
    fx.repo.set_head("refs/heads/1.x").unwrap();
    fx.repo
        .reference_symbolic("refs/remotes/origin/HEAD", "refs/heads/main", true, "test")
        .unwrap();

    let input = context.path("sb.jsonl");
    let rows: Vec<String> = ["octo__lib-5", "octo__lib-6", "octo__lib-7"]
        .iter()
        .map(|id| swe_bench_row("octo/lib", id, base).to_string())
        .collect();
    fs::write(&input, rows.join("\n") + "\n").unwrap();
    let report = context.path("report.json");
    let out = context.run_direct([
        "enrich",
        "--from",
        "swe-bench",
        "-i",
        input.to_str().unwrap(),
        "--repos",
        repos.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]);
    let recs = records(&out);
    assert_eq!(
        recs[0]["head_commit"],
        merge.to_string(),
        "the mainline merge"
    );
    assert_eq!(recs[0]["extensions"]["mining"]["pr_number"], 5);
    // Both squashes of #6 qualify: the oldest is picked and both are named.
    assert_eq!(recs[1]["head_commit"], six.to_string());
    assert_eq!(
        recs[1]["extensions"]["mining"]["head_commit_candidates"],
        json!([six.to_string(), six_again.to_string()])
    );
    assert_eq!(recs[1]["extensions"]["mining"]["pr_number"], 6);
    assert!(recs[2].get("head_commit").is_none());
    let report: Value = serde_json::from_str(&fs::read_to_string(report).unwrap()).unwrap();
    assert_eq!(report["derived"]["head_commit"]["records"], 2);
    let rule = report["derived"]["head_commit"]["detail"].as_str().unwrap();
    assert!(!rule.contains("#5") && !rule.contains("#6"), "{rule}");
    // Only #7 is missing: a derived head is not also counted missing.
    assert_eq!(report["missing"]["head_commit"]["records"], 1);
    let warnings: Vec<(&str, &str)> = report["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["field"] == "head_commit")
        .map(|w| {
            (
                w["instance_id"].as_str().unwrap(),
                w["message"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert_eq!(warnings[0].0, "octo__lib-6");
    assert!(
        warnings[0].1.contains("2 commits of pull request #6")
            && warnings[0].1.contains(&six.to_string()[..10])
            && warnings[0].1.contains(&six_again.to_string()[..10]),
        "{}",
        warnings[0].1
    );
    assert_eq!(warnings[1].0, "octo__lib-7");
    assert!(
        warnings[1].1.contains("do not descend from base_commit")
            && warnings[1].1.contains(&seven.to_string()[..10]),
        "{}",
        warnings[1].1
    );
}

#[test]
fn a_reversed_or_empty_range_exits_1_with_a_hint() {
    let context = TestContext::new();
    let (fx, base, head) = perf_repo(context.dir());
    let repo = fx.path.to_str().unwrap();
    let mine = |range: &str| {
        context.run_direct([
            "mine",
            "--repo",
            repo,
            "--repo-name",
            "o/r",
            "--range",
            range,
        ])
    };
    let out = mine(&format!("{head}..{base}"));
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).is_empty());
    let err = stderr(&out);
    assert!(
        err.contains("holds no commit") && err.contains("hint:") && err.contains("reversed"),
        "{err}"
    );
    let out = mine("main..main");
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("the same commit"), "{}", stderr(&out));
    assert_eq!(records(&mine(&format!("{base}..{head}"))).len(), 1);
}

fn as_bytes<'a>(files: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a [u8])> {
    files.iter().map(|(p, c)| (*p, c.as_bytes())).collect()
}

/// Mines one commit turning `base` into `head` (file lists) with the test-file `rules`
/// (the default rules when empty) and `extra` arguments; returns the record.
fn mine_change(
    base: &[(&str, &str)],
    head: &[(&str, &str)],
    rules: &[&str],
    extra: &[&str],
) -> Value {
    let context = TestContext::new();
    if !rules.is_empty() {
        context.write(
            "isobench.toml",
            format!("[test-files]\nrules = {}\n", json!(rules)),
        );
    }
    let fx = Fixture::new(&context.path("r"));
    let b = fx.commit(&as_bytes(base), &[], "base\n", 1_000, 0);
    let h = fx.commit(&as_bytes(head), &[b], "change (#1)\n", 2_000, 0);
    let head_rev = h.to_string();
    let mut args = vec![
        "mine",
        "--repo",
        fx.path.to_str().unwrap(),
        "--repo-name",
        "o/r",
        "--head",
        &head_rev,
    ];
    args.extend_from_slice(extra);
    let out = context.run_direct(&args);
    records(&out).remove(0)
}

#[test]
fn a_decorator_only_change_belongs_to_the_decorated_function() {
    let base = "import pytest\n\n\n@pytest.mark.parametrize(\"v\", [1])\ndef test_v(v):\n    assert v\n\n\ndef test_other():\n    assert True\n";
    let head = base.replace("[1]", "[1, 2]");
    let r = mine_change(
        &[("tests/test_v.py", base)],
        &[("tests/test_v.py", &head)],
        &[],
        &[],
    );
    assert_eq!(r["test_functions"], json!(["tests/test_v.py::test_v"]));
}

#[test]
fn nested_functions_are_named_outer_inner_with_their_decorators() {
    let base = "import functools\n\n\ndef outer(f):\n    @functools.wraps(f)\n    def inner(*a):\n        return f(*a)\n    return inner\n\n\nclass TestNested:\n    def test_uses_a_helper(self):\n        def helper(x):\n            return x\n        assert helper(1) == 1\n";
    let head = base
        .replace("@functools.wraps(f)", "@functools.wraps(f, updated=())")
        .replace("return x\n", "return x * 1\n");
    let r = mine_change(
        &[("pkg/deco.py", base), ("tests/test_nested.py", base)],
        &[("pkg/deco.py", &head), ("tests/test_nested.py", &head)],
        &[],
        &[],
    );
    // In a source file, the innermost definition; in a test file, the test it is in.
    assert_eq!(
        r["patch_functions"],
        json!([
            "pkg/deco.py::outer.inner",
            "pkg/deco.py::TestNested.test_uses_a_helper.helper"
        ])
    );
    assert_eq!(
        r["test_functions"],
        json!(["tests/test_nested.py::TestNested.test_uses_a_helper"])
    );
}

/// The rules the language tests use: the seed's and the usual ones of each ecosystem.
const LANGUAGE_RULES: [&str; 5] = [
    "dir:tests",
    "dir:test",
    "name:*_test.go",
    "name:*.test.js",
    "name:*Test.java",
];

#[test]
fn java_methods_constructors_nested_classes_and_annotated_tests() {
    let base = "package com.x;\n\npublic class Parser {\n    private final int n;\n\n    public Parser(int n) {\n        this.n = n;\n    }\n\n    @Override\n    public String toString() {\n        return \"p\";\n    }\n\n    static class Inner {\n        int size() {\n            return 1;\n        }\n    }\n}\n";
    let head = base
        .replace("this.n = n;", "this.n = n + 1;")
        .replace("@Override", "@Override\n    @Deprecated")
        .replace("return 1;", "return 2;");
    let test_base = "package com.x;\n\nimport org.junit.jupiter.api.Test;\n\nclass ParserTest {\n    @Test\n    void parsesEmpty() {\n        assert new Parser(0) != null;\n    }\n\n    private int helper() {\n        return 0;\n    }\n}\n";
    let test_head = test_base
        .replace("new Parser(0)", "new Parser(1)")
        .replace("return 0;", "return 1;");
    let r = mine_change(
        &[
            ("src/main/java/com/x/Parser.java", base),
            ("src/test/java/com/x/ParserTest.java", test_base),
        ],
        &[
            ("src/main/java/com/x/Parser.java", &head),
            ("src/test/java/com/x/ParserTest.java", &test_head),
        ],
        &LANGUAGE_RULES,
        &[],
    );
    let p = "src/main/java/com/x/Parser.java";
    // Functions with removed lines first, then those with added lines only (the new
    // annotation line).
    assert_eq!(
        r["patch_functions"],
        json!([
            format!("{p}::Parser.Parser"),
            format!("{p}::Parser.Inner.size"),
            format!("{p}::Parser.toString")
        ])
    );
    // `helper` changed too, but it is not a test.
    assert_eq!(
        r["test_functions"],
        json!(["src/test/java/com/x/ParserTest.java::ParserTest.parsesEmpty"])
    );
    assert_eq!(
        r["extensions"]["mining"]["functions"][format!("{p}::Parser.toString")],
        "java-ast"
    );
}

#[test]
fn go_functions_and_methods_with_their_receiver() {
    let base = "package srv\n\ntype Server struct{ n int }\n\nfunc (s *Server) Serve() error {\n\ts.n++\n\treturn nil\n}\n\nfunc helper() int {\n\treturn 1\n}\n";
    let head = base
        .replace("s.n++", "s.n += 2")
        .replace("return 1", "return 2");
    let test_base = "package srv\n\nimport \"testing\"\n\nfunc TestServe(t *testing.T) {\n\t_ = (&Server{}).Serve()\n}\n\nfunc setup() {}\n";
    let test_head = test_base
        .replace(
            "_ = (&Server{}).Serve()",
            "if (&Server{}).Serve() != nil {\n\t\tt.Fatal()\n\t}",
        )
        .replace("func setup() {}", "func setup() { _ = 1 }");
    let r = mine_change(
        &[("srv/server.go", base), ("srv/server_test.go", test_base)],
        &[("srv/server.go", &head), ("srv/server_test.go", &test_head)],
        &LANGUAGE_RULES,
        &[],
    );
    assert_eq!(
        r["patch_functions"],
        json!(["srv/server.go::Server.Serve", "srv/server.go::helper"])
    );
    assert_eq!(
        r["test_functions"],
        json!(["srv/server_test.go::TestServe"])
    );
    assert_eq!(
        r["extensions"]["mining"]["functions"]["srv/server.go::helper"],
        "go-ast"
    );
}

#[test]
fn javascript_functions_classes_and_describe_it_tests() {
    let base = "function sum(a, b) {\n  return a + b;\n}\n\nconst twice = (x) => {\n  return x * 2;\n};\n\nclass Calc {\n  add(a) {\n    return a;\n  }\n}\n\nmodule.exports = { sum, twice, Calc };\n";
    let head = base
        .replace("a + b", "b + a")
        .replace("x * 2", "x + x")
        .replace("return a;", "return a + 0;");
    let test_base = "const { sum } = require('./sum');\n\ndescribe('sum', () => {\n  it('adds', () => {\n    expect(sum(1, 2)).toBe(3);\n  });\n  it('is stable', () => {\n    expect(sum(0, 0)).toBe(0);\n  });\n  it(`\"quoted\" ends`, () => {\n    expect(sum(5, 5)).toBe(10);\n  });\n});\n";
    let test_head = test_base
        .replace("sum(1, 2)).toBe(3)", "sum(2, 2)).toBe(4)")
        .replace("sum(5, 5)).toBe(10)", "sum(5, 6)).toBe(11)");
    let r = mine_change(
        &[("lib/sum.js", base), ("lib/sum.test.js", test_base)],
        &[("lib/sum.js", &head), ("lib/sum.test.js", &test_head)],
        &LANGUAGE_RULES,
        &[],
    );
    assert_eq!(
        r["patch_functions"],
        json!([
            "lib/sum.js::sum",
            "lib/sum.js::twice",
            "lib/sum.js::Calc.add"
        ])
    );
    // A title that begins and ends with a quote keeps both.
    assert_eq!(
        r["test_functions"],
        json!([
            "lib/sum.test.js::sum.adds",
            "lib/sum.test.js::sum.\"quoted\" ends"
        ])
    );
    assert_eq!(
        r["extensions"]["mining"]["functions"]["lib/sum.js::sum"],
        "javascript-ast"
    );
}

#[test]
fn typescript_decorated_methods_and_tsx_components() {
    let base = "export class App {\n  @Memo()\n  run(n: number): number {\n    return n;\n  }\n}\n\nexport function start(): void {\n  new App().run(1);\n}\n";
    let head = base
        .replace("@Memo()", "@Memo({ size: 2 })")
        .replace("run(1)", "run(2)");
    let tsx_base =
        "export const Badge = (props: { n: number }) => {\n  return <span>{props.n}</span>;\n};\n";
    let tsx_head = tsx_base.replace("{props.n}", "{props.n + 1}");
    let r = mine_change(
        &[("web/app.ts", base), ("web/Badge.tsx", tsx_base)],
        &[("web/app.ts", &head), ("web/Badge.tsx", &tsx_head)],
        &LANGUAGE_RULES,
        &[],
    );
    assert_eq!(
        r["patch_functions"],
        json!([
            "web/Badge.tsx::Badge",
            "web/app.ts::App.run",
            "web/app.ts::start"
        ])
    );
    assert_eq!(
        r["extensions"]["mining"]["functions"]["web/app.ts::App.run"],
        "typescript-ast"
    );
}

#[test]
fn rust_functions_impls_and_attributed_tests() {
    let base = "pub struct Parser;\n\nimpl Parser {\n    pub fn parse(&self, s: &str) -> usize {\n        s.len()\n    }\n}\n\nfn helper() -> u8 {\n    1\n}\n";
    let head = base
        .replace("s.len()", "s.chars().count()")
        .replace("    1\n", "    2\n");
    let test_base = "use lib::Parser;\n\n#[test]\nfn parses_empty() {\n    assert_eq!(Parser.parse(\"\"), 0);\n}\n\nfn fixture() -> &'static str {\n    \"\"\n}\n";
    let test_head = test_base
        .replace("#[test]\n", "#[test]\n#[ignore = \"slow\"]\n")
        .replace("    \"\"\n", "    \"x\"\n");
    let r = mine_change(
        &[("src/lib.rs", base), ("tests/parse.rs", test_base)],
        &[("src/lib.rs", &head), ("tests/parse.rs", &test_head)],
        &LANGUAGE_RULES,
        &[],
    );
    assert_eq!(
        r["patch_functions"],
        json!(["src/lib.rs::Parser.parse", "src/lib.rs::helper"])
    );
    // The new attribute line belongs to the test; `fixture` is not a test.
    assert_eq!(r["test_functions"], json!(["tests/parse.rs::parses_empty"]));
    assert_eq!(
        r["extensions"]["mining"]["functions"]["src/lib.rs::helper"],
        "rust-ast"
    );
}

#[test]
fn default_rules_take_testing_and_conftest_and_the_swe_bench_preset_leaves_docs_out() {
    let base: [(&str, &str); 5] = [
        ("src/_pytest/python.py", "def collect():\n    return 1\n"),
        (
            "testing/conftest.py",
            "def pytest_configure(config):\n    pass\n",
        ),
        (
            "testing/python/integration.py",
            "def test_it():\n    assert 1\n",
        ),
        ("AUTHORS", "Ada\n"),
        ("doc/en/changelog.rst", "Changes\n=======\n"),
    ];
    let head: Vec<(&str, String)> = base
        .iter()
        .map(|(p, c)| (*p, format!("{c}# touched\n")))
        .collect();
    let head: Vec<(&str, &str)> = head.iter().map(|(p, c)| (*p, c.as_str())).collect();
    let r = mine_change(&base, &head, &[], &[]);
    let files = &r["extensions"]["mining"]["test_files"];
    assert_eq!(files["testing/conftest.py"], "dir:testing");
    assert_eq!(files["testing/python/integration.py"], "dir:testing");
    assert_eq!(files["AUTHORS"], Value::Null);
    assert!(r["patch"].as_str().unwrap().contains("\nindex "));

    let r = mine_change(&base, &head, &[], &["--preset", "swe-bench"]);
    let patch = r["patch"].as_str().unwrap();
    let test_patch = r["test_patch"].as_str().unwrap();
    assert!(
        patch.starts_with("diff --git a/src/_pytest/python.py b/src/_pytest/python.py\n--- a/")
    );
    assert!(
        !patch.contains("AUTHORS") && !patch.contains("changelog"),
        "{patch}"
    );
    assert!(!patch.contains("\nindex ") && !test_patch.contains("\nindex "));
    assert!(test_patch.contains("testing/conftest.py") && test_patch.contains("integration.py"));
    assert_eq!(
        r["extensions"]["mining"]["left_out"],
        json!(["AUTHORS", "doc/en/changelog.rst"])
    );
    assert_eq!(r["extensions"]["mining"]["preset"], "swe-bench");

    let context = TestContext::new();
    let out = context.run_direct([
        "mine",
        "--repo",
        ".",
        "--repo-name",
        "o/r",
        "--head",
        "HEAD",
        "--preset",
        "nope",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn the_swe_bench_preset_rebuilds_every_real_swe_bench_split() {
    let mut total = 0;
    let mut identical = 0;
    let mut differences = Vec::new();
    let preset = isobench_core::testfiles::SplitPreset::swe_bench();
    // `ISOBENCH_MORE_SWE_BENCH`: more published records (JSONL) to hold the preset to, such
    // as the whole SWE-bench Verified file (`bench/RESULTS.md` says how it was run).
    let more = std::env::var_os("ISOBENCH_MORE_SWE_BENCH").map(|path| {
        let text = std::fs::read_to_string(&path).expect("ISOBENCH_MORE_SWE_BENCH is readable");
        text.lines()
            .map(|l| serde_json::from_str::<Value>(l).expect("a JSON record"))
            .collect::<Vec<_>>()
    });
    let mut sets = Vec::new();
    for file in isobench_tests::SWE_BENCH_FILES {
        let Some(records) = isobench_tests::read_jsonl(file) else {
            return;
        };
        sets.push(
            records
                .into_iter()
                .map(|(_, r)| Value::Object(r))
                .collect::<Vec<_>>(),
        );
    }
    sets.extend(more);
    for records in sets {
        for record in records {
            let patch = record["patch"].as_str().unwrap();
            let test_patch = record["test_patch"].as_str().unwrap();
            // The union of both diffs is what the pull request changed (as far as the
            // record kept it); the preset must split it back the same way.
            let split = preset.split(&format!("{patch}{test_patch}")).unwrap();
            total += 1;
            if split.patch == patch && split.test_patch == test_patch && split.left_out.is_empty() {
                identical += 1;
            } else {
                differences.push(record["instance_id"].as_str().unwrap().to_owned());
            }
        }
    }
    eprintln!("swe-bench preset: {identical} of {total} real records split identically");
    assert!(total >= 600, "{total} records read");
    assert_eq!(differences, Vec::<String>::new());
}

#[test]
fn java_functions_of_real_multi_swe_bench_test_files() {
    let Some(records) = isobench_tests::read_jsonl("multi-swe-bench/multi_swe_bench_java.jsonl")
    else {
        return;
    };
    let (mut checked, mut f2p_classes) = (0, 0);
    for (_, record) in records {
        let id = record["instance_id"].as_str().unwrap();
        let test_patch = record["test_patch"].as_str().unwrap();
        let parsed = isobench_core::diff::parse(test_patch).unwrap();
        for file in &parsed.files {
            // A file the test patch creates holds its whole text: mine its creation.
            let Some(path) = file
                .new_path
                .as_deref()
                .filter(|p| Path::new(p).extension().is_some_and(|e| e == "java"))
            else {
                continue;
            };
            if file.old_path.is_some() {
                continue;
            }
            let mut text = String::new();
            for line in file.hunks.iter().flat_map(|h| &h.lines) {
                text.push_str(&line.content);
                text.push('\n');
            }
            let r = mine_change(
                &[("README", "x\n")],
                &[("README", "x\n"), (path, &text)],
                &["dir:test", "name:*Test.java"],
                &[],
            );
            let found: Vec<String> = r["test_functions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().rsplit("::").next().unwrap().to_owned())
                .collect();
            // Every test method (`@Test`-annotated, or a JUnit 3 `public void test*()`) is
            // found, qualified by its class; the class is the file's name.
            let class = path.rsplit('/').next().unwrap().trim_end_matches(".java");
            let mut annotated = 0;
            let mut pending = false;
            for line in text.lines().map(str::trim) {
                if line == "@Test"
                    || line.starts_with("@Test(")
                    || line.starts_with("@ParameterizedTest")
                {
                    pending = true;
                } else if let Some(at) = line.find("void ").filter(|_| line.contains('(')) {
                    if pending || line[at + 5..].starts_with("test") {
                        annotated += 1;
                    }
                    pending = false;
                }
            }
            assert!(annotated > 0, "{id}: {path} has no test method");
            assert!(
                found.len() >= annotated,
                "{id}: {path}: {annotated} @Test methods, found {found:?}"
            );
            assert!(
                found.iter().all(|f| f.starts_with(&format!("{class}."))),
                "{id}: {found:?}"
            );
            // The record's failing-then-passing test class is this file's class.
            let f2p = record["f2p_tests"].as_object();
            if f2p.is_some_and(|m| m.keys().any(|t| t.ends_with(&format!(".{class}")))) {
                f2p_classes += 1;
            }
            checked += 1;
        }
    }
    eprintln!(
        "java: {checked} new test files of real multi-swe-bench records mined, {f2p_classes} of them a FAIL_TO_PASS class"
    );
    assert!(
        checked >= 10 && f2p_classes >= 5,
        "{checked}, {f2p_classes}"
    );
}

/// A release branch merged back into the default branch: its pull request's commit is off
/// the first-parent history but merged, and the only candidate, so nothing is warned; a
/// commit on a branch never merged is still warned about.
#[test]
fn a_head_on_a_release_branch_merged_back_is_not_warned_about() {
    let context = TestContext::new();
    let repos = context.path("repos");
    let fx = Fixture::new(&repos.join("octo/rel"));
    let v = |n: u32| format!("def f():\n    return {n}\n");
    let base = fx.commit(&[("lib/a.py", v(0).as_bytes())], &[], "root\n", 1_000, 0);
    let main_work = fx.commit(
        &[("lib/a.py", v(0).as_bytes()), ("NEWS", b"main\n")],
        &[base],
        "Main work\n",
        2_000,
        0,
    );
    let on_release = fx.commit(
        &[("lib/a.py", v(8).as_bytes())],
        &[base],
        "Fix (#8)\n",
        3_000,
        0,
    );
    let merged_back = fx.commit(
        &[("lib/a.py", v(8).as_bytes()), ("NEWS", b"main\n")],
        &[main_work, on_release],
        "Merge branch '3.x'\n",
        4_000,
        0,
    );
    fx.branch("main", merged_back);
    fx.branch("3.x", on_release);
    let unmerged = fx.commit(
        &[("lib/a.py", v(9).as_bytes())],
        &[base],
        "Nine (#9)\n",
        5_000,
        0,
    );
    fx.branch("4.x", unmerged);
    fx.repo.set_head("refs/heads/main").unwrap();
    fx.repo
        .reference_symbolic("refs/remotes/origin/HEAD", "refs/heads/main", true, "test")
        .unwrap();
    let input = context.path("sb.jsonl");
    let rows: Vec<String> = ["octo__rel-8", "octo__rel-9"]
        .iter()
        .map(|id| swe_bench_row("octo/rel", id, base).to_string())
        .collect();
    fs::write(&input, rows.join("\n") + "\n").unwrap();
    let report = context.path("report.json");
    let out = context.run_direct([
        "enrich",
        "--from",
        "swe-bench",
        "-i",
        input.to_str().unwrap(),
        "--repos",
        repos.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]);
    let recs = records(&out);
    assert_eq!(recs[0]["head_commit"], on_release.to_string());
    assert_eq!(
        recs[0]["extensions"]["mining"]["merged_into_default_branch"],
        true
    );
    assert_eq!(recs[1]["head_commit"], unmerged.to_string());
    let report: Value = serde_json::from_str(&fs::read_to_string(report).unwrap()).unwrap();
    let warned: Vec<&str> = report["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["field"] == "head_commit")
        .map(|w| w["instance_id"].as_str().unwrap())
        .collect();
    assert_eq!(warned, ["octo__rel-9"], "{report}");
}

/// `--code-and-tests` keeps the commits whose `patch` and `test_patch` are both not empty.
#[test]
fn code_and_tests_keeps_commits_touching_both() {
    let context = TestContext::new();
    let fx = Fixture::new(&context.path("g"));
    let root = fx.commit(
        &[("src/a.py", b"x = 0\n"), ("tests/test_a.py", b"# 0\n")],
        &[],
        "root\n",
        1_000,
        0,
    );
    let code = fx.commit(
        &[("src/a.py", b"x = 1\n"), ("tests/test_a.py", b"# 0\n")],
        &[root],
        "Code only (#1)\n",
        1_001,
        0,
    );
    let tests = fx.commit(
        &[("src/a.py", b"x = 1\n"), ("tests/test_a.py", b"# 1\n")],
        &[code],
        "Tests only (#2)\n",
        1_002,
        0,
    );
    let both = fx.commit(
        &[("src/a.py", b"x = 2\n"), ("tests/test_a.py", b"# 2\n")],
        &[tests],
        "Both (#3)\n",
        1_003,
        0,
    );
    let out = context.run_direct([
        "mine",
        "--repo",
        fx.path.to_str().unwrap(),
        "--repo-name",
        "octo/g",
        "--range",
        &format!("{root}..{both}"),
        "--code-and-tests",
    ]);
    let recs = records(&out);
    let ids: Vec<&str> = recs
        .iter()
        .map(|r| r["instance_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["octo__g-PR-3"]);
    assert!(
        stderr(&out).contains("skipped 2: does not touch both code and tests"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_template_uses_the_head_commit_repos_derives() {
    let context = TestContext::new();
    let repos = context.path("repos");
    let fx = Fixture::new(&repos.join("octo/lib"));
    let v = |n: u32| format!("def f():\n    return {n}\n");
    let base = fx.commit(&[("lib/a.py", v(1).as_bytes())], &[], "one\n", 2_000, 0);
    let fix = fx.commit(
        &[("lib/a.py", v(5).as_bytes())],
        &[base],
        "Fix f\n",
        3_000,
        0,
    );
    let merge = fx.commit(
        &[("lib/a.py", v(5).as_bytes())],
        &[base, fix],
        "Merge pull request #5 from alice/fix\n",
        4_000,
        0,
    );
    fx.branch("main", merge);
    fx.repo.set_head("refs/heads/main").unwrap();
    let input = context.path("sb.jsonl");
    fs::write(
        &input,
        format!("{}\n", swe_bench_row("octo/lib", "octo__lib-5", base)),
    )
    .unwrap();
    let template = "extensions.image_name=swebench/swesmith.x86_64.{owner:lower}_1776_{name:lower}.{head_commit:8}";
    // Without `--repos`, the record has no `head_commit`: the refusal says where git finds it.
    let out = context.run_direct([
        "convert",
        "--from",
        "swe-bench",
        "--to",
        "swe-smith",
        "-i",
        input.to_str().unwrap(),
        "--set",
        template,
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("`--repos DIR`"), "{}", stderr(&out));
    // With it, `head_commit` is derived before the template is filled. (SWE-smith has no
    // profile for this repository: written anyway, to see the values.)
    let out = context.run_direct([
        "convert",
        "--from",
        "swe-bench",
        "--to",
        "swe-smith",
        "-i",
        input.to_str().unwrap(),
        "--repos",
        repos.to_str().unwrap(),
        "--set",
        template,
        "--allow-incomplete",
    ]);
    let recs = records(&out);
    let merge = merge.to_string();
    assert_eq!(
        recs[0]["image_name"],
        format!("swebench/swesmith.x86_64.octo_1776_lib.{}", &merge[..8])
    );
    assert_eq!(
        recs[0]["repo"],
        format!("swesmith/octo__lib.{}", &merge[..8])
    );
}
