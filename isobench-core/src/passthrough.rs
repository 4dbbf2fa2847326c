//! Bulk values passed from an input record to the output as the JSON text they were
//! read as, without being decoded and encoded again.
//!
//! Patches, issue texts and test lists make up most of a benchmark record, and most
//! adapters only move them from one key to another. Each adapter says where its records
//! hold such a field and whether it moves it unread (a [`Place`] per field, which the
//! host keeps with the adapter: [`Registered::places`]; a [`crate::table::Table`]
//! derives them from the fields it maps straight across). A conversion pairs the places
//! of its two formats into [`Route`]s, from an input key to where the output holds the
//! field.
//!
//! A reader then leaves a routed value undecoded and its key out of the record: the
//! side table [`Held`] keeps the value's text, where the key stood among the record's
//! keys and, for a list, its encoding. Import notes the key for the round trip as if its
//! value were there ([`Registered::import_holding`]) and the canonical record names the
//! field as held ([`crate::CanonicalRecord::held`]); no adapter or hook sees a value in
//! its place. The writer ([`write_object_holding`]) writes each text at the route's
//! output path and at the index the target would have given the key
//! ([`Registered::place_held`]).
//!
//! A value passes only when its text is exactly what the writer would write for it
//! ([`is_written_as_is`], [`is_list_written_as_is`]), so the output is the same, byte
//! for byte, as with the value decoded and encoded again. A list held as a string
//! (JSON-encoded) passes too, rewritten as the array the writer would write
//! ([`transcode_list`]) without decoding its items; import notes the encoding it was
//! read in.
//!
//! [`Registered::places`]: crate::registry::Registered::places
//! [`Registered::import_holding`]: crate::registry::Registered::import_holding
//! [`Registered::place_held`]: crate::registry::Registered::place_held

use std::ops::Range;

use serde_json::{Map, Value};

use crate::codec::{Encoding, JsonStyle};
use crate::contract::HeldValue;
use crate::jsonwrite;

/// The canonical fields that may pass at all: the bulk of a record (patches, texts,
/// test lists), which nothing between import and export reads. A [`crate::table::Table`]
/// passes such a field when it maps it straight across; an identifier or a commit, which
/// the pipeline and hooks read, never passes.
pub const BULK_FIELDS: [&str; 7] = [
    "patch",
    "test_patch",
    "gt_commit_message",
    "extensions.problem_statement",
    "extensions.hints_text",
    "extensions.fail_to_pass",
    "extensions.pass_to_pass",
];

/// The canonical fields holding a list of strings that may pass as a whole: nothing
/// between import and export counts their items (`efficiency_test`'s length is checked
/// against `duration_changes`', so it does not pass).
const LIST_FIELDS: [&str; 2] = ["extensions.fail_to_pass", "extensions.pass_to_pass"];

/// Whether the canonical `field` holds a list of strings: a passed value of it is a
/// list's text, not a string's.
pub fn is_list_field(field: &str) -> bool {
    LIST_FIELDS.contains(&field)
}

/// Where a format's records hold a bulk field ([`BULK_FIELDS`]) that its adapter moves
/// unread, and which ways.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// The canonical field.
    pub field: String,
    /// The keys that lead to the value in a record of the format, from the top.
    pub path: Vec<String>,
    /// Whether import moves the value, unread, from there into the field: a string, or
    /// for a list field ([`is_list_field`]) an array or a string holding a list, which
    /// import decodes with [`crate::codec::decode_list`] and whose items it moves. The
    /// reader passes top-level keys only.
    pub import: bool,
    /// Whether export writes the field's value there unread: a string, or an array for
    /// a list field.
    pub export: bool,
}

impl Place {
    /// A top-level `key` holding `field`, moved unread both ways.
    pub fn both_ways(key: &str, field: &str) -> Self {
        Self {
            field: field.to_owned(),
            path: vec![key.to_owned()],
            import: true,
            export: true,
        }
    }
}

/// How a value passes in one conversion: from an input key to where the output holds
/// it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Route<'a> {
    /// The input key.
    pub key: &'a str,
    /// The canonical field.
    pub field: &'a str,
    /// Whether the value is a list of strings.
    pub list: bool,
    /// Whether a list may come as a string holding a JSON-encoded list, rewritten as the
    /// array the output holds. Not between two records of one format: export writes a
    /// list in the encoding import read it in.
    pub encoded: bool,
    /// Where the output holds it, from the top.
    pub path: &'a [String],
}

/// The routes of a conversion between two formats, given where each holds its bulk
/// fields (`from`'s places and `to`'s) and whether they are one format: the bulk fields
/// ([`BULK_FIELDS`]) `from` moves unread from a top-level key that `to` writes unread.
/// Never another field, whatever the places say: the conversion reads the
/// `instance_id` (repeated ids, rejected records), and `--set` templates read any other.
pub fn routes<'a>(from: &'a [Place], to: &'a [Place], same_format: bool) -> Vec<Route<'a>> {
    from.iter()
        .filter(|place| place.import && BULK_FIELDS.contains(&place.field.as_str()))
        .filter_map(|place| {
            let [key] = place.path.as_slice() else {
                return None;
            };
            let out = to
                .iter()
                .find(|out| out.export && out.field == place.field)?;
            let list = is_list_field(&place.field);
            Some(Route {
                key,
                field: &place.field,
                list,
                encoded: list && !same_format,
                path: &out.path,
            })
        })
        .collect()
}

/// The index each held key takes among an object's entries once written, given the
/// ranks of the entries the object holds, in order, and of the held keys (a key of a
/// lower rank comes first; an object's entries are in rank order). Of held keys of one
/// rank, the earlier comes first.
pub fn indices(
    present: impl Iterator<Item = usize>,
    held: impl Iterator<Item = usize> + Clone,
) -> Vec<usize> {
    let present: Vec<usize> = present.collect();
    let ranks: Vec<usize> = held.collect();
    ranks
        .iter()
        .enumerate()
        .map(|(i, &rank)| {
            present.iter().filter(|&&r| r < rank).count()
                + ranks
                    .iter()
                    .enumerate()
                    .filter(|&(j, &r)| r < rank || (r == rank && j < i))
                    .count()
        })
        .collect()
}

/// A held text as the writer takes it: where in the output it goes, and the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placed<'a> {
    /// The keys that lead to it, from the top.
    pub path: &'a [String],
    /// Its index among the entries of the object that holds it, once written.
    pub at: usize,
    /// The JSON text of the value.
    pub text: &'a [u8],
}

