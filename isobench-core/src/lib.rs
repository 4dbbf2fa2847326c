//! The core of `cargo isobench`: the ISO-Bench canonical record, its embedded JSON
//! Schemas, validation, the [`ViewAdapter`] trait and its registry, conversion reports,
//! and the derivations several adapters share (list-field codecs, timestamps, unified
//! diffs, test-file classification, timing math).
//!
//! The crate does no I/O and contains no `unsafe`, so adapters and plugins can depend on
//! it cheaply.
//!
//! # Formats are views
//!
//! A dataset format is a *view* of the canonical record, hence the name [`ViewAdapter`]:
//! one and the same benchmark instance, seen through another format's keys, key order
//! and encodings (a list written as a JSON array or as a JSON-encoded string, the fix or
//! the bug-introducing diff, one timing layout or another). An adapter's `import` moves a
//! record from its view to the canonical record, and `export` moves a canonical record
//! into the view. What the view holds that the canonical record has no place for (its
//! key order, the encoding of each list, unknown keys, original values that a
//! normalisation cannot give back exactly) is kept in the record's `extensions.source`
//! block ([`vocab::Source`]), so that exporting to the format a record came from gives
//! back the record it was read from: `export(import(r)) == r`, same keys, same order,
//! same encodings. Exporting to another format is a change of view: the fields that
//! format has a key for are written, and the report names what it cannot hold.
//!
//! # Features
//!
//! `schema-validation` (on by default) checks records against a JSON Schema:
//! [`schema::SchemaValidator`], [`Profile::validator`] and [`validate_record`]. It brings
//! in `jsonschema` and most of the crate's dependency tree, so the plugin SDK turns it
//! off: a plugin converts records and the host validates them. The example below needs it.
//!
//! ```
//! use isobench_core::{CanonicalRecord, Profile, validate_record};
//!
//! let record: CanonicalRecord = serde_json::from_value(serde_json::json!({
//!     "repo": "octo/widgets",
//!     "instance_id": "octo__widgets-PR-7",
//!     "created_at": "2024-05-01T10:00:00Z",
//!     "base_commit": "1111111111111111111111111111111111111111",
//!     "head_commit": "2222222222222222222222222222222222222222",
//!     "patch": "",
//!     "test_patch": "",
//!     "efficiency_test": ["tests/test_speed.py::test_sort"],
//!     "duration_changes": [{"base": [2.0, 2.2], "head": [1.0, 1.1]}],
//!     "human_performance": 2.0,
//!     "version": "1.4"
//! }))?;
//! let problems = validate_record(&record.to_value(), Profile::Strict);
//! assert!(problems.is_empty(), "{problems:?}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod adapter;
pub mod codec;
pub mod contract;
pub mod diff;
pub mod envsig;
pub mod error;
mod jsonwrite;
pub mod number;
pub mod passthrough;
pub mod record;
pub mod registry;
pub mod report;
pub mod schema;
pub mod table;
pub mod testfiles;
pub mod timestamp;
pub mod timing;
pub mod timing_logs;
pub mod validate;
pub mod vocab;

pub use adapter::{AdapterInfo, ViewAdapter};
pub use contract::{Contract, Known, Requirement, Under};
pub use error::RecordError;
pub use record::{CanonicalRecord, DurationChange};
pub use registry::{Registered, Registry};
pub use report::{ConversionReport, Notes};
pub use schema::Profile;
pub use table::{Field, FieldType, Hooks, ListEncoding, Table, TableAdapter};
pub use validate::Problem;
#[cfg(feature = "schema-validation")]
pub use validate::validate_record;
