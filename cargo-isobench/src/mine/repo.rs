//! Repository access through libgit2: opening, resolving revisions, shallow clones, and
//! the diff of two trees as git-style unified text (renames detected, binary files and
//! deleted files as `git diff` writes them).

use std::path::{Path, PathBuf};

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use git2::{Commit, Delta, Diff, DiffOptions, Oid, Patch, Repository, Tree};

use super::attributes::{Attributes, DiffAttr};
use super::blobs::Blobs;
use super::funcname::{ContextFinder, Driver, Patterns, hunk_header};
pub use super::git_text::Line;
use super::git_text::{
    GitHeader, Side, convert, file_header, git_header, git_header_start, plain, tab_after,
};
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
    /// A text file that changed came back from the diff with no hunk (libgit2 could not
    /// diff it: out of memory, or any other failure it did not report).
    #[error("the diff of `{file}` in `{}` has no hunk, though its text changed", path.display())]
    NoHunks {
        /// The repository.
        path: PathBuf,
        /// The file.
        file: String,
    },
    /// libgit2 could not diff a file's blobs.
    #[error("could not diff `{file}` in `{}`: {source}", path.display())]
    Diff {
        /// The repository.
        path: PathBuf,
        /// The file.
        file: String,
        /// The failure.
        source: git2::Error,
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
            Self::RootCommit { .. } => Some(
                "mine it against the empty tree: `--base 4b825dc642cb6eb9a060e54bf8d69288fbee4904`",
            ),
            Self::NoHunks { .. } | Self::Diff { .. } => Some(
                "the file could not be diffed; if memory is limited (`ulimit -v`), raise the limit or lower `core.bigFileThreshold` so that larger files are diffed as binary",
            ),
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
    /// A blob larger than this many bytes is diffed as binary (`core.bigFileThreshold`).
    big_file_threshold: u64,
}