/// Appends `map` as [`JsonStyle::write_object`] does, with each held text of `held`
/// written as the entry at its path and index; a text whose object `map` lacks (an
/// extension of a record written without `extensions`) is not written.
pub fn write_object_holding(
    style: JsonStyle,
    out: &mut Vec<u8>,
    map: &Map<String, Value>,
    held: &[Placed<'_>],
) {
    object_holding(out, map, style.writer(), held);
}

/// An entry of an object written with held texts placed in it ([`each_entry_holding`]).
#[derive(Debug, Clone, PartialEq)]
pub enum EntryHolding<'m, 't> {
    /// The held text of this index of the texts given, written as it is.
    Held(usize, &'t [u8]),
    /// A value of the object, with the held texts to place inside it (their paths from
    /// the value down): written by [`write_value_holding`].
    Value(&'m Value, Vec<Placed<'t>>),
}

/// Calls `each` with the key and the value of every entry [`write_object_holding`]
/// writes for `map` and `held`, in the order it writes them: `map`'s entries, with each
/// held text of a top-level path at its index (those placed past the last entry at the
/// end, in order). Stops at the first `None` of `each`, and gives it.
pub fn each_entry_holding<'m, 't>(
    map: &'m Map<String, Value>,
    held: &[Placed<'t>],
    mut each: impl FnMut(&str, EntryHolding<'m, 't>) -> Option<()>,
) -> Option<()> {
    let mut here: Vec<(usize, &'t String, usize)> = held
        .iter()
        .enumerate()
        .filter_map(|(i, p)| match p.path {
            [key] => Some((p.at, key, i)),
            _ => None,
        })
        .collect();
    here.sort_by_key(|(at, ..)| *at);
    let mut here = here.into_iter().peekable();
    let mut entries = map.iter();
    let mut written = 0;
    loop {
        // A held text goes at its index; those placed past the last entry, at the end,
        // in order.
        if let Some((_, key, i)) = here.next_if(|(at, ..)| *at <= written || entries.len() == 0) {
            written += 1;
            each(key, EntryHolding::Held(i, held[i].text))?;
            continue;
        }
        let Some((key, item)) = entries.next() else {
            return Some(());
        };
        written += 1;
        let inner: Vec<Placed<'t>> = held
            .iter()
            .filter(|p| p.path.len() > 1 && p.path[0] == *key)
            .map(|p| Placed {
                path: &p.path[1..],
                ..*p
            })
            .collect();
        each(key, EntryHolding::Value(item, inner))?;
    }
}

/// Appends `value` as [`JsonStyle::write_value`] does, with the held texts of `inner`
/// (paths from `value` down) placed in it as [`write_object_holding`] places them.
pub fn write_value_holding(
    style: JsonStyle,
    out: &mut Vec<u8>,
    value: &Value,
    inner: &[Placed<'_>],
) {
    value_holding(out, value, style.writer(), inner);
}

fn value_holding(out: &mut Vec<u8>, value: &Value, style: jsonwrite::Style, inner: &[Placed<'_>]) {
    match value {
        Value::Object(object) if !inner.is_empty() => object_holding(out, object, style, inner),
        _ => jsonwrite::value(out, value, style),
    }
}

fn object_holding(
    out: &mut Vec<u8>,
    map: &Map<String, Value>,
    style: jsonwrite::Style,
    held: &[Placed<'_>],
) {
    out.push(b'{');
    let mut first = true;
    each_entry_holding(map, held, |key, entry| {
        if !first {
            jsonwrite::separator(out, b',', style.spaced);
        }
        first = false;
        jsonwrite::text(out, key, style);
        jsonwrite::separator(out, b':', style.spaced);
        match entry {
            EntryHolding::Held(_, text) => out.extend_from_slice(text),
            EntryHolding::Value(item, inner) => value_holding(out, item, style, &inner),
        }
        Some(())
    });
    out.push(b'}');
}

/// What import needs to know of a key whose value the reader held: where the key
/// stood among the record's keys, and for a list, the encoding it came in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeldKey<'a> {
    /// The key.
    pub key: &'a str,
    /// Its index among the record's keys.
    pub position: usize,
    /// For a list, how it was stored: an array, or a string in JSON's encoding.
    pub encoding: Option<Encoding>,
}

/// The values a record's reader held instead of decoding them, by route: each one's
/// text (a range of the record's JSON text, or a text the reader made from it: a
/// JSON-encoded list rewritten as an array), where its key stood, and a list's
/// encoding. The record itself lacks those keys.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Held {
    entries: Vec<Option<Entry>>,
    made: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    /// Whether the text is in `made` (else in the record's text).
    made: bool,
    /// Whether the text is a string's own bytes, not its JSON text
    /// ([`Held::hold_string_raw`]).
    raw: bool,
    range: Range<usize>,
    position: usize,
    encoding: Option<Encoding>,
}

impl Held {
    /// Forgets every text, keeping the memory, for the next record.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.made.clear();
    }

    /// Whether no value is held.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether the `route`-th route's value is held.
    pub fn holds(&self, route: usize) -> bool {
        matches!(self.entries.get(route), Some(Some(_)))
    }

    /// How many values are held.
    pub fn len(&self) -> usize {
        self.entries.iter().flatten().count()
    }

    fn keep(&mut self, route: usize, entry: Entry) {
        if self.entries.len() <= route {
            self.entries.resize(route + 1, None);
        }
        self.entries[route] = Some(entry);
    }

    /// Holds the string at `range` of the record's text for `route`, under the
    /// `position`-th key of the record.
    pub fn hold_string(&mut self, route: usize, range: Range<usize>, position: usize) {
        self.keep(
            route,
            Entry {
                made: false,
                raw: false,
                range,
                position,
                encoding: None,
            },
        );
    }

    /// Holds the array of strings at `range` of the record's text for `route`, under the
    /// `position`-th key of the record.
    pub fn hold_array(&mut self, route: usize, range: Range<usize>, position: usize) {
        self.keep(
            route,
            Entry {
                made: false,
                raw: false,
                range,
                position,
                encoding: Some(Encoding::Native),
            },
        );
    }

    /// Holds `token`, a string holding a JSON-encoded list under the `position`-th key
    /// of the record, as the array [`transcode_list`] makes of it for an output in
    /// `style`, for `route`; `false` when the list cannot pass, and nothing is held.
    pub fn hold_encoded_list(
        &mut self,
        route: usize,
        token: &[u8],
        style: JsonStyle,
        position: usize,
    ) -> bool {
        let start = self.made.len();
        let Some(encoding) = transcode_list(token, style, &mut self.made) else {
            self.made.truncate(start);
            return false;
        };
        self.keep_made(route, start, position, Some(encoding));
        true
    }

    /// Holds `text`, the JSON text of a value its caller holds outside any record text
    /// (a host of records in memory that keeps the value itself), for `route`, under the
    /// `position`-th key of the record; `encoding` as import is to note it: for a list,
    /// how it was stored, `None` for a string.
    pub fn hold_text(
        &mut self,
        route: usize,
        text: &[u8],
        position: usize,
        encoding: Option<Encoding>,
    ) {
        let start = self.made.len();
        self.made.extend_from_slice(text);
        self.keep_made(route, start, position, encoding);
    }

    /// Holds the string `value`, a value its caller reads outside any JSON text (a
    /// cell of a column), for `route`, under the `position`-th key of the record: its
    /// JSON text as the writer writes it in `style`, written straight into the texts
    /// this holds.
    pub fn hold_string_value(
        &mut self,
        route: usize,
        value: &str,
        style: JsonStyle,
        position: usize,
    ) {
        let start = self.made.len();
        jsonwrite::text(&mut self.made, value, style.writer());
        self.keep_made(route, start, position, None);
    }

    /// Holds the string `value`, a value its caller reads outside any JSON text (a cell
    /// of a column), for `route`, under the `position`-th key of the record, as its own
    /// bytes rather than its JSON text: for a writer that lays it as it is (a string
    /// column of a Parquet output), which asks [`Self::is_raw`]. [`Self::text`] gives
    /// those bytes, [`Self::escape_raw`] makes them the JSON text
    /// [`Self::hold_string_value`] holds.
    pub fn hold_string_raw(&mut self, route: usize, value: &str, position: usize) {
        let start = self.made.len();
        self.made.extend_from_slice(value.as_bytes());
        self.keep_made(route, start, position, None);
        if let Some(Some(entry)) = self.entries.get_mut(route) {
            entry.raw = true;
        }
    }

    /// Whether the `route`-th route's value is held as a string's own bytes
    /// ([`Self::hold_string_raw`]).
    pub fn is_raw(&self, route: usize) -> bool {
        matches!(self.entries.get(route), Some(Some(entry)) if entry.raw)
    }

    /// Whether any value is held as a string's own bytes ([`Self::hold_string_raw`]).
    pub fn any_raw(&self) -> bool {
        self.entries.iter().flatten().any(|e| e.raw)
    }

    /// Rewrites each value held as a string's own bytes as its JSON text in `style`, as
    /// [`Self::hold_string_value`] would have held it.
    pub fn escape_raw(&mut self, style: JsonStyle) {
        for route in 0..self.entries.len() {
            let Some(Some(entry)) = self.entries.get(route) else {
                continue;
            };
            if !entry.raw {
                continue;
            }
            let (range, position) = (entry.range.clone(), entry.position);
            let value = std::str::from_utf8(&self.made[range])
                .expect("a string held as its bytes")
                .to_owned();
            self.hold_string_value(route, &value, style, position);
        }
    }

    /// Holds `list`, the value of a string holding a JSON-encoded list that its caller
    /// reads outside any JSON text (a cell of a column), for `route`, under the
    /// `position`-th key of the record, as the array [`Self::hold_encoded_list`] makes of
    /// the string's JSON text for an output in `style`; `false` when the list cannot pass
    /// ([`encoded_list_encoding`], or characters an ASCII output writes as `\uXXXX`: DEL
    /// and any beyond ASCII), and nothing is held.
    ///
    /// A list with the separator of `style` is the array as it is; in one with the other
    /// separator every item is written as the writer writes it (checked by the same walk
    /// of the items that writes the array, as [`encoded_list_encoding`] checks it), so
    /// the array is the same items' texts between `style`'s separators.
    pub fn hold_list_value(
        &mut self,
        route: usize,
        list: &str,
        style: JsonStyle,
        position: usize,
    ) -> bool {
        let Some((read, encoding)) = list_style(list.as_bytes()) else {
            return false;
        };
        if style.is_ascii() && jsonwrite::has_ascii_escapes(list.as_bytes()) {
            return false;
        }
        let start = self.made.len();
        // One walk of the items checks the list and, with the other separator, writes it.
        let whole = if read.is_spaced() == style.is_spaced() {
            let whole = is_list_written_as_is(list.as_bytes(), read);
            if whole {
                self.made.extend_from_slice(list.as_bytes());
            }
            whole
        } else {
            let made = &mut self.made;
            made.push(b'[');
            let whole = each_written_item(list.as_bytes(), read, |item| {
                if made.len() > start + 1 {
                    push_separator(made, style);
                }
                made.extend_from_slice(item);
            });
            made.push(b']');
            whole
        };
        if !whole {
            self.made.truncate(start);
            return false;
        }
        self.keep_made(route, start, position, Some(encoding));
        true
    }

    /// Holds the string `text` starts with, when it holds a JSON-encoded list that
    /// passes, under the `position`-th key of the record, as [`Self::hold_encoded_list`]
    /// holds it, for `route`; gives the string's length, found in the same pass
    /// ([`transcode_list_at`]). `None` when this pass cannot tell (the string may still be
    /// a list that passes, or no string at all), and nothing is held.
    pub fn hold_encoded_list_at(
        &mut self,
        route: usize,
        text: &[u8],
        style: JsonStyle,
        position: usize,
    ) -> Option<usize> {
        let start = self.made.len();
        let Some((length, encoding)) = transcode_list_at(text, style, &mut self.made) else {
            self.made.truncate(start);
            return None;
        };
        self.keep_made(route, start, position, Some(encoding));
        Some(length)
    }

    /// Holds for `route` the text the reader made from `start` on (to the end of what
    /// it has made), under the `position`-th key of the record.
    fn keep_made(
        &mut self,
        route: usize,
        start: usize,
        position: usize,
        encoding: Option<Encoding>,
    ) {
        let range = start..self.made.len();
        self.keep(
            route,
            Entry {
                made: true,
                raw: false,
                range,
                position,
                encoding,
            },
        );
    }

    /// Whether the reader made any of the texts (a JSON-encoded list rewritten as the
    /// array the writer writes), rather than each being a range of the record's text.
    pub fn any_made(&self) -> bool {
        self.entries.iter().flatten().any(|e| e.made)
    }

    /// The text held for the `route`-th route, for `text`, the record's JSON text: JSON
    /// text, or a string's own bytes for a value held so ([`Self::is_raw`]).
    pub fn text<'a>(&'a self, text: &'a [u8], route: usize) -> Option<&'a [u8]> {
        let entry = self.entries.get(route)?.as_ref()?;
        Some(if entry.made {
            &self.made[entry.range.clone()]
        } else {
            &text[entry.range.clone()]
        })
    }

    /// The keys held, with what import needs to know of each, for `routes`, the
    /// conversion's routes.
    pub fn keys<'a>(&self, routes: &[Route<'a>]) -> Vec<HeldKey<'a>> {
        // Sized for every route at once: collected from a filter, the vector started
        // at four and was grown again for a record of more held values.
        let mut keys = Vec::with_capacity(self.entries.len());
        keys.extend(
            self.entries
                .iter()
                .zip(routes)
                .filter_map(|(entry, route)| {
                    let entry = entry.as_ref()?;
                    Some(HeldKey {
                        key: route.key,
                        position: entry.position,
                        encoding: entry.encoding,
                    })
                }),
        );
        keys
    }

    /// The text held for the output key `key` (keys joined by `/`, as a
    /// [`crate::Contract`] names them), for `routes`, the conversion's routes, and
    /// `text`, the record's JSON text.
    pub fn at_key<'a>(
        &'a self,
        routes: &[Route<'_>],
        text: &'a [u8],
        key: &str,
    ) -> Option<&'a [u8]> {
        self.text(text, route_at_key(routes, key)?)
    }

    /// The value held for the output key `key`, as [`Self::at_key`] finds it: its JSON
    /// text, or the string a value held as its own bytes is
    /// ([`Self::hold_string_raw`]).
    pub fn value_at_key<'a>(
        &'a self,
        routes: &[Route<'_>],
        text: &'a [u8],
        key: &str,
    ) -> Option<HeldValue<'a>> {
        let route = route_at_key(routes, key)?;
        let held = self.text(text, route)?;
        Some(if self.is_raw(route) {
            HeldValue::Str(std::str::from_utf8(held).expect("a string held as its bytes"))
        } else {
            HeldValue::Text(held)
        })
    }
}

