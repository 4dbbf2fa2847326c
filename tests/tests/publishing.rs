//! What `cargo publish` ships: every published crate carries its licence files and a
//! README, its tests read nothing of the repository that packaging leaves out, and the
//! declared `rust-version` is at least that of every dependency.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

const WORKSPACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

fn cargo(args: &[&str]) -> Output {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(WORKSPACE)
        .args(args)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn metadata() -> Value {
    let out = cargo(&["metadata", "--format-version", "1", "--locked", "--offline"]);
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `1.86` or `1.86.0` as numbers, for comparing.
fn version(text: &str) -> Vec<u64> {
    let mut parts: Vec<u64> = text.split('.').map(|p| p.parse().unwrap()).collect();
    parts.resize(3, 0);
    parts
}

/// The workspace packages `cargo publish` uploads.
fn published(meta: &Value) -> Vec<&Value> {
    let members = meta["workspace_members"].as_array().unwrap();
    meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| members.contains(&p["id"]) && p["publish"].is_null())
        .collect()
}

#[test]
fn rust_version_is_at_least_every_dependency_s() {
    let meta = metadata();
    let packages = meta["packages"].as_array().unwrap();
    let package = |id: &Value| packages.iter().find(|p| p["id"] == *id).unwrap();
    let nodes = meta["resolve"]["nodes"].as_array().unwrap();
    let members = meta["workspace_members"].as_array().unwrap();
    let ours = published(&meta);
    let declared = ours[0]["rust_version"].as_str().unwrap().to_owned();
    for p in &ours {
        assert_eq!(p["rust_version"], declared.as_str(), "{}", p["name"]);
    }
    // Everything the published crates build with (normal and build dependencies, not
    // dev-dependencies), at the versions Cargo.lock holds.
    let mut stack: Vec<&Value> = ours.iter().map(|p| &p["id"]).collect();
    let mut seen: Vec<&Value> = Vec::new();
    let mut checked = 0;
    while let Some(id) = stack.pop() {
        if seen.contains(&id) {
            continue;
        }
        seen.push(id);
        let node = nodes.iter().find(|n| n["id"] == *id).unwrap();
        for dep in node["deps"].as_array().unwrap() {
            let kinds = dep["dep_kinds"].as_array().unwrap();
            if kinds
                .iter()
                .any(|k| k["kind"].is_null() || k["kind"] == "build")
            {
                stack.push(&dep["pkg"]);
            }
        }
        if members.contains(id) {
            continue;
        }
        let dependency = package(id);
        if let Some(needs) = dependency["rust_version"].as_str() {
            checked += 1;
            assert!(
                version(needs) <= version(&declared),
                "{} {} needs Rust {needs}, but the workspace declares rust-version = {declared}",
                dependency["name"],
                dependency["version"]
            );
        }
    }
    assert!(
        checked > 20,
        "only {checked} dependencies declare a rust-version"
    );
}

#[test]
fn published_crates_carry_licences_a_readme_and_no_test_reading_the_repository() {
    let meta = metadata();
    let ours = published(&meta);
    assert_eq!(ours.len(), 5, "published crates");
    for p in ours {
        let name = p["name"].as_str().unwrap();
        for field in [
            "description",
            "license",
            "repository",
            "readme",
            "rust_version",
        ] {
            assert!(p[field].is_string(), "{name}: {field}");
        }
        let keywords = p["keywords"].as_array().unwrap();
        assert!((1..=5).contains(&keywords.len()), "{name}: keywords");
        assert!(!p["categories"].as_array().unwrap().is_empty(), "{name}");
        let out = cargo(&[
            "package",
            "--list",
            "--allow-dirty",
            "--offline",
            "-p",
            name,
        ]);
        let files = String::from_utf8(out.stdout).unwrap();
        let files: Vec<&str> = files.lines().collect();
        for wanted in ["LICENSE-MIT", "LICENSE-APACHE", "README.md"] {
            assert!(
                files.contains(&wanted),
                "{name} ships no {wanted}: {files:?}"
            );
        }
        // A packaged test or benchmark may read the real data beside the repository (and
        // says `skipped` without it), never the repository's other directories.
        let manifest = Path::new(p["manifest_path"].as_str().unwrap());
        for file in files
            .iter()
            .filter(|f| f.starts_with("tests/") || f.starts_with("benches/"))
        {
            let text = std::fs::read_to_string(manifest.with_file_name(file)).unwrap();
            for outside in ["../examples", "../tests", "../plugins"] {
                assert!(!text.contains(outside), "{name}: {file} reads `{outside}`");
            }
        }
    }
}

/// `[package.metadata.binstall]`'s template with the values `cargo binstall` gives it.
fn expand(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = template.to_owned();
    for (name, value) in values {
        out = out.replace(&format!("{{ {name} }}"), value);
    }
    assert!(!out.contains('{'), "a placeholder left in {out:?}");
    out
}

/// The targets the release workflow builds binaries for: its `binaries` job's matrix.
fn release_targets() -> Vec<String> {
    let workflow =
        std::fs::read_to_string(Path::new(WORKSPACE).join(".github/workflows/release.yml"))
            .unwrap();
    let job = &workflow[workflow.find("\n  binaries:").expect("a binaries job")..];
    let job = &job[..job[1..].find("\n  wheels:").expect("the job after it")];
    job.lines()
        .filter_map(|line| line.trim().strip_prefix("- { target: "))
        .map(|rest| rest.split(',').next().unwrap().to_owned())
        .collect()
}

#[test]
fn cargo_binstall_finds_the_binary_the_release_workflow_packs() {
    let meta = metadata();
    let cli = published(&meta)
        .into_iter()
        .find(|p| p["name"] == "cargo-isobench")
        .unwrap();
    let binstall = &cli["metadata"]["binstall"];
    let (pkg_url, bin_dir) = (
        binstall["pkg-url"].as_str().unwrap(),
        binstall["bin-dir"].as_str().unwrap(),
    );
    let version = cli["version"].as_str().unwrap();
    let repo = cli["repository"].as_str().unwrap();

    let targets = release_targets();
    assert!(targets.len() >= 5, "{targets:?}");
    let format = |target: &str| {
        binstall["overrides"][target]["pkg-fmt"]
            .as_str()
            .unwrap_or(binstall["pkg-fmt"].as_str().unwrap())
            .to_owned()
    };
    for target in &targets {
        // The script names a Windows archive `.zip`, every other `.tgz`.
        let wanted = if target.contains("windows") {
            "zip"
        } else {
            "tgz"
        };
        assert_eq!(format(target), wanted, "{target}");
    }

    // The host's own binary, packed as the workflow packs it, then looked up as binstall
    // looks it up.
    let host = String::from_utf8(cargo(&["--version", "--verbose"]).stdout).unwrap();
    let host = host
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .unwrap()
        .to_owned();
    if !targets.contains(&host) {
        eprintln!("skipped the packing check: the release builds no binary for {host}");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let binary = dir.path().join("built");
    std::fs::write(&binary, b"a binary").unwrap();
    let out = dir.path().join("dist");
    let status = Command::new("bash")
        .arg(Path::new(WORKSPACE).join(".github/scripts/package-binary.sh"))
        .arg(&host)
        .arg(&binary)
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    let values = [
        ("repo", repo),
        ("version", version),
        ("name", "cargo-isobench"),
        ("target", host.as_str()),
        ("archive-suffix", ".tgz"),
        ("bin", "cargo-isobench"),
        ("binary-ext", ""),
    ];
    let url = expand(pkg_url, &values);
    let expected_prefix = format!("{repo}/releases/download/v{version}/");
    let archive = url.strip_prefix(&expected_prefix).expect("a release asset");
    let packed: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(packed, [archive]);
    let listing = Command::new("tar")
        .arg("-tzf")
        .arg(out.join(archive))
        .output()
        .unwrap();
    assert!(listing.status.success());
    let listing = String::from_utf8(listing.stdout).unwrap();
    let bin = expand(bin_dir, &values);
    assert!(
        listing.lines().any(|l| l == bin),
        "{bin} is not in the archive: {listing}"
    );
    let unpacked = dir.path().join("unpacked");
    std::fs::create_dir(&unpacked).unwrap();
    let status = Command::new("tar")
        .arg("-xzf")
        .arg(out.join(archive))
        .arg("-C")
        .arg(&unpacked)
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(std::fs::read(unpacked.join(&bin)).unwrap(), b"a binary");
}
