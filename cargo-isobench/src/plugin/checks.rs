//! The checks every plugin answer goes through, whatever carried it (a native call, a
//! program's line, a table plugin's hook): an imported record must be a canonical record
//! under the lossless profile, an exported one an object its plugin's schema accepts.

use isobench_core::adapter::AdapterInfo;
use isobench_core::schema::SchemaValidator;
use isobench_core::{CanonicalRecord, Profile, RecordError, validate_record};
use isobench_plugin_sdk::wire::Converted;
use serde_json::{Map, Value};

use super::lossless::Lossless;

/// Reads the answer of a successful `import` straight into a [`CanonicalRecord`]: `Some`
/// exactly when [`check_import`] would accept the record, with the record it would give;
/// `None` when it would refuse it (or the bytes are not such an answer), and then only
/// [`check_import`] can say why.
pub fn read_valid_import(bytes: &[u8]) -> Option<Converted<CanonicalRecord>> {
    // Checked as UTF-8 once, the text's strings are read without checking each again.
    match serde_json::from_str(std::str::from_utf8(bytes).ok()?) {
        Ok(Converted {
            record: Lossless(Some(record)),
            notes,
        }) => Some(Converted { record, notes }),
        _ => None,
    }
}

/// Checks an imported record: a canonical record under the lossless profile.
pub fn check_import(name: &str, value: Value) -> Result<CanonicalRecord, RecordError> {
    let problems = validate_record(&value, Profile::Lossless);
    if let Some(p) = problems.first() {
        return Err(RecordError::invalid(
            p.pointer.clone(),
            format!(
                "plugin adapter `{name}` returned an invalid canonical record: {}",
                p.message
            ),
        )
        .with_hint("a bug in the plugin: report it to its author with this record"));
    }
    serde_json::from_value(value).map_err(|e| {
        RecordError::invalid(
            "",
            format!("plugin adapter `{name}` returned an invalid canonical record: {e}"),
        )
    })
}

