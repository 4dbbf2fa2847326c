//! `isobench.toml`: the project configuration, found in the current directory or the
//! nearest ancestor (as cargo finds `Cargo.toml`), or named with `--config PATH`.
//!
//! A found file's `[[plugins]]` load only once the user trusted its text
//! ([`crate::plugin::trust`]); its other keys need no trust. A file named with `--config`
//! is the user's own choice, as `--plugin` is.
//!
//! Unknown keys are errors that point at their line, so a typo never passes silently.
//!
//! ```toml
//! # Where the repository of a record's `repo` (`owner/name`) is, beyond `--repos DIR`.
//! [repos]
//! "astropy/astropy" = "/src/astropy"
//!
//! # Test-file rules; the default ones, `testing/` and `conftest.py` when absent.
//! [test-files]
//! rules = ["dir:tests", "dir:test", "name:test_*.py", "name:*_test.py", "name:conftest.py"]
//!
//! # Adapter plugins: a native library, or a program speaking JSON Lines.
//! [[plugins]]
//! path = "plugins/libmy_format.so"
//! [[plugins]]
//! command = ["python3", "my_format.py"]
//! timeout-secs = 30
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use isobench_core::testfiles::{RuleError, TestFileRules};
use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::errors::{AreaError, CliError};

/// The file name looked for.
pub const FILE_NAME: &str = "isobench.toml";

/// The parsed configuration.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Config {
    /// `owner/name` to repository path (relative paths are relative to the file).
    #[serde(default)]
    pub repos: BTreeMap<String, PathBuf>,
    /// Test-file rules.
    #[serde(default)]
    pub test_files: Option<TestFiles>,
    /// Plugins to load (`[[plugins]]`).
    #[serde(default)]
    pub plugins: Vec<PluginEntry>,
    /// Adapters declared by table files (`[[adapters]]`).
    #[serde(default)]
    pub adapters: Vec<AdapterEntry>,
    /// Where the configuration was read from (`None`: defaults).
    #[serde(skip)]
    pub path: Option<PathBuf>,
    /// The sha256 of the text read, in lowercase hex (what `cargo isobench trust` records).
    #[serde(skip)]
    pub sha256: Option<String>,
    /// Whether the user named the file (`--config PATH`) rather than it being found.
    #[serde(skip)]
    pub named: bool,
}

/// One `[[plugins]]` entry: a native plugin (`path`) or a program plugin (`command`),
/// exactly one of the two ([`Config::parse`] checks).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct PluginEntry {
    /// A native plugin's library (relative paths are relative to the file).
    pub path: Option<PathBuf>,
    /// A program plugin's command line (program, then arguments).
    pub command: Option<Vec<String>>,
    /// How long a program plugin may take to answer one request (default 30).
    pub timeout_secs: Option<u64>,
    /// The directory a program plugin starts in: the configuration's, so that its
    /// relative arguments name the configuration's files.
    #[serde(skip)]
    pub dir: Option<PathBuf>,
}

/// One `[[adapters]]` entry: a format declared by a table file, which runs no code and so
/// needs no trust.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdapterEntry {
    /// The table file (relative paths are relative to the configuration file).
    pub path: PathBuf,
}

/// `[test-files]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestFiles {
    /// Rules in order (`dir:NAME`, `name:GLOB`, `path:GLOB`).
    pub rules: Vec<String>,
}

impl Config {
    /// Reads `explicit`, or else the nearest `isobench.toml` from `start` upwards, or else
    /// the defaults.
    pub fn load(explicit: Option<&Path>, start: &Path) -> Result<Self, CliError> {
        let path = match explicit {
            Some(p) => Some(p.to_owned()),
            None => Self::find(start),
        };
        let Some(path) = path else {
            return Ok(Self::default());
        };
        let text = crate::small_file::read_to_string(&path).map_err(|e| CliError::Read {
            path: path.clone(),
            source: e,
        })?;
        // Relative paths are relative to the file itself, not to a link to it: a link a
        // checkout plants to a trusted file must not make that file's plugins resolve in
        // the checkout.
        let real = std::fs::canonicalize(&path).unwrap_or(path);
        let mut config = Self::parse(&text, &real)?;
        config.named = explicit.is_some();
        Ok(config)
    }

