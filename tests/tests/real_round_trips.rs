//! Every real record of every format we hold round-trips: `export(import(r)) == r`, with
//! the same keys in the same order, and also through the canonical record written out as
//! JSON and read back (what two `convert` runs do).

use isobench_core::adapter::ExportOptions;
use isobench_core::{Notes, Profile, Registry, validate_record};
use isobench_tests::{SWE_BENCH_FILES, SWE_SMITH_FILE, read_jsonl};
use serde_json::{Map, Value};

fn registry() -> Registry {
    isobench_adapters::link();
    Registry::builtin()
}

fn keys(map: &Map<String, Value>) -> Vec<&str> {
    map.keys().map(String::as_str).collect()
}

/// Round-trips every record of `file` through `format`, directly and through canonical JSON.
fn round_trip(registry: &Registry, format: &str, file: &str) -> Option<usize> {
    let records = read_jsonl(file)?;
    let adapter = registry.get(format).expect("built in");
    let canonical = registry.get("canonical").expect("built in");
    let options = ExportOptions::default();
    for (line, (text, record)) in records.iter().enumerate() {
        let at = format!("{file}:{}", line + 1);
        let mut notes = Notes::new();
        let imported = adapter
            .import(record.clone(), &mut notes)
            .unwrap_or_else(|e| panic!("{at}: {e}"));
        let back = adapter
            .export(&imported, &options, &mut notes)
            .unwrap_or_else(|e| panic!("{at}: {e}"));
        assert!(back == *record, "{at}: export(import(r)) differs from r");
        assert_eq!(keys(&back), keys(record), "{at}: key order");

        // Through canonical JSON, as `convert --to canonical` then `--from canonical` do.
        let json = canonical
            .export(&imported, &options, &mut notes)
            .unwrap_or_else(|e| panic!("{at}: {e}"));
        let problems = validate_record(&Value::Object(json.clone()), Profile::Lossless);
        assert!(
            problems.is_empty(),
            "{at}: the canonical record is not lossless-valid: {problems:?}"
        );
        let text_again = serde_json::to_string(&json).expect("serialises");
        let reread: Map<String, Value> = serde_json::from_str(&text_again).expect("parses");
        let reimported = canonical
            .import(reread, &mut notes)
            .unwrap_or_else(|e| panic!("{at}: {e}"));
        assert_eq!(
            reimported, imported,
            "{at}: canonical JSON does not read back to the same record"
        );
        let back = adapter
            .export(&reimported, &options, &mut notes)
            .unwrap_or_else(|e| panic!("{at}: {e}"));
        assert!(
            back == *record,
            "{at}: through canonical JSON the record changed"
        );
        assert!(!text.is_empty());
    }
    Some(records.len())
}

#[test]
fn swe_bench_records_round_trip() {
    let registry = registry();
    let mut total = 0;
    for file in SWE_BENCH_FILES {
        let Some(n) = round_trip(&registry, "swe-bench", file) else {
            return;
        };
        total += n;
    }
    assert_eq!(
        total,
        350 + 38 + 210 + 4 + 5 + 3,
        "every real SWE-bench record was checked"
    );
}

#[test]
fn swe_smith_record_round_trips() {
    let registry = registry();
    if let Some(n) = round_trip(&registry, "swe-smith", SWE_SMITH_FILE) {
        assert_eq!(n, 1);
    }
}

#[test]
fn swe_bench_import_keeps_every_field_somewhere() {
    let registry = registry();
    let adapter = registry.get("swe-bench").expect("built in");
    let Some(records) = read_jsonl(SWE_BENCH_FILES[0]) else {
        return;
    };
    for (_, record) in records {
        let c = adapter
            .import(record.clone(), &mut Notes::new())
            .expect("imports");
        let id = record["instance_id"].as_str().unwrap();
        assert_eq!(c.instance_id.as_deref(), Some(id));
        assert_eq!(
            c.version.as_deref(),
            record["version"].as_str(),
            "{id}: version stays a string"
        );
        let f2p: Vec<String> =
            serde_json::from_str(record["FAIL_TO_PASS"].as_str().unwrap()).unwrap();
        assert_eq!(
            c.ext_list("fail_to_pass").unwrap(),
            f2p,
            "{id}: FAIL_TO_PASS decoded to an array"
        );
        assert_eq!(c.ext_str("difficulty"), record["difficulty"].as_str());
        assert_eq!(
            c.ext_str("environment_setup_commit"),
            record["environment_setup_commit"].as_str()
        );
        assert!(
            c.head_commit.is_none() && c.efficiency_test.is_none(),
            "{id}: nothing invented"
        );
    }
}

#[test]
fn the_extra_fields_of_a_fixture_survive_the_round_trip() {
    // `swe-bench-dev-easy` carries two non-dataset fields, `query` and `task_id`.
    let registry = registry();
    let adapter = registry.get("swe-bench").expect("built in");
    let Some(records) = read_jsonl(SWE_BENCH_FILES[4]) else {
        return;
    };
    let (_, record) = &records[0];
    assert!(record.contains_key("query") && record.contains_key("task_id"));
    let c = adapter.import(record.clone(), &mut Notes::new()).unwrap();
    assert_eq!(
        c.extensions["source"]["extra"]["task_id"],
        record["task_id"]
    );
    // Another format cannot hold them: the export says so.
    let mut notes = Notes::new();
    registry
        .get("swe-smith")
        .unwrap()
        .export(&c, &ExportOptions::default(), &mut notes)
        .unwrap();
    let dropped: Vec<&str> = notes.iter().map(|n| n.field.as_str()).collect();
    assert!(
        dropped.contains(&"extensions.source.extra.query"),
        "{dropped:?}"
    );
}

#[test]
fn builtin_adapters_are_all_registered() {
    let registry = registry();
    assert_eq!(registry.names(), isobench_adapters::BUILTIN);
    for adapter in registry.iter() {
        let info = adapter.info();
        assert!(
            adapter.schema(isobench_core::Profile::Lossless).is_object(),
            "{} has a schema",
            info.name
        );
        assert!(
            isobench_core::schema::SchemaValidator::new(
                adapter.schema(isobench_core::Profile::Lossless)
            )
            .is_ok(),
            "{}'s schema compiles",
            info.name
        );
    }
}
