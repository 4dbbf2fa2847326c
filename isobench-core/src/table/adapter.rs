//! [`TableAdapter`]: a [`ViewAdapter`] made from a [`Table`] and its [`Hooks`].

use serde_json::{Map, Value};

use super::io::{Exporter, Importer};
use super::{Field, FieldType, Table, TableError};
use crate::adapter::{AdapterInfo, ExportOptions, ViewAdapter};
use crate::error::{RecordError, pointer_token};
use crate::passthrough::HeldKey;
use crate::record::CanonicalRecord;
use crate::report::Notes;
use crate::schema::Profile;

/// What a table cannot say, done in code: functions of the adapter that receive decoded
/// values. The table has already moved every field it maps (those not marked
/// [`Field::hook`]) when a hook runs.
///
/// A hook reads the fields marked `hook` (and any other key it knows) from the
/// [`Importer`], and writes them with the [`Exporter`]. Whatever it leaves in the
/// importer is kept for the round trip. A bulk field the table maps straight across
/// may be absent from the record a hook receives, in either direction, though the
/// source has it: the host holds its text and writes it itself
/// ([`CanonicalRecord::held`], see [`crate::passthrough`]). A hook that reads such a
/// field's value marks it `hook`, and the host then hands it over decoded.
pub trait Hooks: Send + Sync + std::fmt::Debug {
    /// Reads what the table left into `record`.
    fn import(&self, from: &mut Importer<'_, '_>, record: &mut CanonicalRecord) -> HookResult {
        let _ = (from, record);
        Ok(())
    }

    /// Writes what the table does not.
    fn export(&self, record: &CanonicalRecord, to: &mut Exporter<'_, '_, '_>) -> HookResult {
        let _ = (record, to);
        Ok(())
    }
}

/// What a hook gives back.
pub type HookResult = Result<(), RecordError>;

/// No hooks: the table says everything.
impl Hooks for () {}

/// A format declared by a [`Table`], with [`Hooks`] for what the table cannot say.
#[derive(Debug)]
pub struct TableAdapter {
    table: Table,
    info: AdapterInfo,
    schema: Value,
    /// Whether a record from another format needs its keys put in table order after the
    /// hooks wrote theirs.
    reorder: bool,
    hooks: std::sync::Arc<dyn Hooks>,
}

impl TableAdapter {
    /// Leaves out of `out` the keys a closed table does not declare (the source's own
    /// keys, carried back to it), whose loader refuses them, with a note for each.
    fn drop_undeclared(&self, out: &mut Map<String, Value>, notes: &mut Notes) {
        let undeclared: Vec<String> = out
            .keys()
            .filter(|key| !self.table.fields.iter().any(|f| &f.key == *key))
            .cloned()
            .collect();
        for key in undeclared {
            out.shift_remove(&key);
            notes.dropped(
                &key,
                format!(
                    "{}'s loader refuses keys its table does not declare (`closed`)",
                    self.table.name
                ),
            );
        }
    }

    /// The adapter of `table`, once [`Table::check`] accepts it.
    pub fn new(table: Table, hooks: impl Hooks + 'static) -> Result<Self, TableError> {
        table.check()?;
        Ok(Self {
            info: table.info(),
            schema: table.schema(),
            reorder: table.fields.iter().any(|f| f.hook),
            table,
            hooks: std::sync::Arc::new(hooks),
        })
    }

    /// The field table the format is declared by.
    pub fn table(&self) -> &Table {
        &self.table
    }

    /// The adapter of a table that [extends](Table::extends) this one's: its fields with
    /// `extension`'s added or put in their place, run with this adapter's hooks.
    pub fn extended(&self, extension: Table) -> Result<Self, TableError> {
        let table = self.table.extended_by(extension)?;
        table.check()?;
        Ok(Self {
            info: table.info(),
            schema: table.schema(),
            reorder: table.fields.iter().any(|f| f.hook),
            table,
            hooks: std::sync::Arc::clone(&self.hooks),
        })
    }

