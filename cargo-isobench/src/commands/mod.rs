//! The commands that read git history and logs: each turns its arguments into work for
//! [`crate::mine`] (and, for `enrich`, a plan for [`crate::pipeline`]), so that `mine/`
//! stays a library the pipeline can use; `diff` compares two datasets; `completions` and
//! `man` describe the command line itself.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use crate::errors::AreaError;

pub mod diff;
pub mod enrich;
pub mod manual;
pub mod mine;
pub mod timings;

/// What `mine`, `enrich` and `timings` cannot do as asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MineError {
    /// `mine` without `--head` or `--range`.
    #[error("nothing to mine")]
    NothingToMine,
    /// `--base` with several heads or a range.
    #[error("`--base` goes with a single `--head`")]
    BaseWithoutSingleHead,
    /// A `--repo-name` that is not `OWNER/NAME`.
    #[error("`--repo-name {0}` is not `OWNER/NAME`")]
    RepoName(String),
    /// No `--repo-name`, and no `origin` remote to take it from.
    #[error("the `owner/name` of `{}` is unknown (no `origin` remote with a GitHub-style URL)", .0.display())]
    UnknownOwnerName(PathBuf),
    /// A `--range` that is not `A..B`.
    #[error("`--range {0}` is not `A..B`")]
    Range(String),
    /// A `--range A...B`: the commits of either side but not both.
    #[error("`--range {0}` is a symmetric difference (`...`), which `mine` does not take")]
    SymmetricRange(String),
    /// An unknown `--preset`.
    #[error("unknown `--preset {given}`")]
    Preset {
        /// The preset given.
        given: String,
        /// The presets there are.
        names: Vec<&'static str>,
    },
    /// `enrich` with nothing to enrich from.
    #[error("nothing to enrich from")]
    NothingToEnrich,
    /// `timings` without a base log or a head log.
    #[error("timings need at least one base log and one head log")]
    TimingLogs,
    /// A `--range A..B` that holds no commit.
    #[error("`--range {range}` holds no commit: nothing to mine")]
    EmptyRange {
        /// The range given.
        range: String,
        /// Why, as far as can be told (`B..A` has commits, or the two are one commit).
        why: String,
    },
    /// Every commit mined was skipped by the filters: nothing was written.
    #[error("mined {commits} commit(s) and every one was skipped: nothing was written{}", skipped_lines(.skipped))]
    AllSkipped {
        /// The commits mined.
        commits: usize,
        /// How many were skipped for each reason.
        skipped: BTreeMap<String, usize>,
    },
}

/// The reasons commits were skipped, a line each.
pub(crate) fn skipped_lines<'a>(
    skipped: impl IntoIterator<Item = (&'a String, &'a usize)>,
) -> String {
    let mut lines = String::new();
    for (reason, count) in skipped {
        let _ = write!(lines, "\n  skipped {count}: {reason}");
    }
    lines
}

impl AreaError for MineError {
    fn hint(&self) -> Option<String> {
        let hint = match self {
            Self::NothingToMine => "give `--head REV` (repeatable) or `--range A..B`",
            Self::BaseWithoutSingleHead => {
                "a range's commits are each mined against their first parent"
            }
            Self::RepoName(_) | Self::Range(_) => return None,
            Self::SymmetricRange(_) => {
                "give `A..B`: the commits reachable from `B` and not from `A`"
            }
            Self::UnknownOwnerName(_) => "give it with `--repo-name OWNER/NAME`",
            Self::Preset { names, .. } => {
                return Some(format!("the presets are `{}`", names.join("`, `")));
            }
            Self::NothingToEnrich => {
                "give `--repos DIR`, `--timings DIR`, `--python X.Y`, or a `[repos]` table in `isobench.toml`"
            }
            Self::TimingLogs => {
                "give `--base PATH --head PATH`, or a directory with `base*` and `head*` entries"
            }
            Self::EmptyRange { why, .. } => return Some(why.clone()),
            Self::AllSkipped { .. } => {
                "loosen the filters that skipped them (`--path`, `--only-source`, `--max-files`, `--code-and-tests`) or mine another range"
            }
        };
        Some(hint.to_owned())
    }

    /// A range or filters that leave no record end the run as records that fail do.
    fn exit_code(&self) -> i32 {
        match self {
            Self::EmptyRange { .. } | Self::AllSkipped { .. } => crate::exit::RECORDS,
            _ => crate::exit::USAGE,
        }
    }
}

#[cfg(test)]
mod error_messages {
    use super::*;
    use crate::errors::{CliError, said};

    #[test]
    fn mine_errors_say_what_they_always_said() {
        let errors = vec![
            CliError::from(MineError::NothingToMine),
            CliError::from(MineError::UnknownOwnerName("r".into())),
            CliError::from(MineError::Range("a.b".into())),
            CliError::from(MineError::Preset {
                given: "x".into(),
                names: vec!["default", "swe-bench"],
            }),
            CliError::from(MineError::TimingLogs),
        ];
        insta::assert_snapshot!(said(errors));
    }
}