    /// The nearest `isobench.toml` from `start` upwards.
    pub fn find(start: &Path) -> Option<PathBuf> {
        start
            .ancestors()
            .map(|dir| dir.join(FILE_NAME))
            .find(|p| p.is_file())
    }

    /// Parses a configuration's text; `path` names it in errors and anchors relative paths.
    pub fn parse(text: &str, path: &Path) -> Result<Self, CliError> {
        let mut config: Self = toml::from_str(text).map_err(|e| ConfigError::Invalid {
            path: path.to_owned(),
            line: e
                .span()
                .map(|span| text[..span.start.min(text.len())].matches('\n').count() + 1),
            message: e.message().to_owned(),
        })?;
        if let Some(n) = config
            .plugins
            .iter()
            .position(|p| p.path.is_some() == p.command.is_some())
        {
            return Err(ConfigError::PluginEntry {
                path: path.to_owned(),
                entry: n + 1,
            }
            .into());
        }
        let base = path.parent().unwrap_or_else(|| Path::new("."));
        for plugin in &mut config.plugins {
            if let Some(path) = plugin.path.as_mut().filter(|p| p.is_relative()) {
                *path = base.join(&*path);
            }
            // A program named by a relative path is the configuration's, not one of the
            // directory the command happens to run in; bare names are looked up on `PATH`.
            if let Some(program) = plugin.command.as_mut().and_then(|c| c.first_mut()) {
                let named = Path::new(program.as_str());
                if named.is_relative() && named.components().count() > 1 {
                    *program = base.join(named).display().to_string();
                }
            }
            plugin.dir = Some(base.to_owned());
        }
        for adapter in &mut config.adapters {
            if adapter.path.is_relative() {
                adapter.path = base.join(&adapter.path);
            }
        }
        for repo in config.repos.values_mut() {
            if repo.is_relative() {
                *repo = base.join(&*repo);
            }
        }
        config.path = Some(path.to_owned());
        config.sha256 = Some(format!("{:x}", Sha256::digest(text)));
        Ok(config)
    }

    /// The test-file rules: configured, or mining's default (the seed's, `testing/` and
    /// `conftest.py`).
    pub fn test_file_rules(&self) -> Result<TestFileRules, CliError> {
        match &self.test_files {
            None => Ok(TestFileRules::mining_default()),
            Some(t) => TestFileRules::from_patterns(&t.rules).map_err(|rule| {
                ConfigError::TestFileRule {
                    path: self.path.clone(),
                    rule,
                }
                .into()
            }),
        }
    }
}

/// A configuration file (`isobench.toml`) that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A file that is not a valid configuration.
    #[error(
        "invalid configuration `{}{}`: {message}",
        .path.display(),
        .line.map_or_else(String::new, |line| format!(":{line}"))
    )]
    Invalid {
        /// The configuration.
        path: PathBuf,
        /// The 1-based line at fault, when known.
        line: Option<usize>,
        /// What is wrong.
        message: String,
    },
    /// A `[[plugins]]` entry with both or neither of `path` and `command`.
    #[error(
        "invalid configuration `{}`: `[[plugins]]` entry {entry} needs exactly one of `path` (a native plugin) or `command` (a program plugin)",
        .path.display()
    )]
    PluginEntry {
        /// The configuration.
        path: PathBuf,
        /// The entry's 1-based number.
        entry: usize,
    },
    /// A test-file rule that cannot be read.
    #[error(
        "{}{rule}",
        .path.as_ref().map_or_else(String::new, |p| format!("`{}`: ", p.display()))
    )]
    TestFileRule {
        /// The configuration, when the rules came from one.
        path: Option<PathBuf>,
        /// The rule and what is wrong with it.
        rule: RuleError,
    },
}

