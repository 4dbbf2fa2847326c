//! The [`ViewAdapter`] trait, what an adapter declares about itself, and the registry.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::contract::Contract;
use crate::error::RecordError;
use crate::record::{CanonicalRecord, V1_FIELDS};
use crate::report::Notes;
use crate::schema::Profile;
use crate::vocab;

/// What an adapter says about itself: its names, what it reads and writes.
///
/// Field names are canonical v1 field names, or `extensions.<key>` for the shared
/// vocabulary of [`crate::vocab`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdapterInfo {
    /// The name used on the command line (`swe-bench`).
    pub name: String,
    /// Other accepted names (`swebench`, `verified`).
    #[serde(default)]
    pub aliases: Vec<String>,
    /// One line saying what the format is.
    pub description: String,
    /// Canonical fields an import fills when the source has them.
    #[serde(default)]
    pub fills: Vec<String>,
    /// Canonical fields an export writes when the record has them.
    #[serde(default)]
    pub carries: Vec<String>,
    /// What the format's own consumer requires of an exported record.
    #[serde(default, skip_serializing_if = "Contract::is_empty")]
    pub contract: Contract,
    /// Where the adapter comes from (`built-in`, or a plugin's path).
    #[serde(default = "built_in")]
    pub origin: String,
    /// For a format whose records are folders of files (Harbor's task folders): how a
    /// record is laid out as one. `None` for a format of records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folder: Option<FolderLayout>,
}

/// How an exported record of a folder format is laid out as a folder: each of the
/// record's keys is the path of a file in the folder (`/`-separated, relative), and its
/// value the file's content: a string is the file's text; an object or array is written
/// as JSON to a `.json` path and as TOML to a `.toml` path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FolderLayout {
    /// Where the name of the record's folder is in the exported record: a JSON pointer to
    /// a string (`/task.toml/metadata/isobench/instance_id`).
    pub name: String,
    /// The files written with the run bit (`tests/test.sh`), by path.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub executable: Vec<String>,
}

impl FolderLayout {
    /// The name of `record`'s folder, if the record holds a string where the layout says.
    pub fn name_of<'r>(&self, record: &'r Map<String, Value>) -> Option<&'r str> {
        let mut parts = self.name.strip_prefix('/')?.split('/');
        let first = unescape_pointer(parts.next()?);
        let mut value = record.get(first.as_str())?;
        for part in parts {
            value = value.get(unescape_pointer(part).as_str())?;
        }
        value.as_str()
    }

    /// The file that holds the folder's name (`task.toml`): the one every record folder of
    /// the format has, which tells a record folder from a directory of them.
    pub fn name_file(&self) -> Option<String> {
        let first = self.name.strip_prefix('/')?.split('/').next()?;
        Some(unescape_pointer(first)).filter(|file| !file.is_empty())
    }

    /// Whether the file at `path` is written with the run bit.
    pub fn is_executable(&self, path: &str) -> bool {
        self.executable.iter().any(|p| p == path)
    }
}

/// A file's value as a folder gives it back once written: `value` without the null
/// entries of its objects, which a TOML file cannot hold (a JSON file can, and then this
/// is what comparing it to what a folder should hold ignores).
pub fn without_nulls(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(_, item)| !item.is_null())
                .map(|(key, item)| (key.clone(), without_nulls(item)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_nulls).collect()),
        other => other.clone(),
    }
}

