//! Strings and lists held unparsed outside the record (`isobench_core::passthrough`)
//! and records moved into `export_owned` change nothing: for every pair of built-in
//! adapters that passes some values, every record converts to the same bytes, or fails
//! with the same error, in either output style, as with every value decoded and encoded
//! again and the record exported by borrow.

use cargo_isobench::input::{Routes, parse_record, parse_record_holding};
use isobench_core::adapter::ExportOptions;
use isobench_core::codec::JsonStyle;
use isobench_core::passthrough::{self, Held, Route, write_object_holding};
use isobench_core::{Notes, Profile, Registered, Registry};
use isobench_tests::{SWE_BENCH_FILES, SWE_SMITH_FILE, real_data};
use serde_json::Value;

/// The built-in adapters and the declared ones shipped under `examples/adapters`, whose
/// lists are arrays (a JSON-encoded list read for such a format must be written back
/// encoded, not as the array a pass-through would write).
fn registry() -> Registry {
    let mut registry = Registry::builtin();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/adapters");
    for entry in std::fs::read_dir(dir).expect("the example adapters") {
        let adapter = cargo_isobench::declared::load(&entry.expect("an entry").path())
            .expect("an example adapter loads");
        registry.register(adapter).expect("a new name");
    }
    registry
}

/// A record converted from `from` to `to` and written in `style`: the output line, or
/// the error.
fn convert(
    line: &str,
    (from, to): (&Registered, &Registered),
    profile: Profile,
    style: JsonStyle,
    routes: &[Route<'_>],
) -> Result<String, String> {
    let mut held = Held::default();
    let record = if routes.is_empty() {
        parse_record(line.as_bytes(), true)
    } else {
        parse_record_holding(line.as_bytes(), true, Routes { routes, style }, &mut held)
    };
    let Value::Object(map) = record.map_err(|bad| bad.message)? else {
        unreachable!("the reader gives objects or errors")
    };
    let mut notes = Notes::new();
    let canonical = from
        .import_holding(map, &held.keys(routes), &mut notes)
        .map_err(|e| e.to_string())?;
    let order = to.held_order(&canonical);
    // The fast path also moves the record into the export, as `convert` does.
    let options = ExportOptions::with_profile(profile);
    let out = if routes.is_empty() {
        to.export(&canonical, &options, &mut notes)
    } else {
        to.export_owned(canonical, &options, &mut notes)
    }
    .map_err(|e| e.to_string())?;
    let texts: Vec<(Route<'_>, &[u8])> = routes
        .iter()
        .enumerate()
        .filter_map(|(i, route)| Some((*route, held.text(line.as_bytes(), i)?)))
        .collect();
    let mut bytes = Vec::new();
    write_object_holding(
        style,
        &mut bytes,
        &out,
        &to.place_held(&order, &out, &texts),
    );
    Ok(String::from_utf8(bytes).expect("the writer writes UTF-8"))
}

/// Converts every line with and without passing values through, for every pair of
/// adapters that passes some, in both styles; returns how many records went through the
/// fast path.
fn same_either_way(registry: &Registry, lines: &[String]) -> usize {
    let mut passed = 0;
    for from in registry.iter() {
        for to in registry.iter() {
            let routes = routes(from, to);
            if routes.is_empty() {
                continue;
            }
            // A conversion to the strict profile holds nothing: its export checks every
            // required field's value.
            for profile in [Profile::Lossless] {
                for style in [JsonStyle::Compact, JsonStyle::Spaced] {
                    for line in lines {
                        let slow = convert(line, (from, to), profile, style, &[]);
                        let fast = convert(line, (from, to), profile, style, &routes);
                        assert_eq!(
                            fast,
                            slow,
                            "{} -> {} ({profile}, {style:?}): {}",
                            from.info().name,
                            to.info().name,
                            &line[..line.len().min(200)]
                        );
                        passed += usize::from(slow.is_ok());
                    }
                }
            }
        }
    }
    passed
}

/// The routes of a conversion from `from` to `to`.
fn routes<'a>(from: &'a Registered, to: &'a Registered) -> Vec<Route<'a>> {
    let same_format = from.info().name == to.info().name;
    passthrough::routes(from.places(), to.places(), same_format)
}

fn names<'k>(routes: &[Route<'k>]) -> Vec<&'k str> {
    routes.iter().map(|r| r.key).collect()
}

