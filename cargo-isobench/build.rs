//! `--version` names the commit a build from this repository's git checkout was made
//! from: `cargo-isobench 0.1.0 (1a2b3c4d5e6f 2026-12-07)`. A build from a package (what
//! crates.io hands out, or `cargo package` makes) is in no checkout of this repository and
//! says the version alone, as does a build where `git` cannot be run.

use std::path::{Path, PathBuf};
use std::process::Command;

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    out.status.success().then(|| text.trim().to_owned())
}

/// The commit of HEAD and its date, when the crate's parent is the top of a git checkout
/// (the workspace this crate belongs to), with the files whose change moves HEAD.
fn commit(workspace: &Path) -> Option<(String, Vec<PathBuf>)> {
    let top = PathBuf::from(git(workspace, &["rev-parse", "--show-toplevel"])?);
    if top.canonicalize().ok()? != workspace.canonicalize().ok()? {
        return None;
    }
    let described = git(
        workspace,
        &["log", "-1", "--format=%h %cs", "--abbrev=12", "HEAD"],
    )?;
    let mut watched = vec![PathBuf::from(git(
        workspace,
        &["rev-parse", "--git-path", "HEAD"],
    )?)];
    if let Some(branch) = git(workspace, &["symbolic-ref", "-q", "HEAD"]) {
        watched.push(PathBuf::from(git(
            workspace,
            &["rev-parse", "--git-path", &branch],
        )?));
    }
    watched.push(PathBuf::from(git(
        workspace,
        &["rev-parse", "--git-path", "packed-refs"],
    )?));
    let watched = watched
        .into_iter()
        .map(|p| {
            if p.is_absolute() {
                p
            } else {
                workspace.join(p)
            }
        })
        .collect();
    Some((described, watched))
}

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let version = std::env::var("CARGO_PKG_VERSION").expect("set by cargo");
    let workspace = manifest.parent().expect("a crate directory has a parent");
    println!("cargo::rerun-if-changed=build.rs");
    let text = match commit(workspace) {
        Some((described, watched)) => {
            for path in watched {
                println!("cargo::rerun-if-changed={}", path.display());
            }
            format!("{version} ({described})")
        }
        None => version,
    };
    println!("cargo::rustc-env=ISOBENCH_VERSION={text}");
}
