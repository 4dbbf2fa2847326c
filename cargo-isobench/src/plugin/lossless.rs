//! A plugin's canonical record decoded straight into [`CanonicalRecord`], with every
//! check of the lossless profile, without building a [`Value`] tree first.
//!
//! This is the fast path of [`super::checks`]: it accepts a record only when the
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
            held: Vec::new(),
        })
    }
}