#[test]
fn the_built_in_pairs_that_pass_strings_are_the_expected_ones() {
    let registry = Registry::builtin();
    let get = |name| registry.get(name).expect("built in");
    let to_canonical = routes(get("swe-bench"), get("canonical"));
    assert_eq!(
        names(&to_canonical),
        [
            "patch",
            "test_patch",
            "problem_statement",
            "hints_text",
            "FAIL_TO_PASS",
            "PASS_TO_PASS"
        ]
    );
    // The test lists pass as lists, the texts as strings.
    assert!(
        to_canonical
            .iter()
            .all(|k| k.list == k.key.ends_with("_TO_PASS"))
    );
    // SWE-bench writes its lists back as JSON-encoded strings, which it builds itself.
    assert_eq!(
        names(&routes(get("swe-bench"), get("swe-bench"))),
        ["patch", "test_patch", "problem_statement", "hints_text"]
    );
    assert_eq!(
        names(&routes(get("canonical"), get("swe-bench"))),
        ["patch", "test_patch"]
    );
    assert_eq!(
        names(&routes(get("swe-perf"), get("swe-bench"))),
        ["patch", "test_patch"]
    );
    // A target that reads the patch (SWE-smith reverses it) does not pass it.
    assert_eq!(
        names(&routes(get("swe-bench"), get("swe-smith"))),
        ["problem_statement"]
    );
    assert!(routes(get("swe-bench"), get("gso")).is_empty());
}

#[test]
fn a_list_passes_encoded_only_into_another_format() {
    let registry = registry();
    let get = |name| registry.get(name).expect("registered");
    let lists = |routes: &[Route<'_>]| {
        routes
            .iter()
            .filter(|r| r.list)
            .map(|r| (r.key.to_owned(), r.encoded, r.path.join(".")))
            .collect::<Vec<_>>()
    };
    // SWE-bench's JSON-encoded lists become the arrays SWE-bench-extra writes.
    assert_eq!(
        lists(&routes(get("swe-bench"), get("swe-bench-extra"))),
        [
            ("FAIL_TO_PASS".to_owned(), true, "FAIL_TO_PASS".to_owned()),
            ("PASS_TO_PASS".to_owned(), true, "PASS_TO_PASS".to_owned())
        ]
    );
    // Between records of one format, a list read encoded is written encoded: only an
    // array passes.
    assert_eq!(
        lists(&routes(get("swe-bench-extra"), get("swe-bench-extra"))),
        [
            ("FAIL_TO_PASS".to_owned(), false, "FAIL_TO_PASS".to_owned()),
            ("PASS_TO_PASS".to_owned(), false, "PASS_TO_PASS".to_owned())
        ]
    );
    // Canonical holds them under `extensions`.
    assert_eq!(
        lists(&routes(get("swe-bench-extra"), get("canonical"))),
        [
            (
                "FAIL_TO_PASS".to_owned(),
                true,
                "extensions.fail_to_pass".to_owned()
            ),
            (
                "PASS_TO_PASS".to_owned(),
                true,
                "extensions.pass_to_pass".to_owned()
            )
        ]
    );
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
    // Test lists at the transcoder's edges: each style, one item, none, escapes at
    // either level, non-ASCII, mixed or odd separators, spaces, Python reprs, an array
    // where SWE-bench writes a string, items that are not strings, broken inner JSON.
    let lists = [
        r#""[\"a\", \"b::c[1, 2]\", \"\"]""#,
        r#""[\"a\",\"b\"]""#,
        r#""[\"only\"]""#,
        r#""[]""#,
        r#""[\"tab\\there\", \"q\\\"uote\"]""#,
        r#""[\"\u00e9t\u00e9\", \"été\"]""#,
        r#""[\"a\\/b\"]""#,
        r#""[\"a\/b\"]""#,
        r#""[\"a\", \"b\",\"c\"]""#,
        r#""[\"a\" , \"b\"]""#,
        r#""[ \"a\"]""#,
        r#""[\"a\",  \"b\"]""#,
        r#""['a', 'b']""#,
        r#"["a", "b"]"#,
        r#"["a","b"]"#,
        r#""[1, 2]""#,
        r#""[\"a\", 2]""#,
        r#""[\"a\"""#,
        r#""\"[\\\"nested\\\"]\"""#,
        r#""[\"a\"]x""#,
    ];
    let texts = r#""patch": "p", "test_patch": "t", "problem_statement": "s", "hints_text": "h""#;
    for list in lists {
        let base =
            r#""repo": "o/r", "instance_id": "o__r-2", "base_commit": "abc", "version": "1.0""#;
        lines.push(format!(
            r#"{{{base}, {texts}, "FAIL_TO_PASS": {list}, "PASS_TO_PASS": "[\"x\"]"}}"#
        ));
        lines.push(format!(
            r#"{{{base}, {texts}, "FAIL_TO_PASS": "[]", "PASS_TO_PASS": {list}}}"#
        ));
    }
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
    let registry = registry();
    let lines = tricky_lines();
    assert!(same_either_way(&registry, &lines) > 0);
    // The JSON-encoded lists that can be are rewritten by the transcoder, not decoded.
    let routes = routes(
        registry.get("swe-bench").expect("built in"),
        registry.get("canonical").expect("built in"),
    );
    let transcoded = lines
        .iter()
        .filter(|line| {
            let mut held = Held::default();
            let routes = Routes {
                routes: &routes,
                style: JsonStyle::Compact,
            };
            parse_record_holding(line.as_bytes(), true, routes, &mut held).is_ok()
                && held.any_made()
        })
        .count();
    assert!(transcoded >= 20, "{transcoded}");
}

