//! `mine`: records mined from a repository's commits, on threads, written in commit
//! order.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use git2::{Oid, Sort};
use isobench_core::codec::JsonStyle;
use isobench_core::testfiles::SplitPreset;
use serde_json::Value;

use crate::cli::MineArgs;
use crate::commands::{MineError, skipped_lines};
use crate::errors::CliError;
use crate::exit;
use crate::mine::commit::{self, EnvSpec, Filters, MineSettings, Mined};
use crate::mine::functions::FunctionFinder;
use crate::mine::repo::{self, Repo, RepoError};
use crate::mine::rules::instance_id;
use crate::output::RecordWriter;
use crate::session::Session;

/// One unit of mining work: a head and its base (`None`: the first parent).
#[derive(Debug, Clone, Copy)]
struct Task {
    head: Oid,
    base: Option<Oid>,
}

/// Runs `mine`.
pub fn run_mine(session: &Session, args: &MineArgs) -> Result<i32, CliError> {
    // Objects are read from the repository's own store, which `git` itself reads without
    // hashing them again: libgit2's check of every object read against its id is left off
    // (it took about a twentieth of the time).
    git2::opts::strict_hash_verification(false);
    let repo = Repo::open(&args.repo)?;
    if args.head.is_empty() && args.range.is_empty() {
        return Err(MineError::NothingToMine.into());
    }
    if args.base.is_some() && (args.head.len() != 1 || !args.range.is_empty()) {
        return Err(MineError::BaseWithoutSingleHead.into());
    }
    let repo_name = match &args.repo_name {
        Some(name)
            if name.split('/').count() == 2 && !name.starts_with('/') && !name.ends_with('/') =>
        {
            name.clone()
        }
        Some(name) => {
            return Err(MineError::RepoName(name.clone()).into());
        }
        None => {
            let name = repo
                .origin_owner_name()
                .ok_or_else(|| MineError::UnknownOwnerName(args.repo.clone()))?;
            if let Some(url) = repo.origin_url().filter(|u| repo::is_local_url(u)) {
                crate::terminal::say!(
                    "warning: the `origin` of `{}` is the local path `{url}`: the records name the repository `{name}` after its last two directories\nhint: give the repository's real name with `--repo-name OWNER/NAME`",
                    args.repo.display()
                );
            }
            name
        }
    };
    let (tasks, mainline) = tasks_of(&repo, args)?;
    let single = tasks.len() == 1;
    let settings = MineSettings {
        repo_name,
        preset: SplitPreset::named(&args.preset, session.config.test_file_rules()?).ok_or_else(
            || MineError::Preset {
                given: args.preset.clone(),
                names: SplitPreset::NAMES.to_vec(),
            },
        )?,
        env: args.env.python.as_ref().map(|python| EnvSpec {
            python: python.clone(),
            arch: args.env.arch.clone(),
            image: args.env.image.clone(),
            install: args.install.clone(),
        }),
        filters: Filters {
            only_source: args.only_source,
            max_files: args.max_files,
            paths: args.paths.clone(),
            code_and_tests: args.code_and_tests,
        },
        pull_heads: commit::pull_heads(&repo),
        language_drivers: args.language_drivers || args.preset == "swe-bench",
    };
    let renamed_ids = unique_ids(&repo, &settings, &tasks, &mainline)?;
    let output = args.output.as_deref().filter(|p| p.as_os_str() != "-");
    let mut writer = RecordWriter::create(output, args.overwrite, JsonStyle::Compact)?;
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
        .clamp(1, tasks.len().max(1));
    let mut stats = Stats {
        renamed_ids,
        ..Stats::default()
    };
    let path = args.repo.clone();
    let result = mine_parallel(&path, &settings, &tasks, jobs, single, |outcome| {
        stats.take(outcome, single, &mut writer)
    });
    if let Err(e) = result {
        // A reader that stopped reading (`| head`) is not a failure to report.
        let closed = matches!(&e, CliError::Write { source, .. } if source.kind() == std::io::ErrorKind::BrokenPipe);
        if closed {
            return Err(e);
        }
        if stats.written == 0 {
            crate::terminal::say!("stopped before the first record: nothing was written");
        } else {
            crate::terminal::say!(
                "stopped after {} record(s): those were written, the rest was not",
                stats.written
            );
        }
        return Err(e);
    }
    let skipped = stats.skipped.values().sum::<usize>();
    if stats.written == 0 {
        // As `convert` does with an input that holds no record: an empty output is not a
        // result, and is not left behind (the unfinished output file is removed).
        return Err(MineError::AllSkipped {
            commits: tasks.len(),
            skipped: stats.skipped,
        }
        .into());
    }
    let reasons = skipped_lines(&stats.skipped);
    writer.finish()?;
    let not_utf8 = if stats.not_utf8 > 0 {
        format!(
            "\n  {} file(s) left out of their records: their diff is not UTF-8 (`extensions.mining.not_utf8`)",
            stats.not_utf8
        )
    } else {
        String::new()
    };
    crate::terminal::say!(
        "mined {} commit(s): {} record(s) written, {skipped} skipped{reasons}{not_utf8}",
        tasks.len(),
        stats.written,
    );
    Ok(exit::OK)
}

