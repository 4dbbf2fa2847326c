//! Helpers for the workspace integration tests: where the real published records are,
//! and how to read them.

use std::path::PathBuf;

use serde_json::{Map, Value};

/// The variable that says the real published records must be there (CI sets it): a
/// test that needs them then fails without them instead of passing unchecked.
pub const REQUIRE_REAL_DATA: &str = "ISOBENCH_REQUIRE_REAL_DATA";

/// The folder of real published records (`../shared/data/real` beside the repository),
/// or `None`, after saying so on stderr, when it is not there.
///
/// # Panics
///
/// When it is not there and [`REQUIRE_REAL_DATA`] is set.
pub fn real_data() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/real");
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var_os(REQUIRE_REAL_DATA).is_none(),
        "{} not present, and {REQUIRE_REAL_DATA} says the real-data tests must run",
        dir.display()
    );
    eprintln!(
        "skipped: {} not present; the real-data tests need it (set {REQUIRE_REAL_DATA} to fail instead)",
        dir.display()
    );
    None
}

/// The records of a JSONL file under the real-data folder, as objects, with their text.
pub fn read_jsonl(relative: &str) -> Option<Vec<(String, Map<String, Value>)>> {
    let path = real_data()?.join(relative);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Some(
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                let record =
                    serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                (l.to_owned(), record)
            })
            .collect(),
    )
}

/// The real files of each built-in format.
pub const SWE_BENCH_FILES: [&str; 6] = [
    "swebench-verified/swebench_verified_test.jsonl",
    "swebench-verified/swebench_verified_mini_rev_a9e0332_no_difficulty.jsonl",
    "swebench-lite/swebench_lite_test.jsonl",
    "swebench-full/sweagent_fixture_debug_20240322.jsonl",
    "swebench-full/sweagent_fixture_swe-bench-dev-easy.jsonl",
    "swebench-full/sweagent_fixture_swe-bench-lite-test.jsonl",
];

/// The real SWE-smith file.
pub const SWE_SMITH_FILE: &str = "swesmith/swesmith_repo_test_fixture.jsonl";
