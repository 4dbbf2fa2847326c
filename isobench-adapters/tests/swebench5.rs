//! The SWE-bench 5.x values the adapter accepts are the installed swebench 5's.

use std::process::Command;

use isobench_adapters::Accepted5x;

#[test]
fn the_declaration_names_every_kind_of_value() {
    let accepted = Accepted5x::declared();
    assert!(accepted.eval_types.contains(&"pass_and_fail".to_owned()));
    assert!(
        accepted
            .log_parsers
            .contains(&"parse_log_pytest".to_owned())
    );
    assert!(!accepted.start_marker.is_empty() && !accepted.end_marker.is_empty());
    assert_ne!(accepted.start_marker, accepted.end_marker);
}

/// Reads what the swebench 5 on `ISOBENCH_SWEBENCH5_PATH` (else on `python3`'s path)
/// declares, with `swebench5_values.py`, which parses its source and imports none of it.
#[test]
#[ignore = "needs swebench 5 installed: `pip install --no-deps --target DIR swebench==5.0.2`, then ISOBENCH_SWEBENCH5_PATH=DIR cargo test -p isobench-adapters --test swebench5 -- --ignored"]
fn the_declaration_is_what_the_installed_swebench_5_accepts() {
    let python = std::env::var("ISOBENCH_PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/swebench5_values.py");
    let mut command = Command::new(python);
    command.arg(script);
    if let Some(path) = std::env::var_os("ISOBENCH_SWEBENCH5_PATH") {
        command.env("PYTHONPATH", path);
    }
    let out = command.output().expect("python runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let found: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let accepted = Accepted5x::declared();
    assert_eq!(found["eval_type"], serde_json::json!(accepted.eval_types));
    assert_eq!(found["log_parser"], serde_json::json!(accepted.log_parsers));
    assert_eq!(found["start_marker"], accepted.start_marker.as_str());
    assert_eq!(found["end_marker"], accepted.end_marker.as_str());
}
