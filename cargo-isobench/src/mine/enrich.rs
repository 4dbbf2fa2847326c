//! Enrichment of imported records from local repositories and timing logs: SWE-smith and
//! `MiniSandbox` test patches from the mirror branch with a check of the fix patch,
//! GSO's `<sha>^` bases, SWE-bench heads from the pull-request number, and timings.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use super::rules::pr_from_instance_id;
use git2::{Diff, Oid};
use isobench_core::vocab::{self, Source};
use isobench_core::{CanonicalRecord, Notes, RecordError};

use super::heads::{HeadChoice, PrIndex};
use super::repo::{Repo, RepoError};
use super::timings;
use crate::errors::AreaError;

/// What an [`Enricher`] uses: `DIR/OWNER/NAME[.git]` under `repos_dir`, the `[repos]` map
/// of the configuration (used when `repos_dir` is given or `use_map`), and timing logs
/// under `timings`.
#[derive(Debug, Clone, Default)]
pub struct EnrichConfig {
    /// `--repos DIR`.
    pub repos_dir: Option<PathBuf>,
    /// `[repos]` of `isobench.toml`.
    pub mapped: BTreeMap<String, PathBuf>,
    /// Look repositories up even without `repos_dir`.
    pub use_map: bool,
    /// `--timings DIR`.
    pub timings: Option<PathBuf>,
    /// `(python, arch, image)` of the environment signature for records without `version`.
    pub env: Option<(String, String, String)>,
}

impl EnrichConfig {
    /// Whether there is anything to do.
    pub fn is_active(&self) -> bool {
        self.repos_dir.is_some() || self.use_map || self.timings.is_some() || self.env.is_some()
    }
}

/// Enriches records; built once per run, reused for every record (repositories are
/// opened once and the pull-request index of each is built once).
pub struct Enricher {
    repos_dir: Option<PathBuf>,
    mapped: BTreeMap<String, PathBuf>,
    use_repos: bool,
    timings: Option<PathBuf>,
    env: Option<(String, String, String)>,
    open: HashMap<PathBuf, Entry>,
}

struct Entry {
    repo: Repo,
    prs: Option<PrIndex>,
}

impl std::fmt::Debug for Enricher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Enricher")
            .field("repos_dir", &self.repos_dir)
            .field("timings", &self.timings)
            .finish_non_exhaustive()
    }
}

fn record_error(pointer: &str, message: String, hint: &str) -> RecordError {
    RecordError::invalid(pointer, message).with_hint(hint)
}

fn repo_error(e: &RepoError) -> RecordError {
    let error = RecordError::invalid("", e.to_string());
    match e.hint() {
        Some(h) => error.with_hint(&h),
        None => error,
    }
}

impl Enricher {
    /// An enricher for `config`; each converting thread builds its own.
    pub fn new(config: EnrichConfig) -> Self {
        Self {
            use_repos: config.repos_dir.is_some() || config.use_map,
            repos_dir: config.repos_dir,
            mapped: config.mapped,
            timings: config.timings,
            env: config.env,
            open: HashMap::new(),
        }
    }

    /// Enriches one record; warnings and derivations go to `notes`.
    pub fn apply(
        &mut self,
        record: &mut CanonicalRecord,
        notes: &mut Notes,
    ) -> Result<(), RecordError> {
        if self.use_repos {
            self.enrich_from_repository(record, notes)?;
        }
        if let Some(dir) = self.timings.clone() {
            Self::enrich_from_timings(&dir, record, notes)?;
        }
        if let Some((python, arch, image)) = &self.env
            && record.version.is_none()
        {
            let install = record.install_commands.clone().unwrap_or_default();
            record.version = Some(isobench_core::envsig::environment_signature(
                python, arch, image, &install,
            ));
            notes.derived(
                "version",
                "environment signature: `python==<v>;arch=<arch>;image=<tag>;install_sha=<8 hex of sha256 of the install commands joined by newlines>`",
            );
        }
        Ok(())
    }

    /// The repository of `name`: the `[repos]` map, then `DIR/NAME`, then `DIR/NAME.git`.
    fn locate(&self, name: &str) -> Result<PathBuf, Vec<PathBuf>> {
        let mut tried = Vec::new();
        if let Some(path) = self.mapped.get(name) {
            if path.is_dir() {
                return Ok(path.clone());
            }
            tried.push(path.clone());
        }
        if let Some(dir) = &self.repos_dir {
            for candidate in [dir.join(name), dir.join(format!("{name}.git"))] {
                if candidate.is_dir() {
                    return Ok(candidate);
                }
                tried.push(candidate);
            }
        }
        Err(tried)
    }

