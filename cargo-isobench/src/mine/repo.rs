//! Repository access through libgit2: opening, resolving revisions, shallow clones, and
//! the diff of two trees as git-style unified text (renames detected, binary files and
//! deleted files as `git diff` writes them).

use std::path::{Path, PathBuf};

use git2::{Commit, Diff, DiffFindOptions, DiffFormat, DiffOptions, Oid, Repository, Tree};

/// What can go wrong with a repository.
#[derive(Debug, thiserror::Error)]
pub enum RepoError {
    /// The path is not a git repository.
    #[error("`{}` is not a git repository ({message})", path.display())]
    NotARepository {
        /// The path given.
        path: PathBuf,
        /// libgit2's message.
        message: String,
    },
    /// A revision that does not resolve to a commit.
    #[error("unknown revision `{rev}` in `{}`: {message}", path.display())]
    UnknownRevision {
        /// The repository.
        path: PathBuf,
        /// The revision.
        rev: String,
        /// libgit2's message.
        message: String,
    },
    /// The commit's parent is cut off by a shallow clone.
    #[error("shallow history in `{}`: the parent of {commit} is not in the clone", path.display())]
    Shallow {
        /// The repository.
        path: PathBuf,
        /// The commit whose parent is missing.
        commit: String,
    },
    /// A root commit has no parent to diff against.
    #[error("{commit} in `{}` is a root commit: it has no parent to be the base", path.display())]
    RootCommit {
        /// The repository.
        path: PathBuf,
        /// The commit.
        commit: String,
    },
    /// Any other libgit2 failure.
    #[error("git error in `{}`: {source}", path.display())]
    Git {
        /// The repository.
        path: PathBuf,
        /// The failure.
        source: git2::Error,
    },
}

impl RepoError {
    /// A hint for the command line.
    pub fn hint(&self) -> Option<&'static str> {
        match self {
            Self::NotARepository { .. } => {
                Some("give the directory of a clone (bare or not) with `--repo PATH`")
            }
            Self::UnknownRevision { .. } => Some(
                "give a commit id, branch, tag or `REV^`; fetch the commit if it is not in the clone",
            ),
            Self::Shallow { .. } => {
                Some("deepen the clone: `git fetch --unshallow` (or `--deepen N`)")
            }
            Self::RootCommit { .. } => Some("give the base with `--base REV`"),
            Self::Git { .. } => None,
        }
    }
}

/// An open repository and where it is.
pub struct Repo {
    /// The libgit2 handle.
    pub git: Repository,
    /// The path it was opened from.
    pub path: PathBuf,
}

