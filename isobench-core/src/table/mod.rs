//! A format as a declaration: its field table.
//!
//! Most benchmark formats are SWE-bench rows under other names plus a few columns of
//! their own. A [`Table`] says, once, for each key of the format: the canonical field
//! (or shared-vocabulary key) it maps to, how its value is encoded, whether an import
//! needs it, and whether the format's own consumer needs it. Everything an adapter
//! would otherwise write by hand is derived from it:
//!
//! - [`AdapterInfo`] (what the format fills and carries) and its [`Contract`];
//! - the format's JSON Schema ([`Table::schema`]);
//! - import and export ([`TableAdapter`]), with key order, encodings and unknown fields
//!   kept for exact round trips, and drop notes for what the target cannot hold;
//! - which fields pass through as the JSON text they were read as
//!   ([`crate::passthrough`]): those the table maps straight across.
//!
//! What a table cannot say (SWE-smith's reversed patches, SWE-Perf's timing layout,
//! GSO's `^` commits) is done by [`Hooks`]: functions that receive decoded values.
//!
//! A table is plain data (`serde`), so the same declaration is written in Rust by a
//! built-in adapter, in TOML by a user (`--adapter my-format.toml`), or sent in a
//! plugin's manifest.
//!
//! # Reference
//!
//! | Item | What it is |
//! | --- | --- |
//! | [`Table`] | A format: its names, its [`Field`]s, what its consumer needs beyond them |
//! | [`Field`] | One key of the format: the canonical field it maps to, its type, its needs |
//! | [`FieldType`] | How a value is written: `String` (default), `Timestamp`, `List`, `Integer`, `Number`, `Boolean`, `Json`, `Null` |
//! | [`ListEncoding`] | How a list is written: `Array` (default), `Json` (`"[\"a\"]"`), `JsonSpaced` (`"[\"a\", \"b\"]"`), `PythonRepr` (`"['a']"`) |
//! | [`Need`] | What the format's own consumer needs of a field (set with [`Field::consumer`]) |
//! | [`Hooks`], [`HookResult`] | Code for what a table cannot say: `import` and `export`, both optional (`()` is "no hooks") |
//! | [`TableAdapter`] | The [`ViewAdapter`](crate::ViewAdapter) a table and its hooks make |
//! | [`io::Importer`], [`io::Exporter`] | What a hook reads a foreign record from and writes one to |
//! | [`TableError`] | Why [`Table::check`] (and so [`TableAdapter::new`]) refuses a table |
//!
//! Building a [`Field`]: [`Field::new`]`(key, to)` maps `key` to the canonical `to` (a v1
//! field such as `patch`, or `extensions.KEY`; `""` keeps the value for the round trip
//! only), as a string. Then, each optional: [`Field::kind`] (another [`FieldType`]),
//! [`Field::list`] (a list in a [`ListEncoding`]), [`Field::required`] (an import refuses
//! a record without it), [`Field::hook`] (the hooks read and write it, not the table),
//! [`Field::consumer`] (the consumer needs it, with the evidence), and after `consumer`:
//! [`Field::non_empty`], [`Field::none_value`], [`Field::known`], [`Field::remedy`].
//!
//! Building a [`Table`]: [`Table::new`]`(name, aliases, description)`, then
//! [`Table::fields`], and as needed [`Table::consumer`], [`Table::requires`],
//! [`Table::closed`], [`Table::fills_also`], [`Table::carries_also`]. What is derived
//! from it: [`Table::check`], [`Table::info`], [`Table::contract`], [`Table::schema`],
//! [`Table::markdown`]; and looked up: [`Table::field`], [`Table::key_of`].
//!
//! # Examples
//!
//! A format declared, a record read into the canonical record and written back
//! exactly (keys, order and encodings):
//!
//! ```
//! use isobench_core::adapter::ExportOptions;
//! use isobench_core::table::{Field, FieldType, ListEncoding, Table, TableAdapter};
//! use isobench_core::{Notes, ViewAdapter};
//! use serde_json::{Map, Value, json};
//!
//! let table = Table::new("tiny-bench", &["tiny"], "TinyBench rows").fields(vec![
//!     Field::new("id", "instance_id").required(),
//!     Field::new("repository", "repo").required(),
//!     Field::new("opened", "created_at").kind(FieldType::Timestamp),
//!     Field::new("fix", "patch"),
//!     // A list written as a string holding JSON, as SWE-bench writes its test lists.
//!     Field::new("tests", "extensions.fail_to_pass").list(ListEncoding::Json),
//!     // A key of the format's own: kept under `extensions.stars`.
//!     Field::new("stars", "extensions.stars").kind(FieldType::Integer),
//! ]);
//! let adapter = TableAdapter::new(table, ()).expect("a valid table");
//!
//! let row: Map<String, Value> = serde_json::from_value(json!({
//!     "repository": "octo/widgets",
//!     "id": "octo__widgets-7",
//!     "opened": "2024-05-01T10:00:00Z",
//!     "fix": "diff --git a/w.py b/w.py\n",
//!     "tests": "[\"tests/test_w.py::test_empty\"]",
//!     "stars": 12,
//!     "unknown": {"kept": true}
//! }))
//! .unwrap();
//! let mut notes = Notes::new();
//! let canonical = adapter.import(row.clone(), &mut notes).unwrap();
//! assert_eq!(canonical.instance_id.as_deref(), Some("octo__widgets-7"));
//! assert_eq!(canonical.repo.as_deref(), Some("octo/widgets"));
//! assert_eq!(canonical.ext("fail_to_pass"), Some(&json!(["tests/test_w.py::test_empty"])));
//! assert_eq!(canonical.ext("stars"), Some(&json!(12)));
//!
//! // Back to the format: the same record, key for key, in the same order.
//! let back = adapter.export(&canonical, &ExportOptions::default(), &mut notes).unwrap();
//! assert_eq!(back, row);
//! assert!(back.keys().eq(row.keys()));
//! ```
//!
//! What the format's consumer needs, and every key an import requires, become the
//! adapter's contract, checked on each record written; both are the `required` of the
//! format's JSON Schema:
//!
//! ```
//! use isobench_core::table::{Field, Table};
//!
//! let table = Table::new("tiny-bench", &[], "TinyBench rows")
//!     .consumer("the tiny-bench harness")
//!     .fields(vec![
//!         Field::new("id", "instance_id").required(),
//!         Field::new("fix", "patch")
//!             .consumer("harness.py: apply_patch")
//!             .non_empty(),
//!     ]);
//! let contract = table.contract();
//! assert_eq!(contract.consumer, "the tiny-bench harness");
//! let fix = contract.requires.iter().find(|r| r.key == "fix").unwrap();
//! assert!(fix.non_empty);
//! assert!(contract.requires.iter().any(|r| r.key == "id"));
//! let required = table.schema()["required"].clone();
//! assert!(required.as_array().unwrap().contains(&"id".into()));
//! assert!(required.as_array().unwrap().contains(&"fix".into()));
//! assert_eq!(table.info().fills, ["instance_id", "patch"]);
//! ```
//!
//! A table is data: the same declaration read from JSON (or TOML, as
//! `--adapter my-format.toml` reads it), with the keys of [`Table`] and [`Field`]:
//!
//! ```
//! use isobench_core::table::{Field, ListEncoding, Table};
//!
//! let read: Table = serde_json::from_value(serde_json::json!({
//!     "name": "tiny-bench",
//!     "description": "TinyBench rows",
//!     "fields": [
//!         {"key": "id", "to": "instance_id", "required": true},
//!         {"key": "tests", "to": "extensions.fail_to_pass", "type": "list", "encoding": "json"}
//!     ]
//! }))
//! .unwrap();
//! let built = Table::new("tiny-bench", &[], "TinyBench rows").fields(vec![
//!     Field::new("id", "instance_id").required(),
//!     Field::new("tests", "extensions.fail_to_pass").list(ListEncoding::Json),
//! ]);
//! assert_eq!(read, built);
//! ```
//!
//! Hooks for what the table cannot say: here a level written `L1`..`L3` that the
//! canonical record holds as a number. A field marked [`Field::hook`] is left to them;
//! an error points at the format's key, found with [`Table::key_of`] or known to the hook:
//!
//! ```
//! use isobench_core::adapter::ExportOptions;
//! use isobench_core::table::io::{Exporter, Importer};
//! use isobench_core::table::{Field, HookResult, Hooks, Table, TableAdapter};
//! use isobench_core::{CanonicalRecord, Notes, RecordError, ViewAdapter};
//! use serde_json::{Map, Value, json};
//!
//! #[derive(Debug)]
//! struct Level;
//!
//! impl Hooks for Level {
//!     fn import(&self, from: &mut Importer<'_, '_>, c: &mut CanonicalRecord) -> HookResult {
//!         if let Some(level) = from.string("level")? {
//!             let Some(n) = level.strip_prefix('L').and_then(|n| n.parse::<u8>().ok()) else {
//!                 return Err(RecordError::invalid("/level", format!("`{level}` is not `L<n>`")));
//!             };
//!             c.set_ext("level", n);
//!         }
//!         Ok(())
//!     }
//!
//!     fn export(&self, c: &CanonicalRecord, to: &mut Exporter<'_, '_, '_>) -> HookResult {
//!         if let Some(n) = c.ext("level").and_then(Value::as_u64) {
//!             to.put("level", format!("L{n}"));
//!         }
//!         Ok(())
//!     }
//! }
//!
//! let table = Table::new("tiny-bench", &[], "TinyBench rows").fields(vec![
//!     Field::new("id", "instance_id").required(),
//!     Field::new("level", "extensions.level").hook(),
//! ]);
//! let adapter = TableAdapter::new(table, Level).unwrap();
//! let row: Map<String, Value> =
//!     serde_json::from_value(json!({"id": "a-1", "level": "L2"})).unwrap();
//! let c = adapter.import(row.clone(), &mut Notes::new()).unwrap();
//! assert_eq!(c.ext("level"), Some(&json!(2)));
//! let back = adapter.export(&c, &ExportOptions::default(), &mut Notes::new()).unwrap();
//! assert_eq!(back, row);
//!
//! let bad: Map<String, Value> =
//!     serde_json::from_value(json!({"id": "a-2", "level": "high"})).unwrap();
//! let error = adapter.import(bad, &mut Notes::new()).unwrap_err();
//! assert_eq!(error.pointer, "/level");
//! ```
//!
//! A table that says something impossible is refused before any record is read:
//!
//! ```
//! use isobench_core::table::{Field, Table, TableAdapter};
//!
//! let twice = Table::new("tiny-bench", &[], "TinyBench rows").fields(vec![
//!     Field::new("id", "instance_id"),
//!     Field::new("id", "repo"),
//! ]);
//! let error = TableAdapter::new(twice, ()).unwrap_err();
//! assert_eq!(error.field, Some((1, "id".to_owned())));
//! ```

