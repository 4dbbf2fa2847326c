//! The program-plugin protocol decoder on arbitrary answer lines: never a panic; an `ok`
//! answer is decoded as a conversion and its record checked as the host checks every
//! record a plugin returns; a record that passes the check is a canonical record.
#![no_main]

use cargo_isobench::plugin::checks::{check_export, check_import};
use cargo_isobench::plugin::program::{AnswerError, decode_answer};
use isobench_core::Notes;
use isobench_core::adapter::AdapterInfo;
use isobench_plugin_sdk::wire::{self, Converted, Manifest};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&id, line)) = data.split_first() else {
        return;
    };
    let Ok(line) = std::str::from_utf8(line) else {
        return;
    };
    let id = u64::from(id % 4);
    let ok = match decode_answer(line, id) {
        Ok(ok) => ok,
        Err(AnswerError::Refused(e)) => {
            assert!(!e.message.is_empty() || line.contains("\"message\""));
            return;
        }
        Err(AnswerError::Broken(what)) => {
            assert!(!what.is_empty());
            return;
        }
    };
    let _ = serde_json::from_value::<Manifest>(ok.clone());
    let Ok(converted) = serde_json::from_value::<Converted>(ok) else {
        return;
    };
    let mut notes = Notes::new();
    wire::notes_from_wire(converted.notes, &mut notes);
    let info = AdapterInfo::new("fuzz", &[], "a fuzzed program plugin");
    let _ = check_export(&info, None, converted.record.clone());
    if let Ok(record) = check_import("fuzz", converted.record) {
        let value = record.to_value();
        assert!(
            isobench_core::validate_record(&value, isobench_core::Profile::Lossless).is_empty(),
            "a record that passed the check is not valid once re-serialised: {value}"
        );
    }
});