/// git's `core.bigFileThreshold` when the configuration does not set it: 512 MiB.
pub const BIG_FILE_THRESHOLD: u64 = 512 << 20;

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
        let big_file_threshold = git
            .config()
            .and_then(|c| c.get_i64("core.bigFileThreshold"))
            .ok()
            .and_then(|v| u64::try_from(v).ok())
            .unwrap_or(BIG_FILE_THRESHOLD);
        Ok(Self {
            git,
            path: path.to_owned(),
            big_file_threshold,
        })
    }

    /// A reader of this repository's blobs that keeps those it read lately, and knows
    /// `core.bigFileThreshold`; keep one for a run of commits.
    pub fn blobs(&self) -> Blobs<'_> {
        Blobs::new(&self.git, self.big_file_threshold)
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
    pub fn diff_trees<'r>(
        &'r self,
        blobs: &Blobs<'r>,
        old: Option<&Tree<'r>>,
        new: &Tree<'r>,
    ) -> Result<TreeDiff<'r>, RepoError> {
        // libgit2 is given the files that differ, found without entering the subtrees
        // both sides share, so that it walks only the subtrees leading to them.
        let changed = super::changed::files(&self.git, old, new).map_err(|e| self.err(e))?;
        let mut options = diff_options();
        if !changed.is_empty() {
            options.disable_pathspec_match(true);
            for path in &changed {
                options.pathspec(path.as_slice());
            }
        }
        let diff = self
            .git
            .diff_tree_to_tree(old, Some(new), Some(&mut options))
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
        let mut read_for_renames = HashSet::new();
        if !srcs.is_empty() && !dsts.is_empty() {
            // Deltas come sorted by path; the rename rules want each side in that order.
            let mut ids: HashMap<[u8; 20], Oid> = HashMap::new();
            for (_, oid, c) in srcs.iter().chain(&dsts) {
                ids.insert(c.blob, *oid);
            }
            let mut blobs = BlobReader {
                blobs,
                ids,
                read: HashSet::new(),
            };
            let src_list: Vec<_> = srcs.iter().map(|(_, _, c)| c.clone()).collect();
            let dst_list: Vec<_> = dsts.iter().map(|(_, _, c)| c.clone()).collect();
            for pair in renames::find(&src_list, &dst_list, &mut blobs) {
                let (src, dst) = (srcs[pair.src].0, dsts[pair.dst].0);
                roles[src] = Role::RenamedAway;
                roles[dst] = Role::RenameTo(renamed.len());
                renamed.push(Rename {
                    src,
                    score: pair.score,
                });
            }
            read_for_renames = blobs.read;
        }
        Ok(TreeDiff {
            repo: self,
            diff,
            roles,
            renamed,
            read_for_renames,
            new_tree: new.clone(),
            language_drivers: false,
        })
    }

    /// The whole diff as `git diff` text.
    pub fn diff_text<'r>(
        &'r self,
        blobs: &Blobs<'r>,
        diff: &TreeDiff<'r>,
    ) -> Result<String, RepoError> {
        let mut out = Vec::with_capacity(4096);
        diff.print(blobs, |_, line| {
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

struct BlobReader<'b, 'r> {
    blobs: &'b Blobs<'r>,
    ids: HashMap<[u8; 20], Oid>,
    /// The blobs whose contents the rename rules read.
    read: HashSet<Oid>,
}

impl renames::Blobs for BlobReader<'_, '_> {
    fn size(&mut self, blob: &[u8; 20]) -> u64 {
        self.blobs.size(self.ids[blob]).unwrap_or(0)
    }

    fn content(&mut self, blob: &[u8; 20]) -> Vec<u8> {
        self.read.insert(self.ids[blob]);
        self.blobs
            .get(self.ids[blob])
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
    score: u64,
}

/// The files of a diff, as git pairs them.
pub struct TreeDiff<'r> {
    repo: &'r Repo,
    diff: Diff<'r>,
    roles: Vec<Role>,
    renamed: Vec<Rename>,
    /// The blobs finding renames read whole: as in git, the size rule of
    /// `core.bigFileThreshold` does not make them binary, their contents being at hand.
    read_for_renames: HashSet<Oid>,
    /// The tree whose `.gitattributes` files choose each file's diff driver.
    new_tree: Tree<'r>,
    /// Whether a file no attribute gives a driver takes its language's built-in one.
    language_drivers: bool,
}

/// The diff drivers of one printing of a diff: the attributes of the new tree, the
/// drivers they name (built in, or `diff.NAME.xfuncname` in the repository's
/// configuration), and whether a file's language picks one when no attribute does.
struct Drivers<'r> {
    attributes: Attributes<'r>,
    config: Option<git2::Config>,
    named: HashMap<String, Driver>,
    by_language: bool,
}

impl<'r> Drivers<'r> {
    fn new(repo: &'r Repo, tree: Tree<'r>, language_drivers: bool) -> Self {
        Self {
            attributes: Attributes::new(&repo.git, tree),
            config: repo.git.config().ok().and_then(|mut c| c.snapshot().ok()),
            named: HashMap::new(),
            by_language: language_drivers,
        }
    }

    /// The driver of a file diffed from `old` to `new`, or `None` when its attributes
    /// make it binary (`-diff`, `binary`). As git does, the old path's driver is taken
    /// when it has patterns, else the new path's.
    fn of(&mut self, old: Option<&str>, new: Option<&str>) -> Option<Driver> {
        let mut chosen = Driver::Default;
        for path in [new, old].into_iter().flatten() {
            let driver = self.of_path(path)?;
            if matches!(driver, Driver::Patterns(_)) || matches!(chosen, Driver::Default) {
                chosen = driver;
            }
        }
        Some(chosen)
    }

    /// Whether the attributes of `path` set `diff`, which makes it text whatever its size.
    fn says_text(&mut self, path: &str) -> bool {
        self.attributes.diff(path) == DiffAttr::Set
    }

    fn of_path(&mut self, path: &str) -> Option<Driver> {
        let name = match self.attributes.diff(path) {
            DiffAttr::Unset => return None,
            DiffAttr::Set => return Some(Driver::Default),
            DiffAttr::Driver(name) => name,
            DiffAttr::Unspecified => match Driver::language_of(path) {
                Some(name) if self.by_language => name.to_owned(),
                _ => return Some(Driver::Default),
            },
        };
        if let Some(driver) = self.named.get(&name) {
            return Some(driver.clone());
        }
        let configured = self
            .config
            .as_ref()
            .and_then(|c| c.get_string(&format!("diff.{name}.xfuncname")).ok())
            .and_then(|pattern| Patterns::new(&pattern).ok());
        let driver = match configured {
            Some(patterns) => Driver::Patterns(std::sync::Arc::new(patterns)),
            None => Driver::built_in(&name).unwrap_or(Driver::Default),
        };
        self.named.insert(name, driver.clone());
        Some(driver)
    }
}

/// The hunk headers of the file being printed, found in its old blob.
struct FileContext<'r> {
    finder: ContextFinder<BlobBytes<'r>>,
}

/// A blob's bytes (none for an added file).
struct BlobBytes<'r>(Option<git2::Blob<'r>>);

impl AsRef<[u8]> for BlobBytes<'_> {
    fn as_ref(&self) -> &[u8] {
        self.0.as_ref().map_or(&[], git2::Blob::content)
    }
}

impl<'r> FileContext<'r> {
    fn new(driver: Driver, old: BlobBytes<'r>) -> Self {
        Self {
            finder: ContextFinder::new(driver, old),
        }
    }

