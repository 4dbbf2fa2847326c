//! The canonical ISO-Bench v1 record as Rust types.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

/// The timings of one efficiency test: `duration_changes[i]` belongs to `efficiency_test[i]`.
///
/// Numbers are kept as [`Number`] so that an integer stays an integer and a float keeps
/// its shortest form through a round trip.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DurationChange {
    /// Durations on the base commit, in seconds.
    pub base: Vec<Number>,
    /// Durations on the head commit, in seconds.
    pub head: Vec<Number>,
}

impl DurationChange {
    /// Builds timings from plain floats (non-finite values are dropped: JSON cannot hold them).
    pub fn from_f64(base: &[f64], head: &[f64]) -> Self {
        let conv = |xs: &[f64]| xs.iter().filter_map(|&x| Number::from_f64(x)).collect();
        Self {
            base: conv(base),
            head: conv(head),
        }
    }

    /// The base durations as floats.
    pub fn base_f64(&self) -> Vec<f64> {
        self.base.iter().filter_map(Number::as_f64).collect()
    }

    /// The head durations as floats.
    pub fn head_f64(&self) -> Vec<f64> {
        self.head.iter().filter_map(Number::as_f64).collect()
    }
}

/// One ISO-Bench instance: the v1 fields, each optional so that the lossless profile can
/// leave out what a source cannot fill, plus `extensions` for everything else.
///
/// Serialises with the v1 fields in schema order and leaves absent fields out.
#[allow(missing_docs)] // each field is documented in the canonical v1 schema
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CanonicalRecord {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_commit: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head_commit: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test_patch: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch_functions: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test_functions: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub efficiency_test: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem_statement_oracle: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem_statement_realistic: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_changes: Option<Vec<DurationChange>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub human_performance: Option<Number>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setup_commands: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub install_commands: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gt_commit_message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// Everything the source had that v1 has no field for (lossless profile only).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub extensions: Map<String, Value>,
    /// The bulk fields the source has whose values a conversion holds outside the
    /// record, to write them as it read them: present in the source, absent here, in
    /// the order import reached them (see [`CanonicalRecord::hold`]).
    #[serde(skip)]
    pub held: Vec<HeldField>,
}

/// A field the source has whose value a conversion holds outside the record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldField {
    /// The canonical field (`patch`, `extensions.problem_statement`): a v1 field's
    /// name is borrowed from [`V1_FIELDS`], so that holding it allocates nothing.
    pub field: Cow<'static, str>,
    /// For an extension, how many extensions the record held when import reached it:
    /// where it stands among them.
    pub at: usize,
}

