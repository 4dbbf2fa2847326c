//! What the user chose to run, kept in the user's own state directory, where no checkout
//! can plant it: the `isobench.toml` files they trusted (`cargo isobench trust`), each
//! with the sha256 of the text they trusted, and the workspace plugins `cargo isobench
//! plugin build` built, each with its library's sha256.
//!
//! The state directory is `$ISOBENCH_STATE_DIR` when set, else `isobench` in the
//! platform's local data directory (`$XDG_DATA_HOME` or `~/.local/share` on Linux,
//! `~/Library/Application Support` on macOS, `%LOCALAPPDATA%` on Windows). It holds one
//! file, `trust.json`:
//!
//! ```json
//! {
//!   "configs": {"/src/data/isobench.toml": "<sha256 of the file>"},
//!   "workspaces": {
//!     "/src/my-bench": {"my-bench": {"library": "/src/my-bench/target/debug/libmy_bench.so", "sha256": "<sha256>"}}
//!   }
//! }
//! ```

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::cli::TrustArgs;
use crate::config::{Config, FILE_NAME, PluginEntry};
use crate::errors::{AreaError, CliError};
use crate::exit;

/// The environment variable that moves the state directory.
pub const STATE_DIR_ENV: &str = "ISOBENCH_STATE_DIR";

const STATE_FILE: &str = "trust.json";

/// The user's state directory (`None` when neither the variable nor a home is known).
pub fn state_dir() -> Option<PathBuf> {
    std::env::var_os(STATE_DIR_ENV)
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .or_else(|| dirs::data_local_dir().map(|dir| dir.join("isobench")))
}

/// A library `plugin build` built, as it was then.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BuiltPlugin {
    /// The library.
    pub library: PathBuf,
    /// Its sha256, in lowercase hex.
    pub sha256: String,
}

/// The trust records: `trust.json` in the state directory.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Store {
    /// Trusted configuration files (canonical path) and the sha256 of the trusted text.
    #[serde(default)]
    pub configs: BTreeMap<PathBuf, String>,
    /// Workspace roots (canonical path) and the plugins built there, by package name.
    #[serde(default)]
    pub workspaces: BTreeMap<PathBuf, BTreeMap<String, BuiltPlugin>>,
}

/// How far a configuration file is trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigTrust {
    /// Its text is the text the user trusted.
    Trusted,
    /// The user trusted another text of it.
    Changed,
    /// The user never trusted it.
    Untrusted,
}

impl Store {
    /// Where the store is kept.
    ///
    /// A relative state directory (a relative `$ISOBENCH_STATE_DIR` or `$HOME`) is refused:
    /// it would be found inside whatever directory the command runs in, so that a checkout
    /// could bring its own trust records and trust itself.
    pub fn file() -> Result<Option<PathBuf>, TrustError> {
        match state_dir() {
            Some(dir) if dir.is_relative() => Err(TrustError::RelativeStateDir {
                dir,
                env: STATE_DIR_ENV,
            }),
            dir => Ok(dir.map(|dir| dir.join(STATE_FILE))),
        }
    }

    /// Reads the store (empty when it was never written, or no state directory is known).
    pub fn load() -> Result<Self, CliError> {
        let Some(file) = Self::file()? else {
            return Ok(Self::default());
        };
        let bytes = match crate::small_file::read(&file) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Self::default()),
            Err(source) => return Err(CliError::Read { path: file, source }),
        };
        serde_json::from_slice(&bytes).map_err(|source| {
            TrustError::InvalidStore {
                file: file.clone(),
                source,
            }
            .into()
        })
    }

    /// Writes the store (to a temporary file first, then renamed over the old one; see
    /// [`crate::output_file`]).
    pub fn save(&self) -> Result<(), CliError> {
        let file = Self::file()?.ok_or(TrustError::NoStateDir { env: STATE_DIR_ENV })?;
        let write_error = |source| CliError::Write {
            path: file.clone(),
            source,
        };
        let mut text = serde_json::to_vec_pretty(self)
            .map_err(|e| write_error(io::Error::new(io::ErrorKind::InvalidData, e)))?;
        text.push(b'\n');
        let dir = file
            .parent()
            .expect("the store is a file in the state directory");
        std::fs::create_dir_all(dir).map_err(write_error)?;
        crate::output_file::write_whole(&file, true, &text)
    }

    /// Whether the configuration read from `path`, whose text hashes to `sha256`, is trusted.
    pub fn config_trust(&self, path: &Path, sha256: &str) -> ConfigTrust {
        match self.configs.get(&canonical(path)) {
            Some(trusted) if trusted == sha256 => ConfigTrust::Trusted,
            Some(_) => ConfigTrust::Changed,
            None => ConfigTrust::Untrusted,
        }
    }
}

/// `path` with symbolic links and `..` resolved, or as it is when it cannot be.
pub fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_owned())
}

