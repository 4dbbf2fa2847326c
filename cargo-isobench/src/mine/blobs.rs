//! The blobs one repository handle has read lately, kept by id so that each is inflated
//! once: the diff, the hunk headers and the function finder of a file all read the same
//! two blobs, and a commit's new blob is usually the next commit's old one. libgit2 keeps
//! no blobs in its own object cache unless a process-wide option is raised; a kept
//! [`Blob`] is libgit2's object, shared (not copied) by each reader, and diffed by its
//! id without hashing its bytes again.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};

use git2::{Blob, Oid, Repository};

/// How many bytes of blobs are kept at most; a blob larger than this is read each time.
const KEPT_BYTES: usize = 64 << 20;

/// Blobs by id, the least recently used dropped first, and the size over which git diffs
/// a blob as binary.
pub struct Blobs<'r> {
    repo: &'r Repository,
    big_file_threshold: u64,
    kept: RefCell<Kept<'r>>,
}

impl std::fmt::Debug for Blobs<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Blobs")
            .field("big_file_threshold", &self.big_file_threshold)
            .finish_non_exhaustive()
    }
}

#[derive(Default)]
struct Kept<'r> {
    blobs: HashMap<Oid, Blob<'r>>,
    /// Ids from the least to the most recently used (an id may appear more than once;
    /// `uses` counts its places, and only its last one counts).
    order: VecDeque<Oid>,
    uses: HashMap<Oid, usize>,
    bytes: usize,
}

impl<'r> Blobs<'r> {
    /// The blobs of `repo`; a blob over `big_file_threshold` bytes is binary to a diff.
    pub fn new(repo: &'r Repository, big_file_threshold: u64) -> Self {
        Self {
            repo,
            big_file_threshold,
            kept: RefCell::new(Kept::default()),
        }
    }

    /// Blob `oid`, read from the repository unless kept.
    pub fn get(&self, oid: Oid) -> Result<Blob<'r>, git2::Error> {
        if let Some(blob) = self.kept(oid) {
            return Ok(blob);
        }
        let blob = self.repo.find_blob(oid)?;
        self.keep(oid, &blob);
        Ok(blob)
    }

    /// The size of blob `oid` when it is over the big-file threshold; read from its
    /// header when the blob is not kept, so that it is never inflated.
    pub fn too_big(&self, oid: Oid) -> Result<Option<u64>, git2::Error> {
        let size = self.size(oid)?;
        Ok((size > self.big_file_threshold).then_some(size))
    }

    /// The size of blob `oid`, from its header when it is not kept.
    pub fn size(&self, oid: Oid) -> Result<u64, git2::Error> {
        let kept = self.kept.borrow().blobs.get(&oid).map(|b| b.size() as u64);
        match kept {
            Some(size) => Ok(size),
            None => Ok(self.repo.odb()?.read_header(oid)?.0 as u64),
        }
    }

    /// The bound over which a blob is binary.
    pub fn big_file_threshold(&self) -> u64 {
        self.big_file_threshold
    }

    fn kept(&self, oid: Oid) -> Option<Blob<'r>> {
        let mut kept = self.kept.borrow_mut();
        let blob = kept.blobs.get(&oid).cloned()?;
        kept.touch(oid);
        Some(blob)
    }

    fn keep(&self, oid: Oid, blob: &Blob<'r>) {
        let size = blob.size();
        if size > KEPT_BYTES {
            return;
        }
        let mut kept = self.kept.borrow_mut();
        if kept.blobs.insert(oid, blob.clone()).is_none() {
            kept.bytes += size;
        }
        kept.touch(oid);
        while kept.bytes > KEPT_BYTES {
            let Some(old) = kept.order.pop_front() else {
                break;
            };
            let places = kept.uses.get(&old).copied().unwrap_or(0);
            if places > 1 {
                // A later place in `order` holds it.
                kept.uses.insert(old, places - 1);
                continue;
            }
            kept.uses.remove(&old);
            if let Some(gone) = kept.blobs.remove(&old) {
                kept.bytes -= gone.size();
            }
        }
        // `order` holds a place per use; keep it from growing far past the blobs kept.
        if kept.order.len() > 4 * kept.blobs.len() + 64 {
            kept.compact();
        }
    }
}

impl Kept<'_> {
    fn touch(&mut self, oid: Oid) {
        self.order.push_back(oid);
        *self.uses.entry(oid).or_insert(0) += 1;
    }

    /// Drops every place of an id but its last.
    fn compact(&mut self) {
        let mut seen = std::collections::HashSet::new();
        let mut order: Vec<Oid> = self
            .order
            .drain(..)
            .rev()
            .filter(|oid| seen.insert(*oid))
            .collect();
        order.reverse();
        self.uses = order.iter().map(|oid| (*oid, 1)).collect();
        self.order = order.into();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo_with_blobs(n: usize, size: usize) -> (tempfile::TempDir, Repository, Vec<Oid>) {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let repo = Repository::init_bare(dir.path()).expect("a bare repository");
        let ids = (0..n)
            .map(|i| {
                let mut bytes = vec![b'x'; size];
                bytes[..8].copy_from_slice(&(i as u64).to_le_bytes());
                repo.blob(&bytes).expect("a blob")
            })
            .collect();
        (dir, repo, ids)
    }

    #[test]
    fn a_kept_blob_is_the_blob_and_the_bytes_kept_stay_under_the_bound() {
        let size = 5 << 20;
        let (_dir, repo, ids) = repo_with_blobs(20, size);
        let cache = Blobs::new(&repo, u64::MAX);
        for (round, oid) in ids.iter().chain(&ids).enumerate() {
            let blob = cache.get(*oid).expect("read");
            assert_eq!(
                blob.content(),
                repo.find_blob(*oid).expect("blob").content()
            );
            let kept = cache.kept.borrow();
            assert!(kept.bytes <= KEPT_BYTES, "round {round}: {}", kept.bytes);
            assert_eq!(
                kept.bytes,
                kept.blobs.values().map(Blob::size).sum::<usize>()
            );
        }
        // The most recently read is kept; the first, read long ago, is not.
        assert!(cache.kept.borrow().blobs.contains_key(&ids[19]));
        assert!(!cache.kept.borrow().blobs.contains_key(&ids[0]));
    }

    #[test]
    fn a_blob_read_again_is_kept_over_older_ones() {
        let size = 6 << 20;
        let (_dir, repo, ids) = repo_with_blobs(12, size);
        let cache = Blobs::new(&repo, u64::MAX);
        for (i, oid) in ids.iter().enumerate() {
            cache.get(*oid).expect("read");
            // The first blob is used again after each other one.
            if i > 0 {
                cache.get(ids[0]).expect("read");
            }
        }
        assert!(cache.kept.borrow().blobs.contains_key(&ids[0]));
        assert!(!cache.kept.borrow().blobs.contains_key(&ids[1]));
    }
}