    /// Sets where the adapter comes from (a plugin's path, a TOML file).
    #[must_use]
    pub fn with_origin(mut self, origin: String) -> Self {
        self.info.origin = origin;
        self
    }
}

impl ViewAdapter for TableAdapter {
    fn info(&self) -> &AdapterInfo {
        &self.info
    }

    fn schema(&self, _profile: Profile) -> &Value {
        &self.schema
    }

    fn import(
        &self,
        record: Map<String, Value>,
        notes: &mut Notes,
    ) -> Result<CanonicalRecord, RecordError> {
        self.import_holding(record, &[], notes)
    }

    fn export(
        &self,
        c: &CanonicalRecord,
        options: &ExportOptions,
        notes: &mut Notes,
    ) -> Result<Map<String, Value>, RecordError> {
        self.info.note_dropped(c, notes);
        let mut to = Exporter::new(&self.table.name, c, notes);
        to.options.clone_from(options);
        for field in self.table.fields.iter().filter(|f| !f.hook) {
            export_field(field, c, &mut to);
        }
        self.hooks.export(c, &mut to)?;
        let same_format = to.same_format();
        let mut out = to.finish();
        if self.table.closed {
            self.drop_undeclared(&mut out, notes);
        }
        if same_format || !self.reorder {
            return Ok(out);
        }
        Ok(self.in_table_order(out))
    }
}

