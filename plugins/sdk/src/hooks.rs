//! A plugin declared by a field table: the host runs the table, and calls the plugin
//! only for its [`Hooks`].
//!
//! A plugin built with [`export_table!`](crate::export_table) sends its [`Table`] in its
//! manifest. The host builds a [`TableAdapter`](isobench_core::TableAdapter) from it and
//! converts records itself, so the bulk of a record (patches, texts, test lists) never
//! crosses the boundary. When the plugin has hooks, each record costs one small call per
//! direction:
//!
//! * **import** ([`HookImport`]): once the table has read its fields, the host sends the
//!   keys of the foreign record the table leaves to the hooks (its fields marked
//!   [`hook`](isobench_core::Field::hook)) and the canonical record as the table wrote it,
//!   less the bulk fields ([`hidden_fields`]). The plugin resumes an
//!   [`Importer`] on them, runs [`Hooks::import`], and answers with the record (only
//!   when the hooks changed it), the keys the hooks took, and the encodings and original
//!   values they noted ([`HookImported`]). The host takes those keys out of its own importer, notes the
//!   same, and puts the bulk fields back (a field the hooks set wins, as it would in
//!   process).
//! * **export** ([`HookExport`]): once the table has written its fields, the host sends
//!   the canonical record less the bulk fields and less `extensions.source`, and, for a
//!   record imported from this same format, its source block with only the hook keys'
//!   values. The plugin runs [`Hooks::export`] on an [`Exporter`] resumed from them and
//!   answers with the keys the hooks wrote, in order ([`HookExported`]); the host writes
//!   them, then restores key order and unknown keys as for any table.
//!
//! So in a plugin, hooks see the keys marked `hook` and the canonical fields that are not
//! bulk; a hook that needs a bulk value (a patch it rewrites) declares that field `hook`.
//! Key order, encodings and original values are the host's to keep, and the bulk text a
//! hook was not sent is written by the host where the table puts it.

use isobench_core::passthrough::BULK_FIELDS;
use isobench_core::report::Notes;
use isobench_core::table::io::{Exporter, Importer};
use isobench_core::vocab::{self, Source};
use isobench_core::{CanonicalRecord, Hooks, Table};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::wire::{WireError, WireNote, error_to_wire, notes_to_wire};

/// What the host sends a plugin's import hooks. `L` and `R` are how a side holds the
/// left keys and the record (the host writes them borrowed; the SDK reads them owned).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HookImport<L = Map<String, Value>, R = CanonicalRecord> {
    /// The foreign record's keys marked `hook` in the table, those it has.
    pub left: L,
    /// The canonical record as the table wrote it, without [`hidden_fields`].
    pub record: R,
}

/// A plugin's answer to a [`HookImport`].
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HookImported<R = CanonicalRecord> {
    /// The record after the hooks, still without the hidden fields (unless a hook set one);
    /// absent when the hooks left it as it was sent, so that a hook that only checks
    /// (most do) costs no record on the way back.
    #[serde(default = "none", skip_serializing_if = "Option::is_none")]
    pub record: Option<R>,
    /// The keys of `left` the hooks took; the others stay for the round trip.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub taken: Vec<String>,
    /// The encodings the hooks noted (`extensions.source.encodings`).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub encodings: Map<String, Value>,
    /// The original values the hooks kept (`extensions.source.raw`).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub raw: Map<String, Value>,
    /// The notes the hooks wrote.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<WireNote>,
}

/// `None`, for an absent field whatever its type.
fn none<R>() -> Option<R> {
    None
}

/// What the host sends a plugin's export hooks.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HookExport<R = CanonicalRecord, S = Value> {
    /// The canonical record without [`hidden_fields`] and without `extensions.source`.
    pub record: R,
    /// For a record imported from this same format: its `extensions.source` block, with
    /// `extra`, `raw` and `encodings` holding only the keys marked `hook`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<S>,
}

/// A plugin's answer to a [`HookExport`].
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HookExported {
    /// The keys the hooks wrote, in the order they wrote them.
    pub written: Map<String, Value>,
    /// The notes the hooks wrote.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<WireNote>,
}

/// The keys of the foreign record a plugin's hooks are sent: the table's fields marked
/// `hook`.
pub fn hook_keys(table: &Table) -> impl Iterator<Item = &str> {
    table
        .fields
        .iter()
        .filter(|f| f.hook)
        .map(|f| f.key.as_str())
}

/// The canonical fields a plugin's hooks are never sent: the bulk fields
/// ([`BULK_FIELDS`]) but those a hook field maps to or the hooks declare they carry.
pub fn hidden_fields(table: &Table) -> Vec<&'static str> {
    BULK_FIELDS
        .into_iter()
        .filter(|bulk| {
            !table
                .fields
                .iter()
                .any(|f| f.hook && f.to.as_deref() == Some(bulk))
                && !table.hook_carries.iter().any(|c| c == bulk)
        })
        .collect()
}

