//! The formats available to a run, each as the host holds it: the adapter, and what the
//! host does for it besides calling it.
//!
//! An adapter ([`ViewAdapter`]) only says what it is and converts records. The rest is
//! the host's, kept here alongside it: where the format's records hold bulk fields the
//! host may move unread ([`Registered::places`]), the field table a format is declared
//! by ([`Registered::table`], and so [`Registered::extended`]), and for a plugin that
//! reads records as JSON, a way to hand it a record's text as it was read
//! ([`Registered::text_import`]).

use std::sync::Arc;

use crate::adapter::{NameClash, ViewAdapter};
use crate::error::RecordError;
use serde_json::{Map, Value};

use crate::passthrough::{self, HeldKey, Place, Placed, Route};
use crate::record::{CanonicalRecord, HeldField, V1_FIELDS};
use crate::report::Notes;
use crate::table::{Table, TableAdapter, TableError};

/// Imports a record from the JSON text of that one object, as it was read.
pub type TextImport =
    Arc<dyn Fn(&[u8], &mut Notes) -> Result<CanonicalRecord, RecordError> + Send + Sync>;

/// A format as the host holds it: its adapter, with what the host does for it.
///
/// It dereferences to the adapter, so `registered.info()` and `registered.import(..)`
/// call the adapter.
#[derive(Clone)]
pub struct Registered {
    adapter: Arc<dyn ViewAdapter>,
    /// The same adapter, when a field table declares the format.
    table: Option<Arc<TableAdapter>>,
    places: Arc<[Place]>,
    text_import: Option<TextImport>,
}

impl std::fmt::Debug for Registered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registered")
            .field("adapter", &self.adapter)
            .field("places", &self.places)
            .field("text_import", &self.text_import.is_some())
            .finish_non_exhaustive()
    }
}

impl Registered {
    /// An adapter the host only calls: nothing passes unread, records are handed to it
    /// parsed.
    pub fn new(adapter: impl ViewAdapter + 'static) -> Self {
        Self::from(Box::new(adapter) as Box<dyn ViewAdapter>)
    }

    /// Says where the format's records hold the bulk fields its adapter moves unread
    /// (see [`crate::passthrough`]). The host acts on it for the adapters it runs itself
    /// (built in, and field tables): a plugin written by hand is sent whole records.
    #[must_use]
    pub fn with_places(mut self, places: Vec<Place>) -> Self {
        self.places = places.into();
        self
    }

    /// Gives the host a way to import a record from its JSON text as it was read, for
    /// an adapter that would otherwise serialise the parsed record again (a plugin
    /// reading JSON). A host holding a record's text may then only check that it is one
    /// well-formed JSON object, and call `import` with the text.
    #[must_use]
    pub fn importing_text(mut self, import: TextImport) -> Self {
        self.text_import = Some(import);
        self
    }

    /// The adapter.
    pub fn adapter(&self) -> &dyn ViewAdapter {
        self.adapter.as_ref()
    }

    /// Where the format's records hold the bulk fields its adapter moves unread.
    pub fn places(&self) -> &[Place] {
        &self.places
    }

    /// The field table the format is declared by, when it is (see [`crate::table`]).
    pub fn table(&self) -> Option<&Table> {
        self.table.as_deref().map(TableAdapter::table)
    }

    /// The format of a table that [extends](Table::extends) this format's: its fields
    /// with `extension`'s added or put in their place, run with this format's hooks.
    /// `None` when the format is declared by no table.
    pub fn extended(&self, extension: Table) -> Option<Result<Self, TableError>> {
        let table = self.table.as_deref()?;
        Some(table.extended(extension).map(Self::from))
    }

    /// How to import a record from its text, when the host has one for this format.
    pub fn text_import(&self) -> Option<&TextImport> {
        self.text_import.as_ref()
    }

