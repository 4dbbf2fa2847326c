//! What a format's own consumer requires of one record: its export contract.
//!
//! A converter can write a record that is valid JSON, carries every field the source
//! had, and is still useless: the target's harness raises on a missing key, or reads a
//! list one character at a time. A [`Contract`] writes down, once per format, the keys
//! that format's real consumer needs and what their values must look like, each with its
//! evidence (the consumer's file and function). It is the single source of:
//!
//! - the check `convert` runs on every exported record ([`Contract::check`]): a record
//!   that misses an item is refused with a remedy, or written only with
//!   `--allow-incomplete` and counted as incomplete;
//! - `validate --format`, which runs the same check, so a file `convert --to X` wrote
//!   passes `validate --format X`;
//! - the `required` list and value types of the format's published JSON Schema
//!   ([`Contract::apply_to_schema`]);
//! - what `adapters` prints as required.
//!
//! A contract speaks of the *foreign* record: `FAIL_TO_PASS`, not
//! `extensions.fail_to_pass`. Each requirement also names the canonical field the export
//! fills it from, so that the remedy can say what to `--set`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::codec;

/// The JSON shape a consumer needs a value in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Kind {
    /// A JSON string.
    String,
    /// A JSON array of strings.
    List,
    /// A list of strings, as a JSON array or as a string holding one (SWE-bench's
    /// `FAIL_TO_PASS`, which its harness decodes when it is a string).
    ListOrEncoded,
    /// A list of strings, as a JSON array or as a string holding a Python literal of one
    /// (`['a', 'b']`, which the consumer reads with `ast.literal_eval`).
    ListOrPythonRepr,
    /// A string holding JSON text (SWE-Perf's `duration_changes`).
    JsonText,
    /// A JSON number.
    Number,
    /// A JSON integer.
    Integer,
    /// A JSON object.
    Object,
    /// A JSON array of any items.
    Array,
    /// A string or `null`: the key must be there, its value may be `null`.
    StringOrNull,
    /// `true` or `false`.
    Boolean,
    /// A JSON array of integers.
    IntegerList,
    /// Any JSON value but `null`.
    Any,
}

impl Kind {
    /// How the kind reads in a message: "a string", "an array of strings", ...
    pub fn describe(self) -> &'static str {
        match self {
            Self::String => "a string",
            Self::List => "an array of strings",
            Self::ListOrEncoded => "a list of strings (an array, or a string holding one)",
            Self::ListOrPythonRepr => {
                "a list of strings (an array, or a string holding a Python literal of one)"
            }
            Self::JsonText => "a string holding JSON",
            Self::Number => "a number",
            Self::Integer => "an integer",
            Self::Object => "an object",
            Self::Array => "an array",
            Self::StringOrNull => "a string or null",
            Self::Boolean => "true or false",
            Self::IntegerList => "an array of integers",
            Self::Any => "a value",
        }
    }

    /// The JSON Schema of a value of this kind.
    pub fn schema(self) -> Value {
        let strings = serde_json::json!({ "type": "array", "items": { "type": "string" } });
        match self {
            Self::String | Self::JsonText => serde_json::json!({ "type": "string" }),
            Self::List => strings,
            Self::ListOrEncoded | Self::ListOrPythonRepr => {
                serde_json::json!({ "type": ["string", "array"], "items": { "type": "string" } })
            }
            Self::Number => serde_json::json!({ "type": "number" }),
            Self::Integer => serde_json::json!({ "type": "integer" }),
            Self::Object => serde_json::json!({ "type": "object" }),
            Self::Array => serde_json::json!({ "type": "array" }),
            Self::StringOrNull => serde_json::json!({ "type": ["string", "null"] }),
            Self::Boolean => serde_json::json!({ "type": "boolean" }),
            Self::IntegerList => {
                serde_json::json!({ "type": "array", "items": { "type": "integer" } })
            }
            Self::Any => serde_json::json!({ "not": { "type": "null" } }),
        }
    }
}

/// The values a consumer knows for a key it looks up in a table of its own (SWE-bench's
/// 4.x harness finds a row's environment at `MAP_REPO_VERSION_TO_SPECS[repo][version]`,
/// and raises `KeyError` for any other pair).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Known {
    /// The values, when they do not depend on another key.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub values: BTreeSet<String>,
    /// Or the values for each value of another key (`version` under `repo`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub under: Option<Under>,
    /// A key whose presence sends a record down a path that does not look the value up
    /// (`eval_script`: a SWE-bench 5.x row carries its own environment).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unless: Option<String>,
    /// Keys that must be there with `unless` for its path to be taken (a SWE-bench 5.x
    /// row carries `image`, `log_parser` and `eval_type` with its `eval_script`): a
    /// record with only some of them is looked up.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unless_with: Vec<String>,
}

