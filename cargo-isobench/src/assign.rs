//! `--set FIELD=VALUE` and `--replace FIELD=VALUE`: a canonical field given to every
//! record before export, either a fixed value or a per-record template. `--set` fills the
//! field only where the record has no value for it; `--replace` writes it over the record's
//! own value, which the report counts and `extensions.source.replaced` keeps.
//!
//! A VALUE that parses as JSON is that JSON value (`--set efficiency_test='["t.py"]'`);
//! anything else is a string. A string may hold template fields, filled from each record:
//!
//! | template field | value |
//! |---|---|
//! | `{instance_id}`, `{repo}`, `{base_commit}`, `{head_commit}`, `{version}`, `{created_at}`, `{api}` | the record's canonical field |
//! | `{owner}`, `{name}` | the two halves of `repo` (`owner/name`) |
//!
//! A template field may end in `:lower` (lower-cased) or `:N` (its first N characters):
//! `--set 'extensions.image_name=swesmith.x86_64.{owner}__{name}.{head_commit:8}'`.
//! `{{` and `}}` are literal braces. An unknown template field is a usage error; a record
//! that lacks the field a template field names is rejected with the field's name.

use std::fmt::Write as _;

use isobench_core::record::V1_FIELDS;
use isobench_core::schema::Profile;
use isobench_core::table::{FieldType, Table};
use isobench_core::{CanonicalRecord, Notes, RecordError, vocab};
use serde_json::{Map, Value};

use crate::errors::{AreaError, CliError};

/// The fields a template may use.
const TEMPLATE_FIELDS: [&str; 9] = [
    "instance_id",
    "repo",
    "owner",
    "name",
    "base_commit",
    "head_commit",
    "version",
    "created_at",
    "api",
];

/// One `--set FIELD=VALUE` or `--replace FIELD=VALUE`.
#[derive(Debug, Clone)]
pub struct Assignment {
    field: String,
    value: Assigned,
    flag: Flag,
}

/// The flag an assignment was given with: what it does to a value the record holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flag {
    /// `--set`: fills the field where the record has no value, keeps the value it has.
    Set,
    /// `--replace`: writes the field over the record's value, keeping the old one in
    /// `extensions.source.replaced`.
    Replace,
}

impl std::fmt::Display for Flag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Set => "--set",
            Self::Replace => "--replace",
        })
    }
}

/// What an assignment gives.
#[derive(Debug, Clone)]
enum Assigned {
    /// The same value for every record.
    Fixed(Value),
    /// A string filled in from each record.
    Template(Vec<Part>),
}

/// A piece of a template.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Text(String),
    Field {
        name: &'static str,
        lower: bool,
        take: Option<usize>,
    },
}

/// Reads every `--set` and `--replace`; a field given twice is refused. A value is read
/// as the type its field is declared with: by the canonical schema (a v1 field, a key of
/// the shared vocabulary), else by the first of `tables` (the target's, the source's)
/// that maps a key to it; an undeclared field takes JSON, else text.
pub fn parse_all(
    sets: &[String],
    replaces: &[String],
    tables: &[&Table],
) -> Result<Vec<Assignment>, CliError> {
    let given =
        (sets.iter().map(|s| (Flag::Set, s))).chain(replaces.iter().map(|s| (Flag::Replace, s)));
    let mut assignments: Vec<Assignment> = Vec::new();
    for (flag, set) in given {
        let assignment = parse(flag, set, tables)?;
        if let Some(first) = assignments.iter().find(|a| a.field == assignment.field) {
            return Err(AssignError::Twice {
                field: assignment.field,
                first: first.flag,
                second: flag,
            }
            .into());
        }
        assignments.push(assignment);
    }
    Ok(assignments)
}

/// Refuses an assignment to `extensions.KEY` where `KEY` is a key the target writes from
/// another field (`extensions.tests` for GSO, whose `tests` is written from
/// `efficiency_test`): the value would be carried nowhere the target reads, so the
/// assignment names the field that fills the key.
pub fn check_target_keys(assignments: &[Assignment], target: &Table) -> Result<(), AssignError> {
    for assignment in assignments {
        let Some(key) = assignment.field.strip_prefix("extensions.") else {
            continue;
        };
        let written_from = target.fields.iter().find_map(|f| {
            (f.key == key)
                .then_some(f.to.as_deref())
                .flatten()
                .filter(|to| *to != assignment.field)
        });
        if let Some(from) = written_from {
            return Err(AssignError::TargetKey {
                flag: assignment.flag,
                field: assignment.field.clone(),
                format: target.name.clone(),
                key: key.to_owned(),
                from: from.to_owned(),
            });
        }
    }
    Ok(())
}

