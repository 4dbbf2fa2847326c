//! The repository snapshots SWE-smith's harness can evaluate: the profiles its registry
//! holds, as `data/swesmith-0.0.9-profiles.txt` declares them (and a test compares with
//! the swesmith it finds installed).
//!
//! The harness finds a task instance's profile by the row's `repo`
//! (`swesmith.profiles.registry.get_from_inst`): the profile's mirror
//! `swesmith/<owner>__<repo>.<commit8>` or its name `<owner>__<repo>.<commit8>`; any
//! other `repo` raises `KeyError`, and the row cannot be evaluated.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use isobench_core::contract::Known;

use crate::smith_family::MirrorName;

/// The declaration [`SmithProfiles`] is read from.
const DECLARED: &str = include_str!("../data/swesmith-0.0.9-profiles.txt");

/// The swesmith release the declaration is of.
pub(crate) const RELEASE: &str = "swesmith 0.0.9";

/// One registered profile: the upstream repository and the commit its mirror was cut at.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct SmithProfile {
    /// The upstream `owner/repo`.
    pub repo: String,
    /// The upstream commit, as the profile spells it (40 hex characters, but for one of
    /// swesmith's own profiles, 39).
    pub commit: String,
}

impl SmithProfile {
    /// The upstream owner and repository name.
    fn halves(&self) -> (&str, &str) {
        self.repo.split_once('/').unwrap_or((&self.repo, ""))
    }

    /// The first 8 characters of the commit, which name the mirror and the image.
    fn commit8(&self) -> &str {
        self.commit.get(..8).unwrap_or(&self.commit)
    }

    /// The profile's name, `<owner>__<repo>.<commit8>` (`RepoProfile.repo_name`).
    pub fn name(&self) -> String {
        let (owner, repo) = self.halves();
        format!("{owner}__{repo}.{}", self.commit8())
    }

    /// The profile's mirror, `swesmith/<name>` (`RepoProfile.mirror_name`).
    pub fn mirror(&self) -> String {
        format!("swesmith/{}", self.name())
    }

    /// The profile's environment image (`RepoProfile.image_name`):
    /// `swebench/swesmith.x86_64.<owner>_1776_<repo>.<commit8>`, lower-cased.
    pub fn image(&self) -> String {
        let (owner, repo) = self.halves();
        format!(
            "swebench/swesmith.x86_64.{owner}_1776_{repo}.{}",
            self.commit8()
        )
        .to_lowercase()
    }
}

/// The profiles SWE-smith's harness registers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SmithProfiles(Vec<SmithProfile>);

impl SmithProfiles {
    /// The profiles declared in `data/swesmith-0.0.9-profiles.txt`: a line per profile,
    /// `owner/repo commit`, `#` starting a comment line.
    pub fn declared() -> Self {
        let profiles = DECLARED
            .lines()
            .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
            .filter_map(|line| {
                let (repo, commit) = line.split_once(' ')?;
                Some(SmithProfile {
                    repo: repo.to_owned(),
                    commit: commit.trim().to_owned(),
                })
            })
            .collect();
        Self(profiles)
    }

    /// [`SmithProfiles::declared`], read at its first use.
    pub(crate) fn read_once() -> &'static Self {
        static PROFILES: OnceLock<SmithProfiles> = OnceLock::new();
        PROFILES.get_or_init(Self::declared)
    }

    /// Every profile.
    pub fn all(&self) -> &[SmithProfile] {
        &self.0
    }

    /// The values of `repo` the harness finds a profile by: each profile's mirror and name.
    pub(crate) fn known(&self) -> Known {
        let values: BTreeSet<String> = self
            .0
            .iter()
            .flat_map(|profile| [profile.mirror(), profile.name()])
            .collect();
        Known {
            values,
            ..Known::default()
        }
    }

    /// The profile `repo` names (a mirror or a profile name), when one is registered.
    pub fn find(&self, repo: &str) -> Option<&SmithProfile> {
        let mirror = MirrorName::parse(repo)?;
        if mirror.org.is_some_and(|org| org != "swesmith") {
            return None;
        }
        self.0.iter().find(|profile| {
            let (owner, name) = profile.halves();
            owner == mirror.owner
                && name == mirror.repo
                && profile.commit.starts_with(mirror.commit)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_declared_profile_is_an_owner_a_repository_and_a_commit() {
        let profiles = SmithProfiles::declared();
        assert!(profiles.all().len() > 600, "{}", profiles.all().len());
        for profile in profiles.all() {
            let (owner, repo) = profile.halves();
            assert!(!owner.is_empty() && !repo.is_empty(), "{profile:?}");
            assert!(!repo.contains('/'), "{profile:?}");
            // swesmith's own profiles hold a 39-character commit (`hamba/avro`): at least the
            // 8 characters that name the mirror.
            assert!(profile.commit.len() >= 8, "{profile:?}");
            assert!(
                profile.commit.bytes().all(|b| b.is_ascii_hexdigit()),
                "{profile:?}"
            );
        }
    }

    #[test]
    fn a_profile_is_found_by_its_mirror_or_its_name_and_by_nothing_else() {
        let profiles = SmithProfiles::declared();
        let pandas = SmithProfile {
            repo: "pandas-dev/pandas".to_owned(),
            commit: "95280573e15be59036f98d82a8792599c10c6603".to_owned(),
        };
        assert_eq!(pandas.mirror(), "swesmith/pandas-dev__pandas.95280573");
        assert_eq!(
            pandas.image(),
            "swebench/swesmith.x86_64.pandas-dev_1776_pandas.95280573"
        );
        assert_eq!(profiles.find(&pandas.mirror()), Some(&pandas));
        assert_eq!(profiles.find(&pandas.name()), Some(&pandas));
        let known = profiles.known();
        assert!(known.values.contains(&pandas.mirror()));
        assert!(known.values.contains(&pandas.name()));
        for other in [
            "swesmith/pandas-dev__pandas.95280574",
            "elsewhere/pandas-dev__pandas.95280573",
            "pandas-dev/pandas",
            "swesmith/astropy__astropy.26d14786",
        ] {
            assert_eq!(profiles.find(other), None, "{other}");
            assert!(!known.values.contains(other), "{other}");
        }
    }

    #[test]
    fn images_are_lower_case_as_swesmith_names_them() {
        let profiles = SmithProfiles::declared();
        let mapper = profiles
            .find("swesmith/abel533__Mapper.3aa82765")
            .expect("declared");
        assert_eq!(
            mapper.image(),
            "swebench/swesmith.x86_64.abel533_1776_mapper.3aa82765"
        );
    }
}
