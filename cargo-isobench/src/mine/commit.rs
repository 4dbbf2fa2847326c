//! Mining one commit (against a base) into a canonical record.

use git2::Oid;
use std::collections::HashMap;

use super::rules::{PrForm, git_time, instance_id, pr_subject};
use isobench_core::testfiles::{Placement, SplitPreset, push_without_index_lines};
use isobench_core::{CanonicalRecord, envsig};
use serde_json::{Map, Value};

use super::blobs::Blobs;
use super::functions::{FunctionFinder, HunkRange, Lang, Side, Touched, from_hunk_headers};
use super::repo::{Repo, RepoError, TreeDiff};

/// The environment a mined record's `version` signature is computed from.
#[derive(Debug, Clone)]
pub struct EnvSpec {
    /// Python version (`3.11`).
    pub python: String,
    /// Machine architecture.
    pub arch: String,
    /// Image tag.
    pub image: String,
    /// Install commands.
    pub install: Vec<String>,
}

/// Which commits to keep.
#[derive(Debug, Clone, Default)]
pub struct Filters {
    /// Only commits whose non-test part is not empty.
    pub only_source: bool,
    /// At most this many files changed.
    pub max_files: Option<usize>,
    /// Only commits touching a path under one of these prefixes.
    pub paths: Vec<String>,
    /// Only commits whose `patch` and `test_patch` are both not empty.
    pub code_and_tests: bool,
}

/// What every mined commit shares.
#[derive(Debug, Clone)]
pub struct MineSettings {
    /// `owner/name`.
    pub repo_name: String,
    /// The split: test-file rules, files kept, header lines.
    pub preset: SplitPreset,
    /// The environment of the `version` signature, when given.
    pub env: Option<EnvSpec>,
    /// Filters.
    pub filters: Filters,
    /// Whether files no attribute gives a diff driver take their language's built-in one.
    pub language_drivers: bool,
    /// The heads of the repository's `refs/pull/N/head` references, when it has any: a
    /// pull-request number a subject names is kept only when it is one of them.
    pub pull_heads: Option<HashMap<u64, Oid>>,
}

/// The heads of `refs/pull/N/head`, or `None` when the repository has no `refs/pull/*`.
pub fn pull_heads(repo: &Repo) -> Option<HashMap<u64, Oid>> {
    let refs = repo.git.references_glob("refs/pull/*/head").ok()?;
    let heads: HashMap<u64, Oid> = refs
        .flatten()
        .filter_map(|r| {
            let n = r
                .name()?
                .strip_prefix("refs/pull/")?
                .strip_suffix("/head")?;
            Some((n.parse().ok()?, r.target()?))
        })
        .collect();
    (!heads.is_empty()).then_some(heads)
}

/// The pull request `commit` belongs to, and why a number its subject names was not
/// taken. With `refs/pull/*` in the repository, a number must be one of them, and a merge
/// commit's second parent must be that pull request's head: numbers of pull requests
/// merged in forks (`Merge pull request #1 from upstream/main`) are not upstream ones.
#[allow(clippy::implicit_hasher)]
pub fn pr_of(
    commit: &git2::Commit<'_>,
    pull_heads: Option<&HashMap<u64, Oid>>,
) -> (Option<u64>, Option<String>) {
    let message = String::from_utf8_lossy(commit.message_bytes());
    let Some((n, form)) = pr_subject(&message) else {
        return (None, None);
    };
    let Some(heads) = pull_heads else {
        return (Some(n), None);
    };
    match (heads.get(&n), form) {
        (None, _) => (
            None,
            Some(format!(
                "#{n}: the repository has no `refs/pull/{n}/head` (a pull request of a fork?)"
            )),
        ),
        (Some(&head), PrForm::Merge)
            if commit.parent_count() > 1 && commit.parent_id(1).ok() != Some(head) =>
        {
            (
                None,
                Some(format!(
                    "#{n}: the merged branch is not `refs/pull/{n}/head` (a pull request of a fork?)"
                )),
            )
        }
        _ => (Some(n), None),
    }
}

/// A mined commit, or why it was left out.
#[derive(Debug)]
pub enum Mined {
    /// The record.
    Record(Box<CanonicalRecord>),
    /// Left out by a filter.
    Skipped {
        /// The commit.
        commit: String,
        /// Why.
        reason: String,
    },
}