/// The commits `--head` and `--range` name, with their bases, and the first-parent
/// history of each range.
fn tasks_of(repo: &Repo, args: &MineArgs) -> Result<(Vec<Task>, HashSet<Oid>), CliError> {
    let mut tasks = Vec::new();
    let mut mainline = HashSet::new();
    let base = args
        .base
        .as_deref()
        .map(|rev| {
            if rev.eq_ignore_ascii_case(commit::EMPTY_TREE) {
                Ok(commit::empty_tree())
            } else {
                repo.commit(rev).map(|c| c.id())
            }
        })
        .transpose()?;
    for rev in &args.head {
        tasks.push(Task {
            head: repo.commit(rev)?.id(),
            base,
        });
    }
    for range in &args.range {
        if range.contains("...") {
            return Err(MineError::SymmetricRange(range.clone()).into());
        }
        let Some((from, to)) = range.split_once("..") else {
            return Err(MineError::Range(range.clone()).into());
        };
        let (from_id, to_id) = (repo.commit(from)?.id(), repo.commit(to)?.id());
        let commits = range_commits(repo, from_id, to_id)?;
        if commits.is_empty() {
            let reversed = range_commits(repo, to_id, from_id)?.len();
            let why = if reversed > 0 {
                format!(
                    "`{from}..{to}` lists the commits reachable from `{to}` and not from `{from}`; the range looks reversed: `{to}..{from}` has {reversed} commit(s)"
                )
            } else {
                format!("`{from}` and `{to}` are the same commit")
            };
            return Err(MineError::EmptyRange {
                range: range.clone(),
                why,
            }
            .into());
        }
        mainline.extend(first_parent_chain(repo, from_id, to_id)?);
        tasks.extend(commits.into_iter().map(|head| Task { head, base: None }));
    }
    Ok((tasks, mainline))
}

/// The first-parent chain from `to` down to (not into) `from`'s history.
fn first_parent_chain(repo: &Repo, from: Oid, to: Oid) -> Result<Vec<Oid>, RepoError> {
    let mut walk = repo.git.revwalk().map_err(|e| repo.err(e))?;
    walk.simplify_first_parent().map_err(|e| repo.err(e))?;
    walk.push(to).map_err(|e| repo.err(e))?;
    walk.hide(from).map_err(|e| repo.err(e))?;
    walk.map(|oid| oid.map_err(|e| repo.err(e))).collect()
}

