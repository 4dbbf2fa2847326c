//! A JSON Schema of plain keywords, compiled into a walk over a value.
//!
//! The canonical profiles' schemas say only what type each field is, what a list holds
//! and how short it may be, which keys an object must and may have, and which strings
//! an enumeration allows. Compiled from the schema's own text, those keywords are
//! checked by one walk over a record's entries that neither hashes nor allocates; the
//! full validator is then needed only to say where a record it refuses breaks the
//! schema. A schema with any other keyword (a pattern, a reference, a type list, ...)
//! compiles to no walk, and every record is left to the full validator.

use serde_json::{Map, Value};

/// Keywords that say nothing of whether a value is valid.
const ANNOTATIONS: [&str; 10] = [
    "$schema",
    "$id",
    "$comment",
    "title",
    "description",
    "examples",
    "default",
    "deprecated",
    "readOnly",
    "writeOnly",
];

/// A schema of plain keywords (see the module's documentation), ready to walk.
#[derive(Debug, Default)]
pub struct Walk {
    /// `type`, when the schema names one.
    kind: Option<Kind>,
    /// `enum`: the values allowed, none of them a number (whose equality JSON Schema
    /// defines otherwise than `serde_json`), an array or an object.
    allowed: Option<Vec<Value>>,
    /// `items`: what every item of an array must be.
    items: Option<Box<Walk>>,
    /// `minItems`.
    min_items: usize,
    /// `properties`, in the schema's order, each with whether `required` names it.
    properties: Vec<Property>,
    /// How many of `properties` are required.
    required_properties: usize,
    /// The keys `required` names that `properties` does not.
    required_elsewhere: Vec<String>,
    /// Whether the schema says nothing but `type` (or nothing at all): most of a
    /// record's values, checked without a call of their own.
    kind_only: bool,
    /// `additionalProperties`: what a key `properties` does not name may hold.
    additional: Additional,
}

/// One key of `properties`.
#[derive(Debug)]
struct Property {
    key: String,
    required: bool,
    walk: Walk,
}

/// What `additionalProperties` allows.
#[derive(Debug, Default)]
enum Additional {
    /// Any value (the keyword absent, or `true`).
    #[default]
    Any,
    /// No other key (`false`).
    Nothing,
    /// Values the schema allows.
    Each(Box<Walk>),
}

/// A JSON type `type` may name (`integer` is left to the full validator, which counts
/// `1.0` as one).
#[derive(Debug, Clone, Copy)]
enum Kind {
    String,
    Number,
    Boolean,
    Null,
    Array,
    Object,
}

impl Kind {
    fn named(name: &str) -> Option<Self> {
        Some(match name {
            "string" => Self::String,
            "number" => Self::Number,
            "boolean" => Self::Boolean,
            "null" => Self::Null,
            "array" => Self::Array,
            "object" => Self::Object,
            _ => return None,
        })
    }

    fn of(self, value: &Value) -> bool {
        match self {
            Self::String => value.is_string(),
            Self::Number => value.is_number(),
            Self::Boolean => value.is_boolean(),
            Self::Null => value.is_null(),
            Self::Array => value.is_array(),
            Self::Object => value.is_object(),
        }
    }
}

impl Walk {
    /// `schema` compiled, or `None` when it holds a keyword (or a form of one) this walk
    /// does not check.
    pub fn compile(schema: &Value) -> Option<Self> {
        let schema = match schema {
            Value::Bool(true) => return Some(Self::default()),
            Value::Object(schema) => schema,
            _ => return None,
        };
        let mut walk = Self::default();
        let mut required: Vec<&str> = Vec::new();
        for (keyword, value) in schema {
            match keyword.as_str() {
                "type" => walk.kind = Some(Kind::named(value.as_str()?)?),
                "enum" => {
                    let allowed = value.as_array()?;
                    let plain = |v: &Value| v.is_string() || v.is_boolean() || v.is_null();
                    if !allowed.iter().all(plain) {
                        return None;
                    }
                    walk.allowed = Some(allowed.clone());
                }
                "items" => walk.items = Some(Box::new(Self::compile(value)?)),
                "minItems" => walk.min_items = usize::try_from(value.as_u64()?).ok()?,
                "properties" => {
                    for (key, schema) in value.as_object()? {
                        walk.properties.push(Property {
                            key: key.clone(),
                            required: false,
                            walk: Self::compile(schema)?,
                        });
                    }
                }
                "required" => {
                    for key in value.as_array()? {
                        required.push(key.as_str()?);
                    }
                }
                "additionalProperties" => {
                    walk.additional = match value {
                        Value::Bool(true) => Additional::Any,
                        Value::Bool(false) => Additional::Nothing,
                        schema => Additional::Each(Box::new(Self::compile(schema)?)),
                    }
                }
                annotation if ANNOTATIONS.contains(&annotation) => {}
                _ => return None,
            }
        }
        for key in required {
            match walk.properties.iter_mut().find(|p| p.key == key) {
                Some(property) if !property.required => {
                    property.required = true;
                    walk.required_properties += 1;
                }
                Some(_) => {}
                None => walk.required_elsewhere.push(key.to_owned()),
            }
        }
        walk.kind_only = walk.allowed.is_none()
            && walk.items.is_none()
            && walk.min_items == 0
            && walk.properties.is_empty()
            && walk.required_elsewhere.is_empty()
            && matches!(walk.additional, Additional::Any);
        Some(walk)
    }