/// One file of a commit's diff, as the single pass over libgit2's patch output sees it.
#[allow(clippy::struct_excessive_bools)]
#[derive(Debug, Default)]
struct Section {
    /// The path reported (the new path; the old one for a deletion).
    path: String,
    /// The test-file rule that matched (`None`: a source file).
    rule: Option<String>,
    /// Left out of both parts by the preset.
    left_out: bool,
    /// Left out because its diff is not UTF-8 (a record's strings cannot carry it).
    not_utf8: bool,
    /// Where its text starts in the part it goes to.
    start: usize,
    /// Whether its diff goes to `test_patch`.
    is_test: bool,
    binary: bool,
    /// The size of its larger blob, over `core.bigFileThreshold`: diffed as binary.
    too_big: Option<u64>,
    old_blob: Option<Oid>,
    new_blob: Option<Oid>,
    old_lines: Vec<usize>,
    new_lines: Vec<usize>,
    hunks: Vec<HunkRange>,
    contexts: Vec<String>,
}

/// The two parts of a commit's diff and its files.
#[derive(Debug, Default)]
struct Parts {
    patch: Vec<u8>,
    test_patch: Vec<u8>,
    sections: Vec<Section>,
}

/// Writes the diff's text once, straight into `patch` or `test_patch` by the preset, and
/// notes each file's changed lines, hunks and blobs on the way.
fn split_diff<'r>(
    blobs: &Blobs<'r>,
    diff: &TreeDiff<'r>,
    preset: &SplitPreset,
) -> Result<Parts, RepoError> {
    let mut parts = Parts::default();
    diff.print(blobs, |file, line| {
        let origin = line.origin;
        if origin == 'F' {
            parts.close_section();
            let mut section = Section {
                path: file
                    .new_path
                    .clone()
                    .or_else(|| file.old_path.clone())
                    .unwrap_or_default(),
                binary: file.binary,
                too_big: file.too_big,
                old_blob: file.old_blob,
                new_blob: file.new_blob,
                ..Section::default()
            };
            match preset.place(file.old_path.as_deref(), file.new_path.as_deref()) {
                Placement::Test(rule) => {
                    section.rule = Some(rule.name.clone());
                    section.is_test = true;
                }
                Placement::Source => {}
                Placement::LeftOut => section.left_out = true,
            }
            section.start = if section.is_test {
                parts.test_patch.len()
            } else {
                parts.patch.len()
            };
            parts.sections.push(section);
        }
        let Some(section) = parts.sections.last_mut() else {
            return;
        };
        if section.left_out {
            return;
        }
        let out = if section.is_test {
            &mut parts.test_patch
        } else {
            &mut parts.patch
        };
        match origin {
            'F' if !preset.index_lines_of(&section.path) => {
                // A header that is not UTF-8 is kept as it is, for the file to be taken
                // out when its section closes.
                match std::str::from_utf8(line.content) {
                    Ok(header) => {
                        let mut kept = String::with_capacity(header.len());
                        push_without_index_lines(&mut kept, header);
                        out.extend_from_slice(kept.as_bytes());
                    }
                    Err(_) => out.extend_from_slice(line.content),
                }
                return;
            }
            'H' => {
                if let Some(h) = line.hunk {
                    section.hunks.push(h);
                    let header = String::from_utf8_lossy(line.content);
                    if let Some(context) = header.splitn(3, "@@").nth(2) {
                        section.contexts.push(context.trim().to_owned());
                    }
                }
            }
            '+' => section
                .new_lines
                .extend(line.new_lineno.map(|l| l as usize)),
            '-' => section
                .old_lines
                .extend(line.old_lineno.map(|l| l as usize)),
            _ => {}
        }
        if matches!(origin, '+' | '-' | ' ') {
            out.push(origin as u8);
        }
        out.extend_from_slice(line.content);
    })?;
    parts.close_section();
    Ok(parts)
}

impl Parts {
    /// Takes the text of the last file out again when it is not UTF-8: a patch that
    /// carried it with its bytes replaced would not apply.
    fn close_section(&mut self) {
        let Some(section) = self.sections.last_mut() else {
            return;
        };
        if section.left_out {
            return;
        }
        let out = if section.is_test {
            &mut self.test_patch
        } else {
            &mut self.patch
        };
        if simdutf8::basic::from_utf8(&out[section.start..]).is_err() {
            out.truncate(section.start);
            section.not_utf8 = true;
        }
    }
}