fn parse(flag: Flag, set: &str, tables: &[&Table]) -> Result<Assignment, AssignError> {
    let (field, value) = set.split_once('=').ok_or_else(|| AssignError::NoEquals {
        flag,
        set: set.to_owned(),
    })?;
    let known = V1_FIELDS.contains(&field) && field != "extensions"
        || field
            .strip_prefix("extensions.")
            .is_some_and(|k| !k.is_empty() && k != "source");
    if !known {
        return Err(AssignError::UnknownField {
            flag,
            field: field.to_owned(),
        });
    }
    let parsed = serde_json::from_str::<Value>(value).ok();
    let value = match declared(field, tables) {
        // Text, or a JSON string; a number or `true` is its text (`--set version=0.10`).
        Some(Wanted::Text) => match parsed {
            Some(Value::String(text)) => template(&text, flag, set)?,
            Some(Value::Array(_) | Value::Object(_) | Value::Null) => {
                return Err(wrong_shape(flag, field, value, Wanted::Text));
            }
            _ => template(value, flag, set)?,
        },
        Some(wanted) => match parsed {
            Some(json) if wanted.fits(&json) => Assigned::Fixed(json),
            _ => return Err(wrong_shape(flag, field, value, wanted)),
        },
        None => match parsed {
            Some(Value::String(text)) => template(&text, flag, set)?,
            Some(json) => Assigned::Fixed(json),
            None => template(value, flag, set)?,
        },
    };
    Ok(Assignment {
        field: field.to_owned(),
        value,
        flag,
    })
}

fn wrong_shape(flag: Flag, field: &str, value: &str, wanted: Wanted) -> AssignError {
    let (said, example) = wanted.described(field);
    AssignError::WrongShape {
        flag,
        field: field.to_owned(),
        value: value.to_owned(),
        wanted: said,
        example,
    }
}

/// The type a field is declared with, as an assignment reads its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wanted {
    /// A string: text, or a JSON string.
    Text,
    /// A JSON list of strings.
    Strings,
    /// A JSON list of integers.
    Integers,
    /// A JSON list of objects.
    Objects,
    /// A JSON integer.
    Integer,
    /// A JSON number.
    Number,
    /// `true` or `false`.
    Boolean,
    /// A JSON object.
    Object,
    /// `null`.
    Null,
}

impl Wanted {
    fn fits(self, value: &Value) -> bool {
        let all =
            |test: fn(&Value) -> bool| value.as_array().is_some_and(|items| items.iter().all(test));
        match self {
            Self::Text => value.is_string(),
            Self::Strings => all(Value::is_string),
            Self::Integers => all(is_integer),
            Self::Objects => all(Value::is_object),
            Self::Integer => is_integer(value),
            // Finite as a float: a consumer reads `1e+400` as infinity.
            Self::Number => value.as_f64().is_some(),
            Self::Boolean => value.is_boolean(),
            Self::Object => value.is_object(),
            Self::Null => value.is_null(),
        }
    }

    /// How to say it, and an example of a value that fits.
    fn described(self, field: &str) -> (&'static str, &'static str) {
        match self {
            Self::Text => ("a string", "text"),
            Self::Strings if field.ends_with("_commands") => {
                ("a JSON list of strings", "[\"pip install -e .\"]")
            }
            Self::Strings => ("a JSON list of strings", "[\"tests/test_a.py::test_b\"]"),
            Self::Integers => ("a JSON list of integers", "[1, 2]"),
            Self::Objects if field == "duration_changes" => (
                "a JSON list of timings",
                "[{\"base\": [1.0], \"head\": [0.5]}]",
            ),
            Self::Objects => ("a JSON list of objects", "[{\"key\": 1}]"),
            Self::Integer => ("a JSON integer", "12"),
            Self::Number => ("a JSON number", "1.5"),
            Self::Boolean => ("`true` or `false`", "true"),
            Self::Object => ("a JSON object", "{\"key\": 1}"),
            Self::Null => ("`null`", "null"),
        }
    }