/// The bulk fields taken out of a record before its import hooks are sent it, with
/// where each extension stood, so that they go back where they were once the hooks
/// answer. Host side.
#[derive(Debug, Default)]
pub struct Held {
    /// The top-level fields taken, with their values.
    fields: Vec<(&'static str, String)>,
    /// The extensions taken: each one's index when it was taken, key and value.
    extensions: Vec<(usize, String, Value)>,
}

impl Held {
    /// Takes the fields `hidden` names ([`hidden_fields`]) out of `record`.
    pub fn take(record: &mut CanonicalRecord, hidden: &[&'static str]) -> Self {
        let mut held = Self::default();
        for &field in hidden {
            if let Some(key) = field.strip_prefix("extensions.") {
                if let Some(index) = record.extensions.keys().position(|k| k == key)
                    && let Some((key, value)) = record.extensions.shift_remove_entry(key)
                {
                    held.extensions.push((index, key, value));
                }
            } else if let Some(value) = string_field(record, field).and_then(Option::take) {
                held.fields.push((field, value));
            }
        }
        held
    }

    /// Puts the fields back where they were, into `record` as it was sent: the record
    /// the hooks left unchanged.
    pub fn restore(self, record: &mut CanonicalRecord) {
        for (field, value) in self.fields {
            if let Some(slot) = string_field(record, field) {
                *slot = Some(value);
            }
        }
        for (index, key, value) in self.extensions.into_iter().rev() {
            record.extensions.shift_insert(index, key, value);
        }
    }

    /// Makes `record` (as it was sent) the hooks' `answer`, with the held fields put back
    /// where the hooks did not set them, and the extensions in the order they had before
    /// the call, then those the hooks added: the record the hooks would have given in
    /// process.
    pub fn merge(self, record: &mut CanonicalRecord, mut answer: CanonicalRecord) {
        let Self { fields, extensions } = self;
        for (field, value) in fields {
            if let Some(slot) = string_field(&mut answer, field)
                && slot.is_none()
            {
                *slot = Some(value);
            }
        }
        let held_keys: Vec<String> = extensions.iter().map(|(_, k, _)| k.clone()).collect();
        // The extensions as they were before the call, for their order.
        Self {
            fields: Vec::new(),
            extensions,
        }
        .restore(record);
        if !held_keys.is_empty() {
            let mut from_hooks = std::mem::take(&mut answer.extensions);
            let before = std::mem::take(&mut record.extensions);
            let mut merged = Map::with_capacity(before.len() + from_hooks.len());
            for (key, value) in before {
                let value = match from_hooks.shift_remove(&key) {
                    Some(answered) => answered,
                    None if held_keys.contains(&key) => value,
                    None => continue,
                };
                merged.insert(key, value);
            }
            merged.extend(from_hooks);
            answer.extensions = merged;
        }
        // What the host holds outside the record stays held: the hooks never see it.
        answer.held = std::mem::take(&mut record.held);
        *record = answer;
    }
}

/// The bulk field `name` of `record` that is a top-level string.
fn string_field<'r>(record: &'r mut CanonicalRecord, name: &str) -> Option<&'r mut Option<String>> {
    match name {
        "patch" => Some(&mut record.patch),
        "test_patch" => Some(&mut record.test_patch),
        "gt_commit_message" => Some(&mut record.gt_commit_message),
        _ => None,
    }
}

/// A copy of `record` without the fields `hidden` names and without `extensions.source`,
/// made without copying what is left out.
pub fn without(record: &CanonicalRecord, hidden: &[&str]) -> CanonicalRecord {
    let shown = |name: &str| !hidden.contains(&name);
    let shown_ext = |key: &str| {
        key != vocab::SOURCE
            && !hidden
                .iter()
                .any(|h| h.strip_prefix("extensions.") == Some(key))
    };
    let string = |name: &str, value: &Option<String>| value.clone().filter(|_| shown(name));
    CanonicalRecord {
        repo: record.repo.clone(),
        instance_id: record.instance_id.clone(),
        created_at: record.created_at.clone(),
        base_commit: record.base_commit.clone(),
        head_commit: record.head_commit.clone(),
        patch: string("patch", &record.patch),
        test_patch: string("test_patch", &record.test_patch),
        patch_functions: record.patch_functions.clone(),
        test_functions: record.test_functions.clone(),
        efficiency_test: record.efficiency_test.clone(),
        problem_statement_oracle: record.problem_statement_oracle.clone(),
        problem_statement_realistic: record.problem_statement_realistic.clone(),
        duration_changes: record.duration_changes.clone(),
        human_performance: record.human_performance.clone(),
        version: record.version.clone(),
        setup_commands: record.setup_commands.clone(),
        install_commands: record.install_commands.clone(),
        api: record.api.clone(),
        gt_commit_message: string("gt_commit_message", &record.gt_commit_message),
        notes: record.notes.clone(),
        extensions: record
            .extensions
            .iter()
            .filter(|(key, _)| shown_ext(key))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect(),
        held: Vec::new(),
    }
}