mod adapter;
mod field;
pub mod io;

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

pub use adapter::{HookResult, Hooks, TableAdapter};
pub use field::{Field, FieldType, ListEncoding, Need};

use crate::adapter::{AdapterInfo, FolderLayout};
use crate::codec::Encoding;
use crate::contract::{Contract, Requirement};
use crate::passthrough::Place;
use crate::record::{V1_FIELDS, V1_LIST_FIELDS, V1_STRING_FIELDS};
use crate::vocab;

/// A format, declared: its names and its fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Table {
    /// The name used on the command line.
    pub name: String,
    /// The format this table starts from (`swe-bench`): its fields, with this table's
    /// added, or put in the place of the field of the same key (see
    /// [`Table::extended_by`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extends: Option<String>,
    /// Other accepted names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// One line saying what the format is (that of the format it extends, when empty).
    #[serde(default)]
    pub description: String,
    /// Who reads the format's records (`swebench 4.x harness`), for the contract.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub consumer: String,
    /// The format's keys, in the order a record from another format is written in.
    #[serde(default)]
    pub fields: Vec<Field>,
    /// What the consumer needs that no field's [`Need`] can say: keys the hooks write
    /// that no field declares (nested keys such as `base/sha`), or a declared key needed
    /// in another shape or supplied from another canonical field than its field's. A
    /// declared key's requirement takes its field's place in the contract's order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub requires: Vec<Requirement>,
    /// Whether the format's loader refuses any key the table does not declare (GSO's
    /// dataclass): its schema then allows no other property.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub closed: bool,
    /// Canonical fields the hooks fill beyond the fields' own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hook_fills: Vec<String>,
    /// Canonical fields the hooks write beyond the fields' own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hook_carries: Vec<String>,
    /// For a format whose records are folders of files: how a record is laid out as one
    /// (its keys are the files' paths).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folder: Option<FolderLayout>,
}

