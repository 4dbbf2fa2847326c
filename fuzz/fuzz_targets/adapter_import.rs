//! `import` of every built-in adapter on arbitrary JSON: never a panic, and a record an
//! adapter accepts exports back to itself (the round-trip contract).
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
            assert!(back == record, "{}: export(import(r)) != r", adapter.info().name);
        }
    }
});
