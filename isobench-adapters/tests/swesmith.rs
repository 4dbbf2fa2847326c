//! The SWE-smith profiles the adapter accepts are the installed swesmith's.

use std::process::Command;

use isobench_adapters::SmithProfiles;

/// Reads the profiles the swesmith on `ISOBENCH_PYTHON`'s path registers, with
/// `swesmith_profiles.py`, and compares them with the declaration, line for line.
#[test]
#[ignore = "needs swesmith 0.0.9 installed (it imports swebench 4.x): `pip install swesmith==0.0.9`, then ISOBENCH_PYTHON=PYTHON cargo test -p isobench-adapters --test swesmith -- --ignored"]
fn the_declaration_is_what_the_installed_swesmith_registers() {
    let python = std::env::var("ISOBENCH_PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/swesmith_profiles.py");
    let out = Command::new(python)
        .arg(script)
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let found = String::from_utf8(out.stdout).expect("UTF-8");
    let mut declared: Vec<String> = SmithProfiles::declared()
        .all()
        .iter()
        .map(|p| format!("{} {}", p.repo, p.commit))
        .collect();
    let mut found: Vec<String> = found.lines().map(str::to_owned).collect();
    declared.sort();
    found.sort();
    assert_eq!(found, declared);
}
