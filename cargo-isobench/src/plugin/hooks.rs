//! The host's side of a plugin declared by a field table: the host runs the table as it
//! runs a built-in one, and [`PluginHooks`] stands for the plugin's hooks, sending each
//! what the table left and merging the answer (see [`isobench_plugin_sdk::hooks`]).

use isobench_core::table::io::{Exporter, Importer};
use isobench_core::table::{HookResult, Hooks, TableError};
use isobench_core::{CanonicalRecord, RecordError, Table, TableAdapter};
use isobench_plugin_sdk::hooks::{
    self as wire_hooks, Held, HookExport, HookExported, HookImport, HookImported,
};
use isobench_plugin_sdk::wire;
use serde::Serialize;
use serde::ser::Serializer;
use serde_json::Value;

use super::checks::check_import;
use super::lossless::Lossless;

/// How the host reaches a plugin's hooks: one request, one answer.
pub trait HookCall: Send + Sync + std::fmt::Debug {
    /// Sends the hook request (`export` or import) and gives back the answer's bytes, or
    /// the error the plugin answered with, or what went wrong with the call.
    fn call(&self, export: bool, request: &[u8]) -> Result<Vec<u8>, RecordError>;

    /// The error for an answer that breaks the protocol.
    fn broken(&self, what: &str) -> RecordError;
}

/// The adapter of a plugin whose manifest carries `table`: the table run by the host,
/// with the plugin's hooks behind `call` when it has any.
pub fn table_adapter(
    table: Table,
    call: Option<impl HookCall + 'static>,
    origin: String,
) -> Result<TableAdapter, TableError> {
    let adapter = match call {
        Some(call) => {
            let hooks = PluginHooks {
                keys: wire_hooks::hook_keys(&table).map(str::to_owned).collect(),
                hidden: wire_hooks::hidden_fields(&table),
                table: table.clone(),
                call,
            };
            TableAdapter::new(table, hooks)?
        }
        None => TableAdapter::new(table, ())?,
    };
    Ok(adapter.with_origin(origin))
}

/// A plugin's hooks, run across the boundary.
#[derive(Debug)]
struct PluginHooks<C> {
    table: Table,
    /// The keys the hooks are sent ([`wire_hooks::hook_keys`]).
    keys: Vec<String>,
    /// The canonical fields they are not ([`wire_hooks::hidden_fields`]).
    hidden: Vec<&'static str>,
    call: C,
}

/// Borrowed `(key, value)` pairs, written as a JSON object.
struct Pairs<'a>(&'a [(&'a str, &'a Value)]);

impl Serialize for Pairs<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().copied())
    }
}

impl<C: HookCall> PluginHooks<C> {
    fn encode(&self, request: &impl Serialize) -> Result<Vec<u8>, RecordError> {
        serde_json::to_vec(request).map_err(|e| self.call.broken(&format!("cannot be sent: {e}")))
    }

    /// Reads an import answer, its record (when it sends one) checked as a lossless
    /// canonical record.
    fn read_imported(&self, bytes: &[u8]) -> Result<HookImported, RecordError> {
        if let Ok(answer) = serde_json::from_slice::<HookImported<Lossless>>(bytes) {
            let record = match answer.record {
                None => None,
                Some(Lossless(Some(record))) => Some(record),
                // Not a record the fast reader takes: the slow path below says why.
                Some(Lossless(None)) => return self.read_imported_checked(bytes),
            };
            return Ok(HookImported {
                record,
                taken: answer.taken,
                encodings: answer.encodings,
                raw: answer.raw,
                notes: answer.notes,
            });
        }
        self.read_imported_checked(bytes)
    }

    /// Reads an import answer the fast reader did not take, naming what is wrong.
    fn read_imported_checked(&self, bytes: &[u8]) -> Result<HookImported, RecordError> {
        let answer: HookImported<Value> = serde_json::from_slice(bytes).map_err(|e| {
            self.call
                .broken(&format!("answered `hook_import` with invalid JSON: {e}"))
        })?;
        Ok(HookImported {
            record: answer
                .record
                .map(|record| check_import(&self.table.name, record))
                .transpose()?,
            taken: answer.taken,
            encodings: answer.encodings,
            raw: answer.raw,
            notes: answer.notes,
        })
    }
}

impl<C: HookCall> Hooks for PluginHooks<C> {
    fn import(&self, from: &mut Importer<'_, '_>, c: &mut CanonicalRecord) -> HookResult {
        let held = Held::take(c, &self.hidden);
        let left: Vec<(&str, &Value)> = self
            .keys
            .iter()
            .filter_map(|key| Some((key.as_str(), from.peek(key)?)))
            .collect();
        let request = self.encode(&HookImport {
            left: Pairs(&left),
            record: &*c,
        })?;
        let answer = self.read_imported(&self.call.call(false, &request)?)?;
        if let Some(key) = answer
            .taken
            .iter()
            .find(|k| !left.iter().any(|(l, _)| l == k))
        {
            return Err(self.call.broken(&format!(
                "says its hooks took `{key}`, a key it was not sent"
            )));
        }
        // An unchanged record is the one sent: the bulk fields go back where they were.
        match answer.record {
            Some(record) => held.merge(c, record),
            None => held.restore(c),
        }
        wire::notes_from_wire(answer.notes, from.notes);
        from.absorb(&answer.taken, answer.encodings, answer.raw);
        Ok(())
    }

    fn export(&self, c: &CanonicalRecord, to: &mut Exporter<'_, '_, '_>) -> HookResult {
        let record = wire_hooks::without(c, &self.hidden);
        let source = if to.same_format() {
            wire_hooks::source_for_hooks(&self.table, c)
        } else {
            None
        };
        let request = self.encode(&HookExport { record, source })?;
        let answer = self.call.call(true, &request)?;
        let HookExported { written, notes } = serde_json::from_slice(&answer).map_err(|e| {
            self.call
                .broken(&format!("answered `hook_export` with something else: {e}"))
        })?;
        for (key, value) in written {
            to.put(&key, value);
        }
        wire::notes_from_wire(notes, to.notes);
        Ok(())
    }
}
