//! `hf:OWNER/NAME[@REVISION][:SPLIT]` inputs: a dataset's files in the local Hugging Face
//! cache, found without the network.
//!
//! The cache is `$HF_HUB_CACHE`, else `$HF_HOME/hub`, else `$XDG_CACHE_HOME/huggingface/hub`,
//! else `~/.cache/huggingface/hub`. A dataset lives in `datasets--OWNER--NAME/`: `refs/<branch
//! or tag>` holds a commit hash, and `snapshots/<hash>/` the files of that commit (links into
//! `blobs/`). The data files are the `.parquet`, `.jsonl`, `.ndjson` and `.json` files of the
//! snapshot (compressed or not), in sorted path order; a split keeps those whose directory,
//! or the start of whose name, is the split (`data/test-00000-of-00001.parquet`,
//! `default/test/0000.parquet`, `test.jsonl`).

use std::path::{Path, PathBuf};

use super::source::Input;
use crate::errors::{AreaError, CliError};

/// The prefix of a Hugging Face input.
pub const PREFIX: &str = "hf:";

/// Files of a snapshot that are metadata, not records.
const METADATA: &[&str] = &[
    "dataset_info.json",
    "dataset_infos.json",
    "dataset_dict.json",
    "state.json",
];

/// A parsed `hf:` input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HfInput {
    /// `OWNER/NAME` (or `NAME` for the datasets that have no owner).
    pub repo: String,
    /// A branch, tag or commit hash; `main` when not given.
    pub revision: Option<String>,
    /// The split to read; every split when not given.
    pub split: Option<String>,
}

impl HfInput {
    /// Parses `hf:OWNER/NAME[@REVISION][:SPLIT]`; `None` when `arg` is not an `hf:` input.
    pub fn parse(arg: &str) -> Option<Result<Self, CliError>> {
        let rest = arg.strip_prefix(PREFIX)?;
        let bad = |fault| {
            CliError::from(HfError::Malformed {
                input: arg.to_owned(),
                fault,
            })
        };
        let (rest, split) = match rest.split_once(':') {
            Some((rest, split)) => (rest, Some(split)),
            None => (rest, None),
        };
        let (repo, revision) = match rest.split_once('@') {
            Some((repo, revision)) => (repo, Some(revision)),
            None => (rest, None),
        };
        let parts: Vec<&str> = repo.split('/').collect();
        if parts.is_empty()
            || parts.len() > 2
            || parts
                .iter()
                .any(|p| p.is_empty() || *p == "." || *p == ".." || p.contains('\\'))
        {
            return Some(Err(bad(HfSyntax::Dataset)));
        }
        if revision.is_some_and(|r| r.is_empty() || r.split('/').any(|c| c.is_empty() || c == ".."))
        {
            return Some(Err(bad(HfSyntax::Revision)));
        }
        if split.is_some_and(|s| s.is_empty() || s.contains('/')) {
            return Some(Err(bad(HfSyntax::Split)));
        }
        Some(Ok(Self {
            repo: repo.to_owned(),
            revision: revision.map(str::to_owned),
            split: split.map(str::to_owned),
        }))
    }

    /// The dataset, as errors name it.
    fn dataset(&self) -> HfDataset {
        HfDataset {
            repo: self.repo.clone(),
            revision: self.revision.clone(),
        }
    }