/// Checks an exported record: a JSON object following the plugin's own schema. A key the
/// record lacks is left to the plugin's contract, which `convert` checks next, with the
/// remedies.
pub fn check_export(
    info: &AdapterInfo,
    validator: Option<&SchemaValidator>,
    value: Value,
) -> Result<Map<String, Value>, RecordError> {
    let name = &info.name;
    let Value::Object(map) = value else {
        return Err(RecordError::invalid(
            "",
            format!(
                "plugin adapter `{name}` exported {}, not a JSON object",
                isobench_core::error::json_type_name(&value)
            ),
        ));
    };
    if let Some(validator) = validator {
        let record = Value::Object(map);
        // `is_valid` stops at the first failure and builds no error: collect the
        // problems only for a record that has some.
        let lacking = |pointer: &str| {
            info.contract.requires.iter().any(|r| {
                let at = r.pointer();
                (at == pointer || at.starts_with(&format!("{pointer}/")))
                    && record.pointer(pointer).is_none()
            })
        };
        if !validator.is_valid(&record)
            && let Some(p) = validator
                .problems(&record)
                .iter()
                .find(|p| !lacking(&p.pointer))
        {
            return Err(RecordError::invalid(
                p.pointer.clone(),
                format!(
                    "plugin adapter `{name}` exported a record its own schema refuses: {}",
                    p.message
                ),
            ));
        }
        let Value::Object(map) = record else {
            unreachable!("built as an object above")
        };
        return Ok(map);
    }
    Ok(map)
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::{check_import, read_valid_import};
    use isobench_plugin_sdk::wire::Converted;

    /// A record using every v1 field, valid under the lossless profile.
    fn full() -> Value {
        json!({
            "repo": "o/r", "instance_id": "o__r-1", "created_at": "2024-01-01T00:00:00Z",
            "base_commit": "a", "head_commit": "b", "patch": "p\n", "test_patch": "t",
            "patch_functions": ["f"], "test_functions": [], "efficiency_test": ["t1", "t2"],
            "problem_statement_oracle": {"text": "x"}, "problem_statement_realistic": null,
            "duration_changes": [{"base": [1, 2.5], "head": [0.5]}, {"base": [3], "head": [2]}],
            "human_performance": 0, "version": "1.0", "setup_commands": ["s"],
            "install_commands": [], "api": "a()", "gt_commit_message": "m", "notes": "n",
            "extensions": {
                "problem_statement": "crash", "fail_to_pass": ["a"], "efficiency_test_kind": "pytest_nodeid",
                "patch_functions_by_file": {"a.py": ["f"]}, "anything": [1, null, {"k": "v"}],
                "source": {"format": "x", "keys": ["id"], "encodings": {"id": "array"}, "extra": {"q": 1}}
            }
        })
    }

    fn with(pointer: &str, value: Value) -> Value {
        let mut record = full();
        *record.pointer_mut(pointer).expect("the pointer exists") = value;
        record
    }

    fn without(key: &str) -> Value {
        let mut record = full();
        record.as_object_mut().expect("an object").shift_remove(key);
        record
    }

    /// The fast path and the schema path agree on `answer`; returns whether it is valid.
    fn agree(answer: &str) -> bool {
        let fast = read_valid_import(answer.as_bytes());
        let slow = serde_json::from_str::<Converted>(answer)
            .map_err(|e| e.to_string())
            .and_then(|c| check_import("p", c.record).map_err(|e| e.message));
        match (&fast, &slow) {
            (Some(f), Ok(s)) => assert_eq!(&f.record, s, "{answer}"),
            (None, Err(_)) => {}
            _ => panic!("fast {fast:?} but schema {slow:?} for {answer}"),
        }
        fast.is_some()
    }

    fn answer(record: &Value) -> String {
        json!({"record": record, "notes": [{"kind": "dropped", "field": "f", "detail": "d"}]})
            .to_string()
    }

    #[test]
    fn valid_records_take_the_fast_path_and_equal_the_schema_path() {
        let minimal = json!({"repo": "o/r", "instance_id": "i"});
        for record in [
            full(),
            minimal,
            without("extensions"),
            without("problem_statement_oracle"),
            with("/extensions", json!({})),
            with("/human_performance", json!(1e300)),
            with("/problem_statement_oracle", json!(null)),
        ] {
            assert!(agree(&answer(&record)), "{record}");
        }
        let notes = read_valid_import(answer(&full()).as_bytes())
            .expect("valid")
            .notes;
        assert_eq!(notes.len(), 1);
    }

    #[test]
    fn every_schema_violation_is_left_to_the_schema_path() {
        let cases = [
            // Wrong types, including `null` for an optional field.
            with("/repo", json!(7)),
            with("/created_at", json!(null)),
            with("/patch_functions", json!("f")),
            with("/patch_functions/0", json!(1)),
            with("/efficiency_test", json!(null)),
            with("/human_performance", json!("fast")),
            // A NaN written by serde_json.
            with("/human_performance", json!(null)),
            with("/duration_changes/0/base/0", json!("slow")),
            with("/duration_changes/0", json!([[1], [2]])),
            with(
                "/duration_changes/0",
                json!({"base": [1], "head": [1], "mid": [1]}),
            ),
            with("/duration_changes/0", json!({"base": [1]})),
            with("/extensions", json!(null)),
            with("/extensions", json!([])),
            // `required`, `minItems`, `enum`, typed extensions and the source block.
            without("repo"),
            without("instance_id"),
            with("/efficiency_test", json!([])),
            with("/duration_changes", json!([])),
            with("/duration_changes/1/head", json!([])),
            with("/extensions/efficiency_test_kind", json!("bogus")),
            with("/extensions/problem_statement", json!(1)),
            with("/extensions/patch_functions_by_file/a.py", json!("f")),
            with("/extensions/source/keys", json!([1])),
            with("/extensions/source/encodings/id", json!(null)),
            with("/extensions/source", json!({"keys": []})),
            // The semantic checks: timings aligned with tests, a non-negative number.
            with("/efficiency_test", json!(["t1"])),
            with("/human_performance", json!(-1)),
            // An unknown top-level field; an array where the record should be.
            {
                let mut record = full();
                record["colour"] = json!("blue");
                record
            },
            json!(["o/r", "i"]),
            json!("o/r"),
        ];
        for record in &cases {
            assert!(!agree(&answer(record)), "accepted {record}");
        }
    }

    #[test]
    fn answers_that_are_not_json_or_repeat_a_field_are_left_to_the_slow_path() {
        for text in [
            r#"{"record": {"repo": "o/r", "instance_id": "i", "human_performance": NaN}}"#,
            r#"{"record": {"repo": "o/r", "instance_id": "i"}"#,
            r#"{"record": {"repo": "o/r", "repo": "o/s", "instance_id": "i"}}"#,
            r#"{"notes": []}"#,
        ] {
            assert!(read_valid_import(text.as_bytes()).is_none(), "{text}");
        }
    }
}