/// A table that says something impossible.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", .field.as_ref().map(|(i, key)| format!("field {} (`{key}`): ", i + 1)).unwrap_or_default())]
pub struct TableError {
    /// The field at fault: its index in [`Table::fields`] and its key.
    pub field: Option<(usize, String)>,
    /// What is wrong.
    pub message: String,
}

impl Table {
    /// A table for `name`, with no fields yet.
    pub fn new(name: &str, aliases: &[&str], description: &str) -> Self {
        Self {
            name: name.to_owned(),
            extends: None,
            aliases: aliases.iter().map(|&a| a.to_owned()).collect(),
            description: description.to_owned(),
            consumer: String::new(),
            fields: Vec::new(),
            requires: Vec::new(),
            closed: false,
            hook_fills: Vec::new(),
            hook_carries: Vec::new(),
            folder: None,
        }
    }

    /// Declares the format's records folders of files, laid out by `layout`.
    #[must_use]
    pub fn folder(mut self, layout: FolderLayout) -> Self {
        self.folder = Some(layout);
        self
    }

    /// Sets who reads the format's records.
    #[must_use]
    pub fn consumer(mut self, consumer: &str) -> Self {
        consumer.clone_into(&mut self.consumer);
        self
    }

    /// Sets the fields.
    #[must_use]
    pub fn fields(mut self, fields: Vec<Field>) -> Self {
        self.fields = fields;
        self
    }