/// The index of the route of `routes` whose output path is `key` (keys joined by `/`).
fn route_at_key(routes: &[Route<'_>], key: &str) -> Option<usize> {
    routes
        .iter()
        .position(|route| key.split('/').eq(route.path.iter().map(String::as_str)))
}

/// Rewrites `token`, the text of a JSON string (valid JSON) holding a JSON-encoded
/// list of strings, as the array the writer writes for that list in `style`, onto
/// `out`, without decoding the items; gives the list's [`Encoding`] as
/// [`crate::codec::decode_list`] tells it. Only a list that decoding would call
/// reproducible (the same separator throughout, no other spaces) passes, and only when
/// every item is written in the list as the writer writes it: once the outer string's
/// `\\` and `\"` are undone, an item's escapes are those [`written_string_length`]
/// accepts, so its text goes to the array as it is. For any other, `None`, and `out`
/// may hold a part of the array.
pub fn transcode_list(token: &[u8], style: JsonStyle, out: &mut Vec<u8>) -> Option<Encoding> {
    // In a valid string token the first `]"` after an item is the token's end: the
    // one-pass reading is this one, given that it reads the whole token.
    let (length, encoding) = transcode_list_at(token, style, out)?;
    (length == token.len()).then_some(encoding)
}

/// The [`Encoding`] in which a string whose value is `list`, the text of a
/// JSON-encoded list, passes: what [`transcode_list`] gives for the string's JSON text
/// as the writer writes it, for a caller that holds the string's value rather than its
/// text. `Some` when `list` is an array of strings exactly as the writer writes it with
/// one separator throughout ([`is_list_written_as_is`]), which
/// [`crate::codec::decode_list`] reads back exactly, in this encoding; `None` for any
/// other list, which decoding reads (or refuses) itself.
pub fn encoded_list_encoding(list: &[u8]) -> Option<Encoding> {
    let (style, encoding) = list_style(list)?;
    is_list_written_as_is(list, style).then_some(encoding)
}

/// The style, and the [`Encoding`], that `list`, the text of a JSON-encoded list, would
/// be written in if [`is_list_written_as_is`] in that style: the separator after the
/// first item tells it (`["a", "b"]` is spaced; a list of one item or none, compact).
/// `None` when `list` does not start as an array.
fn list_style(list: &[u8]) -> Option<(JsonStyle, Encoding)> {
    let first = list.strip_prefix(b"[")?;
    let spaced = string_length(first).is_some_and(|n| first.get(n..n + 2) == Some(b", "));
    Some(if spaced {
        (JsonStyle::Spaced, Encoding::JsonSpaced)
    } else {
        (JsonStyle::Compact, Encoding::Json)
    })
}

/// Reads the JSON string `text` starts with as [`transcode_list`] reads a string token,
/// in one pass that also finds the string's end: the string's length and the list's
/// encoding, or `None` when this pass cannot tell, and `out` may hold a part of the
/// array.
///
/// Given the length, it is the length [`written_string_length`] gives, so that the
/// list is read once, not once to find the string's end and again to rewrite it (most
/// of a record's bytes, in SWE-bench's test lists). The text need
/// not be a valid string: the list's items are read up to each backslash with
/// [`jsonwrite::next_escape`], which stops at a quote or control character too, and
/// every other byte is matched as the writer writes it. It gives up on a string that
/// reads as a list but not as a list the writer writes (a `\/`, an item's `\u0041`),
/// which [`written_string_length`] then reads.
pub fn transcode_list_at(
    text: &[u8],
    style: JsonStyle,
    out: &mut Vec<u8>,
) -> Option<(usize, Encoding)> {
    let mut rest = text.strip_prefix(b"\"[")?;
    out.push(b'[');
    let mut spaced: Option<bool> = None;
    let mut first = true;
    loop {
        // The list ends, and the string with it; or the next item, after the
        // separator.
        if let [b']', b'"', ..] = rest {
            rest = &rest[2..];
            break;
        }
        if !first {
            let (found, after) = match rest {
                [b',', b' ', after @ ..] => (true, after),
                [b',', after @ ..] => (false, after),
                _ => return None,
            };
            rest = after;
            if *spaced.get_or_insert(found) != found {
                return None;
            }
            push_separator(out, style);
        }
        first = false;
        let [b'\\', b'"', item @ ..] = rest else {
            return None;
        };
        let mut item = item;
        out.push(b'"');
        loop {
            // Up to a backslash; a quote or a control character first gives up.
            let end = jsonwrite::next_escape(item)?;
            out.extend_from_slice(&item[..end]);
            let escape = &item[end..];
            let length = match *escape {
                [b'\\', b'"', ..] => {
                    rest = &escape[2..];
                    break;
                }
                [b'\\', b'\\', b'\\', b'"' | b'\\', ..] => {
                    out.extend_from_slice(&[b'\\', escape[3]]);
                    4
                }
                [b'\\', b'\\', b'b' | b'f' | b'n' | b'r' | b't', ..] => {
                    out.extend_from_slice(&escape[1..3]);
                    3
                }
                [b'\\', b'\\', b'u', b'0', b'0', high, low, ..]
                    if is_written_control(high, low) =>
                {
                    out.extend_from_slice(&escape[1..7]);
                    7
                }
                _ => return None,
            };
            item = &escape[length..];
        }
        out.push(b'"');
    }
    out.push(b']');
    let encoding = if spaced == Some(true) {
        Encoding::JsonSpaced
    } else {
        Encoding::Json
    };
    Some((text.len() - rest.len(), encoding))
}

/// Whether `token`, the text of a JSON array, is an array of strings exactly as the
/// writer writes it in `style`: no spaces but the style's separators, every string
/// [`is_written_as_is`]. Of UTF-8 text not known to be valid JSON, `true` still says it
/// is valid.
pub fn is_list_written_as_is(token: &[u8], style: JsonStyle) -> bool {
    each_written_item(token, style, |_| {})
}

/// Calls `each` with the text of every string of `token`, in order, as
/// [`is_list_written_as_is`] walks them; whether `token` is such a list (`each` may have
/// been called for a part of it when it is not).
fn each_written_item(token: &[u8], style: JsonStyle, mut each: impl FnMut(&[u8])) -> bool {
    let separator = item_separator(style);
    let Some(mut rest) = token.strip_prefix(b"[").and_then(|t| t.strip_suffix(b"]")) else {
        return false;
    };
    let mut first = true;
    while !rest.is_empty() {
        if !first {
            let Some(after) = rest.strip_prefix(separator) else {
                return false;
            };
            rest = after;
        }
        first = false;
        // One pass: the string's end, found only when it is written as it is.
        let Some(length) = written_string_length(rest) else {
            return false;
        };
        each(&rest[..length]);
        rest = &rest[length..];
    }
    true
}

/// What the writer puts between the items of an array in `style`.
fn item_separator(style: JsonStyle) -> &'static [u8] {
    if style.is_spaced() { b", " } else { b"," }
}

