//! Every command of the README and of `docs/` runs as written.
//!
//! A fenced block marked `sh` is run here, page by page, its blocks in order in one scratch
//! directory, by `bash -e`, with `cargo isobench` the binary under test. The directory holds
//! what the pages name: `examples/` (the repository's), a small git repository standing for
//! `psf/requests` at `../requests` (tags `v2.30.0` and `v2.31.0`, pull-request commits),
//! a SWE-bench record of it with `repos/` pointing there, timing logs, a Hugging Face cache
//! holding `princeton-nlp/SWE-bench_Verified` made from the sample records, and an
//! `isobench.toml` where a page runs `trust`. A block marked `sh ci` (a whole-workspace build, an install) is run by
//! `.ci/run`, which takes them from the pages itself. Any other shell block is an error, so
//! that no command escapes both.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{BIN, WORKSPACE, clean_env, plugin_target_dir};

/// A fenced block of a page.
#[derive(Debug)]
struct Block {
    page: String,
    /// The line of its opening fence (1-based).
    line: usize,
    info: String,
    text: String,
}

/// The pages: the README and every page of `docs/`.
fn pages() -> Vec<PathBuf> {
    let root = Path::new(WORKSPACE);
    let mut pages = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

/// The fenced blocks of `page`, their text without the fence's indentation.
fn blocks(page: &Path) -> Vec<Block> {
    let text = std::fs::read_to_string(page).unwrap();
    let name = page
        .strip_prefix(WORKSPACE)
        .unwrap_or(page)
        .display()
        .to_string();
    let mut blocks = Vec::new();
    let mut open: Option<(usize, usize, String, String)> = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        match (&mut open, trimmed.strip_prefix("```")) {
            (None, Some(info)) => {
                open = Some((i + 1, indent, info.trim().to_owned(), String::new()));
            }
            (Some(_), Some("")) => {
                let (line, _, info, text) = open.take().unwrap();
                blocks.push(Block {
                    page: name.clone(),
                    line,
                    info,
                    text,
                });
            }
            (Some((_, indent, _, text)), _) => {
                text.push_str(line.get(*indent..).unwrap_or(line.trim_start()));
                text.push('\n');
            }
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "{name}: a fence is not closed");
    blocks
}

#[test]
fn every_shell_block_is_run_by_this_test_or_by_ci() {
    let mut shell = 0;
    for page in pages() {
        for block in blocks(&page) {
            let first = block.info.split_whitespace().next().unwrap_or("");
            assert!(
                !["bash", "shell", "console", "shell-session", "zsh"].contains(&first),
                "{}:{}: a `{first}` block; mark commands `sh` (run by tests/docs.rs) or `sh ci` (run by .ci/run)",
                block.page,
                block.line
            );
            if first == "sh" {
                shell += 1;
                assert!(
                    block.info == "sh" || block.info == "sh ci",
                    "{}:{}: `{}`: a shell block is `sh` or `sh ci`",
                    block.page,
                    block.line,
                    block.info
                );
            }
        }
    }
    assert!(shell > 10, "only {shell} shell blocks found");
    let ci = std::fs::read_to_string(Path::new(WORKSPACE).join(".ci/run")).unwrap();
    assert!(
        ci.contains(".ci/doc-commands"),
        ".ci/run does not run the `sh ci` blocks"
    );
}

/// Runs `program` in `dir` and fails the test unless it succeeds.
fn run(dir: &Path, program: &str, args: &[&str]) -> String {
    let out = Command::new(program)
        .current_dir(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "Docs Test")
        .env("GIT_AUTHOR_EMAIL", "docs@example.com")
        .env("GIT_COMMITTER_NAME", "Docs Test")
        .env("GIT_COMMITTER_EMAIL", "docs@example.com")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("the program runs");
    assert!(
        out.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A git repository at `dir` standing for `psf/requests`: `v2.30.0`, two pull requests
/// (a fix with its test, a release), the tag `v2.31.0`, one more commit. Gives the
/// commit `v2.30.0` names.
fn requests_repository(dir: &Path) -> String {
    std::fs::create_dir_all(dir).unwrap();
    run(dir, "git", &["init", "-q", "-b", "main"]);
    // As a clone of it has; never fetched.
    run(
        dir,
        "git",
        &[
            "remote",
            "add",
            "origin",
            "https://github.com/psf/requests.git",
        ],
    );
    let commit = |files: &[(&str, &str)], message: &str| {
        for (path, text) in files {
            write(&dir.join(path), text);
        }
        run(dir, "git", &["add", "-A"]);
        run(dir, "git", &["commit", "-q", "-m", message]);
    };
    let session = |body: &str| {
        format!(
            "class Session:\n    def request(self, method, url):\n        return method, url\n\n    def rebuild_proxies(self, prepared, proxies):\n{body}"
        )
    };
    commit(
        &[
            ("requests/__init__.py", "__version__ = \"2.30.0\"\n"),
            ("requests/sessions.py", &session("        return proxies\n")),
            (
                "tests/test_requests.py",
                "def test_request():\n    assert True\n",
            ),
            ("README.md", "Requests\n"),
        ],
        "v2.30.0",
    );
    run(dir, "git", &["tag", "v2.30.0"]);
    let base = run(dir, "git", &["rev-parse", "HEAD"]);
    commit(
        &[
            (
                "requests/sessions.py",
                &session(
                    "        headers = prepared.headers\n        headers.pop(\"Proxy-Authorization\", None)\n        return proxies\n",
                ),
            ),
            (
                "tests/test_requests.py",
                "def test_request():\n    assert True\n\n\ndef test_proxy_authorization_is_not_leaked():\n    assert True\n",
            ),
        ],
        "Strip Proxy-Authorization on redirects (#6439)",
    );
    commit(
        &[("requests/__init__.py", "__version__ = \"2.31.0\"\n")],
        "v2.31.0 (#6440)",
    );
    run(dir, "git", &["tag", "v2.31.0"]);
    commit(
        &[("README.md", "Requests: HTTP for Humans\n")],
        "Describe the project (#6450)",
    );
    base
}

/// `pytest --durations` output timing `test` at `seconds`.
fn durations(test: &str, seconds: &[f64]) -> String {
    use std::fmt::Write as _;
    seconds.iter().fold(String::new(), |mut log, s| {
        let _ = writeln!(log, "{s:.2}s call     {test}");
        log
    })
}

/// What the pages name, in `root` (the scratch directory is `root/work`).
fn fixtures(root: &Path, work: &Path, hf_home: &Path) {
    std::os::unix::fs::symlink(Path::new(WORKSPACE).join("examples"), work.join("examples"))
        .unwrap();
    let base = requests_repository(&root.join("requests"));
    std::fs::create_dir_all(work.join("repos/psf")).unwrap();
    std::os::unix::fs::symlink(root.join("requests"), work.join("repos/psf/requests")).unwrap();

    // A SWE-bench record of the pull request #6439, from the first sample record.
    let sample = std::fs::read_to_string(
        Path::new(WORKSPACE).join("examples/data/swe-bench-verified.sample.jsonl"),
    )
    .unwrap();
    let mut record: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(sample.lines().next().unwrap()).unwrap();
    record.insert("repo".into(), "psf/requests".into());
    record.insert("instance_id".into(), "psf__requests-6439".into());
    record.insert("base_commit".into(), base.clone().into());
    record.insert("environment_setup_commit".into(), base.into());
    write(
        &work.join("requests.jsonl"),
        &(serde_json::to_string(&record).unwrap() + "\n"),
    );

    // Timing logs of the mined pull requests, and of one run pair.
    let test = "tests/test_perf.py::test_get";
    for id in ["psf__requests-PR-6439", "psf__requests-PR-6440"] {
        write(
            &work.join(format!("timings/{id}/base.log")),
            &durations(test, &[1.2, 1.25, 1.22]),
        );
        write(
            &work.join(format!("timings/{id}/head.log")),
            &durations(test, &[0.6, 0.61, 0.62]),
        );
    }
    write(&work.join("base.log"), &durations(test, &[1.2, 1.25, 1.22]));
    write(&work.join("head.log"), &durations(test, &[0.6, 0.61, 0.62]));

    // The Hugging Face cache: `princeton-nlp/SWE-bench_Verified` at `main`, one Parquet
    // file of the test split, made from the sample records.
    let commit = "0123456789abcdef0123456789abcdef01234567";
    let dataset = hf_home.join("hub/datasets--princeton-nlp--SWE-bench_Verified");
    write(&dataset.join("refs/main"), commit);
    let data = dataset.join(format!("snapshots/{commit}/data"));
    std::fs::create_dir_all(&data).unwrap();
    let parquet = data.join("test-00000-of-00001.parquet");
    let out = clean_env(&mut Command::new(BIN))
        .current_dir(work)
        .args([
            "isobench",
            "convert",
            "--from",
            "swe-bench",
            "--to",
            "swe-bench",
        ])
        .arg("-i")
        .arg("examples/data/swe-bench-verified.sample.jsonl")
        .arg("-o")
        .arg(&parquet)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The `isobench.toml` that `trust` finds (a page that runs `trust`): test-file rules only,
/// which change nothing the other commands of a page do.
fn config(work: &Path) {
    write(
        &work.join("isobench.toml"),
        "[test-files]\nrules = [\"dir:tests\", \"name:test_*.py\"]\n",
    );
}

/// A `cargo` first on `PATH` that runs the binary under test for `cargo isobench`, as cargo
/// runs a subcommand, and the cargo running the tests for everything else.
fn cargo_shim(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let shim = dir.join("cargo");
    write(
        &shim,
        &format!(
            "#!/bin/sh\nif [ \"$1\" = isobench ]; then exec '{BIN}' \"$@\"; fi\nexec '{cargo}' \"$@\"\n"
        ),
    );
    std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn every_sh_block_of_the_readme_and_docs_runs_as_written() {
    // Under the checkout (when the target directory is), so that `plugin new` finds the
    // checkout's SDK as it does for a user who runs it in a clone.
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("docs");
    let inside = scratch.starts_with(Path::new(WORKSPACE).canonicalize().unwrap())
        || scratch.starts_with(WORKSPACE);
    // The toolchain and the crates cargo has stay where they are when `HOME` moves.
    let real_home = PathBuf::from(std::env::var_os("HOME").expect("HOME is set"));
    let tool_home = |var: &str, dir: &str| {
        std::env::var_os(var).map_or_else(|| real_home.join(dir), PathBuf::from)
    };
    let (cargo_home, rustup_home) = (
        tool_home("CARGO_HOME", ".cargo"),
        tool_home("RUSTUP_HOME", ".rustup"),
    );
    let mut ran = 0;
    for page in pages() {
        let runnable: Vec<Block> = blocks(&page)
            .into_iter()
            .filter(|b| b.info == "sh")
            .collect();
        if runnable.is_empty() {
            continue;
        }
        let name = page.file_stem().unwrap().to_string_lossy().into_owned();
        if !inside && runnable.iter().any(|b| b.text.contains("plugin new")) {
            eprintln!(
                "skipped: {name}: the target directory is outside the checkout, where `plugin new` finds no SDK"
            );
            continue;
        }
        let root = scratch.join(&name);
        let _ = std::fs::remove_dir_all(&root);
        let work = root.join("work");
        let hf_home = root.join("huggingface");
        // A page may install into `~` (completions, man pages): a home of the test's own.
        let home = root.join("home");
        std::fs::create_dir_all(&work).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        fixtures(&root, &work, &hf_home);
        if runnable.iter().any(|b| b.text.contains("isobench trust")) {
            config(&work);
        }
        cargo_shim(&root.join("bin"));
        let path = std::env::join_paths(
            std::iter::once(root.join("bin"))
                .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
        )
        .unwrap();
        for block in runnable {
            let out = clean_env(&mut Command::new("bash"))
                .current_dir(&work)
                .args(["-e", "-o", "pipefail", "-c", &block.text])
                .env("PATH", &path)
                .env("NO_COLOR", "1")
                .env("HOME", &home)
                .env("CARGO_HOME", &cargo_home)
                .env("RUSTUP_HOME", &rustup_home)
                .env("ISOBENCH_STATE_DIR", root.join("state"))
                .env("HF_HOME", &hf_home)
                // `plugin build` of a new crate: the tests' plugin target directory, and
                // the dependencies cargo already has.
                .env("CARGO_TARGET_DIR", plugin_target_dir())
                .env("CARGO_NET_OFFLINE", "true")
                .output()
                .expect("bash runs");
            assert!(
                out.status.success(),
                "{}:{}: the block exits with {}:\n{}\n--- stdout\n{}--- stderr\n{}",
                block.page,
                block.line,
                out.status,
                block.text,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            ran += 1;
        }
    }
    assert!(ran > 8, "only {ran} blocks ran");
}

#[test]
fn every_link_of_the_pages_names_a_file_of_the_repository() {
    let mut checked = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for (at, _) in text.match_indices("](") {
            let rest = &text[at + 2..];
            let Some(end) = rest.find(')') else { continue };
            let target = &rest[..end];
            assert!(
                !target.starts_with("http"),
                "{}: `{target}`: the pages link only to files of the repository",
                page.display()
            );
            let file = target.split('#').next().unwrap();
            if file.is_empty() {
                continue;
            }
            assert!(
                page.parent().unwrap().join(file).exists(),
                "{}: `{target}` names no file",
                page.display()
            );
            checked += 1;
        }
    }
    assert!(checked > 20, "only {checked} links found");
}
