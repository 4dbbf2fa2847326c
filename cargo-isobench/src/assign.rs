//! `--set FIELD=VALUE`: a canonical field given to every record before export, either a
//! fixed value or a per-record template.
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

use isobench_core::record::{V1_FIELDS, V1_LIST_FIELDS, V1_STRING_FIELDS};
use isobench_core::{CanonicalRecord, Notes, RecordError};
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

/// One `--set FIELD=VALUE`.
#[derive(Debug, Clone)]
pub struct Assignment {
    field: String,
    value: Assigned,
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

/// Reads every `--set`.
pub fn parse_all(sets: &[String]) -> Result<Vec<Assignment>, CliError> {
    Ok(sets
        .iter()
        .map(|set| parse(set))
        .collect::<Result<_, _>>()?)
}

fn parse(set: &str) -> Result<Assignment, AssignError> {
    let (field, value) = set
        .split_once('=')
        .ok_or_else(|| AssignError::NoEquals(set.to_owned()))?;
    let known = V1_FIELDS.contains(&field) && field != "extensions"
        || field
            .strip_prefix("extensions.")
            .is_some_and(|k| !k.is_empty() && k != "source");
    if !known {
        return Err(AssignError::UnknownField(field.to_owned()));
    }
    let parsed = serde_json::from_str(value);
    if let Some((wanted, example, fits)) = shape(field) {
        let given = parsed
            .as_ref()
            .ok()
            .filter(|v| !matches!(v, Value::String(_)) || V1_STRING_FIELDS.contains(&field));
        let fits = match given {
            Some(v) => fits(v),
            // Text: a string, which only a string field takes.
            None => V1_STRING_FIELDS.contains(&field),
        };
        if !fits {
            return Err(AssignError::WrongShape {
                field: field.to_owned(),
                value: value.to_owned(),
                wanted,
                example,
            });
        }
    }
    let value = match parsed {
        Ok(Value::String(text)) => template(&text, set)?,
        // A v1 string field takes `--set version=0.1` as the text it is.
        Ok(Value::Number(_) | Value::Bool(_)) if V1_STRING_FIELDS.contains(&field) => {
            template(value, set)?
        }
        Ok(json) => Assigned::Fixed(json),
        Err(_) => template(value, set)?,
    };
    Ok(Assignment {
        field: field.to_owned(),
        value,
    })
}

/// What a canonical field holds, when it is known: how to say it, an example, and the
/// test of a value given as JSON.
type Shape = (&'static str, &'static str, fn(&Value) -> bool);

fn shape(field: &str) -> Option<Shape> {
    fn strings(v: &Value) -> bool {
        v.as_array()
            .is_some_and(|items| items.iter().all(Value::is_string))
    }
    fn text(v: &Value) -> bool {
        // A number or `true` is taken as its text (`--set version=0.10`).
        matches!(v, Value::String(_) | Value::Number(_) | Value::Bool(_))
    }
    let list = (
        "a JSON list of strings",
        "[\"tests/test_a.py::test_b\"]",
        strings as fn(&Value) -> bool,
    );
    if V1_LIST_FIELDS.contains(&field) || isobench_core::passthrough::is_list_field(field) {
        return Some(list);
    }
    if V1_STRING_FIELDS.contains(&field) {
        return Some(("a string", "text", text));
    }
    match field {
        "human_performance" => Some(("a JSON number", "1.5", Value::is_number)),
        "duration_changes" => Some((
            "a JSON list of timings",
            "[{\"base\": [1.0], \"head\": [0.5]}]",
            Value::is_array,
        )),
        _ => None,
    }
}

/// A string value: fixed when it holds no template field.
fn template(text: &str, set: &str) -> Result<Assigned, AssignError> {
    let bad = |fault| AssignError::Template {
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

/// The value of template field `name` for `record`.
fn template_field<'r>(record: &'r CanonicalRecord, name: &str) -> Option<&'r str> {
    let repo = || record.repo.as_deref()?.split_once('/');
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
                        let missing = RecordError::missing(
                            format!("/{field}"),
                            format!(
                                "`--set {}` uses `{{{name}}}`, but the record has no `{field}`{}",
                                self.field,
                                if field == "repo" {
                                    " of the form `owner/name`"
                                } else {
                                    ""
                                }
                            ),
                        );
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

    /// How the value was set, for the report.
    fn rule(&self) -> String {
        match &self.value {
            Assigned::Fixed(_) => "set with `--set`".to_owned(),
            Assigned::Template(parts) => {
                let mut text = String::from("set with `--set` from the template `");
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

/// Gives the value of every assignment of `phase` to `record`.
pub fn apply(
    record: CanonicalRecord,
    sets: &[Assignment],
    phase: Phase,
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
        match set.field.strip_prefix("extensions.") {
            Some(key) => {
                if !value["extensions"].is_object() {
                    value["extensions"] = Value::Object(Map::new());
                }
                value["extensions"][key] = given;
            }
            None => value[&set.field] = given,
        }
        notes.defaulted(&set.field, set.rule());
    }
    serde_json::from_value(value).map_err(|e| {
        RecordError::invalid("", format!("a `--set` value has the wrong type: {e}")).with_hint(
            "lists and numbers are given as JSON, e.g. `--set efficiency_test='[\"t.py\"]'`",
        )
    })
}

/// A `--set FIELD=VALUE` that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AssignError {
    /// No `=` in the assignment.
    #[error("`--set {0}` has no `=`")]
    NoEquals(String),
    /// A field that is neither canonical nor `extensions.KEY`.
    #[error("`--set`: `{0}` is not a canonical field")]
    UnknownField(String),
    /// A value whose template cannot be read.
    #[error("`--set {set}`: {fault}")]
    Template {
        /// The assignment as given.
        set: String,
        /// What is wrong with its template.
        fault: TemplateFault,
        /// The template fields a template may use.
        fields: &'static [&'static str],
    },
    /// A value of another shape than the field holds (`foo` for a test list).
    #[error("`--set {field}={value}`: `{value}` is not {wanted}, which `{field}` holds")]
    WrongShape {
        /// The field.
        field: String,
        /// The value as given.
        value: String,
        /// What the field holds ("a JSON list of strings").
        wanted: &'static str,
        /// An example of a value of that shape.
        example: &'static str,
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
            Self::NoEquals(_) => "write `--set FIELD=VALUE`".into(),
            Self::UnknownField(_) => "use a canonical v1 field name (`head_commit`) or `extensions.KEY` (`extensions.image_name`)".into(),
            Self::WrongShape { field, example, .. } => {
                format!("give it as JSON, quoted for the shell: `--set {field}='{example}'`")
            }
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
        let sets = parse_all(&[set.to_owned()]).expect("parses");
        let c = apply(record(), &sets, Phase::Fixed, &mut Notes::new())?;
        apply(c, &sets, Phase::Templates, &mut Notes::new())
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
        // A number given to a string field is its text; elsewhere it stays a number.
        let c = set_one("version=0.10").unwrap();
        assert_eq!(c.version.as_deref(), Some("0.10"));
        let c = set_one("extensions.difficulty=3").unwrap();
        assert_eq!(c.ext("difficulty"), Some(&Value::from(3)));
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
            let err = parse_all(&[set.to_owned()]).unwrap_err();
            let text = err.to_string();
            assert!(text.contains(said), "{set}: {text}");
            assert!(err.hint().unwrap().contains("`{instance_id}`"), "{set}");
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
    use crate::errors::check;

    #[test]
    fn assignment_errors_say_what_they_always_said() {
        check(
            AssignError::NoEquals("x".into()),
            "`--set x` has no `=`",
            Some("write `--set FIELD=VALUE`"),
        );
        check(
            AssignError::UnknownField("foo".into()),
            "`--set`: `foo` is not a canonical field",
            Some(
                "use a canonical v1 field name (`head_commit`) or `extensions.KEY` (`extensions.image_name`)",
            ),
        );
        let hint = "template fields are `{a}`, `{b}`, each optionally ending in `:lower` or `:N`; write `{{` and `}}` for literal braces";
        for (set, fault, message) in [
            (
                "f=}",
                TemplateFault::StrayClose,
                "`--set f=}`: a `}` closes no template field",
            ),
            (
                "f={",
                TemplateFault::Unclosed,
                "`--set f={`: a `{` is never closed",
            ),
            (
                "f={x:2}",
                TemplateFault::UnknownField("x:2".into()),
                "`--set f={x:2}`: unknown template field `{x:2}`",
            ),
            (
                "f={a:up}",
                TemplateFault::UnknownModifier {
                    modifier: "up".into(),
                    field: "a:up".into(),
                },
                "`--set f={a:up}`: unknown modifier `:up` in `{a:up}`",
            ),
        ] {
            let e = AssignError::Template {
                set: set.into(),
                fault,
                fields: &["a", "b"],
            };
            check(e, message, Some(hint));
        }
    }
}
