//! Workspace plugins: packages of the current cargo workspace marked
//! `[package.metadata.isobench] plugin = true`, found with `cargo metadata`, built with
//! `cargo build` (artifact paths read from cargo's JSON messages), and recorded with each
//! library's sha256 in the user's own state ([`super::trust`]), so every later command run
//! inside the workspace loads them without a flag, while the library is the one built.
//!
//! Nothing under the target directory is trusted: a checkout can bring a `target/` of its
//! own. An index there (which earlier versions wrote) is named and never read for loading.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use cargo_metadata::{Message, Metadata, MetadataCommand, Package};

use super::error::PluginError;
use super::trust::{self, BuiltPlugin, Skipped, Store, canonical};
use crate::cli::{PluginBuildArgs, PluginListArgs};
use crate::errors::CliError;
use crate::exit;

/// Where earlier versions kept their index in the target directory `target`.
fn target_index(target: &Path) -> PathBuf {
    target.join("isobench").join("plugins.json")
}

fn metadata(cwd: &Path) -> Result<Metadata, PluginError> {
    metadata_with(MetadataCommand::new().current_dir(cwd))
}

fn metadata_with(command: &mut MetadataCommand) -> Result<Metadata, PluginError> {
    command
        .no_deps()
        .exec()
        .map_err(|e| PluginError::Workspace(format!("cannot read the cargo workspace: {e}")))
}

/// The workspace's metadata read by the toolchain the user has outside any checkout, not
/// one the checkout names: a `rust-toolchain.toml` may name a toolchain by `path`, whose
/// `cargo` would then run, and reading a workspace runs nothing of it. The toolchain is
/// `RUSTUP_TOOLCHAIN` when set, else the one rustup makes active in `/` (where no
/// checkout can put a `rust-toolchain.toml`); without rustup, no file chooses one.
fn metadata_read_only(cwd: &Path) -> Result<Metadata, PluginError> {
    let mut command = MetadataCommand::new();
    command.current_dir(cwd);
    if std::env::var_os("RUSTUP_TOOLCHAIN").is_none()
        && let Some(toolchain) = toolchain_outside_checkouts()
    {
        command.env("RUSTUP_TOOLCHAIN", toolchain);
    }
    metadata_with(&mut command)
}

/// The toolchain rustup makes active in `/`: `rustup show active-toolchain` prints its
/// name first (`stable-x86_64-unknown-linux-gnu (default)`). `None` without rustup.
fn toolchain_outside_checkouts() -> Option<String> {
    let out = Command::new("rustup")
        .args(["show", "active-toolchain"])
        .current_dir("/")
        .env_remove("RUSTUP_TOOLCHAIN")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let name = text.split_whitespace().next()?;
    (out.status.success() && !name.is_empty()).then(|| name.to_owned())
}

fn workspace_root(meta: &Metadata) -> PathBuf {
    canonical(meta.workspace_root.as_std_path())
}

/// Whether a package is marked as an isobench plugin.
pub fn is_plugin(package: &Package) -> bool {
    package.metadata["isobench"]["plugin"].as_bool() == Some(true)
}

fn plugin_packages(meta: &Metadata) -> Vec<&Package> {
    meta.workspace_packages()
        .into_iter()
        .filter(|p| is_plugin(p))
        .collect()
}

/// The libraries `plugin build` recorded for the workspace `cwd` is in, each only while
/// its sha256 is the one recorded; those that changed (or that cannot be read) go to
/// `skipped` with the remedy. Cargo is asked only when one of the directories above `cwd`
/// is a workspace with recorded plugins, and then in that recorded directory, not in
/// `cwd`: a checkout below it could otherwise choose the `cargo` that runs (its
/// `rust-toolchain.toml` names the toolchain).
pub fn built_plugins(cwd: &Path, store: &Store, skipped: &mut Vec<Skipped>) -> Vec<PathBuf> {
    let cwd = canonical(cwd);
    let Some(recorded) = cwd.ancestors().find(|d| store.workspaces.contains_key(*d)) else {
        return Vec::new();
    };
    let meta = match metadata_read_only(recorded) {
        Ok(meta) => meta,
        Err(e) => {
            skipped.push(Skipped {
                plugins: vec!["the workspace plugins built here".to_owned()],
                reason: e.to_string(),
                remedy: "fix the workspace's `Cargo.toml`".to_owned(),
            });
            return Vec::new();
        }
    };
    let root = workspace_root(&meta);
    let Some(built) = store.workspaces.get(&root) else {
        return Vec::new();
    };
    let members: Vec<&str> = plugin_packages(&meta)
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    let mut libraries = Vec::new();
    for (name, plugin) in built
        .iter()
        .filter(|(name, _)| members.contains(&name.as_str()))
    {
        let reason = match trust::sha256_file(&plugin.library) {
            Ok(sha256) if sha256 == plugin.sha256 => {
                libraries.push(plugin.library.clone());
                continue;
            }
            Ok(_) => {
                "the library changed since `cargo isobench plugin build` recorded it".to_owned()
            }
            Err(e) => format!("the library cannot be read: {e}"),
        };
        skipped.push(Skipped {
            plugins: vec![format!(
                "workspace plugin `{name}` (`{}`)",
                plugin.library.display()
            )],
            reason,
            remedy: format!(
                "run `cargo isobench plugin build` in `{}` again, so that what is loaded is what you built",
                root.display()
            ),
        });
    }
    libraries
}

