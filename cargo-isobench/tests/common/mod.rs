//! What the integration tests that need plugins share: the binary, and the workspace's
//! plugin crates built once.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use cargo_metadata::{Message, TargetKind};

pub const BIN: &str = env!("CARGO_BIN_EXE_cargo-isobench");
pub const WORKSPACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// One target directory for every plugin the tests build (so dependencies build once),
/// beside the test binary's own and never the one the running `cargo test` holds.
pub fn plugin_target_dir() -> PathBuf {
    Path::new(BIN)
        .parent()
        .and_then(Path::parent)
        .expect("the binary is in <target>/<profile>/")
        .join("plugin-tests")
}

/// Runs `cargo build` with JSON messages and returns the cdylib of each package built.
pub fn cargo_build(dir: &Path, args: &[&str]) -> BTreeMap<String, PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut child = Command::new(cargo)
        .current_dir(dir)
        .args([
            "build",
            "--message-format=json-render-diagnostics",
            "--target-dir",
        ])
        .arg(plugin_target_dir())
        .args(args)
        .env_remove("CARGO_TARGET_DIR")
        .stdout(Stdio::piped())
        .spawn()
        .expect("cargo runs");
    let mut libraries = BTreeMap::new();
    for message in Message::parse_stream(BufReader::new(child.stdout.take().unwrap())) {
        if let Message::CompilerArtifact(a) = message.unwrap()
            && a.target.is_kind(TargetKind::CDyLib)
        {
            let lib = a
                .filenames
                .iter()
                .find(|f| f.as_str().ends_with(std::env::consts::DLL_EXTENSION))
                .unwrap();
            libraries.insert(a.target.name.clone(), lib.clone().into_std_path_buf());
        }
    }
    assert!(child.wait().unwrap().success(), "cargo build failed");
    libraries
}

/// The workspace's plugin crates, built once for all the tests.
pub fn plugins() -> &'static BTreeMap<String, PathBuf> {
    static BUILT: OnceLock<BTreeMap<String, PathBuf>> = OnceLock::new();
    BUILT.get_or_init(|| {
        cargo_build(
            Path::new(WORKSPACE),
            &[
                "-p",
                "isobench-multi-swe-bench",
                "-p",
                "isobench-test-plugin",
                "-p",
                "custom-adapter",
            ],
        )
    })
}

pub fn plugin(target: &str) -> &'static Path {
    &plugins()[target]
}
