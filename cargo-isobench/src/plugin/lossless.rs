//! A plugin's canonical record decoded straight into [`CanonicalRecord`], with every
//! check of the lossless profile, without building a [`Value`] tree first.
//!
//! This is the fast path of [`super::native`]: it accepts a record only when the
//! lossless schema and the semantic checks of [`isobench_core::validate_record`] accept
//! it, and it gives the record `serde_json::from_value` would give. It never explains a
//! refusal: whatever it does not accept goes down the slow path (a [`Value`], the
//! schema, `from_value`), which names the field and the rule broken. What the typed
//! decode cannot see is checked by hand below:
//!
//! * a JSON `null` where the schema wants a string, list, number or object (an
//!   `Option` field would take it for "absent");
//! * an array where the schema wants an object (serde's derived structs accept both);
//! * a key the schema does not know (`deny_unknown_fields`);
//! * `required` (`repo`, `instance_id`), `minItems` (`efficiency_test`,
//!   `duration_changes` and each timing list), `extensions` against the schema's own
//!   `extensions` sub-schema, and the semantic checks (timings aligned with tests, a
//!   finite non-negative `human_performance`).

use std::fmt;
use std::marker::PhantomData;
use std::sync::OnceLock;

use isobench_core::record::DurationChange;
use isobench_core::schema::SchemaValidator;
use isobench_core::{CanonicalRecord, Profile};
use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::{Map, Number, Value};

/// A canonical record the lossless profile accepts, or `None` for "take the slow path".
#[derive(Debug)]
pub struct Lossless(pub Option<CanonicalRecord>);

impl<'de> Deserialize<'de> for Lossless {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let Object(fields) = Object::<Fields>::deserialize(deserializer)?;
        Ok(Self(fields.check()))
    }
}

/// `T`, read only from a JSON object (derived structs also read arrays, by position).
struct Object<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Only<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for Only<T> {
            type Value = T;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map))
            }
        }
        deserializer.deserialize_map(Only(PhantomData)).map(Object)
    }
}

/// A field that, when present, holds a `T` (never `null`).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

fn timings<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<DurationChange>>, D::Error> {
    let items = Vec::<Object<DurationChange>>::deserialize(d)?;
    Ok(Some(items.into_iter().map(|Object(t)| t).collect()))
}

/// The lossless schema's properties, each with the type it allows.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Fields {
    #[serde(default, deserialize_with = "present")]
    repo: Option<String>,
    #[serde(default, deserialize_with = "present")]
    instance_id: Option<String>,
    #[serde(default, deserialize_with = "present")]
    created_at: Option<String>,
    #[serde(default, deserialize_with = "present")]
    base_commit: Option<String>,
    #[serde(default, deserialize_with = "present")]
    head_commit: Option<String>,
    #[serde(default, deserialize_with = "present")]
    patch: Option<String>,
    #[serde(default, deserialize_with = "present")]
    test_patch: Option<String>,
    #[serde(default, deserialize_with = "present")]
    patch_functions: Option<Vec<String>>,
    #[serde(default, deserialize_with = "present")]
    test_functions: Option<Vec<String>>,
    #[serde(default, deserialize_with = "present")]
    efficiency_test: Option<Vec<String>>,
    // Any JSON value (`{}` in the schema); `null` is "absent", as in `CanonicalRecord`.
    #[serde(default)]
    problem_statement_oracle: Option<Value>,
    #[serde(default)]
    problem_statement_realistic: Option<Value>,
    #[serde(default, deserialize_with = "timings")]
    duration_changes: Option<Vec<DurationChange>>,
    #[serde(default, deserialize_with = "present")]
    human_performance: Option<Number>,
    #[serde(default, deserialize_with = "present")]
    version: Option<String>,
    #[serde(default, deserialize_with = "present")]
    setup_commands: Option<Vec<String>>,
    #[serde(default, deserialize_with = "present")]
    install_commands: Option<Vec<String>>,
    #[serde(default, deserialize_with = "present")]
    api: Option<String>,
    #[serde(default, deserialize_with = "present")]
    gt_commit_message: Option<String>,
    #[serde(default, deserialize_with = "present")]
    notes: Option<String>,
    #[serde(default, deserialize_with = "present")]
    extensions: Option<Map<String, Value>>,
}

/// The lossless schema's `extensions` sub-schema, compiled on its own.
fn extensions_validator() -> &'static SchemaValidator {
    static VALIDATOR: OnceLock<SchemaValidator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        let root = Profile::Lossless.schema();
        let mut schema = root["properties"]["extensions"].clone();
        if let (Value::Object(map), Some(draft)) = (&mut schema, root.get("$schema")) {
            map.insert("$schema".into(), draft.clone());
        }
        SchemaValidator::new(&schema).expect("a sub-schema of the embedded schema compiles")
    })
}

impl Fields {
    /// The record, when every check the typed decode left open passes.
    fn check(self) -> Option<CanonicalRecord> {
        let Self {
            repo,
            instance_id,
            created_at,
            base_commit,
            head_commit,
            patch,
            test_patch,
            patch_functions,
            test_functions,
            efficiency_test,
            problem_statement_oracle,
            problem_statement_realistic,
            duration_changes,
            human_performance,
            version,
            setup_commands,
            install_commands,
            api,
            gt_commit_message,
            notes,
            extensions,
        } = self;
        // `required`.
        if repo.is_none() || instance_id.is_none() {
            return None;
        }
        // `minItems: 1`.
        if efficiency_test.as_ref().is_some_and(Vec::is_empty) {
            return None;
        }
        if let Some(timings) = &duration_changes
            && (timings.is_empty()
                || timings
                    .iter()
                    .any(|t| t.base.is_empty() || t.head.is_empty()))
        {
            return None;
        }
        // The semantic checks: one timing per efficiency test, a sane human performance.
        if let (Some(tests), Some(timings)) = (&efficiency_test, &duration_changes)
            && tests.len() != timings.len()
        {
            return None;
        }
        if let Some(hp) = &human_performance
            && !hp
                .as_f64()
                .is_some_and(isobench_core::validate::valid_human_performance)
        {
            return None;
        }
        let extensions = match extensions {
            None => Map::new(),
            Some(map) if map.is_empty() => map,
            Some(map) => {
                let value = Value::Object(map);
                if !extensions_validator().is_valid(&value) {
                    return None;
                }
                let Value::Object(map) = value else {
                    unreachable!("built as an object above")
                };
                map
            }
        };
        Some(CanonicalRecord {
            repo,
            instance_id,
            created_at,
            base_commit,
            head_commit,
            patch,
            test_patch,
            patch_functions,
            test_functions,
            efficiency_test,
            problem_statement_oracle,
            problem_statement_realistic,
            duration_changes,
            human_performance,
            version,
            setup_commands,
            install_commands,
            api,
            gt_commit_message,
            notes,
            extensions,
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::plugin::native::{check_import, read_valid_import};
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