/// A JSON pointer's reference token as the key it names (`~1` is `/`, `~0` is `~`).
fn unescape_pointer(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

fn built_in() -> String {
    "built-in".to_owned()
}

impl AdapterInfo {
    /// A description with no field lists yet.
    pub fn new(name: &str, aliases: &[&str], description: &str) -> Self {
        Self {
            name: name.to_owned(),
            aliases: aliases.iter().map(|&a| a.to_owned()).collect(),
            description: description.to_owned(),
            fills: Vec::new(),
            carries: Vec::new(),
            contract: Contract::default(),
            origin: built_in(),
            folder: None,
        }
    }

    /// Sets the fields an import fills.
    #[must_use]
    pub fn fills(mut self, fields: &[&str]) -> Self {
        self.fills = fields.iter().map(|&f| f.to_owned()).collect();
        self
    }

    /// Sets the fields an export carries.
    #[must_use]
    pub fn carries(mut self, fields: &[&str]) -> Self {
        self.carries = fields.iter().map(|&f| f.to_owned()).collect();
        self
    }

    /// Sets what the format's consumer requires of an exported record.
    #[must_use]
    pub fn contract(mut self, contract: Contract) -> Self {
        self.contract = contract;
        self
    }

    /// Whether `name` is this adapter's name or one of its aliases (case-insensitive).
    pub fn answers_to(&self, name: &str) -> bool {
        self.name.eq_ignore_ascii_case(name)
            || self.aliases.iter().any(|a| a.eq_ignore_ascii_case(name))
    }

    /// Canonical v1 fields and shared-vocabulary keys an export of this format cannot hold.
    pub fn cannot_carry(&self) -> Vec<String> {
        let carried = |f: &str| self.carries.iter().any(|c| c == f);
        V1_FIELDS
            .iter()
            .filter(|f| **f != "extensions")
            .map(|f| (*f).to_owned())
            .chain(vocab::SHARED_KEYS.iter().map(|k| format!("extensions.{k}")))
            .filter(|f| !carried(f))
            .collect()
    }

    /// The fields of `record` this format cannot hold: what an export to it drops.
    pub fn dropped_from(&self, record: &CanonicalRecord) -> Vec<String> {
        let carried = |f: &str| self.carries.iter().any(|c| c == f);
        let mut dropped: Vec<String> = V1_FIELDS
            .iter()
            .filter(|f| **f != "extensions" && record.has(f) && !carried(f))
            .map(|f| (*f).to_owned())
            .collect();
        for key in record.extensions.keys() {
            if key == vocab::SOURCE {
                continue;
            }
            let name = format!("extensions.{key}");
            if !carried(&name) {
                dropped.push(name);
            }
        }
        dropped
    }

    /// Notes as dropped the fields of `record` this format cannot hold.
    pub fn note_dropped(&self, record: &CanonicalRecord, notes: &mut Notes) {
        for field in self.dropped_from(record) {
            notes.dropped(field, format!("{} has no field for it", self.name));
        }
    }
}

/// Options of an export.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ExportOptions {
    /// The canonical profile (used by the `canonical` adapter).
    pub profile: Profile,
    /// The org of a Harbor task's package name (`ORG/NAME`); `None`: the format's own
    /// default.
    pub task_org: Option<String>,
}

impl ExportOptions {
    /// Options with the given profile.
    pub fn with_profile(profile: Profile) -> Self {
        Self {
            profile,
            task_org: None,
        }
    }

    /// The same options, with `task_org` as the org of a task's package name.
    #[must_use]
    pub fn with_task_org(mut self, task_org: Option<String>) -> Self {
        self.task_org = task_org;
        self
    }
}

/// A dataset format: converts its records to and from the canonical record.
///
/// Object-safe, so built-in adapters, native plugins and program plugins sit side by
/// side in a [`crate::registry::Registry`]. What the host does for some formats besides
/// calling them (moving bulk fields unread, extending a field table, sending a plugin a
/// record's text) is the host's: it keeps it with the adapter in a
/// [`crate::registry::Registered`], not in this trait.
///
/// The round-trip contract: for every record `r` an adapter accepts,
/// `export(import(r)) == r`, same keys in the same order, same values, same encodings.
pub trait ViewAdapter: Send + Sync + std::fmt::Debug {
    /// Names, description, the fields the adapter fills and carries, and its contract.
    fn info(&self) -> &AdapterInfo;

    /// The JSON Schema of one record of this format, as written under `profile` (only a
    /// format whose records depend on the profile, as canonical's do, reads it).
    fn schema(&self, profile: Profile) -> &Value;

    /// Reads one foreign record into the canonical record (lossless profile).
    fn import(
        &self,
        record: Map<String, Value>,
        notes: &mut Notes,
    ) -> Result<CanonicalRecord, RecordError>;

    /// Writes a canonical record as one foreign record.
    fn export(
        &self,
        record: &CanonicalRecord,
        options: &ExportOptions,
        notes: &mut Notes,
    ) -> Result<Map<String, Value>, RecordError>;

    /// Writes a canonical record the caller is done with, as [`ViewAdapter::export`]
    /// does. An adapter that can move the record's values instead of copying them
    /// overrides it (a conversion hands every record over once it is converted, so for
    /// a format whose records are the canonical record's values, this saves a copy of
    /// every patch and text); the default exports a borrow of `record`.
    fn export_owned(
        &self,
        record: CanonicalRecord,
        options: &ExportOptions,
        notes: &mut Notes,
    ) -> Result<Map<String, Value>, RecordError> {
        self.export(&record, options, notes)
    }
}

/// Two adapters answering to the same name.
#[derive(Debug, thiserror::Error)]
#[error("adapter `{name}` from {origin} clashes with `{existing}` from {existing_origin}")]
pub struct NameClash {
    /// The clashing name.
    pub name: String,
    /// Where the new adapter comes from.
    pub origin: String,
    /// The adapter already registered under that name.
    pub existing: String,
    /// Where that one comes from.
    pub existing_origin: String,
}
