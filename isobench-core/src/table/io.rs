//! Reading a foreign record field by field, and writing one back the same way: the
//! bookkeeping behind exact round trips (key order, encodings, original values a
//! normalisation cannot give back, unknown fields), shared by every adapter.

use serde_json::{Map, Value};

use crate::adapter::ExportOptions;
use crate::codec::{self, DecodedList, Encoding};
use crate::error::{RecordError, pointer_token};
use crate::passthrough::HeldKey;
use crate::record::CanonicalRecord;
use crate::report::Notes;
use crate::timestamp;
use crate::vocab::{self, Source};

fn pointer(key: &str) -> String {
    format!("/{}", pointer_token(key))
}

/// A record's entries as an [`Importer`] reads them: each key of the record once, in the
/// record's order, with its value until the value is taken.
///
/// A list, not a map: an import takes most of a record's keys one by one, and marking
/// an entry found by looking through a few keys costs less than removing it from a
/// hashed map, which hashes the key and then renumbers every entry after it. The keys
/// stay, to be moved into the source's key list at the end rather than copied there.
type Entries = Vec<(String, Option<Value>)>;

/// Reads a foreign record field by field. What is left at the end is kept verbatim in
/// `extensions.source.extra`.
#[derive(Debug)]
pub struct Importer<'f, 'n> {
    format: &'f str,
    record: Entries,
    /// Whether the source's key list is made of the keys of `record` at the end: true
    /// for an importer that starts from a whole record; a resumed one's list came with
    /// its source.
    keys_of_record: bool,
    /// The keys noted by [`Importer::note_held_keys`], each with the position to insert
    /// it at, in the order to insert them: put into the source's key list at the end.
    noted: Vec<(usize, String)>,
    source: Source,
    /// Where warnings and drops are noted.
    pub notes: &'n mut Notes,
}

impl<'f, 'n> Importer<'f, 'n> {
    /// Starts reading `record`, a record of `format`.
    pub fn new(format: &'f str, record: Map<String, Value>, notes: &'n mut Notes) -> Self {
        Self::holding(format, record, &[], notes)
    }