    /// Adds what the consumer needs beyond the fields' [`Need`]s (see [`Table::requires`]).
    #[must_use]
    pub fn requires(mut self, requires: Vec<Requirement>) -> Self {
        self.requires.extend(requires);
        self
    }

    /// Declares that the format's loader refuses keys the table does not declare.
    #[must_use]
    pub fn closed(mut self) -> Self {
        self.closed = true;
        self
    }

    /// Adds canonical fields the hooks fill beyond the fields' own.
    #[must_use]
    pub fn fills_also(mut self, fields: &[&str]) -> Self {
        self.hook_fills.extend(fields.iter().map(|&f| f.to_owned()));
        self
    }

    /// Adds canonical fields the hooks write beyond the fields' own.
    #[must_use]
    pub fn carries_also(mut self, fields: &[&str]) -> Self {
        self.hook_carries
            .extend(fields.iter().map(|&f| f.to_owned()));
        self
    }

    /// This table extended by `extension` ([`Table::extends`]): `extension`'s names, its
    /// description and consumer when it gives them; every field of this table, each
    /// replaced by `extension`'s field of the same key if there is one, then
    /// `extension`'s other fields; this table's other requirements and hook lists. A field
    /// the hooks read cannot be replaced: they would read it again.
    pub fn extended_by(&self, extension: Table) -> Result<Table, TableError> {
        let mut table = self.clone();
        let mut added = Vec::new();
        for (i, field) in extension.fields.into_iter().enumerate() {
            match table.fields.iter_mut().find(|f| f.key == field.key) {
                Some(base) if base.hook => {
                    return Err(TableError {
                        field: Some((i, field.key)),
                        message: format!(
                            "`{}` reads and writes this key in code: a table extending it cannot redeclare it",
                            self.name
                        ),
                    });
                }
                Some(base) => *base = field,
                None => added.push(field),
            }
        }
        table.fields.extend(added);
        table.name = extension.name;
        table.extends = Some(self.name.clone());
        table.aliases = extension.aliases;
        if !extension.description.is_empty() {
            table.description = extension.description;
        }
        if !extension.consumer.is_empty() {
            table.consumer = extension.consumer;
        }
        table.closed |= extension.closed;
        Ok(table)
    }

