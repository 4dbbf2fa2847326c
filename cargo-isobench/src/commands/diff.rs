//! `cargo isobench diff A B`: two datasets compared by `instance_id`, field by field,
//! after each record is imported to the canonical record.
//!
//! The fields compared are the canonical record's: each v1 field, and each key of
//! `extensions` on its own (`extensions.fail_to_pass`). Values compare as JSON values:
//! object keys in any order, numbers as written.
//!
//! Memory: A is read once and held as, per record, its `instance_id`, where it was read,
//! and a 128-bit digest (SHA-256, truncated) of each field's value: not the values. B is
//! then read as a stream, each record compared with A's digests as it comes; what is held
//! of B is its `instance_id`s (to find repeats) and the differences found. Neither
//! dataset's values are held whole.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::io::Write as _;

use isobench_core::record::V1_FIELDS;
use isobench_core::{Notes, Registered, Registry};
use serde::Serialize;
use serde_json::Value;
use sha2::{Digest as _, Sha256};

use crate::cli::DiffArgs;
use crate::errors::{AreaError, CliError};
use crate::exit;
use crate::input::{self, Input, Item};

/// The digest a field's value is compared by.
type Digest = [u8; 16];

/// One side of the comparison, as given.
struct Side<'r> {
    inputs: Vec<Input>,
    adapter: &'r Registered,
}

/// A record's compared fields: field numbers (see [`FieldNames`]) with their digests,
/// sorted by number.
type Fields = Vec<(u32, Digest)>;

/// Field names, numbered as first met, so that a record holds numbers, not names.
#[derive(Default)]
struct FieldNames {
    names: Vec<String>,
    numbers: HashMap<String, u32>,
}

impl FieldNames {
    fn number(&mut self, name: &str) -> u32 {
        if let Some(&n) = self.numbers.get(name) {
            return n;
        }
        let n = u32::try_from(self.names.len()).expect("fewer than 2^32 field names");
        self.names.push(name.to_owned());
        self.numbers.insert(name.to_owned(), n);
        n
    }

    fn name(&self, n: u32) -> &str {
        &self.names[n as usize]
    }
}

/// What is held of a record of A.
struct Held {
    /// Its position in A.
    index: u64,
    /// Which input of A, and the line there.
    input: usize,
    line: u64,
    fields: Fields,
    /// Whether B has a record with the same `instance_id`.
    matched: bool,
}

/// A record read: its `instance_id`, where it was read, its compared fields.
struct Read {
    id: String,
    input: usize,
    line: u64,
    fields: Fields,
}

/// Where a record was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Place {
    /// The input file (`-` for stdin).
    pub file: String,
    /// 1-based line (JSON Lines), element (JSON array) or row (Parquet).
    pub line: u64,
}

/// A record only one side has.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OneSided {
    /// Its `instance_id`.
    pub instance_id: String,
    /// Where it was read.
    #[serde(flatten)]
    pub place: Place,
}

/// How a field differs in a record both sides have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    /// Both have the field, with different values.
    Value,
    /// Only B has it.
    Added,
    /// Only A has it.
    Removed,
}

/// One field of a changed record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldChange {
    /// The canonical field (`patch`, `extensions.fail_to_pass`).
    pub field: String,
    /// How it differs.
    pub change: Change,
}

/// A record both sides have, with different fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Changed {
    /// Its `instance_id`.
    pub instance_id: String,
    /// Where A has it.
    pub a: Place,
    /// Where B has it.
    pub b: Place,
    /// The fields that differ, in canonical order (v1 fields, then extensions by name).
    pub fields: Vec<FieldChange>,
}

/// How many changed records differ in one field, and how.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct FieldCount {
    /// Records whose field differs (the sum of the three below).
    pub records: u64,
    /// Records where both sides have the field, with different values.
    pub value: u64,
    /// Records where only B has it.
    pub added: u64,
    /// Records where only A has it.
    pub removed: u64,
}

/// One dataset, as read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SideSummary {
    /// The format its records were read as.
    pub format: String,
    /// Its input files, in order.
    pub inputs: Vec<String>,
    /// Records read.
    pub records: u64,
}