/// The sha256 of a file's bytes, in lowercase hex.
pub fn sha256_file(path: &Path) -> io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0; 1 << 16];
    loop {
        let n = file.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
    }
    Ok(format!("{:x}", hasher.finalize()))
}

/// A plugin the run found but did not load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// What it would have loaded or run (`native plugin `...``, `program `...``).
    pub plugins: Vec<String>,
    /// Why it was not.
    pub reason: String,
    /// What the user can do.
    pub remedy: String,
}

impl fmt::Display for Skipped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.plugins.join(", "), self.reason)
    }
}

impl Skipped {
    /// The plugins of the configuration `path`, which is not trusted as it is now.
    pub fn config(path: &Path, entries: &[PluginEntry], trust: ConfigTrust) -> Self {
        let state = if trust == ConfigTrust::Changed {
            "changed since it was trusted"
        } else {
            "not trusted"
        };
        Self {
            plugins: entries.iter().map(describe).collect(),
            reason: format!(
                "`{}` names {} and is {state}",
                path.display(),
                them(entries)
            ),
            remedy: format!(
                "if you trust what it would run, `cargo isobench trust {}`",
                path.display()
            ),
        }
    }
}

/// `it` or `them`, for the items of `list`.
pub fn them<T>(list: &[T]) -> &'static str {
    if list.len() == 1 { "it" } else { "them" }
}

/// What a `[[plugins]]` entry loads or runs.
pub fn describe(entry: &PluginEntry) -> String {
    if let Some(path) = &entry.path {
        return format!("native plugin `{}`", path.display());
    }
    let words: Vec<String> = entry
        .command
        .iter()
        .flatten()
        .map(|w| {
            if w.is_empty() || w.contains(char::is_whitespace) {
                format!("{w:?}")
            } else {
                w.clone()
            }
        })
        .collect();
    format!("program `{}`", words.join(" "))
}

/// `cargo isobench trust [PATH]`, `trust --list`, `trust --revoke [PATH]`.
pub fn run(cwd: &Path, args: &TrustArgs) -> Result<i32, CliError> {
    let mut store = Store::load()?;
    if args.list {
        return list(&store);
    }
    if args.revoke {
        return revoke(&mut store, cwd, args.path.as_deref());
    }
    let file = match &args.path {
        Some(path) if cwd.join(path).is_dir() => cwd.join(path).join(FILE_NAME),
        Some(path) => cwd.join(path),
        None => nearest_config(cwd)?,
    };
    let file = canonical(&file);
    let config = Config::load(Some(&file), cwd)?;
    let sha256 = config.sha256.clone().expect("a file read has a sha256");
    store.configs.insert(file.clone(), sha256);
    store.save()?;
    if config.plugins.is_empty() {
        crate::terminal::say!(
            "trusted `{}`; it names no plugins, and such a file needs no trust",
            file.display()
        );
    } else {
        let what: Vec<String> = config.plugins.iter().map(describe).collect();
        crate::terminal::say!(
            "trusted `{}`: from now on it loads {} (until the file changes)",
            file.display(),
            what.join(", ")
        );
    }
    Ok(exit::OK)
}

fn nearest_config(cwd: &Path) -> Result<PathBuf, CliError> {
    Config::find(cwd).ok_or_else(|| {
        TrustError::NoConfig {
            dir: cwd.to_owned(),
            file_name: FILE_NAME,
        }
        .into()
    })
}

/// Forgets `path`: a trusted file, or a directory (the `isobench.toml` in it, and the
/// workspace plugins recorded for it).
fn revoke(store: &mut Store, cwd: &Path, path: Option<&Path>) -> Result<i32, CliError> {
    let path = canonical(&match path {
        Some(path) => cwd.join(path),
        None => nearest_config(cwd)?,
    });
    let mut revoked = Vec::new();
    for file in [path.clone(), path.join(FILE_NAME)] {
        if store.configs.remove(&file).is_some() {
            revoked.push(format!("`{}`", file.display()));
        }
    }
    if store.workspaces.remove(&path).is_some() {
        revoked.push(format!("the workspace plugins of `{}`", path.display()));
    }
    if revoked.is_empty() {
        crate::terminal::say!("`{}` was not trusted: nothing to revoke", path.display());
    } else {
        store.save()?;
        crate::terminal::say!("revoked {}", revoked.join(" and "));
    }
    Ok(exit::OK)
}