/// The text of a part: every file whose diff is not UTF-8 was taken out of it.
fn into_text(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Why a file whose diff is not UTF-8 is not in the record.
pub const NOT_UTF8_REASON: &str = "its diff is not UTF-8 text, which a record's string cannot carry byte for byte; the file is left out so that the patch applies";

/// The `extensions.mining.big_files` entry of a file diffed as binary for its size.
fn big_file_entry(path: &str, size: u64, threshold: u64) -> Value {
    let mut entry = Map::new();
    entry.insert("path".into(), path.into());
    entry.insert("bytes".into(), size.into());
    entry.insert("reason".into(), big_file_reason(threshold).into());
    Value::Object(entry)
}

/// Why a file is diffed as binary though it may be text.
pub fn big_file_reason(threshold: u64) -> String {
    format!(
        "a blob over `core.bigFileThreshold` ({threshold} bytes): diffed as binary without being read, as git does"
    )
}

/// The functions a file's change touches: parsed when its language has a grammar, else
/// from its hunk headers.
fn touched(blobs: &Blobs<'_>, finder: &mut FunctionFinder, section: &Section) -> Vec<Touched> {
    let Some(lang) = Lang::of_path(&section.path) else {
        return from_hunk_headers(section.contexts.iter().map(String::as_str));
    };
    // A blob is read only when the finder looks into it: for the lines changed on its
    // side, or (for a language parsed whole) as the head to keep for the next commit.
    let load = |oid: Option<Oid>, wanted: bool| {
        oid.filter(|_| wanted)
            .and_then(|oid| blobs.get(oid).ok().map(|b| (oid, b)))
    };
    let old = load(
        section.old_blob,
        finder.reads_base(lang, section.old_blob, &section.old_lines),
    );
    let new = load(
        section.new_blob,
        lang != Lang::Python || !section.new_lines.is_empty(),
    );
    let old_side = old.as_ref().map(|(oid, b)| Side {
        blob: *oid,
        content: b.content(),
        lines: &section.old_lines,
    });
    let new_side = new.as_ref().map(|(oid, b)| Side {
        blob: *oid,
        content: b.content(),
        lines: &section.new_lines,
    });
    finder.touched(lang, old_side, new_side, &section.hunks)
}

/// Why a commit that changes no file is skipped.
pub const EMPTY_COMMIT: &str = "an empty commit (it changes no file against its base)";

/// The id of the empty tree, the base `--base` takes for a root commit.
pub fn empty_tree() -> Oid {
    Oid::from_str(EMPTY_TREE).expect("the empty tree's id is hexadecimal")
}

/// The id of the empty tree, as `git hash-object -t tree /dev/null` gives it.
pub const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/// Mines `head` against `base` (its first parent when `None`; the empty tree when it is
/// [`empty_tree`]).
pub fn mine<'r>(
    repo: &'r Repo,
    blobs: &Blobs<'r>,
    finder: &mut FunctionFinder,
    settings: &MineSettings,
    head: Oid,
    base: Option<Oid>,
) -> Result<Mined, RepoError> {
    let head = repo.find(head)?;
    // `None`: the empty tree, the base of a root commit.
    let base = match base {
        Some(oid) if oid == empty_tree() => None,
        Some(oid) => Some(repo.find(oid)?),
        None => Some(repo.first_parent(&head)?),
    };
    let head_tree = head.tree().map_err(|e| repo.err(e))?;
    let base_tree = match &base {
        Some(commit) => Some(commit.tree().map_err(|e| repo.err(e))?),
        None => None,
    };
    let git_diff = repo
        .diff_trees(blobs, base_tree.as_ref(), &head_tree)?
        .with_language_drivers(settings.language_drivers);
    let skip = |reason: String| {
        Ok(Mined::Skipped {
            commit: head.id().to_string(),
            reason,
        })
    };
    if let Some(reason) = skipped_by_files(&git_diff, &settings.filters) {
        return skip(reason);
    }
    let parts = split_diff(blobs, &git_diff, &settings.preset)?;
    if settings.filters.only_source && parts.patch.is_empty() {
        return skip("touches only test files (`--only-source`)".into());
    }
    if settings.filters.code_and_tests && (parts.patch.is_empty() || parts.test_patch.is_empty()) {
        return skip("does not touch both code and tests (`--code-and-tests`)".into());
    }

    let message = head.message_bytes();
    let message = String::from_utf8_lossy(message).into_owned();
    let (pr, pr_rejected) = pr_of(&head, settings.pull_heads.as_ref());
    let head_sha = head.id().to_string();
    let time = head.time();
    let (created_at, created_at_local) = git_time(time.seconds(), time.offset_minutes());

    let mut patch_functions = Vec::new();
    let mut test_functions = Vec::new();
    let mut methods = Map::new();
    let mut test_files = Map::new();
    let mut left_out = Vec::new();
    let mut not_utf8 = Vec::new();
    let mut big_files = Vec::new();
    for section in &parts.sections {
        if section.left_out {
            left_out.push(Value::from(section.path.clone()));
            continue;
        }
        if section.not_utf8 {
            let mut entry = Map::new();
            entry.insert("path".into(), section.path.clone().into());
            entry.insert("reason".into(), NOT_UTF8_REASON.into());
            not_utf8.push(Value::Object(entry));
            continue;
        }
        test_files.insert(
            section.path.clone(),
            section.rule.clone().map_or(Value::Null, Value::String),
        );
        if let Some(size) = section.too_big {
            big_files.push(big_file_entry(
                &section.path,
                size,
                blobs.big_file_threshold(),
            ));
        }
        if section.binary {
            continue;
        }
        for t in touched(blobs, finder, section) {
            let name = if section.is_test {
                // In a test file, the test the change is in.
                match t.test {
                    Some(test) => test,
                    None => continue,
                }
            } else {
                t.name
            };
            let qualified = format!("{}::{name}", section.path);
            if methods.contains_key(&qualified) {
                continue;
            }
            methods.insert(qualified.clone(), t.method.as_str().into());
            if section.is_test {
                test_functions.push(qualified);
            } else {
                patch_functions.push(qualified);
            }
        }
    }

    let mut record = CanonicalRecord {
        repo: Some(settings.repo_name.clone()),
        instance_id: Some(instance_id(&settings.repo_name, pr, &head_sha)),
        created_at: Some(created_at),
        base_commit: Some(
            base.as_ref()
                .map_or_else(empty_tree, git2::Commit::id)
                .to_string(),
        ),
        head_commit: Some(head_sha),
        patch: Some(into_text(parts.patch)),
        test_patch: Some(into_text(parts.test_patch)),
        patch_functions: Some(patch_functions),
        test_functions: Some(test_functions),
        gt_commit_message: Some(message),
        ..CanonicalRecord::default()
    };
    if let Some(env) = &settings.env {
        record.version = Some(envsig::environment_signature(
            &env.python,
            &env.arch,
            &env.image,
            &env.install,
        ));
        record.install_commands = Some(env.install.clone());
    }
    let mut mining = Map::new();
    mining.insert("test_files".into(), test_files.into());
    if settings.preset.name != "default" {
        mining.insert("preset".into(), settings.preset.name.into());
        mining.insert("left_out".into(), left_out.into());
    }
    if !not_utf8.is_empty() {
        mining.insert("not_utf8".into(), not_utf8.into());
    }
    if !big_files.is_empty() {
        mining.insert("big_files".into(), big_files.into());
    }
    mining.insert("functions".into(), methods.into());
    mining.insert("pr_number".into(), pr.map_or(Value::Null, Value::from));
    if let Some(why) = pr_rejected {
        mining.insert("pr_number_rejected".into(), why.into());
    }
    mining.insert("created_at_local".into(), created_at_local.into());
    let base_kind = match &base {
        None => "empty tree",
        Some(base) if head.parent_id(0).ok() == Some(base.id()) => "first parent",
        Some(_) => "given",
    };
    mining.insert("base".into(), base_kind.into());
    mining.insert("merge".into(), (head.parent_count() > 1).into());
    record.set_ext("mining", mining);
    Ok(Mined::Record(Box::new(record)))
}

/// Why a commit whose diff is `diff` is skipped before its text is written: it changes no
/// file, more than `--max-files`, or none under the `--path` prefixes.
fn skipped_by_files(diff: &TreeDiff<'_>, filters: &Filters) -> Option<String> {
    let files = diff.files();
    if files == 0 {
        return Some(EMPTY_COMMIT.into());
    }
    if let Some(max) = filters.max_files
        && files > max
    {
        return Some(format!("{files} files changed (more than {max})"));
    }
    let touches = |p: String| filters.paths.iter().any(|prefix| under(&p, prefix));
    if !filters.paths.is_empty() && !diff.paths().any(touches) {
        return Some("touches none of the `--path` prefixes".into());
    }
    None
}

/// Whether `path` is `prefix` or lies under it.
fn under(path: &str, prefix: &str) -> bool {
    let prefix = prefix.trim_end_matches('/');
    prefix.is_empty()
        || path == prefix
        || path
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with('/'))
}