/// The whole comparison: what `diff --json` prints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Comparison {
    /// The first dataset.
    pub a: SideSummary,
    /// The second dataset.
    pub b: SideSummary,
    /// Whether they differ: a record added, removed or changed.
    pub differ: bool,
    /// Records both sides have, field for field the same.
    pub same: u64,
    /// Records only B has, in B's order.
    pub added: Vec<OneSided>,
    /// Records only A has, in A's order.
    pub removed: Vec<OneSided>,
    /// Records both sides have that differ, in B's order.
    pub changed: Vec<Changed>,
    /// For each field that differs in some changed record, how many and how.
    pub fields: BTreeMap<String, FieldCount>,
    /// The fields left out of the comparison (`--ignore`).
    pub ignored: Vec<String>,
}

/// Runs `diff`; the exit code ([`exit::OK`] the same, [`exit::DIFFER`] they differ).
pub fn run(registry: &Registry, args: &DiffArgs) -> Result<i32, CliError> {
    let ignore = ignored_fields(&args.ignore)?;
    let a_inputs = input::hf::sources(std::slice::from_ref(&args.a))?;
    let b_inputs = input::hf::sources(std::slice::from_ref(&args.b))?;
    if a_inputs.contains(&Input::Stdin) && b_inputs.contains(&Input::Stdin) {
        return Err(DiffError::BothStdin.into());
    }
    let a = side(
        registry,
        args.from_a.as_deref().unwrap_or(&args.from),
        a_inputs,
    )?;
    let b = side(
        registry,
        args.from_b.as_deref().unwrap_or(&args.from),
        b_inputs,
    )?;
    let comparison = compare(&a, &b, &ignore)?;
    let mut out = std::io::stdout().lock();
    let text = if args.json {
        serde_json::to_string_pretty(&comparison).expect("a comparison serialises") + "\n"
    } else {
        crate::terminal::shown(&table(&comparison, args.show)).into_owned()
    };
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| CliError::Write {
            path: "-".into(),
            source: e,
        })?;
    Ok(if comparison.differ {
        exit::DIFFER
    } else {
        exit::OK
    })
}

/// The fields `--ignore` names, checked.
fn ignored_fields(names: &[String]) -> Result<Vec<String>, DiffError> {
    for name in names {
        let known = V1_FIELDS.contains(&name.as_str())
            || name
                .strip_prefix("extensions.")
                .is_some_and(|key| !key.is_empty());
        if !known {
            return Err(DiffError::UnknownField(name.clone()));
        }
    }
    Ok(names.to_vec())
}

fn side<'r>(registry: &'r Registry, from: &str, inputs: Vec<Input>) -> Result<Side<'r>, CliError> {
    let adapter = if crate::detect::is_auto(from) {
        crate::detect::detect(registry, &inputs)?
    } else {
        crate::find(registry, from)?
    };
    Ok(Side { inputs, adapter })
}

/// Whether `field` is left out by `ignore` (a field, or `extensions` for every key).
fn is_ignored(ignore: &[String], field: &str) -> bool {
    ignore.iter().any(|i| {
        field == i
            || field
                .strip_prefix(i.as_str())
                .is_some_and(|rest| rest.starts_with('.'))
    })
}