    /// The data files of this input in the cache `hub`, in sorted path order.
    pub fn resolve(&self, hub: &Path) -> Result<Vec<PathBuf>, CliError> {
        let dir = hub.join(format!("datasets--{}", self.repo.replace('/', "--")));
        if !dir.is_dir() {
            return Err(HfError::NoDataset {
                dataset: self.dataset(),
                dir,
            }
            .into());
        }
        let revision = self.revision.as_deref().unwrap_or("main");
        let snapshots = dir.join("snapshots");
        let ref_file = dir.join("refs").join(revision);
        let commit = if ref_file.is_file() {
            crate::small_file::read_to_string(&ref_file)
                .map_err(|e| CliError::Read {
                    path: ref_file.clone(),
                    source: e,
                })?
                .trim()
                .to_owned()
        } else if snapshots.join(revision).is_dir() {
            revision.to_owned()
        } else {
            return Err(HfError::NoRevision {
                dataset: self.dataset(),
                revision: revision.to_owned(),
                snapshot: snapshots.join(revision),
                refs: listing(&dir.join("refs"), true),
                snapshots: listing(&snapshots, false),
                ref_file,
            }
            .into());
        };
        let snapshot = snapshots.join(&commit);
        if commit.is_empty() || commit.contains(['/', '\\']) || !snapshot.is_dir() {
            return Err(HfError::NoSnapshot {
                dataset: self.dataset(),
                ref_file,
                commit,
                snapshot,
            }
            .into());
        }
        let mut files = Vec::new();
        collect(&snapshot, &snapshot, &mut files)?;
        files.sort();
        if files.is_empty() {
            return Err(HfError::NoDataFiles {
                dataset: self.dataset(),
                snapshot,
            }
            .into());
        }
        if let Some(split) = &self.split {
            let all = files.clone();
            files.retain(|rel| in_split(rel, split));
            if files.is_empty() {
                let mut splits: Vec<String> = all.iter().filter_map(|r| split_of(r)).collect();
                splits.sort();
                splits.dedup();
                return Err(HfError::NoSplit {
                    dataset: self.dataset(),
                    split: split.clone(),
                    snapshot,
                    found: splits,
                }
                .into());
            }
        }
        let mut paths = Vec::with_capacity(files.len());
        for rel in files {
            let path = snapshot.join(&rel);
            if !path.is_file() {
                return Err(HfError::MissingFile {
                    dataset: self.dataset(),
                    path,
                }
                .into());
            }
            paths.push(path);
        }
        Ok(paths)
    }
}

/// The names in a directory (for refs, with their subdirectories: `refs/pr/1` is `pr/1`).
fn listing(dir: &Path, recurse: bool) -> Vec<String> {
    let mut names = Vec::new();
    let mut stack = vec![(dir.to_owned(), String::new())];
    while let Some((dir, prefix)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = format!("{prefix}{}", entry.file_name().to_string_lossy());
            if recurse && entry.path().is_dir() {
                stack.push((entry.path(), format!("{name}/")));
            } else {
                names.push(name);
            }
        }
    }
    // In the order of the names as the hint quotes them: `pr/10` before `pr/1`.
    names.sort_by(|a, b| a.bytes().chain([b'`']).cmp(b.bytes().chain([b'`'])));
    names
}

/// Whether a file name is a data file: `.parquet`, `.jsonl`, `.ndjson` or `.json`, plain or
/// `.gz`/`.zst`, and not a metadata file.
fn is_data_file(name: &str) -> bool {
    if name.starts_with('.') || METADATA.contains(&name) {
        return false;
    }
    let lower = name.to_ascii_lowercase();
    let base = lower
        .strip_suffix(".gz")
        .or_else(|| lower.strip_suffix(".zst"))
        .or_else(|| lower.strip_suffix(".zstd"))
        .unwrap_or(&lower);
    if lower.ends_with(".parquet") {
        return true;
    }
    [".jsonl", ".ndjson", ".json"]
        .iter()
        .any(|e| base.ends_with(e))
}

/// Collects the data files under `dir`, as paths relative to `root`.
fn collect(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), CliError> {
    let entries = std::fs::read_dir(dir).map_err(|e| CliError::Read {
        path: dir.to_owned(),
        source: e,
    })?;
    for entry in entries {
        let entry = entry.map_err(|e| CliError::Read {
            path: dir.to_owned(),
            source: e,
        })?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        let kind = entry.file_type().map_err(|e| CliError::Read {
            path: path.clone(),
            source: e,
        })?;
        if name.starts_with('.') {
            continue;
        }
        if kind.is_dir() {
            collect(root, &path, out)?;
        } else if is_data_file(&name) {
            let rel = path
                .strip_prefix(root)
                .expect("a path found under the root is under it")
                .to_owned();
            out.push(rel);
        }
    }
    Ok(())
}