/// The ids to give commits that name a pull request another mined commit names too (a
/// main-line commit and its cherry-pick onto a release branch both end in `(#N)`): the
/// first such commit on the first-parent history of a range's end keeps `-PR-N` (the
/// first of all when none is), a commit off that history gets `-PR-N-backport-<7 hex>`,
/// another on it `-PR-N-again-<7 hex>`. Each renaming is announced on stderr.
fn unique_ids(
    repo: &Repo,
    settings: &MineSettings,
    tasks: &[Task],
    mainline: &HashSet<Oid>,
) -> Result<HashMap<Oid, (String, String)>, RepoError> {
    let mut by_pr: BTreeMap<u64, Vec<Oid>> = BTreeMap::new();
    let mut seen = HashSet::new();
    for task in tasks {
        if !seen.insert(task.head) {
            continue;
        }
        let commit = repo.find(task.head)?;
        if let (Some(n), _) = commit::pr_of(&commit, settings.pull_heads.as_ref()) {
            by_pr.entry(n).or_default().push(task.head);
        }
    }
    let mut renamed = HashMap::new();
    let mut err = std::io::stderr().lock();
    for (n, heads) in by_pr.into_iter().filter(|(_, h)| h.len() > 1) {
        let keeper = heads
            .iter()
            .copied()
            .find(|h| mainline.contains(h))
            .unwrap_or(heads[0]);
        let id = instance_id(&settings.repo_name, Some(n), "");
        for head in heads.into_iter().filter(|&h| h != keeper) {
            let what = if mainline.contains(&head) {
                "again"
            } else {
                "backport"
            };
            let short = &head.to_string()[..7];
            let new_id = format!("{id}-{what}-{short}");
            let _ = writeln!(
                err,
                "note: {head} names pull request #{n} as {keeper} does, which keeps `{id}`: its record is `{new_id}` ({})",
                if what == "again" {
                    "also on the first-parent history"
                } else {
                    "off the first-parent history"
                }
            );
            renamed.insert(head, (new_id, id.clone()));
        }
    }
    Ok(renamed)
}

/// The commits reachable from `to` and not from `from`, oldest first (parents before
/// children).
fn range_commits(repo: &Repo, from: Oid, to: Oid) -> Result<Vec<Oid>, RepoError> {
    let mut walk = repo.git.revwalk().map_err(|e| repo.err(e))?;
    walk.set_sorting(Sort::TOPOLOGICAL | Sort::REVERSE)
        .map_err(|e| repo.err(e))?;
    walk.push(to).map_err(|e| repo.err(e))?;
    walk.hide(from).map_err(|e| repo.err(e))?;
    walk.map(|oid| oid.map_err(|e| repo.err(e))).collect()
}

/// Says on stderr which files of `record` were diffed as binary for their size.
fn note_big_files(record: &isobench_core::CanonicalRecord) {
    let Some(Value::Array(files)) = record.ext("mining").and_then(|m| m.get("big_files")) else {
        return;
    };
    let mut err = std::io::stderr().lock();
    for file in files {
        let _ = writeln!(
            err,
            "note: {}: `{}` ({} bytes) is {}",
            crate::terminal::shown(record.instance_id.as_deref().unwrap_or_default()),
            crate::terminal::shown(file.get("path").and_then(Value::as_str).unwrap_or_default()),
            file.get("bytes")
                .and_then(Value::as_u64)
                .unwrap_or_default(),
            file.get("reason")
                .and_then(Value::as_str)
                .unwrap_or_default()
        );
    }
}

/// How many consecutive commits a thread takes at a time: a file's head blob is often
/// the base blob of a later commit, and a thread keeps the blobs it parsed.
const CHUNK: usize = 16;

/// Mines `tasks` on `jobs` threads (each with its own repository handle and parsers, taking
/// runs of [`CHUNK`] consecutive commits) and hands the outcomes to `take` in task order.
fn mine_parallel(
    path: &std::path::Path,
    settings: &MineSettings,
    tasks: &[Task],
    jobs: usize,
    strict_root: bool,
    mut take: impl FnMut(Mined) -> Result<(), CliError>,
) -> Result<(), CliError> {
    let next = AtomicUsize::new(0);
    let window = jobs * CHUNK * 2;
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::sync_channel::<(usize, Result<Mined, RepoError>)>(window);
        for _ in 0..jobs {
            let tx = tx.clone();
            let next = &next;
            scope.spawn(move || {
                let repo = match Repo::open(path) {
                    Ok(r) => r,
                    Err(e) => {
                        let _ = tx.send((next.fetch_add(CHUNK, Ordering::SeqCst), Err(e)));
                        return;
                    }
                };
                let mut finder = FunctionFinder::new();
                let blobs = repo.blobs();
                loop {
                    let start = next.fetch_add(CHUNK, Ordering::SeqCst);
                    if start >= tasks.len() {
                        break;
                    }
                    let end = (start + CHUNK).min(tasks.len());
                    for (i, task) in tasks[start..end].iter().enumerate() {
                        let i = start + i;
                        let mut outcome = commit::mine(
                            &repo,
                            &blobs,
                            &mut finder,
                            settings,
                            task.head,
                            task.base,
                        );
                        if !strict_root && let Err(RepoError::RootCommit { commit, .. }) = &outcome
                        {
                            outcome = Ok(Mined::Skipped {
                                commit: commit.clone(),
                                reason: "a root commit (no parent to diff against)".into(),
                            });
                        }
                        if tx.send((i, outcome)).is_err() {
                            return;
                        }
                    }
                }
            });
        }
        drop(tx);
        let mut pending = BTreeMap::new();
        let mut expected = 0usize;
        for (i, outcome) in &rx {
            pending.insert(i, outcome);
            while let Some(outcome) = pending.remove(&expected) {
                expected += 1;
                let mined = outcome?;
                take(mined)?;
            }
        }
        Ok(())
    })
}

