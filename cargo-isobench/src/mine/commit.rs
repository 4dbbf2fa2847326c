//! Mining one commit (against a base) into a canonical record.

use git2::Oid;
use isobench_core::diff;
use isobench_core::mining::{git_time, instance_id, pr_number};
use isobench_core::testfiles::{TestFileRules, split_patch};
use isobench_core::{CanonicalRecord, envsig};
use serde_json::{Map, Value};

use super::functions::{PythonParser, Touched, from_hunk_headers};
use super::repo::{Repo, RepoError};

/// The environment a mined record's `version` signature (D6) is computed from.
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
}

/// What every mined commit shares.
#[derive(Debug, Clone)]
pub struct MineSettings {
    /// `owner/name`.
    pub repo_name: String,
    /// The D8 rules.
    pub rules: TestFileRules,
    /// The D6 environment, when given.
    pub env: Option<EnvSpec>,
    /// Filters.
    pub filters: Filters,
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

/// Mines `head` against `base` (its first parent when `None`).
pub fn mine(
    repo: &Repo,
    parser: &mut PythonParser,
    settings: &MineSettings,
    head: Oid,
    base: Option<Oid>,
) -> Result<Mined, RepoError> {
    let head = repo.find(head)?;
    let base = match base {
        Some(oid) => repo.find(oid)?,
        None => repo.first_parent(&head)?,
    };
    let head_tree = head.tree().map_err(|e| repo.err(e))?;
    let base_tree = base.tree().map_err(|e| repo.err(e))?;
    let git_diff = repo.diff_trees(Some(&base_tree), &head_tree)?;
    let files = git_diff.deltas().len();
    let skip = |reason: String| {
        Ok(Mined::Skipped {
            commit: head.id().to_string(),
            reason,
        })
    };
    if let Some(max) = settings.filters.max_files
        && files > max
    {
        return skip(format!("{files} files changed (more than {max})"));
    }
    if !settings.filters.paths.is_empty() {
        let touches = git_diff.deltas().any(|d| {
            [d.old_file().path(), d.new_file().path()]
                .into_iter()
                .flatten()
                .any(|p| {
                    let p = p.to_string_lossy();
                    settings
                        .filters
                        .paths
                        .iter()
                        .any(|prefix| under(&p, prefix))
                })
        });
        if !touches {
            return skip("touches none of the `--path` prefixes".into());
        }
    }
    let text = repo.diff_text(&git_diff)?;
    let split = split_patch(&text, &settings.rules).map_err(|e| RepoError::Git {
        path: repo.path.clone(),
        source: git2::Error::from_str(&format!("the diff of {} does not parse: {e}", head.id())),
    })?;
    if settings.filters.only_source && split.patch.is_empty() {
        return skip("touches only test files (`--only-source`)".into());
    }

    let message = head.message_bytes();
    let message = String::from_utf8_lossy(message).into_owned();
    let pr = pr_number(&message);
    let head_sha = head.id().to_string();
    let time = head.time();
    let (created_at, created_at_local) = git_time(time.seconds(), time.offset_minutes());

    // Functions: parse each file of each part.
    let mut patch_functions = Vec::new();
    let mut test_functions = Vec::new();
    let mut methods = Map::new();
    for (part, is_test) in [(&split.patch, false), (&split.test_patch, true)] {
        let parsed = diff::parse(part).map_err(|e| RepoError::Git {
            path: repo.path.clone(),
            source: git2::Error::from_str(&e.to_string()),
        })?;
        for file in &parsed.files {
            if file.is_binary {
                continue;
            }
            let Some(path) = file.path() else { continue };
            let touched: Vec<Touched> = if std::path::Path::new(path)
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("py"))
            {
                let old = file
                    .old_path
                    .as_deref()
                    .and_then(|p| repo.file_text(&base_tree, p));
                let new = file
                    .new_path
                    .as_deref()
                    .and_then(|p| repo.file_text(&head_tree, p));
                parser.touched(file, old.as_deref(), new.as_deref())
            } else {
                from_hunk_headers(file)
            };
            for t in touched {
                let last = t.name.rsplit('.').next().unwrap_or(&t.name);
                if is_test && !last.starts_with("test") {
                    continue;
                }
                let qualified = format!("{path}::{}", t.name);
                methods.insert(qualified.clone(), t.method.as_str().into());
                if is_test {
                    test_functions.push(qualified);
                } else {
                    patch_functions.push(qualified);
                }
            }
        }
    }

    let mut record = CanonicalRecord {
        repo: Some(settings.repo_name.clone()),
        instance_id: Some(instance_id(&settings.repo_name, pr, &head_sha)),
        created_at: Some(created_at),
        base_commit: Some(base.id().to_string()),
        head_commit: Some(head_sha),
        patch: Some(split.patch),
        test_patch: Some(split.test_patch),
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
    let mut test_files = Map::new();
    for (path, rule) in split.classified {
        test_files.insert(path, rule.map_or(Value::Null, Value::String));
    }
    let mut mining = Map::new();
    mining.insert("test_files".into(), test_files.into());
    mining.insert("functions".into(), methods.into());
    mining.insert("pr_number".into(), pr.map_or(Value::Null, Value::from));
    mining.insert("created_at_local".into(), created_at_local.into());
    mining.insert(
        "base".into(),
        if head.parent_id(0).ok() == Some(base.id()) {
            "first parent"
        } else {
            "given"
        }
        .into(),
    );
    mining.insert("merge".into(), (head.parent_count() > 1).into());
    record.set_ext("mining", mining);
    Ok(Mined::Record(Box::new(record)))
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