/// Known values that depend on another key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Under {
    /// The other key.
    pub key: String,
    /// The values known for each of its values.
    pub values: BTreeMap<String, BTreeSet<String>>,
}

impl Known {
    /// Whether `value` is known, for `record`; `None` when the record does not have it
    /// looked up, or gives no way to tell: under another key's value that is not listed,
    /// which that key's own requirement reports.
    fn knows(&self, value: &str, record: &Map<String, Value>) -> Option<bool> {
        if self.passes_by(record) {
            return None;
        }
        let listed = match &self.under {
            Some(under) => under.values.get(lookup(record, &under.key)?.as_str()?)?,
            None => &self.values,
        };
        Some(listed.contains(value))
    }

    /// Whether `record` takes the path that does not look the value up (`unless`, with
    /// every key of `unless_with`, there and not null).
    fn passes_by(&self, record: &Map<String, Value>) -> bool {
        self.unless.as_ref().is_some_and(|unless| {
            std::iter::once(unless)
                .chain(&self.unless_with)
                .all(|key| lookup(record, key).is_some_and(|v| !v.is_null()))
        })
    }

    /// Whether `record` is looked up under another key's value that lists nothing: no
    /// value of this key is one the consumer knows there.
    fn lists_nothing_for(&self, record: &Map<String, Value>) -> bool {
        let Some(under) = &self.under else {
            return false;
        };
        !self.passes_by(record)
            && lookup(record, &under.key)
                .and_then(Value::as_str)
                .is_some_and(|of| !under.values.contains_key(of))
    }

    /// What the JSON Schema says of the key `key`: an `enum` in its property, or one
    /// `if`/`then` case per value of the other key, for the schema's `allOf`.
    fn apply_to_schema(
        &self,
        key: &str,
        property: &mut Map<String, Value>,
        cases: &mut Vec<Value>,
    ) {
        let strings =
            |values: &BTreeSet<String>| values.iter().cloned().map(Value::String).collect();
        let unless = |mut case: Value| {
            // The lookup applies unless the key is there and not null, as in `knows`.
            if let Some(unless) = &self.unless {
                let keys: Vec<&String> = std::iter::once(unless).chain(&self.unless_with).collect();
                let not_null: Map<String, Value> = keys
                    .iter()
                    .map(|&key| (key.clone(), json!({ "not": { "type": "null" } })))
                    .collect();
                case["if"]["not"] = json!({ "required": keys, "properties": not_null });
            }
            case
        };
        match &self.under {
            None if self.unless.is_none() => {
                property.insert("enum".to_owned(), Value::Array(strings(&self.values)));
            }
            None => cases.push(unless(json!({
                "if": {},
                "then": { "properties": { key: { "enum": Value::Array(strings(&self.values)) } } },
            }))),
            Some(under) => cases.extend(under.values.iter().map(|(of, listed)| {
                unless(json!({
                    "if": { "properties": { &under.key: { "const": of } }, "required": [&under.key] },
                    "then": { "properties": { key: { "enum": Value::Array(strings(listed)) } } },
                }))
            })),
        }
    }
}

/// One key a format's consumer requires.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Requirement {
    /// The key in the foreign record (`FAIL_TO_PASS`); `/` separates the keys of nested
    /// objects (`base/sha`).
    pub key: String,
    /// The shape its value must have.
    pub kind: Kind,
    /// Whether an empty value (`""`, `[]`, `"[]"`) is refused too.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub non_empty: bool,
    /// The canonical field the export fills it from (`extensions.fail_to_pass`), which
    /// `--set` can supply; empty when no canonical field maps to it.
    #[serde(default)]
    pub field: String,
    /// The value the format itself uses to mean "none", written (and reported as
    /// defaulted) for a record whose source has no such concept. Only such a value:
    /// nothing else is invented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub none_value: Option<Value>,
    /// Where the consumer needs it: its file and function.
    pub evidence: String,
    /// Another way to supply it, beyond `--set` (e.g. `--repos DIR`), shown in the remedy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remedy: Option<String>,
    /// The only values the consumer knows, where it looks the value up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub known: Option<Known>,
}

impl Requirement {
    /// A requirement of `key`, filled from canonical `field`, with its evidence.
    pub fn new(key: &str, kind: Kind, field: &str, evidence: &str) -> Self {
        Self {
            key: key.to_owned(),
            kind,
            non_empty: false,
            field: field.to_owned(),
            none_value: None,
            evidence: evidence.to_owned(),
            remedy: None,
            known: None,
        }
    }

    /// Refuses empty values too.
    #[must_use]
    pub fn non_empty(mut self) -> Self {
        self.non_empty = true;
        self
    }

    /// Sets the value the format uses to mean "none".
    #[must_use]
    pub fn none_value(mut self, value: impl Into<Value>) -> Self {
        self.none_value = Some(value.into());
        self
    }

    /// Sets another way to supply the value.
    #[must_use]
    pub fn remedy(mut self, remedy: &str) -> Self {
        self.remedy = Some(remedy.to_owned());
        self
    }