/// Compares A with B.
fn compare(a: &Side<'_>, b: &Side<'_>, ignore: &[String]) -> Result<Comparison, CliError> {
    let mut names = FieldNames::default();
    let a_files: Vec<String> = a.inputs.iter().map(Input::display).collect();
    let b_files: Vec<String> = b.inputs.iter().map(Input::display).collect();
    let mut held: HashMap<String, Held> = HashMap::new();
    let mut a_records = 0u64;
    read_side(a, ignore, &mut names, |record| {
        if let Some(first) = held.get(&record.id) {
            return Err(repeated(&a_files, &record, first.input, first.line));
        }
        held.insert(
            record.id,
            Held {
                index: a_records,
                input: record.input,
                line: record.line,
                fields: record.fields,
                matched: false,
            },
        );
        a_records += 1;
        Ok(())
    })?;
    // B's ids with where each was read, to name the first of a repeat.
    let mut b_seen: HashMap<String, (usize, u64)> = HashMap::new();
    let mut b_records = 0u64;
    let (mut added, mut changed, mut same) = (Vec::new(), Vec::new(), 0u64);
    let mut counts: BTreeMap<u32, FieldCount> = BTreeMap::new();
    read_side(b, ignore, &mut names, |record| {
        if let Some(&(input, line)) = b_seen.get(&record.id) {
            return Err(repeated(&b_files, &record, input, line));
        }
        b_seen.insert(record.id.clone(), (record.input, record.line));
        b_records += 1;
        let b_place = Place {
            file: b_files[record.input].clone(),
            line: record.line,
        };
        let Some(old) = held.get_mut(&record.id) else {
            added.push(OneSided {
                instance_id: record.id,
                place: b_place,
            });
            return Ok(());
        };
        old.matched = true;
        let fields = differences(&old.fields, &record.fields);
        if fields.is_empty() {
            same += 1;
            return Ok(());
        }
        for &(field, change) in &fields {
            let count = counts.entry(field).or_default();
            count.records += 1;
            match change {
                Change::Value => count.value += 1,
                Change::Added => count.added += 1,
                Change::Removed => count.removed += 1,
            }
        }
        changed.push((
            record.id,
            Place {
                file: a_files[old.input].clone(),
                line: old.line,
            },
            b_place,
            fields,
        ));
        Ok(())
    })?;
    let mut removed: Vec<(u64, OneSided)> = held
        .into_iter()
        .filter(|(_, h)| !h.matched)
        .map(|(id, h)| {
            (
                h.index,
                OneSided {
                    instance_id: id,
                    place: Place {
                        file: a_files[h.input].clone(),
                        line: h.line,
                    },
                },
            )
        })
        .collect();
    removed.sort_unstable_by_key(|(index, _)| *index);
    let order = field_order(&names);
    let changed: Vec<Changed> = changed
        .into_iter()
        .map(|(instance_id, a, b, mut fields)| {
            fields.sort_by_key(|(field, _)| order[*field as usize]);
            Changed {
                instance_id,
                a,
                b,
                fields: fields
                    .into_iter()
                    .map(|(field, change)| FieldChange {
                        field: names.name(field).to_owned(),
                        change,
                    })
                    .collect(),
            }
        })
        .collect();
    let removed: Vec<OneSided> = removed.into_iter().map(|(_, r)| r).collect();
    Ok(Comparison {
        a: SideSummary {
            format: a.adapter.info().name.clone(),
            inputs: a_files,
            records: a_records,
        },
        b: SideSummary {
            format: b.adapter.info().name.clone(),
            inputs: b_files,
            records: b_records,
        },
        differ: !(added.is_empty() && removed.is_empty() && changed.is_empty()),
        same,
        added,
        removed,
        changed,
        fields: counts
            .into_iter()
            .map(|(field, count)| (names.name(field).to_owned(), count))
            .collect(),
        ignored: ignore.to_vec(),
    })
}

fn repeated(files: &[String], record: &Read, first_input: usize, first_line: u64) -> CliError {
    DiffError::Repeated {
        file: files[record.input].clone(),
        line: record.line,
        id: record.id.clone(),
        first_file: files[first_input].clone(),
        first_line,
    }
    .into()
}

/// The rank of each field number in canonical order: v1 fields in schema order, then
/// extensions by name.
fn field_order(names: &FieldNames) -> Vec<usize> {
    let mut numbers: Vec<u32> = (0..u32::try_from(names.names.len()).expect("few names")).collect();
    numbers.sort_by(|&x, &y| {
        let key = |n: u32| {
            let name = names.name(n);
            let v1 = V1_FIELDS
                .iter()
                .position(|f| *f == name)
                .unwrap_or(V1_FIELDS.len());
            (v1, name.to_owned())
        };
        key(x).cmp(&key(y))
    });
    let mut rank = vec![0; numbers.len()];
    for (i, n) in numbers.into_iter().enumerate() {
        rank[n as usize] = i;
    }
    rank
}