    /// Imports `record`, which lacks the keys `held` names: the host holds their values
    /// outside it ([`Held`](crate::passthrough::Held)), each at a place
    /// ([`Registered::places`]) the format imports unread. The canonical record
    /// [holds](CanonicalRecord::hold) their fields, and a field table notes them for
    /// the round trip as if they were there ([`TableAdapter::import_holding`]); a
    /// format of no table reads the record as it reads any without those keys.
    pub fn import_holding(
        &self,
        record: Map<String, Value>,
        held: &[HeldKey<'_>],
        notes: &mut Notes,
    ) -> Result<CanonicalRecord, RecordError> {
        if held.is_empty() {
            return self.adapter.import(record, notes);
        }
        if let Some(table) = &self.table {
            return table.import_holding(record, held, notes);
        }
        let mut c = self.adapter.import(record, notes)?;
        for h in held {
            if let Some(place) = self
                .places
                .iter()
                .find(|p| p.import && p.path.len() == 1 && p.path[0] == h.key)
            {
                c.hold(&place.field);
            }
        }
        Ok(c)
    }

    /// What [`Registered::place_held`] needs of `record` once it is exported: the
    /// fields it holds, and for a field table, the key order of a source of this
    /// format.
    pub fn held_order(&self, record: &CanonicalRecord) -> HeldOrder {
        HeldOrder {
            fields: record.held.clone(),
            source_keys: self
                .table
                .as_deref()
                .and_then(|table| table.source_keys(record)),
        }
    }

    /// Where `out`, this format's export of a record ([`Registered::held_order`]
    /// kept what is needed of it), takes each held text of `held` (by the route it came
    /// by): for a field table, where the source had the key when it is of this format,
    /// else where the table puts it ([`TableAdapter::held_indices`]); for a format of no
    /// table, whose records are the canonical record's fields, where the canonical
    /// record has the field (v1 fields in schema order, an extension where import
    /// reached it).
    pub fn place_held<'t>(
        &self,
        order: &HeldOrder,
        out: &Map<String, Value>,
        held: &[(Route<'t>, &'t [u8])],
    ) -> Vec<Placed<'t>> {
        // The held texts at the top of the record, by index into `held`.
        let top = || (0..held.len()).filter(|&i| held[i].0.path.len() == 1);
        let mut placed: Vec<Placed<'t>> = held
            .iter()
            .map(|&(route, text)| Placed {
                path: route.path,
                at: 0,
                text,
            })
            .collect();
        if let Some(table) = &self.table {
            let keys: Vec<&str> = top().map(|i| held[i].0.path[0].as_str()).collect();
            let source_keys = order.source_keys.as_deref();
            for (i, index) in top().zip(table.held_indices(source_keys, out, &keys)) {
                placed[i].at = index;
            }
        } else {
            let rank = |key: &str| {
                V1_FIELDS
                    .iter()
                    .position(|f| *f == key)
                    .unwrap_or(usize::MAX)
            };
            let indices = passthrough::indices(
                out.keys().map(|k| rank(k)),
                top().map(|i| rank(&held[i].0.path[0])),
            );
            for (i, index) in top().zip(indices) {
                placed[i].at = index;
            }
            let fields = &order.fields;
            for (i, (route, _)) in held.iter().enumerate() {
                let Some(position) = fields.iter().position(|h| h.field == route.field) else {
                    continue;
                };
                let extension = |h: &HeldField| h.field.starts_with("extensions.");
                if route.path.len() == 2 && extension(&fields[position]) {
                    placed[i].at = fields[position].at
                        + fields[..position].iter().filter(|h| extension(h)).count();
                }
            }
        }
        placed
    }
}

/// What placing a record's held texts in its export needs of the record
/// ([`Registered::held_order`]).
#[derive(Debug, Clone, Default)]
pub struct HeldOrder {
    fields: Vec<HeldField>,
    source_keys: Option<Vec<String>>,
}

impl std::ops::Deref for Registered {
    type Target = dyn ViewAdapter;

    fn deref(&self) -> &Self::Target {
        self.adapter.as_ref()
    }
}

impl From<Arc<dyn ViewAdapter>> for Registered {
    fn from(adapter: Arc<dyn ViewAdapter>) -> Self {
        Self {
            adapter,
            table: None,
            places: Arc::new([]),
            text_import: None,
        }
    }
}

impl From<Box<dyn ViewAdapter>> for Registered {
    fn from(adapter: Box<dyn ViewAdapter>) -> Self {
        Self::from(Arc::<dyn ViewAdapter>::from(adapter))
    }
}

/// A format declared by a field table: the host knows its table, and moves the bulk
/// fields the table maps straight across unread ([`Table::passthrough`]).
impl From<TableAdapter> for Registered {
    fn from(adapter: TableAdapter) -> Self {
        let places = adapter.table().passthrough();
        let table = Arc::new(adapter);
        Self {
            adapter: Arc::clone(&table) as Arc<dyn ViewAdapter>,
            table: Some(table),
            places: places.into(),
            text_import: None,
        }
    }
}

/// A built-in format's registration, collected with `inventory`.
#[derive(Debug)]
pub struct AdapterRegistration {
    /// Builds the format.
    pub make: fn() -> Registered,
}

inventory::collect!(AdapterRegistration);

/// The formats available to a run: the built-ins, then any plugins.
#[derive(Debug, Default)]
pub struct Registry {
    formats: Vec<Registered>,
}