/// Writes [`item_separator`] for `style` onto `out`, a byte at a time: once per item of
/// a list, where a copy call for one or two bytes costs more than the bytes.
fn push_separator(out: &mut Vec<u8>, style: JsonStyle) {
    out.push(b',');
    if style.is_spaced() {
        out.push(b' ');
    }
}

/// The length of the JSON string `text` starts with, quotes included, found without
/// checking the string; `None` when `text` does not start with one or it is cut short.
pub fn string_length(text: &[u8]) -> Option<usize> {
    if text.first() != Some(&b'"') {
        return None;
    }
    let mut at = 1;
    loop {
        at += memchr::memchr2(b'"', b'\\', text.get(at..)?)?;
        if text[at] == b'"' {
            return Some(at + 1);
        }
        at += 2;
    }
}

/// Whether `token`, the text of a JSON string with its quotes, valid JSON and UTF-8,
/// is exactly what the writer writes for the string it decodes to: every escape is
/// one the writer would make (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, or `\u00xx` in
/// lower case for another control character), and nothing is escaped that the writer
/// writes as it is (`\/`, `\u` escapes of other characters).
///
/// Of a UTF-8 token not known to be valid JSON, `true` still says it is valid: a
/// control character, a bare quote or an escape the writer does not make inside
/// give `false`.
pub fn is_written_as_is(token: &[u8]) -> bool {
    written_string_length(token) == Some(token.len())
}

