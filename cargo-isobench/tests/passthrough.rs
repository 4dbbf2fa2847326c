//! Strings passed through unparsed (`isobench_core::passthrough`) and records moved
//! into `export_owned` change nothing: for every pair of built-in adapters that passes
//! some strings, every record converts to the same bytes, or fails with the same error,
//! as with every string decoded and encoded again and the record exported by borrow.

use cargo_isobench::convert::passing_keys;
use cargo_isobench::input::{
    check_record_passing, parse_record, parse_record_passing, with_markers,
};
use isobench_core::adapter::ExportOptions;
use isobench_core::codec::JsonStyle;
use isobench_core::{Notes, Profile, Registry, ViewAdapter};
use isobench_tests::{SWE_BENCH_FILES, SWE_SMITH_FILE, real_data};
use serde_json::Value;

/// A record converted from `from` to `to`: the output line, or the error.
fn convert(
    line: &str,
    from: &dyn ViewAdapter,
    to: &dyn ViewAdapter,
    profile: Profile,
    passing: &[&str],
) -> Result<String, String> {
    let mut ranges = Vec::new();
    let record = if passing.is_empty() {
        parse_record(line.as_bytes(), true)
    } else {
        parse_record_passing(line.as_bytes(), true, passing, &mut ranges)
    };
    let Value::Object(map) = record.map_err(|bad| bad.message)? else {
        unreachable!("the reader gives objects or errors")
    };
    let mut notes = Notes::new();
    let canonical = from.import(map, &mut notes).map_err(|e| e.to_string())?;
    // The fast path also moves the record into the export, as `convert` does.
    let options = ExportOptions::with_profile(profile);
    let out = if passing.is_empty() {
        to.export(&canonical, &options, &mut notes)
    } else {
        to.export_owned(canonical, &options, &mut notes)
    }
    .map_err(|e| e.to_string())?;
    let texts: Vec<&[u8]> = ranges.iter().map(|r| &line.as_bytes()[r.clone()]).collect();
    let mut bytes = Vec::new();
    JsonStyle::Compact.write_object_passing(&mut bytes, &out, &texts);
    Ok(String::from_utf8(bytes).expect("the writer writes UTF-8"))
}

/// Converts every line with and without passing strings through, for every pair of
/// adapters that passes some; returns how many records went through the fast path.
fn same_either_way(registry: &Registry, lines: &[String]) -> usize {
    let mut passed = 0;
    for from in registry.iter() {
        for to in registry.iter() {
            let passing = passing_keys(from, to);
            if passing.is_empty() {
                continue;
            }
            for profile in [Profile::Lossless, Profile::Strict] {
                for line in lines {
                    let slow = convert(line, from, to, profile, &[]);
                    let fast = convert(line, from, to, profile, &passing);
                    assert_eq!(
                        fast,
                        slow,
                        "{} -> {} ({profile}): {}",
                        from.info().name,
                        to.info().name,
                        &line[..line.len().min(200)]
                    );
                    passed += usize::from(slow.is_ok());
                }
            }
        }
    }
    passed
}

#[test]
fn the_built_in_pairs_that_pass_strings_are_the_expected_ones() {
    let registry = Registry::builtin();
    let get = |name| registry.get(name).expect("built in");
    assert_eq!(
        passing_keys(get("swe-bench"), get("canonical")),
        ["patch", "test_patch", "problem_statement", "hints_text"]
    );
    assert_eq!(
        passing_keys(get("swe-bench"), get("swe-bench")),
        ["patch", "test_patch", "problem_statement", "hints_text"]
    );
    assert_eq!(
        passing_keys(get("canonical"), get("swe-bench")),
        ["patch", "test_patch"]
    );
    assert_eq!(
        passing_keys(get("swe-perf"), get("swe-bench")),
        ["patch", "test_patch"]
    );
    // A target that reads the patch (SWE-smith reverses it) does not pass it.
    assert_eq!(
        passing_keys(get("swe-bench"), get("swe-smith")),
        ["problem_statement"]
    );
    assert!(passing_keys(get("swe-bench"), get("gso")).is_empty());
}