    /// The type a JSON Schema gives, when it is one of these.
    fn of_schema(schema: &Value) -> Option<Self> {
        Some(match schema.get("type")?.as_str()? {
            "string" => Self::Text,
            "integer" => Self::Integer,
            "number" => Self::Number,
            "boolean" => Self::Boolean,
            "object" => Self::Object,
            "array" => match schema.pointer("/items/type").and_then(Value::as_str)? {
                "string" => Self::Strings,
                "integer" => Self::Integers,
                "object" => Self::Objects,
                _ => return None,
            },
            _ => return None,
        })
    }

    /// The type a table declares.
    fn of_table(kind: FieldType) -> Option<Self> {
        Some(match kind {
            FieldType::String | FieldType::Timestamp => Self::Text,
            FieldType::List => Self::Strings,
            FieldType::Integer => Self::Integer,
            FieldType::IntegerList => Self::Integers,
            FieldType::Number => Self::Number,
            FieldType::Boolean => Self::Boolean,
            FieldType::Null => Self::Null,
            // Any JSON value; a type added later is read as undeclared.
            _ => return None,
        })
    }
}

fn is_integer(value: &Value) -> bool {
    value.as_number().is_some_and(|n| n.is_i64() || n.is_u64())
}

/// The type `field` is declared with: by the canonical schema, else by the first of
/// `tables` mapping a key to it.
fn declared(field: &str, tables: &[&Table]) -> Option<Wanted> {
    let properties = |schema: &'static Value| schema.get("properties");
    let schema = properties(Profile::Lossless.schema());
    let at = match field.strip_prefix("extensions.") {
        Some(key) => schema
            .and_then(|p| p.get("extensions"))
            .and_then(properties)
            .and_then(|p| p.get(key)),
        None => schema.and_then(|p| p.get(field)),
    };
    if let Some(schema) = at {
        return Wanted::of_schema(schema);
    }
    tables
        .iter()
        .flat_map(|t| t.fields.iter())
        .find(|f| f.to.as_deref() == Some(field))
        .and_then(|f| Wanted::of_table(f.kind))
}

/// A string value: fixed when it holds no template field.
fn template(text: &str, flag: Flag, set: &str) -> Result<Assigned, AssignError> {
    let bad = |fault| AssignError::Template {
        flag,
        set: set.to_owned(),
        fault,
        fields: &TEMPLATE_FIELDS,
    };
    let mut parts = Vec::new();
    let mut literal = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(['{', '}']) {
        literal.push_str(&rest[..at]);
        rest = &rest[at..];
        if let Some(after) = rest.strip_prefix("{{") {
            literal.push('{');
            rest = after;
            continue;
        }
        if let Some(after) = rest.strip_prefix("}}") {
            literal.push('}');
            rest = after;
            continue;
        }
        if rest.starts_with('}') {
            return Err(bad(TemplateFault::StrayClose));
        }
        let end = rest.find('}').ok_or_else(|| bad(TemplateFault::Unclosed))?;
        let spec = &rest[1..end];
        rest = &rest[end + 1..];
        let (key, modifier) = match spec.split_once(':') {
            Some((key, modifier)) => (key, Some(modifier)),
            None => (spec, None),
        };
        let name = TEMPLATE_FIELDS
            .into_iter()
            .find(|p| *p == key)
            .ok_or_else(|| bad(TemplateFault::UnknownField(spec.to_owned())))?;
        let (lower, take) = match modifier {
            None => (false, None),
            Some("lower") => (true, None),
            Some(n) => match n.parse::<usize>() {
                Ok(n) if n > 0 => (false, Some(n)),
                _ => {
                    return Err(bad(TemplateFault::UnknownModifier {
                        modifier: n.to_owned(),
                        field: spec.to_owned(),
                    }));
                }
            },
        };
        if !literal.is_empty() {
            parts.push(Part::Text(std::mem::take(&mut literal)));
        }
        parts.push(Part::Field { name, lower, take });
    }
    literal.push_str(rest);
    if parts.is_empty() {
        return Ok(Assigned::Fixed(Value::String(literal)));
    }
    if !literal.is_empty() {
        parts.push(Part::Text(literal));
    }
    Ok(Assigned::Template(parts))
}

