//! The error a record can fail with, always naming the field as a JSON pointer.

use std::fmt;

/// What went wrong with a field of a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum ErrorKind {
    /// A field the format requires is absent.
    Missing,
    /// A field has the wrong JSON type.
    WrongType,
    /// A field has the right type but an unusable value.
    Invalid,
    /// The target format cannot hold what the record needs it to hold.
    CannotCarry,
    /// The record is not a JSON object at all.
    NotAnObject,
}

/// A record that an adapter cannot import or export, with the field it concerns.
///
/// The file, line and instance id are added by the caller, which knows them.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct RecordError {
    /// The field concerned, as a JSON pointer into the record (`""` for the whole record).
    pub pointer: String,
    /// The class of problem.
    pub kind: ErrorKind,
    /// What was expected and what was found.
    pub message: String,
    /// What the user can do about it, when there is something to say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl RecordError {
    /// A required field is absent.
    pub fn missing(pointer: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Missing, pointer, message)
    }

    /// A field has the wrong JSON type.
    pub fn wrong_type(
        pointer: impl Into<String>,
        expected: &str,
        found: &serde_json::Value,
    ) -> Self {
        Self::new(
            ErrorKind::WrongType,
            pointer,
            format!("expected {expected}, found {}", json_type_name(found)),
        )
    }

    /// A field has an unusable value.
    pub fn invalid(pointer: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Invalid, pointer, message)
    }

    /// The target format cannot hold what the record needs.
    pub fn cannot_carry(pointer: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(ErrorKind::CannotCarry, pointer, message)
    }

    /// An error of any kind.
    pub fn new(kind: ErrorKind, pointer: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            pointer: pointer.into(),
            kind,
            message: message.into(),
            hint: None,
        }
    }

    /// Adds a hint.
    #[must_use]
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.pointer.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "`{}`: {}", self.pointer, self.message)
        }
    }
}

impl std::error::Error for RecordError {}

/// The JSON type of a value, in words, for error messages.
pub fn json_type_name(value: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// What `value` is, for a message: its type, and for an array the type of its items
/// when they share one (`an array of numbers`).
pub fn describe_value(value: &serde_json::Value) -> String {
    let Some(items) = value.as_array().filter(|items| !items.is_empty()) else {
        return json_type_name(value).to_owned();
    };
    let first = json_type_name(&items[0]);
    if !items.iter().all(|item| json_type_name(item) == first) {
        return "an array of mixed values".to_owned();
    }
    let plural = match first {
        "null" => "nulls",
        "a boolean" => "booleans",
        "a number" => "numbers",
        "a string" => "strings",
        "an array" => "arrays",
        _ => "objects",
    };
    format!("an array of {plural}")
}

/// Escapes one JSON pointer token (RFC 6901: `~` becomes `~0`, `/` becomes `~1`).
pub fn pointer_token(token: &str) -> std::borrow::Cow<'_, str> {
    if token.contains(['~', '/']) {
        token.replace('~', "~0").replace('/', "~1").into()
    } else {
        token.into()
    }
}
