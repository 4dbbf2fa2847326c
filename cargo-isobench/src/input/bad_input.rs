//! What a reader gives for input that is not a record.

use serde_json::Value;

/// Input that is not a record.
#[derive(Debug)]
pub struct BadInput {
    /// What is wrong.
    pub message: String,
    /// The value, when it was JSON but not an object (boxed: errors stay small).
    pub value: Option<Box<Value>>,
    /// What the user can do.
    pub hint: Option<String>,
    /// The item as JSON text, from a reader whose input is not JSON (a Parquet row), kept
    /// for the rejects file as a JSON Lines reader keeps the line.
    pub text: Option<String>,
}