    /// Notes, for the round trip, the keys of the record whose values a conversion
    /// holds outside it ([`crate::passthrough::Held`]), where each stood among the
    /// record's keys.
    pub fn note_held_keys(&mut self, held: &[HeldKey<'_>]) {
        self.noted.reserve(held.len());
        let noted = &mut self.noted;
        let mut note = |h: &HeldKey<'_>| noted.push((h.position, h.key.to_owned()));
        // A reader holds the values in the order of the routes, which is the records' own
        // key order in the common case: sorted then without a list of their own.
        if held.is_sorted_by_key(|h| h.position) {
            held.iter().for_each(note);
        } else {
            let mut sorted: Vec<&HeldKey<'_>> = held.iter().collect();
            sorted.sort_by_key(|h| h.position);
            sorted.into_iter().for_each(&mut note);
        }
    }

    /// An importer of `record` as [`Importer::new`] makes it, with the keys of `held`
    /// noted ([`Importer::note_held_keys`]), to be put in the key list at the end.
    pub fn holding(
        format: &'f str,
        record: Map<String, Value>,
        held: &[HeldKey<'_>],
        notes: &'n mut Notes,
    ) -> Self {
        let source = Source {
            format: format.to_owned(),
            ..Source::default()
        };
        let mut importer = Self {
            keys_of_record: true,
            ..Self::resume(format, record, source, notes)
        };
        importer.note_held_keys(held);
        importer
    }

    /// Resumes reading where another importer stopped: `record` holds the keys it left
    /// (or some of them) and `source` what it had noted. A plugin's hooks run on such an
    /// importer, rebuilt from what the host sends them; [`Importer::into_parts`] then
    /// gives back what they left, and the host's importer [absorbs](Importer::absorb) it.
    pub fn resume(
        format: &'f str,
        record: Map<String, Value>,
        source: Source,
        notes: &'n mut Notes,
    ) -> Self {
        Self {
            format,
            record: record
                .into_iter()
                .map(|(key, value)| (key, Some(value)))
                .collect(),
            keys_of_record: false,
            noted: Vec::new(),
            source,
            notes,
        }
    }

    /// Takes in what a [resumed](Importer::resume) importer did elsewhere: the keys it
    /// took are taken here too, and the encodings and original values it noted are noted.
    pub fn absorb(
        &mut self,
        taken: &[String],
        encodings: Map<String, Value>,
        raw: Map<String, Value>,
    ) {
        for (key, value) in &mut self.record {
            if taken.contains(key) {
                *value = None;
            }
        }
        self.source.encodings.extend(encodings);
        self.source.raw.extend(raw);
    }

    /// The value of `key`, not taken yet, where the record keeps it.
    fn entry(&mut self, key: &str) -> Option<&mut Option<Value>> {
        self.record
            .iter_mut()
            .find_map(|(k, value)| (value.is_some() && k == key).then_some(value))
    }

    /// Whether the record has `key`.
    pub fn has(&self, key: &str) -> bool {
        self.peek(key).is_some()
    }

    /// The keys not taken yet, in the record's order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.record
            .iter()
            .filter(|(_, value)| value.is_some())
            .map(|(key, _)| key.as_str())
    }

    /// The value of `key`, left where it is.
    pub fn peek(&self, key: &str) -> Option<&Value> {
        self.record
            .iter()
            .find_map(|(k, value)| value.as_ref().filter(|_| k == key))
    }

    /// Takes a value of any type.
    pub fn value(&mut self, key: &str) -> Option<Value> {
        self.entry(key)?.take()
    }

    /// Takes an optional string.
    pub fn string(&mut self, key: &str) -> Result<Option<String>, RecordError> {
        self.value(key)
            .map(|value| codec::string_of(key, value))
            .transpose()
    }

    /// Takes a string the format requires.
    pub fn required_string(&mut self, key: &str) -> Result<String, RecordError> {
        self.string(key)?
            .ok_or_else(|| codec::missing_string(key, self.format))
    }

    /// Takes an optional list of strings in any encoding, remembering the encoding.
    pub fn list(&mut self, key: &str) -> Result<Option<Vec<String>>, RecordError> {
        let Some(value) = self.value(key) else {
            return Ok(None);
        };
        let DecodedList {
            items,
            encoding,
            reproducible,
        } = codec::decode_list(&value, &pointer(key))?;
        self.remember_encoding(key, encoding, reproducible, value);
        Ok(Some(items))
    }

    /// Takes a list the format requires.
    pub fn required_list(&mut self, key: &str) -> Result<Vec<String>, RecordError> {
        if !self.has(key) {
            return Err(self.missing(key));
        }
        Ok(self.list(key)?.unwrap_or_default())
    }

    /// Takes an optional JSON value that may be stored as a JSON-encoded string.
    pub fn json(&mut self, key: &str) -> Result<Option<Value>, RecordError> {
        let Some(value) = self.value(key) else {
            return Ok(None);
        };
        let (decoded, encoding, reproducible) = codec::decode_json(&value, &pointer(key))?;
        self.remember_encoding(key, encoding, reproducible, value);
        Ok(Some(decoded))
    }

    /// Records how `key` was encoded, and keeps the original when encoding the decoded
    /// value again would not give it back.
    pub fn remember_encoding(
        &mut self,
        key: &str,
        encoding: Encoding,
        reproducible: bool,
        original: Value,
    ) {
        self.source
            .encodings
            .insert(key.to_owned(), encoding.as_str().into());
        if !reproducible {
            self.source.raw.insert(key.to_owned(), original);
        }
    }

    /// Keeps `original` for `key`: a normalisation cannot give it back.
    pub fn keep_raw(&mut self, key: &str, original: Value) {
        self.source.raw.insert(key.to_owned(), original);
    }

    /// Takes a timestamp: with a zone it becomes RFC 3339 UTC, without one it keeps its
    /// wall-clock value. The original is kept when `render`, the format's
    /// own way of writing the canonical value, would not give it back.
    pub fn timestamp(
        &mut self,
        key: &str,
        render: impl Fn(&str) -> String,
    ) -> Result<Option<String>, RecordError> {
        let Some(text) = self.string(key)? else {
            return Ok(None);
        };
        let (normal, parsed) = timestamp::normalize(&text);
        match parsed {
            None => self.notes.warn(
                "created_at",
                format!("`{}` is not a date-time; kept verbatim", codec::shorten(&text, 40)),
            ),
            Some(ts) if !ts.utc => self.notes.warn(
                "created_at",
                "the source gives no time zone; the wall-clock time is kept and no zone is invented",
            ),
            Some(_) => {}
        }
        if render(&normal) != text {
            self.source.raw.insert(key.to_owned(), Value::String(text));
        }
        Ok(Some(normal))
    }

    /// The error for a required field that is absent.
    pub fn missing(&self, key: &str) -> RecordError {
        RecordError::missing(
            pointer(key),
            format!(
                "required field `{key}` is missing (every {} record has it)",
                self.format
            ),
        )
    }

    /// Reads the record as the record of another format that it carries (a task folder's
    /// source row), imported already into a canonical record whose source block is
    /// `source`: every key not taken yet is taken, and [`Importer::finish`] stores `source`
    /// rather than a block of this importer's own, so that the record is written back as
    /// that format's record would be.
    pub fn read_as(&mut self, source: Source) {
        for (_, value) in &mut self.record {
            *value = None;
        }
        self.keys_of_record = false;
        self.noted.clear();
        self.source = source;
    }

    /// Stores the remaining fields and the source block into `record.extensions`.
    pub fn finish(self, record: &mut CanonicalRecord) {
        let (extra, mut source) = self.into_parts();
        source.extra = extra;
        record
            .extensions
            .insert(vocab::SOURCE.to_owned(), source.into_value());
    }

    /// The keys not taken yet, and what was noted for the round trip: the source with
    /// its key list made (when the importer makes it of the record's keys) and the noted
    /// keys put in it.
    pub fn into_parts(self) -> (Map<String, Value>, Source) {
        let Self {
            record,
            keys_of_record,
            noted,
            mut source,
            ..
        } = self;
        let mut left = Map::new();
        if keys_of_record {
            source.keys = Vec::with_capacity(record.len() + noted.len());
            for (key, value) in record {
                if let Some(value) = value {
                    left.insert(key.clone(), value);
                }
                source.keys.push(key);
            }
        } else {
            left.extend(
                record
                    .into_iter()
                    .filter_map(|(key, value)| Some((key, value?))),
            );
        }
        let keys = &mut source.keys;
        for (position, key) in noted {
            keys.insert(position.min(keys.len()), key);
        }
        (left, source)
    }
}

/// Writes a foreign record field by field. When the canonical record came from the same
/// format, the original key order, encodings, untouched original values and unknown
/// fields are restored, so that `export(import(r)) == r`.
///
/// A field the record lacks is left out: whether the target's consumer can do without it
/// is its [`Contract`](crate::Contract)'s to say, checked by the caller on the finished record.
#[derive(Debug)]
pub struct Exporter<'f, 'r, 'n> {
    format: &'f str,
    /// The record being written.
    pub record: &'r CanonicalRecord,
    /// Its `extensions.source` block, when it came from this same format.
    pub source: Option<Source>,
    out: Map<String, Value>,
    /// Where warnings and drops are noted.
    pub notes: &'n mut Notes,
    /// The options of the export.
    pub options: ExportOptions,
}

