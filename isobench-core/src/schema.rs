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