    /// The field of `key`.
    pub fn field(&self, key: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.key == key)
    }

    /// The key the table maps to the canonical field `to` (`instance_id`,
    /// `extensions.fail_to_pass`), if one does: where a hook's error about that field
    /// points in the format's own record.
    ///
    /// ```
    /// use isobench_core::table::{Field, Table};
    ///
    /// let table = Table::new("tiny", &[], "Tiny rows")
    ///     .fields(vec![Field::new("task_id", "instance_id"), Field::new("repository", "repo")]);
    /// assert_eq!(table.key_of("instance_id"), Some("task_id"));
    /// assert_eq!(table.key_of("patch"), None);
    /// ```
    pub fn key_of(&self, to: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|f| f.to.as_deref() == Some(to))
            .map(|f| f.key.as_str())
    }

    /// Checks that the table can be used: names, unique keys and targets, and each
    /// field's type fitting its canonical field.
    pub fn check(&self) -> Result<(), TableError> {
        let whole = |message: String| TableError {
            field: None,
            message,
        };
        if self.name.trim().is_empty() {
            return Err(whole("`name` is empty".to_owned()));
        }
        if self.fields.is_empty() {
            return Err(whole("`fields` is empty: declare at least one".to_owned()));
        }
        // Keys and targets seen so far, for the duplicate checks: a table read from a file
        // may declare thousands of fields.
        let mut keys = std::collections::HashSet::with_capacity(self.fields.len());
        let mut targets = std::collections::HashMap::with_capacity(self.fields.len());
        for (i, field) in self.fields.iter().enumerate() {
            let fail = |message: String| TableError {
                field: Some((i, field.key.clone())),
                message,
            };
            if field.key.is_empty() {
                return Err(fail("`key` is empty".to_owned()));
            }
            if field.import_only && !field.required {
                return Err(fail(
                    "`import_only` qualifies `required`, which the field does not set".to_owned(),
                ));
            }
            if field.encoding != ListEncoding::Array && field.kind != FieldType::List {
                return Err(fail(format!(
                    "`encoding` is for `type = \"list\"`; the field is {}",
                    field.kind.describe()
                )));
            }
            if !keys.insert(field.key.as_str()) {
                return Err(fail("the key is declared twice".to_owned()));
            }
            let Some(to) = &field.to else { continue };
            if let Some(earlier) = targets.insert(to.as_str(), field.key.as_str()) {
                return Err(fail(format!("`{to}` is already the field of `{earlier}`")));
            }
            if field.kind == FieldType::Null {
                return Err(fail(
                    "a `null` field holds nothing to map: leave out `to`".to_owned(),
                ));
            }
            // A hook reads and writes the value itself: the type is the foreign value's,
            // not the canonical field's.
            if let Some(problem) = target_problem(to, field.kind)
                .filter(|_| !(field.hook && V1_FIELDS.contains(&to.as_str())))
            {
                return Err(fail(problem));
            }
        }
        Ok(())
    }

    /// What the format says about itself, derived from the fields.
    pub fn info(&self) -> AdapterInfo {
        let mapped = || self.fields.iter().filter_map(|f| f.to.clone());
        let mut info = AdapterInfo::new(&self.name, &[], &self.description);
        info.aliases.clone_from(&self.aliases);
        info.fills = mapped().chain(self.hook_fills.iter().cloned()).collect();
        info.carries = mapped().chain(self.hook_carries.iter().cloned()).collect();
        info.contract = self.contract();
        info.folder.clone_from(&self.folder);
        info
    }

    /// What the format's consumer requires, from the fields' [`Need`]s and
    /// [`Table::requires`].
    pub fn contract(&self) -> Contract {
        let declared = |r: &&Requirement| self.field(&r.key).is_some();
        let requires = self
            .fields
            .iter()
            .flat_map(|f| {
                let extra: Vec<Requirement> = self
                    .requires
                    .iter()
                    .filter(|r| r.key == f.key)
                    .cloned()
                    .collect();
                // A `required` key is required on export too, as its type says, unless
                // a requirement of `requires` says in what shape.
                let required = f.required_on_export().filter(|_| extra.is_empty());
                f.requirement().into_iter().chain(required).chain(extra)
            })
            .chain(self.requires.iter().filter(|r| !declared(r)).cloned())
            .collect();
        Contract::new(&self.consumer, requires)
    }

    /// The JSON Schema of one record: every declared key with its type, the keys an
    /// import requires, then what the consumer requires
    /// ([`Contract::apply_to_schema`]) for the published form.
    pub fn schema(&self) -> Value {
        let mut properties = Map::new();
        for field in &self.fields {
            let mut property = field.kind.schema(field.list_encoding());
            if let Some(to) = &field.to {
                property["description"] = Value::String(format!("canonical `{to}`"));
            }
            properties.insert(field.key.clone(), property);
        }
        // What an export may leave out is not required of a written record.
        let mut required: Vec<Value> = self
            .fields
            .iter()
            .filter(|f| f.required && !f.import_only)
            .map(|f| Value::String(f.key.clone()))
            .collect();
        let mut schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": self.name,
            "description": self.description,
            "type": "object",
            "properties": properties,
        });
        if self.closed {
            schema["additionalProperties"] = Value::Bool(false);
        }
        self.contract().apply_to_schema(&mut schema);
        // The contract's keys replace `required`; an import's own needs stay too.
        if let Some(Value::Array(contract)) = schema.get_mut("required") {
            required.retain(|key| !contract.contains(key));
            contract.extend(required);
        }
        schema
    }

    /// Where the table's records hold the bulk fields it maps straight across (see
    /// [`crate::registry::Registered::places`]): strings, and lists, which export writes
    /// unread only as arrays. Not a field the hooks also fill or carry, which they read.
    pub fn passthrough(&self) -> Vec<Place> {
        let hooks_touch = |to: &str| {
            self.hook_fills
                .iter()
                .chain(&self.hook_carries)
                .any(|h| h == to)
        };
        self.fields
            .iter()
            .filter_map(|f| Some((f, f.straight()?)))
            .filter(|(_, to)| !hooks_touch(to))
            .filter_map(|(f, to)| {
                let list = crate::passthrough::is_list_field(to);
                let export = match f.kind {
                    FieldType::String if !list => true,
                    FieldType::List if list => f.encoding == ListEncoding::Array,
                    _ => return None,
                };
                Some(Place {
                    export,
                    ..Place::both_ways(&f.key, to)
                })
            })
            .collect()
    }

    /// The table as Markdown: one row per key, for docs and `adapters --table`.
    pub fn markdown(&self) -> String {
        let mut text = String::from(
            "| key | canonical field | type | import needs | consumer needs |\n|---|---|---|---|---|\n",
        );
        for f in &self.fields {
            let kind = match f.kind {
                FieldType::List => format!("list ({})", Encoding::from(f.encoding).as_str()),
                other => serde_json::to_value(other)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default(),
            };
            let consumer = f.consumer.as_ref().map_or(String::new(), |n| {
                if n.non_empty {
                    "non-empty".to_owned()
                } else {
                    "yes".to_owned()
                }
            });
            let _ = writeln!(
                text,
                "| `{}` | {} | {kind} | {} | {consumer} |",
                f.key,
                f.to.as_deref().map_or("-".to_owned(), |t| format!("`{t}`")),
                if f.required { "yes" } else { "" },
            );
        }
        text
    }
}