/// Indexes of plugins found under `target/` beside a `Cargo.toml` above `cwd`: what they
/// name is never loaded, and is reported.
pub fn target_indexes(cwd: &Path) -> Vec<Skipped> {
    let mut found = Vec::new();
    for dir in cwd.ancestors().filter(|d| d.join("Cargo.toml").is_file()) {
        let index = target_index(&dir.join("target"));
        let Ok(bytes) = crate::small_file::read(&index) else {
            continue;
        };
        // `{workspace root: {package name: library path}}`
        let libraries: Vec<String> =
            serde_json::from_slice::<BTreeMap<String, BTreeMap<String, PathBuf>>>(&bytes)
                .map(|index| {
                    index
                        .into_values()
                        .flat_map(BTreeMap::into_values)
                        .map(|lib| format!("native plugin `{}`", lib.display()))
                        .collect()
                })
                .unwrap_or_default();
        if libraries.is_empty() {
            continue;
        }
        let them = trust::them(&libraries);
        found.push(Skipped {
            reason: format!(
                "`{}` names {them}, and an index inside a target directory is not trusted",
                index.display()
            ),
            remedy: format!(
                "if you built {them} from the workspace in `{}`, run `cargo isobench plugin build` there: it records what it builds in your own state",
                dir.display()
            ),
            plugins: libraries,
        });
    }
    found
}

/// `cargo isobench plugin list`.
pub fn list(cwd: &Path, args: &PluginListArgs) -> Result<i32, CliError> {
    let meta = metadata_read_only(cwd)?;
    let store = Store::load()?;
    let built = store.workspaces.get(&workspace_root(&meta));
    let mut rows = Vec::new();
    for package in plugin_packages(&meta) {
        let library = built
            .and_then(|b| b.get(package.name.as_str()))
            .map(|b| &b.library);
        rows.push(serde_json::json!({
            "package": package.name.as_str(),
            "version": package.version.to_string(),
            "manifest": package.manifest_path.as_str(),
            "library": library,
            "cargo_built": cargo_built(&meta, package),
        }));
    }
    let mut out = std::io::stdout().lock();
    let text = if args.json {
        format!(
            "{}\n",
            serde_json::to_string_pretty(&rows).expect("rows serialise")
        )
    } else if rows.is_empty() {
        "no plugin packages in this workspace (mark one with `[package.metadata.isobench] plugin = true`)\n".to_owned()
    } else {
        let mut text = String::new();
        for r in &rows {
            let _ = writeln!(
                text,
                "{} {}  {}\n  library: {}",
                r["package"].as_str().unwrap_or_default(),
                r["version"].as_str().unwrap_or_default(),
                r["manifest"].as_str().unwrap_or_default(),
                library_line(r),
            );
        }
        text
    };
    out.write_all(text.as_bytes())
        .map_err(|e| CliError::Write {
            path: "-".into(),
            source: e,
        })?;
    Ok(exit::OK)
}

/// The package's library as a plain `cargo build` leaves it (release first), if there.
fn cargo_built(meta: &Metadata, package: &Package) -> Option<PathBuf> {
    let file = format!(
        "{}{}{}",
        std::env::consts::DLL_PREFIX,
        package.name.replace('-', "_"),
        std::env::consts::DLL_SUFFIX
    );
    ["release", "debug"]
        .iter()
        .map(|profile| {
            meta.target_directory
                .as_std_path()
                .join(profile)
                .join(&file)
        })
        .find(|path| path.is_file())
}