/// SWE-bench lines that try the pass-through's edges, and the sample records of every
/// format.
fn tricky_lines() -> Vec<String> {
    // Texts the writer would write differently (`\/`, `\u` escapes of printable
    // characters, upper-case hex), a lone surrogate, a patch that is not a string, a
    // repeated key, a nested repeated key, broken JSON inside a passed value.
    let base = r#""repo": "o/r", "instance_id": "o__r-1", "base_commit": "abc", "version": "1.0", "created_at": "2024-01-02T03:04:05Z", "FAIL_TO_PASS": "[\"t1\"]", "PASS_TO_PASS": "[]""#;
    let mut lines: Vec<String> = [
        r#""patch": "a\/b\n", "test_patch": "\u00e9\u001F", "problem_statement": "\ud83d\ude00 ok", "hints_text": """#,
        r#""patch": "plain\u0001\"q\"", "test_patch": "t\\u", "problem_statement": "p", "hints_text": "h\t""#,
        r#""patch": 7, "test_patch": "", "problem_statement": "p""#,
        r#""patch": null, "test_patch": "", "problem_statement": "p""#,
        r#""patch": {"a": 1, "a": 2}, "test_patch": "", "problem_statement": "p""#,
        r#""patch": "x", "patch": "y", "test_patch": "", "problem_statement": "p""#,
        r#""patch": "\ud800", "test_patch": "", "problem_statement": "p""#,
        r#""patch": "x", "test_patch": "", "problem_statement": "p", "extra": {"k": 1, "k": 2}"#,
        r#""patch": "bad \x", "test_patch": "", "problem_statement": "p""#,
        r#""patch": "unterminated, "test_patch": "", "problem_statement": "p""#,
    ]
    .iter()
    .map(|fields| format!("{{{base}, {fields}}}"))
    .collect();
    // The sample records shipped with the project, one file per format.
    let samples = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/data");
    for entry in std::fs::read_dir(samples).expect("the sample data") {
        let text = std::fs::read_to_string(entry.expect("an entry").path()).expect("a sample");
        lines.extend(
            text.lines()
                .filter(|l| !l.trim().is_empty())
                .map(str::to_owned),
        );
    }
    lines.push(r#"["not", "an", "object"]"#.to_owned());
    lines.push(r#"  {"patch": "leading spaces"}"#.to_owned());
    lines
}

#[test]
fn written_records_and_errors_are_the_same_with_strings_passed_through() {
    let registry = Registry::builtin();
    assert!(same_either_way(&registry, &tricky_lines()) > 0);
}

/// What a plugin is sent: the line checked, not parsed, with markers spliced in where
/// the passed strings were. It finds the strings parsing finds, gives the record parsing
/// gives once the markers are read back, and fails with the same errors.
#[test]
fn checking_with_passing_finds_what_parsing_with_passing_finds() {
    let passing = ["patch", "test_patch", "problem_statement", "hints_text"];
    let mut spliced = 0;
    for line in tricky_lines() {
        let (mut checked, mut parsed) = (Vec::new(), Vec::new());
        let check = check_record_passing(line.as_bytes(), true, &passing, &mut checked);
        let parse = parse_record_passing(line.as_bytes(), true, &passing, &mut parsed);
        match (check, parse) {
            (Ok(()), Ok(record)) => {
                assert_eq!(checked, parsed, "{line}");
                let sent: Value = serde_json::from_slice(&with_markers(line.as_bytes(), &checked))
                    .expect("the spliced text is JSON");
                assert_eq!(sent, record, "{line}");
                spliced += usize::from(!checked.is_empty());
            }
            (Err(c), Err(p)) => assert_eq!(c.message, p.message, "{line}"),
            (c, p) => panic!("check {:?} but parse {:?}: {line}", c.err(), p.err()),
        }
    }
    assert!(spliced > 0);
}

#[test]
fn real_records_convert_to_the_same_bytes_with_strings_passed_through() {
    let Some(dir) = real_data() else { return };
    let registry = Registry::builtin();
    let mut lines = Vec::new();
    for file in SWE_BENCH_FILES.iter().chain([&SWE_SMITH_FILE]) {
        let text = std::fs::read_to_string(dir.join(file)).expect("a real file");
        lines.extend(
            text.lines()
                .filter(|l| !l.trim().is_empty())
                .map(str::to_owned),
        );
    }
    // Canonical records too, for the pairs that read canonical.
    let canonical = registry.get("canonical").expect("built in");
    let canonical_lines: Vec<String> = lines
        .iter()
        .filter_map(|l| {
            ["swe-bench", "swe-smith"].into_iter().find_map(|from| {
                let from = registry.get(from).expect("built in");
                convert(l, from, canonical, Profile::Lossless, &[]).ok()
            })
        })
        .collect();
    assert_eq!(canonical_lines.len(), lines.len(), "every real row imports");
    lines.extend(canonical_lines);
    let passed = same_either_way(&registry, &lines);
    assert!(passed >= lines.len(), "{passed} records went through");
}