/// Whether a data file (relative to its snapshot) belongs to `split`: a directory of its
/// path is the split, or its name is the split followed by `-`, `_` or `.`.
fn in_split(rel: &Path, split: &str) -> bool {
    let dirs = rel.parent().into_iter().flat_map(Path::components);
    if dirs.into_iter().any(|c| c.as_os_str() == split) {
        return true;
    }
    rel.file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_prefix(split))
        .is_some_and(|rest| rest.starts_with(['-', '_', '.']))
}

/// The split a data file's name suggests (`test` for `test-00000-of-00001.parquet`).
fn split_of(rel: &Path) -> Option<String> {
    let name = rel.file_name()?.to_str()?;
    let end = name.find(['-', '_', '.']).unwrap_or(name.len());
    (end > 0).then(|| name[..end].to_owned())
}

/// The Hugging Face hub cache directory.
pub fn hub_cache() -> PathBuf {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(dir) = var("HF_HUB_CACHE").or_else(|| var("HUGGINGFACE_HUB_CACHE")) {
        return dir;
    }
    if let Some(home) = var("HF_HOME") {
        return home.join("hub");
    }
    if let Some(cache) = var("XDG_CACHE_HOME") {
        return cache.join("huggingface").join("hub");
    }
    var("HOME")
        .or_else(|| var("USERPROFILE"))
        .unwrap_or_else(|| PathBuf::from("."))
        .join(".cache")
        .join("huggingface")
        .join("hub")
}

/// The sources the `-i` arguments name: `-` stdin, `hf:...` the dataset's files, anything
/// else a path.
pub fn sources(inputs: &[PathBuf]) -> Result<Vec<Input>, CliError> {
    let mut sources = Vec::with_capacity(inputs.len());
    for input in inputs {
        match input.to_str().and_then(HfInput::parse) {
            Some(parsed) => {
                let files = parsed?.resolve(&hub_cache())?;
                sources.extend(files.into_iter().map(Input::File));
            }
            None => sources.push(Input::parse(input)),
        }
    }
    Ok(sources)
}

/// A dataset as an `hf:` input names it: what the command that fetches it needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HfDataset {
    /// `OWNER/NAME` (or `NAME`).
    pub repo: String,
    /// The revision asked for, if any.
    pub revision: Option<String>,
}

impl HfDataset {
    /// The command that fetches the dataset into the cache.
    fn download_hint(&self) -> String {
        let revision = self
            .revision
            .as_ref()
            .map(|r| format!(" --revision {r}"))
            .unwrap_or_default();
        format!(
            "fetch it with `huggingface-cli download --repo-type dataset {}{revision}` (or `hf download`), or point `HF_HUB_CACHE` at the cache that holds it",
            self.repo
        )
    }
}