impl TableAdapter {
    /// Imports `record`, a record without the keys `held` names, whose values a
    /// conversion holds outside it ([`crate::passthrough::Held`]), as if they were
    /// there: a required key is not missing, the key order and a list's encoding are
    /// noted for the round trip, and the canonical record [holds](CanonicalRecord::hold)
    /// each one's field. Only a key the table maps straight across may be held.
    pub fn import_holding(
        &self,
        record: Map<String, Value>,
        held: &[HeldKey<'_>],
        notes: &mut Notes,
    ) -> Result<CanonicalRecord, RecordError> {
        let held_key = |key: &str| held.iter().find(|h| h.key == key);
        let mut from = Importer::holding(&self.table.name, record, held, notes);
        if let Some(absent) = self
            .table
            .fields
            .iter()
            .find(|f| f.required && held_key(&f.key).is_none() && !from.has(&f.key))
        {
            return Err(from.missing(&absent.key));
        }
        let mut c = CanonicalRecord::default();
        // Room for every held field at once, rather than grown as they are held.
        c.held.reserve_exact(held.len());
        for field in self.table.fields.iter().filter(|f| !f.hook) {
            if let Some(h) = held_key(&field.key) {
                if let Some(encoding) = h.encoding {
                    from.remember_encoding(&field.key, encoding, true, Value::Null);
                }
                if let Some(to) = field.to.as_deref() {
                    c.hold(to);
                }
                continue;
            }
            import_field(field, &mut from, &mut c)?;
        }
        self.hooks.import(&mut from, &mut c)?;
        from.finish(&mut c);
        Ok(c)
    }

    /// The key order of `record`'s source, when it came from this format.
    pub fn source_keys(&self, record: &CanonicalRecord) -> Option<Vec<String>> {
        record
            .extensions
            .get(crate::vocab::SOURCE)
            .and_then(Value::as_object)
            .filter(|block| block.get("format").and_then(Value::as_str) == Some(&self.table.name))
            .and_then(|block| block.get("keys")?.as_array())
            .map(|keys| {
                keys.iter()
                    .filter_map(|k| k.as_str().map(str::to_owned))
                    .collect()
            })
    }

    /// The index each held value of `held` (output keys) takes among the entries of
    /// `out`, an export, once written: where the key stood in the record's source
    /// (`source_keys`, [`TableAdapter::source_keys`]) when it came from this format,
    /// else where the table puts it.
    pub fn held_indices(
        &self,
        source_keys: Option<&[String]>,
        out: &Map<String, Value>,
        held: &[&str],
    ) -> Vec<usize> {
        let rank = |key: &str| {
            match source_keys {
                Some(keys) if !keys.is_empty() => keys.iter().position(|k| k == key),
                _ => self.table.fields.iter().position(|f| f.key == key),
            }
            .unwrap_or(usize::MAX)
        };
        crate::passthrough::indices(out.keys().map(|k| rank(k)), held.iter().map(|k| rank(k)))
    }

    /// `out` with the table's keys first, in the table's order.
    fn in_table_order(&self, mut out: Map<String, Value>) -> Map<String, Value> {
        let mut ordered = Map::with_capacity(out.len());
        for field in &self.table.fields {
            if let Some(value) = out.shift_remove(&field.key) {
                ordered.insert(field.key.clone(), value);
            }
        }
        ordered.extend(out);
        ordered
    }
}

fn pointer(key: &str) -> String {
    format!("/{}", pointer_token(key))
}

/// Moves one field the table maps from the foreign record into `c`.
fn import_field(
    field: &Field,
    from: &mut Importer<'_, '_>,
    c: &mut CanonicalRecord,
) -> Result<(), RecordError> {
    let key = field.key.as_str();
    let Some(to) = field.to.as_deref() else {
        // A `null` column: taken when it holds null, kept for the round trip otherwise.
        if field.kind == FieldType::Null && from.peek(key).is_some_and(Value::is_null) {
            from.value(key);
        }
        return Ok(());
    };
    let value = match field.kind {
        FieldType::String => from.string(key)?.map(Value::String),
        FieldType::Timestamp => from.timestamp(key, str::to_owned)?.map(Value::String),
        FieldType::List => from
            .list(key)?
            .map(|items| Value::Array(items.into_iter().map(Value::String).collect())),
        FieldType::Integer | FieldType::IntegerList | FieldType::Number | FieldType::Boolean => {
            match from.value(key) {
                Some(value) if field.kind.fits(&value) => Some(value),
                Some(other) => {
                    return Err(RecordError::wrong_type(
                        pointer(key),
                        field.kind.describe(),
                        &other,
                    ));
                }
                None => None,
            }
        }
        FieldType::Json | FieldType::Null => from.value(key),
    };
    match value.map(|value| c.set_field(to, value)) {
        Some(Err(refused)) => Err(RecordError::wrong_type(
            pointer(key),
            &format!("a value canonical `{to}` can hold"),
            &refused,
        )),
        _ => Ok(()),
    }
}

/// Writes one field the table maps from `c` into the foreign record.
fn export_field(field: &Field, c: &CanonicalRecord, to: &mut Exporter<'_, '_, '_>) {
    let key = field.key.as_str();
    let Some(from) = field.to.as_deref() else {
        let kept = to
            .source
            .as_ref()
            .is_some_and(|s| s.extra.contains_key(key));
        if field.kind == FieldType::Null && !kept {
            to.put(key, Value::Null);
        }
        return;
    };
    let Some(value) = c.field_value(from) else {
        return;
    };
    match field.kind {
        FieldType::String if value.is_string() => to.string(key, c.field_str(from)),
        FieldType::Timestamp if value.is_string() => {
            to.timestamp(key, c.field_str(from), str::to_owned);
        }
        FieldType::List if let Some(items) = c.field_list(from) => {
            to.list(key, Some(items), field.list_encoding());
        }
        FieldType::Integer
        | FieldType::IntegerList
        | FieldType::Number
        | FieldType::Boolean
        | FieldType::Json
            if field.kind.fits(&value) =>
        {
            to.put(key, value);
        }
        // A value the key's declared type cannot hold: left out, and said so.
        kind => {
            let format = to.format().to_owned();
            to.notes.dropped(
                from,
                format!(
                    "it holds {}, and {format} declares `{key}` as {}",
                    crate::error::describe_value(&value),
                    kind.describe()
                ),
            );
        }
    }
}
