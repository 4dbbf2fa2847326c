//! Plugins: adapters that are not compiled into the binary.
//!
//! * native plugins ([`native`]): a `cdylib` built with `isobench-plugin-sdk`, named by
//!   `--plugin PATH`, by `[[plugins]] path = "..."` in `isobench.toml`, or built from the
//!   current cargo workspace by `cargo isobench plugin build` ([`workspace`]);
//! * program plugins ([`program`]): an executable speaking JSON Lines, named by
//!   `[[plugins]] command = [...]` or found on `PATH` as `isobench-adapter-<name>`.
//!
//! Only what the user chose runs: a found `isobench.toml`'s plugins once the user trusted
//! the file, workspace plugins as `plugin build` recorded them ([`trust`]); nothing a
//! checkout brings with it on its own.
//!
//! Every plugin adapter is registered next to the built-ins; a name clash is an error.

pub mod checks;
mod error;
pub mod hooks;
mod lossless;
pub mod native;
pub mod program;
pub mod scaffold;
pub mod trust;
pub mod workspace;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use isobench_core::{Registered, Registry};

pub use self::error::PluginError;
pub use self::trust::Skipped;
use crate::config::{Config, PluginEntry};
use crate::errors::CliError;

/// Loads every plugin the user chose and registers its adapter: `--plugin` paths, the
/// plugins of an `isobench.toml` named with `--config` or trusted (`cargo isobench
/// trust`), the workspace plugins `cargo isobench plugin build` recorded (while their
/// libraries are as built), then programs on `PATH` (a broken one there is reported and
/// skipped, since nobody named it).
///
/// Plugins a checkout brings with it and the user did not choose are not loaded: each is
/// named once on stderr with the remedy, and returned, so that an unknown format can name
/// them too.
pub fn register_all(
    registry: &mut Registry,
    flags: &[PathBuf],
    config: &Config,
    cwd: &Path,
) -> Result<Vec<Skipped>, CliError> {
    let store = trust::Store::load()?;
    let mut skipped = Vec::new();
    let mut loaded = BTreeSet::new();
    let mut native_paths: Vec<PathBuf> = flags.iter().map(|p| cwd.join(p)).collect();
    let mut commands = Vec::new();
    for entry in chosen_config_plugins(config, &store, &mut skipped) {
        if let Some(path) = &entry.path {
            native_paths.push(path.clone());
        } else if let Some(command) = &entry.command {
            let timeout = entry
                .timeout_secs
                .map_or(program::DEFAULT_TIMEOUT, Duration::from_secs);
            commands.push((command.clone(), timeout, entry.dir.clone()));
        }
    }
    native_paths.extend(workspace::built_plugins(cwd, &store, &mut skipped));
    skipped.extend(workspace::target_indexes(cwd));
    for s in &skipped {
        crate::terminal::say!("warning: not loading {s}\nhint: {}", s.remedy);
    }
    for path in native_paths {
        let key = path.canonicalize().unwrap_or_else(|_| path.clone());
        if !loaded.insert(key) {
            continue;
        }
        add(registry, native::load(&path)?)?;
    }
    for (command, timeout, dir) in commands {
        add(
            registry,
            program::start_in(&command, timeout, dir.as_deref())?,
        )?;
    }
    for path in programs_on_path() {
        let command = vec![path.display().to_string()];
        match program::start(&command, program::DEFAULT_TIMEOUT) {
            Ok(adapter) => {
                if let Err(e) = add(registry, adapter) {
                    crate::terminal::say!("warning: {e}; skipped");
                }
            }
            Err(e) => crate::terminal::say!("warning: {e}; skipped"),
        }
    }
    Ok(skipped)
}

/// The configuration's `[[plugins]]` when the user chose them: the file was named with
/// `--config`, or its text is the one they trusted. Otherwise none, and why in `skipped`.
fn chosen_config_plugins<'c>(
    config: &'c Config,
    store: &trust::Store,
    skipped: &mut Vec<Skipped>,
) -> &'c [PluginEntry] {
    let (Some(path), Some(sha256)) = (&config.path, &config.sha256) else {
        return &config.plugins;
    };
    if config.plugins.is_empty() || config.named {
        return &config.plugins;
    }
    match store.config_trust(path, sha256) {
        trust::ConfigTrust::Trusted => &config.plugins,
        state => {
            skipped.push(Skipped::config(path, &config.plugins, state));
            &[]
        }
    }
}

fn add(registry: &mut Registry, adapter: Registered) -> Result<(), PluginError> {
    registry.register(adapter).map_err(PluginError::from)
}

/// Executables named `isobench-adapter-<name>` on `PATH` (the first of each name).
pub fn programs_on_path() -> Vec<PathBuf> {
    let Some(path) = std::env::var_os("PATH") else {
        return Vec::new();
    };
    let mut seen = BTreeSet::new();
    let mut found = Vec::new();
    for dir in std::env::split_paths(&path) {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut names: Vec<_> = entries.filter_map(Result::ok).collect();
        names.sort_by_key(std::fs::DirEntry::file_name);
        for entry in names {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(rest) = name.strip_prefix("isobench-adapter-") else {
                continue;
            };
            let rest = rest.strip_suffix(".exe").unwrap_or(rest).to_owned();
            if rest.is_empty() || !is_executable(&entry.path()) || !seen.insert(rest) {
                continue;
            }
            found.push(entry.path());
        }
    }
    found
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}
