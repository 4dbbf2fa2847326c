//! A field of a [table](super): where a canonical field is in the foreign record, how its
//! value is written there, and what the format's consumer needs of it.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::codec::Encoding;
use crate::contract::{Kind, Known, Requirement};

/// How a field's value is written in the foreign record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum FieldType {
    /// A JSON string.
    #[default]
    String,
    /// A date-time string: read into RFC 3339 (UTC when it has a zone), written back as
    /// the source had it.
    Timestamp,
    /// A list of strings, as [`Field::encoding`] says (an array by default); an import
    /// reads any of the encodings.
    List,
    /// A JSON integer.
    Integer,
    /// A JSON array of integers (line numbers, issue numbers).
    IntegerList,
    /// A JSON number.
    Number,
    /// `true` or `false`.
    Boolean,
    /// Any JSON value (an object, an array), moved as it is.
    Json,
    /// Always `null`: a column the format has but never fills.
    Null,
}

impl FieldType {
    /// The JSON Schema of a value of this type.
    pub(super) fn schema(self, encoding: Encoding) -> Value {
        match self {
            Self::String | Self::Timestamp => json!({ "type": "string" }),
            Self::List if encoding == Encoding::Native => {
                json!({ "type": "array", "items": { "type": "string" } })
            }
            Self::List => json!({ "type": ["string", "array"], "items": { "type": "string" } }),
            Self::Integer => json!({ "type": "integer" }),
            Self::IntegerList => json!({ "type": "array", "items": { "type": "integer" } }),
            Self::Number => json!({ "type": "number" }),
            Self::Boolean => json!({ "type": "boolean" }),
            Self::Json => json!({}),
            Self::Null => json!({ "type": "null" }),
        }
    }

    /// The contract kind a consumer needs a value of this type in.
    fn kind(self, encoding: Encoding) -> Kind {
        match self {
            Self::String | Self::Timestamp | Self::Null => Kind::String,
            Self::Boolean => Kind::Boolean,
            Self::Json => Kind::Any,
            Self::List if encoding == Encoding::Native => Kind::List,
            Self::List if encoding == Encoding::PythonRepr => Kind::ListOrPythonRepr,
            Self::List => Kind::ListOrEncoded,
            Self::Integer => Kind::Integer,
            Self::IntegerList => Kind::IntegerList,
            Self::Number => Kind::Number,
        }
    }

    /// The kind a value of this type has when the table itself requires the key on
    /// export: exactly the declared type (a `json` field, any value but `null`).
    fn declared_kind(self, encoding: Encoding) -> Kind {
        match self {
            Self::Null => Kind::Any,
            other => other.kind(encoding),
        }
    }

    /// How the type reads in a message: "a string", "an array of integers", ...
    pub fn describe(self) -> &'static str {
        match self {
            Self::String => "a string",
            Self::Timestamp => "a date-time string",
            Self::List => "a list of strings",
            Self::Integer => "an integer",
            Self::IntegerList => "an array of integers",
            Self::Number => "a number",
            Self::Boolean => "true or false",
            Self::Json => "any JSON value",
            Self::Null => "null",
        }
    }

    /// Whether `value` is a value of this type, as the foreign record holds it (a list,
    /// in any of its encodings).
    pub fn fits(self, value: &Value) -> bool {
        let integer = |v: &Value| v.as_number().is_some_and(|n| n.is_i64() || n.is_u64());
        match self {
            Self::String | Self::Timestamp => value.is_string(),
            Self::List => crate::codec::decode_list(value, "").is_ok(),
            Self::Integer => integer(value),
            Self::IntegerList => value
                .as_array()
                .is_some_and(|items| items.iter().all(integer)),
            Self::Number => value.is_number(),
            Self::Boolean => value.is_boolean(),
            Self::Json => true,
            Self::Null => value.is_null(),
        }
    }
}

/// A list's encoding, as a table names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ListEncoding {
    /// A JSON array.
    #[default]
    Array,
    /// A string holding compact JSON (`["a","b"]`).
    Json,
    /// A string holding JSON as Python's `json.dumps` writes it (`["a", "b"]`).
    JsonSpaced,
    /// A string holding a Python literal (`['a', 'b']`).
    PythonRepr,
}

impl From<ListEncoding> for Encoding {
    fn from(encoding: ListEncoding) -> Self {
        match encoding {
            ListEncoding::Array => Self::Native,
            ListEncoding::Json => Self::Json,
            ListEncoding::JsonSpaced => Self::JsonSpaced,
            ListEncoding::PythonRepr => Self::PythonRepr,
        }
    }
}

/// What the format's own consumer needs of a field (see [`Contract`]).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Need {
    /// Where the consumer needs it: its file and function.
    pub evidence: String,
    /// Whether an empty value is refused too.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub non_empty: bool,
    /// Another way to supply it, beyond `--set`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remedy: Option<String>,
    /// The value the format itself uses to mean "none", written for a record whose
    /// source has no such concept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub none_value: Option<Value>,
    /// The only values the consumer knows, where it looks the value up in a table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub known: Option<Known>,
}

