//! `cargo isobench plugin new NAME`: a new adapter crate, made from the
//! `examples/custom-adapter` crate with its names replaced, that builds and loads as is.

use std::path::{Path, PathBuf};

use crate::cli::PluginNewArgs;
use crate::errors::CliError;
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

/// The new crate's `Cargo.toml`.
pub fn manifest(name: &str, sdk_path: Option<&Path>) -> String {
    let sdk = match sdk_path {
        Some(path) => format!("{{ path = {} }}", toml_string(&path.display().to_string())),
        None => format!("\"{}\"", env!("CARGO_PKG_VERSION")),
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
serde_json = {{ version = "1", features = ["preserve_order"] }}
"#
    )
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
        return Err(CliError::usage(
            format!("`{}` is not a usable adapter name", args.name),
            Some(
                "lowercase letters, digits and single dashes, starting with a letter (`my-bench`)",
            ),
        ));
    }
    let dir = cwd.join(
        args.path
            .clone()
            .unwrap_or_else(|| PathBuf::from(&args.name)),
    );
    if dir.exists() {
        return Err(CliError::OutputExists(dir));
    }
    let sdk_path = args.sdk_path.as_ref().map(|p| {
        let p = cwd.join(p);
        p.canonicalize().unwrap_or(p)
    });
    let files = [
        (
            dir.join("Cargo.toml"),
            manifest(&args.name, sdk_path.as_deref()),
        ),
        (dir.join("src").join("lib.rs"), render(LIB, &args.name)),
        (dir.join("sample.jsonl"), render(SAMPLE, &args.name)),
    ];
    for (path, text) in &files {
        let write = || -> std::io::Result<()> {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(path, text)
        };
        write().map_err(|e| CliError::Write {
            path: path.clone(),
            source: e,
        })?;
    }
    eprintln!(
        "created {}: edit the mapping in src/lib.rs, `cargo build --release`, then `cargo isobench --plugin <the cdylib> convert --from {} ...`",
        dir.display(),
        args.name
    );
    Ok(exit::OK)
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
