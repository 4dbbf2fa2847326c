//! Repository access through libgit2: opening, resolving revisions, shallow clones, and
//! the diff of two trees as git-style unified text (renames detected, binary files and
//! deleted files as `git diff` writes them).

use std::path::{Path, PathBuf};

use std::collections::HashMap;
use std::fmt::Write as _;

use git2::{Commit, Delta, Diff, DiffFormat, DiffOptions, Oid, Patch, Repository, Tree};

use super::renames;
use crate::errors::AreaError;

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

impl AreaError for RepoError {
    fn hint(&self) -> Option<String> {
        let hint = match self {
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
        };
        hint.map(str::to_owned)
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
        crate::small_file::read_to_string(&file)
            .is_ok_and(|text| text.lines().any(|l| l.trim() == oid.to_string()))
    }

    /// The diff from `old` (the empty tree when `None`) to `new` as `git diff -M` finds
    /// it: renames paired by git's rules (see [`super::renames`]), hunks placed by the indent
    /// heuristic.
    pub fn diff_trees(
        &self,
        old: Option<&Tree<'_>>,
        new: &Tree<'_>,
    ) -> Result<TreeDiff<'_>, RepoError> {
        let diff = self
            .git
            .diff_tree_to_tree(old, Some(new), Some(&mut diff_options()))
            .map_err(|e| self.err(e))?;
        let mut roles = vec![Role::Own; diff.deltas().len()];
        let mut srcs = Vec::new();
        let mut dsts = Vec::new();
        let candidate = |index: usize, file: git2::DiffFile<'_>| {
            let path = file.path()?.to_string_lossy().into_owned();
            let mut blob = [0u8; 20];
            let id = file.id();
            let bytes = id.as_bytes();
            blob[..bytes.len().min(20)].copy_from_slice(&bytes[..bytes.len().min(20)]);
            Some((
                index,
                file.id(),
                renames::Candidate {
                    path,
                    blob,
                    mode: u32::from(file.mode()),
                },
            ))
        };
        for (i, delta) in diff.deltas().enumerate() {
            match delta.status() {
                Delta::Deleted => srcs.extend(candidate(i, delta.old_file())),
                Delta::Added => dsts.extend(candidate(i, delta.new_file())),
                _ => {}
            }
        }
        let mut renamed = Vec::new();
        if !srcs.is_empty() && !dsts.is_empty() {
            // Deltas come sorted by path; the rename rules want each side in that order.
            let mut ids: HashMap<[u8; 20], Oid> = HashMap::new();
            for (_, oid, c) in srcs.iter().chain(&dsts) {
                ids.insert(c.blob, *oid);
            }
            let mut blobs = BlobReader { repo: self, ids };
            let src_list: Vec<_> = srcs.iter().map(|(_, _, c)| c.clone()).collect();
            let dst_list: Vec<_> = dsts.iter().map(|(_, _, c)| c.clone()).collect();
            for pair in renames::find(&src_list, &dst_list, &mut blobs) {
                let (src, dst) = (srcs[pair.src].0, dsts[pair.dst].0);
                roles[src] = Role::RenamedAway;
                roles[dst] = Role::RenameTo(renamed.len());
                renamed.push(Rename {
                    src,
                    dst,
                    score: pair.score,
                });
            }
        }
        Ok(TreeDiff {
            repo: self,
            diff,
            roles,
            renamed,
        })
    }

    /// The whole diff as `git diff` text.
    pub fn diff_text(&self, diff: &TreeDiff<'_>) -> Result<String, RepoError> {
        let mut out = Vec::with_capacity(4096);
        diff.print(|_, line| {
            if matches!(line.origin, '+' | '-' | ' ') {
                out.push(line.origin as u8);
            }
            out.extend_from_slice(line.content);
        })?;
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

/// The options every diff is made with: git's defaults (three lines of context, the
/// indent heuristic).
fn diff_options() -> DiffOptions {
    let mut options = DiffOptions::new();
    options.context_lines(3).indent_heuristic(true);
    options
}

/// The id of the empty blob.
const EMPTY_BLOB: &str = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";

struct BlobReader<'r> {
    repo: &'r Repo,
    ids: HashMap<[u8; 20], Oid>,
}

impl renames::Blobs for BlobReader<'_> {
    fn size(&mut self, blob: &[u8; 20]) -> u64 {
        let odb = self.repo.git.odb().ok();
        odb.and_then(|odb| odb.read_header(self.ids[blob]).ok())
            .map_or(0, |(size, _)| size as u64)
    }

    fn content(&mut self, blob: &[u8; 20]) -> Vec<u8> {
        self.repo
            .git
            .find_blob(self.ids[blob])
            .map(|b| b.content().to_vec())
            .unwrap_or_default()
    }
}

/// What a delta of libgit2's diff becomes in git's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Written as it is.
    Own,
    /// The source of a rename: written with its destination.
    RenamedAway,
    /// The destination of rename number N.
    RenameTo(usize),
}