    /// Whether the schema accepts `value`.
    pub fn accepts(&self, value: &Value) -> bool {
        if self.kind_only {
            return self.kind.is_none_or(|kind| kind.of(value));
        }
        if self.kind.is_some_and(|kind| !kind.of(value)) {
            return false;
        }
        if let Some(allowed) = &self.allowed
            && !allowed.contains(value)
        {
            return false;
        }
        match value {
            Value::Array(items) => {
                items.len() >= self.min_items
                    && self
                        .items
                        .as_deref()
                        .is_none_or(|walk| items.iter().all(|item| walk.admits(item)))
            }
            Value::Object(entries) => self.accepts_entries(entries),
            _ => true,
        }
    }

    /// [`Walk::accepts`], with a value whose schema says only its type checked in place.
    #[inline]
    fn admits(&self, value: &Value) -> bool {
        if self.kind_only {
            self.kind.is_none_or(|kind| kind.of(value))
        } else {
            self.accepts(value)
        }
    }

    /// Whether the object keywords accept `entries`: each key walked against its
    /// property, looked for from the one after the last found (records list their keys
    /// in the schema's order), the required ones counted as they are met.
    fn accepts_entries(&self, entries: &Map<String, Value>) -> bool {
        let mut required = 0;
        let mut next = 0;
        for (key, value) in entries {
            let found = self.property(key, next);
            let walked = match found {
                Some(index) => {
                    let property = &self.properties[index];
                    required += usize::from(property.required);
                    next = index + 1;
                    property.walk.admits(value)
                }
                None => match &self.additional {
                    Additional::Any => true,
                    Additional::Nothing => false,
                    Additional::Each(walk) => walk.admits(value),
                },
            };
            if !walked {
                return false;
            }
        }
        // An object's keys are distinct: as many required properties met as there are.
        required == self.required_properties
            && self
                .required_elsewhere
                .iter()
                .all(|key| entries.contains_key(key))
    }

    /// The index of the property named `key`, looked for from `from` onwards and then
    /// from the start.
    fn property(&self, key: &str, from: usize) -> Option<usize> {
        let from = from.min(self.properties.len());
        let (before, after) = self.properties.split_at(from);
        let named = |p: &Property| p.key == key;
        after
            .iter()
            .position(named)
            .map(|i| from + i)
            .or_else(|| before.iter().position(named))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn both_canonical_schemas_are_walked() {
        for profile in [crate::Profile::Strict, crate::Profile::Lossless] {
            assert!(profile.walk().is_some(), "{profile}");
        }
    }

    #[test]
    fn keywords_it_does_not_check_leave_no_walk() {
        for schema in [
            json!({"type": "integer"}),
            json!({"type": ["string", "null"]}),
            json!({"enum": [1, "a"]}),
            json!({"pattern": "^a"}),
            json!({"items": [{"type": "string"}]}),
            json!({"properties": {"a": {"$ref": "#/$defs/a"}}}),
            json!({"additionalProperties": {"format": "date-time"}}),
            json!(false),
        ] {
            assert!(Walk::compile(&schema).is_none(), "{schema}");
        }
    }

    /// Checks the walk of `schema` on each value against the answer given, and against
    /// the full validator's.
    fn judged(schema: &Value, cases: &[(Value, bool)]) {
        let walk = Walk::compile(schema).expect("plain keywords");
        #[cfg(feature = "schema-validation")]
        let validator = crate::schema::SchemaValidator::new(schema).expect("a schema");
        for (value, accepted) in cases {
            assert_eq!(walk.accepts(value), *accepted, "{value}");
            #[cfg(feature = "schema-validation")]
            assert_eq!(validator.is_valid(value), *accepted, "{value}");
        }
    }

    #[test]
    fn required_keys_are_found_in_or_out_of_the_properties() {
        let schema = json!({
            "type": "object",
            "required": ["a", "z"],
            "properties": {"a": {"type": "string"}, "b": {}},
        });
        judged(
            &schema,
            &[
                (json!({"a": "x", "z": 1}), true),
                (json!({"z": null, "b": [], "a": "x"}), true),
                (json!({"a": "x"}), false),
                (json!({"z": 1, "b": 2}), false),
                (json!({"a": 1, "z": 1}), false),
                (json!(["a", "z"]), false),
            ],
        );
    }

    #[test]
    fn object_keywords_pass_values_of_other_types_and_list_keywords_likewise() {
        let schema = json!({
            "required": ["a"],
            "properties": {"a": {}},
            "additionalProperties": false,
            "minItems": 2,
            "items": {"enum": ["x", null]},
        });
        judged(
            &schema,
            &[
                (json!("text"), true),
                (json!(1.5), true),
                (json!(["x", null]), true),
                (json!(["x"]), false),
                (json!(["x", "y"]), false),
                (json!({"a": 1}), true),
                (json!({"a": 1, "b": 2}), false),
                (json!({}), false),
            ],
        );
    }

    #[test]
    fn additional_properties_take_a_schema() {
        let schema = json!({
            "properties": {"a": {"type": "number"}},
            "additionalProperties": {"type": "array", "items": {"type": "string"}},
        });
        judged(
            &schema,
            &[
                (json!({"a": 1, "b": ["x"]}), true),
                (json!({"b": [], "a": 2.5}), true),
                (json!({"a": "1"}), false),
                (json!({"b": [1]}), false),
                (json!({"b": "x"}), false),
            ],
        );
    }
}