impl<'f, 'r, 'n> Exporter<'f, 'r, 'n> {
    /// Starts writing `record` as a record of `format`.
    pub fn new(format: &'f str, record: &'r CanonicalRecord, notes: &'n mut Notes) -> Self {
        Self {
            format,
            record,
            source: Source::of_format(&record.extensions, format),
            out: Map::new(),
            notes,
            options: ExportOptions::default(),
        }
    }

    /// Starts writing `record` with `source` as its same-format source block (or none):
    /// how a plugin's hooks write, with the part of the block the host sends them.
    /// [`Exporter::into_written`] gives back what they wrote.
    pub fn resume(
        format: &'f str,
        record: &'r CanonicalRecord,
        source: Option<Source>,
        notes: &'n mut Notes,
    ) -> Self {
        Self {
            format,
            record,
            source,
            out: Map::new(),
            notes,
            options: ExportOptions::default(),
        }
    }

    /// The name of the format being written.
    pub fn format(&self) -> &str {
        self.format
    }

    /// What was written so far, in order, without [`Exporter::finish`]'s restoring.
    pub fn into_written(self) -> Map<String, Value> {
        self.out
    }

    /// Whether the record was imported from this same format.
    pub fn same_format(&self) -> bool {
        self.source.is_some()
    }

    /// The encoding the source used for `key`, or `default` for records from elsewhere.
    pub fn encoding(&self, key: &str, default: Encoding) -> Encoding {
        self.source
            .as_ref()
            .and_then(|s| s.encoding(key))
            .and_then(Encoding::parse)
            .unwrap_or(default)
    }

    /// The original value of `key`, if the source kept one.
    pub fn raw(&self, key: &str) -> Option<&Value> {
        self.source.as_ref()?.raw.get(key)
    }

    /// Writes a value.
    pub fn put(&mut self, key: &str, value: impl Into<Value>) {
        self.out.insert(key.to_owned(), value.into());
    }

