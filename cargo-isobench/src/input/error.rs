//! What stops the reading of the inputs as a whole (not one record, which is rejected on
//! its own): where it stopped, and why.

use std::path::{Path, PathBuf};

use crate::errors::AreaError;
use crate::exit;

/// The inputs cannot be read on: each says where (the file, and the line, column or row
/// where the file tells it) and what is wrong.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InputError {
    /// The inputs hold no record.
    #[error("no records in {}", .inputs.join(", "))]
    Empty {
        /// The inputs' names.
        inputs: Vec<String>,
    },
    /// A JSON array broken off: nothing after the break can be read.
    #[error(
        "{}:{line}:{column}: malformed JSON array, after {after} complete record(s): {what}",
        .path.display()
    )]
    BrokenArray {
        /// The file.
        path: PathBuf,
        /// Where the break is: its 1-based line and column.
        line: usize,
        /// See `line`.
        column: usize,
        /// The records read before it.
        after: u64,
        /// What the JSON reader found there.
        what: String,
        /// How to mend it.
        hint: &'static str,
    },
    /// A column whose type has no JSON value, in a Parquet file (`path`) or an Arrow
    /// stream (`None`).
    #[error(
        "{}column `{column}` has type {kind}, which has no JSON equivalent",
        .path.as_ref().map(|p| format!("{}: ", p.display())).unwrap_or_default()
    )]
    UnreadableColumn {
        /// The file, or `None` for an Arrow stream.
        path: Option<PathBuf>,
        /// The column.
        column: String,
        /// Its Arrow type, in words.
        kind: String,
    },
    /// An Arrow stream that failed to give its next batch.
    #[error("reading the Arrow stream: {0}")]
    Stream(String),
    /// A row of an Arrow stream that is no record.
    #[error("{message}")]
    Row {
        /// What is wrong, with the row's place.
        message: String,
        /// How to mend it, when there is a way.
        hint: Option<String>,
    },
}

impl InputError {
    /// The file the reading stopped in, when it was one.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Self::BrokenArray { path, .. } => Some(path),
            Self::UnreadableColumn { path, .. } => path.as_deref(),
            Self::Empty { .. } | Self::Stream(_) | Self::Row { .. } => None,
        }
    }

    /// The 1-based line of the file it stopped at, when the file has lines.
    pub fn line(&self) -> Option<usize> {
        match self {
            Self::BrokenArray { line, .. } => Some(*line),
            _ => None,
        }
    }
}

impl AreaError for InputError {
    fn hint(&self) -> Option<String> {
        match self {
            Self::Empty { .. } => Some("the input is empty (or only blank lines)".to_owned()),
            Self::BrokenArray { hint, .. } => Some((*hint).to_owned()),
            Self::UnreadableColumn { path: Some(_), .. } => Some(
                "convert that column to a string or number type, or drop it, before reading the file"
                    .to_owned(),
            ),
            Self::UnreadableColumn { path: None, .. } => {
                Some("cast that column to a string or number type, or drop it, first".to_owned())
            }
            Self::Stream(_) => None,
            Self::Row { hint, .. } => hint.clone(),
        }
    }

    fn exit_code(&self) -> i32 {
        exit::RECORDS
    }
}
