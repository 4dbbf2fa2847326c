//! The inputs the fuzzers found (under `tests/fuzz-regressions/<target>/`), run through
//! the same checks as the fuzz targets in `fuzz/fuzz_targets`, as ordinary tests.

use std::path::PathBuf;

use isobench_core::adapter::ExportOptions;
use isobench_core::{Notes, Registered, Registry, codec, diff};
use serde_json::{Map, Value};

fn inputs(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz-regressions")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            (
                p.display().to_string(),
                std::fs::read(&p).expect("readable"),
            )
        })
        .collect()
}

#[test]
fn diff_reverse_regressions() {
    for (name, data) in inputs("diff_reverse") {
        let Ok(text) = std::str::from_utf8(&data) else {
            continue;
        };
        let _ = diff::parse(text);
        if let Ok(reversed) = diff::reverse(text) {
            assert_eq!(diff::reverse(&reversed).as_deref(), Ok(text), "{name}");
        }
    }
}

#[test]
fn list_decoder_regressions() {
    for (name, data) in inputs("list_decoder") {
        let Ok(text) = std::str::from_utf8(&data) else {
            continue;
        };
        let candidates =
            std::iter::once(Value::String(text.to_owned())).chain(serde_json::from_str(text).ok());
        for value in candidates {
            if let Ok(once) = codec::decode_list(&value, "/f") {
                let again =
                    codec::decode_list(&codec::encode_list(&once.items, once.encoding), "/f");
                assert_eq!(again.map(|d| d.items), Ok(once.items), "{name}");
            }
        }
    }
}

#[test]
fn adapter_import_regressions() {
    isobench_adapters::link();
    let registry = Registry::builtin();
    for (name, data) in inputs("adapter_import") {
        let Ok(record) = serde_json::from_slice::<Map<String, Value>>(&data) else {
            continue;
        };
        for adapter in registry.iter() {
            let mut notes = Notes::new();
            if let Ok(canonical) = adapter.import(record.clone(), &mut notes) {
                let back = adapter.export(&canonical, &ExportOptions::default(), &mut notes);
                let format = &adapter.info().name;
                let expected = declared_keys(adapter, &record);
                assert!(
                    back.as_ref().is_ok_and(|b| *b == expected),
                    "{name}: {format}: export(import(r)) != r"
                );
            }
        }
    }
}

/// `record` as its format writes it back: all of it, but for a closed table (whose loader
/// refuses keys it does not declare) the keys it declares only.
fn declared_keys(adapter: &Registered, record: &Map<String, Value>) -> Map<String, Value> {
    match adapter.table().filter(|table| table.closed) {
        Some(table) => record
            .iter()
            .filter(|(key, _)| table.fields.iter().any(|f| &f.key == *key))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect(),
        None => record.clone(),
    }
}