/// The length, quotes included, of the JSON string `text` starts with when it holds no
/// escape nor control character, so that the text between its quotes is the string
/// itself; `None` otherwise, or when `text` does not start with a string. What
/// [`written_string_length`] gives of a string without `\`, found by one search for
/// the first byte that needs an escape.
pub fn plain_string_length(text: &[u8]) -> Option<usize> {
    if text.first() != Some(&b'"') {
        return None;
    }
    let end = 1 + jsonwrite::next_escape(&text[1..])?;
    (text[end] == b'"').then_some(end + 1)
}

/// The length, quotes included, of the JSON string `text` starts with, when the writer
/// writes it as it is ([`is_written_as_is`]); `None` when it would not, or when `text`
/// does not start with a string. One pass, 64 bytes a step ([`jsonwrite::Escapes`]). Of
/// UTF-8 text not known to be valid JSON, a length still says the string is valid.
pub fn written_string_length(text: &[u8]) -> Option<usize> {
    if text.first() != Some(&b'"') {
        return None;
    }
    let mut escapes = jsonwrite::Escapes::new(text);
    let mut at = 1;
    loop {
        at = escapes.next(at)?;
        match *text.get(at..)? {
            [b'"', ..] => return Some(at + 1),
            [b'\\', b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't', ..] => at += 2,
            [b'\\', b'u', b'0', b'0', high, low, ..] if is_written_control(high, low) => at += 6,
            // A control character, or an escape the writer does not make.
            _ => return None,
        }
    }
}