    /// git's header for the hunk libgit2 wrote as `line`.
    fn header(&mut self, line: &[u8], old_start: usize, old_lines: usize) -> Vec<u8> {
        let ranges_end = line
            .get(2..)
            .and_then(|rest| memchr::memmem::find(rest, b"@@"))
            .map_or(line.len(), |i| i + 4);
        let context = self.finder.next(old_start, old_lines);
        hunk_header(&line[..ranges_end], context)
    }
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
    /// The size of its larger blob when that is over `core.bigFileThreshold`, which made
    /// the file binary.
    pub too_big: Option<u64>,
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

impl<'r> TreeDiff<'r> {
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

    /// Chooses built-in language drivers by extension for the files no attribute gives a
    /// driver (`--language-drivers`).
    #[must_use]
    pub fn with_language_drivers(mut self, on: bool) -> Self {
        self.language_drivers = on;
        self
    }

    /// Writes the diff's lines, file by file, as `git diff -M` does, with the hunk headers
    /// and binary files the attributes of the new tree give. Each blob is read once (see
    /// [`Repo::blob`]); a blob over `core.bigFileThreshold` is not read and its file is
    /// binary, as in git; a text file that changed and comes back with no hunk is an error.
    pub fn print(
        &self,
        blobs: &Blobs<'r>,
        mut visit: impl FnMut(&FileHead, &Line<'_>),
    ) -> Result<(), RepoError> {
        let mut drivers = Drivers::new(self.repo, self.new_tree.clone(), self.language_drivers);
        for (i, delta) in self.diff.deltas().enumerate() {
            match self.roles[i] {
                Role::RenamedAway => {}
                Role::RenameTo(r) => {
                    let rename = self.renamed[r];
                    let src = self.diff.get_delta(rename.src).expect("the source delta");
                    let side = |file: git2::DiffFile<'_>| Side::of(&file);
                    let (old, new) = (side(src.old_file()), side(delta.new_file()));
                    self.print_file(
                        blobs,
                        Some(&old),
                        Some(&new),
                        Some(rename.score),
                        &mut drivers,
                        &mut visit,
                    )?;
                }
                Role::Own => {
                    let status = delta.status();
                    let gitlink = |f: git2::DiffFile<'_>| f.mode() == git2::FileMode::Commit;
                    if gitlink(delta.old_file()) || gitlink(delta.new_file()) {
                        self.print_by_libgit2(i, &mut drivers, &mut visit)?;
                        continue;
                    }
                    let old = (status != Delta::Added).then(|| Side::of(&delta.old_file()));
                    let new = (status != Delta::Deleted).then(|| Side::of(&delta.new_file()));
                    self.print_file(
                        blobs,
                        old.as_ref(),
                        new.as_ref(),
                        None,
                        &mut drivers,
                        &mut visit,
                    )?;
                }
            }
        }
        Ok(())
    }

    /// Writes one file: git's header (a rename's when `similarity` is given), then the
    /// diff of its blobs.
    fn print_file(
        &self,
        blobs: &Blobs<'r>,
        old: Option<&Side>,
        new: Option<&Side>,
        similarity: Option<u64>,
        drivers: &mut Drivers<'_>,
        visit: &mut impl FnMut(&FileHead, &Line<'_>),
    ) -> Result<(), RepoError> {
        let repo = self.repo;
        let either = new.or(old).expect("a file has a side");
        let mut head = FileHead {
            old_path: old.map(|s| s.path.clone()),
            new_path: new.map(|s| s.path.clone()),
            old_blob: old.map(|s| s.id),
            new_blob: new.map(|s| s.id),
            binary: false,
            too_big: None,
        };
        let Some(GitHeader { mut header, a, b }) = git_header(old, new, similarity) else {
            // The same blob on both sides: the header says it all.
            let header = git_header_start(old, new, similarity);
            visit(&head, &plain('F', header.as_bytes()));
            return Ok(());
        };
        let driver = drivers.of(old.map(|s| s.path.as_str()), new.map(|s| s.path.as_str()));
        // git's rule: a blob over the threshold is binary, unread, unless the attributes
        // of its path say `diff`.
        for side in [old, new].into_iter().flatten() {
            if !self.read_for_renames.contains(&side.id)
                && !drivers.says_text(&side.path)
                && let Some(size) = blobs.too_big(side.id).map_err(|e| repo.err(e))?
            {
                head.too_big = Some(head.too_big.map_or(size, |s: u64| s.max(size)));
            }
        }
        let binary_line = |header: &mut String| {
            let _ = writeln!(header, "Binary files {a} and {b} differ");
        };
        if driver.is_none() || head.too_big.is_some() {
            // An empty file added or deleted has no hunk to make binary: git writes its
            // header alone.
            let empty_blob = Oid::from_str(EMPTY_BLOB).expect("the empty blob's id is hexadecimal");
            let empty_file =
                similarity.is_none() && (old.is_none() || new.is_none()) && either.id == empty_blob;
            head.binary = !empty_file;
            if !empty_file {
                binary_line(&mut header);
            }
            visit(&head, &plain('F', header.as_bytes()));
            return Ok(());
        }
        let blob = |id: Option<Oid>| {
            id.map(|id| blobs.get(id).map_err(|e| repo.err(e)))
                .transpose()
        };
        let (old_blob, new_blob) = (blob(head.old_blob)?, blob(head.new_blob)?);
        // Diffed from the blobs (their ids known, their bytes not hashed again) with their
        // paths, by which libgit2 reads the attributes that make a file binary, as the
        // tree's diff does. An added file is its blob diffed in reverse against nothing.
        let (old_path, new_path) = (
            Path::new(&old.unwrap_or(either).path),
            Path::new(&new.unwrap_or(either).path),
        );
        let file = head
            .new_path
            .clone()
            .or(head.old_path.clone())
            .unwrap_or_default();
        let diff_error = |source| RepoError::Diff {
            path: repo.path.clone(),
            file: file.clone(),
            source,
        };
        let mut patch = match (&old_blob, &new_blob) {
            (Some(o), Some(n)) => Patch::from_blobs(
                o,
                Some(old_path),
                n,
                Some(new_path),
                Some(&mut diff_options()),
            ),
            (Some(o), None) => Patch::from_blob_and_buffer(
                o,
                Some(old_path),
                &[],
                Some(new_path),
                Some(&mut diff_options()),
            ),
            (None, Some(n)) => Patch::from_blob_and_buffer(
                n,
                Some(new_path),
                &[],
                Some(old_path),
                Some(diff_options().reverse(true)),
            ),
            (None, None) => unreachable!("a file has a side"),
        }
        .map_err(diff_error)?;
        if patch.delta().flags().is_binary() {
            head.binary = true;
            binary_line(&mut header);
            visit(&head, &plain('F', header.as_bytes()));
            return Ok(());
        }
        let hunks = patch.num_hunks();
        if hunks == 0
            && BlobBytes(old_blob.clone()).as_ref() != BlobBytes(new_blob.clone()).as_ref()
        {
            return Err(RepoError::NoHunks {
                path: repo.path.clone(),
                file: file.clone(),
            });
        }
        if hunks > 0 {
            let _ = write!(
                header,
                "--- {a}{}\n+++ {b}{}\n",
                tab_after(&a),
                tab_after(&b)
            );
        }
        visit(&head, &plain('F', header.as_bytes()));
        let Some(driver) = driver else { return Ok(()) };
        let mut context = FileContext::new(driver, BlobBytes(old_blob));
        patch
            .print(&mut |_, hunk, line| {
                match (line.origin(), hunk.as_ref()) {
                    ('F' | 'B', _) => {}
                    ('H', Some(h)) => {
                        let text = context.header(
                            line.content(),
                            h.old_start() as usize,
                            h.old_lines() as usize,
                        );
                        let mut converted = convert(Some(h), &line);
                        converted.content = &text;
                        visit(&head, &converted);
                    }
                    _ => visit(&head, &convert(hunk.as_ref(), &line)),
                }
                true
            })
            .map_err(diff_error)
    }

    /// Writes delta `index` as libgit2 prints it (a submodule's commit ids), with git's
    /// headers.
    fn print_by_libgit2(
        &self,
        index: usize,
        drivers: &mut Drivers<'_>,
        visit: &mut impl FnMut(&FileHead, &Line<'_>),
    ) -> Result<(), RepoError> {
        let repo = self.repo;
        let Some(mut patch) = Patch::from_diff(&self.diff, index).map_err(|e| repo.err(e))? else {
            return Ok(());
        };
        let delta = self.diff.get_delta(index).expect("the delta printed");
        let status = delta.status();
        let mut head = FileHead {
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
            binary: false,
            too_big: None,
        };
        let driver = drivers.of(
            path_of(&delta.old_file()).as_deref(),
            path_of(&delta.new_file()).as_deref(),
        );
        let mut skip_lines = false;
        patch
            .print(&mut |delta, hunk, line| {
                if line.origin() == 'F' {
                    head.binary = delta.flags().is_binary();
                    let text = file_header(line.content(), false, driver.is_none());
                    skip_lines = text.binary;
                    head.binary |= text.binary;
                    visit(&head, &plain('F', &text.bytes));
                } else if !skip_lines {
                    visit(&head, &convert(hunk.as_ref(), &line));
                }
                true
            })
            .map_err(|e| repo.err(e))
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