impl std::fmt::Debug for Repo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Repo")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl Repo {
    /// Opens the repository at `path` exactly (a work tree or a bare repository; no
    /// search upwards, so a directory inside another repository is not mistaken for it).
    pub fn open(path: &Path) -> Result<Self, RepoError> {
        let git = Repository::open_ext(
            path,
            git2::RepositoryOpenFlags::NO_SEARCH,
            std::iter::empty::<&std::ffi::OsStr>(),
        )
        .map_err(|e| RepoError::NotARepository {
            path: path.to_owned(),
            message: e.message().to_owned(),
        })?;
        Ok(Self {
            git,
            path: path.to_owned(),
        })
    }

    /// Wraps a libgit2 error with the repository's path.
    pub fn err(&self, source: git2::Error) -> RepoError {
        RepoError::Git {
            path: self.path.clone(),
            source,
        }
    }

    /// The commit `rev` names.
    pub fn commit(&self, rev: &str) -> Result<Commit<'_>, RepoError> {
        let unknown = |e: git2::Error| RepoError::UnknownRevision {
            path: self.path.clone(),
            rev: rev.to_owned(),
            message: e.message().to_owned(),
        };
        let object = self.git.revparse_single(rev).map_err(|e| {
            if rev.ends_with('^') && self.git.is_shallow() {
                return RepoError::Shallow {
                    path: self.path.clone(),
                    commit: rev.trim_end_matches('^').to_owned(),
                };
            }
            unknown(e)
        })?;
        object.peel_to_commit().map_err(unknown)
    }

    /// The commit with id `oid`.
    pub fn find(&self, oid: Oid) -> Result<Commit<'_>, RepoError> {
        self.git.find_commit(oid).map_err(|e| self.err(e))
    }

    /// The first parent of `commit`: an error naming the shallow boundary when the clone
    /// cut it off, or the root commit when there is none.
    pub fn first_parent<'r>(&'r self, commit: &Commit<'r>) -> Result<Commit<'r>, RepoError> {
        match commit.parent(0) {
            Ok(parent) => Ok(parent),
            Err(_) if self.is_shallow_boundary(commit.id()) || self.git.is_shallow() => {
                Err(RepoError::Shallow {
                    path: self.path.clone(),
                    commit: commit.id().to_string(),
                })
            }
            Err(_) => Err(RepoError::RootCommit {
                path: self.path.clone(),
                commit: commit.id().to_string(),
            }),
        }
    }

    /// Whether `oid` is listed in the clone's `shallow` file.
    fn is_shallow_boundary(&self, oid: Oid) -> bool {
        let file = self.git.path().join("shallow");
        std::fs::read_to_string(file)
            .is_ok_and(|text| text.lines().any(|l| l.trim() == oid.to_string()))
    }

    /// The diff from `old` (the empty tree when `None`) to `new`, with renames detected.
    pub fn diff_trees(
        &self,
        old: Option<&Tree<'_>>,
        new: &Tree<'_>,
    ) -> Result<Diff<'_>, RepoError> {
        let mut options = DiffOptions::new();
        options.context_lines(3);
        let mut diff = self
            .git
            .diff_tree_to_tree(old, Some(new), Some(&mut options))
            .map_err(|e| self.err(e))?;
        let mut find = DiffFindOptions::new();
        find.renames(true);
        diff.find_similar(Some(&mut find))
            .map_err(|e| self.err(e))?;
        Ok(diff)
    }

    /// The whole diff as `git diff` text.
    pub fn diff_text(&self, diff: &Diff<'_>) -> Result<String, RepoError> {
        let mut out = Vec::with_capacity(4096);
        diff.print(DiffFormat::Patch, |_, _, line| {
            if matches!(line.origin(), '+' | '-' | ' ') {
                out.push(line.origin() as u8);
            }
            out.extend_from_slice(line.content());
            true
        })
        .map_err(|e| self.err(e))?;
        Ok(String::from_utf8(out)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
    }

    /// The `owner/name` of the `origin` remote when it is a GitHub-style URL
    /// (`https://host/owner/name(.git)` or `git@host:owner/name(.git)`).
    pub fn origin_owner_name(&self) -> Option<String> {
        owner_name_from_url(&self.origin_url()?)
    }

    /// The URL of the `origin` remote.
    pub fn origin_url(&self) -> Option<String> {
        let remote = self.git.find_remote("origin").ok()?;
        remote.url().map(str::to_owned)
    }
}

/// Whether a remote URL is a path on this machine (`/src/requests`, `../requests`,
/// `file:///src/requests`) rather than a hosted repository's address.
pub fn is_local_url(url: &str) -> bool {
    url.starts_with("file://")
        || !(url.contains("://")
            || url
                .split_once(':')
                .is_some_and(|(host, _)| !host.contains('/') && host.len() > 1))
}

/// `owner/name` from the last two path components of a clone URL.
pub fn owner_name_from_url(url: &str) -> Option<String> {
    let url = url.trim_end_matches('/');
    let url = url.strip_suffix(".git").unwrap_or(url);
    let path = url.rsplit_once(':').map_or(url, |(_, p)| p);
    let mut parts = path.rsplit('/');
    let name = parts.next().filter(|s| !s.is_empty())?;
    let owner = parts.next().filter(|s| !s.is_empty())?;
    Some(format!("{owner}/{name}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owner_name_from_clone_urls() {
        assert_eq!(
            owner_name_from_url("https://github.com/psf/requests.git").as_deref(),
            Some("psf/requests")
        );
        assert_eq!(
            owner_name_from_url("git@github.com:psf/requests").as_deref(),
            Some("psf/requests")
        );
        assert_eq!(owner_name_from_url("requests"), None);
    }

    #[test]
    fn local_paths_are_told_from_hosted_urls() {
        for local in [
            "/src/psf/requests",
            "../psf/requests",
            "file:///src/psf/requests",
            "C:/src/psf/requests",
            "./x:y/requests",
        ] {
            assert!(is_local_url(local), "{local}");
        }
        for hosted in [
            "https://github.com/psf/requests.git",
            "git@github.com:psf/requests",
            "ssh://git@example.org/psf/requests",
            "github.com:psf/requests",
        ] {
            assert!(!is_local_url(hosted), "{hosted}");
        }
    }
}
