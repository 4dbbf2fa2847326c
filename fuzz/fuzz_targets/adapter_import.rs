//! `import` of every built-in adapter on arbitrary JSON: never a panic, and a record an
//! adapter accepts exports back to itself (the round-trip contract), but for the keys a
//! closed table does not declare, which its format's loader refuses; a record of a folder
//! format (a Harbor task folder, read from its source row) gives back every file it had,
//! or its import says the file was dropped.
#![no_main]

use isobench_core::adapter::{ExportOptions, without_nulls};
use isobench_core::report::NoteKind;
use isobench_core::{Notes, Registry};
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};

fuzz_target!(|data: &[u8]| {
    let Ok(record) = serde_json::from_slice::<Map<String, Value>>(data) else {
        return;
    };
    static REGISTRY: std::sync::OnceLock<Registry> = std::sync::OnceLock::new();
    let registry = REGISTRY.get_or_init(|| {
        isobench_adapters::link();
        Registry::builtin()
    });
    for adapter in registry.iter() {
        let mut notes = Notes::new();
        if let Ok(canonical) = adapter.import(record.clone(), &mut notes) {
            let back = adapter
                .export(&canonical, &ExportOptions::default(), &mut notes)
                .unwrap_or_else(|e| {
                    panic!(
                        "{}: an imported record does not export: {e}",
                        adapter.info().name
                    )
                });
            // A closed table's loader refuses keys it does not declare: they are left out.
            let expected: Map<String, Value> = match adapter.table().filter(|t| t.closed) {
                Some(table) => record
                    .iter()
                    .filter(|(key, _)| table.fields.iter().any(|f| &f.key == *key))
                    .map(|(key, value)| (key.clone(), value.clone()))
                    .collect(),
                None => record.clone(),
            };
            if adapter.info().folder.is_some() {
                // A folder is read from its source row: every file of it is written back
                // as it was, or the import said it was dropped (a file changed or added
                // since the folder was written); the files the row gives are written
                // whether the folder had them or not.
                let dropped = |key: &str| {
                    notes
                        .iter()
                        .any(|n| n.kind == NoteKind::Dropped && n.field == key)
                };
                for (key, value) in &expected {
                    assert!(
                        dropped(key)
                            || back.get(key).map(without_nulls) == Some(without_nulls(value)),
                        "{}: `{key}` is neither written back nor said to be dropped",
                        adapter.info().name
                    );
                }
                continue;
            }
            assert!(
                back == expected,
                "{}: export(import(r)) != r",
                adapter.info().name
            );
        }
    }
});
