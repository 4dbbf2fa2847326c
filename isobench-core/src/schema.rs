//! The embedded JSON Schemas of the canonical record, and the two profiles.

use std::sync::OnceLock;

use serde_json::Value;

mod walk;

pub use walk::Walk;

/// The published canonical v1 JSON Schema, verbatim.
pub const CANONICAL_V1: &str = include_str!("../schemas/canonical.v1.schema.json");

/// The lossless profile's schema: v1's fields and types, only `repo` and `instance_id`
/// required, plus `extensions`.
pub const CANONICAL_V1_LOSSLESS: &str =
    include_str!("../schemas/canonical.v1.lossless.schema.json");

/// One thing wrong with a record.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Problem {
    /// Where, as a JSON pointer into the record (`""` for the record itself).
    pub pointer: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.pointer.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "`{}`: {}", self.pointer, self.message)
        }
    }
}

/// Which canonical profile a record must follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// The v1 fields the source can fill, plus `extensions`; required fields the source
    /// cannot fill are left out and counted.
    #[default]
    Lossless,
    /// Exactly canonical v1: every required field, no extra key.
    Strict,
}

impl Profile {
    /// The profile's name on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Lossless => "lossless",
            Self::Strict => "strict",
        }
    }

    /// The profile's JSON Schema.
    pub fn schema(self) -> &'static Value {
        static STRICT: OnceLock<Value> = OnceLock::new();
        static LOSSLESS: OnceLock<Value> = OnceLock::new();
        let (cell, text) = match self {
            Self::Strict => (&STRICT, CANONICAL_V1),
            Self::Lossless => (&LOSSLESS, CANONICAL_V1_LOSSLESS),
        };
        cell.get_or_init(|| serde_json::from_str(text).expect("the embedded schema is valid JSON"))
    }

    /// The profile's schema as a [`Walk`], when it is made of the plain keywords a walk
    /// checks (both embedded schemas are): the quick way to tell that a record is valid.
    pub fn walk(self) -> Option<&'static Walk> {
        static STRICT: OnceLock<Option<Walk>> = OnceLock::new();
        static LOSSLESS: OnceLock<Option<Walk>> = OnceLock::new();
        let cell = match self {
            Self::Strict => &STRICT,
            Self::Lossless => &LOSSLESS,
        };
        cell.get_or_init(|| Walk::compile(self.schema())).as_ref()
    }

    /// The profile's compiled validator.
    #[cfg(feature = "schema-validation")]
    pub fn validator(self) -> &'static SchemaValidator {
        static STRICT: OnceLock<SchemaValidator> = OnceLock::new();
        static LOSSLESS: OnceLock<SchemaValidator> = OnceLock::new();
        let cell = match self {
            Self::Strict => &STRICT,
            Self::Lossless => &LOSSLESS,
        };
        cell.get_or_init(|| {
            SchemaValidator::new(self.schema()).expect("the embedded schema compiles")
        })
    }
}

impl std::fmt::Display for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A compiled JSON Schema.
#[cfg(feature = "schema-validation")]
#[derive(Debug)]
pub struct SchemaValidator(jsonschema::Validator);

/// A schema that does not compile.
#[cfg(feature = "schema-validation")]
#[derive(Debug, thiserror::Error)]
#[error("invalid JSON Schema: {0}")]
pub struct SchemaError(String);

#[cfg(feature = "schema-validation")]
impl SchemaValidator {
    /// Compiles a schema (any draft the `$schema` keyword names; 2020-12 by default).
    pub fn new(schema: &Value) -> Result<Self, SchemaError> {
        jsonschema::validator_for(schema)
            .map(Self)
            .map_err(|e| SchemaError(e.to_string()))
    }

    /// Every place where `instance` breaks the schema.
    pub fn problems(&self, instance: &Value) -> Vec<Problem> {
        self.0
            .iter_errors(instance)
            .map(|e| {
                let mut pointer = e.instance_path().to_string();
                // A missing property is reported at its parent; point at the property.
                if let jsonschema::error::ValidationErrorKind::Required { property } = e.kind()
                    && let Some(name) = property.as_str()
                {
                    pointer = format!("{pointer}/{}", crate::error::pointer_token(name));
                }
                Problem {
                    pointer,
                    message: e.to_string(),
                }
            })
            .collect()
    }

    /// Whether `instance` is valid.
    pub fn is_valid(&self, instance: &Value) -> bool {
        self.0.is_valid(instance)
    }
}