#[derive(Debug, Default)]
struct Stats {
    written: usize,
    /// Files left out of records because their diff is not UTF-8.
    not_utf8: usize,
    skipped: BTreeMap<String, usize>,
    /// Head commit to (its record's id, the id it would have had).
    renamed_ids: HashMap<Oid, (String, String)>,
}

impl Stats {
    /// One line on stderr for each file a record left out because its diff is not UTF-8.
    fn note_not_utf8(&mut self, record: &isobench_core::CanonicalRecord) {
        let Some(Value::Array(files)) = record.ext("mining").and_then(|m| m.get("not_utf8")) else {
            return;
        };
        let mut err = std::io::stderr().lock();
        for file in files {
            self.not_utf8 += 1;
            let _ = writeln!(
                err,
                "note: {}: `{}` left out: {}",
                record.instance_id.as_deref().unwrap_or_default(),
                file.get("path").and_then(Value::as_str).unwrap_or_default(),
                commit::NOT_UTF8_REASON
            );
        }
    }

    fn take(
        &mut self,
        mined: Mined,
        single: bool,
        writer: &mut RecordWriter,
    ) -> Result<(), CliError> {
        match mined {
            Mined::Record(mut record) => {
                let renamed = record
                    .head_commit
                    .as_deref()
                    .and_then(|h| Oid::from_str(h).ok())
                    .and_then(|h| self.renamed_ids.get(&h));
                if let Some((id, shared)) = renamed {
                    record.instance_id = Some(id.clone());
                    let mut mining = record
                        .ext("mining")
                        .and_then(Value::as_object)
                        .cloned()
                        .unwrap_or_default();
                    mining.insert("shares_pr_with".into(), shared.clone().into());
                    record.set_ext("mining", mining);
                }
                if single {
                    describe(&record);
                }
                self.note_not_utf8(&record);
                note_big_files(&record);
                let Value::Object(map) = record.to_value() else {
                    unreachable!("a record serialises to an object")
                };
                writer.write(&map)?;
                self.written += 1;
            }
            Mined::Skipped { commit, reason } => {
                if single {
                    crate::terminal::say!("skipped {commit}: {reason}");
                }
                *self.skipped.entry(reason).or_default() += 1;
            }
        }
        Ok(())
    }
}

/// The report of one mined commit on stderr: each file with the rule that classified it,
/// and each function with how it was found.
fn describe(record: &isobench_core::CanonicalRecord) {
    let mut err = std::io::stderr().lock();
    let mining = record.ext("mining");
    let _ = writeln!(
        err,
        "{}: {} -> {}",
        record.instance_id.as_deref().unwrap_or_default(),
        record.base_commit.as_deref().unwrap_or_default(),
        record.head_commit.as_deref().unwrap_or_default()
    );
    if let Some(Value::Object(files)) = mining.and_then(|m| m.get("test_files")) {
        for (path, rule) in files {
            let _ = match rule.as_str() {
                Some(rule) => writeln!(err, "  test     {path}  (rule `{rule}`)"),
                None => writeln!(err, "  source   {path}  (no test-file rule matched)"),
            };
        }
    }
    if let Some(Value::Object(functions)) = mining.and_then(|m| m.get("functions")) {
        for (name, method) in functions {
            let _ = writeln!(
                err,
                "  function {name}  ({})",
                method.as_str().unwrap_or_default()
            );
        }
    }
}