/// An `hf:OWNER/NAME[@REVISION][:SPLIT]` input that is malformed or not in the cache.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HfError {
    /// An input that is not `hf:OWNER/NAME[@REVISION][:SPLIT]`.
    #[error("`{input}`: {fault}")]
    Malformed {
        /// The input as given.
        input: String,
        /// Which part is wrong.
        fault: HfSyntax,
    },
    /// No directory for the dataset in the cache.
    #[error("dataset `{}` is not in the Hugging Face cache (looked for `{}`)", .dataset.repo, .dir.display())]
    NoDataset {
        /// The dataset.
        dataset: HfDataset,
        /// The directory looked for.
        dir: PathBuf,
    },
    /// A revision that is neither a ref nor a snapshot of the dataset.
    #[error(
        "revision `{revision}` of dataset `{}` is not in the Hugging Face cache (looked for `{}` and `{}`)",
        .dataset.repo,
        .ref_file.display(),
        .snapshot.display()
    )]
    NoRevision {
        /// The dataset.
        dataset: HfDataset,
        /// The revision looked for (`main` when none was given).
        revision: String,
        /// The ref file looked for.
        ref_file: PathBuf,
        /// The snapshot directory looked for.
        snapshot: PathBuf,
        /// The refs the cache holds for the dataset.
        refs: Vec<String>,
        /// The snapshots the cache holds for the dataset.
        snapshots: Vec<String>,
    },
    /// A ref naming a commit whose snapshot is missing.
    #[error(
        "`{}` names commit `{commit}`, whose snapshot `{}` is not in the cache",
        .ref_file.display(),
        .snapshot.display()
    )]
    NoSnapshot {
        /// The dataset.
        dataset: HfDataset,
        /// The ref file.
        ref_file: PathBuf,
        /// The commit it names.
        commit: String,
        /// The snapshot directory looked for.
        snapshot: PathBuf,
    },
    /// A snapshot with no data files.
    #[error(
        "snapshot `{}` of dataset `{}` holds no data files (`.parquet`, `.jsonl`, `.json`)",
        .snapshot.display(),
        .dataset.repo
    )]
    NoDataFiles {
        /// The dataset.
        dataset: HfDataset,
        /// The snapshot directory.
        snapshot: PathBuf,
    },
    /// A split none of the snapshot's files belong to.
    #[error(
        "dataset `{}` has no `{split}` split in the cache (looked in `{}`)",
        .dataset.repo,
        .snapshot.display()
    )]
    NoSplit {
        /// The dataset.
        dataset: HfDataset,
        /// The split asked for.
        split: String,
        /// The snapshot directory.
        snapshot: PathBuf,
        /// The splits the snapshot's files belong to.
        found: Vec<String>,
    },
    /// A data file whose link into the cache's blobs leads nowhere.
    #[error(
        "`{}` in the Hugging Face cache points to a missing file: the download is incomplete",
        .path.display()
    )]
    MissingFile {
        /// The dataset.
        dataset: HfDataset,
        /// The file.
        path: PathBuf,
    },
}

/// The part of an `hf:` input that is wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HfSyntax {
    /// The dataset is not `OWNER/NAME` or `NAME`.
    #[error("the dataset is not `OWNER/NAME`")]
    Dataset,
    /// The revision is empty or not a plain name.
    #[error("the revision after `@` is empty or not a plain name")]
    Revision,
    /// The split is empty or not a plain name.
    #[error("the split after `:` is empty or not a plain name")]
    Split,
}