#[cfg(all(test, feature = "schema-validation"))]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    /// Whether the lossless profile's walk accepts `record`.
    fn walked(record: &Value) -> bool {
        Profile::Lossless
            .walk()
            .expect("the lossless schema is walked")
            .accepts(record)
    }

    /// The top-level keys the generated records take: every v1 field, and one the
    /// schema does not know.
    fn record_keys() -> Vec<&'static str> {
        let mut keys = crate::record::V1_FIELDS.to_vec();
        keys.push("unknown");
        keys
    }

    /// The keys of the generated `extensions`: the shared vocabulary, `source`, and one
    /// of no vocabulary.
    fn extension_keys() -> Vec<&'static str> {
        let mut keys = crate::vocab::SHARED_KEYS.to_vec();
        keys.extend(["source", "other"]);
        keys
    }

    /// The keys of the generated `source` blocks.
    const SOURCE_KEYS: [&str; 7] = [
        "format",
        "keys",
        "encodings",
        "raw",
        "extra",
        "replaced",
        "other",
    ];

    /// A value of a shape some keyword of the schema takes or refuses: strings (the
    /// enum's among them), numbers, arrays of strings or of numbers (empty or not, some
    /// mixed), objects, null and booleans.
    fn any_value() -> BoxedStrategy<Value> {
        let leaf = prop_oneof![
            prop::sample::select(vec!["a", "", "pytest_nodeid", "python_script"])
                .prop_map(Value::from),
            any::<i32>().prop_map(Value::from),
            (-1e3f64..1e3).prop_map(Value::from),
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::vec("[a-c]{0,2}", 0..4).prop_map(Value::from),
                prop::collection::vec(any::<i16>(), 0..3).prop_map(Value::from),
                prop::collection::vec(("[a-c]", inner), 0..4)
                    .prop_map(|entries| Value::Object(entries.into_iter().collect())),
            ]
        })
        .boxed()
    }

    /// A value for `key` (of the record, of `extensions` or of its `source`): mostly one
    /// of the type the schema asks there, so that a record often breaks it in one place
    /// or none, else of any shape.
    fn near(key: &'static str) -> BoxedStrategy<Value> {
        let strings = || prop::collection::vec("[a-c]{0,2}", 0..3).prop_map(Value::from);
        let typical = match key {
            "patch_functions" | "test_functions" | "efficiency_test" | "setup_commands"
            | "install_commands" | "fail_to_pass" | "pass_to_pass" | "keys" => strings().boxed(),
            "duration_changes" => prop::collection::vec(timing(), 0..3)
                .prop_map(Value::Array)
                .boxed(),
            "human_performance" => (-1e3f64..1e3).prop_map(Value::from).boxed(),
            "efficiency_test_kind" => {
                prop::sample::select(vec!["pytest_nodeid", "python_script", "other"])
                    .prop_map(Value::from)
                    .boxed()
            }
            "patch_functions_by_file" => {
                let list = prop_oneof![4 => strings(), 1 => any_value()];
                prop::collection::vec(("[a-c]", list), 0..3)
                    .prop_map(|files| Value::Object(files.into_iter().collect()))
                    .boxed()
            }
            "encodings" => {
                let encoding = prop_oneof![4 => "[a-c]".prop_map(Value::from), 1 => any_value()];
                prop::collection::vec(("[a-c]", encoding), 0..3)
                    .prop_map(|parts| Value::Object(parts.into_iter().collect()))
                    .boxed()
            }
            "extensions" => object_of(extension_keys()),
            "source" => object_of(SOURCE_KEYS.to_vec()),
            "raw"
            | "extra"
            | "problem_statement_oracle"
            | "problem_statement_realistic"
            | "test_functions_raw"
            | "other"
            | "unknown" => any_value(),
            _ => "[a-c]{0,2}".prop_map(Value::from).boxed(),
        };
        prop_oneof![4 => typical, 1 => any_value()].boxed()
    }

    /// An item of `duration_changes`: mostly `base` and `head` of numbers, sometimes
    /// without one, with another key, empty, or of strings.
    fn timing() -> impl Strategy<Value = Value> {
        let numbers = || prop::collection::vec(any::<i16>(), 0..3);
        (numbers(), numbers(), 0u8..8).prop_map(|(base, head, shape)| {
            let mut pair = json!({"base": base, "head": head});
            let entries = pair.as_object_mut().expect("an object");
            match shape {
                0 => drop(entries.remove("head")),
                1 => drop(entries.insert("other".into(), json!([1]))),
                2 => drop(entries.insert("base".into(), json!(["1"]))),
                _ => {}
            }
            pair
        })
    }

    /// An object of some of `keys`, each with a value [near](near) what the schema asks.
    fn object_of(keys: Vec<&'static str>) -> BoxedStrategy<Value> {
        prop::collection::vec(prop::sample::select(keys), 0..8)
            .prop_flat_map(|keys| {
                keys.into_iter()
                    .map(|key| near(key).prop_map(move |value| (key.to_owned(), value)))
                    .collect::<Vec<_>>()
            })
            .prop_map(|entries| Value::Object(entries.into_iter().collect()))
            .boxed()
    }

    /// A record near the lossless schema's edges: any of its keys, mostly with a value
    /// of its type, `extensions` of the vocabulary's keys and a `source` block likewise,
    /// `repo` and `instance_id` mostly there.
    fn record() -> impl Strategy<Value = Value> {
        (object_of(record_keys()), 0u8..8).prop_map(|(mut record, ids)| {
            let entries = record.as_object_mut().expect("an object");
            if ids != 0 {
                entries.insert("repo".into(), "o/r".into());
            }
            if ids != 1 {
                entries.insert("instance_id".into(), "o__r-1".into());
            }
            record
        })
    }
    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        /// Each profile's walk accepts exactly the records its compiled schema accepts.
        #[test]
        fn the_walks_accept_what_the_schemas_accept(record in record()) {
            for profile in [Profile::Lossless, Profile::Strict] {
                let walk = profile.walk().expect("both schemas are walked");
                prop_assert_eq!(walk.accepts(&record), profile.validator().is_valid(&record), "{} {}", profile, record);
            }
        }
    }

    /// Records of every key the schema names, each valid and then made invalid one way,
    /// are judged by the walk as the compiled schema judges them; and the records
    /// generated above take every key the schema names.
    #[test]
    fn the_lossless_walk_judges_each_edge_as_the_schema_does() {
        let valid = json!({
            "repo": "o/r", "instance_id": "o__r-1", "created_at": "2024-01-01T00:00:00Z",
            "base_commit": "a", "head_commit": "b", "patch": "p", "test_patch": "t",
            "patch_functions": ["f"], "test_functions": [], "efficiency_test": ["e"],
            "problem_statement_oracle": {"x": 1}, "problem_statement_realistic": null,
            "duration_changes": [{"base": [1], "head": [2.5]}], "human_performance": 1.5,
            "version": "1", "setup_commands": ["s"], "install_commands": [],
            "api": "a", "gt_commit_message": "m", "notes": "n",
            "extensions": {
                "problem_statement": "p", "hints_text": "h", "fail_to_pass": ["t"],
                "pass_to_pass": [],
                "patch_functions_by_file": {"f.py": ["g"]}, "test_functions_raw": 3,
                "efficiency_test_kind": "python_script", "anything": [1, {}],
                "source": {"format": "f", "keys": ["a"], "encodings": {"a": "json"},
                           "raw": {"a": 1}, "extra": {}, "more": 1}
            }
        });
        let validator = Profile::Lossless.validator();
        assert!(validator.is_valid(&valid) && walked(&valid));
        let breaks: [(&str, Value); 16] = [
            ("/repo", json!(1)),
            ("/efficiency_test", json!([])),
            ("/patch_functions", json!([1])),
            ("/duration_changes", json!([])),
            ("/duration_changes/0/base", json!([])),
            ("/duration_changes/0/head", json!(["1"])),
            ("/human_performance", json!("1")),
            ("/extensions/hints_text", json!(null)),
            ("/extensions/fail_to_pass", json!("t")),
            ("/extensions/patch_functions_by_file/f.py", json!("g")),
            ("/extensions/efficiency_test_kind", json!("other")),
            ("/extensions/source/format", json!(1)),
            ("/extensions/source/keys", json!([1])),
            ("/extensions/source/encodings/a", json!(["json"])),
            ("/extensions/source/raw", json!([])),
            ("/extensions/source/extra", json!("x")),
        ];
        for (pointer, value) in breaks {
            let mut record = valid.clone();
            *record.pointer_mut(pointer).expect("a key of the record") = value;
            assert!(!validator.is_valid(&record), "{pointer}");
            assert!(!walked(&record), "{pointer}");
        }
        for key in [
            "repo",
            "instance_id",
            "extensions/source/format",
            "duration_changes/0/head",
        ] {
            let mut record = valid.clone();
            let (parent, last) = key.rsplit_once('/').unwrap_or(("", key));
            let parent = record
                .pointer_mut(&if parent.is_empty() {
                    String::new()
                } else {
                    format!("/{parent}")
                })
                .and_then(Value::as_object_mut)
                .expect("an object");
            parent.remove(last);
            assert!(!validator.is_valid(&record), "{key}");
            assert!(!walked(&record), "{key}");
        }
        let known = |object: &Value| -> Vec<String> {
            object["properties"]
                .as_object()
                .expect("properties")
                .keys()
                .cloned()
                .collect()
        };
        let schema = Profile::Lossless.schema();
        let mut schema_keys = known(schema);
        schema_keys.push("unknown".into());
        assert_eq!(schema_keys, record_keys());
        let extensions = &schema["properties"]["extensions"];
        let mut vocabulary = known(extensions);
        vocabulary.push("other".into());
        let mut expected: Vec<String> = extension_keys().into_iter().map(String::from).collect();
        vocabulary.sort();
        expected.sort();
        assert_eq!(vocabulary, expected);
        let mut parts = known(&extensions["properties"]["source"]);
        parts.push("other".into());
        assert_eq!(parts, SOURCE_KEYS);
    }
}
