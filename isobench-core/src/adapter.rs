//! The [`ViewAdapter`] trait, what an adapter declares about itself, and the registry.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::contract::Contract;
use crate::error::RecordError;
use crate::record::{CanonicalRecord, V1_FIELDS};
use crate::report::Notes;
use crate::schema::Profile;
use crate::table::Table;
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
#[derive(Debug, Clone, Copy, Default)]
#[non_exhaustive]
pub struct ExportOptions {
    /// The canonical profile (used by the `canonical` adapter).
    pub profile: Profile,
}

impl ExportOptions {
    /// Options with the given profile.
    pub fn with_profile(profile: Profile) -> Self {
        Self { profile }
    }
}

/// A dataset format: converts its records to and from the canonical record.
///
/// Object-safe, so built-in adapters, native plugins and program plugins sit side by
/// side in a [`Registry`].
///
/// The round-trip contract: for every record `r` an adapter accepts,
/// `export(import(r)) == r`, same keys in the same order, same values, same encodings.
pub trait ViewAdapter: Send + Sync + std::fmt::Debug {
    /// Names, description, the fields the adapter fills and carries, and its contract.
    fn info(&self) -> &AdapterInfo;

    /// The JSON Schema of one record of this format.
    fn schema(&self) -> &Value;

    /// Reads one foreign record into the canonical record (lossless profile).
    fn import(
        &self,
        record: Map<String, Value>,
        notes: &mut Notes,
    ) -> Result<CanonicalRecord, RecordError>;

    /// Imports a record the caller holds both parsed and as the JSON text of that one
    /// object. Adapters that hand records on as JSON (plugins) override it to send
    /// `text` as it is instead of serialising `record` again; the default imports
    /// `record`.
    fn import_text(
        &self,
        record: Map<String, Value>,
        text: &[u8],
        notes: &mut Notes,
    ) -> Result<CanonicalRecord, RecordError> {
        let _ = text;
        self.import(record, notes)
    }

    /// Where the format's records hold the bulk fields `import` moves unread into the
    /// canonical record, and `export` writes unread (see [`crate::passthrough`]). The
    /// host acts on it only for the adapters it runs itself (built in, and field tables):
    /// a plugin written by hand is sent whole records. A conversion may hand `import` an
    /// empty value of the same type in place of such a value, and writes the value's
    /// text where `export` puts the field, so neither may read it, only move it. None by
    /// default.
    fn passthrough(&self) -> &[crate::passthrough::Place] {
        &[]
    }

    /// The field table the format is declared by, when it is (see [`crate::table`]).
    fn table(&self) -> Option<&Table> {
        None
    }

    /// The adapter of a table that [extends](Table::extends) this format's: its fields
    /// with `extension`'s added or put in their place, run with this format's hooks.
    /// `None` when the format is declared by no table.
    fn extended(
        &self,
        extension: Table,
    ) -> Option<Result<Box<dyn ViewAdapter>, crate::table::TableError>> {
        let _ = extension;
        None
    }

    /// Whether [`ViewAdapter::import_text`] reads only the text. A caller holding a
    /// record's text may then check that it is one well-formed JSON object and hand
    /// `import_text` an empty map instead of the parsed record. `false` by default.
    fn imports_from_text(&self) -> bool {
        false
    }

    /// Writes a canonical record as one foreign record.
    fn export(
        &self,
        record: &CanonicalRecord,
        options: &ExportOptions,
        notes: &mut Notes,
    ) -> Result<Map<String, Value>, RecordError>;

    /// Writes a canonical record the caller is done with, as [`ViewAdapter::export`]
    /// does. Adapters that can move the record's values instead of copying them
    /// override it; the default exports a borrow of `record`.
    fn export_owned(
        &self,
        record: CanonicalRecord,
        options: &ExportOptions,
        notes: &mut Notes,
    ) -> Result<Map<String, Value>, RecordError> {
        self.export(&record, options, notes)
    }
}

/// A built-in adapter's registration, collected with `inventory`.
#[derive(Debug)]
pub struct AdapterRegistration {
    /// Builds the adapter.
    pub make: fn() -> Box<dyn ViewAdapter>,
}

inventory::collect!(AdapterRegistration);

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

/// The adapters available to a run: the built-ins, then any plugins.
#[derive(Debug, Default)]
pub struct Registry {
    adapters: Vec<Box<dyn ViewAdapter>>,
}

impl Registry {
    /// Every adapter compiled into the binary, sorted by name.
    pub fn builtin() -> Self {
        let mut adapters: Vec<Box<dyn ViewAdapter>> = inventory::iter::<AdapterRegistration>
            .into_iter()
            .map(|r| (r.make)())
            .collect();
        adapters.sort_by(|a, b| a.info().name.cmp(&b.info().name));
        Self { adapters }
    }

    /// Adds an adapter, refusing one whose name or alias another already answers to.
    pub fn register(&mut self, adapter: Box<dyn ViewAdapter>) -> Result<(), NameClash> {
        let info = adapter.info();
        for name in std::iter::once(&info.name).chain(&info.aliases) {
            if let Some(existing) = self.get(name) {
                return Err(NameClash {
                    name: name.clone(),
                    origin: info.origin.clone(),
                    existing: existing.info().name.clone(),
                    existing_origin: existing.info().origin.clone(),
                });
            }
        }
        self.adapters.push(adapter);
        Ok(())
    }

    /// The adapter answering to `name` (its name or an alias).
    pub fn get(&self, name: &str) -> Option<&dyn ViewAdapter> {
        self.adapters
            .iter()
            .find(|a| a.info().answers_to(name))
            .map(AsRef::as_ref)
    }

    /// Every adapter, built-ins first.
    pub fn iter(&self) -> impl Iterator<Item = &dyn ViewAdapter> {
        self.adapters.iter().map(AsRef::as_ref)
    }

    /// The adapters' names.
    pub fn names(&self) -> Vec<&str> {
        self.adapters
            .iter()
            .map(|a| a.info().name.as_str())
            .collect()
    }
}