/// A v1 field's value, borrowed from a [`CanonicalRecord`].
pub(crate) enum FieldRef<'a> {
    String(&'a str),
    Strings(&'a [String]),
    Value(&'a Value),
    Timings(&'a [DurationChange]),
    Number(&'a Number),
}

/// The v1 fields, in schema order.
pub const V1_FIELDS: [&str; 21] = [
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
    "problem_statement_oracle",
    "problem_statement_realistic",
    "duration_changes",
    "human_performance",
    "version",
    "setup_commands",
    "install_commands",
    "api",
    "gt_commit_message",
    "notes",
    "extensions",
];

/// The v1 fields holding a string.
pub const V1_STRING_FIELDS: [&str; 11] = [
    "repo",
    "instance_id",
    "created_at",
    "base_commit",
    "head_commit",
    "patch",
    "test_patch",
    "version",
    "api",
    "gt_commit_message",
    "notes",
];

/// The v1 fields holding a list of strings.
pub const V1_LIST_FIELDS: [&str; 5] = [
    "patch_functions",
    "test_functions",
    "efficiency_test",
    "setup_commands",
    "install_commands",
];

/// The v1 fields the schema requires.
pub const V1_REQUIRED: [&str; 11] = [
    "repo",
    "instance_id",
    "created_at",
    "base_commit",
    "head_commit",
    "patch",
    "test_patch",
    "efficiency_test",
    "duration_changes",
    "human_performance",
    "version",
];

/// The name of a held field that is not a v1 field (`extensions.<key>`), borrowed: a
/// conversion holds the same few fields its formats' tables name on every record, so
/// each name is kept once for the process (up to [`HELD_NAMES`] of them; any beyond
/// are allocated as before) and found again by each thread without a lock.
fn held_name(field: &str) -> Cow<'static, str> {
    use std::cell::RefCell;
    use std::sync::{Mutex, PoisonError};
    static KEPT: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());
    thread_local! {
        static SEEN: RefCell<Vec<&'static str>> = const { RefCell::new(Vec::new()) };
    }
    SEEN.with_borrow_mut(|seen| {
        if let Some(name) = seen.iter().find(|name| **name == field) {
            return Cow::Borrowed(*name);
        }
        let mut kept = KEPT.lock().unwrap_or_else(PoisonError::into_inner);
        let name = match kept.iter().find(|name| **name == field) {
            Some(name) => *name,
            None if kept.len() < HELD_NAMES => {
                let name: &'static str = Box::leak(field.into());
                kept.push(name);
                name
            }
            None => return Cow::Owned(field.to_owned()),
        };
        seen.push(name);
        Cow::Borrowed(name)
    })
}

/// The most held field names [`held_name`] keeps.
const HELD_NAMES: usize = 256;

/// [`V1_REQUIRED`] as bits of [`V1_FIELDS`] (as [`CanonicalRecord::fields_present`]
/// gives them); building it fails to compile unless every required field is a v1 field
/// and they come in schema order.
const REQUIRED_BITS: u32 = {
    const fn same(a: &str, b: &str) -> bool {
        let (a, b) = (a.as_bytes(), b.as_bytes());
        if a.len() != b.len() {
            return false;
        }
        let mut k = 0;
        while k < a.len() {
            if a[k] != b[k] {
                return false;
            }
            k += 1;
        }
        true
    }
    let mut bits = 0u32;
    let mut next = 0;
    let mut j = 0;
    while j < V1_REQUIRED.len() {
        let mut i = next;
        while i < V1_FIELDS.len() && !same(V1_FIELDS[i], V1_REQUIRED[j]) {
            i += 1;
        }
        assert!(i < V1_FIELDS.len(), "a required field in schema order");
        bits |= 1 << i;
        next = i + 1;
        j += 1;
    }
    bits
};

impl CanonicalRecord {
    /// The record as a JSON value (v1 fields in schema order, then `extensions`).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("a canonical record always serialises")
    }

    /// The record as a JSON value, like [`CanonicalRecord::to_value`], but moving its
    /// strings and values instead of copying them.
    pub fn into_value(self) -> Value {
        fn strings(items: Vec<String>) -> Value {
            Value::Array(items.into_iter().map(Value::String).collect())
        }
        fn numbers(items: Vec<Number>) -> Value {
            Value::Array(items.into_iter().map(Value::Number).collect())
        }
        let Self {
            repo,
            instance_id,
            created_at,
            base_commit,
            head_commit,
            patch,
            test_patch,
            patch_functions,
            test_functions,
            efficiency_test,
            problem_statement_oracle,
            problem_statement_realistic,
            duration_changes,
            human_performance,
            version,
            setup_commands,
            install_commands,
            api,
            gt_commit_message,
            notes,
            extensions,
            held: _,
        } = self;
        let timings = duration_changes.map(|timings| {
            Value::Array(
                timings
                    .into_iter()
                    .map(|t| {
                        let mut pair = Map::with_capacity(2);
                        pair.insert("base".into(), numbers(t.base));
                        pair.insert("head".into(), numbers(t.head));
                        Value::Object(pair)
                    })
                    .collect(),
            )
        });
        let fields: [Option<Value>; 20] = [
            repo.map(Value::String),
            instance_id.map(Value::String),
            created_at.map(Value::String),
            base_commit.map(Value::String),
            head_commit.map(Value::String),
            patch.map(Value::String),
            test_patch.map(Value::String),
            patch_functions.map(strings),
            test_functions.map(strings),
            efficiency_test.map(strings),
            problem_statement_oracle,
            problem_statement_realistic,
            timings,
            human_performance.map(Value::Number),
            version.map(Value::String),
            setup_commands.map(strings),
            install_commands.map(strings),
            api.map(Value::String),
            gt_commit_message.map(Value::String),
            notes.map(Value::String),
        ];
        // Sized to the fields present: a map of a few entries is a small allocation,
        // which the allocator serves from its per-thread cache.
        let present = fields.iter().flatten().count() + usize::from(!extensions.is_empty());
        let mut map = Map::with_capacity(present);
        for (name, value) in V1_FIELDS.into_iter().zip(fields) {
            if let Some(value) = value {
                map.insert(name.to_owned(), value);
            }
        }
        if !extensions.is_empty() {
            map.insert("extensions".to_owned(), Value::Object(extensions));
        }
        Value::Object(map)
    }

    /// The v1 fields, in schema order ([`V1_FIELDS`] without `extensions`), each
    /// borrowed when present.
    pub(crate) fn v1_fields(&self) -> [Option<FieldRef<'_>>; 20] {
        [
            self.repo.as_deref().map(FieldRef::String),
            self.instance_id.as_deref().map(FieldRef::String),
            self.created_at.as_deref().map(FieldRef::String),
            self.base_commit.as_deref().map(FieldRef::String),
            self.head_commit.as_deref().map(FieldRef::String),
            self.patch.as_deref().map(FieldRef::String),
            self.test_patch.as_deref().map(FieldRef::String),
            self.patch_functions.as_deref().map(FieldRef::Strings),
            self.test_functions.as_deref().map(FieldRef::Strings),
            self.efficiency_test.as_deref().map(FieldRef::Strings),
            self.problem_statement_oracle.as_ref().map(FieldRef::Value),
            self.problem_statement_realistic
                .as_ref()
                .map(FieldRef::Value),
            self.duration_changes.as_deref().map(FieldRef::Timings),
            self.human_performance.as_ref().map(FieldRef::Number),
            self.version.as_deref().map(FieldRef::String),
            self.setup_commands.as_deref().map(FieldRef::Strings),
            self.install_commands.as_deref().map(FieldRef::Strings),
            self.api.as_deref().map(FieldRef::String),
            self.gt_commit_message.as_deref().map(FieldRef::String),
            self.notes.as_deref().map(FieldRef::String),
        ]
    }

    /// The record without `extensions`: what the strict profile may hold.
    pub fn to_strict_value(&self) -> Value {
        let mut value = self.to_value();
        if let Value::Object(map) = &mut value {
            map.remove("extensions");
        }
        value
    }

    /// Whether the named v1 field (or `extensions`, or `extensions.<key>`) is present, here or
    /// [held](CanonicalRecord::held) outside the record.
    pub fn has(&self, field: &str) -> bool {
        self.holds(field) || self.has_value(field)
    }

    /// Whether the value of `field` (a v1 field, or `extensions.<key>`) is held outside
    /// the record.
    pub fn holds(&self, field: &str) -> bool {
        self.held.iter().any(|h| h.field == field)
    }

    /// Notes that the source has `field`, whose value is held outside the record: for
    /// an extension, where it stands among the record's extensions so far.
    pub fn hold(&mut self, field: &str) {
        // An extension is no v1 field: its name is not looked for among them.
        let (field, at) = if field.starts_with("extensions.") {
            (held_name(field), self.extensions.len())
        } else {
            let field = match V1_FIELDS.iter().find(|f| **f == field) {
                Some(name) => Cow::Borrowed(*name),
                None => held_name(field),
            };
            (field, 0)
        };
        self.held.push(HeldField { field, at });
    }

    /// Whether the named v1 field (or `extensions`, or `extensions.<key>`) holds a value here.
    fn has_value(&self, field: &str) -> bool {
        match field {
            "repo" => self.repo.is_some(),
            "instance_id" => self.instance_id.is_some(),
            "created_at" => self.created_at.is_some(),
            "base_commit" => self.base_commit.is_some(),
            "head_commit" => self.head_commit.is_some(),
            "patch" => self.patch.is_some(),
            "test_patch" => self.test_patch.is_some(),
            "patch_functions" => self.patch_functions.is_some(),
            "test_functions" => self.test_functions.is_some(),
            "efficiency_test" => self.efficiency_test.is_some(),
            "problem_statement_oracle" => self.problem_statement_oracle.is_some(),
            "problem_statement_realistic" => self.problem_statement_realistic.is_some(),
            "duration_changes" => self.duration_changes.is_some(),
            "human_performance" => self.human_performance.is_some(),
            "version" => self.version.is_some(),
            "setup_commands" => self.setup_commands.is_some(),
            "install_commands" => self.install_commands.is_some(),
            "api" => self.api.is_some(),
            "gt_commit_message" => self.gt_commit_message.is_some(),
            "notes" => self.notes.is_some(),
            "extensions" => !self.extensions.is_empty(),
            _ => field
                .strip_prefix("extensions.")
                .is_some_and(|key| self.extensions.contains_key(key)),
        }
    }

    /// The v1 fields (and `extensions`) this record has, here or held outside it, as
    /// bits: bit `i` set when [`CanonicalRecord::has`] is true of `V1_FIELDS[i]`. Read
    /// from the fields themselves, without naming each one.
    pub fn fields_present(&self) -> u32 {
        let values = [
            self.repo.is_some(),
            self.instance_id.is_some(),
            self.created_at.is_some(),
            self.base_commit.is_some(),
            self.head_commit.is_some(),
            self.patch.is_some(),
            self.test_patch.is_some(),
            self.patch_functions.is_some(),
            self.test_functions.is_some(),
            self.efficiency_test.is_some(),
            self.problem_statement_oracle.is_some(),
            self.problem_statement_realistic.is_some(),
            self.duration_changes.is_some(),
            self.human_performance.is_some(),
            self.version.is_some(),
            self.setup_commands.is_some(),
            self.install_commands.is_some(),
            self.api.is_some(),
            self.gt_commit_message.is_some(),
            self.notes.is_some(),
            !self.extensions.is_empty(),
        ];
        let mut bits = values
            .into_iter()
            .enumerate()
            .fold(0, |bits, (i, has)| bits | u32::from(has) << i);
        for held in &self.held {
            if let Some(i) = V1_FIELDS.iter().position(|f| *f == held.field) {
                bits |= 1 << i;
            }
        }
        bits
    }

    /// The required v1 fields this record lacks, in schema order.
    pub fn missing_required(&self) -> Vec<&'static str> {
        self.lacking_required().collect()
    }

    /// The required v1 fields this record lacks, in schema order, one by one: what
    /// [`CanonicalRecord::missing_required`] lists, without the list.
    pub fn lacking_required(&self) -> impl Iterator<Item = &'static str> + use<> {
        // `V1_REQUIRED` is in schema order (checked where `REQUIRED_BITS` is made).
        let lacking = !self.fields_present() & REQUIRED_BITS;
        V1_FIELDS
            .into_iter()
            .enumerate()
            .filter(move |&(i, _)| lacking & (1 << i) != 0)
            .map(|(_, field)| field)
    }

    /// An extension value, if present.
    pub fn ext(&self, key: &str) -> Option<&Value> {
        self.extensions.get(key)
    }

    /// An extension value that is a string.
    pub fn ext_str(&self, key: &str) -> Option<&str> {
        self.extensions.get(key).and_then(Value::as_str)
    }

    /// An extension value that is an array of strings.
    pub fn ext_list(&self, key: &str) -> Option<Vec<String>> {
        let items = self.extensions.get(key)?.as_array()?;
        items
            .iter()
            .map(|v| v.as_str().map(str::to_owned))
            .collect()
    }

    /// Sets an extension value.
    pub fn set_ext(&mut self, key: &str, value: impl Into<Value>) {
        self.extensions.insert(key.to_owned(), value.into());
    }

    /// The string in the field `name`: a v1 field, or `extensions.<key>`.
    pub fn field_str(&self, name: &str) -> Option<&str> {
        if let Some(key) = name.strip_prefix("extensions.") {
            return self.ext_str(key);
        }
        match name {
            "repo" => self.repo.as_deref(),
            "instance_id" => self.instance_id.as_deref(),
            "created_at" => self.created_at.as_deref(),
            "base_commit" => self.base_commit.as_deref(),
            "head_commit" => self.head_commit.as_deref(),
            "patch" => self.patch.as_deref(),
            "test_patch" => self.test_patch.as_deref(),
            "version" => self.version.as_deref(),
            "api" => self.api.as_deref(),
            "gt_commit_message" => self.gt_commit_message.as_deref(),
            "notes" => self.notes.as_deref(),
            _ => None,
        }
    }

    /// The list of strings in the field `name`: a v1 field, or `extensions.<key>`.
    pub fn field_list(&self, name: &str) -> Option<Vec<String>> {
        if let Some(key) = name.strip_prefix("extensions.") {
            return self.ext_list(key);
        }
        match name {
            "patch_functions" => self.patch_functions.clone(),
            "test_functions" => self.test_functions.clone(),
            "efficiency_test" => self.efficiency_test.clone(),
            "setup_commands" => self.setup_commands.clone(),
            "install_commands" => self.install_commands.clone(),
            _ => None,
        }
    }

    /// The value of the field `name` (a v1 field, or `extensions.<key>`) as JSON.
    pub fn field_value(&self, name: &str) -> Option<Value> {
        if let Some(key) = name.strip_prefix("extensions.") {
            return self.ext(key).cloned();
        }
        match name {
            "human_performance" => self.human_performance.clone().map(Value::Number),
            "problem_statement_oracle" => self.problem_statement_oracle.clone(),
            "problem_statement_realistic" => self.problem_statement_realistic.clone(),
            _ => self
                .field_str(name)
                .map(|s| Value::String(s.to_owned()))
                .or_else(|| {
                    self.field_list(name)
                        .map(|items| items.into_iter().map(Value::String).collect())
                }),
        }
    }

    /// Sets the field `name` (a v1 field, or `extensions.<key>`) from a JSON value of
    /// its type; gives the value back when the field cannot hold it.
    pub fn set_field(&mut self, name: &str, value: Value) -> Result<(), Value> {
        if let Some(key) = name.strip_prefix("extensions.") {
            self.extensions.insert(key.to_owned(), value);
            return Ok(());
        }
        let string = |value: Value| match value {
            Value::String(s) => Ok(Some(s)),
            other => Err(other),
        };
        let list = |value: Value| match value {
            Value::Array(items) => items
                .iter()
                .map(|v| v.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
                .map(Some)
                .ok_or(Value::Array(items)),
            other => Err(other),
        };
        match name {
            "repo" => self.repo = string(value)?,
            "instance_id" => self.instance_id = string(value)?,
            "created_at" => self.created_at = string(value)?,
            "base_commit" => self.base_commit = string(value)?,
            "head_commit" => self.head_commit = string(value)?,
            "patch" => self.patch = string(value)?,
            "test_patch" => self.test_patch = string(value)?,
            "version" => self.version = string(value)?,
            "api" => self.api = string(value)?,
            "gt_commit_message" => self.gt_commit_message = string(value)?,
            "notes" => self.notes = string(value)?,
            "patch_functions" => self.patch_functions = list(value)?,
            "test_functions" => self.test_functions = list(value)?,
            "efficiency_test" => self.efficiency_test = list(value)?,
            "setup_commands" => self.setup_commands = list(value)?,
            "install_commands" => self.install_commands = list(value)?,
            "problem_statement_oracle" => self.problem_statement_oracle = Some(value),
            "problem_statement_realistic" => self.problem_statement_realistic = Some(value),
            "human_performance" => match value {
                Value::Number(n) => self.human_performance = Some(n),
                other => return Err(other),
            },
            _ => return Err(value),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The presence bits agree with `has` for every v1 field and `extensions`, on
        /// records with any set of fields given values, held, or both (an extension held
        /// or not).
        #[test]
        fn fields_present_agrees_with_has(given in any::<u32>(), held in any::<u32>(), ext in any::<u8>()) {
            let mut value = serde_json::json!({
                "repo": "o/r", "instance_id": "o__r-1", "created_at": "2024-01-01T00:00:00Z",
                "base_commit": "a", "head_commit": "b", "patch": "p", "test_patch": "t",
                "patch_functions": ["f"], "test_functions": ["g"], "efficiency_test": ["e"],
                "problem_statement_oracle": "o", "problem_statement_realistic": "r",
                "duration_changes": [{"base": [1], "head": [2]}], "human_performance": 1.5,
                "version": "1", "setup_commands": ["s"], "install_commands": ["i"],
                "api": "a", "gt_commit_message": "m", "notes": "n", "extensions": {"k": 1}
            });
            let full = value.as_object_mut().unwrap();
            full.retain(|key, _| {
                let i = V1_FIELDS.iter().position(|f| f == key).unwrap();
                given & (1 << i) != 0
            });
            let mut record: CanonicalRecord =
                serde_json::from_value(value).expect("a record of v1 fields");
            for (i, field) in V1_FIELDS.into_iter().enumerate() {
                if held & (1 << i) != 0 {
                    record.hold(field);
                }
            }
            if ext & 1 != 0 {
                record.hold("extensions.problem_statement");
            }
            if ext & 2 != 0 {
                record.hold(&format!("extensions.k{}", ext >> 2));
            }
            let bits = record.fields_present();
            for (i, field) in V1_FIELDS.into_iter().enumerate() {
                prop_assert_eq!(bits & (1 << i) != 0, record.has(field), "{}", field);
            }
            let missing: Vec<&str> =
                V1_REQUIRED.into_iter().filter(|f| !record.has(f)).collect();
            prop_assert_eq!(record.missing_required(), missing);
        }
    }

    /// A held field's name is the name given, whether borrowed from the names kept or
    /// allocated once they are full, and whatever the thread.
    #[test]
    fn held_names_are_the_names_given() {
        let names: Vec<String> = (0..HELD_NAMES + 8)
            .map(|i| format!("extensions.field_{i}"))
            .collect();
        let hold_all = || {
            let mut record = CanonicalRecord::default();
            for name in &names {
                record.hold(name);
                record.hold(name);
            }
            record.hold("patch");
            record
        };
        let here = hold_all();
        let there = std::thread::scope(|scope| scope.spawn(hold_all).join().unwrap());
        for record in [here, there] {
            let held: Vec<&str> = record.held.iter().map(|h| h.field.as_ref()).collect();
            let expected: Vec<&str> = names
                .iter()
                .flat_map(|n| [n.as_str(), n.as_str()])
                .chain(["patch"])
                .collect();
            assert_eq!(held, expected);
            assert!(record.holds("extensions.field_3"));
            assert!(!record.holds("extensions.field"));
        }
    }
}