/// The value of template field `name` for `record`; `{owner}` and `{name}` only from a
/// `repo` of the form `owner/name`.
fn template_field<'r>(record: &'r CanonicalRecord, name: &str) -> Option<&'r str> {
    let repo = || owner_and_name(record.repo.as_deref()?);
    match name {
        "instance_id" => record.instance_id.as_deref(),
        "repo" => record.repo.as_deref(),
        "owner" => repo().map(|(owner, _)| owner),
        "name" => repo().map(|(_, name)| name),
        "base_commit" => record.base_commit.as_deref(),
        "head_commit" => record.head_commit.as_deref(),
        "version" => record.version.as_deref(),
        "created_at" => record.created_at.as_deref(),
        "api" => record.api.as_deref(),
        _ => unreachable!("template fields are checked when parsed"),
    }
}

/// The two halves of a repository named `owner/name`: two non-empty names of the letters,
/// digits, `-`, `_` and `.` a hosting service allows, neither `.` nor `..`. A URL, a path
/// or a bare name is none.
fn owner_and_name(repo: &str) -> Option<(&str, &str)> {
    let (owner, name) = repo.split_once('/')?;
    let plain = |part: &str| {
        !part.is_empty()
            && part != "."
            && part != ".."
            && part
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
    };
    (plain(owner) && plain(name)).then_some((owner, name))
}

impl Assignment {
    /// The value for `record`.
    fn value_for(&self, record: &CanonicalRecord) -> Result<Value, RecordError> {
        let parts = match &self.value {
            Assigned::Fixed(value) => return Ok(value.clone()),
            Assigned::Template(parts) => parts,
        };
        let mut out = String::new();
        for part in parts {
            match part {
                Part::Text(text) => out.push_str(text),
                Part::Field { name, lower, take } => {
                    let value = template_field(record, name).ok_or_else(|| {
                        let field = if matches!(*name, "owner" | "name") {
                            "repo"
                        } else {
                            name
                        };
                        let uses = format!("`{} {}` uses `{{{name}}}`", self.flag, self.field);
                        let missing = match record.repo.as_deref() {
                            Some(repo) if field == "repo" => RecordError::invalid(
                                "/repo",
                                format!(
                                    "{uses}, but the record's `repo` `{repo}` is not of the form `owner/name`"
                                ),
                            )
                            .with_hint(
                                "give `repo` as `owner/name` (`--replace repo=...`), or write the template without `{owner}` and `{name}`",
                            ),
                            _ => RecordError::missing(
                                format!("/{field}"),
                                format!("{uses}, but the record has no `{field}`"),
                            ),
                        };
                        match field {
                            "head_commit" | "created_at" => missing.with_hint(format!(
                                "`--repos DIR` (or a `[repos]` table in `isobench.toml`) derives `{field}` with git \
                                 before templates are filled: for a SWE-bench record, from its pull request"
                            )),
                            _ => missing,
                        }
                    })?;
                    let value = match take {
                        Some(n) => value.chars().take(*n).collect(),
                        None => value.to_owned(),
                    };
                    if *lower {
                        out.push_str(&value.to_lowercase());
                    } else {
                        out.push_str(&value);
                    }
                }
            }
        }
        Ok(Value::String(out))
    }

    /// How the value was given, for the report: `done` is what the assignment did to the
    /// record (`set`, `replaced`).
    fn rule(&self, done: &str) -> String {
        match &self.value {
            Assigned::Fixed(_) => format!("{done} with `{}`", self.flag),
            Assigned::Template(parts) => {
                let mut text = format!("{done} with `{}` from the template `", self.flag);
                for part in parts {
                    match part {
                        Part::Text(t) => text.push_str(&t.replace('{', "{{").replace('}', "}}")),
                        Part::Field { name, lower, take } => {
                            let _ = write!(text, "{{{name}");
                            if *lower {
                                text.push_str(":lower");
                            }
                            if let Some(n) = take {
                                let _ = write!(text, ":{n}");
                            }
                            text.push('}');
                        }
                    }
                }
                text.push('`');
                text
            }
        }
    }
}