#[derive(Debug, Clone, Copy)]
struct Rename {
    src: usize,
    dst: usize,
    score: u64,
}

/// The files of a diff, as git pairs them.
pub struct TreeDiff<'r> {
    repo: &'r Repo,
    diff: Diff<'r>,
    roles: Vec<Role>,
    renamed: Vec<Rename>,
}

/// A file of a diff as the printer reports it.
#[derive(Debug, Clone, Default)]
pub struct FileHead {
    /// The old path (`None` for an added file).
    pub old_path: Option<String>,
    /// The new path (`None` for a deleted file).
    pub new_path: Option<String>,
    /// The old blob.
    pub old_blob: Option<Oid>,
    /// The new blob.
    pub new_blob: Option<Oid>,
    /// Whether the file is binary.
    pub binary: bool,
}

/// One line of git's diff text.
#[derive(Debug)]
pub struct Line<'a> {
    /// libgit2's origin: `F` file header, `H` hunk header, `+`, `-`, ` `, `B` binary, ...
    pub origin: char,
    /// The text (without the `+`/`-`/` ` prefix).
    pub content: &'a [u8],
    /// `(old_start, old_lines, new_start, new_lines)` of a hunk header.
    pub hunk: Option<(usize, usize, usize, usize)>,
    /// The line's number on the old side.
    pub old_lineno: Option<u32>,
    /// The line's number on the new side.
    pub new_lineno: Option<u32>,
}

impl std::fmt::Debug for TreeDiff<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TreeDiff")
            .field("files", &self.files())
            .finish_non_exhaustive()
    }
}

fn path_of(file: &git2::DiffFile<'_>) -> Option<String> {
    file.path().map(|p| p.to_string_lossy().into_owned())
}

fn blob_of(file: &git2::DiffFile<'_>) -> Option<Oid> {
    (!file.id().is_zero()).then(|| file.id())
}