fn list(store: &Store) -> Result<i32, CliError> {
    let mut text = String::new();
    for (path, trusted) in &store.configs {
        let state = match sha256_file(path) {
            Ok(sha256) if sha256 == *trusted => "trusted",
            Ok(_) => "changed since trusted: not loaded",
            Err(_) => "missing",
        };
        let _ = writeln!(text, "{}  {state}", path.display());
    }
    for (root, plugins) in &store.workspaces {
        let _ = writeln!(text, "{}  (workspace plugins)", root.display());
        for (name, plugin) in plugins {
            let state = match sha256_file(&plugin.library) {
                Ok(sha256) if sha256 == plugin.sha256 => "built",
                Ok(_) => "changed since `plugin build`: not loaded",
                Err(_) => "missing",
            };
            let _ = writeln!(text, "  {name}: {}  {state}", plugin.library.display());
        }
    }
    if text.is_empty() {
        text.push_str("nothing is trusted: `cargo isobench trust PATH` trusts an `isobench.toml`, `cargo isobench plugin build` records a workspace's plugins\n");
    }
    io::stdout()
        .lock()
        .write_all(text.as_bytes())
        .map_err(|e| CliError::Write {
            path: "-".into(),
            source: e,
        })?;
    Ok(exit::OK)
}

/// Trust records that cannot be read or kept, or a configuration to trust not found.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TrustError {
    /// A store that is not the JSON the commands write.
    #[error("invalid trust records `{}`: {source}", file.display())]
    InvalidStore {
        /// The store.
        file: PathBuf,
        /// Why it does not parse.
        source: serde_json::Error,
    },
    /// No directory to keep the store in.
    #[error("no state directory to keep trust records in: no home directory is known")]
    NoStateDir {
        /// The environment variable that names one.
        env: &'static str,
    },
    /// The state directory is a relative path.
    #[error(
        "the state directory `{}` is a relative path, which would make trust records of whatever directory a command runs in",
        dir.display()
    )]
    RelativeStateDir {
        /// The directory.
        dir: PathBuf,
        /// The environment variable that names one.
        env: &'static str,
    },
    /// No configuration file in a directory or above it.
    #[error("no `{file_name}` in `{}` or above", dir.display())]
    NoConfig {
        /// Where the search started.
        dir: PathBuf,
        /// The configuration's file name.
        file_name: &'static str,
    },
}

impl AreaError for TrustError {
    fn hint(&self) -> Option<String> {
        Some(match self {
            Self::InvalidStore { .. } => "the file is written by `cargo isobench trust` and `cargo isobench plugin build`: move it away, then trust and build again what you use".into(),
            Self::NoStateDir { env } => format!("set `{env}` to a directory of your own"),
            Self::RelativeStateDir { env, .. } => {
                format!("set `{env}` (or `HOME`) to an absolute path")
            }
            Self::NoConfig { .. } => "name it: `cargo isobench trust PATH`".into(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_config_is_trusted_for_the_text_trusted() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join(FILE_NAME);
        std::fs::write(&file, "[[plugins]]\ncommand = [\"x\"]\n").unwrap();
        let sha256 = sha256_file(&file).unwrap();
        let mut store = Store::default();
        assert_eq!(store.config_trust(&file, &sha256), ConfigTrust::Untrusted);
        store.configs.insert(canonical(&file), sha256.clone());
        assert_eq!(store.config_trust(&file, &sha256), ConfigTrust::Trusted);
        // Found by another spelling of the same path.
        let dotted = tmp.path().join(".").join(FILE_NAME);
        assert_eq!(store.config_trust(&dotted, &sha256), ConfigTrust::Trusted);
        let other = Config::parse("", &file).unwrap().sha256.unwrap();
        assert_eq!(store.config_trust(&file, &other), ConfigTrust::Changed);
    }

    #[test]
    fn a_plugin_is_described_as_what_it_loads_or_runs() {
        let config = Config::parse(
            "[[plugins]]\npath = \"/p/lib.so\"\n[[plugins]]\ncommand = [\"sh\", \"-c\", \"touch x\", \"\"]\n",
            Path::new("/d/isobench.toml"),
        )
        .unwrap();
        let described: Vec<String> = config.plugins.iter().map(describe).collect();
        assert_eq!(
            described,
            [
                "native plugin `/p/lib.so`",
                "program `sh -c \"touch x\" \"\"`"
            ]
        );
        let skipped = Skipped::config(
            Path::new("/d/isobench.toml"),
            &config.plugins,
            ConfigTrust::Changed,
        );
        assert_eq!(
            skipped.to_string(),
            "native plugin `/p/lib.so`, program `sh -c \"touch x\" \"\"`: `/d/isobench.toml` names them and is changed since it was trusted"
        );
    }
}

#[cfg(test)]
mod error_messages {
    use super::*;
    use crate::errors::{CliError, said};

    #[test]
    fn trust_errors_say_what_they_always_said() {
        let errors = vec![
            CliError::from(TrustError::NoStateDir {
                env: "ISOBENCH_STATE_DIR",
            }),
            CliError::from(TrustError::NoConfig {
                dir: "w".into(),
                file_name: "isobench.toml",
            }),
        ];
        insta::assert_snapshot!(said(errors));
    }
}