/// Which assignments [`apply`] gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// The fixed values: before enrichment, which may read them (`install_commands` for a
    /// derived environment signature).
    Fixed,
    /// The templates: after enrichment, so that a template field can use what `--repos`
    /// derived (`{head_commit:8}`).
    Templates,
}

/// Gives the value of every assignment of `phase` to `record`: a `--set` where the
/// record has no value (absent or `null`), a `--replace` everywhere, the value it replaces
/// kept in `extensions.source.replaced` (a block naming `format` made for a record without
/// one) and the replacement noted.
pub fn apply(
    record: CanonicalRecord,
    sets: &[Assignment],
    phase: Phase,
    format: &str,
    notes: &mut Notes,
) -> Result<CanonicalRecord, RecordError> {
    let sets: Vec<&Assignment> = sets
        .iter()
        .filter(|set| matches!(set.value, Assigned::Template(_)) == (phase == Phase::Templates))
        .collect();
    if sets.is_empty() {
        return Ok(record);
    }
    // Template fields read the record as it is before this phase's assignments.
    let values = sets
        .iter()
        .map(|set| set.value_for(&record))
        .collect::<Result<Vec<_>, _>>()?;
    let mut value = record.into_value();
    for (set, given) in sets.iter().zip(values) {
        let slot = match set.field.strip_prefix("extensions.") {
            Some(key) => {
                if !value["extensions"].is_object() {
                    value["extensions"] = Value::Object(Map::new());
                }
                &mut value["extensions"][key]
            }
            None => &mut value[&set.field],
        };
        if slot.is_null() {
            *slot = given;
            notes.defaulted(&set.field, set.rule("set"));
        } else if set.flag == Flag::Replace && *slot != given {
            let old = std::mem::replace(slot, given);
            keep_replaced(&mut value, &set.field, old, format);
            notes.replaced(&set.field, set.rule("replaced"));
        }
    }
    serde_json::from_value(value).map_err(|e| {
        RecordError::invalid("", format!("a `--set` value has the wrong type: {e}")).with_hint(
            "lists and numbers are given as JSON, e.g. `--set efficiency_test='[\"t.py\"]'`",
        )
    })
}

/// Keeps `old`, the value `field` held before a `--replace`, in the record's
/// `extensions.source.replaced`.
fn keep_replaced(record: &mut Value, field: &str, old: Value, format: &str) {
    let extensions = &mut record["extensions"];
    if !extensions.is_object() {
        *extensions = Value::Object(Map::new());
    }
    let source = &mut extensions[vocab::SOURCE];
    if !source.is_object() {
        *source = serde_json::json!({ "format": format });
    }
    let replaced = &mut source[vocab::REPLACED];
    if !replaced.is_object() {
        *replaced = Value::Object(Map::new());
    }
    replaced[field] = old;
}

/// A `--set FIELD=VALUE` or `--replace FIELD=VALUE` that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AssignError {
    /// No `=` in the assignment.
    #[error("`{flag} {set}` has no `=`")]
    NoEquals {
        /// The flag it was given with.
        flag: Flag,
        /// The assignment as given.
        set: String,
    },
    /// A field that is neither canonical nor `extensions.KEY`.
    #[error("`{flag}`: `{field}` is not a canonical field")]
    UnknownField {
        /// The flag it was given with.
        flag: Flag,
        /// The field as given.
        field: String,
    },
    /// A value whose template cannot be read.
    #[error("`{flag} {set}`: {fault}")]
    Template {
        /// The flag it was given with.
        flag: Flag,
        /// The assignment as given.
        set: String,
        /// What is wrong with its template.
        fault: TemplateFault,
        /// The template fields a template may use.
        fields: &'static [&'static str],
    },
    /// A value of another shape than the field holds (`foo` for a test list).
    #[error("`{flag} {field}={value}`: `{value}` is not {wanted}, which `{field}` holds")]
    WrongShape {
        /// The flag it was given with.
        flag: Flag,
        /// The field.
        field: String,
        /// The value as given.
        value: String,
        /// What the field holds ("a JSON list of strings").
        wanted: &'static str,
        /// An example of a value of that shape.
        example: &'static str,
    },
    /// `extensions.KEY` where `KEY` is the target's key for another field.
    #[error(
        "`{flag} {field}`: {format}'s `{key}` is written from `{from}`, not from `{field}`, which {format} does not hold"
    )]
    TargetKey {
        /// The flag it was given with.
        flag: Flag,
        /// The field as given.
        field: String,
        /// The target format.
        format: String,
        /// The target's key.
        key: String,
        /// The canonical field the target writes the key from.
        from: String,
    },
    /// The same field given twice (with `--set`, `--replace` or both).
    #[error("`{field}` is given twice, with `{first}` and `{second}`")]
    Twice {
        /// The field.
        field: String,
        /// The flag of the first assignment.
        first: Flag,
        /// The flag of the second.
        second: Flag,
    },
}