/// The fields that differ between two records' sorted field lists.
fn differences(old: &Fields, new: &Fields) -> Vec<(u32, Change)> {
    let mut found = Vec::new();
    let (mut at_old, mut at_new) = (0, 0);
    while at_old < old.len() || at_new < new.len() {
        match (old.get(at_old), new.get(at_new)) {
            (Some(was), Some(now)) if was.0 == now.0 => {
                if was.1 != now.1 {
                    found.push((was.0, Change::Value));
                }
                at_old += 1;
                at_new += 1;
            }
            (Some(was), Some(now)) if was.0 < now.0 => {
                found.push((was.0, Change::Removed));
                at_old += 1;
            }
            (Some(was), None) => {
                found.push((was.0, Change::Removed));
                at_old += 1;
            }
            (_, Some(now)) => {
                found.push((now.0, Change::Added));
                at_new += 1;
            }
            (None, None) => unreachable!("the loop ends first"),
        }
    }
    found
}

/// Reads every record of a side, imported to canonical, and hands each to `each`.
fn read_side(
    side: &Side<'_>,
    ignore: &[String],
    names: &mut FieldNames,
    mut each: impl FnMut(Read) -> Result<(), CliError>,
) -> Result<(), CliError> {
    let format = &side.adapter.info().name;
    for (index, source) in side.inputs.iter().enumerate() {
        let file = source.display();
        input::for_each_item(source, |Item { line, record, .. }| {
            let map = match record {
                Ok(Value::Object(map)) => map,
                Ok(_) => {
                    return Err(DiffError::Unreadable {
                        file: file.clone(),
                        line,
                        message: "not a JSON object".into(),
                    }
                    .into());
                }
                Err(bad) => {
                    return Err(DiffError::Unreadable {
                        file: file.clone(),
                        line,
                        message: bad.message,
                    }
                    .into());
                }
            };
            let raw_id = map
                .get("instance_id")
                .and_then(Value::as_str)
                .map(str::to_owned);
            let canonical = side.adapter.import(map, &mut Notes::new()).map_err(|e| {
                let mut id = raw_id
                    .as_ref()
                    .map_or_else(String::new, |id| format!(" record `{id}`:"));
                if !e.pointer.is_empty() {
                    let _ = write!(id, " `{}`:", e.pointer);
                }
                CliError::from(DiffError::Refused {
                    file: file.clone(),
                    line,
                    id,
                    message: e.message.clone(),
                    format: format.clone(),
                })
            })?;
            let Some(id) = canonical.instance_id.clone() else {
                return Err(DiffError::NoId {
                    file: file.clone(),
                    line,
                }
                .into());
            };
            let fields = digests(canonical.into_value(), ignore, names);
            each(Read {
                id,
                input: index,
                line,
                fields,
            })?;
            Ok(true)
        })?;
    }
    Ok(())
}

/// The digests of a canonical record's fields, sorted by field number.
fn digests(value: Value, ignore: &[String], names: &mut FieldNames) -> Fields {
    let Value::Object(map) = value else {
        return Vec::new();
    };
    let mut fields = Vec::with_capacity(map.len());
    for (key, value) in map {
        if key == "extensions" {
            let Value::Object(extensions) = value else {
                continue;
            };
            for (key, value) in extensions {
                let field = format!("extensions.{key}");
                if !is_ignored(ignore, &field) {
                    fields.push((names.number(&field), digest(&value)));
                }
            }
        } else if !is_ignored(ignore, &key) {
            fields.push((names.number(&key), digest(&value)));
        }
    }
    fields.sort_unstable_by_key(|(n, _)| *n);
    fields
}

/// A value's digest: equal for equal JSON values, whatever the order of object keys and
/// the spelling of numbers (`1.10` and `1.1`).
fn digest(value: &Value) -> Digest {
    let mut hasher = Sha256::new();
    feed(&mut hasher, value);
    let full = hasher.finalize();
    let mut digest = [0; 16];
    digest.copy_from_slice(&full[..16]);
    digest
}

