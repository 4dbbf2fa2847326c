//! The canonical ISO-Bench v1 record itself, in either profile.

use isobench_core::adapter::{AdapterInfo, ExportOptions, ViewAdapter};
use isobench_core::contract::{Contract, Kind, Requirement};
use isobench_core::passthrough::{BULK_FIELDS, Place};
use isobench_core::record::V1_FIELDS;
use isobench_core::registry::{AdapterRegistration, Registered};
use isobench_core::validate::{Problem, record_semantic_problems, semantic_problems};
use isobench_core::vocab;
use isobench_core::{CanonicalRecord, Notes, Profile, RecordError};
use serde_json::{Map, Value};

const NAME: &str = "canonical";

/// Where the lossless profile's requirements are written.
const LOSSLESS: &str = "schemas/canonical.v1.lossless.schema.json";

/// The canonical adapter: reads either profile, writes the one asked for.
#[derive(Debug)]
pub struct Canonical {
    info: AdapterInfo,
}

impl Default for Canonical {
    fn default() -> Self {
        let all: Vec<&str> = V1_FIELDS
            .iter()
            .filter(|f| **f != "extensions")
            .copied()
            .collect();
        let mut carries = all.clone();
        let shared: Vec<String> = vocab::SHARED_KEYS
            .iter()
            .map(|k| format!("extensions.{k}"))
            .collect();
        carries.extend(shared.iter().map(String::as_str));
        Self {
            info: AdapterInfo::new(
                NAME,
                &["iso-bench", "isobench", "canonical-v1"],
                "ISO-Bench canonical v1 (`--profile strict`: exactly the v1 schema; `lossless`: v1 fields plus `extensions`)",
            )
            .fills(&carries)
            .contract(Contract::new(
                "ISO-Bench canonical v1, lossless profile; `--profile strict` requires every v1 field",
                vec![
                    Requirement::new("instance_id", Kind::String, "instance_id", LOSSLESS),
                    Requirement::new("repo", Kind::String, "repo", LOSSLESS),
                ],
            ))
            .carries(&carries),
        }
    }
}

fn to_error(problem: Problem, profile: Profile) -> RecordError {
    RecordError::invalid(
        problem.pointer,
        format!("{} (canonical v1, {profile} profile)", problem.message),
    )
}

impl ViewAdapter for Canonical {
    fn info(&self) -> &AdapterInfo {
        &self.info
    }

    fn schema(&self, profile: Profile) -> &Value {
        profile.schema()
    }

    fn import(
        &self,
        record: Map<String, Value>,
        _notes: &mut Notes,
    ) -> Result<CanonicalRecord, RecordError> {
        let value = Value::Object(record);
        if let Some(problem) = schema_problem(&value, Profile::Lossless) {
            return Err(to_error(problem, Profile::Lossless));
        }
        if let Some(problem) = semantic_problems(&value).into_iter().next() {
            return Err(to_error(problem, Profile::Lossless));
        }
        let Value::Object(mut record) = value else {
            unreachable!("built as an object above")
        };
        // Moved, not read again from the value: a value read again takes each integer
        // as its value, and `-0` would become `0`.
        let extensions = match record.remove("extensions") {
            Some(Value::Object(extensions)) => extensions,
            // The schema above holds `extensions` to an object.
            _ => Map::new(),
        };
        let mut c: CanonicalRecord = serde_json::from_value(Value::Object(record))
            .map_err(|e| RecordError::invalid("", e.to_string()))?;
        c.extensions = extensions;
        Ok(c)
    }

    fn export(
        &self,
        c: &CanonicalRecord,
        options: &ExportOptions,
        notes: &mut Notes,
    ) -> Result<Map<String, Value>, RecordError> {
        let profile = options.profile;
        let value = match profile {
            Profile::Lossless => {
                note_incomplete(c, notes);
                c.to_value()
            }
            Profile::Strict => strict_value(c, notes)?,
        };
        checked(value, profile)
    }

