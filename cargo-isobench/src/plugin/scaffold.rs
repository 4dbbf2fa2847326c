//! `cargo isobench plugin new NAME`: a new adapter crate, made from the
//! `examples/custom-adapter` crate with its names replaced, that builds and loads as is.

use std::path::{Component, Path, PathBuf};

use crate::cli::PluginNewArgs;
use crate::errors::{AreaError, CliError};
use crate::exit;

// `templates/` links to `examples/custom-adapter`, so the example stays the one source and
// the packaged crate (which copies linked files) still carries it.
const LIB: &str = include_str!("../../templates/custom-adapter.rs");
const SAMPLE: &str = include_str!("../../templates/custom-adapter.sample.jsonl");

/// `custom-adapter` becomes `name`, `CustomAdapter` its `CamelCase`, `custom_adapter` its `snake_case`.
pub fn render(template: &str, name: &str) -> String {
    let camel: String = name
        .split('-')
        .map(|part| {
            let mut chars = part.chars();
            chars.next().map_or_else(String::new, |c| {
                c.to_ascii_uppercase().to_string() + chars.as_str()
            })
        })
        .collect();
    template
        .replace("custom-adapter", name)
        .replace("CustomAdapter", &camel)
        .replace("custom_adapter", &name.replace('-', "_"))
}

/// Where the new crate takes `isobench-plugin-sdk` from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sdk {
    /// A local checkout of the SDK (`--sdk-path`, or the `plugins/sdk` of the
    /// cargo-isobench workspace the crate is created in), as written in the manifest.
    Path(String),
    /// The published crate, by version.
    Registry,
}

/// The new crate's `Cargo.toml`. `in_workspace`: the crate is created under another cargo
/// workspace, of which it is not a member, so it is made a workspace of its own.
pub fn manifest(name: &str, sdk: &Sdk, in_workspace: bool) -> String {
    let sdk = match sdk {
        Sdk::Path(path) => format!("{{ path = {} }}", toml_string(path)),
        Sdk::Registry => format!("\"{}\"", env!("CARGO_PKG_VERSION")),
    };
    let workspace = if in_workspace {
        "\n# A workspace of its own, not a member of the one around it (to build it with that\n# workspace instead, delete `[workspace]` and add the crate to its `members`).\n[workspace]\n"
    } else {
        ""
    };
    format!(
        r#"[package]
name = "{name}"
description = "A cargo-isobench adapter for the {name} format"
version = "0.1.0"
edition = "2024"
publish = false

[lib]
crate-type = ["cdylib", "rlib"]

# `cargo isobench plugin list` / `plugin build` find the crate by this mark.
[package.metadata.isobench]
plugin = true

[dependencies]
isobench-plugin-sdk = {sdk}
{workspace}"#
    )
}

/// The `plugins/sdk` of the cargo-isobench workspace `dir` lies in, as a path relative to
/// `dir`: a plugin made inside a checkout of this repository builds against its SDK.
fn workspace_sdk(dir: &Path) -> Option<String> {
    let mut up = String::new();
    for ancestor in dir.ancestors().skip(1) {
        up.push_str("../");
        let manifest = ancestor.join("plugins/sdk/Cargo.toml");
        if crate::small_file::read_to_string(&manifest)
            .is_ok_and(|text| text.contains("name = \"isobench-plugin-sdk\""))
        {
            return Some(format!("{up}plugins/sdk"));
        }
    }
    None
}

/// `path` without `.` and `..` components (`a/b/../c` is `a/c`), so that its ancestors
/// are the directories it lies in.
fn lexically_normal(path: &Path) -> PathBuf {
    let mut normal = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                normal.pop();
            }
            other => normal.push(other),
        }
    }
    normal
}

/// Whether a cargo workspace root lies above `dir`.
fn under_a_workspace(dir: &Path) -> bool {
    dir.ancestors().skip(1).any(|d| {
        crate::small_file::read_to_string(&d.join("Cargo.toml"))
            .is_ok_and(|text| text.lines().any(|l| l.trim() == "[workspace]"))
    })
}