impl TreeDiff<'_> {
    /// How many files the diff writes (a rename is one).
    pub fn files(&self) -> usize {
        self.roles.len() - self.renamed.len()
    }

    /// Every path the diff touches, old and new.
    pub fn paths(&self) -> impl Iterator<Item = String> + '_ {
        self.diff.deltas().flat_map(|d| {
            [d.old_file(), d.new_file()]
                .into_iter()
                .filter_map(|f| f.path().map(|p| p.to_string_lossy().into_owned()))
        })
    }

    /// Writes the diff's lines, file by file, as `git diff -M` does.
    pub fn print(&self, mut visit: impl FnMut(&FileHead, &Line<'_>)) -> Result<(), RepoError> {
        let repo = self.repo;
        let mut index: Option<usize> = None;
        let mut head = FileHead::default();
        let mut failed = None;
        self.diff
            .print(DiffFormat::Patch, |delta, hunk, line| {
                let origin = line.origin();
                if origin == 'F' {
                    let next = index.map_or(0, |i| i + 1);
                    index = Some(self.delta_index(next, &delta));
                }
                let Some(i) = index else { return true };
                match self.roles[i] {
                    Role::RenamedAway => return true,
                    Role::RenameTo(r) => {
                        if origin == 'F'
                            && let Err(e) = self.print_rename(self.renamed[r], &mut visit)
                        {
                            failed = Some(e);
                            return false;
                        }
                        return true;
                    }
                    Role::Own => {}
                }
                if origin == 'F' {
                    let status = delta.status();
                    head = FileHead {
                        old_path: (status != Delta::Added)
                            .then(|| path_of(&delta.old_file()))
                            .flatten(),
                        new_path: (status != Delta::Deleted)
                            .then(|| path_of(&delta.new_file()))
                            .flatten(),
                        old_blob: (status != Delta::Added)
                            .then(|| blob_of(&delta.old_file()))
                            .flatten(),
                        new_blob: (status != Delta::Deleted)
                            .then(|| blob_of(&delta.new_file()))
                            .flatten(),
                        binary: delta.flags().is_binary(),
                    };
                    let empty = match status {
                        Delta::Added => delta.new_file().id().to_string() == EMPTY_BLOB,
                        Delta::Deleted => delta.old_file().id().to_string() == EMPTY_BLOB,
                        _ => false,
                    };
                    if empty {
                        // git writes no `---`/`+++` lines for a file with no hunk.
                        let text: Vec<u8> = line
                            .content()
                            .split_inclusive(|&b| b == b'\n')
                            .filter(|l| !l.starts_with(b"--- ") && !l.starts_with(b"+++ "))
                            .flatten()
                            .copied()
                            .collect();
                        visit(&head, &plain('F', &text));
                        return true;
                    }
                }
                emit(&head, hunk.as_ref(), &line, &mut visit);
                true
            })
            .map_err(|e| failed.take().unwrap_or_else(|| repo.err(e)))?;
        match failed {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// The index of the delta the printer reports after delta `expected - 1`: `expected`
    /// when its paths agree, else the one whose paths are those of `delta`.
    fn delta_index(&self, expected: usize, delta: &git2::DiffDelta<'_>) -> usize {
        let same = |d: &git2::DiffDelta<'_>| {
            d.status() == delta.status()
                && d.old_file().path() == delta.old_file().path()
                && d.new_file().path() == delta.new_file().path()
        };
        if self.diff.get_delta(expected).is_some_and(|d| same(&d)) {
            return expected;
        }
        self.diff
            .deltas()
            .position(|d| same(&d))
            .unwrap_or(expected)
    }

    /// Writes a rename: git's header, then the blobs' diff.
    fn print_rename(
        &self,
        rename: Rename,
        visit: &mut impl FnMut(&FileHead, &Line<'_>),
    ) -> Result<(), RepoError> {
        let repo = self.repo;
        let src = self.diff.get_delta(rename.src).expect("the source delta");
        let dst = self
            .diff
            .get_delta(rename.dst)
            .expect("the destination delta");
        let (old, new) = (src.old_file(), dst.new_file());
        let old_path = path_of(&old).unwrap_or_default();
        let new_path = path_of(&new).unwrap_or_default();
        let (old_mode, new_mode) = (u32::from(old.mode()), u32::from(new.mode()));
        let mut header = format!("diff --git a/{old_path} b/{new_path}\n");
        if old_mode != new_mode {
            let _ = write!(header, "old mode {old_mode:o}\nnew mode {new_mode:o}\n");
        }
        let _ = write!(
            header,
            "similarity index {}%\nrename from {old_path}\nrename to {new_path}\n",
            renames::percent(rename.score)
        );
        let mut head = FileHead {
            old_path: Some(old_path.clone()),
            new_path: Some(new_path.clone()),
            old_blob: Some(old.id()),
            new_blob: Some(new.id()),
            binary: false,
        };
        if old.id() == new.id() {
            visit(&head, &plain('F', header.as_bytes()));
            return Ok(());
        }
        let short = |id: Oid| id.to_string()[..7].to_owned();
        let _ = write!(header, "index {}..{}", short(old.id()), short(new.id()));
        if old_mode == new_mode {
            let _ = write!(header, " {new_mode:o}");
        }
        header.push('\n');
        let old_blob = repo.git.find_blob(old.id()).map_err(|e| repo.err(e))?;
        let new_blob = repo.git.find_blob(new.id()).map_err(|e| repo.err(e))?;
        let mut patch = Patch::from_blobs(
            &old_blob,
            Some(Path::new(&old_path)),
            &new_blob,
            Some(Path::new(&new_path)),
            Some(&mut diff_options()),
        )
        .map_err(|e| repo.err(e))?;
        head.binary = patch.delta().flags().is_binary();
        if !head.binary {
            let _ = write!(header, "--- a/{old_path}\n+++ b/{new_path}\n");
        }
        visit(&head, &plain('F', header.as_bytes()));
        patch
            .print(&mut |_, hunk, line| {
                if line.origin() != 'F' {
                    emit(&head, hunk.as_ref(), &line, visit);
                }
                true
            })
            .map_err(|e| repo.err(e))
    }
}

fn plain(origin: char, content: &[u8]) -> Line<'_> {
    Line {
        origin,
        content,
        hunk: None,
        old_lineno: None,
        new_lineno: None,
    }
}

/// Hands libgit2's `line` to `visit`, a hunk header as git writes it: git trims the
/// trailing white space of the function context (after cutting it to 80 bytes), libgit2
/// keeps it.
fn emit(
    head: &FileHead,
    hunk: Option<&git2::DiffHunk<'_>>,
    line: &git2::DiffLine<'_>,
    visit: &mut impl FnMut(&FileHead, &Line<'_>),
) {
    let mut converted = convert(hunk, line);
    let content = converted.content;
    if converted.origin == 'H'
        && let Some(body) = content.strip_suffix(b"\n")
        && body.last().is_some_and(|&b| b == b' ' || b == b'\t')
    {
        let end = body
            .iter()
            .rposition(|&b| b != b' ' && b != b'\t')
            .map_or(0, |i| i + 1);
        let mut trimmed = body[..end].to_vec();
        trimmed.push(b'\n');
        converted.content = &trimmed;
        visit(head, &converted);
        return;
    }
    visit(head, &converted);
}

fn convert<'a>(hunk: Option<&git2::DiffHunk<'_>>, line: &'a git2::DiffLine<'_>) -> Line<'a> {
    let n = |v: u32| v as usize;
    Line {
        origin: line.origin(),
        content: line.content(),
        hunk: hunk.filter(|_| line.origin() == 'H').map(|h| {
            (
                n(h.old_start()),
                n(h.old_lines()),
                n(h.new_start()),
                n(h.new_lines()),
            )
        }),
        old_lineno: line.old_lineno(),
        new_lineno: line.new_lineno(),
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