    /// What is wrong with `value` for this requirement; `None` when it complies.
    fn problem(&self, value: &Value) -> Option<Problem> {
        let (fits, empty) = match (self.kind, value) {
            (Kind::String | Kind::StringOrNull, Value::String(s)) => (true, s.trim().is_empty()),
            (Kind::StringOrNull, Value::Null) => (true, true),
            (Kind::JsonText, Value::String(s)) => match serde_json::from_str::<Value>(s) {
                Ok(decoded) => (true, is_empty(&decoded)),
                Err(_) => (false, false),
            },
            (Kind::List | Kind::ListOrEncoded | Kind::ListOrPythonRepr, Value::Array(items)) => {
                (items.iter().all(Value::is_string), items.is_empty())
            }
            (Kind::ListOrEncoded, Value::String(s)) => match serde_json::from_str::<Value>(s) {
                Ok(Value::Array(items)) => (items.iter().all(Value::is_string), items.is_empty()),
                _ => (false, false),
            },
            (Kind::ListOrPythonRepr, Value::String(_)) => {
                match crate::codec::decode_list(value, "") {
                    Ok(decoded) => (true, decoded.items.is_empty()),
                    Err(_) => (false, false),
                }
            }
            // A number a consumer reads as a finite float (`1e+400` is none).
            (Kind::Number, Value::Number(n)) => (n.as_f64().is_some(), false),
            (Kind::Boolean, Value::Bool(_)) => (true, false),
            (Kind::Object, Value::Object(o)) => (true, o.is_empty()),
            (Kind::Array, Value::Array(a)) => (true, a.is_empty()),
            (Kind::Integer, Value::Number(n)) => (n.is_i64() || n.is_u64(), false),
            (Kind::IntegerList, Value::Array(items)) => (
                items
                    .iter()
                    .all(|v| v.as_number().is_some_and(|n| n.is_i64() || n.is_u64())),
                items.is_empty(),
            ),
            (Kind::Any, value) => (true, is_empty(value)),
            _ => (false, false),
        };
        self.verdict(fits, empty)
    }

    /// Whether a value of the right shape is one the consumer does not know.
    fn unknown(&self, value: &Value, record: &Map<String, Value>) -> Option<Problem> {
        let known = self.known.as_ref()?;
        let value = value.as_str()?;
        (known.knows(value, record) == Some(false)).then_some(Problem::Unknown)
    }

    /// The verdict [`Requirement::problem`] gives the value `text` decodes to. The
    /// common passed texts, a string that starts with a visible character and an array
    /// (every passed array holds strings only), are judged without decoding them.
    fn text_problem(&self, text: &[u8]) -> Option<Problem> {
        let visible = |b: &u8| b.is_ascii_graphic() && !matches!(b, b'"' | b'\\');
        let empty = match (self.kind, text) {
            (Kind::String | Kind::StringOrNull, [b'"', first, ..]) if visible(first) => false,
            (Kind::List | Kind::ListOrEncoded | Kind::ListOrPythonRepr, [b'[', ..]) => {
                text == b"[]"
            }
            _ => {
                return serde_json::from_slice::<Value>(text)
                    .map_or(Some(Problem::WrongType), |value| self.problem(&value));
            }
        };
        self.verdict(true, empty)
    }

    /// The verdict [`Requirement::problem`] gives the value `held` stands for.
    fn held_problem(&self, held: HeldValue<'_>) -> Option<Problem> {
        match held {
            HeldValue::Text(text) => self.text_problem(text),
            HeldValue::Str(s) if matches!(self.kind, Kind::String | Kind::StringOrNull) => {
                self.verdict(true, s.trim().is_empty())
            }
            HeldValue::Str(s) => self.problem(&Value::String(s.to_owned())),
        }
    }

    /// The problem of a value that `fits` the kind or not, and is `empty` or not.
    fn verdict(&self, fits: bool, empty: bool) -> Option<Problem> {
        if !fits {
            Some(Problem::WrongType)
        } else if empty && self.non_empty {
            Some(Problem::Empty)
        } else {
            None
        }
    }

    /// The key as a JSON pointer (`/FAIL_TO_PASS`, `/base/sha`).
    pub fn pointer(&self) -> String {
        let mut pointer = String::new();
        for part in self.key.split('/') {
            pointer.push('/');
            pointer.push_str(&crate::error::pointer_token(part));
        }
        pointer
    }

    /// The remedy for a record that lacks this requirement: only ways that are true for
    /// the records they are applied to. `--set` is offered for a field one value (or a
    /// per-record template) can fill; for a fact of each record (its patch, its tests) only
    /// where the records lacking it share one value, beside converting from a source that
    /// has it; never for what is computed from each record's measurements or names it
    /// ([`COMPUTED_OR_NAMING`]), nor to replace a value the consumer does not know.
    pub fn how_to_supply(&self) -> String {
        self.ways_to_supply(false)
    }