/// Feeds a value to the hasher unambiguously: a tag per type, lengths before contents,
/// object keys sorted.
fn feed(hasher: &mut Sha256, value: &Value) {
    let text = |hasher: &mut Sha256, s: &str| {
        hasher.update((s.len() as u64).to_le_bytes());
        hasher.update(s.as_bytes());
    };
    match value {
        Value::Null => hasher.update(b"n"),
        Value::Bool(b) => hasher.update(if *b { b"t" } else { b"f" }),
        Value::Number(n) => {
            hasher.update(b"#");
            text(hasher, &isobench_core::number::value_key(n));
        }
        Value::String(s) => {
            hasher.update(b"s");
            text(hasher, s);
        }
        Value::Array(items) => {
            hasher.update(b"[");
            hasher.update((items.len() as u64).to_le_bytes());
            for item in items {
                feed(hasher, item);
            }
        }
        Value::Object(map) => {
            hasher.update(b"{");
            hasher.update((map.len() as u64).to_le_bytes());
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_unstable();
            for key in keys {
                text(hasher, key);
                feed(hasher, &map[key]);
            }
        }
    }
}

/// The table printed on a terminal: each dataset, the counts, the fields that differ,
/// and the first `show` records of each kind.
pub fn table(c: &Comparison, show: usize) -> String {
    let mut text = String::new();
    for (label, side) in [("A", &c.a), ("B", &c.b)] {
        let _ = writeln!(
            text,
            "{label}: {} ({}): {} record(s)",
            side.inputs.join(", "),
            side.format,
            side.records
        );
    }
    if !c.ignored.is_empty() {
        let _ = writeln!(text, "not compared: {}", c.ignored.join(", "));
    }
    if !c.differ {
        let _ = writeln!(text, "same: {} record(s), no difference", c.same);
        return text;
    }
    let _ = writeln!(
        text,
        "same {}, changed {}, removed {} (only in A), added {} (only in B)",
        c.same,
        c.changed.len(),
        c.removed.len(),
        c.added.len()
    );
    if !c.fields.is_empty() {
        let width = c.fields.keys().map(String::len).max().unwrap_or(0).max(5);
        let _ = writeln!(text, "\n{:width$}  records  value  added  removed", "field");
        let mut rows: Vec<(&String, &FieldCount)> = c.fields.iter().collect();
        rows.sort_by(|x, y| y.1.records.cmp(&x.1.records).then(x.0.cmp(y.0)));
        for (field, n) in rows {
            let _ = writeln!(
                text,
                "{field:width$}  {:>7}  {:>5}  {:>5}  {:>7}",
                n.records, n.value, n.added, n.removed
            );
        }
    }
    let more = |text: &mut String, total: usize| {
        if total > show {
            let _ = writeln!(
                text,
                "  ... and {} more (`--json` lists every one)",
                total - show
            );
        }
    };
    for (title, list) in [
        ("removed (only in A)", &c.removed),
        ("added (only in B)", &c.added),
    ] {
        if list.is_empty() {
            continue;
        }
        let _ = writeln!(text, "\n{title}:");
        for r in list.iter().take(show) {
            let _ = writeln!(
                text,
                "  {}  {}:{}",
                r.instance_id, r.place.file, r.place.line
            );
        }
        more(&mut text, list.len());
    }
    if !c.changed.is_empty() {
        let _ = writeln!(text, "\nchanged:");
        for r in c.changed.iter().take(show) {
            let fields: Vec<String> = r
                .fields
                .iter()
                .map(|f| match f.change {
                    Change::Value => f.field.clone(),
                    Change::Added => format!("+{}", f.field),
                    Change::Removed => format!("-{}", f.field),
                })
                .collect();
            let _ = writeln!(
                text,
                "  {}  {}:{} -> {}:{}  {}",
                r.instance_id,
                r.a.file,
                r.a.line,
                r.b.file,
                r.b.line,
                fields.join(", ")
            );
        }
        more(&mut text, c.changed.len());
        if c.changed
            .iter()
            .any(|r| r.fields.iter().any(|f| f.change != Change::Value))
        {
            let _ = writeln!(text, "  (+field: only B has it; -field: only A has it)");
        }
    }
    text
}