/// One key of a format.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Field {
    /// The key in the foreign record.
    pub key: String,
    /// The canonical field it maps to: a v1 field (`patch`), or `extensions.<key>`
    /// (shared vocabulary such as `extensions.fail_to_pass`, or a key of the format's
    /// own). Without one, the value is kept for the round trip only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// How its value is written.
    #[serde(rename = "type", default)]
    pub kind: FieldType,
    /// For a list: how it is written for a record from another format.
    #[serde(default, skip_serializing_if = "is_default")]
    pub encoding: ListEncoding,
    /// Whether an import refuses a record without it; an export then refuses a record
    /// it cannot write the key for too, unless [`Field::import_only`].
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub required: bool,
    /// Whether `required` holds for an import only: records of the format always have
    /// the key, but its consumer does without it, so an export may leave it out.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub import_only: bool,
    /// Whether the adapter's [`Hooks`] read and write it instead of the table.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hook: bool,
    /// What the format's consumer needs of it, if anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub consumer: Option<Need>,
}

fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

impl Field {
    /// A string field `key` mapped to the canonical `to`.
    pub fn new(key: &str, to: &str) -> Self {
        Self {
            key: key.to_owned(),
            to: (!to.is_empty()).then(|| to.to_owned()),
            kind: FieldType::String,
            encoding: ListEncoding::Array,
            required: false,
            import_only: false,
            hook: false,
            consumer: None,
        }
    }

    /// Sets the field's type.
    #[must_use]
    pub fn kind(mut self, kind: FieldType) -> Self {
        self.kind = kind;
        self
    }

    /// Makes the field a list written in `encoding`.
    #[must_use]
    pub fn list(mut self, encoding: ListEncoding) -> Self {
        self.kind = FieldType::List;
        self.encoding = encoding;
        self
    }

    /// Makes an import refuse a record without the field.
    #[must_use]
    pub fn required(mut self) -> Self {
        self.required = true;
        self
    }

    /// Makes `required` hold for an import only (see [`Field::import_only`]).
    #[must_use]
    pub fn import_only(mut self) -> Self {
        self.import_only = true;
        self
    }

    /// Leaves the field to the adapter's hooks.
    #[must_use]
    pub fn hook(mut self) -> Self {
        self.hook = true;
        self
    }

    /// Declares that the format's consumer needs the field, as `evidence` shows.
    #[must_use]
    pub fn consumer(mut self, evidence: &str) -> Self {
        self.consumer = Some(Need {
            evidence: evidence.to_owned(),
            ..Need::default()
        });
        self
    }

    /// The consumer also refuses an empty value (after [`Field::consumer`]).
    #[must_use]
    pub fn non_empty(mut self) -> Self {
        if let Some(need) = &mut self.consumer {
            need.non_empty = true;
        }
        self
    }

    /// The format's own "none" value (after [`Field::consumer`]).
    #[must_use]
    pub fn none_value(mut self, value: impl Into<Value>) -> Self {
        if let Some(need) = &mut self.consumer {
            need.none_value = Some(value.into());
        }
        self
    }

    /// The only values the consumer knows (after [`Field::consumer`]).
    #[must_use]
    pub fn known(mut self, known: Known) -> Self {
        if let Some(need) = &mut self.consumer {
            need.known = Some(known);
        }
        self
    }

    /// Another way to supply the value (after [`Field::consumer`]).
    #[must_use]
    pub fn remedy(mut self, remedy: &str) -> Self {
        if let Some(need) = &mut self.consumer {
            need.remedy = Some(remedy.to_owned());
        }
        self
    }

    /// The encoding a list is written in.
    pub fn list_encoding(&self) -> Encoding {
        self.encoding.into()
    }

    /// The canonical field, when the table moves the value straight between it and the
    /// key and it is one of the bulk fields that may pass through as JSON text
    /// ([`crate::passthrough::BULK_FIELDS`]).
    pub(super) fn straight(&self) -> Option<&str> {
        self.to
            .as_deref()
            .filter(|to| !self.hook && crate::passthrough::BULK_FIELDS.contains(to))
    }

    /// The contract requirement the field's [`Need`] makes.
    pub(super) fn requirement(&self) -> Option<Requirement> {
        let need = self.consumer.as_ref()?;
        Some(Requirement {
            key: self.key.clone(),
            kind: self.kind.kind(self.list_encoding()),
            non_empty: need.non_empty,
            field: self.to.clone().unwrap_or_default(),
            none_value: need.none_value.clone(),
            evidence: need.evidence.clone(),
            remedy: need.remedy.clone(),
            known: need.known.clone(),
        })
    }

    /// The requirement the field's `required` makes on export, when it has no [`Need`]
    /// saying more: the key, with a value of its declared type.
    pub(super) fn required_on_export(&self) -> Option<Requirement> {
        if !self.required || self.import_only || self.consumer.is_some() {
            return None;
        }
        Some(Requirement::new(
            &self.key,
            self.kind.declared_kind(self.list_encoding()),
            self.to.as_deref().unwrap_or_default(),
            "the format's table declares it `required`",
        ))
    }
}
