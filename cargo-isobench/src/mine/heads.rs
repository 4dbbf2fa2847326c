//! The head commit of an imported record's pull request: the commits whose subject names
//! the pull request (`Merge pull request #N ...` or `... (#N)`), kept when they descend
//! from the record's `base_commit`, those on the first-parent history of the default
//! branch preferred, and one picked by a fixed rule when several remain.

use std::collections::{HashMap, HashSet};

use super::rules::pr_number;
use git2::{Oid, Sort};

use super::repo::{Repo, RepoError};

/// Every commit naming a pull request, on any branch or tag, and the first-parent history of the
/// default branch. Built once per repository.
#[derive(Debug, Default)]
pub struct PrIndex {
    /// Pull-request number to the commits naming it, newest first.
    by_number: HashMap<u64, Vec<Oid>>,
    /// The commits on the first-parent chain of the default branch's tip.
    mainline: HashSet<Oid>,
    /// The default branch's reference, when one was found.
    pub default_branch: Option<String>,
}

/// The outcome of a head-commit search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeadChoice {
    /// One commit qualifies.
    Found {
        /// The head commit.
        head: Oid,
        /// Whether it is on the default branch's first-parent history.
        on_mainline: bool,
    },
    /// Several commits qualify equally; `head` is the one the rule picks.
    Ambiguous {
        /// The pick: the oldest by committer time (ties: the smallest id).
        head: Oid,
        /// Every qualifying commit, the pick first.
        candidates: Vec<Oid>,
        /// Whether they are on the default branch's first-parent history.
        on_mainline: bool,
    },
    /// Commits name the pull request, but none descends from `base_commit`.
    NotDescendants(Vec<Oid>),
    /// No commit names the pull request.
    NoCommit,
}

impl PrIndex {
    /// Walks every branch (local and remote) and tag once.
    pub fn build(repo: &Repo) -> Result<Self, RepoError> {
        let git = &repo.git;
        let mut walk = git.revwalk().map_err(|e| repo.err(e))?;
        walk.set_sorting(Sort::TIME).map_err(|e| repo.err(e))?;
        if git.head().is_ok() {
            walk.push_head().map_err(|e| repo.err(e))?;
        }
        walk.push_glob("refs/heads/*").map_err(|e| repo.err(e))?;
        walk.push_glob("refs/remotes/*").map_err(|e| repo.err(e))?;
        // A merge on a release branch that was deleted once tagged is reachable only from
        // the tag.
        walk.push_glob("refs/tags/*").map_err(|e| repo.err(e))?;
        let mut by_number: HashMap<u64, Vec<Oid>> = HashMap::new();
        for oid in walk {
            let oid = oid.map_err(|e| repo.err(e))?;
            let commit = repo.find(oid)?;
            if let Some(n) = pr_number(&String::from_utf8_lossy(commit.message_bytes())) {
                by_number.entry(n).or_default().push(oid);
            }
        }
        let default_branch = default_branch(repo);
        let mut mainline = HashSet::new();
        if let Some(tip) = default_branch
            .as_deref()
            .and_then(|r| git.refname_to_id(r).ok())
        {
            let mut walk = git.revwalk().map_err(|e| repo.err(e))?;
            walk.simplify_first_parent().map_err(|e| repo.err(e))?;
            walk.push(tip).map_err(|e| repo.err(e))?;
            for oid in walk {
                mainline.insert(oid.map_err(|e| repo.err(e))?);
            }
        }
        Ok(Self {
            by_number,
            mainline,
            default_branch,
        })
    }

    /// The head commit of pull request `number` for a record based on `base` (any
    /// descendant qualifies when the record has no base).
    pub fn choose(
        &self,
        repo: &Repo,
        number: u64,
        base: Option<Oid>,
    ) -> Result<HeadChoice, RepoError> {
        let Some(named) = self.by_number.get(&number) else {
            return Ok(HeadChoice::NoCommit);
        };
        let mut descendants = Vec::new();
        for &oid in named {
            let descends = match base {
                Some(base) => repo
                    .git
                    .graph_descendant_of(oid, base)
                    .map_err(|e| repo.err(e))?,
                None => true,
            };
            if descends {
                descendants.push(oid);
            }
        }
        if descendants.is_empty() {
            return Ok(HeadChoice::NotDescendants(named.clone()));
        }
        let on_mainline: Vec<Oid> = descendants
            .iter()
            .copied()
            .filter(|oid| self.mainline.contains(oid))
            .collect();
        let (mut pool, on_mainline) = if on_mainline.is_empty() {
            (descendants, false)
        } else {
            (on_mainline, true)
        };
        let mut keyed = Vec::with_capacity(pool.len());
        for oid in pool.drain(..) {
            keyed.push((repo.find(oid)?.committer().when().seconds(), oid));
        }
        keyed.sort();
        let candidates: Vec<Oid> = keyed.into_iter().map(|(_, oid)| oid).collect();
        let head = candidates[0];
        Ok(if candidates.len() == 1 {
            HeadChoice::Found { head, on_mainline }
        } else {
            HeadChoice::Ambiguous {
                head,
                candidates,
                on_mainline,
            }
        })
    }
}

/// The default branch: what `origin/HEAD` points to, else the branch `HEAD` is on.
fn default_branch(repo: &Repo) -> Option<String> {
    let symbolic = |name: &str| {
        repo.git
            .find_reference(name)
            .ok()
            .and_then(|r| r.symbolic_target().map(str::to_owned))
            .filter(|target| repo.git.refname_to_id(target).is_ok())
    };
    symbolic("refs/remotes/origin/HEAD").or_else(|| symbolic("HEAD"))
}