    fn ways_to_supply(&self, unknown: bool) -> String {
        let field = self.field.as_str();
        let fact = PER_RECORD_FACTS.contains(&field);
        let mut ways = Vec::new();
        if !unknown && !field.is_empty() && !COMPUTED_OR_NAMING.contains(&field) {
            ways.push(if fact {
                format!(
                    "`--set {field}=VALUE` where the records lacking it share one value (it is a fact of each record)"
                )
            } else {
                format!("`--set {field}=VALUE`")
            });
        }
        if let Some(remedy) = &self.remedy {
            ways.push(remedy.clone());
        }
        if ways.is_empty() || (fact && self.remedy.is_none()) {
            ways.push("convert from a source that has it".to_owned());
        }
        ways.join(", or ")
    }
}

/// Canonical fields that hold a fact of each record, which one `--set` value gives
/// truly only to records that share it: the remedy says so, and names another source.
pub const PER_RECORD_FACTS: [&str; 19] = [
    "repo",
    "instance_id",
    "created_at",
    "base_commit",
    "head_commit",
    "patch",
    "test_patch",
    "patch_functions",
    "test_functions",
    "efficiency_test",
    "duration_changes",
    "human_performance",
    "problem_statement_oracle",
    "problem_statement_realistic",
    "gt_commit_message",
    "extensions.fail_to_pass",
    "extensions.pass_to_pass",
    "extensions.problem_statement",
    "extensions.gt_diff",
];

/// Per-record facts no `--set` gives: what is computed from each record's measurements
/// (a remedy names the derivation, `--timings`), and the id that names each record.
pub const COMPUTED_OR_NAMING: [&str; 3] = ["instance_id", "duration_changes", "human_performance"];

/// The value at `key` (`/`-separated for nested objects).
fn lookup<'v>(record: &'v Map<String, Value>, key: &str) -> Option<&'v Value> {
    let mut parts = key.split('/');
    let first = codec::get_small(record, parts.next()?)?;
    parts.try_fold(first, |value, part| {
        codec::get_small(value.as_object()?, part)
    })
}

/// Whether a decoded JSON value is empty (`null`, `""`, `[]`, `{}`).
fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    }
}

/// Why a value does not meet its requirement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Problem {
    /// The key is absent (or `null`).
    Absent,
    /// The value has the wrong shape.
    WrongType,
    /// The value is empty where the consumer needs one.
    Empty,
    /// The value is not one the consumer knows ([`Requirement::known`]).
    Unknown,
}

/// One requirement a record does not meet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unmet<'c> {
    /// The requirement.
    pub requirement: &'c Requirement,
    /// What is wrong.
    pub problem: Problem,
    /// The value found, for a value the consumer does not know.
    pub found: Option<String>,
    /// Whether no value can meet it in this record: the values the consumer knows
    /// depend on another key whose value it does not know (a `version` of a `repo`
    /// that has no specs), so no `--set` of this key helps.
    pub no_value_fits: bool,
}

impl Unmet<'_> {
    /// The remedy for this item (see [`Requirement::how_to_supply`]): a value the
    /// consumer does not know is not replaced with `--set`.
    pub fn how_to_supply(&self) -> String {
        self.requirement
            .ways_to_supply(self.problem == Problem::Unknown || self.no_value_fits)
    }

    /// `FAIL_TO_PASS` (absent), `patch` (empty), ...
    pub fn describe(&self) -> String {
        let r = self.requirement;
        match self.problem {
            Problem::Absent => format!("`{}`", r.key),
            Problem::Empty => format!("`{}` (empty)", r.key),
            Problem::WrongType => format!("`{}` (not {})", r.key, r.kind.describe()),
            Problem::Unknown => {
                let found = self.found.as_deref().unwrap_or_default();
                match r.known.as_ref().and_then(|k| k.under.as_ref()) {
                    Some(under) => format!(
                        "`{}` (one it knows for this `{}`, not `{found}`)",
                        r.key, under.key
                    ),
                    None => format!("`{}` (one it knows, not `{found}`)", r.key),
                }
            }
        }
    }
}

/// A value a conversion holds outside the record, as [`Contract::check_held`] judges it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeldValue<'t> {
    /// Its JSON text, as the writer writes it.
    Text(&'t [u8]),
    /// A string, as itself (not as JSON text).
    Str(&'t str),
}

/// What a format's consumer requires of every record.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Contract {
    /// Who reads the records (`swebench 4.1 harness`).
    #[serde(default)]
    pub consumer: String,
    /// The requirements, in the format's key order.
    #[serde(default)]
    pub requires: Vec<Requirement>,
}

impl Contract {
    /// A contract of `consumer` with these requirements.
    pub fn new(consumer: &str, requires: Vec<Requirement>) -> Self {
        Self {
            consumer: consumer.to_owned(),
            requires,
        }
    }