/// A `diff` that cannot compare the two datasets: a usage error, or a record that cannot
/// be compared.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DiffError {
    /// Both datasets given as stdin.
    #[error("`diff` can read only one of its two datasets from stdin")]
    BothStdin,
    /// An `--ignore` that names no canonical field.
    #[error("`--ignore {0}`: not a canonical field")]
    UnknownField(String),
    /// An item that is not a JSON record.
    #[error("{file}:{line}: {message}")]
    Unreadable {
        /// The input.
        file: String,
        /// 1-based line (or row).
        line: u64,
        /// Why it is not a record.
        message: String,
    },
    /// A record its format's import refuses.
    #[error("{file}:{line}:{id} {message}")]
    Refused {
        /// The input.
        file: String,
        /// 1-based line (or row).
        line: u64,
        /// ` record `ID`:` and ` `POINTER`:`, where known.
        id: String,
        /// The import's message.
        message: String,
        /// The format it was read as.
        format: String,
    },
    /// A record without an `instance_id`.
    #[error("{file}:{line}: the record has no `instance_id`, by which records are matched")]
    NoId {
        /// The input.
        file: String,
        /// 1-based line (or row).
        line: u64,
    },
    /// An `instance_id` read twice from one side.
    #[error("{file}:{line}: `instance_id` `{id}` repeats the record at {first_file}:{first_line}")]
    Repeated {
        /// The input of the repeat.
        file: String,
        /// Its line.
        line: u64,
        /// The id.
        id: String,
        /// The input of the first record with that id.
        first_file: String,
        /// Its line.
        first_line: u64,
    },
}

impl AreaError for DiffError {
    /// [`exit::USAGE`] for a usage error, [`exit::UNCOMPARABLE`] for a record.
    fn exit_code(&self) -> i32 {
        match self {
            Self::BothStdin | Self::UnknownField(_) => exit::USAGE,
            Self::Unreadable { .. }
            | Self::Refused { .. }
            | Self::NoId { .. }
            | Self::Repeated { .. } => exit::UNCOMPARABLE,
        }
    }

    fn hint(&self) -> Option<String> {
        Some(match self {
            Self::BothStdin => "give at least one of them as a file".into(),
            Self::UnknownField(_) => "name a canonical v1 field (`cargo isobench schema canonical` lists them), `extensions.KEY`, or `extensions`".into(),
            Self::Unreadable { .. } => "datasets are JSON Lines (`.jsonl`), a JSON array (`.json`) or Parquet (`.parquet`), plain or `.gz`/`.zst`".into(),
            Self::Refused { format, .. } => format!(
                "the record was read as `{format}`; `cargo isobench validate --format {format}` lists every problem of the file, and `--from-a`/`--from-b` name another format"
            ),
            Self::NoId { .. } => "records are matched by `instance_id`: every record of a compared dataset needs one".into(),
            Self::Repeated { .. } => "records are matched by `instance_id`: it must be unique within each dataset".into(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn digests_ignore_key_order_but_not_values() {
        assert_eq!(
            digest(&json!({"a": 1, "b": [1, "x"]})),
            digest(&json!({"b": [1, "x"], "a": 1}))
        );
        assert_ne!(digest(&json!({"a": 1})), digest(&json!({"a": "1"})));
        assert_ne!(digest(&json!(["ab", "c"])), digest(&json!(["a", "bc"])));
        assert_ne!(digest(&json!([[]])), digest(&json!([])));
        assert_ne!(digest(&json!(null)), digest(&json!(false)));
    }

    #[test]
    fn differences_name_each_kind() {
        let d = |n: u8| [n; 16];
        let a = vec![(0, d(1)), (1, d(1)), (3, d(1))];
        let b = vec![(0, d(1)), (1, d(2)), (2, d(1))];
        assert_eq!(
            differences(&a, &b),
            vec![(1, Change::Value), (2, Change::Added), (3, Change::Removed)]
        );
        assert!(differences(&a, &a).is_empty());
        assert_eq!(differences(&Vec::new(), &a).len(), 3);
    }

    #[test]
    fn ignore_takes_a_field_or_a_whole_prefix() {
        let ignore = vec!["extensions".to_owned(), "version".to_owned()];
        assert!(is_ignored(&ignore, "extensions.fail_to_pass"));
        assert!(is_ignored(&ignore, "version"));
        assert!(!is_ignored(&ignore, "versions"));
        assert!(!is_ignored(&ignore, "patch"));
        assert!(ignored_fields(&["patches".into()]).is_err());
        assert!(ignored_fields(&["extensions.".into()]).is_err());
        assert!(ignored_fields(&["extensions.source".into(), "patch".into()]).is_ok());
    }
}