impl Registry {
    /// Every format compiled into the binary, sorted by name.
    pub fn builtin() -> Self {
        let mut formats: Vec<Registered> = inventory::iter::<AdapterRegistration>
            .into_iter()
            .map(|r| (r.make)())
            .collect();
        formats.sort_by(|a, b| a.info().name.cmp(&b.info().name));
        Self { formats }
    }

    /// Adds a format, refusing one whose name or alias another already answers to.
    pub fn register(&mut self, format: impl Into<Registered>) -> Result<(), NameClash> {
        let format = format.into();
        let info = format.info();
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
        self.formats.push(format);
        Ok(())
    }

    /// The format answering to `name` (its name or an alias).
    pub fn get(&self, name: &str) -> Option<&Registered> {
        self.formats.iter().find(|a| a.info().answers_to(name))
    }

    /// Every format, built-ins first.
    pub fn iter(&self) -> impl Iterator<Item = &Registered> {
        self.formats.iter()
    }

    /// The formats' names.
    pub fn names(&self) -> Vec<&str> {
        self.formats
            .iter()
            .map(|a| a.info().name.as_str())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passthrough::routes;
    use crate::table::{Field, ListEncoding};

    #[test]
    fn routes_pass_the_bulk_fields_one_side_moves_and_the_other_writes() {
        let format = |name: &str, encoding| {
            let table = Table::new(name, &[], "a test format").fields(vec![
                Field::new("id", "instance_id"),
                Field::new("repository", "repo"),
                Field::new("diff", "patch"),
                Field::new("tests", "extensions.fail_to_pass").list(encoding),
            ]);
            Registered::from(TableAdapter::new(table, ()).expect("a valid table"))
        };
        let (encoded, arrays) = (
            format("encoded", ListEncoding::JsonSpaced),
            format("arrays", ListEncoding::Array),
        );
        let summary = |from: &Registered, to: &Registered| {
            let same_format = from.info().name == to.info().name;
            routes(from.places(), to.places(), same_format)
                .iter()
                .map(|r| (r.key.to_owned(), r.list, r.encoded, r.path.join(".")))
                .collect::<Vec<_>>()
        };
        let diff = ("diff".to_owned(), false, false, "diff".to_owned());
        let tests = |encoded| ("tests".to_owned(), true, encoded, "tests".to_owned());
        assert_eq!(summary(&encoded, &arrays), [diff.clone(), tests(true)]);
        // A target that writes a list encoded builds it itself.
        assert_eq!(summary(&arrays, &encoded), std::slice::from_ref(&diff));
        // Between records of one format, a list passes only as the array it is.
        assert_eq!(summary(&arrays, &arrays), [diff.clone(), tests(false)]);
        // Ids and other fields the conversion reads never pass, whatever is declared.
        let mut places = arrays.places().to_vec();
        places.extend([
            Place::both_ways("id", "instance_id"),
            Place::both_ways("repository", "repo"),
        ]);
        let declaring = format("arrays", ListEncoding::Array).with_places(places);
        assert_eq!(summary(&declaring, &declaring), [diff, tests(false)]);
    }

    #[test]
    fn a_table_format_is_known_by_its_table_and_extended_with_its_hooks() {
        let base = Table::new("base", &[], "a test format").fields(vec![
            Field::new("id", "instance_id"),
            Field::new("diff", "patch"),
        ]);
        let registered = Registered::from(TableAdapter::new(base, ()).expect("a valid table"));
        assert_eq!(registered.table().map(|t| t.name.as_str()), Some("base"));
        let extension = Table::new("more", &[], "more").fields(vec![Field::new("title", "notes")]);
        let extended = registered
            .extended(extension)
            .expect("a table format extends")
            .expect("a valid extension");
        assert_eq!(extended.info().name, "more");
        let keys: Vec<&str> = extended
            .table()
            .expect("declared by a table")
            .fields
            .iter()
            .map(|f| f.key.as_str())
            .collect();
        assert_eq!(keys, ["id", "diff", "title"]);
        assert_eq!(extended.places().len(), 1);
        // A format the host only calls has none of it.
        let plain = Registered::from(Box::new(
            TableAdapter::new(
                Table::new("plain", &[], "plain").fields(vec![Field::new("id", "instance_id")]),
                (),
            )
            .expect("a valid table"),
        ) as Box<dyn ViewAdapter>);
        assert!(plain.table().is_none() && plain.places().is_empty());
        assert!(plain.extended(Table::new("x", &[], "x")).is_none());
        assert!(plain.text_import().is_none());
    }
}
