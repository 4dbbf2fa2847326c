//! Exported records kept in memory as maps, each saying where the output holds the
//! values its caller held (the Python bindings put their own values there).

use isobench_core::codec::JsonStyle;
use serde_json::{Map, Value};

use super::encoder::{Encoder, HeldValues};

/// An output record of [`crate::pipeline::BatchConverter::records_holding`]: the exported map, lacking
/// the values its caller held, and where the output holds each of those.
#[derive(Debug, Default)]
pub struct ExportedRecord {
    /// The record as exported, the target's contract met: what `convert` writes, save
    /// the held values.
    pub record: Map<String, Value>,
    /// Where each held value goes (where `convert` writes its text); empty when the
    /// record was converted whole.
    pub held: Vec<HeldAt>,
    /// The index of the record of the batch it came from.
    pub source: usize,
}

/// Where the output holds a held value: the route it came by (an index of
/// [`crate::pipeline::BatchConverter::routes`]; the route's path leads to the object holding it) and its
/// index among that object's entries once written. An object the record lacks (an
/// extension of a record exported without `extensions`) holds no value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeldAt {
    /// The route.
    pub route: usize,
    /// The index among the entries of the object holding it.
    pub at: usize,
}

/// Records kept as exported, with where each held value goes.
#[derive(Default)]
pub(in crate::pipeline) struct RecordsEncoder {
    records: Vec<ExportedRecord>,
    /// The index, in its caller's batch, of the record being converted.
    pub(in crate::pipeline) source: usize,
}

impl Encoder for RecordsEncoder {
    type Batch = Vec<ExportedRecord>;

    fn begin(&mut self, _input_bytes: usize) {
        self.records.clear();
    }

    fn record(
        &mut self,
        record: Map<String, Value>,
        held: Option<&HeldValues<'_>>,
        _style: JsonStyle,
    ) {
        let held = held.map_or_else(Vec::new, |held| {
            let placed = held.placed(&record);
            (held.holding().zip(placed))
                .map(|(route, placed)| HeldAt {
                    route,
                    at: placed.at,
                })
                .collect()
        });
        self.records.push(ExportedRecord {
            record,
            held,
            source: self.source,
        });
    }

    fn finish(&mut self) -> Vec<ExportedRecord> {
        std::mem::take(&mut self.records)
    }
}