impl AreaError for HfError {
    fn hint(&self) -> Option<String> {
        Some(match self {
            Self::Malformed { .. } => "write `hf:OWNER/NAME`, optionally with `@REVISION` and `:SPLIT` (`hf:princeton-nlp/SWE-bench_Lite@main:test`)".into(),
            Self::NoRevision {
                dataset,
                refs,
                snapshots,
                ..
            } => {
                let mut known = Vec::new();
                for (what, names) in [("refs", refs), ("snapshots", snapshots)] {
                    if !names.is_empty() {
                        let names: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
                        known.push(format!("{what} {}", names.join(", ")));
                    }
                }
                if known.is_empty() {
                    dataset.download_hint()
                } else {
                    format!(
                        "the cache holds {}; or {}",
                        known.join(" and "),
                        dataset.download_hint()
                    )
                }
            }
            Self::NoSplit { dataset, found, .. } => format!(
                "splits found: {}; or, if the split was not downloaded, {}",
                if found.is_empty() {
                    "(none)".to_owned()
                } else {
                    found.join(", ")
                },
                dataset.download_hint()
            ),
            Self::NoDataset { dataset, .. }
            | Self::NoSnapshot { dataset, .. }
            | Self::NoDataFiles { dataset, .. }
            | Self::MissingFile { dataset, .. } => dataset.download_hint(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(arg: &str) -> HfInput {
        HfInput::parse(arg).unwrap().unwrap()
    }

    #[test]
    fn parses_every_part() {
        assert_eq!(
            parse("hf:princeton-nlp/SWE-bench_Lite@v1.0:test"),
            HfInput {
                repo: "princeton-nlp/SWE-bench_Lite".into(),
                revision: Some("v1.0".into()),
                split: Some("test".into()),
            }
        );
        let plain = parse("hf:owner/name");
        assert_eq!((plain.revision, plain.split), (None, None));
        assert_eq!(parse("hf:owner/name:dev").split.as_deref(), Some("dev"));
        assert_eq!(
            parse("hf:owner/name@refs/convert/parquet")
                .revision
                .as_deref(),
            Some("refs/convert/parquet")
        );
        assert!(HfInput::parse("data.jsonl").is_none());
    }

    #[test]
    fn refuses_malformed_inputs() {
        for bad in [
            "hf:",
            "hf:a/b/c",
            "hf:a/",
            "hf:../x",
            "hf:a/b@",
            "hf:a/b:",
            "hf:a/b@x/../y",
        ] {
            assert!(HfInput::parse(bad).unwrap().is_err(), "{bad}");
        }
    }

    #[test]
    fn splits_by_directory_or_name_prefix() {
        assert!(in_split(
            Path::new("data/test-00000-of-00001.parquet"),
            "test"
        ));
        assert!(in_split(Path::new("default/test/0000.parquet"), "test"));
        assert!(in_split(Path::new("test.jsonl"), "test"));
        assert!(!in_split(
            Path::new("data/testmini-00000-of-00001.parquet"),
            "test"
        ));
        assert!(!in_split(
            Path::new("data/train-00000-of-00001.parquet"),
            "test"
        ));
        assert_eq!(
            split_of(Path::new("data/dev-00000-of-00001.parquet")).as_deref(),
            Some("dev")
        );
    }

    #[test]
    fn refs_are_listed_in_the_order_of_their_quoted_names() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["main", "pr/1", "pr/10", "v1", "v1.0"] {
            let file = dir.path().join(name);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, "abc").unwrap();
        }
        // `pr/10` before `pr/1`, as "`pr/10`" sorts before "`pr/1`".
        assert_eq!(
            listing(dir.path(), true),
            ["main", "pr/10", "pr/1", "v1.0", "v1"]
        );
    }

    #[test]
    fn data_files_are_told_from_metadata() {
        assert!(is_data_file("test-00000-of-00001.parquet"));
        assert!(is_data_file("test.jsonl.gz"));
        assert!(is_data_file("train.json"));
        assert!(!is_data_file("README.md"));
        assert!(!is_data_file("dataset_infos.json"));
        assert!(!is_data_file(".gitattributes"));
    }
}

#[cfg(test)]
mod error_messages {
    use super::*;
    use crate::errors::{CliError, said};

    #[test]
    fn hf_errors_say_what_they_always_said() {
        let mut errors = vec![CliError::from(HfError::Malformed {
            input: "hf:a/b@".into(),
            fault: HfSyntax::Revision,
        })];
        let dataset = |revision: Option<&str>| HfDataset {
            repo: "o/n".into(),
            revision: revision.map(str::to_owned),
        };
        errors.push(CliError::from(HfError::NoDataset {
            dataset: dataset(None),
            dir: "hub/datasets--o--n".into(),
        }));
        let no_revision = |refs: &[&str], snapshots: &[&str]| HfError::NoRevision {
            dataset: dataset(Some("v2")),
            revision: "v2".into(),
            ref_file: "d/refs/v2".into(),
            snapshot: "d/snapshots/v2".into(),
            refs: refs.iter().map(ToString::to_string).collect(),
            snapshots: snapshots.iter().map(ToString::to_string).collect(),
        };
        errors.push(CliError::from(no_revision(&[], &[])));
        errors.push(CliError::from(no_revision(&["main", "pr/1"], &[])));
        errors.push(CliError::from(no_revision(&["main"], &["abc"])));
        errors.push(CliError::from(HfError::NoSnapshot {
            dataset: dataset(None),
            ref_file: "d/refs/main".into(),
            commit: "abc".into(),
            snapshot: "d/snapshots/abc".into(),
        }));
        errors.push(CliError::from(HfError::NoDataFiles {
            dataset: dataset(None),
            snapshot: "s".into(),
        }));
        for found in [vec![], vec!["dev", "test"]] {
            errors.push(CliError::from(HfError::NoSplit {
                dataset: dataset(None),
                split: "train".into(),
                snapshot: "s".into(),
                found: found.into_iter().map(str::to_owned).collect(),
            }));
        }
        errors.push(CliError::from(HfError::MissingFile {
            dataset: dataset(None),
            path: "s/t.parquet".into(),
        }));
        insta::assert_snapshot!(said(errors));
    }
}