/// Whether `\u00` followed by `high` and `low` is how the writer writes a control
/// character: lower-case hex, and only for those without a short escape (`\b \t \n \f
/// \r`).
fn is_written_control(high: u8, low: u8) -> bool {
    matches!(high, b'0' | b'1')
        && matches!(low, b'0'..=b'9' | b'a'..=b'f')
        && !(high == b'0' && matches!(low, b'8' | b'9' | b'a' | b'c' | b'd'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Strategy as _;

    /// The rule the fast check must agree with: decode, encode, compare.
    fn round_trips(token: &[u8]) -> bool {
        let decoded: String = serde_json::from_slice(token).expect("valid token");
        serde_json::to_vec(&decoded).expect("in memory") == token
    }

    #[test]
    fn the_check_agrees_with_decoding_and_encoding_again() {
        let mut tokens: Vec<String> = vec![
            r#""""#.into(),
            r#""plain text""#.into(),
            r#""a\/b""#.into(),
            r#""\u00e9""#.into(),
            "\"é 中 \u{7f}\"".into(),
            r#""\ud83d\ude00""#.into(),
            r#""\u001F""#.into(),
            r#""\u001f""#.into(),
            r#""\u0000\u0001\u000b\u000e\u0010\u001f""#.into(),
            r#""\"\\\b\f\n\r\t""#.into(),
            r#""\u0022""#.into(),
            r#""\u005c""#.into(),
            r#""\u0020""#.into(),
            r#""\u007f""#.into(),
        ];
        // Every control character, as `\u00xx` and as its short form where it has one.
        for byte in 0..0x20_u8 {
            tokens.push(format!("\"x\\u{byte:04x}y\""));
            tokens.push(format!("\"\\u{byte:04X}\""));
        }
        for short in ['b', 'f', 'n', 'r', 't', '"', '\\', '/'] {
            tokens.push(format!("\"{}\\{short}\"", "a".repeat(9)));
        }
        for token in &tokens {
            assert_eq!(
                is_written_as_is(token.as_bytes()),
                round_trips(token.as_bytes()),
                "{token}"
            );
        }
    }

    #[test]
    fn the_check_refuses_what_is_not_a_json_string() {
        for token in [
            "\"a\"b\"",
            "\"a\u{1}b\"",
            "\"a\nb\"",
            "\"\\\"",
            "\"",
            "\"\\x\"",
            "\"\\u00zz\"",
            "a\"",
            "\"a",
        ] {
            assert!(!is_written_as_is(token.as_bytes()), "{token:?}");
            assert!(
                written_string_length(token.as_bytes()).is_none_or(|l| l < token.len()),
                "{token:?}"
            );
        }
        for list in [
            "[\"a\" \"b\"]",
            "[\"a\u{1}\"]",
            "[\"a\",]",
            "[,\"a\"]",
            "[\"a\"]]",
            "[\"a\\\"]",
            "[\"a\",\"b\"",
            "[1]",
        ] {
            for style in [JsonStyle::Compact, JsonStyle::Spaced] {
                assert!(!is_list_written_as_is(list.as_bytes(), style), "{list:?}");
            }
        }
    }

    #[test]
    fn texts_placed_past_the_last_entry_are_written_last_in_order() {
        let map = serde_json::json!({"a": 1, "b": 2});
        let (x, y) = (vec!["x".to_owned()], vec!["y".to_owned()]);
        let held = [
            Placed {
                path: &y,
                at: 9,
                text: b"\"y\"",
            },
            Placed {
                path: &x,
                at: 5,
                text: b"\"x\"",
            },
        ];
        let mut out = Vec::new();
        write_object_holding(
            JsonStyle::Compact,
            &mut out,
            map.as_object().expect("object"),
            &held,
        );
        assert_eq!(
            String::from_utf8_lossy(&out),
            r#"{"a":1,"b":2,"x":"x","y":"y"}"#
        );
    }

    #[test]
    fn held_texts_are_written_at_their_paths_and_indices() {
        use serde_json::json;
        let decoded = json!({
            "a": 1,
            "patch": "line\n\"quoted\"",
            "extensions": {"x": 0, "texts": ["é", "line"], "other": {"texts": "kept"}, "n": 1},
            "last": "l",
            "end": "e",
        });
        // The record without the held keys.
        let holding = json!({
            "a": 1,
            "extensions": {"x": 0, "other": {"texts": "kept"}, "n": 1},
        });
        let (patch, texts, last, end, elsewhere) = (
            vec!["patch".to_owned()],
            vec!["extensions".to_owned(), "texts".to_owned()],
            vec!["last".to_owned()],
            vec!["end".to_owned()],
            vec!["absent".to_owned(), "texts".to_owned()],
        );
        for style in [JsonStyle::Compact, JsonStyle::Spaced] {
            let array = style.to_string(&decoded["extensions"]["texts"]);
            // Given out of order; two past the last entry; one under an object the
            // record lacks, which is not written.
            let held = [
                Placed {
                    path: &end,
                    at: 4,
                    text: br#""e""#,
                },
                Placed {
                    path: &texts,
                    at: 1,
                    text: array.as_bytes(),
                },
                Placed {
                    path: &patch,
                    at: 1,
                    text: br#""line\n\"quoted\"""#,
                },
                Placed {
                    path: &last,
                    at: 3,
                    text: br#""l""#,
                },
                Placed {
                    path: &elsewhere,
                    at: 0,
                    text: br#""x""#,
                },
            ];
            let (mut expected, mut holding_out) = (Vec::new(), Vec::new());
            style.write_object(&mut expected, decoded.as_object().expect("object"));
            write_object_holding(
                style,
                &mut holding_out,
                holding.as_object().expect("object"),
                &held,
            );
            assert_eq!(
                String::from_utf8_lossy(&holding_out),
                String::from_utf8_lossy(&expected)
            );
        }
    }

    #[test]
    fn indices_count_what_comes_before_by_rank() {
        // Entries of ranks 0, 2, 5 and one of no rank; held keys of ranks 1, 6, 3, 1.
        let at = indices([0, 2, 5, usize::MAX].into_iter(), [1, 6, 3, 1].into_iter());
        assert_eq!(at, [1, 6, 4, 2]);
        assert_eq!(indices([].into_iter(), [4, 2].into_iter()), [1, 0]);
    }

    /// JSON-encoded lists at the transcoder's edges, as the texts of the strings that
    /// hold them.
    fn encoded_lists() -> Vec<String> {
        let lists = [
            r#"["a", "b"]"#,
            r#"["a","b"]"#,
            r#"["a"]"#,
            "[]",
            r#"[""]"#,
            r#"["", ""]"#,
            r#"["a, b", "c,d"]"#,
            r#"["a,b", "c"]"#,
            r#"["test_x[1, 2]", "t::u"]"#,
            r#"["é 中", "\u00e9"]"#,
            r#"["tab\there", "q\"uote", "back\\slash"]"#,
            r#"["a\/b"]"#,
            r#"["a", "b","c"]"#,
            r#"["a" , "b"]"#,
            r#"[ "a"]"#,
            r#"["a"] "#,
            r#"["a",  "b"]"#,
            r#"["a",]"#,
            "['a', 'b']",
            "[1, 2]",
            r#"["a", 2]"#,
            r#"["a", null]"#,
            r#"{"a": "b"}"#,
            r#""[\"nested\"]""#,
            "",
            "plain text",
        ];
        lists
            .iter()
            .map(|l| serde_json::to_string(l).expect("in memory"))
            .chain([
                r#""[\"a\"\u002c \"b\"]""#.to_owned(),
                r#""[\u0022a\u0022]""#.to_owned(),
            ])
            .collect()
    }

    /// How many styles `token` transcodes in; panics unless whatever is transcoded is
    /// what decoding reads, in the same encoding, written again.
    fn transcodes_as_decoded(token: &str) -> usize {
        use crate::codec::decode_list;
        let value: serde_json::Value = serde_json::from_str(token).expect("a JSON string");
        let decoded = decode_list(&value, "/l");
        let mut transcoded = 0;
        for style in [JsonStyle::Compact, JsonStyle::Spaced] {
            let mut out = b"kept".to_vec();
            let Some(encoding) = transcode_list(token.as_bytes(), style, &mut out) else {
                continue;
            };
            transcoded += 1;
            // Only what decoding reads back exactly may pass, in the same encoding.
            let decoded = decoded.as_ref().expect("a list that passes decodes");
            assert!(decoded.reproducible, "{token}");
            assert_eq!(encoding, decoded.encoding, "{token}");
            let mut expected = b"kept".to_vec();
            crate::jsonwrite::strings(
                &mut expected,
                &decoded.items,
                crate::jsonwrite::Style {
                    spaced: style.is_spaced(),
                    ascii: false,
                },
            );
            assert_eq!(
                String::from_utf8_lossy(&out),
                String::from_utf8_lossy(&expected),
                "{token}"
            );
        }
        transcoded
    }

    /// Whether a string whose value is `list` passes, and in which encoding, as
    /// [`encoded_list_encoding`] tells it; panics unless that is what the transcoder
    /// gives for the string's text as the writer writes it, in either style.
    fn passes_as_transcoded(list: &str) -> Option<Encoding> {
        let token = serde_json::to_string(list).expect("in memory");
        let told = encoded_list_encoding(list.as_bytes());
        for style in [JsonStyle::Compact, JsonStyle::Spaced] {
            let transcoded = transcode_list(token.as_bytes(), style, &mut Vec::new());
            assert_eq!(told, transcoded, "{list} {style:?}");
        }
        told
    }

    #[test]
    fn an_encoded_list_held_as_a_value_passes_as_its_text_is_transcoded() {
        let lists: Vec<String> = encoded_lists()
            .iter()
            .map(|token| serde_json::from_str(token).expect("a JSON string"))
            .collect();
        let told: Vec<Option<Encoding>> = lists.iter().map(|l| passes_as_transcoded(l)).collect();
        assert!(told.iter().flatten().count() >= 10, "{told:?}");
        assert!(told.contains(&Some(Encoding::JsonSpaced)) && told.contains(&Some(Encoding::Json)));
        assert!(told.contains(&None));
        let mut held = Held::default();
        held.hold_text(1, br#"["a", "b"]"#, 4, Some(Encoding::JsonSpaced));
        let routes = [Route {
            key: "k",
            field: "extensions.fail_to_pass",
            list: true,
            encoded: true,
            path: &[],
        }; 2];
        assert_eq!(
            held.keys(&routes),
            [HeldKey {
                key: "k",
                position: 4,
                encoding: Some(Encoding::JsonSpaced)
            }]
        );
        assert_eq!(held.text(b"", 1), Some(&br#"["a", "b"]"#[..]));
        assert!(held.any_made() && !held.holds(0));
    }

    /// Holds `list` as a cell's value for an output in `style`: held exactly when
    /// [`encoded_list_encoding`] passes it (and an ASCII output has nothing to escape in
    /// it), as the array the writer writes of its items in `style`, in the encoding
    /// told; else nothing is held. Whether it was held.
    fn holds_list_value_as_its_items(list: &str, style: JsonStyle) -> bool {
        let told = encoded_list_encoding(list.as_bytes())
            .filter(|_| !(style.is_ascii() && jsonwrite::has_ascii_escapes(list.as_bytes())));
        let mut held = Held::default();
        let holds = held.hold_list_value(1, list, style, 3);
        assert_eq!(holds, told.is_some(), "{list} {style:?}");
        if holds {
            let items: Vec<String> = serde_json::from_str(list).expect("a list that passes");
            let mut array = Vec::new();
            jsonwrite::strings(&mut array, &items, style.writer());
            assert_eq!(held.text(b"", 1), Some(&array[..]), "{list} {style:?}");
            let routes = [Route {
                key: "k",
                field: "extensions.fail_to_pass",
                list: true,
                encoded: true,
                path: &[],
            }; 2];
            assert_eq!(held.keys(&routes)[0].encoding, told, "{list} {style:?}");
        } else {
            assert!(!held.any_made() && !held.holds(1), "{list} {style:?}");
        }
        holds
    }

    /// `items` as a list written as `json.dumps` writes it, with either separator,
    /// `ensure_ascii` or not.
    fn written_list(items: &[String], spaced: bool, ascii: bool) -> String {
        let mut list = Vec::new();
        jsonwrite::strings(&mut list, items, jsonwrite::Style { spaced, ascii });
        String::from_utf8(list).expect("the writer writes UTF-8")
    }

    #[test]
    fn a_list_value_is_held_as_the_array_of_its_items() {
        let mut held = 0;
        for token in encoded_lists() {
            let list: String = serde_json::from_str(&token).expect("a JSON string");
            for style in JsonStyle::ALL {
                held += usize::from(holds_list_value_as_its_items(&list, style));
            }
        }
        assert!(held >= 40, "{held}");
    }

    proptest::proptest! {
        /// Lists written as `json.dumps` writes them, either separator, `ensure_ascii` or
        /// not, some with a character inserted (a separator cut, an escape the writer does
        /// not make): held as a value exactly when they pass, as their items' array.
        #[test]
        fn list_values_are_held_when_they_pass(
            items in proptest::collection::vec(
                proptest::string::string_regex("[a-z \"\\\\/\n\t\u{1}\u{7f}é中]{0,6}").expect("a regex"),
                0..4,
            ),
            spaced in proptest::bool::ANY,
            ascii in proptest::bool::ANY,
            inserted in proptest::option::of((proptest::num::usize::ANY, proptest::sample::select(vec![' ', ',', '"', '\\', '/', 'u', '\u{1}']))),
        ) {
            let mut list = written_list(&items, spaced, ascii);
            if let Some((at, c)) = inserted {
                let at = list.char_indices().map(|(i, _)| i).nth(at % list.chars().count()).unwrap_or(0);
                list.insert(at, c);
            }
            for style in JsonStyle::ALL {
                holds_list_value_as_its_items(&list, style);
            }
        }
    }

    #[test]
    fn a_transcoded_list_is_the_decoded_list_written_again() {
        let transcoded: usize = encoded_lists()
            .iter()
            .map(|t| transcodes_as_decoded(t))
            .sum();
        assert!(transcoded >= 20, "{transcoded}");
    }

    #[test]
    fn lists_whose_items_hold_escapes_are_transcoded() {
        for list in [
            r#"["tab\there", "q\"uote", "back\\slash"]"#,
            r#"["c\u001fd", "x\by\fz\r"]"#,
            r#"["test[\"a\", \"b\"]", "p"]"#,
        ] {
            let token = serde_json::to_string(list).expect("in memory");
            assert_eq!(transcodes_as_decoded(&token), 2, "{token}");
        }
    }

    proptest::proptest! {
        /// Lists of items of every kind of character, written as `json.dumps` writes them (either
        /// separator, `ensure_ascii` or not) and JSON-encoded as a string: whatever
        /// the transcoder takes is what decoding reads, and it takes every one written
        /// as the writer writes it.
        #[test]
        fn transcoding_agrees_with_decoding(
            items in proptest::collection::vec(
                proptest::string::string_regex("[a-z \"\\\\/\n\t\u{1}\u{8}\u{1f}\u{7f}é中]{0,8}").expect("a regex"),
                0..4,
            ),
            spaced in proptest::bool::ANY,
            ascii in proptest::bool::ANY,
        ) {
            let list = written_list(&items, spaced, ascii);
            let token = serde_json::to_string(&list).expect("in memory");
            let transcoded = transcodes_as_decoded(&token);
            let written_as_is = !ascii || items.iter().all(|i| !i.bytes().any(|b| b >= 0x7f));
            proptest::prop_assert_eq!(transcoded, if written_as_is { 2 } else { 0 }, "{}", token);
            // Held as the string's value, it passes as its text does.
            let told = passes_as_transcoded(&list);
            proptest::prop_assert_eq!(told.is_some(), written_as_is, "{}", list);
        }
    }

    /// The two passes [`transcode_list_at`] stands for: the string's end, then the
    /// list the string alone holds ([`transcode_list`] of the token, whose arrays the
    /// tests above hold to decoding). One pass must end where the string ends, and read
    /// no further than it.
    fn in_two_passes(text: &[u8], style: JsonStyle) -> Option<(usize, Encoding, Vec<u8>)> {
        let length = written_string_length(text)?;
        let mut out = Vec::new();
        let encoding = transcode_list(&text[..length], style, &mut out)?;
        Some((length, encoding, out))
    }

    fn in_one_pass(text: &[u8], style: JsonStyle) -> Option<(usize, Encoding, Vec<u8>)> {
        let mut out = Vec::new();
        let (length, encoding) = transcode_list_at(text, style, &mut out)?;
        Some((length, encoding, out))
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2048))]

        /// Lists written as `json.dumps` writes them, JSON-encoded as a string, then
        /// bytes of it replaced, inserted or removed, and text after it: one pass reads
        /// what the two passes read, the same length, array and encoding, and gives up
        /// where they do.
        #[test]
        fn one_pass_over_an_encoded_list_reads_what_two_passes_read(
            items in proptest::collection::vec(
                proptest::string::string_regex("[a-z \"\\\\/\n\t\u{1}\u{8}\u{1f}\u{7f}é中\\[\\],]{0,8}").expect("a regex"),
                0..4,
            ),
            spaced in proptest::bool::ANY,
            ascii in proptest::bool::ANY,
            edits in proptest::collection::vec((proptest::num::usize::ANY, 0..4u8, proptest::sample::select(
                br#"\"[], /u0n1fa"#.iter().copied().chain([0x01, 0x1f]).collect::<Vec<u8>>()
            )), 0..3),
            after in proptest::sample::select(vec!["", ", \"k\": 1}", "\"", "]\"", "\\\""]),
        ) {
            let list = written_list(&items, spaced, ascii);
            let mut text = serde_json::to_string(&list).expect("in memory").into_bytes();
            for (at, how, byte) in edits {
                let at = at % (text.len() + 1);
                match how {
                    0 if at < text.len() => text[at] = byte,
                    1 => text.insert(at, byte),
                    2 if at < text.len() => { text.remove(at); }
                    _ => text.truncate(at),
                }
            }
            text.extend_from_slice(after.as_bytes());
            for style in [JsonStyle::Compact, JsonStyle::Spaced] {
                proptest::prop_assert_eq!(
                    in_one_pass(&text, style),
                    in_two_passes(&text, style),
                    "{}",
                    String::from_utf8_lossy(&text)
                );
            }
        }
    }

    /// [`written_string_length`]'s rule a byte at a time: the reference for the
    /// 64-byte search.
    fn written_string_length_by_bytes(text: &[u8]) -> Option<usize> {
        if text.first() != Some(&b'"') {
            return None;
        }
        let mut at = 1;
        loop {
            match *text.get(at..)? {
                [b'"', ..] => return Some(at + 1),
                [b'\\', b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't', ..] => at += 2,
                [b'\\', b'u', b'0', b'0', high, low, ..] if is_written_control(high, low) => {
                    at += 6;
                }
                [byte, ..] if byte >= 0x20 && byte != b'\\' => at += 1,
                _ => return None,
            }
        }
    }

    /// Pieces of a string's text: runs of plain bytes long enough to cross 16- and
    /// 64-byte blocks, quotes, runs of backslashes of every length, every escape the
    /// writer makes and some it does not, control bytes and multi-byte UTF-8.
    fn string_pieces() -> impl proptest::strategy::Strategy<Value = Vec<Vec<u8>>> {
        use proptest::prelude::{Just, prop_oneof};
        let piece = prop_oneof![
            4 => (1..70usize, proptest::sample::select(b"ax /]".to_vec()))
                .prop_map(|(n, b)| vec![b; n]),
            1 => Just(b"\"".to_vec()),
            2 => (1..8usize).prop_map(|n| vec![b'\\'; n]),
            3 => proptest::sample::select(vec![
                "\\\"", "\\\\", "\\b", "\\f", "\\n", "\\r", "\\t", "\\/", "\\u0000",
                "\\u001f", "\\u001F", "\\u0008", "\\u000a", "\\u0041", "\\u00", "\\x",
            ])
            .prop_map(|e| e.as_bytes().to_vec()),
            1 => proptest::sample::select(vec![0x00_u8, 0x01, 0x0a, 0x1f, 0x7f])
                .prop_map(|b| vec![b]),
            1 => proptest::sample::select(vec!["é", "中", "\u{10ffff}", "\u{2028}"])
                .prop_map(|c| c.as_bytes().to_vec()),
        ];
        proptest::collection::vec(piece, 0..24)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]

        /// A string's text after 0 to 70 filler bytes (every alignment against the
        /// 16- and 64-byte blocks), made of [`string_pieces`], then maybe a closing
        /// quote and more text: the 64-byte search gives the length the byte-at-a-time
        /// rule gives, or `None` where it does.
        #[test]
        fn the_written_length_agrees_with_a_byte_at_a_time_reading(
            filler in 0..70usize,
            pieces in string_pieces(),
            close in proptest::bool::ANY,
            after in proptest::sample::select(vec!["", "\"", ", \"k\": \"v\\n\"}", "\\\""]),
        ) {
            let mut text = vec![b'"'];
            text.resize(1 + filler, b'f');
            text.extend(pieces.concat());
            if close {
                text.push(b'"');
            }
            text.extend_from_slice(after.as_bytes());
            proptest::prop_assert_eq!(
                written_string_length(&text),
                written_string_length_by_bytes(&text),
                "{}",
                String::from_utf8_lossy(&text)
            );
            // The same string when it holds no escape.
            let plain = written_string_length_by_bytes(&text)
                .filter(|&length| !text[..length].contains(&b'\\'));
            proptest::prop_assert_eq!(plain_string_length(&text), plain);
        }
    }

    #[test]
    fn one_pass_reads_encoded_lists_at_the_edges_as_two_passes_do() {
        let mut read = 0;
        for token in encoded_lists() {
            for after in ["", "}", ", \"k\": \"v\"}"] {
                let text = format!("{token}{after}");
                for style in [JsonStyle::Compact, JsonStyle::Spaced] {
                    let one = in_one_pass(text.as_bytes(), style);
                    read += usize::from(one.is_some());
                    assert_eq!(one, in_two_passes(text.as_bytes(), style), "{text}");
                }
            }
        }
        assert!(read >= 40, "{read}");
    }

    #[test]
    fn the_list_check_agrees_with_decoding_and_writing_again() {
        let mut arrays: Vec<String> = encoded_lists()
            .iter()
            .filter_map(|token| serde_json::from_str::<String>(token).ok())
            .filter(|text| {
                serde_json::from_str::<serde_json::Value>(text).is_ok_and(|v| v.is_array())
            })
            .collect();
        arrays.extend([r#"["\u00e9"]"#, r#"["a\u001fb"]"#, r#"["x\u001Fy"]"#].map(str::to_owned));
        let mut passed = 0;
        for text in &arrays {
            let value: serde_json::Value = serde_json::from_str(text).expect("an array");
            for style in [JsonStyle::Compact, JsonStyle::Spaced] {
                let written = style.to_string(&value);
                let expected = value
                    .as_array()
                    .is_some_and(|items| items.iter().all(serde_json::Value::is_string))
                    && written == *text;
                assert_eq!(
                    is_list_written_as_is(text.as_bytes(), style),
                    expected,
                    "{text} {style:?}"
                );
                passed += usize::from(expected);
            }
        }
        assert!(passed >= 6, "{passed}");
    }

    #[test]
    fn an_encoded_list_is_held_with_its_encoding() {
        use crate::codec::decode_list;
        let mut passed = 0;
        for token in encoded_lists() {
            let mut held = Held::default();
            if !held.hold_encoded_list(3, token.as_bytes(), JsonStyle::Spaced, 7) {
                assert!(held.is_empty(), "{token}");
                continue;
            }
            passed += 1;
            let value: Value = serde_json::from_str(&token).expect("a JSON string");
            let list = decode_list(&value, "/l").expect("a list that passes decodes");
            let routes: Vec<Route<'_>> = ["a", "b", "c", "d"]
                .into_iter()
                .map(|key| Route {
                    key,
                    field: "extensions.fail_to_pass",
                    list: true,
                    encoded: true,
                    path: &[],
                })
                .collect();
            // What import notes is what it notes of the list decoded.
            assert_eq!(
                held.keys(&routes),
                [HeldKey {
                    key: "d",
                    position: 7,
                    encoding: Some(list.encoding)
                }],
                "{token}"
            );
            // The text is kept for its route alone.
            assert_eq!(held.text(b"", 2), None);
            let mut array = Vec::new();
            transcode_list(token.as_bytes(), JsonStyle::Spaced, &mut array);
            assert_eq!(held.text(b"", 3), Some(array.as_slice()), "{token}");
            assert!(held.any_made() && held.holds(3) && !held.holds(2));
        }
        assert!(passed >= 8, "{passed}");
    }

    #[test]
    fn texts_are_held_by_route() {
        let text = br#"{"a": "x", "b": ["y"]}"#;
        let mut held = Held::default();
        assert!(held.is_empty());
        held.hold_array(1, 16..21, 1);
        held.hold_string(0, 6..9, 0);
        let (a, b, c) = (
            vec!["out".to_owned()],
            vec!["extensions".to_owned(), "b".to_owned()],
            vec!["c".to_owned()],
        );
        let route = |key, list, path| Route {
            key,
            field: "",
            list,
            encoded: list,
            path,
        };
        let routes = [
            route("a", false, &a),
            route("b", true, &b),
            route("c", false, &c),
        ];
        assert_eq!(
            held.keys(&routes),
            [
                HeldKey {
                    key: "a",
                    position: 0,
                    encoding: None
                },
                HeldKey {
                    key: "b",
                    position: 1,
                    encoding: Some(Encoding::Native)
                }
            ]
        );
        assert_eq!(held.len(), 2);
        assert_eq!(
            held.at_key(&routes, text, "extensions/b"),
            Some(&b"[\"y\"]"[..])
        );
        assert_eq!(held.at_key(&routes, text, "out"), Some(&b"\"x\""[..]));
        assert_eq!(held.at_key(&routes, text, "c"), None);
        assert_eq!(held.at_key(&routes, text, "extensions"), None);
        assert!(!held.any_made());
        held.clear();
        assert!(held.is_empty());
        assert_eq!(held.keys(&routes), []);
    }
}