/// Why the canonical field `to` cannot take a value of type `kind`, if it cannot.
fn target_problem(to: &str, kind: FieldType) -> Option<String> {
    if let Some(key) = to.strip_prefix("extensions.") {
        if key.is_empty() || key == vocab::SOURCE {
            return Some(format!("`{to}` is not an extension a table can fill"));
        }
        return None;
    }
    let fits = match kind {
        FieldType::String => V1_STRING_FIELDS.contains(&to),
        FieldType::Timestamp => to == "created_at",
        FieldType::List => V1_LIST_FIELDS.contains(&to),
        FieldType::Number => to == "human_performance",
        FieldType::Json => matches!(
            to,
            "problem_statement_oracle" | "problem_statement_realistic"
        ),
        FieldType::Integer | FieldType::IntegerList | FieldType::Boolean | FieldType::Null => false,
    };
    if fits {
        return None;
    }
    if V1_FIELDS.contains(&to) {
        Some(format!(
            "canonical `{to}` cannot hold a value of this type{}",
            if to == "duration_changes" || to == "extensions" {
                " (it takes a hook)"
            } else {
                ""
            }
        ))
    } else {
        Some(format!(
            "`{to}` is no canonical field: use a v1 field or `extensions.<key>`"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::Kind;

    fn table() -> Table {
        Table::new("t", &["tee"], "a test format")
            .consumer("t's harness")
            .fields(vec![
                Field::new("id", "instance_id")
                    .required()
                    .consumer("harness.load")
                    .non_empty(),
                Field::new("diff", "patch"),
                Field::new("tests", "extensions.fail_to_pass").list(ListEncoding::JsonSpaced),
                Field::new("also", "extensions.pass_to_pass").list(ListEncoding::Array),
                Field::new("when", "created_at").kind(FieldType::Timestamp),
                Field::new("ver", "version").hook(),
                Field::new("pad", "").kind(FieldType::Null),
            ])
    }

    #[test]
    fn what_a_table_derives() {
        let t = table();
        t.check().unwrap();
        let info = t.info();
        assert_eq!(info.aliases, ["tee"]);
        assert_eq!(
            info.fills,
            [
                "instance_id",
                "patch",
                "extensions.fail_to_pass",
                "extensions.pass_to_pass",
                "created_at",
                "version"
            ]
        );
        assert_eq!(info.contract.requires.len(), 1);
        assert_eq!(info.contract.requires[0].field, "instance_id");
        assert!(info.contract.requires[0].non_empty);
        // Only bulk fields pass, never a hook's; an encoded list passes in, not out.
        assert_eq!(
            t.passthrough()
                .iter()
                .map(|p| (p.path.as_slice(), p.field.as_str(), p.import, p.export))
                .collect::<Vec<_>>(),
            [
                (&["diff".to_owned()][..], "patch", true, true),
                (
                    &["tests".to_owned()][..],
                    "extensions.fail_to_pass",
                    true,
                    false
                ),
                (
                    &["also".to_owned()][..],
                    "extensions.pass_to_pass",
                    true,
                    true
                ),
            ]
        );
        // A string mapped to a test list does not pass (the reader would pass it as a
        // list), nor a field the hooks also carry (they read it).
        let mut odd = table().carries_also(&["patch"]);
        odd.fields[2] = Field::new("tests", "extensions.fail_to_pass");
        let passing: Vec<String> = odd.passthrough().into_iter().map(|p| p.field).collect();
        assert_eq!(passing, ["extensions.pass_to_pass"]);
        let schema = t.schema();
        assert_eq!(schema["required"], json!(["id"]));
        assert_eq!(schema["properties"]["id"]["minLength"], 1);
        assert_eq!(schema["properties"]["pad"]["type"], "null");
        assert_eq!(schema["properties"]["also"]["type"], "array");
    }

    #[test]
    fn hooks_map_to_any_field_and_requirements_keep_the_key_order() {
        let mut t = table();
        // A hook reads the foreign value itself: its type need not fit the field.
        t.fields.push(
            Field::new("runs", "duration_changes")
                .kind(FieldType::Json)
                .hook(),
        );
        t = t.closed().requires(vec![
            Requirement::new("nested/sha", Kind::String, "", "harness.checkout"),
            Requirement::new("runs", Kind::JsonText, "duration_changes", "harness.load"),
            Requirement::new("ver", Kind::String, "extensions.upstream_version", "spec"),
        ]);
        t.check().unwrap();
        let keys: Vec<String> = t.contract().requires.into_iter().map(|r| r.key).collect();
        assert_eq!(keys, ["id", "ver", "runs", "nested/sha"]);
        let schema = t.schema();
        assert_eq!(schema["additionalProperties"], false);
        assert_eq!(schema["required"], json!(["id", "ver", "runs"]));
        assert_eq!(schema["properties"]["runs"]["type"], "string");
    }

    #[test]
    fn impossible_tables_are_refused_naming_the_field() {
        let bad = |f: Field| {
            let mut t = table();
            t.fields.push(f);
            t.check().unwrap_err().to_string()
        };
        assert_eq!(
            bad(Field::new("id", "repo")),
            "field 8 (`id`): the key is declared twice"
        );
        assert_eq!(
            bad(Field::new("d2", "patch")),
            "field 8 (`d2`): `patch` is already the field of `diff`"
        );
        assert_eq!(
            bad(Field::new("n", "repo").kind(FieldType::Integer)),
            "field 8 (`n`): canonical `repo` cannot hold a value of this type"
        );
        assert_eq!(
            bad(Field::new("t", "timings").kind(FieldType::Json)),
            "field 8 (`t`): `timings` is no canonical field: use a v1 field or `extensions.<key>`"
        );
        assert_eq!(
            bad(Field::new("t", "duration_changes").kind(FieldType::Json)),
            "field 8 (`t`): canonical `duration_changes` cannot hold a value of this type (it takes a hook)"
        );
        assert_eq!(
            bad(Field::new("s", "extensions.source")),
            "field 8 (`s`): `extensions.source` is not an extension a table can fill"
        );
    }
}
