//! Workspace plugins: packages of the current cargo workspace marked
//! `[package.metadata.isobench] plugin = true`, found with `cargo metadata`, built with
//! `cargo build` (artifact paths read from cargo's JSON messages), and remembered in
//! `<target-dir>/isobench/plugins.json` so every later command run inside the workspace
//! loads them without a flag.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use cargo_metadata::{Message, Metadata, MetadataCommand, Package};

use super::PluginError;
use crate::cli::{PluginBuildArgs, PluginListArgs};
use crate::errors::CliError;
use crate::exit;

/// `{workspace root: {package name: library path}}`.
type Index = BTreeMap<String, BTreeMap<String, PathBuf>>;

fn in_a_cargo_project(cwd: &Path) -> bool {
    cwd.ancestors().any(|d| d.join("Cargo.toml").is_file())
}

fn metadata(cwd: &Path) -> Result<Metadata, PluginError> {
    MetadataCommand::new()
        .current_dir(cwd)
        .no_deps()
        .exec()
        .map_err(|e| PluginError::Workspace(format!("cannot read the cargo workspace: {e}")))
}

fn index_path(meta: &Metadata) -> PathBuf {
    meta.target_directory
        .as_std_path()
        .join("isobench")
        .join("plugins.json")
}

fn read_index(meta: &Metadata) -> Index {
    std::fs::read(index_path(meta))
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
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

/// Where `plugin build` writes its index for the workspace `cwd` is in, when that can be
/// told without running `cargo metadata` (which costs more than the rest of a short
/// command): under `CARGO_TARGET_DIR`, else under `target/` beside one of the
/// `Cargo.toml`s above `cwd`. `None` when a cargo configuration file may move the target
/// directory elsewhere.
fn index_candidates(cwd: &Path) -> Option<Vec<PathBuf>> {
    let index = |target: &Path| target.join("isobench").join("plugins.json");
    for var in ["CARGO_TARGET_DIR", "CARGO_BUILD_TARGET_DIR"] {
        if let Some(dir) = std::env::var_os(var) {
            return Some(vec![index(&cwd.join(dir))]);
        }
    }
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::home_dir().map(|home| home.join(".cargo")));
    let config_dirs = cwd.ancestors().map(|d| d.join(".cargo")).chain(cargo_home);
    for dir in config_dirs {
        if dir.join("config.toml").is_file() || dir.join("config").is_file() {
            return None;
        }
    }
    Some(
        cwd.ancestors()
            .filter(|d| d.join("Cargo.toml").is_file())
            .map(|d| index(&d.join("target")))
            .collect(),
    )
}

/// The libraries `plugin build` built for the workspace `cwd` is in (none outside a
/// cargo workspace, or before a build).
pub fn built_plugins(cwd: &Path) -> Vec<PathBuf> {
    if !in_a_cargo_project(cwd) {
        return Vec::new();
    }
    if index_candidates(cwd).is_some_and(|c| !c.iter().any(|p| p.is_file())) {
        // No `plugin build` ever ran here.
        return Vec::new();
    }
    let Ok(meta) = metadata(cwd) else {
        return Vec::new();
    };
    let root = meta.workspace_root.to_string();
    let mut index = read_index(&meta);
    let Some(built) = index.remove(&root) else {
        return Vec::new();
    };
    let members: Vec<String> = plugin_packages(&meta)
        .iter()
        .map(|p| p.name.to_string())
        .collect();
    built
        .into_iter()
        .filter(|(name, _)| members.contains(name))
        .map(|(_, path)| path)
        .collect()
}

/// `cargo isobench plugin list`.
pub fn list(cwd: &Path, args: &PluginListArgs) -> Result<i32, CliError> {
    let meta = metadata(cwd)?;
    let index = read_index(&meta);
    let built = index.get(meta.workspace_root.as_str());
    let mut rows = Vec::new();
    for package in plugin_packages(&meta) {
        let library = built.and_then(|b| b.get(package.name.as_str()));
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
    let path = index_path(&meta);
    let mut index = read_index(&meta);
    index
        .entry(meta.workspace_root.to_string())
        .or_default()
        .extend(libraries.clone());
    let write = |path: &Path| -> std::io::Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(
            path,
            serde_json::to_vec_pretty(&index).expect("the index serialises"),
        )
    };
    write(&path).map_err(|e| CliError::Write {
        path: path.clone(),
        source: e,
    })?;
    for (name, lib) in &libraries {
        eprintln!("built plugin {name}: {}", lib.display());
    }
    Ok(exit::OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_is_looked_for_under_target_beside_each_cargo_toml_above() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("ws");
        let src = root.join("member").join("src");
        std::fs::create_dir_all(&src).unwrap();
        std::fs::write(root.join("Cargo.toml"), "[workspace]\n").unwrap();
        std::fs::write(root.join("member").join("Cargo.toml"), "[package]\n").unwrap();
        let env_set = ["CARGO_TARGET_DIR", "CARGO_BUILD_TARGET_DIR"]
            .iter()
            .any(|v| std::env::var_os(v).is_some());
        match index_candidates(&src) {
            None => eprintln!(
                "skipped: a cargo configuration file on this machine may set the target directory"
            ),
            Some(candidates) if env_set => assert_eq!(candidates.len(), 1),
            Some(candidates) => {
                let index = |d: &Path| d.join("target/isobench/plugins.json");
                assert_eq!(candidates, [index(&root.join("member")), index(&root)]);
            }
        }
        // A cargo configuration file may move the target directory: ask cargo.
        std::fs::create_dir_all(root.join(".cargo")).unwrap();
        std::fs::write(root.join(".cargo/config.toml"), "[build]\n").unwrap();
        if !env_set {
            assert_eq!(index_candidates(&src), None);
        }
    }
}