#[test]
fn real_records_convert_to_the_same_bytes_with_strings_passed_through() {
    let Some(dir) = real_data() else { return };
    let registry = registry();
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
                convert(
                    l,
                    (from, canonical),
                    Profile::Lossless,
                    JsonStyle::Compact,
                    &[],
                )
                .ok()
            })
        })
        .collect();
    assert_eq!(canonical_lines.len(), lines.len(), "every real row imports");
    lines.extend(canonical_lines);
    let passed = same_either_way(&registry, &lines);
    assert!(passed >= lines.len(), "{passed} records went through");
}

/// A generated SWE-bench-like field: absent, null, a text, or a test list (items, and
/// stored as an array, a compact JSON-encoded string or a spaced one).
#[derive(Debug, Clone)]
enum Generated {
    Absent,
    Null,
    Text(String),
    List(Vec<String>, u8),
}

/// The line of `fields`, in their order, written compact or spaced, with `\/` for every
/// `/` when `slashes`.
fn generated_line(fields: &[(&str, Generated)], spaced: bool, slashes: bool) -> String {
    let mut map = serde_json::Map::new();
    for (key, field) in fields {
        let value = match field {
            Generated::Absent => continue,
            Generated::Null => Value::Null,
            Generated::Text(text) => Value::String(text.clone()),
            Generated::List(items, how) => {
                let array = Value::from(items.clone());
                match how {
                    0 => array,
                    1 => Value::String(serde_json::to_string(&array).expect("in memory")),
                    _ => Value::String(JsonStyle::Spaced.to_string(&array)),
                }
            }
        };
        map.insert((*key).to_owned(), value);
    }
    let style = if spaced {
        JsonStyle::Spaced
    } else {
        JsonStyle::Compact
    };
    let line = style.to_string(&Value::Object(map));
    if slashes {
        line.replace('/', "\\/")
    } else {
        line
    }
}

fn text() -> impl proptest::strategy::Strategy<Value = String> {
    proptest::string::string_regex("[a-z /\"\\\\\n\t\u{1}\u{7f}é中😀]{0,12}").expect("a regex")
}

fn generated(list: bool) -> impl proptest::strategy::Strategy<Value = Generated> {
    use proptest::prelude::*;
    let value = if list {
        (proptest::collection::vec(text(), 0..3), 0..3u8)
            .prop_map(|(items, how)| Generated::List(items, how))
            .boxed()
    } else {
        text().prop_map(Generated::Text).boxed()
    };
    prop_oneof![1 => Just(Generated::Absent), 1 => Just(Generated::Null), 4 => value]
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// Generated records, their keys shuffled, convert to the same bytes or the same
    /// error with values held as without, between every pair of formats that holds some.
    #[test]
    fn generated_records_convert_the_same_with_values_held(
        texts in proptest::collection::vec(generated(false), 4),
        lists in proptest::collection::vec(generated(true), 2),
        dated in proptest::bool::ANY,
        extra in proptest::bool::ANY,
        order in proptest::collection::vec(0..1000u32, 12),
        spaced in proptest::bool::ANY,
        slashes in proptest::bool::ANY,
    ) {
        let fixed = |text: &str| Generated::Text(text.to_owned());
        let mut fields: Vec<(&str, Generated)> = vec![
            ("repo", fixed("o/r")),
            ("instance_id", fixed("o__r-1")),
            ("base_commit", fixed("abc")),
            ("version", fixed("1.0")),
            ("created_at", if dated { fixed("2024-01-02T03:04:05Z") } else { Generated::Absent }),
            ("extra_note", if extra { fixed("kept") } else { Generated::Absent }),
        ];
        fields.extend(["patch", "test_patch", "problem_statement", "hints_text"].into_iter().zip(texts));
        fields.extend(["FAIL_TO_PASS", "PASS_TO_PASS"].into_iter().zip(lists));
        // Shuffled: each key sorted by its generated rank.
        let mut ranked: Vec<(u32, (&str, Generated))> = order.into_iter().zip(fields).collect();
        ranked.sort_by_key(|(rank, _)| *rank);
        let fields: Vec<(&str, Generated)> = ranked.into_iter().map(|(_, field)| field).collect();
        let line = generated_line(&fields, spaced, slashes);
        same_either_way(&registry(), std::slice::from_ref(&line));
    }
}