    fn enrich_from_repository(
        &mut self,
        record: &mut CanonicalRecord,
        notes: &mut Notes,
    ) -> Result<(), RecordError> {
        let format = Source::format_of(&record.extensions).unwrap_or("canonical");
        let mirror = record.ext_str(vocab::MIRROR_REPO).map(str::to_owned);
        let is_mirror = matches!(format, "swe-smith" | "minisandbox") || mirror.is_some();
        let names: Vec<String> = mirror.into_iter().chain(record.repo.clone()).collect();
        if names.is_empty() {
            return Err(RecordError::missing(
                "/repo",
                "the record names no repository, so none can be looked up",
            ));
        }
        if let Some(name) = names.iter().find(|n| !plain_path(n, 2)) {
            return Err(record_error(
                "/repo",
                format!(
                    "`{}` is not a plain `OWNER/NAME` repository name, so it is not looked up as a path",
                    name.escape_debug()
                ),
                "a repository name is two components of a path, neither empty, `.` nor `..`",
            ));
        }
        let mut tried = Vec::new();
        let mut found = None;
        for name in &names {
            match self.locate(name) {
                Ok(path) => {
                    found = Some(path);
                    break;
                }
                Err(t) => tried.extend(t),
            }
        }
        let Some(path) = found else {
            let tried: Vec<String> = tried.iter().map(|p| format!("`{}`", p.display())).collect();
            return Err(record_error(
                "/repo",
                format!(
                    "no local repository for `{}` (looked for {})",
                    names.join("` or `"),
                    if tried.is_empty() {
                        "nothing: no `--repos DIR` and no `[repos]` entry".to_owned()
                    } else {
                        tried.join(", ")
                    }
                ),
                "clone it to `DIR/OWNER/NAME` (or `.git`), or map it in the `[repos]` table of `isobench.toml`",
            ));
        };
        if !self.open.contains_key(&path) {
            let repo = Repo::open(&path).map_err(|e| repo_error(&e))?;
            self.open.insert(path.clone(), Entry { repo, prs: None });
        }
        let entry = self.open.get_mut(&path).expect("inserted above");
        if is_mirror {
            mirror_test_patch(&entry.repo, record, notes)?;
            return Ok(());
        }
        if let Some(unresolved) = record
            .ext_str(vocab::BASE_COMMIT_UNRESOLVED)
            .map(str::to_owned)
        {
            let base = entry.repo.commit(&unresolved).map_err(|e| repo_error(&e))?;
            record.base_commit = Some(base.id().to_string());
            record.extensions.remove(vocab::BASE_COMMIT_UNRESOLVED);
            notes.derived(
                "base_commit",
                format!("`{unresolved}` resolved in `{}`", entry.repo.path.display()),
            );
        }
        for (field, value) in [
            ("base_commit", record.base_commit.clone()),
            ("head_commit", record.head_commit.clone()),
        ] {
            if let Some(sha) = value {
                check_commit(&entry.repo, field, &sha)?;
            }
        }
        if record.head_commit.is_none()
            && let Some(n) = record.instance_id.as_deref().and_then(pr_from_instance_id)
        {
            let index = match &mut entry.prs {
                Some(index) => index,
                None => entry
                    .prs
                    .insert(PrIndex::build(&entry.repo).map_err(|e| repo_error(&e))?),
            };
            let base = record
                .base_commit
                .as_deref()
                .and_then(|sha| Oid::from_str(sha).ok());
            let choice = index
                .choose(&entry.repo, n, base)
                .map_err(|e| repo_error(&e))?;
            head_from_choice(&entry.repo, index, n, choice, record, notes);
        } else if record.head_commit.is_none()
            && let Some(id) = record.instance_id.as_deref()
        {
            let detail = format!(
                "the instance_id `{id}` does not end in a pull-request number (`OWNER__REPO-N`): no head commit can be looked up"
            );
            notes.warn("head_commit", detail.clone());
            notes.missing("head_commit", detail);
        }
        Ok(())
    }

    fn enrich_from_timings(
        dir: &Path,
        record: &mut CanonicalRecord,
        notes: &mut Notes,
    ) -> Result<(), RecordError> {
        let Some(id) = record.instance_id.clone() else {
            return Err(RecordError::missing(
                "/instance_id",
                "timing logs are matched by instance_id and the record has none",
            ));
        };
        if !plain_path(&id, 1) {
            return Err(record_error(
                "/instance_id",
                format!(
                    "`{}` is not a plain name, so its timing logs are not looked up as a path",
                    id.escape_debug()
                ),
                "timing logs are found at `--timings DIR/INSTANCE_ID`, an id that is one component of a path",
            ));
        }
        let place = dir.join(&id);
        if !place.is_dir() {
            notes.warn(
                "duration_changes",
                format!(
                    "no timing logs for this record (no directory `{}`)",
                    place.display()
                ),
            );
            return Ok(());
        }
        let pointer = "/duration_changes";
        let hint = "see docs/mining.md for the `--timings DIR` layout";
        let files = timings::instance_logs(&place)
            .map_err(|e| record_error(pointer, e.to_string(), hint))?;
        let timed = timings::read_timings(&files, record.efficiency_test.as_deref(), &place)
            .map_err(|e| record_error(pointer, e.to_string(), hint))?;
        timings::attach(record, &timed, notes);
        Ok(())
    }
}