/// What is wrong with a `--set` template.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TemplateFault {
    /// A `}` that is neither doubled nor the end of a template field.
    #[error("a `}}` closes no template field")]
    StrayClose,
    /// A `{` with no `}` after it.
    #[error("a `{{` is never closed")]
    Unclosed,
    /// A template field (its text between the braces) naming no field.
    #[error("unknown template field `{{{0}}}`")]
    UnknownField(String),
    /// A modifier that is neither `lower` nor a positive count.
    #[error("unknown modifier `:{modifier}` in `{{{field}}}`")]
    UnknownModifier {
        /// The modifier, after the `:`.
        modifier: String,
        /// The template field's text between the braces.
        field: String,
    },
}

impl AreaError for AssignError {
    fn hint(&self) -> Option<String> {
        Some(match self {
            Self::NoEquals { flag, .. } => format!("write `{flag} FIELD=VALUE`"),
            Self::UnknownField { .. } => "use a canonical v1 field name (`head_commit`) or `extensions.KEY` (`extensions.image_name`)".into(),
            Self::WrongShape {
                flag,
                field,
                example,
                ..
            } => {
                format!("give it as JSON, quoted for the shell: `{flag} {field}='{example}'`")
            }
            Self::TargetKey { flag, from, .. } => format!("`{flag} {from}=VALUE`"),
            Self::Twice { .. } => "give each field once: `--set` fills it where a record has no value, `--replace` writes it over the record's value".into(),
            Self::Template { fields, .. } => {
                let names: Vec<String> = fields.iter().map(|p| format!("`{{{p}}}`")).collect();
                format!(
                    "template fields are {}, each optionally ending in `:lower` or `:N`; write `{{{{` and `}}}}` for literal braces",
                    names.join(", ")
                )
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use isobench_core::report::NoteKind;
    use isobench_core::table::Field;

    use super::*;

    fn record() -> CanonicalRecord {
        CanonicalRecord {
            instance_id: Some("Octo__Widgets-12".into()),
            repo: Some("Octo/Widgets".into()),
            head_commit: Some("0123456789abcdef".into()),
            ..CanonicalRecord::default()
        }
    }

    fn set_one(set: &str) -> Result<CanonicalRecord, RecordError> {
        assign_one(Flag::Set, set, record(), &mut Notes::new())
    }

    fn assign_one(
        flag: Flag,
        set: &str,
        record: CanonicalRecord,
        notes: &mut Notes,
    ) -> Result<CanonicalRecord, RecordError> {
        let given = [set.to_owned()];
        let sets = match flag {
            Flag::Set => parse_all(&given, &[], &[]),
            Flag::Replace => parse_all(&[], &given, &[]),
        }
        .expect("parses");
        let c = apply(record, &sets, Phase::Fixed, "f", notes)?;
        apply(c, &sets, Phase::Templates, "f", notes)
    }

    #[test]
    fn set_fills_only_a_field_the_record_has_no_value_for() {
        for set in ["version=9", "version={instance_id}"] {
            let mut notes = Notes::new();
            let held = CanonicalRecord {
                version: Some("1.0".into()),
                ..record()
            };
            let c = assign_one(Flag::Set, set, held, &mut notes).unwrap();
            assert_eq!(c.version.as_deref(), Some("1.0"), "{set}");
            assert!(notes.is_empty(), "{set}: {notes:?}");
            let c = assign_one(Flag::Set, set, record(), &mut notes).unwrap();
            assert!(c.version.is_some(), "{set}");
            assert_eq!(notes.iter().next().unwrap().kind, NoteKind::Defaulted);
        }
        let mut notes = Notes::new();
        let mut held = record();
        held.extensions
            .insert("difficulty".into(), Value::from("hard"));
        let c = assign_one(Flag::Set, "extensions.difficulty=3", held, &mut notes).unwrap();
        assert_eq!(c.ext_str("difficulty"), Some("hard"));
    }

    #[test]
    fn replace_keeps_the_value_it_replaces_in_the_source_block() {
        let mut notes = Notes::new();
        let mut held = CanonicalRecord {
            version: Some("1.0".into()),
            ..record()
        };
        held.extensions.insert(
            "source".into(),
            serde_json::json!({"format": "swe-bench", "keys": ["version"]}),
        );
        let c = assign_one(Flag::Replace, "version=2.0", held, &mut notes).unwrap();
        assert_eq!(c.version.as_deref(), Some("2.0"));
        assert_eq!(
            c.ext("source"),
            Some(&serde_json::json!({
                "format": "swe-bench", "keys": ["version"], "replaced": {"version": "1.0"}
            }))
        );
        let note = notes.iter().next().unwrap();
        assert_eq!(
            (note.kind, note.detail.as_str()),
            (NoteKind::Replaced, "replaced with `--replace`")
        );
        // A record without a source block gets one naming the format it came from.
        let held = CanonicalRecord {
            version: Some("1.0".into()),
            ..record()
        };
        let c = assign_one(Flag::Replace, "version=2.0", held, &mut notes).unwrap();
        assert_eq!(
            c.ext("source"),
            Some(&serde_json::json!({"format": "f", "replaced": {"version": "1.0"}}))
        );
    }

    #[test]
    fn templates_fill_their_fields_from_each_record() {
        let c =
            set_one("extensions.image_name=img.{owner:lower}_1776_{name}.{head_commit:8}:{{tag}}")
                .unwrap();
        assert_eq!(
            c.ext_str("image_name"),
            Some("img.octo_1776_Widgets.01234567:{tag}")
        );
        let c = set_one("extensions.image_name=\"x.{instance_id:lower}\"").unwrap();
        assert_eq!(c.ext_str("image_name"), Some("x.octo__widgets-12"));
    }

    #[test]
    fn fixed_values_are_json_or_strings() {
        let c = set_one("efficiency_test=[\"a.py::t\"]").unwrap();
        assert_eq!(c.efficiency_test, Some(vec!["a.py::t".to_owned()]));
        let c = set_one("version=4.3 beta").unwrap();
        assert_eq!(c.version.as_deref(), Some("4.3 beta"));
        // A number given to a string field is its text; to an undeclared one, a number.
        let c = set_one("version=0.10").unwrap();
        assert_eq!(c.version.as_deref(), Some("0.10"));
        let c = set_one("extensions.difficulty=3").unwrap();
        assert_eq!(c.ext("difficulty"), Some(&Value::from("3")));
        let c = set_one("extensions.level=3").unwrap();
        assert_eq!(c.ext("level"), Some(&Value::from(3)));
    }

    #[test]
    fn an_unknown_template_field_or_modifier_is_a_usage_error() {
        for (set, said) in [
            (
                "extensions.image_name=x.{instance}",
                "unknown template field `{instance}`",
            ),
            (
                "extensions.image_name=x.{repo:upper}",
                "unknown modifier `:upper`",
            ),
            ("extensions.image_name=x.{repo", "a `{` is never closed"),
            ("extensions.image_name=x}", "a `}` closes no template field"),
        ] {
            let err = parse_all(&[set.to_owned()], &[], &[]).unwrap_err();
            let text = err.to_string();
            assert!(text.contains(said), "{set}: {text}");
            assert!(err.hint().unwrap().contains("`{instance_id}`"), "{set}");
        }
    }

    #[test]
    fn owner_and_name_come_only_from_a_repo_of_the_form_owner_slash_name() {
        let set = "extensions.mirror_repo=swesmith/{owner}__{name}";
        for repo in [
            "https://github.com/o/n",
            "o",
            "o/n/x",
            "/n",
            "o/",
            "../n",
            "o n/x",
        ] {
            let with_repo = CanonicalRecord {
                repo: Some(repo.into()),
                ..record()
            };
            let err = assign_one(Flag::Set, set, with_repo, &mut Notes::new()).unwrap_err();
            assert_eq!(err.pointer, "/repo", "{repo}");
            assert!(
                err.message.contains(&format!(
                    "the record's `repo` `{repo}` is not of the form `owner/name`"
                )),
                "{repo}: {}",
                err.message
            );
        }
        let c = set_one(set).unwrap();
        assert_eq!(c.ext_str("mirror_repo"), Some("swesmith/Octo__Widgets"));
        let c = set_one("extensions.mirror_repo=m/{repo}").unwrap();
        assert_eq!(c.ext_str("mirror_repo"), Some("m/Octo/Widgets"));
    }

    #[test]
    fn a_value_is_read_as_the_type_its_field_is_declared_with() {
        let table = Table::new("t", &[], "t").fields(vec![
            Field::new("pull_number", "extensions.pull_number").kind(FieldType::Integer),
            Field::new("lines", "extensions.lines").kind(FieldType::IntegerList),
            Field::new("note", "extensions.note"),
        ]);
        let read = |set: &str| parse(Flag::Set, set, &[&table]);
        let fixed = |set: &str| match read(set).unwrap().value {
            Assigned::Fixed(v) => v,
            Assigned::Template(_) => panic!("{set} is a template"),
        };
        // Declared by the shared vocabulary or by the table: a string is text, whatever
        // it looks like.
        assert_eq!(fixed("extensions.hints_text=123"), Value::from("123"));
        assert_eq!(fixed("extensions.note=true"), Value::from("true"));
        assert_eq!(fixed("extensions.note=\"q\""), Value::from("q"));
        assert_eq!(fixed("extensions.pull_number=12"), Value::from(12));
        assert_eq!(fixed("extensions.lines=[1,2]"), serde_json::json!([1, 2]));
        // Undeclared: JSON, else text.
        assert_eq!(fixed("extensions.other=12"), Value::from(12));
        assert_eq!(fixed("extensions.other=abc"), Value::from("abc"));
        for (set, wanted) in [
            ("extensions.pull_number=abc", "a JSON integer"),
            ("extensions.pull_number=1.5", "a JSON integer"),
            ("extensions.pull_number=\"12\"", "a JSON integer"),
            ("extensions.lines=[\"a\"]", "a JSON list of integers"),
            ("extensions.hints_text=[1]", "a string"),
            ("extensions.fail_to_pass=t.py", "a JSON list of strings"),
            ("human_performance=fast", "a JSON number"),
        ] {
            let err = read(set).unwrap_err();
            let (field, value) = set.split_once('=').unwrap();
            assert_eq!(
                err.to_string(),
                format!(
                    "`--set {field}={value}`: `{value}` is not {wanted}, which `{field}` holds"
                ),
            );
        }
    }

    #[test]
    fn a_record_without_a_template_field_is_rejected_by_name() {
        let err = set_one("extensions.image_name=x.{base_commit}").unwrap_err();
        assert_eq!(err.pointer, "/base_commit");
        assert!(err.message.contains("`{base_commit}`"), "{}", err.message);
    }
}

#[cfg(test)]
mod error_messages {
    use super::*;
    use crate::errors::said;

    #[test]
    fn assignment_errors_say_what_they_always_said() {
        let template = |set: &str, fault| AssignError::Template {
            flag: Flag::Set,
            set: set.into(),
            fault,
            fields: &["a", "b"],
        };
        insta::assert_snapshot!(said([
            AssignError::NoEquals {
                flag: Flag::Set,
                set: "x".into(),
            },
            AssignError::NoEquals {
                flag: Flag::Replace,
                set: "x".into(),
            },
            AssignError::UnknownField {
                flag: Flag::Set,
                field: "foo".into(),
            },
            template("f=}", TemplateFault::StrayClose),
            template("f={", TemplateFault::Unclosed),
            template("f={x:2}", TemplateFault::UnknownField("x:2".into())),
            template(
                "f={a:up}",
                TemplateFault::UnknownModifier {
                    modifier: "up".into(),
                    field: "a:up".into(),
                },
            ),
            AssignError::WrongShape {
                flag: Flag::Replace,
                field: "efficiency_test".into(),
                value: "foo".into(),
                wanted: "a JSON list of strings",
                example: "[\"t.py\"]",
            },
            AssignError::Twice {
                field: "version".into(),
                first: Flag::Set,
                second: Flag::Replace,
            },
        ]));
    }
}
