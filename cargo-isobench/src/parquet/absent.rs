//! A build without the cargo feature `parquet`: no Parquet file is read or written.
//! [`ParquetWriter`] has no value, so the output's Parquet sink is never made: the places
//! that would make one give [`super::not_built`] first. Nor have the rows it would take.

use std::fs::File;
use std::io;
use std::path::PathBuf;

use isobench_core::codec::JsonStyle;
use isobench_core::passthrough::Placed;
use serde_json::{Map, Value};

/// The Parquet writer of a build without Parquet: a type without values.
#[derive(Debug)]
pub enum ParquetWriter {}

/// Rows for the Parquet writer, in a build without Parquet: a type without values.
#[derive(Debug)]
pub enum ColumnRows {}

/// Converted rows for the Parquet writer, in a build without Parquet: a type without values.
#[derive(Debug)]
pub enum RowsBatch {}

impl ColumnRows {
    #[must_use]
    pub fn empty_like(&self) -> Self {
        match *self {}
    }

    pub fn note_style(&mut self, _style: JsonStyle) {
        match *self {}
    }

    pub fn push(&mut self, _record: Map<String, Value>) {
        match *self {}
    }

    pub fn push_text(&mut self, _text: &str) {
        match *self {}
    }

    pub fn push_holding(
        &mut self,
        _record: &Map<String, Value>,
        _held: &[Placed<'_>],
        _raw: impl Fn(usize) -> bool,
    ) -> Option<bool> {
        match *self {}
    }

    pub fn laid(&self) -> [usize; 3] {
        match *self {}
    }

    pub fn take_rows(&mut self) -> io::Result<RowsBatch> {
        match *self {}
    }
}

impl ParquetWriter {
    /// Refuses: this build writes no Parquet.
    #[allow(clippy::needless_pass_by_value)] // the signature of the writer it stands for
    pub fn new(
        _file: File,
        dir: PathBuf,
        _json_schema: &Value,
        _options: super::ParquetOptions,
    ) -> io::Result<Self> {
        Err(io::Error::other(super::not_built(&dir).to_string()))
    }

    pub fn note_style(&mut self, _style: JsonStyle) {
        match *self {}
    }

    pub fn write(&mut self, _record: Map<String, Value>) -> io::Result<()> {
        match *self {}
    }

    pub fn empty_rows(&self) -> ColumnRows {
        match *self {}
    }

    #[allow(clippy::needless_pass_by_value)] // the signature of the writer it stands for
    pub fn write_batch(&mut self, rows: RowsBatch) -> io::Result<()> {
        match rows {}
    }

    pub fn finish(self) -> io::Result<File> {
        match self {}
    }
}