/// The rule a derived `head_commit` follows (the same for every record: the record's own
/// pull request is in `extensions.mining.pr_number`).
const HEAD_RULE: &str = "the commit of the pull request the instance_id ends in (`Merge pull request #N` or a subject ending in `(#N)`) that descends from base_commit, first-parent history of the default branch first; of several, the oldest";

/// Sets `head_commit` (and `extensions.mining`) from a head-commit search, with notes.
fn head_from_choice(
    repo: &Repo,
    index: &PrIndex,
    n: u64,
    choice: HeadChoice,
    record: &mut CanonicalRecord,
    notes: &mut Notes,
) {
    let short = |oids: &[Oid]| {
        oids.iter()
            .map(|o| o.to_string()[..10].to_owned())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let shallow = if repo.git.is_shallow() {
        " (the clone is shallow: it may be cut off)"
    } else {
        ""
    };
    let mut mining = serde_json::Map::new();
    mining.insert("pr_number".into(), n.into());
    let single = matches!(choice, HeadChoice::Found { .. });
    let (head, on_mainline) = match choice {
        HeadChoice::Found { head, on_mainline } => (head, on_mainline),
        HeadChoice::Ambiguous {
            head,
            candidates,
            on_mainline,
        } => {
            notes.warn(
                "head_commit",
                format!(
                    "{} commits of pull request #{n} descend from base_commit{}: {}; picked {head}, the oldest",
                    candidates.len(),
                    if on_mainline {
                        " on the default branch's first-parent history"
                    } else {
                        ""
                    },
                    short(&candidates)
                ),
            );
            mining.insert(
                "head_commit_candidates".into(),
                candidates
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .into(),
            );
            (head, on_mainline)
        }
        HeadChoice::NotDescendants(named) => {
            let detail = format!(
                "the commits of pull request #{n} ({}) do not descend from base_commit{shallow}",
                short(&named)
            );
            notes.warn("head_commit", detail.clone());
            notes.missing("head_commit", detail);
            return;
        }
        HeadChoice::NoCommit => {
            let detail = format!(
                "pull request #{n} has no merge or squash commit in the history of `{}`{shallow}",
                repo.path.display()
            );
            notes.warn("head_commit", detail.clone());
            notes.missing("head_commit", detail);
            return;
        }
    };
    // A head off the first-parent history that the default branch has merged (a release
    // branch merged back) with no other commit of the pull request: the choice is not in
    // doubt, and nothing is said.
    let merged = !on_mainline
        && single
        && index
            .default_branch
            .as_deref()
            .and_then(|b| repo.git.refname_to_id(b).ok())
            .is_some_and(|tip| repo.git.graph_descendant_of(tip, head).unwrap_or(false));
    if merged {
        mining.insert("merged_into_default_branch".into(), true.into());
    }
    if !on_mainline && !merged {
        notes.warn(
            "head_commit",
            format!(
                "{head} (pull request #{n}) is not on the first-parent history of the default branch{}",
                index
                    .default_branch
                    .as_deref()
                    .map(|b| format!(" `{b}`"))
                    .unwrap_or_default()
            ),
        );
    }
    record.head_commit = Some(head.to_string());
    record.set_ext("mining", mining);
    notes.derived("head_commit", HEAD_RULE);
}

/// Fails when `sha` is not a commit of the clone, saying whether the clone is shallow.
fn check_commit(repo: &Repo, field: &str, sha: &str) -> Result<(), RecordError> {
    let found = Oid::from_str(sha)
        .ok()
        .and_then(|oid| repo.git.find_commit(oid).ok());
    if found.is_some() {
        return Ok(());
    }
    let shallow = repo.git.is_shallow();
    Err(record_error(
        &format!("/{field}"),
        format!(
            "commit `{sha}` is not in `{}`{}",
            repo.path.display(),
            if shallow { " (a shallow clone)" } else { "" }
        ),
        if shallow {
            "deepen the clone: `git fetch --unshallow`"
        } else {
            "fetch the commit into the clone (`git fetch origin <sha>`), or check the record"
        },
    ))
}

/// The test patch restores what the mirror branch's last commit ("Remove F2P Tests")
/// removed; the record's fix patch is checked against the branch.
fn mirror_test_patch(
    repo: &Repo,
    record: &mut CanonicalRecord,
    notes: &mut Notes,
) -> Result<(), RecordError> {
    let id = record.instance_id.clone().ok_or_else(|| {
        RecordError::missing(
            "/instance_id",
            "the mirror branch is named after the instance_id",
        )
    })?;
    let branch = [
        format!("refs/heads/{id}"),
        format!("refs/remotes/origin/{id}"),
    ]
    .into_iter()
    .find_map(|r| repo.git.refname_to_id(&r).ok())
    .ok_or_else(|| {
        record_error(
            "/instance_id",
            format!("the mirror `{}` has no branch `{id}`", repo.path.display()),
            "fetch the instance's branch: `git fetch origin <instance_id>`",
        )
    })?;
    let tip = repo.find(branch).map_err(|e| repo_error(&e))?;
    let subject = |c: &git2::Commit<'_>| {
        String::from_utf8_lossy(c.message_bytes())
            .lines()
            .next()
            .unwrap_or_default()
            .trim()
            .to_owned()
    };
    let tip_subject = subject(&tip);
    let bug = match tip_subject.as_str() {
        "Remove F2P Tests" => {
            let bug = repo.first_parent(&tip).map_err(|e| repo_error(&e))?;
            let blobs = repo.blobs();
            let diff = repo
                .diff_trees(
                    &blobs,
                    Some(&tip.tree().map_err(|e| repo_error(&repo.err(e)))?),
                    &bug.tree().map_err(|e| repo_error(&repo.err(e)))?,
                )
                .map_err(|e| repo_error(&e))?;
            let text = repo.diff_text(&blobs, &diff).map_err(|e| repo_error(&e))?;
            record.test_patch = Some(text);
            notes.derived(
                "test_patch",
                "the diff restoring what the mirror branch's last commit (\"Remove F2P Tests\") removed",
            );
            bug
        }
        "Bug Patch" => {
            record.test_patch = Some(String::new());
            notes.warn(
                "test_patch",
                "the mirror branch ends in \"Bug Patch\" (an older SWE-smith branch): no tests were removed, so the test patch is empty",
            );
            tip
        }
        other => {
            return Err(record_error(
                "/instance_id",
                format!(
                    "the branch `{id}` of `{}` ends in \"{other}\", not \"Remove F2P Tests\" or \"Bug Patch\"",
                    repo.path.display()
                ),
                "is this a SWE-smith mirror?",
            ));
        }
    };
    if record.ext_str(vocab::MIRROR_BASE_COMMIT).is_none() {
        record.set_ext(vocab::MIRROR_BASE_COMMIT, bug.id().to_string());
        notes.derived(
            "extensions.mirror_base_commit",
            "the mirror branch's \"Bug Patch\" commit",
        );
    }
    let clean = repo.first_parent(&bug).map_err(|e| repo_error(&e))?;
    if let Some(fix) = &record.patch {
        match fix_reaches(repo, fix, &bug, &clean) {
            Ok(true) => {}
            Ok(false) => notes.warn(
                "patch",
                format!(
                    "the fix patch applied to the bug commit {} does not give the tree of its parent {} (\"{}\")",
                    bug.id(),
                    clean.id(),
                    subject(&clean)
                ),
            ),
            Err(e) => notes.warn(
                "patch",
                format!(
                    "the fix patch does not apply to the bug commit {}: {}",
                    bug.id(),
                    e.message()
                ),
            ),
        }
    }
    Ok(())
}

/// Whether applying `fix` to `bug`'s tree gives `clean`'s tree.
fn fix_reaches(
    repo: &Repo,
    fix: &str,
    bug: &git2::Commit<'_>,
    clean: &git2::Commit<'_>,
) -> Result<bool, git2::Error> {
    let diff = Diff::from_buffer(fix.as_bytes())?;
    let mut index = repo.git.apply_to_tree(&bug.tree()?, &diff, None)?;
    let tree = index.write_tree_to(&repo.git)?;
    Ok(tree == clean.tree_id())
}

/// Whether `name` is `components` plain components of a relative path joined by `/`: none
/// empty, `.` or `..`, and no backslash or NUL anywhere, so that joined to a directory it
/// stays inside it.
fn plain_path(name: &str, components: usize) -> bool {
    !name.contains(['\\', '\0'])
        && name.split('/').count() == components
        && name.split('/').all(|c| !matches!(c, "" | "." | ".."))
}