fn toml_string(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

fn valid_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_lowercase())
        && !name.ends_with('-')
        && !name.contains("--")
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// `cargo isobench plugin new`.
pub fn run(cwd: &Path, args: &PluginNewArgs) -> Result<i32, CliError> {
    if !valid_name(&args.name) {
        return Err(ScaffoldError::BadName(args.name.clone()).into());
    }
    let dir = lexically_normal(
        &cwd.join(
            args.path
                .clone()
                .unwrap_or_else(|| PathBuf::from(&args.name)),
        ),
    );
    if dir.exists() {
        return Err(ScaffoldError::DirectoryExists(dir).into());
    }
    let sdk = match &args.sdk_path {
        Some(p) => {
            let p = cwd.join(p);
            Sdk::Path(p.canonicalize().unwrap_or(p).display().to_string())
        }
        None => workspace_sdk(&dir).map_or(Sdk::Registry, Sdk::Path),
    };
    let files = [
        (
            dir.join("Cargo.toml"),
            manifest(&args.name, &sdk, under_a_workspace(&dir)),
        ),
        (dir.join("src").join("lib.rs"), render(LIB, &args.name)),
        (dir.join("sample.jsonl"), render(SAMPLE, &args.name)),
    ];
    for (path, text) in &files {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| CliError::Write {
                path: parent.to_owned(),
                source: e,
            })?;
        }
        crate::output_file::write_whole(path, false, text.as_bytes())?;
    }
    let library = format!(
        "target/release/{}{}{}",
        std::env::consts::DLL_PREFIX,
        args.name.replace('-', "_"),
        std::env::consts::DLL_SUFFIX
    );
    crate::terminal::say!(
        "created {}: edit the mapping in src/lib.rs, `cargo build --release`, then `cargo isobench --plugin {library} convert --from {} ...`",
        dir.display(),
        args.name
    );
    match &sdk {
        Sdk::Path(path) => {
            crate::terminal::say!("isobench-plugin-sdk: the local checkout at `{path}`");
        }
        Sdk::Registry => crate::terminal::say!(
            "isobench-plugin-sdk: version {} from crates.io, where it is not published yet: `cargo build` will find no package of that name\nhint: build against a clone of cargo-isobench instead: remove this crate and run `cargo isobench plugin new {} --sdk-path CLONE/plugins/sdk`, or run `plugin new` anywhere inside the clone",
            env!("CARGO_PKG_VERSION"),
            args.name
        ),
    }
    Ok(exit::OK)
}

/// A plugin that `plugin new` cannot scaffold: nothing written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ScaffoldError {
    /// A name that is not lowercase letters, digits and single dashes.
    #[error("`{0}` is not a usable adapter name")]
    BadName(String),
    /// The plugin's directory exists.
    #[error("`{}` already exists", .0.display())]
    DirectoryExists(PathBuf),
}

impl AreaError for ScaffoldError {
    fn hint(&self) -> Option<String> {
        Some(match self {
            Self::BadName(_) => {
                "lowercase letters, digits and single dashes, starting with a letter (`my-bench`)"
            }
            Self::DirectoryExists(_) => {
                "choose another directory with `--path DIR`, or remove that one first"
            }
        }.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_replaced_in_every_spelling() {
        let text = render(
            "custom-adapter CustomAdapter libcustom_adapter.so",
            "my-bench2",
        );
        assert_eq!(text, "my-bench2 MyBench2 libmy_bench2.so");
        assert!(valid_name("my-bench2"));
        assert!(
            !valid_name("My-bench")
                && !valid_name("2x")
                && !valid_name("a--b")
                && !valid_name("a-")
        );
    }
}

#[cfg(test)]
mod error_messages {
    use super::*;
    use crate::errors::{CliError, said};

    #[test]
    fn scaffold_errors_say_what_they_always_said() {
        let errors = vec![
            CliError::from(ScaffoldError::BadName("X".into())),
            CliError::from(ScaffoldError::DirectoryExists("d".into())),
        ];
        insta::assert_snapshot!(said(errors));
    }
}
