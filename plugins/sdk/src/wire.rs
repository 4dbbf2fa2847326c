//! The JSON documents that cross a plugin boundary, native or program.
//!
//! The same shapes are used by native plugins (as the bytes of [`crate::abi`] calls) and
//! by program plugins (as the payload of JSON Lines messages), so a host decodes both
//! with the functions here.

use isobench_core::error::ErrorKind;
use isobench_core::report::{NoteKind, Notes};
use isobench_core::{AdapterInfo, CanonicalRecord, Profile, RecordError, Table};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// What a plugin says about itself.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Manifest {
    /// The ABI (native) or protocol (program) version the plugin speaks.
    pub abi: u32,
    /// The version of the SDK that built it (informative).
    #[serde(default)]
    pub sdk: String,
    /// The adapter's names and field lists.
    pub info: AdapterInfo,
    /// The JSON Schema of one record of the format.
    pub schema: Value,
    /// The field table the format is declared by (since ABI and protocol version 2). With
    /// one, the host runs the table itself and never sends the plugin whole records:
    /// `info` and `schema` are derived from the table instead, and the bulk fields it
    /// maps straight across never cross the boundary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<Table>,
    /// Whether the table comes with hooks: the host then calls `hook_import` and
    /// `hook_export` once per record ([`crate::hooks`]); without, never.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hooks: bool,
}

/// The request of an export. `R` is how a side holds the canonical record: the host
/// writes it straight from a [`CanonicalRecord`] and the SDK reads it straight into one,
/// while a tool that only inspects requests can keep a [`Value`].
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ExportRequest<R = Value> {
    /// The canonical record.
    pub record: R,
    /// The canonical profile in force.
    #[serde(default)]
    pub profile: Profile,
}

/// A successful conversion: the record and the notes written while converting it. `R`
/// is how a side holds the record (see [`ExportRequest`]); the bytes are the same.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Converted<R = Value> {
    /// The converted record (canonical after an import, foreign after an export).
    pub record: R,
    /// The notes.
    #[serde(default)]
    pub notes: Vec<WireNote>,
}

/// One note, as it crosses the boundary.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WireNote {
    /// `dropped`, `derived`, `defaulted`, `missing` or `warning`.
    pub kind: String,
    /// The field concerned.
    pub field: String,
    /// The rule or reason.
    pub detail: String,
}

/// A refused record, as it crosses the boundary.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WireError {
    /// The field concerned, as a JSON pointer.
    #[serde(default)]
    pub pointer: String,
    /// `missing`, `wrong-type`, `invalid`, `cannot-carry` or `not-an-object`.
    pub kind: String,
    /// What was expected and what was found.
    pub message: String,
    /// What the user can do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

/// A message with nothing else (panics and bad requests).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WireMessage {
    /// The text.
    pub message: String,
}

fn kind_name<T: Serialize>(kind: &T) -> String {
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_else(|| "warning".to_owned())
}

/// Notes as they cross the boundary.
pub fn notes_to_wire(notes: &Notes) -> Vec<WireNote> {
    notes
        .iter()
        .map(|n| WireNote {
            kind: kind_name(&n.kind),
            field: n.field.clone(),
            detail: n.detail.clone(),
        })
        .collect()
}

/// Adds notes that crossed the boundary to `notes` (an unknown kind becomes a warning).
pub fn notes_from_wire(wire: Vec<WireNote>, notes: &mut Notes) {
    for n in wire {
        let kind = match n.kind.as_str() {
            "dropped" => NoteKind::Dropped,
            "derived" => NoteKind::Derived,
            "defaulted" => NoteKind::Defaulted,
            "missing" => NoteKind::Missing,
            _ => NoteKind::Warning,
        };
        notes.push(kind, n.field, n.detail);
    }
}

/// A record error as it crosses the boundary.
pub fn error_to_wire(e: &RecordError) -> WireError {
    WireError {
        pointer: e.pointer.clone(),
        kind: kind_name(&e.kind),
        message: e.message.clone(),
        hint: e.hint.clone(),
    }
}

/// A record error back from the boundary (an unknown kind becomes `invalid`).
pub fn error_from_wire(w: WireError) -> RecordError {
    let kind = match w.kind.as_str() {
        "missing" => ErrorKind::Missing,
        "wrong-type" => ErrorKind::WrongType,
        "cannot-carry" => ErrorKind::CannotCarry,
        "not-an-object" => ErrorKind::NotAnObject,
        _ => ErrorKind::Invalid,
    };
    let mut e = RecordError::new(kind, w.pointer, w.message);
    e.hint = w.hint;
    e
}

/// Runs an import on the plugin side: foreign record in, [`Converted`] out.
pub fn run_import(
    adapter: &dyn isobench_core::ViewAdapter,
    record: Map<String, Value>,
) -> Result<Converted<CanonicalRecord>, WireError> {
    let mut notes = Notes::new();
    let canonical = adapter
        .import(record, &mut notes)
        .map_err(|e| error_to_wire(&e))?;
    Ok(Converted {
        record: canonical,
        notes: notes_to_wire(&notes),
    })
}

/// Runs an export on the plugin side: [`ExportRequest`] in, [`Converted`] out.
pub fn run_export(
    adapter: &dyn isobench_core::ViewAdapter,
    request: &ExportRequest<CanonicalRecord>,
) -> Result<Converted<Map<String, Value>>, WireError> {
    let mut notes = Notes::new();
    let options = isobench_core::adapter::ExportOptions::with_profile(request.profile);
    let out = adapter
        .export(&request.record, &options, &mut notes)
        .map_err(|e| error_to_wire(&e))?;
    Ok(Converted {
        record: out,
        notes: notes_to_wire(&notes),
    })
}