    /// Writes an optional value; absent stays absent.
    pub fn put_some(&mut self, key: &str, value: Option<Value>) {
        if let Some(v) = value {
            self.put(key, v);
        }
    }

    /// Writes an optional string; absent stays absent.
    pub fn string(&mut self, key: &str, value: Option<&str>) {
        if let Some(v) = value {
            self.put(key, v);
        }
    }

    /// Writes a list in the source's encoding (or `default`), restoring the original text
    /// when the items are unchanged.
    pub fn list(&mut self, key: &str, items: Option<Vec<String>>, default: Encoding) {
        let Some(items) = items else { return };
        if let Some(raw) = self.raw(key)
            && codec::decode_list(raw, "").is_ok_and(|d| d.items == items)
        {
            let raw = raw.clone();
            self.put(key, raw);
            return;
        }
        let encoding = self.encoding(key, default);
        self.put(key, codec::encode_list(&items, encoding));
    }

    /// Writes a timestamp: the source's original text when it still denotes the canonical
    /// value, else `render` of the canonical value.
    pub fn timestamp(&mut self, key: &str, value: Option<&str>, render: impl Fn(&str) -> String) {
        let Some(value) = value else { return };
        if let Some(Value::String(raw)) = self.raw(key)
            && timestamp::normalize(raw).0 == value
        {
            let raw = raw.clone();
            self.put(key, raw);
            return;
        }
        let rendered = render(value);
        self.put(key, rendered);
    }

    /// The finished record: unknown fields of a same-format source restored, keys in the
    /// source's order.
    pub fn finish(mut self) -> Map<String, Value> {
        if let Some(source) = self.source.take() {
            for (k, v) in &source.extra {
                self.out.entry(k.clone()).or_insert_with(|| v.clone());
            }
            return source.order(self.out);
        }
        if let Some(from) = Source::format_of(&self.record.extensions)
            && let Some(extra) = self.record.extensions[vocab::SOURCE]
                .get("extra")
                .and_then(Value::as_object)
        {
            for (key, value) in extra {
                let detail = match self.test_list_holding(value) {
                    Some(key) => format!(
                        "a `{from}` field {} has no place for; its test names are written, as `{key}`, \
                         only what it says of each test (statuses, results) is not",
                        self.format,
                    ),
                    None => format!("a `{from}` field {} has no place for", self.format),
                };
                self.notes
                    .dropped(format!("extensions.source.extra.{key}"), detail);
            }
        }
        self.out
    }
}