/// The part of a same-format source block a plugin's export hooks are sent: the key
/// order, and the hook keys' unknown values, encodings and original values.
pub fn source_for_hooks(table: &Table, record: &CanonicalRecord) -> Option<Value> {
    let block = record.ext(vocab::SOURCE)?.as_object()?;
    if block.get("format").and_then(Value::as_str) != Some(table.name.as_str()) {
        return None;
    }
    let mut sent = Map::new();
    for (name, part) in block {
        let part = match (name.as_str(), part) {
            ("extra" | "raw" | "encodings", Value::Object(values)) => Value::Object(
                hook_keys(table)
                    .filter_map(|key| Some((key.to_owned(), values.get(key)?.clone())))
                    .collect(),
            ),
            _ => part.clone(),
        };
        sent.insert(name.clone(), part);
    }
    Some(Value::Object(sent))
}

/// Runs `hooks.import` on a [`HookImport`], plugin side.
pub fn run_import(
    table: &Table,
    hooks: &dyn Hooks,
    request: HookImport,
) -> Result<HookImported, WireError> {
    let mut notes = Notes::new();
    let HookImport { left, mut record } = request;
    let sent_record = record.clone();
    let sent: Vec<String> = left.keys().cloned().collect();
    let mut from = Importer::resume(
        &table.name,
        left,
        Source {
            format: table.name.clone(),
            ..Source::default()
        },
        &mut notes,
    );
    hooks
        .import(&mut from, &mut record)
        .map_err(|e| error_to_wire(&e))?;
    let (rest, source) = from.into_parts();
    let taken = sent.into_iter().filter(|k| !rest.contains_key(k)).collect();
    Ok(HookImported {
        record: (record != sent_record).then_some(record),
        taken,
        encodings: source.encodings,
        raw: source.raw,
        notes: notes_to_wire(&notes),
    })
}

/// Runs `hooks.export` on a [`HookExport`], plugin side.
pub fn run_export(
    table: &Table,
    hooks: &dyn Hooks,
    request: &HookExport,
) -> Result<HookExported, WireError> {
    let mut notes = Notes::new();
    let source = request.source.as_ref().and_then(|block| {
        let extensions = Map::from_iter([(vocab::SOURCE.to_owned(), block.clone())]);
        Source::of_format(&extensions, &table.name)
    });
    let mut to = Exporter::resume(&table.name, &request.record, source, &mut notes);
    hooks
        .export(&request.record, &mut to)
        .map_err(|e| error_to_wire(&e))?;
    let written = to.into_written();
    Ok(HookExported {
        written,
        notes: notes_to_wire(&notes),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn record() -> CanonicalRecord {
        serde_json::from_value(json!({
            "repo": "o/r", "instance_id": "o__r-1", "patch": "diff", "gt_commit_message": "m",
            "extensions": {
                "a": 1, "problem_statement": "text", "b": 2, "fail_to_pass": ["t"], "c": 3
            }
        }))
        .expect("a canonical record")
    }

    const HIDDEN: [&str; 4] = [
        "patch",
        "extensions.problem_statement",
        "extensions.fail_to_pass",
        "extensions.pass_to_pass",
    ];

    #[test]
    fn held_fields_go_back_where_they_were() {
        let mut c = record();
        let held = Held::take(&mut c, &HIDDEN);
        assert_eq!(c.patch, None);
        assert_eq!(
            c.extensions.keys().collect::<Vec<_>>(),
            ["a", "b", "c"],
            "the hooks are sent the record without its bulk"
        );
        held.restore(&mut c);
        assert_eq!(c, record());
        assert_eq!(
            c.extensions.keys().collect::<Vec<_>>(),
            ["a", "problem_statement", "b", "fail_to_pass", "c"]
        );
    }

    #[test]
    fn a_hooks_answer_keeps_the_order_and_gets_the_bulk_back() {
        let mut c = record();
        let held = Held::take(&mut c, &HIDDEN);
        // The hooks drop `b`, change `c`, add `d`, and set `patch` themselves.
        let mut answer = c.clone();
        answer.extensions.shift_remove("b");
        answer.extensions.insert("c".into(), json!(30));
        answer.extensions.insert("d".into(), json!(4));
        answer.patch = Some("rewritten".into());
        held.merge(&mut c, answer);
        assert_eq!(c.patch.as_deref(), Some("rewritten"));
        assert_eq!(c.gt_commit_message.as_deref(), Some("m"));
        // Maps compare without order: the keys are compared in order too.
        assert_eq!(
            c.extensions.keys().collect::<Vec<_>>(),
            ["a", "problem_statement", "fail_to_pass", "c", "d"]
        );
        assert_eq!(
            Value::Object(c.extensions),
            json!({"a": 1, "problem_statement": "text", "fail_to_pass": ["t"], "c": 30, "d": 4})
        );
        // Where the hooks left a held field unset, it comes back.
        let mut c = record();
        let held = Held::take(&mut c, &HIDDEN);
        let answer = c.clone();
        held.merge(&mut c, answer);
        assert_eq!(c, record());
    }
}