    /// Whether the contract requires nothing.
    pub fn is_empty(&self) -> bool {
        self.requires.is_empty()
    }

    /// The requirement of `key`.
    pub fn get(&self, key: &str) -> Option<&Requirement> {
        self.requires.iter().find(|r| r.key == key)
    }

    /// Every requirement `record` does not meet, in the contract's order. `held` gives
    /// the JSON text of a key's value that the record lacks because a conversion holds
    /// it outside the record (see [`crate::passthrough`]; `|_| None` when none is
    /// held): the writer writes that text, and it is judged as the value it holds.
    pub fn check<'c, 't>(
        &'c self,
        record: &Map<String, Value>,
        held: &dyn Fn(&str) -> Option<&'t [u8]>,
    ) -> Vec<Unmet<'c>> {
        self.check_held(record, &|key| held(key).map(HeldValue::Text))
    }

    /// [`Self::check`], with each held value given as its JSON text or as the string it
    /// is ([`HeldValue`]).
    pub fn check_held<'c, 't>(
        &'c self,
        record: &Map<String, Value>,
        held: &dyn Fn(&str) -> Option<HeldValue<'t>>,
    ) -> Vec<Unmet<'c>> {
        self.requires
            .iter()
            .filter_map(|requirement| {
                let problem = match lookup(record, &requirement.key) {
                    None => match held(&requirement.key) {
                        Some(value) => requirement.held_problem(value),
                        None => Some(Problem::Absent),
                    },
                    Some(Value::Null) if requirement.kind != Kind::StringOrNull => {
                        Some(Problem::Absent)
                    }
                    Some(value) => requirement
                        .problem(value)
                        .or_else(|| requirement.unknown(value, record)),
                };
                problem.map(|problem| Unmet {
                    requirement,
                    problem,
                    found: (problem == Problem::Unknown)
                        .then(|| {
                            lookup(record, &requirement.key)?
                                .as_str()
                                .map(str::to_owned)
                        })
                        .flatten(),
                    no_value_fits: requirement
                        .known
                        .as_ref()
                        .is_some_and(|known| known.lists_nothing_for(record)),
                })
            })
            .collect()
    }

    /// Writes the "none" value of every requirement that has one and that `record`
    /// lacks, in the contract's key order; gives the keys written. A key for which
    /// `held` says a conversion holds the value outside the record is not lacking.
    pub fn fill_none_values(
        &self,
        record: &mut Map<String, Value>,
        held: &dyn Fn(&str) -> bool,
    ) -> Vec<&Requirement> {
        let mut filled = Vec::new();
        for (i, requirement) in self.requires.iter().enumerate() {
            let Some(none) = &requirement.none_value else {
                continue;
            };
            if record.get(&requirement.key).is_some_and(|v| !v.is_null()) || held(&requirement.key)
            {
                continue;
            }
            // After the nearest earlier key of the contract the record has.
            let at = self.requires[..i]
                .iter()
                .rev()
                .find_map(|earlier| record.keys().position(|k| *k == earlier.key))
                .map_or(0, |index| index + 1);
            record.shift_remove(&requirement.key);
            record.shift_insert(at, requirement.key.clone(), none.clone());
            filled.push(requirement);
        }
        filled
    }

    /// The message of a record refused for `unmet`, for a format called `format`.
    pub fn refusal(&self, format: &str, unmet: &[Unmet<'_>]) -> String {
        let list = unmet
            .iter()
            .map(Unmet::describe)
            .collect::<Vec<_>>()
            .join(", ");
        let consumer = if self.consumer.is_empty() {
            format.to_owned()
        } else {
            format!("{format} ({})", self.consumer)
        };
        format!("{consumer} would reject this record: it needs {list}")
    }

    /// The remedy for a record refused for `unmet`: how to supply each item (one line
    /// each), or `--allow-incomplete`.
    pub fn remedy(unmet: &[Unmet<'_>]) -> String {
        let mut text = String::from(
            "supply what is missing, or write such records anyway with `--allow-incomplete`:",
        );
        for u in unmet {
            let r = u.requirement;
            let _ = write!(
                text,
                "\n  `{}`: {} (needed by {})",
                r.key,
                u.how_to_supply(),
                r.evidence
            );
        }
        text
    }

    /// Sets the contract's keys as `required` in a format's JSON Schema, and their value
    /// types where the schema gives none, so the published schema says what the consumer
    /// needs.
    pub fn apply_to_schema(&self, schema: &mut Value) {
        let Some(object) = schema.as_object_mut() else {
            return;
        };
        let top = || self.requires.iter().filter(|r| !r.key.contains('/'));
        let required = top().map(|r| Value::String(r.key.clone())).collect();
        object.insert("required".to_owned(), Value::Array(required));
        let properties = object
            .entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
        let Some(properties) = properties.as_object_mut() else {
            return;
        };
        let mut cases = Vec::new();
        for r in top() {
            let property = properties
                .entry(r.key.clone())
                .or_insert_with(|| Value::Object(Map::new()));
            if let Some(property) = property.as_object_mut() {
                let Value::Object(shape) = r.kind.schema() else {
                    unreachable!("a kind's schema is an object")
                };
                for (k, v) in shape {
                    property.entry(k).or_insert(v);
                }
                if r.non_empty {
                    let key = if r.kind == Kind::List {
                        "minItems"
                    } else {
                        "minLength"
                    };
                    if matches!(r.kind, Kind::List | Kind::String) {
                        property.insert(key.to_owned(), Value::from(1));
                    }
                }
                if let Some(known) = &r.known {
                    known.apply_to_schema(&r.key, property, &mut cases);
                }
            }
        }
        if !cases.is_empty() {
            object.insert("allOf".to_owned(), Value::Array(cases));
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn contract() -> Contract {
        Contract::new(
            "a harness",
            vec![
                Requirement::new("patch", Kind::String, "patch", "harness.apply").non_empty(),
                Requirement::new("hints", Kind::String, "extensions.hints_text", "Instance")
                    .none_value(""),
                Requirement::new(
                    "F2P",
                    Kind::ListOrEncoded,
                    "extensions.fail_to_pass",
                    "grading",
                )
                .non_empty(),
                Requirement::new("runs", Kind::JsonText, "duration_changes", "loader"),
                Requirement::new("n", Kind::Integer, "", "Dataset").remedy("`--repos DIR`"),
            ],
        )
    }

    fn map(value: Value) -> Map<String, Value> {
        let Value::Object(map) = value else { panic!() };
        map
    }

    fn none(_: &str) -> Option<&'static [u8]> {
        None
    }

    fn keys_and_problems(unmet: &[Unmet<'_>]) -> Vec<(String, Problem)> {
        unmet
            .iter()
            .map(|u| (u.requirement.key.clone(), u.problem))
            .collect()
    }

    #[test]
    fn a_complete_record_meets_the_contract() {
        let c = contract();
        let record = map(json!({
            "patch": "diff", "hints": "", "F2P": "[\"t\"]", "runs": "[{}]", "n": 3
        }));
        assert!(c.check(&record, &none).is_empty());
        // Either list form.
        let record = map(json!({"patch": "d", "hints": "", "F2P": ["t"], "runs": "1", "n": 3}));
        assert!(c.check(&record, &none).is_empty());
    }

    #[test]
    fn every_unmet_item_is_named_with_its_problem() {
        let c = contract();
        let record = map(json!({
            "patch": "  ", "F2P": "[]", "runs": "not json", "n": 1.5
        }));
        assert_eq!(
            keys_and_problems(&c.check(&record, &none)),
            [
                ("patch".to_owned(), Problem::Empty),
                ("hints".to_owned(), Problem::Absent),
                ("F2P".to_owned(), Problem::Empty),
                ("runs".to_owned(), Problem::WrongType),
                ("n".to_owned(), Problem::WrongType),
            ]
        );
        let record = map(json!({"patch": null, "hints": 3, "F2P": "x", "runs": "[]", "n": 2}));
        assert_eq!(
            keys_and_problems(&c.check(&record, &none)),
            [
                ("patch".to_owned(), Problem::Absent),
                ("hints".to_owned(), Problem::WrongType),
                ("F2P".to_owned(), Problem::WrongType),
            ]
        );
    }

    #[test]
    fn a_held_value_is_judged_by_its_text() {
        let c = contract();
        // The record lacks the held keys; the texts written for them decide.
        let record = map(json!({"hints": "", "runs": "1", "n": 1}));
        let texts = |key: &str| match key {
            "patch" => Some(&b"\"\""[..]),
            "F2P" => Some(&b"[\"a\"]"[..]),
            _ => None,
        };
        assert_eq!(
            keys_and_problems(&c.check(&record, &texts)),
            [("patch".to_owned(), Problem::Empty)]
        );
        let texts = |key: &str| match key {
            "patch" => Some(&b"\"d\""[..]),
            "F2P" => Some(&b"[]"[..]),
            _ => None,
        };
        assert_eq!(
            keys_and_problems(&c.check(&record, &texts)),
            [("F2P".to_owned(), Problem::Empty)]
        );
        // A value the record has is judged, whatever is held.
        let written = map(json!({"patch": "d", "hints": "", "F2P": ["a"], "runs": "1", "n": 1}));
        let empty_texts = |key: &str| match key {
            "patch" => Some(&b"\"\""[..]),
            "F2P" => Some(&b"[]"[..]),
            _ => None,
        };
        assert!(c.check(&written, &empty_texts).is_empty());
        // Without texts, the keys are absent.
        assert_eq!(
            keys_and_problems(&c.check(&record, &none)),
            [
                ("patch".to_owned(), Problem::Absent),
                ("F2P".to_owned(), Problem::Absent)
            ]
        );
    }

    #[test]
    fn a_passed_text_gets_the_verdict_of_its_value() {
        let values = [
            json!(""),
            json!("  \n\t"),
            json!("\u{a0}"),
            json!("diff --git a/x b/x"),
            json!("\"quoted\""),
            json!("\\ backslash"),
            json!(" leading space"),
            json!("[]"),
            json!("[\"a\"]"),
            json!("{}"),
            json!([]),
            json!(["a"]),
            json!([""]),
        ];
        let kinds = [
            Kind::String,
            Kind::StringOrNull,
            Kind::JsonText,
            Kind::List,
            Kind::ListOrEncoded,
            Kind::Number,
        ];
        for kind in kinds {
            for non_empty in [false, true] {
                let mut r = Requirement::new("k", kind, "", "e");
                if non_empty {
                    r = r.non_empty();
                }
                for value in &values {
                    let text = serde_json::to_vec(value).unwrap();
                    assert_eq!(
                        r.text_problem(&text),
                        r.problem(value),
                        "{kind:?} non-empty {non_empty}: {value}"
                    );
                    if let Value::String(s) = value {
                        assert_eq!(
                            r.held_problem(HeldValue::Str(s)),
                            r.problem(value),
                            "{kind:?} non-empty {non_empty}: {value} as a string"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn nested_keys_and_nullable_strings() {
        let c = Contract::new(
            "",
            vec![
                Requirement::new("base/sha", Kind::String, "base_commit", "Base"),
                Requirement::new("body", Kind::StringOrNull, "", "PullRequest"),
            ],
        );
        let record = map(json!({"base": {"sha": "abc"}, "body": null}));
        assert!(c.check(&record, &none).is_empty());
        let record = map(json!({"base": {"ref": "main"}}));
        assert_eq!(
            keys_and_problems(&c.check(&record, &none)),
            [
                ("base/sha".to_owned(), Problem::Absent),
                ("body".to_owned(), Problem::Absent)
            ]
        );
        let mut schema = json!({});
        c.apply_to_schema(&mut schema);
        assert_eq!(schema["required"], json!(["body"]));
    }

    #[test]
    fn none_values_are_written_in_the_contract_order() {
        let c = contract();
        let mut record = map(json!({"x": 0, "patch": "d", "F2P": []}));
        let filled = c.fill_none_values(&mut record, &|_| false);
        assert_eq!(filled.len(), 1);
        assert_eq!(
            record.keys().collect::<Vec<_>>(),
            ["x", "patch", "hints", "F2P"]
        );
        // A record that has the value keeps it.
        let mut record = map(json!({"hints": "h"}));
        assert!(c.fill_none_values(&mut record, &|_| false).is_empty());
        assert_eq!(record["hints"], "h");
        // So does one whose value is held outside it.
        let mut record = map(json!({"patch": "d"}));
        assert!(
            c.fill_none_values(&mut record, &|key| key == "hints")
                .is_empty()
        );
        assert!(!record.contains_key("hints"));
    }

    #[test]
    fn the_refusal_names_every_item_and_its_remedy() {
        let c = contract();
        let record = map(json!({"patch": "d", "hints": "", "F2P": "[\"t\"]", "runs": "1"}));
        let unmet = c.check(&record, &none);
        assert_eq!(
            c.refusal("fmt", &unmet),
            "fmt (a harness) would reject this record: it needs `n`"
        );
        assert_eq!(
            Contract::remedy(&unmet),
            "supply what is missing, or write such records anyway with `--allow-incomplete`:\n  `n`: `--repos DIR` (needed by Dataset)"
        );
    }

    #[test]
    fn the_schema_requires_the_contract_keys() {
        let c = contract();
        let mut schema = json!({
            "type": "object",
            "required": ["old"],
            "properties": {"patch": {"type": "string", "description": "d"}}
        });
        c.apply_to_schema(&mut schema);
        assert_eq!(
            schema["required"],
            json!(["patch", "hints", "F2P", "runs", "n"])
        );
        assert_eq!(schema["properties"]["patch"]["description"], "d");
        assert_eq!(schema["properties"]["patch"]["minLength"], 1);
        assert_eq!(schema["properties"]["n"]["type"], "integer");
        assert_eq!(
            schema["properties"]["F2P"]["type"],
            json!(["string", "array"])
        );
    }

    /// A harness that looks `version` up under `repo`, and `repo` itself, unless the
    /// record carries its own `script`.
    fn spec_table() -> Contract {
        let set = |values: &[&str]| values.iter().map(|v| (*v).to_owned()).collect();
        let known = |under: Option<Under>| Known {
            values: if under.is_none() {
                set(&["a/b", "c/d"])
            } else {
                BTreeSet::new()
            },
            under,
            unless: Some("script".to_owned()),
            unless_with: Vec::new(),
        };
        let under = Under {
            key: "repo".to_owned(),
            values: BTreeMap::from([
                ("a/b".to_owned(), set(&["1.0", "1.10"])),
                ("c/d".to_owned(), set(&["2022.03"])),
            ]),
        };
        let mut repo = Requirement::new("repo", Kind::String, "repo", "spec");
        repo.known = Some(known(None));
        let mut version = Requirement::new("version", Kind::String, "version", "spec");
        version.known = Some(known(Some(under)));
        Contract::new("a harness", vec![repo, version])
    }

    #[test]
    fn values_the_consumer_does_not_know_are_refused_with_what_was_found() {
        let c = spec_table();
        let check = |record: Value| {
            let record = map(record);
            let unmet = c.check(&record, &|_| None);
            unmet.iter().map(Unmet::describe).collect::<Vec<_>>()
        };
        assert!(check(json!({"repo": "a/b", "version": "1.10"})).is_empty());
        assert!(check(json!({"repo": "c/d", "version": "2022.03"})).is_empty());
        // `1.1` is not `1.10`: releases are strings.
        assert_eq!(
            check(json!({"repo": "a/b", "version": "1.1"})),
            ["`version` (one it knows for this `repo`, not `1.1`)"]
        );
        // A known release of another repository is still unknown for this one.
        assert_eq!(
            check(json!({"repo": "c/d", "version": "1.0"})),
            ["`version` (one it knows for this `repo`, not `1.0`)"]
        );
        // An unknown repository is reported once, by its own requirement.
        assert_eq!(
            check(json!({"repo": "x/y", "version": "1.0"})),
            ["`repo` (one it knows, not `x/y`)"]
        );
        // A record taking the other path is not looked up at all.
        assert!(check(json!({"repo": "x/y", "version": "9", "script": "run"})).is_empty());
        // A value of the wrong shape is reported as such, not as unknown.
        assert_eq!(
            check(json!({"repo": 7, "version": "1.0"})),
            ["`repo` (not a string)"]
        );
    }

    /// The published schema and the check agree on which values are known, with the
    /// `unless` key absent, null or set.
    #[cfg(feature = "schema-validation")]
    #[test]
    fn the_schema_accepts_what_the_check_accepts() {
        let contract = spec_table();
        let mut schema = json!({"type": "object"});
        contract.apply_to_schema(&mut schema);
        let validator = jsonschema::validator_for(&schema).expect("a valid schema");
        for record in [
            json!({"repo": "a/b", "version": "1.10"}),
            json!({"repo": "a/b", "version": "2022.03"}),
            json!({"repo": "x/y", "version": "1.0"}),
            json!({"repo": "x/y", "version": "1.0", "script": null}),
            json!({"repo": "x/y", "version": "1.0", "script": "run"}),
            json!({"repo": "a/b", "version": "9", "script": null}),
        ] {
            let checked = contract.check(&map(record.clone()), &none).is_empty();
            assert_eq!(validator.is_valid(&record), checked, "{record}");
        }
    }

    /// A value known only under another key's value is not offered to `--set` when that
    /// value lists nothing (a `version` for a `repo` without specs); under a listed one, or
    /// on the path that looks nothing up, it is.
    #[test]
    fn set_is_not_offered_where_no_value_can_be_known() {
        let c = spec_table();
        let remedy = |record: Value| -> String {
            let record = map(record);
            let unmet = c.check(&record, &none);
            let version = unmet
                .iter()
                .find(|u| u.requirement.key == "version")
                .expect("version is unmet");
            version.how_to_supply()
        };
        assert!(!remedy(json!({"repo": "x/y"})).contains("--set version=VALUE"));
        assert!(remedy(json!({"repo": "a/b"})).contains("`--set version=VALUE`"));
        assert!(remedy(json!({})).contains("`--set version=VALUE`"));
    }

    #[test]
    fn the_schema_lists_the_known_values() {
        let mut schema = json!({"type": "object"});
        spec_table().apply_to_schema(&mut schema);
        let cases = schema["allOf"].as_array().expect("one case per value");
        // `repo`'s list depends on `script` only; `version`'s on `repo` too.
        assert_eq!(cases.len(), 3);
        let unless = json!({
            "required": ["script"],
            "properties": {"script": {"not": {"type": "null"}}}
        });
        assert_eq!(cases[0]["if"], json!({ "not": unless }));
        assert_eq!(
            cases[0]["then"]["properties"]["repo"]["enum"],
            json!(["a/b", "c/d"])
        );
        assert_eq!(
            cases[1],
            json!({
                "if": {
                    "properties": {"repo": {"const": "a/b"}},
                    "required": ["repo"],
                    "not": unless
                },
                "then": {"properties": {"version": {"enum": ["1.0", "1.10"]}}}
            })
        );
    }
}