/// What `plugin list` says of a package's library.
fn library_line(row: &serde_json::Value) -> String {
    match (row["library"].as_str(), row["cargo_built"].as_str()) {
        (Some(library), _) => library.to_owned(),
        (None, Some(built)) => format!(
            "{built} (built by `cargo build`: load it with `--plugin {built}`, or run `cargo isobench plugin build` so that commands in this workspace load it by themselves)"
        ),
        (None, None) => "(not built: run `cargo isobench plugin build`)".to_owned(),
    }
}

/// `cargo isobench plugin build`.
pub fn build(cwd: &Path, args: &PluginBuildArgs) -> Result<i32, CliError> {
    let meta = metadata(cwd)?;
    let mut packages: Vec<&Package> = plugin_packages(&meta);
    if !args.packages.is_empty() {
        for wanted in &args.packages {
            if !packages.iter().any(|p| p.name.as_str() == wanted) {
                return Err(PluginError::Workspace(format!(
                    "`{wanted}` is not a plugin package of this workspace"
                ))
                .into());
            }
        }
        packages.retain(|p| args.packages.iter().any(|w| w == p.name.as_str()));
    }
    if packages.is_empty() {
        return Err(PluginError::Workspace(
            "no plugin packages in this workspace (mark one with `[package.metadata.isobench] plugin = true`)".into(),
        )
        .into());
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .current_dir(meta.workspace_root.as_std_path())
        .args(["build", "--message-format=json-render-diagnostics"]);
    if args.release {
        command.arg("--release");
    }
    for p in &packages {
        command.args(["-p", p.name.as_str()]);
    }
    if !args.release {
        crate::terminal::say!(
            "building {} as a debug library (unoptimised; `--release` for an optimised one)",
            packages
                .iter()
                .map(|p| p.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| PluginError::Workspace(format!("cannot run cargo: {e}")))?;
    let stdout = child.stdout.take().expect("stdout was piped");
    let mut libraries: BTreeMap<String, PathBuf> = BTreeMap::new();
    for message in Message::parse_stream(BufReader::new(stdout)) {
        let message = message
            .map_err(|e| PluginError::Workspace(format!("cannot read cargo's output: {e}")))?;
        if let Message::CompilerArtifact(artifact) = message
            && let Some(package) = packages.iter().find(|p| p.id == artifact.package_id)
            && artifact.target.is_kind(cargo_metadata::TargetKind::CDyLib)
        {
            let suffix = format!(".{}", std::env::consts::DLL_EXTENSION);
            if let Some(lib) = artifact
                .filenames
                .iter()
                .find(|f| f.as_str().ends_with(&suffix))
            {
                libraries.insert(package.name.to_string(), lib.clone().into_std_path_buf());
            }
        }
    }
    let status = child
        .wait()
        .map_err(|e| PluginError::Workspace(format!("cargo did not finish: {e}")))?;
    if !status.success() {
        return Err(PluginError::Workspace(format!("`cargo build` failed ({status})")).into());
    }
    for p in &packages {
        if !libraries.contains_key(p.name.as_str()) {
            return Err(PluginError::Workspace(format!(
                "`{}` built no cdylib: give it `[lib] crate-type = [\"cdylib\", \"rlib\"]`",
                p.name
            ))
            .into());
        }
    }
    let mut store = Store::load()?;
    let mut recorded = BTreeMap::new();
    for (name, library) in &libraries {
        let sha256 = trust::sha256_file(library).map_err(|e| CliError::Read {
            path: library.clone(),
            source: e,
        })?;
        let library = library.clone();
        recorded.insert(name.clone(), BuiltPlugin { library, sha256 });
    }
    store
        .workspaces
        .entry(workspace_root(&meta))
        .or_default()
        .extend(recorded);
    store.save()?;
    // An index earlier versions wrote: no longer read, and named on every run while it is there.
    let _ = std::fs::remove_file(target_index(meta.target_directory.as_std_path()));
    let profile = if args.release {
        "release build"
    } else {
        "debug build, unoptimised"
    };
    for (name, lib) in &libraries {
        crate::terminal::say!("built plugin {name}: {} ({profile})", lib.display());
    }
    if !args.release {
        crate::terminal::say!(
            "hint: records convert slower through a debug library; `cargo isobench plugin build --release` builds optimised ones, which later commands load instead"
        );
    }
    Ok(exit::OK)
}