impl Exporter<'_, '_, '_> {
    /// The written test list (`FAIL_TO_PASS`, `PASS_TO_PASS`) that holds every key of
    /// `value`, an object keyed by test name (Multi-SWE-bench's `f2p_tests`): such a
    /// field's names are carried, only its per-test details are dropped.
    fn test_list_holding(&self, value: &Value) -> Option<&'static str> {
        let names = value.as_object().filter(|names| !names.is_empty())?;
        [
            ("FAIL_TO_PASS", vocab::FAIL_TO_PASS),
            ("PASS_TO_PASS", vocab::PASS_TO_PASS),
        ]
        .into_iter()
        .filter(|(key, _)| self.out.contains_key(*key))
        .find(|(_, list)| {
            let Some(Value::Array(items)) = self.record.ext(list) else {
                return false;
            };
            let items: std::collections::HashSet<&str> =
                items.iter().filter_map(Value::as_str).collect();
            names.keys().all(|name| items.contains(name.as_str()))
        })
        .map(|(key, _)| key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The held keys noted as first written: sorted by position in a list of their own,
    /// then each inserted, into a key list made for the record's keys alone.
    fn noted_by_sorting(record: &Map<String, Value>, held: &[HeldKey<'_>]) -> Vec<String> {
        let mut keys: Vec<String> = record.keys().cloned().collect();
        let mut sorted: Vec<&HeldKey<'_>> = held.iter().collect();
        sorted.sort_by_key(|h| h.position);
        for h in sorted {
            keys.insert(h.position.min(keys.len()), h.key.to_owned());
        }
        keys
    }

    /// A value of any JSON type a record field holds, lists of strings among them.
    fn field_value() -> impl Strategy<Value = Value> {
        prop_oneof![
            "[a-c\"]{0,3}".prop_map(Value::from),
            any::<i32>().prop_map(Value::from),
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            prop::collection::vec("[a-c]{0,2}", 0..3).prop_map(Value::from),
            prop::collection::vec("[a-c]{0,2}", 0..3)
                .prop_map(|items| Value::from(serde_json::to_string(&items).expect("in memory"))),
        ]
    }

    /// One way to read a field, named by a number: see [`read_both_ways`].
    const READS: u8 = 7;

    /// Reads `key` the `read`th way from `importer`, and from `record` as the importer
    /// read it when it kept the record as a map (taking a key out of it); each read
    /// described, to compare.
    fn read_both_ways(
        importer: &mut Importer<'_, '_>,
        record: &mut Map<String, Value>,
        read: u8,
        key: &str,
    ) -> (String, String) {
        let reads = match read {
            0 => (
                importer.has(key).to_string(),
                codec::get_small(record, key).is_some().to_string(),
            ),
            1 => (
                format!("{:?}", importer.peek(key)),
                format!("{:?}", codec::get_small(record, key)),
            ),
            2 => (
                format!("{:?}", importer.value(key)),
                format!("{:?}", codec::take_small(record, key)),
            ),
            3 => (
                format!("{:?}", importer.string(key)),
                format!("{:?}", codec::take_string(record, key)),
            ),
            4 => (
                format!("{:?}", importer.required_string(key)),
                format!("{:?}", codec::require_string(record, key, "f")),
            ),
            5 => (
                format!("{:?}", importer.list(key)),
                format!(
                    "{:?}",
                    codec::take_small(record, key)
                        .map(|value| codec::decode_list(&value, &pointer(key)).map(|d| d.items))
                        .transpose()
                ),
            ),
            _ => (
                format!("{:?}", importer.json(key).map(|v| v.is_some())),
                format!(
                    "{:?}",
                    codec::take_small(record, key)
                        .map(|value| codec::decode_json(&value, &pointer(key)).map(|_| ()))
                        .transpose()
                        .map(|v| v.is_some())
                ),
            ),
        };
        let keys: Vec<&str> = importer.keys().collect();
        let left: Vec<&str> = record.keys().map(String::as_str).collect();
        (
            format!("{} {keys:?}", reads.0),
            format!("{} {left:?}", reads.1),
        )
    }

    proptest! {
        /// Reading a record's fields in any order and any way, through the importer's
        /// list of entries, finds, takes and leaves what taking keys out of the record's
        /// map does: the same values and errors, the same keys left in the same order,
        /// the same fields kept verbatim, and the same key list noted, with the held
        /// keys (which no read finds) where sorting them puts them.
        #[test]
        fn taking_from_the_entries_is_taking_from_the_map(
            entries in prop::collection::vec(("[a-e]{1,2}", field_value()), 0..20),
            reads in prop::collection::vec((0..READS, "[a-f]{1,2}"), 0..30),
            held in prop::collection::vec(("[a-f]{1,2}", 0usize..24), 0..5),
        ) {
            let record: Map<String, Value> = entries.into_iter().collect();
            let held: Vec<HeldKey<'_>> = held
                .iter()
                .map(|(key, position)| HeldKey { key, position: *position, encoding: None })
                .collect();
            let mut notes = Notes::new();
            let mut importer = Importer::holding("f", record.clone(), &held, &mut notes);
            let mut left = record.clone();
            for (read, key) in &reads {
                let (by_entries, by_map) = read_both_ways(&mut importer, &mut left, *read, key);
                prop_assert_eq!(by_entries, by_map);
            }
            let mut c = CanonicalRecord::default();
            importer.finish(&mut c);
            let source = Source::of_format(&c.extensions, "f").expect("a source block");
            prop_assert_eq!(source.keys, noted_by_sorting(&record, &held));
            prop_assert_eq!(source.extra, left);
        }

        /// Held keys given in position order or not, at positions within the key list
        /// and past it, repeated or not, are noted where sorting them first puts them.
        #[test]
        fn held_keys_are_noted_where_sorting_them_puts_them(
            present in 0usize..8,
            positions in prop::collection::vec(0usize..12, 0..7),
            sorted in any::<bool>(),
        ) {
            let record: Map<String, Value> =
                (0..present).map(|i| (format!("k{i}"), Value::from(i))).collect();
            let names: Vec<String> = (0..positions.len()).map(|i| format!("held{i}")).collect();
            let mut positions = positions;
            if sorted {
                positions.sort_unstable();
            }
            let held: Vec<HeldKey<'_>> = names
                .iter()
                .zip(&positions)
                .map(|(key, &position)| HeldKey { key, position, encoding: None })
                .collect();
            let mut notes = Notes::new();
            let importer = Importer::holding("f", record.clone(), &held, &mut notes);
            let (_, source) = importer.into_parts();
            prop_assert_eq!(source.keys, noted_by_sorting(&record, &held));
        }
    }
}