    fn export_owned(
        &self,
        c: CanonicalRecord,
        options: &ExportOptions,
        notes: &mut Notes,
    ) -> Result<Map<String, Value>, RecordError> {
        match options.profile {
            Profile::Lossless => {
                note_incomplete(&c, notes);
                // Checked before the record is JSON, where its fields are read directly.
                let semantic = record_semantic_problems(&c).into_iter().next();
                schema_checked(c.into_value(), Profile::Lossless, semantic)
            }
            Profile::Strict => self.export(&c, options, notes),
        }
    }
}

/// Counts the v1 fields the record lacks (the lossless profile leaves them out, never
/// invents them, and says so).
fn note_incomplete(c: &CanonicalRecord, notes: &mut Notes) {
    for field in c.lacking_required() {
        notes.missing(
            field,
            "canonical v1 requires it and the source has none: left out (lossless profile)",
        );
    }
}

/// The record under the strict profile: its required fields checked, `extensions`
/// noted as dropped.
fn strict_value(c: &CanonicalRecord, notes: &mut Notes) -> Result<Value, RecordError> {
    let missing = c.missing_required();
    if !missing.is_empty() {
        let list = missing
            .iter()
            .map(|f| format!("`{f}`"))
            .collect::<Vec<_>>()
            .join(", ");
        return Err(RecordError::missing(
            format!("/{}", missing[0]),
            format!("canonical v1 (strict) requires {list}, which the record lacks"),
        )
        .with_hint("use `--profile lossless` to write the fields the source has, or fill these from a repository and timing logs"));
    }
    for key in c.extensions.keys().filter(|k| *k != vocab::SOURCE) {
        notes.dropped(
            format!("extensions.{key}"),
            "the strict profile has no `extensions`",
        );
    }
    Ok(c.to_strict_value())
}

/// `value` as the object to write, once the profile's schema and the semantic checks
/// accept it.
fn checked(value: Value, profile: Profile) -> Result<Map<String, Value>, RecordError> {
    let semantic = semantic_problems(&value).into_iter().next();
    schema_checked(value, profile, semantic)
}

/// `value` as the object to write, once the profile's schema accepts it and `semantic`,
/// the first problem the semantic checks find in it, is none.
fn schema_checked(
    value: Value,
    profile: Profile,
    semantic: Option<Problem>,
) -> Result<Map<String, Value>, RecordError> {
    if let Some(problem) = schema_problem(&value, profile) {
        return Err(to_error(problem, profile));
    }
    if let Some(problem) = semantic {
        return Err(to_error(problem, profile));
    }
    match value {
        Value::Object(map) => Ok(map),
        _ => unreachable!("a canonical record serialises to an object"),
    }
}

/// The first place where `value` breaks the profile's schema, if any. The schema's walk
/// ([`Profile::walk`]) tells a record it accepts, and the compiled validator is asked
/// only where a record the walk refuses breaks it.
fn schema_problem(value: &Value, profile: Profile) -> Option<Problem> {
    if profile.walk().is_some_and(|walk| walk.accepts(value)) {
        return None;
    }
    let validator = profile.validator();
    if validator.is_valid(value) {
        return None;
    }
    validator.problems(value).into_iter().next()
}

/// The canonical format as the host holds it: every bulk field is written as it is,
/// and only the top-level ones can be read unparsed.
impl From<Canonical> for Registered {
    fn from(canonical: Canonical) -> Self {
        let places = BULK_FIELDS
            .iter()
            .map(|field| match field.strip_prefix("extensions.") {
                Some(key) => Place {
                    field: (*field).to_owned(),
                    path: vec!["extensions".to_owned(), key.to_owned()],
                    import: false,
                    export: true,
                },
                None => Place::both_ways(field, field),
            })
            .collect();
        Registered::new(canonical).with_places(places)
    }
}

inventory::submit! {
    AdapterRegistration { make: || Canonical::default().into() }
}