impl AreaError for ConfigError {
    fn hint(&self) -> Option<String> {
        Some(match self {
            Self::Invalid { .. } => "see docs/config.md for the keys it accepts",
            Self::PluginEntry { .. } => {
                "`path = \"target/release/libmy_format.so\"` or `command = [\"python3\", \"my_format.py\"]`"
            }
            Self::TestFileRule { .. } => "rules are `dir:NAME`, `name:GLOB` or `path:GLOB`",
        }.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_keys_point_at_their_line() {
        let text = "[repos]\n\"o/r\" = \"r\"\n\n[test-files]\nrulez = []\n";
        let err = Config::parse(text, Path::new("cfg/isobench.toml")).unwrap_err();
        let message = err.to_string();
        assert!(
            message.starts_with("invalid configuration `cfg/isobench.toml:5`"),
            "{message}"
        );
        assert!(message.contains("rulez"), "{message}");
    }

    #[test]
    fn relative_repo_paths_are_relative_to_the_file() {
        let config = Config::parse(
            "[repos]\n\"o/r\" = \"mirrors/r\"\n",
            Path::new("/etc/x/isobench.toml"),
        )
        .unwrap();
        assert_eq!(config.repos["o/r"], PathBuf::from("/etc/x/mirrors/r"));
        assert!(
            config
                .test_file_rules()
                .unwrap()
                .classify("tests/a.py")
                .is_some()
        );
    }

    #[test]
    fn a_plugins_entry_needs_exactly_one_of_path_and_command() {
        for entry in ["path = \"a.so\"\ncommand = [\"a\"]", "timeout-secs = 3"] {
            let text = format!("[[plugins]]\ncommand = [\"b\"]\n\n[[plugins]]\n{entry}\n");
            let err = Config::parse(&text, Path::new("isobench.toml"))
                .unwrap_err()
                .to_string();
            assert_eq!(
                err,
                "invalid configuration `isobench.toml`: `[[plugins]]` entry 2 needs exactly one of `path` (a native plugin) or `command` (a program plugin)"
            );
        }
    }

    #[test]
    fn the_sha256_is_of_the_text_read() {
        // The sha256 of no bytes at all.
        let empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
        let config = Config::parse("", Path::new("isobench.toml")).unwrap();
        assert_eq!(config.sha256.as_deref(), Some(empty));
        let config = Config::parse("\n", Path::new("isobench.toml")).unwrap();
        assert_ne!(config.sha256.as_deref(), Some(empty));
        assert!(!config.named);
    }

    #[test]
    fn bad_rules_name_the_file() {
        let config = Config::parse(
            "[test-files]\nrules = [\"glob:*\"]\n",
            Path::new("isobench.toml"),
        )
        .unwrap();
        let err = config.test_file_rules().unwrap_err().to_string();
        assert!(
            err.contains("`isobench.toml`: test-file rule `glob:*`"),
            "{err}"
        );
    }
}

#[cfg(test)]
mod error_messages {
    use super::*;
    use crate::errors::{CliError, said};

    #[test]
    fn configuration_errors_say_what_they_always_said() {
        let mut errors = vec![
            CliError::from(ConfigError::Invalid {
                path: "c/isobench.toml".into(),
                line: Some(3),
                message: "bad".into(),
            }),
            CliError::from(ConfigError::PluginEntry {
                path: "c/isobench.toml".into(),
                entry: 2,
            }),
        ];
        let rule = RuleError {
            pattern: "x".into(),
            reason: "why".into(),
        };
        for path in [None, Some(PathBuf::from("isobench.toml"))] {
            errors.push(CliError::from(ConfigError::TestFileRule {
                path,
                rule: rule.clone(),
            }));
        }
        insta::assert_snapshot!(said(errors));
    }
}
