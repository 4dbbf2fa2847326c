//! `import` of every built-in adapter on arbitrary JSON: never a panic, and a record an
//! adapter accepts exports back to itself (the round-trip contract), but for the keys a
//! closed table does not declare, which its format's loader refuses.
#![no_main]

use isobench_core::adapter::ExportOptions;
use isobench_core::{Notes, Registry};
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};

fuzz_target!(|data: &[u8]| {
    let Ok(record) = serde_json::from_slice::<Map<String, Value>>(data) else { return };
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
                .unwrap_or_else(|e| panic!("{}: an imported record does not export: {e}", adapter.info().name));
            // A closed table's loader refuses keys it does not declare: they are left out.
            let expected: Map<String, Value> = match adapter.table().filter(|t| t.closed) {
                Some(table) => record
                    .iter()
                    .filter(|(key, _)| table.fields.iter().any(|f| &f.key == *key))
                    .map(|(key, value)| (key.clone(), value.clone()))
                    .collect(),
                None => record.clone(),
            };
            assert!(back == expected, "{}: export(import(r)) != r", adapter.info().name);
        }
    }
});
