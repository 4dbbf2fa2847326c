//! The files two trees hold differently, found as git finds them: a subtree with the same
//! id on both sides is not entered. libgit2's diff of two trees walks every entry of both;
//! given these paths it walks only the subtrees that lead to them.

use std::collections::HashMap;

use git2::{Oid, Repository, Tree};

/// The mode of a subtree.
const TREE_MODE: i32 = 0o040_000;

/// The paths (from the root, `/`-separated) of the files that differ between `old` (none:
/// the empty tree) and `new`, in no particular order: changed, added and removed files,
/// each file under a subtree on one side only, and both sides where a file and a subtree
/// share a name.
pub fn files(
    repo: &Repository,
    old: Option<&Tree<'_>>,
    new: &Tree<'_>,
) -> Result<Vec<Vec<u8>>, git2::Error> {
    let mut out = Vec::new();
    walk(repo, old, Some(new), &[], &mut out)?;
    Ok(out)
}

fn walk(
    repo: &Repository,
    old: Option<&Tree<'_>>,
    new: Option<&Tree<'_>>,
    prefix: &[u8],
    out: &mut Vec<Vec<u8>>,
) -> Result<(), git2::Error> {
    let path = |name: &[u8]| [prefix, name].concat();
    let mut olds: HashMap<Vec<u8>, (Oid, i32)> = old
        .iter()
        .flat_map(|t| t.iter())
        .map(|e| (e.name_bytes().to_vec(), (e.id(), e.filemode())))
        .collect();
    for entry in new.iter().flat_map(|t| t.iter()) {
        let (name, id, mode) = (entry.name_bytes(), entry.id(), entry.filemode());
        match olds.remove(name) {
            Some((old_id, old_mode)) if old_id == id && old_mode == mode => {}
            Some((old_id, old_mode)) => {
                let here = path(name);
                match (old_mode == TREE_MODE, mode == TREE_MODE) {
                    (true, true) => {
                        let (a, b) = (repo.find_tree(old_id)?, repo.find_tree(id)?);
                        walk(repo, Some(&a), Some(&b), &[&here[..], b"/"].concat(), out)?;
                    }
                    (true, false) => {
                        one_side(repo, old_id, &here, out)?;
                        out.push(here);
                    }
                    (false, true) => {
                        one_side(repo, id, &here, out)?;
                        out.push(here);
                    }
                    (false, false) => out.push(here),
                }
            }
            None if mode == TREE_MODE => one_side(repo, id, &path(name), out)?,
            None => out.push(path(name)),
        }
    }
    for (name, (id, mode)) in olds {
        if mode == TREE_MODE {
            one_side(repo, id, &path(&name), out)?;
        } else {
            out.push(path(&name));
        }
    }
    Ok(())
}

/// Every file under subtree `id`, at `dir`.
fn one_side(
    repo: &Repository,
    id: Oid,
    dir: &[u8],
    out: &mut Vec<Vec<u8>>,
) -> Result<(), git2::Error> {
    let tree = repo.find_tree(id)?;
    walk(repo, None, Some(&tree), &[dir, b"/"].concat(), out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tree of `files` (`path`, content, executable), built level by level.
    fn tree(repo: &Repository, files: &[(&str, &str, bool)]) -> Oid {
        let mut here = repo.treebuilder(None).expect("a tree builder");
        let mut below: HashMap<&str, Vec<(&str, &str, bool)>> = HashMap::new();
        for &(path, content, exec) in files {
            if let Some((dir, rest)) = path.split_once('/') {
                below.entry(dir).or_default().push((rest, content, exec));
            } else {
                let blob = repo.blob(content.as_bytes()).expect("a blob");
                let mode = if exec { 0o100_755 } else { 0o100_644 };
                here.insert(path, blob, mode).expect("an entry");
            }
        }
        for (dir, files) in below {
            let sub = tree(repo, &files);
            here.insert(dir, sub, TREE_MODE).expect("a subtree");
        }
        here.write().expect("the tree")
    }

    #[test]
    fn the_files_are_those_libgit2_s_whole_diff_lists() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let repo = Repository::init_bare(dir.path()).expect("a bare repository");
        let old = tree(
            &repo,
            &[
                ("same/a.py", "a", false),
                ("same/deep/b.py", "b", false),
                ("changed/c.py", "c", false),
                ("changed/deep/d.py", "d", false),
                ("mode.sh", "m", false),
                ("file_then_dir", "f", false),
                ("dir_then_file/e.py", "e", false),
                ("dir_then_file/deep/f.py", "f", false),
                ("gone/g.py", "g", false),
                ("gone.txt", "g", false),
            ],
        );
        let new = tree(
            &repo,
            &[
                ("same/a.py", "a", false),
                ("same/deep/b.py", "b", false),
                ("changed/c.py", "c2", false),
                ("changed/deep/d.py", "d", false),
                ("changed/deep/new.py", "n", false),
                ("mode.sh", "m", true),
                ("file_then_dir/h.py", "h", false),
                ("dir_then_file", "e", false),
                ("added/deep/i.py", "i", false),
            ],
        );
        let (old, new) = (
            repo.find_tree(old).expect("old"),
            repo.find_tree(new).expect("new"),
        );
        for (a, b) in [(Some(&old), &new), (Some(&new), &old), (None, &new)] {
            let mut ours = files(&repo, a, b).expect("the files");
            ours.sort();
            let diff = repo.diff_tree_to_tree(a, Some(b), None).expect("a diff");
            let mut theirs: Vec<Vec<u8>> = diff
                .deltas()
                .flat_map(|d| [d.old_file().path_bytes(), d.new_file().path_bytes()])
                .flatten()
                .map(<[u8]>::to_vec)
                .collect();
            theirs.sort();
            theirs.dedup();
            assert_eq!(ours, theirs);
        }
    }
}
